// Why this file is long: the memory store's append log, its damage handling, the index it feeds,
//  the vectors and the embedding queue keep one consistent state; a write updates them together,
//  and rewrites take the tabs' lock after reading other tabs' lines.
/** @import { FileSystem } from '../storage/types.d.ts' */
/** @import { EmbedderStatus } from './embed-core.js' */
import { z } from 'zod';
import { readTextIfExists } from '../storage/index.js';
import { readAppended, splitLines } from '../storage/append-log.js';
import { keepDamagedLines, lineProblem, readJson, setAsideFile, keptLinesProblem } from '../storage/damage.js';
import { MemoryIndex } from './search.js';
import { encodeVectorRecord, textHash } from './vectors.js';
import { VectorFile } from './vector-file.js';
import { EmbeddingQueue } from './embedding-queue.js';
import { contentStamp, currentSummary } from './summaries.js';
import { CATEGORIES } from './categories.js';

export { CATEGORIES };

export const MemoryEntrySchema = z.object({
  id: z.string().min(1).max(64),
  key: z.string().min(1).max(200),
  content: z.string().min(1).max(20_000),
  category: z.enum(CATEGORIES),
  timestamp: z.number(),
  source: z.string().max(200).default('user'),
  conversationId: z.string().max(64).optional(),
  pinned: z.boolean().optional(),
  /**
   * A short summary of a long memory (see summaries.js), standing in for it in prompts: its
   * text, who made it ("on-device" or the chat model's "provider/model") and the stamp of the
   * content it summarizes (a summary of older content is ignored).
   */
  summary: z.lazy(() => SummarySchema).optional(),
});
const SummarySchema = z.object({ text: z.string().min(1).max(4000), by: z.string().min(1).max(200), of: z.string().min(1).max(40) });
/** @typedef {z.infer<typeof MemoryEntrySchema>} MemoryEntry */

const LogLineSchema = z.union([
  z.object({ op: z.literal('put'), entry: MemoryEntrySchema }),
  z.object({ op: z.literal('del'), id: z.string() }),
  // A summary on its own line: it applies to the entry only while the entry still has the text
  // it summarizes, wherever the line lands among other tabs' edits.
  z.object({ op: z.literal('sum'), id: z.string(), summary: SummarySchema }),
]);

/** Log format version, for migrations of `.memory/`. */
export const MEMORY_FORMAT = 1;
/**
 * Upgrades of `.memory/`: MIGRATIONS[n] turns format n into n + 1 (none yet: format 1 is the
 * first). Each must be safe to run again if a tab closes halfway.
 * @type {Record<number, (fs: FileSystem, dir: string) => Promise<void>>}
 */
const MIGRATIONS = {};

export class MemoryError extends Error {
  /** @param {'newer_format'} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.name = 'MemoryError';
    this.code = code;
  }
}
const LOG = 'entries.jsonl';
const META = 'meta.json';
/** The folder's format file (`meta.json`), checked: a damaged one is reported and kept. */
const MetaSchema = z.looseObject({ format: z.number().int().positive() });
/** @param {string} text */
const isJson = (text) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};
export const VECTORS_FILE = 'vectors.bin';

/**
 * What the store needs from an embedder (web/memory/embedder.js's Embedder). `subscribe`
 * calls back at once with the current status.
 * @typedef {{
 *   status: EmbedderStatus,
 *   subscribe(fn: (status: EmbedderStatus) => void): () => void,
 *   embed(texts: string[], options?: {priority?: 'high' | 'low', timeoutMs?: number, signal?: AbortSignal}): Promise<Float32Array[]>,
 * }} EmbedderLike
 */

/**
 * @typedef {object} EmbeddingState
 * @property {'off' | 'waiting' | 'running' | 'idle'} state off: no embedder attached; waiting:
 *   the embedder is not ready (no model, loading, failed); running: embedding in the background
 * @property {number} pending memories without an embedding yet
 * @property {number} done embedded in the current run ("embedding done of total")
 * @property {number} total done + pending
 * @property {number} failed memories the model could not embed (retried when they change)
 * @property {number} vectors memories with an embedding
 * @property {import('./embed-core.js').EmbedderState | null} embedder the embedder's state
 * @property {string} message for people
 */

