/** @import { DirEntry, FileStat } from './types.d.ts' */
import { INTERNAL_FOLDERS } from './workspace-folders.js';

/**
 * The read cache's pure part: file contents, stats and folder listings by path, bounded, in least-recently-used
 * order, and the rules that keep it correct. `OpfsFileSystem` fills it from its reads and empties
 * it through its own write path and other tabs' messages (cache-channel.js); nothing here talks
 * to storage.
 *
 * A read may not put back what a write made old: each read takes a `ticket()` before it asks
 * storage, and `put` refuses an answer when any invalidation came after that ticket (a write of
 * this tab or another's, while the read was on its way). Coarse — any invalidation refuses every
 * older read — and always on the safe side: a refused answer is served, just not kept.
 */

/** The folder of the workspaces; only the user's files and `.git` under it are kept. */
const WORKSPACES = 'clawser_workspaces';

/**
 * Whether a path's contents may be kept in memory: a workspace's files and its repository
 * (what the shell, git, search and the tools read), never Clawser's own stores (conversations,
 * memory, goals, jobs, settings…), which other tabs change under their own locks and logs.
 * @param {string} path normalised ('/'-separated, no empty segments)
 */
export function cacheable(path) {
  if (!path.startsWith(`${WORKSPACES}/`)) return false;
  const parts = path.split('/');
  if (parts.length < 3) return false;
  return !INTERNAL_FOLDERS.includes(parts[2].toLowerCase());
}

/**
 * Whether a change at `path` (a file, or a folder with everything in it) can touch something
 * `cacheable` keeps: the whole storage root, the workspaces' folder, a workspace, or a kept path.
 * @param {string} path normalised
 */
export function touchesCacheable(path) {
  return path === '' || path === WORKSPACES || (path.startsWith(`${WORKSPACES}/`) && (path.split('/').length === 2 || cacheable(path)));
}

/**
 * @typedef {object} CacheEntry
 * @property {Uint8Array} [bytes] the whole file
 * @property {FileStat} [stat] what `stat` answered
 * @property {DirEntry[]} [list] a folder's entries, as `list` answered
 * @property {number} [listBytes] what the list counts for in `bytes` (its names)
 */

/**
 * @typedef {object} ReadCacheLimits
 * @property {number} [maxBytes] the contents kept, in bytes, at most (default 64 MiB)
 * @property {number} [maxFileBytes] a larger file is never kept (default a quarter of maxBytes)
 * @property {number} [maxEntries] paths kept at most, stats included (default 50,000)
 */

export class ReadCache {
  /** In least-recently-used order: the first is evicted first. @type {Map<string, CacheEntry>} */
  #entries = new Map();
  #bytes = 0;
  /** Counts invalidations; a read's ticket is its value when the read began. */
  #generation = 0;
  /** While false nothing is kept (a cache whose tab has not yet met the other tabs). */
  #enabled = true;

  /** @param {ReadCacheLimits} [limits] */
  constructor(limits = {}) {
    this.maxBytes = limits.maxBytes ?? 64 * 1024 * 1024;
    this.maxFileBytes = limits.maxFileBytes ?? Math.floor(this.maxBytes / 4);
    this.maxEntries = limits.maxEntries ?? 50_000;
  }

  /** Bytes of contents kept now. */
  get bytes() {
    return this.#bytes;
  }
  /** Paths kept now. */
  get size() {
    return this.#entries.size;
  }

  /** Taken before a read asks storage; `put` with it refuses the answer if anything changed since. */
  ticket() {
    return this.#generation;
  }

  /** Keeps nothing until `enable()` (what is kept is dropped; reads begun meanwhile are never kept). */
  disable() {
    this.#enabled = false;
    this.clear();
  }
  enable() {
    this.#generation++;
    this.#enabled = true;
  }

