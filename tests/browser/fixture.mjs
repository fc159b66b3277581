// The one set-up of the browser tests: the app server, a scripted model, a browser on a fresh
// profile and a page opened on the app, and one teardown that closes all of it (every test file
// uses it: tests/unit/browser-fixture.test.mjs).
//
// A file's shared set-up, closed after its last test:
//
//   const { app, llm, browser, page } = await useFixture({
//     llm: {},                                  // a scripted model (tests/fixtures/llm-server.mjs)
//     page: 'workspace',                        // 'blank' | 'home' | 'workspace'
//     settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1` }),
//   });
//
// One test's own (closed when the test ends):
//
//   test('…', async (t) => {
//     const fx = await openFixture({ browser: { viewport: { width: 360, height: 740 }, colorScheme: 'dark' }, page: 'blank' }, t);
//
// Options (all optional):
//   app      {framingHeaders: false} (control runs only), {copy: true} a private copy of the app
//            that the test may change (fx.appDir) and stop (fx.app.close()), {isolation: false}
//            no isolation header (a static host that sends none; the other modes: IsolationMode of
//            scripts/static-server.mjs)
//   llm      true or {apiKey, models, cors, script}: a scripted model server; `script`: replies
//            queued at once (ScriptedResponse[]); none by default
//   browser  {viewport, colorScheme, offline, args, profileDir, extensions}; false: none (the test
//            launches its own with fx.launchBrowser); extensions: unpacked extension folders to load
//   page     'blank' (a new tab), 'home' (the workspace list shown), 'workspace' (the default
//            workspace open); none by default; `settings` implies 'workspace'
//   settings provider settings saved through the Settings dialog ({provider, model, apiKey,
//            baseUrl, autonomy}), or a function of the fixture returning them
//   beforePage  run once the browser is up and before the page opens (init scripts, a clock)
//   timeoutMs   the default timeout of the pages the fixture opens (PAGE_TIMEOUT_MS)
//
// The fixture: app (url, port, close), url, llm, browser (context, profileDir, requests,
// errors, close), context, page; fx.llm / fx.browser / fx.page throw when not asked for. Lower-level
// parts for unusual needs, each closed by the same teardown: fx.launchBrowser(options) another
// browser (two browsers, a profile reopened after a kill), fx.relaunch() the browser restarted
// on its profile, fx.startApp(options) another app server, fx.startLlm(options) another model,
// fx.tempDir(prefix) a folder removed afterwards, fx.defer(fn) any other teardown. fx.newPage(),
// fx.openHome(), fx.openWorkspace(settings) open more pages with the fixture's timeout.
import { after } from 'node:test';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appRoot } from '../../scripts/static-server.mjs';
import { startLlmServer } from '../fixtures/llm-server.mjs';
import { launchBrowser, startApp, showHome, showWorkspace, PAGE_TIMEOUT_MS } from './helpers.mjs';

/** @typedef {import('playwright-core').Page} Page */
/** @typedef {import('playwright-core').BrowserContext} BrowserContext */
/** @typedef {Awaited<ReturnType<typeof launchBrowser>>} Browser */
/** @typedef {Awaited<ReturnType<typeof startApp>>} App */
/** @typedef {Awaited<ReturnType<typeof startLlmServer>>} LlmServer */
/** @typedef {import('./helpers.mjs').BrowserOptions} BrowserOptions */
/** @typedef {import('./helpers.mjs').WorkspaceSettings} WorkspaceSettings */
/**
 * @typedef {{apiKey?: string, models?: string[], cors?: boolean, script?: import('../fixtures/llm-server.mjs').ScriptedResponse[]}}
 *   LlmOptions
 */

/**
 * @typedef {object} FixtureOptions
 * @property {{framingHeaders?: boolean, copy?: boolean, isolation?: import('../../scripts/static-server.mjs').IsolationMode}} [app]
 * @property {boolean | LlmOptions} [llm]
 * @property {false | BrowserOptions} [browser]
 * @property {'blank' | 'home' | 'workspace'} [page]
 * @property {WorkspaceSettings | ((fx: Fixture) => WorkspaceSettings)} [settings]
 * @property {(fx: Fixture) => unknown} [beforePage]
 * @property {number} [timeoutMs]
 */

