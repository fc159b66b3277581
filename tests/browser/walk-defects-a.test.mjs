// Defects a new user met walking through the app (issue 37 §1, first half), each reproduced in
// the real page with its control: "Browse models" lists an OpenAI-compatible server's models
// with the Model field empty; the composer and the home screen at 360 px; undo and redo leave no
// version switcher behind; every panel has the page's padding, cards without bullets, a styled
// MCP tools table and radio buttons and checkboxes of their own size; a Stop reads as stopped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sendMessage } from './helpers.mjs';
import { useFixture } from './fixture.mjs';
import { startScriptedMcpServers } from '../fixtures/mcp-scripted.mjs';

const fx = await useFixture({
  llm: { models: ['scripted-1', 'scripted-2'] },
  settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'scripted-1', baseUrl: `${llm.url}/v1` }),
});
const { app, llm, page } = fx;
const mcp = await startScriptedMcpServers({
  '/notes': [
    { name: 'search_notes', description: 'Finds notes by words they contain.', annotations: { readOnlyHint: true } },
    { name: 'delete_note', description: 'Deletes one note.', annotations: { destructiveHint: true } },
  ],
});
fx.defer(() => mcp.close());

const PHONE = { width: 360, height: 740 };
const DESKTOP = { width: 1280, height: 800 };
const settingsDialog = () => page.getByRole('dialog', { name: /Settings/ });

/**
 * Opens a panel from the rail (on a phone, from the drawer behind Menu).
 * @param {import('playwright-core').Page} p @param {string} name
 */
async function openPanel(p, name) {
  const rail = p.getByRole('navigation', { name: 'Workspace panels' });
  if (!(await rail.isVisible())) await p.getByRole('button', { name: 'Menu' }).click();
  await rail.getByRole('button', { name, exact: true }).click();
}

/**
 * Whether any word of an element's text is broken across lines ("My works pace"): each word's
 * text, measured on its own, must lie on one line.
 * @param {import('playwright-core').Locator} el
 * @returns {Promise<string[]>} the words that break
 */
const brokenWords = (el) =>
  el.evaluate((node) => {
    /** @type {string[]} */
    const broken = [];
    const text = node.firstChild;
    if (!text || text.nodeType !== Node.TEXT_NODE) return ['(no text)'];
    const value = text.textContent ?? '';
    for (const m of value.matchAll(/\S+/g)) {
      const range = document.createRange();
      range.setStart(text, m.index ?? 0);
      range.setEnd(text, (m.index ?? 0) + m[0].length);
      const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      if (tops.size > 1) broken.push(m[0]);
    }
    return broken;
  });

test('"Browse models" lists the OpenAI-compatible server\'s models with the Model field empty; choosing one fills it', async () => {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = settingsDialog();
  const model = dialog.getByLabel('Model', { exact: true });
  await model.fill('');
  await dialog.getByRole('button', { name: 'Browse models' }).click();
  await dialog.getByText('2 models offered.').waitFor();
  assert.equal(await dialog.getByText(/Choose a model/).count(), 0, 'no request to choose a model first');
  const list = dialog.getByRole('list', { name: 'Available to choose' });
  await list.getByRole('radio', { name: /scripted-2/ }).check();
  assert.equal(await model.inputValue(), 'scripted-2');
  // Control: a server that is not there is still reported as a failure, not as an empty list.
  await dialog.getByLabel('Base URL', { exact: true }).fill('http://127.0.0.1:9/v1');
  await model.fill('');
  await dialog.getByRole('button', { name: 'Browse models' }).click(); // closes the list
  await dialog.getByRole('button', { name: 'Browse models' }).click();
  await dialog.getByText(/^Could not list the models: /).waitFor();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'detached' });
});

