// Issue 34's promise in a real Chromium: with no key and no network, a person who imported a
// model file has a tool-using agent. The model is the scripted test model (scripts/make-test-gguf.mjs
// makeScriptedGguf: its weights play a tool call, then a final text, through its own chat
// template), run by llama.cpp in WebAssembly in the page; the whole turn runs offline.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeScriptedGguf, makeTestGguf } from '../../scripts/make-test-gguf.mjs';
import { useFixture } from './fixture.mjs';
import { storedConfigUntil } from './helpers.mjs';
import { waitUntil } from '../fixtures/wait.mjs';

const FINAL = 'Done: listed the files.';
const fx = await useFixture({ page: 'workspace' });
const { page, context } = fx;

/** Imports a model through the public API. @param {Uint8Array} bytes @param {string} name */
const importModel = (bytes, name) =>
  page.evaluate(
    async ({ base64, name }) => {
      const { importLocalModel } = await import('/web/clawser.js');
      const data = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      return (await importLocalModel(new Blob([data]), { name })).id;
    },
    { base64: Buffer.from(bytes).toString('base64'), name },
  );

test('the first-run card offers a model on this computer once one is imported, and says how to get one before', async () => {
  const card = page.getByRole('region', { name: 'Choose how Clawser thinks' });
  // The honest note, before a model and after one: its size, then what speed to expect.
  await card.getByText(/Bring a GGUF model file \(a 0\.5–1\.5 B model at Q4 is 0\.4–1 GB\).*a few words a second/).waitFor();
  assert.equal(await card.getByRole('button', { name: 'Use a model on this computer' }).count(), 0, 'nothing to use yet');
  const id = await importModel(makeScriptedGguf({ toolCall: { name: 'fs_list', arguments: { path: '/' } }, finalText: FINAL }), 'Scripted');
  await page.reload();
  await card.getByText(/Imported: 1 model\. Runs in this page, offline, with no key: a few words a second/).waitFor();
  await card.getByRole('button', { name: 'Use a model on this computer' }).click();
  await storedConfigUntil(page, (e) => Object.values(e).some((v) => v.includes('"provider":"local"') && v.includes(id)), 'local chosen');
});

test('offline, a whole agent turn: the model calls a tool, reads its result and answers', async () => {
  await page.getByRole('textbox', { name: 'Message', exact: true }).waitFor();
  // The app is offline-ready once its service worker controls the page (everything precached).
  await page.waitForFunction(() => !!navigator.serviceWorker.controller, null, { timeout: 60_000 });
  await context.setOffline(true);
  try {
    assert.equal(await page.evaluate(() => navigator.onLine), false);
    await page.getByRole('textbox', { name: 'Message', exact: true }).fill('What files do I have?');
    await page.getByRole('button', { name: 'Send' }).click();
    const reply = page.locator('.msg.assistant .msg-body', { hasText: FINAL });
    await reply.waitFor({ timeout: 120_000 });
    const card = page.locator('.tool-card').first();
    assert.match(await card.locator('summary').innerText(), /fs_list/);
    assert.match(await card.locator('.tool-state').innerText(), /^✓/, 'the tool ran');
  } finally {
    await context.setOffline(false);
  }
  // The conversation's log holds the call, its result and the answer, in order (only this conversation so far).
  const types = await page.evaluate(async () => {
    const root = await navigator.storage.getDirectory();
    const ws = await root.getDirectoryHandle('clawser_workspaces');
    /** @type {string[]} */
    const out = [];
    for await (const [name, handle] of /** @type {any} */ (ws).entries()) {
      if (handle.kind !== 'directory') continue;
      const convs = await handle.getDirectoryHandle('.conversations').catch(() => null);
      if (!convs) continue;
      for await (const [, conv] of convs.entries()) {
        if (conv.kind !== 'directory') continue;
        const file = await conv.getFileHandle('events.jsonl').catch(() => null);
        if (!file) continue;
        const text = await (await file.getFile()).text();
        for (const line of text.split('\n').filter(Boolean)) out.push(`${name}:${JSON.parse(line).type}`);
      }
    }
    return out.map((t) => t.split(':')[1]);
  });
  const order = types.filter((t) => ['user_message', 'tool_call', 'tool_result', 'agent_message'].includes(t));
  // The model's step that asked for the call, the call, its result, the answer.
  assert.deepEqual(order, ['user_message', 'agent_message', 'tool_call', 'tool_result', 'agent_message'], types.join(', '));
});

