/** @import { FileSystem, DirEntry, FileStat } from './types.d.ts' */
import { splitPath } from './errors.js';

/**
 * A FileSystem confined to one folder (methods are async, so a refused path is a rejected
 * promise like any other storage error): every path is taken relative to `root`, and
 * "/notes/a.md" means `root/notes/a.md`. Used to give tools the workspace and nothing else.
 * @implements {FileSystem}
 */
export class ScopedFileSystem {
  /** @param {FileSystem} inner @param {string} root */
  constructor(inner, root) {
    this.inner = inner;
    this.root = splitPath(root).join('/');
  }

  /** @param {string} path */
  resolve(path) {
    const parts = splitPath(path);
    return parts.length ? `${this.root}/${parts.join('/')}` : this.root;
  }

  /** @param {string} p */ async readText(p) {
    return this.inner.readText(this.resolve(p));
  }
  /** @param {string} p @param {{start?: number, end?: number}} [r] */ async readBytes(p, r) {
    return this.inner.readBytes(this.resolve(p), r);
  }
  /** @param {string} p @param {string | Uint8Array} d @param {import('./types.d.ts').WriteOptions} [o] */ async write(p, d, o) {
    return this.inner.write(this.resolve(p), d, o);
  }
  /** @param {string} p @param {string | Uint8Array} d */ async append(p, d) {
    return this.inner.append(this.resolve(p), d);
  }
  /** @param {string} p @param {number} n */ async truncate(p, n) {
    return this.inner.truncate(this.resolve(p), n);
  }
  /** @param {string} p @returns {Promise<DirEntry[]>} */ async list(p) {
    return this.inner.list(this.resolve(p));
  }
  /** @param {string} p @returns {Promise<FileStat | null>} */ async stat(p) {
    return this.inner.stat(this.resolve(p));
  }
  /** @param {string} p */ async mkdir(p) {
    return this.inner.mkdir(this.resolve(p));
  }
  /** @param {string} p */
  async delete(p) {
    if (splitPath(p).length === 0) throw new Error('Refusing to delete the whole workspace.');
    return this.inner.delete(this.resolve(p));
  }
  /** @param {string} a @param {string} b */ async move(a, b) {
    return this.inner.move(this.resolve(a), this.resolve(b));
  }
}
