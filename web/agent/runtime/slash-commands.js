import { skillInstructions, skillTaint } from '../../tools/skills.js';

/**
 * What a user message starting with "/" asks for: an MCP server's prompt
 * ("/mcp__{server}__{prompt} arg…") or one of the workspace's skills ("/name …"). The agent
 * looks here before it records the message; the composer's "/" completes to the same commands
 * (`slashCompletions`).
 */

/** @typedef {import('../../ui/types.d.ts').SlashCompletion} SlashCommand a command the composer's "/" offers */

/** The most the "/" list shows. */
export const SLASH_LIMIT = 20;

/**
 * The commands the composer's "/…" completes to: its whole text is "/" and the start of a
 * command (none once a space follows). Those whose name starts with what was typed come first,
 * then those with a word of it starting so (after "-", "_" or "__"), each group in order; at
 * most SLASH_LIMIT.
 * @param {string} text @param {SlashCommand[]} commands
 * @returns {SlashCommand[]}
 */
export function slashCompletions(text, commands) {
  if (!/^\/[\p{L}\p{N}_-]*$/u.test(text)) return [];
  const typed = text.slice(1).toLowerCase();
  const name = (/** @type {SlashCommand} */ c) => c.command.slice(1).toLowerCase();
  const first = commands.filter((c) => name(c).startsWith(typed));
  /** @param {SlashCommand} c */
  const wordStarts = (c) =>
    name(c)
      .split(/[-_]+/)
      .some((w) => w.startsWith(typed));
  const words = typed ? commands.filter((c) => !first.includes(c) && wordStarts(c)) : [];
  return [...first, ...words].slice(0, SLASH_LIMIT);
}

/**
 * The MCP prompt a message "/mcp__{server}__{prompt} arg…" asks for: its text, or why not.
 * Arguments are given in the prompt's order, quoted when they hold spaces.
 * @param {string} text @param {import('../../mcp/manager.js').McpManager | undefined} mcp the workspace's MCP servers
 * @returns {Promise<{server: string, name: string, text: string} | {error: string} | null>}
 */
export async function slashPrompt(text, mcp) {
  const m = /^\/mcp__([a-z0-9_]+?)__([a-z0-9_]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!m || !mcp) return null;
  const found = mcp.findPrompt(m[1], m[2]);
  if (!found) return { error: `No connected MCP server has the prompt /mcp__${m[1]}__${m[2]}. Connect its server in the Servers panel.` };
  const values = [...(m[3] ?? '').matchAll(/"([^"]*)"|(\S+)/g)].map((x) => x[1] ?? x[2]);
  const declared = found.prompt.arguments ?? [];
  const missing = declared.filter((a, i) => a.required && values[i] === undefined);
  if (missing.length)
    return {
      error:
        `/mcp__${m[1]}__${m[2]} needs ${declared.map((a) => `${a.name}${a.required ? '' : ' (optional)'}`).join(', ')}; ` +
        `missing: ${missing.map((a) => a.name).join(', ')}. Quote a value with spaces.`,
    };
  /** @type {Record<string, string>} */
  const args = {};
  declared.forEach((a, i) => {
    if (values[i] !== undefined) args[a.name] = values[i];
  });
  try {
    return { server: found.server.name, name: found.prompt.name, text: await mcp.promptText(found.server.id, found.prompt.name, args) };
  } catch (err) {
    return {
      error: `The MCP server “${found.server.name}” could not give the prompt ${found.prompt.name}: ${/** @type {Error} */ (err).message}`,
    };
  }
}

/**
 * The enabled skill a message starting with "/name" activates, with its instructions and
 * what it counts as for the taint (skillTaint: null for a skill the user wrote), or null.
 * @param {string} text @param {import('../../skills/store.js').SkillStore | undefined} store the workspace's skills
 * @returns {Promise<{name: string, instructions: string, untrusted: string | null} | null>}
 */
export async function slashSkill(text, store) {
  const m = /^\/([\p{L}\p{N}-]{1,64})(?=\s|$)/u.exec(text.trimStart());
  if (!m || !store) return null;
  const skill = (await store.active().catch(() => [])).find((s) => s.name === m[1]);
  return skill ? { name: skill.name, instructions: skillInstructions(skill), untrusted: skillTaint(skill) } : null;
}
