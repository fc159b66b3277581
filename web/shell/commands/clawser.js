/** @import { Command } from 'just-bash' */
import { defineCommand } from 'just-bash';

/**
 * What the `clawser` command reaches. Everything that acts is a tool call (`callTool`), so in
 * the agent's shell it passes the same gates as the agent's own calls (autonomy, policy,
 * approval, the taint rule for memories, goals, jobs and skills); the rest are listings the
 * host provides.
 * @typedef {object} ClawserHost
 * @property {(name: string, args: Record<string, unknown>, signal?: AbortSignal) => Promise<{ok: boolean, output: string}>} callTool
 * @property {() => {name: string, permission: string, description: string, policy?: string}[]} tools
 * @property {(topic: 'memory' | 'skills' | 'mcp' | 'config' | 'conversations') => Promise<string>} [list]
 * @property {(key: string, value: string) => Promise<string>} [setConfig]
 * @property {(area: string, action: string, args: string[]) => Promise<string>} [act] what only the
 *   user may do (the terminal): pausing jobs, tool policies, enabling skills, MCP connections,
 *   conversations. Absent in the agent's shell: the agent does not change its own permissions.
 */

export const CLAWSER_SUBCOMMANDS = {
  memory: ['list', 'recall', 'add', 'forget', 'pin', 'unpin', 'export'],
  goal: ['list', 'add', 'update', 'done'],
  job: ['list', 'add', 'remove', 'pause', 'resume', 'run'],
  skill: ['list', 'activate', 'install', 'enable', 'disable', 'remove'],
  mcp: ['list', 'add', 'remove', 'connect', 'disconnect'],
  tool: ['list', 'call', 'policy', 'choices', 'rules', 'unrule'],
  config: ['list', 'set'],
  conversation: ['list', 'new', 'rename', 'delete', 'export'],
};

/** The actions only the user may take (the terminal's `act`). */
const USER_ONLY = new Set(['memory pin', 'memory unpin', 'memory export', 'job pause', 'job resume', 'job run', 'skill enable', 'skill disable', 'skill remove', 'mcp add', 'mcp remove', 'mcp connect', 'mcp disconnect', 'tool policy', 'tool choices', 'tool rules', 'tool unrule', 'conversation new', 'conversation rename', 'conversation delete', 'conversation export']);

const USAGE = `usage: clawser <area> <action> [args]
  memory list | recall <query> | add <key> <text> [--category core|learned|user|context] | forget <key> | pin <key> | unpin <key> | export
  goal list [--status s] | add <description> [--parent id] | update <id> [--status s] [--progress text] | done <id>
  job list | add <when> <prompt> [--name n] | remove <id> | pause <id> | resume <id> | run <id>
  skill list | activate <name> | install <url> | enable <name> | disable <name> | remove <name>
  mcp list | add <name> <url> | remove <server> | connect <server> | disconnect <server>
  tool list | call <tool> [json-arguments] | policy <tool> auto|approve|denied|default | choices | rules | unrule <tool> <kind> <pattern>
  config list | set <key> <value>
  conversation list | new [title] | rename <id> <title> | delete <id> | export <id> [markdown|jsonl|html]
(export prints to stdout: clawser conversation export c1 > notes/c1.md)
(pin, export, pause, run, enable, remove, add, connect, policy, choices, rules and the conversation actions are yours alone:
 the agent's shell does not have them. A tool of an MCP server that is not connected is named <server>/<tool>,
 as tool choices and tool rules show it: clawser tool policy github/create_issue default forgets its choice.)
`;

/**
 * The listings of `clawser memory|skill|mcp list`, from the workspace's stores (both the
 * terminal and the agent's shell use it); null when that store is not given.
 * `urls`: show MCP servers' addresses (the terminal's user; not the agent).
 * @param {'memory' | 'skills' | 'mcp'} topic
 * @param {{memory?: import('../../memory/store.js').MemoryStore, skills?: import('../../skills/store.js').SkillStore, mcp?: import('../../mcp/manager.js').McpManager}} stores
 * @param {{urls?: boolean}} [options]
 * @returns {Promise<string | null>}
 */
export async function listStore(topic, stores, options = {}) {
  if (topic === 'memory' && stores.memory) return (await stores.memory.list()).map((m) => `${m.key}\t${m.category}\t${m.content.slice(0, 80).replace(/\s+/g, ' ')}`).join('\n') || '(no memories)';
  if (topic === 'skills' && stores.skills) return (await stores.skills.list()).map((s) => `${s.name}\t${s.scope}\t${s.enabled ? 'enabled' : 'disabled'}${s.shadowed ? '\tshadowed' : ''}`).join('\n') || '(no skills)';
  const mcp = stores.mcp;
  if (topic === 'mcp' && mcp) return mcp.servers().map((s) => `${s.name}${options.urls ? `\t${s.url}` : ''}\t${mcp.state(s.id).status}\t${mcp.state(s.id).tools.length} tools`).join('\n') || '(no MCP servers)';
  return null;
}

/** @param {string} stdout */
const ok = (stdout) => ({ stdout: stdout && !stdout.endsWith('\n') ? `${stdout}\n` : stdout, stderr: '', exitCode: 0 });
/** @param {string} message @param {number} [exitCode] */
const fail = (message, exitCode = 1) => ({ stdout: '', stderr: message.replace(/\n?$/, '\n'), exitCode });

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
 * The `clawser` command: the panels' actions from the shell.
 * @param {ClawserHost} host
 * @returns {Command}
 */
