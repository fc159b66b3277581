// Issue 32 §8: `sort`, `ls` and globs collate by the locale of the environment, as GNU's tools
// do: LC_ALL, then LC_COLLATE, then LANG; C and POSIX (C.UTF-8 too) are byte order, any other
// locale — or none set: the browser has one — the locale's order. The corpus (recorded with
// LC_ALL=C by real bash) holds the byte order; this machine has no other locale installed, so the
// locale-aware order is asserted as a UTF-8 locale gives it (case and punctuation weigh less than
// letters; ä goes with a in German). Globs are expanded by the interpreter itself: this file runs
// the vendored build the page runs (its patch orders them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { useVendoredInterpreter } from '../fixtures/vendored-interpreter.mjs';

useVendoredInterpreter();
const { createShell } = await import('../../web/shell/shell.js');

const NAMES = ['banana', 'Apple', 'cherry', 'apple', 'Banana', '_x', '10', '9'];
const BYTES = '10 9 Apple Banana _x apple banana cherry';
const LOCALE = '_x 10 9 apple Apple banana Banana cherry';

/** A shell in a folder holding NAMES (and NAMES as lines of words.txt), with `env`. @param {Record<string, string>} env */
async function shellIn(env) {
  const fs = new MemoryFileSystem();
  for (const n of NAMES) await fs.write(`g/${n}`, '');
  await fs.write('words.txt', `${NAMES.join('\n')}\n`);
  return createShell({ fs, env, cwd: '/g' });
}

/** @param {string} out */
const words = (out) => out.trim().split(/\s+/).join(' ');

const CASES = /** @type {[string, Record<string, string>, string][]} */ ([
  ["no locale set (the browser's)", {}, LOCALE],
  ['LANG=en_US.UTF-8', { LANG: 'en_US.UTF-8' }, LOCALE],
  ['LC_ALL=C (control: what bash does in the corpus)', { LC_ALL: 'C' }, BYTES],
  ['LANG=C', { LANG: 'C' }, BYTES],
  ['LC_ALL=POSIX', { LC_ALL: 'POSIX' }, BYTES],
  ['LANG=C.UTF-8', { LANG: 'C.UTF-8' }, BYTES],
  ['LC_COLLATE=C over LANG=en_US.UTF-8', { LANG: 'en_US.UTF-8', LC_COLLATE: 'C' }, BYTES],
  ['LC_ALL=en_US.UTF-8 over LC_COLLATE=C', { LC_ALL: 'en_US.UTF-8', LC_COLLATE: 'C' }, LOCALE],
]);

for (const [name, env, order] of CASES) {
  test(`sort, ls and globs collate alike with ${name}`, async () => {
    const shell = await shellIn(env);
    assert.equal(words((await shell.run('sort ../words.txt')).stdout), order, 'sort');
    assert.equal(words((await shell.run('ls')).stdout), order, 'ls');
    assert.equal(words((await shell.run('echo *')).stdout), order, 'glob');
    assert.equal(words((await shell.run('for f in *; do echo "$f"; done')).stdout), order, 'glob in a for loop');
    assert.equal(words((await shell.run('ls -r')).stdout), order.split(' ').reverse().join(' '), 'ls -r');
    assert.equal(words((await shell.run("ls -l | tail -n +2 | awk '{print $9}'")).stdout), order, 'ls -l');
    assert.equal(
      words((await shell.run('ls cherry Apple _x 10')).stdout),
      order
        .split(' ')
        .filter((w) => ['cherry', 'Apple', '_x', '10'].includes(w))
        .join(' '),
      'ls with operands',
    );
  });
}

test('the locale can change for one command or for the rest of the line', async () => {
  const shell = await shellIn({});
  assert.equal(words((await shell.run('LC_ALL=C sort ../words.txt')).stdout), BYTES);
  assert.equal(words((await shell.run('LC_ALL=C ls')).stdout), BYTES);
  assert.equal(words((await shell.run('sort ../words.txt')).stdout), LOCALE, "control: the next line is back to the session's locale");
  assert.equal(words((await shell.run('export LC_ALL=C; echo *; sort ../words.txt')).stdout), `${BYTES} ${BYTES}`);
});

test('a German locale puts ä with a; the C locale after z (bytes)', async () => {
  const fs = new MemoryFileSystem();
  for (const n of ['b', 'ä', 'a', 'z']) await fs.write(`d/${n}`, '');
  const de = createShell({ fs, env: { LANG: 'de_DE.UTF-8' }, cwd: '/d' });
  assert.equal(words((await de.run('ls; echo *; ls | sort')).stdout), 'a ä b z a ä b z a ä b z');
  const c = createShell({ fs, env: { LC_ALL: 'C' }, cwd: '/d' });
  assert.equal(words((await c.run('ls; echo *; ls | sort')).stdout), 'a b z ä a b z ä a b z ä');
});

