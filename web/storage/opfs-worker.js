// Owns every OPFS handle of one tab. File contents go through synchronous access
// handles, which only exist in dedicated workers: an append writes just the new bytes
// (createWritable would copy the whole file to a swap file on every append).
// Why this file is long: a worker runs one script, and its operations share what makes them
// safe together (the open handles and when they are let go, the order of overlapping operations,
// the cached folder handles); split, each part would reach into the others' state.
/// <reference lib="webworker" />
import { StorageError, splitPath, toStorageError } from './errors.js';
import { retryStalled } from './stall-retry.js';
import { isMissing } from './read-files.js';

/** @type {DedicatedWorkerGlobalScope} */
const scope = /** @type {any} */ (self); // `self` is typed as Window under the dom lib; this file runs in a dedicated worker.
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** @type {Promise<FileSystemDirectoryHandle> | null} */
let rootPromise = null;
/** @type {Map<string, FileSystemSyncAccessHandle>} */
const open = new Map();
/** @type {ReturnType<typeof setTimeout> | undefined} */
let idleTimer;
/** Handles are exclusive per file; release them when idle so another tab can get them. */
const IDLE_CLOSE_MS = 800;
/** A folder's move copies its files this much at a time. */
const COPY_SLICE_BYTES = 32 * 1024 * 1024;

function root() {
  rootPromise ??= navigator.storage.getDirectory();
  return rootPromise;
}

/**
 * Directory handles by path, as promises so concurrent operations in a new folder share one
 * lookup/creation: walking from the root on every call dominates small-file work.
 * @type {Map<string, Promise<FileSystemDirectoryHandle>>}
 */
const dirCache = new Map();

/**
 * File handles by path, for reads and stats: a handle names a place (handles follow paths in
 * OPFS), so a cached one reads what is there now, and one lookup less per call counts in git's
 * thousands of small reads. A missing file is not remembered.
 * @type {Map<string, Promise<FileSystemFileHandle>>}
 */
const fileCache = new Map();
/** Bounds the cache (handles are small; a status of a huge tree should not keep them all). */
const FILE_CACHE_MAX = 20_000;

/** @param {string} prefix */
function forgetDirs(prefix) {
  for (const key of dirCache.keys()) if (prefix === '' || key === prefix || key.startsWith(prefix + '/')) dirCache.delete(key);
  for (const key of fileCache.keys()) if (prefix === '' || key === prefix || key.startsWith(prefix + '/')) fileCache.delete(key);
}

/**
 * Forgets the cached folders on the way to each path, and its file handle; true if any was cached.
 * @param {string[]} paths
 */
function forgetAncestors(paths) {
  let any = false;
  for (const path of paths) {
    const parts = path.split('/');
    for (let i = 1; i <= parts.length; i++) any = dirCache.delete(parts.slice(0, i).join('/')) || any;
    any = fileCache.delete(path) || any;
  }
  return any;
}

/** The handle of an existing file, for reading. @param {string} key a normalised path */
function fileAt(key) {
  const hit = fileCache.get(key);
  if (hit) return hit;
  const { parts, name } = parentAndName(key);
  const lookup = dirAt(parts, false).then((dir) => dir.getFileHandle(name));
  if (fileCache.size >= FILE_CACHE_MAX) fileCache.clear();
  fileCache.set(key, lookup);
  const forget = () => {
    if (fileCache.get(key) === lookup) fileCache.delete(key);
  };
  lookup.catch(forget);
  // A lookup the browser leaves unanswered is not kept: later reads look the file up afresh.
  const stall = setTimeout(forget, STALL_MS);
  lookup.then(
    () => clearTimeout(stall),
    () => clearTimeout(stall),
  );
  return lookup;
}

