/**
 * Full-text search across every conversation of a workspace: ranked (BM25, prefix and fuzzy
 * matching) over one MiniSearch document per conversation — its title and every message of
 * every version — then the matching messages of the best conversations, with snippets. The
 * index is kept incrementally (a conversation is indexed again only when its log changed) and
 * saved next to the conversations (`.conversations/search-index.json`), so a new session reads
 * one file instead of every log. */
/** @import { ClawserEvent, ConversationMeta } from '../types.d.ts' */
/** @import { FileSystem } from '../../storage/types.d.ts' */
import MiniSearch from 'minisearch';
import { readTextIfExists } from '../../storage/index.js';
import { splitLines } from '../../storage/append-log.js';
import { isEvent } from './event-log.js';

const INDEX_VERSION = 2;

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

/** @typedef {{id: string, title: string, tags: string, text: string}} Doc */
/** @typedef {{bytes: number, title: string, tags?: string, updatedAt: number}} Indexed */

/**
 * One document per conversation (its title, its tags and every message of every version): posting lists
 * stay as long as the number of conversations, not of messages, which keeps the index small and
 * a query fast; the messages that match are then found in the few best conversations' logs.
 * Only the last word of a query matches as a prefix (the one still being typed, as search-as-you-
 * type does): a short word before it would widen to hundreds of index terms, which made such a
 * query several times slower, for matches the person did not type.
 * @type {import('minisearch').Options<Doc>}
 */
const OPTIONS = {
  fields: ['title', 'tags', 'text'],
  searchOptions: {
    prefix: (_term, i, terms) => i === terms.length - 1,
    fuzzy: (term) => (term.length > 5 ? 0.15 : false),
    combineWith: 'AND',
    boost: { title: 2, tags: 2 },
  },
};
/** Conversations whose messages are shown per query, and hits per conversation. */
const TOP_CONVERSATIONS = 20;
const HITS_PER_CONVERSATION = 3;

