/** @import { ConfigStore } from '../../storage/types.d.ts' */
/** @import { BrowserToolRegistry } from '../registry.js' */
/** @import { ToolSpec, ToolVersion } from './spec.js' */
/** @import { SandboxFactory } from './sandboxed.js' */
import { z } from 'zod';
import {
  ToolDefinitionError,
  TOOL_METADATA_KEY,
  KEY_PREFIX,
  describeCapabilities,
  isKeyOf,
  nameProblem,
  nextVersion,
  parseSpec,
  permissionOf,
  readSkillVersions,
  skillFiles,
  skillNameOf,
  specDigest,
} from './spec.js';
import { builtToolDefinition } from './sandboxed.js';

/** The user's approvals of built tools in a workspace: name → the digest of the definition approved. */
const ApprovalsSchema = z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/));

/**
 * What the Tools panel shows of one built tool.
 * @typedef {object} BuiltToolEntry
 * @property {string} name the tool's name (or the skill's, when its definition cannot be read)
 * @property {string} skill its skill's folder name
 * @property {'registered' | 'pending' | 'problem' | 'off'} state registered: approved and callable; pending: its definition
 *   (imported, changed on disk) waits for the user's approval; problem: it cannot be registered (why in `problem`); off: its
 *   skill is turned off in this workspace
 * @property {string} [problem]
 * @property {ToolVersion | null} current
 * @property {{version: number, createdAt: number, by: 'agent' | 'user'}[]} versions every version kept, oldest first
 * @property {string} [reaches] what it may reach, in words
 * @property {string} [permission]
 */

/**
 * The built tools of a workspace: each kept as a workspace skill (`.skills/tool-<name>/`, so it
 * exports and is shared like one), registered in the workspace's tool registry only while the
 * exact definition there is the one the user approved (its digest is kept in the config), its
 * skill is on, and its name is no other tool's (built-ins and MCP tools keep theirs). Defining a
 * tool again keeps every earlier version in the skill; removing it removes the skill, the
 * approval and every choice made for it.
 */
export class BuiltToolStore {
  /** Registered built tools: name → its digest and how to unregister it. @type {Map<string, {digest: string, off: () => void}>} */
  #registered = new Map();
  /** @type {BuiltToolEntry[]} */
  #entries = [];
  /** @type {Promise<unknown>} */
  #queue = Promise.resolve();
  /** @type {Set<() => void>} */
  #listeners = new Set();
  #subscribed = false;

  /**
   * @param {{registry: BrowserToolRegistry, skills: () => Promise<import('../../skills/store.js').SkillStore>, config: ConfigStore,
   *   workspaceId: string, createSandbox: SandboxFactory}} deps
   */
  constructor(deps) {
    this.deps = deps;
  }