/** @param {string[]} parts @param {boolean} create @returns {Promise<FileSystemDirectoryHandle>} */
function dirAt(parts, create) {
  if (parts.length === 0) return root();
  const key = parts.join('/');
  const hit = dirCache.get(key);
  if (hit) return hit;
  const name = /** @type {string} */ (parts.at(-1));
  const lookup = dirAt(parts.slice(0, -1), create).then((parent) => parent.getDirectoryHandle(name, { create }));
  dirCache.set(key, lookup);
  // A failed lookup (missing folder) is not remembered: the folder may be created later.
  lookup.catch(() => {
    if (dirCache.get(key) === lookup) dirCache.delete(key);
  });
  return lookup;
}

/** @param {string} path */
function parentAndName(path) {
  const parts = splitPath(path);
  const name = parts.pop();
  if (!name) throw new StorageError('invalid_path', 'This operation needs a path below the storage root.');
  return { parts, name };
}

/** Closes the handles of `prefix` and everything below it ('' closes all). @param {string} prefix */
function closeUnder(prefix) {
  for (const [p, h] of open) {
    if (prefix === '' || p === prefix || p.startsWith(prefix + '/')) {
      h.flush();
      h.close();
      open.delete(p);
      lastUse.delete(p);
    }
  }
}

/** @param {string} path @param {boolean} create */
async function handleFor(path, create) {
  const key = splitPath(path).join('/');
  lastUse.set(key, Date.now());
  sweepLater();
  const existing = open.get(key);
  if (existing) return existing;
  const { parts, name } = parentAndName(key);
  const { handle } = await openSync(await dirAt(parts, create), name, create);
  open.set(key, handle);
  return handle;
}

/** When each open handle was last used. @type {Map<string, number>} */
const lastUse = new Map();
let sweepPending = false;

/** Closes, soon, the handles nothing used for IDLE_CLOSE_MS, however busy the worker is otherwise. */
function sweepLater() {
  if (sweepPending) return;
  sweepPending = true;
  setTimeout(sweepIdle, IDLE_CLOSE_MS);
}

/**
 * The idle close below waits for a quiet worker: one that keeps answering reads (a view polling a
 * file) would hold its write handles for good, and another tab's restore could never move the
 * folders. So a handle unused for IDLE_CLOSE_MS is closed anyway, unless an operation on its path
 * is running.
 */
function sweepIdle() {
  sweepPending = false;
  const now = Date.now();
  for (const [key, h] of open) {
    if (now - (lastUse.get(key) ?? 0) < IDLE_CLOSE_MS || active.some((a) => a.paths.some((p) => overlaps(p, key)))) continue;
    h.flush();
    h.close();
    open.delete(key);
    lastUse.delete(key);
  }
  if (open.size) sweepLater();
}

/**
 * How long one browser file open may take before it counts as stalled: under a burst of file
 * creations (git writing a hundred objects) right after a large delete, Chromium has been seen
 * to leave an open unanswered for good (see stall-retry.js).
 */
const STALL_MS = 4000;

/**
 * Opens (creating it if asked) `name` in `dir` for synchronous access. An open the browser leaves
 * unanswered is made again (a late handle is closed at once); a file another tab holds for a
 * moment is waited for, briefly, before it is reported busy.
 * @param {FileSystemDirectoryHandle} dir @param {string} name @param {boolean} create
 * @returns {Promise<{file: FileSystemFileHandle, handle: FileSystemSyncAccessHandle}>}
 */
function openSync(dir, name, create) {
  return retryStalled(
    () => dir.getFileHandle(name, { create }).then(async (file) => ({ file, handle: await file.createSyncAccessHandle() })),
    {
      stallMs: STALL_MS,
      attempts: 20,
      pauseMs: 25,
      retryOn: ['NoModificationAllowedError'],
      release: (late) => late.handle.close(),
      stalledError: () =>
        new StorageError(
          'busy',
          `The browser's storage did not answer while opening "${name}". Try again; if it keeps happening, reload the tab.`,
        ),
    },
  );
}

/**
 * Moves a written temporary file over `name`. A file another tab holds for a moment (its
 * readTail of a conversation's files, a few ms) refuses the move: waited for, briefly, as
 * openSync waits, before the refusal is reported.
 * @param {FileSystemFileHandle} tmp @param {FileSystemDirectoryHandle} dir @param {string} name
 */
