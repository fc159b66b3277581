// Issue 38 §1: the companion extension's pure parts (extension/lib.js) and its manifest: URL
// schemes, secret redaction in what it returns and logs, which origins count as Clawser, the
// screenshot mutex, orphaned tabs, request checks; the manifest lets only Clawser's origins talk
// to it, has no content script, and keeps a fixed key whose id is the one Clawser asks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import {
  CompanionError,
  Mutex,
  ORPHAN_MS,
  errorReply,
  isSensitiveName,
  isWebUrl,
  orphans,
  originMatches,
  parseRequest,
  redactParams,
  redactUrl,
  targetParam,
  webUrl,
  COMMANDS,
  PROTOCOL,
} from '../../extension/lib.js';
import { MANIFEST, manifestId, extensionIdOf } from '../../scripts/extension-id.mjs';
import { COMPANION_ID, COMPANION_PROTOCOL, COMPANION_RESULTS } from '../../web/net/companion.js';

/** @param {() => unknown} fn @param {string} code */
const throwsCode = (fn, code) => assert.throws(fn, (/** @type {any} */ e) => e instanceof CompanionError && e.code === code);

test('webUrl: http and https pass; other schemes, relative addresses and credentials in the address are refused with a code', () => {
  assert.equal(webUrl('https://example.com/a?b=1').hostname, 'example.com');
  assert.equal(webUrl('http://127.0.0.2:8080/').port, '8080');
  for (const bad of ['javascript:alert(1)', 'file:///etc/passwd', 'chrome://settings', 'data:text/html,hi', 'ftp://x.org/']) {
    throwsCode(() => webUrl(bad), 'bad_scheme');
    assert.equal(isWebUrl(bad), false, bad);
  }
  throwsCode(() => webUrl('/relative'), 'bad_url');
  throwsCode(() => webUrl('https://user:pw@example.com/'), 'bad_url');
  throwsCode(() => webUrl(''), 'bad_request');
  assert.equal(isWebUrl(undefined), false);
  assert.equal(isWebUrl('https://example.com/'), true);
});

test('redactUrl hides the values of secret-looking parameters (query and fragment) and nothing else', () => {
  assert.equal(
    redactUrl('https://ex.com/cb?code=abc123&state=xyz&access_token=t0k&page=2'),
    'https://ex.com/cb?code=%5BREDACTED%5D&state=xyz&access_token=%5BREDACTED%5D&page=2',
  );
  assert.equal(redactUrl('https://ex.com/#id_token=eyJ&x=1'), 'https://ex.com/#id_token=%5BREDACTED%5D&x=1');
  assert.equal(redactUrl('https://u:p@ex.com/'), 'https://ex.com/');
  // Controls: an ordinary address is returned exactly as it was, and so is a non-URL.
  assert.equal(redactUrl('https://ex.com/search?q=cats&page=2'), 'https://ex.com/search?q=cats&page=2');
  assert.equal(redactUrl('not a url'), 'not a url');
  for (const name of ['password', 'apiKey', 'api_key', 'X-Auth', 'sessionid', 'client_secret', 'sig', 'otp'])
    assert.ok(isSensitiveName(name), name);
  for (const name of ['q', 'page', 'keyword', 'monkey', 'title', 'sort']) assert.equal(isSensitiveName(name), false, name);
});

test('redactParams: typed text and secret-named values never reach the log; URLs are redacted; the rest is kept', () => {
  assert.deepEqual(
    redactParams({ tabId: 4, text: 'hunter2', name: 'Search', url: 'https://ex.com/?token=abc', password: 'pw', submit: true }),
    {
      tabId: 4,
      text: '[REDACTED 7 chars]',
      name: 'Search',
      url: 'https://ex.com/?token=%5BREDACTED%5D',
      password: '[REDACTED 2 chars]',
      submit: true,
    },
  );
});

test('originMatches: the patterns of externally_connectable, any port when the pattern names none, nothing else', () => {
  const patterns = ['http://127.0.0.1/*', 'http://localhost/*', 'https://*.example.org/*'];
  assert.ok(originMatches('http://127.0.0.1:4173', patterns));
  assert.ok(originMatches('http://localhost', patterns));
  assert.ok(originMatches('https://app.example.org', patterns));
  assert.ok(originMatches('https://example.org', patterns));
  for (const other of [
    'http://127.0.0.2:4173',
    'https://127.0.0.1',
    'http://localhost.evil.com',
    'https://example.org.evil.com',
    'https://evilexample.org',
    'chrome-extension://abc',
    'null',
  ])
    assert.equal(originMatches(other, patterns), false, other);
  assert.ok(originMatches('http://127.0.0.1:8080', ['http://127.0.0.1:8080/*']));
  assert.equal(originMatches('http://127.0.0.1:8081', ['http://127.0.0.1:8080/*']), false);
});

