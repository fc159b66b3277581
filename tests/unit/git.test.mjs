import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { WorkspaceGit } from '../../web/git/git.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { ScopedFileSystem } from '../../web/storage/scoped-fs.js';
import { clockPast } from '../fixtures/wait.mjs';

/**
 * Copies a FileSystem folder to disk.
 * @param {import('../../web/storage/types.d.ts').FileSystem} fs
 * @param {string} from
 * @param {string} to
 */
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
  await clockPast();
  await ws.write('notes/a.md', 'ALPHA');
  await ws.delete('b.txt');
  await ws.write('c.txt', 'charlie');
  const st = Object.fromEntries((await repo.status()).map((s) => [s.path, s.state]));
  assert.deepEqual(st, { 'notes/a.md': 'modified', 'b.txt': 'deleted', 'c.txt': 'new' });
  assert.ok(!(await repo.status()).some((s) => s.path.startsWith('.conversations')));
  await repo.commitAll({ message: 'Second commit' });
  const log = await repo.log();
  assert.deepEqual(
    log.map((c) => c.message),
    ['Second commit', 'First commit'],
  );

  const dir = await mkdtemp(join(tmpdir(), 'clawser-git-'));
  try {
    await copyOut(ws, '', dir);
    const run = (/** @type {string[]} */ ...args) =>
      execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: dir } });
    run('fsck', '--full', '--strict');
    assert.equal(run('log', '--format=%s').trim(), 'Second commit\nFirst commit');
    assert.equal(run('show', 'HEAD:notes/a.md'), 'ALPHA');
    assert.equal(run('ls-tree', '-r', '--name-only', 'HEAD').trim(), 'c.txt\nnotes/a.md');
    assert.equal(run('status', '--porcelain', '--', 'c.txt', 'notes').trim(), '');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('stage, unstage and commit what is staged; status tells staged from unstaged', async () => {
  const ws = new ScopedFileSystem(new MemoryFileSystem(), 'w');
  const repo = new WorkspaceGit(ws);
  await ws.write('a.txt', 'one\n');
  await ws.write('b.txt', 'two\n');
  await repo.commitAll({ message: 'base' });
  await clockPast(); // a later edit gets a later mtime
  await ws.write('a.txt', 'one changed\n');
  await ws.write('c.txt', 'new\n');
  await ws.delete('b.txt');
  await repo.stage(['a.txt', 'b.txt']);
  const st = Object.fromEntries((await repo.status()).map((s) => [s.path, s]));
  assert.deepEqual([st['a.txt'].staged, st['a.txt'].unstaged], [true, false]);
  assert.deepEqual([st['b.txt'].state, st['b.txt'].staged], ['deleted', true]);
  assert.deepEqual([st['c.txt'].state, st['c.txt'].staged, st['c.txt'].unstaged], ['new', false, true]);
  await repo.unstage(['a.txt']);
  assert.equal((await repo.status()).find((s) => s.path === 'a.txt')?.staged, false);
  await repo.stage(['a.txt']);
  await assert.rejects(repo.commit({ message: '  ' }), { code: 'invalid_message' });
  const oid = await repo.commit({ message: 'staged only' });
  assert.match(oid ?? '', /^[0-9a-f]{40}$/);
  const after = Object.fromEntries((await repo.status()).map((s) => [s.path, s.state]));
  assert.deepEqual(after, { 'a.txt': 'unchanged', 'c.txt': 'new' }, 'c.txt was not staged, so not committed');
  assert.equal(await repo.commit({ message: 'nothing staged' }), null);
});

