// Navigation that scales (issue 13): the labelled panel rail (collapsible, remembered), Alt+0 for
// the chat, and the command palette (Ctrl/Cmd+K) running actions found by fuzzy search — the
// chat's, the workspace's and the home screen's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { readWorkspaceFile } from './helpers.mjs';
import { useFixture } from './fixture.mjs';

const { page } = await useFixture({ settings: { provider: 'echo' } });

const palette = () => page.getByRole('dialog', { name: 'Command palette' });
const search = () => palette().getByRole('combobox', { name: 'Search actions' });

test('the rail lists every panel with its label; collapsing keeps the names for assistive tech and is remembered', async () => {
  const rail = page.getByRole('navigation', { name: 'Workspace panels' });
  for (const name of ['Chat', 'Files', 'Git', 'Memory', 'Goals', 'Schedule', 'Tools', 'Events', 'Dashboard', 'Config'])
    await rail.getByRole('button', { name, exact: true }).waitFor();
  assert.equal(await rail.getByRole('button', { name: 'Chat', exact: true }).getAttribute('aria-current'), 'page');
  const wide = /** @type {{width: number}} */ (await rail.boundingBox()).width;
  const toggle = rail.getByRole('button', { name: 'Show panel names' });
  assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
  await toggle.click();
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  const narrow = /** @type {{width: number}} */ (await rail.boundingBox()).width;
  assert.ok(narrow < wide / 2, `collapsed to icons (${narrow} < ${wide} / 2)`);
  // Folded, each button is its own drawn icon (an SVG of the vendored set, hidden from assistive
  // technology), not an emoji that a machine without a colour emoji font draws as an empty box.
  const icons = await rail.locator('.rail-btn').evaluateAll((buttons) =>
    buttons.map((b) => {
      const svg = b.querySelector('svg.icon');
      const box = svg?.getBoundingClientRect();
      return {
        icon: svg?.getAttribute('data-icon'),
        hidden: svg?.getAttribute('aria-hidden'),
        drawn: !!box && box.width > 8 && box.height > 8,
      };
    }),
  );
  assert.ok(icons.length >= 14, `every panel (${icons.length})`);
  assert.ok(
    icons.every((i) => i.icon && i.hidden === 'true' && i.drawn),
    JSON.stringify(icons),
  );
  assert.equal(new Set(icons.map((i) => i.icon)).size, icons.length, 'each panel has an icon of its own');
  await page.reload();
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  assert.equal(await page.getByRole('button', { name: 'Show panel names' }).getAttribute('aria-expanded'), 'false', 'remembered');
  // Still named and usable while collapsed.
  await page.getByRole('navigation', { name: 'Workspace panels' }).getByRole('button', { name: 'Files', exact: true }).click();
  await page.getByRole('heading', { name: 'Files', exact: true }).waitFor();
  await page.keyboard.press('Alt+0');
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  assert.match(page.url(), /#workspace\/[^/]+(\/chat|\/conversation\/[^/]+)?$/, 'the chat route');
  await page.getByRole('button', { name: 'Show panel names' }).click();
});

test('Ctrl+K opens the palette; typing filters fuzzily; Enter runs the action; Escape closes it', async () => {
  await page.getByRole('textbox', { name: 'Message' }).focus();
  await page.keyboard.press('Control+k');
  await search().waitFor();
  assert.ok(await search().evaluate((el) => el === document.activeElement), 'the search field has the focus');
  await search().fill('sched');
  assert.equal(
    await palette()
      .getByRole('option')
      .first()
      .innerText()
      .then((t) => t.split('\n')[0]),
    'Open Schedule',
  );
  await page.keyboard.press('Enter');
  await palette().waitFor({ state: 'detached' });
  await page.getByRole('heading', { name: 'Schedule', exact: true }).waitFor();
  assert.match(page.url(), /\/schedule$/);

  await page.keyboard.press('Control+k');
  await search().fill('zzzqqq');
  await palette().getByText('No action matches.').waitFor();
  await page.keyboard.press('Escape');
  await palette().waitFor({ state: 'detached' });
  assert.match(page.url(), /\/schedule$/, 'Escape runs nothing');
  await page.getByRole('button', { name: 'Back to chat' }).click();
});

test('the palette ranks prefix and word-start matches first, before matches inside a word that come earlier in its list', async () => {
  for (const message of ['Lighthouse keepers', 'Spotlight review', 'Something else']) {
    await page.getByRole('button', { name: 'New conversation', exact: true }).click();
    await page.getByText('Start the conversation: type a message below.').waitFor();
    await page.getByRole('textbox', { name: 'Message' }).fill(message);
    await page.keyboard.press('Enter');
    await page.locator('.msg.assistant:not(.streaming)', { hasText: `Echo: ${message}` }).waitFor();
  }
  // Control: unranked, the palette lists conversations as the list does, the newest first — "light"
  // inside "Spotlight" before "Lighthouse".
  const titles = await page.locator('.conv-list .conv-title').allInnerTexts();
  assert.ok(titles.indexOf('Spotlight review') < titles.indexOf('Lighthouse keepers'), JSON.stringify(titles));
  /** The labels the palette shows for `query`, in order. @param {string} query */
  const shown = async (query) => {
    await search().fill(query);
    await palette().getByRole('option').first().waitFor();
    return (await palette().getByRole('option').allInnerTexts()).map((t) => t.split('\n')[0]);
  };
  await page.keyboard.press('Control+k');
  const light = await shown('light');
  assert.deepEqual(light.slice(0, 2), ['Lighthouse keepers', 'Spotlight review'], 'the prefix first');
  // "key" starts "Keyboard shortcuts" and a word of "Change provider or model…" (its keywords: "api key"), which comes earlier.
  const key = await shown('key');
  assert.equal(key[0], 'Keyboard shortcuts', JSON.stringify(key));
  assert.ok(key.includes('Change provider or model…'), `control: the word start matches too (${JSON.stringify(key)})`);
  // Control: a match inside a word is still found.
  assert.equal((await shown('house'))[0], 'Lighthouse keepers');
  await page.keyboard.press('Escape');
  await palette().waitFor({ state: 'detached' });
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  await page.getByText('Start the conversation: type a message below.').waitFor();
});

test('the palette switches conversations, starts a new one and sets the autonomy; arrows choose', async () => {
  await page.getByRole('textbox', { name: 'Message' }).fill('Plan the garden party');
  await page.keyboard.press('Enter');
  await page.getByText('Echo: Plan the garden party').waitFor();
  await page.getByRole('button', { name: 'Commands' }).click(); // the top bar's button does the same as Ctrl+K
  await search().fill('new conv');
  await page.keyboard.press('Enter');
  await page.getByText('Start the conversation: type a message below.').waitFor();

  await page.keyboard.press('Control+k');
  await search().fill('garden');
  await page.keyboard.press('Enter');
  await page.getByText('Echo: Plan the garden party').waitFor();

  await page.keyboard.press('Control+k');
  await search().fill('autonomy');
  const options = palette().getByRole('option');
  assert.equal(await options.count(), 2, 'the two levels other than the current one');
  await page.keyboard.press('ArrowDown');
  const chosen = (await palette().locator('[role="option"][aria-selected="true"]').innerText()).split('\n')[0];
  assert.equal(chosen, (await options.nth(1).innerText()).split('\n')[0]);
  assert.equal(await search().getAttribute('aria-activedescendant'), await options.nth(1).getAttribute('id'));
  await page.keyboard.press('Enter');
  const level = /Set autonomy to (.+)$/.exec(chosen)?.[1];
  await page
    .getByRole('status')
    .filter({ hasText: `Autonomy is now ${level}` })
    .waitFor();
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: /Settings/ });
  const value = await dialog.getByLabel('Autonomy').inputValue();
  assert.equal(value === 'readonly' ? 'read-only' : value, level, 'the setting changed where the Settings dialog reads it');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
});