test('Mutex: one holder at a time, in order; a caller that cannot get it in time gets mutex_busy naming the holder', async () => {
  const mutex = new Mutex();
  /** @type {string[]} */
  const seen = [];
  /** @type {() => void} */
  let releaseFirst = () => {};
  const first = mutex.run('tab 1', async () => {
    seen.push('1 in');
    await new Promise((resolve) => {
      releaseFirst = () => resolve(undefined);
    });
    seen.push('1 out');
    return 1;
  });
  const second = mutex.run('tab 2', async () => {
    seen.push('2 in');
    return 2;
  });
  // Held: one that will not wait is refused at once, saying by whom.
  await assert.rejects(
    mutex.run('tab 3', async () => 3, 0),
    (/** @type {any} */ e) => e.code === 'mutex_busy' && /tab 1/.test(e.message) && /tab_read/.test(e.hint),
  );
  releaseFirst();
  assert.deepEqual(await Promise.all([first, second]), [1, 2]);
  assert.deepEqual(seen, ['1 in', '1 out', '2 in']);
  // Control: once free, the same zero wait gets it.
  assert.equal(await mutex.run('tab 4', async () => 4, 0), 4);
  assert.equal(mutex.holder, null);
});

test('orphans: the tabs of a session silent longer than ORPHAN_MS are closed; a live session keeps its tabs', () => {
  const now = 10 * ORPHAN_MS;
  const own = {
    tabs: { 1: { session: 'alive', openedAt: 0 }, 2: { session: 'gone', openedAt: 0 }, 3: { session: 'unknown', openedAt: 0 } },
    seen: { alive: now - 1000, gone: now - ORPHAN_MS - 1 },
  };
  const r = orphans(own, now);
  assert.deepEqual(r.close.sort(), [2, 3]);
  assert.deepEqual(Object.keys(r.own.tabs), ['1']);
  assert.deepEqual(Object.keys(r.own.seen), ['alive']);
});

test('parseRequest refuses what is not a request of this protocol; targetParam wants a selector or a name, one of them', () => {
  const ok = parseRequest({ v: PROTOCOL, session: 'abcdef123456', command: 'tab_read', params: { tabId: 1 } });
  assert.equal(ok.command, 'tab_read');
  throwsCode(() => parseRequest(null), 'bad_request');
  throwsCode(() => parseRequest({ v: 99, session: 'abcdef123456', command: 'hello' }), 'bad_version');
  throwsCode(() => parseRequest({ v: PROTOCOL, session: 'abcdef123456', command: 'eval' }), 'unknown_command');
  throwsCode(() => parseRequest({ v: PROTOCOL, session: 'x', command: 'hello' }), 'bad_request');
  throwsCode(() => parseRequest({ v: PROTOCOL, session: 'abcdef123456', command: 'hello', params: [] }), 'bad_request');
  assert.deepEqual(targetParam({ name: 'Search' }), { name: 'Search' });
  assert.deepEqual(targetParam({ selector: '#q' }), { selector: '#q' });
  throwsCode(() => targetParam({}), 'bad_request');
  throwsCode(() => targetParam({ name: 'a', selector: '#b' }), 'bad_request');
  assert.deepEqual(errorReply(new CompanionError('not_owned', 'No.', 'Ask.')), {
    ok: false,
    error: { code: 'not_owned', message: 'No.', hint: 'Ask.' },
  });
  assert.deepEqual(errorReply(new Error('boom')), { ok: false, error: { code: 'internal', message: 'boom' } });
});

test('the manifest: MV3, a fixed key whose id Clawser asks, only Clawser origins may connect, no content script', () => {
  const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8'));
  assert.equal(manifest.manifest_version, 3);
  assert.equal(manifest.background.type, 'module');
  assert.equal(manifestId(), COMPANION_ID);
  assert.equal(extensionIdOf(manifest.key), COMPANION_ID);
  assert.deepEqual(manifest.externally_connectable, { matches: ['http://127.0.0.1/*', 'http://localhost/*'] });
  assert.equal(manifest.content_scripts, undefined, 'no page gets a script of the extension it could talk to');
  assert.equal(manifest.web_accessible_resources, undefined);
  // <all_urls>: captureVisibleTab accepts nothing narrower; the worker itself refuses every scheme but http and https.
  assert.deepEqual(manifest.host_permissions, ['<all_urls>']);
  assert.deepEqual(manifest.permissions.sort(), ['alarms', 'scripting', 'storage', 'tabs']);
  // Every file the manifest and the worker name is there, and no private key is.
  const files = readdirSync(new URL('../../extension/', import.meta.url));
  for (const f of ['background.js', 'lib.js', 'page.js', 'icon.png']) assert.ok(files.includes(f), f);
  assert.equal(
    files.some((f) => /\.pem$|\.crx$/.test(f)),
    false,
  );
});

test('Clawser and the extension speak the same protocol and the same commands', () => {
  assert.equal(COMPANION_PROTOCOL, PROTOCOL);
  assert.deepEqual(Object.keys(COMPANION_RESULTS).sort(), [...COMMANDS].sort());
});
