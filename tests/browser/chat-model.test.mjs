// The model switcher in the chat header (issue 37 §2): the workspace's model among its provider's
// models and its fallbacks, chosen by keyboard or pointer, saved through the workspace's settings
// (the Settings dialog shows it; the next turn uses it); a fallback chosen swaps places with the
// model it replaces. Readable at 360 and 1920 px, light and dark, without serious axe findings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appView, saveSettings, sendMessage } from './helpers.mjs';
import { seriousViolations } from './axe.mjs';
import { useFixture } from './fixture.mjs';

const KEY = 'sk-test-chat-model-0123456789';
const { llm, page } = await useFixture({
  // No list of models: the server answers any model named (the menu offers the catalog's).
  llm: { apiKey: KEY },
  settings: ({ llm }) => ({ provider: 'openai', model: 'test-model', apiKey: KEY, baseUrl: `${llm.url}/v1` }),
});

const switcher = () => page.locator('.chat-bar').getByRole('combobox', { name: 'Model', exact: true });
const selectedText = () => switcher().evaluate((el) => /** @type {HTMLSelectElement} */ (el).selectedOptions[0]?.textContent ?? '');

/** What the Settings dialog says the workspace's provider and model are (then closed unchanged). */
async function inSettings() {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: /Settings/ });
  const said = {
    provider: await dialog.getByLabel('Provider', { exact: true }).inputValue(),
    model: await dialog.getByLabel('Model', { exact: true }).inputValue(),
  };
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'detached' });
  return said;
}

/** Sends a message and resolves to the model the request named, and where it went. @param {string} text */
async function turnModel(text) {
  await sendMessage(page, text);
  await page.locator('.msg.assistant:not(.streaming) .msg-body', { hasText: `You said: ${text}` }).waitFor();
  const req = llm.requests.at(-1);
  return { model: req?.body.model, path: req?.path };
}

test("the header's model menu: the provider's models, chosen by keyboard, saved in the workspace's settings, \
used by the next turn", async () => {
  assert.deepEqual(await turnModel('which model?'), { model: 'test-model', path: '/v1/chat/completions' });
  await switcher().waitFor();
  assert.equal(await switcher().inputValue(), 'model:test-model');
  const labels = await switcher().locator('option').allTextContents();
  assert.ok(labels.includes('test-model') && labels.includes('gpt-4.1'), labels.join(', '));
  // By keyboard: the next model in the list.
  await switcher().focus();
  await page.keyboard.press('ArrowDown');
  await page.waitForFunction(() => /** @type {HTMLSelectElement} */ (document.getElementById('chat-model'))?.value !== 'model:test-model');
  const chosen = (await selectedText()).trim();
  assert.equal(chosen, labels[1]);
  // Saved the way the Settings dialog saves: it shows the new model (the provider unchanged), and the next turn uses it.
  // The top bar's badge says the new model too (without waiting for the view to be built again).
  await page.locator('.provider-badge.wide-only', { hasText: `OpenAI · ${chosen}` }).waitFor({ state: 'attached' });
  assert.deepEqual(await inSettings(), { provider: 'openai', model: chosen });
  assert.deepEqual(await turnModel('and now?'), { model: chosen, path: '/v1/chat/completions' });
  // And back, by pointer.
  await switcher().selectOption({ label: 'test-model' });
  assert.deepEqual(await turnModel('back again?'), { model: 'test-model', path: '/v1/chat/completions' });
  await page.reload();
  await appView(page);
  await switcher().waitFor();
  assert.equal(await switcher().inputValue(), 'model:test-model', 'kept across a reload');
});

test('a fallback chosen in the menu becomes the workspace model, the one it replaced its fallback \
(chosen back, they swap again)', async () => {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: /Settings/ });
  await dialog.getByRole('button', { name: 'Add a fallback provider' }).click();
  const row = dialog.getByRole('group', { name: 'Fallback 1' });
  await row.getByLabel('Fallback 1 provider').selectOption('anthropic');
  await row.getByLabel('Fallback 1 model').fill('backup-model');
  await row.getByLabel('Fallback 1 base URL (optional)').fill(llm.url);
  await row.getByLabel('Fallback 1 API key').fill(KEY);
  await saveSettings(page);
  const fallbacks = switcher().locator('optgroup[label="Fallbacks"] option');
  await fallbacks.first().waitFor({ state: 'attached' });
  assert.deepEqual(await fallbacks.allTextContents(), ['Anthropic · backup-model']);

  await switcher().selectOption({ label: 'Anthropic · backup-model' });
  await page.waitForFunction(
    () => /** @type {HTMLSelectElement} */ (document.getElementById('chat-model'))?.value === 'model:backup-model',
  );
  assert.deepEqual(await fallbacks.allTextContents(), ['OpenAI · test-model'], 'the model it replaced is the fallback now');
  assert.deepEqual(await inSettings(), { provider: 'anthropic', model: 'backup-model' });
  assert.deepEqual(await turnModel('who answers?'), { model: 'backup-model', path: '/v1/messages' });

  await switcher().selectOption({ label: 'OpenAI · test-model' });
  await page.waitForFunction(() => /** @type {HTMLSelectElement} */ (document.getElementById('chat-model'))?.value === 'model:test-model');
  assert.deepEqual(await fallbacks.allTextContents(), ['Anthropic · backup-model']);
  assert.deepEqual(await inSettings(), { provider: 'openai', model: 'test-model' });
  assert.deepEqual(await turnModel('back to the first?'), { model: 'test-model', path: '/v1/chat/completions' });
});

test('the menu fits and reads at 360 and 1920 px, light and dark, with no serious axe findings', async () => {
  for (const [width, height] of [
    [360, 740],
    [1920, 1080],
  ])
    for (const colorScheme of /** @type {const} */ (['light', 'dark'])) {
      await page.setViewportSize({ width, height });
      await page.emulateMedia({ colorScheme });
      const box = await switcher().boundingBox();
      assert.ok(box && box.width > 40 && box.x >= 0 && box.x + box.width <= width, `${width} px ${colorScheme}: ${JSON.stringify(box)}`);
      assert.deepEqual(await seriousViolations(page, '.chat-bar'), [], `${width} px ${colorScheme}`);
    }
});
