// The conversation list as a whole hides and shows again on desktop (issue 37 §2, "collapsible on
// desktop"): a top-bar toggle named "Conversation list" with aria-expanded and aria-controls, usable
// by keyboard and from the command palette; the chat takes the width; the choice is remembered per
// workspace across reloads; the focus never stays in the hidden list; at 360 px the list is still
// the drawer behind the "Conversations" button.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useFixture } from './fixture.mjs';
import { seriousViolationsEach } from './axe.mjs';

const { app, page } = await useFixture({ settings: { provider: 'echo' }, browser: { viewport: { width: 1280, height: 800 } } });

const list = page.getByRole('navigation', { name: 'Conversations' });
const toggle = () => page.getByRole('button', { name: 'Conversation list', exact: true });
const palette = () => page.getByRole('dialog', { name: 'Command palette' });
/** The chat's width on screen. */
const chatWidth = async () => /** @type {{width: number}} */ (await page.locator('main#main').boundingBox()).width;
/** Whether the focused element is on screen (not the page itself, not inside something hidden). */
const focusShown = () =>
  page.evaluate(() => {
    const el = document.activeElement;
    return !!el && el !== document.body && el.checkVisibility();
  });
/** Runs the palette's first match for `query`, checking its label. @param {string} query @param {RegExp} label */
const run = async (query, label) => {
  await page.keyboard.press('Control+k');
  await palette().getByRole('combobox', { name: 'Search actions' }).fill(query);
  assert.match((await palette().getByRole('option').first().innerText()).split('\n')[0], label);
  await page.keyboard.press('Enter');
  await palette().waitFor({ state: 'detached' });
};

test('1280 px: the toggle hides and shows the whole list by keyboard; the chat takes the width; remembered per workspace', async () => {
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  await list.getByRole('button', { name: 'New conversation' }).waitFor();
  assert.equal(await toggle().getAttribute('aria-expanded'), 'true');
  const controls = await toggle().getAttribute('aria-controls');
  assert.equal(await list.getAttribute('id'), controls, 'it controls the list');
  const before = await chatWidth();

  await toggle().focus();
  await page.keyboard.press('Enter');
  await list.waitFor({ state: 'hidden' });
  assert.equal(await toggle().getAttribute('aria-expanded'), 'false');
  assert.ok((await chatWidth()) > before + 200, `the chat takes the width (${before} → ${await chatWidth()})`);
  assert.equal(await toggle().evaluate((el) => el === document.activeElement), true, 'the focus stays on the toggle');
  // The hidden state in light and dark, at 1280 and 360 px (where the drawer button stands in for the toggle).
  assert.deepEqual(await seriousViolationsEach(page, 'header.topbar', page.locator('header.topbar')), []);
  assert.equal(await toggle().getAttribute('aria-expanded'), 'false', 'still hidden after the scans');

  await page.reload();
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  assert.equal(await toggle().getAttribute('aria-expanded'), 'false', 'remembered across a reload');
  assert.equal(await list.isVisible(), false);

  // Another workspace has its own choice: its list shows.
  const first = page.url();
  const firstName = await page.getByRole('heading', { level: 1 }).innerText();
  await page.goto(app.url);
  await page.getByRole('button', { name: 'New workspace' }).click();
  await page.getByRole('dialog').getByLabel('Workspace name').fill('Second desk');
  await page.getByRole('dialog').getByLabel('Workspace name').press('Enter');
  await page.getByRole('heading', { name: 'Second desk', level: 1 }).waitFor();
  await list.getByRole('button', { name: 'New conversation' }).waitFor();
  assert.equal(await toggle().getAttribute('aria-expanded'), 'true', 'the other workspace shows its list');
  // Back by the address (a hash change): the second workspace's chat is on screen until the first's is drawn.
  await page.goto(first);
  await page.getByRole('heading', { name: firstName, level: 1 }).waitFor();
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  assert.equal(await toggle().getAttribute('aria-expanded'), 'false', 'and the first keeps it hidden');

  await toggle().focus();
  await page.keyboard.press('Space');
  await list.getByRole('button', { name: 'New conversation' }).waitFor();
  assert.equal(await toggle().getAttribute('aria-expanded'), 'true');
  assert.ok(Math.abs((await chatWidth()) - before) < 2, 'the chat is back to its width');
});

test('1280 px: the palette hides and shows the list; the focus leaves the list as it hides; search shows it again', async () => {
  await list.getByRole('searchbox', { name: 'Search conversations' }).focus();
  await run('hide conversation list', /^Hide the conversation list$/);
  await list.waitFor({ state: 'hidden' });
  assert.equal(await toggle().getAttribute('aria-expanded'), 'false');
  assert.equal(await focusShown(), true, 'the focus is not lost in the hidden list');
  assert.equal(await toggle().evaluate((el) => el === document.activeElement), true, 'it is on the toggle');

  await run('show conversation list', /^Show the conversation list$/);
  await list.waitFor();
  assert.equal(await toggle().getAttribute('aria-expanded'), 'true');

  await run('hide conversation list', /^Hide the conversation list$/);
  await list.waitFor({ state: 'hidden' });
  // Searching the conversations shows the list with the focus in its search box.
  await run('search conversations', /^Search conversations/);
  await list.waitFor();
  assert.equal(await list.getByRole('searchbox', { name: 'Search conversations' }).evaluate((el) => el === document.activeElement), true);
  assert.equal(await toggle().getAttribute('aria-expanded'), 'true');
});

test('360 px: the list is the drawer behind "Conversations" as before, even when hidden on desktop', async () => {
  await toggle().click();
  await list.waitFor({ state: 'hidden' });
  await page.reload(); // the drawer closed (the search above opened it)
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  await page.setViewportSize({ width: 360, height: 740 });
  assert.equal(await toggle().isVisible(), false, 'no desktop toggle on a phone');
  const drawer = page.getByRole('button', { name: 'Conversations', exact: true });
  assert.equal(await drawer.getAttribute('aria-expanded'), 'false');
  await drawer.click();
  await list.getByRole('button', { name: 'New conversation' }).waitFor();
  assert.equal(await drawer.getAttribute('aria-expanded'), 'true');
  const box = /** @type {{x: number, width: number}} */ (await list.boundingBox());
  assert.ok(box.x >= 0 && box.x + box.width <= 360, `the drawer is on screen (${JSON.stringify(box)})`);
  await drawer.click();
  await list.waitFor({ state: 'hidden' });
  // Back to a wide window: the list is as it was left there.
  await page.setViewportSize({ width: 1280, height: 800 });
  assert.equal(await toggle().getAttribute('aria-expanded'), 'false');
  assert.equal(await list.isVisible(), false);
  await toggle().click();
  await list.waitFor();
});
