/** @import { FileSystem, DirEntry, FileStat, WriteOptions } from './types.d.ts' */
import { StorageError, splitPath } from './errors.js';
import { PROTECTED_FOLDERS } from './workspace-folders.js';

/**
 * The protected folder a workspace path is in (lower-cased, as a mounted folder on a
 * case-insensitive disk would see it), or null.
 * @param {string} path @param {readonly string[]} [folders]
 */
export function protectedFolderOf(path, folders = PROTECTED_FOLDERS) {
  const first = splitPath(path)[0]?.toLowerCase();
  return first && folders.includes(first) ? first : null;
}

/**
 * A workspace FileSystem that reads everything but never writes, creates, deletes or moves
 * anything inside Clawser's own folders: what the agent's tools, git's checkouts, the Files
 * panel and imports get, so no setting (not even the safety switch) lets them plant a job, a
 * memory or a goal. The owning stores keep the plain file system. `writable` lists folders this
 * view may still change (git's own `.git`).
 * @implements {FileSystem}
 */
export class ProtectedFileSystem {
  /** @param {FileSystem} inner @param {{writable?: string[]}} [options] */
  constructor(inner, options = {}) {
    this.inner = inner;
    const writable = (options.writable ?? []).map((f) => f.toLowerCase());
    this.folders = PROTECTED_FOLDERS.filter((f) => !writable.includes(f));
  }

  /** Throws unless `path` may be changed through this view. @param {string} path */
  check(path) {
    const parts = splitPath(path);
    // The root holds the protected folders: deleting or moving it would take them along.
    if (!parts.length) throw new StorageError('protected', 'The whole workspace cannot be deleted or moved from here.');
    const folder = protectedFolderOf(path, this.folders);
    if (folder) {
      throw new StorageError(
        'protected',
        `"${parts.join('/')}" is inside ${parts[0]}/, one of Clawser's own folders: only Clawser itself changes it (not tools, git, ` +
          `imports or the Files panel). Work with files outside it.`,
      );
    }
  }

  /** @param {string} p */ async readText(p) {
    return this.inner.readText(p);
  }
  /** @param {string} p @param {{start?: number, end?: number}} [r] */ async readBytes(p, r) {
    return this.inner.readBytes(p, r);
  }
  /** @param {string} p @returns {Promise<DirEntry[]>} */ async list(p) {
    return this.inner.list(p);
  }
  /** @param {string} p @returns {Promise<FileStat | null>} */ async stat(p) {
    return this.inner.stat(p);
  }
  /** @param {string} p @param {string | Uint8Array} d @param {WriteOptions} [o] */ async write(p, d, o) {
    this.check(p);
    return this.inner.write(p, d, o);
  }
  /** @param {string} p @param {string | Uint8Array} d */ async append(p, d) {
    this.check(p);
    return this.inner.append(p, d);
  }
  /** @param {string} p @param {number} n */ async truncate(p, n) {
    this.check(p);
    return this.inner.truncate(p, n);
  }
  /** @param {string} p */ async mkdir(p) {
    if (splitPath(p).length) this.check(p);
    return this.inner.mkdir(p);
  }
  /** @param {string} p */ async delete(p) {
    this.check(p);
    return this.inner.delete(p);
  }
  /** @param {string} a @param {string} b */ async move(a, b) {
    this.check(a);
    this.check(b);
    return this.inner.move(a, b);
  }
}

/**
 * What git gets: like the tools' view, but `.git` (its own objects, refs and index) stays
 * writable — also when it is handed the tools' view (the git tools' fallback).
 * @param {FileSystem} fs
 */
export function gitFileSystem(fs) {
  if (fs instanceof ProtectedFileSystem)
    return fs.folders.includes('.git') ? new ProtectedFileSystem(fs.inner, { writable: ['.git'] }) : fs;
  return new ProtectedFileSystem(fs, { writable: ['.git'] });
}
