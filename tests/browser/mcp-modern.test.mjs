// MCP revision 2026-07-28 in Chromium (issue 35 §5): the Servers panel connects a server built
// with the official v2 SDK straight from the page (stateless: no session, the Mcp-Method /
// Mcp-Name / Mcp-Param-* headers through the page's CORS), and the agent calls its tools in a
// turn; a 2026-07-28-only server whose CORS refuses the new headers is explained; CONTROL: a
// 2025 server whose CORS knows only the 2025 headers still connects (the probe falls back).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sendMessage } from './helpers.mjs';
import { useFixture } from './fixture.mjs';
import { startV2Server } from '../fixtures/mcp-v2.mjs';
import { startScriptedMcpServers } from '../fixtures/mcp-scripted.mjs';

const fx = await useFixture({
  llm: {},
  settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1` }),
});
const { llm, page } = fx;
const v2 = await startV2Server();
fx.defer(() => v2.close());

/** A server's card, by its exact name. @param {string} name */
const cardOf = (name) => page.locator('.server').filter({ has: page.getByRole('heading', { name, exact: true }) });

/** Adds a server in the Servers panel. @param {string} name @param {string} url */
async function addServer(name, url) {
  await page.getByRole('button', { name: 'Add server' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add an MCP server' });
  await dialog.getByLabel(/^Name/).fill(name);
  await dialog.getByLabel('Server URL').fill(url);
  await dialog.getByLabel('Sign-in').selectOption('none');
  await dialog.getByRole('button', { name: 'Add server' }).click();
}

test('a server of the v2 SDK is connected in revision 2026-07-28 from the page; the agent calls its tools (one mirrored into \
an Mcp-Param header) in a turn; no session on the wire', async () => {
  await page.getByRole('button', { name: 'Servers', exact: true }).click();
  await addServer('modern', v2.url);
  const card = cardOf('modern');
  await card.locator('.server-status', { hasText: 'Connected' }).waitFor();
  await card.getByText('v2-fixture 2.0.0 · protocol 2026-07-28').waitFor();
  await card.getByText(/6 tools, 1 resource, 1 prompt of modern/).click();
  const tools = card.getByRole('table', { name: 'Tools of modern' });
  await tools.getByRole('row', { name: /mcp__modern__echo .* read-only/ }).waitFor();
  await tools.getByRole('row', { name: /mcp__modern__in_region .* may change things/ }).waitFor();

  await page.getByRole('button', { name: 'Back to chat' }).click();
  const from = v2.seen.length;
  llm.enqueue(
    { toolCalls: [{ id: 'e1', name: 'mcp__modern__echo', arguments: { message: 'from the agent' } }] },
    { toolCalls: [{ id: 'r1', name: 'mcp__modern__in_region', arguments: { region: 'eu-west', query: 'select 1' } }] },
    { text: 'Both ran.' },
  );
  await sendMessage(page, 'use the modern server');
  const ask = page.getByRole('dialog', { name: 'Allow “mcp__modern__in_region”?' });
  await ask.getByRole('button', { name: 'Allow once' }).click();
  await page.locator('.msg.assistant', { hasText: 'Both ran.' }).waitFor();
  const results = llm.requests.at(-1)?.body.messages.filter((/** @type {any} */ m) => m.role === 'tool');
  assert.equal(results[0].content, 'Echo: from the agent');
  assert.equal(results[1].content, 'select 1 in eu-west');

  const calls = v2.seen.slice(from).filter((r) => r.body?.method === 'tools/call');
  assert.deepEqual(
    calls.map((r) => [r.headers['mcp-method'], r.headers['mcp-name'], r.headers['mcp-protocol-version']]),
    [
      ['tools/call', 'echo', '2026-07-28'],
      ['tools/call', 'in-region', '2026-07-28'],
    ],
  );
  assert.equal(calls[1].headers['mcp-param-region'], 'eu-west');
  assert.ok(
    v2.seen.every((r) => r.headers['mcp-session-id'] === undefined),
    'no session id ever sent',
  );
  assert.ok(
    v2.seen.every((r) => r.body?.method !== 'initialize'),
    'no initialize',
  );
  assert.ok(
    calls.every((r) => typeof r.headers.origin === 'string'),
    'the requests came from the page (CORS)',
  );
});

test('a 2026-07-28-only server whose CORS refuses the new headers is explained (CORS, the headers to allow); CONTROL: a 2025 \
server whose CORS knows only the 2025 headers connects', async () => {
  const strict = await startV2Server({ legacy: 'reject', cors: '2025' });
  fx.defer(() => strict.close());
  const old = await startScriptedMcpServers({ '/old': [{ name: 'lookup' }] });
  fx.defer(() => old.close());
  await page.getByRole('button', { name: 'Servers', exact: true }).click();
  await addServer('strict', strict.url);
  await cardOf('strict')
    .getByRole('alert')
    .getByText(/speaks protocol revision 2026-07-28, but this page's request in that revision did not get through: .*Mcp-Method/)
    .waitFor();
  await addServer('old', old.url('/old'));
  await cardOf('old').locator('.server-status', { hasText: 'Connected' }).waitFor();
  await cardOf('old')
    .getByText(/· protocol 2025-06-18/)
    .waitFor();
  await page.getByRole('button', { name: 'Back to chat' }).click();
});
