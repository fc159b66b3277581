/** @import { FileSystem } from '../storage/types.d.ts' */
/** @import { ConfigStore } from '../storage/types.d.ts' */
/** @import { Coordination } from '../agent/types.d.ts' */
/** @import { SkillValidation, Skill } from './format.js' */
import { z } from 'zod';
import { validateSkill, textOf, pathProblem } from './format.js';
import { setAsideFile } from '../storage/damage.js';
import { skillOwner } from '../mcp/tool-lists.js';

/** What the store says of a skill whose origin it has no record of (installed before it kept one, or damaged). */
export const ORIGIN_UNRECORDED = 'where it came from is not recorded';

/** A skill's origin record: where it came from in words, or null for a skill the user wrote in Clawser. */
const OriginRecord = z.object({ origin: z.string().min(1).max(2000).nullable() });

/** What an installed skill may hold. */
export const SKILL_LIMITS = { maxFiles: 1000, maxFileBytes: 20 * 1024 * 1024, maxTotalBytes: 50 * 1024 * 1024 };
/** Characters of a file returned at once by readFile (the rest is paged). */
export const PAGE_CHARS = 20_000;

export class SkillError extends Error {
  /** @param {'invalid' | 'not_found' | 'too_large' | 'exists'} code @param {string} message @param {SkillValidation} [validation] */
  constructor(code, message, validation) {
    super(message);
    this.name = 'SkillError';
    this.code = code;
    this.validation = validation;
  }
}

/** @typedef {'workspace' | 'global'} SkillScope */

/**
 * @typedef {object} SkillEntry one installed skill as the panel and the prompt see it
 * @property {string} name the folder's name
 * @property {SkillScope} scope where it is installed (the workspace's copy wins over a global one)
 * @property {boolean} shadowed a global skill hidden by the workspace's skill of the same name
 * @property {boolean} enabled in this workspace
 * @property {SkillValidation} validation
 * @property {string | null} origin where it came from, in words, or null when the user wrote it in Clawser (SkillStore.origin)
 */

/**
 * The installed skills a workspace sees: global ones (`clawser_skills/{name}/`, every workspace)
 * and its own (`.skills/{name}/` in the workspace, winning over a global one of the same name),
 * each enabled or disabled per workspace. The only writer of both folders: installs replace a
 * skill whole (written aside, then moved in), so a failed install leaves the old one.
 */
export class SkillStore {
  /** Validations by scope/name (skills change only through this store or another tab's). @type {Map<string, SkillValidation>} */
  #cache = new Map();
  /** Origins by scope/name, like the validations. @type {Map<string, Promise<string | null>>} */
  #origins = new Map();
  /** @type {Set<() => void>} */
  #listeners = new Set();

  /**
   * @param {{globalFs: FileSystem, workspaceFs: FileSystem, config: ConfigStore, workspaceId: string, coordination?: Coordination,
   *   onDamage?: import('../storage/damage.js').DamageSink, onGlobalDamage?: import('../storage/damage.js').DamageSink,
   *   toolLists?: Pick<import('../mcp/tool-lists.js').ToolListBinder, 'bind' | 'forget'>}} deps
   *   globalFs: the global skills folder's view (`clawser_skills/`); workspaceFs: the workspace's own files (not a protected view);
   *   onDamage, onGlobalDamage: told of an installed skill (the workspace's, a global one) whose files no longer
   *   make a valid skill — every skill is checked when installed, so that is damage; it is not offered to the agent;
   *   toolLists: binds the MCP tools an installed skill's allowed-tools name to the servers they are now (installing is the user's yes)
   */
  constructor(deps) {
    this.deps = deps;
    this.dir = '.skills';
    deps.coordination?.subscribe('skills', () => this.#changed(false));
  }

  /** @param {SkillScope} scope */
  #fs(scope) {
    return scope === 'global' ? this.deps.globalFs : this.deps.workspaceFs;
  }

