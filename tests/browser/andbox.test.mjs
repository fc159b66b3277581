// andbox in a real Chromium: benign code runs; every escape route fails; limits hold.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, startApp } from './helpers.mjs';

/** @type {Awaited<ReturnType<typeof startApp>>} */ let app;
/** @type {Awaited<ReturnType<typeof launchBrowser>>} */ let browser;
/** @type {import('playwright-core').Page} */ let page;

before(async () => {
  app = await startApp();
  browser = await launchBrowser();
  page = await browser.context.newPage();
  page.setDefaultTimeout(30_000);
  await page.goto(`${app.url}#home`);
  await page.getByRole('heading', { name: 'Workspaces' }).waitFor();
  // A cookie and a localStorage value of the host page that sandboxed code must not see.
  await page.evaluate(() => {
    document.cookie = 'host_cookie=secret-cookie; path=/';
    localStorage.setItem('host_value', 'secret-local');
  });
  await page.evaluate(async () => {
    const { createSandbox } = await import('/web/packages/andbox/index.js');
    /** @type {any} */ (window).__sb = await createSandbox({
      timeoutMs: 2000,
      capabilities: {
        add: ({ a, b }) => a + b,
        secret: () => 'only via host',
        fetch: async ({ url }) => ({ status: 200, statusText: 'OK', headers: { 'content-type': 'text/plain' }, body: `host fetched ${url}` }),
      },
      allowCall: ({ name }) => name !== 'secret',
      imports: { fflate: '/web/vendor/fflate.js' },
    });
  });
});
after(async () => {
  await browser?.close();
  await app?.close();
});

/** @param {string} code @param {{timeoutMs?: number}} [opts] */
const run = (code, opts) => page.evaluate(([c, o]) => /** @type {any} */ (window).__sb.evaluate(c, o), /** @type {const} */ ([code, opts ?? {}]));

test('benign code runs: expressions, statements, top-level await, print, structured values', async () => {
  assert.equal((await run('1 + 1')).value, 2);
  const r = await run('const xs = [1, 2, 3];\nprint("sum", xs.reduce((a, b) => a + b));\nawait new Promise((r) => setTimeout(r, 5));\n({ n: xs.length, m: new Map([[1, 2]]) })');
  assert.deepEqual(r.logs, ['sum 6']);
  assert.equal(r.value.n, 3);
  assert.equal(r.error, null);
  assert.ok(r.durationMs >= 0);
  assert.equal((await run('console.log("via console"); "done"')).logs[0], 'via console');
  assert.equal((await run('return 40 + 2')).value, 42);
});

test('capabilities: host.call, convenience globals, structured clones, denial, unknown names', async () => {
  assert.equal((await run('await host.call("add", { a: 2, b: 3 })')).value, 5);
  assert.equal((await run('await add({ a: 1, b: 1 })')).value, 2);
  const denied = await run('await secret()');
  assert.equal(denied.error?.name, 'PermissionDenied');
  const unknown = await run('await host.call("nope", {})');
  assert.match(unknown.error?.message ?? '', /not granted/);
  const f = await run('const r = await fetch("https://example.com/x"); await r.text()');
  assert.equal(f.value, 'host fetched https://example.com/x', JSON.stringify(f.error));
  const calls = await page.evaluate(() => /** @type {any} */ (window).__sb.calls.map((/** @type {any} */ c) => [c.name, c.ok]));
  assert.deepEqual(calls.slice(-5), [['add', true], ['add', true], ['secret', false], ['nope', false], ['fetch', true]]);
});

test('allow-listed vendored modules can be imported; others cannot', async () => {
  const r = await run('import { strToU8, zipSync } from "fflate";\nzipSync({ "a.txt": strToU8("hi") }).length > 20');
  assert.equal(r.error, null, JSON.stringify(r.error));
  assert.equal(r.value, true);
  assert.match((await run('await import("zod")')).error?.message ?? '', /not available in the sandbox/);
});

