// Ed25519 keys for wsh, through WebCrypto only (browser and Node ≥ 20): the private key is made
// non-extractable, so no script — not even this one — can read it out; it can only sign. A key
// pair is a CryptoKeyPair, which IndexedDB stores as it is (structured clone keeps it
// non-extractable). Public keys travel as OpenSSH `ssh-ed25519` lines, so the line a user pastes
// into the server's keys file is the same shape as an `authorized_keys` line.
import { WshError } from './errors.js';

const ALGORITHM = 'Ed25519';
const KEY_TYPE = 'ssh-ed25519';
const encoder = new TextEncoder();

/**
 * A new Ed25519 key pair; the private key cannot be exported. With `store`, it is saved under
 * `name` (in the browser, the default store is IndexedDB).
 * @param {{name?: string, store?: KeyStore | null}} [options]
 * @returns {Promise<CryptoKeyPair>}
 */
export async function generateKey({ name, store } = {}) {
  const pair = /** @type {CryptoKeyPair} */ (await crypto.subtle.generateKey({ name: ALGORITHM }, false, ['sign', 'verify']));
  const target = store === undefined ? defaultKeyStore() : store;
  if (name !== undefined) {
    if (!target) throw new WshError('io_error', 'No key store here: pass {store} (MemoryKeyStore in Node) to keep the key.');
    await target.put(name, pair);
  }
  return pair;
}

/** The 32 raw bytes of a public key. @param {CryptoKeyPair | CryptoKey} key */
export async function rawPublicKey(key) {
  const pub = 'publicKey' in key ? key.publicKey : key;
  return new Uint8Array(await crypto.subtle.exportKey('raw', pub));
}

/**
 * The public key as an `authorized_keys`-style line: `ssh-ed25519 <base64 of the SSH wire blob> <comment>`.
 * @param {CryptoKeyPair | CryptoKey} key
 * @param {string} [comment] no line breaks
 */
export async function publicKeyLine(key, comment = 'wsh') {
  const blob = sshBlob(await rawPublicKey(key));
  const clean = comment.replace(/[\r\n]+/g, ' ').trim();
  return `${KEY_TYPE} ${toBase64(blob)}${clean ? ` ${clean}` : ''}`;
}

/** The base64 SSH blob alone (what the `auth` frame carries). @param {CryptoKeyPair | CryptoKey} key */
export async function publicKeyBlob(key) {
  return toBase64(sshBlob(await rawPublicKey(key)));
}

/**
 * Parses `ssh-ed25519 <base64> [comment]` (the key type and blob only; options are the keys file's business).
 * @param {string} line
 * @returns {{raw: Uint8Array, blob: string, comment: string}}
 */
export function parsePublicKeyLine(line) {
  const m = /^\s*ssh-ed25519\s+([A-Za-z0-9+/]+={0,2})(?:\s+(.*))?$/.exec(line);
  if (!m) throw new WshError('auth_failed', 'Not an ssh-ed25519 public key line (expected "ssh-ed25519 AAAA… comment").');
  return { raw: rawFromBlob(m[1]), blob: m[1], comment: (m[2] ?? '').trim() };
}

