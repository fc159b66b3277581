/**
 * Full-text search across every conversation of a workspace: one MiniSearch document per
 * message (every version of a branched conversation included) plus one per title, ranked
 * (BM25, prefix and fuzzy matching), with snippets. The index is kept incrementally — each
 * conversation's log is read only past the bytes already indexed — and saved next to the
 * conversations (`.conversations/search-index.json`), so a new session reads one file instead of
 * every log.
 */
/** @import { ClawserEvent, ConversationMeta } from './types.d.ts' */
/** @import { FileSystem } from '../storage/types.d.ts' */
import MiniSearch from 'minisearch';
import { readTextIfExists, writeJson } from '../storage/index.js';
import { splitLines } from '../storage/append-log.js';
import { isEvent } from './event-log.js';

const INDEX_VERSION = 1;
const decoder = new TextDecoder();
const encoder = new TextEncoder();

/**
 * @typedef {object} SearchHit
 * @property {string} conversationId
 * @property {string} title
 * @property {string | null} eventId the message (null: the conversation's title matched)
 * @property {'user' | 'assistant' | 'title'} role
 * @property {number} timestamp
 * @property {number} score
 * @property {{text: string, marks: [number, number][]}} snippet marks: [start, end) of matched words in text
 */

/** @typedef {{id: string, conversationId: string, eventId: string | null, role: string, timestamp: number, text: string, at?: [number, number]}} Doc */
/** @typedef {{bytes: number, count: number, title: string, updatedAt: number}} Indexed */

/** @type {import('minisearch').Options<Doc>} */
const OPTIONS = {
  fields: ['text'],
  // `at`: where the message's line is in events.jsonl, read back for the snippet (the index holds
  // terms, not texts, so it stays a fraction of the logs' size).
  storeFields: ['conversationId', 'eventId', 'role', 'timestamp', 'at'],
  searchOptions: { prefix: true, fuzzy: 0.2, combineWith: 'AND' },
};

/** A message's searchable text, or null for events that are not messages. @param {ClawserEvent} e */
function messageText(e) {
  if (e.type === 'user_message') return String(e.data.text ?? '');
  if (e.type === 'agent_message' && e.data.text) return String(e.data.text);
  return null;
}

/**
 * Up to `width` characters of `text` around its first matched word, with the matched words
 * marked.
 * @param {string} text @param {string[]} terms matched index terms (lower case) @param {number} [width]
 */
export function makeSnippet(text, terms, width = 160) {
  const flat = text.replace(/\s+/g, ' ').trim();
  const lower = flat.toLowerCase();
  /** @type {[number, number][]} */
  const found = [];
  for (const term of terms) {
    if (!term) continue;
    for (let at = lower.indexOf(term); at !== -1; at = lower.indexOf(term, at + term.length)) {
      // Whole word from the term's start (prefix matches mark the word they begin).
      let end = at + term.length;
      while (end < lower.length && /[\p{L}\p{N}_]/u.test(lower[end])) end++;
      if (at === 0 || !/[\p{L}\p{N}_]/u.test(lower[at - 1])) found.push([at, end]);
    }
  }
  found.sort((a, b) => a[0] - b[0]);
  const first = found[0]?.[0] ?? 0;
  let start = Math.max(0, first - Math.floor(width / 3));
  if (start > 0) {
    const space = flat.indexOf(' ', start);
    if (space !== -1 && space < first) start = space + 1;
  }
  const end = Math.min(flat.length, start + width);
  const prefix = start > 0 ? '…' : '';
  const body = flat.slice(start, end);
  const shift = prefix.length - start;
  return {
    text: `${prefix}${body}${end < flat.length ? '…' : ''}`,
    marks: /** @type {[number, number][]} */ (found.filter(([a, b]) => a >= start && b <= end).map(([a, b]) => [a + shift, b + shift])),
  };
}

export class ConversationSearch {
  /** @type {FileSystem} */ #fs;
  #base;
  /** @type {MiniSearch<Doc> | null} */ #index = null;
  /** @type {Map<string, Indexed>} */ #indexed = new Map();
  /** @type {Promise<void> | null} */ #loading = null;
  /** Conversations written to since they were indexed (this tab knows of its own appends). @type {Set<string>} */
  #dirty = new Set();
  #changed = false;
  #verified = false;

  /** @param {FileSystem} fs @param {string} workspaceId */
  constructor(fs, workspaceId) {
    this.#fs = fs;
    this.#base = `clawser_workspaces/${workspaceId}/.conversations`;
  }

