// An arithmetic syntax error the parser finds (a decimal point: `$((1 + 2.3))`) is an error of
// the command that expands it, as in bash (issue 32 review): the commands before it run (and
// their files are written), it fails with bash's message and status 1, and the rest of the line
// does not run. `((…))`, `let` and `for ((…))` fail with status 1 and the line goes on. It used
// to drop the whole line while parsing. The interpreter's patch (scripts/just-bash-patches.mjs):
// this file runs the vendored build the page runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { useVendoredInterpreter } from '../fixtures/vendored-interpreter.mjs';

useVendoredInterpreter();
const { createShell } = await import('../../web/shell/shell.js');

async function shell() {
  const fs = new MemoryFileSystem();
  return { fs, shell: createShell({ fs, env: { LC_ALL: 'C' } }) };
}

test('echo a > f; echo $((1 + 2.3)); echo b: f is written, bash\'s error at that command (status 1), echo b does not run', async () => {
  const { fs, shell: sh } = await shell();
  const r = await sh.run('echo a > f; echo $((1 + 2.3)); echo b');
  assert.deepEqual(r, { stdout: '', stderr: 'bash: 1 + 2.3: syntax error: invalid arithmetic operator (error token is ".3")\n', exitCode: 1 });
  assert.equal(await fs.readText('f'), 'a\n');
  assert.equal((await sh.run('echo $?')).stdout, '1\n');
  const spaced = await sh.run('echo start; echo $(( 1.5 + x )); echo after');
  assert.equal(spaced.stdout, 'start\n');
  assert.equal(spaced.stderr, 'bash: 1.5 + x : syntax error: invalid arithmetic operator (error token is ".5 + x ")\n');
  assert.equal(spaced.exitCode, 1);
});

test('((…)), let and for ((…)) with a decimal point: status 1, and the line goes on', async () => {
  const { shell: sh } = await shell();
  assert.equal((await sh.run('((x = 1.5)); echo st=$?; echo after')).stdout, 'st=1\nafter\n');
  assert.equal((await sh.run('let "y = 2.5"; echo st=$?')).stdout, 'st=1\n');
  assert.equal((await sh.run('for ((i = 0; i < 1.5; i++)); do echo in; done; echo after $?')).stdout, 'after 1\n');
});

test('control: valid arithmetic in the same places runs every command', async () => {
  const { fs, shell: sh } = await shell();
  assert.deepEqual(await sh.run('echo a > f; echo $((1 + 2)); echo b'), { stdout: '3\nb\n', stderr: '', exitCode: 0 });
  assert.equal(await fs.readText('f'), 'a\n');
  assert.equal((await sh.run('((x = 15)); echo st=$? x=$x; for ((i = 0; i < 2; i++)); do echo $i; done')).stdout, 'st=0 x=15\n0\n1\n');
});