async function replaceWith(tmp, dir, name) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await /** @type {any} */ (tmp).move(dir, name); // FileSystemHandle.move is not in TypeScript's DOM lib yet
    } catch (err) {
      if (/** @type {Error} */ (err).name !== 'NoModificationAllowedError' || attempt >= 20) throw err;
      await new Promise((resolve) => setTimeout(resolve, 25 * attempt));
    }
  }
}

/** @param {string | Uint8Array} data */
const bytesOf = (data) => (typeof data === 'string' ? encoder.encode(data) : data);

/** @param {FileSystemSyncAccessHandle} h @param {Uint8Array} bytes @param {number} at */
function writeAll(h, bytes, at) {
  let done = 0;
  while (done < bytes.length) {
    const n = h.write(bytes.subarray(done), { at: at + done });
    if (n <= 0) throw new StorageError('io', 'The browser accepted no bytes while writing.');
    done += n;
  }
}

/**
 * Bytes of a file, the range chosen from its size (clamped to the file), and that size.
 * @param {string} path @param {(size: number) => [number, number]} rangeOf
 * @returns {Promise<{bytes: Uint8Array, size: number, mtimeMs?: number}>} mtimeMs: when read through a File
 *   snapshot (not while this tab has the file open for writing)
 */
async function readRange(path, rangeOf) {
  const key = splitPath(path).join('/');
  const clamp = (/** @type {number} */ size) => {
    const [a, b] = rangeOf(size);
    const start = Math.min(Math.max(0, a), size);
    return [start, Math.max(start, Math.min(b, size))];
  };
  if (!open.has(key)) {
    // Reading through a File snapshot takes no lock and is much cheaper than opening a
    // sync access handle (which git's many small reads would pay each time). A snapshot
    // goes unreadable when another tab replaces the file meanwhile: take a fresh one.
    for (let attempt = 0; ; attempt++) {
      try {
        const file = await (await fileAt(key)).getFile();
        const [start, end] = clamp(file.size);
        // A whole file is read without slicing it (a slice is one more blob for the browser to set up).
        const blob = start === 0 && end === file.size ? file : file.slice(start, end);
        return { bytes: new Uint8Array(await blob.arrayBuffer()), size: file.size, mtimeMs: file.lastModified };
      } catch (err) {
        if (/** @type {Error} */ (err).name !== 'NotReadableError' || attempt >= 5) throw err;
        await new Promise((r) => setTimeout(r, 10 * (attempt + 1)));
      }
    }
  }
  const h = await handleFor(path, false);
  const size = h.getSize();
  const [start, end] = clamp(size);
  const buf = new Uint8Array(end - start);
  h.read(buf, { at: start });
  return { bytes: buf, size };
}

/**
 * Read-only handles an operation read through, closed once its answer is posted: close() blocks
 * the worker for a round trip to the browser, which the waiting caller need not sit through. The
 * operation counts as running until they are closed, so this tab's writes to those files still
 * wait for them (another tab's writers wait or retry: see openSync and replaceWith).
 * @typedef {(() => void)[]} Closers
 */

/**
 * The last `maxBytes` bytes of a file and its size. The end of an append-only log (a conversation
 * being opened): a read-only handle, held for one read, reads it directly, cheaper than a File
 * snapshot. Its lock is shared with other readers only; while a writer holds the file (another
 * tab appending) it is refused — or if the browser leaves the open unanswered — and a File
 * snapshot takes over. A file this tab holds open is read through its handle.
 * @param {Closers} after @param {string} path @param {number} maxBytes
 * @returns {Promise<{bytes: Uint8Array, size: number}>}
 */