test('the palette runs what the buttons and shortcuts do: regenerate, undo and redo a turn, fold the rail, split the view, \
delete the conversation', async () => {
  /**
   * Runs the palette's first match for `query`, checking it is `label` and shows `shortcut`.
   * @param {string} query
   * @param {RegExp} label
   * @param {string} [shortcut]
   */
  const run = async (query, label, shortcut) => {
    await page.keyboard.press('Control+k');
    await search().fill(query);
    const first = palette().getByRole('option').first();
    assert.match((await first.innerText()).split('\n')[0], label);
    if (shortcut) assert.equal(await first.locator('kbd').innerText(), shortcut);
    await page.keyboard.press('Enter');
    await palette().waitFor({ state: 'detached' });
  };
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  await page.getByText('Start the conversation: type a message below.').waitFor();
  await page.getByRole('textbox', { name: 'Message' }).fill('Name the lighthouse');
  await page.keyboard.press('Enter');
  await page.locator('.msg.assistant:not(.streaming)', { hasText: 'Echo: Name the lighthouse' }).waitFor();
  await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'hidden' });

  const replyVersions = page.getByRole('group', { name: 'Versions of this reply' });
  assert.equal(await replyVersions.count(), 0, 'control: one version before');
  await run('regenerate', /^Regenerate the last reply$/);
  await replyVersions.getByText('2/2').waitFor();
  await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'hidden' });

  // The regenerated reply changed nothing: its Undo is among its actions (there once the turn is kept).
  await page.locator('.msg.assistant').last().getByRole('button', { name: 'Undo turn' }).waitFor();
  await run('undo turn', /^Undo the latest turn$/, 'Alt+Z');
  await page.locator('li.turn-undone').last().getByRole('button', { name: 'Redo turn' }).waitFor();
  await run('redo', /^Redo the turn undone last$/, 'Alt+Shift+Z');
  await page.getByRole('button', { name: 'Redo turn' }).waitFor({ state: 'detached' });
  await replyVersions.getByText('2/2').waitFor();

  // The command runs as the palette closes: wait for its effect.
  const railToggle = (/** @type {'true' | 'false'} */ expanded) => page.locator(`button.rail-toggle[aria-expanded="${expanded}"]`);
  assert.equal(await railToggle('true').count(), 1, 'control: unfolded before');
  await run('fold rail', /^Fold the panel rail/);
  await railToggle('false').waitFor();
  await run('unfold rail', /^Unfold the panel rail/);
  await railToggle('true').waitFor();

  await page.keyboard.press('Alt+1');
  await page.getByRole('heading', { name: 'Files', exact: true }).waitFor();
  assert.equal(await page.getByRole('textbox', { name: 'Message' }).count(), 0, 'control: the chat is not beside Files yet');
  await run('chat beside', /^Show the chat beside this panel$/);
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  await page.getByRole('heading', { name: 'Files', exact: true }).waitFor();
  assert.equal(
    await page.getByRole('button', { name: 'Chat beside this panel' }).getAttribute('aria-pressed'),
    'true',
    'the ◫ button says so',
  );
  await run('chat beside', /^Hide the chat beside this panel$/);
  await page.getByRole('textbox', { name: 'Message' }).waitFor({ state: 'detached' });
  await page.keyboard.press('Alt+0');
  await page.getByRole('textbox', { name: 'Message' }).waitFor();

  const list = page.locator('.conv-list');
  const title = await list.locator('a[aria-current="page"] .conv-title').innerText();
  await run('delete conv', /^Delete this conversation…$/);
  const confirm = page.getByRole('dialog', { name: /^Delete “/ });
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await confirm.waitFor({ state: 'detached' });
  await page.getByText('Echo: Name the lighthouse').waitFor(); // control: cancelling keeps it
  await run('delete conv', /^Delete this conversation…$/);
  await confirm.getByRole('button', { name: 'Delete conversation' }).click();
  await page.getByText('Echo: Name the lighthouse').waitFor({ state: 'detached' });
  await list.getByText(title, { exact: true }).waitFor({ state: 'detached' });
});