export { RECALL_FLOOR } from './recall.js';

/**
 * @typedef {object} RecallInfo how the last recall ranked
 * @property {'hybrid' | 'keyword'} mode
 * @property {'given' | 'embedded' | 'cached' | 'disabled' | 'off' | 'not_ready' | 'no_vectors' | 'timeout' | 'error'} reason
 */

/** @param {string} key */
export const normKey = (key) => key.trim().toLowerCase().replace(/\s+/g, ' ');
/** The text indexed and embedded for an entry. @param {MemoryEntry} e */
const entryText = (e) => `${e.key}\n${e.content}`;
const encoder = new TextEncoder();

/**
 * The agent's long-term memory of one workspace: entries in an append-only JSON-lines log
 * under `.memory/` (one line per change: storing 100,000 entries never rewrites the file;
 * a rewrite happens only when most lines are stale), searched through a MemoryIndex.
 * Entries with the same key merge: the newer one wins.
 *
 * Embeddings: with an embedder attached (attachEmbedder) and ready, memories without a
 * vector are embedded in the background, in small batches that never hold up store() or
 * recall(); vectors go to `.memory/vectors.bin` (see vectors.js) and are loaded back by
 * load(). A memory whose text changes loses its vector and is queued again. recall() embeds
 * the query when the embedder is ready, but waits at most `queryTimeoutMs` for it and
 * otherwise ranks by keywords alone (the late vector is cached for the next recall).
 */
export class MemoryStore {
  /** The categories a memory can have (for pickers). */
  get categories() {
    return CATEGORIES;
  }

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
  /** @type {Promise<{skipped: number, vectors: {loaded: number, stale: number, torn: boolean}}> | null} */
  #loading = null;
  /** Bytes of entries.jsonl this store has read or written (other tabs append after them). */
  #logBytes = 0;
  /** @type {Set<() => void>} */
  #changeListeners = new Set();

