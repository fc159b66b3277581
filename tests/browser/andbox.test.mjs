// andbox in a real Chromium: benign code runs; every escape route fails; limits hold.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { createHash } from 'node:crypto';
import { useFixture } from './fixture.mjs';

/**
 * Another origin of the same site (127.0.0.1, another port): a page that tries to borrow the
 * sandbox frame, and endpoints every worker may reach when nothing stops it — a CORS text, an
 * event stream and a WebSocket (a bare handshake).
 */
async function startOtherOrigin() {
  /** @type {Set<import('node:stream').Duplex>} */
  const sockets = new Set();
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/attack.html') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html><head><title>another site</title></head><body></body></html>');
    } else if (path === '/cors') {
      res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' });
      res.end('cross-origin data');
    } else if (path === '/events') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', 'access-control-allow-origin': '*' });
      res.write('data: hello\n\n');
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  server.on('upgrade', (req, socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    const accept = createHash('sha1').update(`${req.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const port = /** @type {import('node:net').AddressInfo} */ (server.address()).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    wsUrl: `ws://127.0.0.1:${port}/ws`,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.closeAllConnections();
        server.close(() => resolve(undefined));
      }),
  };
}

const fx = await useFixture({ page: 'home' });
const { app, browser, page } = fx;
const other = await startOtherOrigin();
fx.defer(() => other.close());
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

/** @param {string} code @param {{timeoutMs?: number}} [opts] */
const run = (code, opts) =>
  page.evaluate(([c, o]) => /** @type {any} */ (window).__sb.evaluate(c, o), /** @type {const} */ ([code, opts ?? {}]));

test('benign code runs: expressions, statements, top-level await, print, structured values', async () => {
  assert.equal((await run('1 + 1')).value, 2);
  const r = await run(
    'const xs = [1, 2, 3];\nprint("sum", xs.reduce((a, b) => a + b));\nawait new Promise((r) ' +
      '=> setTimeout(r, 0));\n({ n: xs.length, m: new Map([[1, 2]]) })',
  );
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
  assert.deepEqual(calls.slice(-5), [
    ['add', true],
    ['add', true],
    ['secret', false],
    ['nope', false],
    ['fetch', true],
  ]);
  // The code catches the host's refusal as an Error with its name and stable code.
  const caught = await run(
    'const out = [];\nfor (const f of [() => secret(), () => host.call("nope", {})]) { try { await ' +
      'f(); } catch (e) { out.push([e instanceof Error, e.name, e.code]); } }\nout',
  );
  assert.deepEqual(
    caught.value,
    [
      [true, 'PermissionDenied', 'denied'],
      [true, 'CapabilityError', 'not_granted'],
    ],
    JSON.stringify(caught.error),
  );
});

test('allow-listed vendored modules can be imported; others cannot', async () => {
  const r = await run('import { strToU8, zipSync } from "fflate";\nzipSync({ "a.txt": strToU8("hi") }).length > 20');
  assert.equal(r.error, null, JSON.stringify(r.error));
  assert.equal(r.value, true);
  assert.match((await run('await import("zod")')).error?.message ?? '', /not available in the sandbox/);
});

/**
 * Each escape probe as an expression: run in the sandbox it must fail, and the same text run
 * in a plain worker of the app's origin (the control) must succeed — so a probe cannot pass
 * for the wrong reason (an API missing in every worker, a URL nothing answers). Probes of
 * `parent`, `top`, `document.cookie`, `localStorage` and `navigator.sendBeacon` are gone: those
 * do not exist in any worker. Dynamic import uses a variable, so the runtime's allow-list of
 * literal module names is not what stops it — the frame's CSP is.
 * @param {{app: string, other: string, otherWs: string}} urls
 */
