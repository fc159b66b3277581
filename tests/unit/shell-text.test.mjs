// The shell's own text commands (web/shell/commands/text.js: tr, cut, uniq, sed's literal
// s///, awk printing fields; grep's literal search in grep.js; sort's whole-line order) against
// real bash with GNU coreutils, grep and sed, over the same files: for a matrix of options and
// inputs — plain text, CRLF line ends, no final newline, empty, Unicode, bytes that are not
// UTF-8 and control characters — stdout and exit status must be bash's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { useVendoredInterpreter } from '../fixtures/vendored-interpreter.mjs';

useVendoredInterpreter();
const { createShell } = await import('../../web/shell/shell.js');

const BASH = '/usr/bin/bash';

/** Inputs: name → bytes. */
const INPUTS = {
  'plain.txt': 'alpha beta gamma\nbeta beta\n\ngamma alpha beta delta\nfoo bar foo\nfoo bar foo\nzeta\n',
  'crlf.txt': 'alpha beta\r\nbeta alpha\r\n\r\nfoo foo\r\nfoo foo\r\n',
  'nonl.txt': 'one two\ntwo three\nthree four',
  'empty.txt': '',
  'unicode.txt': 'café crème\nnaïve café\n日本 語 テキスト\ncafé crème\nÅngström x\n',
  'bytes.bin': Buffer.from([0x61, 0xff, 0x20, 0x62, 0x0a, 0x80, 0x81, 0x09, 0x63, 0x0a, 0x01, 0x7f, 0x20, 0x64, 0x0a]),
  'tabs.tsv': 'a\tb\tc\nd\te\nf\n\tg\th\n',
  'csv.csv': 'x,y,z\n1,2,3\n4,,6\nnocomma\n',
  'dups.txt': 'a\na\nb\nc\nc\nc\nd\na\n',
  'comments.txt': '# head\nTODO one\n#x\nline with TODO\nfoo.bar\n a.b\nend$\n',
  'tree/a/one.txt': 'TODO a\nnothing\nTODO again\n',
  'tree/a/two.md': 'no\n',
  'tree/b/three.txt': 'xTODO\n',
  'tree/.hidden': 'TODO hidden\n',
};

const TEXTS = ['plain.txt', 'crlf.txt', 'nonl.txt', 'empty.txt', 'unicode.txt', 'bytes.bin'];

