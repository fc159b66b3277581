/** @import { ConversationMeta, Coordination, ClawserEvent } from './types.d.ts' */
/** @import { FileSystem } from '../storage/types.d.ts' */
import { readTextIfExists, writeJson } from '../storage/index.js';
import { Conversation } from './conversation.js';
import { parseEventLines } from './event-log.js';
import { toJsonl } from './conversation-export.js';

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

  /** @returns {Promise<ConversationMeta[]>} newest activity first */
  async list() {
    await this.#fs.mkdir(this.#base);
    const entries = await this.#fs.list(this.#base);
    const metas = await Promise.all(
      entries.filter((e) => e.kind === 'directory').map(async (e) => {
        const text = await readTextIfExists(this.#fs, `${this.#base}/${e.name}/meta.json`).catch(() => null);
        if (!text) return null;
        try {
          return /** @type {ConversationMeta} */ (JSON.parse(text));
        } catch {
          return null;
        }
      }),
    );
    return /** @type {ConversationMeta[]} */ (metas.filter(Boolean)).sort((a, b) => b.updatedAt - a.updatedAt);
  }

  /** @param {string} [title] @returns {Promise<ConversationMeta>} */
  async create(title = 'New conversation') {
    const now = Date.now();
    const id = newConversationId(now);
    /** @type {ConversationMeta} */
    const meta = { id, title, createdAt: now, updatedAt: now };
    await writeJson(this.#fs, `${this.dirOf(id)}/meta.json`, meta);
    return meta;
  }

  /** @param {string} id */
  open(id) {
    const dir = this.dirOf(id);
    const c = this.#coordination;
    // Opening repairs a torn last line: under the lock, a line another tab is writing is never taken for one.
    return c ? c.withLock(Conversation.topic(dir), () => Conversation.open(this.#fs, dir, undefined, c)) : Conversation.open(this.#fs, dir);
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
   */
  async createFrom(title, events) {
    const now = Date.now();
    const id = newConversationId(now);
    await this.#fs.write(`${this.dirOf(id)}/events.jsonl`, toJsonl(events));
    /** @type {ConversationMeta} */
    const meta = { id, title, createdAt: events[0]?.timestamp ?? now, updatedAt: events.at(-1)?.timestamp ?? now, titleSet: true };
    if (events.some((e) => e.type === 'branch')) meta.branched = true;
    await writeJson(this.#fs, `${this.dirOf(id)}/meta.json`, meta);
    return meta;
  }

  /** @param {string} id @param {string} title */
  async rename(id, title) {
    const path = `${this.dirOf(id)}/meta.json`;
    const text = await this.#fs.readText(path);
    const meta = { ...JSON.parse(text), title, titleSet: true };
    await writeJson(this.#fs, path, meta);
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
  }
}
