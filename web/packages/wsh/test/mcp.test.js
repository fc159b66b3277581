// The server's /mcp endpoint: MCP (Streamable HTTP, revisions 2025-11-25 and 2026-07-28) for
// the tools a signed-in wsh client exposes. A real server on 127.0.0.1, a real client exposing
// through the Node entry, and the official MCP TypeScript SDK client (a dev dependency of the
// repository) as the outside MCP client; raw HTTP for what a well-behaved client never sends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { WshClient } from '../node.js';
import { makeKey, startServer } from './helpers.js';
import { MCP_ERRORS, tokenHash } from '../server/mcp.js';

const TOKEN = 'clawser-mcp_test-token-0123456789abcdefghijklmnopqrstuv';
const key = await makeKey();
const { server, logs } = await startServer([key.entry]);

/** @type {{method: string, params: Record<string, unknown>}[]} */
const seen = [];
/** @type {Set<AbortSignal>} */
const signals = new Set();
/** @type {Map<string, (params: Record<string, unknown>, signal: AbortSignal) => Promise<object>>} */
const behaviours = new Map();
/** @type {import('../client.js').McpCallHandler} */
const onCall = async (method, params, signal) => {
  seen.push({ method, params });
  signals.add(signal);
  if (method === 'tools/list')
    return { tools: [{ name: 'read_note', description: 'Reads a note', inputSchema: { type: 'object', properties: {} } }] };
  const run = behaviours.get(String(params.name));
  if (run) return run(params, signal);
  return { content: [{ type: 'text', text: `ran ${params.name} with ${JSON.stringify(params.arguments)}` }] };
};

/** An MCP SDK client on the server's /mcp with this token, 2025-11-25 (the SDK's default) or 2026-07-28. */
async function sdkClient(/** @type {string | null} */ token, /** @type {'legacy' | 'modern'} */ era = 'legacy') {
  const client = new Client(
    { name: 'wsh-test', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  const transport = new StreamableHTTPClientTransport(new URL(server.mcpUrl), {
    requestInit: token ? { headers: { authorization: `Bearer ${token}` } } : {},
  });
  await client.connect(transport);
  return client;
}

/** One raw JSON-RPC POST. @param {object} body @param {Record<string, string>} [headers] */
async function post(body, headers = {}) {
  const res = await fetch(server.mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}
const bearer = { authorization: `Bearer ${TOKEN}` };

const wsh = await WshClient.connect(server.url, { key: key.pair, reconnect: false });
assert.equal(wsh.server?.pty, false);

test('the hello says the server serves MCP; a client exposes with the SHA-256 of its token only', async () => {
  const exposure = await wsh.expose({ name: 'notes', tokens: [TOKEN], onCall });
  assert.ok(exposure.channel > 0);
  assert.ok(logs.some((l) => l.includes('“notes” exposed (1 token)')));
  assert.ok(!logs.join('\n').includes(TOKEN), 'the token is never logged');
  await exposure.stop();
});

test('a missing or wrong token is refused with 401 and says what to send; control: the right token lists the exposed tools \
(2025-11-25 and 2026-07-28)', async () => {
  const exposure = await wsh.expose({ name: 'notes', tokens: [TOKEN], onCall });
  try {
    const none = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    assert.equal(none.status, 401);
    assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="wsh-mcp"');
    assert.equal(none.body.error.code, MCP_ERRORS.unauthorized);
    assert.match(none.body.error.message, /Authorization: Bearer TOKEN/);
    const wrong = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: 'Bearer nope' });
    assert.equal(wrong.status, 401);
    assert.match(wrong.body.error.message, /reaches no Clawser workspace/);
    await assert.rejects(sdkClient('wrong-token'), /401|Unauthorized/i, 'the SDK client is refused too');
    const before = seen.length;
    assert.equal(seen.length, before, 'nothing reached the exposing client');

    for (const era of /** @type {const} */ (['legacy', 'modern'])) {
      const client = await sdkClient(TOKEN, era);
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ['read_note'],
        `${era}: the tools the client exposes`,
      );
      const result = await client.callTool({ name: 'read_note', arguments: { id: 7 } });
      assert.deepEqual(result.content, [{ type: 'text', text: 'ran read_note with {"id":7}' }]);
      await client.close();
    }
    assert.deepEqual(seen.at(-1), { method: 'tools/call', params: { name: 'read_note', arguments: { id: 7 } } }, 'no _meta is forwarded');
    assert.ok(!logs.join('\n').includes(TOKEN), 'the token is never logged');
  } finally {
    await exposure.stop();
  }
});

