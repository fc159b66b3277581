/** @import { ConfigStore } from './types.d.ts' */
import { QUOTA_MESSAGE, StorageError, isQuotaError } from './errors.js';

const PREFIX = 'clawser_';

/**
 * The one module that touches localStorage: small JSON config under `clawser_*` keys.
 * A full quota surfaces as a StorageError('quota'); nothing is silently dropped.
 * The app keeps its settings in OPFS (DurableConfig: Chromium writes localStorage to disk
 * lazily, so a crash loses its last changes); localStorage is that store's cache for the first
 * view, and where versions before it kept everything.
 * @implements {ConfigStore}
 */
export class LocalConfig {
  /** @type {Storage} */
  #storage;

  /** @param {Storage} [storage] defaults to window.localStorage */
  constructor(storage) {
    const s = storage ?? globalThis.localStorage;
    if (!s) throw new StorageError('unavailable', 'localStorage is not available in this browser context.');
    this.#storage = s;
  }

  /** @param {string} key */
  #check(key) {
    if (!key.startsWith(PREFIX)) throw new StorageError('invalid_path', `Config keys must start with "${PREFIX}" (got "${key}").`);
    return key;
  }

  /**
   * Parsed JSON value, or `fallback` when missing or unreadable.
   * @template T
   * @param {string} key
   * @param {T} fallback
   * @returns {unknown | T}
   */
  get(key, fallback) {
    const raw = this.#storage.getItem(this.#check(key));
    if (raw === null) return fallback;
    try {
      return JSON.parse(raw);
    } catch {
      return fallback;
    }
  }

  /** @param {string} key @param {unknown} value */
  set(key, value) {
    try {
      this.#storage.setItem(this.#check(key), JSON.stringify(value));
    } catch (err) {
      if (isQuotaError(err)) throw new StorageError('quota', QUOTA_MESSAGE, { cause: err });
      throw err;
    }
  }

  /** @param {string} key */
  remove(key) {
    this.#storage.removeItem(this.#check(key));
  }

  /** Every `clawser_*` entry as [key, raw JSON text] (what a backup stores). @returns {Array<[string, string]>} */
  entries() {
    /** @type {Array<[string, string]>} */
    const out = [];
    for (let i = 0; i < this.#storage.length; i++) {
      const key = this.#storage.key(i);
      const raw = key?.startsWith(PREFIX) ? this.#storage.getItem(key) : null;
      if (key && raw !== null) out.push([key, raw]);
    }
    return out;
  }

  /** The raw text stored under a key, or null. @param {string} key */
  getRaw(key) {
    return this.#storage.getItem(this.#check(key));
  }

  /** Writes raw JSON text as it is (a restore). @param {string} key @param {string} raw */
  setRaw(key, raw) {
    try {
      this.#storage.setItem(this.#check(key), raw);
    } catch (err) {
      if (isQuotaError(err)) throw new StorageError('quota', QUOTA_MESSAGE, { cause: err });
      throw err;
    }
  }

  /**
   * Changes a value from what it is (undefined: missing, or returned to remove it).
   * @param {string} key
   * @param {(value: unknown) => unknown} fn
   */
  update(key, fn) {
    const next = fn(this.get(key, undefined));
    if (next === undefined) this.remove(key);
    else this.set(key, next);
  }

  /** Written as set (localStorage has no later write to wait for). @returns {Promise<void>} */
  flush() {
    return Promise.resolve();
  }

  /** @param {string} prefix @returns {string[]} */
  keys(prefix) {
    this.#check(prefix);
    /** @type {string[]} */
    const out = [];
    for (let i = 0; i < this.#storage.length; i++) {
      const k = this.#storage.key(i);
      if (k && k.startsWith(prefix)) out.push(k);
    }
    return out;
  }
}
