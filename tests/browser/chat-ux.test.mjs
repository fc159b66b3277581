// Chat as people expect it (issue 13): the sent message shows at once, one error display per
// failure, a retry that leaves no duplicate behind, errors that name a local server that is not
// running, Esc stops a reply, an offline indicator and offline named as the cause of a failed
// request, Enter in a dialog submits it, and a reopened or reloaded conversation shows its
// latest message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { saveSettings, readWorkspaceFile, waitInPage } from './helpers.mjs';
import { useFixture } from './fixture.mjs';
import { createServer } from 'node:net';
import { readFile } from 'node:fs/promises';

const KEY = 'sk-test-chat-ux-0123456789';

const fx = await useFixture({
  llm: { apiKey: KEY, models: ['test-model'] },
  settings: ({ llm }) => ({ provider: 'openai', model: 'test-model', apiKey: KEY, baseUrl: `${llm.url}/v1` }),
});
const { app, llm, browser, page } = fx;

const message = () => page.getByRole('textbox', { name: 'Message' });
const send = async (/** @type {string} */ text) => {
  await message().fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
};

test('the message you send shows at once, while the reply is still streaming, with no "Start the conversation" note', async () => {
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  await page.getByText('Start the conversation: type a message below.').waitFor();
  llm.enqueue({ text: 'one two three four five six seven', dropAfter: 3, holdOpen: true });
  await send('Shown right away please');
  await page.locator('.msg.streaming .msg-body', { hasText: 'one' }).waitFor();
  // The reply is mid-stream (the server holds the connection open): the user's message is there.
  await page.locator('.msg.user', { hasText: 'Shown right away please' }).waitFor();
  assert.equal(await page.locator('.msg.streaming').count(), 1);
  assert.equal(await page.getByText('Start the conversation: type a message below.').count(), 0);
  llm.dropOpen();
  await page.getByRole('alert').filter({ hasText: 'The reply failed' }).waitFor();
});

test('one display per failure: the failed reply carries the message and Retry; a retry that succeeds leaves no duplicate', async () => {
  // The failure of the previous test: shown once, in the failed reply, with its partial text.
  const alerts = page.getByRole('alert');
  assert.equal(await alerts.count(), 1);
  assert.equal(await page.locator('.msg.error').count(), 1);
  const alert = alerts.first();
  assert.match(await alert.innerText(), /one/);
  assert.equal(await page.getByText(/The reply failed/).count(), 1, 'the failure is not shown twice');
  // Retry: the answer arrives; the failed attempt and its message are not left behind.
  await alert.getByRole('button', { name: 'Retry' }).click();
  await page.locator('.msg.assistant:not(.streaming) .msg-body', { hasText: 'You said: Shown right away please' }).waitFor();
  assert.equal(await page.locator('.msg.user', { hasText: 'Shown right away please' }).count(), 1);
  assert.equal(await page.locator('.msg.error').count(), 0);
  assert.equal(await page.getByRole('alert').count(), 0);
  // Control: the failed attempt is still in the log (nothing is lost), only not shown twice.
  await page.reload();
  await page.locator('.msg.assistant .msg-body', { hasText: 'You said: Shown right away please' }).waitFor();
  assert.equal(await page.locator('.msg.user', { hasText: 'Shown right away please' }).count(), 1);
});

test('a server error (HTTP 500) is shown once too, and its retry leaves no duplicate', async () => {
  // The first try and the reliability layer's two retries all fail.
  for (let i = 0; i < 3; i++) llm.enqueue({ status: 500, body: { error: { message: 'boom' } } });
  await send('fail once');
  const alert = page.getByRole('alert').filter({ hasText: 'The reply failed' });
  await alert.waitFor();
  assert.equal(await page.getByRole('alert').count(), 1);
  assert.equal(await page.getByText(/The reply failed/).count(), 1);
  await alert.getByRole('button', { name: 'Retry' }).click();
  await page.locator('.msg.assistant:not(.streaming) .msg-body', { hasText: 'You said: fail once' }).waitFor();
  assert.equal(await page.locator('.msg.user', { hasText: 'fail once' }).count(), 1);
});