test("the palette runs the chat's Continue and Edit and the home screen's actions: rename and delete a workspace, export everything, \
restore a backup", async () => {
  /** Runs the palette's first match for `query`, checking it is `label`. @param {string} query @param {RegExp} label */
  const run = async (query, label) => {
    await page.keyboard.press('Control+k');
    await search().fill(query);
    assert.match((await palette().getByRole('option').first().innerText()).split('\n')[0], label);
    await page.keyboard.press('Enter');
    await palette().waitFor({ state: 'detached' });
  };
  /** The palette's labels for `query`. @param {string} query */
  const offered = async (query) => {
    await page.keyboard.press('Control+k');
    await search().fill(query);
    const labels = (await palette().getByRole('option').allInnerTexts()).map((t) => t.split('\n')[0]);
    await page.keyboard.press('Escape');
    await palette().waitFor({ state: 'detached' });
    return labels;
  };
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  await page.getByText('Start the conversation: type a message below.').waitFor();

  // Continue after Stop: offered only once a reply was stopped.
  await page.getByRole('textbox', { name: 'Message' }).fill('Ferry timetable notes');
  await page.keyboard.press('Enter');
  await page.locator('.msg.assistant:not(.streaming)', { hasText: 'Echo: Ferry timetable notes' }).waitFor();
  await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'hidden' });
  assert.ok(!(await offered('continue')).includes('Continue the stopped reply'), 'control: a finished reply is not continued');
  // The Echo provider writes a word every 12 ms: 600 words leave seconds to stop it.
  await page.getByRole('textbox', { name: 'Message' }).fill(Array.from({ length: 600 }, (_, i) => `w${i}`).join(' '));
  await page.keyboard.press('Enter');
  await page.locator('.msg.streaming .msg-body', { hasText: 'w1' }).waitFor();
  await page.getByRole('button', { name: 'Stop' }).click();
  await page.getByText('Stopped — the reply above is incomplete.').waitFor();
  await page.getByRole('button', { name: 'Continue this reply' }).waitFor(); // the chat offers it too
  await run('continue', /^Continue the stopped reply$/);
  // The continuation joins the stopped reply: one message.
  await page
    .locator('.msg.assistant:not(.streaming)', { hasText: 'w1' })
    .filter({ hasText: 'Echo: Continue your previous reply' })
    .waitFor();
  assert.equal(await page.getByText('You asked the model to continue its stopped reply.').count(), 0);
  await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'hidden' });
  assert.equal(await page.getByRole('button', { name: 'Continue this reply' }).count(), 0);
  assert.ok(!(await offered('continue')).includes('Continue the stopped reply'), 'continued: not offered again');

  // Edit: the last message sent (not the request to continue) opens in its editor, focused.
  await run('edit last', /^Edit your last message$/);
  const editor = page.getByRole('textbox', { name: 'Edit message' });
  await editor.waitFor();
  assert.ok(await editor.evaluate((el) => el === document.activeElement), 'the editor has the focus');
  assert.match(await editor.inputValue(), /^w0 w1 w2/);
  await page.keyboard.press('Escape');
  await editor.waitFor({ state: 'detached' });

  // Rename the workspace: the same dialog as the home screen's Rename, the new name on screen.
  await run('rename workspace', /^Rename workspace “.+”…$/);
  const renameDialog = page.getByRole('dialog', { name: 'Rename workspace' });
  await renameDialog.getByLabel('Workspace name').fill('Harbour notes');
  await renameDialog.getByRole('button', { name: 'Rename' }).click();
  await page.getByRole('heading', { name: 'Harbour notes', level: 1 }).waitFor();
  await page.waitForFunction(() => document.title === 'Harbour notes — Clawser');
  assert.ok((await offered('rename workspace')).includes('Rename workspace “Harbour notes”…'));

  // Delete a workspace: the home screen's confirmation; cancelling keeps it, confirming goes home without it.
  await run('new workspace', /^New workspace…$/);
  const create = page.getByRole('dialog', { name: 'New workspace' });
  await create.getByLabel('Workspace name').fill('Scratch pad');
  await create.getByRole('button', { name: 'Create' }).click();
  await page.getByRole('heading', { name: 'Scratch pad', level: 1 }).waitFor();
  await run('delete workspace', /^Delete workspace “Scratch pad”…$/);
  const confirm = page.getByRole('dialog', { name: 'Delete “Scratch pad”?' });
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await confirm.waitFor({ state: 'detached' });
  assert.equal(await page.getByRole('heading', { name: 'Scratch pad', level: 1 }).count(), 1, 'control: cancelled, still open');
  await run('delete workspace', /^Delete workspace “Scratch pad”…$/);
  await confirm.getByRole('button', { name: 'Delete workspace' }).click();
  await page.getByRole('heading', { name: 'Workspaces' }).waitFor();
  await page.getByRole('link', { name: /Harbour notes/ }).waitFor();
  await page.getByRole('link', { name: /Scratch pad/ }).waitFor({ state: 'detached' });

  // Export everything from the home screen: the same dialog, a backup downloaded.
  await run('export every', /^Export everything…$/);
  const exportDialog = page.getByRole('dialog', { name: 'Export everything' });
  const [download] = await Promise.all([page.waitForEvent('download'), exportDialog.getByRole('button', { name: 'Export' }).click()]);
  assert.match(download.suggestedFilename(), /^clawser-backup-\d{4}-\d{2}-\d{2}\.zip$/);
  const backup = await readFile(await download.path());
  assert.equal(backup.subarray(0, 2).toString(), 'PK', 'a zip file');

  // Restore (offered on the home screen): the file asked for is read and summarised before anything is replaced.
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), run('restore', /^Restore from a backup…$/)]);
  await chooser.setFiles({ name: 'backup.zip', mimeType: 'application/zip', buffer: backup });
  const replace = page.getByRole('dialog', { name: 'Replace everything with this backup?' });
  await replace.getByText(/Harbour notes/).waitFor();
  await replace.getByRole('button', { name: 'Cancel' }).click();
  await replace.waitFor({ state: 'detached' });

  await page.getByRole('link', { name: /Harbour notes/ }).click();
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  assert.ok(!(await offered('restore')).includes('Restore from a backup…'), 'control: not offered with a workspace open');
});

