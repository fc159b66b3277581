// Issue 38 §1: Clawser's side of the companion extension — the client checks every answer with
// zod and names a missing extension as such (with how to install it); the tab tools keep to the
// user's site lists before anything is read, taint the turn, and explain how to install the
// extension when it is not there. The extension itself in a real browser: tests/browser/extension.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CompanionClient, CompanionError, COMPANION_ID, INSTALL_HELP } from '../../web/net/companion.js';
import { family, siteOf, siteRefusal } from '../../web/tools/tabs.js';
import { familyProblems, TOOL_FAMILIES } from '../../web/tools/families.js';
import { toolSettings } from '../../web/tools/index.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { SafetyPipeline } from '../../web/safety/pipeline.js';

/**
 * A stand-in for the page's `chrome.runtime`: answers each message with `answer(message)`, or sets
 * lastError as Chrome does when no extension has the id.
 * @param {(message: any) => unknown} answer @param {string} [lastError]
 */
function runtime(answer, lastError) {
  /** @type {any[]} */
  const sent = [];
  const rt = {
    sent,
    /** @type {{message?: string} | undefined} */
    lastError: undefined,
    /** @param {string} id @param {any} message @param {(reply: unknown) => void} callback */
    sendMessage(id, message, callback) {
      sent.push({ id, message });
      queueMicrotask(() => {
        rt.lastError = lastError ? { message: lastError } : undefined;
        callback(lastError ? undefined : answer(message));
        rt.lastError = undefined;
      });
    },
  };
  return rt;
}

const TABS = [
  { tabId: 5, windowId: 1, active: true, title: 'An article', url: 'https://news.example.com/a', openedByAgent: false },
  { tabId: 6, windowId: 1, active: false, title: 'My bank', url: 'https://www.mybank.com/account', openedByAgent: false },
];
const ready = { waitMs: 3, timedOut: false };

/** A client over a fake extension that lists TABS and reads any tab. @param {Record<string, (p: any) => unknown>} [more] */
function fakeClient(more = {}) {
  const rt = runtime((m) => {
    if (more[m.command]) return more[m.command](m.params);
    if (m.command === 'tabs_list') return { ok: true, result: { tabs: TABS, otherTabs: 1 } };
    if (m.command === 'tab_read')
      return {
        ok: true,
        result: {
          tabId: m.params.tabId,
          title: 'An article',
          url: TABS[0].url,
          selection: '',
          text: 'x'.repeat(50),
          offset: 0,
          total: 120,
          readiness: ready,
        },
      };
    return { ok: false, error: { code: 'unknown_command', message: 'no' } };
  });
  const client = new CompanionClient({ runtime: () => rt, session: 'test-session-1' });
  return { rt, client };
}

/** @param {Partial<import('../../web/tools/types.d.ts').ToolContext>} extra @param {Record<string, unknown>} [settings] */
const ctxOf = (extra, settings = {}) =>
  /** @type {import('../../web/tools/types.d.ts').ToolContext} */ ({
    workspaceId: 'ws',
    fs: new MemoryFileSystem(),
    fetch: globalThis.fetch,
    settings: toolSettings(settings),
    ...extra,
  });

const tool = (/** @type {string} */ name) => {
  const t = family.tools?.find((x) => x.name === name);
  if (!t) throw new Error(`no tool ${name}`);
  return t;
};

test('the tabs family is registered and complete; every tool asks by default; what carries page content taints the turn', () => {
  assert.deepEqual(familyProblems(family), []);
  assert.ok(TOOL_FAMILIES.includes(family));
  assert.deepEqual(
    family.tools?.map((t) => [t.name, t.permission, Boolean(t.untrusted)]),
    [
      ['tabs_list', 'browser', true],
      ['tab_read', 'browser', true],
      ['tab_screenshot', 'browser', true],
      ['tab_navigate', 'browser', true],
      ['tab_click', 'browser', true],
      ['tab_type', 'browser', true],
      ['tab_open', 'browser', true],
      ['tab_close', 'browser', false],
    ],
  );
});

test('the client: no chrome.runtime, or no extension with the id, is not_installed with how to install it', async () => {
  const none = new CompanionClient({ runtime: () => undefined });
  await assert.rejects(none.call('hello'), (/** @type {any} */ e) => e instanceof CompanionError && e.code === 'not_installed');
  const missing = new CompanionClient({
    runtime: () => runtime(() => null, 'Could not establish connection. Receiving end does not exist.'),
  });
  await assert.rejects(missing.call('hello'), (/** @type {any} */ e) => e.code === 'not_installed' && e.message === INSTALL_HELP);
  assert.match(INSTALL_HELP, /Load unpacked/);
  assert.match(INSTALL_HELP, /docs\/extension\.md/);
  // Clawser's own words reach the model as they are: nothing in them looks like an injected instruction.
  assert.deepEqual(new SafetyPipeline({}).checkToolResult(INSTALL_HELP, 'tabs_list').flags, []);
  assert.deepEqual(await none.status(), { state: 'missing', id: COMPANION_ID, message: INSTALL_HELP });
});