function escapeProbes({ app: APP, other: OTHER, otherWs: OTHER_WS }) {
  const q = JSON.stringify;
  return {
    indexedDB:
      'await new Promise((res, rej) => { const r = indexedDB.open("andbox-probe"); r.onsuccess = () => ' +
      '{ r.result.close(); res("opened"); }; r.onerror = () => rej(r.error); })',
    opfs: '(await navigator.storage.getDirectory()).kind',
    caches: 'typeof (await caches.open("andbox-probe")).match',
    fetchAppOrigin: `(await self.fetch(${q(APP)})).status`,
    fetchOtherOrigin: `await (await self.fetch(${q(`${OTHER}cors`)})).text()`,
    syncXhr: `(() => { const x = new XMLHttpRequest(); x.open("GET", ${q(APP)}, false); x.send(); return x.status; })()`,
    websocket:
      `await new Promise((res, rej) => { const ws = new WebSocket(${q(OTHER_WS)}); ws.onopen = () => { ws.close(); ` +
      `res("open"); }; ws.onerror = () => rej(new Error("websocket failed")); })`,
    eventSource:
      `await new Promise((res, rej) => { const es = new EventSource(${q(`${OTHER}events`)}); es.onmessage = (e) => { ` +
      `es.close(); res(e.data); }; es.onerror = () => { es.close(); rej(new Error("eventsource failed")); }; })`,
    importScripts: `(importScripts(${q(`${APP}precache-manifest.js`)}), typeof self.CLAWSER_PRECACHE)`,
    importVariable:
      `await (async () => { const url = ${q(`${APP}web/storage/errors.js`)}; return Object.keys(await ` + `import(url)).length; })()`,
  };
}

/**
 * Runs probes in a plain dedicated worker of the app's origin (a blob worker of the app page:
 * the app's CSP, the app's storage) — what sandboxed code would get without the sandbox.
 * @param {import('playwright-core').Page} p @param {Record<string, string>} probes
 * @returns {Promise<Record<string, {ok: boolean, value?: unknown, error?: string}>>}
 */
function inPlainWorker(p, probes) {
  const source =
    `const probes = {${Object.entries(probes)
      .map(([n, code]) => `${JSON.stringify(n)}: async () => (${code})`)
      .join(',\n')}};
(async () => { const out = {}; for (const [n, f] of Object.entries(probes)) { try { out[n] = { ok: true, value: await f() }; } catch ` +
    `(e) { out[n] = { ok: false, error: String(e) }; } } postMessage(out); })();`;
  return p.evaluate(
    (src) =>
      new Promise((resolve) => {
        const w = new Worker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })));
        w.onmessage = (e) => {
          w.terminate();
          resolve(e.data);
        };
      }),
    source,
  );
}

test('every escape route fails in the sandbox, and works from a plain worker of the app (the control)', async () => {
  const probes = escapeProbes({ app: app.url, other: other.url, otherWs: other.wsUrl });
  const control = await inPlainWorker(page, probes);
  for (const [name, r] of Object.entries(control))
    assert.equal(r.ok, true, `control: ${name} must work in a plain worker of the app's origin (${r.error})`);
  for (const [name, code] of Object.entries(probes)) {
    const r = await run(code);
    assert.ok(r.error, `${name} did not fail in the sandbox: ${JSON.stringify(r.value)}`);
    assert.ok(r.error.message.length > 0, `${name} has a message`);
  }
  assert.equal((await run(probes.indexedDB)).error?.name, 'SecurityError');
  // The frame document itself is of another (opaque) origin than the app: the app cannot
  // reach into it, nor it into the app. Control: a plain same-origin frame is reachable.
  const frames = await page.evaluate(async () => {
    const sandboxed = /** @type {HTMLIFrameElement} */ (document.querySelector('iframe[title="andbox sandbox"]'));
    const plain = document.createElement('iframe');
    plain.src = '/web/packages/andbox/README.md';
    await new Promise((r) => {
      plain.onload = r;
      document.body.append(plain);
    });
    const result = { sandboxed: sandboxed.contentDocument === null, plain: plain.contentDocument !== null };
    plain.remove();
    return result;
  });
  assert.deepEqual(frames, { sandboxed: true, plain: true });
  // The host page kept its data and nothing in it changed.
  assert.equal(await page.evaluate(() => localStorage.getItem('host_value')), 'secret-local');
});

