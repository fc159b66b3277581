// A browser crash loses or hides nothing (issue 32 §9). Each test drives the real app in a
// real Chromium on a profile folder of its own, KILLS the browser process (SIGKILL, not a
// close: the browser gets no chance to save anything) at a moment the test observes — a reply
// streaming, a restore moving files, a delete under way, right after a burst of settings the app
// said were saved — then starts a new browser on the same profile and checks what the app shows.
// The control is the same scenario closed normally. What completed before the kill (the app said
// "saved", a file was written) must be there afterwards; nothing here depends on timing.
//
// Why localStorage was not enough (measured): Chromium writes a page's localStorage to disk about
// 5 s after the first change of a session and from then on at most about once a minute; a kill
// loses whatever waited in memory. The tests that change settings first wait until Chromium has
// put a sentinel key on disk (a condition observed in the profile's files), so their changes fall
// in that window, where versions keeping settings in localStorage lost them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchBrowser, startApp, openWorkspace, sendMessage, saveSettings, waitInPage } from './helpers.mjs';
import { startLlmServer } from '../fixtures/llm-server.mjs';

/** @type {Awaited<ReturnType<typeof startApp>>} */ let app;
/** @type {Awaited<ReturnType<typeof startLlmServer>>} */ let llm;

before(async () => {
  app = await startApp();
  llm = await startLlmServer();
});
after(async () => {
  await app?.close();
  await llm?.close();
});

/** @typedef {Awaited<ReturnType<typeof launchBrowser>>} Browser */

/** Every process of the machine: pid, parent and command line. */
function processes() {
  return execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' }).split('\n').filter(Boolean).map((line) => {
    const m = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line);
    return m ? { pid: Number(m[1]), ppid: Number(m[2]), args: m[3] } : null;
  }).filter((p) => p !== null);
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

/** @param {() => boolean} check @param {string} what @param {number} [timeoutMs] */
async function until(check, what, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((r) => setTimeout(r, 50));
  }
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
  for (let grew = true; grew;) {
    grew = false;
    for (const p of all) if (tree.has(p.ppid) && !tree.has(p.pid)) { tree.add(p.pid); grew = true; }
  }
  const closed = new Promise((resolve) => browser.context.once('close', resolve));
  process.kill(main.pid, 'SIGKILL');
  await closed;
  await until(() => [...tree].every((pid) => !alive(pid)), 'the killed browser\'s processes to exit');
}

/** localStorage's files in a profile, as text (keys are stored as Latin-1). @param {string} profileDir */
function localStorageOnDisk(profileDir) {
  const dir = join(profileDir, 'Default', 'Local Storage', 'leveldb');
  try {
    return readdirSync(dir).map((f) => readFileSync(join(dir, f)).toString('latin1')).join('');
  } catch {
    return '';
  }
}

/**
 * Writes a sentinel key to localStorage at once, then (`committed`) waits until Chromium has put
 * it on disk: what the page writes to localStorage after that waits in memory for up to a minute.
 * @param {Browser} browser
 */
async function localStorageSentinel(browser) {
  const page = await watcher(browser);
  const mark = `crash-sentinel-${process.pid}-${Date.now()}`;
  await page.evaluate((m) => localStorage.setItem(m, '1'), mark);
  await page.close();
  return {
    committed: () => until(() => localStorageOnDisk(browser.profileDir).includes(mark), 'Chromium to write localStorage to disk', 90_000),
  };
}

/** A new browser on the profile of `browser` (killed or closed), and a page on the app's home screen once the app is in. @param {string} profileDir */
async function reopen(profileDir) {
  const browser = await launchBrowser({ profileDir });
  const page = await browser.context.newPage();
  page.setDefaultTimeout(30_000);
  await page.goto(`${app.url}#home`);
  await page.waitForFunction(() => performance.getEntriesByName('clawser-app-ready').length > 0);
  return { browser, page };
}

