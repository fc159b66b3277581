// Issue 32 §9: the shell never throws out of run(), whatever the line. Each odd line (arithmetic
// the interpreter rejects, unbalanced constructs, huge numbers, bad substitutions, deep nesting,
// and lines assembled at random from such pieces) must resolve to a result with an exit code,
// leave the session usable (not busy, the next line runs with the state of the line before) —
// and valid lines still print what they should (the controls).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createShell } from '../../web/shell/shell.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';

/** @param {import('../../web/shell/shell.js').ShellResult} r @param {string} line */
function assertResult(r, line) {
  assert.equal(typeof r, 'object', `run(${JSON.stringify(line)}) resolved to ${r}`);
  assert.equal(typeof r.stdout, 'string', line);
  assert.equal(typeof r.stderr, 'string', line);
  assert.ok(Number.isInteger(r.exitCode) && r.exitCode >= 0 && r.exitCode <= 255, `exit code ${r.exitCode} of ${JSON.stringify(line)}`);
}

/**
 * Runs a line, fails the test if run() throws, and checks the session still works after it.
 * @param {import('../../web/shell/shell.js').Shell} shell
 * @param {string} line
 */
async function runSafely(shell, line) {
  /** @type {import('../../web/shell/shell.js').ShellResult} */
  let r;
  try {
    r = await shell.run(line, { timeoutMs: 10_000 });
  } catch (err) {
    assert.fail(
      `run(${JSON.stringify(line.slice(0, 200))}) threw ${/** @type {Error} */ (err)?.constructor?.name}: ` +
        `${/** @type {Error} */ (err)?.message}`,
    );
  }
  assertResult(r, line);
  assert.equal(shell.busy, false, `busy after ${JSON.stringify(line.slice(0, 200))}`);
  return r;
}

test("run() turns an arithmetic error the interpreter throws into bash's error result (exit 1); control: \
valid arithmetic prints its value", async () => {
  const shell = createShell({ fs: new MemoryFileSystem() });
  await shell.run('keep=before; cd /');
  const bad = await runSafely(shell, 'echo $((1 + 2.3))');
  assert.equal(bad.exitCode, 1);
  assert.equal(bad.stdout, '');
  assert.match(bad.stderr, /^bash: .*2\.3.*syntax error: invalid arithmetic operator/m);
  // The session is as the line before left it, $? is the error's.
  const after = await runSafely(shell, 'echo "$? $keep"');
  assert.equal(after.stdout, '1 before\n');
  // Control: the same expression with integers.
  const ok = await runSafely(shell, 'echo $((1 + 2))');
  assert.deepEqual(ok, { stdout: '3\n', stderr: '', exitCode: 0 });
  const cmd = await runSafely(shell, '((x = 1.5)); echo $?');
  assert.match(cmd.stderr, /invalid arithmetic operator/);
});