/** Worker source an attacker would send the frame: it reads the app's OPFS and reports. */
const STEAL = `onmessage = async (e) => {
  const port = e.ports[0];
  if (!port) return;
  try {
    const root = await navigator.storage.getDirectory();
    const file = await (await root.getFileHandle('andbox-probe-marker.txt')).getFile();
    port.postMessage({ stolen: await file.text() });
  } catch (err) {
    port.postMessage({ error: String(err) });
  }
};`;

/** In the page: embeds the frame (given URL, no sandbox attribute), asks it to run STEAL, reports. */
function attackScript() {
  /** @param {[string, string]} args frame URL, worker source */
  return async ([frameUrl, steal]) => {
    const frame = document.createElement('iframe');
    frame.src = frameUrl;
    await new Promise((r) => {
      frame.onload = r;
      document.body.append(frame);
    });
    const channel = new MessageChannel();
    const data = new MessageChannel();
    /** @type {unknown[]} */
    const seen = [];
    return new Promise((resolve) => {
      channel.port1.onmessage = (e) => {
        seen.push(e.data);
        if (e.data?.type === 'frame-ready') channel.port1.postMessage({ type: 'start', source: steal, modules: {} }, [data.port2]);
        if (e.data?.type === 'refused' && seen.length === 1)
          channel.port1.postMessage({ type: 'start', source: steal, modules: {} }, [data.port2]);
        if (e.data?.type === 'refused' && seen.length === 2) resolve({ outcome: 'refused', seen });
      };
      data.port1.onmessage = (e) => resolve({ outcome: 'ran', stolen: e.data, seen });
      frame.contentWindow?.postMessage({ type: 'andbox:init' }, '*', [channel.port2]);
    });
  };
}

test('the frame refuses to run unless it is really sandboxed: embedded without the sandbox attribute it runs nothing (control: \
the same worker code in a plain worker reads the storage)', async () => {
  await page.evaluate(async () => {
    const root = await navigator.storage.getDirectory();
    const w = await (await root.getFileHandle('andbox-probe-marker.txt', { create: true })).createWritable();
    await w.write('app secret');
    await w.close();
  });
  // Control: the attacker's worker code, run as a plain worker of the app's origin, gets the data.
  const control = await page.evaluate(
    (src) =>
      new Promise((resolve) => {
        const w = new Worker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })));
        const ch = new MessageChannel();
        ch.port1.onmessage = (e) => {
          w.terminate();
          resolve(e.data);
        };
        w.postMessage({ type: 'connect' }, [ch.port2]);
      }),
    STEAL,
  );
  assert.deepEqual(control, { stolen: 'app secret' });
  // A page of the app's own origin (so frame-ancestors 'self' lets it) embeds the frame without
  // the sandbox attribute: the frame has a real origin and refuses, then refuses "start" too.
  const attack = await page.evaluate(attackScript(), /** @type {[string, string]} */ ([`${app.url}web/packages/andbox/frame.html`, STEAL]));
  assert.deepEqual(attack, {
    outcome: 'refused',
    seen: [
      { type: 'refused', code: 'sandbox_not_isolated' },
      { type: 'refused', code: 'sandbox_not_isolated' },
    ],
  });
});

