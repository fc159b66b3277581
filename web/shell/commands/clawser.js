/** @import { Command } from 'just-bash' */
/** @import { ToolFamily, CliVerb, ToolDefinition } from '../../tools/types.d.ts' */
import { defineCommand } from 'just-bash';
import { TOOL_FAMILIES, ToolFamilyError, checkedFamilies, onlyReads } from '../../tools/families.js';

/**
 * What the `clawser` command reaches. Everything that acts is a tool call (`callTool`), so in
 * the agent's shell it passes the same gates as the agent's own calls (autonomy, policy,
 * approval, the taint rule for memories, goals, jobs and skills); the rest are listings the
 * host provides.
 * @typedef {object} ClawserHost
 * @property {(name: string, args: Record<string, unknown>, signal?: AbortSignal) => Promise<{ok: boolean, output: string}>} callTool
 * @property {() => {name: string, permission: string, description: string, policy?: string}[]} tools
 * @property {(topic: ListTopic) => Promise<string>} [list]
 * @property {(key: string, value: string) => Promise<string>} [setConfig]
 * @property {(area: string, action: string, args: string[]) => Promise<string>} [act] what only the
 *   user may do (the terminal): pausing jobs, tool policies, enabling skills, MCP connections,
 *   conversations. Absent in the agent's shell: the agent does not change its own permissions.
 * @property {readonly ToolFamily[]} [families] the tool families whose verbs it offers (default:
 *   the built-in ones of web/tools/families.js)
 */

/** @typedef {'memory' | 'skills' | 'mcp' | 'config' | 'conversations'} ListTopic */
/** @typedef {{stdout: string, stderr: string, exitCode: number}} Outcome */

/**
 * What a verb runs with: the host, a tool call whose result is the command's, and a listing.
 * @typedef {object} VerbIo
 * @property {ClawserHost} host
 * @property {(name: string, args: Record<string, unknown>) => Promise<Outcome>} call
 * @property {(topic: ListTopic) => Promise<Outcome>} list
 */

/**
 * A verb of the command, as `clawser help` lists it and a line runs it.
 * @typedef {object} Verb
 * @property {string} verb `area action`
 * @property {string} area
 * @property {string} action
 * @property {string} usage what help shows after the action
 * @property {boolean} readOnly a line the shell judges read-only may run it (web/shell/read-only.js)
 * @property {string} [tool] the tool it calls (a family's verb)
 * @property {boolean} [user] only the user may run it (the terminal's `act`)
 * @property {(rest: string[], io: VerbIo) => Promise<Outcome>} run
 */

/**
 * The listings of `clawser memory|skill|mcp list`, from the workspace's stores (both the
 * terminal and the agent's shell use it); null when that store is not given.
 * `urls`: show MCP servers' addresses (the terminal's user; not the agent).
 * @param {'memory' | 'skills' | 'mcp'} topic
 * @param {{memory?: import('../../memory/store.js').MemoryStore, skills?: import('../../skills/store.js').SkillStore,
 *   mcp?: import('../../mcp/manager.js').McpManager}} stores
 * @param {{urls?: boolean}} [options]
 * @returns {Promise<string | null>}
 */
export async function listStore(topic, stores, options = {}) {
  if (topic === 'memory' && stores.memory)
    return (
      (await stores.memory.list()).map((m) => `${m.key}\t${m.category}\t${m.content.slice(0, 80).replace(/\s+/g, ' ')}`).join('\n') ||
      '(no memories)'
    );
  if (topic === 'skills' && stores.skills)
    return (
      (await stores.skills.list())
        .map((s) => `${s.name}\t${s.scope}\t${s.enabled ? 'enabled' : 'disabled'}${s.shadowed ? '\tshadowed' : ''}`)
        .join('\n') || '(no skills)'
    );
  const mcp = stores.mcp;
  if (topic === 'mcp' && mcp)
    return (
      mcp
        .servers()
        .map((s) => `${s.name}${options.urls ? `\t${s.url}` : ''}\t${mcp.state(s.id).status}\t${mcp.state(s.id).tools.length} tools`)
        .join('\n') || '(no MCP servers)'
    );
  return null;
}