test('a reloaded or reopened conversation shows its latest message', async () => {
  llm.enqueue({ text: Array.from({ length: 120 }, (_, i) => `Line ${i + 1} of a long answer.`).join('\n\n') });
  await send('a long answer please');
  await page.locator('.msg.assistant:not(.streaming) .msg-body', { hasText: 'Line 120 of a long answer.' }).waitFor();
  const atBottom = () =>
    page
      .locator('.scroller')
      .evaluate((el) => el.scrollHeight > el.clientHeight * 2 && el.scrollHeight - el.scrollTop - el.clientHeight < 4);
  await page.waitForFunction(() => {
    const el = document.querySelector('.scroller');
    return !!el && el.scrollHeight - el.scrollTop - el.clientHeight < 4;
  });
  // Scroll up to read, then reload: the latest message is in view again.
  await page.locator('.scroller').evaluate((el) => {
    el.scrollTop = 0;
  });
  assert.equal(await atBottom(), false, 'control: scrolled up');
  await page.reload();
  await page.locator('.msg.assistant .msg-body', { hasText: 'Line 120 of a long answer.' }).waitFor();
  await page.waitForFunction(() => {
    const el = document.querySelector('.scroller');
    return !!el && el.scrollHeight > el.clientHeight * 2 && el.scrollHeight - el.scrollTop - el.clientHeight < 4;
  });
  // Another conversation, then back: again at the latest message.
  await page.locator('.scroller').evaluate((el) => {
    el.scrollTop = 0;
  });
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  await page.getByText('Start the conversation: type a message below.').waitFor();
  await page.getByRole('link', { name: /Shown right away please/ }).click();
  await page.locator('.msg.assistant .msg-body', { hasText: 'Line 120 of a long answer.' }).waitFor();
  await page.waitForFunction(() => {
    const el = document.querySelector('.scroller');
    return !!el && el.scrollHeight > el.clientHeight * 2 && el.scrollHeight - el.scrollTop - el.clientHeight < 4;
  });
});

test('a new conversation is titled by its first message as plain text, then by the model after the first exchange; \
a rename wins over both', async () => {
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  llm.state.title = 'Title: "Parse failure on a.txt"';
  const asked = llm.titleRequests.length;
  llm.enqueue({ text: 'Because the file is empty.', pauseAfter: 2 });
  await send('**Why** does `parse()` fail on [this file](https://example.com/a.txt)?');
  // While the reply streams: the first message's plain text, Markdown stripped.
  await page.getByRole('link', { name: 'Why does parse() fail on this file?' }).waitFor();
  llm.resume();
  await page.getByRole('link', { name: 'Parse failure on a.txt' }).waitFor();
  llm.state.title = undefined; // later conversations are titled by their first message again
  assert.equal(llm.titleRequests.length, asked + 1);
  assert.match(JSON.stringify(llm.titleRequests.at(-1).body.messages), /Because the file is empty/, 'the model saw the exchange');
  await page.reload();
  await page.getByRole('link', { name: 'Parse failure on a.txt' }).waitFor();
  // One title per conversation: the next exchange asks for none.
  await send('and then?');
  await page.locator('.msg.assistant:not(.streaming)', { hasText: 'You said: and then?' }).waitFor();
  await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'hidden' });
  assert.equal(llm.titleRequests.length, asked + 1);
  // A conversation the user renamed before its first reply keeps their name.
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  await page.getByText('Start the conversation: type a message below.').waitFor();
  llm.enqueue({ text: 'Slow answer.', pauseAfter: 1 });
  await send('name me');
  await page.getByRole('link', { name: 'name me' }).waitFor();
  await page.getByRole('button', { name: 'More actions for name me' }).click();
  await page.getByRole('button', { name: 'Rename conversation name me' }).click();
  const dialog = page.getByRole('dialog', { name: 'Rename conversation' });
  await dialog.getByLabel('Conversation title').fill('My own name');
  await dialog.getByLabel('Conversation title').press('Enter');
  await page.getByRole('link', { name: 'My own name' }).waitFor();
  llm.resume();
  await page.locator('.msg.assistant:not(.streaming)', { hasText: 'Slow answer.' }).waitFor();
  await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'hidden' });
  assert.equal(llm.titleRequests.length, asked + 1, 'no title asked for a named conversation');
  await page.reload();
  await page.getByRole('link', { name: 'My own name' }).waitFor();
});

