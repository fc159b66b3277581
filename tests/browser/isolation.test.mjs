// Cross-origin isolation in a real Chromium (issue 34 §1). `npm start` and the service worker
// serve Clawser's documents with Document-Isolation-Policy, so the page is crossOriginIsolated
// (SharedArrayBuffer: a model on this computer can run on several threads), and under isolation
// the code sandbox, provider calls, MCP servers, OAuth sign-in, the screenshot tool and the
// embedding worker all still work. Controls: the same app served without the header is not
// isolated; a plain static host is isolated once the service worker serves it; the setting off
// makes the next load unisolated; COOP/COEP (the older way, not used) cuts the sign-in window off.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { sendMessage, showHome, showWorkspace, storedConfigUntil } from './helpers.mjs';
import { useFixture } from './fixture.mjs';
import { startEverythingServer } from '../fixtures/mcp-everything.mjs';
import { startOAuthServers } from '../fixtures/oauth-server.mjs';
import { startModelServer, TINY_DIMS } from '../fixtures/tiny-model.mjs';
import { waitUntil } from '../fixtures/wait.mjs';
import { makeTestGguf } from '../../scripts/make-test-gguf.mjs';

/** @typedef {import('playwright-core').Page} Page */

// OpenAI's wire format through the scripted model on another port (a CORS call from the page).
const fx = await useFixture({
  llm: {},
  settings: ({ llm }) => ({
    provider: 'openai',
    model: 'gpt-4o',
    apiKey: 'sk-test-isolation-key',
    baseUrl: `${llm.url}/v1`,
    autonomy: 'full',
  }),
});
const { llm, page } = fx;

