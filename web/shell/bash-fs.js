/** @import { FileSystem } from '../storage/types.d.ts' */
/** @import { IFileSystem, FsStat } from 'just-bash' */
/** @typedef {{name: string, isFile: boolean, isDirectory: boolean, isSymbolicLink: boolean}} DirentEntry */
import { StorageError } from '../storage/errors.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Node-style error codes: just-bash's commands print and test them ("ENOENT", "EISDIR"…). */
const NODE_CODES = /** @type {const} */ ({
  ENOENT: 'no such file or directory',
  ENOTDIR: 'not a directory',
  EISDIR: 'illegal operation on a directory',
  EEXIST: 'file already exists',
  ENOTEMPTY: 'directory not empty',
  EACCES: 'permission denied',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  EINVAL: 'invalid argument',
  ENOTSUP: 'operation not supported',
  EIO: 'i/o error',
});

/** Files read ahead at once during a scan, and the largest file read ahead. */
const READ_AHEAD = 16;
const READ_AHEAD_MAX_BYTES = 1024 * 1024;

/** One char per byte (what Node calls latin1), in slices so large files stay fast. @param {Uint8Array} bytes */
export function latin1(bytes) {
  /** @type {string[]} */
  const parts = [];
  for (let i = 0; i < bytes.length; i += 0x8000)
    parts.push(String.fromCharCode.apply(null, /** @type {number[]} */ (/** @type {unknown} */ (bytes.subarray(i, i + 0x8000)))));
  return parts.join('');
}

/** The bytes of a one-char-per-byte string (the inverse of latin1). @param {string} text */
export function fromLatin1(text) {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i) & 0xff;
  return out;
}

/** An error shaped like Node's (`code`, "CODE: text, op 'path'"), which just-bash understands. */
export class ShellFsError extends Error {
  /** @param {keyof typeof NODE_CODES} code @param {string} op @param {string} path @param {string} [detail] */
  constructor(code, op, path, detail) {
    super(`${code}: ${NODE_CODES[code]}, ${op} '${path}'${detail ? ` (${detail})` : ''}`);
    this.name = 'ShellFsError';
    this.code = code;
  }
}

/**
 * Normalizes an absolute shell path ('/a/./b/../c') to a Clawser path ('a/c'); the shell's
 * `/` is the workspace root and `..` never climbs above it.
 * @param {string} path
 */
export function toStoragePath(path) {
  /** @type {string[]} */
  const out = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return out.join('/');
}

/** @param {string} path an absolute shell path */
const isDevNull = (path) => path === '/dev/null' || resolveShellPath('/', path) === '/dev/null';

/** @param {string} base @param {string} path */
export function resolveShellPath(base, path) {
  const joined = path.startsWith('/') ? path : `${base.replace(/\/+$/, '')}/${path}`;
  return `/${toStoragePath(joined)}`;
}

/**
 * just-bash's `IFileSystem` over Clawser's `FileSystem` (OPFS, memory, an opened folder):
 * every read and write goes straight to the workspace's files, no copy. Give it the
 * `ProtectedFileSystem` view so writes into Clawser's own folders are refused below the shell.
 * The workspace has no symbolic links, owners or permission bits: `ln` fails, `chmod` and
 * `touch -d` are accepted and change nothing (docs/architecture.md lists these differences).
 * @implements {IFileSystem}
 */
