/** @import { FileSystem, FileStat, DirEntry, StorageErrorCode } from './types.d.ts' */
/** @import { Change } from './cache-channel.js' */
import { StorageError, splitPath } from './errors.js';
import { ReadCache, cacheable, touchesCacheable } from './read-cache.js';
import { CacheChannel } from './cache-channel.js';

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/**
 * One answer of the worker's `batch`: a read's bytes, size and time, a stat, or that item's error.
 * @typedef {{bytes?: Uint8Array, size?: number, mtimeMs?: number, stat?: FileStat | null, live?: boolean,
 *   error?: {code: StorageErrorCode, message: string}}} BatchAnswer
 */

/**
 * FileSystem on the Origin Private File System. All handles live in one dedicated worker
 * (see opfs-worker.js); this class forwards calls to it.
 *
 * The read path: whole-file reads and stats asked for in the same moment go to the worker as one
 * message (`batch`), and a workspace's files (see `cacheable`) are kept in memory once read — their
 * contents and stats, bounded (ReadCache) — so reading them again costs no round trip. What is
 * kept stays true: this object's writes forget what they change before they start, and announce
 * it to every other OpfsFileSystem of the origin (other tabs, workers) once done, resolving only
 * when each has forgotten it too (CacheChannel).
 * @implements {FileSystem}
 */
export class OpfsFileSystem {
  /** @type {Worker | null} */
  #worker;
  #nextId = 1;
  /** @type {Map<number, {resolve: (v: any) => void, reject: (e: Error) => void}>} */ // results are typed per method below
  #pending = new Map();
  /** Reads and stats waiting to go to the worker together. @type {{items: {op: 'read' | 'stat', path: string}[], answers:
   *   {resolve: (a: BatchAnswer) => void, reject: (e: Error) => void}[]} | null} */
  #batch = null;
  #cache;
  #channel;
  #caching;