export function clawserCommand(host) {
  return defineCommand('clawser', async (args, ctx) => {
    const [area, action, ...rest] = args;
    if (!area || area === 'help' || area === '--help') return { stdout: USAGE, stderr: '', exitCode: area ? 0 : 1 };
    const actions = /** @type {Record<string, string[]>} */ (CLAWSER_SUBCOMMANDS)[area];
    if (!actions) return fail(`clawser: unknown area "${area}"\n${USAGE}`, 2);
    if (!action || !actions.includes(action)) return fail(`clawser ${area}: choose one of ${actions.join(', ')}`, 2);
    /** @param {string} name @param {Record<string, unknown>} toolArgs */
    const call = async (name, toolArgs) => {
      const r = await host.callTool(name, toolArgs, ctx.signal);
      return r.ok ? ok(r.output) : fail(`clawser: ${r.output}`);
    };
    if (USER_ONLY.has(`${area} ${action}`)) {
      if (!host.act) return fail(`clawser ${area} ${action}: only the user can do this (in the Terminal panel), not the agent`);
      try {
        return ok(await host.act(area, action, rest));
      } catch (err) {
        return fail(`clawser: ${/** @type {Error} */ (err).message}`);
      }
    }
    /** @param {Parameters<NonNullable<ClawserHost['list']>>[0]} topic */
    const list = async (topic) => {
      if (!host.list) return fail(`clawser: ${topic} cannot be listed here`);
      try {
        return ok(await host.list(topic));
      } catch (err) {
        return fail(`clawser: ${/** @type {Error} */ (err).message}`);
      }
    };
    switch (`${area} ${action}`) {
      case 'memory list': return list('memory');
      case 'memory recall': return rest.length ? call('memory_recall', { query: rest.join(' ') }) : fail('clawser memory recall <query>', 2);
      case 'memory add': {
        const { opts, rest: r } = split(rest, ['--category', '-c']);
        if (r.length < 2) return fail('clawser memory add <key> <text>', 2);
        const category = opts.category ?? opts.c;
        return call('memory_store', { key: r[0], content: r.slice(1).join(' '), ...(category ? { category } : {}) });
      }
      case 'memory forget': return rest[0] ? call('memory_forget', { key: rest[0] }) : fail('clawser memory forget <key>', 2);
      case 'goal list': {
        const { opts } = split(rest, ['--status']);
        return call('goal_list', opts.status ? { status: opts.status } : {});
      }
      case 'goal add': {
        const { opts, rest: r } = split(rest, ['--parent']);
        if (!r.length) return fail('clawser goal add <description>', 2);
        return call('goal_add', { description: r.join(' '), ...(opts.parent ? { parentId: opts.parent } : {}) });
      }
      case 'goal update': {
        const { opts, rest: r } = split(rest, ['--status', '--progress']);
        if (!r[0]) return fail('clawser goal update <id> [--status s] [--progress text]', 2);
        return call('goal_update', { id: r[0], ...(opts.status ? { status: opts.status } : {}), ...(opts.progress ? { progress: opts.progress } : {}) });
      }
      case 'goal done': return rest[0] ? call('goal_update', { id: rest[0], status: 'completed' }) : fail('clawser goal done <id>', 2);
      case 'job list': return call('schedule_list', {});
      case 'job add': {
        const { opts, rest: r } = split(rest, ['--name']);
        if (r.length < 2) return fail('clawser job add <when> <prompt>   (e.g. clawser job add "every day at 9am" "summarize the news")', 2);
        return call('schedule_add', { when: r[0], prompt: r.slice(1).join(' '), ...(opts.name ? { name: opts.name } : {}) });
      }
      case 'job remove': return rest[0] ? call('schedule_remove', { id: rest[0] }) : fail('clawser job remove <id>', 2);
      case 'skill list': return list('skills');
      case 'skill activate': return rest[0] ? call('skill_activate', { name: rest[0] }) : fail('clawser skill activate <name>', 2);
      case 'skill install': return rest[0] ? call('skill_install', { url: rest[0] }) : fail('clawser skill install <url>', 2);
      case 'mcp list': return list('mcp');
      case 'tool list':
        return ok(host.tools().map((t) => `${t.name.padEnd(24)} ${t.permission.padEnd(8)} ${(t.policy ?? '').padEnd(8)} ${t.description.split('. ')[0]}`).join('\n'));
      case 'tool call': {
        if (!rest[0]) return fail('clawser tool call <tool> [json-arguments]', 2);
        /** @type {unknown} */
        let parsed = {};
        try {
          parsed = rest[1] ? JSON.parse(rest.slice(1).join(' ')) : {};
        } catch (err) {
          return fail(`clawser: the arguments are not valid JSON: ${/** @type {Error} */ (err).message}`, 2);
        }
        if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return fail('clawser: the arguments must be a JSON object', 2);
        return call(rest[0], /** @type {Record<string, unknown>} */ (parsed));
      }
      case 'config list': return list('config');
      case 'config set': {
        if (!host.setConfig) return fail('clawser: settings cannot be changed here');
        if (rest.length < 2) return fail('clawser config set <key> <value>', 2);
        try {
          return ok(await host.setConfig(rest[0], rest.slice(1).join(' ')));
        } catch (err) {
          return fail(`clawser: ${/** @type {Error} */ (err).message}`);
        }
      }
      case 'conversation list': return list('conversations');
      default: return fail(USAGE, 2);
    }
  });
}
