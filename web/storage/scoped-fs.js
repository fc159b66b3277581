/** @import { FileSystem, DirEntry, FileStat } from './types.d.ts' */
import { splitPath } from './errors.js';

/**
 * A FileSystem confined to one folder: every path is taken relative to `root`, and
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

  /** @param {string} p */ readText(p) { return this.inner.readText(this.resolve(p)); }
  /** @param {string} p @param {{start?: number, end?: number}} [r] */ readBytes(p, r) { return this.inner.readBytes(this.resolve(p), r); }
  /** @param {string} p @param {string | Uint8Array} d @param {import('./types.d.ts').WriteOptions} [o] */ write(p, d, o) { return this.inner.write(this.resolve(p), d, o); }
  /** @param {string} p @param {string | Uint8Array} d */ append(p, d) { return this.inner.append(this.resolve(p), d); }
  /** @param {string} p @param {number} n */ truncate(p, n) { return this.inner.truncate(this.resolve(p), n); }
  /** @param {string} p @returns {Promise<DirEntry[]>} */ list(p) { return this.inner.list(this.resolve(p)); }
  /** @param {string} p @returns {Promise<FileStat | null>} */ stat(p) { return this.inner.stat(this.resolve(p)); }
  /** @param {string} p */ mkdir(p) { return this.inner.mkdir(this.resolve(p)); }
  /** @param {string} p */
  delete(p) {
    if (splitPath(p).length === 0) return Promise.reject(new Error('Refusing to delete the whole workspace.'));
    return this.inner.delete(this.resolve(p));
  }
  /** @param {string} a @param {string} b */ move(a, b) { return this.inner.move(this.resolve(a), this.resolve(b)); }
}
