/** @import { FileSystem, FileStat, DirEntry } from './types.d.ts' */
import { StorageError, splitPath, toStorageError } from './errors.js';

const encoder = new TextEncoder();

/**
 * FileSystem over a FileSystemDirectoryHandle — a folder the user opened from their computer
 * (File System Access API). Writes go through createWritable(), which the browser applies
 * atomically when the stream closes. Main-thread API: the handle lives in this page.
 * @implements {FileSystem}
 */
export class DirectoryHandleFileSystem {
  /** @param {FileSystemDirectoryHandle} root */
  constructor(root) {
    this.root = root;
    this.name = root.name;
  }

  /** @param {string[]} parts @param {boolean} create */
  async #dir(parts, create) {
    let dir = this.root;
    for (const p of parts) dir = await dir.getDirectoryHandle(p, { create });
    return dir;
  }

  /** @param {string} path */
  #split(path) {
    const parts = splitPath(path);
    const name = parts.pop();
    if (!name) throw new StorageError('invalid_path', 'This operation needs a path inside the folder.');
    return { parts, name };
  }

  /**
   * @template T @param {string} path @param {() => Promise<T>} fn
   * @returns {Promise<T>}
   */
  async #wrap(path, fn) {
    try {
      return await fn();
    } catch (err) {
      if (/** @type {Error} */ (err)?.name === 'NotAllowedError') {
        throw new StorageError('unavailable', `Access to the folder “${this.name}” was withdrawn. Allow it again in the Files panel.`, {
          cause: err,
        });
      }
      throw toStorageError(err, path);
    }
  }

  /** @param {string} path */
  async #file(path) {
    const { parts, name } = this.#split(path);
    return (await this.#dir(parts, false)).getFileHandle(name);
  }

  /** @param {string} path @param {{start?: number, end?: number}} [range] */
  readBytes(path, range = {}) {
    return this.#wrap(path, async () => {
      const file = await (await this.#file(path)).getFile();
      const start = Math.min(range.start ?? 0, file.size);
      const end = Math.min(range.end ?? file.size, file.size);
      return new Uint8Array(await file.slice(start, Math.max(start, end)).arrayBuffer());
    });
  }

  /** @param {string} path */
  async readText(path) {
    return new TextDecoder().decode(await this.readBytes(path));
  }

  /** @param {string} path @param {string | Uint8Array} data */
  write(path, data) {
    return this.#wrap(path, async () => {
      const { parts, name } = this.#split(path);
      const handle = await (await this.#dir(parts, true)).getFileHandle(name, { create: true });
      const w = await handle.createWritable();
      try {
        await w.write(/** @type {FileSystemWriteChunkType} */ (typeof data === 'string' ? data : new Uint8Array(data)));
        await w.close();
      } catch (err) {
        await w.abort().catch(() => {});
        throw err;
      }
    });
  }

  /** @param {string} path @param {string | Uint8Array} data */
  append(path, data) {
    return this.#wrap(path, async () => {
      const { parts, name } = this.#split(path);
      const handle = await (await this.#dir(parts, true)).getFileHandle(name, { create: true });
      const size = (await handle.getFile()).size;
      const w = await handle.createWritable({ keepExistingData: true });
      try {
        await w.write({
          type: 'write',
          position: size,
          data: /** @type {BufferSource} */ (typeof data === 'string' ? encoder.encode(data) : new Uint8Array(data)),
        });
        await w.close();
      } catch (err) {
        await w.abort().catch(() => {});
        throw err;
      }
    });
  }

  /** @param {string} path @param {number} size */
  truncate(path, size) {
    return this.#wrap(path, async () => {
      const w = await (await this.#file(path)).createWritable({ keepExistingData: true });
      await w.truncate(size);
      await w.close();
    });
  }

  /** @param {string} path @returns {Promise<DirEntry[]>} */
  list(path) {
    return this.#wrap(path, async () => {
      const dir = await this.#dir(splitPath(path), false);
      /** @type {DirEntry[]} */
      const out = [];
      for await (const [name, handle] of /** @type {any} */ (dir).entries()) {
        // entries() is missing from TypeScript's DOM lib
        if (name.endsWith('.crswap')) continue; // Chrome's in-progress write of createWritable()
        out.push({ name, kind: handle.kind });
      }
      return out.sort((a, b) => a.name.localeCompare(b.name));
    });
  }

  /** @param {string} path @returns {Promise<FileStat | null>} */
  stat(path) {
    return this.#wrap(path, async () => {
      const parts = splitPath(path);
      const name = parts.pop();
      if (!name) return { kind: 'directory', size: 0 };
      let dir;
      try {
        dir = await this.#dir(parts, false);
      } catch {
        return null;
      }
      try {
        const file = await (await dir.getFileHandle(name)).getFile();
        return { kind: 'file', size: file.size, mtimeMs: file.lastModified };
      } catch (err) {
        if (!['TypeMismatchError', 'NotFoundError'].includes(/** @type {Error} */ (err).name)) throw err;
      }
      try {
        await dir.getDirectoryHandle(name);
        return { kind: 'directory', size: 0 };
      } catch {
        return null;
      }
    });
  }

  /** @param {string} path */
  mkdir(path) {
    return this.#wrap(path, async () => {
      await this.#dir(splitPath(path), true);
    });
  }

  /** @param {string} path */
  delete(path) {
    return this.#wrap(path, async () => {
      const { parts, name } = this.#split(path);
      try {
        await (await this.#dir(parts, false)).removeEntry(name, { recursive: true });
      } catch (err) {
        if (/** @type {Error} */ (err).name !== 'NotFoundError') throw err;
      }
    });
  }

  /** @param {string} from @param {string} to */
  move(from, to) {
    return this.#wrap(from, async () => {
      const stat = await this.stat(from);
      if (!stat) throw new StorageError('not_found', `Nothing at "${from}" to move.`);
      // Copy, then delete: moving entries is not available for every kind of folder handle.
      if (stat.kind === 'file') await this.write(to, await this.readBytes(from));
      else {
        await this.mkdir(to);
        for (const e of await this.list(from)) await this.move(`${from}/${e.name}`, `${to}/${e.name}`);
      }
      await this.delete(from);
    });
  }
}