async function readTail(after, path, maxBytes) {
  const key = splitPath(path).join('/');
  if (!open.has(key)) {
    const stalled = new Error('stalled');
    /** @type {FileSystemSyncAccessHandle | null} */
    const h = await retryStalled(
      () => fileAt(key).then((file) => /** @type {any} */ (file).createSyncAccessHandle({ mode: 'read-only' })),
      {
        // the mode option is not in TypeScript's DOM lib yet
        stallMs: STALL_MS,
        attempts: 1,
        release: (/** @type {FileSystemSyncAccessHandle} */ late) => late.close(),
        stalledError: () => stalled,
      },
    ).catch((/** @type {Error} */ err) => {
      if (err === stalled || err.name === 'NoModificationAllowedError') return null;
      throw err;
    });
    if (h) {
      after.push(() => h.close());
      const size = h.getSize();
      const start = Math.max(0, size - maxBytes);
      const bytes = new Uint8Array(size - start);
      h.read(bytes, { at: start });
      return { bytes, size };
    }
  }
  return readRange(path, (size) => [size - maxBytes, size]);
}

/**
 * What is at a path: a file (size, modification time), a folder, or nothing (null). `live`: this
 * tab has the file open for writing, which hides its modification time (now is given instead).
 * @param {string} path @returns {Promise<{stat: import('./types.d.ts').FileStat | null, live?: boolean}>}
 */
async function statOf(path) {
  const parts = splitPath(path);
  const name = parts.pop();
  if (!name) return { stat: { kind: 'directory', size: 0 } };
  let dir;
  try {
    dir = await dirAt(parts, false);
  } catch {
    return { stat: null };
  }
  const key = splitPath(path).join('/');
  const h = open.get(key);
  // An open handle hides lastModified; it is being written right now.
  if (h) return { stat: { kind: 'file', size: h.getSize(), mtimeMs: Date.now() }, live: true };
  try {
    const file = await (await fileAt(key)).getFile();
    return { stat: { kind: 'file', size: file.size, mtimeMs: file.lastModified } };
  } catch (err) {
    if (/** @type {Error} */ (err).name !== 'TypeMismatchError' && /** @type {Error} */ (err).name !== 'NotFoundError') throw err;
    fileCache.delete(key);
  }
  try {
    await dir.getDirectoryHandle(name);
    return { stat: { kind: 'directory', size: 0 } };
  } catch {
    return { stat: null };
  }
}

/** Operations whose first argument is their Closers (see runOp). */
const CLOSING_AFTER = new Set(['readTail', 'readFiles', 'batch', 'write']);
/** How many items of a batch are under way at once (opens overlap; a thousand at once only queue in the browser). */
const BATCH_PARALLEL = 64;

