// Why this file is long: 14 crash scenarios, each killing a real browser at an observed moment;
//  they share the profile, kill and reopen helpers.
// A browser crash loses or hides nothing (issue 32 §9). Each test drives the real app in a
// real Chromium on a profile folder of its own, KILLS the browser process (SIGKILL, not a
// close: the browser gets no chance to save anything) at a moment the test observes — a reply
// streaming, a restore moving files, a delete under way, right after a burst of settings the app
// said were saved — then starts a new browser on the same profile and checks what the app shows.
// The control is the same scenario closed normally. What completed before the kill (the app said
// "saved", a file was written) must be there afterwards; nothing here depends on timing.
//
// Why localStorage was not enough (measured): Chromium writes a page's localStorage to disk about
// 5 s after the first change and then holds later changes back by rate: at most about one write a
// minute, and fewer after many bytes (after a 2 MB value, nothing more for well over 90 s). A kill
// loses whatever waited in memory. The tests that change settings first put a 2 MB sentinel in
// localStorage from a page that stays open (with that page closed, the kills did not lose what
// main's code kept in localStorage: Chromium had written it), wait until it is on disk (a condition observed in the profile's
// files), and, before the kill, check that the changes under test are not on disk in localStorage
// yet: the crash falls in the window where versions keeping settings there lost them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openWorkspace, sendMessage, saveSettings, waitInPage, appView, storedConfigUntil } from './helpers.mjs';
import { useFixture } from './fixture.mjs';
import { waitUntil } from '../fixtures/wait.mjs';

// Each test starts (and kills) browsers of its own on a profile of its own.
const fx = await useFixture({ llm: {}, browser: false });
const { app, llm } = fx;

/** @typedef {import('./fixture.mjs').Browser} Browser */

/** The page's notice of damaged files (web/app/damage-report.js). */
const DAMAGE_NOTICE = /Clawser found (a damaged file|\d+ damaged files)/;

/** Every process of the machine: pid, parent and command line. */
function processes() {
  return execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const m = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line);
      return m ? { pid: Number(m[1]), ppid: Number(m[2]), args: m[3] } : null;
    })
    .filter((p) => p !== null);
}

/** @param {number} pid */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Waits until a check (in Node, or in a page: async) holds, checked once per 50 ms of `timeoutMs`.
 * @param {() => boolean | Promise<boolean>} check
 * @param {string} what
 * @param {number} [timeoutMs]
 */
async function until(check, what, timeoutMs = 30_000) {
  await waitUntil(check, what, { tries: Math.ceil(timeoutMs / 50) });
}

/**
 * Kills the browser of `browser` as a crash does: SIGKILL to its main process (found by its
 * profile folder). Its child processes (renderers, the storage service) lose their parent and
 * exit; resolves once every one of them is gone, so a new browser can open the profile.
 * @param {Browser} browser
 */
async function crash(browser) {
  const all = processes();
  const main = all.find((p) => p.args.includes(`--user-data-dir=${browser.profileDir}`) && !p.args.includes('--type='));
  assert.ok(main, 'the browser process was found');
  /** @type {Set<number>} */
  const tree = new Set([main.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all)
      if (tree.has(p.ppid) && !tree.has(p.pid)) {
        tree.add(p.pid);
        grew = true;
      }
  }
  const closed = new Promise((resolve) => browser.context.once('close', resolve));
  process.kill(main.pid, 'SIGKILL');
  await closed;
  await until(() => [...tree].every((pid) => !alive(pid)), "the killed browser's processes to exit");
}

/** localStorage's files in a profile, as text (keys are stored as Latin-1). @param {string} profileDir */
function localStorageOnDisk(profileDir) {
  const dir = join(profileDir, 'Default', 'Local Storage', 'leveldb');
  try {
    return readdirSync(dir)
      .map((f) => readFileSync(join(dir, f)).toString('latin1'))
      .join('');
  } catch {
    return '';
  }
}

/** The sentinel's size: enough bytes that Chromium writes nothing more of the origin's localStorage for minutes. */
const SENTINEL_CHARS = 2_000_000;

/**
 * Writes a large sentinel value to localStorage at once, from a page of the origin that stays
 * open; `committed` waits until Chromium has put it on disk: what the app writes to localStorage
 * after that waits in memory (see the top). `notOnDisk` checks that a text the app wrote since is
 * still only in memory, i.e. that a kill now is the crash the test means.
 * @param {Browser} browser
 */
async function localStorageSentinel(browser) {
  const page = await watcher(browser);
  const mark = `crash-sentinel-${process.pid}-${Date.now()}`;
  await page.evaluate(([m, n]) => localStorage.setItem(m, 'x'.repeat(n)), /** @type {[string, number]} */ ([mark, SENTINEL_CHARS]));
  return {
    committed: () => until(() => localStorageOnDisk(browser.profileDir).includes(mark), 'Chromium to write localStorage to disk', 90_000),
    /** @param {string} text @param {string} what */
    notOnDisk: (text, what) =>
      assert.ok(
        !localStorageOnDisk(browser.profileDir).includes(text),
        `${what} is not on disk in localStorage before the kill (else the kill tests nothing)`,
      ),
  };
}

/** The browsers launched by the running test (closed, if still open, before its profile goes). @type {Set<Browser>} */
const launched = new Set();

