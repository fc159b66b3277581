/** @import { ToolDefinition, ToolContext, ToolFamily } from './types.d.ts' */
import { z } from 'zod';
import { stripInvisible } from '../safety/invisible.js';
import { skillOwner, describeProblem } from '../mcp/tool-lists.js';

/** @param {ToolContext} ctx */
function skillsOf(ctx) {
  if (!ctx.skills) throw new Error('Skills are not available in this workspace.');
  return ctx.skills;
}

/** The longest script skill_run_script runs (characters). */
const MAX_SCRIPT_CHARS = 1_000_000;

const SkillName = z.string().min(1).max(64).describe("The skill's name, as listed in the system prompt");

/**
 * A skill the agent may use now: installed, enabled in this workspace and valid.
 * @param {ToolContext} ctx @param {string} name
 */
async function activeSkill(ctx, name) {
  const found = (await skillsOf(ctx).active()).find((s) => s.name === name);
  if (!found) {
    const names = (await skillsOf(ctx).active()).map((s) => s.name);
    throw new Error(
      `No enabled skill named “${name}”.${
        names.length ? ` Enabled skills: ${names.join(', ')}.` : ' No skill is enabled in this ' + 'workspace.'
      }`,
    );
  }
  return found;
}

/**
 * The system prompt's list of enabled skills: names and descriptions only (progressive
 * disclosure: the instructions load with skill_activate or the user's `/name`).
 * @param {import('../skills/format.js').Skill[]} skills
 */
export function skillsPrompt(skills) {
  // A built tool's skill holds a tool (registered on its own once approved), not instructions to follow.
  skills = skills.filter((s) => !s.metadata?.['clawser-tool']);
  if (!skills.length) return '';
  // A description cannot open or close a tag of the prompt: no "<" goes through.
  const clean = (/** @type {string} */ s) => stripInvisible(s).replace(/</g, '‹').replace(/\s+/g, ' ').trim();
  return (
    `\n\n<skills>\nSkills the user installed. When a task matches one, call skill_activate with its name first and follow its ` +
    `instructions.\n${skills.map((s) => `- ${s.name}: ${clean(s.description)}`).join('\n')}\n</skills>`
  );
}

/** The instructions the model gets when a skill is activated (tool or `/name`). @param {import('../skills/format.js').Skill} skill */
export function skillInstructions(skill) {
  const others = skill.files.filter((f) => f.path !== 'SKILL.md');
  const list = others.map(
    (f) =>
      `- ${f.path} (${f.binary ? `binary, ${f.size} bytes` : `${f.size} bytes`}${
        f.role === 'script'
          ? `, ` + `${f.language === 'javascript' || f.language === 'shell' ? 'run with skill_run_script' : 'cannot run in the browser'}`
          : ''
      })`,
  );
  return [
    `<skill name="${skill.name}">`,
    skill.body.trim(),
    '</skill>',
    others.length ? `Files of this skill (read one with skill_read_file when the instructions need it):\n${list.join('\n')}` : '',
    skill.allowedToolsGiven ? `Its scripts may call only: ${skill.allowedTools.join(', ') || 'no tools'}.` : '',
  ]
    .filter(Boolean)
    .join('\n');
}

/**
 * What a skill's text counts as for the taint: where it came from (SkillStore.origin), or null
 * for a skill the user wrote in Clawser.
 * @param {{name: string, origin?: string | null}} skill
 */
export function skillTaint(skill) {
  return skill.origin === null ? null : `the skill “${skill.name}” (${skill.origin ?? 'where it came from is not recorded'})`;
}

/** @type {ToolDefinition} */
export const skillActivate = {
  name: 'skill_activate',
  description:
    'Load the full instructions of one of the enabled skills listed in the system prompt, before ' +
    'doing a task it covers. Returns its instructions and the list of its files.',
  permission: 'read',
  schema: z.object({ name: SkillName }),
  async run({ name }, /** @type {ToolContext} */ ctx) {
    const skill = await activeSkill(ctx, name);
    // A skill from outside (downloaded, a ZIP, a folder, not recorded) is someone else's text:
    // its instructions taint the turn like a fetched page, flagged by the detector or not.
    const untrusted = skillTaint(skill);
    return {
      ok: true,
      output: skillInstructions(skill),
      events: [{ type: 'skill_activated', data: { name: skill.name, by: 'agent' } }],
      ...(untrusted ? { untrusted } : {}),
    };
  },
};