/**
 * One raw POST through node:http, which sends the Host and Origin it is given (fetch does not let
 * a test set Host). @param {Record<string, string>} headers
 * @returns {Promise<{status: number, text: string}>}
 */
function rawPost(headers) {
  const url = new URL(server.mcpUrl);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...bearer, ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (b) => {
          text += b;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

test('a foreign Origin and a foreign Host (DNS rebinding) are refused at /mcp before any tool is asked; control: the allowed ones \
list the tools', async () => {
  const exposure = await wsh.expose({ name: 'notes', tokens: [TOKEN], onCall });
  try {
    const own = new URL(server.mcpUrl).host; // 127.0.0.1:PORT
    const before = seen.length;
    const origin = await rawPost({ host: own, origin: 'https://evil.example' });
    assert.equal(origin.status, 403);
    assert.match(origin.text, /Origin "https:\/\/evil\.example" is not allowed; start the server with --origins/);
    const port = new URL(server.mcpUrl).port;
    const rebound = await rawPost({ host: `evil.example:${port}` });
    assert.equal(rebound.status, 403);
    assert.match(rebound.text, /DNS-rebinding/);
    const rebound2 = await rawPost({ host: `evil.example:${port}`, origin: `http://evil.example:${port}` });
    assert.equal(rebound2.status, 403, 'a rebound page: foreign Host and its own Origin');
    assert.equal(seen.length, before, 'nothing reached the exposing client');
    // Controls: the server's own Host, without an Origin (a terminal client) and with a localhost page's Origin.
    /** @type {Record<string, string>[]} */
    const allowed = [{ host: own }, { host: own, origin: 'http://localhost:5173' }, { host: `localhost:${port}` }];
    for (const headers of allowed) {
      const ok = await rawPost(headers);
      assert.equal(ok.status, 200, JSON.stringify(headers));
      assert.deepEqual(
        JSON.parse(ok.text).result.tools.map((/** @type {{name: string}} */ t) => t.name),
        ['read_note'],
      );
    }
    assert.equal(seen.length, before + 3);
  } finally {
    await exposure.stop();
  }
});

test('the server answers the handshake, ping and server/discover itself; other methods are not found; GET is 405', async () => {
  const exposure = await wsh.expose({ name: 'notes', tokens: [TOKEN], onCall });
  try {
    const before = seen.length;
    const init = await post(
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x' } },
      },
      bearer,
    );
    assert.equal(init.body.result.protocolVersion, '2025-06-18', 'a legacy revision it speaks is kept');
    assert.deepEqual(init.body.result.capabilities, { tools: { listChanged: false } });
    const newer = await post({ jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '2099-01-01' } }, bearer);
    assert.equal(newer.body.result.protocolVersion, '2025-11-25');
    assert.deepEqual((await post({ jsonrpc: '2.0', id: 3, method: 'ping' }, bearer)).body.result, {});
    const missing = await post({ jsonrpc: '2.0', id: 4, method: 'resources/list' }, bearer);
    assert.equal(missing.body.error.code, MCP_ERRORS.methodNotFound);
    const note = await fetch(server.mcpUrl, {
      method: 'POST',
      headers: bearer,
      body: '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    });
    assert.equal(note.status, 202);
    const get = await fetch(server.mcpUrl, { headers: bearer });
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
    const junk = await fetch(server.mcpUrl, { method: 'POST', headers: bearer, body: '{not json' });
    assert.equal(junk.status, 400);
    assert.equal((await junk.json()).error.code, MCP_ERRORS.parse);
    const batch = await fetch(server.mcpUrl, { method: 'POST', headers: bearer, body: '[]' });
    assert.equal(batch.status, 400);
    assert.equal(seen.length, before, 'none of these reached the exposing client');
  } finally {
    await exposure.stop();
  }
});

test('2026-07-28: the standard headers must match the body (-32020), an unknown revision is named (-32022), and the envelope is \
required', async () => {
  const exposure = await wsh.expose({ name: 'notes', tokens: [TOKEN], onCall });
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
  const modern = { ...bearer, 'mcp-protocol-version': '2026-07-28' };
  try {
    const before = seen.length;
    const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'read_note', arguments: {}, _meta: meta } };
    const wrongMethod = await post(call, { ...modern, 'mcp-method': 'tools/list', 'mcp-name': 'read_note' });
    assert.equal(wrongMethod.body.error.code, MCP_ERRORS.headerMismatch);
    const wrongName = await post(call, { ...modern, 'mcp-method': 'tools/call', 'mcp-name': 'other' });
    assert.equal(wrongName.body.error.code, MCP_ERRORS.headerMismatch);
    const wrongVersion = await post(call, {
      ...bearer,
      'mcp-protocol-version': '2025-11-25',
      'mcp-method': 'tools/call',
      'mcp-name': 'read_note',
    });
    assert.equal(wrongVersion.body.error.code, MCP_ERRORS.headerMismatch);
    const future = await post(
      { ...call, params: { ...call.params, _meta: { ...meta, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } } },
      { ...modern, 'mcp-method': 'tools/call', 'mcp-name': 'read_note' },
    );
    assert.equal(future.body.error.code, MCP_ERRORS.unsupportedVersion);
    assert.deepEqual(future.body.error.data.supported, ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26']);
    const noEnvelope = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { ...modern, 'mcp-method': 'tools/list' });
    assert.equal(noEnvelope.body.error.code, MCP_ERRORS.invalidParams);
    assert.equal(seen.length, before, 'no mismatched request reached the exposing client');
    // Control: the same call with matching headers (the name Base64-encoded as the revision allows) runs.
    const good = await post(call, { ...modern, 'mcp-method': 'tools/call', 'mcp-name': `=?base64?${btoa('read_note')}?=` });
    assert.equal(good.body.result.resultType, 'complete');
    assert.match(good.body.result.content[0].text, /^ran read_note/);
    const discover = await post(
      { jsonrpc: '2.0', id: 3, method: 'server/discover', params: { _meta: meta } },
      { ...modern, 'mcp-method': 'server/discover' },
    );
    assert.deepEqual(discover.body.result.capabilities, { tools: { listChanged: false } });
  } finally {
    await exposure.stop();
  }
});

