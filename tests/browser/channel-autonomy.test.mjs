// Issue 39 §1, a channel's own autonomy and agent through the real app against the local fake of
// Telegram's Bot API (tests/fixtures/telegram-server.mjs; its address rewritten in the test's
// private copy of the app, as in channels.test.mjs). Covered: a Telegram channel set to read-only
// has its file write refused, nothing written (controls: the same call from a channel at full
// autonomy asks (the dialog names the channel) and writes once allowed; from the
// workspace's own chat it asks as the workspace's policy for writes says, and writes); the
// channel's turn runs as the named agent the channel is answered by (control: the workspace
// chat's turn does not).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { useFixture } from './fixture.mjs';
import { readWorkspaceFile, sendMessage } from './helpers.mjs';
import { startTelegramServer } from '../fixtures/telegram-server.mjs';
import { waitUntil } from '../fixtures/wait.mjs';

const tg = await startTelegramServer();
const { llm, page } = await useFixture({
  app: { copy: true },
  llm: {},
  settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1`, autonomy: 'full' }),
  beforePage: async (f) => {
    f.defer(() => tg.close());
    await writeFile(join(f.appDir, 'web/channels/telegram-endpoint.js'), `export const TELEGRAM_API = '${tg.url}';\n`);
  },
});

const ANN = 111;
/** The bot's replies to Ann. */
const replies = () => tg.sent.filter((m) => m.chat_id === ANN).map((m) => m.text);
/** The model request whose last message holds `text`. @param {string} text */
const requestFor = (text) => llm.requests.find((r) => String(r.body.messages?.at(-1)?.content ?? '').includes(text));
/** The tool result the model was sent after the call `id`. @param {string} id */
const toolResult = (id) =>
  String(
    llm.requests.flatMap((r) => r.body.messages ?? []).find((/** @type {any} */ m) => m.role === 'tool' && m.tool_call_id === id)
      ?.content ?? '',
  );
/** A scripted write of `path`, then a closing answer. @param {string} id @param {string} path @param {string} answer */
const scriptWrite = (id, path, answer) =>
  llm.enqueue({ toolCalls: [{ id, name: 'fs_write', arguments: { path, content: `written by ${id}` } }] }, { text: answer });

/**
 * Adds a Telegram channel for Ann through the Channels panel.
 * @param {string} name @param {'readonly' | 'supervised' | 'full'} autonomy @param {string} agent '' for the workspace's
 */
async function addChannel(name, autonomy, agent) {
  await page.getByRole('button', { name: 'Channels', exact: true }).click();
  await page.getByRole('textbox', { name: 'Name' }).fill(name);
  await page.getByLabel('Bot token (from @BotFather)').fill(tg.token);
  await page.getByRole('textbox', { name: /Telegram user ids to answer/ }).fill(String(ANN));
  await page.getByRole('listbox', { name: /Tools it may use/ }).selectOption(['fs_write', 'fs_read']);
  await page.getByRole('combobox', { name: 'Autonomy' }).selectOption(autonomy);
  await page.getByRole('combobox', { name: 'Answered by' }).selectOption(agent);
  await page.getByRole('button', { name: 'Add channel' }).click();
  const row = page.getByRole('listitem', { name, exact: true });
  await row.getByText('Status: Listening for messages.').waitFor();
  return row;
}

/** Removes a channel through its row (and the confirmation). @param {import('playwright-core').Locator} row @param {string} name */
async function remove(row, name) {
  await row.getByRole('button', { name: `Remove ${name}` }).click();
  await page
    .getByRole('dialog', { name: `Remove “${name}”?` })
    .getByRole('button', { name: 'Remove', exact: true })
    .click();
}

test('a read-only Telegram channel answered by @scout: its file write is refused and nothing is written; the turn ran as \
@scout (control: the same write from a channel at full autonomy asks and is written once allowed)', async () => {
  await page.getByRole('button', { name: 'Agents', exact: true }).click();
  const panel = page.getByRole('region', { name: 'Agents' });
  await panel.getByRole('button', { name: 'New agent' }).click();
  const editor = panel.getByRole('form', { name: 'New agent' });
  await editor.getByLabel('Name (what you type after @)').fill('scout');
  await editor.getByLabel('System prompt', { exact: true }).fill('You are the scout agent.');
  await editor.getByRole('button', { name: 'Save agent' }).click();
  await panel.getByRole('status').getByText('Saved @scout.').waitFor();

  const ro = await addChannel('ro', 'readonly', 'scout');
  await ro.getByText('answered by @scout, readonly', { exact: false }).waitFor();
  scriptWrite('ro1', 'notes/from-ro.txt', 'Could not write.');
  tg.push({ from: ANN, username: 'ann', text: 'write the ro note' });
  await waitUntil(() => replies().includes('Could not write.'), 'the read-only channel’s reply');
  assert.match(toolResult('ro1'), /read-only/, 'the model is told the write was refused by the autonomy');
  assert.equal(await readWorkspaceFile(page, 'notes/from-ro.txt'), null, 'nothing written');
  const asked = requestFor('write the ro note');
  assert.match(String(asked?.body.messages[0].content), /^You are the scout agent\./, 'the channel’s turn ran as @scout');
  await remove(ro, 'ro');
  await ro.waitFor({ state: 'detached' });

  const rw = await addChannel('rw', 'full', '');
  scriptWrite('rw1', 'notes/from-rw.txt', 'Written.');
  tg.push({ from: ANN, username: 'ann', text: 'write the rw note' });
  // At full autonomy the write asks (the dialog names the channel), as the workspace's policy for writes says.
  const ask = page.getByRole('dialog', { name: 'Allow “fs_write” for channel “rw”?' });
  await ask.waitFor();
  assert.equal(await readWorkspaceFile(page, 'notes/from-rw.txt'), null, 'nothing before the answer');
  await ask.getByRole('button', { name: 'Allow once' }).click();
  await waitUntil(() => replies().includes('Written.'), 'the full channel’s reply');
  assert.equal(await readWorkspaceFile(page, 'notes/from-rw.txt'), 'written by rw1', 'control: written at full autonomy');
  assert.doesNotMatch(String(requestFor('write the rw note')?.body.messages[0].content), /scout agent/, 'the workspace’s agent');
  await remove(rw, 'rw');
  await rw.waitFor({ state: 'detached' });
});

test('control: the same write from the workspace’s chat asks as the workspace’s policy for writes says, and is written once \
allowed', async () => {
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  scriptWrite('ws1', 'notes/from-chat.txt', 'Done here.');
  await sendMessage(page, 'write the chat note');
  const ask = page.getByRole('dialog', { name: 'Allow “fs_write”?' });
  await ask.waitFor();
  assert.equal(await readWorkspaceFile(page, 'notes/from-chat.txt'), null, 'nothing before the answer');
  await ask.getByRole('button', { name: 'Allow once' }).click();
  await page.locator('.msg.assistant', { hasText: 'Done here.' }).waitFor();
  assert.equal(await readWorkspaceFile(page, 'notes/from-chat.txt'), 'written by ws1');
});
