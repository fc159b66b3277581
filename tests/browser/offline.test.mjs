// Offline: after the first visit the service worker serves the shell, every module and the
// vendor files; the app loads and chats (Echo) with the network off and with the server gone, reads
// PDF, DOCX, XLSX and CSV attachments and shows HTML, SVG, CSV and Mermaid artifacts offline,
// and semantic memory (the embedding worker, the model installed once) works with the server gone.
// A new version is offered with an in-app prompt and old caches are removed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { offMachine, waitInPage } from './helpers.mjs';
import { openFixture } from './fixture.mjs';
import { startModelServer } from '../fixtures/tiny-model.mjs';
import { PANEL_NAV } from '../../web/app/panel-nav.js';
import { makePdf, makeDocx, makeXlsx } from '../fixtures/documents.mjs';

/**
 * A Codex turn with Echo: the message is a code block that calls a tool; its run is approved
 * and its output echoed back.
 * @param {import('playwright-core').Page} page @param {string} label
 */
async function runCodeTurn(page, label) {
  await page
    .getByRole('textbox', { name: 'Message' })
    .fill(`\`\`\`js\nconst listing = await fs_list({});\nprint("${label}:", typeof listing, 6 * 7)\n\`\`\``);
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByRole('dialog', { name: 'Allow “run_js”?' }).getByRole('button', { name: 'Allow once' }).click();
  await page.getByText(`Echo: your code printed: ${label}: string 42`).waitFor();
}

/**
 * Opens each panel of the workspace and back: its heading shows and no error banner appears.
 * @param {import('playwright-core').Page} page
 */
async function everyPanel(page) {
  // Every panel of the navigation, so a new one is opened offline without being listed here.
  for (const name of PANEL_NAV.map((p) => p.label)) {
    await page.getByRole('button', { name, exact: true }).click();
    await page.getByRole('heading', { name, exact: true }).waitFor();
    if (name === 'Terminal') {
      // The shell (just-bash) and the terminal (xterm.js and its stylesheet) come from the cache: a line runs.
      await page.locator('.terminal-host:visible .xterm-helper-textarea').focus();
      await page.keyboard.type('echo offline-$((6 * 7)) | tr a-z A-Z');
      await page.keyboard.press('Enter');
      await page.locator('.terminal-host:visible .xterm-rows', { hasText: 'OFFLINE-42' }).waitFor();
      await page.waitForFunction(() => [...document.styleSheets].some((s) => s.href?.endsWith('/xterm.css') && s.cssRules.length > 0));
    }
    // The Dashboard's chart library and its stylesheet come from the cache too.
    if (name === 'Dashboard')
      await page.waitForFunction(
        () =>
          !!document.querySelector('link[data-uplot]') &&
          [...document.styleSheets].some((s) => s.href?.endsWith('/uplot.css') && s.cssRules.length > 0),
      );
    assert.equal(await page.locator('[role="alert"]').filter({ hasText: /\S/ }).count(), 0, `${name} panel offline: no error`);
    await page.getByRole('button', { name: 'Back to chat' }).click();
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
  }
}

/** @param {import('playwright-core').Page} page */
async function waitForServiceWorkerControl(page) {
  await page.waitForFunction(() => !!navigator.serviceWorker.controller, null, { timeout: 30_000 });
}

