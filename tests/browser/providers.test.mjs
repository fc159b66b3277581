// The reliability layer in the app (issue 14): a conversation that falls back from a failing
// scripted provider to a working one mid-conversation, retries set in Settings, and a stalled
// stream that times out with its partial text kept (also after a reload).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { saveSettings, readWorkspaceFile, appView } from './helpers.mjs';
import { useFixture } from './fixture.mjs';
import { CATALOG } from '../../web/providers/catalog.js';

const PRIMARY_KEY = 'sk-primary-0123456789abcdef';
const BACKUP_KEY = 'sk-ant-backup-0123456789abcdef';

const fx = await useFixture({
  llm: { apiKey: PRIMARY_KEY, models: ['primary-model', 'gpt-4.1-mini'] },
  settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'primary-model', apiKey: PRIMARY_KEY, baseUrl: `${llm.url}/v1` }),
});
const { page, llm: primary } = fx;
const backup = await fx.startLlm({ apiKey: BACKUP_KEY, models: ['backup-model'] });

const send = async (/** @type {string} */ text) => {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
};
const settingsDialog = () => page.getByRole('dialog', { name: /Settings/ });
/**
 * Settings: OpenAI's wire format (a priced model that sees images) on the scripted server.
 * @param {(dialog: import('playwright-core').Locator) => Promise<unknown>} [more] other fields to set before saving
 */
const useOpenAI = async (more) => {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = settingsDialog();
  await dialog.getByLabel('Provider', { exact: true }).selectOption('openai');
  await dialog.getByLabel('Model', { exact: true }).fill('gpt-4.1-mini');
  await dialog.getByLabel('API key', { exact: true }).fill(PRIMARY_KEY);
  await dialog.getByLabel('Base URL', { exact: true }).fill(`${primary.url}/v1`);
  await more?.(dialog);
  await saveSettings(page);
};