/** The raw 32 bytes inside a base64 SSH blob; throws `auth_failed` when it is not an Ed25519 blob. @param {string} blob */
export function rawFromBlob(blob) {
  /** @type {Uint8Array} */
  let bytes;
  try {
    bytes = fromBase64(blob);
  } catch {
    throw new WshError('auth_failed', 'The public key is not valid base64.');
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const typeLength = bytes.byteLength >= 4 ? view.getUint32(0) : -1;
  const type = typeLength === KEY_TYPE.length ? new TextDecoder().decode(bytes.subarray(4, 4 + typeLength)) : '';
  if (type !== KEY_TYPE || bytes.byteLength !== 4 + typeLength + 4 + 32 || view.getUint32(4 + typeLength) !== 32)
    throw new WshError('auth_failed', 'The public key is not an ssh-ed25519 key.');
  return bytes.slice(4 + typeLength + 4);
}

/** Signs bytes with the private key. @param {CryptoKeyPair} pair @param {Uint8Array} data */
export async function sign(pair, data) {
  return new Uint8Array(await crypto.subtle.sign(ALGORITHM, pair.privateKey, /** @type {Uint8Array<ArrayBuffer>} */ (data)));
}

/**
 * Whether `signature` is the raw Ed25519 key's signature of `data` (false for any malformed input).
 * @param {Uint8Array} raw
 * @param {Uint8Array} signature
 * @param {Uint8Array} data
 */
export async function verify(raw, signature, data) {
  try {
    const key = await crypto.subtle.importKey('raw', /** @type {Uint8Array<ArrayBuffer>} */ (raw), { name: ALGORITHM }, false, ['verify']);
    return await crypto.subtle.verify(
      ALGORITHM,
      key,
      /** @type {Uint8Array<ArrayBuffer>} */ (signature),
      /** @type {Uint8Array<ArrayBuffer>} */ (data),
    );
  } catch {
    return false;
  }
}

/** @param {Uint8Array} raw */
function sshBlob(raw) {
  const type = encoder.encode(KEY_TYPE);
  const out = new Uint8Array(4 + type.byteLength + 4 + raw.byteLength);
  const view = new DataView(out.buffer);
  view.setUint32(0, type.byteLength);
  out.set(type, 4);
  view.setUint32(4 + type.byteLength, raw.byteLength);
  out.set(raw, 8 + type.byteLength);
  return out;
}

/** @param {Uint8Array} bytes */
export function toBase64(bytes) {
  let text = '';
  for (let i = 0; i < bytes.byteLength; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

/** @param {string} text */
export function fromBase64(text) {
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/**
 * Where key pairs are kept, by name.
 * @typedef {object} KeyStore
 * @property {(name: string) => Promise<CryptoKeyPair | undefined>} get
 * @property {(name: string, pair: CryptoKeyPair) => Promise<void>} put
 * @property {(name: string) => Promise<void>} delete
 * @property {() => Promise<string[]>} list
 */

/** Keys kept in memory (Node, tests): gone when the process ends. @implements {KeyStore} */
export class MemoryKeyStore {
  /** @type {Map<string, CryptoKeyPair>} */ #keys = new Map();
  /** @param {string} name */
  async get(name) {
    return this.#keys.get(name);
  }
  /** @param {string} name @param {CryptoKeyPair} pair */
  async put(name, pair) {
    this.#keys.set(name, pair);
  }
  /** @param {string} name */
  async delete(name) {
    this.#keys.delete(name);
  }
  async list() {
    return [...this.#keys.keys()].sort();
  }
}

/**
 * Keys kept in IndexedDB (one database, one object store), as CryptoKeyPairs: the private key
 * stays non-extractable across reloads.
 * @implements {KeyStore}
 */
export class IndexedDbKeyStore {
  /** @type {Promise<IDBDatabase> | undefined} */ #db;
  /** @param {string} [database] */
  constructor(database = 'wsh-keys') {
    this.database = database;
  }

  /** @returns {Promise<IDBDatabase>} */
  #open() {
    this.#db ??= new Promise((resolve, reject) => {
      const request = indexedDB.open(this.database, 1);
      request.onupgradeneeded = () => request.result.createObjectStore('keys');
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(new WshError('io_error', `Could not open the key store: ${request.error?.message}`));
    });
    return this.#db;
  }

  /**
   * @template T
   * @param {IDBTransactionMode} mode
   * @param {(store: IDBObjectStore) => IDBRequest<T>} action
   * @returns {Promise<T>}
   */
  async #run(mode, action) {
    const db = await this.#open();
    return new Promise((resolve, reject) => {
      const tx = db.transaction('keys', mode);
      const request = action(tx.objectStore('keys'));
      tx.oncomplete = () => resolve(request.result);
      tx.onerror = () => reject(new WshError('io_error', `The key store failed: ${tx.error?.message}`));
    });
  }

  /** @param {string} name */
  async get(name) {
    return /** @type {CryptoKeyPair | undefined} */ (await this.#run('readonly', (s) => s.get(name)));
  }
  /** @param {string} name @param {CryptoKeyPair} pair */
  async put(name, pair) {
    await this.#run('readwrite', (s) => s.put(pair, name));
  }
  /** @param {string} name */
  async delete(name) {
    await this.#run('readwrite', (s) => s.delete(name));
  }
  async list() {
    return (await this.#run('readonly', (s) => s.getAllKeys())).map(String).sort();
  }
}

/** @type {KeyStore | null | undefined} */
let defaultStore;
/** IndexedDB where there is one (the browser), else none. */
export function defaultKeyStore() {
  if (defaultStore === undefined) defaultStore = typeof indexedDB === 'undefined' ? null : new IndexedDbKeyStore();
  return defaultStore;
}

/** A saved key pair by name, or undefined. @param {string} name @param {{store?: KeyStore | null}} [options] */
export async function loadKey(name, { store } = {}) {
  const target = store === undefined ? defaultKeyStore() : store;
  return target ? target.get(name) : undefined;
}