/** A page of another origin (the sign-in page of an authorization server, say). */
const otherSite = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end('<!doctype html><title>Another site</title><p>Sign in here</p>');
});
await new Promise((resolve) => otherSite.listen(0, '127.0.0.1', () => resolve(undefined)));
fx.defer(() => new Promise((resolve) => otherSite.close(() => resolve(undefined))));
const otherUrl = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (otherSite.address()).port}/sign-in`;

/** Whether the page is isolated, whether it has SharedArrayBuffer, and what isolationState() says. @param {Page} p */
const pageState = (p) =>
  p.evaluate(async () => {
    const { isolationState } = await import('/web/net/isolation.js');
    return { isolated: crossOriginIsolated, sharedMemory: typeof SharedArrayBuffer, state: isolationState() };
  });

/** The storage worker (a module worker started from a URL, as the local model's is) of a page. @param {Page} p */
async function storageWorkerIsolated(p) {
  await waitUntil(() => p.workers().some((w) => w.url().endsWith('/web/storage/opfs-worker.js')), 'the storage worker');
  const worker = p.workers().find((w) => w.url().endsWith('/web/storage/opfs-worker.js'));
  return worker?.evaluate(() => self.crossOriginIsolated);
}

/** What the Settings dialog says of isolation (and whether its box is ticked), then closes it. @param {Page} p */
async function isolationInSettings(p) {
  await p.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = p.getByRole('dialog', { name: /Settings/ });
  const box = dialog.getByRole('checkbox', { name: 'Cross-origin isolation' });
  const said = { checked: await box.isChecked(), state: await dialog.locator('#set-isolation-state').innerText() };
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'detached' });
  return said;
}

/**
 * Turns the setting on or off in Settings, saves, and reloads through the banner that offers it.
 * @param {Page} p @param {boolean} on
 */
async function setIsolation(p, on) {
  await p.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = p.getByRole('dialog', { name: /Settings/ });
  await dialog.getByRole('checkbox', { name: 'Cross-origin isolation' }).setChecked(on);
  await dialog.getByRole('button', { name: 'Save', exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  const banner = p.locator('.banner', { hasText: on ? 'Cross-origin isolation turns on' : 'Cross-origin isolation turns off' });
  await Promise.all([p.waitForEvent('load'), banner.getByRole('button', { name: 'Reload' }).click()]);
  await p.getByRole('textbox', { name: 'Message', exact: true }).waitFor();
}

/** Clicks "Allow once" on every approval the turn asks for, until `text` shows. @param {string} text */
async function allowUntil(text) {
  const done = page.locator('.msg.assistant', { hasText: text });
  const allow = page.getByRole('dialog', { name: /^Allow “/ }).getByRole('button', { name: 'Allow once' });
  for (;;) {
    await done.or(allow).first().waitFor();
    if (await done.count()) return;
    await allow.click();
  }
}

test('npm start serves Clawser cross-origin isolated: the page and its module workers have SharedArrayBuffer and Settings says \
so; control: the same app served without the header is not isolated', async () => {
  const here = await pageState(page);
  assert.equal(here.isolated, true);
  assert.equal(here.sharedMemory, 'function');
  assert.equal(here.state.isolated, true);
  assert.equal(here.state.reason, 'isolated');
  assert.equal(await storageWorkerIsolated(page), true, 'a worker started from a URL is isolated with its page');
  const said = await isolationInSettings(page);
  assert.equal(said.checked, true, 'on by default');
  assert.match(said.state, /^On: this page is cross-origin isolated/);

  // Control: the very same files without the header.
  const plain = await fx.startApp({ isolation: false });
  const other = await fx.newPage();
  await showHome(other, plain.url);
  const there = await pageState(other);
  assert.equal(there.isolated, false);
  assert.equal(there.sharedMemory, 'undefined');
  assert.equal(there.state.isolated, false);
  await other.close();
});

/**
 * Loads the tiny test model with wllama (the local model's runtime) asking for two threads, and
 * generates a few tokens: how many threads it got.
 * @param {Page} p
 */
function wllamaThreads(p) {
  return p.evaluate(async (base64) => {
    const { Wllama } = await import('@wllama/wllama');
    const quiet = { debug() {}, log() {}, warn() {}, error() {} };
    const wllama = new Wllama(
      { default: new URL('./web/vendor/wllama/wllama.wasm', location.href).href },
      { suppressNativeLog: true, logger: quiet },
    );
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    await wllama.loadModel([new Blob([bytes])], { n_ctx: 256, n_threads: 2, n_gpu_layers: 0 });
    const reply = await wllama.createChatCompletion({ messages: [{ role: 'user', content: 'Hi' }], max_tokens: 4, seed: 1 });
    const threads = { multithread: wllama.isMultithread(), threads: wllama.getNumThreads(), replied: !!reply.choices[0] };
    await wllama.exit();
    return threads;
  }, Buffer.from(makeTestGguf()).toString('base64'));
}

test('what isolation is for: wllama runs a model on two threads in the isolated app; control: without the header it \
gets one', async () => {
  assert.deepEqual(await wllamaThreads(page), { multithread: true, threads: 2, replied: true });
  const plain = await fx.startApp({ isolation: false });
  const other = await fx.newPage();
  await showHome(other, plain.url);
  assert.deepEqual(await wllamaThreads(other), { multithread: false, threads: 1, replied: true });
  await other.close();
});

test('under isolation a provider call streams, model code runs in the sandbox (without SharedArrayBuffer: the sandbox \
frame is not isolated) and the screenshot tool makes a PNG', async () => {
  llm.enqueue(
    { toolCalls: [{ id: 'c1', name: 'run_js', arguments: { code: 'print(1 + 2, typeof SharedArrayBuffer, self.crossOriginIsolated)' } }] },
    { toolCalls: [{ id: 's1', name: 'screenshot', arguments: { path: 'shots/isolated.png' } }] },
    { text: 'Isolated and working.' },
  );
  await sendMessage(page, 'run some code, then take a screenshot');
  await allowUntil('Isolated and working.');
  const requests = llm.requests.slice(-3);
  assert.ok(
    requests.every((r) => r.body.stream === true),
    'every call streamed',
  );
  const toolResults = requests.flatMap((r) => r.body.messages.filter((/** @type {any} */ m) => m.role === 'tool'));
  assert.match(String(toolResults.find((/** @type {any} */ m) => m.tool_call_id === 'c1')?.content), /3 undefined false/);
  const png = await page.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const ws = location.hash.split('/')[1];
    const fs = new OpfsFileSystem();
    const bytes = await fs.readBytes(`clawser_workspaces/${ws}/shots/isolated.png`);
    fs.terminate();
    return { size: bytes.length, magic: [...bytes.slice(0, 4)] };
  });
  assert.deepEqual(png.magic, [0x89, 0x50, 0x4e, 0x47]);
  assert.ok(png.size > 1000, `a real picture (${png.size} bytes)`);
  assert.equal((await pageState(page)).isolated, true, 'still the isolated page');
});

test('model code gets no SharedArrayBuffer in the isolated app; control: with the header on the sandbox frame too, \
it would', async () => {
  const probe = async (/** @type {Page} */ p) =>
    p.evaluate(async () => {
      const { createSandbox } = await import('/web/packages/andbox/index.js');
      const sandbox = await createSandbox();
      const out = await sandbox.evaluate('[typeof SharedArrayBuffer, self.crossOriginIsolated]');
      sandbox.dispose();
      return { page: crossOriginIsolated, sandbox: out.value };
    });
  assert.deepEqual(await probe(page), { page: true, sandbox: ['undefined', false] });
  const every = await fx.startApp({ isolation: 'sandbox-too' });
  const other = await fx.newPage();
  await showHome(other, every.url);
  assert.deepEqual(await probe(other), { page: true, sandbox: ['function', true] });
  await other.close();
});

test('under isolation an MCP server on another origin lists and calls its tools, and OAuth sign-in through a window \
completes', async () => {
  const mcp = await startEverythingServer();
  fx.defer(() => mcp.close());
  const secured = await startOAuthServers(mcp.url);
  fx.defer(() => secured.close());
  const cardOf = (/** @type {string} */ name) => page.locator('.server').filter({ has: page.getByRole('heading', { name, exact: true }) });
  const addServer = async (/** @type {string} */ name, /** @type {string} */ url, /** @type {string} */ auth) => {
    await page.getByRole('button', { name: 'Add server' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add an MCP server' });
    await dialog.getByLabel(/^Name/).fill(name);
    await dialog.getByLabel('Server URL').fill(url);
    await dialog.getByLabel('Sign-in').selectOption(auth);
    await dialog.getByRole('button', { name: 'Add server' }).click();
  };
  await page.getByRole('button', { name: 'Servers', exact: true }).click();
  await addServer('everything', mcp.url, 'none');
  await cardOf('everything').locator('.server-status', { hasText: 'Connected' }).waitFor();
  await cardOf('everything')
    .getByText(/\d+ tools, \d+ resources, \d+ prompts of everything/)
    .click();
  await cardOf('everything')
    .getByRole('table', { name: 'Tools of everything' })
    .getByRole('row', { name: /mcp__everything__echo/ })
    .waitFor();

  await addServer('secured', secured.mcpUrl, 'oauth');
  const card = cardOf('secured');
  await card.getByText(/refused the request \(HTTP 401\)/).waitFor();
  const [popup] = await Promise.all([page.waitForEvent('popup'), card.getByRole('button', { name: 'Sign in to secured' }).click()]);
  await popup.waitForEvent('close');
  await card.locator('.server-status', { hasText: 'Connected' }).waitFor();
  assert.equal(secured.log.tokens[0]?.get('grant_type'), 'authorization_code', 'the code came back and was exchanged');
  await storedConfigUntil(page, (e) => Object.keys(e).some((k) => k.startsWith('clawser_mcp_oauth_')), 'the sealed OAuth tokens');

  await page.getByRole('button', { name: 'Back to chat' }).click();
  llm.enqueue(
    {
      toolCalls: [
        { id: 'm1', name: 'mcp__everything__echo', arguments: { message: 'isolated' } },
        { id: 'm2', name: 'mcp__secured__echo', arguments: { message: 'behind OAuth' } },
      ],
    },
    { text: 'Both servers answered.' },
  );
  await sendMessage(page, 'echo through both servers');
  await allowUntil('Both servers answered.');
  const results = llm.requests
    .at(-1)
    ?.body.messages.filter((/** @type {any} */ m) => m.role === 'tool')
    .map((/** @type {any} */ m) => m.content);
  assert.ok(results.includes('Echo: isolated'), JSON.stringify(results));
  assert.ok(results.includes('Echo: behind OAuth'), JSON.stringify(results));
});

/**
 * Opens a sign-in-like window from `p` (about:blank at the click, then sent to another origin, as
 * McpAuth does) and waits until that page has loaded; the opener keeps a handle on it.
 * @param {Page} p
 */
async function openSignInWindow(p) {
  const [popup] = await Promise.all([
    p.waitForEvent('popup'),
    p.evaluate((url) => {
      const w = window.open('about:blank', 'clawser-probe', 'popup,width=400,height=400');
      /** @type {any} */ (window).__signIn = w; // any: a test handle on window
      if (w) w.location.href = url;
    }, otherUrl),
  ]);
  await popup.waitForURL(otherUrl);
  await popup.getByText('Sign in here').waitFor();
  return popup;
}

/** Whether the opener sees its sign-in window closed. @param {Page} p */
const seenClosed = (p) => p.evaluate(() => /** @type {any} */ (window).__signIn.closed); // any: the test handle

test('the sign-in window stays reachable from the isolated page (Document-Isolation-Policy); control: under COOP/COEP the \
page is isolated too but loses the window', async () => {
  const popup = await openSignInWindow(page);
  assert.equal(await seenClosed(page), false, 'the page still sees its sign-in window open');
  await popup.close();
  await page.waitForFunction(() => /** @type {any} */ (window).__signIn.closed); // and sees it closed when it is
  const coop = await fx.startApp({ isolation: 'coop-coep' });
  const other = await fx.newPage();
  await showHome(other, coop.url);
  assert.equal((await pageState(other)).isolated, true, 'COOP/COEP isolates as well');
  const severed = await openSignInWindow(other);
  // COOP moves the window to another browsing context group: the opener sees it closed although it is open
  // (the opener learns of the move a moment after the page loads, so this waits for it).
  await other.waitForFunction(() => /** @type {any} */ (window).__signIn.closed);
  assert.equal(severed.isClosed(), false, 'the window itself is still open');
  await severed.close();
  await other.close();
});

test('under isolation the embedding worker installs the model from another origin and embeds', async () => {
  const hub = await startModelServer();
  fx.defer(() => hub.close());
  const result = await page.evaluate(async (hubUrl) => {
    const [{ ModelInstaller }, { Embedder }] = await Promise.all([
      import('/web/memory/model-install.js'),
      import('/web/memory/embedder.js'),
    ]);
    await new ModelInstaller({ hubUrl }).download();
    const embedder = new Embedder();
    await embedder.load();
    const [car, automobile, pizza] = await embedder.embed(['car', 'automobile', 'pizza']);
    const dot = (/** @type {Float32Array} */ a, /** @type {Float32Array} */ b) => a.reduce((s, x, i) => s + x * b[i], 0);
    embedder.dispose();
    return { isolated: crossOriginIsolated, dims: car.length, near: dot(car, automobile), far: dot(car, pizza) };
  }, hub.url);
  assert.equal(result.isolated, true);
  assert.equal(result.dims, TINY_DIMS);
  assert.ok(result.near > result.far, `meaning kept: car·automobile ${result.near} > car·pizza ${result.far}`);
});

test('plain static hosting: the first load is not isolated (no reload forced) and Settings says when it starts; once the \
service worker serves the page it is; control: the setting off makes the next load unisolated, on again isolated', async () => {
  const host = await fx.startApp({ isolation: false });
  const p = await fx.newPage();
  await showWorkspace(p, host.url);
  await p.evaluate(() => {
    /** @type {any} */ (window).__firstLoad = true; // any: a test handle on window
  });
  await p.waitForFunction(() => !!navigator.serviceWorker.controller, null, { timeout: 60_000 });
  const first = await pageState(p);
  assert.equal(first.isolated, false);
  assert.equal(first.state.reason, 'next-load');
  assert.equal(await p.evaluate(() => /** @type {any} */ (window).__firstLoad), true, 'the page was not reloaded under the user');
  assert.match((await isolationInSettings(p)).state, /^Not yet: it starts the next time Clawser loads/);

  await p.reload();
  await p.getByRole('textbox', { name: 'Message', exact: true }).waitFor();
  const served = await pageState(p);
  assert.equal(served.isolated, true, 'the service worker added the header');
  assert.equal(served.state.reason, 'isolated');
  assert.equal(await storageWorkerIsolated(p), true);
  // The sandbox frame never comes through the service worker: it still loads and runs code.
  const sandboxed = await p.evaluate(async () => {
    const { createSandbox } = await import('/web/packages/andbox/index.js');
    const sandbox = await createSandbox();
    const out = await sandbox.evaluate('[1 + 2, typeof SharedArrayBuffer]');
    sandbox.dispose();
    return out.value;
  });
  assert.deepEqual(sandboxed, [3, 'undefined']);

  await setIsolation(p, false);
  const off = await pageState(p);
  assert.equal(off.isolated, false, 'off: the service worker leaves the header out');
  assert.equal(off.state.reason, 'off');
  const offSaid = await isolationInSettings(p);
  assert.equal(offSaid.checked, false);
  assert.match(offSaid.state, /^Off:/);

  await setIsolation(p, true);
  assert.equal((await pageState(p)).isolated, true, 'on again');
  await p.close();
});

test('the setting off also takes the header out of what npm start serves (the service worker decides for the pages it \
serves); control: on again, isolated', async () => {
  await page.waitForFunction(() => !!navigator.serviceWorker.controller, null, { timeout: 60_000 });
  await setIsolation(page, false);
  assert.equal((await pageState(page)).isolated, false);
  await setIsolation(page, true);
  assert.equal((await pageState(page)).isolated, true);
});
