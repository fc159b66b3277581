// Cross-origin isolation (issue 34 §1): the header `npm start` sends and the service worker adds
// (the same one, never on the sandbox frame), and what isolationState() says
// of a page in each case. The browser side is tests/browser/isolation.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { appRoot, isolationHeaders, startServer } from '../../scripts/static-server.mjs';
import { ISOLATION_HEADER, ISOLATION_VALUE, isolationState } from '../../web/net/isolation.js';

/** @param {Partial<import('../../web/net/isolation.js').IsolationEnvironment>} env */
const page = (env) => ({ crossOriginIsolated: false, secure: true, servedByWorker: true, ...env });

test('isolationState: isolated, off, from the next load, not supported, not a secure context', () => {
  assert.deepEqual(
    [
      isolationState({ env: page({ crossOriginIsolated: true }), wanted: true }),
      isolationState({ env: page({}), wanted: false }),
      isolationState({ env: page({ servedByWorker: false }), wanted: true }),
      isolationState({ env: page({}), wanted: true, wantedAtLoad: false }),
      isolationState({ env: page({}), wanted: true, wantedAtLoad: true }),
      isolationState({ env: page({ secure: false }), wanted: true }),
    ].map((s) => [s.isolated, s.reason]),
    [
      [true, 'isolated'],
      [false, 'off'],
      [false, 'next-load'],
      [false, 'next-load'],
      [false, 'unsupported'],
      [false, 'insecure'],
    ],
  );
  // Isolated while the setting was just turned off: still isolated, and it says when that ends.
  const leaving = isolationState({ env: page({ crossOriginIsolated: true }), wanted: false });
  assert.equal(leaving.isolated, true);
  assert.match(leaving.text, /^Off from the next load/);
  assert.match(isolationState({ env: page({ crossOriginIsolated: true }), wanted: true }).text, /^On: /);
});

test("static server: every response carries Document-Isolation-Policy but the sandbox frame's; control: isolation off \
sends none", async () => {
  assert.deepEqual(isolationHeaders('/index.html', true), { [ISOLATION_HEADER]: ISOLATION_VALUE });
  assert.deepEqual(isolationHeaders('/web/packages/andbox/frame.html', true), {});
  assert.deepEqual(isolationHeaders('/web/app/main.js', true), { [ISOLATION_HEADER]: ISOLATION_VALUE });
  assert.deepEqual(isolationHeaders('/index.html', false), {});
  // The tests' comparison modes: the sandbox frame too; the older COOP/COEP pair.
  assert.deepEqual(isolationHeaders('/web/packages/andbox/frame.html', 'sandbox-too'), { [ISOLATION_HEADER]: ISOLATION_VALUE });
  assert.deepEqual(Object.keys(isolationHeaders('/web/app/main.js', 'coop-coep')), [
    'cross-origin-opener-policy',
    'cross-origin-embedder-policy',
  ]);
  for (const isolation of [true, false]) {
    const server = await startServer({ port: 0, isolation });
    const base = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`;
    try {
      /** @type {Record<string, string | null>} */
      const seen = {};
      for (const path of ['/', '/index.html', '/web/app/oauth-callback.html', '/web/packages/andbox/frame.html', '/web/app/main.js']) {
        const res = await fetch(base + path);
        await res.arrayBuffer();
        seen[path] = res.headers.get(ISOLATION_HEADER);
      }
      const on = isolation ? ISOLATION_VALUE : null;
      assert.deepEqual(seen, {
        '/': on,
        '/index.html': on,
        '/web/app/oauth-callback.html': on,
        '/web/packages/andbox/frame.html': null,
        '/web/app/main.js': on,
      });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  }
});

test('the service worker adds the same header as the server, and leaves the sandbox frame out', async () => {
  const sw = await readFile(join(appRoot, 'sw.js'), 'utf8');
  assert.match(sw, new RegExp(`const ISOLATION_HEADER = '${ISOLATION_HEADER}'`));
  assert.match(sw, new RegExp(`const ISOLATION_VALUE = '${ISOLATION_VALUE}'`));
  assert.match(sw, /const SANDBOX_FRAME = new URL\('\.\/web\/packages\/andbox\/frame\.html'/);
});
