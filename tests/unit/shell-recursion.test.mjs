// Issue 32 (review): recursion through aliases and eval ends, as in bash or with a limit, never
// by exhausting the page's memory. An alias is not expanded again inside its own expansion (bash's
// rule); an eval nested deeper than the call-depth limit stops with the interpreter's limit error.
// Run on the interpreter the page runs (the vendored build, with its patches). Controls: aliases
// that call other commands, and many evals in a loop, run as in bash.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { useVendoredInterpreter } from '../fixtures/vendored-interpreter.mjs';

useVendoredInterpreter();
const { createShell } = await import('../../web/shell/shell.js');

/**
 * Runs a line, failing the test if run() throws; the session must still be free after it.
 * @param {import('../../web/shell/shell.js').Shell} shell
 * @param {string} line
 */
async function runSafely(shell, line) {
  const r = await shell.run(line, { timeoutMs: 20_000 });
  assert.equal(typeof r.exitCode, 'number', line);
  assert.equal(shell.busy, false, line);
  return r;
}

test('an alias that calls itself is not expanded again inside its own expansion, as in bash: `ll` prints X, then "ll: command not found" \
(control: an alias that calls another command runs it)', async () => {
  const shell = createShell({ fs: new MemoryFileSystem() });
  await shell.run("alias ll='echo X; ll'");
  const r = await runSafely(shell, 'll');
  assert.equal(r.stdout, 'X\n');
  assert.match(r.stderr, /ll: command not found/);
  assert.equal(r.exitCode, 127);
  // Inside a pipeline and a function, with arguments: still once.
  assert.equal((await runSafely(shell, 'll extra | cat')).stdout, 'X\n');
  // Two aliases calling each other: each expanded once (bash prints A, B, then "a: command not found").
  await shell.run("alias a='echo A; b'; alias b='echo B; a'");
  const ab = await runSafely(shell, 'a');
  assert.equal(ab.stdout, 'A\nB\n');
  assert.match(ab.stderr, /a: command not found/);
  // What `alias` prints is what the user defined.
  assert.equal((await shell.run('alias ll')).stdout, "alias ll='echo X; ll'\n");
  // Control: an alias of several commands that calls another command runs it, with its arguments.
  await shell.run("alias greet='echo hello; echo'");
  assert.equal((await runSafely(shell, 'greet world')).stdout, 'hello\nworld\n');
  await shell.run("alias ls2='echo X; ls'");
  assert.equal((await runSafely(shell, 'ls2 -d /')).stdout, 'X\n/\n');
});

test('eval that evaluates itself, or an alias defined and used on one line that calls itself, \
stops with a clear error instead of exhausting memory (control: many evals in a loop run)', async () => {
  const shell = createShell({ fs: new MemoryFileSystem() });
  for (const line of ['x=\'eval "$x"\'; eval "$x"', "alias zz='echo Z; zz'; zz", "alias p='echo P; q'; alias q='echo Q; p'; p"]) {
    const r = await runSafely(shell, line);
    assert.notEqual(r.exitCode, 0, line);
    assert.match(r.stderr, /eval|alias|command not found/, line);
    assert.equal((await shell.run('echo still here')).stdout, 'still here\n');
  }
  // Control: evaluating in a loop is ordinary bash.
  const loop = await runSafely(shell, 'n=0; for i in $(seq 2000); do eval "n=$((n + 1))"; done; echo $n');
  assert.equal(loop.stdout, '2000\n');
});

test('a line the interpreter stops at a limit leaves the session as it was: options, aliases and variables kept, \
the functions it defined kept (control: the same session runs on)', async () => {
  const shell = createShell({ fs: new MemoryFileSystem() });
  await shell.run("alias ll='echo listed'; set -o pipefail; shopt -s nullglob; kept=yes");
  for (const line of ['g() { g; }; g', 'x=\'eval "$x"\'; eval "$x"']) {
    const r = await runSafely(shell, line);
    assert.equal(r.exitCode, 126, line);
    assert.equal(
      (await shell.run('ll; echo $kept ${OSTYPE:-no-ostype}')).stdout,
      'listed\nyes no-ostype\n',
      `${line}: aliases expand, variables kept, none of the interpreter's own added`,
    );
    assert.ok(
      shell.setOptions.has('pipefail') && shell.shoptOptions.has('nullglob') && shell.shoptOptions.has('expand_aliases'),
      `${line}: options kept`,
    );
  }
  assert.ok(shell.functions.has('g'), 'bash keeps a function defined before the limit stopped the line');
});