test("code blocks of a reply are highlighted and can be saved to the workspace (never into Clawser's own folders)", async () => {
  llm.enqueue({ text: 'Here:\n\n```js\nconst greeting = "hi"; // say it\n```\n' });
  await send('show me some code');
  const block = page.locator('.msg.assistant:not(.streaming) .code-block').last();
  await block.locator('.tok-keyword', { hasText: 'const' }).waitFor();
  await block.locator('.tok-string', { hasText: '"hi"' }).waitFor();
  await block.locator('.tok-comment', { hasText: '// say it' }).waitFor();
  assert.equal(
    await block.locator('code').evaluate((el) => el.textContent),
    'const greeting = "hi"; // say it\n',
    'highlighting keeps the text as written',
  );
  // Save: asks for the path (a name from the language), writes the file.
  const save = block.getByRole('button', { name: 'Save code to the workspace' });
  await save.click();
  const dialog = page.getByRole('dialog', { name: 'Save code to the workspace' });
  assert.equal(await dialog.getByLabel('File path').inputValue(), 'snippet.js');
  await dialog.getByLabel('File path').fill('code/hello.js');
  await dialog.getByLabel('File path').press('Enter');
  await block.getByText('Saved to code/hello.js').waitFor();
  assert.equal(await readWorkspaceFile(page, 'code/hello.js'), 'const greeting = "hi"; // say it\n');
  // The same path again asks before replacing.
  await save.click();
  await dialog.getByLabel('File path').fill('code/hello.js');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('dialog', { name: 'Replace the file?' }).getByRole('button', { name: 'Cancel' }).click();
  await page.getByRole('dialog').waitFor({ state: 'detached' });
  // Clawser's own folders are refused.
  await save.click();
  await dialog.getByLabel('File path').fill('.scheduler/jobs.json');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await block.getByText(/^Not saved: /).waitFor();
});

test('a message copies as written (Markdown) or as the plain text on screen', async () => {
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(app.url).origin });
  llm.enqueue({ text: '**Bold** point:\n\n- one\n- `two`\n' });
  await send('list two things');
  const reply = page.locator('.msg.assistant:not(.streaming)').last();
  await reply.locator('.msg-body', { hasText: 'Bold' }).waitFor();
  const clipboard = () => page.evaluate(() => navigator.clipboard.readText());
  await reply.getByRole('button', { name: 'Copy message as Markdown' }).click();
  await reply.getByText('Copied').waitFor();
  assert.equal(await clipboard(), '**Bold** point:\n\n- one\n- `two`\n');
  await reply.getByRole('button', { name: 'Copy text of the message (plain text)' }).click();
  await page.waitForFunction(() => navigator.clipboard.readText().then((t) => !t.includes('**')));
  assert.match(await clipboard(), /^Bold point:\n+one\n+two$/);
  const mine = page.locator('.msg.user', { hasText: 'list two things' }).last();
  await mine.getByRole('button', { name: 'Copy message as Markdown' }).click();
  await page.waitForFunction(() => navigator.clipboard.readText().then((t) => t === 'list two things'));
});

