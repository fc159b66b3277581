#!/usr/bin/env node
// Records what real bash (GNU coreutils, grep, sed, mawk, jq, tar, gzip, zip) does with every case
// of the shell compatibility corpus, into tests/fixtures/shell-corpus/expected.json, which
// tests/unit/shell-compat.test.mjs holds Clawser's shell to.
//
//   node scripts/record-shell-corpus.mjs            record every case
//   node scripts/record-shell-corpus.mjs --check    record into memory, report the cases whose
//                                                   recording differs from expected.json
//
// Each case runs as `/usr/bin/bash -c CASE` in a fresh temporary folder holding the tree of
// tree.mjs, that folder as the working directory and as HOME, LC_ALL=C, TZ=UTC, umask 022 and
// no standard input. What is kept: stdout (the temporary folder's path is written as `/`, the
// path the virtual shell gives the tree's root), the exit code, and how the tree changed
// (`files`: path → content, or `sha256:…` for binary or long files, or null when removed;
// folders are `path/` → ''). Stderr is not kept: messages differ between implementations.
//
// `tree` is not installed on this machine: its cases are listed in MANUAL, with tree 2.1.0's
// output written in by hand.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, mkdirSync, writeFileSync, readdirSync, readFileSync, rmSync, existsSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { TREE } from '../tests/fixtures/shell-corpus/tree.mjs';

export const CORPUS_DIR = fileURLToPath(new URL('../tests/fixtures/shell-corpus/', import.meta.url));
export const CORPUS_FILE = join(CORPUS_DIR, 'corpus.txt');
export const EXPECTED_FILE = join(CORPUS_DIR, 'expected.json');
export const REAL_BASH = '/usr/bin/bash';

/** Files up to this size that are UTF-8 text are kept as text; the rest as a sha256. */
const MAX_TEXT = 2048;

/** @typedef {{id: string, title: string, cmd: string}} CorpusCase */
/** @typedef {Record<string, string | null>} TreeDelta path → content (or 'sha256:…'), null when removed */
/** @typedef {{id: string, cmd: string, stdout: string, exitCode: number, files: TreeDelta, manual?: string}} Recording */

/**
 * Cases whose command is not installed here; what bash with the command does, written by hand.
 * `tree` is not on the recording machine: its output below is tree 2.1.0's (Debian 12's package,
 * unpacked outside PATH and run by hand in the corpus tree with LC_ALL=C — ASCII-art lines,
 * names escaped like `meeting\\ notes.md`, the top folder counted in the report).
 * @type {Record<string, {stdout: string, exitCode: number, files?: TreeDelta, why: string}>}
 */
export const MANUAL = {
  'tree-notes': {
    why: 'tree is not installed where the corpus is recorded: output of tree 2.1.0, checked by hand',
    stdout:
      'notes\n|-- archive\n|   |-- 2023.md\n|   `-- old\n|       `-- ancient.txt\n|-- ' +
      'ideas.md\n|-- meeting\\ notes.md\n`-- todo.md\n\n3 directories, 5 files\n',
    exitCode: 0,
  },
  'tree-d': {
    why: 'tree is not installed where the corpus is recorded: output of tree 2.1.0, checked by hand',
    stdout: 'notes\n`-- archive\n    `-- old\n',
    exitCode: 0,
  },
};

/**
 * Parses corpus.txt: a case starts at a line `=== id` (optionally `=== id: title`) and runs to
 * the next such line; blank lines around a case's body are dropped. Text before the first case
 * is the file's own notes.
 * @param {string} text @returns {CorpusCase[]}
 */
export function parseCorpus(text) {
  /** @type {CorpusCase[]} */
  const cases = [];
  /** @type {{id: string, title: string, lines: string[]} | null} */
  let current = null;
  const ids = new Set();
  const finish = () => {
    if (!current) return;
    const lines = current.lines;
    while (lines.length && !lines[0].trim()) lines.shift();
    while (lines.length && !lines[lines.length - 1].trim()) lines.pop();
    if (!lines.length) throw new Error(`corpus case ${current.id} is empty`);
    cases.push({ id: current.id, title: current.title, cmd: lines.join('\n') });
  };
  for (const line of text.split('\n')) {
    const m = /^=== ([A-Za-z0-9][A-Za-z0-9-]*)(?::\s*(.*))?$/.exec(line);
    if (m) {
      finish();
      if (ids.has(m[1])) throw new Error(`corpus case ${m[1]} appears twice`);
      ids.add(m[1]);
      current = { id: m[1], title: m[2] ?? '', lines: [] };
    } else if (line.startsWith('===')) {
      throw new Error(`bad corpus header: ${line}`);
    } else if (current) {
      current.lines.push(line);
    }
  }
  finish();
  return cases;
}

/** @returns {CorpusCase[]} */
export function loadCorpus() {
  return parseCorpus(readFileSync(CORPUS_FILE, 'utf8'));
}