test('the model list and the Events filters: radio buttons and checkboxes keep their own size, names stay whole \
(360 and 1280 px)', async () => {
  for (const size of [DESKTOP, PHONE]) {
    await page.setViewportSize(size);
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const dialog = settingsDialog();
    await dialog.getByRole('button', { name: 'Browse models' }).click();
    await dialog.getByText('2 models offered.').waitFor();
    const radio = dialog.getByRole('radio', { name: /scripted-1/ });
    const box = await radio.boundingBox();
    assert.ok(box && box.width <= 24, `${size.width} px: the radio button is ${box?.width} px wide`);
    for (const id of await dialog.locator('.model-id').all())
      assert.deepEqual(await brokenWords(id), [], `${size.width} px: model names are not broken`);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });

    await openPanel(page, 'Events');
    const filters = page.getByRole('group', { name: 'Show' });
    await filters.waitFor();
    for (const check of await filters.getByRole('checkbox').all()) {
      const b = await check.boundingBox();
      assert.ok(b && b.width <= 24, `${size.width} px: a filter's checkbox is ${b?.width} px wide`);
    }
    for (const label of await filters.locator('label').all())
      assert.deepEqual(await brokenWords(label), [], `${size.width} px: filter names are not broken`);
    const height = (await filters.boundingBox())?.height ?? Infinity;
    const limit = size.width < 720 ? 240 : 110; // stacked one per line, they took 290 px
    assert.ok(height <= limit, `${size.width} px: the filters take ${height} px (at most ${limit})`);
    await page.getByRole('button', { name: 'Back to chat' }).click();
  }
  await page.setViewportSize(DESKTOP);
});

test('360 px: the message box gets the composer\'s width; at 1280 px it shares the row with "Attach file" and "Send"', async () => {
  const box = page.getByRole('textbox', { name: 'Message', exact: true });
  const measure = async () => {
    const form = await page.getByRole('form', { name: 'Send a message' }).evaluate((f) => {
      const r = f.getBoundingClientRect();
      const cs = getComputedStyle(f);
      return { left: r.left + parseFloat(cs.paddingLeft), width: r.width - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) };
    });
    const input = /** @type {{x: number, y: number, width: number, height: number}} */ (await box.boundingBox());
    const send = /** @type {{x: number, y: number, width: number, height: number}} */ (
      await page.getByRole('button', { name: 'Send', exact: true }).boundingBox()
    );
    const attach = /** @type {{x: number, y: number, width: number, height: number}} */ (
      await page.getByRole('button', { name: 'Attach file' }).boundingBox()
    );
    return { share: input.width / form.width, input, send, attach };
  };
  await page.setViewportSize(PHONE);
  try {
    const phone = await measure();
    assert.ok(phone.share >= 0.9, `the message box is ${Math.round(phone.share * 100)} % of the composer (${phone.input.width} px)`);
    for (const b of [phone.send, phone.attach])
      assert.ok(b.x >= 0 && b.x + b.width <= PHONE.width && b.y + b.height <= PHONE.height, 'the buttons are on screen');
  } finally {
    await page.setViewportSize(DESKTOP);
  }
  // Control: a wide screen keeps one row, the box still the widest part.
  const wide = await measure();
  assert.ok(wide.share >= 0.6, `1280 px: the message box is ${Math.round(wide.share * 100)} % of the composer`);
  const middle = wide.input.y + wide.input.height / 2;
  assert.ok(wide.send.y <= middle + wide.input.height && wide.send.y + wide.send.height >= wide.input.y, 'Send is beside the box');
  assert.ok(wide.send.x > wide.input.x + wide.input.width, 'Send is to the right of the box');
  // The message box works at 360 px.
  await page.setViewportSize(PHONE);
  try {
    await sendMessage(page, 'typed on a phone');
    await page.locator('.msg.assistant:not(.streaming)', { hasText: 'You said: typed on a phone' }).waitFor();
  } finally {
    await page.setViewportSize(DESKTOP);
  }
});

