// Shared harness of the browser tests: a real Chromium (CHROME_PATH, the system's, or the one
// npm provides — see scripts/chromium.mjs), a fresh profile per test, the app served on
// 127.0.0.1 and a record of every request, and the page-level helpers (open a workspace, send a
// message, read a file…). Test files set up through tests/browser/fixture.mjs, which builds on
// launchBrowser and startApp here and closes what it started; bench/ and scripts/ use them bare.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startServer } from '../../scripts/static-server.mjs';
import { waitUntil } from '../fixtures/wait.mjs';
import { CHROMIUM_ARGS, findChromium as locateChromium, BrowserUnavailableError, launchFailureMessage } from '../../scripts/chromium.mjs';

/** The Chromium binary the tests drive. @returns {Promise<string>} */
export async function findChromium() {
  return (await locateChromium()).path;
}

export { CHROMIUM_ARGS };

/**
 * How long a page's actions and waits may take before they fail (Playwright's default timeout of
 * the pages the harness opens): room for a busy 2-core machine, where a first load of the app
 * takes several seconds; a test waits on a condition, so a quiet machine never waits this long.
 */
export const PAGE_TIMEOUT_MS = 30_000;

/**
 * @typedef {object} BrowserOptions
 * @property {string} [profileDir] an existing profile (a browser restarted on it); default: a fresh one
 * @property {{width: number, height: number}} [viewport] default 1280 × 800
 * @property {'light' | 'dark'} [colorScheme] default light
 * @property {boolean} [offline] start with the network off
 * @property {string[]} [args] Chromium flags on top of CHROMIUM_ARGS
 * @property {string[]} [extensions] unpacked extensions to load (folders); Playwright's `--disable-extensions` is then left out
 */

/**
 * The flags that load unpacked extensions (and only those) into the browser.
 * @param {string[] | undefined} folders
 */
function extensionArgs(folders) {
  if (!folders?.length) return [];
  return [`--disable-extensions-except=${folders.join(',')}`, `--load-extension=${folders.join(',')}`];
}

/**
 * A Chromium on a profile folder of its own. Browser tests get it through tests/browser/fixture.mjs,
 * which closes it; bench/ and scripts/ call it directly.
 * @param {BrowserOptions} [options]
 */
export async function launchBrowser(options = {}) {
  const { path, source } = await locateChromium();
  // The npm-provided build (@sparticuz/chromium) is a headless shell: it has no extension system at all.
  if (options.extensions?.length && source === 'provided')
    throw new BrowserUnavailableError(
      `Chromium (provided: ${path}) cannot load extensions: the npm-provided build is a headless shell without them. Run this ` +
        'test with the system’s Chromium (Debian: `apt-get install -y chromium`) or CHROME_PATH set to a Chromium or Chrome.',
    );
  const profileDir = options.profileDir ?? (await mkdtemp(join(tmpdir(), 'clawser-profile-')));
  /** @type {import('playwright-core').BrowserContext} */
  let context;
  try {
    context = await chromium.launchPersistentContext(profileDir, {
      executablePath: path,
      headless: true,
      args: [...CHROMIUM_ARGS, ...extensionArgs(options.extensions), ...(options.args ?? [])],
      ...(options.extensions?.length ? { ignoreDefaultArgs: ['--disable-extensions'] } : {}),
      viewport: options.viewport ?? { width: 1280, height: 800 },
      offline: options.offline ?? false,
      // The same language whatever browser runs the tests (the npm-provided build reports "en-US@posix" under LANG=C).
      locale: 'en-US',
      colorScheme: options.colorScheme ?? 'light',
      timeout: 60_000,
    });
  } catch (err) {
    if (!options.profileDir) await rm(profileDir, { recursive: true, force: true });
    throw new BrowserUnavailableError(launchFailureMessage({ source, path }, err));
  }
  /** @type {string[]} */
  const requests = [];
  context.on('request', (r) => requests.push(r.url()));
  /** @type {string[]} */
  const errors = [];
  const watch = (/** @type {import('playwright-core').Page} */ page) => {
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
  };
  context.on('page', watch);
  context.pages().forEach(watch);
  return {
    context,
    profileDir,
    requests,
    errors,
    async close({ keepProfile = false } = {}) {
      await context.close();
      if (!keepProfile) await rm(profileDir, { recursive: true, force: true });
    },
  };
}

/**
 * The app served on 127.0.0.1 at a free port.
 * @param {{framingHeaders?: boolean, root?: string, isolation?: import('../../scripts/static-server.mjs').IsolationMode}} [options]
 *   framingHeaders: false only for control runs; root: serve this folder (a copy of the app) instead
 *   of the checkout; isolation: false serves no isolation header (a static host that sends none)
 */
export async function startApp(options = {}) {
  const server = await startServer({ host: '127.0.0.1', port: 0, ...options });
  const port = /** @type {import('node:net').AddressInfo} */ (server.address()).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    server,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve(undefined));
      }),
  };
}

