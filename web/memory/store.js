/** @import { FileSystem } from '../storage/types.d.ts' */
import { z } from 'zod';
import { readTextIfExists } from '../storage/index.js';
import { MemoryIndex } from './search.js';

export const CATEGORIES = /** @type {const} */ (['core', 'learned', 'user', 'context']);

export const MemoryEntrySchema = z.object({
  id: z.string().min(1).max(64),
  key: z.string().min(1).max(200),
  content: z.string().min(1).max(20_000),
  category: z.enum(CATEGORIES),
  timestamp: z.number(),
  source: z.string().max(200).default('user'),
  conversationId: z.string().max(64).optional(),
  pinned: z.boolean().optional(),
});
/** @typedef {z.infer<typeof MemoryEntrySchema>} MemoryEntry */

const LogLineSchema = z.union([
  z.object({ op: z.literal('put'), entry: MemoryEntrySchema }),
  z.object({ op: z.literal('del'), id: z.string() }),
]);

/** Log format version, for migrations of `.memory/`. */
export const MEMORY_FORMAT = 1;
const LOG = 'entries.jsonl';
const META = 'meta.json';

/** @param {string} key */
const normKey = (key) => key.trim().toLowerCase().replace(/\s+/g, ' ');

/**
 * The agent's long-term memory of one workspace: entries in an append-only JSON-lines log
 * under `.memory/` (one line per change: storing 100,000 entries never rewrites the file;
 * a rewrite happens only when most lines are stale), searched through a MemoryIndex.
 * Entries with the same key merge: the newer one wins.
 */
export class MemoryStore {
  /** @type {Map<string, MemoryEntry>} */
  #entries = new Map();
  /** @type {Map<string, string>} normalized key → id */
  #byKey = new Map();
  #logLines = 0;
  /** Lines waiting to be appended: many stores in a burst become one append. @type {string[]} */
  #pending = [];
  /** @type {Promise<void> | null} */
  #flushing = null;
  #loaded = false;

  /**
   * @param {{fs: FileSystem, dir?: string, index?: MemoryIndex, now?: () => number}} deps
   *   fs: the workspace file system; dir: the memory folder (".memory")
   */
  constructor(deps) {
    this.fs = deps.fs;
    this.dir = deps.dir ?? '.memory';
    this.index = deps.index ?? new MemoryIndex();
    this.now = deps.now ?? Date.now;
  }

  /** Reads the log once; later calls return at once. Torn or invalid lines are skipped and counted. */
  async load() {
    if (this.#loaded) return { skipped: 0 };
    const text = await readTextIfExists(this.fs, `${this.dir}/${LOG}`);
    let skipped = 0;
    for (const line of (text ?? '').split('\n')) {
      if (!line.trim()) continue;
      this.#logLines++;
      let parsed;
      try {
        parsed = LogLineSchema.safeParse(JSON.parse(line));
      } catch {
        skipped++;
        continue;
      }
      if (!parsed.success) {
        skipped++;
        continue;
      }
      if (parsed.data.op === 'put') this.#apply(parsed.data.entry);
      else this.#drop(parsed.data.id);
    }
    if (text === null) await this.fs.write(`${this.dir}/${META}`, JSON.stringify({ format: MEMORY_FORMAT }));
    this.#loaded = true;
    return { skipped };
  }

  /** @param {MemoryEntry} entry */
  #apply(entry) {
    const k = normKey(entry.key);
    const previous = this.#byKey.get(k);
    if (previous && previous !== entry.id) this.#drop(previous);
    this.#entries.set(entry.id, entry);
    this.#byKey.set(k, entry.id);
    this.index.upsert(entry.id, { text: `${entry.key}\n${entry.content}`, category: entry.category });
  }

  /** @param {string} id */
  #drop(id) {
    const e = this.#entries.get(id);
    if (!e) return false;
    this.#entries.delete(id);
    if (this.#byKey.get(normKey(e.key)) === id) this.#byKey.delete(normKey(e.key));
    this.index.remove(id);
    return true;
  }

