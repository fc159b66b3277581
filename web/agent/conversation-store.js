/** @import { ConversationMeta, Coordination, ClawserEvent } from './types.d.ts' */
/** @import { FileSystem } from '../storage/types.d.ts' */
import { readTextIfExists, writeJson } from '../storage/index.js';
import { Conversation } from './conversation.js';
import { parseEventLines } from './event-log.js';
import { toJsonl } from './conversation-export.js';
import { LIST_FILE, parseConversationList, conversationListText, byActivity } from './conversation-list.js';


/** @param {number} now */
const newConversationId = (now) => `c${now.toString(36)}${Math.random().toString(36).slice(2, 8)}`;

/** Lists, creates, renames, deletes and opens the conversations of one workspace. */
export class ConversationStore {
  /** @type {FileSystem} */ #fs;
  #base;

  /** @type {Coordination | undefined} */ #coordination;

  /** @param {FileSystem} fs @param {string} workspaceId @param {Coordination} [coordination] shared with other tabs */
  constructor(fs, workspaceId, coordination) {
    this.#fs = fs;
    this.#coordination = coordination;
    this.#base = `clawser_workspaces/${workspaceId}/.conversations`;
  }

  /** @param {string} id */
  dirOf(id) {
    if (!/^[A-Za-z0-9_-]+$/.test(id)) throw new Error(`Invalid conversation id "${id}".`);
    return `${this.#base}/${id}`;
  }