test('every escape route fails', async () => {
  const attempts = {
    indexedDB: 'await new Promise((res, rej) => { const r = indexedDB.open("x"); r.onsuccess = () => res("opened"); r.onerror = () => rej(r.error); })',
    opfs: 'await navigator.storage.getDirectory()',
    caches: 'await caches.open("x")',
    fetchRemote: 'await self.fetch("https://example.com/")',
    fetchHostOrigin: `await self.fetch(${JSON.stringify(app.url)})`,
    xhr: `const x = new XMLHttpRequest(); x.open("GET", ${JSON.stringify(app.url)}, false); x.send(); x.status`,
    websocket: 'await new Promise((res, rej) => { const ws = new WebSocket("ws://127.0.0.1:9/"); ws.onopen = () => res("open"); ws.onerror = () => rej(new Error("websocket blocked")); })',
    importScripts: `importScripts(${JSON.stringify(`${app.url}web/app/main.js`)})`,
    dynamicImportRemote: `await import(${JSON.stringify(`${app.url}web/app/main.js`)})`,
    dynamicImportData: 'await import("data:text/javascript,export default 1")',
    parent: 'parent.document.title',
    top: 'top.location.href',
    hostDom: 'document.cookie',
    localStorage: 'localStorage.getItem("host_value")',
    eventSource: `await new Promise((res, rej) => { const es = new EventSource(${JSON.stringify(app.url)}); es.onopen = () => res("open"); es.onerror = () => rej(new Error("eventsource blocked")); })`,
    beacon: `navigator.sendBeacon ? navigator.sendBeacon(${JSON.stringify(app.url)}, "x") : (() => { throw new Error("no beacon") })()`,
  };
  for (const [name, code] of Object.entries(attempts)) {
    const r = await run(code);
    assert.ok(r.error, `${name} did not fail: ${JSON.stringify(r.value)}`);
    assert.ok(r.error.message.length > 0, `${name} has a message`);
  }
  const idb = await run(attempts.indexedDB);
  assert.equal(idb.error?.name, 'SecurityError');
  // The host page kept its data and nothing in it changed.
  assert.equal(await page.evaluate(() => localStorage.getItem('host_value')), 'secret-local');
});

test('infinite loops and never-resolving promises time out; the next evaluation works', async () => {
  const loop = await run('while (true) {}', { timeoutMs: 300 });
  assert.equal(loop.error?.name, 'TimeoutError');
  assert.equal((await run('1 + 2')).value, 3);
  const hang = await run('await new Promise(() => {})', { timeoutMs: 300 });
  assert.equal(hang.error?.name, 'TimeoutError');
  assert.equal((await run('"alive"')).value, 'alive');
});

test('errors carry the user code location, not the sandbox plumbing; output is capped', async () => {
  const r = await run('const a = 1;\nconst b = 2;\nnull.boom;');
  assert.equal(r.error?.name, 'TypeError');
  assert.match(r.error?.stack ?? '', /your code, line 3/);
  assert.doesNotMatch(r.error?.stack ?? '', /runtime|blob:|andbox/);
  const syntax = await run('const = ;');
  assert.equal(syntax.error?.name, 'SyntaxError');
  const big = await run('for (let i = 0; i < 5000; i++) print("x".repeat(100));');
  assert.ok(big.logs.join('').length <= 101_000);
  assert.match(big.logs.at(-1) ?? '', /output truncated/);
  const unclonable = await run('({ fn() {}, n: 1 })');
  assert.equal(typeof unclonable.value, 'string');
});

test('a sandbox taken from the pre-warmed spare frame works, is as isolated, and the spare refills', async () => {
  const r = await page.evaluate(async () => {
    const { createSandbox, prewarmSandbox, discardSpareSandbox } = await import('/web/packages/andbox/index.js');
    const framesBefore = document.querySelectorAll('iframe[title="andbox sandbox"]').length;
    await prewarmSandbox();
    const spareFrame = [...document.querySelectorAll('iframe[title="andbox sandbox"]')].at(-1);
    const sb = await createSandbox({ capabilities: { twice: (/** @type {number} */ n) => n * 2 }, imports: { fflate: '/web/vendor/fflate.js' }, timeoutMs: 2000 });
    const usedSpare = sb.frameElement === spareFrame;
    const results = {
      value: (await sb.evaluate('await twice(21)')).value,
      module: (await sb.evaluate('import { strToU8 } from "fflate";\nstrToU8("ab").length')).value,
      idb: (await sb.evaluate('await new Promise((res, rej) => { const r = indexedDB.open("x"); r.onsuccess = () => res("opened"); r.onerror = () => rej(r.error); })')).error?.name,
      fetch: (await sb.evaluate('await self.fetch(location.origin)')).error != null,
      parent: (await sb.evaluate('parent.document.title')).error != null,
      loopStopped: (await sb.evaluate('while (true) {}', { timeoutMs: 200 })).error?.name,
      after: (await sb.evaluate('"fresh worker"')).value,
    };
    // The taken spare is replaced by a new one in the background.
    await prewarmSandbox();
    const framesWithRefill = document.querySelectorAll('iframe[title="andbox sandbox"]').length;
    sb.dispose();
    await discardSpareSandbox();
    const framesAfter = document.querySelectorAll('iframe[title="andbox sandbox"]').length;
    return { ...results, usedSpare, framesBefore, framesWithRefill, framesAfter };
  });
  assert.equal(r.usedSpare, true);
  assert.equal(r.value, 42);
  assert.equal(r.module, 2);
  assert.equal(r.idb, 'SecurityError');
  assert.equal(r.fetch, true);
  assert.equal(r.parent, true);
  assert.equal(r.loopStopped, 'TimeoutError');
  assert.equal(r.after, 'fresh worker');
  assert.equal(r.framesWithRefill, r.framesBefore + 2);
  assert.equal(r.framesAfter, r.framesBefore);
});