  /** @param {object} line */
  #log(line) {
    this.#pending.push(JSON.stringify(line));
    this.#logLines++;
  }

  /** Writes pending lines in one append. Resolves when they are on disk. */
  flush() {
    this.#flushing ??= (async () => {
      try {
        while (this.#pending.length) {
          const lines = this.#pending.splice(0);
          await this.fs.append(`${this.dir}/${LOG}`, `${lines.join('\n')}\n`);
        }
      } finally {
        this.#flushing = null;
      }
    })();
    return this.#flushing;
  }

  /**
   * Stores a memory; an existing one with the same key (case-insensitive) is replaced.
   * @param {{key: string, content: string, category?: MemoryEntry['category'], source?: string, conversationId?: string, pinned?: boolean}} input
   * @returns {Promise<MemoryEntry>}
   */
  async store(input) {
    await this.load();
    const existing = this.#byKey.get(normKey(input.key));
    const entry = MemoryEntrySchema.parse({
      id: existing ?? `m${this.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`,
      key: input.key.trim(),
      content: input.content.trim(),
      category: input.category ?? 'learned',
      timestamp: this.now(),
      source: input.source ?? 'user',
      conversationId: input.conversationId,
      pinned: input.pinned ?? (existing ? this.#entries.get(existing)?.pinned : undefined),
    });
    this.#apply(entry);
    this.#log({ op: 'put', entry });
    await this.flush();
    return entry;
  }

  /** Changes fields of an entry by id. @param {string} id @param {Partial<Pick<MemoryEntry, 'key' | 'content' | 'category' | 'pinned'>>} patch */
  async update(id, patch) {
    await this.load();
    const current = this.#entries.get(id);
    if (!current) return null;
    const entry = MemoryEntrySchema.parse({ ...current, ...patch, timestamp: this.now() });
    this.#drop(id);
    this.#apply(entry);
    this.#log({ op: 'put', entry });
    await this.flush();
    return entry;
  }

  /** @param {string} idOrKey */
  async forget(idOrKey) {
    await this.load();
    const id = this.#entries.has(idOrKey) ? idOrKey : this.#byKey.get(normKey(idOrKey));
    if (!id || !this.#drop(id)) return false;
    this.#log({ op: 'del', id });
    await this.flush();
    await this.#compactIfStale();
    return true;
  }

  /**
   * @param {string} query
   * @param {{limit?: number, categories?: string[], queryVector?: Float32Array}} [options]
   * @returns {Promise<(MemoryEntry & {score: number})[]>}
   */
  async recall(query, options = {}) {
    await this.load();
    return this.index.search(query, options).map((hit) => ({ ...(/** @type {MemoryEntry} */ (this.#entries.get(hit.id))), score: hit.score }));
  }

  /** Newest first. @param {{category?: string}} [filter] */
  async list(filter = {}) {
    await this.load();
    return [...this.#entries.values()].filter((e) => !filter.category || e.category === filter.category).sort((a, b) => b.timestamp - a.timestamp);
  }

  get size() {
    return this.#entries.size;
  }

  /** Rewrites the log (atomically) when most of its lines are superseded. */
  async #compactIfStale() {
    if (this.#logLines < 1000 || this.#logLines < this.#entries.size * 2) return;
    await this.flush();
    const lines = [...this.#entries.values()].map((entry) => JSON.stringify({ op: 'put', entry }));
    await this.fs.write(`${this.dir}/${LOG}`, lines.length ? `${lines.join('\n')}\n` : '');
    this.#logLines = lines.length;
  }

  /** All entries as a JSON document (export). */
  async exportJson() {
    await this.load();
    return { format: 'clawser-memory', version: MEMORY_FORMAT, entries: [...this.#entries.values()] };
  }

  /**
   * Imports exported entries (validated); same keys merge, newer wins.
   * @param {unknown} data
   */
  async importJson(data) {
    const parsed = z.object({ format: z.literal('clawser-memory'), version: z.number().int().max(MEMORY_FORMAT), entries: z.array(MemoryEntrySchema) }).parse(data);
    await this.load();
    let imported = 0;
    for (const entry of parsed.entries) {
      const existing = this.#byKey.get(normKey(entry.key));
      if (existing && (this.#entries.get(existing)?.timestamp ?? 0) >= entry.timestamp) continue;
      const merged = { ...entry, id: existing ?? entry.id };
      this.#apply(merged);
      this.#log({ op: 'put', entry: merged });
      imported++;
    }
    await this.flush();
    return { imported, skipped: parsed.entries.length - imported };
  }
}