  get #listFile() {
    return `${this.#base}/${LIST_FILE}`;
  }

  /** @param {string} id @returns {Promise<ConversationMeta | null>} */
  async #readMeta(id) {
    const text = await readTextIfExists(this.#fs, `${this.#base}/${id}/meta.json`).catch(() => null);
    if (!text) return null;
    try {
      return /** @type {ConversationMeta} */ (JSON.parse(text));
    } catch {
      return null;
    }
  }

  /** @returns {Promise<Record<string, ConversationMeta>>} */
  async #readList() {
    // Unreadable: rebuilt from the meta.json files.
    return parseConversationList(await readTextIfExists(this.#fs, this.#listFile).catch(() => null));
  }

  /**
   * Changes the saved list (under the list's lock when other tabs share it).
   * @param {(list: Record<string, ConversationMeta>) => void} change
   */
  async #changeList(change) {
    const write = async () => {
      const list = await this.#readList();
      change(list);
      await this.#fs.write(this.#listFile, conversationListText(list));
    };
    const c = this.#coordination;
    await (c ? c.withLock(`convlist:${this.#base}`, write) : write());
  }

  /**
   * The workspace's conversations, newest activity first. Read from one saved list
   * (`list.json`, a copy kept in step with each meta.json) rather than a file per conversation
   * — OPFS reads cost milliseconds each — checked against the folder's entries: a conversation
   * the list does not know (imported, restored, from an older version) is read from its
   * meta.json, and one whose folder is gone leaves the list.
   * @returns {Promise<ConversationMeta[]>}
   */
  async list() {
    await this.#fs.mkdir(this.#base);
    const [entries, saved] = await Promise.all([this.#fs.list(this.#base), this.#readList()]);
    const dirs = new Set(entries.filter((e) => e.kind === 'directory').map((e) => e.name));
    const unknown = [...dirs].filter((id) => !saved[id]);
    const found = (await Promise.all(unknown.map((id) => this.#readMeta(id)))).filter((m) => m !== null);
    const gone = Object.keys(saved).filter((id) => !dirs.has(id));
    /** @type {Record<string, ConversationMeta>} */
    const current = {};
    for (const id of dirs) {
      const meta = saved[id] ?? found.find((m) => m.id === id);
      if (meta) current[id] = meta;
    }
    if (found.length || gone.length) {
      await this.#changeList((list) => {
        for (const m of found) list[m.id] = m;
        for (const id of gone) delete list[id];
      }).catch(() => {}); // only a speed-up: the next list reads the folders again
    }
    return byActivity(Object.values(current));
  }

  /**
   * After a meta.json write: the list follows. If it cannot (a full quota), the list is dropped
   * rather than left stale: the next list() reads every meta.json again.
   * @param {ConversationMeta} meta
   */
  async #listed(meta) {
    await this.#changeList((list) => { list[meta.id] = meta; }).catch(() => this.#fs.delete(this.#listFile).catch(() => {}));
  }

  /**
   * @param {string} [title] @param {{parent?: ConversationMeta['parent']}} [options] parent: a sub-agent's conversation names its caller's (and keeps its title)
   * @returns {Promise<ConversationMeta>}
   */
  async create(title = 'New conversation', options = {}) {
    const now = Date.now();
    const id = newConversationId(now);
    /** @type {ConversationMeta} */
    const meta = { id, title, createdAt: now, updatedAt: now, ...(options.parent ? { parent: options.parent, titleSet: true } : {}) };
    await writeJson(this.#fs, `${this.dirOf(id)}/meta.json`, meta);
    await this.#listed(meta);
    return meta;
  }

  /** @param {string} id */
  async open(id) {
    const dir = this.dirOf(id);
    const c = this.#coordination;
    // Opening repairs a torn last line: under the lock, a line another tab is writing is never taken for one.
    const conv = await (c ? c.withLock(Conversation.topic(dir), () => Conversation.open(this.#fs, dir, undefined, c)) : Conversation.open(this.#fs, dir));
    conv.onMetaWritten = (meta) => this.#listed(meta);
    return conv;
  }

  /**
   * Every event of a conversation, from its log (an open Conversation shows only a tail).
   * @param {string} id @returns {Promise<ClawserEvent[]>}
   */
  async allEvents(id) {
    return parseEventLines((await readTextIfExists(this.#fs, `${this.dirOf(id)}/events.jsonl`)) ?? '').events;
  }

  /**
   * A new conversation holding `events` as they are (ids and times kept), e.g. from an imported
   * file the caller validated. The log is written before the conversation is listed.
   * @param {string} title @param {ClawserEvent[]} events @returns {Promise<ConversationMeta>}
   * @param {{imagesFrom?: string}} [options] imagesFrom: the conversation whose attached images the events show (a fork)
   */
  async createFrom(title, events, options = {}) {
    const now = Date.now();
    const id = newConversationId(now);
    // A fork keeps the images its messages show: the files are copied with the events.
    if (options.imagesFrom) {
      for (const e of events) {
        for (const ref of e.type === 'user_message' && Array.isArray(e.data.images) ? e.data.images : []) {
          if (typeof ref?.path !== 'string' || !/^images\/[\w.-]+$/.test(ref.path)) continue;
          const bytes = await this.#fs.readBytes(`${this.dirOf(options.imagesFrom)}/${ref.path}`).catch(() => null);
          if (bytes) await this.#fs.write(`${this.dirOf(id)}/${ref.path}`, bytes);
        }
      }
    }
    await this.#fs.write(`${this.dirOf(id)}/events.jsonl`, toJsonl(events));
    /** @type {ConversationMeta} */
    const meta = { id, title, createdAt: events[0]?.timestamp ?? now, updatedAt: events.at(-1)?.timestamp ?? now, titleSet: true };
    if (events.some((e) => e.type === 'branch')) meta.branched = true;
    await writeJson(this.#fs, `${this.dirOf(id)}/meta.json`, meta);
    await this.#listed(meta);
    return meta;
  }

  /** @param {string} id @param {string} title */
  async rename(id, title) {
    const path = `${this.dirOf(id)}/meta.json`;
    const text = await this.#fs.readText(path);
    const meta = { ...JSON.parse(text), title, titleSet: true };
    await writeJson(this.#fs, path, meta);
    await this.#listed(meta);
    return /** @type {ConversationMeta} */ (meta);
  }

  /** @param {string} id */
  async delete(id) {
    const dir = this.dirOf(id);
    const c = this.#coordination;
    // Under the conversation's lock: another tab's append is complete before, or refused after
    // (meta.json is gone), so no events.jsonl is left without its meta.json.
    if (c) await c.withLock(Conversation.topic(dir), () => this.#fs.delete(dir));
    else await this.#fs.delete(dir);
    await this.#changeList((list) => { delete list[id]; }).catch(() => {}); // the folder is gone: list() drops it anyway
  }
}
