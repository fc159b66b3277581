// Issue 32 §5: a workspace with a top-level `usr/` (or `bin/`) folder must not break command
// lookup. just-bash finds its commands by looking for files under PATH (/usr/bin, /bin) and
// only falls back to its own registry when /usr/bin does not exist — and the shell's `/` is
// the workspace, so a `usr/bin/` folder made every command (the hidden preamble's included)
// "command not found". The workspace's own folders stay what they are: listed, read, written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createShell } from '../../web/shell/shell.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';

/** @param {Record<string, string>} files */
async function shellOver(files) {
  const fs = new MemoryFileSystem();
  for (const [p, c] of Object.entries(files)) await fs.write(p, c);
  return { fs, shell: createShell({ fs }) };
}

/** The probes: built-in commands, bash built-ins, Clawser's own commands, $? through the preamble. */
const PROBES = [
  ['echo hi', 'hi\n'],
  ['cat notes.md', 'note\n'],
  ['wc -l < notes.md', '1\n'],
  ['false; echo $?', '1\n'],
  ['realpath notes.md', '/notes.md\n'],
  ['printf "%s\\n" a b | sort -r | head -n 1', 'b\n'],
  ['type -t ls', 'file\n'],
];

for (const [name, files] of /** @type {[string, Record<string, string>][]} */ ([
  ['a top-level usr/bin/ folder', { 'notes.md': 'note\n', 'usr/bin/tool': 'my tool\n', 'usr/share/doc.txt': 'doc\n' }],
  ['a top-level bin/ folder with files named like commands', { 'notes.md': 'note\n', 'bin/ls': 'not ls\n', 'bin/echo': 'not echo\n' }],
  [
    'both usr/bin/ and bin/, with files named like commands',
    { 'notes.md': 'note\n', 'usr/bin/cat': 'not cat\n', 'usr/bin/sort': 'x\n', 'bin/wc': 'not wc\n' },
  ],
  ['no usr/ or bin/ folder (control)', { 'notes.md': 'note\n' }],
])) {
  test(`commands are found in a workspace with ${name}`, async () => {
    const { shell } = await shellOver(files);
    for (const [line, stdout] of PROBES) {
      const r = await shell.run(line);
      assert.deepEqual({ stdout: r.stdout, exitCode: r.exitCode }, { stdout, exitCode: 0 }, `${line} — stderr: ${r.stderr}`);
      assert.doesNotMatch(r.stderr, /command not found/, line);
    }
    // A name that is no command is still not found.
    const missing = await shell.run('nosuchcommand');
    assert.equal(missing.exitCode, 127);
  });
}

test("the workspace's own usr/ and bin/ folders stay ordinary folders (listed, read, written, removed)", async () => {
  const { shell, fs } = await shellOver({ 'usr/bin/tool': 'my tool\n', 'bin/ls': 'not ls\n' });
  assert.equal((await shell.run('ls usr/bin')).stdout, 'tool\n');
  assert.equal((await shell.run('cat /usr/bin/tool bin/ls')).stdout, 'my tool\nnot ls\n');
  assert.equal((await shell.run('ls /bin')).stdout, 'ls\n');
  assert.equal((await shell.run('echo more >> usr/bin/tool; cat usr/bin/tool')).stdout, 'my tool\nmore\n');
  assert.equal((await shell.run('rm bin/ls; ls bin | wc -l')).stdout, '0\n');
  assert.equal(await fs.stat('bin/ls'), null);
  // A command's own name under /usr/bin is not a file of the workspace: nothing to read there.
  assert.equal((await shell.run('cat /usr/bin/cat')).exitCode, 1);
  assert.equal((await shell.run('ls usr/bin')).stdout, 'tool\n');
});

test('a command named by its path under /usr/bin or /bin runs, as in bash, whatever the workspace holds there', async () => {
  for (const files of /** @type {Record<string, string>[]} */ ([{ 'usr/bin/tool': 'x\n' }, {}])) {
    const { shell } = await shellOver(files);
    assert.deepEqual(await shell.run('/usr/bin/echo direct; /bin/echo also'), { stdout: 'direct\nalso\n', stderr: '', exitCode: 0 });
    assert.equal((await shell.run('/usr/bin/nosuchcommand')).exitCode, 127);
  }
});