test('search across conversations: ranked hits with the words marked; a hit opens its conversation at that message', async () => {
  const say = async (/** @type {string} */ text) => {
    await page.getByRole('textbox', { name: 'Message' }).fill(text);
    await page.keyboard.press('Enter');
    await page.locator('.msg.assistant:not(.streaming)', { hasText: `Echo: ${text}` }).waitFor();
    await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'hidden' }); // the turn is over
  };
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  await page.getByText('Start the conversation: type a message below.').waitFor();
  await say('Notes on airships');
  await say('The zeppelin hangar at Friedrichshafen');
  for (let i = 0; i < 12; i++) await say(`filler message ${i} so the hit is scrolled out of view`);
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  await page.getByText('Start the conversation: type a message below.').waitFor();
  await say('Something unrelated');

  const box = page.getByRole('searchbox', { name: 'Search conversations' });
  await box.fill('zeppelin');
  const results = page.getByRole('list', { name: 'Search results' });
  await results.getByRole('button').first().waitFor();
  const hits = await results.getByRole('button').allInnerTexts();
  assert.equal(hits.length, 2, `the message and its echo: ${JSON.stringify(hits)}`);
  assert.deepEqual(await results.locator('mark').allInnerTexts(), ['zeppelin', 'zeppelin']);
  assert.match(hits[0], /^Notes on airships/);
  await box.fill('qwertyuiop');
  await page.getByRole('status').filter({ hasText: 'No message matches.' }).waitFor();
  await box.fill('Friedrichshafen');
  const you = results.getByRole('button', { name: /You ·/ });
  await you.waitFor();
  await you.click();
  const found = page.locator('.msg.found');
  await found.waitFor();
  assert.match(await found.innerText(), /zeppelin hangar/);
  assert.ok(await found.evaluate((el) => el === document.activeElement), 'the message has the focus');
  assert.ok(
    (await found.isVisible()) &&
      (await found.evaluate((el) => {
        const r = el.getBoundingClientRect();
        const s = /** @type {HTMLElement} */ (el.closest('.scroller')).getBoundingClientRect();
        return r.top >= s.top && r.bottom <= s.bottom;
      })),
    'scrolled into view (not to the latest message)',
  );
  assert.ok(
    await page
      .locator('.msg.assistant', { hasText: 'filler message 11' })
      .evaluate(
        (el) => el.getBoundingClientRect().top > /** @type {HTMLElement} */ (el.closest('.scroller')).getBoundingClientRect().bottom,
      ),
    'control: the latest message is below the view',
  );

  // The palette leads to the search box too.
  await box.fill('');
  await page.keyboard.press('Control+k');
  await search().fill('search conv');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Search conversations');
});

