// Issue 37 §1: the terminal's `git diff A B` and `git diff --name-status A B` printed nothing
// between two commits (the two ids were taken for paths of the working tree). They print what git
// prints: the unified diff from A to B, or one status line per changed file. Controls: the forms
// that already worked (`git diff` of a working-tree change, `git diff <commit>`) print what they did.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createShell } from '../../web/shell/shell.js';
import { gitCommand } from '../../web/shell/commands/git.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { WorkspaceGit } from '../../web/git/git.js';

/** Three commits: a.txt and b.txt added; a.txt changed and c.txt added; b.txt deleted. */
async function repoShell() {
  const fs = new MemoryFileSystem();
  const repo = new WorkspaceGit(fs);
  const shell = createShell({ fs, commands: [gitCommand(async () => repo)] });
  const step = async (/** @type {string} */ line) => {
    const r = await shell.run(line);
    assert.equal(r.exitCode, 0, `${line}: ${r.stderr}`);
  };
  await fs.write('a.txt', 'one\ntwo\nthree\n');
  await fs.write('b.txt', 'bee\n');
  await step('git add -A && git commit -q -m first');
  await fs.write('a.txt', 'one\nTWO\nthree\n');
  await fs.write('c.txt', 'sea\n');
  await step('git add -A && git commit -q -m second');
  await fs.delete('b.txt');
  await step('git commit -q -a -m third');
  const [third, second, first] = (await repo.log()).map((c) => c.oid);
  return { fs, shell, first, second, third };
}

test('git diff A B prints the unified diff between two commits (and A..B, short ids, a path after --)', async () => {
  const { shell, first, second, third } = await repoShell();
  const r = await shell.run(`git diff ${first} ${second}`);
  assert.equal(r.exitCode, 0, r.stderr);
  assert.equal(
    r.stdout,
    [
      'diff --git a/a.txt b/a.txt',
      '--- a/a.txt',
      '+++ b/a.txt',
      '@@ -1,3 +1,3 @@',
      ' one',
      '-two',
      '+TWO',
      ' three',
      'diff --git a/c.txt b/c.txt',
      '--- /dev/null',
      '+++ b/c.txt',
      '@@ -0,0 +1 @@',
      '+sea',
      '',
    ].join('\n'),
  );
  assert.equal((await shell.run(`git diff ${first}..${second}`)).stdout, r.stdout, 'A..B is the same as A B');
  assert.equal((await shell.run(`git diff ${first.slice(0, 7)} ${second.slice(0, 7)}`)).stdout, r.stdout, 'abbreviated ids');
  const across = (await shell.run(`git diff ${first} ${third}`)).stdout;
  assert.match(
    across,
    /^diff --git a\/b\.txt b\/b\.txt\n--- a\/b\.txt\n\+\+\+ \/dev\/null\n@@ -1 \+0,0 @@\n-bee$/m,
    'two commits apart: the deletion of b.txt',
  );
  assert.match(across, /^\+TWO$/m);
  const reversed = (await shell.run(`git diff ${second} ${first}`)).stdout;
  assert.match(reversed, /^-TWO\n\+two$/m, 'B A is the reverse diff');
  assert.equal(
    (await shell.run(`git diff ${first} ${second} -- c.txt`)).stdout,
    'diff --git a/c.txt b/c.txt\n--- /dev/null\n+++ b/c.txt\n@@ -0,0 +1 @@\n+sea\n',
  );
  assert.equal((await shell.run(`git diff ${second} ${second}`)).stdout, '', 'a commit against itself: no difference');
  const bad = await shell.run(`git diff ${first} nosuchref`);
  assert.equal(bad.exitCode, 128);
  assert.match(bad.stderr, /nosuchref/);
});

test('git diff --name-status / --name-only A B print one line per changed file', async () => {
  const { shell, first, second, third } = await repoShell();
  const r = await shell.run(`git diff --name-status ${first} ${third}`);
  assert.equal(r.exitCode, 0, r.stderr);
  assert.equal(r.stdout, 'M\ta.txt\nD\tb.txt\nA\tc.txt\n');
  assert.equal((await shell.run(`git diff ${first} ${second} --name-status`)).stdout, 'M\ta.txt\nA\tc.txt\n', 'the option after the ids');
  assert.equal((await shell.run(`git diff --name-only ${first} ${third}`)).stdout, 'a.txt\nb.txt\nc.txt\n');
  assert.equal((await shell.run(`git diff --name-status ${second}`)).stdout, 'M\ta.txt\nA\tc.txt\n', 'one commit: what it changed');
});

test('control: git diff of a working-tree change and git diff <commit> still print what they did', async () => {
  const { fs, shell, second } = await repoShell();
  assert.equal(
    (await shell.run(`git diff ${second}`)).stdout,
    'diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n' +
      'diff --git a/c.txt b/c.txt\n--- /dev/null\n+++ b/c.txt\n@@ -0,0 +1 @@\n+sea\n',
  );
  await fs.write('c.txt', 'sea\nsalt\n');
  const expected = 'diff --git a/c.txt b/c.txt\n--- a/c.txt\n+++ b/c.txt\n@@ -1 +1,2 @@\n sea\n+salt\n';
  assert.equal((await shell.run('git diff')).stdout, expected);
  assert.equal((await shell.run('git diff c.txt')).stdout, expected);
  assert.equal((await shell.run('git diff a.txt')).stdout, '', 'an unchanged path');
  assert.equal((await shell.run('git diff --name-status')).stdout, 'M\tc.txt\n');
  await shell.run('git add c.txt');
  assert.equal((await shell.run('git diff')).stdout, '');
  assert.equal((await shell.run('git diff --cached')).stdout, expected);
  assert.equal((await shell.run('git diff --cached --name-only')).stdout, 'c.txt\n');
});
