/** @import { Services } from './workspace-services.js' */
/** @import { AgentSettingsStore } from './agent-settings.js' */
/** @import { ChatController } from './chat-controller.js' */
/** @import { TerminalHostDeps, TerminalHost } from './terminal-host.js' */
/** @import { ConfigStore } from '../storage/types.d.ts' */
/** @import { FileSystem } from '../storage/types.d.ts' */
/** @import { ToolContext } from '../tools/types.d.ts' */
import { withSetting } from './agent-settings.js';

/**
 * What the terminal's `clawser` command does to a workspace when the user types it: lists of
 * its stores, the user's own actions (pin a memory, pause a job, set a tool's policy, rename or
 * delete a conversation, ...) and `clawser config set` (an agent setting by its dotted path).
 * The shell command (web/shell/commands/clawser.js) parses the line; this carries it out.
 * @param {object} deps
 * @param {string} deps.workspaceId
 * @param {Services} deps.services the workspace's services
 * @param {AgentSettingsStore} deps.agentSettings
 * @param {() => ChatController} deps.chat the workspace's conversations
 * @returns {Pick<TerminalHostDeps, 'list' | 'act' | 'setConfig'>}
 */
export function terminalActions({ workspaceId, services, agentSettings, chat }) {
  const { registry } = services;
  /**
   * The key a name typed in the Terminal stands for: a tool's (its identity), or an MCP server's
   * tool named <server>/<tool> whether or not it is connected; null when it names nothing.
   * @param {string} name
   */
  const keyOfName = async (name) => {
    if (registry.get(name)) return registry.keyOf(name);
    return name.includes('/') ? (await services.mcp()).keyOfChoiceName(name) : null;
  };
  /** A stored choice's tool as the Terminal names it: its name while it is there, else <server>/<tool>. @param {string} key */
  const labelOf = async (key) => {
    const tool = registry.toolOfKey(key);
    if (tool) return tool.name;
    return key.startsWith('mcp:') ? ((await services.mcp()).choiceName(key) ?? key) : key;
  };
  /** What a choice's tool is, when it is not there now ("\t" and the words). @param {string} key */
  const noteOf = async (key) =>
    registry.toolOfKey(key) || !key.startsWith('mcp:') ? '' : `\t${(await services.mcp()).describeKey(key) ?? ''}`;
  return {
    list: async (topic) => {
      const { listStore } = await import('../shell/commands/clawser.js');
      if (topic === 'memory') return /** @type {string} */ (await listStore(topic, { memory: await services.memory() }));
      if (topic === 'skills') return /** @type {string} */ (await listStore(topic, { skills: await services.skills() }));
      if (topic === 'mcp') return /** @type {string} */ (await listStore(topic, { mcp: await services.mcp() }, { urls: true }));
      if (topic === 'conversations')
        return (
          chat()
            .state.conversations.map((c) => `${c.id}\t${c.title}`)
            .join('\n') || '(no conversations)'
        );
      return JSON.stringify(agentSettings.load(workspaceId), null, 2);
    },
    act: async (area, action, args) => {
      const [first, ...rest] = args;
      const need = (/** @type {string | undefined} */ v, /** @type {string} */ what) => {
        if (!v) throw new Error(`give ${what}`);
        return v;
      };
      switch (`${area} ${action}`) {
        case 'memory pin':
        case 'memory unpin': {
          const store = await services.memory();
          const key = need(first, 'the memory’s key');
          const entry = (await store.list()).find((m) => m.key.toLowerCase() === key.toLowerCase());
          if (!entry) throw new Error(`there is no memory "${key}"`);
          await store.store({ key: entry.key, content: entry.content, category: entry.category, pinned: action === 'pin' });
          return `${action === 'pin' ? 'Pinned' : 'Unpinned'} "${entry.key}".`;
        }
        case 'memory export':
          return JSON.stringify(await (await services.memory()).exportJson(), null, 2);
        case 'job pause':
          await services.scheduler.pause(need(first, 'a job id'));
          return `Paused ${first}.`;
        case 'job resume':
          await services.scheduler.resume(need(first, 'a job id'));
          return `Resumed ${first}.`;
        case 'job run':
          await services.scheduler.runNow(need(first, 'a job id'));
          return `Ran ${first}.`;
        case 'skill enable':
        case 'skill disable':
          (await services.skills()).setEnabled(need(first, 'a skill name'), action === 'enable');
          return `${action === 'enable' ? 'Enabled' : 'Disabled'} the skill "${first}" in this workspace.`;
        case 'skill remove': {
          const skills = await services.skills();
          const name = need(first, 'a skill name');
          const entry = (await skills.list()).find((x) => x.name === name && !x.shadowed);
          if (!entry) throw new Error(`there is no skill "${name}" (see clawser skill list)`);
          await skills.remove(name, entry.scope);
          return `Removed the skill "${name}".`;
        }
        case 'mcp add': {
          const server = await (await services.mcp()).add({ name: need(first, 'a name'), url: need(rest[0], "the server's URL") });
          return `Added ${server.name} (${server.id}); connect it with clawser mcp connect ${server.name}.`;
        }
        case 'mcp remove':
        case 'mcp connect':
        case 'mcp disconnect': {
          const mcp = await services.mcp();
          const name = need(first, 'a server name or id');
          const server = mcp.servers().find((x) => x.id === name || x.name === name);
          if (!server) throw new Error(`there is no MCP server "${name}" (see clawser mcp list)`);
          if (action === 'connect') await mcp.connect(server.id);
          else if (action === 'remove') await mcp.remove(server.id);
          else await mcp.disconnect(server.id);
          return `${action === 'connect' ? 'Connected' : action === 'remove' ? 'Removed' : 'Disconnected'} ${server.name}.`;
        }
        case 'tool policy': {
          const name = need(first, 'a tool name');
          const policy = need(rest[0], 'auto, approve, denied or default');
          if (!['auto', 'approve', 'denied', 'default'].includes(policy)) throw new Error('the policy is auto, approve, denied or default');
          const key = await keyOfName(name);
          if (!key)
            throw new Error(
              `there is no tool "${name}" (see clawser tool list; a tool of an MCP server that is not connected is named ` +
                `<server>/<tool>, see clawser tool choices)`,
            );
          services.registry.setPolicy(key, policy === 'default' ? null : /** @type {'auto' | 'approve' | 'denied'} */ (policy));
          return `${name}: ${policy}.`;
        }
        case 'tool choices': {
          // Every choice kept, whether or not its tool is there now (an MCP server not connected: <server>/<tool>).
          const lines = [];
          for (const [key, policy] of Object.entries(services.registry.overrides()))
            lines.push(`${await labelOf(key)}\t${policy}${await noteOf(key)}`);
          return lines.join('\n') || '(no choices: every tool follows its default)';
        }
        case 'tool rules': {
          // An MCP server's tool's rule is kept under the server's identity: shown by the tool's
          // name while connected, else as <server>/<tool>.
          const lines = [];
          for (const r of services.registry.rules()) lines.push(`${await labelOf(r.tool)}\t${r.kind}\t${r.pattern}${await noteOf(r.tool)}`);
          return lines.join('\n') || '(no rules)';
        }
        case 'tool unrule': {
          const [tool, kind, ...pattern] = args;
          const key = tool ? await keyOfName(tool) : null;
          const rule = services.registry
            .rules()
            .find((r) => (r.tool === tool || r.tool === key) && r.kind === kind && r.pattern === pattern.join(' '));
          if (!rule) throw new Error('no such rule (see clawser tool rules)');
          services.registry.removeRule(rule);
          return 'Rule removed.';
        }
        case 'conversation new': {
          const meta = await chat().newConversation();
          if (args.length) await chat().rename(meta.id, args.join(' '));
          return meta.id;
        }
        case 'conversation rename':
          await chat().rename(need(first, 'a conversation id'), need(rest.join(' '), 'a title'));
          return 'Renamed.';
        case 'conversation export': {
          const format = rest[0] ?? 'markdown';
          if (!['markdown', 'jsonl', 'html'].includes(format)) throw new Error('the format is markdown, jsonl or html');
          return (await chat().exportConversation(need(first, 'a conversation id'), /** @type {'markdown' | 'jsonl' | 'html'} */ (format)))
            .text;
        }
        case 'conversation delete':
          await chat().remove(need(first, 'a conversation id'));
          return 'Deleted.';
        default:
          throw new Error(`${area} ${action} is not available`);
      }
    },
    setConfig: async (key, value) => {
      const { next, parsed } = withSetting(agentSettings.load(workspaceId), key, value);
      try {
        agentSettings.save(workspaceId, next);
      } catch (err) {
        throw new Error(`"${value}" is not a valid value for ${key}: ${/** @type {Error} */ (err).message.slice(0, 300)}`);
      }
      return `${key} = ${JSON.stringify(parsed)}`;
    },
  };
}

