// The conversation list (issue 37 §2): grouped by the day of last activity (Today, Yesterday,
// Previous 7 days, Older), a Pinned group on top that survives a reload, sub-agents' and
// scheduled jobs' conversations apart, each group folded by its heading; a long title readable
// (not cut by always-visible buttons); the row's actions in a "More" menu shown on hover and
// focus, reachable and usable by keyboard; axe finds no serious violation, at 1280 and 360 px.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useFixture } from './fixture.mjs';
import { seriousViolations } from './axe.mjs';

const { page } = await useFixture({ settings: { provider: 'echo' }, browser: { viewport: { width: 1280, height: 800 } } });

const LONG = 'Planning the autumn walking route along the Cornish coast path';

// Conversations of several ages and kinds, written as the store writes them, then the page reloaded.
await page.evaluate(async (long) => {
  const { OpfsFileSystem } = await import('/web/clawser.js');
  const opfs = new OpfsFileSystem();
  const ws = location.hash.split('/')[1];
  const now = new Date();
  const day = (/** @type {number} */ back) => new Date(now.getFullYear(), now.getMonth(), now.getDate() - back, 12).getTime();
  const today = Math.min(Date.now() - 1000, day(0));
  const metas = [
    { id: 'ctoday', title: long, createdAt: today, updatedAt: today },
    { id: 'cyesterday', title: 'Yesterday tide tables', createdAt: day(1), updatedAt: day(1) },
    { id: 'cweek', title: 'Bread starter notes', createdAt: day(4), updatedAt: day(4) },
    { id: 'cold', title: 'Old tax questions', createdAt: day(40), updatedAt: day(40) },
    {
      id: 'cagent',
      title: '↳ @helper: Summarise tides',
      createdAt: today,
      updatedAt: today,
      titleSet: true,
      parent: { conversationId: 'ctoday', toolCallId: 'call1', agent: 'helper' },
    },
    { id: 'cjob', title: '⏰ Morning weather', createdAt: today, updatedAt: today, job: { id: 'job1', name: 'Morning weather' } },
  ];
  for (const m of metas) {
    const dir = `clawser_workspaces/${ws}/.conversations/${m.id}`;
    await opfs.write(`${dir}/events.jsonl`, '');
    await opfs.write(`${dir}/meta.json`, JSON.stringify(m));
  }
  opfs.terminate();
}, LONG);
await page.reload();
const list = page.getByRole('navigation', { name: 'Conversations' });
await list.getByRole('link', { name: /Old tax questions/ }).waitFor();

/** The group headings, in order. */
const headings = () => list.locator('.conv-group-toggle > span:not(.conv-group-count)').allInnerTexts();
/**
 * The titles listed under a group's heading: their text, which a row just drawn has before it is laid out (its
 * `content-visibility: auto` leaves innerText empty until then). @param {string} label
 */
const titlesIn = (label) =>
  list
    .locator('section.conv-group', { has: page.getByRole('button', { name: new RegExp(`^${label} \\d+$`) }) })
    .locator('.conv-title')
    .allTextContents();

/** Serious or critical axe violations in the conversation list. */
const violations = () => seriousViolations(page, '#conv-drawer');

/** How much of a title the row shows: its box, whether its text is cut, how many lines. @param {string} title */
const titleBox = (title) =>
  list.locator('.conv-title', { hasText: title }).evaluate((el) => ({
    width: el.getBoundingClientRect().width,
    cut: el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1,
    lines: Math.round(el.getBoundingClientRect().height / Number.parseFloat(getComputedStyle(el).lineHeight)),
  }));

