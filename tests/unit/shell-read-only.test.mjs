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

test('the probe of §1 through the agent: the planting line is asked for, and the next line under the rule "git add" only adds (control: \
unplanted, git add runs unasked)', async () => {
  const w = await shellWorkspace({ level: 'supervised', files: { 'notes/a.md': 'TODO a\n' } });
  w.registry.addRule({ tool: 'shell', kind: 'command', pattern: 'git add' });
  // The user says yes to whatever is asked: even an allowed planting line must plant nothing.
  const { results } = await w.turn([PROBE, 'git add notes/a.md'], () => 'once');
  assert.deepEqual(
    w.asked.map((r) => [r.tool, r.args.command]),
    [['shell', PROBE]],
    'the planting line is not read-only: asked; git add is covered by its rule',
  );
  assert.equal(w.asked[0].permission, 'write');
  assert.equal(await w.fs.readText('notes/a.md'), 'TODO a\n', 'notes/ is still there');
  assert.equal(await w.fs.stat('pwned.txt'), null, 'nothing was written');
  assert.match(results[1], /^exit code: 0/);
  assert.deepEqual(
    (await w.git.status()).map((s) => s.path).filter((p) => p.startsWith('notes/')),
    ['notes/a.md'],
  );

  // Control: a fresh workspace, nothing planted: a read-only line and git add under its rule both run without a question.
  const c = await shellWorkspace({ level: 'supervised', files: { 'notes/a.md': 'TODO a\n' } });
  c.registry.addRule({ tool: 'shell', kind: 'command', pattern: 'git add' });
  const control = await c.turn(['grep -c TODO notes/a.md', 'git add notes/a.md']);
  assert.deepEqual(c.asked, []);
  assert.match(control.results[0], /^exit code: 0\nstdout:\n1\n/);
  assert.match(control.results[1], /^exit code: 0/);
});

