// grep on a binary file (one holding a NUL byte) as GNU grep 3.8 (issue 32 review): a match is
// not printed — the line would put raw bytes on the terminal — but reported on stderr as
// `grep: FILE: binary file matches` (status 0); -c, -l, -L and -q are unchanged; -a (--text,
// --binary-files=text) prints the lines as text; -I (--binary-files=without-match) counts a
// binary file as not matching. The same with -r, and for standard input. Recorded from GNU grep
// 3.8 with LC_ALL=C; the corpus (tests/fixtures/shell-corpus) holds the stdout side.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createShell } from '../../web/shell/shell.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';

async function shell() {
  const fs = new MemoryFileSystem();
  await fs.write('bin.dat', 'hello\0x\n');
  await fs.write('a.txt', 'hello\n');
  await fs.write('d/b.bin', 'zz\0hello\nhello again\n');
  return createShell({ fs, env: { LC_ALL: 'C' } });
}

/** @param {string} stdout @param {string} stderr @param {number} exitCode */
const result = (stdout, stderr, exitCode) => ({ stdout, stderr, exitCode });

test('a match in a binary file: "binary file matches" on stderr, no raw line on stdout (status 0), with -r too', async () => {
  const sh = await shell();
  assert.deepEqual(await sh.run('grep hello bin.dat'), result('', 'grep: bin.dat: binary file matches\n', 0));
  assert.deepEqual(
    await sh.run('grep -n hello d/b.bin'),
    result('', 'grep: d/b.bin: binary file matches\n', 0),
    'the NUL is on another line: the file is binary all the same',
  );
  assert.deepEqual(await sh.run('grep -v zzz bin.dat'), result('', 'grep: bin.dat: binary file matches\n', 0));
  assert.deepEqual(await sh.run('grep hello bin.dat a.txt'), result('a.txt:hello\n', 'grep: bin.dat: binary file matches\n', 0));
  const r = await sh.run('grep -r hello .');
  assert.equal(r.stdout, './a.txt:hello\n');
  assert.deepEqual(r.stderr.split('\n').filter(Boolean).sort(), [
    'grep: ./bin.dat: binary file matches',
    'grep: ./d/b.bin: binary file matches',
  ]);
  assert.equal(r.exitCode, 0);
  assert.deepEqual(await sh.run('cat bin.dat | grep hello'), result('', 'grep: (standard input): binary file matches\n', 0));
  assert.deepEqual(
    await sh.run('grep -s hello bin.dat'),
    result('', 'grep: bin.dat: binary file matches\n', 0),
    '-s keeps it: it is not an error',
  );
});

test('-I (--binary-files=without-match) skips binary files; -a (--text, --binary-files=text) reads them as text; \
the last one given wins', async () => {
  const sh = await shell();
  assert.deepEqual(await sh.run('grep -I hello bin.dat'), result('', '', 1));
  assert.deepEqual(await sh.run('grep -rI hello . | sort'), result('./a.txt:hello\n', '', 0));
  assert.deepEqual(await sh.run('grep -c -I hello bin.dat'), result('0\n', '', 1));
  assert.deepEqual(await sh.run('grep -L -I hello bin.dat a.txt'), result('bin.dat\n', '', 0));
  assert.deepEqual(await sh.run('grep -l -I hello bin.dat a.txt'), result('a.txt\n', '', 0));
  assert.deepEqual(await sh.run('printf "a\\0b\\n" | grep -I a'), result('', '', 1));
  assert.deepEqual(await sh.run('grep --binary-files=without-match hello bin.dat'), result('', '', 1));
  assert.deepEqual(await sh.run('grep -a hello bin.dat'), result('hello\0x\n', '', 0));
  assert.deepEqual(await sh.run('grep --text -n hello d/b.bin'), result('1:zz\0hello\n2:hello again\n', '', 0));
  assert.deepEqual(await sh.run('grep --binary-files=text hello bin.dat'), result('hello\0x\n', '', 0));
  assert.deepEqual(
    await sh.run('grep -rn -a hello . | sort'),
    result('./a.txt:1:hello\n./bin.dat:1:hello\0x\n./d/b.bin:1:zz\0hello\n./d/b.bin:2:hello again\n', '', 0),
  );
  assert.deepEqual(await sh.run('grep -aI hello bin.dat'), result('', '', 1));
  assert.deepEqual(await sh.run('grep -Ia hello bin.dat'), result('hello\0x\n', '', 0));
  assert.deepEqual(await sh.run('grep --binary-files=binary hello bin.dat'), result('', 'grep: bin.dat: binary file matches\n', 0));
  const bad = await sh.run('grep --binary-files=foo hello bin.dat');
  assert.equal(bad.exitCode, 2);
  assert.match(bad.stderr, /unknown binary-files type/);
});

test('control: -c, -l, -L and -q on a binary file as on text; text files print their lines; no match is status 1', async () => {
  const sh = await shell();
  assert.deepEqual(await sh.run('grep -c hello bin.dat'), result('1\n', '', 0));
  assert.deepEqual(await sh.run('grep -l hello bin.dat'), result('bin.dat\n', '', 0));
  assert.deepEqual(await sh.run('grep -q hello bin.dat; echo $?'), result('0\n', '', 0));
  assert.deepEqual(await sh.run('grep -rc hello . | sort'), result('./a.txt:1\n./bin.dat:1\n./d/b.bin:2\n', '', 0));
  assert.deepEqual(await sh.run('grep -rl hello . | sort'), result('./a.txt\n./bin.dat\n./d/b.bin\n', '', 0));
  assert.deepEqual(await sh.run('grep hello a.txt'), result('hello\n', '', 0));
  assert.deepEqual(await sh.run('grep -n hello a.txt'), result('1:hello\n', '', 0));
  assert.deepEqual(await sh.run('grep nomatch bin.dat'), result('', '', 1));
  assert.deepEqual(await sh.run('printf "a\\nb\\n" | grep b'), result('b\n', '', 0));
});