test('Events panel: the timeline with filters and search, data shown with secrets redacted, replay step by step, \
fork at an event', async () => {
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  await page.getByText('Start the conversation: type a message below.').waitFor();
  const key = 'sk-ant-api03-EVENTSPANELFAKEKEY0123456789abcdef';
  for (const text of ['first question about tides', `second one, my key is ${key}`]) {
    await page.getByRole('textbox', { name: 'Message' }).fill(text);
    await page.keyboard.press('Enter');
    await page.locator('.msg.assistant:not(.streaming)', { hasText: text.slice(0, 20) }).waitFor();
    await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'hidden' });
  }
  // Control: the user's own message is stored as written, so the panel is what must redact it.
  assert.ok((await readWorkspaceFile(page, '{conversation}/events.jsonl'))?.includes(key), 'control: the key is in the log');
  await page.keyboard.press('Alt+7');
  await page.getByRole('heading', { name: 'Events', exact: true }).waitFor();
  const list = page.getByRole('list', { name: 'Events' });
  const rows = list.getByRole('listitem');
  await rows.first().waitFor();
  const total = await rows.count();
  assert.ok(total >= 4, `user and agent messages listed (${total})`);
  // Filters: without messages, none of the four message rows remain.
  await page.getByLabel('Messages', { exact: true }).uncheck();
  assert.equal(await list.locator('.ev-user_message, .ev-agent_message').count(), 0);
  await page.getByLabel('Messages', { exact: true }).check();
  await page.getByRole('searchbox', { name: 'Search events' }).fill('tides');
  await page
    .getByRole('status')
    .filter({ hasText: /of \d+ events matching “tides”/ })
    .waitFor();
  assert.ok((await rows.count()) >= 1 && (await rows.count()) < total);
  await page.getByRole('searchbox', { name: 'Search events' }).fill('');
  await page
    .getByRole('status')
    .filter({ hasText: `${total} of ${total} events.` })
    .waitFor();
  // The data of an event, secrets redacted on screen.
  const secretRow = list.getByRole('listitem').filter({ hasText: 'second one' }).first();
  await secretRow.locator('summary').click();
  const shown = await secretRow.locator('pre').innerText();
  assert.match(shown, /"text":/);
  assert.ok(!shown.includes(key) && !(await list.innerText()).includes(key), 'the key is not on screen');

  // Replay: one event at a time.
  await page.getByRole('button', { name: 'Replay step by step' }).click();
  await page.getByText(`Event 1 of ${total}`).waitFor();
  assert.equal(await rows.count(), 1);
  await page.getByRole('button', { name: 'Next event' }).click();
  await page.getByText(`Event 2 of ${total}`).waitFor();
  assert.equal(await rows.count(), 2);
  assert.equal(await rows.nth(1).getAttribute('aria-current'), 'step');
  await page.getByRole('button', { name: 'Last event' }).click();
  await page.getByText(`Event ${total} of ${total}`).waitFor();
  await page.getByRole('button', { name: 'End replay' }).click();

  // Fork at the first reply: a new conversation holding the events up to it.
  const firstReply = list
    .getByRole('listitem')
    .filter({ has: page.locator('.ev-agent_message') })
    .first();
  await firstReply.locator('summary').click();
  await firstReply.getByRole('button', { name: /Fork here: a new conversation at this agent message event/ }).click();
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  await page.locator('.msg.assistant', { hasText: 'Echo: first question about tides' }).waitFor();
  assert.equal(await page.locator('.msg.user').count(), 1, 'only the events up to the fork');
  assert.equal(await page.locator('.msg', { hasText: 'second one' }).count(), 0);
  // by text content: innerText is empty until laid out (content-visibility: auto)
  await page.locator('.conv-item.active', { hasText: /Fork of “/ }).waitFor();
});

