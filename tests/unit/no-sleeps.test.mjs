// Tests wait on conditions, never on time alone (CONTRIBUTING.md): a fixed sleep passes on a
// quiet machine and fails on a loaded one, or hides a missing wait. Every timer with a delay in
// tests/ is found here; the few that are not a test waiting (a bound on a hang, a scripted
// server's pace, the one poll interval of tests/fixtures/wait.mjs) are listed with their reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, dirname, resolve, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TESTS = join(ROOT, 'tests');

/**
 * The arguments of the call whose `(` is at `open`, split at top-level commas (strings skipped).
 * @param {string} source
 * @param {number} open
 */
function callArguments(source, open) {
  /** @type {string[]} */
  const args = [];
  let depth = 0;
  let start = open + 1;
  for (let i = open; i < source.length; i++) {
    const c = source[i];
    if (c === '"' || c === "'" || c === '`') {
      for (i++; i < source.length && source[i] !== c; i++) if (source[i] === '\\') i++;
    } else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      depth--;
      if (depth === 0) {
        args.push(source.slice(start, i));
        return args.map((a) => a.trim()).filter((a, k, all) => a || k < all.length - 1);
      }
    } else if (c === ',' && depth === 1) {
      args.push(source.slice(start, i));
      start = i + 1;
    }
  }
  return args.map((a) => a.trim());
}

/**
 * The timed waits in a source: every setTimeout call whose delay is not 0, every setInterval
 * call (a poll without a bound) and every call of Playwright's waitForTimeout.
 * @param {string} source
 * @returns {{line: number, text: string}[]}
 */
export function timedWaits(source) {
  /** @type {{line: number, text: string}[]} */
  const found = [];
  for (const m of source.matchAll(/(?<![\w$])(setTimeout|setInterval|waitForTimeout)\s*\(/g)) {
    const open = /** @type {number} */ (m.index) + m[0].length - 1;
    if (m[1] === 'setTimeout') {
      const delay = callArguments(source, open)[1];
      if (delay === undefined || /^0+$/.test(delay)) continue;
    }
    const line = source.slice(0, m.index).split('\n').length;
    found.push({ line, text: source.split('\n')[line - 1].trim() });
  }
  return found;
}

/**
 * The timers in tests/ that are not a test waiting for something, each with its reason. `match`
 * picks one line of `file` (each entry must match exactly one timed wait there); an entry
 * without `match` covers a whole file.
 * @type {{file: string, match?: string, why: string}[]}
 */
export const ALLOWED = [
  {
    file: 'tests/fixtures/wait.mjs',
    match: 'everyMs',
    why: 'the pause between two checks of a condition, bounded by a number of checks: the one poll of the tests',
  },
  {
    file: 'web/packages/wsh/test/helpers.js',
    match: 'everyMs',
    why:
      "processGone's pause between two looks at another process (which announces no exit to the test), bounded by a number " +
      'of looks: the package stands alone, so it cannot import waitUntil of tests/fixtures/wait.mjs',
  },
  {
    file: 'tests/fixtures/llm-server.mjs',
    match: 'state.pullDelayMs',
    why: "the scripted model server's pace (a slow model download): part of the world a test scripts, not a wait of the test",
  },
  {
    file: 'tests/fixtures/llm-server.mjs',
    match: 'r.delayMs',
    why: "the scripted model server's pace between streamed pieces, so a test can stop a reply mid-stream",
  },
  {
    file: 'tests/fixtures/telegram-server.mjs',
    match: 'timeout * 1000',
    why: "the fake Bot API's long poll: like Telegram, it answers an empty list once the poll's `timeout` seconds have passed",
  },
  {
    file: 'tests/fixtures/mcp-everything.mjs',
    match: 'did not start',
    why: 'a bound on a hang: the MCP server that never starts fails the suite instead of stalling it',
  },
  {
    file: 'tests/unit/browser-harness.test.mjs',
    match: 'const guard',
    why: 'a bound on a hang: a child process that never exits is killed and reported as hung',
  },
  {
    file: 'tests/browser/storage.test.mjs',
    match: "r('hung')",
    why: 'a bound on a hang: the storage call that must fail clearly is reported as hung instead of stalling the test',
  },
  {
    file: 'tests/fixtures/injection-dev11-blind7.mjs',
    why: 'a text corpus: its code is a document the injection detector reads, never run',
  },
  {
    file: 'tests/fixtures/injection-families-blind.mjs',
    why: 'a text corpus: its code is a document the injection detector reads, never run',
  },
];

/** Every test source (tests/**\/*.mjs|js). @returns {string[]} */
function sources(dir = TESTS) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(mjs|cjs|js)$/.test(name) ? [path] : [];
  });
}

// Built so that this file itself holds none of the calls it looks for.
const T = ['set', 'Timeout'].join('');

test("the detector finds a fixed sleep, a delayed callback, a poll interval and Playwright's waitForTimeout, \
and passes a timer with no delay", () => {
  assert.deepEqual(
    timedWaits(`await new Promise((r) => ${T}(r, 50));`).map((w) => w.line),
    [1],
  );
  assert.equal(timedWaits(`x;\nawait new Promise((resolve) => ${T}(() => resolve('done'), 1_000));`)[0]?.line, 2);
  assert.equal(timedWaits(`await new Promise((r) => ${T}(r, delayMs))`).length, 1, 'a delay held in a variable');
  assert.equal(timedWaits(`${T}(\n  () => { a(); },\n  10,\n);`).length, 1, 'over several lines');
  assert.equal(timedWaits(`const t = ${['set', 'Interval'].join('')}(check, 10);`).length, 1);
  assert.equal(timedWaits(`await page.${['waitFor', 'Timeout'].join('')}(500);`).length, 1);
  // Controls: a timer with no delay is a turn of the event loop, not a sleep.
  assert.deepEqual(
    timedWaits(`await new Promise((r) => ${T}(r, 0));\nawait new Promise((r) => ${T}(r));\n${T}(() => f(a, 'b, 5'), 0);\nclear${T}(x);`),
    [],
  );
});

test('no test waits on time alone: every timed wait in tests/ (and web/packages/wsh/test/) is a listed exception, \
and every exception is still there', () => {
  /** @type {string[]} */
  const unlisted = [];
  /** @type {Map<(typeof ALLOWED)[number], number>} */
  const used = new Map(ALLOWED.map((a) => [a, 0]));
  // The wsh package keeps its tests beside it (a standalone package); they follow the same rule.
  for (const path of [...sources(), ...sources(join(ROOT, 'web/packages/wsh/test'))]) {
    const file = relative(ROOT, path);
    for (const wait of timedWaits(readFileSync(path, 'utf8'))) {
      const allowed = ALLOWED.filter((a) => a.file === file && (a.match === undefined || wait.text.includes(a.match)));
      for (const a of allowed) used.set(a, (used.get(a) ?? 0) + 1);
      if (allowed.length === 0) unlisted.push(`${file}:${wait.line}: ${wait.text}`);
    }
  }
  assert.deepEqual(unlisted, [], 'wait on the condition instead (a promise, an event, or waitUntil of tests/fixtures/wait.mjs)');
  for (const [a, n] of used) {
    if (a.match !== undefined) assert.equal(n, 1, `${a.file} "${a.match}" matches one timed wait (found ${n})`);
    else assert.ok(n > 0, `${a.file} still has the timed waits its entry is for`);
  }
});
