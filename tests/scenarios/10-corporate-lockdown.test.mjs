// PRD scenario 10, corporate lockdown: a browser whose every request goes through an HTTP proxy
// (the test's own, standing in for the company's: --proxy-server, loopback included) opens
// Clawser's URL, configures an API key and works — a tool call writes a file, web_fetch reads a
// page — with nothing installed by the user: every file the page ran is a static file of the app's
// folder served by a plain static server (web/vendor/ and the precache manifest are generated there
// by the deployer's npm install; the user installs and builds nothing). The workspace's storage is
// invisible to another origin (control: visible to Clawser's own), Chrome finds the app
// installable, and with the network off the app opens from its service worker with the
// conversation and files, says it is offline, lets the user edit and save a file in the Files
// panel, then resumes once back online with the edit kept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { appRoot } from '../../scripts/static-server.mjs';
import { appView, offMachine, sendMessage } from '../browser/helpers.mjs';
import { useFixture } from '../browser/fixture.mjs';
import { allowPrivateHost, startSite, toolResults, turn, workspaceFile, workspaceId } from './scenario.mjs';

const KEY = 'sk-corp-0123456789abcdef';

/** The company's proxy: forwards plain HTTP requests (absolute URLs) and records each one's host and path. */
/** @type {string[]} */ const proxied = [];
const proxy = createServer((req, res) => {
  const target = new URL(req.url ?? '/');
  proxied.push(`${target.host}${target.pathname}`);
  const out = request(target, { method: req.method, headers: req.headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  out.on('error', () => res.destroy());
  req.pipe(out);
});
await new Promise((resolve) => proxy.listen(0, '127.0.0.1', () => resolve(undefined)));
// Not holding the process open if the fixture fails to start (it is closed through fx.defer otherwise).
proxy.unref();
const proxyPort = /** @type {import('node:net').AddressInfo} */ (proxy.address()).port;

const fx = await useFixture({
  llm: { apiKey: KEY },
  // <-loopback>: Chromium sends even 127.0.0.1 through the proxy (by default it never proxies loopback).
  browser: { args: [`--proxy-server=http://127.0.0.1:${proxyPort}`, '--proxy-bypass-list=<-loopback>'] },
  settings: ({ llm }) => ({ provider: 'openai', model: 'test-model', apiKey: KEY, baseUrl: `${llm.url}/v1`, autonomy: 'full' }),
});
fx.defer(
  () =>
    new Promise((resolve) => {
      proxy.closeAllConnections();
      proxy.close(() => resolve(undefined));
    }),
);
const { app, llm, browser } = fx;
const page = fx.page;
const site = await startSite(fx, { '/policy': 'Travel policy: book through the company portal.' });
const NOTE = '# Notes\n\nBook travel through the company portal.\n';

test('nothing installed: with an API key and behind the proxy, the agent reads a page and writes a file', async () => {
  await allowPrivateHost(page, site.host);
  await turn(
    page,
    llm,
    'Read the travel policy and note what it says.',
    [
      { toolCalls: [{ id: 'f1', name: 'web_fetch', arguments: { url: `${site.url}/policy` } }] },
      { toolCalls: [{ id: 'w1', name: 'fs_write', arguments: { path: 'artifacts/notes.md', content: NOTE } }] },
      { text: 'Noted in artifacts/notes.md.' },
    ],
    'Noted in artifacts/notes.md.',
  );
  assert.match((await toolResults(page)).f1.result, /book through the company portal/);
  assert.equal(await workspaceFile(page, 'artifacts/notes.md'), NOTE);
  // The key configured in Settings reached the provider.
  assert.equal(llm.requests.at(-1)?.headers.authorization, `Bearer ${KEY}`);
  // Everything went through the proxy: the app's files, the model, the fetched page.
  const appHost = new URL(app.url).host;
  assert.ok(proxied.includes(`${appHost}/index.html`) || proxied.includes(`${appHost}/`), 'the app came through the proxy');
  assert.ok(proxied.includes(`${new URL(llm.url).host}/v1/chat/completions`), 'the model was reached through the proxy');
  assert.ok(proxied.includes(`${site.host}/policy`), 'web_fetch went through the proxy');
  assert.deepEqual(offMachine(browser.requests), [], 'no request left this machine');
  // The user installs nothing: every file of the app the browser loaded is a static file of the app's
  // folder (the vendored packages included, generated there once by the deployer's npm install).
  const served = [...new Set(browser.requests.filter((u) => u.startsWith(app.url)).map((u) => new URL(u).pathname))];
  assert.ok(
    served.some((p) => p.startsWith('/web/vendor/')),
    'the vendored packages are served as files',
  );
  const missing = served.filter((p) => p !== '/' && !existsSync(join(appRoot, decodeURIComponent(p))));
  assert.deepEqual(missing, []);
});

test("the workspace's storage is invisible to another origin (control: Clawser's origin sees it)", async () => {
  const ws = workspaceId(page);
  /** What a page of an origin finds in its origin-private storage. @param {import('playwright-core').Page} p */
  const probe = (p) =>
    p.evaluate(async (id) => {
      const root = await navigator.storage.getDirectory();
      /** @type {string[]} */ const names = [];
      for await (const [name] of /** @type {any} */ (root).entries()) names.push(name);
      let note = null;
      try {
        const dir = await (await (await root.getDirectoryHandle('clawser_workspaces')).getDirectoryHandle(id)).getDirectoryHandle(
          'artifacts',
        );
        note = await (await (await dir.getFileHandle('notes.md')).getFile()).text();
      } catch {
        // not there
      }
      return { names, note };
    }, ws);
  const own = await probe(page);
  assert.equal(own.note, NOTE, 'control: the same probe on Clawser’s origin reads the file');
  const other = await fx.newPage();
  await other.goto(`${site.url}/policy`);
  const foreign = await probe(other);
  assert.equal(foreign.note, null);
  assert.deepEqual(foreign.names, [], 'another origin sees an empty storage of its own');
  await other.close();
});

test('Chrome finds the app installable: manifest, icons and a service worker in control', async () => {
  await page.waitForFunction(() => !!navigator.serviceWorker.controller);
  const cdp = await browser.context.newCDPSession(page);
  const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
  assert.deepEqual(installabilityErrors, []);
  const { url, errors } = await cdp.send('Page.getAppManifest');
  assert.match(url, /manifest\.webmanifest$/);
  assert.deepEqual(errors, []);
  await cdp.detach();
});

test('offline, the app opens from its service worker with the conversation and files; back online it resumes', async () => {
  await browser.context.setOffline(true);
  await page.reload();
  await page.locator('.msg.assistant', { hasText: 'Noted in artifacts/notes.md.' }).waitFor();
  await appView(page);
  assert.equal(await page.evaluate(() => navigator.onLine), false, 'the page was loaded with the network off');
  assert.equal(await workspaceFile(page, 'artifacts/notes.md'), NOTE);
  // The app says it is offline and what still works.
  const notice = page.getByText(/^You are offline\. Your workspaces, files, memory and local models keep working/);
  await notice.waitFor();
  // Offline, the user opens the note in the Files panel, adds a line and saves it.
  await page.getByRole('button', { name: 'Files', exact: true }).click();
  await page.getByRole('button', { name: 'artifacts', exact: true }).click();
  await page.getByRole('button', { name: 'notes.md', exact: true }).click();
  const editor = page.getByRole('textbox', { name: 'Contents of artifacts/notes.md' });
  await editor.click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('Written offline.\n');
  await page.getByRole('heading', { name: 'artifacts/notes.md •' }).waitFor();
  await page.keyboard.press('Control+s');
  await page.getByRole('heading', { name: 'artifacts/notes.md', exact: true }).waitFor();
  assert.equal(await workspaceFile(page, 'artifacts/notes.md'), `${NOTE}Written offline.\n`);
  await page.getByRole('button', { name: 'Back to chat' }).click();
  // Back online: the notice goes, the change made offline is kept, and the model answers again.
  await browser.context.setOffline(false);
  await notice.waitFor({ state: 'detached' });
  llm.enqueue({ text: 'Back online.' });
  await sendMessage(page, 'Are you there?');
  await page.locator('.msg.assistant', { hasText: 'Back online.' }).waitFor();
  await page.reload();
  await appView(page);
  assert.equal(await workspaceFile(page, 'artifacts/notes.md'), `${NOTE}Written offline.\n`, 'kept across a reload online');
});