test('installable; after one visit the app loads and chats offline, every file from the service worker', async () => {
  // A private copy of the app, so the test may change files and stop the server.
  const fx = await openFixture({ app: { copy: true } });
  const { browser } = fx;
  try {
    const page = await fx.newPage(browser.context);
    // The idle page loads the artifact frame once (the browser keeps it for offline use): its load is awaited below.
    const artifactFrameCached = page.waitForEvent('requestfinished', (r) => /\/web\/ui\/artifact-frame\.html\?v=/.test(r.url()));
    await page.goto(fx.url);
    await waitForServiceWorkerControl(page);
    // Chrome's own installability check: manifest, icons, service worker, standalone.
    const cdp = await browser.context.newCDPSession(page);
    const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
    assert.deepEqual(installabilityErrors, []);
    const { url: manifestUrl, errors: manifestErrors } = await cdp.send('Page.getAppManifest');
    assert.match(manifestUrl, /manifest\.webmanifest$/);
    assert.deepEqual(manifestErrors, []);
    await page.getByRole('link', { name: /My workspace/ }).click();
    await page.getByRole('button', { name: 'Try Echo' }).click();
    // The workspace view is rebuilt with the new provider: wait for it before typing.
    await page.getByText('Echo · test provider, no AI').waitFor();
    await page.getByRole('textbox', { name: 'Message' }).fill('online hello');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('Echo: online hello').waitFor();
    // The idle page loads the sandbox frame once (the browser keeps it for offline use).
    await page.waitForFunction(() => document.querySelector('iframe[title="andbox sandbox"]') !== null);
    await artifactFrameCached;

    await browser.context.setOffline(true);
    /** @type {{url: string, fromSW: boolean}[]} */
    const responses = [];
    /** @type {string[]} */
    const failed = [];
    page.on('response', (r) => responses.push({ url: r.url(), fromSW: r.fromServiceWorker() }));
    page.on('requestfailed', (r) => failed.push(`${r.url()} ${r.failure()?.errorText}`));
    await page.reload();
    await page.getByText('Echo: online hello').waitFor();
    await page.getByRole('textbox', { name: 'Message' }).fill('offline hello');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('Echo: offline hello').waitFor();
    // Code runs offline too — in the sandbox, calling a tool (a Codex turn: Echo has no native tools).
    await runCodeTurn(page, 'offline');
    // Documents are read offline: a PDF, a DOCX, an XLSX and a CSV attached through the composer's file input are read in
    // the document worker (pdf.js, mammoth, read-excel-file and Papa Parse from the service worker), shown as chips, and
    // their text reaches Echo.
    const csv = Buffer.from('place,state\nCSV row,offline\n');
    await page.locator('form.composer input[type=file]').setInputFiles([
      { name: 'offline.pdf', mimeType: 'application/pdf', buffer: makePdf(['Read with the network off']) },
      {
        name: 'offline.docx',
        mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        buffer: makeDocx(['A Word paragraph offline']),
      },
      {
        name: 'offline.xlsx',
        mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        buffer: makeXlsx('Offline', [
          ['sheet', 'cells'],
          ['Excel cell', 'offline'],
        ]),
      },
      { name: 'offline.csv', mimeType: 'text/csv', buffer: csv },
    ]);
    const attached = page.getByRole('list', { name: 'Attachments' });
    for (const chip of [
      /offline\.pdf · PDF · 1 page · \d+ B/,
      /offline\.docx · Word · [\d.]+ K?B/,
      /offline\.xlsx · Excel · 1 sheet · 2 rows · [\d.]+ K?B/,
      new RegExp(`offline\\.csv · CSV · 2 rows · ${csv.length} B`),
    ])
      await attached.getByRole('listitem').filter({ hasText: chip }).waitFor();
    await page.getByRole('textbox', { name: 'Message' }).fill('read these offline');
    await page.getByRole('button', { name: 'Send' }).click();
    const echoed = page.locator('.msg.assistant', { hasText: 'read these offline' });
    for (const text of ['Read with the network off', 'A Word paragraph offline', 'Excel cell,offline', 'CSV row,offline'])
      await echoed.getByText(text, { exact: false }).waitFor();
    const documentFiles = ['/web/files/document-worker.js', '/web/vendor/pdfjs.js', '/web/vendor/pdf.worker.js', '/web/vendor/mammoth.js'];
    for (const file of [...documentFiles, '/web/vendor/read-excel-file.js', '/web/vendor/papaparse.js'])
      assert.ok(
        responses.some((r) => new URL(r.url).pathname === file && r.fromSW),
        `${file} came from the service worker`,
      );
    // Artifacts show offline, none having been shown before: Echo repeats an HTML page, an SVG, a CSV table and a Mermaid
    // block; each is drawn in the artifact frame (from the browser's cache), the diagram with Mermaid (from the service worker).
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="80" height="40"><circle cx="20" cy="20" r="15" fill="teal"/></svg>';
    await page
      .getByRole('textbox', { name: 'Message' })
      .fill(
        '```html\n<!doctype html><html><body><h1>Page offline</h1></body></html>\n```\n\n' +
          `\`\`\`svg\n${svg}\n\`\`\`\n\n\`\`\`csv\nfruit,count\napples,12\npears,7\n\`\`\`\n\n` +
          '```mermaid\nflowchart LR\n  Offline --> Drawn\n```',
      );
    await page.getByRole('button', { name: 'Send' }).click();
    const diagram = page.frameLocator('iframe[title="Artifact mermaid-1"]');
    await diagram.locator('svg').getByText('Drawn', { exact: true }).waitFor();
    const pick = page.getByRole('complementary', { name: 'Artifact' }).getByRole('combobox', { name: 'Artifact to show' });
    await pick.selectOption('csv-1');
    const table = page.frameLocator('iframe[title="Artifact csv-1"]');
    await table.getByRole('cell', { name: 'pears' }).waitFor();
    await table.getByRole('img', { name: 'Bar chart of count' }).waitFor();
    await pick.selectOption('svg-1');
    await page.frameLocator('iframe[title="Artifact svg-1"]').locator('circle[fill="teal"]').waitFor();
    await pick.selectOption('html-1');
    await page.frameLocator('iframe[title="Artifact html-1"]').getByRole('heading', { name: 'Page offline' }).waitFor();
    await page.getByRole('button', { name: 'Close artifact' }).click();
    // Every panel opens and shows its content offline, with no error.
    await everyPanel(page);
    const local = responses.filter((r) => r.url.startsWith(fx.url));
    assert.ok(
      local.some((r) => r.url.endsWith('/web/app/main.js')),
      'modules were requested',
    );
    assert.ok(
      local.some((r) => r.url.includes('/web/vendor/')),
      'vendor files were requested',
    );
    // The code turn's tool result went through the sanitizer, whose learned detector loads its weights as data.
    assert.ok(
      local.some((r) => r.url.endsWith('/web/safety/injection-weights.json')),
      'the injection detector loaded its weights',
    );
    assert.deepEqual(
      failed.filter((f) => f.startsWith(fx.url)),
      [],
      'no request of the app failed',
    );
    // Every app file came from the service worker, but the sandbox and artifact frames: a sandboxed frame's
    // navigation never reaches it, so the browser's cache serves the versioned frames.
    const frames = ['/web/packages/andbox/frame.html', '/web/ui/artifact-frame.html'];
    assert.deepEqual(
      local.filter((r) => !r.fromSW && !frames.includes(new URL(r.url).pathname)).map((r) => r.url),
      [],
    );
    assert.ok(
      local.some((r) => !r.fromSW && new URL(r.url).pathname === frames[1]),
      'the artifact frame came from the cache',
    );
    assert.ok(local.every((r) => r.fromSW || /frame\.html\?v=[0-9a-f]{16}$/.test(r.url)));

    // The server is gone entirely: a cold start still works.
    await browser.context.setOffline(false);
    await fx.app.close();
    const fresh = await fx.newPage(browser.context);
    await fresh.goto(page.url());
    await fresh.getByText('Echo: offline hello').waitFor();
    await runCodeTurn(fresh, 'server gone');
    await everyPanel(fresh);
    // The vendored libraries load offline too (not only the ones the chat imports).
    const loaded = await fresh.evaluate(async () => {
      const names = ['isomorphic-git', 'fflate', 'croner', 'html2canvas', 'zod', 'idb-keyval'];
      const out = [];
      for (const n of names) out.push(Object.keys(await import(n)).length > 0);
      return out;
    });
    assert.deepEqual(
      loaded,
      loaded.map(() => true),
    );
    assert.deepEqual(offMachine(browser.requests), []);
  } finally {
    await fx.close();
  }
});

