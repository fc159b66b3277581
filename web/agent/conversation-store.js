/** @import { ConversationMeta } from './types.d.ts' */
/** @import { FileSystem } from '../storage/types.d.ts' */
import { readTextIfExists, writeJson } from '../storage/index.js';
import { Conversation } from './conversation.js';

/** Lists, creates, renames, deletes and opens the conversations of one workspace. */
export class ConversationStore {
  /** @type {FileSystem} */ #fs;
  #base;

  /** @param {FileSystem} fs @param {string} workspaceId */
  constructor(fs, workspaceId) {
    this.#fs = fs;
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
    const id = `c${now.toString(36)}${Math.random().toString(36).slice(2, 8)}`;
    /** @type {ConversationMeta} */
    const meta = { id, title, createdAt: now, updatedAt: now };
    await writeJson(this.#fs, `${this.dirOf(id)}/meta.json`, meta);
    return meta;
  }

  /** @param {string} id */
  open(id) {
    return Conversation.open(this.#fs, this.dirOf(id));
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
    await this.#fs.delete(this.dirOf(id));
  }
}