test('export a conversation as Markdown, JSONL and HTML; the JSONL imports back whole; a bad file changes nothing', async () => {
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  await send('export me please');
  await page.locator('.msg.assistant:not(.streaming) .msg-body', { hasText: 'You said: export me please' }).waitFor();
  /** @param {string} format @returns {Promise<{name: string, text: string}>} */
  const exportAs = async (format) => {
    await page.getByRole('button', { name: 'More actions for export me please' }).click();
    await page.getByRole('button', { name: 'Export conversation export me please' }).click();
    const dialog = page.getByRole('dialog', { name: /Export/ });
    await dialog.getByLabel('Format').selectOption(format);
    const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', { name: 'Export' }).click()]);
    return { name: download.suggestedFilename(), text: await readFile(/** @type {string} */ (await download.path()), 'utf8') };
  };
  const md = await exportAs('Markdown');
  assert.equal(md.name, 'export-me-please.md');
  assert.match(md.text, /^# export me please\n[\s\S]*## You · [^\n]+\n\nexport me please\n[\s\S]*You said: export me please/);
  const html = await exportAs('HTML page');
  assert.match(html.text, /^<!doctype html>/);
  assert.match(html.text, /You said: export me please/);
  assert.doesNotMatch(html.text, /<script/);
  const jsonl = await exportAs('JSONL (importable)');
  const lines = jsonl.text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.ok(lines.some((e) => e.type === 'user_message' && e.data.text === 'export me please'));
  // Import it back: a new conversation with the same messages.
  const before = await page.locator('.conv-item').count();
  await page
    .getByLabel('Choose a conversation file (JSONL) to import')
    .setInputFiles({ name: 'imported-chat.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(jsonl.text) });
  await page.getByRole('link', { name: /imported chat/ }).waitFor();
  await page.locator('.msg.user', { hasText: 'export me please' }).waitFor();
  await page.locator('.msg.assistant .msg-body', { hasText: 'You said: export me please' }).waitFor();
  assert.equal(await page.locator('.conv-item').count(), before + 1);
  // A damaged file: a clear error, no conversation added.
  await page
    .getByLabel('Choose a conversation file (JSONL) to import')
    .setInputFiles({ name: 'broken.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(`${jsonl.text}{oops\n`) });
  await page
    .getByRole('alert')
    .filter({ hasText: /Not imported: Line \d+ is not JSON/ })
    .waitFor();
  assert.equal(await page.locator('.conv-item').count(), before + 1);
  await page
    .getByRole('alert')
    .filter({ hasText: /Not imported/ })
    .getByRole('button', { name: 'Dismiss' })
    .click();
});

/** A port on 127.0.0.1 where nothing listens (taken, then released). */
async function closedPort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const port = /** @type {import('node:net').AddressInfo} */ (server.address()).port;
  await new Promise((resolve) => server.close(() => resolve(undefined)));
  return port;
}

/** @param {string} baseUrl */
async function setBaseUrl(baseUrl) {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await page
    .getByRole('dialog', { name: /Settings/ })
    .getByLabel('Base URL', { exact: true })
    .fill(baseUrl);
  await saveSettings(page);
}

test('errors for local addresses: a server that is not running is named as such; a base URL without /v1 is suggested the fix', async () => {
  await setBaseUrl(`http://127.0.0.1:${await closedPort()}/v1`);
  await send('anyone there?');
  const down = page.getByRole('alert').filter({ hasText: 'The reply failed' });
  await down.waitFor();
  const text = await down.innerText();
  assert.match(text, /Nothing answered at http:\/\/127\.0\.0\.1:\d+\. Is the .* server running\? Start it and retry\./);
  assert.doesNotMatch(text, /internet|your connection/i);
  // The scripted server without "/v1": it answers 404, and the error names the likely fix.
  await setBaseUrl(llm.url);
  await send('wrong path');
  const missing = page.getByRole('alert').filter({ hasText: 'HTTP 404' });
  await missing.waitFor();
  assert.match(await missing.innerText(), new RegExp(`missing "/v1": try ${llm.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/v1`));
  await setBaseUrl(`${llm.url}/v1`);
});

test('Esc stops a streaming reply; the partial text is kept', async () => {
  llm.enqueue({ text: 'alpha beta gamma delta epsilon zeta', dropAfter: 3, holdOpen: true });
  await send('stream and be stopped');
  await page.locator('.msg.streaming .msg-body', { hasText: 'alpha' }).waitFor();
  await page.keyboard.press('Escape');
  await page.getByText('Stopped — the reply above is incomplete.').waitFor();
  await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'hidden' });
  assert.equal(await page.getByRole('button', { name: 'Send' }).isEnabled(), true);
  llm.dropOpen();
});

test('edit and resend makes a version (‹ 1/2 ›) the model sees alone; switching and reloading keep it; regenerate adds a reply version; \
exported and imported, the versions stay', async () => {
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  await send('What is two plus two?');
  await page.locator('.msg.assistant', { hasText: 'You said: What is two plus two?' }).waitFor();
  const first = page.locator('.msg.user', { hasText: 'What is two plus two?' });
  await first.getByRole('button', { name: 'Edit this message' }).click();
  const editor = page.getByRole('textbox', { name: 'Edit message' });
  await editor.fill('What is three plus three?');
  await editor.press('Enter');
  await page.locator('.msg.assistant', { hasText: 'You said: What is three plus three?' }).waitFor();
  // The model got the edited message only, not both versions.
  const sent = llm.requests.at(-1)?.body.messages.map((/** @type {any} */ m) => m.content);
  assert.ok(sent.includes('What is three plus three?'));
  assert.ok(!sent.some((/** @type {string} */ c) => c.includes('two plus two')));
  assert.equal(await page.locator('.msg.user', { hasText: 'two plus two' }).count(), 0, 'the first version is not shown beside it');
  const versions = page.getByRole('group', { name: 'Versions of this message' });
  // ‹ and › are drawn icons (hidden from assistive technology): the text is the position.
  assert.equal(await versions.innerText().then((t) => t.replace(/\s+/g, '')), '2/2');
  assert.equal(await versions.locator('button svg.icon[aria-hidden="true"]').count(), 2);
  await versions.getByRole('button', { name: 'Previous version of this message' }).click();
  await page.locator('.msg.assistant', { hasText: 'You said: What is two plus two?' }).waitFor();
  assert.equal(await page.locator('.msg.user', { hasText: 'three plus three' }).count(), 0);
  await page.reload();
  await page.locator('.msg.assistant', { hasText: 'You said: What is two plus two?' }).waitFor();
  assert.equal(
    (await page.getByRole('group', { name: 'Versions of this message' }).innerText()).replace(/\s+/g, ''),
    '1/2',
    'the version shown survives a reload',
  );
  // The next message continues the version on screen.
  await send('And then?');
  await page.locator('.msg.assistant', { hasText: 'You said: And then?' }).waitFor();
  const history = llm.requests.at(-1)?.body.messages.map((/** @type {any} */ m) => m.content);
  assert.ok(history.includes('What is two plus two?') && !history.includes('What is three plus three?'));

  // Regenerate: another reply to the same message, the first kept as a version.
  llm.enqueue({ text: 'A second answer.' });
  await page
    .locator('.msg.assistant', { hasText: 'You said: And then?' })
    .getByRole('button', { name: /Regenerate this reply/ })
    .click();
  await page.locator('.msg.assistant', { hasText: 'A second answer.' }).waitFor();
  assert.equal(await page.locator('.msg.assistant', { hasText: 'You said: And then?' }).count(), 0);
  assert.equal(await page.locator('.msg.user', { hasText: 'And then?' }).count(), 1, 'no second copy of the message');
  const replyVersions = page.getByRole('group', { name: 'Versions of this reply' });
  assert.equal((await replyVersions.innerText()).replace(/\s+/g, ''), '2/2');
  await replyVersions.getByRole('button', { name: 'Previous version of this reply' }).click();
  await page.locator('.msg.assistant', { hasText: 'You said: And then?' }).waitFor();

  // Every version is in the exported event log.
  const events = /** @type {string} */ (await readWorkspaceFile(page, '{conversation}/events.jsonl'));
  for (const text of ['two plus two', 'three plus three', 'A second answer.']) assert.ok(events.includes(text), text);
  assert.ok(events.includes('"type":"branch"'));

  // Exported: Markdown and HTML hold the version on screen; the JSONL every version, and its import
  // is the same conversation with the same versions switchable.
  /** @param {string} format @returns {Promise<string>} */
  const exportAs = async (format) => {
    const row = page.locator('.conv-item.active');
    await row.getByRole('button', { name: /^More actions for/ }).click();
    await row.getByRole('button', { name: /^Export conversation/ }).click();
    const dialog = page.getByRole('dialog', { name: /Export/ });
    await dialog.getByLabel('Format').selectOption(format);
    const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', { name: 'Export' }).click()]);
    return readFile(/** @type {string} */ (await download.path()), 'utf8');
  };
  for (const text of [await exportAs('Markdown'), await exportAs('HTML page')]) {
    assert.match(text, /two plus two[\s\S]*You said: What is two plus two\?[\s\S]*You said: And then\?/);
    assert.doesNotMatch(text, /three plus three|A second answer/, 'only the version on screen');
  }
  const jsonl = await exportAs('JSONL (importable)');
  await page
    .getByLabel('Choose a conversation file (JSONL) to import')
    .setInputFiles({ name: 'branched-sums.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(jsonl) });
  await page.getByRole('link', { name: /branched sums/ }).waitFor();
  await page.locator('.msg.assistant', { hasText: 'You said: And then?' }).waitFor();
  const importedMessage = page.getByRole('group', { name: 'Versions of this message' });
  assert.equal((await importedMessage.innerText()).replace(/\s+/g, ''), '1/2', 'the version shown when exported');
  assert.equal((await page.getByRole('group', { name: 'Versions of this reply' }).innerText()).replace(/\s+/g, ''), '1/2');
  await importedMessage.getByRole('button', { name: 'Next version of this message' }).click();
  await page.locator('.msg.assistant', { hasText: 'You said: What is three plus three?' }).waitFor();
  assert.equal(await page.locator('.msg.user', { hasText: 'two plus two' }).count(), 0);
  assert.equal((await importedMessage.innerText()).replace(/\s+/g, ''), '2/2');
  // Back to the first version: it lands where that version was last continued (the regenerated reply).
  await importedMessage.getByRole('button', { name: 'Previous version of this message' }).click();
  await page.locator('.msg.assistant', { hasText: 'A second answer.' }).waitFor();
  const importedReply = page.getByRole('group', { name: 'Versions of this reply' });
  assert.equal((await importedReply.innerText()).replace(/\s+/g, ''), '2/2');
  await importedReply.getByRole('button', { name: 'Previous version of this reply' }).click();
  await page.locator('.msg.assistant', { hasText: 'You said: And then?' }).waitFor();
});

test("keyboard focus stays on the message control after Regenerate, ‹ › and Cancel; \
an edit's draft survives the transcript being drawn again", async () => {
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  await page.getByText('Start the conversation: type a message below.').waitFor();
  await send('Name a colour');
  await page.locator('.msg.assistant:not(.streaming)', { hasText: 'You said: Name a colour' }).waitFor();
  await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'hidden' });
  const focusedLabel = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.tagName);
  // Regenerate by keyboard: the new reply's Regenerate button has the focus.
  llm.enqueue({ text: 'Teal.' });
  await page.getByRole('button', { name: /Regenerate this reply/ }).focus();
  await page.keyboard.press('Enter');
  await page.locator('.msg.assistant:not(.streaming)', { hasText: 'Teal.' }).waitFor();
  await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'hidden' });
  await waitInPage(page, async () => /^Regenerate this reply/.test(document.activeElement?.getAttribute('aria-label') ?? ''), undefined, {
    what: 'the focus back on Regenerate',
  });
  // ‹ by keyboard: the focus stays on the version buttons of that reply.
  await page.getByRole('button', { name: 'Previous version of this reply' }).focus();
  await page.keyboard.press('Enter');
  await page.locator('.msg.assistant', { hasText: 'You said: Name a colour' }).waitFor();
  assert.equal(await focusedLabel(), 'Next version of this reply', 'the previous button is now disabled: its neighbour has the focus');
  // Cancel an edit: back on Edit.
  await page.locator('.msg.user', { hasText: 'Name a colour' }).getByRole('button', { name: 'Edit this message' }).click();
  const editor = page.getByRole('textbox', { name: 'Edit message' });
  await editor.fill('Name a fruit');
  await editor.press('Escape');
  await editor.waitFor({ state: 'detached' });
  assert.equal(await focusedLabel(), 'Edit this message');
  // A draft survives the transcript being drawn again (here: the model's title arriving, a version
  // switch from another tab would do the same).
  await page.locator('.msg.user', { hasText: 'Name a colour' }).getByRole('button', { name: 'Edit this message' }).click();
  await editor.fill('Name a vegetable');
  await page.getByRole('button', { name: 'Next version of this reply' }).click();
  await page.locator('.msg.assistant', { hasText: 'Teal.' }).waitFor();
  assert.equal(await editor.inputValue(), 'Name a vegetable', 'the draft is kept');
  await editor.press('Escape');
});