/** The files of the app a private copy needs (what the static server serves). */
const APP_FILES = ['index.html', 'sw.js', 'manifest.webmanifest', 'web', 'icons'];

export class Fixture {
  /** @type {App | undefined} */ #app;
  /** @type {string | undefined} */ #appDir;
  /** @type {LlmServer | undefined} */ #llm;
  /** @type {Browser | undefined} */ #browser;
  /** @type {BrowserOptions} */ #browserOptions = {};
  /** @type {Page | undefined} */ #page;
  #timeoutMs = PAGE_TIMEOUT_MS;
  /** Teardowns, run last first. @type {(() => unknown)[]} */
  #teardown = [];
  #closed = false;

  /** @param {number} [timeoutMs] */
  constructor(timeoutMs) {
    if (timeoutMs) this.#timeoutMs = timeoutMs;
  }

  /** The app server. */
  get app() {
    return /** @type {App} */ (this.#app);
  }

  /** The app's URL (ends with a slash). */
  get url() {
    return this.app.url;
  }

  /** The folder the app is served from: only for `app: {copy: true}`. */
  get appDir() {
    if (!this.#appDir)
      throw new Error('This fixture serves the checkout: ask for `app: { copy: true }` to get a copy the test may change.');
    return this.#appDir;
  }

  /** The scripted model server. */
  get llm() {
    if (!this.#llm) throw new Error('This fixture has no scripted model: ask for `llm: {}` (or start another with fx.startLlm()).');
    return this.#llm;
  }

  /** The browser (the latest after fx.relaunch()). */
  get browser() {
    if (!this.#browser) throw new Error('This fixture has no browser: leave out `browser: false`, or use fx.launchBrowser().');
    return this.#browser;
  }

  /** The browser's context. */
  get context() {
    return this.browser.context;
  }

  /** The page the fixture opened. */
  get page() {
    if (!this.#page) throw new Error("This fixture opened no page: ask for `page: 'blank' | 'home' | 'workspace'`.");
    return this.#page;
  }

  /**
   * Registers a teardown (run at close, the latest registered first).
   * @param {() => unknown} fn
   */
  defer(fn) {
    this.#teardown.push(fn);
  }

  /**
   * Another app server (e.g. one without the framing headers, for a control), closed at teardown.
   * @param {{framingHeaders?: boolean, root?: string, isolation?: import('../../scripts/static-server.mjs').IsolationMode}} [options]
   */
  async startApp(options = {}) {
    const app = await startApp(options);
    this.defer(() => app.close());
    return app;
  }

  /**
   * Another scripted model server, closed at teardown.
   * @param {LlmOptions} [options]
   */
  async startLlm(options = {}) {
    const { script, ...serverOptions } = options;
    const llm = await startLlmServer(serverOptions);
    this.defer(() => llm.close());
    if (script?.length) llm.enqueue(...script);
    return llm;
  }

  /**
   * Another browser on a profile of its own (or `profileDir`'s), closed at teardown if the test
   * has not closed it, its profile removed then.
   * @param {BrowserOptions} [options]
   */
  async launchBrowser(options = {}) {
    const browser = await launchBrowser(options);
    let open = true;
    browser.context.once('close', () => {
      open = false;
    });
    // A closed context (closed by the test, or its browser killed) is not closed again.
    this.defer(async () => {
      if (open) await browser.context.close();
      await rm(browser.profileDir, { recursive: true, force: true, maxRetries: 5 });
    });
    return browser;
  }

  /**
   * Restarts the browser on its profile (what a user's browser restart keeps is kept): closes it
   * and launches a new one with the same options; fx.browser is the new one, fx.page is gone.
   */
  async relaunch() {
    const old = this.browser;
    await old.close({ keepProfile: true });
    this.#page = undefined;
    this.#browser = await this.launchBrowser({ ...this.#browserOptions, profileDir: old.profileDir });
    return this.#browser;
  }

  /**
   * A folder of its own under the system's temporary folder, removed at teardown.
   * @param {string} [prefix]
   */
  async tempDir(prefix = 'clawser-test-') {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    this.defer(() => rm(dir, { recursive: true, force: true, maxRetries: 5 }));
    return dir;
  }

  /**
   * A new tab (of the fixture's browser, or of `context`) with the fixture's timeout.
   * @param {BrowserContext} [context]
   */
  async newPage(context = this.context) {
    const page = await context.newPage();
    page.setDefaultTimeout(this.#timeoutMs);
    return page;
  }

  /**
   * A new tab on the app's home view, once its workspace list is there.
   * @param {BrowserContext} [context]
   */
  async openHome(context = this.context) {
    const page = await this.newPage(context);
    await showHome(page, this.url);
    return page;
  }

  /**
   * A new tab on the default workspace, with `settings` saved through the Settings dialog.
   * @param {WorkspaceSettings} [settings]
   * @param {BrowserContext} [context]
   */
  async openWorkspace(settings = {}, context = this.context) {
    const page = await this.newPage(context);
    await showWorkspace(page, this.url, settings);
    return page;
  }

  /**
   * Starts what `options` asks for. On a failure, what was started is closed before the error
   * goes on (a test file never hangs on a server it started: tests/unit/browser-harness.test.mjs).
   * @param {FixtureOptions} options
   */
  async start(options) {
    try {
      if (options.app?.copy) {
        const dir = await this.tempDir('clawser-app-');
        for (const f of APP_FILES) await cp(join(appRoot, f), join(dir, f), { recursive: true });
        this.#appDir = dir;
      }
      this.#app = await this.startApp({
        framingHeaders: options.app?.framingHeaders,
        isolation: options.app?.isolation,
        ...(this.#appDir ? { root: this.#appDir } : {}),
      });
      if (options.llm) this.#llm = await this.startLlm(options.llm === true ? {} : options.llm);
      const page = options.page ?? (options.settings ? 'workspace' : undefined);
      if (options.browser === false) {
        if (page) throw new Error(`A fixture without a browser cannot open a page ('${page}').`);
        return this;
      }
      this.#browserOptions = options.browser ?? {};
      this.#browser = await this.launchBrowser(this.#browserOptions);
      await options.beforePage?.(this);
      if (page === 'blank') this.#page = await this.newPage();
      else if (page === 'home') this.#page = await this.openHome();
      else if (page === 'workspace') {
        const settings = typeof options.settings === 'function' ? options.settings(this) : options.settings;
        this.#page = await this.openWorkspace(settings);
      }
      return this;
    } catch (err) {
      await this.close().catch(() => {});
      throw err;
    }
  }

  /**
   * Closes everything the fixture started: browsers (and their profiles), servers, folders and
   * what was deferred, the latest first. Every teardown runs; the first failure is thrown after.
   */
  async close() {
    if (this.#closed) return;
    this.#closed = true;
    /** @type {unknown[]} */
    const failures = [];
    for (const fn of this.#teardown.reverse()) {
      try {
        await fn();
      } catch (err) {
        failures.push(err);
      }
    }
    if (failures.length) throw failures[0];
  }
}

/**
 * A fixture that the caller closes (`await fx.close()`), or, given a test's context `t`, that
 * is closed when that test ends.
 * @param {FixtureOptions} [options]
 * @param {{after: (fn: () => unknown) => void}} [t] the test's context
 */
export async function openFixture(options = {}, t) {
  const fx = new Fixture(options.timeoutMs);
  t?.after(() => fx.close());
  return fx.start(options);
}

/**
 * A file's fixture, started at once (call it at the top level of the test file) and closed
 * after the file's last test.
 * @param {FixtureOptions} [options]
 */
export async function useFixture(options = {}) {
  const fx = new Fixture(options.timeoutMs);
  after(() => fx.close());
  return fx.start(options);
}
