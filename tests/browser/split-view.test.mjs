// Split view (issue 13): on wide screens the chat shows beside Files or Git, resizable by pointer
// and keyboard, remembered across reloads; a phone-sized window shows the panel alone. The
// artifact pane beside the chat resizes the same way and keeps its width.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sendMessage } from './helpers.mjs';
import { useFixture } from './fixture.mjs';
import { waitUntil } from '../fixtures/wait.mjs';

const { app, llm, browser, page } = await useFixture({
  llm: {},
  settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1` }),
});
await page.setViewportSize({ width: 1400, height: 850 });

const message = () => page.getByRole('textbox', { name: 'Message', exact: true });
const toggle = () => page.getByRole('button', { name: 'Chat beside this panel' });
const separator = () => page.getByRole('separator', { name: 'Resize the chat and Files' });
/** The chat pane's share of the split, in percent. */
const chatShare = () =>
  page.evaluate(() => {
    const split = /** @type {HTMLElement} */ (document.querySelector('.split'));
    const chat = /** @type {HTMLElement} */ (split.querySelector('.split-chat'));
    return Math.round((chat.getBoundingClientRect().width / split.getBoundingClientRect().width) * 100);
  });

test('Files beside the chat: both usable, resized by keyboard and pointer, remembered after a reload', async () => {
  await page.keyboard.press('Alt+1');
  await page.getByRole('heading', { name: 'Files', exact: true }).waitFor();
  assert.equal(await message().count(), 0, 'control: a panel alone replaces the chat');
  assert.equal(await toggle().getAttribute('aria-pressed'), 'false');
  await toggle().click();
  await message().waitFor();
  await page.getByRole('heading', { name: 'Files', exact: true }).waitFor();
  assert.equal(await toggle().getAttribute('aria-pressed'), 'true');
  assert.match(page.url(), /\/files$/, 'still the Files route');
  // The chat works in its half.
  llm.enqueue({ text: 'Hello beside the files.' });
  await sendMessage(page, 'hi');
  await page.locator('.msg.assistant:not(.streaming) .msg-body', { hasText: 'Hello beside the files.' }).waitFor();
  // Another conversation, chosen in the list, opens in the chat half; Files stays.
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  await page.getByText('Start the conversation: type a message below.').waitFor();
  assert.match(page.url(), /\/files$/, 'a new conversation keeps the panel');
  await page.getByRole('link', { name: /^hi/ }).click();
  await page.locator('.msg.assistant .msg-body', { hasText: 'Hello beside the files.' }).waitFor();
  assert.match(page.url(), /\/files$/, 'choosing one keeps the panel');
  await page.getByRole('heading', { name: 'Files', exact: true }).waitFor();

  assert.equal(await separator().getAttribute('aria-valuenow'), '50');
  await separator().focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.equal(await separator().getAttribute('aria-valuenow'), '60');
  assert.ok(Math.abs((await chatShare()) - 60) <= 2, `the chat takes 60% (${await chatShare()}%)`);
  const box = /** @type {{x: number, y: number, width: number, height: number}} */ (await page.locator('.split').boundingBox());
  const handle = /** @type {{x: number, y: number, width: number, height: number}} */ (await separator().boundingBox());
  await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.35, handle.y + handle.height / 2, { steps: 5 });
  await page.mouse.up();
  const dragged = Number(await separator().getAttribute('aria-valuenow'));
  assert.ok(Math.abs(dragged - 35) <= 2, `dragged to about 35% (${dragged})`);

  await page.reload();
  await separator().waitFor();
  assert.equal(Number(await separator().getAttribute('aria-valuenow')), dragged, 'the share is remembered');
  assert.ok(Math.abs((await chatShare()) - dragged) <= 2);
  await message().waitFor();

  // Git offers the same; a phone-sized window shows the panel alone.
  await page.keyboard.press('Alt+2');
  await page.getByRole('separator', { name: 'Resize the chat and Git' }).waitFor();
  await page.setViewportSize({ width: 700, height: 850 });
  await page.getByRole('heading', { name: 'Git', exact: true }).waitFor();
  assert.equal(await message().isVisible(), false, 'no cramped halves on a narrow window');
  await page.setViewportSize({ width: 1400, height: 850 });
  await message().waitFor();
  await toggle().click();
  await page.getByRole('heading', { name: 'Git', exact: true }).waitFor();
  await message().waitFor({ state: 'detached' });
  assert.equal(await toggle().getAttribute('aria-pressed'), 'false', 'off again');
  await page.reload();
  await page.getByRole('heading', { name: 'Git', exact: true }).waitFor();
  assert.equal(await toggle().getAttribute('aria-pressed'), 'false', 'off is remembered too');
});

test('the artifact pane beside the chat resizes and keeps its width', async () => {
  await page.keyboard.press('Alt+0');
  await message().waitFor();
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: /Settings/ });
  await dialog.getByLabel('Autonomy').selectOption('full');
  await dialog.getByRole('button', { name: 'Save', exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  llm.enqueue(
    { toolCalls: [{ id: 'a1', name: 'dom_modify', arguments: { selector: 'document', action: 'set_html', value: '<h1>Report</h1>' } }] },
    { text: 'Artifact shown.' },
  );
  await sendMessage(page, 'show a report');
  const pane = page.getByRole('complementary', { name: 'Artifact' });
  await pane.waitFor();
  const handle = page.getByRole('separator', { name: 'Resize the chat and the artifact' });
  assert.equal(await handle.getAttribute('aria-valuenow'), '45');
  await handle.focus();
  await page.keyboard.press('ArrowLeft');
  assert.equal(await handle.getAttribute('aria-valuenow'), '50', 'ArrowLeft moves the divider left: the artifact grows');
  const share = () =>
    page.evaluate(() => {
      const artifact = /** @type {HTMLElement} */ (document.querySelector('.artifact-pane'));
      const body = /** @type {HTMLElement} */ (document.querySelector('.workspace-body'));
      return Math.round((artifact.getBoundingClientRect().width / body.getBoundingClientRect().width) * 100);
    });
  assert.ok(Math.abs((await share()) - 50) <= 2, `the artifact takes half (${await share()}%)`);
  await page.getByText('Artifact shown.').waitFor();
  await page.keyboard.press('Alt+1');
  await page.keyboard.press('Alt+0');
  await pane.waitFor();
  assert.equal(await handle.getAttribute('aria-valuenow'), '50', 'kept');
});

test('a resize made just before a reload is kept although its write had not happened yet (another tab held the settings lock); \
once the lock is free it is written and no journal is left (control: the same with the lock free)', async () => {
  await page.setViewportSize({ width: 1400, height: 850 });
  await page.keyboard.press('Alt+1');
  await page.getByRole('heading', { name: 'Files', exact: true }).waitFor();
  if ((await toggle().getAttribute('aria-pressed')) === 'false') await toggle().click();
  const other = await browser.context.newPage();
  try {
    await other.goto(`${app.url}/manifest.webmanifest`);
    const journals = () => other.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('clawser_unsaved_changes.')).length);
    for (const held of [false, true]) {
      if (held) {
        // The other tab holds the lock every settings write takes, as a long write of its own would.
        await other.evaluate(
          () =>
            new Promise((taken) => {
              navigator.locks.request(
                'clawser:config',
                () =>
                  new Promise((release) => {
                    /** @type {any} */ (window).releaseConfig = release; // any: a handle for the test
                    taken(undefined);
                  }),
              );
            }),
        );
      }
      const from = Number(await separator().getAttribute('aria-valuenow'));
      await separator().focus();
      await page.keyboard.press(held ? 'ArrowLeft' : 'ArrowRight');
      const now = Number(await separator().getAttribute('aria-valuenow'));
      assert.notEqual(now, from);
      // The other tab sees this tab's localStorage a moment later (on a busy machine, not at once).
      if (held)
        assert.equal(
          await waitUntil(async () => (await journals()) || null, 'the other tab to see the journal'),
          1,
          'the unwritten change is journalled',
        );
      await page.reload();
      await separator().waitFor();
      assert.equal(
        Number(await separator().getAttribute('aria-valuenow')),
        now,
        held ? 'kept: made again from the journal' : 'control: kept',
      );
      if (held) await other.evaluate(() => /** @type {any} */ (window).releaseConfig()); // any: the handle set above
      await other.waitForFunction(() => Object.keys(localStorage).every((k) => !k.startsWith('clawser_unsaved_changes.')));
      await page.reload();
      await separator().waitFor();
      assert.equal(Number(await separator().getAttribute('aria-valuenow')), now, 'stored');
    }
  } finally {
    await other.close();
  }
});