/** @type {Record<string, (...args: any[]) => Promise<unknown>>} */ // args arrive as structured clones checked by each op
const ops = {
  /**
   * The file as a File the browser reads from disk when it is read (a model of gigabytes is
   * handed over without a copy in memory). A snapshot: it goes unreadable if the file is replaced.
   */
  async openFile(/** @type {string} */ path) {
    const key = splitPath(path).join('/');
    if (open.has(key)) throw new StorageError('busy', `“${path}” is being written; try again when it is done.`);
    return (await fileAt(key)).getFile();
  },
  async readBytes(/** @type {string} */ path, /** @type {{start?: number, end?: number}} */ range = {}) {
    return (await readRange(path, (size) => [range.start ?? 0, range.end ?? size])).bytes;
  },
  readTail(/** @type {Closers} */ after, /** @type {string} */ path, /** @type {number} */ maxBytes) {
    return readTail(after, path, maxBytes);
  },
  /**
   * A conversation's files as it opens (meta, snapshot, log tail), answered together: one message
   * each way rather than one per file. Each is read as readTail reads (a whole file: all of it),
   * through a read-only handle, cheaper than a File snapshot; a missing file is null.
   */
  async readFiles(/** @type {Closers} */ after, /** @type {{path: string, tail?: number}[]} */ requests) {
    // Settled, all of them, before answering: a read still running could open a handle after
    // its closing time.
    const settled = await Promise.allSettled(
      requests.map(async ({ path, tail }) => {
        try {
          return await withFreshFolders(() => readTail(after, path, tail ?? Number.MAX_SAFE_INTEGER), [path]);
        } catch (err) {
          const e = toStorageError(err, path);
          if (isMissing(e, tail !== undefined)) return null;
          throw e;
        }
      }),
    );
    const failed = settled.find((r) => r.status === 'rejected');
    if (failed) throw /** @type {PromiseRejectedResult} */ (failed).reason;
    return settled.map((r) => /** @type {PromiseFulfilledResult<unknown>} */ (r).value);
  },
  /**
   * Whole files and stats the page asked for in the same moment (its read path batches them):
   * one message each way, BATCH_PARALLEL at a time. A read opens a read-only access handle, as
   * readTail does (far cheaper than a File snapshot for a small file; closed once the answer is
   * posted) and gives the bytes and size; a stat its result, `live` when this tab has the file open
   * for writing (its time is then now, not worth keeping). A failure is that item's (`error`).
   */
  async batch(/** @type {Closers} */ after, /** @type {{op: 'read' | 'stat', path: string}[]} */ items) {
    /** @type {unknown[]} */
    const answers = new Array(items.length);
    let next = 0;
    const lane = async () => {
      while (next < items.length) {
        const i = next++;
        const { op, path } = items[i];
        try {
          answers[i] =
            op === 'stat'
              ? await withFreshFolders(() => statOf(path), [path])
              : await withFreshFolders(() => readTail(after, path, Number.MAX_SAFE_INTEGER), [path]);
        } catch (err) {
          const e = toStorageError(err, path);
          answers[i] = { error: { code: e.code, message: e.message } };
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(BATCH_PARALLEL, items.length) }, lane));
    return answers;
  },
  async readText(/** @type {string} */ path) {
    return decoder.decode(/** @type {Uint8Array} */ (await ops.readBytes(path)));
  },
  async write(
    /** @type {Closers} */ after,
    /** @type {string} */ path,
    /** @type {string | Uint8Array} */ data,
    /** @type {import('./types.d.ts').WriteOptions | undefined} */ options,
  ) {
    const { parts, name } = parentAndName(path);
    const dir = await dirAt(parts, true);
    if (options?.atomic === false) {
      closeUnder(splitPath(path).join('/'));
      fileCache.delete(splitPath(path).join('/'));
      const { handle: h } = await openSync(dir, name, true);
      try {
        h.truncate(0);
        writeAll(h, bytesOf(data), 0);
      } catch (err) {
        h.close();
        throw err;
      }
      // The bytes are in the file: the handle is closed once the answer is posted (see Closers),
      // a round trip to the browser the caller need not wait for (git writes a hundred objects so).
      after.push(() => h.close());
      return;
    }
    // Our own replacement: look the file up afresh next time rather than trust an old handle.
    fileCache.delete(splitPath(path).join('/'));
    const tmpName = `.${name}.tmp-${Math.random().toString(36).slice(2)}`;
    const { file: tmp, handle: h } = await openSync(dir, tmpName, true);
    try {
      writeAll(h, bytesOf(data), 0);
      h.flush();
    } catch (err) {
      h.close();
      await dir.removeEntry(tmpName).catch(() => {});
      throw err;
    }
    h.close();
    closeUnder(splitPath(path).join('/'));
    // The move replaces the old file in one step: a crash leaves either the old or the new content.
    // A refused move (another tab holds the file) leaves the old content and no stray copy.
    await replaceWith(tmp, dir, name).catch(async (/** @type {unknown} */ err) => {
      await dir.removeEntry(tmpName).catch(() => {});
      throw err;
    });
  },
  async append(/** @type {string} */ path, /** @type {string | Uint8Array} */ data) {
    const h = await handleFor(path, true);
    // The bytes are in the file once write() returns, so a crashed or closed tab keeps them;
    // flush() (an fsync, ~ms) only adds power-loss durability and runs when the handle is
    // released after a short idle time.
    writeAll(h, bytesOf(data), h.getSize());
  },
  async truncate(/** @type {string} */ path, /** @type {number} */ size) {
    const h = await handleFor(path, false);
    h.truncate(size);
    h.flush();
  },
  async list(/** @type {string} */ path) {
    const dir = await dirAt(splitPath(path), false);
    /** @type {{name: string, kind: 'file' | 'directory'}[]} */
    const out = [];
    for await (const [name, handle] of /** @type {any} */ (dir).entries()) {
      // entries() is missing from TypeScript's DOM lib
      if (name.includes('.tmp-') && name.startsWith('.')) continue; // leftovers of an interrupted atomic write
      out.push({ name, kind: handle.kind });
    }
    return out.sort((a, b) => a.name.localeCompare(b.name));
  },
  async stat(/** @type {string} */ path) {
    return (await statOf(path)).stat;
  },
  async mkdir(/** @type {string} */ path) {
    await dirAt(splitPath(path), true);
  },
  async delete(/** @type {string} */ path) {
    const { parts, name } = parentAndName(path);
    closeUnder(splitPath(path).join('/'));
    forgetDirs(splitPath(path).join('/'));
    let dir;
    try {
      dir = await dirAt(parts, false);
      await dir.removeEntry(name, { recursive: true });
    } catch (err) {
      if (/** @type {Error} */ (err).name !== 'NotFoundError') throw err;
    }
  },
  async move(/** @type {string} */ from, /** @type {string} */ to) {
    const src = parentAndName(from);
    const dst = parentAndName(to);
    closeUnder(splitPath(from).join('/'));
    closeUnder(splitPath(to).join('/'));
    forgetDirs(splitPath(from).join('/'));
    forgetDirs(splitPath(to).join('/'));
    const srcDir = await dirAt(src.parts, false);
    const dstDir = await dirAt(dst.parts, true);
    let fileHandle;
    try {
      fileHandle = await srcDir.getFileHandle(src.name);
    } catch (err) {
      if (/** @type {Error} */ (err).name !== 'TypeMismatchError') throw err;
    }
    if (fileHandle) {
      await /** @type {any} */ (fileHandle).move(dstDir, dst.name); // FileSystemHandle.move is not in TypeScript's DOM lib yet
      return;
    }
    // Chromium has no move for directories: copy the tree, then remove the source.
    const source = await srcDir.getDirectoryHandle(src.name);
    await dstDir.removeEntry(dst.name, { recursive: true }).catch(() => {});
    await copyTree(source, await dstDir.getDirectoryHandle(dst.name, { create: true }));
    await srcDir.removeEntry(src.name, { recursive: true });
  },
};

