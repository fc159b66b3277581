// Issue 35 §2: "through my relay". A provider server and an MCP server (Streamable HTTP) on
// 127.0.0.1 that send NO CORS headers cannot be used from the page directly — each fails with a
// clear error (the control) — and both answer once marked "Through my relay" with the user's
// machine: the REAL wsh server (web/packages/wsh/bin/wsh-server.js), started here with both
// hosts on --relay-allow, makes their requests; the provider's reply streams through it, and a
// fallback marked so answers when the direct provider cannot be reached.
// Issue 35 §3: the Remote panel shows that machine's live connection (a polite live region): the
// server killed, it says reconnecting or disconnected with the reason; restarted, connected again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { appendFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { saveSettings, sendMessage } from './helpers.mjs';
import { useFixture } from './fixture.mjs';
import { startScriptedMcpServers } from '../fixtures/mcp-scripted.mjs';
import { waitUntil } from '../fixtures/wait.mjs';

const fx = await useFixture({
  llm: { cors: false },
  settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1` }),
});
const { llm, page } = fx;
const mcp = await startScriptedMcpServers({ '/tools': [{ name: 'lookup', annotations: { readOnlyHint: true } }] }, { cors: false });
fx.defer(() => mcp.close());

const dir = await fx.tempDir('clawser-relay-');
const keysFile = join(dir, 'keys');
await writeFile(keysFile, '# the key the test pastes from the Remote panel\n');
const BIN = fileURLToPath(new URL('../../web/packages/wsh/bin/wsh-server.js', import.meta.url));
const allow = [new URL(llm.url).host, new URL(mcp.origin).host].join(',');

/**
 * Starts the real wsh server (on `port`, 0: any free one) with the two hosts on its relay list.
 * @param {number} port @returns {Promise<{url: string, stop: () => Promise<void>}>}
 */
async function startWsh(port) {
  const child = spawn(process.execPath, [BIN, '--port', String(port), '--keys', keysFile, '--no-pty', '--relay-allow', allow], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  /** @type {string[]} */
  const log = [];
  child.stderr.setEncoding('utf8').on('data', (d) => log.push(d));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  fx.defer(() => {
    child.kill();
  });
  const url = await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`wsh-server exited (${code}): ${log.join('')}`)));
    createInterface({ input: child.stdout }).once('line', resolve);
  });
  return {
    url,
    stop: async () => {
      child.kill();
      await exited;
    },
  };
}

const wsh = await startWsh(0);

test('control: the provider server sends no CORS headers, so the page cannot reach it directly — a clear error, nothing sent', async () => {
  await sendMessage(page, 'hello directly');
  const failed = page.getByRole('alert').filter({ hasText: 'The reply failed' });
  await failed.waitFor();
  assert.match(await failed.innerText(), new RegExp(`${llm.url.replace(/[.]/g, '\\.')}`));
  assert.equal(llm.requests.length, 0, 'the browser sent no request past the refused preflight');
});

test('marked "Through my relay" with a machine of the Remote panel, the same provider answers through the real wsh server, \
streaming', async () => {
  await page.getByRole('button', { name: 'Remote', exact: true }).click();
  await page.getByRole('textbox', { name: 'Name' }).fill('laptop');
  await page.getByRole('textbox', { name: /wsh URL/ }).fill(wsh.url);
  await page.getByRole('button', { name: 'Add machine' }).click();
  const field = page.getByRole('textbox', { name: 'Public key line of laptop' });
  await waitUntil(async () => (await field.inputValue()).startsWith('ssh-ed25519 '), 'the key line of laptop');
  await appendFile(keysFile, `${await field.inputValue()}\n`);
  await page.getByRole('button', { name: 'Back to chat' }).click();

  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: /Settings/ });
  const relay = dialog.getByLabel('Through my relay', { exact: true });
  assert.deepEqual(await relay.locator('option').allInnerTexts(), ['Direct', 'laptop']);
  // "Test connection" goes the way the turns will: refused directly (control), answered through the relay.
  await dialog.getByRole('button', { name: 'Test connection' }).click();
  await dialog.getByText(/^✗ /).waitFor();
  await relay.selectOption('laptop');
  await dialog.getByRole('button', { name: 'Test connection' }).click();
  await dialog.getByText(/^✓ /).waitFor();
  await saveSettings(page);

  llm.enqueue({ text: 'Hello from behind the relay, word by word.' });
  await sendMessage(page, 'hello through the relay');
  await page.locator('.msg.assistant', { hasText: 'Hello from behind the relay, word by word.' }).waitFor();
  assert.equal(llm.requests.at(-1)?.path, '/v1/chat/completions');
  assert.equal(llm.requests.at(-1)?.body.stream, true, 'a streamed request, streamed back through the relay');
  assert.equal(llm.requests.at(-1)?.headers.origin, undefined, 'made by the relay, not by the page');

  // Saved with the workspace's configuration: the Settings dialog shows it again.
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  assert.equal(await dialog.getByLabel('Through my relay', { exact: true }).inputValue(), 'laptop');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
});

test('a fallback marked "through my relay" answers when the direct provider cannot be reached', async () => {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: /Settings/ });
  await dialog.getByLabel('Through my relay', { exact: true }).selectOption('');
  await dialog.getByRole('button', { name: 'Add a fallback provider' }).click();
  const row = dialog.getByRole('group', { name: 'Fallback 1' });
  await row.getByLabel('Fallback 1 provider').selectOption('openai-compatible');
  await row.getByLabel('Fallback 1 model').fill('test-model');
  await row.getByLabel('Fallback 1 base URL (optional)').fill(`${llm.url}/v1`);
  await row.getByLabel('Fallback 1 through my relay').selectOption('laptop');
  await dialog.getByLabel(/Retries before the next fallback/).fill('0');
  await saveSettings(page);

  const before = llm.requests.length;
  llm.enqueue({ text: 'The fallback answered through the relay.' });
  await sendMessage(page, 'who answers?');
  await page.locator('.msg.assistant:not(.streaming)', { hasText: 'The fallback answered through the relay.' }).waitFor();
  assert.equal(llm.requests.length, before + 1, 'one request reached the server: the fallback’s, through the relay');

  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  assert.equal(await dialog.getByLabel('Fallback 1 through my relay').inputValue(), 'laptop', 'kept');
  assert.equal(await dialog.getByLabel('Through my relay', { exact: true }).inputValue(), '', 'the provider itself: direct');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
});

test('an MCP server without CORS: refused directly with a clear error (control); through the relay it connects and lists its \
tools', async () => {
  await page.getByRole('button', { name: 'Servers', exact: true }).click();
  /** @param {string} name @param {string} relay */
  const add = async (name, relay) => {
    await page.getByRole('button', { name: 'Add server' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add an MCP server' });
    await dialog.getByLabel(/^Name/).fill(name);
    await dialog.getByLabel('Server URL').fill(mcp.url('/tools'));
    await dialog.getByLabel('Through my relay').selectOption(relay);
    await dialog.getByRole('button', { name: 'Add server' }).click();
  };
  const cardOf = (/** @type {string} */ name) => page.locator('.server').filter({ has: page.getByRole('heading', { name, exact: true }) });
  await add('direct', 'direct');
  await cardOf('direct')
    .getByText(/does not let this page .* use it: CORS/)
    .waitFor();

  await add('relayed', 'laptop');
  const card = cardOf('relayed');
  await card.locator('.server-status', { hasText: 'Connected' }).waitFor();
  await card.getByText(/1 tools?, 0 resources, 0 prompts of relayed/).waitFor();
  await card.getByText(`${mcp.url('/tools')} · through the relay on “laptop”`).waitFor();
  assert.ok(!(await page.getByText('mcp__direct__lookup').count()), 'the direct one has no tools');
  await page.getByRole('button', { name: 'Back to chat' }).click();
});

test('the Remote panel shows the machine’s live connection: the server killed, it says so with the reason; restarted on its port, \
connected again by itself', async () => {
  await page.getByRole('button', { name: 'Remote', exact: true }).click();
  const status = page.getByRole('status', { name: 'Connection of laptop' });
  await status.filter({ hasText: 'Connection: connected.' }).waitFor();
  assert.equal(await status.getAttribute('aria-live'), 'polite', 'a live region: the change is announced');
  const port = Number(new URL(wsh.url).port);
  await wsh.stop();
  await status.filter({ hasText: /^Connection: (reconnecting|disconnected) — \S/ }).waitFor();
  await status.filter({ hasText: /^Connection: disconnected — (connect_failed|disconnected|closed)\b/ }).waitFor();
  const again = await startWsh(port);
  assert.equal(again.url, wsh.url, 'the same address');
  await status.filter({ hasText: 'Connection: connected.' }).waitFor();
  await page.getByRole('button', { name: 'Back to chat' }).click();
});