test('a line run read-only keeps no alias, function, option or special variable; a plain variable and the working directory stay (control: \
the same lines run normally do change the session)', async () => {
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
    'd=\\$; code="a[${d}(rm -rf notes)]"',
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

test('a word that expands where an option could stand makes a line not read-only; after `--`, \
behind a literal start or as an operand it does not (the controls)', () => {
  const shell = createShell({ fs: new MemoryFileSystem() });
  const verdict = (/** @type {string} */ line) => readOnlyVerdict(shell.parse(line));
  for (const line of [
    PROBE,
    'printf "$fmt" x',
    '"$x" notes',
    'cat "$f"',
    'cat $f',
    'grep -n TODO "$@"',
    'wc -l *.md',
    'ls -$opt',
    'echo "$x"',
    'test $o $n',
    'cd "$d"',
    'head -n 1 $(echo -v)',
  ]) {
    assert.equal(verdict(line).readOnly, false, line);
  }
  for (const line of [
    'cat -- "$f"',
    'cat "./$f"',
    'wc -l ./*.md',
    'wc -l -- *.md',
    'echo "x=$x"',
    'printf \'%s\\n\' "$x"',
    '[ -f "$f" ]',
    '[ "$a" = "$b" ]',
    '[[ -n $x ]]',
    'grep -n TODO notes/a.md',
    'ls notes',
    'echo hello $x',
    'cd -- "$d"',
  ]) {
    assert.equal(verdict(line).readOnly, true, line);
  }
});

test('loops whose body only reads are read-only; a loop that writes or runs code is not (control)', () => {
  const shell = createShell({ fs: new MemoryFileSystem() });
  const verdict = (/** @type {string} */ line) => readOnlyVerdict(shell.parse(line));
  for (const line of [
    'for f in ./*.md; do wc -l -- "$f"; done',
    'for x in a b c; do echo "item $x"; done',
    'while IFS= read -r line; do echo "got $line"; done < notes/a.md',
    'until false; do break; done',
    'while read -r a b; do echo "pair: $a $b"; done < list.txt',
    'for f in ./*; do printf \'%s\\n\' "$f"; done',
  ]) {
    assert.equal(verdict(line).readOnly, true, line);
  }
  for (const line of [
    'for f in *.md; do rm -- "$f"; done',
    'while true; do echo x > f; done',
    'for ((i = 0; i < 3; i++)); do echo; done',
    'while read -r PATH; do :; done < f',
    'while read -r "$n"; do :; done < f',
    'while read BASH_ALIAS_ls; do :; done < f',
  ]) {
    assert.equal(verdict(line).readOnly, false, line);
  }
});

test('the preamble and yield names cannot be aliased or redefined: not by a read-only line, not by an allowed one, not by eval (control: \
an ordinary alias and function are kept)', async () => {
  const fs = new MemoryFileSystem();
  await fs.write('notes/a.md', 'TODO\n');
  const shell = createShell({ fs });
  const attempts = [
    "alias __clawser_status='echo pwned > p1.txt'",
    "alias __clawser_yield='echo pwned > p2.txt'",
    "printf -v BASH_ALIAS___clawser_status '%s' 'echo pwned > p3.txt'",
    "declare BASH_ALIAS___clawser_yield='echo pwned > p4.txt'",
    'n=__clawser; eval "${n}_status() { echo pwned > p5.txt; }"',
    'eval \'alias __clawser_yield="echo pwned > p6.txt"\'',
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
  assert.deepEqual(
    (await fs.list('')).map((e) => e.name),
    ['notes'],
    'no pwned file',
  );
  assert.deepEqual(shell.aliases(), []);
  // Control: ordinary aliases and functions are a session's to keep.
  await shell.run("alias ll='echo listed'; greet() { echo hi; }");
  assert.equal((await shell.run('ll; greet')).stdout, 'listed\nhi\n');
});

test("the dialog sees what a session's function or alias runs, and a session that traces with code in PS4 is never read-only or covered \
(control: a clean session)", async () => {
  const w = await shellWorkspace({ level: 'supervised', files: { 'notes/a.md': 'TODO a\n' } });
  w.registry.addRule({ tool: 'shell', kind: 'command', pattern: 'git add' });
  w.registry.addRule({ tool: 'shell', kind: 'command', pattern: 'ls' });
  await w.turn(["alias ls='rm -rf notes'; git() { rm -rf notes; }"], () => 'once');
  w.asked.length = 0;
  await w.turn(['ls', 'git add notes/a.md'], () => 'deny');
  assert.deepEqual(
    w.asked.map((r) => r.args.command),
    ['ls', 'git add notes/a.md'],
    'both asked: the rules do not cover a redefined command',
  );
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
  assert.deepEqual(
    t.asked.map((r) => r.args.command),
    ['cat notes/a.md', 'git add notes/a.md'],
  );
  assert.match(String(t.asked[1].preview), /PS4/);
  assert.equal(await t.fs.readText('notes/a.md'), 'TODO a\n');

  // Control: in a clean session the same lines run without a question.
  const c = await shellWorkspace({ level: 'supervised', files: { 'notes/a.md': 'TODO a\n' } });
  c.registry.addRule({ tool: 'shell', kind: 'command', pattern: 'git add' });
  await c.turn(['cat notes/a.md', 'ls notes', 'git add notes/a.md']);
  assert.deepEqual(c.asked, []);
});

// Review of §1: every construct that binds a name binds it like an assignment.

test('a for-loop variable binds its name: `for BASH_ALIAS_git in …` under the rule "git add" asks and deletes nothing (control: \
a plain loop variable is covered and adds)', async () => {
  const line = "for BASH_ALIAS_git in 'rm -rf notes; echo'; do git add b.txt; done";
  const w = await shellWorkspace({ level: 'supervised', files: { 'notes/a.md': 'TODO a\n', 'b.txt': 'b\n' } });
  w.registry.addRule({ tool: 'shell', kind: 'command', pattern: 'git add' });
  await w.turn([line], () => 'deny');
  assert.deepEqual(
    w.asked.map((r) => r.args.command),
    [line],
    'not covered by the rule: asked',
  );
  assert.equal(w.asked[0].rule, undefined, 'no narrowed rule is offered for it');
  assert.equal(await w.fs.readText('notes/a.md'), 'TODO a\n', 'notes/ is still there');

  // Control: the same loop over a plain name is covered by "git add" and runs unasked.
  const c = await shellWorkspace({ level: 'supervised', files: { 'notes/a.md': 'TODO a\n', 'b.txt': 'b\n' } });
  c.registry.addRule({ tool: 'shell', kind: 'command', pattern: 'git add' });
  const { results } = await c.turn(['for f in b.txt; do git add -- "$f"; done']);
  assert.deepEqual(c.asked, []);
  assert.match(results[0], /^exit code: 0/);
  assert.deepEqual(
    (await c.git.status()).filter((s) => s.path === 'b.txt').map((s) => s.path),
    ['b.txt'],
  );
  assert.equal(await c.fs.readText('notes/a.md'), 'TODO a\n');
});

test('every construct that binds a name counts as assigning it: a meaningful name makes the line neither read-only nor coverable \
(controls: the same constructs over plain names, `case`)', () => {
  const shell = createShell({ fs: new MemoryFileSystem() });
  const verdict = (/** @type {string} */ line) => readOnlyVerdict(shell.parse(line));
  /** Each binds IFS, PATH or an alias's variable. */
  const binding = [
    'for IFS in x; do cat a; done',
    'for PATH in /x; do cat a; done',
    "for BASH_ALIAS_cat in 'rm -rf notes'; do :; done",
    'cat {IFS}</dev/null',
    'cat {BASH_ALIAS_ls}</dev/null',
    "printf -v IFS '%s' x",
    "printf -vBASH_ALIAS_ls '%s' x",
    'read IFS < a',
    'read -a PATH < a',
    'mapfile -t PATH < a',
    'readarray IFS < a',
    'getopts ab IFS',
    'declare IFS=x',
    'typeset PATH=/x',
    'local IFS=x',
    'export PATH=/x',
    'readonly IFS',
    'let IFS=1',
    '((IFS = 1))',
    'echo ${IFS:=x}',
    'echo ${IFS=x}',
    'echo $((IFS = 1))',
    'IFS=(a b)',
    'PATH=/x',
    'hash -p /a.sh ls',
  ];
  for (const line of binding) {
    const v = verdict(line);
    assert.equal(v.readOnly, false, `${line} is not read-only`);
    assert.equal(v.coverable, false, `${line} is not coverable by a narrowed rule`);
  }
  // Controls: plain names bind plain variables (a loop, `{fd}`, read), case binds nothing.
  for (const line of [
    'for f in ./*.md; do wc -l -- "$f"; done',
    'for x in a b; do echo "item $x"; done',
    'read -r line < a',
    'case x in x) cat a;; esac',
  ]) {
    assert.equal(verdict(line).readOnly, true, line);
  }
  for (const line of ['cat {fd}</dev/null', 'for f in b.txt; do git add -- "$f"; done', 'case "$1" in a) git add a;; esac']) {
    assert.equal(verdict(line).coverable, true, line);
  }
});

test('a read-only line that binds IFS or PATH through a loop or a {fd} redirection keeps neither (control: a plain loop variable is kept, \
as bash keeps it)', async () => {
  const shell = createShell({ fs: new MemoryFileSystem() });
  for (const line of ['for IFS in /; do :; done', 'for PATH in /nowhere; do :; done', 'cat {IFS}</dev/null'])
    await shell.run(line, { readOnly: true });
  assert.equal(shell.variables.IFS, undefined);
  assert.equal(shell.variables.PATH, '/usr/bin:/bin');
  await shell.run('for item in a b; do :; done', { readOnly: true });
  assert.equal(shell.variables.item, 'b');
});

// Review of §1: the hidden preamble cannot be shadowed.

test('a session function or alias named like a builtin the preamble calls (set, shopt, :, builtin) changes nothing in the next line \
(control: an ordinary function and alias run)', async () => {
  const definitions = [
    'set() { rm -rf notes; }',
    'shopt() { rm -rf notes; }',
    ':() { rm -rf notes; }',
    'builtin() { rm -rf notes; }',
    'true() { rm -rf notes; }',
    "alias set='rm -rf notes; builtin set'",
    "alias shopt='rm -rf notes; builtin shopt'",
    "alias :='rm -rf notes; true'",
    "alias builtin='rm -rf notes; builtin'",
    'n=shopt; alias "$n=rm -rf notes; echo"',
    'eval "shopt() { rm -rf notes; }"',
    '__just_bash_tee_restore() { rm -rf notes; }',
  ];
  for (const definition of definitions) {
    for (const options of ['', 'set -o errexit; shopt -s nullglob']) {
      const fs = new MemoryFileSystem();
      await fs.write('notes/a.md', 'TODO\n');
      const shell = createShell({ fs });
      if (options) await shell.run(options);
      await shell.run(definition);
      const next = await shell.run('echo hi | cat');
      assert.equal(next.stdout, 'hi\n', `${definition} (${options || 'default options'})`);
      assert.equal(await fs.readText('notes/a.md'), 'TODO\n', `${definition}: notes/ is still there`);
      assert.equal((await shell.run('echo $?')).stdout, '0\n', 'the status of the line before is restored');
    }
  }
  // The names the preamble calls cannot be defined in plain sight either.
  const shell = createShell({ fs: new MemoryFileSystem() });
  for (const line of ['set() { :; }', 'shopt() { :; }', "alias shopt='echo'"]) {
    const r = await shell.run(line);
    assert.equal(r.exitCode, 2, line);
    assert.match(r.stderr, /is reserved/);
  }
  assert.deepEqual([...shell.functions.keys()], []);
  assert.deepEqual(shell.aliases(), []);
  // Control: ordinary names are the session's, and $? still carries over.
  await shell.run("greet() { echo hi; }; alias ll='echo listed'");
  assert.equal((await shell.run('greet; ll')).stdout, 'hi\nlisted\n');
  await shell.run('false');
  assert.equal((await shell.run('echo $?')).stdout, '1\n');
});

test("with set -x on, the trace shows the line's own commands, not the hidden preamble (control: bash's trace of the line)", async () => {
  const shell = createShell({ fs: new MemoryFileSystem() });
  await shell.run('set -x');
  const r = await shell.run('echo a');
  assert.equal(r.stderr, '+ echo a\n');
  await shell.run('false');
  const s = await shell.run('echo $?');
  assert.equal(s.stdout, '1\n');
  assert.equal(s.stderr, '+ echo 1\n');
});

// Review of §1: the dialog shows every definition a line reaches.

test('the dialog shows the session definitions a line reaches at any depth: a function calling a function, an alias to a function, \
a computed name (control: a line that reaches none shows none)', async () => {
  const w = await shellWorkspace({ level: 'supervised', files: { 'notes/a.md': 'TODO a\n' } });
  await w.turn(["g() { rm -rf notes; }; f() { g; }; alias h=g; alias k='echo start; h'; x=g"], () => 'once');
  w.asked.length = 0;
  await w.turn(['f', 'h', 'k', '$x', 'touch y.txt'], () => 'deny');
  const preview = (/** @type {string} */ command) => String(w.asked.find((r) => r.args.command === command)?.preview);
  for (const command of ['f', 'h', 'k', '$x'])
    assert.match(preview(command), /g is a function in this session: g\(\) \{ rm -rf notes; \}/, command);
  assert.match(preview('f'), /f is a function in this session: f\(\) \{ g; \}/);
  assert.match(preview('k'), /k is an alias in this session: echo start; h.*h is an alias in this session: g/s);
  assert.match(preview('$x'), /a computed command name/);
  // Control: a line that reaches no definition of the session lists none.
  assert.doesNotMatch(preview('touch y.txt'), /The session also runs|in this session/);
  assert.equal(await w.fs.readText('notes/a.md'), 'TODO a\n');
});

// Review of §1 (the dialog): where the line runs.

test("the approval preview names the session's working directory when it is not / (control: at / it says nothing about it)", async () => {
  const w = await shellWorkspace({ level: 'supervised', files: { 'notes/a.md': 'TODO a\n' } });
  await w.turn(['cd notes', 'rm a.md'], () => 'deny');
  assert.deepEqual(
    w.asked.map((r) => r.args.command),
    ['rm a.md'],
    'cd is read-only',
  );
  assert.match(String(w.asked[0].preview), /Runs in \/notes\b/);
  const c = await shellWorkspace({ level: 'supervised', files: { 'notes/a.md': 'TODO a\n' } });
  await c.turn(['rm notes/a.md'], () => 'deny');
  assert.doesNotMatch(String(c.asked[0].preview), /Runs in/);
  assert.equal(await c.fs.readText('notes/a.md'), 'TODO a\n');
});