/**
 * @param {FileSystemDirectoryHandle} from
 * @param {FileSystemDirectoryHandle} to
 */
async function copyTree(from, to) {
  for await (const [name, handle] of /** @type {any} */ (from).entries()) {
    // entries() is missing from TypeScript's DOM lib
    if (handle.kind === 'directory') {
      await copyTree(handle, await to.getDirectoryHandle(name, { create: true }));
    } else {
      // In slices: a whole file read at once cannot pass 2 GB (a model's), and would sit in memory.
      const file = await handle.getFile();
      const out = await (await to.getFileHandle(name, { create: true })).createSyncAccessHandle();
      try {
        out.truncate(0);
        for (let at = 0; at < file.size; at += COPY_SLICE_BYTES) {
          writeAll(out, new Uint8Array(await file.slice(at, Math.min(file.size, at + COPY_SLICE_BYTES)).arrayBuffer()), at);
        }
        out.flush();
      } finally {
        out.close();
      }
    }
  }
}

/**
 * Paths an operation touches. Operations on overlapping paths (equal, or one inside the
 * other) run one after another in arrival order, so appends never interleave and a read
 * never sees half a move; all others run concurrently — OPFS calls are round trips to the
 * browser process, and overlapping many of them is what makes git's bursts of small files fast.
 * @param {string} op @param {unknown[]} args
 */