test('diffs: a file against HEAD / index, a commit against its parent; binary files are not diffed', async () => {
  const ws = new ScopedFileSystem(new MemoryFileSystem(), 'w');
  const repo = new WorkspaceGit(ws);
  await ws.write('doc.md', 'line 1\nline 2\nline 3\n');
  await ws.write('img.bin', new Uint8Array([0, 1, 2, 3]));
  const first = /** @type {string} */ (await repo.commitAll({ message: 'first' }));
  const firstDiff = await repo.diffCommit(first);
  assert.deepEqual(
    firstDiff.map((d) => [d.path, d.change, d.binary]),
    [
      ['doc.md', 'added', false],
      ['img.bin', 'added', true],
    ],
  );
  await clockPast(); // a later edit gets a later mtime
  await ws.write('doc.md', 'line 1\nline two\nline 3\nline 4\n');
  const d = await repo.diffFile('doc.md');
  assert.equal(d.change, 'modified');
  assert.deepEqual(d.hunks[0].lines, [' line 1', '-line 2', '+line two', ' line 3', '+line 4']);
  assert.equal((await repo.diffFile('doc.md', { from: 'INDEX', to: 'WORKDIR' })).hunks.length, 1);
  await repo.stage(['doc.md']);
  assert.equal((await repo.diffFile('doc.md', { from: 'INDEX', to: 'WORKDIR' })).hunks.length, 0, 'staged: index = workdir');
  await ws.delete('img.bin');
  const second = /** @type {string} */ (await repo.commitAll({ message: 'second' }));
  const secondDiff = await repo.diffCommit(second);
  assert.deepEqual(
    secondDiff.map((x) => [x.path, x.change]),
    [
      ['doc.md', 'modified'],
      ['img.bin', 'deleted'],
    ],
  );
  const { formatDiff } = await import('../../web/git/git.js');
  assert.match(formatDiff(secondDiff), /--- a\/doc.md\n\+\+\+ b\/doc.md\n@@ -1,3 \+1,4 @@/);
  assert.equal(new TextDecoder().decode(/** @type {Uint8Array} */ (await repo.readFileAt(first, 'doc.md'))), 'line 1\nline 2\nline 3\n');
  assert.equal(await repo.readFileAt(second, 'img.bin'), null);
});

test('branches: create, switch (refused with uncommitted changes), delete; names validated', async () => {
  const ws = new ScopedFileSystem(new MemoryFileSystem(), 'w');
  const repo = new WorkspaceGit(ws);
  await ws.write('a.txt', 'main\n');
  await assert.rejects(repo.createBranch('early'), { code: 'no_commits' });
  await repo.commitAll({ message: 'on main' });
  await assert.rejects(repo.createBranch('bad name'), { code: 'invalid_name' });
  await assert.rejects(repo.createBranch('../x'), { code: 'invalid_name' });
  await repo.createBranch('feature', { checkout: true });
  assert.deepEqual(await repo.branches(), { current: 'feature', branches: ['feature', 'main'] });
  await assert.rejects(repo.createBranch('feature'), { code: 'branch_exists' });
  await clockPast(); // a later edit gets a later mtime
  await ws.write('a.txt', 'feature\n');
  await ws.write('f.txt', 'only on feature\n');
  await assert.rejects(repo.switchBranch('main'), { code: 'dirty_worktree' });
  await repo.commitAll({ message: 'on feature' });
  await repo.switchBranch('main');
  assert.equal(await ws.readText('a.txt'), 'main\n');
  assert.equal(await ws.stat('f.txt'), null);
  await assert.rejects(repo.deleteBranch('main'), { code: 'current_branch' });
  await assert.rejects(repo.switchBranch('nope'), { code: 'branch_not_found' });
  await repo.deleteBranch('feature');
  assert.deepEqual((await repo.branches()).branches, ['main']);
});

test('restore a file or the whole tree to a commit without moving HEAD', async () => {
  const ws = new ScopedFileSystem(new MemoryFileSystem(), 'w');
  const repo = new WorkspaceGit(ws);
  await ws.write('a.txt', 'v1\n');
  await ws.write('b.txt', 'b1\n');
  const v1 = /** @type {string} */ (await repo.commitAll({ message: 'v1' }));
  await clockPast(); // a later edit gets a later mtime
  await ws.write('a.txt', 'v2\n');
  await ws.write('c.txt', 'added later\n');
  await ws.delete('b.txt');
  const v2 = await repo.commitAll({ message: 'v2' });
  assert.deepEqual(await repo.restore(v1, { filepath: 'a.txt' }), { changed: ['a.txt'], skipped: 0, kept: [] });
  assert.equal(await ws.readText('a.txt'), 'v1\n');
  assert.equal((await repo.log())[0].oid, v2, 'HEAD did not move');
  const { changed } = await repo.restore(v1);
  assert.deepEqual(changed.sort(), ['b.txt', 'c.txt']);
  assert.equal(await ws.readText('b.txt'), 'b1\n');
  assert.equal(await ws.stat('c.txt'), null);
  await repo.commitAll({ message: 'back to v1' });
  assert.deepEqual(
    (await repo.diffCommit((await repo.log())[0].oid)).map((d) => d.path),
    ['a.txt', 'b.txt', 'c.txt'],
  );
});