/**
 * Adds a memory in the Memory panel.
 * @param {import('playwright-core').Page} page @param {string} key @param {string} content
 */
async function addMemory(page, key, content) {
  await page.getByRole('button', { name: 'Add memory' }).click();
  const dialog = page.getByRole('dialog', { name: 'New memory' });
  await dialog.getByLabel(/^Key/).fill(key);
  await dialog.getByLabel('Content').fill(content);
  await dialog.getByRole('button', { name: 'Remember' }).click();
  await page.locator('.memory', { hasText: key }).first().waitFor();
}

/**
 * The Memory panel's search: the memory ranked first for `query`.
 * @param {import('playwright-core').Page} page @param {string} query @param {string} expected its content
 */
async function firstFound(page, query, expected) {
  await page.getByRole('searchbox', { name: 'Search memories' }).fill(query);
  await page.locator('.memory').first().filter({ hasText: expected }).waitFor();
}

test('semantic memory with the server gone: the embedding worker embeds a new memory and recall ranks by meaning', async () => {
  // A private copy of the app, so the test may change files and stop the server.
  const fx = await openFixture({ app: { copy: true } });
  const { browser } = fx;
  try {
    const hub = await startModelServer();
    fx.defer(() => hub.close());
    // The first visit: the app, and the embedding model installed from a stand-in hub (as a user does once).
    const page = await fx.newPage(browser.context);
    await page.goto(fx.url);
    await waitForServiceWorkerControl(page);
    await page.getByRole('link', { name: /My workspace/ }).click();
    await page.getByRole('button', { name: 'Try Echo' }).click();
    await page.getByText('Echo · test provider, no AI').waitFor();
    await page.getByRole('button', { name: 'Memory', exact: true }).click();
    await addMemory(page, 'car', 'my car is a red sedan');
    await addMemory(page, 'dinner', 'i like pizza for dinner');
    await page.getByLabel('Download from (the Hugging Face hub, or a mirror)').fill(hub.url);
    await page.getByRole('button', { name: /^Download Xenova\/all-MiniLM-L6-v2/ }).click();
    const state = page.locator('#semantic-state');
    await state.getByText('Semantic search is on (2 memories embedded).').waitFor({ timeout: 60_000 });

    // The app's server and the hub are gone; a cold start in a new tab.
    await fx.app.close();
    await hub.close();
    const hubAsked = hub.requests.length;
    const fresh = await fx.newPage(browser.context);
    await fresh.goto(page.url());
    await page.close();
    await fresh.getByRole('button', { name: 'Memory', exact: true }).click();
    const freshState = fresh.locator('#semantic-state');
    await freshState.getByText('Semantic search is on (2 memories embedded).').waitFor({ timeout: 60_000 });
    // A memory added now is embedded by the worker, from the model this browser keeps.
    await addMemory(fresh, 'pet', 'my dog is a puppy');
    await freshState.getByText('Semantic search is on (3 memories embedded).').waitFor({ timeout: 60_000 });
    assert.ok(
      fresh.workers().some((w) => w.url().endsWith('/web/memory/embed-worker.js')),
      'the embedding worker runs in this tab',
    );
    // Search by meaning, no word in common: each query ranks its own memory first — the new one too.
    await firstFound(fresh, 'canine', 'my dog is a puppy');
    await firstFound(fresh, 'automobile', 'my car is a red sedan');
    await firstFound(fresh, 'meal', 'i like pizza for dinner');
    await fresh.getByRole('searchbox', { name: 'Search memories' }).fill('');
    // The agent's automatic recall too (the embedding of the message, computed offline).
    await fresh.getByRole('button', { name: 'Back to chat' }).click();
    await fresh.getByRole('textbox', { name: 'Message' }).fill('which animal do i have?');
    await fresh.getByRole('button', { name: 'Send' }).click();
    await fresh.getByText('Echo: which animal do i have?').waitFor();
    await fresh.getByText(/^Memories used: pet\b/).waitFor();
    assert.equal(hub.requests.length, hubAsked, 'nothing was fetched from the hub');
    assert.deepEqual(offMachine(browser.requests), []);
  } finally {
    await fx.close();
  }
});

