/** @import { FileSystem } from './types.d.ts' */
/** @import { DamageSink } from './damage.js' */
import { readTextIfExists } from './file-helpers.js';
import { readJson, DamagedFileError, SET_ASIDE_HINT, setAsideFile, ignoreDamage } from './damage.js';

/** Runs `fn` holding the named lock (a cross-tab Web Lock, or an in-process one). */
/** @typedef {<T>(name: string, fn: () => Promise<T>) => Promise<T>} LockFn */

/**
 * A JSON file that several tabs change (the goals, the scheduled jobs). Every change re-reads
 * the file under a cross-tab lock — another tab may have changed it since this tab last read
 * it — applies the change to what is stored now, writes it atomically (the file system's
 * write replaces the file whole or not at all) and then tells the other tabs. A change that
 * throws writes nothing.
 *
 * Given a `schema`, a damaged file (cut short, garbage, the wrong shape) is reported to
 * `onDamage` — with `what` it is and a way to set it aside — and read as an error
 * (`DamagedFileError`, code `damaged`): `readOr()` gives the empty value instead, and every
 * change is refused, so nothing overwrites it until the person sets it aside.
 * @template T
 */
export class LockedJsonFile {
  /**
   * @param {{fs: FileSystem, path: string, parse?: (text: string) => T, schema?: import('zod').ZodType<T>, empty: () => T, lock: LockFn,
   *   name: string,
   *   serialize?: (value: T) => string, onWritten?: () => void, what?: string, onDamage?: DamageSink, onSetAside?: () => void |
   *   Promise<unknown>}} options
   *   parse: text → value, throwing an error the user can act on when the file is damaged (or `schema`:
   *   checked, damage reported); empty: the value when the file does not exist; name: the lock's name;
   *   onWritten: after a change was written and the lock released (e.g. tell the other tabs);
   *   what: the file for people ("The goals of this workspace (.goals/goals.json)");
   *   onSetAside: after the damaged file was set aside (the store reads it again)
   */
  constructor(options) {
    this.fs = options.fs;
    this.path = options.path;
    const schema = options.schema;
    this.what = options.what ?? options.path;
    this.onDamage = options.onDamage ?? ignoreDamage;
    this.onSetAside = options.onSetAside;
    /** Whether `text` reads (no report). @type {(text: string) => boolean} */
    this.readable = (text) => {
      if (schema) return readJson(text, schema).ok;
      try {
        this.parse(text);
        return true;
      } catch {
        return false;
      }
    };
    this.parse =
      options.parse ??
      ((text) => {
        if (!schema) return /** @type {T} */ (JSON.parse(text));
        const checked = readJson(text, schema);
        if (checked.ok) return checked.value;
        this.onDamage({ what: this.what, problem: checked.problem, path: this.path, setAside: () => this.setAside() });
        throw new DamagedFileError(`${this.what} is damaged (${checked.problem}), so this was not changed. ${SET_ASIDE_HINT}`, {
          what: this.what,
          problem: checked.problem,
        });
      });
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
   * The value as stored now, or the empty value when the file is damaged (reported, kept as it
   * is): for readers that go on without it. @returns {Promise<T>}
   */
  async readOr() {
    return this.read().catch((err) => {
      if (/** @type {{code?: string}} */ (err).code === 'damaged') return this.empty();
      throw err;
    });
  }

  /**
   * Sets a damaged file aside under the lock (renamed next to it, kept) — unless it was set aside
   * or repaired meanwhile — and tells `onSetAside`. Resolves to where it went (or its path, if
   * there was nothing to set aside).
   */
  async setAside() {
    const to = await this.lock(this.name, async () => {
      const text = await readTextIfExists(this.fs, this.path);
      // Readable now: another tab set it aside and wrote a new one.
      if (text === null || this.readable(text)) return this.path;
      return setAsideFile(this.fs, this.path);
    });
    this.onWritten?.();
    await this.onSetAside?.();
    return to;
  }

  /**
   * Re-reads under the lock, lets `fn` change the value in place (or return a new one), and
   * writes when `fn` says it changed. `afterWrite` runs after the write, still under the lock (files
   * derived from the value, which must not interleave with another tab's).
   * @template R
   * @param {(value: T) => Promise<{result: R, changed: boolean, value?: T, afterWrite?: () => Promise<void>}> | {result: R,
   *   changed: boolean, value?: T, afterWrite?: () => Promise<void>}} fn
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
