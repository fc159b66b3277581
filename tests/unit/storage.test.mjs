import { test } from 'node:test';
import assert from 'node:assert/strict';
import 'fake-indexeddb/auto';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { LocalConfig } from '../../web/storage/local-config.js';
import { SecretBox } from '../../web/storage/secrets.js';

test('memory file system: write, append, read ranges, list, stat, move, delete', async () => {
  const fs = new MemoryFileSystem();
  await fs.write('a/b/c.txt', 'hello');
  await fs.append('a/b/c.txt', ' world');
  assert.equal(await fs.readText('a/b/c.txt'), 'hello world');
  assert.equal(new TextDecoder().decode(await fs.readBytes('a/b/c.txt', { start: 6 })), 'world');
  const st = await fs.stat('a/b/c.txt');
  assert.deepEqual([st?.kind, st?.size, typeof st?.mtimeMs], ['file', 11, 'number']);
  assert.deepEqual(await fs.stat('a/b'), { kind: 'directory', size: 0 });
  assert.equal(await fs.stat('a/zzz'), null);
  await fs.append('a/new.txt', 'x');
  assert.deepEqual(await fs.list('a'), [
    { name: 'b', kind: 'directory' },
    { name: 'new.txt', kind: 'file' },
  ]);
  await fs.move('a/b', 'd/e');
  assert.equal(await fs.readText('d/e/c.txt'), 'hello world');
  await fs.write('x.txt', 'old');
  await fs.write('y.txt', 'new');
  await fs.move('y.txt', 'x.txt');
  assert.equal(await fs.readText('x.txt'), 'new');
  await fs.truncate('x.txt', 1);
  assert.equal(await fs.readText('x.txt'), 'n');
  await fs.delete('d');
  assert.equal(await fs.stat('d/e/c.txt'), null);
  await fs.delete('missing/fine');
  await assert.rejects(fs.readText('nope'), (/** @type {any} */ e) => e.code === 'not_found');
  await assert.rejects(fs.write('../escape', 'x'), (/** @type {any} */ e) => e.code === 'invalid_path');
  await assert.rejects(fs.write('a/./b', 'x'), (/** @type {any} */ e) => e.code === 'invalid_path');
});

test('LocalConfig only accepts clawser_ keys and turns quota errors into a clear message', () => {
  /** @type {Map<string, string>} */
  const m = new Map();
  let full = false;
  const storage = /** @type {Storage} */ ({
    get length() {
      return m.size;
    },
    key: (i) => [...m.keys()][i] ?? null,
    getItem: (k) => m.get(k) ?? null,
    setItem: (k, v) => {
      if (full) throw Object.assign(new Error('quota'), { name: 'QuotaExceededError' });
      m.set(k, v);
    },
    removeItem: (k) => void m.delete(k),
    clear: () => m.clear(),
  });
  const cfg = new LocalConfig(storage);
  cfg.set('clawser_x', { a: 1 });
  assert.deepEqual(cfg.get('clawser_x', null), { a: 1 });
  assert.equal(cfg.get('clawser_missing', 7), 7);
  assert.throws(() => cfg.set('other', 1), /must start with/);
  full = true;
  assert.throws(
    () => cfg.set('clawser_y', 1),
    (/** @type {any} */ e) => e.code === 'quota' && /storage is full/.test(e.message),
  );
  assert.deepEqual(cfg.keys('clawser_'), ['clawser_x']);
});

test('SecretBox encrypts with a non-extractable key and round-trips', async () => {
  const box = new SecretBox({ dbName: 'test_keys_1' });
  const sealed = await box.encrypt('sk-secret-value');
  assert.match(sealed, /^v1:/);
  assert.doesNotMatch(sealed, /sk-secret-value/);
  assert.equal(await box.decrypt(sealed), 'sk-secret-value');
  assert.notEqual(await box.encrypt('sk-secret-value'), sealed, 'fresh IV each time');
  const again = new SecretBox({ dbName: 'test_keys_1' });
  assert.equal(await again.decrypt(sealed), 'sk-secret-value', 'key persisted in IndexedDB');
  const other = new SecretBox({ dbName: 'test_keys_2' });
  await assert.rejects(other.decrypt(sealed), /could not be decrypted/);
  const { get, createStore } = await import('idb-keyval');
  const key = /** @type {CryptoKey} */ (await get('master', createStore('test_keys_1', 'keys')));
  assert.equal(key.extractable, false);
  await assert.rejects(crypto.subtle.exportKey('raw', key));
});