test('mid-conversation, a failing provider falls back to the next in the chain after its retries; \
the reply says who answered', async () => {
  await send('first question');
  await page.locator('.msg.assistant:not(.streaming) .msg-body', { hasText: 'You said: first question' }).waitFor();

  // Settings: one retry, and Anthropic (another scripted server) as the fallback, with its key.
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = settingsDialog();
  await dialog.getByRole('button', { name: 'Add a fallback provider' }).click();
  const row = dialog.getByRole('group', { name: 'Fallback 1' });
  await row.getByLabel('Fallback 1 provider').selectOption('anthropic');
  await row.getByLabel('Fallback 1 model').fill('backup-model');
  await row.getByLabel('Fallback 1 base URL (optional)').fill(backup.url);
  await row.getByLabel('Fallback 1 API key').fill(BACKUP_KEY);
  await dialog.getByLabel(/Retries before the next fallback/).fill('1');
  await saveSettings(page);

  // The primary fails twice (the try and its retry); the fallback answers.
  primary.enqueue({ status: 503, body: { error: { message: 'overloaded' } } }, { status: 503, body: { error: { message: 'overloaded' } } });
  backup.enqueue({ text: 'An answer from the fallback.' });
  await send('second question');
  const reply = page.locator('.msg.assistant:not(.streaming)', { hasText: 'An answer from the fallback.' });
  await reply.waitFor();
  assert.equal(await reply.locator('.who').innerText(), 'backup-model', 'labelled with the model that wrote it');
  const notice = page.locator('li.attempts', { hasText: 'Answered by anthropic (backup-model) after 2 failed tries' });
  await notice.waitFor();
  await notice.locator('summary').click();
  assert.match(await notice.innerText(), /openai-compatible \(primary-model\): failed .*HTTP 503[\s\S]*Retried after/);
  // The fallback got the whole conversation, first exchange included, in its own format, with its own key.
  const sent = backup.requests.at(-1);
  assert.equal(sent?.path, '/v1/messages');
  assert.equal(sent?.headers['x-api-key'], BACKUP_KEY);
  const texts = JSON.stringify(sent?.body.messages);
  assert.match(texts, /first question/);
  assert.match(texts, /You said: first question/);
  assert.match(texts, /second question/);
  assert.equal(primary.requests.filter((r) => JSON.stringify(r.body).includes('second question')).length, 2);
  // Every try is in the log; no key is.
  const log = /** @type {string} */ (await readWorkspaceFile(page, '{conversation}/events.jsonl'));
  const tries = log
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((e) => e.type === 'provider_attempt');
  assert.deepEqual(
    tries.slice(-3).map((e) => [e.data.provider, e.data.outcome]),
    [
      ['openai-compatible', 'failed'],
      ['openai-compatible', 'failed'],
      ['anthropic', 'ok'],
    ],
  );
  assert.ok(!log.includes(BACKUP_KEY) && !log.includes(PRIMARY_KEY));

  // Control: an auth error is not sent to the fallback.
  primary.enqueue({ status: 401, body: { error: { message: 'bad key' } } });
  const before = backup.requests.length;
  await send('third question');
  await page
    .getByRole('alert')
    .filter({ hasText: /rejected the API key/ })
    .waitFor();
  assert.equal(backup.requests.length, before);

  // Two more requests the primary fails (3 in a row with the second question; the auth error does
  // not count): the circuit breaker pauses it, the chat says so, and the next message skips it.
  for (const q of ['fourth question', 'fifth question']) {
    primary.enqueue(
      { status: 503, body: { error: { message: 'overloaded' } } },
      { status: 503, body: { error: { message: 'overloaded' } } },
    );
    backup.enqueue({ text: `Fallback answer to the ${q}.` });
    await send(q);
    await page.locator('.msg.assistant:not(.streaming)', { hasText: `Fallback answer to the ${q}.` }).waitFor();
  }
  const paused = page.locator('.chat-paused');
  await paused
    .filter({
      hasText: new RegExp(
        String.raw`openai-compatible\/primary-model is paused after 3 failed requests in a row; it is tried again ` +
          String.raw`at .+ \(the next provider of your fallback chain answers meanwhile\)\.`,
      ),
    })
    .waitFor();
  assert.equal(await paused.getAttribute('role'), 'status');
  const primaryCalls = primary.requests.length;
  backup.enqueue({ text: 'Straight from the fallback.' });
  await send('sixth question');
  await page.locator('.msg.assistant:not(.streaming)', { hasText: 'Straight from the fallback.' }).waitFor();
  assert.equal(primary.requests.length, primaryCalls, 'the paused provider is not asked');
  await page
    .locator('li.attempts', { hasText: /Skipped for \d+ s after 3 failures in a row/ })
    .first()
    .waitFor({ state: 'attached' });
});

test('a stalled stream ends with a clear time-out error; the partial text is kept, also after a reload', async () => {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = settingsDialog();
  // The dialog is open before its fallbacks are counted (count() does not wait for it).
  await dialog.getByLabel(/Reply stalled for/).waitFor();
  const remove = dialog.getByRole('button', { name: 'Remove fallback 1' });
  if (await remove.count()) await remove.click();
  await dialog.getByLabel(/Reply stalled for/).fill('2');
  await saveSettings(page);
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  primary.enqueue({ text: 'The beginning of an answer that never ends', dropAfter: 4, holdOpen: true });
  await send('stall please');
  const alert = page.getByRole('alert').filter({ hasText: 'The reply failed' });
  await alert.waitFor();
  assert.match(await alert.innerText(), /stopped sending for 2 s in the middle of the reply \(the text so far is kept\)/);
  assert.match(await alert.innerText(), /The beginning of/);
  assert.equal(
    primary.requests.filter((r) => JSON.stringify(r.body).includes('stall please')).length,
    1,
    'a reply that had started is not silently restarted',
  );
  primary.dropOpen();
  await page.reload();
  const again = page.locator('.msg.error', { hasText: 'The reply failed' });
  await again.waitFor();
  assert.match(await again.innerText(), /The beginning of[\s\S]*stopped sending for 2 s/);
});

