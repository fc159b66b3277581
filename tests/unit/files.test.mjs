import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FilesController } from '../../web/app/files-controller.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { ScopedFileSystem } from '../../web/storage/scoped-fs.js';
import { workspaceFs } from '../../web/files/workspace-fs.js';

test('paths are confined to the workspace: plain, encoded, double-encoded and look-alike traversal refused', async () => {
  const root = new MemoryFileSystem();
  await root.write('clawser_workspaces/other/secret.txt', 'secret');
  const files = new FilesController({ fs: new ScopedFileSystem(root, 'clawser_workspaces/w') });
  const attacks = [
    '../other/secret.txt',
    'a/../../other/secret.txt',
    '%2e%2e/other/secret.txt',
    '%252e%252e/other',
    '．．/other',
    '..\\other',
    'a/\u2024\u2024/b',
    'C:/Windows',
    '~/x',
    '.git/config',
    '.conversations/c/events.jsonl',
    'a\u0000b',
    '...',
  ];
  for (const path of attacks) {
    await assert.rejects(files.open(path), { code: 'invalid_path' }, path);
    await assert.rejects(files.save(path, 'x'), { code: 'invalid_path' }, path);
    await assert.rejects(
      files.move('a.txt', path),
      (err) => /** @type {any} */ (err).code === 'invalid_path' || /** @type {any} */ (err).code === 'not_found',
      path,
    );
  }
  assert.equal(await root.readText('clawser_workspaces/other/secret.txt'), 'secret');
  // The storage layer itself refuses ".." whatever the caller.
  const scoped = new ScopedFileSystem(root, 'clawser_workspaces/w');
  await assert.rejects(scoped.readText('../other/secret.txt'), { code: 'invalid_path' });
  assert.throws(() => workspaceFs('../other', { fs: root }), /not a workspace id/);
});

test('files controller: create, save, move without overwriting, upload with replace, list hides internal folders', async () => {
  const fs = new ScopedFileSystem(new MemoryFileSystem(), 'w');
  const files = new FilesController({ fs });
  let changes = 0;
  files.subscribe(() => changes++);
  await files.create('notes/a.md', 'file');
  await assert.rejects(files.create('notes/a.md', 'file'), { code: 'exists' });
  await files.save('notes/a.md', '# A');
  await files.create('notes/b.md', 'file');
  await assert.rejects(files.move('notes/a.md', 'notes/b.md'), { code: 'exists' });
  await assert.rejects(files.move('notes', 'notes/inner'), { code: 'invalid_path' });
  assert.equal(await files.move('notes/a.md', 'archive/a.md'), 'archive/a.md');
  await fs.write('.conversations/c/events.jsonl', '{}');
  await fs.write('.git/HEAD', 'ref: refs/heads/main');
  assert.deepEqual(
    (await files.list('')).map((e) => `${e.kind}:${e.name}`),
    ['directory:archive', 'directory:notes'],
  );
  const up = await files.upload('notes', [
    { name: 'b.md', bytes: async () => new TextEncoder().encode('new b') },
    { name: '../x', bytes: async () => new Uint8Array() },
  ]);
  assert.deepEqual(up.written, []);
  assert.deepEqual(
    up.skipped.map((s) => s.name),
    ['b.md', '../x'],
  );
  assert.deepEqual(
    (await files.upload('notes', [{ name: 'b.md', bytes: async () => new TextEncoder().encode('new b') }], { replace: true })).written,
    ['notes/b.md'],
  );
  const opened = await files.open('notes/b.md');
  assert.equal(opened.kind === 'text' && opened.text, 'new b');
  await fs.write('img/p.png', new Uint8Array([137, 80, 78, 71]));
  assert.equal((await files.open('img/p.png')).kind, 'image');
  await fs.write('bin/x.dat', new Uint8Array([1, 0, 2]));
  assert.equal((await files.open('bin/x.dat')).kind, 'binary');
  await files.remove('archive');
  assert.equal(await fs.stat('archive/a.md'), null);
  assert.ok(changes >= 6);
});
