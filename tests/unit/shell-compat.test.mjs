// Shell compatibility: every case of tests/fixtures/shell-corpus/corpus.txt runs in Clawser's
// shell — over the vendored interpreter, as in the page — over a MemoryFileSystem holding the
// corpus tree, and its stdout, exit code and resulting files must equal what real bash did
// (expected.json, recorded by scripts/record-shell-corpus.mjs) — except the few cases of
// DIFFERENCES, where the documented behaviour is asserted instead (docs/shell.md, "Shell
// compatibility", lists them). When /usr/bin/bash is here, a handful of cases are also run by real
// bash again, so a stale expected.json is caught.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { useVendoredInterpreter } from '../fixtures/vendored-interpreter.mjs';
import { TREE } from '../fixtures/shell-corpus/tree.mjs';
import {
  loadCorpus,
  recordCase,
  treeSnapshot,
  treeDelta,
  fileValue,
  EXPECTED_FILE,
  REAL_BASH,
  MANUAL,
} from '../../scripts/record-shell-corpus.mjs';

// The interpreter the page runs (the vendored build and its patches: globs ending in /, their
// collation), not node_modules' Node build.
useVendoredInterpreter();
const { createShell } = await import('../../web/shell/shell.js');

/** @typedef {import('../../scripts/record-shell-corpus.mjs').Recording} Recording */
/** @typedef {import('../../scripts/record-shell-corpus.mjs').TreeDelta} TreeDelta */

/**
 * Cases where Clawser's shell knowingly differs from bash: what it does instead, and why. Each
 * field given replaces the recorded one; the fields left out must still match bash. An entry
 * that starts failing because the shell now does what bash does (a fix, a wrapper command) is
 * deleted here and in docs/shell.md.
 * @type {Record<string, {reason: string, stdout?: string, exitCode?: number, files?: TreeDelta}>}
 */
const DIFFERENCES = {
  'du-sizes': {
    reason: 'the workspace has no disk blocks: `du` adds up file sizes (in KiB, rounded up), not blocks in use',
    stdout: '1\tnotes\n',
  },
  'tree-notes': {
    reason:
      "just-bash's `tree` reports like tree 1.x (the top folder not counted) and does not " +
      'escape spaces in names (tree 2.x writes `meeting\\ notes.md`)',
    stdout:
      'notes\n|-- archive\n|   |-- 2023.md\n|   `-- old\n|       `-- ancient.txt\n|-- ' +
      'ideas.md\n|-- meeting notes.md\n`-- todo.md\n\n2 directories, 5 files\n',
  },
};

const corpus = loadCorpus();
const expected = /** @type {{cases: Recording[]}} */ (JSON.parse(readFileSync(EXPECTED_FILE, 'utf8')));
const recorded = new Map(expected.cases.map((c) => [c.id, c]));
const initial = treeSnapshot(TREE);

/** A MemoryFileSystem holding the corpus tree. */
async function treeFs() {
  const fs = new MemoryFileSystem();
  for (const [path, content] of Object.entries(TREE)) {
    if (path.endsWith('/')) await fs.mkdir(path.slice(0, -1));
    else await fs.write(path, content);
  }
  return fs;
}

/** @param {MemoryFileSystem} fs */
async function snapshotMemory(fs) {
  /** @type {Record<string, string>} */
  const out = {};
  /** @param {string} dir */
  const walk = async (dir) => {
    for (const entry of await fs.list(dir)) {
      const path = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.kind === 'directory') {
        out[`${path}/`] = '';
        await walk(path);
      } else {
        out[path] = fileValue(await fs.readBytes(path));
      }
    }
  };
  await walk('');
  return out;
}

/** @param {string} cmd */
async function runVirtual(cmd) {
  const fs = await treeFs();
  const shell = createShell({ fs, env: { LC_ALL: 'C', TZ: 'UTC' } });
  const r = await shell.run(cmd, { stdin: '', timeoutMs: 20_000 });
  return { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode, files: treeDelta(initial, await snapshotMemory(fs)) };
}

test('the corpus: at least 150 cases, all recorded from the current corpus text', () => {
  assert.ok(corpus.length >= 150, `only ${corpus.length} cases`);
  for (const c of corpus) {
    const r = recorded.get(c.id);
    assert.ok(r, `${c.id} is not in expected.json: run node scripts/record-shell-corpus.mjs`);
    assert.equal(r.cmd, c.cmd, `${c.id} changed since it was recorded: run node scripts/record-shell-corpus.mjs`);
  }
  assert.equal(expected.cases.length, corpus.length, 'expected.json has cases the corpus no longer has');
  for (const id of Object.keys(DIFFERENCES)) assert.ok(recorded.has(id), `DIFFERENCES names an unknown case ${id}`);
  for (const id of Object.keys(MANUAL)) assert.ok(recorded.has(id), `MANUAL names an unknown case ${id}`);
});

test('every case: the virtual shell does what real bash did (stdout, exit code, files)', async (t) => {
  for (const c of corpus) {
    const want = recorded.get(c.id);
    if (!want) continue;
    await t.test(c.id, async () => {
      const got = await runVirtual(c.cmd);
      const diff = DIFFERENCES[c.id];
      const stdout = diff?.stdout ?? want.stdout;
      const exitCode = diff?.exitCode ?? want.exitCode;
      const files = diff?.files ?? want.files;
      const context = `case ${c.id}${diff ? ` (a documented difference: ${diff.reason})` : ''}:\n${c.cmd}\n--- stderr:\n${got.stderr}`;
      assert.equal(got.stdout, stdout, `stdout of ${context}`);
      assert.equal(got.exitCode, exitCode, `exit code of ${context}`);
      assert.deepEqual(got.files, files, `files after ${context}`);
    });
  }
});

/** Re-run by real bash: bash, coreutils, grep and sed only (no awk: mawk and gawk differ; no jq or tar). */
const RECHECK = [
  'pipe-grep-wc',
  'redirect-and-both',
  'heredoc-expands',
  'glob-globstar',
  'brace-mkdir',
  'cd-pwd',
  'cp-recursive',
  'find-type-d',
  'sort-k-t',
  'sed-i',
  'script-rename-loop',
];

test('expected.json is not stale: a handful of cases run again by real bash', {
  skip: !existsSync(REAL_BASH) && 'no /usr/bin/bash here',
}, () => {
  for (const id of RECHECK) {
    const c = corpus.find((x) => x.id === id);
    assert.ok(c, `RECHECK names an unknown case ${id}`);
    const fresh = recordCase(c);
    const want = /** @type {Recording} */ (recorded.get(c.id));
    assert.deepEqual(
      { stdout: fresh.stdout, exitCode: fresh.exitCode, files: fresh.files },
      { stdout: want.stdout, exitCode: want.exitCode, files: want.files },
      `real bash no longer does what expected.json says for ${c.id}: run node scripts/record-shell-corpus.mjs`,
    );
  }
});
