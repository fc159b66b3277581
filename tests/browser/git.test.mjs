// Git on OPFS in the real browser (vendored isomorphic-git), verified by the real git CLI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { openFixture } from './fixture.mjs';

test('commit 100 files in OPFS, edit and delete, and the real git accepts the repository', async () => {
  const fx = await openFixture({ page: 'home' });
  try {
    const { page } = fx;
    const dir = await fx.tempDir('clawser-opfs-git-');
    const result = await page.evaluate(async () => {
      const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
      const { ScopedFileSystem } = await import('/web/storage/scoped-fs.js');
      const { WorkspaceGit } = await import('/web/git/git.js');
      const opfs = new OpfsFileSystem();
      const ws = new ScopedFileSystem(opfs, 'clawser_workspaces/gittest');
      for (let i = 0; i < 100; i++) await ws.write(`src/file${i}.txt`, `content of file ${i}\n`);
      await ws.write('.conversations/c/events.jsonl', 'internal');
      const repo = new WorkspaceGit(ws);
      const t0 = performance.now();
      await repo.commitAll({ message: 'Add 100 files', author: { name: 'Test', email: 'test@example.com' } });
      const commitMs = performance.now() - t0;
      await ws.write('src/file1.txt', 'changed\n');
      await ws.delete('src/file2.txt');
      const status = (await repo.status()).filter((s) => s.state !== 'unchanged');
      await repo.commitAll({ message: 'Edit one, delete one', author: { name: 'Test', email: 'test@example.com' } });
      /** @type {Record<string, string>} */
      const files = {};
      /** @param {string} path */
      const walk = async (path) => {
        for (const e of await ws.list(path)) {
          const p = path ? `${path}/${e.name}` : e.name;
          if (e.kind === 'directory') await walk(p);
          else {
            const bytes = await ws.readBytes(p);
            let s = '';
            for (const b of bytes) s += String.fromCharCode(b);
            files[p] = btoa(s);
          }
        }
      };
      await walk('');
      return { commitMs, status, files, log: (await repo.log()).map((c) => c.message) };
    });
    assert.deepEqual(result.status.map((s) => [s.path, s.state]).sort(), [
      ['src/file1.txt', 'modified'],
      ['src/file2.txt', 'deleted'],
    ]);
    assert.deepEqual(result.log, ['Edit one, delete one', 'Add 100 files']);
    for (const [path, b64] of Object.entries(result.files)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), Buffer.from(b64, 'base64'));
    }
    const git = (/** @type {string[]} */ ...args) =>
      execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: dir } });
    git('fsck', '--full', '--strict');
    assert.equal(git('log', '--format=%s|%an').trim(), 'Edit one, delete one|Test\nAdd 100 files|Test');
    assert.equal(git('ls-tree', '-r', '--name-only', 'HEAD').trim().split('\n').length, 99);
    assert.equal(git('show', 'HEAD:src/file1.txt'), 'changed\n');
    assert.ok(result.commitMs > 0);
  } finally {
    await fx.close();
  }
});