/** Lines each of which once broke (or could break) an interpreter: every one must come back as a result. */
const ODD_LINES = [
  // arithmetic
  'echo $((1 + 2.3))',
  '((x = 1.5))',
  'echo $[1.5]',
  'let "y = 2.5"',
  'declare -i z=1.5; echo $z',
  'for ((i = 0; i < 1.5; i++)); do :; done',
  '[[ 1.5 -eq 1 ]]',
  'x=abc; echo ${x:1.5}',
  'a=(1 2); echo ${a[1.5]}',
  'a[1.5]=2',
  'echo $((1 ? : 2))',
  'echo $((x=))',
  'echo $(( (1 )',
  'echo $((1/0))',
  'echo $((1%0))',
  'echo $((2**-1))',
  'echo $((2**63))',
  'echo $((99999999999999999999999999))',
  'echo $((-9223372036854775808 / -1))',
  'echo $((0x))',
  'echo $((08))',
  'echo $((64#@@))',
  'echo $((1e3))',
  'echo $((1,))',
  'echo $((++))',
  'echo $(("a"))',
  'echo $((x[))',
  'echo $(( $(echo 1.5) + 1 ))',
  'n=1.5; echo $((n + 1))',
  'n=a[; echo $((n))',
  'echo $((1 << 999999))',
  'seq 1.5 x',
  // unbalanced constructs
  'if true; then',
  'case x in',
  'while',
  'for',
  '((',
  '$(',
  'echo "',
  "echo '",
  'echo `',
  '}',
  'fi',
  'done',
  ')',
  'echo $(( 1 )',
  'f() {',
  '[[ 1',
  '{ echo',
  'cat <<EOF',
  'echo ${',
  'a=(',
  'echo $((',
  'esac',
  'then',
  '&&',
  '||',
  ';;',
  '| cat',
  '>',
  '< ',
  'echo > ',
  '2>&',
  'echo >&-1',
  // bad substitutions and odd words
  'echo ${}',
  'echo ${!}',
  'echo ${#@:1}',
  'echo ${x:}',
  'echo ${x,,,}',
  'echo ${x/[/y}',
  'echo ${@:a}',
  'echo ${x:?}',
  'echo ${!x@}',
  'echo ${x@Z}',
  'echo ${x:-${y:-${z:-}}}',
  'echo ${#}',
  'echo ${-}',
  'echo $-',
  'echo ${$}',
  'unset -v; echo ${*:-1:-1}',
  'echo ${x/#/}',
  'printf "%d" abc',
  'printf "%*d" 99999999999 1',
  'printf "%.99999999f" 1',
  'echo -e "\\x"',
  "echo $'\\u{110000}'",
  'case x in [) echo;; esac',
  'shopt -s extglob; echo @(',
  'echo {1..99999999999}',
  'echo {a..}',
  'x=$(printf "\\0"); echo "$x"',
  'echo \u0000',
  '\u0007\u001b[2J',
  'echo 🙂 é \uD800',
  'trap "echo t" EXIT; false',
  'exit 300',
  'return 5',
  'break 2',
  'shift 99',
  'local x=1',
  'set -o nosuch',
  'shopt -s nosuch',
  'source nosuch.sh',
  '. /',
  'cd /nosuch',
  'exec',
  'eval "echo \\$((1+2.3))"',
  'bash -c "echo \\$((1 + 2.3))"',
  'echo $(( $(( $(( 1.5 )) )) ))',
  'x=$((1+2.3)) y=2',
  'for i in $((1.5)); do :; done',
  'case $((1.5)) in *) ;; esac',
  'echo "$((1.5))" > f',
  'cat <<< $((1.5))',
  // deep nesting
  `echo ${'$('.repeat(300)}x${')'.repeat(300)}`,
  `echo ${'$(('.repeat(300)}1${'))'.repeat(300)}`,
  `${'('.repeat(500)}:${')'.repeat(500)}`,
  `${'{ '.repeat(500)}:${'; }'.repeat(500)}`,
  `x=${'${x:-'.repeat(300)}${'}'.repeat(300)}`,
  `echo $((${'('.repeat(2000)}1${')'.repeat(2000)}))`,
  `${'if true; then '.repeat(300)}:${'; fi'.repeat(300)}`,
  `echo ${'"$('.repeat(200)}x${')"'.repeat(200)}`,
  `echo ${'['.repeat(5000)}`,
  `echo ${'{a,'.repeat(200)}b${'}'.repeat(200)}`,
  `${'! '.repeat(1000)}true`,
  `${'echo x | '.repeat(500)}cat`,
  // size
  `echo ${'x'.repeat(200_000)} | wc -c`,
  `x=${'9'.repeat(10_000)}; echo $((x))`,
  `echo $((${'1+'.repeat(5000)}1))`,
];

test('run() resolves with a result on every odd line and the session stays usable (control: a plain echo after each)', async () => {
  const fs = new MemoryFileSystem();
  const shell = createShell({ fs });
  for (const line of ODD_LINES) {
    await runSafely(shell, line);
    const control = await runSafely(shell, 'echo still-here');
    assert.equal(control.stdout, 'still-here\n', `the session after ${JSON.stringify(line.slice(0, 120))}`);
  }
});

test('run() resolves with a result on lines assembled at random from odd pieces (seeded)', async () => {
  const pieces = [
    '$((',
    '))',
    '1.5',
    '2.3',
    '$(',
    ')',
    '${',
    '}',
    '${x:',
    '[[',
    ']]',
    '((',
    'echo',
    '|',
    '&&',
    ';',
    '"',
    "'",
    '`',
    '{',
    '}',
    'if',
    'then',
    'fi',
    'for',
    'in',
    'do',
    'done',
    'case',
    'esac',
    '<<',
    '>',
    '2>&1',
    '*',
    '?',
    '[',
    ']',
    '$',
    '#',
    '!',
    '@',
    '-',
    '=',
    'x',
    'a[',
    '99999999999999999999',
    '\\',
    '\n',
    ' ',
    ' ',
    ' ',
  ];
  let seed = 32;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const shell = createShell({ fs: new MemoryFileSystem() });
  for (let n = 0; n < 400; n++) {
    const length = 1 + Math.floor(rand() * 14);
    let line = '';
    for (let i = 0; i < length; i++) line += pieces[Math.floor(rand() * pieces.length)];
    await runSafely(shell, line);
  }
  // Control: after all of them the session still computes.
  assert.equal((await runSafely(shell, 'echo $((6 * 7))')).stdout, '42\n');
});
