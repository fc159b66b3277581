/** @import { FileSystem, FileStat, DirEntry } from './types.d.ts' */
import { StorageError, splitPath } from './errors.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Files keep spare capacity so appends are amortised O(1), as on a real file system. */
/** @typedef {{kind: 'file', buf: Uint8Array, size: number, mtimeMs: number} | {kind: 'directory', children: Map<string, Node>}} Node */

/**
 * In-memory FileSystem for node tests and ephemeral use. Same semantics as the OPFS one.
 * `failNextWrite` lets tests simulate a quota error.
 * @implements {FileSystem}
 */
export class MemoryFileSystem {
  /** @type {Node & {kind: 'directory'}} */
  #root = { kind: 'directory', children: new Map() };
  /** When set, the next write/append rejects with this error (tests use it for quota). */
  /** @type {Error | null} */
  failNextWrite = null;

  /** @param {string[]} parts @param {boolean} create */
  #dir(parts, create) {
    let node = this.#root;
    for (const p of parts) {
      let next = node.children.get(p);
      if (!next) {
        if (!create) throw new StorageError('not_found', `"${parts.join('/')}" does not exist.`);
        next = { kind: 'directory', children: new Map() };
        node.children.set(p, next);
      }
      if (next.kind !== 'directory') throw new StorageError('not_a_directory', `"${p}" is a file, not a folder.`);
      node = next;
    }
    return node;
  }

  /** @param {string} path */
  #file(path) {
    const parts = splitPath(path);
    const name = parts.pop();
    if (!name) throw new StorageError('invalid_path', 'A file path cannot be empty.');
    const node = this.#dir(parts, false).children.get(name);
    if (!node) throw new StorageError('not_found', `"${path}" does not exist.`);
    if (node.kind !== 'file') throw new StorageError('not_a_directory', `"${path}" is a folder.`);
    return node;
  }

  #checkFail() {
    if (this.failNextWrite) {
      const err = this.failNextWrite;
      this.failNextWrite = null;
      throw err;
    }
  }

  /** @param {string} path */
  async readText(path) {
    const f = this.#file(path);
    return decoder.decode(f.buf.subarray(0, f.size));
  }

  /** A copy of the file's bytes as a Blob (memory is all this file system has). @param {string} path */
  async openFile(path) {
    const f = this.#file(path);
    return new Blob([f.buf.slice(0, f.size)]);
  }

  /** @param {string} path @param {{start?: number, end?: number}} [range] */
  async readBytes(path, range = {}) {
    const f = this.#file(path);
    return f.buf.slice(Math.min(range.start ?? 0, f.size), Math.min(range.end ?? f.size, f.size));
  }

  /** @param {string} path @param {string | Uint8Array} data */
  async write(path, data) {
    this.#checkFail();
    const parts = splitPath(path);
    const name = parts.pop();
    if (!name) throw new StorageError('invalid_path', 'A file path cannot be empty.');
    const dir = this.#dir(parts, true);
    const existing = dir.children.get(name);
    if (existing && existing.kind === 'directory') throw new StorageError('not_a_directory', `"${path}" is a folder.`);
    const bytes = typeof data === 'string' ? encoder.encode(data) : data.slice();
    dir.children.set(name, { kind: 'file', buf: bytes, size: bytes.length, mtimeMs: Date.now() });
  }

  /** @param {string} path @param {string | Uint8Array} data */
  async append(path, data) {
    this.#checkFail();
    const bytes = typeof data === 'string' ? encoder.encode(data) : data;
    let node;
    try {
      node = this.#file(path);
    } catch (err) {
      if (/** @type {StorageError} */ (err).code !== 'not_found') throw err;
      return this.write(path, bytes);
    }
    const needed = node.size + bytes.length;
    if (needed > node.buf.length) {
      const grown = new Uint8Array(Math.max(needed, node.buf.length * 2, 1024));
      grown.set(node.buf.subarray(0, node.size));
      node.buf = grown;
    }
    node.buf.set(bytes, node.size);
    node.size = needed;
    node.mtimeMs = Date.now();
  }

  /** @param {string} path @param {number} size */
  async truncate(path, size) {
    const node = this.#file(path);
    node.size = Math.min(node.size, size);
    node.mtimeMs = Date.now();
  }

  /** @param {string} path @returns {Promise<DirEntry[]>} */
  async list(path) {
    const dir = this.#dir(splitPath(path), false);
    return [...dir.children].map(([name, node]) => ({ name, kind: node.kind })).sort((a, b) => a.name.localeCompare(b.name));
  }

  /** @param {string} path @returns {Promise<FileStat | null>} */
  async stat(path) {
    const parts = splitPath(path);
    const name = parts.pop();
    if (!name) return { kind: 'directory', size: 0 };
    let dir;
    try {
      dir = this.#dir(parts, false);
    } catch {
      return null;
    }
    const node = dir.children.get(name);
    if (!node) return null;
    return node.kind === 'file' ? { kind: 'file', size: node.size, mtimeMs: node.mtimeMs } : { kind: 'directory', size: 0 };
  }

  /** @param {string} path */
  async mkdir(path) {
    this.#dir(splitPath(path), true);
  }

  /** @param {string} path */
  async delete(path) {
    const parts = splitPath(path);
    const name = parts.pop();
    if (!name) throw new StorageError('invalid_path', 'Refusing to delete the storage root.');
    try {
      this.#dir(parts, false).children.delete(name);
    } catch (err) {
      if (/** @type {StorageError} */ (err).code !== 'not_found') throw err;
    }
  }

  /** @param {string} from @param {string} to */
  async move(from, to) {
    const src = splitPath(from);
    const srcName = src.pop();
    const dst = splitPath(to);
    const dstName = dst.pop();
    if (!srcName || !dstName) throw new StorageError('invalid_path', 'Cannot move the storage root.');
    const srcDir = this.#dir(src, false);
    const node = srcDir.children.get(srcName);
    if (!node) throw new StorageError('not_found', `"${from}" does not exist.`);
    const dstDir = this.#dir(dst, true);
    const existing = dstDir.children.get(dstName);
    if (existing && existing.kind !== node.kind)
      throw new StorageError('not_a_directory', `Cannot replace "${to}" with a different kind of entry.`);
    srcDir.children.delete(srcName);
    dstDir.children.set(dstName, node);
  }
}