  get #approvalsKey() {
    return `clawser_built_tools_${this.deps.workspaceId}`;
  }

  /** @returns {Record<string, string>} */
  #approvals() {
    const r = ApprovalsSchema.safeParse(this.deps.config.get(this.#approvalsKey, {}));
    return r.success ? r.data : {};
  }

  /** @param {Record<string, string>} next */
  #saveApprovals(next) {
    this.deps.config.set(this.#approvalsKey, ApprovalsSchema.parse(next));
  }

  /**
   * Who holds a name in the registry now, other than a built tool of this store.
   * @param {string} name @returns {'builtin' | 'mcp' | 'built' | null}
   */
  holder = (name) => {
    if (this.#registered.has(name)) return 'built';
    const tool = this.deps.registry.get(name);
    if (!tool) return null;
    if (tool.policyKey?.startsWith('mcp:') || name.startsWith('mcp__')) return 'mcp';
    if (tool.policyKey?.startsWith(KEY_PREFIX)) return 'built';
    return 'builtin';
  };

  /** Calls back after the built tools changed. @param {() => void} fn */
  subscribe(fn) {
    this.#listeners.add(fn);
    return () => {
      this.#listeners.delete(fn);
    };
  }

  /** The built tools as last read (sync reads them). */
  entries() {
    return [...this.#entries];
  }

  /**
   * Reads the workspace's built tools again and makes the registry match: an approved, enabled
   * definition whose name is free is registered (a new version replaces the old), anything
   * else is not. Runs one at a time. Also follows skill changes made elsewhere (the Skills
   * panel, another tab) from its first call.
   * @returns {Promise<BuiltToolEntry[]>}
   */
  sync() {
    const run = this.#queue.then(() => this.#sync());
    this.#queue = run.catch(() => {});
    return run;
  }

  async #sync() {
    const skills = await this.deps.skills();
    if (!this.#subscribed) {
      this.#subscribed = true;
      skills.subscribe(() => {
        this.sync().catch(() => {});
      });
    }
    const approvals = this.#approvals();
    /** @type {BuiltToolEntry[]} */
    const entries = [];
    /** @type {Map<string, {version: ToolVersion, digest: string}>} */
    const wanted = new Map();
    for (const e of await skills.list()) {
      const meta = e.validation.skill?.metadata?.[TOOL_METADATA_KEY];
      if (e.scope !== 'workspace' || !meta) continue;
      const { current, versions, problems } = readSkillVersions(await this.#texts(skills, e.name));
      /** @type {BuiltToolEntry} */
      const entry = {
        name: current?.spec.name ?? meta,
        skill: e.name,
        state: 'problem',
        current,
        versions: versions.map((v) => ({ version: v.version, createdAt: v.createdAt, by: v.by })),
      };
      entries.push(entry);
      if (!current) {
        entry.problem = `Its definition (tool.json) cannot be read${problems.length ? `: ${problems[0]}` : ''}.`;
        continue;
      }
      entry.reaches = describeCapabilities(current.spec.capabilities);
      entry.permission = permissionOf(current.spec.capabilities);
      if (skillNameOf(current.spec.name) !== e.name || meta !== current.spec.name) {
        entry.problem = `Its skill “${e.name}” does not match the tool's name ${current.spec.name}.`;
        continue;
      }
      const held = this.#registered.has(current.spec.name) ? null : nameProblem(current.spec.name, this.holder);
      if (held) {
        entry.problem = held;
        continue;
      }
      const digest = await specDigest(current.spec);
      if (approvals[current.spec.name] !== digest) {
        entry.state = 'pending';
        continue;
      }
      if (!e.enabled) {
        entry.state = 'off';
        continue;
      }
      entry.state = 'registered';
      wanted.set(current.spec.name, { version: current, digest });
    }
    // The registry follows: gone or changed ones leave, new or changed ones come in.
    for (const [name, reg] of this.#registered) {
      if (wanted.get(name)?.digest === reg.digest) continue;
      reg.off();
      this.#registered.delete(name);
    }
    for (const [name, { version, digest }] of wanted) {
      if (this.#registered.has(name)) continue;
      if (this.deps.registry.get(name)) {
        const entry = entries.find((x) => x.name === name);
        if (entry) Object.assign(entry, { state: 'problem', problem: nameProblem(name, this.holder) ?? `The name ${name} is taken.` });
        continue;
      }
      const off = this.deps.registry.register(builtToolDefinition(version, digest, { createSandbox: this.deps.createSandbox }));
      this.#registered.set(name, { digest, off });
    }
    this.#entries = entries;
    for (const fn of this.#listeners) fn();
    return this.entries();
  }

  /**
   * A skill's files as text (null for one that is not UTF-8).
   * @param {import('../../skills/store.js').SkillStore} skills @param {string} skill
   * @returns {Promise<Map<string, string | null>>}
   */
  async #texts(skills, skill) {
    const { files } = await skills.files(skill);
    const decoder = new TextDecoder('utf-8', { fatal: true });
    /** @type {Map<string, string | null>} */
    const out = new Map();
    for (const [path, bytes] of files) {
      try {
        out.set(path, decoder.decode(bytes));
      } catch {
        out.set(path, null);
      }
    }
    return out;
  }

  /**
   * Checks a definition without saving it: the spec, or why it cannot be defined.
   * @param {unknown} input
   * @returns {ToolSpec}
   * @throws {ToolDefinitionError}
   */
  check(input) {
    const parsed = parseSpec(input);
    if (!parsed.ok) throw new ToolDefinitionError('invalid', `The tool definition is not valid: ${parsed.error}.`);
    const problem = nameProblem(parsed.spec.name, this.holder);
    if (problem) throw new ToolDefinitionError('name_taken', problem);
    return parsed.spec;
  }

  /**
   * Defines a tool, or a new version of a built tool: checked, saved as a new version of its
   * skill (earlier versions kept), approved as it is now (the caller is the approval: the user's
   * form, or the agent's call the ToolRunner let through) and registered.
   * @param {unknown} input @param {'agent' | 'user'} by
   * @returns {Promise<{name: string, version: number, created: boolean}>}
   */
  async define(input, by) {
    const spec = this.check(input);
    const skills = await this.deps.skills();
    const skill = skillNameOf(spec.name);
    const found = await skills.get(skill);
    if (found && found.scope === 'workspace' && !found.validation.skill?.metadata?.[TOOL_METADATA_KEY])
      throw new ToolDefinitionError(
        'name_taken',
        `A skill named “${skill}” that is not a built tool is installed; ` + 'remove or rename it first.',
      );
    const old = found?.scope === 'workspace' ? readSkillVersions(await this.#texts(skills, skill)) : null;
    const digest = await specDigest(spec);
    const same = old?.current && (await specDigest(old.current.spec)) === digest;
    let version = old?.current?.version ?? 1;
    if (!same) {
      version = nextVersion(old?.versions ?? [], old?.current ?? null);
      /** @type {ToolVersion} */
      const next = { version, createdAt: Date.now(), by, spec };
      const earlier = [...(old?.versions ?? [])];
      if (old?.current && !earlier.some((v) => v.version === old.current?.version)) earlier.push(old.current);
      // origin null: written in Clawser (its definition was approved here, as shown).
      await skills.install(skill, skillFiles(next, earlier), { scope: 'workspace', origin: null });
    }
    this.#saveApprovals({ ...this.#approvals(), [spec.name]: digest });
    await this.sync();
    const entry = this.#entries.find((e) => e.name === spec.name);
    if (entry?.state !== 'registered')
      throw new ToolDefinitionError(
        'unavailable',
        `${spec.name} was saved but not registered: ` + `${entry?.problem ?? entry?.state ?? 'unknown'}.`,
      );
    return { name: spec.name, version, created: !same };
  }

  /**
   * The user approves a built tool's current definition as it is now (an imported skill, a
   * definition changed on disk).
   * @param {string} name
   */
  async approve(name) {
    const entry = (await this.sync()).find((e) => e.name === name);
    if (!entry?.current) throw new ToolDefinitionError('not_found', `No built tool named ${name}.`);
    this.#saveApprovals({ ...this.#approvals(), [name]: await specDigest(entry.current.spec) });
    await this.sync();
  }

  /**
   * An earlier version's definition becomes the current one again: a new version with its
   * content (approved by the user, who chose it).
   * @param {string} name @param {number} version
   */
  async restore(name, version) {
    const skills = await this.deps.skills();
    const { versions } = readSkillVersions(await this.#texts(skills, skillNameOf(name)));
    const v = versions.find((x) => x.version === version);
    if (!v) throw new ToolDefinitionError('not_found', `${name} has no version ${version}.`);
    return this.define(v.spec, 'user');
  }

  /** Every version kept of a built tool, oldest first. @param {string} name */
  async versions(name) {
    const skills = await this.deps.skills();
    return readSkillVersions(await this.#texts(skills, skillNameOf(name))).versions;
  }

  /**
   * Removes a built tool: unregistered, its skill (every version) deleted, its approval and
   * every choice made for it forgotten.
   * @param {string} name
   */
  async remove(name) {
    const skills = await this.deps.skills();
    const skill = skillNameOf(name);
    const found = await skills.get(skill);
    if (!found || found.scope !== 'workspace') throw new ToolDefinitionError('not_found', `No built tool named ${name}.`);
    const approvals = this.#approvals();
    delete approvals[name];
    this.#saveApprovals(approvals);
    await skills.remove(skill, 'workspace');
    this.deps.registry.forgetChoices((key) => isKeyOf(key, name));
    await this.sync();
  }
}