/** @type {ToolDefinition} */
export const skillReadFile = {
  name: 'skill_read_file',
  description:
    'Read a file of an enabled skill (references/, assets/, scripts/ …), a page at a time: pass the returned next offset to read on.',
  permission: 'read',
  readOnly: true,
  schema: z.object({
    name: SkillName,
    path: z.string().min(1).max(1000).describe('Path inside the skill, e.g. "references/forms.md"'),
    offset: z.number().int().min(0).optional().describe('Character offset to start at (from the previous page)'),
  }),
  async run({ name, path, offset }, /** @type {ToolContext} */ ctx) {
    const skill = await activeSkill(ctx, name);
    const page = await skillsOf(ctx).readFile(name, path, { offset });
    if (page.binary) return { ok: true, output: `${path} is a binary file (${page.size} bytes); it cannot be shown as text.` };
    const more =
      page.next !== null
        ? `\n…[characters ${page.offset}–${page.next} of ${page.total}; call again with offset ${page.next} for the rest]`
        : '';
    // A skill's files were written by whoever wrote the skill: outside content, like a fetched
    // page, unless the user wrote it in Clawser.
    const untrusted =
      skill.origin === null ? null : `a file of the skill “${name}” (${skill.origin ?? 'where it came from is not recorded'})`;
    return { ok: true, output: `${page.text}${more}`, ...(untrusted ? { untrusted } : {}) };
  },
};

/** @type {ToolDefinition} */
export const skillRunScript = {
  name: 'skill_run_script',
  description:
    'Run a script under scripts/ of an enabled skill. JavaScript runs in the sandbox with `args` (the object you pass) and the ' +
    'tools its skill allows as async functions (print() output and its final value come back); a shell script (.sh) runs in the ' +
    'workspace shell with $ARGS (JSON) and each argument as a variable (exit code, stdout, stderr come back).',
  permission: 'write',
  runsCode: 'sandbox',
  untrusted: 'the output of a skill script',
  taintsBeforeRun: true,
  schema: z.object({
    name: SkillName,
    script: z.string().min(1).max(1000).describe('e.g. "scripts/fill_form.js"'),
    args: z.record(z.string(), z.unknown()).optional(),
  }),
  async run({ name, script, args }, /** @type {ToolContext} */ ctx) {
    const skill = await activeSkill(ctx, name);
    const path = script.startsWith('scripts/') ? script : `scripts/${script}`;
    const file = skill.files.find((f) => f.path === path);
    if (!file)
      return {
        ok: false,
        output: `“${name}” has no ${path}. Its scripts: ${
          skill.files
            .filter((f) => f.role === 'script')
            .map((f) => f.path)
            .join(', ') || 'none'
        }.`,
      };
    const page = await skillsOf(ctx).readFile(name, path, { maxChars: MAX_SCRIPT_CHARS });
    if (page.next !== null)
      return {
        ok: false,
        output:
          `${path} is ${page.total.toLocaleString('en')} characters long; scripts of up ` +
          `to ${MAX_SCRIPT_CHARS.toLocaleString('en')} characters run here.`,
      };
    const source = page.text;
    // A script never starts sub-agents: they would get its caller's tools, not the skill's allowed-tools.
    // Always a bound (none given and no list of tools: no tools), held by the runner for every
    // call the script makes, through its shell and that shell's clawser and curl too.
    const allowed = skill.allowedToolsGiven ? skill.allowedTools : (ctx.toolNames ?? []);
    // An MCP tool is in the bound with its identity: the one the skill's list was bound to when it
    // was installed (a server replaced since under the same name is not), or the caller's now.
    // Without the workspace's MCP servers, no MCP tool is in it.
    const bound = ctx.mcp?.toolListFor(skill.allowedToolsGiven ? skillOwner(skill.scope, skill.name) : null, allowed) ?? {
      names: allowed,
      keys: [],
      problems: [],
    };
    const only = [...bound.names, ...bound.keys].filter((t) => t !== 'agent_delegate');
    const leftOut = bound.problems.length
      ? `${bound.problems.map((p) => describeProblem(`The skill “${name}”`, p)).join('\n')}\n(Installing the skill again chooses the ` +
        `tools of those names now.)`
      : '';
    if (leftOut) {
      const r = await runScript(file.language, path, source, args, only, ctx);
      return { ...r, output: `${leftOut}\n${r.output}` };
    }
    return runScript(file.language, path, source, args, only, ctx);
  },
  preview({ name, script, args }) {
    return `Run ${script} of the skill “${name}” in the sandbox${
      args && Object.keys(args).length ? ` ` + `with ${JSON.stringify(args).slice(0, 300)}` : ''
    }.`;
  },
};