test('a handler error is the JSON-RPC error; a call whose MCP client goes away is cancelled in the exposing client', async () => {
  const exposure = await wsh.expose({ name: 'notes', tokens: [TOKEN], onCall });
  try {
    behaviours.set('bad_args', async () => {
      const { WshMcpError } = await import('../errors.js');
      throw new WshMcpError(-32602, 'argument "id" is required');
    });
    const bad = await post({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'bad_args', arguments: {} } }, bearer);
    assert.deepEqual(bad.body.error, { code: -32602, message: 'argument "id" is required' });

    /** @type {(s: AbortSignal) => void} */
    let started = () => {};
    const gotSignal = /** @type {Promise<AbortSignal>} */ (new Promise((resolve) => (started = resolve)));
    behaviours.set('forever', (_params, signal) => {
      started(signal);
      return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
    });
    const abort = new AbortController();
    const pending = fetch(server.mcpUrl, {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'forever', arguments: {} } }),
      signal: abort.signal,
    });
    const signal = await gotSignal;
    assert.equal(signal.aborted, false);
    abort.abort();
    await assert.rejects(pending);
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    assert.equal(signal.aborted, true);
  } finally {
    await exposure.stop();
  }
});

test('stopping the exposure: its clients get a clear JSON-RPC error, also a call that waits; exposing again works (control)', async () => {
  let exposure = await wsh.expose({ name: 'notes', tokens: [TOKEN], onCall });
  /** @type {() => void} */
  let inside = () => {};
  const entered = new Promise((resolve) => (inside = () => resolve(undefined)));
  behaviours.set('slow', () => {
    inside();
    return new Promise(() => {});
  });
  const waiting = post({ jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'slow', arguments: {} } }, bearer);
  await entered;
  await exposure.stop();
  const cut = await waiting;
  assert.equal(cut.body.error.code, MCP_ERRORS.notExposed);
  assert.match(cut.body.error.message, /stopped exposing “notes”/);

  const client = await sdkClient(TOKEN).catch((err) => err);
  assert.match(String(client?.message), /Clawser stopped exposing “notes” over MCP/, 'the SDK client reads why');
  const after = await post({ jsonrpc: '2.0', id: 12, method: 'tools/list' }, bearer);
  assert.equal(after.status, 200);
  assert.deepEqual(after.body.error.data, { exposure: 'notes', reason: 'stopped' });
  const wrong = await post({ jsonrpc: '2.0', id: 13, method: 'tools/list' }, { authorization: 'Bearer other' });
  assert.equal(wrong.status, 401, 'a token that never reached it is still just refused');

  exposure = await wsh.expose({ name: 'notes', tokens: [tokenHash(TOKEN)], onCall });
  const again = await post({ jsonrpc: '2.0', id: 14, method: 'tools/list' }, bearer);
  assert.deepEqual(
    again.body.result.tools.map((/** @type {{name: string}} */ t) => t.name),
    ['read_note'],
  );
  await exposure.stop();
});

