/** @import { FileSystem } from '../storage/types.d.ts' */
/** @import { ConfigStore } from '../storage/types.d.ts' */
import { z } from 'zod';
import { STATE_FOLDER } from '../storage/state-folder.js';

const WORKSPACE_ID = /^[A-Za-z0-9_-]+$/;
const WorkspaceSchema = z.object({
  id: z.string().regex(WORKSPACE_ID),
  name: z.string(),
  createdAt: z.number(),
  lastUsedAt: z.number().optional(),
});
const ListSchema = z.array(WorkspaceSchema);
/** The workspaces being deleted. */
const IdsSchema = z.array(z.string().regex(WORKSPACE_ID));
/** The stored list's and deletes' shapes (what a file holding them is checked against). */
export const WORKSPACE_LIST_SCHEMAS = { list: ListSchema, deleting: IdsSchema };
/** @typedef {z.infer<typeof WorkspaceSchema>} Workspace */

export const WORKSPACES_KEY = 'clawser_workspaces';
/** The workspaces taken off the list whose files are still being deleted (stored with the list, in the same write). */
export const DELETING_KEY = 'clawser_workspaces_deleting';

/** The saved workspace list as stored (damaged: empty). @param {unknown} raw @returns {Workspace[]} */
export function parseWorkspaceList(raw) {
  const parsed = ListSchema.safeParse(raw);
  return parsed.success ? parsed.data : [];
}

/** @param {string} name */
function cleanName(name) {
  const n = name.replace(/\s+/g, ' ').trim();
  if (!n) throw new Error('A workspace needs a name.');
  if (n.length > 80) throw new Error('Keep the workspace name under 80 characters.');
  return n;
}

/** A new workspace's entry (its folder is made by WorkspaceStore). @param {string} name @returns {Workspace} */
export function newWorkspace(name) {
  return { id: `w${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}`, name: cleanName(name), createdAt: Date.now() };
}

/** What a first visit starts with. */
export const FIRST_WORKSPACE_NAME = 'My workspace';

/**
 * Removes what the workspace's tools keep in config: tool policies and "Always allow" rules,
 * skills choices, the built tools approved, the tag filter, MCP servers with their sealed tokens and the lists
 * of tools bound to them, channels. Its provider and agent settings go through their own stores
 * (SettingsStore.forget, AgentSettingsStore.forget).
 * @param {ConfigStore} config @param {string} id
 */
function forgetWorkspaceConfig(config, id) {
  config.remove(`clawser_tool_perms_${id}`);
  config.remove(`clawser_tool_rules_${id}`);
  config.remove(`clawser_skills_enabled_${id}`);
  config.remove(`clawser_built_tools_${id}`);
  config.remove(`clawser_ui_tag_filter_${id}`);
  config.remove(`clawser_ui_list_hidden_${id}`);
  for (const prefix of [`clawser_mcp_secret_${id}_`, `clawser_mcp_oauth_${id}_`]) for (const k of config.keys(prefix)) config.remove(k);
  config.remove(`clawser_mcp_servers_${id}`);
  config.remove(`clawser_mcp_tool_lists_${id}`);
  // Its channels (web/channels/store.js): their records, sealed tokens and addresses, offsets and traffic.
  config.remove(`clawser_channels_${id}`);
  for (const part of ['secret', 'offset', 'traffic']) for (const k of config.keys(`clawser_channel_${part}_${id}_`)) config.remove(k);
}

/** A workspace's own record beside the list (its name when the list is lost or damaged). @param {string} id */
const metaPath = (id) => `${STATE_FOLDER}/workspaces/${id}.json`;
/** @param {string} id */
const folderOf = (id) => `clawser_workspaces/${id}`;

/**
 * A workspace folder the list does not name: its name when its record knows it.
 * @typedef {{id: string, name: string | null, createdAt: number | null}} UnlistedWorkspace
 */

/**
 * The workspace list (in config: durable, in OPFS), each workspace's folder and record (its
 * name, in case the list is lost), and on delete what its tools kept in config. A delete takes
 * the workspace off the list first (noting it as being deleted, in the same write) and then
 * removes its files: a crash in between leaves no half-deleted workspace on the list, and the
 * next start finishes the delete (`finishDeletes`). A damaged list is never written over:
 * `list()` is empty, changes are refused, and `unlisted()` finds the folders it no longer names.
 */