  /** @param {SkillScope} scope @param {string} [name] */
  #path(scope, name = '') {
    const base = scope === 'global' ? '' : this.dir;
    return [base, name].filter(Boolean).join('/');
  }

  /**
   * Where a skill's origin record is kept: beside the skills, in a folder no skill can be named
   * after (`.origins/`, skipped like the staging folders).
   * @param {SkillScope} scope @param {string} name
   */
  #originPath(scope, name) {
    return `${this.#path(scope, '.origins')}/${name}.json`;
  }

  /**
   * Where the skill the workspace sees under `name` came from, in words ("downloaded from
   * https://…", "installed from the ZIP file “x.zip”"), or null when the user wrote it in
   * Clawser. Its instructions and files are outside content unless null: without a record (a
   * skill installed before the store kept them, a damaged record) it is ORIGIN_UNRECORDED.
   * @param {string} name
   * @returns {Promise<string | null>}
   */
  async origin(name) {
    const found = await this.get(name);
    return found ? this.#originOf(found.scope, name) : ORIGIN_UNRECORDED;
  }

  /** @param {SkillScope} scope @param {string} name @returns {Promise<string | null>} */
  #originOf(scope, name) {
    const key = `${scope}/${name}`;
    let origin = this.#origins.get(key);
    if (!origin) {
      origin = this.#readOrigin(scope, name);
      this.#origins.set(key, origin);
    }
    return origin;
  }

  /** @param {SkillScope} scope @param {string} name @returns {Promise<string | null>} */
  async #readOrigin(scope, name) {
    try {
      const parsed = OriginRecord.safeParse(JSON.parse(textOf(await this.#fs(scope).readBytes(this.#originPath(scope, name))) ?? ''));
      return parsed.success ? parsed.data.origin : ORIGIN_UNRECORDED;
    } catch {
      return ORIGIN_UNRECORDED;
    }
  }

  /** Calls back after skills changed (here or in another tab). @param {() => void} fn */
  subscribe(fn) {
    this.#listeners.add(fn);
    return () => {
      this.#listeners.delete(fn);
    };
  }

  /** @param {boolean} [announce] */
  #changed(announce = true) {
    this.#cache.clear();
    this.#origins.clear();
    if (announce) this.deps.coordination?.publish('skills', {});
    for (const fn of this.#listeners) fn();
  }

  get #enabledKey() {
    return `clawser_skills_enabled_${this.deps.workspaceId}`;
  }

  /** @returns {Record<string, boolean>} */
  #choices() {
    const v = this.deps.config.get(this.#enabledKey, {});
    return v && typeof v === 'object' ? /** @type {Record<string, boolean>} */ (v) : {};
  }

  /** A skill is on unless the user turned it off in this workspace. @param {string} name */
  isEnabled(name) {
    return this.#choices()[name] !== false;
  }

  /** @param {string} name @param {boolean} on */
  setEnabled(name, on) {
    this.deps.config.set(this.#enabledKey, { ...this.#choices(), [name]: on });
    this.#changed();
  }

  /** The user's on/off choices in this workspace (a skill not listed is on). @returns {Record<string, boolean>} */
  choices() {
    return Object.fromEntries(Object.entries(this.#choices()).filter(([, on]) => typeof on === 'boolean'));
  }

  /** Replaces every choice at once (the Config panel's save). @param {Record<string, boolean>} choices */
  replaceChoices(choices) {
    this.deps.config.set(this.#enabledKey, { ...choices });
    this.#changed();
  }

  /**
   * The registry the user checks for updates (every workspace): off and empty until they set it.
   * @returns {{enabled: boolean, url: string}}
   */
  registry() {
    const v = /** @type {{enabled?: unknown, url?: unknown}} */ (this.deps.config.get('clawser_skills_registry', {}) ?? {});
    return { enabled: v.enabled === true, url: typeof v.url === 'string' ? v.url : '' };
  }

  /** @param {{enabled: boolean, url: string}} r */
  setRegistry(r) {
    if (r.url && !/^https?:\/\//i.test(r.url)) throw new SkillError('invalid', 'The registry index must be an http(s) address.');
    this.deps.config.set('clawser_skills_registry', { enabled: r.enabled, url: r.url.trim() });
  }

  /** Every file of a skill's folder: path → bytes. @param {SkillScope} scope @param {string} name */
  async #files(scope, name) {
    const fs = this.#fs(scope);
    /** @type {Map<string, Uint8Array>} */
    const files = new Map();
    /** @param {string} dir @param {string} prefix */
    const walk = async (dir, prefix) => {
      for (const e of await fs.list(dir)) {
        const path = `${dir}/${e.name}`;
        if (e.kind === 'directory') await walk(path, `${prefix}${e.name}/`);
        else files.set(`${prefix}${e.name}`, await fs.readBytes(path));
      }
    };
    await walk(this.#path(scope, name), '');
    return files;
  }

  /** @param {SkillScope} scope @param {string} name */
  async #validation(scope, name) {
    const key = `${scope}/${name}`;
    let v = this.#cache.get(key);
    if (!v) {
      v = validateSkill(name, await this.#files(scope, name));
      this.#cache.set(key, v);
      if (!v.ok) this.#reportDamaged(scope, name, v);
    }
    return v;
  }

  /** @param {SkillScope} scope @param {string} name @param {SkillValidation} v */
  #reportDamaged(scope, name, v) {
    const sink = scope === 'global' ? this.deps.onGlobalDamage : this.deps.onDamage;
    const path = this.#path(scope, name);
    sink?.({
      what: `The ${scope === 'global' ? 'global ' : ''}skill “${name}”`,
      problem: `${v.errors
        .slice(0, 2)
        .map((e) => e.message.replace(/\.$/, ''))
        .join('; ')}. It is not offered to the agent`,
      path: `${path}/SKILL.md`,
      // The folder is renamed (kept, and no longer taken for a skill).
      setAside: async () => {
        const to = await setAsideFile(this.#fs(scope), path);
        this.#changed();
        return to;
      },
    });
  }

  /** Skill folders of one scope (names; staging folders left out). @param {SkillScope} scope */
  async #names(scope) {
    const fs = this.#fs(scope);
    const root = this.#path(scope);
    if (root && !(await fs.stat(root))) return [];
    try {
      // Staging folders and damaged skills set aside (`name.damaged-…`) are not skills.
      return (await fs.list(root))
        .filter((e) => e.kind === 'directory' && !e.name.startsWith('.') && !e.name.includes('.damaged-'))
        .map((e) => e.name)
        .sort();
    } catch (err) {
      if (/** @type {{code?: string}} */ (err).code === 'not_found') return [];
      throw err;
    }
  }

  /**
   * Every skill this workspace sees, the workspace's first; a global skill with the same name
   * as a workspace skill is listed as shadowed.
   * @returns {Promise<SkillEntry[]>}
   */
  async list() {
    const [own, global] = await Promise.all([this.#names('workspace'), this.#names('global')]);
    const mine = new Set(own);
    /** @type {SkillEntry[]} */
    const out = [];
    for (const name of own)
      out.push({
        name,
        scope: 'workspace',
        shadowed: false,
        enabled: this.isEnabled(name),
        validation: await this.#validation('workspace', name),
        origin: await this.#originOf('workspace', name),
      });
    for (const name of global)
      out.push({
        name,
        scope: 'global',
        shadowed: mine.has(name),
        enabled: this.isEnabled(name),
        validation: await this.#validation('global', name),
        origin: await this.#originOf('global', name),
      });
    return out;
  }

  /**
   * The skills the agent is offered: enabled, valid, not shadowed; each with where it came from
   * (origin: null when the user wrote it).
   * @returns {Promise<(Skill & {scope: SkillScope, origin: string | null})[]>}
   */
  async active() {
    return (await this.list())
      .filter((e) => e.enabled && !e.shadowed && e.validation.skill)
      .map((e) => ({ .../** @type {Skill} */ (e.validation.skill), scope: e.scope, origin: e.origin }));
  }

  /**
   * The skill the workspace sees under `name` (its own copy first).
   * @param {string} name
   * @returns {Promise<{scope: SkillScope, validation: SkillValidation} | null>}
   */
  async get(name) {
    for (const scope of /** @type {SkillScope[]} */ (['workspace', 'global'])) {
      if ((await this.#names(scope)).includes(name)) return { scope, validation: await this.#validation(scope, name) };
    }
    return null;
  }

  /**
   * Installs a skill (replacing one of the same name in that scope): validated first, refused
   * with every error when invalid or over the limits; enabled in this workspace. `origin` is
   * where it came from, in words (a download, a ZIP, a folder), or null when the user wrote it
   * in Clawser; left out, none is recorded (ORIGIN_UNRECORDED: outside content). A new install
   * never keeps the replaced skill's record.
   * @param {string} dirName @param {Map<string, Uint8Array | string>} files
   * @param {{scope?: SkillScope, origin?: string | null}} [options]
   */
  async install(dirName, files, options = {}) {
    const scope = options.scope ?? 'workspace';
    const validation = validateSkill(dirName, files);
    if (!validation.ok || !validation.skill) {
      throw new SkillError(
        'invalid',
        `“${dirName}” is not a valid skill: ${validation.errors.map((e) => e.message).join(' ')}`,
        validation,
      );
    }
    let total = 0;
    if (files.size > SKILL_LIMITS.maxFiles)
      throw new SkillError('too_large', `“${dirName}” has ${files.size} files; a skill may have at most ${SKILL_LIMITS.maxFiles}.`);
    for (const [path, data] of files) {
      const size = typeof data === 'string' ? new TextEncoder().encode(data).length : data.length;
      if (size > SKILL_LIMITS.maxFileBytes)
        throw new SkillError(
          'too_large',
          `${path} of “${dirName}” is ${Math.ceil(size / 1048576)} MB; a skill's file may be at ` +
            `most ${SKILL_LIMITS.maxFileBytes / 1048576} MB.`,
        );
      total += size;
    }
    if (total > SKILL_LIMITS.maxTotalBytes)
      throw new SkillError(
        'too_large',
        `“${dirName}” holds ${Math.ceil(total / 1048576)} MB; a skill may hold at most ${SKILL_LIMITS.maxTotalBytes / 1048576} MB.`,
      );
    const name = validation.skill.name;
    const fs = this.#fs(scope);
    const stamp = Date.now().toString(36);
    const staging = this.#path(scope, `.installing-${name}-${stamp}`);
    const previous = this.#path(scope, `.replaced-${name}-${stamp}`);
    const target = this.#path(scope, name);
    let moved = false;
    // The old record goes first: a failure below leaves the old skill with no record (outside
    // content), never the new skill with the old one's.
    const record = this.#originPath(scope, name);
    await fs.delete(record).catch(() => {});
    try {
      for (const [path, data] of files) {
        if (pathProblem(path)) continue; // validation refused these already
        await fs.write(`${staging}/${path}`, data);
      }
      // The old version steps aside, the new one moves in, then the old one goes; a failure puts it back.
      if (await fs.stat(target)) {
        await fs.move(target, previous);
        moved = true;
      }
      await fs.move(staging, target);
      if (moved) await fs.delete(previous).catch(() => {});
      moved = false;
      if (options.origin !== undefined) await fs.write(record, JSON.stringify({ origin: options.origin }));
    } finally {
      if (moved) await fs.move(previous, target).catch(() => {});
      await fs.delete(staging).catch(() => {});
    }
    const choices = this.#choices();
    if (choices[name] === false) this.deps.config.set(this.#enabledKey, { ...choices, [name]: true });
    // Its allowed-tools' MCP tools are the ones of the servers set up now: a server added later under the same name is not.
    // (Not bound, they reach only a server saved before bindings existed: it fails safe.)
    await this.deps.toolLists
      ?.bind(skillOwner(scope, name), validation.skill.allowedToolsGiven ? validation.skill.allowedTools : [])
      .catch(() => []);
    this.#changed();
    return validation;
  }

  /** Deletes a skill of one scope. @param {string} name @param {SkillScope} scope */
  async remove(name, scope) {
    if (!(await this.#names(scope)).includes(name)) throw new SkillError('not_found', `No ${scope} skill named “${name}”.`);
    await this.#fs(scope).delete(this.#path(scope, name));
    await this.#fs(scope)
      .delete(this.#originPath(scope, name))
      .catch(() => {});
    await this.deps.toolLists?.forget(skillOwner(scope, name)).catch(() => {});
    this.#changed();
  }

  /** Every file of the skill the workspace sees under `name`. @param {string} name */
  async files(name) {
    const found = await this.get(name);
    if (!found) throw new SkillError('not_found', `No skill named “${name}” is installed.`);
    return { scope: found.scope, files: await this.#files(found.scope, name) };
  }

  /**
   * A page of one of the skill's files (text), for the agent: `offset` in characters.
   * @param {string} name @param {string} path @param {{offset?: number, maxChars?: number}} [options]
   * @returns {Promise<{text: string, offset: number, next: number | null, total: number, binary: boolean, size: number}>}
   */
  async readFile(name, path, options = {}) {
    const found = await this.get(name);
    if (!found) throw new SkillError('not_found', `No skill named “${name}” is installed.`);
    const problem = pathProblem(path);
    if (problem) throw new SkillError('not_found', `The path "${path}" ${problem}.`);
    const file =
      found.validation.skill?.files.find((f) => f.path === path) ?? (found.validation.skill ? null : { path, binary: false, size: 0 });
    if (!file)
      throw new SkillError(
        'not_found',
        `“${name}” has no file ${path}. Its files: ${found.validation.skill?.files.map((f) => f.path).join(', ')}.`,
      );
    const bytes = await this.#fs(found.scope).readBytes(`${this.#path(found.scope, name)}/${path}`);
    const text = textOf(bytes);
    if (text === null) return { text: '', offset: 0, next: null, total: 0, binary: true, size: bytes.length };
    const offset = Math.max(0, Math.min(options.offset ?? 0, text.length));
    const max = options.maxChars ?? PAGE_CHARS;
    const end = Math.min(text.length, offset + max);
    return {
      text: text.slice(offset, end),
      offset,
      next: end < text.length ? end : null,
      total: text.length,
      binary: false,
      size: bytes.length,
    };
  }
}