test("the first commit of a workspace takes every file except ignored ones and Clawser's own folders", async () => {
  const ws = new ScopedFileSystem(new MemoryFileSystem(), 'clawser_workspaces/w');
  await ws.write('.gitignore', 'build/\n*.log\n');
  await ws.write('src/app.js', 'app');
  await ws.write('src/deep/er/util.js', 'util');
  await ws.write('build/out.js', 'generated');
  await ws.write('debug.log', 'noise');
  await ws.write('.memory/entries.jsonl', '{}');
  await ws.write('goals/active/g.md', '# G');
  const repo = new WorkspaceGit(ws);
  assert.match((await repo.commitAll({ message: 'First' })) ?? '', /^[0-9a-f]{40}$/);
  const st = await repo.status();
  assert.deepEqual(
    st.filter((s) => s.state !== 'unchanged'),
    [],
    'everything not ignored was committed',
  );
  assert.deepEqual(st.map((s) => s.path).sort(), ['.gitignore', 'goals/active/g.md', 'src/app.js', 'src/deep/er/util.js']);
  assert.equal(
    await new WorkspaceGit(new ScopedFileSystem(new MemoryFileSystem(), 'x')).commitAll({ message: 'empty' }),
    null,
    'an empty workspace makes no commit',
  );
});

test('commitPaths commits exactly the given paths (files, a deleted folder, a rename) and nothing else; the real git agrees (control: \
commitAll takes the rest)', async () => {
  const ws = new ScopedFileSystem(new MemoryFileSystem(), 'clawser_workspaces/w');
  const repo = new WorkspaceGit(ws);
  await repo.ensureRepo();
  await ws.write('.gitignore', '*.log\n');
  await ws.write('mine.txt', "the user's\n");
  await ws.write('agent.txt', 'A\n');
  await ws.write('agent.log', 'ignored\n');
  // The first commit of a repository: only the given paths (an ignored one is left out).
  const first = await repo.commitPaths(['agent.txt', './agent.log', '.memory/x.json'], { message: 'Agent: first' });
  assert.match(first ?? '', /^[0-9a-f]{40}$/);
  assert.deepEqual(
    (await repo.diffCommit(/** @type {string} */ (first))).map((d) => d.path),
    ['agent.txt'],
  );
  assert.equal(await repo.commitPaths(['agent.txt'], { message: 'again' }), null, 'no empty commit');
  await ws.write('dir/one.txt', '1\n');
  await ws.write('dir/sub/two.txt', '2\n');
  await ws.write('old.txt', 'old\n');
  await repo.commitPaths(['dir', 'old.txt'], { message: 'Agent: more' });
  // The user stages a file of their own; the agent deletes a folder and renames a file.
  await ws.write('staged.txt', 'staged\n');
  await repo.stage(['staged.txt']);
  await ws.delete('dir');
  await ws.move('old.txt', 'new.txt');
  await ws.write('mine.txt', "the user's, edited\n");
  const oid = /** @type {string} */ (await repo.commitPaths(['dir', 'old.txt', 'new.txt'], { message: 'Agent: tidy' }));
  assert.deepEqual(
    (await repo.diffCommit(oid)).map((d) => `${d.change} ${d.path}`),
    ['deleted dir/one.txt', 'deleted dir/sub/two.txt', 'added new.txt', 'deleted old.txt'],
  );
  const status = Object.fromEntries(
    (await repo.status()).filter((s) => s.state !== 'unchanged').map((s) => [s.path, `${s.state}${s.staged ? ' staged' : ''}`]),
  );
  assert.deepEqual(
    status,
    { '.gitignore': 'new', 'mine.txt': 'new', 'staged.txt': 'new staged' },
    'the rest is as it was: untracked, staged',
  );
  await assert.rejects(repo.commitPaths(['../outside'], { message: 'x' }), /leaves the workspace/);
  const dir = await mkdtemp(join(tmpdir(), 'clawser-commit-paths-'));
  try {
    await copyOut(ws, '', dir);
    const git = (/** @type {string[]} */ ...args) =>
      execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: dir } });
    git('fsck', '--full', '--strict');
    assert.equal(git('ls-tree', '-r', '--name-only', 'HEAD').trim(), 'agent.txt\nnew.txt');
    assert.equal(git('status', '--porcelain').trim().split('\n').sort().join('\n'), '?? .gitignore\n?? mine.txt\nA  staged.txt');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  // Control: commitAll takes everything that is left.
  await repo.commitAll({ message: 'all' });
  assert.deepEqual(
    (await repo.status()).filter((s) => s.state !== 'unchanged'),
    [],
  );
});