/** A conversation's tags as one searchable text (empty without tags). @param {ConversationMeta} meta */
const tagText = (meta) => (meta.tags ?? []).join(', ');

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
  #savedAt = 0;
  /** Told of a log with damaged lines (the store keeps and reports them). @type {((id: string) => void) | undefined} */
  #onDamagedLog;
  /** Logs already told of on this page. */
  #toldDamaged = new Set();

  /**
   * @param {FileSystem} fs @param {string} workspaceId
   * @param {{onDamagedLog?: (id: string) => void}} [options] onDamagedLog: told (once a page) of a
   *   conversation whose log has lines that are not records, which the search leaves out
   */
  constructor(fs, workspaceId, options = {}) {
    this.#fs = fs;
    this.#base = `clawser_workspaces/${workspaceId}/.conversations`;
    this.#onDamagedLog = options.onDamagedLog;
  }

  get #file() {
    return `${this.#base}/search-index.json`;
  }

  /** @param {string} id */
  #log(id) {
    return `${this.#base}/${id}/events.jsonl`;
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
   * Brings the index up to date with `conversations` (the store's list): new and changed
   * conversations are (re)indexed, deleted ones leave it, and it is saved when it changed.
   * @param {ConversationMeta[]} conversations
   */
  update(conversations) {
    // One at a time: searches typed while the index is built wait for it instead of building it again.
    const run = this.#updating.then(() => this.#update(conversations));
    this.#updating = run.catch(() => {});
    return run;
  }

  /** @type {Promise<void>} */ #updating = Promise.resolve();

  /**
   * A deleted conversation leaves the index and its saved file at once (its words must not stay
   * on disk after "Delete").
   * @param {string} id
   */
  forget(id) {
    const run = this.#updating.then(async () => {
      this.#loading ??= this.#load();
      await this.#loading;
      const index = /** @type {MiniSearch<Doc>} */ (this.#index);
      if (index.has(id)) index.discard(id);
      if (!this.#indexed.delete(id)) return;
      await this.#save(index);
    });
    this.#updating = run.catch(() => {});
    return run;
  }

  /** @param {MiniSearch<Doc>} index */
  async #save(index) {
    // Discarded documents' terms stay in the index until a vacuum: removed before saving.
    if (index.dirtCount > 0) await index.vacuum();
    this.#changed = false;
    this.#savedAt = Date.now();
    try {
      await this.#fs.write(this.#file, JSON.stringify({ version: INDEX_VERSION, conversations: Object.fromEntries(this.#indexed), index }));
    } catch {
      // Only a speed-up (a full quota): the next session indexes from the logs again.
    }
  }

  /** @param {ConversationMeta[]} conversations */
  async #update(conversations) {
    this.#loading ??= this.#load();
    await this.#loading;
    const index = /** @type {MiniSearch<Doc>} */ (this.#index);
    const live = new Set(conversations.map((c) => c.id));
    for (const id of this.#indexed.keys()) {
      if (!live.has(id)) {
        if (index.has(id)) index.discard(id);
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
        await Promise.all(
          known.slice(i, i + 64).map(async (c) => {
            const stat = await this.#fs.stat(this.#log(c.id)).catch(() => null);
            const size = stat?.kind === 'file' ? stat.size : 0;
            if (size !== this.#indexed.get(c.id)?.bytes) this.#dirty.add(c.id);
          }),
        );
      }
    }
    let reindexed = 0;
    for (const meta of conversations) {
      const known = this.#indexed.get(meta.id);
      if (
        known &&
        !this.#dirty.has(meta.id) &&
        known.updatedAt >= meta.updatedAt &&
        known.title === meta.title &&
        (known.tags ?? '') === tagText(meta)
      )
        continue;
      await this.#reindex(index, meta);
      this.#dirty.delete(meta.id);
      reindexed++;
    }
    // Saved after a build, otherwise at most once a minute: the file can be large, and what it
    // misses is found by the next session's length check anyway.
    if (this.#changed && (reindexed > 20 || Date.now() - this.#savedAt > 60_000)) await this.#save(index);
  }

  /** The messages of a conversation's log (every version), with their events. @param {string} id */
  async #messages(id) {
    const bytes = await this.#fs.readBytes(this.#log(id)).catch(() => new Uint8Array(0));
    const { lines, tailOffset } = splitLines(bytes, 0);
    /** @type {{event: ClawserEvent, text: string}[]} */
    const out = [];
    let damaged = false;
    for (const line of lines) {
      let e;
      try {
        e = JSON.parse(line.text);
      } catch {
        damaged ||= !!line.text.trim();
        continue;
      }
      if (!isEvent(e)) {
        damaged = true;
        continue;
      }
      const text = messageText(e);
      if (text) out.push({ event: e, text });
    }
    // Left out here, never silently: the store keeps the lines and the notice says so.
    if (damaged && !this.#toldDamaged.has(id)) {
      this.#toldDamaged.add(id);
      this.#onDamagedLog?.(id);
    }
    return { messages: out, bytes: tailOffset };
  }

  /** @param {MiniSearch<Doc>} index @param {ConversationMeta} meta */
  async #reindex(index, meta) {
    const { messages, bytes } = await this.#messages(meta.id);
    const tags = tagText(meta);
    const doc = { id: meta.id, title: meta.title, tags, text: messages.map((m) => m.text).join('\n') };
    if (index.has(meta.id)) index.replace(doc);
    else index.add(doc);
    this.#indexed.set(meta.id, { bytes, title: meta.title, ...(tags ? { tags } : {}), updatedAt: meta.updatedAt });
    this.#changed = true;
  }

  /**
   * The best matches for `query`: the best conversations, and in each the messages holding the
   * words, with snippets. Call `update` first.
   * @param {string} query @param {{limit?: number}} [options] limit: conversations looked into
   * @returns {Promise<SearchHit[]>}
   */
  async search(query, options = {}) {
    const index = this.#index;
    if (!index || !query.trim()) return [];
    const results = index.search(query.trim()).slice(0, options.limit ?? TOP_CONVERSATIONS);
    const perConversation = await Promise.all(
      results.map(async (r) => {
        const conversationId = String(r.id);
        const indexed = this.#indexed.get(conversationId);
        const title = indexed?.title ?? '';
        const terms = r.terms.map((t) => t.toLowerCase());
        /** @type {SearchHit[]} */
        const hits = [];
        const byTag = !!r.match && Object.values(r.match).some((fields) => fields.includes('tags'));
        if (byTag || (r.match && Object.values(r.match).some((fields) => fields.includes('title')))) {
          hits.push({
            conversationId,
            title,
            eventId: null,
            role: 'title',
            timestamp: 0,
            score: r.score,
            // Found by a tag: the title, then its tags (the matched one marked).
            snippet: makeSnippet(byTag ? `${title} · ${indexed?.tags ?? ''}` : title, terms),
          });
        }
        const { messages } = await this.#messages(conversationId);
        const ranked = messages
          .filter((m) => {
            const lower = m.text.toLowerCase();
            return terms.some((t) => lower.includes(t));
          })
          .map((m) => ({ m, snippet: makeSnippet(m.text, terms) }))
          .filter((x) => x.snippet.marks.length > 0)
          .sort(
            (a, b) =>
              new Set(b.snippet.marks.map(([s, e]) => b.snippet.text.slice(s, e).toLowerCase())).size -
                new Set(a.snippet.marks.map(([s, e]) => a.snippet.text.slice(s, e).toLowerCase())).size ||
              b.m.event.timestamp - a.m.event.timestamp,
          )
          .slice(0, HITS_PER_CONVERSATION);
        for (const { m, snippet } of ranked) {
          hits.push({
            conversationId,
            title,
            eventId: m.event.id,
            role: m.event.type === 'user_message' ? 'user' : 'assistant',
            timestamp: m.event.timestamp,
            score: r.score,
            snippet,
          });
        }
        return hits;
      }),
    );
    return perConversation.flat();
  }

  /** Conversations in the index. */
  get size() {
    return this.#index?.documentCount ?? 0;
  }
}