/** The workspaces the home screen lists: id → text of the row's link. @param {import('playwright-core').Page} page */
function listed(page) {
  return page.evaluate(() => Object.fromEntries([...document.querySelectorAll('a.ws-open')].map((a) => [decodeURIComponent(a.getAttribute('href')?.split('/')[1] ?? ''), a.textContent ?? ''])));
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
      for await (const [, handle] of /** @type {any} */ (d).entries()) n += handle.kind === 'directory' ? await count(handle) : 1; // any: the directory iterator is missing from TypeScript's DOM types
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

/** Writes `n` small files under a workspace's notes/ through the app's storage module. @param {import('playwright-core').Page} page @param {string} ws @param {number} n */
function writeNotes(page, ws, n) {
  return page.evaluate(async ([id, count]) => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const fs = new OpfsFileSystem();
    try {
      for (let i = 0; i < count; i += 100) {
        await Promise.all(Array.from({ length: Math.min(100, count - i) }, (_, k) => fs.write(`clawser_workspaces/${id}/notes/${i + k}.md`, `note ${i + k}\n`)));
      }
    } finally {
      fs.terminate();
    }
  }, /** @type {[string, number]} */ ([ws, n]));
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

/** @param {{kill: boolean}} options */
async function streamScenario({ kill }) {
  const first = await launchBrowser();
  const profileDir = first.profileDir;
  try {
    const sentinel = await localStorageSentinel(first);
    const page = await openWorkspace(first.context, app.url);
    const mine = workspaceOf(page.url());
    await sentinel.committed();
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: /Settings/ });
    await dialog.getByLabel('Provider', { exact: true }).selectOption('openai-compatible');
    await dialog.getByLabel('Model', { exact: true }).fill('test-model');
    await dialog.getByLabel('Base URL', { exact: true }).fill(`${llm.url}/v1`);
    await saveSettings(page);
    const second = await newWorkspace(page, 'Second');
    await page.goto(`${app.url}#workspace/${mine}`);
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    llm.enqueue({ text: 'Part of a reply that is still streaming when the browser goes.', pauseAfter: 4 });
    await sendMessage(page, 'hello before the crash');
    await page.locator('.msg.assistant', { hasText: 'Part of a' }).waitFor();
    // The question is on storage (the log is appended as the turn goes).
    const side = await watcher(first);
    await waitInPage(side, async (ws) => {
      const root = await (await (await navigator.storage.getDirectory()).getDirectoryHandle('clawser_workspaces')).getDirectoryHandle(ws);
      for await (const [, conv] of /** @type {any} */ (await root.getDirectoryHandle('.conversations')).entries()) { // any: the directory iterator is missing from TypeScript's DOM types
        if (conv.kind !== 'directory') continue;
        const text = await (await (await conv.getFileHandle('events.jsonl').catch(() => null))?.getFile())?.text();
        if (text?.includes('hello before the crash')) return true;
      }
      return false;
    }, mine, { what: 'the question on storage' });
    if (!kill) {
      llm.resume();
      await page.locator('.msg.assistant', { hasText: 'browser goes.' }).waitFor();
    }
    await end(first, kill);
    const { browser, page: again } = await reopen(profileDir);
    try {
      const rows = await listed(again);
      assert.deepEqual(Object.keys(rows).sort(), [mine, second].sort(), 'the same workspaces, none new');
      assert.match(rows[mine], /My workspace.*OpenAI-compatible · test-model/s, 'its provider settings');
      await again.getByRole('link', { name: /My workspace/ }).click();
      await again.locator('.msg.user', { hasText: 'hello before the crash' }).waitFor();
      if (!kill) await again.locator('.msg.assistant', { hasText: 'browser goes.' }).waitFor();
    } finally {
      await browser.close();
    }
  } finally {
    llm.resume();
    await rm(profileDir, { recursive: true, force: true });
  }
}

