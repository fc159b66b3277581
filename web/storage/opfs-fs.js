/** @import { FileSystem, FileStat, DirEntry, StorageErrorCode } from './types.d.ts' */
import { StorageError } from './errors.js';

/**
 * FileSystem on the Origin Private File System. All handles live in one dedicated worker
 * (see opfs-worker.js); this class forwards calls to it.
 * @implements {FileSystem}
 */
export class OpfsFileSystem {
  /** @type {Worker | null} */
  #worker;
  #nextId = 1;
  /** @type {Map<number, {resolve: (v: any) => void, reject: (e: Error) => void}>} */ // results are typed per method below
  #pending = new Map();

  /** @param {{workerUrl?: string | URL}} [options] */
  constructor(options = {}) {
    if (!OpfsFileSystem.isAvailable()) {
      throw new StorageError(
        'unavailable',
        'Browser storage (OPFS) is not available here. Open Clawser over https or http://localhost in a current Chrome, Edge or Firefox.',
      );
    }
    this.workerUrl = options.workerUrl ?? new URL('./opfs-worker.js', import.meta.url);
    this.#worker = this.#spawn();
  }

  /**
   * Starts the storage worker. If it dies (crash, out of memory), waiting calls fail with a
   * clear error and the next call starts a fresh worker instead of waiting forever.
   */
  #spawn() {
    const worker = new Worker(this.workerUrl, { type: 'module', name: 'clawser-opfs' });
    worker.onmessage = (event) => {
      const { id, ok, result, error } = event.data;
      const p = this.#pending.get(id);
      if (!p) return;
      this.#pending.delete(id);
      if (ok) p.resolve(result);
      else p.reject(new StorageError(/** @type {StorageErrorCode} */ (error.code), error.message));
    };
    worker.onerror = (event) => {
      const err = new StorageError('io', `The storage worker failed: ${event.message || 'unknown error'}. Try again.`);
      for (const p of this.#pending.values()) p.reject(err);
      this.#pending.clear();
      worker.terminate();
      if (this.#worker === worker) this.#worker = null;
    };
    return worker;
  }

  static isAvailable() {
    return typeof navigator !== 'undefined' && !!navigator.storage?.getDirectory && globalThis.isSecureContext !== false;
  }

  /**
   * @param {string} op
   * @param {unknown[]} args
   * @param {Transferable[]} [transfer]
   * @returns {Promise<any>} the worker's result, typed by each public method
   */
  #call(op, args, transfer = []) {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker ??= this.#spawn();
      this.#worker.postMessage({ id, op, args }, transfer);
    });
  }

  /** @param {string} path @returns {Promise<string>} */
  readText(path) {
    return this.#call('readText', [path]);
  }
  /** @param {string} path @returns {Promise<Blob>} */
  openFile(path) {
    return this.#call('openFile', [path]);
  }
  /** @param {string} path @param {{start?: number, end?: number}} [range] @returns {Promise<Uint8Array>} */
  readBytes(path, range) {
    return this.#call('readBytes', [path, range]);
  }
  /** @param {string} path @param {number} maxBytes @returns {Promise<{bytes: Uint8Array, size: number}>} */
  readTail(path, maxBytes) {
    return this.#call('readTail', [path, maxBytes]);
  }
  /** @param {import('./types.d.ts').ReadRequest[]} requests @returns {Promise<(import('./types.d.ts').FileRead | null)[]>} */
  readFiles(requests) {
    return this.#call('readFiles', [requests]);
  }
  /**
   * @param {string} path
   * @param {string | Uint8Array} data
   * @param {import('./types.d.ts').WriteOptions} [options]
   * @returns {Promise<void>}
   */
  write(path, data, options) {
    return this.#call('write', [path, data, options]);
  }
  /** @param {string} path @param {string | Uint8Array} data @returns {Promise<void>} */
  append(path, data) {
    return this.#call('append', [path, data]);
  }
  /** @param {string} path @param {number} size @returns {Promise<void>} */
  truncate(path, size) {
    return this.#call('truncate', [path, size]);
  }
  /** @param {string} path @returns {Promise<DirEntry[]>} */
  list(path) {
    return this.#call('list', [path]);
  }
  /** @param {string} path @returns {Promise<FileStat | null>} */
  stat(path) {
    return this.#call('stat', [path]);
  }
  /** @param {string} path @returns {Promise<void>} */
  mkdir(path) {
    return this.#call('mkdir', [path]);
  }
  /** @param {string} path @returns {Promise<void>} */
  delete(path) {
    return this.#call('delete', [path]);
  }
  /** @param {string} from @param {string} to @returns {Promise<void>} */
  move(from, to) {
    return this.#call('move', [from, to]);
  }

  /**
   * Stops the storage worker, which releases every file it holds open (another tab's restore
   * needs them). Calls still waiting fail; the next call starts a fresh worker.
   */
  terminate() {
    this.#worker?.terminate();
    this.#worker = null;
    const err = new StorageError('io', 'The storage worker was stopped before this finished. Try again.');
    for (const p of this.#pending.values()) p.reject(err);
    this.#pending.clear();
  }
}