/** Settings, opened at "Models on this computer". */
async function openModels() {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: /Settings/ });
  const section = dialog.locator('details.local-models');
  await section.waitFor();
  if (!(await section.evaluate((d) => /** @type {HTMLDetailsElement} */ (d).open)))
    await section.locator('summary', { hasText: 'Models on this computer' }).click();
  return { dialog, section };
}
test("Settings shows the backend the loaded model runs on; deleting it there unloads it from the page's memory", async () => {
  const loaded = () =>
    page.evaluate(async () => {
      const { loadedLocalModel } = await import('/web/providers/local-engine.js');
      return (await loadedLocalModel())?.backend.label ?? null;
    });
  const backend = await loaded();
  assert.match(String(backend), /^WebAssembly, \d+ threads?/, 'control: the turn left the model loaded');
  const { dialog, section } = await openModels();
  const row = section.locator('li.local-model', { has: page.locator('.model-name', { hasText: 'Scripted' }) });
  await row.getByText(`${backend} (loaded now)`).waitFor();
  await row.getByRole('button', { name: 'Delete Scripted' }).click();
  await page.getByRole('dialog', { name: 'Delete “Scripted”?' }).getByRole('button', { name: 'Delete model' }).click();
  await row.waitFor({ state: 'detached' });
  assert.equal(await loaded(), null);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
});

test('control: the random test model under the same turn calls no tool', async () => {
  const id = await importModel(makeTestGguf({ seed: 1 }), 'Random');
  await page.evaluate(async (model) => {
    const { createProvider } = await import('/web/clawser.js');
    const provider = createProvider({ provider: 'local', model });
    /** @type {any[]} */
    const parts = [];
    const tools = [
      { name: 'fs_list', description: 'List files.', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
    ];
    for await (const p of provider.chatStream({ messages: [{ role: 'user', content: 'What files do I have?' }], tools, maxTokens: 30 }))
      parts.push(p);
    /** @type {any} */ (globalThis).__randomParts = parts;
  }, id);
  const parts = await page.evaluate(() => /** @type {any} */ (globalThis).__randomParts);
  assert.equal(parts.at(-1).type, 'finish');
  assert.equal(parts.filter((/** @type {any} */ p) => p.type === 'tool_call').length, 0);
});

/** Chooses the imported model `name` for this workspace in Settings → Models on this computer. @param {string} name */
const useInWorkspace = async (name) => {
  const { dialog, section } = await openModels();
  const row = section.locator('li.local-model', { has: page.locator('.model-name', { hasText: name }) });
  await row.getByRole('button', { name: `Use in this workspace: ${name}` }).click();
  await row.getByRole('button', { name: `Used here: ${name}` }).waitFor();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
};

test('a conversation longer than the context the model is loaded with: the chat says so and what to do, with Retry; \
control: a model with room answers the retry', async () => {
  // The scripted model stating a context of 1,024 tokens: the agent's system prompt and tools alone are longer.
  const script = { toolCall: { name: 'fs_list', arguments: { path: '/' } }, finalText: FINAL };
  await importModel(makeScriptedGguf({ ...script, context: 1024 }), 'Small context');
  await useInWorkspace('Small context');
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill('What files do I have?');
  await page.getByRole('button', { name: 'Send' }).click();
  const alert = page.getByRole('alert').filter({ hasText: /longer than the 1,024 tokens of context “Small context” is loaded with/ });
  await alert.waitFor({ timeout: 120_000 });
  assert.match(await alert.innerText(), /Start a new conversation, or compact this one/);
  // Control: the same scripted model with its context of 32,768 tokens: the same turn goes through.
  await importModel(makeScriptedGguf(script), 'Roomy');
  await useInWorkspace('Roomy');
  await alert.getByRole('button', { name: 'Retry' }).click();
  await page.locator('.msg.assistant .msg-body', { hasText: FINAL }).last().waitFor({ timeout: 120_000 });
  // The failed turn's alert goes with the view's next drawing, which can come a moment after the reply.
  await waitUntil(async () => (await page.getByRole('alert').count()) === 0, 'no alert left').catch(() => {});
  assert.deepEqual(await page.getByRole('alert').allInnerTexts(), []);
});