test('1280 px: grouped by day, sub-agents and jobs apart; a long title is readable; groups fold', async () => {
  assert.deepEqual(await headings(), ['Today', 'Yesterday', 'Previous 7 days', 'Older', 'Sub-agents', 'Scheduled jobs']);
  assert.ok((await titlesIn('Today')).includes(LONG), 'the long title is today’s');
  assert.deepEqual(await titlesIn('Yesterday'), ['Yesterday tide tables']);
  assert.deepEqual(await titlesIn('Previous 7 days'), ['Bread starter notes']);
  assert.deepEqual(await titlesIn('Older'), ['Old tax questions']);
  // Titles stored with the emoji marks of old read without them; the list draws an icon instead (no emoji).
  assert.deepEqual(await titlesIn('Sub-agents'), ['@helper: Summarise tides']);
  assert.deepEqual(await titlesIn('Scheduled jobs'), ['Morning weather']);
  assert.ok(!(await titlesIn('Today')).includes('Morning weather'), 'a job’s conversation is not among today’s');
  const iconOf = (/** @type {string} */ title) =>
    list.locator('.conv-title', { hasText: title }).evaluate((el) => el.querySelector('svg.icon')?.getAttribute('data-icon') ?? null);
  assert.equal(await iconOf('@helper: Summarise tides'), 'corner-down-right');
  assert.equal(await iconOf('Morning weather'), 'alarm-clock');
  assert.equal(await iconOf('Bread starter notes'), null, 'control: a conversation of the person’s own has none');
  assert.doesNotMatch(await list.innerText(), /\p{Extended_Pictographic}|↳/u, 'no emoji and no arrow mark in the list');

  // The whole title shows (on three lines at most), not 14 characters and an ellipsis.
  const box = await titleBox(LONG);
  assert.equal(box.cut, false, `the long title is shown whole: ${JSON.stringify(box)}`);
  assert.ok(box.width > 200, `the title has the row's width (${box.width} px)`);
  // Control: the probe sees a cut title when the row is made narrow.
  const narrow = (/** @type {string} */ width) =>
    page.evaluate((w) => /** @type {HTMLElement} */ (document.querySelector('.sidebar')).style.setProperty('width', w, 'important'), width);
  await narrow('140px');
  assert.equal((await titleBox(LONG)).cut, true, 'control: a narrow row cuts it');
  await narrow('');
  assert.equal((await titleBox(LONG)).cut, false);

  // The More button is hidden until the row is hovered or focused.
  const more = list.getByRole('button', { name: 'More actions for Old tax questions' });
  assert.equal(await more.evaluate((el) => getComputedStyle(el).opacity), '0');
  await list.getByRole('link', { name: /Old tax questions/ }).hover();
  await page.waitForFunction(() => {
    const button = /** @type {Element} */ (document.querySelector('[aria-label="More actions for Old tax questions"]'));
    return getComputedStyle(button).opacity === '1';
  });

  // A group folds and unfolds by its heading.
  const older = list.getByRole('button', { name: /^Older \d+$/ });
  await older.click();
  assert.equal(await older.getAttribute('aria-expanded'), 'false');
  await list.getByRole('link', { name: /Old tax questions/ }).waitFor({ state: 'hidden' });
  await older.click();
  assert.equal(await older.getAttribute('aria-expanded'), 'true');
  await list.getByRole('link', { name: /Old tax questions/ }).waitFor();
  assert.deepEqual(await violations(), []);
});

test('keyboard: Tab reaches a row’s More button, its menu pins the conversation, and the pin survives a reload', async () => {
  await list.getByRole('link', { name: /Bread starter notes/ }).focus();
  await page.keyboard.press('Tab');
  const more = list.getByRole('button', { name: 'More actions for Bread starter notes' });
  assert.equal(await more.evaluate((el) => el === document.activeElement), true, 'Tab goes from the row to its More button');
  assert.equal(await more.evaluate((el) => getComputedStyle(el).opacity), '1', 'shown while focused');
  await page.keyboard.press('Enter');
  assert.equal(await more.getAttribute('aria-expanded'), 'true');
  const focused = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label'));
  assert.equal(await focused(), 'Pin conversation Bread starter notes', 'the menu’s first action has the focus');
  await page.keyboard.press('ArrowDown');
  assert.equal(await focused(), 'Rename conversation Bread starter notes');
  await page.keyboard.press('ArrowDown');
  assert.equal(await focused(), 'Tags of conversation Bread starter notes');
  await page.keyboard.press('ArrowDown');
  assert.equal(await focused(), 'Export conversation Bread starter notes');
  await page.keyboard.press('ArrowDown');
  assert.equal(await focused(), 'Delete conversation Bread starter notes');
  assert.deepEqual(await violations(), [], 'the open menu');
  await page.keyboard.press('Escape');
  assert.equal(await more.getAttribute('aria-expanded'), 'false');
  assert.equal(await focused(), 'More actions for Bread starter notes', 'Escape gives the focus back');

  // Control: not pinned yet.
  assert.equal(await list.getByRole('button', { name: /^Pinned \d+$/ }).count(), 0);
  await page.keyboard.press('Enter');
  await page.keyboard.press('Enter');
  await list.getByRole('button', { name: /^Pinned \d+$/ }).waitFor();
  assert.deepEqual(await titlesIn('Pinned'), ['Bread starter notes']);
  assert.equal((await headings())[0], 'Pinned', 'the pinned group is on top');
  assert.equal((await titlesIn('Previous 7 days')).length, 0, 'moved, not copied');

  await page.reload();
  await list.getByRole('button', { name: /^Pinned \d+$/ }).waitFor();
  assert.deepEqual(await titlesIn('Pinned'), ['Bread starter notes'], 'pinned after a reload');

  // Unpinned through the same menu: back among its day's.
  await list.getByRole('button', { name: 'More actions for Bread starter notes' }).click();
  await list.getByRole('button', { name: 'Unpin conversation Bread starter notes' }).click();
  await list.getByRole('button', { name: /^Pinned \d+$/ }).waitFor({ state: 'detached' });
  assert.deepEqual(await titlesIn('Previous 7 days'), ['Bread starter notes']);
});