function pathsOf(op, args) {
  const norm = (/** @type {unknown} */ p) => splitPath(String(p ?? '')).join('/');
  if (op === 'readFiles' || op === 'batch') return /** @type {{path: unknown}[]} */ (args[0]).map((r) => norm(r.path));
  return op === 'move' ? [norm(args[0]), norm(args[1])] : [norm(args[0])];
}

/** @param {string} a @param {string} b */
const overlaps = (a, b) => a === '' || b === '' || a === b || a.startsWith(b + '/') || b.startsWith(a + '/');

/** Operations that change nothing: they may overlap one another, never a change. */
const READS = new Set(['openFile', 'readBytes', 'readTail', 'readFiles', 'readText', 'list', 'stat', 'batch']);

/** @type {{paths: string[], read: boolean, done: Promise<void>}[]} operations not finished yet, in arrival order */
const active = [];

/**
 * Runs `fn`; when it finds nothing where a cached folder handle pointed, once more. A cached
 * directory handle goes stale when another tab deletes or moves that folder: this path's
 * folders are forgotten (only those, other operations keep theirs).
 * @template T @param {() => Promise<T>} fn @param {string[]} paths
 */
async function withFreshFolders(fn, paths) {
  try {
    return await fn();
  } catch (err) {
    if (/** @type {Error} */ (err).name !== 'NotFoundError' || !forgetAncestors(paths)) throw err;
    return fn();
  }
}

/** The buffers of a result's bytes (one read's, or each of readFiles'), moved rather than copied. @param {unknown} result */
function transferables(result) {
  const bytesIn = (/** @type {unknown} */ r) =>
    r instanceof Uint8Array ? r : /** @type {{bytes?: unknown} | null | undefined} */ (r)?.bytes;
  /** @type {ArrayBuffer[]} */
  const out = [];
  for (const r of Array.isArray(result) ? result : [result]) {
    const bytes = bytesIn(r);
    if (bytes instanceof Uint8Array && bytes.buffer instanceof ArrayBuffer && !out.includes(bytes.buffer)) out.push(bytes.buffer);
  }
  return out;
}

/** @param {number} id @param {string} op @param {unknown[]} args */
async function runOp(id, op, args) {
  /** @type {Closers} */
  const after = [];
  try {
    const fn = ops[op];
    if (!fn) throw new StorageError('io', `Unknown storage operation "${op}".`);
    const result = await withFreshFolders(() => (CLOSING_AFTER.has(op) ? fn(after, ...args) : fn(...args)), pathsOf(op, args));
    scope.postMessage({ id, ok: true, result }, transferables(result));
  } catch (err) {
    const e = toStorageError(err, op === 'readFiles' || op === 'batch' ? 'the files read together' : String(args[0]));
    scope.postMessage({ id, ok: false, error: { code: e.code, message: e.message } });
  } finally {
    for (const close of after) {
      try {
        close();
      } catch {
        // Closing a read-only handle has nothing to lose; the next one is closed all the same.
      }
    }
  }
}

scope.onmessage = (/** @type {MessageEvent<{id: number, op: string, args: unknown[]}>} */ event) => {
  const { id, op, args } = event.data;
  clearTimeout(idleTimer);
  let paths;
  try {
    paths = pathsOf(op, args);
  } catch {
    paths = [''];
  }
  const read = READS.has(op);
  const before = active.filter((a) => !(read && a.read) && a.paths.some((p) => paths.some((q) => overlaps(p, q)))).map((a) => a.done);
  const entry = { paths, read, done: Promise.resolve() };
  entry.done = Promise.all(before)
    .then(() => runOp(id, op, args))
    .finally(() => {
      active.splice(active.indexOf(entry), 1);
      if (active.length === 0) {
        clearTimeout(idleTimer);
        idleTimer = setTimeout(() => closeUnder(''), IDLE_CLOSE_MS);
      }
    });
  active.push(entry);
};