/** @param {{profileDir?: string}} [options] */
async function launch(options) {
  const browser = await fx.launchBrowser(options);
  launched.add(browser);
  return browser;
}

/** Closes what the test left open (a test that failed half way) and removes its profile. @param {string} profileDir */
async function cleanup(profileDir) {
  for (const browser of launched) await browser.context.close().catch(() => {});
  launched.clear();
  await rm(profileDir, { recursive: true, force: true, maxRetries: 5 });
}

/** Resolves once the app is in (its view drawn from storage, not the first view's copy). @param {import('playwright-core').Page} page */
function appReady(page) {
  return page.waitForFunction(() => performance.getEntriesByName('clawser-app-ready').length > 0);
}

/**
 * Resolves once the app has checked the stored state after start (interrupted deletes finished,
 * workspace folders the list does not name offered back): only then does "no such notice" mean
 * anything.
 * @param {import('playwright-core').Page} page
 */
function stateChecked(page) {
  return page.waitForFunction(() => performance.getEntriesByName('clawser-state-checked').length > 0);
}

/**
 * A new browser on the profile of `browser` (killed or closed), and a page on the app's home screen once the app is in.
 * @param {string} profileDir
 */
async function reopen(profileDir) {
  const browser = await launch({ profileDir });
  const page = await fx.newPage(browser.context);
  await page.goto(`${app.url}#home`);
  await appReady(page);
  return { browser, page };
}

/**
 * Nothing hidden after the start: no workspace folder left off the list (the offer to add it
 * back), no damaged settings or list file.
 * @param {import('playwright-core').Page} page
 */