/**
 * Each workspace's terminal host, made when its Terminal panel first opens (the shell is loaded
 * then) and kept while the page lives, so switching panels does not lose a session.
 */
export class TerminalHosts {
  /** @type {Map<string, Promise<TerminalHost>>} */
  #hosts = new Map();

  /**
   * @param {object} deps
   * @param {ConfigStore} deps.config
   * @param {AgentSettingsStore} deps.agentSettings
   * @param {(workspaceId: string) => Services} deps.services
   * @param {(workspaceId: string) => FileSystem} deps.workspaceFs
   * @param {(workspaceId: string) => Promise<ToolContext>} deps.toolContext what the `clawser` command's tools get
   * @param {(workspaceId: string) => ChatController} deps.chat
   */
  constructor(deps) {
    this.deps = deps;
  }

  /** @param {string} workspaceId @returns {Promise<TerminalHost>} */
  of(workspaceId) {
    let host = this.#hosts.get(workspaceId);
    if (!host) {
      host = this.#make(workspaceId);
      this.#hosts.set(workspaceId, host);
      host.catch(() => this.#hosts.delete(workspaceId));
    }
    return host;
  }

  /** @param {string} workspaceId */
  async #make(workspaceId) {
    const { TerminalHost } = await import('./terminal-host.js');
    const d = this.deps;
    const services = d.services(workspaceId);
    return new TerminalHost({
      workspaceId,
      fs: d.workspaceFs(workspaceId),
      config: d.config,
      registry: services.registry,
      git: () => services.git(),
      toolContext: () => d.toolContext(workspaceId),
      remote: services.remote,
      ...terminalActions({ workspaceId, services, agentSettings: d.agentSettings, chat: () => d.chat(workspaceId) }),
    });
  }
}
