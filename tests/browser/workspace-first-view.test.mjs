// The first view of a workspace's chat: opened on `#workspace/{id}`, the page shows the
// conversation list and the open conversation's messages from a read-only view of OPFS, before
// the app's modules have loaded; the app's own view then takes their place, keeping what was
// typed and the focus, and runs what was used meanwhile. app.js is held back by the test so the
// "before" can be observed (each test in its own profile: no service worker answers instead).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appView } from './helpers.mjs';
import { useFixture } from './fixture.mjs';
import { waitUntil } from '../fixtures/wait.mjs';

// Each test starts a browser of its own.
const fx = await useFixture({ browser: false });
const { app } = fx;

const HOUR = 3_600_000;

/**
 * A fresh profile holding what a previous visit leaves: workspace Alpha (provider Echo) with three
 * conversations and their saved list, Beta with none. app.js is answered only once `release`
 * is called.
 * @param {{tornLine?: boolean, files?: Record<string, string>, provider?: boolean}} [options] tornLine: the newest conversation's log
 *   ends with half a line (a tab closed mid-write); provider: false leaves Alpha without a provider chosen;
 *   files: written over the others afterwards (a path in Alpha's conversations folder → its text), e.g. a damaged one
 */
async function heldPage({ tornLine = false, files = {}, provider = true } = {}) {
  const own = await fx.launchBrowser();
  const page = await fx.newPage(own.context);
  const errors = /** @type {string[]} */ ([]);
  page.on('pageerror', (err) => errors.push(err.message));
  await page.goto(`${app.url}manifest.webmanifest`);
  await page.evaluate(
    async ({ HOUR, tornLine, files, provider }) => {
      const now = Date.now();
      localStorage.setItem(
        'clawser_workspaces',
        JSON.stringify([
          { id: 'walpha', name: 'Alpha', createdAt: now - 48 * HOUR },
          { id: 'wbeta', name: 'Beta', createdAt: now - 24 * HOUR },
        ]),
      );
      if (provider) localStorage.setItem('clawser_config_walpha', JSON.stringify({ provider: 'echo', model: '', baseUrl: '' }));
      const root = await (await navigator.storage.getDirectory()).getDirectoryHandle('clawser_workspaces', { create: true });
      await root.getDirectoryHandle('wbeta', { create: true });
      const conversations = await (await root.getDirectoryHandle('walpha', { create: true })).getDirectoryHandle('.conversations', {
        create: true,
      });
      /** @param {FileSystemDirectoryHandle} dir @param {string} name @param {string} text */
      const write = async (dir, name, text) => {
        const w = await (await dir.getFileHandle(name, { create: true })).createWritable();
        await w.write(text);
        await w.close();
      };
      /** @type {Record<string, {id: string, title: string, createdAt: number, updatedAt: number}>} */
      const list = {};
      const specs = [
        { id: 'cnew', title: 'Newest talk', at: now - HOUR, say: ['What is **OPFS**?', 'The *origin private* file system.'] },
        { id: 'cmid', title: 'Middle talk', at: now - 2 * HOUR, say: ['Plan the trip', 'Start with the train.'] },
        { id: 'cold', title: 'Oldest talk', at: now - 3 * HOUR, say: ['First words', 'Hello.'] },
      ];
      for (const s of specs) {
        const dir = await conversations.getDirectoryHandle(s.id, { create: true });
        const meta = { id: s.id, title: s.title, createdAt: s.at, updatedAt: s.at };
        list[s.id] = meta;
        const lines = s.say.map((text, k) =>
          JSON.stringify({
            id: `${s.id}-${k}`,
            type: k ? 'agent_message' : 'user_message',
            source: k ? 'agent' : 'user',
            timestamp: s.at + k,
            data: { text },
          }),
        );
        await write(dir, 'events.jsonl', `${lines.join('\n')}\n${tornLine && s.id === 'cnew' ? '{"id":"cnew-2","type":"user_me' : ''}`);
        await write(dir, 'meta.json', JSON.stringify(meta));
      }
      await write(conversations, 'list.json', JSON.stringify({ version: 1, conversations: list }));
      for (const [path, text] of Object.entries(files)) {
        const parts = path.split('/');
        const name = /** @type {string} */ (parts.pop());
        let dir = conversations;
        for (const p of parts) dir = await dir.getDirectoryHandle(p, { create: true });
        await write(dir, name, text);
      }
    },
    { HOUR, tornLine, files, provider },
  );
  /** @type {() => void} */
  let release = () => {};
  const held = new Promise((resolve) => (release = () => resolve(undefined)));
  let asked = false;
  /** @type {() => void} */
  let onAsked = () => {};
  // main.js asks for app.js once the first view is painted or given up.
  const requested = new Promise((resolve) => (onAsked = () => resolve(undefined)));
  await page.route('**/web/app/app.js', async (route) => {
    asked = true;
    onAsked();
    await held;
    await route.continue();
  });
  return { page, close: () => own.close(), release, asked: () => asked, requested, errors };
}