  get #file() {
    return `${this.#base}/search-index.json`;
  }

  /** A conversation got events (or was renamed): it is brought up to date at the next search. @param {string} conversationId */
  touch(conversationId) {
    this.#dirty.add(conversationId);
  }

  async #load() {
    this.#index = new MiniSearch(OPTIONS);
    const text = await readTextIfExists(this.#fs, this.#file).catch(() => null);
    if (!text) return;
    try {
      const saved = JSON.parse(text);
      if (saved.version !== INDEX_VERSION) return;
      this.#index = MiniSearch.loadJS(saved.index, OPTIONS);
      this.#indexed = new Map(Object.entries(saved.conversations));
    } catch {
      // Unreadable or from another version: rebuilt from the logs, which are the truth.
      this.#index = new MiniSearch(OPTIONS);
      this.#indexed = new Map();
    }
  }

  /**
   * Brings the index up to date with `conversations` (the store's list): new and changed logs
   * are read past what was indexed, deleted conversations leave it, and it is saved when it
   * changed.
   * @param {ConversationMeta[]} conversations
   */
  async update(conversations) {
    this.#loading ??= this.#load();
    await this.#loading;
    const index = /** @type {MiniSearch<Doc>} */ (this.#index);
    const live = new Set(conversations.map((c) => c.id));
    for (const [id, known] of this.#indexed) {
      if (!live.has(id)) {
        this.#discard(id, known);
        this.#indexed.delete(id);
        this.#changed = true;
      }
    }
    if (!this.#verified) {
      // Once a session: the saved index may predate appends another tab or the previous session
      // made (an agent's reply does not touch meta.json), so each log's length is checked.
      this.#verified = true;
      const known = conversations.filter((c) => this.#indexed.has(c.id) && !this.#dirty.has(c.id));
      for (let i = 0; i < known.length; i += 64) {
        await Promise.all(known.slice(i, i + 64).map(async (c) => {
          const stat = await this.#fs.stat(`${this.#base}/${c.id}/events.jsonl`).catch(() => null);
          const size = stat?.kind === 'file' ? stat.size : 0;
          if (size !== this.#indexed.get(c.id)?.bytes) this.#dirty.add(c.id);
        }));
      }
    }
    for (const meta of conversations) {
      const known = this.#indexed.get(meta.id);
      if (known && !this.#dirty.has(meta.id) && known.updatedAt >= meta.updatedAt && known.title === meta.title) continue;
      await this.#catchUp(index, meta, known);
      this.#dirty.delete(meta.id);
    }
    if (this.#changed) {
      this.#changed = false;
      await writeJson(this.#fs, this.#file, { version: INDEX_VERSION, conversations: Object.fromEntries(this.#indexed), index: index.toJSON() });
    }
  }

  /** @param {string} id @param {Indexed} known */
  #discard(id, known) {
    const index = /** @type {MiniSearch<Doc>} */ (this.#index);
    for (let n = 0; n < known.count; n++) this.#remove(index, `${id}:${n}`);
    this.#remove(index, `${id}:title`);
  }

  /** @param {MiniSearch<Doc>} index @param {string} docId */
  #remove(index, docId) {
    if (index.has(docId)) index.discard(docId);
  }

  /** @param {MiniSearch<Doc>} index @param {ConversationMeta} meta @param {Indexed | undefined} known */
  async #catchUp(index, meta, known) {
    const path = `${this.#base}/${meta.id}/events.jsonl`;
    const stat = await this.#fs.stat(path);
    const size = stat?.kind === 'file' ? stat.size : 0;
    let from = known?.bytes ?? 0;
    let count = known?.count ?? 0;
    if (size < from) {
      // The log is shorter than what was indexed (replaced by a restore): index it anew.
      if (known) this.#discard(meta.id, known);
      from = 0;
      count = 0;
    }
    /** @type {Doc[]} */
    const docs = [];
    let next = from;
    if (size > from) {
      const { lines, tailOffset } = splitLines(await this.#fs.readBytes(path, { start: from, end: size }), from);
      next = tailOffset; // an incomplete last line is read again next time
      for (const line of lines) {
        let e;
        try {
          e = JSON.parse(line.text);
        } catch {
          continue;
        }
        if (!isEvent(e)) continue;
        const text = messageText(e);
        if (!text) continue;
        docs.push({ id: `${meta.id}:${count++}`, conversationId: meta.id, eventId: e.id, role: e.type === 'user_message' ? 'user' : 'assistant', timestamp: e.timestamp, text, at: [line.offset, line.offset + encoder.encode(line.text).length] });
      }
    }
    if (!known || known.title !== meta.title) {
      this.#remove(index, `${meta.id}:title`);
      docs.push({ id: `${meta.id}:title`, conversationId: meta.id, eventId: null, role: 'title', timestamp: meta.createdAt, text: meta.title });
    }
    if (docs.length) index.addAll(docs);
    this.#indexed.set(meta.id, { bytes: next, count, title: meta.title, updatedAt: meta.updatedAt });
    this.#changed = true;
  }

  /**
   * The best matches for `query`, with snippets (each hit's message read back from its log).
   * Call `update` first.
   * @param {string} query @param {{limit?: number}} [options]
   * @returns {Promise<SearchHit[]>}
   */
  async search(query, options = {}) {
    const index = this.#index;
    if (!index || !query.trim()) return [];
    const results = index.search(query.trim()).slice(0, options.limit ?? 50);
    return Promise.all(results.map(async (r) => {
      const conversationId = String(r.conversationId);
      const title = this.#indexed.get(conversationId)?.title ?? '';
      const at = /** @type {[number, number] | undefined} */ (r.at);
      let text = title;
      if (at) {
        try {
          const e = JSON.parse(decoder.decode(await this.#fs.readBytes(`${this.#base}/${conversationId}/events.jsonl`, { start: at[0], end: at[1] })));
          text = (isEvent(e) && messageText(e)) || '';
        } catch {
          text = ''; // the log changed under the index (a restore): the hit still leads there
        }
      }
      return {
        conversationId,
        title,
        eventId: r.eventId ? String(r.eventId) : null,
        role: /** @type {SearchHit['role']} */ (r.role),
        timestamp: Number(r.timestamp),
        score: r.score,
        snippet: makeSnippet(text, r.terms),
      };
    }));
  }

  /** Documents in the index (messages and titles). */
  get size() {
    return this.#index?.documentCount ?? 0;
  }
}
