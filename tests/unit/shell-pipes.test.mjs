// A pipeline's writer stops once `head` after it has what it reads (issue 36 §2), as bash's
// writer dies of SIGPIPE when head exits: `while :; do echo; done | head` and `yes | head -n 3`
// end at once. Bounded by iterations, not time: the session allows 1,000 loop rounds and 100 KB
// of output, so a writer that did not stop would end at a limit with an error instead.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { useVendoredInterpreter } from '../fixtures/vendored-interpreter.mjs';

useVendoredInterpreter();
const { createShell } = await import('../../web/shell/shell.js');

const shell = () => createShell({ fs: new MemoryFileSystem(), limits: { loopIterations: 1000, outputBytes: 100_000 } });

test("`while :; do echo; done | head` and `yes | head -n 3` end at once with head's lines; the writer ends with 141", async () => {
  const sh = shell();
  assert.deepEqual(await sh.run('while :; do echo; done | head'), { stdout: '\n'.repeat(10), stderr: '', exitCode: 0 });
  assert.deepEqual(await sh.run('yes | head -n 3'), { stdout: 'y\ny\ny\n', stderr: '', exitCode: 0 });
  assert.deepEqual(await sh.run('yes no | head -2'), { stdout: 'no\nno\n', stderr: '', exitCode: 0 });
  assert.deepEqual(await sh.run('yes abc | head -c 5'), { stdout: 'abc\na', stderr: '', exitCode: 0 });
  assert.equal((await sh.run('yes | head -n 2; echo ${PIPESTATUS[@]}')).stdout, 'y\ny\n141 0\n', "bash's statuses: SIGPIPE, then head's");
  assert.equal((await sh.run('while :; do echo; done | head -n 1; echo ${PIPESTATUS[@]}')).stdout, '\n141 0\n');
});

test('an early-closing reader stops the writer: the loop ran only the rounds head needed', async () => {
  const sh = shell();
  const r = await sh.run('while :; do echo x >> rounds; echo $RANDOM; done | head -n 5 | wc -l; wc -l < rounds');
  assert.deepEqual(r, { stdout: '5\n5\n', stderr: '', exitCode: 0 });
  // Inside a subshell, a function, a group, and nested loops: the whole stage stops.
  assert.equal((await sh.run('(while :; do echo a; done) | head -n 2')).stdout, 'a\na\n');
  assert.equal((await sh.run('f() { while :; do echo b; done; }; f | head -n 2')).stdout, 'b\nb\n');
  assert.equal((await sh.run('{ echo first; while :; do while :; do echo c; done; done; } | head -n 3')).stdout, 'first\nc\nc\n');
  assert.equal(
    (await sh.run('for i in 1 2 3 4 5 6; do echo $i; echo x >> r2; done | head -n 3; wc -l < r2')).stdout,
    '1\n2\n3\n3\n',
    'a for loop stops after the rounds head took',
  );
});

test('controls: without head after it, or where its output does not reach head, a writer runs as before', async () => {
  const sh = shell();
  const unbounded = await sh.run('while :; do echo; done | wc -l');
  assert.equal(unbounded.exitCode, 126, 'no head: the loop ends at its iteration limit');
  assert.match(unbounded.stderr, /while loop: too many iterations \(1000\)/);
  const yes = await sh.run('yes | wc -l');
  assert.equal(yes.exitCode, 126, 'no head: yes ends at the output limit');
  assert.match(yes.stderr, /output size exceeded/);
  // Redirected to a file: every round runs (bash: head reads nothing, the loop writes the file).
  assert.equal((await sh.run('for i in 1 2 3 4 5; do echo $i; done > f | head -n 1; cat f')).stdout, '1\n2\n3\n4\n5\n');
  // A command substitution inside the stage is not the pipe: its loop runs whole.
  const sub = 'for j in a; do x="$(for i in 1 2 3 4 5; do echo $i; done)"; echo "$x" | wc -l; done | head -n 1';
  assert.equal((await sh.run(sub)).stdout, '5\n');
  // A loop shorter than head's count: all of it.
  assert.equal((await sh.run('for i in 1 2 3; do echo $i; done | head -n 10')).stdout, '1\n2\n3\n');
  assert.equal((await sh.run('yes | head -n 2 | cat')).stdout, 'y\ny\n');
});
