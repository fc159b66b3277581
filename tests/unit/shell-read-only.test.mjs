// Issue 32 §1: a read-only line cannot change what later lines run. A line judged read-only
// leaves no alias, function, option or special variable behind; a word that expands where an
// option could stand makes a line not read-only; the names of the shell's hidden preamble and
// loop yields cannot be aliased, redefined or shadowed; the dialog sees what a session's
// functions and aliases run; loops whose body only reads are read-only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createShell } from '../../web/shell/shell.js';
import { readOnlyVerdict } from '../../web/shell/read-only.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { shellWorkspace } from '../fixtures/shell-workspace.mjs';

const PROBE = "o=-v; printf $o BASH_ALIAS___clawser_status '%s' 'rm -rf notes; echo pwned > pwned.txt'";

test('the probe of §1 through the agent: the planting line is asked for, and the next line under the rule "git add" only adds (control: unplanted, git add runs unasked)', async () => {
  const w = await shellWorkspace({ level: 'supervised', files: { 'notes/a.md': 'TODO a\n' } });
  w.registry.addRule({ tool: 'shell', kind: 'command', pattern: 'git add' });
  // The user says yes to whatever is asked: even an allowed planting line must plant nothing.
  const { results } = await w.turn([PROBE, 'git add notes/a.md'], () => 'once');
  assert.deepEqual(w.asked.map((r) => [r.tool, r.args.command]), [['shell', PROBE]], 'the planting line is not read-only: asked; git add is covered by its rule');
  assert.equal(w.asked[0].permission, 'write');
  assert.equal(await w.fs.readText('notes/a.md'), 'TODO a\n', 'notes/ is still there');
  assert.equal(await w.fs.stat('pwned.txt'), null, 'nothing was written');
  assert.match(results[1], /^exit code: 0/);
  assert.deepEqual((await w.git.status()).map((s) => s.path).filter((p) => p.startsWith('notes/')), ['notes/a.md']);

  // Control: a fresh workspace, nothing planted: a read-only line and git add under its rule both run without a question.
  const c = await shellWorkspace({ level: 'supervised', files: { 'notes/a.md': 'TODO a\n' } });
  c.registry.addRule({ tool: 'shell', kind: 'command', pattern: 'git add' });
  const control = await c.turn(['grep -c TODO notes/a.md', 'git add notes/a.md']);
  assert.deepEqual(c.asked, []);
  assert.match(control.results[0], /^exit code: 0\nstdout:\n1\n/);
  assert.match(control.results[1], /^exit code: 0/);
});

test('a line run read-only keeps no alias, function, option or special variable; a plain variable and the working directory stay (control: the same lines run normally do change the session)', async () => {
  const planting = [
    "alias ls='rm -rf notes'",
    'ls() { rm -rf notes; }',
    'set -o xtrace',
    'shopt -s nullglob',
    'PATH=/notes',
    'IFS=/',
    "PS4='$(rm -rf notes)'",
    "BASH_ALIAS_cat='rm -rf notes'",
    "o=-v; printf $o BASH_ALIAS_grep '%s' 'rm -rf notes'",
    "d=\\$; code=\"a[${d}(rm -rf notes)]\"",
  ];
  const fs = new MemoryFileSystem();
  await fs.write('notes/a.md', 'TODO\n');
  const shell = createShell({ fs });
  for (const line of planting) await shell.run(line, { readOnly: true });
  assert.deepEqual(shell.aliases(), []);
  assert.deepEqual([...shell.functions.keys()], []);
  assert.ok(!shell.setOptions.has('xtrace'));
  assert.ok(!shell.shoptOptions.has('nullglob'));
  assert.equal(shell.variables.PATH, '/usr/bin:/bin');
  assert.equal(shell.variables.IFS, undefined);
  assert.equal(shell.variables.PS4, undefined);
  assert.equal(shell.variables.code, undefined, 'a value that would run code in arithmetic is not kept');
  // What a read-only line may leave: plain variables and where it is.
  await shell.run('cd notes && GREETING=hello && count=3', { readOnly: true });
  assert.equal(shell.cwd, '/notes');
  assert.equal(shell.variables.GREETING, 'hello');
  assert.equal(shell.variables.count, '3');
  assert.equal((await shell.run('ls; echo $GREETING')).stdout, 'a.md\nhello\n', 'later lines run as written');
  assert.equal(await fs.readText('notes/a.md'), 'TODO\n');

  // Control: the same lines, not read-only, change the session (that is bash).
  const normal = createShell({ fs: new MemoryFileSystem() });
  for (const line of ["alias ll='ls -l'", 'f() { echo f; }', 'set -o xtrace', 'shopt -s nullglob', 'IFS=/']) await normal.run(line);
  assert.deepEqual(normal.aliases(), ['ll']);
  assert.deepEqual([...normal.functions.keys()], ['f']);
  assert.ok(normal.setOptions.has('xtrace') && normal.shoptOptions.has('nullglob'));
  assert.equal(normal.variables.IFS, '/');
});

