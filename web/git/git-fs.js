/** @import { FileSystem } from '../storage/types.d.ts' */

/**
 * isomorphic-git's promise `fs` over Clawser's FileSystem, so git works on the very files the
 * agent and the user see (no second copy). Paths are absolute from the workspace root.
 * Errors carry the Node-style codes isomorphic-git expects (ENOENT, ENOTDIR, ENOTEMPTY).
 */

/** @param {string} path */
function clean(path) {
  return path.split('/').filter((p) => p && p !== '.').join('/');
}

/** @param {unknown} err @param {string} path */
function nodeError(err, path) {
  const code = /** @type {{code?: string}} */ (err)?.code;
  const map = { not_found: 'ENOENT', not_a_directory: 'ENOTDIR', invalid_path: 'EINVAL', quota: 'ENOSPC', busy: 'EBUSY' };
  const e = /** @type {Error & {code?: string}} */ (new Error(`${/** @type {Error} */ (err)?.message ?? err} (${path})`));
  e.code = map[/** @type {keyof typeof map} */ (code)] ?? 'EIO';
  return e;
}

/** @param {string} code @param {string} path */
function coded(code, path) {
  return Object.assign(new Error(`${code}: ${path}`), { code });
}

/**
 * @param {{kind: 'file' | 'directory', size: number, mtimeMs?: number}} s
 */
function toStat(s) {
  const mtimeMs = s.mtimeMs ?? 0;
  const isFile = s.kind === 'file';
  return {
    type: isFile ? 'file' : 'dir',
    mode: isFile ? 0o100644 : 0o040000,
    size: s.size,
    ino: 0,
    mtimeMs,
    ctimeMs: mtimeMs,
    uid: 1,
    gid: 1,
    dev: 1,
    isFile: () => isFile,
    isDirectory: () => !isFile,
    isSymbolicLink: () => false,
  };
}

/**
 * @param {FileSystem} fs the workspace file system (e.g. a ScopedFileSystem)
 */
export function createGitFs(fs) {
  const decoder = new TextDecoder();
  const promises = {
    async readFile(/** @type {string} */ path, /** @type {string | {encoding?: string}} */ options) {
      const encoding = typeof options === 'string' ? options : options?.encoding;
      try {
        const bytes = await fs.readBytes(clean(path));
        return encoding === 'utf8' ? decoder.decode(bytes) : bytes;
      } catch (err) {
        throw nodeError(err, path);
      }
    },
    async writeFile(/** @type {string} */ path, /** @type {string | Uint8Array} */ data) {
      try {
        await fs.write(clean(path), typeof data === 'string' ? data : new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
      } catch (err) {
        throw nodeError(err, path);
      }
    },
    async unlink(/** @type {string} */ path) {
      const s = await fs.stat(clean(path));
      if (!s) throw coded('ENOENT', path);
      if (s.kind === 'directory') throw coded('EISDIR', path);
      await fs.delete(clean(path));
    },
    async readdir(/** @type {string} */ path) {
      const s = await fs.stat(clean(path));
      if (!s) throw coded('ENOENT', path);
      if (s.kind !== 'directory') throw coded('ENOTDIR', path);
      return (await fs.list(clean(path))).map((e) => e.name);
    },
    async mkdir(/** @type {string} */ path) {
      const s = await fs.stat(clean(path));
      if (s) throw coded('EEXIST', path);
      await fs.mkdir(clean(path));
    },
    async rmdir(/** @type {string} */ path) {
      const s = await fs.stat(clean(path));
      if (!s) throw coded('ENOENT', path);
      if (s.kind !== 'directory') throw coded('ENOTDIR', path);
      if ((await fs.list(clean(path))).length) throw coded('ENOTEMPTY', path);
      await fs.delete(clean(path));
    },
    async stat(/** @type {string} */ path) {
      const s = await fs.stat(clean(path));
      if (!s) throw coded('ENOENT', path);
      return toStat(s);
    },
    async lstat(/** @type {string} */ path) {
      return promises.stat(path);
    },
    // Symlinks do not exist in OPFS; isomorphic-git binds these up front, so they must exist.
    async readlink(/** @type {string} */ path) {
      throw coded('ENOENT', path);
    },
    async symlink(/** @type {string} */ _target, /** @type {string} */ path) {
      throw coded('ENOSYS', path);
    },
    async chmod() {},
  };
  return { promises };
}