test('the client sends {v, session, command, params} to the id, and checks the answer: an error keeps its code, a bad form is \
refused', async () => {
  const { rt, client } = fakeClient({
    hello: () => ({
      ok: true,
      result: { protocol: 1, version: '0.1.0', commands: ['hello'], schemes: ['http'], clawserOrigins: ['x'], agentTabs: 0 },
    }),
    tab_close: () => ({ ok: false, error: { code: 'not_owned', message: 'Tab 6 was not opened by the agent.', hint: 'Ask the user.' } }),
    tab_open: () => ({ ok: true, result: { tabId: 'seven' } }),
  });
  const status = await client.status();
  assert.equal(status.state, 'connected');
  assert.deepEqual(rt.sent[0], { id: COMPANION_ID, message: { v: 1, session: 'test-session-1', command: 'hello', params: {} } });
  await assert.rejects(
    client.call('tab_close', { tabId: 6 }),
    (/** @type {any} */ e) => e.code === 'not_owned' && e.hint === 'Ask the user.',
  );
  await assert.rejects(client.call('tab_open', { url: 'https://x.org/' }), (/** @type {any} */ e) => e.code === 'bad_reply');
  const odd = new CompanionClient({ runtime: () => runtime(() => 'hello there') });
  await assert.rejects(odd.call('hello'), (/** @type {any} */ e) => e.code === 'bad_reply');
  client.close();
  // Another id (a Web Store copy) is asked when the settings name one.
  const other = new CompanionClient({ runtime: () => rt, extensionId: () => 'a'.repeat(32) });
  await other.status();
  assert.equal(rt.sent.at(-1).id, 'a'.repeat(32));
  other.close();
});

test('siteRefusal: http(s) only; a denied site and its subdomains never; with an allow list, only its sites', () => {
  const lists = (/** @type {string[]} */ allow, /** @type {string[]} */ deny) => ({ tabSitesAllow: allow, tabSitesDeny: deny });
  assert.equal(siteRefusal('https://news.example.com/a', lists([], [])), null);
  assert.match(String(siteRefusal('file:///etc/passwd', lists([], []))), /Only http and https/);
  assert.match(String(siteRefusal('https://www.mybank.com/', lists([], ['mybank.com']))), /may not read or act on/);
  assert.equal(siteRefusal('https://notmybank.com/', lists([], ['mybank.com'])), null, 'a suffix that is not a subdomain is not denied');
  assert.match(String(siteRefusal('https://other.org/', lists(['example.com'], []))), /not on your list/);
  assert.equal(siteRefusal('https://news.example.com/', lists(['*.example.com'], [])), null);
  assert.match(String(siteRefusal('https://a.example.com/', lists(['example.com'], ['a.example.com']))), /may not/, 'deny wins');
  assert.equal(siteOf(' https://Docs.Example.com/path '), 'docs.example.com');
  assert.equal(siteOf('example.com:8080/x'), 'example.com');
});

test('the tools without the extension explain how to install it (and run nothing)', async () => {
  for (const t of family.tools ?? []) {
    const args =
      t.name === 'tab_open'
        ? { url: 'https://x.org/' }
        : t.name === 'tabs_list'
          ? {}
          : { tabId: 1, url: 'https://x.org/', name: 'a', text: '' };
    const r = await t.run(args, ctxOf({}));
    assert.equal(r.ok, false, t.name);
    assert.equal(r.output, INSTALL_HELP, t.name);
  }
});

test('tabs_list hides the tabs of denied sites; tab_read of one is refused before the page is read (control: an allowed tab is \
read, paged)', async () => {
  const { rt, client } = fakeClient();
  const ctx = ctxOf({ companion: client }, { tabSitesDeny: ['mybank.com'] });
  const list = await tool('tabs_list').run({}, ctx);
  assert.match(list.output, /^5: An article — https:\/\/news\.example\.com\/a \[active\]$/m);
  assert.doesNotMatch(list.output, /bank/i);
  assert.match(list.output, /1 tab of sites your lists keep from the agent not shown/);
  const refused = await tool('tab_read').run({ tabId: 6 }, ctx);
  assert.equal(refused.ok, false);
  assert.match(refused.output, /www\.mybank\.com is on your list of sites the agent may not read/);
  assert.equal(rt.sent.filter((s) => s.message.command === 'tab_read').length, 0, 'the denied page is never read');
  const read = await tool('tab_read').run({ tabId: 5 }, ctx);
  assert.equal(read.ok, true);
  assert.match(read.output, /^# An article\nhttps:\/\/news\.example\.com\/a\n/);
  assert.match(read.output, /characters 0–50 of 120: read on with offset 50/);
  assert.deepEqual(rt.sent.filter((s) => s.message.command === 'tab_read')[0].message.params, { tabId: 5, offset: 0, maxChars: 20_000 });
  client.close();
});

test('tab_open and tab_navigate refuse a non-web scheme and a denied site before asking the extension', async () => {
  const { rt, client } = fakeClient();
  const ctx = ctxOf({ companion: client }, { tabSitesDeny: ['mybank.com'] });
  for (const [name, args] of /** @type {const} */ ([
    ['tab_open', { url: 'javascript:alert(1)' }],
    ['tab_open', { url: 'https://mybank.com/' }],
    ['tab_navigate', { tabId: 5, url: 'file:///etc/passwd' }],
    ['tab_navigate', { tabId: 5, url: 'https://login.mybank.com/' }],
  ])) {
    const r = await tool(name).run(args, ctx);
    assert.equal(r.ok, false, `${name} ${args.url}`);
  }
  assert.equal(rt.sent.length, 0);
  client.close();
});

test('tab_click and tab_type take a name or a selector, exactly one (the schema says so before anything runs)', () => {
  for (const name of ['tab_click', 'tab_type']) {
    const schema = tool(name).schema;
    assert.equal(schema.safeParse({ tabId: 1, text: 'x' }).success, false, name);
    assert.equal(schema.safeParse({ tabId: 1, text: 'x', name: 'Search', selector: '#q' }).success, false, name);
    assert.equal(schema.safeParse({ tabId: 1, text: 'x', name: 'Search' }).success, true, name);
  }
});