/** Folders of mixed case, each with a subfolder or a file, for ls -R. */
async function treeShell(/** @type {Record<string, string>} */ env) {
  const fs = new MemoryFileSystem();
  for (const p of ['t/Banana/x/f', 't/apple/y/g', 't/apple/Y/h', 't/_x/i', 't/Apple/j', 't/a-c/k', 't/c.md']) await fs.write(p, '');
  return createShell({ fs, env, cwd: '/t' });
}

/** The section headers of ls -R's output. @param {string} out */
const headers = (out) =>
  out
    .split('\n')
    .filter((l) => l.endsWith(':'))
    .join(' ');

test('ls -R with LC_ALL=C: sections in byte order, depth first (as its listings), -r reversed, no doubled slash', async () => {
  const c = await treeShell({ LC_ALL: 'C' });
  // GNU ls with LC_ALL=C: byte order, a folder's subfolders right after it.
  assert.equal(
    (await c.run('ls -R')).stdout,
    '.:\nApple\nBanana\n_x\na-c\napple\nc.md\n\n./Apple:\nj\n\n./Banana:\nx\n\n./Banana/x:\nf\n\n./' +
      '_x:\ni\n\n./a-c:\nk\n\n./apple:\nY\ny\n\n./apple/Y:\nh\n\n./apple/y:\ng\n',
  );
  assert.equal(headers((await c.run('ls -Rr')).stdout), '.: ./apple: ./apple/y: ./apple/Y: ./a-c: ./_x: ./Banana: ./Banana/x: ./Apple:');
  assert.equal(headers((await c.run('ls -lR')).stdout), '.: ./Apple: ./Banana: ./Banana/x: ./_x: ./a-c: ./apple: ./apple/Y: ./apple/y:');
  assert.equal(headers((await c.run('ls -R apple/')).stdout), 'apple/: apple/Y: apple/y:', 'no doubled slash after an operand ending in /');
});

test('control: ls -R with a locale (en_US.UTF-8): sections in the locale order, depth first, as before', async () => {
  const locale = await treeShell({ LANG: 'en_US.UTF-8' });
  assert.equal(
    headers((await locale.run('ls -R')).stdout),
    '.: ./_x: ./a-c: ./apple: ./apple/y: ./apple/Y: ./Apple: ./Banana: ./Banana/x:',
  );
  assert.equal(
    headers((await locale.run('ls -lR')).stdout),
    '.: ./_x: ./a-c: ./apple: ./apple/y: ./apple/Y: ./Apple: ./Banana: ./Banana/x:',
  );
  assert.equal((await locale.run('ls -R Apple')).stdout, 'Apple:\nj\n', 'a folder without subfolders: its header all the same, as GNU');
});

test("LANG is in the environment (the browser's language, en_US.UTF-8 without one): \
echo $LANG and env say the locale sort and ls use", async () => {
  const { posixLocale } = await import('../../web/shell/commands/collate.js');
  const shell = await shellIn({});
  const lang = (await shell.run('echo "$LANG"')).stdout.trim();
  assert.equal(lang, posixLocale(globalThis.navigator?.language));
  assert.match(lang, /^[a-z]{2,3}_[A-Z]{2}\.UTF-8$/);
  assert.equal((await shell.run('env | grep ^LANG=')).stdout, `LANG=${lang}\n`);
  assert.equal(posixLocale(undefined), 'en_US.UTF-8');
  assert.equal(posixLocale('de'), 'de_DE.UTF-8');
  assert.equal(posixLocale('pt-BR'), 'pt_BR.UTF-8');
  assert.equal(posixLocale('zh-Hant-TW'), 'zh_TW.UTF-8');
  assert.equal(posixLocale('not a tag!'), 'en_US.UTF-8');
});

test('unset LANG (no LC_* either): byte order, as bash in the C locale', async () => {
  const shell = await shellIn({});
  await shell.run('unset LANG');
  assert.equal((await shell.run('echo "[$LANG]"')).stdout, '[]\n');
  assert.equal(words((await shell.run('sort ../words.txt')).stdout), BYTES, 'sort');
  assert.equal(words((await shell.run('ls')).stdout), BYTES, 'ls');
  assert.equal(words((await shell.run('echo *')).stdout), BYTES, 'glob');
});

test('control: LANG set again (or given at start) is the locale order again', async () => {
  const shell = await shellIn({});
  await shell.run('unset LANG');
  assert.equal(words((await shell.run('LANG=en_US.UTF-8 sort ../words.txt')).stdout), LOCALE);
  assert.equal(words((await shell.run('export LANG=en_US.UTF-8; ls; echo *')).stdout), `${LOCALE} ${LOCALE}`);
  const given = await shellIn({ LANG: 'de_DE.UTF-8' });
  assert.equal((await given.run('echo $LANG')).stdout, 'de_DE.UTF-8\n');
});