test('a long conversation list is drawn a page at a time and grows as it scrolls into view', async () => {
  await page.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/clawser.js');
    const opfs = new OpfsFileSystem();
    const ws = location.hash.split('/')[1];
    const old = Date.UTC(2020, 0, 1);
    await Promise.all(
      Array.from({ length: 150 }, async (_, i) => {
        const dir = `clawser_workspaces/${ws}/.conversations/cold${i}`;
        await opfs.write(`${dir}/events.jsonl`, '');
        await opfs.write(
          `${dir}/meta.json`,
          JSON.stringify({ id: `cold${i}`, title: `Old conversation ${i}`, createdAt: old - i, updatedAt: old - i }),
        );
      }),
    );
    opfs.terminate();
  });
  await page.reload();
  const list = page.getByRole('navigation', { name: 'Conversations' });
  const more = list.getByRole('button', { name: /^Show \d+ more of \d+ older conversations$/ });
  await more.waitFor();
  assert.equal(await list.locator('.conv-item').count(), 100, 'the first page');
  await more.scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.querySelectorAll('.conv-item').length > 100);
  await list.getByRole('link', { name: /Old conversation 149/ }).waitFor({ state: 'attached' });
  assert.ok((await list.locator('.conv-item').count()) >= 150, 'every conversation reachable');
});