export class WorkspaceStore {
  /**
   * @param {{config: ConfigStore & {damageOf?: (key: string) => {reason: string} | null}, fs: FileSystem, onDelete?: (id: string) => void,
   *   lock?: <T>(name: string, fn: () => Promise<T>) => Promise<T>}} deps lock: the cross-tab lock (Web Locks) a delete holds while its
   *   files go
   */
  constructor(deps) {
    this.deps = deps;
    this.config = deps.config;
    this.fs = deps.fs;
    this.onDelete = deps.onDelete;
  }

  /** @returns {Workspace[]} */
  list() {
    return parseWorkspaceList(this.config.get(WORKSPACES_KEY, []));
  }

  /** @param {string} id */
  get(id) {
    return this.list().find((w) => w.id === id);
  }

  /** What is wrong with the stored list (damaged: nothing of it is listed or overwritten), or null. */
  damage() {
    return this.config.damageOf?.(WORKSPACES_KEY) ?? null;
  }

  /** Refuses a change while the stored list is damaged (it would be written over). */
  #writable() {
    const d = this.damage();
    if (d)
      throw new WorkspaceListError(
        `The workspace list in the browser's storage is damaged (${d.reason}), so it was not changed. It is kept as it is: download it ` +
          `or set it aside from the notice about damaged files, then try again.`,
      );
  }

  /** Workspaces being deleted (their files may still be there). @returns {string[]} */
  deleting() {
    return parseIds(this.config.get(DELETING_KEY, []));
  }

  /**
   * @param {string} name
   * @param {{entry?: Workspace}} [options] entry: the workspace as a first view already showed it (its id and time kept)
   * @returns {Promise<Workspace>}
   */
  async create(name, options = {}) {
    this.#writable();
    const ws = options.entry ? { ...options.entry, name: cleanName(options.entry.name) } : newWorkspace(name);
    await this.fs.mkdir(folderOf(ws.id));
    await this.#writeMeta(ws);
    this.config.update(WORKSPACES_KEY, (v) => [...parseWorkspaceList(v).filter((w) => w.id !== ws.id), ws]);
    await this.config.flush();
    return ws;
  }

  /** Records that the workspace was opened now (shown on the home screen). @param {string} id */
  touch(id) {
    if (this.damage() || !this.get(id)) return;
    const now = Date.now();
    this.config.update(WORKSPACES_KEY, (v) => parseWorkspaceList(v).map((w) => (w.id === id ? { ...w, lastUsedAt: now } : w)));
  }

  /** @param {string} id @param {string} name */
  async rename(id, name) {
    this.#writable();
    const n = cleanName(name);
    const ws = this.get(id);
    // The record first: a crash before the list is written leaves it knowing the newer name.
    if (ws) await this.#writeMeta({ ...ws, name: n });
    this.config.update(WORKSPACES_KEY, (v) => parseWorkspaceList(v).map((w) => (w.id === id ? { ...w, name: n } : w)));
    await this.config.flush();
  }

  /** Makes the folder of a workspace listed without one. @param {string} id */
  async ensureFolder(id) {
    await this.fs.mkdir(folderOf(id));
  }

  /**
   * Deletes the workspace's files, conversations and settings: off the list first (stored,
   * with a note that it is being deleted, in one write before any file goes), then its files;
   * a delete a crash or a closed tab interrupted is finished by `finishDeletes`.
   * @param {string} id
   */
  async delete(id) {
    this.#writable();
    this.config.update(WORKSPACES_KEY, (v) => parseWorkspaceList(v).filter((w) => w.id !== id));
    this.config.update(DELETING_KEY, (v) => [...new Set([...parseIds(v), id])]);
    await this.config.flush();
    await this.#lock(() => this.#removeFiles(id));
  }

  /** @param {string} id */
  async #removeFiles(id) {
    this.onDelete?.(id);
    forgetWorkspaceConfig(this.config, id);
    await this.fs.delete(folderOf(id));
    await this.fs.delete(metaPath(id));
    this.config.update(DELETING_KEY, (v) => {
      const rest = parseIds(v).filter((d) => d !== id);
      return rest.length ? rest : undefined;
    });
    await this.config.flush();
  }

  /**
   * Finishes the deletes a crash or a closed tab interrupted (one running in another tab is
   * waited for: deletes hold the cross-tab lock); resolves to how many.
   */
  async finishDeletes() {
    if (this.damage() || this.deleting().length === 0) return 0;
    return this.#lock(async () => {
      const ids = this.deleting().filter((id) => !this.get(id));
      for (const id of ids) await this.#removeFiles(id);
      return ids.length;
    });
  }

  /** @template T @param {() => Promise<T>} fn @returns {Promise<T>} */
  #lock(fn) {
    return this.deps.lock ? this.deps.lock('workspace-deletes', fn) : fn();
  }

  /** @param {Workspace} ws */
  async #writeMeta(ws) {
    await this.fs.write(metaPath(ws.id), JSON.stringify({ id: ws.id, name: ws.name, createdAt: ws.createdAt }));
  }

  /**
   * Writes the record of each listed workspace that has none (after an update, or a restore),
   * and removes the records of workspaces whose folder is gone and that the list does not name
   * (a restore replaced them). A folder is made before its record, so a workspace being created
   * in another tab keeps its record.
   */
  async ensureRecords() {
    const names = (await this.fs.list(`${STATE_FOLDER}/workspaces`).catch(() => [])).map((e) => e.name);
    const have = new Set(names);
    const listed = this.list();
    for (const ws of listed) if (!have.has(`${ws.id}.json`)) await this.#writeMeta(ws);
    const known = new Set(listed.map((w) => w.id));
    for (const name of names) {
      const id = name.endsWith('.json') ? name.slice(0, -'.json'.length) : null;
      if (!id || known.has(id) || !WORKSPACE_ID.test(id)) continue;
      if (!(await this.fs.stat(folderOf(id)))) await this.fs.delete(metaPath(id));
    }
  }

  /**
   * The workspace folders in the browser's storage that the list does not name (lost from it, or
   * all of them when it is damaged), with the name their record knows. Folders being deleted
   * are not offered.
   * @returns {Promise<UnlistedWorkspace[]>}
   */
  async unlisted() {
    /** @type {{name: string, kind: string}[]} */
    let entries;
    try {
      entries = await this.fs.list('clawser_workspaces');
    } catch (err) {
      if (/** @type {{code?: string}} */ (err).code === 'not_found') return [];
      throw err;
    }
    const known = new Set([...this.list().map((w) => w.id), ...this.deleting()]);
    const ids = entries.filter((e) => e.kind === 'directory' && WORKSPACE_ID.test(e.name) && !known.has(e.name)).map((e) => e.name);
    return Promise.all(
      ids.map(async (id) => {
        const meta = MetaSchema.safeParse(parseJson(await this.fs.readText(metaPath(id)).catch(() => null)));
        return meta.success && meta.data.id === id
          ? { id, name: meta.data.name, createdAt: meta.data.createdAt }
          : { id, name: null, createdAt: null };
      }),
    );
  }

  /**
   * Puts found folders back on the list, under the name their record knows (or a name saying
   * where it came from).
   * @param {UnlistedWorkspace[]} found
   * @returns {Promise<Workspace[]>}
   */
  async addBack(found) {
    this.#writable();
    const listed = new Set(this.list().map((w) => w.id));
    const now = Date.now();
    const added = found
      .filter((f) => !listed.has(f.id))
      .map((f, i) => ({ id: f.id, name: cleanName(f.name ?? `Recovered workspace ${i + 1}`), createdAt: f.createdAt ?? now }));
    if (!added.length) return [];
    for (const ws of added) await this.#writeMeta(ws);
    this.config.update(WORKSPACES_KEY, (v) => {
      const list = parseWorkspaceList(v);
      const there = new Set(list.map((w) => w.id));
      return [...list, ...added.filter((w) => !there.has(w.id))];
    });
    await this.config.flush();
    return added;
  }
}

/**
 * A change to the workspace list refused because the stored list is damaged (code `damaged`, as DamagedFileError: the same notice covers
 * it).
 */
export class WorkspaceListError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'WorkspaceListError';
    this.code = 'damaged';
  }
}

/** @param {unknown} v @returns {string[]} */
const parseIds = (v) => {
  const parsed = IdsSchema.safeParse(v ?? []);
  return parsed.success ? parsed.data : [];
};

const MetaSchema = z.object({ id: z.string(), name: z.string().min(1), createdAt: z.number() });

/** @param {string | null} text @returns {unknown} */
function parseJson(text) {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
