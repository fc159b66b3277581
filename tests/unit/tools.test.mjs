import { test } from 'node:test';
import assert from 'node:assert/strict';
import { webFetch, webSearch, htmlToText } from '../../web/tools/web.js';
import { storageGet, storageSet, storageList } from '../../web/tools/page-storage.js';
import { navigate, notify, askUser, screenInfo, screenshot, domModify, domQuery, clipboardRead } from '../../web/tools/browser.js';
import { fsRead, fsWrite, fsList, fsDelete } from '../../web/tools/fs.js';
import { toolSettings } from '../../web/tools/index.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { createProvider } from '../../web/providers/index.js';
import { toWireMessages } from '../../web/providers/anthropic.js';

/** @param {Partial<import('../../web/tools/types.d.ts').ToolContext>} [over] @returns {import('../../web/tools/types.d.ts').ToolContext} */
const ctx = (over = {}) => ({ workspaceId: 'w', fs: new MemoryFileSystem(), settings: toolSettings(), fetch: globalThis.fetch, ...over });

/** @param {Record<string, {status?: number, type?: string, body: string}>} routes @returns {typeof fetch} */
function fakeFetch(routes) {
  return async (input, init) => {
    const url = String(input);
    const r = routes[url];
    if (!r) throw new TypeError('Failed to fetch');
    assert.equal(init?.credentials, 'omit', 'no cookies are sent');
    return new Response(r.body, { status: r.status ?? 200, headers: { 'content-type': r.type ?? 'text/plain' } });
  };
}

