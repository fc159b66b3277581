// Globs the interpreter expands itself, as bash 5.2 does (issue 32 review): a pattern never
// matches `.` or `..` (globskipdots), so `rm -rf .*/` cannot climb out of the folder it runs in;
// with `shopt -s globstar`, `**` matches zero or more folders (`**/` every folder below). This
// file runs the vendored build the page runs (scripts/just-bash-patches.mjs patches its globs).
// The corpus (tests/fixtures/shell-corpus) holds the same cases against real bash.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { useVendoredInterpreter } from '../fixtures/vendored-interpreter.mjs';

useVendoredInterpreter();
const { createShell } = await import('../../web/shell/shell.js');

/** @param {Record<string, string>} files */
async function shellWith(files) {
  const fs = new MemoryFileSystem();
  for (const [path, content] of Object.entries(files)) await fs.write(path, content);
  return { fs, shell: createShell({ fs, env: { LC_ALL: 'C' } }) };
}

/** Every file left in the workspace, sorted. @param {MemoryFileSystem} fs */
async function filesOf(fs) {
  /** @type {string[]} */
  const out = [];
  /** @param {string} dir */
  const walk = async (dir) => {
    for (const e of await fs.list(dir)) {
      const path = dir ? `${dir}/${e.name}` : e.name;
      if (e.kind === 'directory') await walk(path);
      else out.push(path);
    }
  };
  await walk('');
  return out.sort();
}

const NOTES = { 'notes/keep.md': 'precious\n', 'notes/other.md': 'x\n', 'notes/sub/a.txt': 'a\n', 'top.md': 't\n' };

test('rm -rf .*/ in a folder without dot folders removes nothing: .*/ never matches ./ or ../', async () => {
  const { fs, shell } = await shellWith(NOTES);
  const r = await shell.run('cd notes/sub && rm -rf .*/; echo $?');
  assert.equal(r.stdout, '0\n', r.stderr);
  assert.deepEqual(await filesOf(fs), ['notes/keep.md', 'notes/other.md', 'notes/sub/a.txt', 'top.md']);
  assert.equal((await shell.run('cd /notes/sub && echo .*/')).stdout, '.*/\n', 'a pattern matching nothing stays as written');
});

const DOTS = { ...NOTES, 'notes/sub/.cache/x': 'x\n', 'notes/sub/.git/HEAD': 'h\n', 'notes/sub/.env': 'e\n' };

test('rm -rf .*/ beside dot folders removes those folders and nothing above', async () => {
  const { fs, shell } = await shellWith(DOTS);
  const r = await shell.run('cd notes/sub && echo .*/ && rm -rf .*/');
  assert.equal(r.stdout, '.cache/ .git/\n', r.stderr);
  assert.equal(r.exitCode, 0);
  assert.deepEqual(await filesOf(fs), ['notes/keep.md', 'notes/other.md', 'notes/sub/.env', 'notes/sub/a.txt', 'top.md']);
});

test('control: rm -rf .cache/ (no glob) removes that folder only', async () => {
  const { fs, shell } = await shellWith(DOTS);
  assert.equal((await shell.run('cd notes/sub && rm -rf .cache/')).exitCode, 0);
  assert.deepEqual(await filesOf(fs), [
    'notes/keep.md',
    'notes/other.md',
    'notes/sub/.env',
    'notes/sub/.git/HEAD',
    'notes/sub/a.txt',
    'top.md',
  ]);
});

test('dotglob: */ and * name dot folders but never ./ or ../; .* neither; ./ and ../ written out still work', async () => {
  const { shell } = await shellWith({ '.hidden/i': '', 'alpha/g': '', 'alpha/sub/x': '', '.f': '' });
  assert.equal((await shell.run('(shopt -s dotglob; echo */)')).stdout, '.hidden/ alpha/\n');
  assert.equal((await shell.run('(shopt -s dotglob; echo *)')).stdout, '.f .hidden alpha\n');
  assert.equal((await shell.run('(cd alpha; shopt -s dotglob; echo */)')).stdout, 'sub/\n');
  assert.equal((await shell.run('echo .*')).stdout, '.f .hidden\n');
  assert.equal((await shell.run('echo .?*/')).stdout, '.hidden/\n');
  assert.equal((await shell.run('for d in .*/; do echo "[$d]"; done')).stdout, '[.hidden/]\n');
  assert.equal((await shell.run('(cd alpha; echo .*/g)')).stdout, '.*/g\n', 'no ./g: .* does not match . in the middle of a path either');
  // Controls: `.` and `..` written as such, and globskipdots turned off.
  assert.equal((await shell.run('echo */..')).stdout, 'alpha/..\n');
  assert.equal((await shell.run('(cd alpha; echo ../*)')).stdout, '../alpha\n');
  assert.equal((await shell.run('(cd alpha; shopt -u globskipdots; echo .*/)')).stdout, '../ ./\n');
});

const DEEP = { '.hidden/i': '', 'alpha/g': '', 'alpha/sub/h': '', 'alpha/b.md': '', 'a.md': '', 'Zeta/z': '' };

test('globstar: ** matches zero or more folders; **/ names every folder below', async () => {
  const { shell } = await shellWith(DEEP);
  /** @param {string} line */
  const out = async (line) => (await shell.run(`shopt -s globstar; ${line}`)).stdout;
  assert.equal(await out('echo **/'), 'Zeta/ alpha/ alpha/sub/\n');
  assert.equal(await out('echo **'), 'Zeta Zeta/z a.md alpha alpha/b.md alpha/g alpha/sub alpha/sub/h\n');
  assert.equal(await out('echo alpha/**'), 'alpha/ alpha/b.md alpha/g alpha/sub alpha/sub/h\n');
  assert.equal(await out('echo alpha/**/'), 'alpha/ alpha/sub/\n');
  assert.equal(await out('echo **/sub/ **/s*/ **/sub'), 'alpha/sub/ alpha/sub/ alpha/sub\n');
  assert.equal(await out('echo **/**/'), 'Zeta/ alpha/ alpha/sub/\n');
  assert.equal(await out('echo .*/**/'), '.hidden/\n');
  assert.equal(await out('(cd alpha; echo **/ ../**/)'), 'sub/ ../ ../Zeta/ ../alpha/ ../alpha/sub/\n');
  assert.equal(await out('(shopt -s dotglob; echo **/)'), '.hidden/ Zeta/ alpha/ alpha/sub/\n');
  assert.equal(await out('echo **/nomatch/'), '**/nomatch/\n');
  assert.equal(await out('for d in **/; do echo "$d"; done'), 'Zeta/\nalpha/\nalpha/sub/\n');
});

test('control: globstar keeps what already worked (**/*.md, a/**/h), and without it ** is *', async () => {
  const { shell } = await shellWith(DEEP);
  assert.equal((await shell.run('shopt -s globstar; echo **/*.md alpha/**/h')).stdout, 'a.md alpha/b.md alpha/sub/h\n');
  assert.equal((await shell.run('shopt -u globstar; echo **/ **/*.md')).stdout, 'Zeta/ alpha/ alpha/b.md\n');
});