test('a page of another port of the same site cannot borrow the frame: the headers stop the load; without them \
(control) the frame itself refuses', async () => {
  const attacker = await browser.context.newPage();
  try {
    await attacker.goto(`${other.url}attack.html`);
    const frameUrl = `${app.url}web/packages/andbox/frame.html`;
    // With the app's headers (frame-ancestors 'self'): the browser does not load the frame, it
    // shows an error page in its place.
    const refused = attacker.waitForEvent('framenavigated', {
      predicate: (f) => f !== attacker.mainFrame() && f.url().startsWith('chrome-error://'),
    });
    await attacker.evaluate((url) => {
      const frame = document.createElement('iframe');
      frame.src = url;
      document.body.append(frame);
    }, frameUrl);
    await refused;
    assert.equal(
      attacker.frames().filter((f) => f.url() === frameUrl).length,
      0,
      "the sandbox document never loaded in the other site's page",
    );
    // Control: the same attack against a server without the headers loads the frame — and the
    // frame's own check refuses to run the attacker's worker.
    const bare = await fx.startApp({ framingHeaders: false });
    try {
      const r = await attacker.evaluate(
        attackScript(),
        /** @type {[string, string]} */ ([`${bare.url}web/packages/andbox/frame.html`, STEAL]),
      );
      assert.deepEqual(r, {
        outcome: 'refused',
        seen: [
          { type: 'refused', code: 'sandbox_not_isolated' },
          { type: 'refused', code: 'sandbox_not_isolated' },
        ],
      });
    } finally {
      await bare.close();
    }
  } finally {
    await attacker.close();
  }
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
  // A page of the origin without the app (which keeps a spare of its own once idle).
  const q = await browser.context.newPage();
  await q.goto(`${app.url}web/packages/andbox/README.md`);
  const r = await q.evaluate(async () => {
    const { createSandbox, prewarmSandbox, discardSpareSandbox } = await import('/web/packages/andbox/index.js');
    const framesBefore = document.querySelectorAll('iframe[title="andbox sandbox"]').length;
    await prewarmSandbox();
    const spareFrame = [...document.querySelectorAll('iframe[title="andbox sandbox"]')].at(-1);
    const sb = await createSandbox({
      capabilities: { twice: (/** @type {number} */ n) => n * 2 },
      imports: { fflate: '/web/vendor/fflate.js' },
      timeoutMs: 2000,
    });
    const usedSpare = sb.frameElement === spareFrame;
    const results = {
      value: (await sb.evaluate('await twice(21)')).value,
      module: (await sb.evaluate('import { strToU8 } from "fflate";\nstrToU8("ab").length')).value,
      idb: (
        await sb.evaluate(
          'await new Promise((res, rej) => { const r = indexedDB.open("x"); r.onsuccess = ' +
            '() => res("opened"); r.onerror = () => rej(r.error); })',
        )
      ).error?.name,
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
  await q.close();
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

test('a sandbox whose frame cannot load fails within seconds with a clear error (control: \
the same start with the frame reachable works)', async () => {
  const p = await browser.context.newPage();
  try {
    await p.goto(`${app.url}#home`);
    await p.getByRole('heading', { name: 'Workspaces' }).waitFor();
    const start = () =>
      p.evaluate(async () => {
        const { createSandbox, discardSpareSandbox } = await import('/web/packages/andbox/index.js');
        await discardSpareSandbox();
        try {
          const sb = await createSandbox({});
          const value = (await sb.evaluate('6 * 7')).value;
          sb.dispose();
          return { value };
        } catch (err) {
          return {
            name: /** @type {Error} */ (err).name,
            code: /** @type {any} */ (err).code,
            message: /** @type {Error} */ (err).message,
          }; // any: the error's code
        }
      });
    assert.deepEqual(await start(), { value: 42 });
    // The frame's document cannot be fetched (as offline before it was ever cached).
    await p.route('**/andbox/frame.html*', (route) => route.abort('internetdisconnected'));
    const failed = await start();
    assert.equal(failed.name, 'SandboxStartError');
    assert.equal(failed.code, 'sandbox_unavailable');
    assert.match(String(failed.message), /could not start: its frame did not load/);
  } finally {
    await p.close();
  }
});

test("a pool of one's own: its spare frame serves its sandboxes, not the page's default ones", async () => {
  const q = await browser.context.newPage();
  try {
    await q.goto(`${app.url}web/packages/andbox/README.md`);
    const r = await q.evaluate(async () => {
      const { createSandbox, SandboxPool } = await import('/web/packages/andbox/index.js');
      const pool = new SandboxPool();
      await pool.prewarm();
      const spare = [...document.querySelectorAll('iframe[title="andbox sandbox"]')].at(-1);
      const other = await createSandbox({});
      const mine = await createSandbox({ pool });
      const result = {
        otherTookIt: other.frameElement === spare,
        mineTookIt: mine.frameElement === spare,
        value: (await mine.evaluate('6 * 7')).value,
      };
      other.dispose();
      mine.dispose();
      await pool.discard();
      return result;
    });
    assert.deepEqual(r, { otherTookIt: false, mineTookIt: true, value: 42 });
  } finally {
    await q.close();
  }
});