test('the browser killed while a reply streams: the workspace list, the provider settings and the question are all there afterwards', async () => {
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
  const setup = await launchBrowser();
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
    const first = await launchBrowser({ profileDir });
    const sentinel = await localStorageSentinel(first);
    const home = await first.context.newPage();
    home.setDefaultTimeout(30_000);
    await home.goto(`${app.url}#home`);
    await home.getByRole('link', { name: /Made after the backup/ }).waitFor();
    await home.waitForFunction(() => performance.getEntriesByName('clawser-app-ready').length > 0);
    await sentinel.committed();
    await home.locator('input[aria-label="Choose a backup file to restore"]').setInputFiles({ name: 'backup.zip', mimeType: 'application/zip', buffer: backup });
    const confirm = home.getByRole('dialog', { name: 'Replace everything with this backup?' });
    if (kill) {
      const side = await watcher(first);
      await confirm.getByRole('button', { name: 'Replace everything' }).click();
      // Killed while the current files are being moved aside (or the backup's put in place).
      await waitInPage(side, async () => {
        try {
          const root = await navigator.storage.getDirectory();
          const state = JSON.parse(await (await (await root.getFileHandle('.restore-state.json')).getFile()).text());
          if (state.phase !== 'aside' && state.phase !== 'placing') return false;
          await (await root.getDirectoryHandle('.restore-previous')).getDirectoryHandle('clawser_workspaces');
          return true;
        } catch {
          return false;
        }
      }, undefined, { what: 'the restore moving files', timeoutMs: 60_000 });
      await crash(first);
    } else {
      await Promise.all([home.waitForEvent('load'), confirm.getByRole('button', { name: 'Replace everything' }).click()]);
      await home.waitForFunction(() => performance.getEntriesByName('clawser-app-ready').length > 0);
      await first.close({ keepProfile: true });
    }
    const { browser, page: again } = await reopen(profileDir);
    try {
      const rows = await listed(again);
      const banner = again.locator('.banner', { hasText: 'A backup restore was interrupted' });
      if (kill) {
        // Rolled back, and said so: everything as it was before the restore began.
        await banner.waitFor();
        assert.match(await banner.innerText(), /previous data was kept/);
        assert.deepEqual(Object.keys(rows).sort(), [mine, later].sort());
        assert.equal(await countFiles(again, `clawser_workspaces/${later}/notes`), 3);
      } else {
        assert.equal(await banner.count(), 0, 'no interrupted restore to report');
        assert.deepEqual(Object.keys(rows), [mine], 'the backup\'s workspaces');
        assert.equal(await countFiles(again, `clawser_workspaces/${later}`), -1);
      }
      assert.equal(await countFiles(again, `clawser_workspaces/${mine}/notes`), NOTES, 'every file of the workspace');
      for (const leftover of ['.restore-previous', '.restore-staging']) assert.equal(await countFiles(again, leftover), -1, `${leftover} is gone`);
      assert.equal(await rawText(again, '.restore-state.json'), null);
    } finally {
      await browser.close();
    }
  } finally {
    await rm(profileDir, { recursive: true, force: true });
  }
}

test('the browser killed during a restore: the next start rolls it back from its marker file and says so; every file is as before', async () => {
  await restoreScenario({ kill: true });
});

test('control: a restore that runs to the end shows the backup\'s data and no notice', async () => {
  await restoreScenario({ kill: false });
});

// ---------------------------------------------------------------------------------------------
// A workspace delete under way

