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

test("echo a > f; echo $((1 + 2.3)); echo b: f is written, bash's error at that command (status 1), echo b does not run", async () => {
  const { fs, shell: sh } = await shell();
  const r = await sh.run('echo a > f; echo $((1 + 2.3)); echo b');
  assert.deepEqual(r, {
    stdout: '',
    stderr: 'bash: 1 + 2.3: syntax error: invalid arithmetic operator (error token is ".3")\n',
    exitCode: 1,
  });
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

// Arithmetic errors at run time (issue 32 §8): a division by 0, a negative exponent, or a
// syntax error the parser keeps, met while expanding a word — `$((…))`, `$[…]` — ends the
// command line it is on, wherever on that line it is: inside an `if`, a loop, `{ … }`, a
// function, an `&&`/`||` list. A subshell — `( … )`, `$( … )`, a pipeline's other commands —
// ends instead, with status 1, and its line goes on; `eval` and `source` end their own line and
// return 1. `((…))`, `let` and `for ((…))` fail with status 1 and the line goes on. Every
// expected value below is what bash 5.2 (`LC_ALL=C bash -c`) printed, stderr without its
// location (`line 1: `, `environment: line 1: ` in a function, `./s.sh: line 1: ` in a sourced
// file): Clawser's shell names no lines.

/** @param {string} line @param {Record<string, string>} [files] */
async function run(line, files = {}) {
  const { fs, shell: sh } = await shell();
  for (const [path, text] of Object.entries(files)) await fs.write(path, text);
  const result = await sh.run(line);
  return { ...result, status: (await sh.run('echo $?')).stdout };
}

const DIV = 'bash: 1/0: division by 0 (error token is "0")\n';

test("echo $((1/0)); echo next: bash's message, status 1, the rest of the line does not run, $? is 1", async () => {
  assert.deepEqual(await run('echo $((1/0)); echo next'), { stdout: '', stderr: DIV, exitCode: 1, status: '1\n' });
  assert.deepEqual(await run('echo $((5%0)); echo next\necho l2 $?'), {
    stdout: 'l2 1\n',
    stderr: 'bash: 5%0: division by 0 (error token is "0")\n',
    exitCode: 0,
    status: '0\n',
  });
  assert.deepEqual(await run('echo $[1/0]; echo next\necho l2 $?'), { stdout: 'l2 1\n', stderr: DIV, exitCode: 0, status: '0\n' });
  assert.deepEqual(await run('echo $((1/0)); echo n1\necho $((1+2.3)); echo n2\necho end $?'), {
    stdout: 'end 1\n',
    stderr: `${DIV}bash: 1+2.3: syntax error: invalid arithmetic operator (error token is ".3")\n`,
    exitCode: 0,
    status: '0\n',
  });
});

test('the error token is the rest of the expression after the operator, as bash reports it', async () => {
  const cases = {
    'echo $(( 10 / 0 + 3 )); echo n': 'bash: 10 / 0 + 3 : division by 0 (error token is "0 + 3 ")\n',
    'echo $((10/(2-2))); echo n': 'bash: 10/(2-2): division by 0 (error token is "(2-2)")\n',
    'x=0; echo $((5 % x * 2)); echo n': 'bash: 5 % x * 2: division by 0 (error token is "x * 2")\n',
    'x=1; echo $(( x / (x - 1) )); echo n': 'bash: x / (x - 1) : division by 0 (error token is "(x - 1) ")\n',
    'echo $((1/0 ? 2 : 3)); echo n': 'bash: 1/0 ? 2 : 3: division by 0 (error token is "0 ? 2 : 3")\n',
    'x=5; echo $((x /= 0)); echo n': 'bash: x /= 0: division by 0 (error token is "0")\n',
    'echo $((2**-1)); echo n': 'bash: 2**-1: exponent less than 0 (error token is "1")\n',
    'echo $((2 ** -1 + 4)); echo n': 'bash: 2 ** -1 + 4: exponent less than 0 (error token is "+ 4")\n',
  };
  for (const [line, stderr] of Object.entries(cases))
    assert.deepEqual(await run(line), { stdout: '', stderr, exitCode: 1, status: '1\n' }, line);
  // Not evaluated, not an error (bash: the branch not taken).
  assert.deepEqual(await run('x=0; echo $(( x ? 1/0 : 2 )); echo n'), { stdout: '2\nn\n', stderr: '', exitCode: 0, status: '0\n' });
});

test('inside if, for, while, case, { … }, a function, && and ||: the whole line ends, output before the error stays', async () => {
  const SYNTAX = 'bash: 1 + 2.3: syntax error: invalid arithmetic operator (error token is ".3")\n';
  const ended = {
    'if true; then echo $((1 + 2.3)); echo after; fi; echo next': ['', SYNTAX],
    'for i in 1 2; do echo $((1.5 + 1)); echo in$i; done; echo next': [
      '',
      'bash: 1.5 + 1: syntax error: invalid arithmetic operator (error token is ".5 + 1")\n',
    ],
    '{ echo $((1 + 2.3)); echo a; }; echo next': ['', SYNTAX],
    'echo a; if true; then echo b; echo $((1/0)); echo c; fi; echo next': ['a\nb\n', DIV],
    'echo a; if true; then echo b; echo $((1 + 2.3)); echo c; fi; echo next': ['a\nb\n', SYNTAX],
    'if echo $((1/0)); then echo t; fi; echo next': ['', DIV],
    'while [ $((1/0)) ]; do echo in; done; echo next': ['', DIV],
    'i=0; while true; do i=$((i+1)); echo $((10 / (3 - i))); done; echo next': [
      '5\n10\n',
      'bash: 10 / (3 - i): division by 0 (error token is "(3 - i)")\n',
    ],
    'for x in $((1/0)); do echo $x; done; echo next': ['', DIV],
    'case $((1/0)) in *) echo c;; esac; echo next': ['', DIV],
    'f() { echo $((1/0)); echo inf; }; f; echo next': ['', DIV],
    'f(){ echo $((1/0)); }; g(){ f; echo ing; }; g; echo next': ['', DIV],
    'f(){ echo $((1/0)); }; f || echo alt; echo next': ['', DIV],
    'true && echo $((1/0)); echo next $?': ['', DIV],
    'false || echo $((1/0)) || echo alt; echo next $?': ['', DIV],
    '! echo $((1/0)); echo next': ['', DIV],
    'x=$((1/0)); echo next $?': ['', DIV],
    'x=$((1/0)) echo hi; echo next $?': ['', DIV],
    'echo hi > $((1/0)); echo next $?': ['', DIV],
  };
  for (const [line, [stdout, stderr]] of Object.entries(ended))
    assert.deepEqual(await run(line), { stdout, stderr, exitCode: 1, status: '1\n' }, line);
  // The next line of a script runs; a function's locals and arguments are undone.
  assert.deepEqual(await run('echo a\nif true; then\necho $((1/0))\necho inner\nfi\necho after $?'), {
    stdout: 'a\nafter 1\n',
    stderr: DIV,
    exitCode: 0,
    status: '0\n',
  });
  assert.deepEqual(await run('f() {\necho $((1/0))\necho inner\n}\nf\necho after $?'), {
    stdout: 'after 1\n',
    stderr: DIV,
    exitCode: 0,
    status: '0\n',
  });
  assert.deepEqual(await run('x=g; f(){ local x=l; set -- p q; echo $((1/0)); }; set -- a; f; echo next\necho x=$x $1 $?'), {
    stdout: 'x=g a 1\n',
    stderr: DIV,
    exitCode: 0,
    status: '0\n',
  });
  // set -e does not end the script: the error ends its line, not the shell.
  assert.deepEqual(await run('set -e; echo $((1/0)); echo n\necho l2'), { stdout: 'l2\n', stderr: DIV, exitCode: 0, status: '0\n' });
  // A redirection of the function's or group's stderr takes the message with it.
  assert.deepEqual(await run('f(){ echo $((1/0)); }; f 2>/dev/null; echo next'), { stdout: '', stderr: '', exitCode: 1, status: '1\n' });
  assert.deepEqual(await run('{ echo $((1/0)); } 2>/dev/null; echo next'), { stdout: '', stderr: '', exitCode: 1, status: '1\n' });
  assert.deepEqual(await run('echo $((1/0)) 2>/dev/null; echo next'), { stdout: '', stderr: DIV, exitCode: 1, status: '1\n' });
  // The same way out as `exit`, which now takes the call's redirections too (it went to the terminal).
  const { fs, shell: sh } = await shell();
  assert.deepEqual(await sh.run('f(){ echo hi; echo err >&2; exit 3; }; f > out 2>/dev/null; echo next'), {
    stdout: '',
    stderr: '',
    exitCode: 3,
  });
  assert.equal(await fs.readText('out'), 'hi\n');
});

test("a subshell, a command substitution, a pipeline's commands end with status 1 and the line goes on", async () => {
  const cases = {
    '( echo $((1/0)); echo insub ); echo next $?': 'next 1\n',
    '(echo $((1/0)); echo a\necho b); echo next $?': 'next 1\n',
    'echo a; (echo b; { echo $((1/0)); echo c; }; echo d); echo e $?': 'a\nb\ne 1\n',
    'x=$(echo a; echo $((1/0)); echo insub); echo next $? "[$x]"': 'next 1 [a]\n',
    'x=$(echo $((1/0)); echo a\necho b); echo "[$x]" $?': '[] 1\n',
    'f(){ echo $((1/0)); echo inf; }; x=$(f; echo after); echo "[$x]" $?': '[] 1\n',
    'echo a | echo $((1/0)); echo next $?': 'next 1\n',
    'echo $((1/0)) | cat; echo next $?': 'next 0\n',
    'true | echo $((1/0)) | cat; echo next ${PIPESTATUS[@]}': 'next 0 1 0\n',
  };
  for (const [line, stdout] of Object.entries(cases))
    assert.deepEqual(await run(line), { stdout, stderr: DIV, exitCode: 0, status: '0\n' }, line);
});

test('eval and source end their own line, return 1, and the line they are on goes on', async () => {
  assert.deepEqual(await run('eval "echo \\$((1/0)); echo ev"; echo next $?'), {
    stdout: 'next 1\n',
    stderr: DIV,
    exitCode: 0,
    status: '0\n',
  });
  assert.deepEqual(await run("eval $'echo $((1/0)); echo a\\necho b'; echo next $?"), {
    stdout: 'b\nnext 0\n',
    stderr: DIV,
    exitCode: 0,
    status: '0\n',
  });
  assert.deepEqual(await run('source ./s.sh; echo next $?', { 's.sh': 'echo $((1/0)); echo a\necho b\n' }), {
    stdout: 'b\nnext 0\n',
    stderr: DIV,
    exitCode: 0,
    status: '0\n',
  });
  assert.deepEqual(await run('source ./s.sh; echo next $?', { 's.sh': 'echo $((1/0)); echo in\n' }), {
    stdout: 'next 1\n',
    stderr: DIV,
    exitCode: 0,
    status: '0\n',
  });
});

test("((…)), let and for ((…)): bash's message, status 1, the line goes on", async () => {
  const cases = {
    '((1/0)); echo next $?': ['next 1\n', 'bash: ((: 1/0: division by 0 (error token is "0")\n'],
    'x=5; ((x /= 0)); echo n $? $x': ['n 1 5\n', 'bash: ((: x /= 0: division by 0 (error token is "0")\n'],
    '((y = 2.5)); echo $?': ['1\n', 'bash: ((: y = 2.5: syntax error: invalid arithmetic operator (error token is ".5")\n'],
    'for i in 1 2; do (( i / 0 )); echo in$i $?; done; echo next': [
      'in1 1\nin2 1\nnext\n',
      'bash: ((: i / 0 : division by 0 (error token is "0 ")\n'.repeat(2),
    ],
    'x=1; while (( x / 0 )); do echo in; done; echo next $?': ['next 0\n', 'bash: ((: x / 0 : division by 0 (error token is "0 ")\n'],
    'let "x=1/0"; echo next $?': ['next 1\n', 'bash: let: x=1/0: division by 0 (error token is "0")\n'],
    'let x=5%0; echo next $?': ['next 1\n', 'bash: let: x=5%0: division by 0 (error token is "0")\n'],
    'let "x = 2 ** -1"; echo n $?': ['n 1\n', 'bash: let: x = 2 ** -1: exponent less than 0 (error token is "1")\n'],
    'let "y = 2.5"; echo $?': ['1\n', 'bash: let: y = 2.5: syntax error: invalid arithmetic operator (error token is ".5")\n'],
    'for ((i = 0; i < 1; i = i / 0)); do echo x; done; echo n $?': [
      'x\nn 1\n',
      'bash: ((: i = i / 0: division by 0 (error token is "0")\n',
    ],
    'for ((i = 1 / 0; i < 1; i++)); do echo x; done; echo n $?': ['n 1\n', 'bash: ((: i = 1 / 0: division by 0 (error token is "0")\n'],
  };
  for (const [line, [stdout, stderr]] of Object.entries(cases))
    assert.deepEqual(await run(line), { stdout, stderr, exitCode: 0, status: '0\n' }, line);
});

test('control: valid arithmetic in every one of those places runs every command', async () => {
  assert.deepEqual(
    await run(
      'if true; then echo $((1 + 2)); echo after; fi; for i in 1 2; do echo $((i + 1)); ' +
        'echo in$i; done; { echo $((2 * 3)); echo a; }; echo next',
    ),
    {
      stdout: '3\nafter\n2\nin1\n3\nin2\n6\na\nnext\n',
      stderr: '',
      exitCode: 0,
      status: '0\n',
    },
  );
  assert.deepEqual(
    await run(
      'f() { echo $((6/3)); echo inf; }; f; ( echo $((7%4)); echo insub ); x=$(echo $((2**3)); echo insub); echo "[$x]"; echo ' +
        '$((4/2)) | cat; true && echo $[1+2] || echo alt; eval "echo \\$((9/3)); echo ev"; echo next $?',
    ),
    {
      stdout: '2\ninf\n3\ninsub\n[8\ninsub]\n2\n3\n3\nev\nnext 0\n',
      stderr: '',
      exitCode: 0,
      status: '0\n',
    },
  );
  // `(( x / 2 ))` is arithmetic (it ran a command `x`), `((echo b /x) || true)` still two subshells.
  assert.deepEqual(await run('((echo b /x) || true); x=6; (( x / 2 == 3 )) && echo three; echo $?'), {
    stdout: 'b /x\nthree\n0\n',
    stderr: '',
    exitCode: 0,
    status: '0\n',
  });
  assert.deepEqual(await run('((x = 6 / 2)); let "y = x % 2"; for ((i = 4; i > 0; i = i / 2)); do echo $i; done; echo $x $y $?'), {
    stdout: '4\n2\n1\n3 1 0\n',
    stderr: '',
    exitCode: 0,
    status: '0\n',
  });
  assert.deepEqual(await run('source ./s.sh; echo next $?', { 's.sh': 'echo $((8/2)); echo a\necho b\n' }), {
    stdout: '4\na\nb\nnext 0\n',
    stderr: '',
    exitCode: 0,
    status: '0\n',
  });
});