/** @param {Uint8Array} bytes @returns {string} */
export function fileValue(bytes) {
  if (bytes.length <= MAX_TEXT && !bytes.includes(0)) {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      // not text
    }
  }
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** The tree as a snapshot (path → value, folders as `path/` → '', parents included). @param {Record<string, string>} tree */
export function treeSnapshot(tree) {
  /** @type {Record<string, string>} */
  const out = {};
  const encoder = new TextEncoder();
  for (const [path, content] of Object.entries(tree)) {
    const parts = path.replace(/\/$/, '').split('/');
    for (let i = 1; i < parts.length; i++) out[`${parts.slice(0, i).join('/')}/`] = '';
    if (path.endsWith('/')) out[path] = '';
    else out[path] = fileValue(encoder.encode(content));
  }
  return out;
}

/**
 * What changed from `before` to `after`, keys sorted.
 * @param {Record<string, string>} before @param {Record<string, string>} after @returns {TreeDelta}
 */
export function treeDelta(before, after) {
  /** @type {TreeDelta} */
  const out = {};
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  for (const k of keys) {
    if (!(k in after)) out[k] = null;
    else if (before[k] !== after[k]) out[k] = after[k];
  }
  return out;
}

/** Writes the tree into `root` (files 0644, folders 0755). @param {string} root @param {Record<string, string>} tree */
export function writeTreeToDisk(root, tree) {
  for (const [path, content] of Object.entries(tree)) {
    if (path.endsWith('/')) {
      mkdirSync(join(root, path), { recursive: true, mode: 0o755 });
      continue;
    }
    mkdirSync(dirname(join(root, path)), { recursive: true, mode: 0o755 });
    writeFileSync(join(root, path), content, { mode: 0o644 });
  }
}

/** The snapshot of a folder on disk (path → value, folders as `path/`). @param {string} root */
export function snapshotDisk(root) {
  /** @type {Record<string, string>} */
  const out = {};
  /** @param {string} rel */
  const walk = (rel) => {
    for (const entry of readdirSync(join(root, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        out[`${path}/`] = '';
        walk(path);
      } else {
        out[path] = fileValue(readFileSync(join(root, path)));
      }
    }
  };
  walk('');
  return out;
}

/** @param {string} root */
function bashEnv(root) {
  return { LC_ALL: 'C', TZ: 'UTC', HOME: root, PATH: '/usr/bin:/bin', USER: 'user', TERM: 'dumb' };
}

/**
 * Runs one case with real bash in a fresh copy of the tree.
 * @param {CorpusCase} c @param {Record<string, string>} [tree] @returns {Recording}
 */
export function recordCase(c, tree = TREE) {
  const manual = MANUAL[c.id];
  if (manual)
    return { id: c.id, cmd: c.cmd, stdout: manual.stdout, exitCode: manual.exitCode, files: manual.files ?? {}, manual: manual.why };
  // realpath: the temporary folder may sit behind a link (/tmp → /private/tmp), and `pwd -P` would show it.
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'shell-corpus-')));
  try {
    writeTreeToDisk(root, tree);
    const before = snapshotDisk(root);
    const r = spawnSync(REAL_BASH, ['-c', `umask 022\n${c.cmd}`], {
      cwd: root,
      env: bashEnv(root),
      input: '',
      timeout: 30_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    if (r.error) throw r.error;
    if (r.signal) throw new Error(`case ${c.id}: bash ended by ${r.signal}`);
    const stdout = r.stdout.toString('utf8').split(`${root}/`).join('/').split(root).join('/');
    return { id: c.id, cmd: c.cmd, stdout, exitCode: r.status ?? -1, files: treeDelta(before, snapshotDisk(root)) };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** @param {Recording[]} recordings */
export function formatExpected(recordings) {
  const cases = recordings.map((r) => {
    /** @type {Record<string, unknown>} */
    const out = { id: r.id, cmd: r.cmd, stdout: r.stdout, exitCode: r.exitCode, files: r.files };
    if (r.manual) out.manual = r.manual;
    return out;
  });
  return `${JSON.stringify(
    { note: 'Recorded by scripts/record-shell-corpus.mjs with ' + 'real bash; do not edit by hand.', cases },
    null,
    2,
  )}\n`;
}

function main() {
  if (!existsSync(REAL_BASH)) throw new Error(`${REAL_BASH} is needed to record the corpus`);
  const check = process.argv.includes('--check');
  const corpus = loadCorpus();
  const recordings = corpus.map((c) => recordCase(c));
  const text = formatExpected(recordings);
  if (check) {
    const old = /** @type {{cases: Recording[]}} */ (JSON.parse(readFileSync(EXPECTED_FILE, 'utf8')));
    const byId = new Map(old.cases.map((c) => [c.id, JSON.stringify(c)]));
    const fresh = /** @type {{cases: Recording[]}} */ (JSON.parse(text));
    const stale = fresh.cases.filter((c) => byId.get(c.id) !== JSON.stringify(c)).map((c) => c.id);
    console.log(stale.length ? `stale: ${stale.join(' ')}` : `expected.json is up to date (${fresh.cases.length} cases)`);
    process.exitCode = stale.length ? 1 : 0;
    return;
  }
  writeFileSync(EXPECTED_FILE, text);
  console.log(`recorded ${recordings.length} cases into ${EXPECTED_FILE}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