test('360 px home screen: workspace names do not break mid-word beside Rename and Delete; the buttons stay on screen', async () => {
  const home = await fx.openHome();
  try {
    // A second workspace with a longer name of ordinary words.
    await home.getByRole('button', { name: 'New workspace' }).click();
    await home.getByRole('dialog').getByLabel('Workspace name').fill('Quarterly research notebook');
    await home.getByRole('dialog').getByLabel('Workspace name').press('Enter');
    // The new workspace is shown (its first run) before going back to the list.
    await home.getByRole('button', { name: 'Try Echo' }).waitFor();
    await home.goto(`${app.url}#home`);
    await home.locator('.ws-name', { hasText: 'Quarterly research notebook' }).waitFor();
    for (const size of [PHONE, DESKTOP]) {
      await home.setViewportSize(size);
      for (const name of ['My workspace', 'Quarterly research notebook']) {
        const item = home.locator('.ws-item').filter({ has: home.locator('.ws-name', { hasText: name }) });
        assert.deepEqual(await brokenWords(item.locator('.ws-name')), [], `${size.width} px: "${name}" keeps its words whole`);
        for (const label of [`Rename workspace ${name}`, `Delete workspace ${name}`]) {
          const b = await item.getByRole('button', { name: label }).boundingBox();
          assert.ok(b && b.x >= 0 && b.x + b.width <= size.width, `${size.width} px: ${label} is on screen`);
        }
      }
      // Control: on a wide screen, the buttons sit on the name's row.
      if (size === DESKTOP) {
        const item = home.locator('.ws-item').filter({ hasText: 'My workspace' });
        const name = /** @type {{y: number, height: number}} */ (await item.locator('.ws-name').boundingBox());
        const rename = /** @type {{y: number, height: number}} */ (await item.getByRole('button', { name: /^Rename/ }).boundingBox());
        const open = /** @type {{y: number, height: number}} */ (await item.locator('.ws-open').boundingBox());
        assert.ok(rename.y < open.y + open.height && rename.y + rename.height > name.y, "Rename is on the name's row at 1280 px");
      }
    }
  } finally {
    await home.close();
  }
});

test('undo, then redo (Alt+Shift+Z): no version switcher appears for the undo or stays after the redo; \
a regenerated reply still has one', async () => {
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  await page.getByText('Start the conversation: type a message below.').waitFor();
  await sendMessage(page, 'the first turn');
  await page.locator('.msg.assistant:not(.streaming)', { hasText: 'You said: the first turn' }).waitFor();
  await sendMessage(page, 'the turn to undo');
  await page.locator('.msg.assistant:not(.streaming)', { hasText: 'You said: the turn to undo' }).waitFor();
  const versions = page.getByRole('group', { name: /^Versions of this/ });
  await page.locator('.msg.assistant').last().getByRole('button', { name: 'Undo turn' }).click();
  const redo = page.locator('li.turn-undone').getByRole('button', { name: 'Redo turn' });
  await redo.waitFor();
  assert.equal(await page.getByText('You said: the turn to undo').count(), 0, 'the undone turn left the transcript');
  assert.equal(await versions.count(), 0, 'an undo is not a version to switch to');
  // The redo: nothing was sent in between, so it is done.
  await page.getByRole('textbox', { name: 'Message', exact: true }).blur();
  await page.keyboard.press('Alt+Shift+Z');
  await page.locator('.msg.assistant', { hasText: 'You said: the turn to undo' }).waitFor();
  await page.getByText(/Turn redone/).waitFor();
  assert.equal(await page.getByText(/the conversation went on/i).count(), 0);
  assert.equal(await versions.count(), 0, 'no stray switcher after a clean redo');
  // Undo and redo once more: still none.
  await page.keyboard.press('Alt+Z');
  await redo.waitFor();
  assert.equal(await versions.count(), 0);
  await page.keyboard.press('Alt+Shift+Z');
  await page.locator('.msg.assistant', { hasText: 'You said: the turn to undo' }).waitFor();
  await redo.waitFor({ state: 'detached' });
  assert.equal(await versions.count(), 0);
  // Control: a reply regenerated is a version, with its switcher, and switching works.
  llm.enqueue({ text: 'A second version of the reply.' });
  await page
    .getByRole('button', { name: /^Regenerate this reply/ })
    .last()
    .click();
  await page.locator('.msg.assistant:not(.streaming)', { hasText: 'A second version of the reply.' }).waitFor();
  const switcher = page.getByRole('group', { name: 'Versions of this reply' });
  await switcher.getByText('2/2').waitFor();
  await switcher.getByRole('button', { name: 'Previous version of this reply' }).click();
  await page.locator('.msg.assistant', { hasText: 'You said: the turn to undo' }).waitFor();
  await page.getByRole('group', { name: 'Versions of this reply' }).getByText('1/2').waitFor();
});