async function nothingHidden(page) {
  await stateChecked(page);
  assert.equal(
    await page.locator('.banner', { hasText: /found in the browser's storage/ }).count(),
    0,
    'no workspace folder left off the list',
  );
  assert.equal(await page.locator('.banner', { hasText: DAMAGE_NOTICE }).count(), 0, 'no damaged file');
}

/**
 * Whether a workspace's conversation log holds `text` (read straight from OPFS).
 * @param {import('playwright-core').Page} page
 * @param {string} ws
 * @param {string} text
 */
function logHolds(page, ws, text) {
  return page.evaluate(
    async ([id, t]) => {
      try {
        const root = await (await (await navigator.storage.getDirectory()).getDirectoryHandle('clawser_workspaces')).getDirectoryHandle(id);
        for await (const [, conv] of /** @type {any} */ (await root.getDirectoryHandle('.conversations')).entries()) {
          // any: the directory iterator is missing from TypeScript's DOM types
          if (conv.kind !== 'directory') continue;
          const log = await (await (await conv.getFileHandle('events.jsonl').catch(() => null))?.getFile())?.text();
          if (log?.includes(t)) return true;
        }
      } catch {
        // not there (yet)
      }
      return false;
    },
    /** @type {[string, string]} */ ([ws, text]),
  );
}

/**
 * The turn status of a workspace's newest agent checkpoint that reads ('running', 'idle'), or
 * null; straight from OPFS (`.checkpoints/{id}.json`, ids sort by time).
 * @param {import('playwright-core').Page} page @param {string} ws
 */
function turnCheckpoint(page, ws) {
  return page.evaluate(async (id) => {
    try {
      const dir = await (
        await (await (await navigator.storage.getDirectory()).getDirectoryHandle('clawser_workspaces')).getDirectoryHandle(id)
      ).getDirectoryHandle('.checkpoints');
      const names = [];
      // any: the directory iterator is missing from TypeScript's DOM types
      for await (const [name, handle] of /** @type {any} */ (dir).entries())
        if (handle.kind === 'file' && name.endsWith('.json') && name !== 'index.json') names.push(name);
      for (const name of names.sort().reverse()) {
        try {
          return JSON.parse(await (await (await dir.getFileHandle(name)).getFile()).text()).state?.turn?.status ?? null;
        } catch {
          // being written: the one before
        }
      }
    } catch {
      // none yet
    }
    return null;
  }, ws);
}

/** The workspaces the home screen lists: id → text of the row's link. @param {import('playwright-core').Page} page */
function listed(page) {
  return page.evaluate(() =>
    Object.fromEntries(
      [...document.querySelectorAll('a.ws-open')].map((a) => [
        decodeURIComponent(a.getAttribute('href')?.split('/')[1] ?? ''),
        a.textContent ?? '',
      ]),
    ),
  );
}

/**
 * Straight from OPFS (no app module): a file's text, or null. A page of the origin that is not
 * the app reads this way while the app works in another tab.
 * @param {import('playwright-core').Page} page @param {string} path
 */
function rawText(page, path) {
  return page.evaluate(async (p) => {
    try {
      let dir = await navigator.storage.getDirectory();
      const parts = p.split('/');
      const name = /** @type {string} */ (parts.pop());
      for (const part of parts) dir = await dir.getDirectoryHandle(part);
      return await (await (await dir.getFileHandle(name)).getFile()).text();
    } catch {
      return null;
    }
  }, path);
}

/** How many files are under a folder of OPFS (-1: no such folder). @param {import('playwright-core').Page} page @param {string} path */
function countFiles(page, path) {
  return page.evaluate(async (p) => {
    /** @param {FileSystemDirectoryHandle} d @returns {Promise<number>} */
    const count = async (d) => {
      let n = 0;
      // any: the directory iterator is missing from TypeScript's DOM types
      for await (const [, handle] of /** @type {any} */ (d).entries()) n += handle.kind === 'directory' ? await count(handle) : 1;
      return n;
    };
    try {
      let dir = await navigator.storage.getDirectory();
      for (const part of p.split('/')) dir = await dir.getDirectoryHandle(part);
      return await count(dir);
    } catch {
      return -1;
    }
  }, path);
}

/** A page of the app's origin that is not the app (to watch OPFS while the app works). @param {Browser} browser */
async function watcher(browser) {
  const page = await browser.context.newPage();
  await page.goto(`${app.url}manifest.webmanifest`);
  return page;
}

/**
 * Writes `n` small files under a workspace's notes/ through the app's storage module.
 * @param {import('playwright-core').Page} page
 * @param {string} ws
 * @param {number} n
 */
function writeNotes(page, ws, n) {
  return page.evaluate(
    async ([id, count]) => {
      const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
      const fs = new OpfsFileSystem();
      try {
        for (let i = 0; i < count; i += 100) {
          await Promise.all(
            Array.from({ length: Math.min(100, count - i) }, (_, k) =>
              fs.write(`clawser_workspaces/${id}/notes/${i + k}.md`, `note ${i + k}\n`),
            ),
          );
        }
      } finally {
        fs.terminate();
      }
    },
    /** @type {[string, number]} */ ([ws, n]),
  );
}

/** Makes a workspace from the home screen; resolves to its id. @param {import('playwright-core').Page} page @param {string} name */
async function newWorkspace(page, name) {
  await page.goto(`${app.url}#home`);
  await page.getByRole('button', { name: 'New workspace' }).click();
  await page.getByRole('dialog').getByLabel('Workspace name').fill(name);
  await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
  await page.getByRole('heading', { name, level: 1 }).waitFor();
  return decodeURIComponent(new URL(page.url()).hash.split('/')[1] ?? '');
}

/** @param {string} url */
const workspaceOf = (url) => decodeURIComponent(new URL(url).hash.split('/')[1] ?? '');

/** Ends the first browser: killed, or (the control) closed normally. @param {Browser} browser @param {boolean} kill */
async function end(browser, kill) {
  if (kill) await crash(browser);
  else await browser.close({ keepProfile: true });
}

// ---------------------------------------------------------------------------------------------
// A reply streaming

const REPLY = 'Part of a reply that is still streaming when the browser goes.';

/** @param {{kill: boolean}} options */
async function streamScenario({ kill }) {
  const first = await launch();
  const profileDir = first.profileDir;
  let paused = false;
  try {
    const sentinel = await localStorageSentinel(first);
    const page = await openWorkspace(first.context, app.url);
    const mine = workspaceOf(page.url());
    await sentinel.committed();
    // From here on, what the page writes to localStorage waits in memory (see the top).
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: /Settings/ });
    await dialog.getByLabel('Provider', { exact: true }).selectOption('openai-compatible');
    await dialog.getByLabel('Model', { exact: true }).fill('test-model');
    await dialog.getByLabel('Base URL', { exact: true }).fill(`${llm.url}/v1`);
    await saveSettings(page);
    const second = await newWorkspace(page, 'Second');
    await page.goto(`${app.url}#workspace/${mine}`);
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    llm.enqueue({ text: REPLY, pauseAfter: 4 });
    paused = true;
    await sendMessage(page, 'hello before the crash');
    await page.locator('.msg.assistant', { hasText: 'Part of a' }).waitFor();
    // The question is on storage (the log is appended as the turn goes), and so is the
    // checkpoint that says a turn is running.
    const side = await watcher(first);
    await until(
      async () => (await logHolds(side, mine, 'hello before the crash')) && (await turnCheckpoint(side, mine)) === 'running',
      'the question and the running turn on storage',
    );
    if (!kill) {
      llm.resume();
      paused = false;
      await page.locator('.msg.assistant', { hasText: 'browser goes.' }).waitFor();
      await until(
        async () => (await logHolds(side, mine, 'browser goes.')) && (await turnCheckpoint(side, mine)) === 'idle',
        'the reply and the end of the turn on storage',
      );
    }
    if (kill) {
      sentinel.notOnDisk(second, 'the second workspace on the list');
      sentinel.notOnDisk('test-model', 'the provider settings');
    }
    await end(first, kill);
    const { browser, page: again } = await reopen(profileDir);
    try {
      const rows = await listed(again);
      assert.deepEqual(Object.keys(rows).sort(), [mine, second].sort(), 'the same workspaces, none new');
      assert.match(rows[mine], /My workspace.*OpenAI-compatible · test-model/s, 'its provider settings');
      await again.getByRole('link', { name: /My workspace/ }).click();
      await again.locator('.msg.user', { hasText: 'hello before the crash' }).waitFor();
      const interrupted = again.getByText('Your last request was interrupted: the tab closed before the reply finished.');
      if (kill) {
        // The reply cut off by the crash is said, and offered again.
        await interrupted.waitFor();
        await again.getByRole('button', { name: 'Retry' }).click();
        await again.getByText('You said: hello before the crash').waitFor();
      } else {
        await again.locator('.msg.assistant', { hasText: 'browser goes.' }).waitFor();
        await appView(again);
        assert.equal(await interrupted.count(), 0, 'nothing was interrupted');
      }
      await nothingHidden(again);
    } finally {
      await browser.close();
    }
  } finally {
    if (paused) llm.resume();
    await cleanup(profileDir);
  }
}