test('the cost and token meter: "cost unknown" for a model without a price; a priced model adds up per conversation and today; \
80% of the daily limit warns', async () => {
  const meter = page.getByLabel('Cost and tokens');
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  await send('an unpriced model');
  await page.locator('.msg.assistant:not(.streaming)', { hasText: 'You said: an unpriced model' }).waitFor();
  await page.waitForFunction(() => /this conversation cost unknown/.test(document.querySelector('.chat-meter')?.textContent ?? ''));

  // A priced model (OpenAI's list price), a daily limit of 0.15 USD.
  await useOpenAI((dialog) => dialog.getByLabel('Cost limit per day, USD (0 = no limit)').fill('0.15'));
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  const chunk = (/** @type {object} */ o) =>
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: 'gpt-4.1-mini', ...o })}\n\n`;
  // 100,000 tokens in and 50,000 out at 0.40 and 1.60 USD per million: 0.12 USD.
  primary.enqueue({
    rawEvents: [
      chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: 'A costly answer.' }, finish_reason: null }] }),
      chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
      chunk({ choices: [], usage: { prompt_tokens: 100_000, completion_tokens: 50_000, total_tokens: 150_000 } }),
      'data: [DONE]\n\n',
    ],
  });
  await send('a priced model');
  await page.locator('.msg.assistant:not(.streaming)', { hasText: 'A costly answer.' }).waitFor();
  await page.waitForFunction(() =>
    /this conversation \$0\.120 \(150K tokens\) · today \$0\.120/.test(document.querySelector('.chat-meter')?.textContent ?? ''),
  );
  assert.match(await meter.innerText(), /≈ 150K tokens in context/);
  const warning = page.getByRole('status').filter({ hasText: "80% of today's cost limit is used (0.12 USD of 0.15 USD)" });
  await warning.waitFor();
  // The composer's estimate grows with the draft.
  await page.getByRole('textbox', { name: 'Message' }).fill('x'.repeat(40_000));
  await page.waitForFunction(() =>
    /≈ 160K tokens in context with your message/.test(document.querySelector('.chat-meter')?.textContent ?? ''),
  );
  await page.getByRole('textbox', { name: 'Message' }).fill('');
  // The cost is on record with the reply.
  const log = /** @type {string} */ (await readWorkspaceFile(page, '{conversation}/events.jsonl'));
  const reply = log
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .find((e) => e.type === 'agent_message');
  assert.ok(Math.abs(reply.data.costCents - 12) < 1e-9);
  assert.equal(reply.data.provider, 'openai');
});

test('the response cache, when switched on for every request: the same question in a new conversation is answered from it, labelled, \
with no call', async () => {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = settingsDialog();
  await dialog.getByLabel('Reuse identical answers').selectOption('always');
  await dialog.getByLabel('Cost limit per day, USD (0 = no limit)').fill('0');
  await saveSettings(page);
  const asked = () => primary.requests.filter((r) => JSON.stringify(r.body).includes('the same question')).length;
  for (let i = 0; i < 2; i++) {
    await page.getByRole('button', { name: 'New conversation', exact: true }).click();
    await page.getByText('Start the conversation: type a message below.').waitFor();
    await send('the same question');
    await page.locator('.msg.assistant:not(.streaming)', { hasText: 'You said: the same question' }).waitFor();
  }
  assert.equal(asked(), 1, 'the second answer came from the cache');
  await page.locator('.msg.assistant', { hasText: 'From the response cache' }).waitFor();
  const log = /** @type {string} */ (await readWorkspaceFile(page, '{conversation}/events.jsonl'));
  assert.ok(log.includes('"type":"cache_hit"'));
  // Regenerate asks the model again.
  await page.getByRole('button', { name: /Regenerate this reply/ }).click();
  await page.getByRole('group', { name: 'Versions of this reply' }).waitFor();
  assert.equal(asked(), 2);
});

test("an image picked for the message is scaled to the provider's limit, sent in its image shape, shown as a thumbnail, \
and still there after a reload", async () => {
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  // A 3000 × 1000 PNG made in the page: wider than OpenAI's 2048 px.
  const png = await page.evaluate(async () => {
    const canvas = new OffscreenCanvas(3000, 1000);
    const ctx = /** @type {OffscreenCanvasRenderingContext2D} */ (canvas.getContext('2d'));
    ctx.fillStyle = '#3366cc';
    ctx.fillRect(0, 0, 3000, 1000);
    ctx.fillStyle = '#ffcc00';
    ctx.fillRect(1000, 300, 1000, 400);
    const bytes = new Uint8Array(await (await canvas.convertToBlob({ type: 'image/png' })).arrayBuffer());
    let s = '';
    for (const b of bytes) s += String.fromCharCode(b);
    return btoa(s);
  });
  await page
    .locator('form.composer input[type=file]')
    .setInputFiles({ name: 'wide.png', mimeType: 'image/png', buffer: Buffer.from(png, 'base64') });
  await page.getByRole('img', { name: 'Attached image 1' }).waitFor();
  // Control: a text file is not an image: it is attached as a document, not among the images (and taken off again).
  await page
    .locator('form.composer input[type=file]')
    .setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
  const documents = page.getByRole('list', { name: 'Attachments' });
  await documents.getByRole('button', { name: 'Remove the attachment notes.txt' }).click();
  await documents.waitFor({ state: 'hidden' });
  assert.equal(await page.getByRole('list', { name: 'Attached images' }).getByRole('listitem').count(), 1);
  await send('what is in this picture?');
  await page.locator('.msg.assistant:not(.streaming)', { hasText: 'You said: what is in this picture?' }).waitFor();
  const body = primary.requests.at(-1)?.body;
  const user = body.messages.findLast((/** @type {any} */ m) => m.role === 'user');
  assert.equal(user.content[0].type, 'text');
  assert.equal(user.content[0].text, 'what is in this picture?');
  assert.equal(user.content[1].type, 'image_url');
  const url = String(user.content[1].image_url.url);
  assert.match(url, /^data:image\/png;base64,/);
  const sent = Buffer.from(url.split(',')[1], 'base64');
  assert.deepEqual([sent.readUInt32BE(16), sent.readUInt32BE(20)], [2048, 683], 'scaled to the 2048 px edge, proportions kept');
  const thumb = page.locator('.msg.user .msg-images img').first();
  await page.waitForFunction(() => {
    const img = /** @type {HTMLImageElement | null} */ (document.querySelector('.msg.user .msg-images img'));
    return !!img && img.complete && img.naturalWidth === 2048;
  });
  assert.equal(await thumb.getAttribute('alt'), 'Image 1 you attached');
  // The log holds the file's path, not the image.
  const log = /** @type {string} */ (await readWorkspaceFile(page, '{conversation}/events.jsonl'));
  const message = log
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .find((e) => e.type === 'user_message');
  assert.match(message.data.images[0].path, /^images\/[\w-]+\.png$/);
  assert.ok(log.length < 10_000);
  await page.reload();
  await page.waitForFunction(() => {
    const img = /** @type {HTMLImageElement | null} */ (document.querySelector('.msg.user .msg-images img'));
    return !!img && img.complete && img.naturalWidth === 2048;
  });
  // The next turn sends the image again with the history.
  await send('and now?');
  await page.locator('.msg.assistant:not(.streaming)', { hasText: 'You said: and now?' }).waitFor();
  const again = primary.requests
    .at(-1)
    ?.body.messages.find(
      (/** @type {any} */ m) => Array.isArray(m.content) && m.content.some((/** @type {any} */ c) => c.type === 'image_url'),
    );
  assert.ok(again, 'the earlier image is part of the history');
});

test("the model picker lists a scripted server's models with their badges; Ollama downloads a model with its progress", async () => {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = settingsDialog();
  // OpenAI (the scripted server's /v1/models): ids, badges from the model family.
  await dialog.getByLabel('Provider', { exact: true }).selectOption('openai');
  await dialog.getByLabel('API key', { exact: true }).fill(PRIMARY_KEY);
  await dialog.getByLabel('Base URL', { exact: true }).fill(`${primary.url}/v1`);
  await dialog.getByRole('button', { name: 'Browse models' }).click();
  const models = dialog.getByRole('list', { name: 'Available to choose' });
  await dialog.getByText('2 models offered.').waitFor();
  assert.match(await models.getByRole('listitem').filter({ hasText: 'gpt-4.1-mini' }).innerText(), /tools[\s\S]*images[\s\S]*1M context/);
  await dialog.getByLabel('Filter the list').fill('primary');
  assert.equal(await models.getByRole('listitem').count(), 1);
  await models.getByRole('radio', { name: /primary-model/ }).check();
  assert.equal(await dialog.getByLabel('Model', { exact: true }).inputValue(), 'primary-model');
  // Ollama's native API at the same server: models with capabilities from /api/show, and a download.
  await dialog.getByLabel('Provider', { exact: true }).selectOption('ollama');
  await dialog.getByLabel('Base URL', { exact: true }).fill(primary.url);
  await dialog.getByRole('button', { name: 'Browse models' }).click();
  await dialog.getByText('2 models offered.').waitFor();
  assert.match(
    await models.getByRole('listitem').filter({ hasText: 'primary-model' }).innerText(),
    /tools[\s\S]*131.1K context[\s\S]*2.0 GB on disk/,
  );
  // The download names the host as the registry labels it.
  const puller = /** @type {import('../../web/providers/types.d.ts').CatalogEntry} */ (CATALOG.find((e) => e.capabilities.pullsModels));
  await dialog.getByLabel(`Download to ${puller.label}: model name`, { exact: true }).fill('qwen-new');
  await dialog.getByRole('button', { name: 'Download model' }).click();
  await dialog.getByText('Downloaded qwen-new.').waitFor();
  assert.equal(await dialog.getByLabel('Model', { exact: true }).inputValue(), 'qwen-new');
  await dialog.getByText('3 models offered.').waitFor();
  await models.getByRole('radio', { name: /qwen-new/ }).waitFor();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'detached' });
});

test('routing hints: a conversation pinned to "Fast" is answered by that hint\'s model, also after a reload; \
back to the workspace default', async () => {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = settingsDialog();
  await dialog.getByLabel('Fast provider').selectOption('anthropic');
  await dialog.getByLabel('Fast model').fill('backup-model');
  await dialog.getByLabel('Fast base URL (optional)').fill(backup.url);
  await dialog.getByLabel('Fast API key').fill(BACKUP_KEY);
  await saveSettings(page);
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  const menu = page.getByLabel('Model for this conversation');
  assert.equal(await menu.inputValue(), '', 'the workspace default');
  backup.enqueue({ text: 'Quick answer.' });
  // Sent at once: a pin still being saved applies to the message sent after it.
  await menu.selectOption('fast');
  await send('a quick one');
  await page.locator('#chat-route-model', { hasText: 'Anthropic · backup-model' }).waitFor();
  await page.locator('.msg.assistant:not(.streaming)', { hasText: 'Quick answer.' }).waitFor();
  assert.equal(
    await page.locator('.msg.assistant:not(.streaming)', { hasText: 'Quick answer.' }).locator('.who').innerText(),
    'backup-model',
  );
  await page.reload();
  await appView(page);
  assert.equal(await page.getByLabel('Model for this conversation').inputValue(), 'fast', 'the pin is kept with the conversation');
  await page.getByLabel('Model for this conversation').selectOption('');
  const before = backup.requests.length;
  await send('the usual model again');
  await page.locator('.msg.assistant:not(.streaming)', { hasText: 'You said: the usual model again' }).waitFor();
  assert.equal(backup.requests.length, before);
});

test('images pasted and dropped on the composer are attached too; one removed is not sent', async () => {
  // A model that sees images (OpenAI's, on the scripted server).
  await useOpenAI();
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  await page.getByText('Start the conversation: type a message below.').waitFor();
  await page.evaluate(async () => {
    const file = async (/** @type {string} */ name, /** @type {string} */ colour) => {
      const canvas = new OffscreenCanvas(64, 48);
      const ctx = /** @type {OffscreenCanvasRenderingContext2D} */ (canvas.getContext('2d'));
      ctx.fillStyle = colour;
      ctx.fillRect(0, 0, 64, 48);
      return new File([await canvas.convertToBlob({ type: 'image/png' })], name, { type: 'image/png' });
    };
    const pasted = new DataTransfer();
    pasted.items.add(await file('pasted.png', '#c33'));
    document
      .querySelector('.composer-input')
      ?.dispatchEvent(new ClipboardEvent('paste', { clipboardData: pasted, bubbles: true, cancelable: true }));
    const dropped = new DataTransfer();
    dropped.items.add(await file('dropped.png', '#3c3'));
    document
      .querySelector('form.composer')
      ?.dispatchEvent(new DragEvent('drop', { dataTransfer: dropped, bubbles: true, cancelable: true }));
  });
  const tray = page.getByRole('list', { name: 'Attached images' });
  await tray.getByRole('img', { name: 'Attached image 2' }).waitFor();
  await tray.getByRole('button', { name: 'Remove attached image 1' }).click();
  assert.equal(await tray.getByRole('listitem').count(), 1);
  await send('one picture');
  await page.locator('.msg.assistant:not(.streaming)', { hasText: 'You said: one picture' }).waitFor();
  const user = primary.requests.at(-1)?.body.messages.findLast((/** @type {any} */ m) => m.role === 'user');
  const images = user.content.filter((/** @type {any} */ c) => c.type === 'image_url');
  assert.equal(images.length, 1);
  const sent = Buffer.from(String(images[0].image_url.url).split(',')[1], 'base64');
  assert.deepEqual([sent.readUInt32BE(16), sent.readUInt32BE(20)], [64, 48], 'a small image is sent as it is');
  assert.equal(await tray.isHidden(), true, 'the tray is empty after sending');
  // Edit and resend: the new version keeps the picture.
  await page.locator('.msg.user', { hasText: 'one picture' }).getByRole('button', { name: 'Edit this message' }).click();
  await page.getByRole('textbox', { name: 'Edit message' }).fill('one picture, edited');
  await page.getByRole('button', { name: 'Send edited message' }).click();
  await page.locator('.msg.assistant:not(.streaming)', { hasText: 'You said: one picture, edited' }).waitFor();
  const edited = primary.requests.at(-1)?.body.messages.findLast((/** @type {any} */ m) => m.role === 'user');
  assert.equal(edited.content.filter((/** @type {any} */ c) => c.type === 'image_url').length, 1);
  await page.locator('.msg.user', { hasText: 'one picture, edited' }).locator('.msg-images img').waitFor();
  // After a reload the pasted picture is still shown with its message.
  await page.reload();
  await page.waitForFunction(() =>
    [...document.querySelectorAll('.msg.user')].some(
      (li) =>
        /one picture, edited/.test(li.textContent ?? '') &&
        [...li.querySelectorAll('.msg-images img')].some(
          (img) => /** @type {HTMLImageElement} */ (img).complete && /** @type {HTMLImageElement} */ (img).naturalWidth === 64,
        ),
    ),
  );
});

test("a message with images goes to the Vision hint when the workspace's model cannot see them; a refusal is shown as the reply, \
marked", async () => {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = settingsDialog();
  await dialog.getByLabel('Provider', { exact: true }).selectOption('openai-compatible');
  await dialog.getByLabel('Model', { exact: true }).fill('primary-model');
  await dialog.getByLabel('API key', { exact: true }).fill(PRIMARY_KEY);
  await dialog.getByLabel('Base URL', { exact: true }).fill(`${primary.url}/v1`);
  await dialog.getByLabel('Vision provider').selectOption('openai');
  await dialog.getByLabel('Vision model').fill('backup-model');
  await dialog.getByLabel('Vision base URL (optional)').fill(`${backup.url}/v1`);
  await dialog.getByLabel('Vision API key').fill(BACKUP_KEY);
  await saveSettings(page);
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  await page.evaluate(async () => {
    const canvas = new OffscreenCanvas(32, 32);
    const ctx = /** @type {OffscreenCanvasRenderingContext2D} */ (canvas.getContext('2d'));
    ctx.fillStyle = '#36c';
    ctx.fillRect(0, 0, 32, 32);
    const pasted = new DataTransfer();
    pasted.items.add(new File([await canvas.convertToBlob({ type: 'image/png' })], 'chart.png', { type: 'image/png' }));
    document
      .querySelector('.composer-input')
      ?.dispatchEvent(new ClipboardEvent('paste', { clipboardData: pasted, bubbles: true, cancelable: true }));
  });
  await page.getByRole('list', { name: 'Attached images' }).getByRole('img', { name: 'Attached image 1' }).waitFor();
  const primaryBefore = primary.requests.length;
  backup.enqueue({ text: 'A blue square.' });
  await send('what is this?');
  const reply = page.locator('.msg.assistant:not(.streaming)', { hasText: 'A blue square.' });
  await reply.waitFor();
  assert.equal(await reply.locator('.who').innerText(), 'backup-model', "answered by the Vision hint's model");
  assert.equal(primary.requests.length, primaryBefore, 'the text-only model was not asked');
  const user = backup.requests.at(-1)?.body.messages.findLast((/** @type {any} */ m) => m.role === 'user');
  assert.equal(user.content.filter((/** @type {any} */ c) => c.type === 'image_url').length, 1);
  // Control: a message without images stays with the workspace's model.
  await send('and in words only?');
  await page.locator('.msg.assistant:not(.streaming)', { hasText: 'You said: and in words only?' }).waitFor();
  assert.equal(primary.requests.length, primaryBefore + 1);

  // A refusal (Chat Completions' delta.refusal) is the reply, marked as one.
  const base = { id: 'chatcmpl-r', object: 'chat.completion.chunk', created: 1, model: 'primary-model' };
  const sse = (/** @type {unknown} */ o) => `data: ${JSON.stringify(o)}\n\n`;
  primary.enqueue({
    rawEvents: [
      sse({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: null, refusal: '' }, finish_reason: null }] }),
      sse({ ...base, choices: [{ index: 0, delta: { refusal: "I can't help with that request." }, finish_reason: null }] }),
      sse({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
      'data: [DONE]\n\n',
    ],
  });
  await send('something it will not do');
  const refusal = page.locator('.msg.assistant:not(.streaming)', { hasText: "I can't help with that request." });
  await refusal.waitFor();
  await refusal.getByText('Refusal — the model declined this request.').waitFor();
});

test('WebP and GIF images are attached and sent in their own type', async () => {
  await useOpenAI();
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  await page.getByText('Start the conversation: type a message below.').waitFor();
  const webp = await page.evaluate(async () => {
    const canvas = new OffscreenCanvas(40, 30);
    const ctx = /** @type {OffscreenCanvasRenderingContext2D} */ (canvas.getContext('2d'));
    ctx.fillStyle = '#2a9';
    ctx.fillRect(0, 0, 40, 30);
    const blob = await canvas.convertToBlob({ type: 'image/webp' });
    let s = '';
    for (const b of new Uint8Array(await blob.arrayBuffer())) s += String.fromCharCode(b);
    return { type: blob.type, data: btoa(s) };
  });
  assert.equal(webp.type, 'image/webp', 'control: this Chromium encodes WebP');
  // A 1 × 1 GIF89a.
  const gif = Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');
  await page.locator('form.composer input[type=file]').setInputFiles([
    { name: 'leaf.webp', mimeType: 'image/webp', buffer: Buffer.from(webp.data, 'base64') },
    { name: 'dot.gif', mimeType: 'image/gif', buffer: gif },
  ]);
  await page.getByRole('list', { name: 'Attached images' }).getByRole('img', { name: 'Attached image 2' }).waitFor();
  await send('two formats');
  await page.locator('.msg.assistant:not(.streaming)', { hasText: 'You said: two formats' }).waitFor();
  const user = primary.requests.at(-1)?.body.messages.findLast((/** @type {any} */ m) => m.role === 'user');
  const urls = user.content.filter((/** @type {any} */ c) => c.type === 'image_url').map((/** @type {any} */ c) => String(c.image_url.url));
  assert.deepEqual(
    urls.map((/** @type {string} */ u) => u.slice(0, u.indexOf(';'))),
    ['data:image/webp', 'data:image/gif'],
  );
  assert.deepEqual(Buffer.from(urls[1].split(',')[1], 'base64'), gif, 'a small GIF is sent byte for byte');
});
