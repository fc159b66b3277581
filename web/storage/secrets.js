import { createStore, get, update } from 'idb-keyval';
import { StorageError } from './errors.js';
import { toBase64, fromBase64 } from './base64.js';

/**
 * Encrypts small secrets (API keys) with AES-GCM under a non-extractable key that lives in
 * IndexedDB: the raw key bytes can never be read by script, so a dump of localStorage or an
 * export reveals only ciphertext.
 */
export class SecretBox {
  /** @type {Promise<CryptoKey> | null} */
  #key = null;
  #store;
  #lockName;

  /** @param {{dbName?: string}} [options] */
  constructor(options = {}) {
    const dbName = options.dbName ?? 'clawser_keys';
    this.#store = createStore(dbName, 'keys');
    this.#lockName = `${dbName}:master`;
  }

  /**
   * The master key, created once per origin: two tabs on a first run must not each make one (a
   * secret sealed under the key that lost would be unreadable). The key is looked up again and
   * created under a Web Lock, and stored only if still absent, in one IndexedDB transaction —
   * which alone keeps the first key where Web Locks are missing.
   */
  #masterKey() {
    const getOrCreate = async () => {
      const existing = /** @type {CryptoKey | undefined} */ (await get('master', this.#store));
      if (existing) return existing;
      const candidate = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
      await update('master', (/** @type {CryptoKey | undefined} */ old) => old ?? candidate, this.#store);
      return /** @type {CryptoKey} */ (await get('master', this.#store));
    };
    const locks = globalThis.navigator?.locks;
    this.#key ??= locks ? locks.request(this.#lockName, getOrCreate) : getOrCreate();
    return this.#key;
  }

  /** @param {string} plaintext @returns {Promise<string>} "v1:" + base64(iv ‖ ciphertext) */
  async encrypt(plaintext) {
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const ct = new Uint8Array(
      await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, await this.#masterKey(), new TextEncoder().encode(plaintext)),
    );
    const all = new Uint8Array(iv.length + ct.length);
    all.set(iv);
    all.set(ct, iv.length);
    return 'v1:' + toBase64(all);
  }

  /** @param {string} sealed @returns {Promise<string>} */
  async decrypt(sealed) {
    if (!sealed.startsWith('v1:')) throw new StorageError('io', 'A stored secret has an unknown format; enter the API key again.');
    const all = fromBase64(sealed.slice(3));
    try {
      const pt = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: all.slice(0, 12) }, await this.#masterKey(), all.slice(12));
      return new TextDecoder().decode(pt);
    } catch (err) {
      // Happens when site data was partly cleared (the key in IndexedDB is gone): the ciphertext is unrecoverable.
      throw new StorageError(
        'io',
        'A saved API key could not be decrypted (browser data was partly cleared). Enter the API key again in Settings.',
        { cause: err },
      );
    }
  }
}
