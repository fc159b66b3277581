/** @import { FileSystem } from '../../storage/types.d.ts' */
/** @import { AgentDefinition, ScopedAgent } from './agent-definitions.js' */
/** @import { IdentitySource } from './identity.js' */
import { z } from 'zod';
import { LockedJsonFile } from '../../storage/locked-json.js';
import { readTextIfExists } from '../../storage/index.js';
import { LocalLocks } from '../../storage/local-locks.js';
import { AgentDefinitionSchema, DEFAULT_AGENT_NAME, defaultAgent, validateAgent } from './agent-definitions.js';
import { parseIdentity } from './identity.js';
import { setAsideFile } from '../../storage/damage.js';
import { agentOwner, describeProblem, isMcpName } from '../../mcp/tool-lists.js';

/**
 * The named agents of a workspace and the global ones, and the workspace's identity. A
 * definition is a standing instruction (its prompt rides along with every message to it), so
 * the files live in Clawser's own `.agents/` folder, which only this store writes: a cloned
 * repository's `config/identity.json` never becomes the agent's persona by being there. The
 * workspace identity is `.agents/config/identity.json` (AIEOS) or `.agents/config/identity.md`
 * (a Markdown persona). Global definitions are in the browser's `clawser_agents/` folder.
 */

const FILE = '.agents/agents.json';
const IDENTITY_JSON = '.agents/config/identity.json';
const IDENTITY_MD = '.agents/config/identity.md';
const HEARTBEAT = '.agents/HEARTBEAT.md';
/** Written by this store: an `.agents/` folder without it was put there by something else. */
const MARKER = '.agents/store.json';
const FileSchema = z.object({ version: z.literal(1), agents: z.array(AgentDefinitionSchema) });

export class AgentStoreError extends Error {
  /** @param {'invalid' | 'exists' | 'not_found' | 'builtin'} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.name = 'AgentStoreError';
    this.code = code;
  }
}

export class AgentStore {
  /** @type {Set<() => void>} */
  #listeners = new Set();
  #locks = new LocalLocks();

