/** @import { FileSystem, DirEntry } from './types.d.ts' */
import { StorageError, splitPath } from './errors.js';
import { INTERNAL_FOLDERS } from './workspace-folders.js';

/**
 * A workspace whose files are a folder on the user's computer: user paths (and `.git`, so an
 * existing repository is used as is) go to `mounted`, Clawser's internal folders to `internal`
 * (OPFS). When `mounted` is null the folder's permission is pending, and user paths fail with
 * a message that says how to allow it again.
 * @implements {FileSystem}
 */
export class MountedFileSystem {
  /** @param {{internal: FileSystem, mounted: FileSystem | null, folderName: string}} parts */
  constructor(parts) {
    this.internal = parts.internal;
    this.mounted = parts.mounted;
    this.folderName = parts.folderName;
  }

  /** @param {string} path @returns {FileSystem} */
  #route(path) {
    const first = splitPath(path)[0]?.toLowerCase() ?? '';
    if (INTERNAL_FOLDERS.includes(first)) return this.internal;
    if (!this.mounted)
      throw new StorageError(
        'unavailable',
        `The folder “${this.folderName}” needs your permission again: open the Files panel and choose “Allow access to the folder”.`,
      );
    return this.mounted;
  }

  /** @param {string} p */ async readText(p) {
    return this.#route(p).readText(p);
  }
  /** @param {string} p @param {{start?: number, end?: number}} [r] */ async readBytes(p, r) {
    return this.#route(p).readBytes(p, r);
  }
  /** @param {string} p @param {string | Uint8Array} d @param {import('./types.d.ts').WriteOptions} [o] */ async write(p, d, o) {
    return this.#route(p).write(p, d, o);
  }
  /** @param {string} p @param {string | Uint8Array} d */ async append(p, d) {
    return this.#route(p).append(p, d);
  }
  /** @param {string} p @param {number} n */ async truncate(p, n) {
    return this.#route(p).truncate(p, n);
  }
  /** @param {string} p */ async stat(p) {
    return splitPath(p).length === 0 ? { kind: /** @type {const} */ ('directory'), size: 0 } : this.#route(p).stat(p);
  }
  /** @param {string} p */ async mkdir(p) {
    return this.#route(p).mkdir(p);
  }
  /** @param {string} p */ async delete(p) {
    return this.#route(p).delete(p);
  }

  /** @param {string} a @param {string} b */
  async move(a, b) {
    const from = this.#route(a);
    const to = this.#route(b);
    if (from === to) return from.move(a, b);
    throw new StorageError('invalid_path', "Files cannot be moved between the opened folder and Clawser's own folders.");
  }

  /** The root lists the folder's entries plus the internal folders that exist. @param {string} p @returns {Promise<DirEntry[]>} */
  async list(p) {
    if (splitPath(p).length) return this.#route(p).list(p);
    const own = (await this.internal.list('').catch(() => [])).filter((e) => INTERNAL_FOLDERS.includes(e.name.toLowerCase()));
    const user = this.mounted ? (await this.mounted.list('')).filter((e) => !INTERNAL_FOLDERS.includes(e.name.toLowerCase())) : [];
    return [...user, ...own].sort((x, y) => x.name.localeCompare(y.name));
  }
}
