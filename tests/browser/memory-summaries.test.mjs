// Summaries of long memories in a real Chromium (issue 14): Chrome's on-device Summarizer makes
// them when the browser has it ready (a stand-in with the API's shape: headless Chromium has no
// model), else the chat model (the scripted server) does, honestly labelled; the turn's prompt
// gets the summary instead of the long text. The Memory panel shows who made each summary and
// lets the user choose.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sendMessage, readWorkspaceFile } from './helpers.mjs';
import { useFixture } from './fixture.mjs';

const FALCON = `Project Falcon runbook. ${(
  'Deploys run on Fridays at 18:00 from the release branch ' + 'once the smoke tests pass on staging. '
).repeat(16)}`;
const HERON = `Project Heron notes. ${(
  'The Heron dashboard reads from the analytics replica in ' + 'eu-west-1 and refreshes every ten minutes. '
).repeat(16)}`;
const isSummaryRequest = (/** @type {any} */ r) => /short summaries of notes/.test(String(r.body.messages?.[0]?.content ?? ''));

const { llm, page } = await useFixture({
  llm: {},
  // Chrome's Summarizer API, as the page sees it when its model is on the device; the test
  // turns it to "downloadable" (not on this device yet) with a flag.
  beforePage: ({ context }) =>
    context.addInitScript(() => {
      const w = /** @type {any} */ (globalThis);
      w.__summarized = [];
      w.Summarizer = {
        availability: async () => (w.__summarizerMissing ? 'downloadable' : 'available'),
        create: async (/** @type {any} */ options) => ({
          summarize: async (/** @type {string} */ text) => {
            w.__summarized.push({ options, text });
            return `On-device summary: ${text.split('.')[0]}, ${text.length} characters.`;
          },
          destroy() {},
        }),
      };
    }),
  settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1` }),
});

/** Adds a memory in the Memory panel. @param {string} key @param {string} content */
async function addMemory(key, content) {
  await page.getByRole('button', { name: 'Add memory' }).click();
  const dialog = page.getByRole('dialog', { name: 'New memory' });
  await dialog.getByLabel(/^Key/).fill(key);
  await dialog.getByLabel('Content').fill(content);
  await dialog.getByRole('button', { name: 'Remember' }).click();
  return page.locator('.memory', { hasText: key });
}

test("on the device: a long memory is summarized by Chrome's Summarizer at no cost, \
and the turn gets the summary instead of the long text", async () => {
  await page.getByRole('button', { name: 'Memory', exact: true }).click();
  const falcon = await addMemory('falcon runbook', FALCON);
  await falcon.getByRole('button', { name: 'Pin falcon runbook' }).click();
  const summary = falcon.locator('.memory-summary');
  await summary.getByText('Summary (made on this device): On-device summary: Project Falcon runbook', { exact: false }).waitFor();
  await page.getByText("Chrome's on-device Summarizer is ready.").waitFor();
  const asked = await page.evaluate(() => /** @type {any} */ (globalThis).__summarized);
  assert.equal(asked.length, 1);
  assert.equal(asked[0].options.type, 'tldr', 'the memory options, not the conversation ones');
  assert.equal(llm.requests.filter(isSummaryRequest).length, 0, 'the chat model was not asked');
  // Kept with the memory (its own store's log), so it is made once.
  assert.match(
    /** @type {string} */ (await readWorkspaceFile(page, '.memory/entries.jsonl')),
    /"summary":\{"text":"On-device summary: Project Falcon runbook[^"]*","by":"on-device"/,
  );

  await page.getByRole('button', { name: 'Back to chat' }).click();
  llm.enqueue({ text: 'Friday at six.' });
  await sendMessage(page, 'when do we deploy?');
  await page.locator('.msg.assistant', { hasText: 'Friday at six.' }).waitFor();
  const system = String(llm.requests.at(-1)?.body.messages[0].content);
  assert.match(
    system,
    new RegExp(
      String.raw`falcon runbook: On-device summary: Project Falcon runbook, \d+ characters\. \(summary of a [\d` +
        String.raw`,]+-character memory; memory_recall with its key gives the full text\)`,
    ),
  );
  assert.ok(!system.includes('smoke tests pass on staging'), 'the long text is not in the prompt');
});

test('no summarizer on this device: the chat model makes the summary (labelled, counted), \
and "Only on this device" stops asking it', async () => {
  await page.evaluate(() => {
    /** @type {any} */ (globalThis).__summarizerMissing = true;
  });
  await page.getByRole('button', { name: 'Memory', exact: true }).click();
  llm.enqueue({ text: 'Heron reads the eu-west-1 analytics replica, refreshed every 10 minutes.' });
  const heron = await addMemory('heron dashboard', HERON);
  await heron
    .locator('.memory-summary', {
      hasText: 'Summary (made by openai-compatible/test-model): Heron reads the eu-west-1 analytics replica, refreshed every 10 minutes.',
    })
    .waitFor();
  await page
    .getByText(
      "Chrome's on-device Summarizer is not ready in this browser (not supported, or its " +
        'model is not downloaded); the chat model makes the summaries.',
    )
    .waitFor();
  const asked = llm.requests.filter(isSummaryRequest);
  assert.equal(asked.length, 1);
  assert.match(
    asked[0].body.messages[1].content,
    /^Summarize this note \(its title: "heron dashboard"\)\.\n\n<note>\nProject Heron notes\./,
  );
  // Its tokens count like a turn's: the Dashboard has the earlier turn, its title request and this call.
  await page.getByRole('button', { name: 'Dashboard', exact: true }).click();
  await page
    .getByRole('region', { name: 'Dashboard' })
    .getByText(/tokens in 3 model calls/)
    .waitFor();
  await page.getByRole('button', { name: 'Memory', exact: true }).click();

  // Only on this device: a changed long memory waits for the device instead of asking the model.
  await page.getByLabel('Summaries of long memories').selectOption('on-device');
  await heron.getByRole('button', { name: 'Edit heron dashboard' }).click();
  const dialog = page.getByRole('dialog', { name: 'Edit memory' });
  await dialog.getByLabel('Content').fill(`${HERON} It moved to eu-central-1.`);
  await dialog.getByRole('button', { name: 'Save' }).click();
  await heron.getByText('No summary yet: the agent gets this memory in full.').waitFor();
  await page.getByText('1 long memory is without a summary.', { exact: false }).waitFor();
  assert.equal(llm.requests.filter(isSummaryRequest).length, 1, 'the chat model was not asked again');
  // The setting is kept; the device's summarizer becomes ready: the memory gets its summary.
  await page.reload();
  await page.getByLabel('Summaries of long memories').waitFor();
  assert.equal(await page.getByLabel('Summaries of long memories').inputValue(), 'on-device');
  await page
    .locator('.memory', { hasText: 'heron dashboard' })
    .locator('.memory-summary', { hasText: 'Summary (made on this device): On-device summary: Project Heron notes' })
    .waitFor();
  assert.equal(llm.requests.filter(isSummaryRequest).length, 1);
});
