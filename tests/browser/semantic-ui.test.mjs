// Semantic memory through the app's own UI, in a real Chromium: the Memory panel installs the
// embedding model (from a stand-in hub on 127.0.0.1, with a progress bar), memories are embedded
// in the background, the panel's search and the agent's automatic recall rank by meaning,
// pinned memories always ride along, and removing the model falls back to keyword search.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openWorkspace, sendMessage } from './helpers.mjs';
import { useFixture } from './fixture.mjs';
import { startModelServer } from '../fixtures/tiny-model.mjs';

const fx = await useFixture({ llm: {} });
const { app, llm, browser } = fx;
const hub = await startModelServer();
fx.defer(() => hub.close());

test('install the model from the Memory panel, then search and recall by meaning; pin; remove', async () => {
  const page = await openWorkspace(browser.context, app.url, {
    provider: 'openai-compatible',
    model: 'test-model',
    baseUrl: `${llm.url}/v1`,
  });
  await page.getByRole('button', { name: 'Memory', exact: true }).click();
  const state = page.locator('#semantic-state');
  await state.getByText('Semantic search is off: no embedding model is installed.', { exact: false }).waitFor();
  // Memories first: they are embedded once the model arrives.
  for (const [key, content, category] of [
    ['car', 'my car is a red sedan', 'user'],
    ['dinner', 'i like pizza for dinner', 'user'],
  ]) {
    await page.getByRole('button', { name: 'Add memory' }).click();
    const dialog = page.getByRole('dialog', { name: 'New memory' });
    await dialog.getByLabel(/^Key/).fill(key);
    await dialog.getByLabel('Content').fill(content);
    await dialog.getByLabel('Category').selectOption(category);
    await dialog.getByRole('button', { name: 'Remember' }).click();
    await page.locator('.memory', { hasText: key }).first().waitFor();
  }
  await page.getByLabel('Download from (the Hugging Face hub, or a mirror)').fill(hub.url);
  await page.getByRole('button', { name: /^Download Xenova\/all-MiniLM-L6-v2/ }).click();
  await page.getByText(/Model Xenova\/all-MiniLM-L6-v2 is installed in this browser \([\d.]+ MB, 4 files\); it works offline\./).waitFor();
  assert.ok(hub.requests.some((r) => r.path.endsWith('/onnx/model_quantized.onnx') && r.status === 200));
  await state.getByText('Semantic search is on (2 memories embedded).').waitFor({ timeout: 60_000 });

  // The panel's search finds the car by meaning ("automobile" is not in it).
  await page.getByRole('searchbox', { name: 'Search memories' }).fill('automobile');
  await page.locator('.memory').first().filter({ hasText: 'my car is a red sedan' }).waitFor();

  // The agent's automatic recall too.
  llm.enqueue({ text: 'A red sedan.' });
  await page.getByRole('button', { name: 'Back to chat' }).click();
  await sendMessage(page, 'which automobile do i own?');
  await page.locator('.msg.assistant', { hasText: 'A red sedan.' }).waitFor();
  const system = llm.requests.at(-1)?.body.messages[0].content;
  assert.match(system, /Relevant long-term memories[\s\S]*\[user\] car: my car is a red sedan/);
  await page.getByText(/Memories used: car/).waitFor();

  // A pinned memory is given with every message, related or not.
  await page.getByRole('button', { name: 'Memory', exact: true }).click();
  await page.locator('.memory', { hasText: 'dinner' }).getByRole('button', { name: 'Pin dinner' }).click();
  await page.locator('.memory', { hasText: 'dinner' }).getByRole('button', { name: 'Unpin dinner' }).waitFor();
  await page.getByRole('button', { name: 'Back to chat' }).click();
  llm.enqueue({ text: 'Hello again.' });
  await sendMessage(page, 'hello');
  await page.locator('.msg.assistant', { hasText: 'Hello again.' }).waitFor();
  assert.match(llm.requests.at(-1)?.body.messages[0].content, /\[user\] dinner: i like pizza for dinner/);

  // Offline (network off, the hub gone): the page, the embedding worker and the model all load
  // from this browser, and search by meaning still works.
  await page.waitForFunction(() => !!navigator.serviceWorker.controller, null, { timeout: 30_000 });
  await page.waitForFunction(async () => (await caches.keys()).some((k) => k.startsWith('clawser-app-')));
  await hub.close();
  await browser.context.setOffline(true);
  try {
    await page.reload();
    await page.getByRole('button', { name: 'Memory', exact: true }).click();
    await state.getByText('Semantic search is on (2 memories embedded).').waitFor({ timeout: 60_000 });
    await page.getByRole('searchbox', { name: 'Search memories' }).fill('automobile');
    await page.locator('.memory').first().filter({ hasText: 'my car is a red sedan' }).waitFor();
  } finally {
    await browser.context.setOffline(false);
  }
  await page.getByRole('searchbox', { name: 'Search memories' }).fill('');

  // Removing the model: semantic search is off again, keyword search still works.
  await page.getByRole('button', { name: 'Memory', exact: true }).click();
  await page.getByRole('button', { name: 'Remove the model' }).click();
  await page.getByRole('dialog', { name: 'Remove the embedding model?' }).getByRole('button', { name: 'Remove model' }).click();
  await page.getByRole('button', { name: /^Download Xenova\/all-MiniLM-L6-v2/ }).waitFor();
  await state.getByText('Semantic search is off', { exact: false }).waitFor();
  await page.getByRole('searchbox', { name: 'Search memories' }).fill('sedan');
  await page.locator('.memory').first().filter({ hasText: 'my car is a red sedan' }).waitFor();
  await page.close();
});