test('the browser killed while a reply streams: the workspace list, the provider settings and the question are all there afterwards, \
and the cut-off reply is offered again', async () => {
  await streamScenario({ kill: true });
});

test('control: the same with the browser closed normally after the reply', async () => {
  await streamScenario({ kill: false });
});

// ---------------------------------------------------------------------------------------------
// A backup restore under way

const NOTES = 1500;

/** @param {{kill: boolean}} options */
async function restoreScenario({ kill }) {
  const setup = await launch();
  const profileDir = setup.profileDir;
  try {
    // An earlier visit: a workspace with many files, a backup of it, then more made after the backup.
    const page = await openWorkspace(setup.context, app.url);
    const mine = workspaceOf(page.url());
    await writeNotes(page, mine, NOTES);
    await page.goto(`${app.url}#home`);
    await page.getByRole('button', { name: 'Export everything' }).click();
    const exportDialog = page.getByRole('dialog', { name: 'Export everything' });
    const [download] = await Promise.all([page.waitForEvent('download'), exportDialog.getByRole('button', { name: 'Export' }).click()]);
    const backup = await readFile(/** @type {string} */ (await download.path()));
    const later = await newWorkspace(page, 'Made after the backup');
    await writeNotes(page, later, 3);
    await setup.close({ keepProfile: true });

    // This visit restores the backup.
    const first = await launch({ profileDir });
    const sentinel = await localStorageSentinel(first);
    const home = await fx.newPage(first.context);
    await home.goto(`${app.url}#home`);
    await home.getByRole('link', { name: /Made after the backup/ }).waitFor();
    await home.waitForFunction(() => performance.getEntriesByName('clawser-app-ready').length > 0);
    await sentinel.committed();
    await home
      .locator('input[aria-label="Choose a backup file to restore"]')
      .setInputFiles({ name: 'backup.zip', mimeType: 'application/zip', buffer: backup });
    const confirm = home.getByRole('dialog', { name: 'Replace everything with this backup?' });
    if (kill) {
      const side = await watcher(first);
      await confirm.getByRole('button', { name: 'Replace everything' }).click();
      // Killed half way: a hundred of the workspace's notes moved aside already (or the backup's
      // files being put in place).
      await waitInPage(
        side,
        async (id) => {
          try {
            const root = await navigator.storage.getDirectory();
            const state = JSON.parse(await (await (await root.getFileHandle('.restore-state.json')).getFile()).text());
            if (state.phase === 'placing') return true;
            if (state.phase !== 'aside') return false;
            const notes = await (
              await (
                await (await root.getDirectoryHandle('.restore-previous')).getDirectoryHandle('clawser_workspaces')
              ).getDirectoryHandle(id)
            ).getDirectoryHandle('notes');
            let n = 0;
            // any: the directory iterator is missing from TypeScript's DOM types
            for await (const _ of /** @type {any} */ (notes).keys()) if (++n >= 100) return true;
            return false;
          } catch {
            return false;
          }
        },
        mine,
        { what: 'the restore half way through moving files', timeoutMs: 60_000 },
      );
      sentinel.notOnDisk('clawser_restore_running', "the restore's flag");
      await crash(first);
    } else {
      await Promise.all([
        home.waitForEvent('load', { timeout: 180_000 }),
        confirm.getByRole('button', { name: 'Replace everything' }).click(),
      ]); // a restore of many files takes long on a loaded machine: waited for, not timed
      await home.waitForFunction(() => performance.getEntriesByName('clawser-app-ready').length > 0, undefined, { timeout: 120_000 });
      await first.close({ keepProfile: true });
    }
    const { browser, page: again } = await reopen(profileDir);
    try {
      const rows = await listed(again);
      const banner = again.locator('.banner', { hasText: /restore was interrupted/i });
      if (kill) {
        // Rolled back, and said so: everything as it was before the restore began.
        assert.equal(await countFiles(again, `clawser_workspaces/${mine}/notes`), NOTES, 'every file of the workspace in its place');
        assert.deepEqual(Object.keys(rows).sort(), [mine, later].sort(), 'the workspaces from before the restore');
        assert.equal(await countFiles(again, `clawser_workspaces/${later}/notes`), 3);
        assert.equal(await banner.count(), 1, 'the interrupted restore is said');
        assert.match(await banner.innerText(), /previous data was kept/);
      } else {
        assert.equal(await banner.count(), 0, 'no interrupted restore to report');
        assert.deepEqual(Object.keys(rows), [mine], "the backup's workspaces");
        assert.equal(await countFiles(again, `clawser_workspaces/${later}`), -1);
      }
      assert.equal(await countFiles(again, `clawser_workspaces/${mine}/notes`), NOTES, 'every file of the workspace');
      for (const leftover of ['.restore-previous', '.restore-staging'])
        assert.equal(await countFiles(again, leftover), -1, `${leftover} is gone`);
      assert.equal(await rawText(again, '.restore-state.json'), null);
      await nothingHidden(again);
    } finally {
      await browser.close();
    }
  } finally {
    await cleanup(profileDir);
  }
}