/** Every URL must stay on this machine. @param {string[]} urls */
export function offMachine(urls) {
  return urls.filter((u) => {
    if (u.startsWith('data:') || u.startsWith('blob:') || u.startsWith('about:') || u.startsWith('chrome-extension:')) return false;
    try {
      const host = new URL(u).hostname;
      return !['127.0.0.1', 'localhost', '[::1]'].includes(host);
    } catch {
      return true;
    }
  });
}

/**
 * Saves the open Settings dialog and waits until the workspace view is rebuilt with the new
 * settings (the route leaves /settings only after that), so the next action hits the new view.
 * @param {import('playwright-core').Page} page
 */
export async function saveSettings(page) {
  const dialog = page.getByRole('dialog', { name: /Settings/ });
  await dialog.getByRole('button', { name: 'Save', exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  await page.waitForURL((u) => !u.hash.endsWith('/settings'));
}

/**
 * @typedef {{provider?: string, model?: string, apiKey?: string, baseUrl?: string, autonomy?: 'readonly' | 'supervised' | 'full'}}
 *   WorkspaceSettings
 */

/**
 * Opens the default workspace in a new page and, when `provider` is given, saves those
 * provider settings through the Settings dialog. Returns the page.
 * @param {import('playwright-core').BrowserContext} context
 * @param {string} appUrl
 * @param {WorkspaceSettings} [settings]
 */
export async function openWorkspace(context, appUrl, settings = {}) {
  const page = await context.newPage();
  page.setDefaultTimeout(PAGE_TIMEOUT_MS);
  await showWorkspace(page, appUrl, settings);
  return page;
}

/**
 * In `page`: opens the default workspace and, when `provider` is given, saves those provider
 * settings through the Settings dialog (openWorkspace on a page that is already there).
 * @param {import('playwright-core').Page} page
 * @param {string} appUrl
 * @param {WorkspaceSettings} [settings]
 */
export async function showWorkspace(page, appUrl, settings = {}) {
  await page.goto(appUrl);
  await page.getByRole('link', { name: /My workspace/ }).click();
  // A click on the first view (before the app has loaded) opens the workspace once the app is in.
  await page.waitForURL(/#workspace\//);
  if (!settings.provider) return;
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: /Settings/ });
  await dialog.getByLabel('Provider', { exact: true }).selectOption(settings.provider);
  if (settings.model) await dialog.getByLabel('Model', { exact: true }).fill(settings.model);
  if (settings.apiKey) await dialog.getByLabel('API key', { exact: true }).fill(settings.apiKey);
  if (settings.baseUrl) await dialog.getByLabel('Base URL', { exact: true }).fill(settings.baseUrl);
  if (settings.autonomy) await dialog.getByLabel('Autonomy').selectOption(settings.autonomy);
  await saveSettings(page);
}

/**
 * A new page on the app's home view: its import map resolves the vendored packages the app's
 * modules import, so tests can load those modules in it.
 * @param {import('playwright-core').BrowserContext} context @param {string} appUrl
 */
export async function openHome(context, appUrl) {
  const page = await context.newPage();
  page.setDefaultTimeout(PAGE_TIMEOUT_MS);
  await showHome(page, appUrl);
  return page;
}

/** In `page`: the app's home view, once its workspace list is there. @param {import('playwright-core').Page} page @param {string} appUrl */
export async function showHome(page, appUrl) {
  await page.goto(`${appUrl}#home`);
  await page.getByRole('heading', { name: 'Workspaces' }).waitFor();
}

/**
 * Reads a file of the open workspace from OPFS through the app's own storage module.
 * `{conversation}` in the path stands for the open conversation's folder.
 * @param {import('playwright-core').Page} page
 * @param {string} path relative to the workspace folder
 * @returns {Promise<string | null>}
 */
export function readWorkspaceFile(page, path) {
  return page.evaluate(async (p) => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const [, ws, , conv] = location.hash.slice(1).split('/');
    const fs = new OpfsFileSystem();
    try {
      return await fs.readText(`clawser_workspaces/${ws}/${p.replace('{conversation}', `.conversations/${conv}`)}`);
    } catch {
      return null;
    } finally {
      fs.terminate();
    }
  }, path);
}

/**
 * Writes a file of the workspace on screen straight to OPFS (outside the app, as a file the user
 * put there would be).
 * @param {import('playwright-core').Page} page @param {string} path relative to the workspace @param {string} text
 */
export function writeWorkspaceFile(page, path, text) {
  return page.evaluate(
    async ([p, t]) => {
      const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
      const fs = new OpfsFileSystem();
      try {
        await fs.write(`clawser_workspaces/${location.hash.split('/')[1]}/${p}`, t);
      } finally {
        fs.terminate();
      }
    },
    [path, text],
  );
}

/**
 * Waits for the page to say `text` (a panel's outcome, e.g. the Git panel's "Committed …"); if it
 * does not, the failure says what the page said instead (its status lines and alerts), not only
 * that the text never came.
 * @param {import('playwright-core').Page} page @param {string | RegExp} text
 */
export async function panelSays(page, text) {
  try {
    await page.getByText(text).waitFor();
  } catch (err) {
    const said = await page
      .locator('[role=status], [role=alert]')
      .allInnerTexts()
      .catch(() => []);
    throw new Error(`${/** @type {Error} */ (err).message}\nThe page said: ${JSON.stringify(said.filter((t) => t.trim()))}`);
  }
}