/** @param {string} stdout @returns {Outcome} */
const ok = (stdout) => ({ stdout: stdout && !stdout.endsWith('\n') ? `${stdout}\n` : stdout, stderr: '', exitCode: 0 });
/** @param {string} message @param {number} [exitCode] @returns {Outcome} */
const fail = (message, exitCode = 1) => ({ stdout: '', stderr: message.replace(/\n?$/, '\n'), exitCode });
/** What the host says, or why it failed. @param {() => Promise<string>} work @returns {Promise<Outcome>} */
async function outcome(work) {
  try {
    return ok(await work());
  } catch (err) {
    return fail(`clawser: ${/** @type {Error} */ (err).message}`);
  }
}

/**
 * The command's own verbs: the listings and settings its host provides, calling any tool by name,
 * and what only the user may do (`user`: the terminal's `act`; the agent's shell refuses it, so
 * the agent cannot widen its own permissions). A listing is `readOnly` when a read-only line may
 * show it to the agent. The tool families' verbs join these (clawserCli): in an area, its `list`
 * comes first, then the families' verbs, then the rest of these.
 * @type {{verb: string, usage?: string, readOnly?: true, user?: true, run?: Verb['run']}[]}
 */
const OWN_VERBS = [
  { verb: 'memory list', readOnly: true, run: (_, io) => io.list('memory') },
  { verb: 'memory pin', usage: '<key>', user: true },
  { verb: 'memory unpin', usage: '<key>', user: true },
  { verb: 'memory export', user: true },
  { verb: 'job pause', usage: '<id>', user: true },
  { verb: 'job resume', usage: '<id>', user: true },
  { verb: 'job run', usage: '<id>', user: true },
  { verb: 'skill list', readOnly: true, run: (_, io) => io.list('skills') },
  { verb: 'skill enable', usage: '<name>', user: true },
  { verb: 'skill disable', usage: '<name>', user: true },
  { verb: 'skill remove', usage: '<name>', user: true },
  { verb: 'mcp list', readOnly: true, run: (_, io) => io.list('mcp') },
  { verb: 'mcp add', usage: '<name> <url>', user: true },
  { verb: 'mcp remove', usage: '<server>', user: true },
  { verb: 'mcp connect', usage: '<server>', user: true },
  { verb: 'mcp disconnect', usage: '<server>', user: true },
  {
    verb: 'tool list',
    readOnly: true,
    run: async (_, io) => {
      const rows = io.host.tools().map(({ name, permission, policy, description }) => {
        return `${name.padEnd(24)} ${permission.padEnd(8)} ${(policy ?? '').padEnd(8)} ${description.split('. ')[0]}`;
      });
      return ok(rows.join('\n'));
    },
  },
  { verb: 'tool call', usage: '<tool> [json-arguments]', run: callByName },
  { verb: 'tool policy', usage: '<tool> auto|approve|denied|default', user: true },
  { verb: 'tool choices', user: true },
  { verb: 'tool rules', user: true },
  { verb: 'tool unrule', usage: '<tool> <kind> <pattern>', user: true },
  // Not read-only: the agent's shell cannot list the settings or the conversations at all.
  { verb: 'config list', run: (_, io) => io.list('config') },
  {
    verb: 'config set',
    usage: '<key> <value>',
    run: async (rest, io) => {
      const { setConfig } = io.host;
      if (!setConfig) return fail('clawser: settings cannot be changed here');
      if (rest.length < 2) return fail('clawser config set <key> <value>', 2);
      return outcome(() => setConfig(rest[0], rest.slice(1).join(' ')));
    },
  },
  { verb: 'conversation list', run: (_, io) => io.list('conversations') },
  { verb: 'conversation new', usage: '[title]', user: true },
  { verb: 'conversation rename', usage: '<id> <title>', user: true },
  { verb: 'conversation delete', usage: '<id>', user: true },
  { verb: 'conversation export', usage: '<id> [markdown|jsonl|html]', user: true },
];

/** What `clawser help` says after the verbs. */
const HELP_NOTES = `(export prints to stdout: clawser conversation export c1 > notes/c1.md)
(pin, export, pause, run, enable, remove, add, connect, policy, choices, rules and the conversation actions are yours alone:
 the agent's shell does not have them. A tool of an MCP server that is not connected is named <server>/<tool>,
 as tool choices and tool rules show it: clawser tool policy github/create_issue default forgets its choice.)
`;

