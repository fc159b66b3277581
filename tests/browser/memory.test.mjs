// Long-term memory in a real Chromium with the scripted LLM: the agent stores a memory, a
// later conversation recalls it into the model's context (and says which memories it used),
// and the memory survives a reload (it lives in OPFS under .memory/).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, startApp, openWorkspace, sendMessage, readWorkspaceFile } from './helpers.mjs';
import { startLlmServer } from '../fixtures/llm-server.mjs';

/** @type {Awaited<ReturnType<typeof startApp>>} */ let app;
/** @type {Awaited<ReturnType<typeof launchBrowser>>} */ let browser;
/** @type {Awaited<ReturnType<typeof startLlmServer>>} */ let llm;

before(async () => {
  app = await startApp();
  llm = await startLlmServer();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await app?.close();
  await llm?.close();
});

test('the agent remembers across conversations and reloads; the turn shows which memories it used', async () => {
  const page = await openWorkspace(browser.context, app.url, { provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1` });
  llm.enqueue(
    { toolCalls: [{ id: 'm1', name: 'memory_store', arguments: { key: 'favourite editor', content: 'The user edits code in Helix.', category: 'user' } }] },
    { text: 'Noted: you use Helix.' },
  );
  await sendMessage(page, 'I always edit code in Helix, remember that');
  await page.locator('.msg.assistant', { hasText: 'Noted: you use Helix.' }).waitFor();
  assert.match(/** @type {string} */ (await readWorkspaceFile(page, '.memory/entries.jsonl')), /"key":"favourite editor"/);

  // A new conversation after a reload: the memory is recalled into the system prompt.
  await page.reload();
  await page.getByRole('button', { name: 'New conversation' }).click();
  llm.enqueue({ text: 'Use Helix keybindings then.' });
  await sendMessage(page, 'which code editor should the shortcuts be for?');
  await page.locator('.msg.assistant', { hasText: 'Use Helix keybindings then.' }).waitFor();
  await page.getByText('Memories used: favourite editor').waitFor();
  const system = llm.requests.at(-1)?.body.messages[0];
  assert.equal(system.role, 'system');
  assert.match(system.content, /Relevant long-term memories[\s\S]*\[user\] favourite editor: The user edits code in Helix\./);
  // An unrelated message recalls nothing.
  llm.enqueue({ text: 'Hello!' });
  await sendMessage(page, 'hello there');
  await page.locator('.msg.assistant', { hasText: 'Hello!' }).waitFor();
  assert.doesNotMatch(llm.requests.at(-1)?.body.messages[0].content, /Relevant long-term memories/);
});

test('goals: the agent adds one, its Markdown mirror appears, and later turns carry it in the system prompt', async () => {
  const page = await openWorkspace(browser.context, app.url);
  llm.enqueue(
    { toolCalls: [{ id: 'g1', name: 'goal_add', arguments: { description: 'Write the launch blog post' } }] },
    { text: 'Goal added.' },
  );
  await sendMessage(page, 'make writing the launch blog post a goal');
  await page.locator('.msg.assistant', { hasText: 'Goal added.' }).waitFor();
  const mirror = await page.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const fs = new OpfsFileSystem();
    const base = `clawser_workspaces/${location.hash.split('/')[1]}/goals/active`;
    const [entry] = await fs.list(base);
    const text = await fs.readText(`${base}/${entry.name}`);
    fs.terminate();
    return { name: entry.name, text };
  });
  assert.match(mirror.name, /^write-the-launch-blog-post-g[0-9a-z]+\.md$/);
  assert.match(mirror.text, /^# Write the launch blog post\n\n- Status: active/);
  llm.enqueue({ text: 'Working on it.' });
  await sendMessage(page, 'what next?');
  await page.locator('.msg.assistant', { hasText: 'Working on it.' }).waitFor();
  assert.match(llm.requests.at(-1)?.body.messages[0].content, /Active goals of this workspace[\s\S]*Write the launch blog post/);
});
