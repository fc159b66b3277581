import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gitStatus, gitDiff, gitLog, gitCommit, gitCheckout, gitBranch, GIT_TOOLS } from '../../web/tools/git.js';
import { toolSettings, builtinTools } from '../../web/tools/index.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { clockPast } from '../fixtures/wait.mjs';

test('agent git tools: status, commit, log, diff, branch, checkout/restore — errors come back as results', async () => {
  const fs = new MemoryFileSystem();
  const ctx = { workspaceId: 'w', fs, settings: toolSettings(), fetch: globalThis.fetch };
  assert.ok(GIT_TOOLS.every((t) => builtinTools().includes(t)));
  assert.deepEqual(
    GIT_TOOLS.filter((t) => t.permission === 'write').map((t) => t.name),
    ['git_commit', 'git_checkout', 'git_branch'],
    'write tools need approval by default',
  );
  assert.match((await gitStatus.run({}, ctx)).output, /not a git repository yet/);
  await fs.write('notes.md', 'one\n');
  assert.match((await gitCommit.run({ message: 'Add notes' }, ctx)).output, /^Committed [0-9a-f]{10}: Add notes/);
  assert.match((await gitStatus.run({}, ctx)).output, /On branch main\. Nothing to commit/);
  await clockPast(); // a later edit gets a later mtime
  await fs.write('notes.md', 'two\n');
  await fs.write('todo.md', 'x\n');
  const st = (await gitStatus.run({}, ctx)).output;
  assert.match(st, /Not staged:\n {2}modified +notes\.md/);
  assert.match(st, /Untracked:\n {2}todo\.md/);
  const diff = (await gitDiff.run({}, ctx)).output;
  assert.match(diff, /-one\n\+two/);
  assert.match(diff, /--- \/dev\/null\n\+\+\+ b\/todo\.md/);
  assert.match((await gitCommit.run({ message: 'Only notes', paths: ['notes.md'] }, ctx)).output, /Committed/);
  assert.match((await gitStatus.run({}, ctx)).output, /Untracked:\n {2}todo\.md/);
  const log = (await gitLog.run({}, ctx)).output.split('\n');
  assert.equal(log.length, 2);
  assert.match(log[0], /^[0-9a-f]{10} \d{4}-\d\d-\d\d \d\d:\d\d Clawser: Only notes$/);
  const firstId = log[1].slice(0, 10);
  assert.match((await gitDiff.run({ commit: log[0].slice(0, 10) }, ctx)).output, /-one\n\+two/, 'abbreviated ids from git_log work');
  const unknown = await gitDiff.run({ commit: 'abcdef1234' }, ctx);
  assert.equal(unknown.ok, false);
  assert.match(unknown.output, /no commit "abcdef1234"/);
  assert.match((await gitBranch.run({ action: 'create', name: 'idea', checkout: true }, ctx)).output, /Created branch idea and switched/);
  assert.equal((await gitBranch.run({ action: 'list' }, ctx)).output, '* idea\n  main');
  const bad = await gitBranch.run({ action: 'create', name: 'has space' }, ctx);
  assert.equal(bad.ok, false);
  assert.match(bad.output, /not a valid branch name.*\(invalid_name\)/);
  const fullLog = await (await import('../../web/git/git.js')).WorkspaceGit.prototype.log.call(
    new (await import('../../web/git/git.js')).WorkspaceGit(fs),
  );
  const first = /** @type {string} */ (fullLog.at(-1)?.oid);
  assert.ok(first.startsWith(firstId));
  assert.match((await gitCheckout.run({ restore: first, path: 'notes.md' }, ctx)).output, /Restored 1 file\(s\).*notes\.md/);
  assert.equal(await fs.readText('notes.md'), 'one\n');
  const refused = await gitCheckout.run({ branch: 'main' }, ctx);
  assert.equal(refused.ok, false);
  assert.match(refused.output, /dirty_worktree/);
  assert.match((await gitDiff.run({ commit: fullLog[0].oid }, ctx)).output, /-one\n\+two/);
});