export class BashFileSystem {
  /**
   * @param {FileSystem} fs
   * @param {{unreadable?: readonly string[]}} [options] top-level folders whose content cannot be read
   *   either (the agent's shell: Clawser's own folders, as for its fs_read)
   */
  constructor(fs, options = {}) {
    this.fs = fs;
    this.unreadable = (options.unreadable ?? []).map((f) => f.toLowerCase());
    /** While set, every change is refused (a line run as read-only: whatever it hides, it writes nothing). */
    this.readOnly = false;
    /**
     * Told of every file read, folder listed and file or folder whose metadata a command gets (a
     * storage path), before it reaches the command: the agent's shell taints the turn there when
     * the workspace is outside content.
     * @type {((path: string) => Promise<void> | void) | null}
     */
    this.onRead = null;
    /**
     * What a bounded shell (a skill script's) may do with the files, by kind of access: the
     * reason it may not, or null. `read` a file's content, `list` a folder, `stat` a file's or
     * folder's metadata, `write` (create, change, make a folder, copy or move to), `delete`
     * (remove, move away). Unset: everything.
     * @type {((access: 'read' | 'list' | 'stat' | 'write' | 'delete') => string | null) | null}
     */
    this.permit = null;
    /**
     * Why the bound refused something since the last `invalidate` (a new line): commands such
     * as `cat` report any failure as a missing file, so the shell's user is told the reason.
     * @type {Set<string>}
     */
    this.refusals = new Set();
    /**
     * Whether a name is one of the shell's commands: such a command "is" /usr/bin/NAME and
     * /bin/NAME wherever the workspace has no file there (see #commandFile).
     * @type {((name: string) => boolean) | null}
     */
    this.isCommand = null;
    /**
     * While above 0 (grep is searching), reads of a file holding a NUL byte are counted in
     * `binaryReads`: grep's cue that it met a binary file (commands/grep.js).
     */
    this.watchBinary = 0;
    this.binaryReads = 0;
    /** While above 0, a command reads its files in batches of its own (grep): no read-ahead. */
    this.batchReads = 0;
  }