  /** @param {string} path @returns {CacheEntry | undefined} */
  #touch(path) {
    const e = this.#entries.get(path);
    if (e) {
      // Most recently used goes last.
      this.#entries.delete(path);
      this.#entries.set(path, e);
    }
    return e;
  }

  /** A copy of the whole file, or undefined when it is not kept. @param {string} path */
  get(path) {
    const bytes = this.#touch(path)?.bytes;
    return bytes ? bytes.slice() : undefined;
  }

  /** The file's stat as kept (a copy), or undefined. @param {string} path @returns {FileStat | undefined} */
  getStat(path) {
    const stat = this.#touch(path)?.stat;
    return stat ? { ...stat } : undefined;
  }

  /**
   * Keeps a whole file's bytes (and its stat, when the read had it) unless a change came after
   * `ticket`, the path is not `cacheable`, or the file is too large. The cache keeps `bytes`
   * itself: the caller hands out copies.
   * @param {string} path @param {Uint8Array} bytes @param {number} ticket @param {FileStat} [stat]
   * @returns {boolean} whether it was kept
   */
  put(path, bytes, ticket, stat) {
    if (!this.#accepts(path, ticket) || bytes.length > this.maxFileBytes) return false;
    const e = this.#take(path);
    this.#bytes += bytes.length - (e.bytes?.length ?? 0);
    e.bytes = bytes;
    if (stat) e.stat = { ...stat };
    // A stat that disagrees with the bytes (size) is not kept beside them.
    else if (e.stat && (e.stat.kind !== 'file' || e.stat.size !== bytes.length)) delete e.stat;
    this.#entries.set(path, e);
    this.#evict();
    return true;
  }

  /**
   * Keeps a stat (a file's or a folder's). A file's stat that disagrees with the kept bytes (size,
   * or modification time where both have one) means they are old: they are dropped.
   * @param {string} path @param {FileStat} stat @param {number} ticket @returns {boolean} whether it was kept
   */
  putStat(path, stat, ticket) {
    if (!this.#accepts(path, ticket)) return false;
    const e = this.#take(path);
    const old = e.stat;
    const differs =
      stat.kind !== 'file' ||
      (e.bytes && e.bytes.length !== stat.size) ||
      (old?.mtimeMs !== undefined && stat.mtimeMs !== undefined && old.mtimeMs !== stat.mtimeMs);
    if (e.bytes && differs) {
      this.#bytes -= e.bytes.length;
      delete e.bytes;
    }
    if (e.list && stat.kind !== 'directory') {
      this.#bytes -= e.listBytes ?? 0;
      delete e.list;
      delete e.listBytes;
    }
    e.stat = { ...stat };
    this.#entries.set(path, e);
    this.#evict();
    return true;
  }

  /** A copy of a folder's entries as kept, or undefined. @param {string} path @returns {DirEntry[] | undefined} */
  getList(path) {
    return this.#touch(path)?.list?.map((e) => ({ ...e }));
  }

  /**
   * Keeps a folder's entries. A change inside the folder (a file written, created, deleted or
   * moved there, a folder made) forgets them, as it forgets the folder's stat.
   * @param {string} path @param {DirEntry[]} list @param {number} ticket @returns {boolean} whether it was kept
   */
  putList(path, list, ticket) {
    if (!this.#accepts(path, ticket)) return false;
    const e = this.#take(path);
    const size = list.reduce((n, d) => n + d.name.length * 2 + 16, 0);
    this.#bytes += size - (e.listBytes ?? 0);
    e.list = list.map((d) => ({ ...d }));
    e.listBytes = size;
    this.#entries.set(path, e);
    this.#evict();
    return true;
  }

  /** @param {string} path @param {number} ticket */
  #accepts(path, ticket) {
    return this.#enabled && ticket === this.#generation && cacheable(path);
  }

  /** The entry of `path` taken out of the order (put back last by the caller). @param {string} path @returns {CacheEntry} */
  #take(path) {
    const e = this.#entries.get(path) ?? {};
    this.#entries.delete(path);
    return e;
  }

  #evict() {
    for (const [path, e] of this.#entries) {
      if (this.#bytes <= this.maxBytes && this.#entries.size <= this.maxEntries) return;
      this.#entries.delete(path);
      this.#bytes -= (e.bytes?.length ?? 0) + (e.listBytes ?? 0);
    }
  }

  /**
   * Forgets what a change makes old: each of `files` (its contents and stat) and the stats of its
   * folders (a write creates them), and everything at or below each of `trees` (a deleted or
   * moved folder) with the stats of the folders above it. Reads begun before are never kept.
   * @param {{files?: string[], trees?: string[]}} change normalised paths
   */
  invalidate({ files = [], trees = [] }) {
    this.#generation++;
    for (const path of [...files, ...trees]) {
      this.#drop(path);
      for (let i = path.lastIndexOf('/'); i > 0; i = path.lastIndexOf('/', i - 1)) this.#drop(path.slice(0, i));
    }
    if (!trees.length) return;
    if (trees.includes('')) return this.clear();
    for (const path of [...this.#entries.keys()]) if (trees.some((t) => path.startsWith(`${t}/`))) this.#drop(path);
  }

  /** @param {string} path */
  #drop(path) {
    const e = this.#entries.get(path);
    if (!e) return;
    this.#bytes -= (e.bytes?.length ?? 0) + (e.listBytes ?? 0);
    this.#entries.delete(path);
  }

  /** Forgets everything; reads begun before are never kept. */
  clear() {
    this.#generation++;
    this.#entries.clear();
    this.#bytes = 0;
  }
}