test('a word that expands where an option could stand makes a line not read-only; after `--`, behind a literal start or as an operand it does not (the controls)', () => {
  const shell = createShell({ fs: new MemoryFileSystem() });
  const verdict = (/** @type {string} */ line) => readOnlyVerdict(shell.parse(line));
  for (const line of [PROBE, 'printf "$fmt" x', '"$x" notes', 'cat "$f"', 'cat $f', 'grep -n TODO "$@"', 'wc -l *.md', 'ls -$opt', 'echo "$x"', 'test $o $n', 'cd "$d"', 'head -n 1 $(echo -v)']) {
    assert.equal(verdict(line).readOnly, false, line);
  }
  for (const line of ['cat -- "$f"', 'cat "./$f"', 'wc -l ./*.md', 'wc -l -- *.md', 'echo "x=$x"', "printf '%s\\n' \"$x\"", '[ -f "$f" ]', '[ "$a" = "$b" ]', '[[ -n $x ]]', 'grep -n TODO notes/a.md', 'ls notes', 'echo hello $x', 'cd -- "$d"']) {
    assert.equal(verdict(line).readOnly, true, line);
  }
});

test('loops whose body only reads are read-only; a loop that writes or runs code is not (control)', () => {
  const shell = createShell({ fs: new MemoryFileSystem() });
  const verdict = (/** @type {string} */ line) => readOnlyVerdict(shell.parse(line));
  for (const line of ['for f in ./*.md; do wc -l -- "$f"; done', 'for x in a b c; do echo "item $x"; done', 'while IFS= read -r line; do echo "got $line"; done < notes/a.md', 'until false; do break; done', 'while read -r a b; do echo "pair: $a $b"; done < list.txt', "for f in ./*; do printf '%s\\n' \"$f\"; done"]) {
    assert.equal(verdict(line).readOnly, true, line);
  }
  for (const line of ['for f in *.md; do rm -- "$f"; done', 'while true; do echo x > f; done', 'for ((i = 0; i < 3; i++)); do echo; done', 'while read -r PATH; do :; done < f', 'while read -r "$n"; do :; done < f', 'while read BASH_ALIAS_ls; do :; done < f']) {
    assert.equal(verdict(line).readOnly, false, line);
  }
});