/**
 * Runs a skill's script within its bound.
 * @param {string | null} language @param {string} path @param {string} source @param {Record<string, unknown> | undefined} args @param
 *   {string[]} only @param {ToolContext} ctx
 * @returns {Promise<import('./types.d.ts').ToolResult>}
 */
async function runScript(language, path, source, args, only, ctx) {
  // A shell script runs in a shell of its own over the workspace (web/tools/shell.js): its
  // `clawser` and `curl` calls pass the gates and stay within the skill's allowed-tools.
  if (language === 'shell') return (await import('./shell.js')).runShellScript(source, { args, only }, ctx);
  if (language !== 'javascript')
    return {
      ok: false,
      output:
        `${path} is not JavaScript: it cannot run in the browser (there is no ` +
        `${language === 'python' ? 'Python' : 'interpreter for it'} here). Its text, to follow by hand:\n${source}`,
    };
  if (!ctx.runCode) return { ok: false, output: 'The code sandbox is not available here.' };
  // The skill's allowed-tools bound what the script may call (the usual gates still apply to
  // each call), in a sandbox of its own, and it runs as written (its last expression is its
  // value). `args` is a global, so a script declaring its own `args` still runs.
  return ctx.runCode(`globalThis.args = ${JSON.stringify(args ?? {})};\n${source}`, ctx.signal, { only, isolated: true, adapt: false });
}

/** @type {ToolDefinition} */
export const skillInstall = {
  name: 'skill_install',
  description:
    'Install an Agent Skills package (a ZIP or a SKILL.md) from a URL into this workspace, ' +
    'so later conversations can use it. Only when the user asks for it.',
  permission: 'network',
  standing: true,
  schema: z.object({ url: z.string().url().max(2000) }),
  async run({ url }, /** @type {ToolContext} */ ctx) {
    const { skillsFromUrl } = await import('../skills/sources.js');
    const sources = await skillsFromUrl(url, ctx.fetch, ctx.signal);
    const installed = [];
    for (const s of sources) {
      const v = await skillsOf(ctx).install(s.dirName, s.files, { scope: 'workspace', origin: s.origin });
      installed.push(v.skill?.name ?? s.dirName);
    }
    return {
      ok: true,
      output: `Installed ${installed.map((n) => `“${n}”`).join(', ')}; enabled in this workspace.`,
      events: installed.map((n) => ({ type: /** @type {const} */ ('skill_installed'), data: { name: n, url } })),
    };
  },
  preview({ url }) {
    return `Install the skill at ${url} into this workspace: its instructions will be offered to the agent in later conversations.`;
  },
};

export const SKILL_TOOLS = [skillActivate, skillReadFile, skillRunScript, skillInstall];

/**
 * `clawser skill activate|install` call these tools; `list`, `enable`, `disable` and `remove` are
 * the command's own (web/shell/commands/clawser.js).
 * @type {ToolFamily}
 */
export const family = {
  id: 'skills',
  tools: SKILL_TOOLS,
  cli: [
    { verb: 'skill activate', tool: 'skill_activate', args: ['name'], usage: '<name>' },
    { verb: 'skill install', tool: 'skill_install', args: ['url'], usage: '<url>' },
  ],
};