test('the browser killed during a restore: the next start rolls it back from its marker file and says so; \
every file is as before', async () => {
  await restoreScenario({ kill: true });
});

test("control: a restore that runs to the end shows the backup's data and no notice", async () => {
  await restoreScenario({ kill: false });
});

// ---------------------------------------------------------------------------------------------
// A workspace delete under way

/** @param {{kill: boolean}} options */
async function deleteScenario({ kill }) {
  const setup = await launch();
  const profileDir = setup.profileDir;
  try {
    // An earlier visit made the workspace and its files.
    const made = await openWorkspace(setup.context, app.url, {
      provider: 'openai-compatible',
      model: 'test-model',
      baseUrl: `${llm.url}/v1`,
    });
    const mine = workspaceOf(made.url());
    const doomed = await newWorkspace(made, 'Doomed');
    await writeNotes(made, doomed, NOTES);
    await setup.close({ keepProfile: true });
    const first = await launch({ profileDir });
    const page = await fx.newPage(first.context);
    await page.goto(`${app.url}#home`);
    await page.waitForFunction(() => performance.getEntriesByName('clawser-app-ready').length > 0);
    await page.getByRole('button', { name: 'Delete workspace Doomed' }).click();
    const side = await watcher(first);
    await page.getByRole('dialog').getByRole('button', { name: 'Delete workspace' }).click();
    if (kill) {
      // Killed once its files have begun to go.
      await waitInPage(
        side,
        async (id) => {
          /** @param {FileSystemDirectoryHandle} d @returns {Promise<number>} */
          const count = async (d) => {
            let n = 0;
            // any: the directory iterator is missing from TypeScript's DOM types
            for await (const [, h] of /** @type {any} */ (d).entries()) n += h.kind === 'directory' ? await count(h) : 1;
            return n;
          };
          try {
            const dir = await (await (await navigator.storage.getDirectory()).getDirectoryHandle('clawser_workspaces')).getDirectoryHandle(
              id,
            );
            return (await count(dir)) < 1500;
          } catch {
            return true; // all gone already
          }
        },
        doomed,
        { what: 'the delete under way' },
      );
      await crash(first);
      // The kill came before the delete was done: some of its files are still there (looked at
      // from a page that is not the app, which would finish the delete).
      const look = await launch({ profileDir });
      const left = await countFiles(await watcher(look), `clawser_workspaces/${doomed}`);
      await look.close({ keepProfile: true });
      assert.ok(left > 0 && left < NOTES, `the kill came half way through the delete (${left} of its ${NOTES} files left)`);
    } else {
      await page.getByRole('link', { name: /Doomed/ }).waitFor({ state: 'detached' });
      await waitInPage(
        side,
        async (id) =>
          (await (await navigator.storage.getDirectory()).getDirectoryHandle('clawser_workspaces')).getDirectoryHandle(id).then(
            () => false,
            () => true,
          ),
        doomed,
        { what: 'its folder gone' },
      );
      await first.close({ keepProfile: true });
    }
    const { browser, page: again } = await reopen(profileDir);
    try {
      assert.deepEqual(Object.keys(await listed(again)), [mine], 'the deleted workspace is not listed');
      // Nor offered back; and its leftover files are cleaned up by this start.
      await nothingHidden(again);
      assert.equal(await countFiles(again, `clawser_workspaces/${doomed}`), -1, 'no file of it is left');
      assert.equal(await again.getByRole('link', { name: /Doomed/ }).count(), 0);
    } finally {
      await browser.close();
    }
  } finally {
    await cleanup(profileDir);
  }
}

test('the browser killed while a workspace is being deleted: it is not listed afterwards and its leftover files are removed at the next \
start', async () => {
  await deleteScenario({ kill: true });
});

test('control: a delete that runs to the end', async () => {
  await deleteScenario({ kill: false });
});

// ---------------------------------------------------------------------------------------------
// A burst of settings changes