/** `clawser tool call <tool> [json-arguments]`. @type {Verb['run']} */
async function callByName(rest, io) {
  if (!rest[0]) return fail('clawser tool call <tool> [json-arguments]', 2);
  /** @type {unknown} */
  let parsed = {};
  try {
    parsed = rest[1] ? JSON.parse(rest.slice(1).join(' ')) : {};
  } catch (err) {
    return fail(`clawser: the arguments are not valid JSON: ${/** @type {Error} */ (err).message}`, 2);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return fail('clawser: the arguments must be a JSON object', 2);
  return io.call(rest[0], /** @type {Record<string, unknown>} */ (parsed));
}

/** @param {string[]} args @param {string[]} valued */
function split(args, valued) {
  /** @type {Record<string, string>} */
  const opts = {};
  /** @type {string[]} */
  const rest = [];
  for (let i = 0; i < args.length; i++) {
    const eq = args[i].match(/^--([^=]+)=(.*)$/s);
    if (eq) opts[eq[1]] = eq[2];
    else if (valued.includes(args[i])) opts[args[i].replace(/^-+/, '')] = args[++i] ?? '';
    else rest.push(args[i]);
  }
  return { opts, rest };
}

/**
 * A family verb's tool arguments from the words after it, or null when words are missing (see
 * CliVerb.args). Options are parsed only for a verb that has some (`--x=y` then counts as one).
 * @param {CliVerb} spec @param {string[]} words @returns {Record<string, unknown> | null}
 */
export function verbArguments(spec, words) {
  const options = Object.entries(spec.options ?? {});
  const { opts, rest } = options.length
    ? split(
        words,
        options.flatMap(([, flags]) => flags),
      )
    : { opts: {}, rest: words };
  const names = spec.args ?? [];
  const takesRest = names.at(-1)?.endsWith('...');
  if (takesRest ? rest.length < names.length : names.some((_, i) => !rest[i])) return null;
  /** @type {Record<string, unknown>} */
  const args = {};
  names.forEach((name, i) => {
    if (name.endsWith('...')) args[name.slice(0, -3)] = rest.slice(i).join(' ');
    else args[name] = rest[i];
  });
  for (const [name, flags] of options) {
    const value = flags.map((f) => opts[f.replace(/^-+/, '')]).find((v) => v !== undefined);
    if (value) args[name] = value;
  }
  return { ...args, ...spec.fixed };
}

/** @param {CliVerb} spec @param {ToolDefinition} tool @returns {Verb} */
function familyVerb(spec, tool) {
  const [area, action] = spec.verb.split(' ');
  return {
    verb: spec.verb,
    area,
    action,
    usage: spec.usage,
    tool: spec.tool,
    // Declared by the tool, never by the verb: only a "read" tool that only reads.
    readOnly: onlyReads(tool),
    run: async (rest, io) => {
      const args = verbArguments(spec, rest);
      return args ? io.call(spec.tool, args) : fail(`clawser ${spec.verb} ${spec.usageError ?? spec.usage}`, 2);
    },
  };
}

/** @param {(typeof OWN_VERBS)[number]} entry @returns {Verb} */
function ownVerb(entry) {
  const [area, action] = entry.verb.split(' ');
  /** @type {Verb['run']} */
  const byUser = async (rest, io) => {
    const { act } = io.host;
    if (!act) return fail(`clawser ${area} ${action}: only the user can do this (in the Terminal panel), not the agent`);
    return outcome(() => act(area, action, rest));
  };
  return {
    verb: entry.verb,
    area,
    action,
    usage: entry.usage ?? '',
    readOnly: entry.readOnly === true,
    user: entry.user === true,
    run: entry.user ? byUser : /** @type {Verb['run']} */ (entry.run),
  };
}

/**
 * The `clawser` command the families make: its verbs (its own and the families'), its help, its
 * areas and their actions (tab completion), the verbs a read-only line may run and the tools it
 * may then call. A family verb that takes one of the command's own or another's throws.
 * @typedef {{verbs: Verb[], usage: string, subcommands: Record<string, string[]>, readOnly: string[], readOnlyTools: string[],
 *   runsCode: string[]}} ClawserCli
 * @param {readonly ToolFamily[]} [families]
 * @returns {ClawserCli}
 * @throws {ToolFamilyError}
 */
export function clawserCli(families = TOOL_FAMILIES) {
  if (families === TOOL_FAMILIES && builtin) return builtin;
  const checked = checkedFamilies(families);
  const tools = checked.flatMap((f) => f.tools);
  const fromFamilies = checked.flatMap(({ family, tools: its }) =>
    (family.cli ?? []).map((spec) => {
      // checkedFamilies made sure the tool is the family's.
      return familyVerb(spec, /** @type {ToolDefinition} */ (its.find((t) => t.name === spec.tool)));
    }),
  );
  const own = OWN_VERBS.map(ownVerb);
  const taken = fromFamilies.filter((v) => own.some((o) => o.verb === v.verb));
  if (taken.length) throw new ToolFamilyError(taken.map((v) => `the clawser verb "${v.verb}" is the command's own`));
  const areas = [...new Set([...fromFamilies, ...own].map((v) => v.area))];
  const verbs = areas.flatMap((area) => [
    ...own.filter((v) => v.area === area && v.action === 'list'),
    ...fromFamilies.filter((v) => v.area === area),
    ...own.filter((v) => v.area === area && v.action !== 'list'),
  ]);
  const ofArea = (/** @type {string} */ area) => verbs.filter((v) => v.area === area);
  const lines = areas.map(
    (area) =>
      `  ${area} ${ofArea(area)
        .map((v) => [v.action, v.usage].filter(Boolean).join(' '))
        .join(' | ')}`,
  );
  const cli = {
    verbs,
    usage: `usage: clawser <area> <action> [args]\n${lines.join('\n')}\n${HELP_NOTES}`,
    subcommands: Object.fromEntries(areas.map((area) => [area, ofArea(area).map((v) => v.action)])),
    readOnly: verbs.filter((v) => v.readOnly).map((v) => v.verb),
    readOnlyTools: tools.filter(onlyReads).map((t) => t.name),
    // A shell line starts no code: not the shell again, not the sandbox (each declares runsCode).
    runsCode: tools.filter((t) => t.runsCode).map((t) => t.name),
  };
  if (families === TOOL_FAMILIES) builtin = cli;
  return cli;
}

/** The built-in families' command, made once. @type {ClawserCli | null} */
let builtin = null;

/** The areas of `clawser` and their actions (tab completion). */
export const CLAWSER_SUBCOMMANDS = clawserCli().subcommands;

/**
 * The `clawser` command: the panels' actions from the shell.
 * @param {ClawserHost} host
 * @returns {Command}
 */
export function clawserCommand(host) {
  const cli = clawserCli(host.families);
  // Maps, not objects: an area named like an Object property (`constructor`) is just unknown.
  const areas = new Map(Object.entries(cli.subcommands));
  const verbs = new Map(cli.verbs.map((v) => [v.verb, v]));
  return defineCommand('clawser', async (args, ctx) => {
    const [area, action, ...rest] = args;
    if (!area || area === 'help' || area === '--help') return { stdout: cli.usage, stderr: '', exitCode: area ? 0 : 1 };
    const actions = areas.get(area);
    if (!actions) return fail(`clawser: unknown area "${area}"\n${cli.usage}`, 2);
    if (!action || !actions.includes(action)) return fail(`clawser ${area}: choose one of ${actions.join(', ')}`, 2);
    /** @type {VerbIo} */
    const io = {
      host,
      call: async (name, toolArgs) => {
        const r = await host.callTool(name, toolArgs, ctx.signal);
        return r.ok ? ok(r.output) : fail(`clawser: ${r.output}`);
      },
      list: async (topic) => {
        const { list } = host;
        return list ? outcome(() => list(topic)) : fail(`clawser: ${topic} cannot be listed here`);
      },
    };
    return /** @type {Verb} */ (verbs.get(`${area} ${action}`)).run(rest, io);
  });
}
