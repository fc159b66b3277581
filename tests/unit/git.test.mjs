import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { WorkspaceGit } from '../../web/git/git.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { ScopedFileSystem } from '../../web/storage/scoped-fs.js';

/** Copies a FileSystem folder to disk. @param {import('../../web/storage/types.d.ts').FileSystem} fs @param {string} from @param {string} to */
async function copyOut(fs, from, to) {
  for (const e of await fs.list(from)) {
    const src = from ? `${from}/${e.name}` : e.name;
    const dst = join(to, e.name);
    if (e.kind === 'directory') {
      await mkdir(dst, { recursive: true });
      await copyOut(fs, src, dst);
    } else {
      await mkdir(dirname(dst), { recursive: true });
      await writeFile(dst, await fs.readBytes(src));
    }
  }
}

test('git on the workspace files: commit, status (same-size edits too), delete, log; the real git agrees', async () => {
  const mem = new MemoryFileSystem();
  const ws = new ScopedFileSystem(mem, 'clawser_workspaces/w');
  await ws.write('notes/a.md', 'alpha');
  await ws.write('b.txt', 'bravo');
  await ws.write('.conversations/c1/events.jsonl', '{"internal":true}');
  const repo = new WorkspaceGit(ws);
  assert.equal(await repo.isRepo(), false);
  const first = await repo.commitAll({ message: 'First commit' });
  assert.match(first ?? '', /^[0-9a-f]{40}$/);
  assert.equal(await repo.commitAll({ message: 'nothing' }), null, 'no empty commits');
  // A same-size edit must be seen (mtime changes).
  await new Promise((r) => setTimeout(r, 5));
  await ws.write('notes/a.md', 'ALPHA');
  await ws.delete('b.txt');
  await ws.write('c.txt', 'charlie');
  const st = Object.fromEntries((await repo.status()).map((s) => [s.path, s.state]));
  assert.deepEqual(st, { 'notes/a.md': 'modified', 'b.txt': 'deleted', 'c.txt': 'new' });
  assert.ok(!(await repo.status()).some((s) => s.path.startsWith('.conversations')));
  await repo.commitAll({ message: 'Second commit' });
  const log = await repo.log();
  assert.deepEqual(log.map((c) => c.message), ['Second commit', 'First commit']);

  const dir = await mkdtemp(join(tmpdir(), 'clawser-git-'));
  try {
    await copyOut(ws, '', dir);
    const run = (/** @type {string[]} */ ...args) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: dir } });
    run('fsck', '--full', '--strict');
    assert.equal(run('log', '--format=%s').trim(), 'Second commit\nFirst commit');
    assert.equal(run('show', 'HEAD:notes/a.md'), 'ALPHA');
    assert.equal(run('ls-tree', '-r', '--name-only', 'HEAD').trim(), 'c.txt\nnotes/a.md');
    assert.equal(run('status', '--porcelain', '--', 'c.txt', 'notes').trim(), '');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