/** @param {{kill: boolean}} options */
async function burstScenario({ kill }) {
  const first = await launch();
  const profileDir = first.profileDir;
  try {
    const sentinel = await localStorageSentinel(first);
    const page = await openWorkspace(first.context, app.url, { provider: 'openai-compatible', model: 'model-0', baseUrl: `${llm.url}/v1` });
    const mine = workspaceOf(page.url());
    await sentinel.committed();
    // Each change is made through the app and waited for until it says it is done.
    for (let i = 1; i <= 4; i++) {
      await page.getByRole('button', { name: 'Settings', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: /Settings/ });
      await dialog.getByLabel('Model', { exact: true }).fill(`model-${i}`);
      if (i === 4) {
        // The last one also seals an API key and changes an agent setting.
        await dialog.getByLabel('API key', { exact: true }).fill('sk-burst-key-0123456789');
        await dialog.getByLabel('Autonomy').selectOption('readonly');
      }
      await saveSettings(page);
    }
    const made = [await newWorkspace(page, 'Burst one'), await newWorkspace(page, 'Burst two')];
    await page.goto(`${app.url}#home`);
    for (let i = 1; i <= 3; i++) {
      const current = i === 1 ? 'My workspace' : `Renamed ${i - 1}`;
      await page.getByRole('button', { name: `Rename workspace ${current}` }).click();
      await page.getByRole('dialog').getByLabel('Workspace name').fill(`Renamed ${i}`);
      await page.getByRole('dialog').getByLabel('Workspace name').press('Enter');
      await page.getByRole('link', { name: new RegExp(`Renamed ${i}`) }).waitFor();
    }
    if (kill) {
      sentinel.notOnDisk('model-4', 'the last settings saved');
      sentinel.notOnDisk('Renamed 3', 'the last rename');
    }
    await end(first, kill);
    const { browser, page: again } = await reopen(profileDir);
    try {
      const rows = await listed(again);
      assert.deepEqual(Object.keys(rows).sort(), [mine, ...made].sort());
      assert.match(rows[mine], /^Renamed 3.*OpenAI-compatible · model-4/s);
      assert.match(rows[made[0]], /^Burst one/);
      assert.match(rows[made[1]], /^Burst two/);
      await again.getByRole('link', { name: /Renamed 3/ }).click();
      await appView(again);
      await again.getByRole('button', { name: 'Settings', exact: true }).click();
      const dialog = again.getByRole('dialog', { name: /Settings/ });
      assert.equal(await dialog.getByLabel('Model', { exact: true }).inputValue(), 'model-4');
      assert.equal(await dialog.getByLabel('Autonomy').inputValue(), 'readonly');
      assert.match(
        (await dialog.getByLabel('API key', { exact: true }).getAttribute('placeholder')) ?? '',
        /^Saved \(encrypted\)/,
        'the sealed key is there',
      );
      await nothingHidden(again);
    } finally {
      await browser.close();
    }
  } finally {
    await cleanup(profileDir);
  }
}

test('the browser killed right after a burst of settings changes the app said were saved: \
every one of them is there afterwards', async () => {
  await burstScenario({ kill: true });
});

test('control: the same burst with the browser closed normally', async () => {
  await burstScenario({ kill: false });
});

// ---------------------------------------------------------------------------------------------
// A damaged workspace list or settings file (as a crash, a full disk or a bug can leave it)

/**
 * A profile with two workspaces, the first with a provider, from a visit that ended normally.
 * @returns {Promise<{profileDir: string, mine: string, second: string}>}
 */
async function twoWorkspaces() {
  const browser = await launch();
  try {
    const page = await openWorkspace(browser.context, app.url, {
      provider: 'openai-compatible',
      model: 'test-model',
      baseUrl: `${llm.url}/v1`,
    });
    const mine = workspaceOf(page.url());
    const second = await newWorkspace(page, 'Second');
    // Opening it records its last use in the background: stored before the browser closes, so the
    // next start has nothing of this one left to write over the list a test reads first.
    await storedConfigUntil(
      page,
      (entries) =>
        JSON.parse(entries.clawser_workspaces ?? '[]').some(
          (/** @type {{id: string, lastUsedAt?: number}} */ w) => w.id === second && w.lastUsedAt,
        ),
      "the second workspace's last use",
    );
    await browser.close({ keepProfile: true });
    return { profileDir: browser.profileDir, mine, second };
  } catch (err) {
    await cleanup(browser.profileDir);
    throw err;
  }
}

/**
 * Writes a file straight to OPFS (no app module), as damage leaves it.
 * @param {import('playwright-core').Page} page
 * @param {string} path
 * @param {string} text
 */
function writeRaw(page, path, text) {
  return page.evaluate(
    async ([p, t]) => {
      let dir = await navigator.storage.getDirectory();
      const parts = p.split('/');
      const name = /** @type {string} */ (parts.pop());
      for (const part of parts) dir = await dir.getDirectoryHandle(part);
      const w = await (await dir.getFileHandle(name, { create: true })).createWritable();
      await w.write(t);
      await w.close();
    },
    /** @type {[string, string]} */ ([path, text]),
  );
}

/** The names in a folder of OPFS. @param {import('playwright-core').Page} page @param {string} path */
function namesIn(page, path) {
  return page.evaluate(async (p) => {
    let dir = await navigator.storage.getDirectory();
    for (const part of p.split('/')) dir = await dir.getDirectoryHandle(part);
    const names = [];
    // any: the directory iterator is missing from TypeScript's DOM types
    for await (const [name] of /** @type {any} */ (dir).entries()) names.push(name);
    return names.sort();
  }, path);
}

/**
 * Opens the notice of damaged files and the entry of `what` in its list.
 * @param {import('playwright-core').Page} page @param {RegExp} what
 */
async function reviewDamage(page, what) {
  await page.locator('.banner', { hasText: DAMAGE_NOTICE }).getByRole('button', { name: 'Review' }).click();
  const dialog = page.getByRole('dialog', { name: 'Damaged files' });
  const item = dialog.locator('li', { has: page.getByRole('heading', { name: what }) });
  await item.waitFor();
  return { dialog, item };
}

/**
 * Downloads an entry's raw bytes; resolves to them as text.
 * @param {import('playwright-core').Page} page
 * @param {import('playwright-core').Locator} item
 */
