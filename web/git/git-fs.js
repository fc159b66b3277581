/** @import { FileSystem } from '../storage/types.d.ts' */

/**
 * isomorphic-git's promise `fs` over Clawser's FileSystem, so git works on the very files the
 * agent and the user see (no second copy). Paths are absolute from the workspace root.
 * Errors carry the Node-style codes isomorphic-git expects (ENOENT, ENOTDIR, ENOTEMPTY).
 */

/** @param {string} path */
function clean(path) {
  return path
    .split('/')
    .filter((p) => p && p !== '.')
    .join('/');
}

/**
 * A file system refusal as isomorphic-git reads it: by its Node-style `code` (`ENOENT`,
 * `ENOTDIR`, `EEXIST`, …). isomorphic-git turns the ones it expects into its own answers (a
 * missing ref, a folder already there); the others reach toGitError as they are.
 */
export class GitFsError extends Error {
  /** @param {string} code @param {string} message @param {{cause?: unknown}} [options] */
  constructor(code, message, options) {
    super(message, options);
    this.name = 'GitFsError';
    this.code = code;
  }
}

/** @param {unknown} err @param {string} path */
function nodeError(err, path) {
  const code = /** @type {{code?: string}} */ (err)?.code;
  const map = {
    not_found: 'ENOENT',
    not_a_directory: 'ENOTDIR',
    invalid_path: 'EINVAL',
    quota: 'ENOSPC',
    busy: 'EBUSY',
    protected: 'EPERM',
  };
  return new GitFsError(map[/** @type {keyof typeof map} */ (code)] ?? 'EIO', `${/** @type {Error} */ (err)?.message ?? err} (${path})`);
}

/** @param {string} code @param {string} path */
function coded(code, path) {
  return new GitFsError(code, `${code}: ${path}`);
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
 * @param {{commandCache?: boolean}} [adapterOptions] commandCache: for the adapter of ONE git command,
 *   remember stats of `.git/…` paths, which files are missing, and the content of `.git/…` files
 *   (not objects) and `.gitignore` files, until this adapter writes them — isomorphic-git
 *   re-reads `.git/config` and every folder's `.gitignore` once per file, concurrently (thousands
 *   of round trips for a thousand-file status).
 */
