// Every browser test file sets up through the one shared fixture, tests/browser/fixture.mjs (the
// app server, a scripted model, the browser and a page, and one teardown): a fix to how the
// browser starts, how long a page waits on a loaded machine or what a teardown closes is made
// there once, not in 40 copies. A file never launches Chromium or starts a server itself; the
// few with unusual needs (two browsers, a profile reopened after a crash, a private copy of the
// app) use the fixture's lower-level parts (`fx.launchBrowser`, `fx.startApp`, `fx.startLlm`),
// which the same teardown closes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const BROWSER_TESTS = join(ROOT, 'tests', 'browser');
/** The PRD's scenario tests (docs/scenarios.md): browser tests too, importing ../browser/fixture.mjs. */
const SCENARIO_TESTS = join(ROOT, 'tests', 'scenarios');

/**
 * Browser test files that may set up otherwise, each with its reason. Empty: every file uses the
 * fixture. An entry names a file and why the fixture cannot serve it.
 * @type {{file: string, why: string}[]}
 */
export const ALLOWED = [];

// Built so that this file holds none of the calls it looks for.
const LAUNCH = ['chromium', 'launch('].join('.');
const PERSISTENT = ['launch', 'PersistentContext'].join('');

/**
 * What keeps a browser test source from using the shared fixture: no import of ./fixture.mjs,
 * no fixture opened, or a set-up of its own (Chromium launched, a server started, the harness's
 * parts called bare instead of through a fixture, which then would not close them).
 * @param {string} source
 * @returns {string[]}
 */
export function setUpFindings(source) {
  /** @type {string[]} */
  const found = [];
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  if (!/from\s+['"](?:\.\/|\.\.\/browser\/)fixture\.mjs['"]/.test(code)) found.push('does not import ./fixture.mjs');
  if (!/(?<![\w$.])(useFixture|openFixture)\s*\(/.test(code)) found.push('opens no fixture (useFixture or openFixture)');
  if (code.includes(LAUNCH)) found.push(`calls ${LAUNCH}`);
  if (code.includes(PERSISTENT)) found.push(`calls ${PERSISTENT}`);
  if (/import\s*\{[^}]*\bchromium\b[^}]*\}\s*from\s*['"]playwright-core['"]/.test(code))
    found.push('imports chromium from playwright-core');
  for (const name of ['startServer', 'launchBrowser', 'startApp', 'startLlmServer']) {
    if (new RegExp(`(?<![\\w$.])${name}\\s*\\(`).test(code)) found.push(`calls ${name}() itself`);
  }
  return found;
}

/** The browser test files (and the scenario tests): name → source. */
function browserTests() {
  /** @param {string} dir @param {string} prefix */
  const of = (dir, prefix) =>
    readdirSync(dir)
      .filter((f) => f.endsWith('.test.mjs'))
      .sort()
      .map((f) => ({ file: `${prefix}${f}`, source: readFileSync(join(dir, f), 'utf8') }));
  return [...of(BROWSER_TESTS, ''), ...of(SCENARIO_TESTS, 'scenarios/')];
}

test('the check finds a set-up of its own and passes one made through the fixture (control)', () => {
  // Today's repeated set-up, as ~39 files had it.
  const own = [
    "import { launchBrowser, startApp, openWorkspace } from './helpers.mjs';",
    "import { startLlmServer } from '../fixtures/llm-server.mjs';",
    'before(async () => {',
    '  app = await startApp();',
    '  llm = await startLlmServer();',
    '  browser = await launchBrowser();',
    '  page = await openWorkspace(browser.context, app.url);',
    '});',
  ].join('\n');
  assert.deepEqual(setUpFindings(own), [
    'does not import ./fixture.mjs',
    'opens no fixture (useFixture or openFixture)',
    'calls launchBrowser() itself',
    'calls startApp() itself',
    'calls startLlmServer() itself',
  ]);
  const direct = [
    "import { chromium } from 'playwright-core';",
    "import { startServer } from '../../scripts/static-server.mjs';",
    "import { useFixture } from './fixture.mjs';",
    'const fx = await useFixture();',
    `const context = await chromium.${PERSISTENT}(dir, {});`,
    `const b = await ${LAUNCH}{ headless: true });`,
    'const server = await startServer({ root });',
  ].join('\n');
  assert.deepEqual(setUpFindings(direct), [
    `calls ${LAUNCH}`,
    `calls ${PERSISTENT}`,
    'imports chromium from playwright-core',
    'calls startServer() itself',
  ]);
  // Controls: the fixture, and its lower-level parts called on it, are fine; so is a mention in a comment.
  const shared = [
    "import { useFixture, openFixture } from './fixture.mjs';",
    '// not like this: browser = await launchBrowser();',
    'const { app, llm, page } = await useFixture({ llm: {}, page: "workspace" });',
    'const other = await fx.launchBrowser({ profileDir });',
    'const bare = await fx.startApp({ framingHeaders: false });',
    'const backup = await fx.startLlm({ apiKey: KEY });',
    'test("x", async (t) => { const own = await openFixture({}, t); });',
  ].join('\n');
  assert.deepEqual(setUpFindings(shared), []);
  // A scenario test (tests/scenarios/) imports the same fixture from its folder.
  assert.deepEqual(setUpFindings("import { useFixture } from '../browser/fixture.mjs';\nconst fx = await useFixture({});"), []);
});

test('every browser test file sets up through the shared fixture, and every allowed exception is still needed', () => {
  const files = browserTests();
  assert.ok(files.length >= 40, `the browser tests were found (${files.length})`);
  assert.ok(files.some((f) => f.file === 'a11y.test.mjs'));
  assert.ok(
    files.some((f) => f.file.startsWith('scenarios/')),
    'the scenario tests are checked too',
  );
  /** @type {string[]} */
  const own = [];
  for (const { file, source } of files) {
    const findings = setUpFindings(source);
    const allowed = ALLOWED.find((a) => a.file === file);
    if (allowed) assert.ok(findings.length > 0, `${file} is allowed an own set-up but no longer has one: remove its entry`);
    else if (findings.length) own.push(`${file}: ${findings.join('; ')}`);
  }
  assert.deepEqual(own, [], 'set up through tests/browser/fixture.mjs (see its header and CONTRIBUTING.md)');
  for (const a of ALLOWED) assert.ok(a.why.trim().length > 20, `${a.file} says why it is an exception`);
});