  /**
   * just-bash finds a command by looking for its file under PATH (/usr/bin, /bin) and falls back
   * to its registry only while /usr/bin does not exist; here `/` is the workspace, so a
   * workspace's own `usr/bin/` folder would hide every command. A command's path answers
   * stat/exists as an (empty) executable file when the workspace has nothing there, so lookups
   * never depend on the workspace's folders; reading, listing and writing see only the workspace.
   * @param {string} path
   */
  #commandFile(path) {
    const m = /^\/(?:usr\/)?bin\/([^/]+)$/.exec(resolveShellPath('/', path));
    return !!m && !!this.isCommand?.(m[1]);
  }

  /** Whether a path is in (or is) a folder this view hides. @param {string} p a storage path */
  #hidden(p) {
    return !!p && this.unreadable.includes(p.split('/')[0].toLowerCase());
  }

  /** @param {string} path @param {string} op @param {'read' | 'list'} [access] */
  #checkReadable(path, op, access = 'read') {
    // Hidden folders do not exist for this view: listing the workspace, find and du pass them by.
    if (this.#hidden(toStoragePath(path))) throw new ShellFsError('ENOENT', op, path);
    this.#allow(access, path, op);
  }

  /**
   * Refuses what the bound (permit) does not allow, and records why.
   * @param {'read' | 'list' | 'stat' | 'write' | 'delete'} access
   * @param {string} path
   * @param {string} op
   */
  #allow(access, path, op) {
    const why = this.permit?.(access);
    if (!why) return;
    this.refusals.add(why);
    throw new ShellFsError('EACCES', op, path, why);
  }

  /**
   * Runs a storage call, turning its errors into Node-style ones.
   * @template T @param {string} op @param {string} path @param {() => Promise<T>} call @returns {Promise<T>}
   */
  async #call(op, path, call) {
    try {
      return await call();
    } catch (err) {
      if (err instanceof ShellFsError) throw err;
      const code = err instanceof StorageError ? err.code : '';
      const message = err instanceof Error ? err.message : String(err);
      if (code === 'not_found') throw new ShellFsError('ENOENT', op, path);
      if (code === 'not_a_directory') throw new ShellFsError('ENOTDIR', op, path);
      if (code === 'protected')
        throw new ShellFsError(
          'EACCES',
          op,
          path,
          `${toStoragePath(path).split('/')[0]}/ is one of Clawser's own folders: only Clawser changes it`,
        );
      if (code === 'quota') throw new ShellFsError('ENOSPC', op, path, message);
      if (code === 'invalid_path') throw new ShellFsError('EINVAL', op, path, message);
      throw new ShellFsError('EIO', op, path, message);
    }
  }

  /**
   * Refuses a change before anything else is checked, when the file system says so (the
   * ProtectedFileSystem view: Clawser's own folders), so the refusal is what the user sees.
   * @param {string} path @param {string} op @param {'write' | 'delete'} [access]
   */
  async #checkWritable(path, op, access = /** @type {'write' | 'delete'} */ ('write')) {
    if (this.readOnly) throw new ShellFsError('EROFS', op, path, 'this line was run as read-only');
    this.#allow(access, path, op);
    const check = /** @type {{check?: (p: string) => void}} */ (this.fs).check;
    if (check && toStoragePath(path)) await this.#call(op, path, async () => check.call(this.fs, toStoragePath(path)));
  }

  /** @param {string} path */
  async #statOf(path) {
    const p = toStoragePath(path);
    if (this.#hidden(p)) return null;
    // Command lookups ask for /usr/bin/x and /bin/x on every command: a top-level folder the
    // workspace does not have answers without a round trip to storage.
    if (p && !(await this.#topLevel()).has(p.split('/')[0])) return null;
    return this.#call('stat', path, () => this.fs.stat(p));
  }

  /** @type {Promise<Set<string>> | null} the workspace's top-level names, until something changes */
  #top = null;

  #topLevel() {
    this.#top ??= this.fs.list('').then(
      (entries) => new Set(entries.map((e) => e.name)),
      () => {
        this.#top = null;
        return new Set();
      },
    );
    return this.#top;
  }

  /** Forgets what was cached (a change here, or a new command line: another tab may have changed the files). */
  invalidate() {
    this.#top = null;
    this.#ahead.clear();
    this.#listed.clear();
    this.#reads.clear();
    this.#listings.clear();
  }

  /**
   * Read-ahead for scans (`grep -r`, `cat *`, `wc -l **`): once two files of a listed folder
   * have been read in a row, the next ones are read concurrently in the background (small files
   * only), so a scan does not pay one storage round trip after another. Dropped on any change.
   */
  /** @type {Map<string, Promise<Uint8Array | null>>} */
  #ahead = new Map();
  /** @type {Map<string, string[]>} folder → its files, in listing order */
  #listed = new Map();
  /** @type {Map<string, number>} folder → files read from it */
  #reads = new Map();
  /**
   * Folders listed during this line, until anything changes: a search that lists the tree twice
   * (grep -r finding dot files, then just-bash's recursion) pays the storage once.
   * @type {Map<string, DirentEntry[]>}
   */
  #listings = new Map();

  /** @param {string} p a storage path just read */
  #readAhead(p) {
    const dir = p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '';
    const files = this.#listed.get(dir);
    if (!files || this.batchReads > 0) return;
    const count = (this.#reads.get(dir) ?? 0) + 1;
    this.#reads.set(dir, count);
    if (count < 2) return;
    const at = files.indexOf(p);
    if (at < 0) return;
    for (const next of files.slice(at + 1, at + 1 + READ_AHEAD)) {
      if (this.#ahead.has(next) || this.#ahead.size >= READ_AHEAD * 2) continue;
      const fs = this.fs;
      this.#ahead.set(
        next,
        (async () => {
          const stat = await fs.stat(next);
          return stat && stat.kind === 'file' && stat.size <= READ_AHEAD_MAX_BYTES ? fs.readBytes(next) : null;
        })().catch(() => null),
      );
    }
  }

  /** @param {string} path @param {string} op */
  async #requireParent(path, op) {
    const parts = toStoragePath(path).split('/');
    parts.pop();
    if (!parts.length) return;
    const parent = await this.#statOf(`/${parts.join('/')}`);
    if (!parent) throw new ShellFsError('ENOENT', op, path);
    if (parent.kind !== 'directory') throw new ShellFsError('ENOTDIR', op, path);
  }

  /** @param {string} path @param {string} op */
  async #requireFile(path, op) {
    const stat = await this.#statOf(path);
    if (!stat) throw new ShellFsError('ENOENT', op, path);
    if (stat.kind === 'directory') throw new ShellFsError('EISDIR', op, path);
    return stat;
  }

  /** @param {string} path @param {unknown} [options] */
  async readFile(path, options) {
    const encoding = typeof options === 'string' ? options : /** @type {{encoding?: string | null} | undefined} */ (options)?.encoding;
    const bytes = await this.readFileBuffer(path);
    if (encoding === 'latin1' || encoding === 'binary') return latin1(bytes);
    return decoder.decode(bytes);
  }

  /**
   * The file as a "byte string" (one char per byte), the form just-bash's commands work on:
   * built in large slices, not a character at a time.
   * @param {string} path
   */
  async readFileBytes(path) {
    // The ByteString brand is a compile-time tag only: the value is this string.
    return /** @type {import('just-bash').ByteString} */ (/** @type {unknown} */ (latin1(await this.readFileBuffer(path))));
  }

  /** @param {string} path */
  async readFileBuffer(path) {
    if (isDevNull(path)) return new Uint8Array(0);
    this.#checkReadable(path, 'open');
    const p = toStoragePath(path);
    try {
      const early = this.#ahead.get(p);
      this.#ahead.delete(p);
      // One round trip when it is a file (the usual case); a failure says why afterwards.
      const bytes = (early && (await early)) || (await this.fs.readBytes(p));
      this.#readAhead(p);
      if (this.onRead) await this.onRead(p);
      if (this.watchBinary > 0 && bytes.includes(0)) this.binaryReads++;
      return bytes;
    } catch (err) {
      await this.#requireFile(path, 'open');
      return this.#call('open', path, () => Promise.reject(err));
    }
  }

  /**
   * @param {string | Uint8Array} content @param {unknown} options
   * @returns {string | Uint8Array}
   */
  #bytes(content, options) {
    const encoding = typeof options === 'string' ? options : /** @type {{encoding?: string} | undefined} */ (options)?.encoding;
    if (typeof content !== 'string' || (encoding !== 'latin1' && encoding !== 'binary')) return content;
    return fromLatin1(content);
  }

  /** Checks before writing a file: allowed here, not a folder, its folder exists. @param {string} path */
  async #beforeWrite(path) {
    await this.#checkWritable(path, 'open');
    const stat = await this.#statOf(path);
    if (stat?.kind === 'directory') throw new ShellFsError('EISDIR', 'open', path);
    if (!stat) await this.#requireParent(path, 'open');
  }

  /** @param {string} path @param {string | Uint8Array} content @param {unknown} [options] */
  async writeFile(path, content, options) {
    if (path === '/dev/null') return;
    await this.#beforeWrite(path);
    await this.#call('open', path, () => this.fs.write(toStoragePath(path), this.#bytes(content, options))).finally(() =>
      this.invalidate(),
    );
  }

  /** @param {string} path @param {string | Uint8Array} content @param {unknown} [options] */
  async appendFile(path, content, options) {
    if (path === '/dev/null') return;
    await this.#beforeWrite(path);
    const data = this.#bytes(content, options);
    await this.#call('open', path, () =>
      this.fs.append(toStoragePath(path), typeof data === 'string' ? encoder.encode(data) : data),
    ).finally(() => this.invalidate());
  }

  /**
   * A file's or folder's metadata (it exists, its size, its kind) went to a command: for the
   * taint it is read like its content (`stat`, `test -s`, `ls -l` of a cloned repository's file).
   * The root's existence says nothing.
   * @param {string} path @param {unknown} stat what #statOf found
   */
  async #metadataRead(path, stat) {
    const p = toStoragePath(path);
    if (!stat || !p) return;
    this.#allow('stat', path, 'stat');
    if (this.onRead) await this.onRead(p);
  }

  /** @param {string} path */
  async exists(path) {
    if (isDevNull(path)) return true;
    const stat = await this.#statOf(path).catch(() => null);
    if (this.#commandFile(path)) return true;
    // Out of bounds, a file is as good as absent (as in a folder one may not read: `test -e`
    // answers no, the line goes on); the refusal is still recorded.
    const why = stat && toStoragePath(path) ? this.permit?.('stat') : null;
    if (why) {
      this.refusals.add(why);
      return false;
    }
    await this.#metadataRead(path, stat);
    return !!stat;
  }

  /**
   * The permission bits are just-bash's (no file-type bits: `stat -c %a` prints them as is).
   * With no links, a file's normalized path is its identity: `cp` and `mv` use it to tell two
   * names of one file from two files.
   * @param {string} path @returns {Promise<FsStat>}
   */
  async stat(path) {
    // The one device the workspace has: empty to read, swallowing what is written.
    if (isDevNull(path))
      return { isFile: false, isDirectory: false, isSymbolicLink: false, mode: 0o666, size: 0, mtime: new Date(0), identity: '/dev/null' };
    const stat = await this.#statOf(path).catch((err) => {
      if (this.#commandFile(path)) return null;
      throw err;
    });
    if (!stat && this.#commandFile(path))
      return {
        isFile: true,
        isDirectory: false,
        isSymbolicLink: false,
        mode: 0o755,
        size: 0,
        mtime: new Date(0),
        identity: resolveShellPath('/', path),
      };
    if (!stat) throw new ShellFsError('ENOENT', 'stat', path);
    await this.#metadataRead(path, stat);
    const isDirectory = stat.kind === 'directory';
    return {
      isFile: !isDirectory,
      isDirectory,
      isSymbolicLink: false,
      mode: isDirectory ? 0o755 : 0o644,
      size: stat.size,
      mtime: new Date(stat.mtimeMs ?? 0),
      identity: resolveShellPath('/', path),
    };
  }

  /** @param {string} path */
  async lstat(path) {
    return this.stat(path);
  }

  /** @param {string} path @param {{recursive?: boolean}} [options] */
  async mkdir(path, options) {
    await this.#checkWritable(path, 'mkdir');
    const stat = await this.#statOf(path);
    if (stat) {
      if (options?.recursive && stat.kind === 'directory') return;
      throw new ShellFsError('EEXIST', 'mkdir', path);
    }
    if (!options?.recursive) await this.#requireParent(path, 'mkdir');
    await this.#call('mkdir', path, () => this.fs.mkdir(toStoragePath(path))).finally(() => this.invalidate());
  }

  /** @param {string} path @returns {Promise<DirentEntry[]>} */
  async readdirWithFileTypes(path) {
    this.#checkReadable(path, 'scandir', 'list');
    const p = toStoragePath(path);
    /** @type {import('../storage/types.d.ts').DirEntry[]} */
    let entries;
    const known = this.#listings.get(p);
    if (known) {
      if (this.onRead) await this.onRead(p);
      return known.map((e) => ({ ...e }));
    }
    try {
      entries = await this.fs.list(p);
    } catch (err) {
      const stat = await this.#statOf(path);
      if (!stat) throw new ShellFsError('ENOENT', 'scandir', path);
      if (stat.kind !== 'directory') throw new ShellFsError('ENOTDIR', 'scandir', path);
      entries = await this.#call('scandir', path, () => Promise.reject(err));
    }
    const sorted = entries
      .filter((e) => !this.#hidden(p ? `${p}/${e.name}` : e.name))
      .map((e) => ({ name: e.name, isFile: e.kind === 'file', isDirectory: e.kind === 'directory', isSymbolicLink: false }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.#listed.set(
      p,
      sorted.filter((e) => e.isFile).map((e) => (p ? `${p}/${e.name}` : e.name)),
    );
    this.#listings.set(
      p,
      sorted.map((e) => ({ ...e })),
    );
    if (this.onRead) await this.onRead(p);
    return sorted;
  }

  /** @param {string} path */
  async readdir(path) {
    return (await this.readdirWithFileTypes(path)).map((e) => e.name);
  }

  /** @param {string} path @param {{recursive?: boolean, force?: boolean}} [options] */
  async rm(path, options) {
    await this.#checkWritable(path, 'rm', 'delete');
    const stat = await this.#statOf(path);
    if (!stat) {
      if (options?.force) return;
      throw new ShellFsError('ENOENT', 'rm', path);
    }
    if (stat.kind === 'directory' && !options?.recursive) {
      const children = await this.#call('rm', path, () => this.fs.list(toStoragePath(path)));
      if (children.length) throw new ShellFsError('ENOTEMPTY', 'rm', path);
    }
    if (!toStoragePath(path)) throw new ShellFsError('EACCES', 'rm', path, 'the workspace root cannot be removed');
    await this.#call('rm', path, () => this.fs.delete(toStoragePath(path))).finally(() => this.invalidate());
  }

  /** @param {string} src @param {string} dest @param {{recursive?: boolean}} [options] */
  async cp(src, dest, options) {
    this.#checkReadable(src, 'cp');
    const stat = await this.#statOf(src);
    if (!stat) throw new ShellFsError('ENOENT', 'cp', src);
    if (stat.kind === 'file') {
      const bytes = await this.#call('cp', src, () => this.fs.readBytes(toStoragePath(src)));
      if (this.onRead) await this.onRead(toStoragePath(src));
      await this.writeFile(dest, bytes);
      return;
    }
    if (!options?.recursive) throw new ShellFsError('EISDIR', 'cp', src);
    const from = toStoragePath(src);
    const to = toStoragePath(dest);
    if (to === from || to.startsWith(`${from}/`)) throw new ShellFsError('EINVAL', 'cp', dest, 'cannot copy a directory into itself');
    await this.mkdir(dest, { recursive: true });
    for (const entry of await this.readdirWithFileTypes(src)) {
      await this.cp(`${src}/${entry.name}`, `${dest}/${entry.name}`, options);
    }
  }

  /** @param {string} src @param {string} dest */
  async mv(src, dest) {
    await this.#checkWritable(src, 'mv', 'delete');
    await this.#checkWritable(dest, 'mv');
    const stat = await this.#statOf(src);
    if (!stat) throw new ShellFsError('ENOENT', 'mv', src);
    const from = toStoragePath(src);
    const to = toStoragePath(dest);
    if (from === to) return;
    if (to.startsWith(`${from}/`)) throw new ShellFsError('EINVAL', 'mv', dest, 'cannot move a directory into itself');
    await this.#requireParent(dest, 'mv');
    await this.#call('mv', src, () => this.fs.move(from, to)).finally(() => this.invalidate());
  }

  /** @param {string} base @param {string} path */
  resolvePath(base, path) {
    return resolveShellPath(base, path);
  }

  /** Only used by `ls` for a quoted glob; the workspace cannot be listed synchronously. @returns {string[]} */
  getAllPaths() {
    return [];
  }

  /** No permission bits in the workspace: accepted, changes nothing. @param {string} path @param {number} _mode */
  async chmod(path, _mode) {
    if (!(await this.#statOf(path))) throw new ShellFsError('ENOENT', 'chmod', path);
  }

  /** @param {string} _target @param {string} linkPath */
  async symlink(_target, linkPath) {
    throw new ShellFsError('ENOTSUP', 'symlink', linkPath, 'the workspace has no links');
  }

  /** @param {string} _existing @param {string} newPath */
  async link(_existing, newPath) {
    throw new ShellFsError('ENOTSUP', 'link', newPath, 'the workspace has no links');
  }

  /** @param {string} path @returns {Promise<string>} */
  async readlink(path) {
    if (!(await this.#statOf(path))) throw new ShellFsError('ENOENT', 'readlink', path);
    throw new ShellFsError('EINVAL', 'readlink', path);
  }

  /** @param {string} path */
  async realpath(path) {
    const resolved = resolveShellPath('/', path);
    const stat = await this.#statOf(resolved);
    if (!stat) throw new ShellFsError('ENOENT', 'realpath', path);
    await this.#metadataRead(resolved, stat);
    return resolved;
  }

  /** The storage keeps its own modification times. @param {string} path @param {Date} _atime @param {Date} _mtime */
  async utimes(path, _atime, _mtime) {
    if (!(await this.#statOf(path))) throw new ShellFsError('ENOENT', 'utimes', path);
  }
}