  /** Query embeddings, most recent last (recall of the same text skips the model). @type {Map<string, Float32Array>} */
  #queryCache = new Map();
  /**
   * @param {{fs: FileSystem, dir?: string, index?: MemoryIndex, now?: () => number, embedder?: EmbedderLike | null,
   *   batchSize?: number, batchChars?: number, queryTimeoutMs?: number, coordination?: import('../agent/types.d.ts').Coordination, key?:
   *   string,
   *   onDamage?: import('../storage/damage.js').DamageSink}} deps
   *   onDamage: told of a damaged meta.json and of damaged lines of the log (kept in entries.damaged.jsonl, once)
   *   fs: the workspace file system; dir: the memory folder (".memory"); embedder: see
   *   attachEmbedder; batchSize/batchChars: background batch limits (8 texts, 4,000
   *   characters: short batches let a query overtake them quickly); queryTimeoutMs: how
   *   long recall() waits for the query's embedding (300 ms); coordination + key (the workspace
   *   id): other tabs change the same memories — appends are serialized with theirs, and what
   *   they append is read in
   */
  constructor(deps) {
    this.coordination = deps.coordination;
    this.onDamage = deps.onDamage;
    this.topic = `memory:${deps.key ?? ''}`;
    this.coordination?.subscribe(this.topic, () => {
      if (!this.#loaded) return;
      this.#enqueueLog(() => this.#catchUp()).then(
        (n) => {
          if (n) this.#changed();
        },
        () => {},
      );
    });
    this.fs = deps.fs;
    this.dir = deps.dir ?? '.memory';
    this.index = deps.index ?? new MemoryIndex();
    this.now = deps.now ?? Date.now;
    this.batchSize = deps.batchSize ?? 8;
    this.batchChars = deps.batchChars ?? 4000;
    // A query overtakes queued batches, so it waits for at most one small batch plus itself;
    // 300 ms bounds what semantic recall may add to a chat turn (not yet measured with the
    // real MiniLM here: tune it with figures from a real install).
    this.queryTimeoutMs = deps.queryTimeoutMs ?? 300;
    /** @type {RecallInfo | null} */
    this.lastRecall = null;
    this.vectors = new VectorFile({
      fs: this.fs,
      path: `${this.dir}/${VECTORS_FILE}`,
      dimensions: this.index.dimensions,
      modelTag: () => this.queue.embedder?.status.model?.fingerprint,
    });
    this.queue = new EmbeddingQueue({
      textOf: (id) => {
        const e = this.#entries.get(id);
        return e ? entryText(e) : null;
      },
      dimensions: this.index.dimensions,
      batchSize: this.batchSize,
      batchChars: this.batchChars,
      started: () => this.#loaded,
      vectors: () => this.index.vectorCount,
      accept: (id, text, vector) => {
        this.index.setVector(id, vector);
        return encodeVectorRecord(id, text, vector, this.index.dimensions);
      },
      persist: (records) => this.vectors.append(records, { live: () => this.index.vectorCount, keep: (r) => this.#isCurrent(r) }),
      onReady: (status) => {
        if (this.#loaded && status.model) this.#adoptModel(status.model.fingerprint);
      },
    });
    if (deps.embedder) this.attachEmbedder(deps.embedder);
  }

  /**
   * Reads the log and the vectors once; later calls return the same result. Torn or invalid
   * lines are skipped and counted; a torn end of vectors.bin is cut off.
   */
  load() {
    this.#loading ??= this.#load().catch((err) => {
      this.#loading = null;
      throw err;
    });
    return this.#loading;
  }

  async #load() {
    // The folder's format: a newer one is left alone (this version would misread it); older
    // ones are upgraded here, one step per version, before anything is read.
    const metaPath = `${this.dir}/${META}`;
    const metaText = await readTextIfExists(this.fs, metaPath);
    let format = MEMORY_FORMAT;
    const meta = metaText === null ? null : readJson(metaText, MetaSchema);
    if (meta?.ok) format = meta.value.format;
    else if (meta) {
      // Damaged: the log itself says what it holds; the file is kept as it is until set aside.
      this.onDamage?.({
        what: "The memory's format file",
        problem: `${meta.problem}. The memories are read as this version's`,
        path: metaPath,
        setAside: () => setAsideFile(this.fs, metaPath),
      });
    }
    if (format > MEMORY_FORMAT)
      throw new MemoryError(
        'newer_format',
        `These memories were saved by a newer version of Clawser (format ${format}); update Clawser to use them. Nothing was changed.`,
      );
    for (let f = format; f < MEMORY_FORMAT; f++) await MIGRATIONS[f]?.(this.fs, this.dir);
    if (format < MEMORY_FORMAT) await this.fs.write(metaPath, JSON.stringify({ format: MEMORY_FORMAT }));
    const logPath = `${this.dir}/${LOG}`;
    const bytes = await this.fs.readBytes(logPath).catch((err) => {
      if (/** @type {{code?: string}} */ (err).code === 'not_found') return null;
      throw err;
    });
    const { lines, tail, tailOffset } = splitLines(bytes ?? new Uint8Array(0), 0);
    /** @type {import('../storage/damage.js').DamagedLine[]} */
    const damaged = [];
    const text = lines.map((l) => l.text).join('\n');
    const { skipped } = this.#applyLines(text, false, (k, problem) => {
      const stop = (k + 1 < lines.length ? lines[k + 1].offset : tailOffset) - 1;
      damaged.push({ offset: lines[k].offset, bytes: /** @type {Uint8Array} */ (bytes).slice(lines[k].offset, stop), problem });
    });
    this.#logBytes = tailOffset;
    if (tail.length) {
      // The last line has no newline: a complete record whose newline was lost is finished;
      // anything else (a write cut off, garbage) is kept aside, then cut off.
      const last = new TextDecoder().decode(tail);
      if (this.#applyLines(last, false).applied) {
        await this.fs.append(logPath, '\n');
        this.#logBytes += tail.length + 1;
      } else damaged.push({ offset: tailOffset, bytes: tail.slice(), problem: lineProblem(last, isJson(last)), last: true });
    }
    await this.#keepDamaged(damaged);
    if (damaged.some((l) => l.last)) await this.fs.truncate(logPath, tailOffset);
    if (bytes === null) await this.fs.write(metaPath, JSON.stringify({ format: MEMORY_FORMAT }));
    const vectors = await this.#loadVectors();
    this.#loaded = true;
    const status = this.queue.embedder?.status;
    if (status?.state === 'ready' && status.model) this.#adoptModel(status.model.fingerprint);
    this.queue.schedule();
    this.queue.notify();
    return { skipped: skipped + (damaged.some((l) => l.last) ? 1 : 0), vectors };
  }

  /**
   * Keeps damaged lines of the log in `entries.damaged.jsonl` (a line kept before is not kept or
   * reported again) and reports the new ones. A compaction may drop them from the log afterwards.
   * @param {import('../storage/damage.js').DamagedLine[]} damaged
   */
  async #keepDamaged(damaged) {
    const logPath = `${this.dir}/${LOG}`;
    const kept = await keepDamagedLines(this.fs, logPath, damaged);
    if (!kept.length) return;
    this.onDamage?.({
      what: 'The memory of this workspace: its log (.memory/entries.jsonl)',
      problem: keptLinesProblem(kept, 'entries.damaged.jsonl', 'every other memory is intact'),
      path: logPath,
      keptAt: `${this.dir}/entries.damaged.jsonl`,
    });
  }

  /**
   * Applies log lines. From another tab (`merge`), a put does not replace a newer entry with
   * the same key this tab holds (newer wins, as when loading the file in order). `onBad`: told
   * of each line that is not a record (its index among the lines of `text`, and why).
   * @param {string} text @param {boolean} merge @param {(index: number, problem: string) => void} [onBad]
   */
  #applyLines(text, merge, onBad) {
    let skipped = 0;
    let applied = 0;
    let index = -1;
    for (const line of text.split('\n')) {
      index++;
      if (!line.trim()) continue;
      this.#logLines++;
      let parsed;
      try {
        parsed = LogLineSchema.safeParse(JSON.parse(line));
      } catch {
        skipped++;
        onBad?.(index, lineProblem(line, false));
        continue;
      }
      if (!parsed.success) {
        skipped++;
        onBad?.(index, lineProblem(line, true));
        continue;
      }
      if (parsed.data.op === 'put') {
        const e = parsed.data.entry;
        const mine = this.#entries.get(this.#byKey.get(normKey(e.key)) ?? '');
        if (merge && mine && mine.timestamp > e.timestamp) continue;
        this.#apply(e);
      } else if (parsed.data.op === 'sum') {
        if (!this.#applySummary(parsed.data.id, parsed.data.summary)) continue;
      } else this.#drop(parsed.data.id);
      applied++;
    }
    return { skipped, applied };
  }

  /**
   * Reads what other tabs appended to the log since this store last read or wrote it.
   * @param {string[]} [ownLines] this tab's lines about to be written (kept if the file was rewritten)
   */
  async #catchUp(ownLines = [...this.#pending]) {
    const path = `${this.dir}/${LOG}`;
    const appended = await readAppended(this.fs, path, this.#logBytes);
    if (appended.shrunk) {
      // Another tab compacted (rewrote) the log: it is the whole truth now, except for this
      // tab's lines not written yet. Entries missing from it were deleted there.
      const text = (await readTextIfExists(this.fs, path)) ?? '';
      this.#logBytes = encoder.encode(text).length;
      this.#logLines = 0;
      const inFile = new Set();
      /** @param {string} line */
      const idOf = (line) => {
        try {
          return JSON.parse(line)?.entry?.id;
        } catch {
          return undefined;
        }
      };
      for (const line of text.split('\n')) inFile.add(idOf(line));
      const ownIds = new Set(ownLines.map(idOf));
      for (const id of [...this.#entries.keys()]) if (!inFile.has(id) && !ownIds.has(id)) this.#drop(id);
      const applied = this.#applyLines(text, false).applied;
      this.#applyLines(ownLines.join('\n'), false);
      return applied;
    }
    const from = this.#logBytes;
    this.#logBytes = appended.next;
    if (!appended.lines.length) return 0;
    /** @type {import('../storage/damage.js').DamagedLine[]} */
    const damaged = [];
    const { lines } = appended;
    const { applied } = this.#applyLines(lines.map((l) => l.text).join('\n'), true, (k, problem) => {
      const stop = (k + 1 < lines.length ? lines[k + 1].offset : appended.next) - 1;
      damaged.push({ offset: lines[k].offset, bytes: appended.bytes.slice(lines[k].offset - from, stop - from), problem });
    });
    if (damaged.length) await this.#keepDamaged(damaged).catch(() => {});
    return applied;
  }

  /** Log reads and writes of this store, one at a time. @type {Promise<unknown>} */
  #logChain = Promise.resolve();
  /** @template T @param {() => Promise<T>} task @returns {Promise<T>} */
  #enqueueLog(task) {
    const run = this.#logChain.then(task, task);
    this.#logChain = run.catch(() => {});
    return run;
  }

  /** Reads now what other tabs wrote (otherwise read when they announce it). */
  async sync() {
    await this.load();
    if (!this.coordination) return;
    const n = await this.#enqueueLog(() => this.#catchUp());
    if (n) this.#changed();
  }

  /** Called after entries changed (here or in another tab). @param {() => void} fn */
  subscribe(fn) {
    this.#changeListeners.add(fn);
    return () => this.#changeListeners.delete(fn);
  }

  #changed() {
    for (const fn of this.#changeListeners) fn();
  }

  /** Pinned memories, newest first: always given to the agent with automatic recall. */
  async pinned() {
    await this.load();
    return [...this.#entries.values()].filter((e) => e.pinned).sort((a, b) => b.timestamp - a.timestamp);
  }

  /** @param {MemoryEntry} entry */
  #apply(entry) {
    const k = normKey(entry.key);
    const previous = this.#byKey.get(k);
    if (previous && previous !== entry.id) this.#drop(previous);
    const old = this.#entries.get(entry.id);
    if (old && normKey(old.key) !== k && this.#byKey.get(normKey(old.key)) === entry.id) this.#byKey.delete(normKey(old.key));
    this.#entries.set(entry.id, entry);
    this.#byKey.set(k, entry.id);
    // Same text and category (a pin, a timestamp): the index — and the vector — stay.
    if (old && old.key === entry.key && old.content === entry.content && old.category === entry.category && this.index.has(entry.id))
      return;
    this.index.upsert(entry.id, { text: entryText(entry), category: entry.category });
    // upsert dropped any vector: the new text needs a new one.
    this.queue.add(entry.id);
    this.queue.schedule();
  }

  /** @param {string} id */
  #drop(id) {
    const e = this.#entries.get(id);
    if (!e) return false;
    this.#entries.delete(id);
    if (this.#byKey.get(normKey(e.key)) === id) this.#byKey.delete(normKey(e.key));
    this.index.remove(id);
    this.queue.remove(id);
    return true;
  }

  /** @param {object} line */
  #log(line) {
    this.#pending.push(JSON.stringify(line));
    this.#logLines++;
  }

  /** Writes pending lines in one append. Resolves when they are on disk. */
  flush() {
    if (!this.#flushing && !this.#pending.length) return Promise.resolve();
    this.#flushing ??= (async () => {
      // Yield first: were the body to finish synchronously, its `finally` would clear
      // #flushing before `??=` stores the (then settled) promise — and no flush would run again.
      await null;
      try {
        while (this.#pending.length) {
          const lines = this.#pending.splice(0);
          const data = encoder.encode(`${lines.join('\n')}\n`);
          const write = async () => {
            // Another tab's lines first, so byte offsets stay exact; then ours after them.
            if (this.coordination) await this.#catchUp([...lines, ...this.#pending]);
            await this.fs.append(`${this.dir}/${LOG}`, data);
            this.#logBytes += data.length;
          };
          const c = this.coordination;
          await this.#enqueueLog(() => (c ? c.withLock(this.topic, write) : write()));
          c?.publish(this.topic, {});
        }
      } finally {
        this.#flushing = null;
      }
      this.#changed();
    })();
    return this.#flushing;
  }

  /**
   * Stores a memory; an existing one with the same key (case-insensitive) is replaced.
   * @param {{key: string, content: string, category?: MemoryEntry['category'], source?: string, conversationId?: string, pinned?: boolean}}
   *   input
   * @returns {Promise<MemoryEntry>}
   */
  async store(input) {
    await this.load();
    const existing = this.#byKey.get(normKey(input.key));
    const before = existing ? this.#entries.get(existing) : undefined;
    const content = input.content.trim();
    const entry = MemoryEntrySchema.parse({
      id: existing ?? `m${this.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`,
      key: input.key.trim(),
      content,
      category: input.category ?? 'learned',
      timestamp: this.now(),
      source: input.source ?? 'user',
      conversationId: input.conversationId,
      pinned: input.pinned ?? before?.pinned,
      // The same text stored again keeps its summary.
      summary: before && before.content === content ? (currentSummary(before) ?? undefined) : undefined,
    });
    this.#apply(entry);
    this.#log({ op: 'put', entry });
    await this.flush();
    return entry;
  }

  /**
   * Puts an entry back exactly as it was — id, source, conversation, time (undo of a turn). An
   * entry with the same key and another id gives way, as a store would.
   * @param {MemoryEntry} entry
   */
  async restore(entry) {
    await this.load();
    const e = MemoryEntrySchema.parse(entry);
    this.#apply(e);
    this.#log({ op: 'put', entry: e });
    await this.flush();
    return e;
  }

  /**
   * Changes fields of an entry by id.
   * @param {string} id
   * @param {Partial<Pick<MemoryEntry, 'key' | 'content' | 'category' | 'pinned'>>} patch
   */
  async update(id, patch) {
    await this.load();
    const current = this.#entries.get(id);
    if (!current) return null;
    const entry = MemoryEntrySchema.parse({ ...current, ...patch, timestamp: this.now() });
    if (entry.content !== current.content) delete entry.summary;
    this.#apply(entry);
    this.#log({ op: 'put', entry });
    await this.flush();
    return entry;
  }

  /**
   * Saves a summary of the entry's `content` (summaries.js makes them). Nothing happens when
   * the entry is gone or its text changed meanwhile (the new text gets its own summary). It is
   * logged as a summary of that text, not as a version of the entry: an edit another tab makes
   * meanwhile is never undone by it, and the timestamp stays.
   * @param {string} id @param {string} content the text that was summarized @param {{text: string, by: string}} summary
   */
  async setSummary(id, content, summary) {
    await this.load();
    const current = this.#entries.get(id);
    if (!current || current.content !== content) return null;
    const s = SummarySchema.parse({ text: summary.text.trim().slice(0, 4000), by: summary.by, of: contentStamp(content) });
    this.#applySummary(id, s);
    this.#log({ op: 'sum', id, summary: s });
    await this.flush();
    return this.#entries.get(id) ?? null;
  }

  /** @param {string} id @param {z.infer<typeof SummarySchema>} summary @returns {boolean} applied */
  #applySummary(id, summary) {
    const e = this.#entries.get(id);
    if (!e || summary.of !== contentStamp(e.content)) return false;
    this.#entries.set(id, { ...e, summary });
    return true;
  }

  /** @param {string} idOrKey */
  async forget(idOrKey) {
    await this.load();
    const id = this.#entries.has(idOrKey) ? idOrKey : this.#byKey.get(normKey(idOrKey));
    if (!id || !this.#drop(id)) return false;
    this.#log({ op: 'del', id });
    await this.flush();
    await this.#compactIfStale();
    this.queue.notify();
    return true;
  }

  /**
   * Ranks memories for a query: hybrid (0.7 · cosine + 0.3 · BM25, see MemoryIndex) when the
   * query vector is given or the embedder produces it within `semanticTimeoutMs`, else
   * keywords alone. `lastRecall` tells which happened.
   * @param {string} query
   * @param {{limit?: number, categories?: string[], minScore?: number, relevance?: {cosine: number, keyword: number},
   *   queryVector?: ArrayLike<number>, semantic?: boolean, semanticTimeoutMs?: number}} [options]
   *   semantic: false ranks by keywords only; relevance: an absolute floor (RECALL_FLOOR of recall.js for automatic recall)
   * @returns {Promise<(MemoryEntry & {score: number})[]>}
   */
  async recall(query, options = {}) {
    await this.load();
    const { semantic, semanticTimeoutMs, ...searchOptions } = options;
    /** @type {RecallInfo} */
    let info;
    if (searchOptions.queryVector) info = { mode: 'hybrid', reason: 'given' };
    else if (semantic === false) info = { mode: 'keyword', reason: 'disabled' };
    else {
      const q = await this.#queryVector(query, semanticTimeoutMs ?? this.queryTimeoutMs);
      if (q.vector) searchOptions.queryVector = q.vector;
      info = { mode: q.vector ? 'hybrid' : 'keyword', reason: q.reason };
    }
    this.lastRecall = info;
    return this.index
      .search(query, searchOptions)
      .map((hit) => ({ .../** @type {MemoryEntry} */ (this.#entries.get(hit.id)), score: hit.score }));
  }

  /**
   * The query's embedding, or null (with why) when there is none in time.
   * @param {string} query
   * @param {number} timeoutMs
   * @returns {Promise<{vector: Float32Array | null, reason: RecallInfo['reason']}>}
   */
  async #queryVector(query, timeoutMs) {
    const embedder = this.queue.embedder;
    if (!embedder) return { vector: null, reason: 'off' };
    if (!this.queue.ready()) return { vector: null, reason: 'not_ready' };
    if (this.index.vectorCount === 0) return { vector: null, reason: 'no_vectors' };
    const key = query.trim();
    if (!key) return { vector: null, reason: 'disabled' };
    const cached = this.#queryCache.get(key);
    if (cached) {
      this.#queryCache.delete(key); // most recent last
      this.#queryCache.set(key, cached);
      return { vector: cached, reason: 'cached' };
    }
    const work = embedder.embed([key], { priority: 'high', timeoutMs: 30_000 }).then(([v]) => {
      // The index rejects such vectors; better keyword-only than a failed recall.
      if (!v || v.length !== this.index.dimensions || !v.every(Number.isFinite) || !v.some((x) => x !== 0))
        throw new RangeError('unusable query vector');
      this.#queryCache.set(key, v);
      if (this.#queryCache.size > 64) this.#queryCache.delete(/** @type {string} */ (this.#queryCache.keys().next().value));
      return v;
    });
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    const timeout = new Promise((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    try {
      const result = await Promise.race([work, timeout]);
      return result === 'timeout'
        ? { vector: null, reason: 'timeout' }
        : { vector: /** @type {Float32Array} */ (result), reason: 'embedded' };
    } catch {
      return { vector: null, reason: 'error' };
    } finally {
      clearTimeout(timer);
      work.catch(() => {}); // a late failure after the timeout is not an unhandled rejection
    }
  }

  /** Newest first. @param {{category?: string}} [filter] */
  async list(filter = {}) {
    await this.load();
    return [...this.#entries.values()]
      .filter((e) => !filter.category || e.category === filter.category)
      .sort((a, b) => b.timestamp - a.timestamp);
  }

  get size() {
    return this.#entries.size;
  }

  /** Rewrites the log (atomically) when most of its lines are superseded. */
  async #compactIfStale() {
    if (this.#logLines < 1000 || this.#logLines < this.#entries.size * 2) return;
    await this.flush();
    const rewrite = async () => {
      // Under the lock and after reading other tabs' lines: the rewrite keeps their changes.
      if (this.coordination) await this.#catchUp();
      const lines = [...this.#entries.values()].map((entry) => JSON.stringify({ op: 'put', entry }));
      const data = encoder.encode(lines.length ? `${lines.join('\n')}\n` : '');
      await this.fs.write(`${this.dir}/${LOG}`, data);
      this.#logLines = lines.length;
      this.#logBytes = data.length;
    };
    const c = this.coordination;
    await this.#enqueueLog(() => (c ? c.withLock(this.topic, rewrite) : rewrite()));
    c?.publish(this.topic, {});
  }

  /** All entries as a JSON document (export). Embeddings are not included: they are recomputed. */
  async exportJson() {
    await this.load();
    return { format: 'clawser-memory', version: MEMORY_FORMAT, entries: [...this.#entries.values()] };
  }

  /**
   * Imports exported entries (validated); same keys merge, newer wins.
   * @param {unknown} data
   */
  async importJson(data) {
    const parsed = z
      .object({ format: z.literal('clawser-memory'), version: z.number().int().max(MEMORY_FORMAT), entries: z.array(MemoryEntrySchema) })
      .parse(data);
    await this.load();
    let imported = 0;
    for (const entry of parsed.entries) {
      const existing = this.#byKey.get(normKey(entry.key));
      if (existing && (this.#entries.get(existing)?.timestamp ?? 0) >= entry.timestamp) continue;
      // Summaries are not imported: this store makes its own (an import could put any text there).
      const { summary: _dropped, ...rest } = entry;
      const merged = { ...rest, id: existing ?? entry.id };
      this.#apply(merged);
      this.#log({ op: 'put', entry: merged });
      imported++;
    }
    await this.flush();
    return { imported, skipped: parsed.entries.length - imported };
  }

  // --- Embeddings ------------------------------------------------------------------------

  /**
   * Uses `embedder` for background embedding and query vectors (null detaches). Loading the
   * model is the embedder owner's business (Embedder.load()); the queue starts when the
   * embedder reports ready, and pauses when it stops being ready.
   * @param {EmbedderLike | null} embedder
   */
  attachEmbedder(embedder) {
    this.#queryCache.clear();
    this.queue.attach(embedder);
  }

  /**
   * Vectors of another model are not comparable with this one's: when the embedder's model
   * differs from the one that made the stored vectors, they are dropped and recomputed.
   * @param {string} tag
   */
  #adoptModel(tag) {
    if (this.vectors.model === tag) return;
    if (this.vectors.model !== null && this.index.vectorCount > 0) {
      for (const e of this.#entries.values()) this.index.upsert(e.id, { text: entryText(e), category: e.category });
      this.queue.redoAll(this.#entries.keys());
    }
    this.#queryCache.clear();
    this.vectors.adopt(tag); // the next write starts a new file with this model's header
  }

  /** The background queue's state, for a "embedding 12 of 40" line. @returns {EmbeddingState} */
  get embedding() {
    return this.queue.state;
  }

  /**
   * Calls `fn` with the queue state now and after every change (coalesced per microtask).
   * @param {(state: EmbeddingState) => void} fn
   * @returns {() => void} unsubscribe
   */
  subscribeEmbedding(fn) {
    return this.queue.subscribe(fn);
  }

  /**
   * Resolves once the queue is not running (everything embedded, or the embedder not
   * ready) and the vectors computed so far are on disk.
   * @returns {Promise<EmbeddingState>}
   */
  async whenEmbedded() {
    await this.load();
    await this.queue.idle();
    await this.vectors.settled();
    return this.embedding;
  }

  // --- vectors.bin -------------------------------------------------------------------------

  /** A record of vectors.bin is the vector of a memory as its text is now. @param {import('./vector-file.js').VectorRecord} r */
  #isCurrent(r) {
    const e = this.#entries.get(r.id);
    if (!e) return false;
    const text = entryText(e);
    return text.length === r.textLength && textHash(text) === r.textHash;
  }

  /** Reads vectors.bin into the index: vectors of entries whose text is unchanged. */
  async #loadVectors() {
    const result = await this.vectors.load((r) => {
      if (!this.#isCurrent(r)) return;
      try {
        this.index.setVector(r.id, r.vector);
        this.queue.satisfied(r.id);
      } catch {
        // a damaged vector: computed again
      }
    });
    const loaded = this.index.vectorCount;
    if (this.vectors.isStale(loaded)) void this.vectors.compact((r) => this.#isCurrent(r));
    return { loaded, stale: result.records - loaded, torn: result.torn };
  }
}