test('one token reaches one exposure: a second connection exposing it is refused until the first stops; a dropped connection \
says so', async () => {
  const other = await WshClient.connect(server.url, { key: key.pair, reconnect: false });
  const first = await wsh.expose({ name: 'notes', tokens: [TOKEN], onCall });
  await assert.rejects(other.expose({ name: 'other', tokens: [TOKEN], onCall }), { code: 'mcp_token_in_use' });
  await first.stop();
  const second = await other.expose({ name: 'other', tokens: [TOKEN], onCall });
  const ended = second.ended;
  other.close();
  assert.equal((await ended).stopped, false);
  // The server saw the connection go (its close is handled before the next request of this test).
  let gone;
  for (let i = 0; i < 50; i++) {
    gone = await post({ jsonrpc: '2.0', id: 15, method: 'tools/list' }, bearer);
    if (gone.body.error?.data?.reason === 'disconnected') break;
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.equal(gone?.body.error.code, MCP_ERRORS.notExposed);
  assert.match(gone?.body.error.message, /tab exposing “other” is not connected/);
});

test('a server whose hello offers no MCP (an older one) is never sent an expose frame: mcp_unsupported', async () => {
  const { WebSocketServer } = await import('ws');
  const { createServer } = await import('node:http');
  const { decodeFrame, encodeFrame } = await import('../protocol.js');
  const wss = new WebSocketServer({ noServer: true });
  const old = createServer();
  /** @type {string[]} */
  const received = [];
  old.on('upgrade', (req, socket, head) =>
    wss.handleUpgrade(req, socket, head, (ws) => {
      const hello = { versions: [1], nonce: 'n'.repeat(32), server: 'old', pty: false, relay: false, transports: ['websocket'] };
      ws.send(encodeFrame('hello', 0, hello));
      ws.on('message', (data) => {
        const frame = decodeFrame(data);
        received.push(frame.t);
        if (frame.t !== 'auth') return;
        const limits = {
          commands: /** @type {'*'} */ ('*'),
          dirs: /** @type {'*'} */ ('*'),
          sessions: 8,
          outputBytes: 0,
          idleTimeoutMs: 60_000,
        };
        ws.send(encodeFrame('welcome', 0, { session: 's', key: 'k', pty: false, relay: false, limits }));
      });
    }),
  );
  await new Promise((resolve) => old.listen(0, '127.0.0.1', () => resolve(undefined)));
  const port = /** @type {import('node:net').AddressInfo} */ (old.address()).port;
  const client = await WshClient.connect(`ws://127.0.0.1:${port}/wsh`, { key: key.pair, reconnect: false });
  await assert.rejects(client.expose({ name: 'notes', tokens: [TOKEN], onCall }), { code: 'mcp_unsupported' });
  assert.deepEqual(received, ['auth'], 'nothing but the sign-in reached the older server');
  assert.equal(client.status, 'open', 'and the connection goes on');
  // Control: the current server offers it, and the same call exposes.
  const live = await wsh.expose({ name: 'notes', tokens: [TOKEN], onCall });
  await live.stop();
  client.close();
  old.closeAllConnections();
  await new Promise((resolve) => old.close(() => resolve(undefined)));
});

test('after all', () => {
  wsh.close();
});