/** Types a message into the composer and sends it. @param {import('playwright-core').Page} page @param {string} text */
export async function sendMessage(page, text) {
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
}

/**
 * Waits until an async check in the page returns true (Playwright's waitForFunction does not
 * await a returned promise: a pending promise counts as truthy). `timeoutMs`: checked once per
 * 50 ms of it (waitUntil of tests/fixtures/wait.mjs).
 * @template A
 * @param {import('playwright-core').Page} page
 * @param {(arg: A) => Promise<boolean>} check
 * @param {A} [arg]
 * @param {{timeoutMs?: number, what?: string}} [options]
 */
export async function waitInPage(page, check, arg, options = {}) {
  // any: evaluate's overloads cannot follow a generic argument
  const inPage = () => page.evaluate(/** @type {(arg: A) => Promise<boolean>} */ (check), /** @type {any} */ (arg));
  await waitUntil(inPage, options.what ?? 'a condition in the page', { tries: Math.ceil((options.timeoutMs ?? 20_000) / 50) });
}

/**
 * Notifications are recorded in `window.__notifications` instead of shown (headless Chromium has
 * no notification centre), with the permission granted.
 * @param {import('playwright-core').BrowserContext} context
 */
export async function recordNotifications(context) {
  await context.addInitScript(() => {
    /** @type {{title: string, body: string}[]} */
    const shown = [];
    Object.defineProperty(window, '__notifications', { value: shown });
    class RecordingNotification {
      static permission = 'granted';
      static requestPermission() {
        return Promise.resolve('granted');
      }
      /** @param {string} title @param {{body?: string}} [options] */
      constructor(title, options = {}) {
        shown.push({ title, body: options.body ?? '' });
      }
      close() {}
    }
    Object.defineProperty(window, 'Notification', { value: RecordingNotification, configurable: true });
  });
}

/**
 * After opening a workspace's chat (e.g. a reload): waits until the app's own view is on screen.
 * The first view, painted before the app has loaded, lacks what only the app knows (the Undo row,
 * the token meter, the conversation's model menu) and takes actions to run later.
 * @param {import('playwright-core').Page} page
 */
export async function appView(page) {
  await page.locator('#app .workspace:not([data-first-view])').waitFor();
}

/**
 * Clawser's stored settings and workspace list, as the browser's file storage holds them
 * (`clawser_state/*.json`, see web/storage/durable-config.js; localStorage is only a cache):
 * key → raw JSON text. What the app said was saved is here; a change made in the background
 * lands a moment later (poll with `storedConfigUntil`).
 * @param {import('playwright-core').Page} page
 * @returns {Promise<Record<string, string>>}
 */
export function storedConfig(page) {
  return page.evaluate(async () => {
    /** @type {Record<string, string>} */
    const entries = {};
    let dir;
    try {
      dir = await (await navigator.storage.getDirectory()).getDirectoryHandle('clawser_state');
    } catch {
      return entries; // nothing stored yet
    }
    for (const name of ['workspaces.json', 'settings.json']) {
      let text;
      try {
        text = await (await (await dir.getFileHandle(name)).getFile()).text();
      } catch {
        continue; // not written yet
      }
      Object.assign(entries, JSON.parse(text).entries);
    }
    return entries;
  });
}

/**
 * Waits until the stored settings satisfy `check` (a change the app writes in the background);
 * resolves to them.
 * @param {import('playwright-core').Page} page
 * @param {(entries: Record<string, string>) => boolean} check
 * @param {string} what
 */
export async function storedConfigUntil(page, check, what) {
  return waitUntil(async () => {
    const entries = await storedConfig(page);
    return check(entries) ? entries : null;
  }, `the stored settings: ${what}`);
}

/**
 * Changes stored settings as another tab of the app would (the app's own settings store, with a
 * tab coordinator of its own): written under the cross-tab lock, and the app in `page` is told.
 * `changes`: key → value (null: removed). The app uses the values at once for what it reads
 * later; reload the page where a test must not depend on when the message arrives.
 * @param {import('playwright-core').Page} page
 * @param {Record<string, unknown>} changes
 */
export function changeStoredConfig(page, changes) {
  return page.evaluate(async (all) => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const { TabCoordinator } = await import('/web/agent/coordination/tabs.js');
    const { RestoreGate } = await import('/web/agent/coordination/restore-gate.js');
    const { openConfig } = await import('/web/app/config-files.js');
    const fs = new OpfsFileSystem();
    const tabs = new TabCoordinator({ label: 'test' });
    /** @type {unknown[]} */
    const errors = [];
    try {
      const config = await openConfig({ fs, tabs, gate: new RestoreGate({ channel: tabs }), onError: (err) => errors.push(err) });
      for (const [key, value] of Object.entries(all)) {
        if (value === null) config.remove(key);
        else config.set(key, value);
      }
      await config.flush();
      config.close();
      if (errors.length) throw errors[0];
    } finally {
      await tabs.close();
      fs.terminate();
    }
  }, changes);
}
