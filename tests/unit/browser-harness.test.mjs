// The test harness on a machine without a usable browser: one clear message, and no browser
// test file hangs (each closes the servers it started when the launch fails).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchFailureMessage } from '../../scripts/chromium.mjs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Runs a node command with extra environment; a run that has not ended after `limitMs` is killed
 * and reported as hung (a guard against waiting forever, not a timing assertion).
 * @param {string[]} args @param {Record<string, string>} env @param {number} [limitMs]
 * @returns {Promise<{code: number | null, hung: boolean, output: string}>}
 */
function run(args, env, limitMs = 90_000) {
  return new Promise((resolve) => {
    // Without the parent's test-runner context, or the child would report to it instead of running;
    // without its browser choice (CLAWSER_BROWSER=provided skips CHROME_PATH, the browser broken here).
    const { NODE_TEST_CONTEXT: _ignored, CLAWSER_BROWSER: _choice, ...inherited } = process.env;
    const child = spawn(process.execPath, args, { cwd: root, env: { ...inherited, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    let hung = false;
    const guard = setTimeout(() => {
      hung = true;
      child.kill('SIGKILL');
    }, limitMs);
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, hung, output });
    });
  });
}

test('a missing browser: the preflight fails once with one message that says what to do', async () => {
  const missing = await run(['scripts/check-browser.mjs'], { CHROME_PATH: '/nonexistent/chromium' });
  assert.equal(missing.code, 1);
  assert.match(
    missing.output,
    new RegExp(
      String.raw`^Browser tests cannot run: CHROME_PATH is set to \/nonexistent\/chromium, which does not` +
        String.raw` exist\. Point it at a Chrome\/Chromium binary or unset it\.\n$`,
    ),
  );
  const broken = await run(['scripts/check-browser.mjs'], { CHROME_PATH: '/bin/false' });
  assert.equal(broken.code, 1);
  assert.match(
    broken.output,
    new RegExp(
      String.raw`^Browser tests cannot run: Chromium \(CHROME_PATH: \/bin\/false\) did not start: .*Install Chromium \(Debian: ` +
        String.raw`\`apt-get install -y chromium\`\), set CHROME_PATH, or reinstall with \`npm install\`\.\n$`,
    ),
  );
  const unknown = await run(['scripts/check-browser.mjs'], { CLAWSER_BROWSER: 'firefox' });
  assert.match(unknown.output, /CLAWSER_BROWSER is "firefox"; use "provided"/);
});

test('a browser that lacks a shared library: the preflight names the library and the fixes, in one message', async () => {
  // A binary that fails the way the npm-provided Chromium does on a system without its libraries.
  const dir = await mkdtemp(join(tmpdir(), 'clawser-nolib-'));
  try {
    const fake = join(dir, 'chromium');
    await writeFile(
      fake,
      '#!/bin/sh\necho "$0: error while loading shared libraries: libnss3.so: cannot open ' +
        'shared object file: No such file or directory" >&2\nexit 127\n',
      { mode: 0o755 },
    );
    const r = await run(['scripts/check-browser.mjs'], { CHROME_PATH: fake });
    assert.equal(r.code, 1);
    assert.equal(r.output.split('\n').filter(Boolean).length, 1, 'one line');
    assert.match(
      r.output,
      new RegExp(
        String.raw`^Browser tests cannot run: Chromium \(CHROME_PATH: \S+\) did not start: it needs the shared library` +
          String.raw` libnss3\.so, which this system does not have\. Install the system's Chromium \(Debian: \`apt-get in` +
          String.raw`stall -y chromium\`, which brings its libraries\), install the package that provides libnss3\.so, or` +
          String.raw` set CHROME_PATH to a browser that runs here\.\n$`,
      ),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  // The same for the npm-provided build (the case it is for); any other failure keeps its first line.
  const provided = { source: /** @type {const} */ ('provided'), path: '/tmp/chromium' };
  const log =
    'browserType.launch: Target page, context or browser has been closed\nBrowser logs:\n[pid=1][err] ' +
    '/tmp/chromium: error while loading shared libraries: libgbm.so.1: cannot open shared object file\n';
  assert.match(
    launchFailureMessage(provided, new Error(log)),
    /^Chromium \(provided: \/tmp\/chromium\) did not start: it needs the shared library libgbm\.so\.1,.*set CHROME_PATH/,
  );
  assert.equal(
    launchFailureMessage(provided, new Error('spawn EACCES\nmore')),
    'Chromium (provided: /tmp/chromium) did not start: spawn EACCES. Install Chromium (Debian: ' +
      '`apt-get install -y chromium`), set CHROME_PATH, or reinstall with `npm install`.',
  );
});

test('a broken browser: every browser test file fails and exits, none hangs on the servers it started', async () => {
  const files = readdirSync(`${root}/tests/browser`)
    .filter((f) => f.endsWith('.test.mjs'))
    .sort();
  assert.ok(files.length > 20);
  /** @type {string[]} */
  const hung = [];
  /** @type {string[]} */
  const passed = [];
  // Two at a time: the machine has two cores.
  for (let i = 0; i < files.length; i += 2) {
    await Promise.all(
      files.slice(i, i + 2).map(async (f) => {
        const r = await run(['--test', `tests/browser/${f}`], { CHROME_PATH: '/bin/false' });
        if (r.hung) hung.push(f);
        else if (r.code === 0) passed.push(f);
        else assert.match(r.output, /did not start/, `${f} fails with the launch error`);
      }),
    );
  }
  assert.deepEqual(hung, [], 'these files never exited after the browser failed to start');
  assert.deepEqual(passed, [], 'a browser test file passed without a browser');
});