/** @type {string[]} */
const COMMANDS = [];
for (const f of TEXTS) {
  // GNU grep counts a file that is not UTF-8 as binary in a UTF-8 locale (the shell's grep only
  // one holding a NUL byte): bytes.bin is searched in the C locale, where it is text to both.
  const grep = f === 'bytes.bin' ? 'LC_ALL=C grep' : 'grep';
  COMMANDS.push(
    `tr 'a-z' 'A-Z' < ${f}`,
    `tr -d 'aeiou\\r' < ${f}`,
    `tr -s ' o' < ${f}`,
    `tr -c 'a-z\\n' '_' < ${f}`,
    `tr '[:lower:]' '[:upper:]' < ${f}`,
    `tr -cd '[:alnum:]\\n' < ${f}`,
    `tr -s 'a-z' 'A-Z' < ${f}`,
    `tr 'abc' 'x' < ${f}`,
    `tr -d '\\200-\\377' < ${f}`,
    `tr 'A-Z' 'a-z' < ${f}`,
    `tr -d 'a-z' < ${f}`,
    `cut -d' ' -f1-2 ${f}`,
    `cut -d' ' -f3 ${f}`,
    `cut -d' ' -f2-3 -s ${f}`,
    `cut -d' ' -f1- ${f}`,
    `cut -d' ' -f9 ${f}`,
    `cut -d' ' -f1 -s ${f}`,
    `cut -d' ' -f2 -s ${f}`,
    `cut -c1-3 ${f}`,
    `cut -b2- ${f}`,
    `cut --complement -d' ' -f1 ${f}`,
    `cut -d' ' -f1,3 --output-delimiter=: ${f}`,
    `cat ${f} | cut -d' ' -f3-`,
    `uniq ${f}`,
    `uniq -c ${f}`,
    `sort ${f} | uniq -d`,
    `sort ${f} | uniq -u`,
    `sort ${f} | uniq -cd`,
    `sed 's/a/X/' ${f}`,
    `sed 's/a/X/g' ${f}`,
    `sed -e 's/foo/b/' -e 's/b/c/g' ${f}`,
    `sed 's|é|e|g;s/ /_/' ${f}`,
    `cat ${f} | sed 's/beta/BETA/g'`,
    `awk '{print $2, $1}' ${f}`,
    `awk '{print $NF}' ${f}`,
    `awk '{ print }' ${f}`,
    `awk '{print $1,$3}' < ${f}`,
    `awk -F' ' '{print $2}' ${f}`,
    `${grep} a ${f}`,
    `${grep} -v a ${f}`,
    `${grep} -c a ${f}`,
    `${grep} -n o ${f}`,
    `${grep} -vn o ${f}`,
    `${grep} '^a' ${f}`,
    `${grep} 'a$' ${f}`,
    `${grep} -c '^$' ${f}`,
    `${grep} 'é' ${f}`,
    `${grep} -H foo ${f}`,
    `cat ${f} | ${grep} -c o`,
    `${grep} -q beta ${f}; echo $?`,
    `sort ${f}`,
    `sort -r ${f}`,
    `sort -u ${f}`,
  );
}
COMMANDS.push(
  `cut -f2 tabs.tsv`,
  `cut -f1,3 -s tabs.tsv`,
  `cut -d, -f2 csv.csv`,
  `cut -d, -f1,3 -s csv.csv`,
  `awk -F, '{print $2}' csv.csv`,
  `awk -F'\\t' '{print $3, $1}' tabs.tsv`,
  `uniq -c dups.txt`,
  `uniq -d dups.txt`,
  `uniq -u dups.txt`,
  `cat dups.txt | uniq -c | sort -rn`,
  `grep -v '^#' comments.txt`,
  `grep -F 'foo.bar' comments.txt`,
  `grep -F '#' comments.txt`,
  `grep 'end\\$' comments.txt`,
  `grep -F 'a.b' comments.txt`,
  `grep -E 'TODO' comments.txt`,
  `grep '' comments.txt`,
  `grep -c '' empty.txt`,
  `grep -r TODO tree | sort`,
  `grep -rh TODO tree | sort`,
  `grep -rc TODO tree | sort`,
  `grep -rl TODO tree | sort`,
  `grep -rn TODO tree | sort`,
  `cd tree && grep -r TODO | sort`,
  `grep -l TODO tree/a/one.txt tree/a/two.md`,
  `grep TODO tree/a/one.txt missing.txt; echo $?`,
  `grep -s TODO missing.txt; echo $?`,
  `grep -x TODO comments.txt; echo $?`,
  `sed -n 's/a/b/p' plain.txt`,
  `sed 's/a/b/2' plain.txt`,
  `sed 's/foo/[&]/' plain.txt`,
  `sed 's/a/b/' plain.txt nonl.txt crlf.txt`,
  // The bench's pipeline (bench/shell.mjs).
  "cat plain.txt | grep -v '^#' | tr 'A-Z' 'a-z' | sed 's/foo/bar/g' | cut -d' ' -f1-5 " +
    "| awk '{print $2, $1}' | grep e | sort | uniq -c | sort -rn",
);

/** Runs each command in real bash in `dir`. @param {string} dir @param {string} command */
function bash(dir, command) {
  try {
    const stdout = execFileSync(BASH, ['--norc', '--noprofile', '-c', command], {
      cwd: dir,
      env: { PATH: process.env.PATH, LANG: 'C.UTF-8' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return { stdout: stdout.toString('latin1'), exitCode: 0 };
  } catch (err) {
    const e = /** @type {{stdout: Buffer, status: number}} */ (err);
    return { stdout: e.stdout.toString('latin1'), exitCode: e.status };
  }
}

test('the text commands print what bash prints, for options and inputs (CRLF, no final newline, empty, Unicode, bytes)', async () => {
  assert.ok(existsSync(BASH), `these tests compare with real bash at ${BASH}`);
  const dir = await mkdtemp(join(tmpdir(), 'clawser-shell-text-'));
  try {
    const fs = new MemoryFileSystem();
    for (const [name, content] of Object.entries(INPUTS)) {
      await mkdir(dirname(join(dir, name)), { recursive: true });
      await writeFile(join(dir, name), content);
      await fs.write(name, typeof content === 'string' ? content : new Uint8Array(content));
    }
    const shell = createShell({ fs, env: { LANG: 'C.UTF-8' } });
    /** @type {string[]} */
    const differences = [];
    for (const command of COMMANDS) {
      const want = bash(dir, command);
      const got = await shell.run(`cd /; ${command}`, { addToHistory: false });
      // The shell's stdout is text when it is UTF-8, else its bytes one char each (as it
      // hands them to the terminal): bash's is compared in the same form.
      const wantText = Buffer.from(want.stdout, 'latin1').toString('utf8');
      const valid = !wantText.includes('\ufffd');
      const same = got.stdout === (valid ? wantText : want.stdout);
      if (!same || got.exitCode !== want.exitCode)
        differences.push(
          `${command}\n  bash:  ${JSON.stringify(wantText)} (${want.exitCode})\n` +
            `  shell: ${JSON.stringify(got.stdout)} (${got.exitCode}) ${got.stderr}`,
        );
    }
    assert.deepEqual(differences, [], `${differences.length} of ${COMMANDS.length} commands differ from bash`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