/** @param {{kill: boolean}} options */
async function deleteScenario({ kill }) {
  const setup = await launchBrowser();
  const profileDir = setup.profileDir;
  try {
    // An earlier visit made the workspace and its files.
    const made = await openWorkspace(setup.context, app.url);
    const mine = workspaceOf(made.url());
    const doomed = await newWorkspace(made, 'Doomed');
    await writeNotes(made, doomed, NOTES);
    await setup.close({ keepProfile: true });
    const first = await launchBrowser({ profileDir });
    const page = await first.context.newPage();
    page.setDefaultTimeout(30_000);
    await page.goto(`${app.url}#home`);
    await page.waitForFunction(() => performance.getEntriesByName('clawser-app-ready').length > 0);
    await page.getByRole('button', { name: 'Delete workspace Doomed' }).click();
    const side = await watcher(first);
    await page.getByRole('dialog').getByRole('button', { name: 'Delete workspace' }).click();
    if (kill) {
      // Killed once its files have begun to go.
      await waitInPage(side, async (id) => {
        /** @param {FileSystemDirectoryHandle} d @returns {Promise<number>} */
        const count = async (d) => {
          let n = 0;
          for await (const [, h] of /** @type {any} */ (d).entries()) n += h.kind === 'directory' ? await count(h) : 1; // any: the directory iterator is missing from TypeScript's DOM types
          return n;
        };
        try {
          const dir = await (await (await navigator.storage.getDirectory()).getDirectoryHandle('clawser_workspaces')).getDirectoryHandle(id);
          return (await count(dir)) < 1500;
        } catch {
          return true; // all gone already
        }
      }, doomed, { what: 'the delete under way' });
      await crash(first);
    } else {
      await page.getByRole('link', { name: /Doomed/ }).waitFor({ state: 'detached' });
      await waitInPage(side, async (id) => (await (await navigator.storage.getDirectory()).getDirectoryHandle('clawser_workspaces')).getDirectoryHandle(id).then(() => false, () => true), doomed, { what: 'its folder gone' });
      await first.close({ keepProfile: true });
    }
    const { browser, page: again } = await reopen(profileDir);
    try {
      assert.deepEqual(Object.keys(await listed(again)), [mine], 'the deleted workspace is not listed');
      assert.equal(await again.locator('.banner', { hasText: /found in the browser's storage/ }).count(), 0, 'nor offered back');
      // Its leftover files are cleaned up by this start.
      await waitInPage(again, async (id) => (await (await navigator.storage.getDirectory()).getDirectoryHandle('clawser_workspaces')).getDirectoryHandle(id).then(() => false, () => true), doomed, { what: 'the leftover files cleaned up' });
    } finally {
      await browser.close();
    }
  } finally {
    await rm(profileDir, { recursive: true, force: true });
  }
}

test('the browser killed while a workspace is being deleted: it is not listed afterwards and its leftover files are removed at the next start', async () => {
  await deleteScenario({ kill: true });
});

test('control: a delete that runs to the end', async () => {
  await deleteScenario({ kill: false });
});

// ---------------------------------------------------------------------------------------------
// A burst of settings changes

/** @param {{kill: boolean}} options */
async function burstScenario({ kill }) {
  const first = await launchBrowser();
  const profileDir = first.profileDir;
  try {
    const sentinel = await localStorageSentinel(first);
    const page = await openWorkspace(first.context, app.url, { provider: 'openai-compatible', model: 'model-0', baseUrl: `${llm.url}/v1` });
    const mine = workspaceOf(page.url());
    await sentinel.committed();
    // Each change is made through the app and waited for until it says it is done.
    for (let i = 1; i <= 4; i++) {
      await page.getByRole('button', { name: 'Settings', exact: true }).click();
      await page.getByRole('dialog', { name: /Settings/ }).getByLabel('Model', { exact: true }).fill(`model-${i}`);
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
    await end(first, kill);
    const { browser, page: again } = await reopen(profileDir);
    try {
      const rows = await listed(again);
      assert.deepEqual(Object.keys(rows).sort(), [mine, ...made].sort());
      assert.match(rows[mine], /^Renamed 3.*OpenAI-compatible · model-4/s);
      assert.match(rows[made[0]], /^Burst one/);
      assert.match(rows[made[1]], /^Burst two/);
    } finally {
      await browser.close();
    }
  } finally {
    await rm(profileDir, { recursive: true, force: true });
  }
}

test('the browser killed right after a burst of settings changes the app said were saved: every one of them is there afterwards', async () => {
  await burstScenario({ kill: true });
});

test('control: the same burst with the browser closed normally', async () => {
  await burstScenario({ kill: false });
});