test('a new version is offered in the app and old caches are deleted on activate', async () => {
  // A private copy of the app, so the test may change files and stop the server.
  const fx = await openFixture({ app: { copy: true } });
  const { browser } = fx;
  try {
    const page = await fx.newPage(browser.context);
    await page.goto(fx.url);
    await waitForServiceWorkerControl(page);
    const before = await page.evaluate(() => caches.keys());
    assert.equal(before.filter((k) => k.startsWith('clawser-app-')).length, 1);
    // A second tab on the old version.
    const other = await browser.context.newPage();
    await other.goto(fx.url);
    await waitForServiceWorkerControl(other);
    const mainPath = join(fx.appDir, 'web', 'app', 'main.js');
    await writeFile(mainPath, (await readFile(mainPath, 'utf8')) + '\n// new version\n');
    await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.update());
    const banner = page.getByRole('status').filter({ hasText: 'A new version of Clawser is available.' });
    await banner.waitFor();
    await Promise.all([page.waitForEvent('load'), banner.getByRole('button', { name: 'Reload' }).click()]);
    await page.getByRole('heading', { name: 'Workspaces' }).waitFor();
    await waitInPage(page, async () => (await caches.keys()).filter((k) => k.startsWith('clawser-app-')).length === 1, undefined, {
      what: 'the old cache to be deleted',
    });
    const after = await page.evaluate(() => caches.keys());
    assert.notDeepEqual(after, before);
    const served = await page.evaluate(async () => (await (await fetch('./web/app/main.js')).text()).includes('// new version'));
    assert.equal(served, true);
    // The other tab is told to reload: its later modules would come from the new version.
    const told = other.getByRole('status').filter({ hasText: 'Clawser was updated in another tab.' });
    await told.waitFor();
    await Promise.all([other.waitForEvent('load'), told.getByRole('button', { name: 'Reload' }).click()]);
    assert.equal(await other.evaluate(async () => (await (await fetch('./web/app/main.js')).text()).includes('// new version')), true);
  } finally {
    await fx.close();
  }
});
