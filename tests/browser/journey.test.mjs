// The user journey of issue 2 in a real Chromium: workspaces, first run, settings with
// test connection, streamed Markdown chat, stop, errors with retry, conversations, and
// everything back after a reload and after a browser restart — with no request leaving
// this machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { offMachine, saveSettings, storedConfig, changeStoredConfig } from './helpers.mjs';
import { useFixture } from './fixture.mjs';

const KEY = 'sk-test-journey-0123456789';
const fx = await useFixture({ llm: { apiKey: KEY, models: ['test-model', 'claude-test'] }, page: 'blank' });
const { app, llm } = fx;
// Both are new after the browser restart (the last test).
let { browser, page } = fx;

const message = () => page.getByRole('textbox', { name: 'Message' });
const lastAssistant = () => page.locator('.msg.assistant:not(.streaming) .msg-body').last();

test('home: default workspace, create, rename, delete with confirmation', async () => {
  await page.goto(app.url);
  await page.getByRole('heading', { name: 'Workspaces' }).waitFor();
  await page.getByRole('link', { name: /My workspace/ }).waitFor();
  await page.getByRole('button', { name: 'New workspace' }).click();
  await page.getByRole('dialog').getByLabel('Workspace name').fill('Scratch');
  await page.getByRole('button', { name: 'Create' }).click();
  await page.getByRole('heading', { name: 'Scratch', level: 1 }).waitFor();
  assert.match(page.url(), /#workspace\/w/);
  const scratchId = /#workspace\/([^/]+)/.exec(page.url())?.[1] ?? '';
  // What a workspace keeps in the page's storage besides its files: skills choices, MCP servers and their sealed tokens.
  const planted = [
    `clawser_skills_enabled_${scratchId}`,
    `clawser_mcp_servers_${scratchId}`,
    `clawser_mcp_secret_${scratchId}_abcd1234`,
    `clawser_mcp_oauth_${scratchId}_abcd1234`,
  ];
  await changeStoredConfig(page, Object.fromEntries(planted.map((k) => [k, 'v1:sealed'])));
  const plantedNow = await storedConfig(page);
  assert.deepEqual(
    planted.filter((k) => k in plantedNow),
    planted,
    'stored before the delete',
  );
  // The app reads them afresh (it would hear of another tab's change anyway, a moment later).
  await page.reload();
  await page.getByRole('link', { name: /Workspaces/ }).click();
  await page.getByRole('button', { name: 'Rename workspace Scratch' }).click();
  await page.getByRole('dialog').getByLabel('Workspace name').fill('Scratch 2');
  await page.getByRole('dialog').getByRole('button', { name: 'Rename', exact: true }).click();
  await page.getByRole('link', { name: /Scratch 2/ }).waitFor();
  // Cancelling the confirmation keeps it; confirming deletes it.
  await page.getByRole('button', { name: 'Delete workspace Scratch 2' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
  await page.getByRole('link', { name: /Scratch 2/ }).waitFor();
  await page.getByRole('button', { name: 'Delete workspace Scratch 2' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete workspace' }).click();
  await page.getByRole('link', { name: /Scratch 2/ }).waitFor({ state: 'detached' });
  assert.equal(await page.getByRole('link', { name: /My workspace/ }).count(), 1);
  const left = await storedConfig(page);
  assert.deepEqual(
    planted.filter((k) => k in left),
    [],
    'deleted with the workspace',
  );
});

test('first run says which no-key options exist and offers an API key', async () => {
  await page.getByRole('link', { name: /My workspace/ }).click();
  const card = page.getByRole('region', { name: 'Choose how Clawser thinks' });
  await card.waitFor();
  await card.getByText(/Not found on localhost:11434/).waitFor();
  await card.getByText(/Not found on localhost:1234/).waitFor();
  assert.ok(await card.getByText(/Chrome built-in AI/).count());
  assert.equal(await message().isDisabled(), true, 'no empty chat that errors');
  await card.getByRole('button', { name: 'Add an API key' }).click();
  await page.getByRole('dialog', { name: /Settings/ }).waitFor();
  assert.match(page.url(), /\/settings$/);
});

test('settings: test connection reports a bad key, a wrong model, then success; key stored encrypted', async () => {
  const dialog = page.getByRole('dialog', { name: /Settings/ });
  await dialog.getByLabel('Provider', { exact: true }).selectOption('openai');
  await dialog.getByLabel('Model', { exact: true }).fill('test-model');
  await dialog.getByLabel('API key', { exact: true }).fill('sk-wrong-key-000000000');
  await dialog.getByLabel('Base URL', { exact: true }).fill(`${llm.url}/v1`);
  const result = dialog.getByRole('status').filter({ hasText: /[✓✗]/ });
  await dialog.getByRole('button', { name: 'Test connection' }).click();
  await result.filter({ hasText: /rejected the API key/ }).waitFor();
  assert.doesNotMatch(await result.innerText(), /sk-wrong-key/);
  await dialog.getByLabel('API key', { exact: true }).fill(KEY);
  await dialog.getByLabel('Model', { exact: true }).fill('no-such-model');
  await dialog.getByRole('button', { name: 'Test connection' }).click();
  await result.filter({ hasText: /model "no-such-model"/ }).waitFor();
  await dialog.getByLabel('Model', { exact: true }).fill('test-model');
  await dialog.getByRole('button', { name: 'Test connection' }).click();
  await result.filter({ hasText: /Connected to OpenAI/ }).waitFor();
  await saveSettings(page);
  // Stored sealed (and neither in the settings' files nor in localStorage in clear).
  const stored = JSON.stringify(await storedConfig(page));
  assert.doesNotMatch(stored, new RegExp(KEY));
  assert.match(stored, /clawser_secret_/);
  assert.doesNotMatch(await page.evaluate(() => JSON.stringify({ ...localStorage })), new RegExp(KEY));
});

test('chat streams token by token as Markdown, sanitized, with copy buttons', async () => {
  // Paused after "Streaming **bold** words" (the role piece, then three words) until the test has looked.
  llm.enqueue({
    text: 'Streaming **bold** words arrive one by one and then a code block:\n\n```js\nconsole.log("hi")\n```\n',
    pauseAfter: 4,
  });
  await message().fill('Hello Clawser');
  await page.getByRole('button', { name: 'Send' }).click();
  // Mid-stream: Stop is offered and only part of the text is there.
  await page.getByRole('button', { name: 'Stop' }).waitFor();
  await page.locator('.msg.streaming .msg-body strong', { hasText: 'bold' }).waitFor();
  const partial = await page.locator('.msg.streaming .msg-body').innerText();
  assert.doesNotMatch(partial, /console\.log/);
  llm.resume();
  await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'hidden' });
  await lastAssistant().locator('code', { hasText: 'console.log("hi")' }).waitFor();
  assert.equal(await lastAssistant().getByRole('button', { name: 'Copy code' }).count(), 1);
  assert.equal(await page.getByRole('link', { name: /Hello Clawser/ }).count(), 1, 'conversation titled by its first message');
  const sent = llm.requests.at(-1);
  assert.equal(sent?.headers.authorization, `Bearer ${KEY}`);
  assert.equal(sent?.body.messages.at(-1).content, 'Hello Clawser');
  assert.equal(sent?.body.messages[0].role, 'system');
});

test('model output cannot inject scripts, handlers, forms, frames or remote images', async () => {
  llm.enqueue({
    text:
      'Safe text <script>window.__pwned=1</script> <img src=x onerror="window.__pwned=2"> ' +
      '[link](javascript:window.__pwned=3) <iframe src="https://evil.example"></iframe> <form ' +
      'action="https://evil.example"><input name=q></form> <div style="position:fixed;inset:0">overlay</div> ' +
      '![track](https://evil.example/pixel.png)',
  });
  await message().fill('show me');
  await page.getByRole('button', { name: 'Send' }).click();
  await lastAssistant().getByText('Safe text').waitFor();
  const body = lastAssistant();
  assert.equal(await body.locator('script, iframe, form, input:not([type=checkbox]), [style], [onerror]').count(), 0);
  assert.equal(await body.locator('a[href^="javascript"]').count(), 0);
  assert.equal(await body.locator('img[src^="http"]').count(), 0);
  assert.equal(await page.evaluate(() => /** @type {any} */ (window).__pwned), undefined);
});

test('Stop cancels a reply; the partial text is kept and marked', async () => {
  // Paused after "one two" until the test has pressed Stop (no race with a timer).
  llm.enqueue({ text: 'one two three four five six seven eight nine ten eleven twelve', pauseAfter: 3 });
  await message().fill('count slowly');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.locator('.msg.streaming .msg-body', { hasText: 'two' }).waitFor();
  await page.getByRole('button', { name: 'Stop' }).click();
  await page.getByText('Stopped — the reply above is incomplete.').waitFor();
  llm.resume(); // the aborted connection is gone; nothing more reaches the page
  assert.doesNotMatch(await lastAssistant().innerText(), /twelve/);
  assert.equal(await page.getByRole('button', { name: 'Send' }).isEnabled(), true);
});

test('a provider error shows inline with Retry; the composer keeps the text', async () => {
  // The first try and the reliability layer's two retries all fail.
  for (let i = 0; i < 3; i++) llm.enqueue({ status: 500, body: { error: { message: 'upstream exploded' } } });
  await message().fill('please work');
  await page.getByRole('button', { name: 'Send' }).click();
  const alert = page.getByRole('alert').filter({ hasText: 'The reply failed' });
  await alert.waitFor();
  assert.match(await alert.innerText(), /server error \(HTTP 500\)/);
  assert.equal(await message().inputValue(), 'please work');
  await alert.getByRole('button', { name: 'Retry' }).click();
  await lastAssistant().getByText('You said: please work').waitFor();
  await alert.waitFor({ state: 'detached' });
  assert.equal(await message().inputValue(), '');
  // The failed attempt is not sent to the model twice.
  const msgs = llm.requests.at(-1)?.body.messages.filter((/** @type {any} */ m) => m.content === 'please work');
  assert.equal(msgs.length, 1);
});

test('a connection dropped mid-reply is reported, with the partial text shown', async () => {
  // The server sends part of the reply, the test waits until the app shows it, then the
  // connection is cut (a browser discards unread data when a stream errors, so cutting at
  // once would race with reading).
  llm.enqueue({ text: 'alpha beta gamma delta epsilon', dropAfter: 4, holdOpen: true });
  await message().fill('drop please');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.locator('.msg.streaming .msg-body', { hasText: 'gamma' }).waitFor();
  llm.dropOpen();
  const alert = page.getByRole('alert').filter({ hasText: 'dropped' });
  await alert.waitFor();
  await page.locator('.msg.error .partial', { hasText: 'alpha' }).waitFor();
});

test('conversations: new, switch, rename, delete; Anthropic works the same', async () => {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: /Settings/ });
  await dialog.getByLabel('Provider', { exact: true }).selectOption('anthropic');
  await dialog.getByLabel('Model', { exact: true }).fill('claude-test');
  await dialog.getByLabel('API key', { exact: true }).fill(KEY);
  await dialog.getByLabel('Base URL', { exact: true }).fill(llm.url);
  await saveSettings(page);
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  await message().fill('Second chat via Anthropic');
  await page.getByRole('button', { name: 'Send' }).click();
  await lastAssistant().getByText('You said: Second chat via Anthropic').waitFor();
  const req = llm.requests.at(-1);
  assert.equal(req?.path, '/v1/messages');
  assert.equal(req?.headers['anthropic-dangerous-direct-browser-access'], 'true');
  assert.equal(req?.body.messages.length, 1, 'a new conversation starts empty');
  // Switch back to the first conversation.
  await page.getByRole('link', { name: /Hello Clawser/ }).click();
  await page.locator('.msg.user', { hasText: 'Hello Clawser' }).waitFor();
  assert.equal(await page.locator('.msg.user', { hasText: 'Second chat via Anthropic' }).count(), 0);
  // Rename and delete the second one.
  await page.getByRole('button', { name: 'More actions for Second chat via Anthropic' }).click();
  await page.getByRole('button', { name: 'Rename conversation Second chat via Anthropic' }).click();
  await page.getByRole('dialog').getByLabel('Conversation title').fill('Renamed chat');
  await page.getByRole('dialog').getByRole('button', { name: 'Rename', exact: true }).click();
  await page.getByRole('link', { name: /Renamed chat/ }).waitFor();
  await page.reload();
  await page.getByRole('link', { name: /Renamed chat/ }).waitFor();
  await page.getByRole('button', { name: 'More actions for Renamed chat' }).click();
  await page.getByRole('button', { name: 'Delete conversation Renamed chat' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete conversation' }).click();
  await page.getByRole('link', { name: /Renamed chat/ }).waitFor({ state: 'detached' });
  await page.reload();
  await page.getByRole('link', { name: /Hello Clawser/ }).waitFor();
  assert.equal(await page.getByRole('link', { name: /Renamed chat/ }).count(), 0);
});

test('everything is back after a browser restart; back/forward work; nothing left 127.0.0.1', async () => {
  // The latest turn's Undo (among its reply's actions: the turn changed nothing) comes once the conversation's undo
  // records are read: part of what must come back.
  await page.locator('.msg.assistant').last().getByRole('button', { name: 'Undo turn' }).waitFor();
  const transcript = await page.locator('.messages').innerText();
  const url = page.url();
  browser = await fx.relaunch();
  page = await fx.newPage();
  await page.goto(url);
  await page.locator('.msg.user', { hasText: 'Hello Clawser' }).waitFor();
  await lastAssistant().waitFor();
  await page.locator('.msg.assistant').last().getByRole('button', { name: 'Undo turn' }).waitFor();
  assert.equal(await page.locator('.messages').innerText(), transcript);
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: /Settings/ });
  assert.equal(await dialog.getByLabel('Provider', { exact: true }).inputValue(), 'anthropic');
  assert.match((await dialog.getByLabel('API key', { exact: true }).getAttribute('placeholder')) ?? '', /Saved/);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await page.getByRole('link', { name: /Workspaces/ }).click();
  await page.getByRole('heading', { name: 'Workspaces' }).waitFor();
  await page.goBack();
  await page.locator('.msg.user', { hasText: 'Hello Clawser' }).waitFor();
  await page.goForward();
  await page.getByRole('heading', { name: 'Workspaces' }).waitFor();
  assert.deepEqual(offMachine(browser.requests), []);
});