test('a whole-tree restore keeps what is not committed (new files, uncommitted edits, staged files) and names it; \
a single-file restore is asked for and overwrites (control)', async () => {
  const ws = new ScopedFileSystem(new MemoryFileSystem(), 'w');
  const repo = new WorkspaceGit(ws);
  await ws.write('a.txt', 'v1\n');
  await ws.write('b.txt', 'b1\n');
  const v1 = /** @type {string} */ (await repo.commitAll({ message: 'v1' }));
  await ws.write('a.txt', 'v2\n');
  await ws.write('c.txt', 'added later\n');
  await repo.commitAll({ message: 'v2' });
  await ws.write('b.txt', 'b, edited and not committed\n');
  await ws.write('new.txt', 'never committed\n');
  await ws.write('s.txt', 'staged, not committed\n');
  await repo.stage(['s.txt']);
  const r = await repo.restore(v1);
  assert.deepEqual(
    [r.changed.sort(), r.kept],
    [
      ['a.txt', 'c.txt'],
      ['b.txt', 'new.txt', 's.txt'],
    ],
  );
  assert.equal(await ws.readText('b.txt'), 'b, edited and not committed\n');
  assert.equal(await ws.readText('new.txt'), 'never committed\n');
  assert.equal(await ws.readText('a.txt'), 'v1\n');
  assert.equal(await ws.readText('s.txt'), 'staged, not committed\n', 'a staged file is kept too');
  assert.equal(await ws.stat('c.txt'), null, 'a file committed later is removed');
  // Control: the user names the file: it is restored.
  assert.deepEqual((await repo.restore(v1, { filepath: 'b.txt' })).changed, ['b.txt']);
  assert.equal(await ws.readText('b.txt'), 'b1\n');
});

test('a command that changes the index many times stores it once: unstaging, staging deletions, a stat refresh (issue 36 §3)', async () => {
  const mem = new MemoryFileSystem();
  const ws = new ScopedFileSystem(mem, 'clawser_workspaces/w');
  for (let i = 0; i < 30; i++) await ws.write(`f/${i}.txt`, `file ${i}\n`);
  const repo = new WorkspaceGit(ws);
  await repo.commitAll({ message: 'first' });
  /** @type {string[]} */
  const writes = [];
  const write = mem.write.bind(mem);
  mem.write = async (/** @type {string} */ path, /** @type {string | Uint8Array} */ data) => {
    writes.push(path);
    return write(path, data);
  };
  const indexWrites = () => writes.filter((p) => p.endsWith('.git/index')).length;
  const paths = Array.from({ length: 30 }, (_, i) => `f/${i}.txt`);
  for (const p of paths) await ws.write(p, `changed ${p}\n`);
  await repo.stage(paths);
  writes.length = 0;
  await repo.unstage(paths);
  assert.equal(indexWrites(), 1, 'thirty paths unstaged, the index stored once');
  assert.ok((await repo.status()).every((s) => s.state === 'modified' && !s.staged && s.unstaged));
  for (const p of paths) await ws.delete(p);
  writes.length = 0;
  await repo.stage(paths);
  assert.equal(indexWrites(), 1, 'thirty deletions staged, the index stored once');
  assert.ok((await repo.status()).every((s) => s.state === 'deleted' && s.staged));
  await repo.commit({ message: 'gone' });

  // Every file touched (same content, a later time, as after a copy back): the status refreshes
  // the stats in the index once, and the next status reads no file.
  for (let i = 0; i < 30; i++) await ws.write(`g/${i}.txt`, `file ${i}\n`);
  await repo.commitAll({ message: 'again' });
  let shift = 0;
  const stat = mem.stat.bind(mem);
  mem.stat = async (path) => {
    const s = await stat(path);
    return s && s.kind === 'file' && path.includes('/g/') ? { ...s, mtimeMs: (s.mtimeMs ?? 0) + shift } : s;
  };
  /** @type {string[]} */
  const reads = [];
  const readBytes = mem.readBytes.bind(mem);
  mem.readBytes = async (path, range) => {
    if (path.includes('/g/')) reads.push(path);
    return readBytes(path, range);
  };
  shift = 5000;
  writes.length = 0;
  assert.ok((await repo.status()).every((s) => s.state === 'unchanged'));
  assert.equal(reads.length, 30, 'touched files are read once to check them');
  assert.equal(indexWrites(), 1);
  reads.length = 0;
  writes.length = 0;
  await repo.status();
  assert.deepEqual(reads, [], 'their stats now match the index');
  assert.equal(indexWrites(), 0);
});