/** @param {import('playwright-core').Page} page */
const appStarted = (page) => page.evaluate(() => !!document.querySelector('.banners'));
/** @param {import('playwright-core').Page} page */
const messages = (page) => page.locator('.messages');

test("opened on a workspace, its conversations and the latest one's messages show before app.js has loaded; \
the app's view takes over with what was typed and the focus", async () => {
  const { page, close, release, asked, errors } = await heldPage();
  try {
    await page.goto(`${app.url}#workspace/walpha`);
    await page.getByRole('heading', { name: 'Alpha', level: 1 }).waitFor();
    await messages(page).getByText('The origin private file system.').waitFor();
    // The first view may paint before the browser gets round to asking for app.js: waited for.
    assert.equal(await waitUntil(() => asked(), 'app.js asked for'), true, 'app.js was asked for');
    assert.equal(await appStarted(page), false, 'painted without the app');
    assert.equal(await page.locator('.workspace[data-first-view]').count(), 1, 'marked as the first view');
    // The Markdown is rendered as the app renders it.
    assert.equal(await messages(page).locator('em').first().innerText(), 'origin private');
    const list = page.getByRole('navigation', { name: 'Conversations' });
    for (const title of ['Newest talk', 'Middle talk', 'Oldest talk']) await list.getByText(title).waitFor();
    assert.equal(await page.evaluate(() => performance.getEntriesByName('clawser-interactive').length), 1);
    // Typed before the app is in.
    const composer = page.getByRole('textbox', { name: 'Message' });
    await composer.click();
    await composer.pressSequentially('half a thought');
    const painted = await composer.elementHandle();
    release();
    await appView(page);
    // The app's own view, with the text and the focus carried over.
    assert.equal(
      await page.evaluate((old) => document.querySelector('textarea.composer-input') !== old, painted),
      true,
      'another composer',
    );
    assert.equal(await composer.inputValue(), 'half a thought');
    assert.equal(await composer.evaluate((el) => el === document.activeElement), true, 'the composer keeps the focus');
    assert.equal(
      await page
        .evaluate(() => {
          const el = /** @type {HTMLTextAreaElement} */ (document.activeElement);
          return [el.selectionStart, el.selectionEnd];
        })
        .then(String),
      '14,14',
      'and the caret',
    );
    await messages(page).getByText('The origin private file system.').waitFor();
    assert.equal(await page.evaluate(() => document.querySelectorAll('.workspace').length), 1, 'one workspace view');
    // It works: sending goes through the app's controller.
    await composer.pressSequentially(' finished');
    await composer.press('Enter');
    await messages(page).getByText('half a thought finished').nth(1).waitFor();
    assert.match(page.url(), /#workspace\/walpha\/conversation\/cnew/);
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('a message sent and a conversation chosen before the app is in are run once it is', async () => {
  const { page, close, release } = await heldPage();
  try {
    await page.goto(`${app.url}#workspace/walpha/conversation/cmid`);
    await messages(page).getByText('Start with the train.').waitFor();
    const composer = page.getByRole('textbox', { name: 'Message' });
    await composer.fill('sent early');
    await composer.press('Enter');
    // One turn waits for the app; the view is busy until then, so a second is not taken.
    await composer.fill('not yet');
    await composer.press('Enter');
    assert.equal(await composer.inputValue(), 'not yet');
    assert.equal(await appStarted(page), false);
    release();
    // Sent in the conversation on screen, by the app, once; the second text waits in the composer.
    await messages(page).getByText('sent early').nth(1).waitFor();
    assert.equal(await composer.inputValue(), 'not yet');
    assert.equal(await messages(page).getByText('not yet').count(), 0);
    await messages(page).getByText('Start with the train.').waitFor();
    assert.equal(
      await page
        .evaluate(async () => {
          const dir = await (
            await (
              await (await (await navigator.storage.getDirectory()).getDirectoryHandle('clawser_workspaces')).getDirectoryHandle('walpha')
            ).getDirectoryHandle('.conversations')
          ).getDirectoryHandle('cmid');
          return (await (await dir.getFileHandle('events.jsonl')).getFile()).text();
        })
        .then((text) => text.includes('"sent early"')),
      true,
      'written to its log',
    );
  } finally {
    await close();
  }
  const second = await heldPage();
  try {
    await second.page.goto(`${app.url}#workspace/walpha`);
    await messages(second.page).getByText('The origin private file system.').waitFor();
    await second.page.getByRole('navigation', { name: 'Conversations' }).getByText('Oldest talk').click();
    second.release();
    await second.page.waitForURL(/#workspace\/walpha\/conversation\/cold/);
    await messages(second.page).getByText('First words').waitFor();
    assert.equal(await messages(second.page).getByText('The origin private file system.').count(), 0);
  } finally {
    await second.close();
  }
  // The address changes before the app is in: the app opens that conversation, and the message
  // sent on the painted one is not sent anywhere but put back into the composer.
  const third = await heldPage();
  try {
    await third.page.goto(`${app.url}#workspace/walpha`);
    await messages(third.page).getByText('The origin private file system.').waitFor();
    const composer = third.page.getByRole('textbox', { name: 'Message' });
    await composer.fill('meant for the newest');
    await composer.press('Enter');
    await third.page.evaluate(() => {
      location.hash = '#workspace/walpha/conversation/cold';
    });
    third.release();
    await messages(third.page).getByText('First words').waitFor();
    await third.page.locator('.banners').waitFor({ state: 'attached' });
    await third.page.waitForFunction(
      () => /** @type {HTMLTextAreaElement | null} */ (document.querySelector('textarea.composer-input'))?.value === 'meant for the newest',
    );
    const logs = await third.page.evaluate(async () => {
      const dir = await (
        await (await (await navigator.storage.getDirectory()).getDirectoryHandle('clawser_workspaces')).getDirectoryHandle('walpha')
      ).getDirectoryHandle('.conversations');
      const read = async (/** @type {string} */ id) =>
        (await (await (await dir.getDirectoryHandle(id)).getFileHandle('events.jsonl')).getFile()).text();
      return (await read('cnew')) + (await read('cold'));
    });
    assert.equal(logs.includes('meant for the newest'), false, 'sent nowhere');
  } finally {
    await third.close();
  }
});

test("a conversation's row menu opened before the app is in stays open, its focused item focused, \
and acts once the app is in", async () => {
  const { page, close, release } = await heldPage();
  try {
    await page.goto(`${app.url}#workspace/walpha`);
    const list = page.getByRole('navigation', { name: 'Conversations' });
    await list.getByRole('link', { name: /Oldest talk/ }).waitFor();
    const more = list.getByRole('button', { name: 'More actions for Oldest talk' });
    await more.click();
    await page.keyboard.press('ArrowDown');
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label'));
    assert.equal(await focused(), 'Rename conversation Oldest talk');
    assert.equal(await appStarted(page), false);
    release();
    await page.locator('.banners').waitFor({ state: 'attached' });
    // The app's own list (the painted one is gone): its menu is the one open.
    await page.waitForFunction(() => performance.getEntriesByName('clawser-app-ready').length > 0);
    assert.equal(await more.getAttribute('aria-expanded'), 'true', 'still open');
    assert.equal(await focused(), 'Rename conversation Oldest talk', 'the same item has the focus');
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Rename conversation' });
    await dialog.getByLabel('Conversation title').fill('Oldest, renamed');
    await dialog.getByRole('button', { name: 'Rename' }).click();
    await list.getByRole('link', { name: /Oldest, renamed/ }).waitFor();
  } finally {
    await close();
  }
});

test("a panel's keyboard shortcut pressed before the app is in opens the panel once it is", async () => {
  const { page, close, release } = await heldPage();
  try {
    await page.goto(`${app.url}#workspace/walpha`);
    await messages(page).getByText('The origin private file system.').waitFor();
    await page.keyboard.press('Alt+Digit1');
    assert.equal(await appStarted(page), false);
    release();
    await page.waitForURL(/#workspace\/walpha\/files/);
    await page
      .getByRole('navigation', { name: 'Workspace panels' })
      .getByRole('button', { name: 'Files', exact: true })
      .and(page.locator('[aria-current="page"]'))
      .waitFor();
  } finally {
    await close();
  }
});

test('the first view never writes: a log whose last line is torn is left to the app, which repairs it and says so', async () => {
  const { page, close, release, requested } = await heldPage({ tornLine: true });
  try {
    await page.goto(`${app.url}#workspace/walpha`);
    await requested;
    const size = () =>
      page.evaluate(async () => {
        const dir = await (
          await (
            await (await (await navigator.storage.getDirectory()).getDirectoryHandle('clawser_workspaces')).getDirectoryHandle('walpha')
          ).getDirectoryHandle('.conversations')
        ).getDirectoryHandle('cnew');
        return (await (await dir.getFileHandle('events.jsonl')).getFile()).size;
      });
    const torn = await size();
    // The same workspace without the torn line is painted (the first test); this one is not.
    assert.equal(await page.evaluate(() => performance.getEntriesByName('clawser-interactive').length), 0);
    assert.equal(await page.getByRole('heading', { name: 'Alpha', level: 1 }).count(), 0);
    assert.equal(await size(), torn, 'not repaired before the app is in');
    release();
    await page.getByText(/its last entry was incomplete/).waitFor();
    assert.ok((await size()) < torn, 'the app cut the torn line');
    await messages(page).getByText('The origin private file system.').waitFor();
  } finally {
    await close();
  }
});

test('a damaged file never makes the first view throw: damaged details or a snapshot of the wrong shape are painted around, \
a damaged list is left to the app; the app then says what it found', async () => {
  /** @type {{files: Record<string, string>, painted: boolean, names: RegExp}[]} */
  const cases = [
    {
      files: { 'cnew/meta.json': '{"id":"cnew","title":"New' },
      painted: true,
      names: /Conversation “Newest talk”: its details \(meta\.json\)/,
    },
    {
      files: { 'cnew/snapshot.json': JSON.stringify({ version: 1, eventCount: 2, byteLength: 10, history: [5, { role: 'user' }] }) },
      painted: true,
      names: /Conversation “Newest talk”: its snapshot/,
    },
    { files: { 'list.json': '\u0000\u00ff garbage' }, painted: false, names: /list of conversations \(list\.json\)/ },
  ];
  for (const c of cases) {
    const { page, close, release, requested, errors } = await heldPage({ files: c.files });
    try {
      await page.goto(`${app.url}#workspace/walpha`);
      await requested;
      if (c.painted) {
        await page.locator('.workspace[data-first-view]').getByRole('heading', { name: 'Alpha', level: 1 }).waitFor();
        await messages(page).getByText('The origin private file system.').waitFor();
        await page.getByRole('navigation', { name: 'Conversations' }).getByText('Middle talk').waitFor();
      } else {
        assert.equal(await page.locator('.workspace[data-first-view]').count(), 0, 'a damaged list is not painted as an empty one');
      }
      assert.deepEqual(errors, [], Object.keys(c.files)[0]);
      release();
      await appView(page);
      await page.locator('[data-banner="damaged-files"]').filter({ hasText: c.names }).waitFor();
      for (const title of ['Newest talk', 'Middle talk', 'Oldest talk'])
        await page.getByRole('navigation', { name: 'Conversations' }).getByText(title).waitFor();
      await messages(page).getByText('The origin private file system.').waitFor();
      assert.deepEqual(errors, [], Object.keys(c.files)[0]);
    } finally {
      await close();
    }
  }
});

test('a workspace without a provider: the first view paints the provider card above its messages, then the app its own', async () => {
  const { page, close, release, asked, errors } = await heldPage({ provider: false });
  try {
    await page.goto(`${app.url}#workspace/walpha`);
    const card = page.getByRole('heading', { name: 'Choose how Clawser thinks' });
    await card.waitFor();
    await messages(page).getByText('The origin private file system.').waitFor();
    assert.equal(await waitUntil(() => asked(), 'app.js asked for'), true, 'app.js was asked for');
    assert.equal(await appStarted(page), false, 'painted without the app');
    assert.equal(await page.locator('.workspace[data-first-view] .messages li.setup').count(), 1, 'the card is in the painted list');
    assert.equal(
      await page.evaluate(() => document.querySelector('.workspace[data-first-view] .messages > li')?.classList.contains('setup')),
      true,
      'above the messages',
    );
    assert.equal(await page.getByRole('textbox', { name: 'Message' }).isDisabled(), true, 'nothing to send with yet');
    release();
    await appView(page);
    await card.waitFor();
    assert.equal(await page.locator('.messages li.setup').count(), 1, "the app's card, once");
    assert.deepEqual(errors, []);
  } finally {
    await close();
  }
});

test('opened on another panel, or on a workspace without a saved list, nothing is painted early', async () => {
  for (const [hash, heading] of [
    ['#workspace/walpha/files', 'Alpha'],
    ['#workspace/wbeta', 'Beta'],
  ]) {
    const { page, close, release, requested } = await heldPage();
    try {
      await page.goto(`${app.url}${hash}`);
      await requested;
      assert.equal(await page.evaluate(() => document.querySelector('#app p.boot') !== null), true, hash);
      assert.equal(await page.getByRole('heading', { name: heading, level: 1 }).count(), 0, hash);
      release();
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
    } finally {
      await close();
    }
  }
});
