// Tags on conversations (issue 37 §2, "folders (or tags)"): set from a row's More menu ("Tags…", a
// small dialog suggesting the workspace's tags), shown on the row as chips beside a readable
// title, a tag filter above the list that hides the conversations without the tag and survives a
// reload, and the list's search and the command palette finding a conversation by its tag; axe
// finds no serious violation, at 1280 and 360 px.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useFixture } from './fixture.mjs';
import { seriousViolations } from './axe.mjs';

const { page } = await useFixture({ settings: { provider: 'echo' }, browser: { viewport: { width: 1280, height: 800 } } });

const LONG = 'Packing list for the long autumn walk along the Cornish coast path';

await page.evaluate(async (long) => {
  const { OpfsFileSystem } = await import('/web/clawser.js');
  const opfs = new OpfsFileSystem();
  const ws = location.hash.split('/')[1];
  const now = Date.now() - 60_000;
  const metas = [
    { id: 'ctrip', title: long, createdAt: now, updatedAt: now },
    { id: 'cbills', title: 'Electricity bills', createdAt: now - 1000, updatedAt: now - 1000 },
    { id: 'cbread', title: 'Bread starter notes', createdAt: now - 2000, updatedAt: now - 2000, tags: ['baking'] },
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
await list.getByRole('link', { name: /Electricity bills/ }).waitFor();
await page.locator('#app .workspace:not([data-first-view])').waitFor();

const filter = () => page.getByRole('combobox', { name: 'Show conversations tagged' });
const violations = () => seriousViolations(page, '#conv-drawer');
const bills = () => list.getByRole('link', { name: /Electricity bills/ });
const trip = () => list.getByRole('link', { name: /Packing list for the long autumn walk/ });

test('1280 px: tags set from the More menu (suggestions, trimmed, unique, bounded), shown as chips beside a readable title', async () => {
  await list.getByRole('button', { name: `More actions for ${LONG}` }).click();
  await list.getByRole('button', { name: `Tags of conversation ${LONG}` }).click();
  const dialog = page.getByRole('dialog', { name: /^Tags of/ });
  const add = dialog.getByRole('combobox', { name: 'Add a tag' });
  assert.ok(await add.evaluate((el) => el === document.activeElement), 'the field has the focus');
  // The workspace's tags are suggested.
  assert.deepEqual(await dialog.locator('datalist option').evaluateAll((os) => os.map((o) => o.getAttribute('value'))), ['baking']);
  await add.fill('  Travel ');
  await page.keyboard.press('Enter');
  await dialog.getByRole('button', { name: 'Remove tag Travel' }).waitFor();
  assert.equal(await add.inputValue(), '', 'the field is emptied for the next one');
  await add.fill('travel');
  await dialog.getByRole('button', { name: 'Add tag' }).click();
  assert.equal(await dialog.getByRole('button', { name: /^Remove tag/ }).count(), 1, 'the same tag in another case is not added twice');
  await add.fill('x'.repeat(33));
  await dialog.getByRole('button', { name: 'Add tag' }).click();
  await dialog
    .getByRole('alert')
    .filter({ hasText: /at most 32 characters/ })
    .waitFor();
  await add.fill('holiday');
  await page.keyboard.press('Enter');
  await dialog.getByRole('button', { name: 'Remove tag holiday' }).click();
  assert.equal(await dialog.getByRole('button', { name: 'Remove tag holiday' }).count(), 0, 'removed');
  assert.deepEqual(await seriousViolations(page, 'dialog'), []);
  await dialog.getByRole('button', { name: 'Save tags' }).click();
  await dialog.waitFor({ state: 'detached' });

  const chips = list.locator('.conv-item', { hasText: 'Packing list for the long autumn walk' }).locator('.conv-tag');
  await chips.first().waitFor();
  assert.deepEqual(await chips.allInnerTexts(), ['Travel']);
  const title = await list
    .locator('.conv-title', { hasText: LONG })
    .evaluate((el) => ({ cut: el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1, width: el.clientWidth }));
  assert.equal(title.cut, false, `the title is whole beside the chips: ${JSON.stringify(title)}`);
  assert.ok(title.width > 200, `the title keeps the row's width: ${title.width}`);
  assert.deepEqual(await violations(), []);
});

test('the tag filter shows only the tagged conversations (control: all without it) and survives a reload', async () => {
  assert.deepEqual(await filter().locator('option').allInnerTexts(), ['All conversations', 'baking', 'Travel']);
  assert.ok(await bills().isVisible(), 'control: shown without a filter');
  await filter().selectOption('Travel');
  await bills().waitFor({ state: 'detached' });
  assert.ok(await trip().isVisible());
  assert.equal(await list.getByRole('link', { name: /Bread starter notes/ }).count(), 0);
  assert.deepEqual(await violations(), []);

  await page.reload();
  await page.locator('#app .workspace:not([data-first-view])').waitFor();
  await trip().waitFor();
  assert.equal(await filter().inputValue(), 'Travel', 'the filter is remembered');
  assert.equal(await bills().count(), 0, 'still hidden after the reload');

  // By keyboard: back to every conversation.
  await filter().focus();
  await filter().selectOption('');
  await bills().waitFor();
  assert.ok(await trip().isVisible());
});

test('the list search and the command palette find a conversation by its tag', async () => {
  const box = page.getByRole('searchbox', { name: 'Search conversations' });
  await box.fill('travel');
  const results = page.getByRole('list', { name: 'Search results' });
  await results.getByRole('button', { name: /Packing list for the long autumn walk/ }).waitFor();
  // Control: another tag finds its own conversation, not this one.
  await box.fill('baking');
  await results.getByRole('button', { name: /Bread starter notes/ }).waitFor();
  assert.equal(await results.getByRole('button', { name: /Packing list/ }).count(), 0);
  await box.fill('');

  await page.getByRole('textbox', { name: 'Message' }).focus();
  await page.keyboard.press('Control+k');
  const search = page.getByRole('dialog', { name: 'Command palette' }).getByRole('combobox', { name: 'Search actions' });
  const options = page.getByRole('dialog', { name: 'Command palette' }).getByRole('option');
  // The palette lists the conversations other than the one on screen (the trip's): the bread one, tagged "baking".
  // Control: not listed for a word it lacks.
  await search.fill('zzqx');
  assert.equal(await options.filter({ hasText: 'Bread starter notes' }).count(), 0);
  await search.fill('baking');
  await options.filter({ hasText: 'Bread starter notes' }).waitFor();
  await page.keyboard.press('Escape');
  await page.getByRole('dialog', { name: 'Command palette' }).waitFor({ state: 'detached' });

  // The palette edits the tags of the conversation on screen too (cancelled: nothing changes).
  await page.keyboard.press('Control+k');
  await search.fill('tags of this');
  await options.filter({ hasText: 'Tags of this conversation…' }).first().waitFor();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: /^Tags of/ });
  await dialog.getByRole('button', { name: 'Remove tag Travel' }).waitFor();
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  assert.deepEqual(
    await list.locator('.conv-item', { hasText: 'Packing list for the long autumn walk' }).locator('.conv-tag').allInnerTexts(),
    ['Travel'],
  );
});

test('360 px: the filter and the chips in the drawer, usable by keyboard, no serious axe violation', async () => {
  await page.setViewportSize({ width: 360, height: 740 });
  await page.getByRole('button', { name: 'Conversations' }).click();
  await bills().waitFor();
  const box = /** @type {{x: number, width: number}} */ (await filter().boundingBox());
  assert.ok(box.x >= 0 && box.x + box.width <= 360, `the filter is on screen: ${JSON.stringify(box)}`);
  await filter().focus();
  await filter().selectOption('baking');
  await trip().waitFor({ state: 'detached' });
  assert.ok(await list.getByRole('link', { name: /Bread starter notes/ }).isVisible());
  assert.deepEqual(await violations(), []);
  await filter().selectOption('');
  await trip().waitFor();
});