export function createGitFs(fs, adapterOptions = {}) {
  const commandCache = !!adapterOptions.commandCache;
  const decoder = new TextDecoder();
  /** @type {Map<string, Promise<import('../storage/types.d.ts').FileStat | null>>} */
  const stats = new Map();
  /** Paths known to be missing (commandCache only). @type {Set<string>} */
  const missing = new Set();
  /** Reads shared by the command, pending ones included (commandCache only). @type {Map<string, Promise<Uint8Array>>} */
  const reads = new Map();
  /** @param {string} p */
  const shared = (p) =>
    commandCache && (p === '.gitignore' || p.endsWith('/.gitignore') || (p.startsWith('.git/') && !p.startsWith('.git/objects/')));
  /**
   * The index as the command last wrote it, not yet stored (commandCache only): isomorphic-git
   * writes `.git/index` after each change it makes under its index lock — during a status, once
   * per file whose stats it refreshes — so the command's writes are kept here and stored once,
   * by `flush()` when it ends. The command reads its own writes; nobody else reads meanwhile
   * (commands on one repository run one at a time).
   * @type {Map<string, Uint8Array>}
   */
  const deferred = new Map();
  /** @param {string} p */
  const defers = (p) => commandCache && p === '.git/index';
  /** @param {string} p */
  const readBytes = (p) => {
    const own = deferred.get(p);
    if (own) return Promise.resolve(own.slice());
    if (!shared(p)) return fs.readBytes(p);
    let r = reads.get(p);
    if (!r) {
      r = fs.readBytes(p);
      reads.set(p, r);
    }
    // Each caller gets its own copy: isomorphic-git may keep or change what it read.
    return r.then((bytes) => bytes.slice());
  };
  /** @param {string} p */
  const statOf = (p) => {
    if (!commandCache || !(p === '.git' || p.startsWith('.git/'))) return fs.stat(p);
    let s = stats.get(p);
    if (!s) {
      s = fs.stat(p);
      stats.set(p, s);
      s.catch(() => stats.delete(p));
    }
    return s;
  };
  /** @param {string} p */
  const changed = (p) => {
    stats.delete(p);
    missing.delete(p);
    reads.delete(p);
    // Writing a file creates its folders, so cached "missing" parents are wrong now.
    for (let i = p.lastIndexOf('/'); i > 0; i = p.lastIndexOf('/', i - 1)) stats.delete(p.slice(0, i));
    for (const key of stats.keys()) if (key.startsWith(p + '/')) stats.delete(key);
    for (const key of reads.keys()) if (key.startsWith(p + '/')) reads.delete(key);
  };
  const promises = {
    async readFile(/** @type {string} */ path, /** @type {string | {encoding?: string}} */ options) {
      const encoding = typeof options === 'string' ? options : options?.encoding;
      const p = clean(path);
      if (missing.has(p)) throw coded('ENOENT', path);
      try {
        const bytes = await readBytes(p);
        return encoding === 'utf8' ? decoder.decode(bytes) : bytes;
      } catch (err) {
        const e = nodeError(err, path);
        if (commandCache && e.code === 'ENOENT') missing.add(p);
        throw e;
      }
    },
    async writeFile(/** @type {string} */ path, /** @type {string | Uint8Array} */ data) {
      const p = clean(path);
      if (defers(p)) {
        // Its stat stays the stored file's (or none) until flush: isomorphic-git compares the
        // index file's stats before and after its own write, and the same answer means "not changed by others".
        deferred.set(p, typeof data === 'string' ? new TextEncoder().encode(data) : new Uint8Array(data));
        reads.delete(p);
        missing.delete(p);
        return;
      }
      changed(p);
      try {
        // Objects are content-addressed and isomorphic-git checks their hash when reading them,
        // so they skip the atomic temp-file-and-move (a third of the cost of a commit).
        const atomic = !p.startsWith('.git/objects/');
        await fs.write(p, typeof data === 'string' ? data : new Uint8Array(data.buffer, data.byteOffset, data.byteLength), { atomic });
      } catch (err) {
        throw nodeError(err, path);
      } finally {
        changed(p);
      }
    },
    async unlink(/** @type {string} */ path) {
      const p = clean(path);
      if (deferred.delete(p)) await flush();
      const s = await statOf(p);
      if (!s) throw coded('ENOENT', path);
      if (s.kind === 'directory') throw coded('EISDIR', path);
      changed(p);
      await fs.delete(p);
      changed(p);
    },
    async readdir(/** @type {string} */ path) {
      const s = await statOf(clean(path));
      if (!s) throw coded('ENOENT', path);
      if (s.kind !== 'directory') throw coded('ENOTDIR', path);
      return (await fs.list(clean(path))).map((e) => e.name);
    },
    async mkdir(/** @type {string} */ path) {
      const p = clean(path);
      // isomorphic-git (the command adapter's only user) treats EEXIST as done: no stat first.
      const s = commandCache ? null : await statOf(p);
      if (s) throw coded('EEXIST', path);
      changed(p);
      try {
        await fs.mkdir(p);
      } catch (err) {
        if (await statOf(p)) throw coded('EEXIST', path); // a file there
        throw nodeError(err, path);
      } finally {
        changed(p);
      }
    },
    async rmdir(/** @type {string} */ path) {
      const p = clean(path);
      const s = await statOf(p);
      if (!s) throw coded('ENOENT', path);
      if (s.kind !== 'directory') throw coded('ENOTDIR', path);
      if ((await fs.list(p)).length) throw coded('ENOTEMPTY', path);
      changed(p);
      await fs.delete(p);
      changed(p);
    },
    async stat(/** @type {string} */ path) {
      const s = await statOf(clean(path));
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
  /** Stores what the command wrote and kept (the index), once. Rejects as the write would have. */
  async function flush() {
    for (const [p, bytes] of deferred) {
      deferred.delete(p);
      changed(p);
      try {
        await fs.write(p, bytes);
      } catch (err) {
        throw nodeError(err, p);
      } finally {
        changed(p);
      }
    }
  }
  return { promises, flush };
}
