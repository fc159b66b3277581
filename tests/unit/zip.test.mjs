import { test } from 'node:test';
import assert from 'node:assert/strict';
import { zipSync, strToU8 } from 'fflate';
import { importZip, readZip, zipFolder, unsafeEntryReason, ZipError } from '../../web/files/zip.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';

test('a folder round-trips through ZIP; internal folders stay out', async () => {
  const fs = new MemoryFileSystem();
  await fs.write('ws/notes/a.md', '# A');
  await fs.write('ws/b.bin', Uint8Array.of(0, 1, 2, 255));
  await fs.write('ws/.conversations/c1/events.jsonl', 'secret log');
  const zip = await zipFolder(fs, 'ws');
  const out = new MemoryFileSystem();
  const r = await importZip(out, 'restored', zip);
  assert.deepEqual(r.written.sort(), ['b.bin', 'notes/a.md']);
  assert.deepEqual(r.refused, []);
  assert.equal(await out.readText('restored/notes/a.md'), '# A');
  assert.deepEqual([...(await out.readBytes('restored/b.bin'))], [0, 1, 2, 255]);
});

test('entries that escape the target are refused and reported, the rest imported', async () => {
  const zip = zipSync({
    'ok/fine.txt': strToU8('fine'),
    '../escape.txt': strToU8('x'),
    'a/../../escape2.txt': strToU8('x'),
    '/etc/passwd': strToU8('x'),
    'C:/Windows/evil.txt': strToU8('x'),
    'a\\..\\b.txt': strToU8('x'),
    '.conversations/c/events.jsonl': strToU8('x'),
    '\uFF0E\uFF0E/fullwidth.txt': strToU8('x'),
  });
  const fs = new MemoryFileSystem();
  const r = await importZip(fs, 'target', zip);
  assert.deepEqual(r.written, ['ok/fine.txt']);
  assert.deepEqual(
    r.refused.map((x) => x.name).sort(),
    [
      '../escape.txt',
      '.conversations/c/events.jsonl',
      '/etc/passwd',
      'C:/Windows/evil.txt',
      'a/../../escape2.txt',
      'a\\..\\b.txt',
      '\uFF0E\uFF0E/fullwidth.txt',
    ].sort(),
  );
  assert.equal(await fs.stat('escape.txt'), null);
  assert.deepEqual(await fs.list(''), [{ name: 'target', kind: 'directory' }]);
  for (const bad of ['', '/', 'a/./b/../../..']) assert.ok(unsafeEntryReason(bad), bad);
});

test('zip bombs and too many entries are rejected before anything is written', async () => {
  const bomb = zipSync({ 'zeros.bin': new Uint8Array(30 * 1024 * 1024) }, { level: 9 });
  assert.ok(bomb.length < 100_000, 'highly compressed');
  const fs = new MemoryFileSystem();
  await assert.rejects(
    importZip(fs, 't', bomb, { maxTotalBytes: 10 * 1024 * 1024 }),
    (/** @type {any} */ e) => e instanceof ZipError && e.code === 'too_large' && /nothing was extracted/.test(e.message),
  );
  await assert.rejects(
    importZip(fs, 't', bomb, { maxEntryBytes: 1024 * 1024 }),
    (/** @type {any} */ e) => e.code === 'too_large' && /zeros\.bin/.test(e.message),
  );
  /** @type {Record<string, Uint8Array>} */
  const many = {};
  for (let i = 0; i < 50; i++) many[`f${i}.txt`] = strToU8('x');
  await assert.rejects(importZip(fs, 't', zipSync(many), { maxEntries: 20 }), (/** @type {any} */ e) => e.code === 'too_many_entries');
  assert.deepEqual(await fs.list(''), [], 'nothing written');
  assert.throws(
    () => readZip(strToU8('not a zip at all')),
    (/** @type {any} */ e) => e.code === 'corrupt',
  );
});