test('the Skills, Servers, Terminal and Agents panels have the page\'s padding: "Back to chat" whole, below the header \
(360 and 1280 px)', async () => {
  for (const size of [DESKTOP, PHONE]) {
    await page.setViewportSize(size);
    try {
      // Files is the control: it had its padding already.
      for (const name of ['Files', 'Skills', 'Servers', 'Terminal', 'Agents']) {
        await openPanel(page, name);
        const back = page.getByRole('button', { name: 'Back to chat' });
        await back.waitFor();
        const b = /** @type {{x: number, y: number, width: number, height: number}} */ (await back.boundingBox());
        const header = /** @type {{y: number, height: number}} */ (await page.locator('.topbar').boundingBox());
        const main = /** @type {{x: number, width: number}} */ (await page.locator('main.panel').boundingBox());
        const where = `${name} at ${size.width} px`;
        assert.ok(b.y >= header.y + header.height, `${where}: "Back to chat" is below the header (${b.y})`);
        assert.ok(b.y + b.height <= size.height, `${where}: "Back to chat" is inside the window`);
        assert.ok(b.x >= main.x + 8, `${where}: "Back to chat" is ${b.x - main.x} px from the panel's edge`);
        assert.ok(b.x + b.width <= main.x + main.width, `${where}: "Back to chat" is whole`);
        const padding = await page
          .locator('main.panel > section')
          .first()
          .evaluate((el) => {
            const cs = getComputedStyle(el);
            return Math.min(...[cs.paddingLeft, cs.paddingRight, cs.paddingTop].map(parseFloat));
          });
        assert.ok(padding >= 8, `${where}: the panel's padding is ${padding} px`);
        await back.click();
        await page.getByRole('textbox', { name: 'Message', exact: true }).waitFor();
      }
    } finally {
      await page.setViewportSize(DESKTOP);
    }
  }
});