  /** @param {{workerUrl?: string | URL, cache?: import('./read-cache.js').ReadCacheLimits | false}} [options]
   *   cache: the read cache's limits, or false to keep nothing (writes are announced all the same) */
  constructor(options = {}) {
    if (!OpfsFileSystem.isAvailable()) {
      throw new StorageError(
        'unavailable',
        'Browser storage (OPFS) is not available here. Open Clawser over https or http://localhost in a current Chrome, Edge or Firefox.',
      );
    }
    this.workerUrl = options.workerUrl ?? new URL('./opfs-worker.js', import.meta.url);
    this.#worker = this.#spawn();
    this.#caching = options.cache !== false;
    this.#cache = new ReadCache(options.cache || {});
    // Nothing is kept until the other members of the origin know this one (cache-channel.js).
    this.#cache.disable();
    this.#channel = new CacheChannel({
      onChange: (change) => this.#cache.invalidate(change),
      onReady: () => this.#caching && this.#cache.enable(),
      onSuspend: () => this.#cache.disable(),
    });
  }

  /** What the read cache holds now: paths and bytes (tests and the bench). */
  cacheInfo() {
    return { entries: this.#cache.size, bytes: this.#cache.bytes };
  }

  /** Forgets every file kept in memory (the bench's cold reads; a restore in another tab). */
  dropCache() {
    this.#cache.clear();
  }

  /** Resolves once this file system keeps what it reads (the other tabs know it: cache-channel.js). */
  cacheReady() {
    return this.#channel.whenReady();
  }

  /**
   * Starts the storage worker. If it dies (crash, out of memory), waiting calls fail with a
   * clear error and the next call starts a fresh worker instead of waiting forever.
   */
  #spawn() {
    const worker = new Worker(this.workerUrl, { type: 'module', name: 'clawser-opfs' });
    worker.onmessage = (event) => {
      const { id, ok, result, error } = event.data;
      const p = this.#pending.get(id);
      if (!p) return;
      this.#pending.delete(id);
      if (ok) p.resolve(result);
      else p.reject(new StorageError(/** @type {StorageErrorCode} */ (error.code), error.message));
    };
    worker.onerror = (event) => {
      const err = new StorageError('io', `The storage worker failed: ${event.message || 'unknown error'}. Try again.`);
      for (const p of this.#pending.values()) p.reject(err);
      this.#pending.clear();
      worker.terminate();
      if (this.#worker === worker) this.#worker = null;
    };
    return worker;
  }

  static isAvailable() {
    return typeof navigator !== 'undefined' && !!navigator.storage?.getDirectory && globalThis.isSecureContext !== false;
  }

  /**
   * @param {string} op
   * @param {unknown[]} args
   * @param {Transferable[]} [transfer]
   * @returns {Promise<any>} the worker's result, typed by each public method
   */
  #call(op, args, transfer = []) {
    // Reads asked for before this call go first: the worker orders overlapping operations by arrival.
    if (op !== 'batch') this.#flush();
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker ??= this.#spawn();
      this.#worker.postMessage({ id, op, args }, transfer);
    });
  }

  /**
   * A whole-file read or a stat, sent with the others asked for in the same moment.
   * @param {'read' | 'stat'} op @param {string} path @returns {Promise<BatchAnswer>}
   */
  #enqueue(op, path) {
    if (!this.#batch) {
      this.#batch = { items: [], answers: [] };
      queueMicrotask(() => this.#flush());
    }
    const batch = this.#batch;
    batch.items.push({ op, path });
    return new Promise((resolve, reject) => batch.answers.push({ resolve, reject }));
  }

  #flush() {
    const batch = this.#batch;
    if (!batch) return;
    this.#batch = null;
    this.#call('batch', [batch.items]).then(
      (/** @type {BatchAnswer[]} */ answers) => answers.forEach((a, i) => batch.answers[i].resolve(a)),
      (/** @type {Error} */ err) => batch.answers.forEach((a) => a.reject(err)),
    );
  }

  /** @param {BatchAnswer} a */
  static #check(a) {
    if (a.error) throw new StorageError(a.error.code, a.error.message);
    return a;
  }

  /** The whole file: from memory when kept, else read (with the others of this moment) and kept. @param {string} path */
  async #whole(path) {
    const key = splitPath(path).join('/');
    const kept = this.#cache.get(key);
    if (kept) return kept;
    const ticket = this.#cache.ticket();
    const a = OpfsFileSystem.#check(await this.#enqueue('read', path));
    const bytes = /** @type {Uint8Array} */ (a.bytes);
    const stat = a.mtimeMs === undefined ? undefined : { kind: /** @type {const} */ ('file'), size: bytes.length, mtimeMs: a.mtimeMs };
    // The cache keeps the bytes it is given: the caller gets a copy.
    return this.#cache.put(key, bytes, ticket, stat) ? bytes.slice() : bytes;
  }

  /**
   * Forgets what a change makes old before it starts, runs it, then tells the other members of
   * the origin (also when it failed: a failed move or non-atomic write may have changed part).
   * @param {string} op @param {unknown[]} args @param {{files?: string[], trees?: string[]}} paths as given
   * @param {{key: string, bytes: Uint8Array} | null} [written] a whole file's new content, kept once it is stored
   */
  async #change(op, args, { files = [], trees = [] }, written = null) {
    const norm = (/** @type {string[]} */ ps) => ps.map((p) => splitPath(p).join('/')).filter(touchesCacheable);
    /** @type {Change} */
    const change = { files: norm(files), trees: norm(trees) };
    const relevant = !!(change.files?.length || change.trees?.length);
    if (relevant) this.#cache.invalidate(change);
    const ticket = this.#cache.ticket();
    try {
      const result = await this.#call(op, args);
      // What was written is what a read would give now — unless anything changed since (another write, another tab's).
      if (written) this.#cache.put(written.key, written.bytes, ticket);
      return result;
    } finally {
      if (relevant) await this.#channel.announce(change);
    }
  }

  /** @param {string} path @returns {Promise<string>} */
  async readText(path) {
    return decoder.decode(await this.#whole(path));
  }
  /** @param {string} path @returns {Promise<Blob>} */
  openFile(path) {
    return this.#call('openFile', [path]);
  }
  /** @param {string} path @param {{start?: number, end?: number}} [range] @returns {Promise<Uint8Array>} */
  async readBytes(path, range) {
    if (!range || (range.start === undefined && range.end === undefined)) return this.#whole(path);
    const kept = this.#cache.get(splitPath(path).join('/'));
    if (!kept) return this.#call('readBytes', [path, range]);
    // As the worker clamps a range to the file.
    const start = Math.min(Math.max(0, range.start ?? 0), kept.length);
    return kept.slice(start, Math.max(start, Math.min(range.end ?? kept.length, kept.length)));
  }
  /** @param {string} path @param {number} maxBytes @returns {Promise<{bytes: Uint8Array, size: number}>} */
  readTail(path, maxBytes) {
    return this.#call('readTail', [path, maxBytes]);
  }
  /** @param {import('./types.d.ts').ReadRequest[]} requests @returns {Promise<(import('./types.d.ts').FileRead | null)[]>} */
  readFiles(requests) {
    return this.#call('readFiles', [requests]);
  }
  /**
   * @param {string} path
   * @param {string | Uint8Array} data
   * @param {import('./types.d.ts').WriteOptions} [options]
   * @returns {Promise<void>}
   */
  async write(path, data, options) {
    const key = splitPath(path).join('/');
    // A workspace file's new content is kept as a read would keep it (a copy: the caller may change its array).
    const kept = cacheable(key) && data.length <= this.#cache.maxFileBytes;
    const bytes = kept ? (typeof data === 'string' ? encoder.encode(data) : data.slice()) : null;
    return this.#change('write', [path, bytes ?? data, options], { files: [path] }, bytes && { key, bytes });
  }
  /** @param {string} path @param {string | Uint8Array} data @returns {Promise<void>} */
  async append(path, data) {
    return this.#change('append', [path, data], { files: [path] });
  }
  /** @param {string} path @param {number} size @returns {Promise<void>} */
  async truncate(path, size) {
    return this.#change('truncate', [path, size], { files: [path] });
  }
  /** @param {string} path @returns {Promise<DirEntry[]>} */
  async list(path) {
    const key = splitPath(path).join('/');
    if (!cacheable(key)) return this.#call('list', [path]);
    const kept = this.#cache.getList(key);
    if (kept) return kept;
    const ticket = this.#cache.ticket();
    /** @type {DirEntry[]} */
    const entries = await this.#call('list', [path]);
    this.#cache.putList(key, entries, ticket);
    return entries;
  }
  /** @param {string} path @returns {Promise<FileStat | null>} */
  async stat(path) {
    const key = splitPath(path).join('/');
    const kept = cacheable(key) ? this.#cache.getStat(key) : undefined;
    if (kept) return kept;
    const ticket = this.#cache.ticket();
    const { stat = null, live } = OpfsFileSystem.#check(await this.#enqueue('stat', path));
    if (stat && !live) this.#cache.putStat(key, stat, ticket);
    return stat;
  }
  /** @param {string} path @returns {Promise<void>} */
  async mkdir(path) {
    // A new folder changes its parent's listing.
    return this.#change('mkdir', [path], { files: [path] });
  }
  /** @param {string} path @returns {Promise<void>} */
  async delete(path) {
    return this.#change('delete', [path], { trees: [path] });
  }
  /** @param {string} from @param {string} to @returns {Promise<void>} */
  async move(from, to) {
    return this.#change('move', [from, to], { trees: [from, to] });
  }

  /**
   * Stops the storage worker, which releases every file it holds open (another tab's restore
   * needs them). Calls still waiting fail; the next call starts a fresh worker.
   */
  terminate() {
    // Another tab's restore stops this worker: whatever is kept may be replaced; read afresh.
    this.#cache.clear();
    this.#worker?.terminate();
    this.#worker = null;
    const err = new StorageError('io', 'The storage worker was stopped before this finished. Try again.');
    for (const p of this.#pending.values()) p.reject(err);
    this.#pending.clear();
  }

  /** Stops the worker and leaves the other tabs' cache channel: for a file system no longer used (tests, the bench). */
  close() {
    this.terminate();
    this.#channel.close();
  }
}