async function downloadOf(page, item) {
  const [download] = await Promise.all([page.waitForEvent('download'), item.getByRole('button', { name: /^Download/ }).click()]);
  return (await readFile(/** @type {string} */ (await download.path()))).toString('utf8');
}

/** @param {{damage: boolean}} options */
async function damagedListScenario({ damage }) {
  const { profileDir, mine, second } = await twoWorkspaces();
  const browser = await launch({ profileDir });
  try {
    const side = await watcher(browser);
    const path = 'clawser_state/workspaces.json';
    const intact = await rawText(side, path);
    assert.ok(intact, "the list is a file of the browser's storage");
    // Cut short, as a write the disk did not finish leaves it.
    const damaged = intact.slice(0, Math.floor(intact.length / 2));
    if (damage) await writeRaw(side, path, damaged);
    const page = await fx.newPage(browser.context);
    await page.goto(`${app.url}#home`);
    await appReady(page);
    await stateChecked(page);
    const notice = page.locator('.banner', { hasText: DAMAGE_NOTICE });
    if (!damage) {
      assert.equal(await notice.count(), 0, 'no notice');
      assert.deepEqual(Object.keys(await listed(page)).sort(), [mine, second].sort());
      assert.equal(await rawText(side, path), intact);
      return;
    }
    // The app opens and says what it found, where the person is.
    assert.match(await notice.innerText(), /The workspace list \(workspaces\.json\)/);
    assert.deepEqual(Object.keys(await listed(page)), [], 'nothing listed from a damaged list (and no new one made)');
    // Nothing overwrites it: a new workspace is refused, saying why.
    await page.getByRole('button', { name: 'New workspace' }).click();
    await page.getByRole('dialog').getByLabel('Workspace name').fill('Over it');
    await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
    await page.locator('.banner', { hasText: /workspace list in the browser's storage is damaged/ }).waitFor();
    assert.equal(await rawText(side, path), damaged, 'not overwritten');
    // The list of damaged files: what is wrong, which workspaces' folders are still there, its raw bytes.
    const { dialog, item } = await reviewDamage(page, /The workspace list/);
    const text = await item.innerText();
    assert.match(text, /cut short/);
    assert.match(text, /“My workspace”/);
    assert.match(text, /“Second”/);
    assert.equal(await downloadOf(page, item), damaged, 'the download is the file as it is');
    // Set aside: kept under another name; a new list is started and the workspaces are offered back.
    await item.getByRole('button', { name: /^Set aside/ }).click();
    await item.getByText(/^Set aside: the file is kept as/).waitFor();
    const kept = (await namesIn(side, 'clawser_state')).filter((n) => /^workspaces\.damaged-.*\.json$/.test(n));
    assert.equal(kept.length, 1);
    assert.equal(await rawText(side, `clawser_state/${kept[0]}`), damaged, 'its bytes are kept');
    await dialog.getByRole('button', { name: 'Close' }).click();
    const offer = page.locator('.banner', { hasText: /found in the browser's storage/ });
    await offer.waitFor();
    assert.match(await offer.innerText(), /“My workspace”.*“Second”|“Second”.*“My workspace”/s);
    await offer.getByRole('button', { name: 'Add them back' }).click();
    await page.getByRole('link', { name: /Second/ }).waitFor();
    const rows = await listed(page);
    assert.deepEqual(Object.keys(rows).sort(), [mine, second].sort());
    assert.match(rows[mine], /My workspace.*OpenAI-compatible · test-model/s, 'with its settings');
    assert.equal(await notice.count(), 0, 'the notice is gone with the file');
  } finally {
    await cleanup(profileDir);
  }
}

test('a damaged workspace list: the app opens, names it and the workspaces still in storage, overwrites nothing; its bytes download, \
and set aside it is kept and the workspaces come back', async () => {
  await damagedListScenario({ damage: true });
});

test('control: the same workspace list intact shows both workspaces and no notice', async () => {
  await damagedListScenario({ damage: false });
});

/** @param {{damage: boolean}} options */
async function damagedSettingsScenario({ damage }) {
  const { profileDir, mine, second } = await twoWorkspaces();
  const browser = await launch({ profileDir });
  try {
    const side = await watcher(browser);
    const path = 'clawser_state/settings.json';
    const intact = await rawText(side, path);
    assert.ok(intact, "the settings are a file of the browser's storage");
    // Garbage bytes in the middle, as a disk error leaves them.
    const damaged = `${intact.slice(0, 40)}\u0000\u0000\u0007\u0001${intact.slice(44)}`;
    if (damage) await writeRaw(side, path, damaged);
    const page = await fx.newPage(browser.context);
    await page.goto(`${app.url}#home`);
    await appReady(page);
    await stateChecked(page);
    const notice = page.locator('.banner', { hasText: DAMAGE_NOTICE });
    const rows = await listed(page);
    assert.deepEqual(Object.keys(rows).sort(), [mine, second].sort(), 'every workspace is listed');
    if (!damage) {
      assert.equal(await notice.count(), 0, 'no notice');
      assert.match(rows[mine], /OpenAI-compatible · test-model/);
      assert.equal(await rawText(side, path), intact);
      return;
    }
    assert.match(await notice.innerText(), /Your settings/);
    assert.doesNotMatch(rows[mine], /OpenAI-compatible/, 'default settings meanwhile');
    // A setting changed meanwhile is not saved over it: the dialog says so.
    await page.getByRole('link', { name: /Second/ }).click();
    await appView(page);
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const settings = page.getByRole('dialog', { name: /Settings/ });
    await settings.getByLabel('Provider', { exact: true }).selectOption('openai-compatible');
    await settings.getByLabel('Model', { exact: true }).fill('other-model');
    await settings.getByLabel('Base URL', { exact: true }).fill(`${llm.url}/v1`);
    await settings.getByRole('button', { name: 'Save', exact: true }).click();
    await settings.getByText(/Could not save: .*settings\.json.* is damaged/).waitFor();
    await settings.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await rawText(side, path), damaged, 'not overwritten');
    const { item } = await reviewDamage(page, /Your settings/);
    assert.match(await item.innerText(), /garbage/);
    assert.equal(await downloadOf(page, item), damaged, 'the download is the file as it is');
    await item.getByRole('button', { name: /^Set aside/ }).click();
    await item.getByText(/^Set aside: the file is kept as/).waitFor();
    const kept = (await namesIn(side, 'clawser_state')).filter((n) => /^settings\.damaged-.*\.json$/.test(n));
    assert.equal(kept.length, 1);
    assert.equal(await rawText(side, `clawser_state/${kept[0]}`), damaged, 'its bytes are kept');
    // A new settings file is started (with the change made meanwhile).
    await until(async () => /other-model/.test((await rawText(side, path)) ?? ''), 'the new settings file');
  } finally {
    await cleanup(profileDir);
  }
}

test('a damaged settings file: the app opens with every workspace listed, names it, saves nothing over it; its bytes download, \
and set aside it is kept and a new one started', async () => {
  await damagedSettingsScenario({ damage: true });
});

test('control: the same settings intact show the provider and no notice', async () => {
  await damagedSettingsScenario({ damage: false });
});

// ---------------------------------------------------------------------------------------------
// A workspace folder the list does not name (as a crash left it with versions that kept the list
// in localStorage: the list lost an entry, the workspace's files stayed in storage)

/**
 * Takes a workspace off the stored list (and off localStorage's copy), straight in storage, its
 * folder left as it is.
 * @param {import('playwright-core').Page} page @param {string} id
 */
function loseFromList(page, id) {
  return page.evaluate(async (wsId) => {
    /** @param {string} raw */
    const drop = (raw) => JSON.stringify(JSON.parse(raw).filter((/** @type {{id: string}} */ w) => w.id !== wsId));
    const cached = localStorage.getItem('clawser_workspaces');
    if (cached !== null) localStorage.setItem('clawser_workspaces', drop(cached));
    let handle;
    try {
      handle = await (await (await navigator.storage.getDirectory()).getDirectoryHandle('clawser_state')).getFileHandle('workspaces.json');
    } catch {
      return; // no list file (a version keeping the list in localStorage)
    }
    const doc = JSON.parse(await (await handle.getFile()).text());
    doc.entries.clawser_workspaces = drop(doc.entries.clawser_workspaces);
    const w = await handle.createWritable();
    await w.write(JSON.stringify(doc));
    await w.close();
  }, id);
}

/** @param {{lose: boolean}} options */
async function unlistedScenario({ lose }) {
  const { profileDir, mine, second } = await twoWorkspaces();
  const browser = await launch({ profileDir });
  try {
    const side = await watcher(browser);
    if (lose) await loseFromList(side, second);
    const page = await fx.newPage(browser.context);
    await page.goto(`${app.url}#home`);
    await appReady(page);
    await stateChecked(page);
    const offer = page.locator('.banner', { hasText: /found in the browser's storage/ });
    if (!lose) {
      assert.equal(await offer.count(), 0, 'nothing to offer');
      assert.deepEqual(Object.keys(await listed(page)).sort(), [mine, second].sort());
      return;
    }
    assert.deepEqual(Object.keys(await listed(page)), [mine], 'the list as stored');
    assert.equal(await offer.count(), 1, 'the folder the list does not name is offered back');
    assert.match(await offer.innerText(), /“Second”/, 'under the name its record knows');
    assert.equal(await page.locator('.banner', { hasText: DAMAGE_NOTICE }).count(), 0, 'a list that lost an entry is not damaged');
    await offer.getByRole('button', { name: 'Add it back' }).click();
    await page.getByRole('link', { name: /Second/ }).waitFor();
    assert.deepEqual(Object.keys(await listed(page)).sort(), [mine, second].sort(), 'listed again, as the same workspace');
    await browser.close({ keepProfile: true });
    // Stored: the next visit lists it and offers nothing.
    const { browser: next, page: again } = await reopen(profileDir);
    try {
      assert.deepEqual(Object.keys(await listed(again)).sort(), [mine, second].sort());
      await nothingHidden(again);
    } finally {
      await next.close();
    }
  } finally {
    await cleanup(profileDir);
  }
}

test('a workspace folder the list does not name is offered back under its name at start; added back, it is listed again, \
and stays so', async () => {
  await unlistedScenario({ lose: true });
});

test('control: a list that names every workspace folder offers nothing', async () => {
  await unlistedScenario({ lose: false });
});
