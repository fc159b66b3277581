// The agent journey of issue 3 in a real Chromium against the scripted LLM server:
// tool calls in OpenAI and Anthropic SSE, approval (allow / deny / always), the policy
// surviving a reload, files really written to OPFS, a blocked traversal, a leaked key
// redacted on screen and in the stored log.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { offMachine, saveSettings, readWorkspaceFile, sendMessage, appView, storedConfigUntil } from './helpers.mjs';
import { useFixture } from './fixture.mjs';

const { llm, browser, page } = await useFixture({
  llm: {},
  settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1` }),
});

const send = (/** @type {string} */ text) => sendMessage(page, text);
const storedEvents = async () => /** @type {string} */ (await readWorkspaceFile(page, '{conversation}/events.jsonl'));

test('the agent writes a note after approval, lists files, and shows each call as a card', async () => {
  llm.enqueue(
    {
      text: 'I will save it.',
      toolCalls: [{ id: 'call_w', name: 'fs_write', arguments: { path: 'notes/x.md', content: '# X\nX is a letter.' } }],
    },
    { toolCalls: [{ id: 'call_l', name: 'fs_list', arguments: { path: '/', recursive: true } }] },
    { text: 'Saved **notes/x.md**; your workspace has 1 file.' },
  );
  await send('save a note about X to notes/x.md, then list my files');
  const approval = page.getByRole('dialog', { name: 'Allow “fs_write”?' });
  await approval.waitFor();
  assert.match(await approval.locator('pre').innerText(), /"path": "notes\/x.md"/);
  await approval.getByRole('button', { name: 'Allow once' }).click();
  await page.locator('.msg.assistant .msg-body', { hasText: 'your workspace has 1 file' }).waitFor();
  assert.equal(await readWorkspaceFile(page, 'notes/x.md'), '# X\nX is a letter.');
  // The turn changed a file, so it was committed (auto-commit is on by default), named after the turn.
  await page.getByText(/The agent's file changes were committed \([0-9a-f]{7}\)/).waitFor();
  const log = await page.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const { ScopedFileSystem } = await import('/web/storage/scoped-fs.js');
    const { WorkspaceGit } = await import('/web/git/git.js');
    const fs = new OpfsFileSystem();
    const repo = new WorkspaceGit(new ScopedFileSystem(fs, `clawser_workspaces/${location.hash.split('/')[1]}`));
    const commits = await repo.log();
    const files = commits[0] ? (await repo.diffCommit(commits[0].oid)).map((d) => d.path) : [];
    fs.terminate();
    return { messages: commits.map((c) => c.message), files };
  });
  assert.match(log.messages[0], /^Agent: save a note about X to notes\/x\.md, then list my files\n\nConversation: .+\nTools: fs_write$/);
  assert.deepEqual(log.files, ['notes/x.md']);
  const cards = page.locator('.tool-card');
  assert.equal(await cards.count(), 2);
  await cards.nth(1).locator('summary').click();
  assert.match(await cards.nth(1).locator('.tool-output').innerText(), /notes\/x\.md \(18 B\)/);
  // The approved call's time is its own; the time the dialog waited for the user is shown apart.
  assert.match(
    await cards.nth(0).locator('.tool-state').innerText(),
    /^✓ · [\d.]+ (?:ms|s) \(after [\d.]+ (?:ms|s|min \d+ s) waiting for approval\)$/,
  );
  assert.match(
    await cards.nth(1).locator('.tool-state').innerText(),
    /^✓ · [\d.]+ (?:ms|s)$/,
    'control: a call that needed no approval shows no wait',
  );
  // The model got the results in the next requests, in the OpenAI wire format.
  const third = llm.requests.at(-1)?.body;
  assert.deepEqual(
    third.messages.slice(-4).map((/** @type {any} */ m) => m.role),
    ['assistant', 'tool', 'assistant', 'tool'],
  );
  assert.ok(third.tools.some((/** @type {any} */ t) => t.function.name === 'fs_write'));
  assert.equal(await cards.nth(1).getByText('rewritten by a hook').count(), 0);
  await cards.nth(1).locator('summary').click();
  // A reload shows the same transcript.
  // (The auto-commit notice is a one-off status line outside the transcript.) The latest turn's
  // Undo row is drawn once its module has loaded, which may come after the commit notice: it is
  // part of what must come back, so both sides wait for it.
  await page.locator('.messages li.turn-undo', { hasText: 'This turn changed 1 file.' }).waitFor();
  const before = await page.locator('.messages').innerText();
  await page.reload();
  await page.locator('.tool-card').nth(1).waitFor();
  await appView(page); // the first view, painted before the app, has no Undo row yet
  await page.locator('.messages li.turn-undo').waitFor();
  assert.equal(await page.locator('.messages').innerText(), before);
});

test('deny never runs the tool and tells the model; always allow persists across reload', async () => {
  llm.enqueue(
    { toolCalls: [{ id: 'call_d', name: 'fs_delete', arguments: { path: 'notes/x.md' } }] },
    { text: 'Understood, I did not delete it.' },
  );
  await send('delete my note');
  const approval = page.getByRole('dialog', { name: 'Allow “fs_delete”?' });
  await approval.getByRole('button', { name: 'Deny' }).click();
  await page.getByText('Understood, I did not delete it.').waitFor();
  assert.equal(await readWorkspaceFile(page, 'notes/x.md'), '# X\nX is a letter.');
  const denied = llm.requests.at(-1)?.body.messages.at(-1);
  assert.equal(denied.role, 'tool');
  assert.match(denied.content, /denied/);

  // "Always allow" stops the questions for that tool, under the default (supervised) autonomy too.
  llm.enqueue({ toolCalls: [{ id: 'a1', name: 'fs_write', arguments: { path: 'a.txt', content: 'one' } }] }, { text: 'first done' });
  await send('write a');
  await page.getByRole('dialog', { name: 'Allow “fs_write”?' }).getByRole('button', { name: 'Always allow' }).click();
  await page.getByText('first done').waitFor();
  await page.reload();
  await page.getByRole('button', { name: 'Tools', exact: true }).click();
  assert.equal(await page.getByRole('combobox', { name: 'Policy for fs_write' }).inputValue(), 'auto');
  await page.locator('#policy-fs_write-d', { hasText: 'Your choice for this workspace.' }).waitFor();
  await page.getByRole('button', { name: 'Back to chat' }).click();
  llm.enqueue({ toolCalls: [{ id: 'a2', name: 'fs_write', arguments: { path: 'b.txt', content: 'two' } }] }, { text: 'second done' });
  await send('write b');
  await page.getByText('second done').waitFor();
  assert.equal(await page.getByRole('dialog', { name: /Allow/ }).count(), 0);
  assert.equal(await readWorkspaceFile(page, 'b.txt'), 'two');
});

test('Tools panel: setting a tool to denied hides it from the model and survives reload', async () => {
  await page.getByRole('button', { name: 'Tools', exact: true }).click();
  await page.getByRole('combobox', { name: 'Policy for web_fetch' }).selectOption('denied');
  // Settings are written in the background: the reload comes once the choice is stored.
  await storedConfigUntil(
    page,
    (e) => Object.entries(e).some(([k, v]) => k.startsWith('clawser_tool_perms_') && /"web_fetch":"denied"/.test(v)),
    'the Off stored',
  );
  await page.reload();
  assert.equal(await page.getByRole('combobox', { name: 'Policy for web_fetch' }).inputValue(), 'denied');
  await page.getByRole('button', { name: 'Back to chat' }).click();
  await send('hello');
  await page.getByText('You said: hello').waitFor();
  const tools = llm.requests.at(-1)?.body.tools.map((/** @type {any} */ t) => t.function.name);
  assert.ok(!tools.includes('web_fetch'));
  assert.ok(tools.includes('fs_read'));
});

test('a traversal attempt is blocked and shown; a leaked key is redacted on screen and in the stored log', async () => {
  llm.enqueue(
    { toolCalls: [{ id: 'tr', name: 'fs_read', arguments: { path: '../%2e%2e/other/secret.md' } }] },
    { text: 'Here is a key: sk-ant-api03-FAKEFAKEFAKEFAKEFAKEFAKEFAKE012345 — oops.' },
  );
  await send('read outside');
  // The recorded reply (not the streaming bubble, which the same text matches while it arrives).
  const reply = page.locator('.msg.assistant:not(.streaming) .msg-body', { hasText: 'oops' });
  await reply.waitFor();
  const card = page.locator('.tool-card').last();
  assert.match(await card.locator('.tool-state').innerText(), /✗ safety/);
  const body = await reply.innerText();
  assert.match(
    body,
    /\[REDACTED anthropic_key\]/,
    `the transcript: ${JSON.stringify(await page.locator('.messages > li').allInnerTexts())}; the model ` +
      `got: ${JSON.stringify(llm.requests.slice(-4).map((r) => r.body.messages.at(-1)))}`,
  );
  assert.doesNotMatch(await page.locator('.messages').innerText(), /FAKEFAKE/);
  const log = await storedEvents();
  assert.doesNotMatch(log, /FAKEFAKE/);
  assert.match(log, /"type":"safety_tool_blocked"/);
  assert.match(log, /"type":"safety_output_redacted"/);
});

test('Anthropic tool_use streams run tools the same way', async () => {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: /Settings/ });
  await dialog.getByLabel('Provider', { exact: true }).selectOption('anthropic');
  await dialog.getByLabel('Model', { exact: true }).fill('claude-test');
  await dialog.getByLabel('API key', { exact: true }).fill('sk-ant-test-key');
  await dialog.getByLabel('Base URL', { exact: true }).fill(llm.url);
  await saveSettings(page);
  llm.enqueue(
    { text: 'Reading.', toolCalls: [{ id: 'toolu_1', name: 'fs_read', arguments: { path: 'b.txt' } }] },
    { text: 'The file says two.' },
  );
  await send('what is in b.txt');
  await page.getByText('The file says two.').waitFor();
  const req = llm.requests.at(-1);
  assert.equal(req?.path, '/v1/messages');
  const lastUser = req?.body.messages.at(-1);
  assert.deepEqual(
    lastUser.content.map((/** @type {any} */ b) => [b.type, b.tool_use_id, b.content]),
    [['tool_result', 'toolu_1', 'two']],
  );
  assert.ok(req?.body.tools.some((/** @type {any} */ t) => t.name === 'fs_read' && t.input_schema.type === 'object'));
  assert.deepEqual(offMachine(browser.requests), []);
});