test('an offline indicator appears with the network gone and leaves when it is back', async () => {
  const banner = page.getByRole('status').filter({ hasText: 'You are offline' });
  assert.equal(await banner.count(), 0, 'control: online, no indicator');
  await browser.context.setOffline(true);
  try {
    await banner.waitFor();
    assert.match(await banner.innerText(), /keep working/);
  } finally {
    await browser.context.setOffline(false);
  }
  await banner.waitFor({ state: 'detached' });
});

test('offline, cloning a git repository says "You are offline", not CORS; online, the same failure keeps the CORS advice', async () => {
  const home = await fx.newPage(browser.context);
  /** Asks to clone `url` from the home screen; returns the alert the failure shows. @param {string} url */
  const clone = async (url) => {
    await home.getByRole('button', { name: 'Clone a git repository' }).click();
    const dialog = home.getByRole('dialog', { name: 'Clone a git repository' });
    await dialog.getByLabel('Repository URL').fill(url);
    await dialog.getByRole('button', { name: 'Clone' }).click();
    // Said in the dialog, which stays open with the URL (issue 37).
    const alert = dialog.getByRole('alert').filter({ hasText: /could not be reached|could not reach/ });
    await alert.waitFor();
    const text = await alert.innerText();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    return text;
  };
  try {
    await home.goto(`${app.url}#home`);
    // Control, online: a port nothing listens on fails the same way CORS does, and is explained as before.
    const closed = createServer();
    await new Promise((r) => closed.listen(0, '127.0.0.1', () => r(undefined)));
    const port = /** @type {import('node:net').AddressInfo} */ (closed.address()).port;
    await new Promise((r) => closed.close(r));
    const online = await clone(`http://127.0.0.1:${port}/team/repo.git`);
    assert.match(online, /does not allow requests from web pages \(CORS\)\. Give a CORS proxy/);
    assert.doesNotMatch(online, /You are offline/);
    // Offline (no request leaves the browser): the message says so.
    await browser.context.setOffline(true);
    try {
      const offline = await clone('https://git.example.com/team/repo.git');
      assert.match(
        offline,
        new RegExp(
          String.raw`You are offline, so the git server \(https:\/\/git\.example\.com\/team\/repo\.` +
            String.raw`git\) could not be reached\. Reconnect and try again\.`,
        ),
      );
      assert.doesNotMatch(offline, /CORS/);
    } finally {
      await browser.context.setOffline(false);
    }
    assert.equal(await home.getByRole('link', { name: /repo/ }).count(), 0, 'the failed clones left no workspace');
  } finally {
    await home.close();
  }
});

