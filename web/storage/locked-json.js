/** @import { FileSystem } from './types.d.ts' */
import { readTextIfExists } from './index.js';

/** Runs `fn` holding the named lock (a cross-tab Web Lock, or an in-process one). */
/** @typedef {<T>(name: string, fn: () => Promise<T>) => Promise<T>} LockFn */

/**
 * A JSON file that several tabs change (the goals, the scheduled jobs). Every change re-reads
 * the file under a cross-tab lock — another tab may have changed it since this tab last read
 * it — applies the change to what is stored now, writes it atomically (the file system's
 * write replaces the file whole or not at all) and then tells the other tabs. A change that
 * throws writes nothing.
 * @template T
 */
export class LockedJsonFile {
  /**
   * @param {{fs: FileSystem, path: string, parse: (text: string) => T, empty: () => T, lock: LockFn, name: string,
   *   serialize?: (value: T) => string, onWritten?: () => void}} options
   *   parse: text → value, throwing an error the user can act on when the file is damaged;
   *   empty: the value when the file does not exist; name: the lock's name;
   *   onWritten: after a change was written and the lock released (e.g. tell the other tabs)
   */
  constructor(options) {
    this.fs = options.fs;
    this.path = options.path;
    this.parse = options.parse;
    this.empty = options.empty;
    this.lock = options.lock;
    this.name = options.name;
    this.serialize = options.serialize ?? ((value) => JSON.stringify(value, null, 2));
    this.onWritten = options.onWritten;
  }

  /** The value as stored now (not locked: for reading only). @returns {Promise<T>} */
  async read() {
    const text = await readTextIfExists(this.fs, this.path);
    return text === null ? this.empty() : this.parse(text);
  }

  /**
   * Re-reads under the lock, lets `fn` change the value in place (or return a new one), and
   * writes when `fn` says it changed. `afterWrite` runs after the write, still under the lock (files
   * derived from the value, which must not interleave with another tab's).
   * @template R
   * @param {(value: T) => Promise<{result: R, changed: boolean, value?: T, afterWrite?: () => Promise<void>}> | {result: R, changed: boolean, value?: T, afterWrite?: () => Promise<void>}} fn
   * @returns {Promise<{result: R, changed: boolean, value: T}>}
   */
  async update(fn) {
    const out = await this.lock(this.name, async () => {
      const current = await this.read();
      const r = await fn(current);
      const value = r.value ?? current;
      if (r.changed) {
        await this.fs.write(this.path, this.serialize(value));
        await r.afterWrite?.();
      }
      return { result: r.result, changed: r.changed, value };
    });
    if (out.changed) this.onWritten?.();
    return out;
  }
}