  /**
   * @param {{fs: FileSystem, globalFs: FileSystem, coordination?: import('../types.d.ts').Coordination, key?: string,
   *   onDamage?: import('../../storage/damage.js').DamageSink, onGlobalDamage?: import('../../storage/damage.js').DamageSink,
   *   toolLists?: import('../../mcp/tool-lists.js').ToolListBinder}} deps
   *   fs: the workspace's own file system (the store writes `.agents/`); globalFs: the browser-wide folder;
   *   onDamage, onGlobalDamage: told when the workspace's or the global agents file is damaged (with a way to set it aside);
   *   toolLists: binds the MCP tools an agent's list names to the servers they are when it is saved (see forUse)
   */
  constructor(deps) {
    this.fs = deps.fs;
    this.toolLists = deps.toolLists;
    this.onDamage = deps.onDamage;
    this.onGlobalDamage = deps.onGlobalDamage;
    this.globalFs = deps.globalFs;
    this.coordination = deps.coordination;
    this.topic = `agents:${deps.key ?? ''}`;
    this.coordination?.subscribe(this.topic, () => this.#changed());
    this.coordination?.subscribe('agents:global', () => this.#changed());
  }

  /** Where an `.agents/` folder this store did not write was moved to (shown by the Agents panel). @type {string | null} */
  quarantined = null;
  /** Damaged agent files the last list() skipped. @type {{scope: 'workspace' | 'global', message: string}[]} */
  problems = [];

  /**
   * Moves a damaged agents file aside (kept next to it, named `agents.damaged-….json`) so the
   * scope starts empty again.
   * @param {'workspace' | 'global'} scope
   * @returns {Promise<string>} where it went
   */
  async setAsideDamaged(scope) {
    return this.#file(scope).setAside();
  }
  /** @type {Promise<void> | null} */
  #vetting = null;

  /**
   * Once per page: an `.agents/` folder without this store's marker predates it (a clone, a ZIP
   * import or a tool wrote it before the folder was Clawser's own) — its definitions, identity and
   * checklist would become standing instructions nobody approved. It is moved aside, visible and
   * untouched, and the folder starts empty.
   */
  #vet() {
    return (this.#vetting ??= (async () => {
      if (await this.fs.stat(MARKER).catch(() => null)) return;
      if (await this.fs.stat('.agents').catch(() => null)) {
        const stamp = new Date().toISOString().replace(/[:.]/g, '-');
        const aside = `agents-found-in-workspace-${stamp}`;
        try {
          await this.fs.move('.agents', aside);
          this.quarantined = aside;
        } catch {
          // A folder opened from the computer keeps `.agents/` in the browser, apart from the
          // folder: set the found files aside inside it instead (kept, never read).
          const inside = `.agents/found-${stamp}`;
          for (const e of await this.fs.list('.agents')) await this.fs.move(`.agents/${e.name}`, `${inside}/${e.name}`);
          this.quarantined = inside;
        }
      }
      await this.fs.write(MARKER, JSON.stringify({ version: 1, createdAt: Date.now() }));
    })().catch(() => {
      // Not vetted: nothing of the folder is used (list() says so), saving refuses, and the next call tries again.
      this.#vetting = null;
    }));
  }

  /** Whether the workspace folder is this store's (after vetting). */
  async #trusted() {
    await this.#vet();
    return !!(await this.fs.stat(MARKER).catch(() => null));
  }

  #changed() {
    for (const fn of this.#listeners) fn();
  }

  /** Told when an agent or the identity changes (here or in another tab). @param {() => void} fn */
  subscribe(fn) {
    this.#listeners.add(fn);
    return () => {
      this.#listeners.delete(fn);
    };
  }

  /** @param {'workspace' | 'global'} scope */
  #file(scope) {
    const c = this.coordination;
    const topic = scope === 'global' ? 'agents:global' : this.topic;
    const onDamage = scope === 'global' ? this.onGlobalDamage : this.onDamage;
    return new LockedJsonFile({
      fs: scope === 'global' ? this.globalFs : this.fs,
      path: scope === 'global' ? 'agents.json' : FILE,
      name: topic,
      lock: c ? (name, fn) => c.withLock(name, fn) : (name, fn) => this.#locks.request(name, {}, fn),
      empty: () => ({ version: /** @type {const} */ (1), agents: /** @type {AgentDefinition[]} */ ([]) }),
      schema: FileSchema,
      what: scope === 'global' ? 'The global agents file' : "The workspace's agents file",
      ...(onDamage ? { onDamage } : {}),
      onSetAside: () => this.#changed(),
      onWritten: () => c?.publish(topic, {}),
    });
  }

  /**
   * Every agent: the default one, then the workspace's, then the global ones not shadowed by a workspace one.
   * @returns {Promise<ScopedAgent[]>}
   */
  async list() {
    const trusted = await this.#trusted();
    const empty = { version: /** @type {const} */ (1), agents: /** @type {AgentDefinition[]} */ ([]) };
    /** @type {{scope: 'workspace' | 'global', message: string}[]} */
    const problems = [];
    // A damaged file costs its agents, not the others (the panel offers to move it aside).
    const read = (/** @type {'workspace' | 'global'} */ scope) =>
      this.#file(scope)
        .read()
        .catch((err) => {
          const e = /** @type {import('../../storage/damage.js').DamagedFileError} */ (err);
          problems.push({ scope, message: e.code === 'damaged' ? `${e.what} is damaged: ${e.problem}.` : e.message });
          return empty;
        });
    const [own, global, identity] = await Promise.all([trusted ? read('workspace') : empty, read('global'), this.identity()]);
    // A damaged identity file (cut short, garbage, the wrong shape) is not used: the default persona answers.
    const persona = identity ? parseIdentity(identity) : null;
    if (identity && persona && !persona.ok) {
      const path = identity.format === 'json' ? IDENTITY_JSON : IDENTITY_MD;
      this.onDamage?.({
        what: "The workspace's identity (the agent's persona)",
        problem: `${persona.errors.slice(0, 2).join('; ')}. It is not used: the default persona answers`,
        path,
        setAside: async () => {
          const to = await setAsideFile(this.fs, path);
          this.#changed();
          return to;
        },
      });
    }
    if (!trusted)
      problems.push({
        scope: 'workspace',
        message: "This workspace's .agents/ folder could not be checked; its agents, identity and heartbeat checklist are not used.",
      });
    this.problems = problems;
    const names = new Set(own.agents.map((a) => a.name));
    return [
      defaultAgent(identity ?? undefined),
      ...own.agents.map((a) => ({ ...a, scope: /** @type {const} */ ('workspace') })),
      ...global.agents.filter((a) => !names.has(a.name)).map((a) => ({ ...a, scope: /** @type {const} */ ('global') })),
    ];
  }

  /** @param {string} name @returns {Promise<ScopedAgent | null>} */
  async get(name) {
    return (await this.list()).find((a) => a.name === name) ?? null;
  }

  /**
   * Creates or replaces a definition. `previousName` renames one (same scope); a name already
   * used in that scope (or the default agent's) is refused.
   * @param {unknown} value @param {'workspace' | 'global'} scope @param {string} [previousName]
   * @returns {Promise<AgentDefinition>}
   */
  async save(value, scope, previousName) {
    if (scope === 'workspace' && !(await this.#trusted()))
      throw new AgentStoreError(
        'invalid',
        "The agent was not saved: this workspace's .agents/ folder could not be checked. Reload and try again.",
      );
    const v = validateAgent(value);
    if (!v.ok) throw new AgentStoreError('invalid', `The agent was not saved: ${v.errors.join('; ')}`);
    const agent = v.agent;
    if (agent.name === DEFAULT_AGENT_NAME)
      throw new AgentStoreError('builtin', `“${DEFAULT_AGENT_NAME}” is the workspace's own agent; choose another name.`);
    await this.#file(scope).update((stored) => {
      const others = stored.agents.filter((a) => a.name !== (previousName ?? agent.name));
      if (others.some((a) => a.name === agent.name))
        throw new AgentStoreError(
          'exists',
          `An agent named “${agent.name}” already exists ${scope === 'global' ? 'in every workspace' : 'in this workspace'}.`,
        );
      const at = stored.agents.findIndex((a) => a.name === (previousName ?? agent.name));
      const agents = [...stored.agents];
      if (at >= 0) agents[at] = agent;
      else agents.push(agent);
      return { result: null, changed: true, value: { version: 1, agents } };
    });
    // Saving is the user's yes to the list as it is now: its MCP tools are bound to their servers.
    if (this.toolLists) {
      if (previousName && previousName !== agent.name) await this.toolLists.forget(agentOwner(scope, previousName)).catch(() => {});
      this.lastSaveProblems = await this.toolLists.bind(agentOwner(scope, agent.name), agent.tools ?? []).catch(() => []);
    }
    this.#changed();
    return agent;
  }

  /**
   * The MCP tool names of the last saved agent's list that bind to no server (they reach nothing).
   * @type {import('../../mcp/tool-lists.js').ToolListProblem[]}
   */
  lastSaveProblems = [];

  /**
   * An agent as it answers now: its list of tools made of the tools it reaches now — an MCP
   * tool only if it is the one the list was bound to when saved (a server removed and another
   * added under the same name is not) — and, in words naming the agent and the tool, what was
   * left out and why.
   * @param {ScopedAgent} agent
   * @returns {Promise<{agent: ScopedAgent, leftOut: string[]}>}
   */
  async forUse(agent) {
    if (!agent.tools || agent.scope === 'builtin') return { agent, leftOut: [] };
    // Without the workspace's servers no MCP tool is reached (fails safe).
    const tools = agent.tools;
    const without = { names: tools.filter((t) => !isMcpName(t)), problems: [] };
    const resolved = this.toolLists
      ? await this.toolLists.resolve(agentOwner(agent.scope, agent.name), tools).catch((err) => ({
          ...without,
          problems: tools.filter(isMcpName).map((tool) => ({
            tool,
            reason: `the workspace's MCP servers could not be read (${/** @type {Error} */ (err)?.message ?? err})`,
          })),
        }))
      : without;
    return { agent: { ...agent, tools: resolved.names }, leftOut: resolved.problems.map((p) => describeProblem(`@${agent.name}`, p)) };
  }

  /** @param {string} name @param {'workspace' | 'global'} scope */
  async remove(name, scope) {
    if (scope === 'workspace') await this.#vet();
    const out = await this.#file(scope).update((stored) => {
      const agents = stored.agents.filter((a) => a.name !== name);
      return {
        result: agents.length !== stored.agents.length,
        changed: agents.length !== stored.agents.length,
        value: { version: 1, agents },
      };
    });
    if (!out.result) throw new AgentStoreError('not_found', `There is no agent named “${name}” to delete.`);
    await this.toolLists?.forget(agentOwner(scope, name)).catch(() => {});
    this.#changed();
  }

  /**
   * A copy under a free name ("writer-copy", "writer-copy-2", …) in the workspace.
   * @param {string} name
   */
  async duplicate(name) {
    const all = await this.list();
    const source = all.find((a) => a.name === name);
    if (!source) throw new AgentStoreError('not_found', `There is no agent named “${name}”.`);
    const taken = new Set(all.map((a) => a.name));
    const stem = `${source.name}`.slice(0, 24);
    let copy = `${stem}-copy`;
    for (let i = 2; taken.has(copy); i++) copy = `${stem}-copy-${i}`;
    const { scope: _scope, ...rest } = source;
    return this.save({ ...rest, name: copy }, 'workspace');
  }

  /** The workspace's heartbeat checklist (Markdown), or null. @returns {Promise<string | null>} */
  async heartbeat() {
    if (!(await this.#trusted())) return null;
    return readTextIfExists(this.fs, HEARTBEAT);
  }

  /**
   * Saves the heartbeat checklist (null or empty: removes it). Only the Agents panel calls this:
   * the checklist runs unattended, so no tool, clone or import writes it.
   * @param {string | null} text
   */
  async setHeartbeat(text) {
    await this.#vet();
    if (text && text.length > 20_000)
      throw new AgentStoreError('invalid', `The checklist is ${text.length.toLocaleString('en')} characters; at most 20,000.`);
    if (text?.trim()) await this.fs.write(HEARTBEAT, text);
    else if (await this.fs.stat(HEARTBEAT)) await this.fs.delete(HEARTBEAT);
    this.coordination?.publish(this.topic, {});
    this.#changed();
  }

  /** The workspace's identity as written, or null. @returns {Promise<IdentitySource | null>} */
  async identity() {
    if (!(await this.#trusted())) return null;
    const json = await readTextIfExists(this.fs, IDENTITY_JSON);
    if (json !== null) return { format: 'json', text: json };
    const md = await readTextIfExists(this.fs, IDENTITY_MD);
    return md !== null ? { format: 'markdown', text: md } : null;
  }

  /**
   * Saves the workspace's identity (validated first; the other form's file is removed), or
   * removes it when `source` is null.
   * @param {IdentitySource | null} source
   */
  async setIdentity(source) {
    await this.#vet();
    if (source) {
      const r = parseIdentity(source);
      if (!r.ok) throw new AgentStoreError('invalid', `The identity was not saved: ${r.errors.join('; ')}`);
    }
    await this.#locks.request(`${this.topic}:identity`, {}, async () => {
      if (source) await this.fs.write(source.format === 'json' ? IDENTITY_JSON : IDENTITY_MD, source.text);
      for (const path of [IDENTITY_JSON, IDENTITY_MD]) {
        if (source && path === (source.format === 'json' ? IDENTITY_JSON : IDENTITY_MD)) continue;
        if (await this.fs.stat(path)) await this.fs.delete(path);
      }
    });
    this.coordination?.publish(this.topic, {});
    this.#changed();
  }
}