test('360 px: in the drawer the long title is readable and the actions are reachable', async () => {
  await page.setViewportSize({ width: 360, height: 740 });
  await page.getByRole('button', { name: 'Conversations' }).click();
  await list.getByRole('link', { name: /Old tax questions/ }).waitFor();
  assert.equal((await titleBox(LONG)).cut, false, 'the long title is shown whole');
  await list.getByRole('link', { name: /Yesterday tide tables/ }).focus();
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  const rename = list.getByRole('button', { name: 'Rename conversation Yesterday tide tables' });
  await page.keyboard.press('ArrowDown');
  assert.equal(await rename.evaluate((el) => el === document.activeElement), true);
  assert.ok(await rename.isVisible());
  const box = /** @type {{x: number, width: number}} */ (await rename.boundingBox());
  assert.ok(box.x >= 0 && box.x + box.width <= 360, `the menu is on screen (${JSON.stringify(box)})`);
  assert.deepEqual(await violations(), []);
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Rename conversation' });
  await dialog.getByLabel('Conversation title').fill('Tides for Tuesday');
  await dialog.getByRole('button', { name: 'Rename' }).click();
  await list.getByRole('link', { name: /Tides for Tuesday/ }).waitFor();
});

test('a redraw while a row menu is open (a title changed elsewhere) keeps it open with the same item focused; \
control: a row gone takes its menu', async () => {
  const result = await page.evaluate(async () => {
    const { ConversationList } = await import('/web/ui/conversation-list-view.js');
    const noop = () => {};
    const list = ConversationList({ workspaceId: 'w', onSelect: noop, onPin: noop, onRename: noop, onExport: noop, onDelete: noop });
    document.body.append(list.root);
    const at = Date.now();
    const a = { id: 'a', title: 'Alpha', createdAt: at, updatedAt: at };
    const b = { id: 'b', title: 'Beta', createdAt: at - 1, updatedAt: at - 1 };
    // any: only the fields the list reads
    const state = (/** @type {object[]} */ conversations) => /** @type {any} */ ({ conversations, activeId: 'a' });
    const label = () => document.activeElement?.getAttribute('aria-label');
    const open = () => list.root.querySelector('.conv-more[aria-expanded="true"]')?.getAttribute('aria-label') ?? null;
    list.render(state([a, b]));
    /** @type {HTMLElement} */ (list.root.querySelector('[aria-label="More actions for Beta"]')).click();
    /** @type {HTMLElement} */ (list.root.querySelector('[aria-label="Rename conversation Beta"]')).focus();
    list.render(state([{ ...a, title: 'Alpha, renamed' }, b]));
    const kept = { open: open(), focused: label() };
    list.render(state([a]));
    const gone = { open: open() };
    list.root.remove();
    list.destroy();
    return { kept, gone };
  });
  assert.deepEqual(result.kept, { open: 'More actions for Beta', focused: 'Rename conversation Beta' });
  assert.deepEqual(result.gone, { open: null });
});