test("skill and server cards have no list bullets; the MCP tools table is laid out like the app's tables", async () => {
  /** @param {import('playwright-core').Locator} li */
  const bullet = (li) =>
    li.evaluate((el) => {
      const cs = getComputedStyle(el);
      return cs.display === 'list-item' && cs.listStyleType !== 'none' ? cs.listStyleType : null;
    });
  await openPanel(page, 'Skills');
  await page.getByRole('button', { name: 'Write a skill' }).click();
  const form = page.getByRole('dialog', { name: 'Write a skill' });
  await form.getByLabel('Name').fill('tidy-notes');
  await form.getByLabel('When to use it').fill('Tidies notes. Use for notes.');
  await form.getByLabel('Instructions').fill('Write notes as short bullet points.');
  await form.getByRole('button', { name: 'Save skill' }).click();
  const skill = page.locator('.skill[data-skill="tidy-notes"]');
  await skill.waitFor();
  assert.equal(await bullet(skill), null, 'a skill card has no bullet');
  await page.getByRole('button', { name: 'Back to chat' }).click();

  await openPanel(page, 'Servers');
  await page.getByRole('button', { name: 'Add server' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add an MCP server' });
  await dialog.getByLabel(/^Name/).fill('notes');
  await dialog.getByLabel('Server URL').fill(mcp.url('/notes'));
  await dialog.getByRole('button', { name: 'Add server' }).click();
  const card = page.locator('.server').filter({ has: page.getByRole('heading', { name: 'notes', exact: true }) });
  await card.locator('.server-status', { hasText: 'Connected' }).waitFor();
  assert.equal(await bullet(card), null, 'a server card has no bullet');
  await card.getByText(/2 tools, 0 resources, 0 prompts of notes/).click();
  const table = card.getByRole('table', { name: 'Tools of notes' });
  await table.waitFor();
  const look = await table.evaluate((t) => {
    const cell = /** @type {HTMLElement} */ (t.querySelector('tbody td'));
    const head = /** @type {HTMLElement} */ (t.querySelector('th'));
    const c = getComputedStyle(cell);
    const hd = getComputedStyle(head);
    const room = t.parentElement?.getBoundingClientRect().width || 1;
    return {
      collapse: getComputedStyle(t).borderCollapse,
      padding: parseFloat(c.paddingLeft),
      rule: parseFloat(c.borderBottomWidth),
      headAlign: hd.textAlign,
      width: t.getBoundingClientRect().width / room,
    };
  });
  assert.equal(look.collapse, 'collapse');
  assert.ok(look.padding >= 6, `cells are padded (${look.padding} px)`);
  assert.ok(look.rule >= 1, 'rows are ruled');
  assert.ok(['left', 'start'].includes(look.headAlign), `headings align with their column (${look.headAlign})`);
  assert.ok(look.width >= 0.9, "the table takes the card's width");
  await page.getByRole('button', { name: 'Back to chat' }).click();
  // Control: a list that is meant to have bullets (one in a reply) keeps them.
  llm.enqueue({ text: 'Two points:\n\n- one\n- two' });
  await sendMessage(page, 'a list please');
  const point = page.locator('.msg.assistant:not(.streaming) .msg-body li', { hasText: 'one' });
  await point.waitFor();
  assert.ok(await bullet(point), 'a point of a reply keeps its bullet');
});

test('Stop reads as stopped, not as a provider failure; a real failure still says "No provider answered"', async () => {
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  await page.getByText('Start the conversation: type a message below.').waitFor();
  llm.enqueue({ text: 'alpha beta gamma delta epsilon', dropAfter: 3, holdOpen: true });
  await sendMessage(page, 'a reply to interrupt');
  await page.locator('.msg.streaming .msg-body', { hasText: 'alpha' }).waitFor();
  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  await page.getByText('Stopped — the reply above is incomplete.').waitFor();
  llm.dropOpen();
  assert.equal(await page.getByText(/No provider answered/).count(), 0, 'a Stop is not a provider failure');
  assert.equal(await page.getByText(/failed/i).count(), 0, 'nothing says it failed');
  // Stopped while the retry of a failed try streams: the failure is shown, the end is the user's Stop.
  llm.enqueue({ status: 500, body: { error: { message: 'boom' } } }, { text: 'eta theta iota kappa', dropAfter: 3, holdOpen: true });
  await sendMessage(page, 'a retried reply to interrupt');
  await page.locator('.msg.streaming .msg-body', { hasText: 'eta' }).waitFor();
  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  await page.getByText('Stopped by you after 1 failed try').waitFor();
  llm.dropOpen();
  assert.equal(await page.getByText(/No provider answered/).count(), 0);
  // Control: a provider that fails every try is still said to have failed.
  for (let i = 0; i < 3; i++) llm.enqueue({ status: 500, body: { error: { message: 'boom' } } });
  await sendMessage(page, 'fail every try');
  await page.getByRole('alert').filter({ hasText: 'The reply failed' }).waitFor();
  await page.getByText(/No provider answered \(3 tries\)/).waitFor();
});
