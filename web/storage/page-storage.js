/**
 * The agent's view of localStorage: every key except Clawser's own `clawser_*` ones, which
 * hold settings and encrypted keys and are never readable or writable by tools.
 */
export class PageStorage {
  /** @param {Storage} [storage] */
  constructor(storage) {
    this.storage = storage ?? globalThis.localStorage;
  }

  /** @param {string} key */
  static isReserved(key) {
    return key.toLowerCase().startsWith('clawser_');
  }

  /** @param {string} key */
  #check(key) {
    if (PageStorage.isReserved(key)) throw new Error(`Keys starting with "clawser_" belong to Clawser itself and cannot be used by tools.`);
  }

  /** @param {string} key */
  get(key) {
    this.#check(key);
    return this.storage.getItem(key);
  }

  /** @param {string} key @param {string} value */
  set(key, value) {
    this.#check(key);
    this.storage.setItem(key, value);
  }

  /** @param {string} key */
  remove(key) {
    this.#check(key);
    this.storage.removeItem(key);
  }

  keys() {
    /** @type {string[]} */
    const out = [];
    for (let i = 0; i < this.storage.length; i++) {
      const k = this.storage.key(i);
      if (k !== null && !PageStorage.isReserved(k)) out.push(k);
    }
    return out.sort();
  }
}