test('web_fetch: HTML reduced to readable text, JSON pretty, binary not shown, capped', async () => {
  const html =
    '<html><head><title>T</title><style>.x{}</style><script>evil()</script></head><body><nav>menu</' +
    'nav><h1>Hello</h1><p>First &amp; second.</p><ul><li>one</li></ul></body></html>';
  const f = fakeFetch({
    'https://e.test/page': { type: 'text/html; charset=utf-8', body: html },
    'https://e.test/data': { type: 'application/json', body: '{"a":1}' },
    'https://e.test/img': { type: 'image/png', body: 'PNG' },
    'https://e.test/big': { type: 'text/plain', body: 'x'.repeat(5000) },
    'https://e.test/404': { status: 404, type: 'text/plain', body: 'nope' },
  });
  const page = await webFetch.run({ url: 'https://e.test/page' }, ctx({ fetch: f }));
  assert.match(page.output, /^HTTP 200/);
  assert.match(page.output, /Hello/);
  assert.match(page.output, /First & second\./);
  assert.doesNotMatch(page.output, /evil|\.x\{\}/);
  assert.match((await webFetch.run({ url: 'https://e.test/data' }, ctx({ fetch: f }))).output, /\{\n {2}"a": 1\n\}/);
  assert.match((await webFetch.run({ url: 'https://e.test/img' }, ctx({ fetch: f }))).output, /Binary content \(image\/png\) is not shown/);
  const big = await webFetch.run({ url: 'https://e.test/big', maxChars: 1000 }, ctx({ fetch: f }));
  assert.match(big.output, /cut at 1000 characters/);
  assert.equal((await webFetch.run({ url: 'https://e.test/404' }, ctx({ fetch: f }))).ok, false);
  const blocked = await webFetch.run(
    { url: 'https://other.test/' },
    ctx({ fetch: f, settings: toolSettings({ fetchAllowlist: ['e.test'] }) }),
  );
  assert.match(blocked.output, /not in this workspace's fetch allowlist/);
  const cors = await webFetch.run({ url: 'https://down.test/' }, ctx({ fetch: f }));
  assert.match(cors.output, /unreachable or does not allow requests from a web page/);
  assert.equal(htmlToText('<p>a<br>b</p><script>x</script>'), 'a\nb');
});

test('web_search: a clear "not configured" result, SearXNG and Brave formats', async () => {
  const none = await webSearch.run({ query: 'x' }, ctx());
  assert.equal(none.ok, false);
  assert.match(none.output, /not configured/);
  /** @type {string[]} */
  const urls = [];
  /** @type {typeof fetch} */
  const f = async (input, init) => {
    urls.push(String(input));
    const brave = String(input).includes('brave');
    if (brave) assert.equal(/** @type {Record<string, string>} */ (init?.headers)['x-subscription-token'], 'bk');
    return Response.json(
      brave
        ? { web: { results: [{ title: 'B', url: 'https://b.test', description: '<b>bold</b> snippet' }] } }
        : { results: [{ title: 'S', url: 'https://s.test', content: 'searx snippet' }] },
    );
  };
  const searx = await webSearch.run(
    { query: 'cats & dogs' },
    ctx({ fetch: f, settings: toolSettings({ searchEndpoint: 'https://searx.test/' }) }),
  );
  assert.equal(urls[0], 'https://searx.test/search?q=cats+%26+dogs&format=json');
  assert.match(searx.output, /1\. S\n {3}https:\/\/s\.test\n {3}searx snippet/);
  const brave = await webSearch.run(
    { query: 'q' },
    ctx({ fetch: f, settings: toolSettings({ searchEndpoint: 'https://api.search.brave.com/res/v1/web/search', searchApiKey: 'bk' }) }),
  );
  assert.match(brave.output, /bold snippet/);
  // The key goes to Brave's host only, not to any URL that mentions it.
  /** @type {(Record<string, string> | undefined)[]} */
  const sent = [];
  /** @type {typeof fetch} */
  const g = async (_input, init) => {
    sent.push(/** @type {Record<string, string> | undefined} */ (init?.headers));
    return Response.json({ results: [] });
  };
  await webSearch.run(
    { query: 'q' },
    ctx({ fetch: g, settings: toolSettings({ searchEndpoint: 'https://evil.example/api.search.brave.com', searchApiKey: 'bk' }) }),
  );
  assert.equal(sent[0]?.['x-subscription-token'], undefined);
});

test('storage tools refuse clawser_* keys and work on the rest', async () => {
  /** @type {Map<string, string>} */
  const m = new Map([
    ['clawser_secret', 'x'],
    ['user_note', 'hi'],
  ]);
  /** @type {any} */ (globalThis).localStorage = {
    get length() {
      return m.size;
    },
    key: (/** @type {number} */ i) => [...m.keys()][i] ?? null,
    getItem: (/** @type {string} */ k) => m.get(k) ?? null,
    setItem: (/** @type {string} */ k, /** @type {string} */ v) => void m.set(k, v),
    removeItem: (/** @type {string} */ k) => void m.delete(k),
  };
  const c = ctx();
  assert.equal((await storageGet.run({ key: 'clawser_secret' }, c)).ok, false);
  assert.equal((await storageGet.run({ key: 'CLAWSER_secret' }, c)).ok, false);
  assert.equal((await storageSet.run({ key: 'clawser_x', value: 'y' }, c)).ok, false);
  assert.equal(m.has('clawser_x'), false);
  assert.equal((await storageGet.run({ key: 'user_note' }, c)).output, 'hi');
  await storageSet.run({ key: 'k2', value: 'v2' }, c);
  assert.equal((await storageList.run({}, c)).output, 'k2\nuser_note');
});

test('fs tools: caps, binary detection, folders, delete refuses the root', async () => {
  const c = ctx({ settings: toolSettings({ maxReadBytes: 10, maxWriteBytes: 5 }) });
  assert.match((await fsWrite.run({ path: 'a.txt', content: '123456' }, c)).output, /limited to 5 B/);
  await fsWrite.run({ path: 'a.txt', content: '12345' }, c);
  await fsWrite.run({ path: 'a.txt', content: '67', mode: 'append' }, c);
  assert.equal((await fsRead.run({ path: 'a.txt' }, c)).output, '1234567');
  await c.fs.write('big.txt', 'x'.repeat(20));
  assert.match((await fsRead.run({ path: 'big.txt' }, c)).output, /…\[10 B more; read on with offset 10\]/);
  await c.fs.write('bin', Uint8Array.of(1, 0, 2));
  assert.match((await fsRead.run({ path: 'bin' }, c)).output, /binary file/);
  assert.match((await fsRead.run({ path: 'nope' }, c)).output, /No file/);
  assert.match((await fsDelete.run({ path: '/' }, c)).output, /Refusing/);
  await c.fs.mkdir('.conversations/c1');
  const list = await fsList.run({ path: '/', recursive: true }, c);
  assert.doesNotMatch(list.output, /conversations/);
  assert.match((await fsDelete.run({ path: 'a.txt' }, c)).output, /Deleted file/);
});

test('browser tools use only the UI services given to them', async () => {
  /** @type {string[]} */
  const calls = [];
  /** @type {import('../../web/tools/types.d.ts').ToolUi} */
  const ui = {
    askUser: async (q, o) => (calls.push(`ask:${q}:${o?.choices?.join('|')}`), q === 'skip?' ? null : 'yes'),
    notify: async (t) => (calls.push(`notify:${t}`), 'denied'),
    openTab: (u) => (calls.push(`open:${u}`), true),
    clipboardRead: async () => {
      throw new Error('permission denied');
    },
    clipboardWrite: async () => {},
    screenInfo: () => ({ screen: { width: 1 } }),
    screenshot: async () => ({ dataUrl: 'data:image/png;base64,iVBORw0KGgo=', width: 2, height: 3 }),
    artifact: {
      setHtml: async (h) => void calls.push(`html:${h}`),
      query: async () => ({ count: 0, items: [] }),
      modify: async () => 2,
    },
  };
  const c = ctx({ ui });
  assert.equal((await askUser.run({ question: 'go?', choices: ['a', 'b'] }, c)).output, 'yes');
  assert.equal((await askUser.run({ question: 'skip?' }, c)).ok, false);
  assert.match((await notify.run({ title: 'T' }, c)).output, /not allowed notifications/);
  assert.equal((await navigate.run({ url: 'javascript:alert(1)' }, c)).ok, false);
  assert.equal((await navigate.run({ url: 'https://example.com' }, c)).ok, true);
  assert.match((await clipboardRead.run({}, c)).output, /did not allow/);
  assert.match((await screenInfo.run({}, c)).output, /"width": 1/);
  const shot = await screenshot.run({}, c);
  assert.match(shot.output, /saved to "screenshots\/.*\.png"/);
  assert.equal(shot.image?.mediaType, 'image/png');
  const saved = (await c.fs.list('screenshots'))[0].name;
  assert.deepEqual([...(await c.fs.readBytes(`screenshots/${saved}`)).slice(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  assert.equal((await domModify.run({ selector: 'document', action: 'set_html', value: '<p>x</p>' }, c)).ok, true);
  assert.match((await domModify.run({ selector: 'p', action: 'set_text', value: 'y' }, c)).output, /Changed 2 elements/);
  assert.match((await domQuery.run({ selector: '.none' }, c)).output, /No elements match/);
  await assert.rejects(askUser.run({ question: 'q' }, ctx()), /needs the Clawser page/);
  assert.deepEqual(calls.slice(0, 4), ['ask:go?:a|b', 'ask:skip?:undefined', 'notify:T', 'open:https://example.com/']);
});

test('tool images reach vision providers in each wire format', () => {
  const img = { mediaType: 'image/png', dataUrl: 'data:image/png;base64,AAAA' };
  const msgs = /** @type {import('../../web/providers/types.d.ts').Message[]} */ ([
    { role: 'user', content: 'look' },
    { role: 'assistant', content: '', toolCalls: [{ id: 's1', name: 'screenshot', arguments: {} }] },
    { role: 'tool', toolCallId: 's1', content: 'saved', images: [img] },
  ]);
  const openai = /** @type {import('../../web/providers/openai.js').OpenAIProvider} */ (
    createProvider({ provider: 'openai', apiKey: 'k' })
  );
  const body = /** @type {any} */ (openai.buildBody({ messages: msgs }));
  assert.deepEqual(
    body.messages.map((/** @type {any} */ m) => m.role),
    ['user', 'assistant', 'tool', 'user'],
  );
  assert.equal(body.messages[3].content[1].image_url.url, img.dataUrl);
  const wire = /** @type {any} */ (toWireMessages(msgs));
  assert.deepEqual(wire[2].content[0].content[1], { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } });
  assert.equal(openai.supportsVision, true);
  assert.equal(createProvider({ provider: 'groq', apiKey: 'k' }).supportsVision, false);
});