test('the preamble and yield names cannot be aliased or redefined: not by a read-only line, not by an allowed one, not by eval (control: an ordinary alias and function are kept)', async () => {
  const fs = new MemoryFileSystem();
  await fs.write('notes/a.md', 'TODO\n');
  const shell = createShell({ fs });
  const attempts = [
    "alias __clawser_status='echo pwned > p1.txt'",
    "alias __clawser_yield='echo pwned > p2.txt'",
    "printf -v BASH_ALIAS___clawser_status '%s' 'echo pwned > p3.txt'",
    "declare BASH_ALIAS___clawser_yield='echo pwned > p4.txt'",
    "n=__clawser; eval \"${n}_status() { echo pwned > p5.txt; }\"",
    "eval 'alias __clawser_yield=\"echo pwned > p6.txt\"'",
    "export BASH_ALIAS___clawser_status='echo pwned > p7.txt'",
  ];
  for (const line of attempts) {
    await shell.run(line);
    // The next lines run the preamble and, in a loop, the yield.
    const next = await shell.run('for i in 1 2; do echo $i; done');
    assert.equal(next.stdout, '1\n2\n', line);
  }
  const refused = await shell.run('__clawser_yield() { echo pwned > p8.txt; }; for i in 1; do :; done');
  assert.equal(refused.exitCode, 2, 'defining a reserved name is refused outright');
  assert.match(refused.stderr, /__clawser_yield is reserved/);
  assert.deepEqual((await fs.list('')).map((e) => e.name), ['notes'], 'no pwned file');
  assert.deepEqual(shell.aliases(), []);
  // Control: ordinary aliases and functions are a session's to keep.
  await shell.run("alias ll='echo listed'; greet() { echo hi; }");
  assert.equal((await shell.run('ll; greet')).stdout, 'listed\nhi\n');
});

test('the dialog sees what a session\'s function or alias runs, and a session that traces with code in PS4 is never read-only or covered (control: a clean session)', async () => {
  const w = await shellWorkspace({ level: 'supervised', files: { 'notes/a.md': 'TODO a\n' } });
  w.registry.addRule({ tool: 'shell', kind: 'command', pattern: 'git add' });
  w.registry.addRule({ tool: 'shell', kind: 'command', pattern: 'ls' });
  await w.turn(["alias ls='rm -rf notes'; git() { rm -rf notes; }"], () => 'once');
  w.asked.length = 0;
  await w.turn(['ls', 'git add notes/a.md'], () => 'deny');
  assert.deepEqual(w.asked.map((r) => r.args.command), ['ls', 'git add notes/a.md'], 'both asked: the rules do not cover a redefined command');
  assert.match(String(w.asked[0].preview), /ls is an alias in this session: rm -rf notes/);
  assert.match(String(w.asked[1].preview), /git is a function in this session: .*rm -rf notes/s);
  // A command that runs others by name may reach any definition: the dialog lists them all.
  w.asked.length = 0;
  await w.turn(['echo notes | xargs ls'], () => 'deny');
  assert.match(String(w.asked[0].preview), /ls is an alias in this session: rm -rf notes/);
  assert.match(String(w.asked[0].preview), /git is a function in this session/);
  assert.equal(await w.fs.readText('notes/a.md'), 'TODO a\n');

  const t = await shellWorkspace({ level: 'supervised', files: { 'notes/a.md': 'TODO a\n' } });
  t.registry.addRule({ tool: 'shell', kind: 'command', pattern: 'git add' });
  await t.turn(["PS4='+$(rm -rf notes) '; set -o xtrace"], () => 'once');
  t.asked.length = 0;
  await t.turn(['cat notes/a.md', 'git add notes/a.md'], () => 'deny');
  assert.deepEqual(t.asked.map((r) => r.args.command), ['cat notes/a.md', 'git add notes/a.md']);
  assert.match(String(t.asked[1].preview), /PS4/);
  assert.equal(await t.fs.readText('notes/a.md'), 'TODO a\n');

  // Control: in a clean session the same lines run without a question.
  const c = await shellWorkspace({ level: 'supervised', files: { 'notes/a.md': 'TODO a\n' } });
  c.registry.addRule({ tool: 'shell', kind: 'command', pattern: 'git add' });
  await c.turn(['cat notes/a.md', 'ls notes', 'git add notes/a.md']);
  assert.deepEqual(c.asked, []);
});