test('"?" lists every keyboard shortcut, the panels\' included; typing "?" in the message does not', async () => {
  await message().fill('');
  await message().pressSequentially('why?');
  assert.equal(await message().inputValue(), 'why?');
  assert.equal(await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).count(), 0, 'control: "?" typed into the message box');
  await message().fill('');
  await page.locator('.scroller').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('?');
  const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await dialog.waitFor();
  const text = await dialog.innerText();
  for (const want of [/Esc\s+Stop the reply/, /Enter\s+Send the message/, /Alt\s*\+\s*\d\s+Open Files/]) assert.match(text, want);
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
});

test('Enter in the "New workspace" dialog creates the workspace; Escape and Cancel do not; rows show dates and provider', async () => {
  await page.goto(app.url);
  await page.getByRole('heading', { name: 'Workspaces' }).waitFor();
  await page.getByRole('button', { name: 'New workspace' }).click();
  await page.getByRole('dialog').getByLabel('Workspace name').fill('Made with Enter');
  await page.getByRole('dialog').getByLabel('Workspace name').press('Enter');
  await page.getByRole('heading', { name: 'Made with Enter', level: 1 }).waitFor();
  await page.goto(app.url);
  await page.getByRole('button', { name: 'New workspace' }).click();
  await page.getByRole('dialog').getByLabel('Workspace name').fill('Not this one');
  await page.getByRole('dialog').getByLabel('Workspace name').press('Escape');
  await page.getByRole('dialog').waitFor({ state: 'detached' });
  await page.getByRole('button', { name: 'New workspace' }).click();
  await page.getByRole('dialog').getByLabel('Workspace name').fill('Nor this one');
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
  await page.getByRole('dialog').waitFor({ state: 'detached' });
  assert.equal(await page.getByRole('link', { name: /Not this one|Nor this one/ }).count(), 0);
  assert.equal(await page.getByRole('link', { name: /Made with Enter/ }).count(), 1);
  // Each row says when it was made, when it was last used and which provider it talks to.
  const made = await page.getByRole('link', { name: /Made with Enter/ }).innerText();
  assert.match(made, /Created .+ · last used .+ · No provider yet/);
  assert.match(await page.getByRole('link', { name: /My workspace/ }).innerText(), /last used .+ · OpenAI.* · test-model/);
});
