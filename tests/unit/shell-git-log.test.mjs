// Issue 32 §8 (noted there): the shell's `git log` takes what people type — `-1` (any -N),
// `--format=…`/`--pretty=format:…` with git's common placeholders, `--pretty=oneline` — and
// writes its default dates as git does. Control: the forms it already took (-n, --oneline).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createShell } from '../../web/shell/shell.js';
import { gitCommand } from '../../web/shell/commands/git.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { WorkspaceGit } from '../../web/git/git.js';

async function repoShell() {
  const fs = new MemoryFileSystem();
  const repo = new WorkspaceGit(fs);
  const shell = createShell({ fs, commands: [gitCommand(async () => repo)] });
  for (const [file, message] of [
    ['a.txt', 'first note'],
    ['b.txt', 'second note\n\nwith a body'],
    ['c.txt', 'third note'],
  ]) {
    await fs.write(file, `${file}\n`);
    const r = await shell.run(`git add ${file} && git commit -q -m "${message}"`);
    assert.equal(r.exitCode, 0, r.stderr);
  }
  return { shell, log: await repo.log() };
}

test('git log -1 and -N limit the commits; control: -n 1 and --max-count=2', async () => {
  const { shell } = await repoShell();
  for (const [line, count] of /** @type {[string, number][]} */ ([
    ['git log -1 --oneline', 1],
    ['git log -2 --oneline', 2],
    ['git log -n 1 --oneline', 1],
    ['git log --max-count=2 --oneline', 2],
  ])) {
    const r = await shell.run(line);
    assert.equal(r.exitCode, 0, `${line}: ${r.stderr}`);
    assert.equal(r.stdout.trim().split('\n').length, count, line);
  }
  assert.match(
    (await shell.run('git log -1')).stdout,
    /^commit [0-9a-f]{40}\nAuthor: .*\nDate: {3}\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4} \+0000\n\n {4}third note\n$/,
  );
});

test("git log --format and --pretty: git's placeholders, tformat and format: semantics", async () => {
  const { shell, log } = await repoShell();
  const [third, second] = log;
  assert.equal((await shell.run('git log -1 --format=%H')).stdout, `${third.oid}\n`);
  assert.equal((await shell.run('git log --format=%s')).stdout, 'third note\nsecond note\nfirst note\n');
  assert.equal(
    (await shell.run("git log -2 --format='%h %s'")).stdout,
    `${third.oid.slice(0, 7)} third note\n${second.oid.slice(0, 7)} second note\n`,
  );
  assert.equal((await shell.run("git log -1 --skip=1 --format='%b'")).stdout, 'with a body\n\n');
  assert.equal((await shell.run("git log -2 --pretty=format:'%s'")).stdout, 'third note\nsecond note');
  assert.equal((await shell.run("git log -1 --pretty=tformat:'%an <%ae>%n%%'")).stdout, `${third.author} <${third.email}>\n%\n`);
  assert.equal((await shell.run('git log -1 --pretty=oneline')).stdout, `${third.oid} third note\n`);
  assert.equal((await shell.run('git log -1 --format=%at')).stdout, `${third.timestamp / 1000}\n`);
  assert.match((await shell.run('git log -1 --format=%aI')).stdout, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00\n$/);
  assert.equal((await shell.run('git log -1 --format=%P')).stdout, `${third.parents[0]}\n`);
});
