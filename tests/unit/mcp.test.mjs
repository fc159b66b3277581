// Why this file is long: 27 tests against one real MCP server (server-everything) started once for
//  the file; split, each file would start its own.
// The MCP client (issue 15) against a real server: @modelcontextprotocol/server-everything in
// its Streamable HTTP mode on 127.0.0.1, started with a clean environment. Tools (listed,
// called, an error result, a long-running one with progress and cancellation), resources,
// prompts, the session (headers, loss and a new handshake, DELETE on close), the old HTTP+SSE
// transport and CORS said clearly; the manager registering a server's tools behind the gates.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startEverythingServer } from '../fixtures/mcp-everything.mjs';
import { McpClient, McpError, PROTOCOL_VERSIONS } from '../../web/mcp/client.js';
import { McpManager } from '../../web/mcp/manager.js';
import { mcpToolName, mcpResult, mcpPermission } from '../../web/mcp/tools.js';
import { LocalConfig } from '../../web/storage/local-config.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { createBuiltinRegistry, toolSettings } from '../../web/tools/index.js';
import { ToolRunner } from '../../web/agent/runtime/tool-runner.js';
import { AutonomyController } from '../../web/agent/runtime/autonomy.js';
import { memoryStorage } from '../fixtures/stand-ins.mjs';
import { startScriptedMcpServers } from '../fixtures/mcp-scripted.mjs';
import { waitUntil, nextTurn } from '../fixtures/wait.mjs';

/** @type {Awaited<ReturnType<typeof startEverythingServer>>} */
let server;
before(async () => {
  // A secret of the test machine that the server must not see.
  process.env.CLAWSER_TEST_CANARY = 'do-not-leak-0123456789';
  server = await startEverythingServer();
});
after(async () => {
  await server?.close();
});

/** A fetch that records every request (method, headers, body). */
function recordingFetch() {
  /** @type {{method: string, headers: Record<string, string>, body: any}[]} */
  const seen = [];
  /** @type {typeof fetch} */
  const f = async (input, init = {}) => {
    const headers = /** @type {Record<string, string>} */ ({ .../** @type {any} */ (init.headers ?? {}) }); // plain objects here
    let body = null;
    try {
      body = init.body ? JSON.parse(String(init.body)) : null;
    } catch {
      body = init.body;
    }
    seen.push({ method: init.method ?? 'GET', headers, body });
    return fetch(input, init);
  };
  return { fetch: f, seen };
}

/** A stand-in for SecretBox (IndexedDB is not in Node): sealed values never equal the secret. */
const secrets = /** @type {any} */ ({
  encrypt: async (/** @type {string} */ s) => `v1:${Buffer.from(s).toString('base64').split('').reverse().join('')}`,
  decrypt: async (/** @type {string} */ s) => Buffer.from(s.slice(3).split('').reverse().join(''), 'base64').toString(),
}); // the two methods the manager uses

test("handshake, session and protocol headers; tools listed and called; an error result; the server's environment is clean", async () => {
  const rec = recordingFetch();
  const client = new McpClient({ url: server.url, fetch: rec.fetch });
  const info = await client.connect();
  assert.equal(info.serverInfo.name, 'mcp-servers/everything');
  assert.ok(PROTOCOL_VERSIONS.includes(info.protocolVersion));
  assert.ok(client.sessionId, 'the session id is kept');
  const [probe, init, initialized] = rec.seen;
  assert.equal(probe.body.method, 'server/discover', 'the 2026-07-28 probe first (this server is of the 2025 era)');
  assert.equal(init.body.method, 'initialize');
  assert.equal(init.headers['mcp-method'], undefined, 'a 2025 request carries none of the 2026-07-28 headers');
  assert.equal(init.headers.accept, 'application/json, text/event-stream', 'JSON and SSE both accepted');
  assert.equal(init.headers['mcp-session-id'], undefined);
  assert.equal(initialized.body.method, 'notifications/initialized');
  assert.equal(initialized.headers['mcp-session-id'], client.sessionId);
  assert.equal(
    initialized.headers['mcp-protocol-version'],
    info.protocolVersion,
    'the protocol version on every request after the handshake',
  );

  const tools = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const n of ['echo', 'get-sum', 'get-env', 'trigger-long-running-operation', 'get-tiny-image']) assert.ok(names.includes(n), n);
  assert.deepEqual(await client.callTool('echo', { message: 'héllo' }), {
    content: [{ type: 'text', text: 'Echo: héllo' }],
    isError: false,
  });
  const sum = await client.callTool('get-sum', { a: 2, b: 40 });
  assert.match(/** @type {any} */ (sum.content[0]).text, /42/);
  const bad = await client.callTool('get-sum', { a: 'two' });
  assert.equal(bad.isError, true, 'invalid arguments come back as an error result');
  assert.match(/** @type {any} */ (bad.content[0]).text, /expected number/);
  const env = JSON.parse(/** @type {any} */ ((await client.callTool('get-env', {})).content[0]).text);
  assert.deepEqual(Object.keys(env).sort(), ['NODE_ENV', 'PATH', 'PORT'], 'started with a clean environment');
  assert.ok(!JSON.stringify(env).includes('do-not-leak'), "control: the canary is in this process's environment, not the server's");
  assert.equal(process.env.CLAWSER_TEST_CANARY, 'do-not-leak-0123456789');
  const image = await client.callTool('get-tiny-image', {});
  const mapped = mcpResult(image);
  assert.equal(mapped.ok, true);
  assert.match(String(mapped.image?.dataUrl), /^data:image\/png;base64,iVBOR/);
  assert.match(mapped.output, /\[image: image\/png, \d+ bytes\]/);

  const session = client.sessionId;
  await client.close();
  const del = rec.seen.at(-1);
  assert.equal(del?.method, 'DELETE');
  assert.equal(del?.headers['mcp-session-id'], session);
});

test('a long-running tool reports progress; cancelling it tells the server (notifications/cancelled)', async () => {
  const rec = recordingFetch();
  const client = new McpClient({ url: server.url, fetch: rec.fetch });
  await client.connect();
  /** @type {import('../../web/mcp/client.js').McpProgress[]} */
  const progress = [];
  const done = await client.callTool(
    'trigger-long-running-operation',
    { duration: 0.6, steps: 3 },
    { onProgress: (p) => progress.push(p) },
  );
  assert.match(/** @type {any} */ (done.content[0]).text, /completed/);
  assert.deepEqual(progress, [
    { progress: 1, total: 3 },
    { progress: 2, total: 3 },
    { progress: 3, total: 3 },
  ]);
  const call = rec.seen.find((r) => r.body?.method === 'tools/call' && r.body.params.name === 'trigger-long-running-operation');
  assert.ok(call?.body.params._meta.progressToken, 'a progress token is sent');

  const abort = new AbortController();
  /** @type {import('../../web/mcp/client.js').McpProgress[]} */
  const seen = [];
  const long = client.callTool(
    'trigger-long-running-operation',
    { duration: 30, steps: 30 },
    {
      signal: abort.signal,
      onProgress: (p) => {
        seen.push(p);
        abort.abort();
      },
    },
  );
  await assert.rejects(long, (err) => err instanceof McpError && err.code === 'aborted');
  assert.equal(seen.length, 1);
  const id = rec.seen.filter((r) => r.body?.method === 'tools/call').at(-1)?.body.id;
  await waitUntil(() => rec.seen.some((r) => r.body?.method === 'notifications/cancelled'), 'the server to be told of the cancellation');
  const cancelled = rec.seen.find((r) => r.body?.method === 'notifications/cancelled');
  assert.equal(cancelled?.body.params.requestId, id, 'the server is told which request to stop');
  // The session still works after a cancellation.
  assert.equal((await client.callTool('echo', { message: 'still here' })).isError, false);
  await client.close();
});

test('resources and prompts: listed, read, got with arguments', async () => {
  const client = new McpClient({ url: server.url });
  await client.connect();
  const resources = await client.listResources();
  assert.ok(resources.length > 0);
  const doc = resources.find((r) => r.mimeType === 'text/markdown') ?? resources[0];
  const read = await client.readResource(doc.uri);
  assert.equal(read.contents[0].uri, doc.uri);
  assert.ok(String(read.contents[0].text).length > 10);
  const prompts = await client.listPrompts();
  const args = prompts.find((p) => p.name === 'args-prompt');
  assert.deepEqual(
    args?.arguments?.map((a) => [a.name, !!a.required]),
    [
      ['city', true],
      ['state', false],
    ],
  );
  const got = await client.getPrompt('args-prompt', { city: 'Lyon' });
  assert.match(JSON.stringify(got.messages), /Lyon/);
  await assert.rejects(client.getPrompt('no-such-prompt', {}), (err) => err instanceof McpError && err.code === 'rpc');
  await client.close();
});

test('session loss: the server restarts (every session gone) and the next request makes a new handshake, then goes through', async () => {
  const own = await startEverythingServer();
  try {
    const rec = recordingFetch();
    const client = new McpClient({ url: own.url, fetch: rec.fetch });
    await client.connect();
    const first = client.sessionId;
    await own.restart();
    const r = await client.callTool('echo', { message: 'after the restart' });
    assert.equal(/** @type {any} */ (r.content[0]).text, 'Echo: after the restart');
    assert.notEqual(client.sessionId, first, 'a new session');
    assert.equal(rec.seen.filter((x) => x.body?.method === 'initialize').length, 2);
    await client.close();
  } finally {
    await own.close();
  }
});

test('said clearly: an old HTTP+SSE server, a revision this client does not speak, CORS (with the headers to allow), \
nothing listening', async () => {
  const old = await startEverythingServer({ transport: 'sse' });
  try {
    await assert.rejects(
      new McpClient({ url: old.url }).connect(),
      (err) =>
        err instanceof McpError &&
        err.code === 'old_transport' &&
        /only the old HTTP\+SSE transport \(protocol 2024-11-05\)/.test(err.message),
    );
  } finally {
    await old.close();
  }
  // A server that answers only a newer revision.
  /** @type {typeof fetch} */
  const newer = async (_u, init) =>
    new Response(
      JSON.stringify({
        jsonrpc: '2.0',
        id: JSON.parse(String(init?.body)).id,
        result: { protocolVersion: '2026-09-30', capabilities: {}, serverInfo: { name: 'future' } },
      }),
      { headers: { 'content-type': 'application/json' } },
    );
  await assert.rejects(
    new McpClient({ url: 'https://mcp.example/mcp', fetch: newer }).connect(),
    (err) => err instanceof McpError && err.code === 'unsupported_version' && /The server is newer: update Clawser/.test(err.message),
  );
  // CORS: the request fails, but a no-cors probe gets an answer.
  /** @type {typeof fetch} */
  const cors = async (_u, init) => {
    if (init?.mode === 'no-cors') return new Response(null, { status: 200 });
    throw new TypeError('Failed to fetch');
  };
  await assert.rejects(
    new McpClient({ url: 'https://mcp.example/mcp', fetch: cors, origin: 'https://clawser.example' }).connect(),
    (err) =>
      err instanceof McpError &&
      err.code === 'cors' &&
      /does not let this page \(https:\/\/clawser\.example\) use it/.test(err.message) &&
      err.message.includes(
        'Mcp-Session-Id, MCP-Protocol-Version, Mcp-Method, Mcp-Name (and any Mcp-Param-* its tools declare) and ' +
          'Last-Event-ID request headers',
      ) &&
      /expose the Mcp-Session-Id response header/.test(err.message),
  );
  /** @type {typeof fetch} */
  const down = async () => {
    throw new TypeError('Failed to fetch');
  };
  await assert.rejects(
    new McpClient({ url: 'http://127.0.0.1:9/mcp', fetch: down }).connect(),
    (err) => err instanceof McpError && err.code === 'unreachable' && /is the server running/.test(err.message),
  );
  // A 401 keeps the server's WWW-Authenticate (OAuth starts there).
  /** @type {typeof fetch} */
  const locked = async () =>
    new Response('{"error":"invalid_token"}', {
      status: 401,
      headers: { 'www-authenticate': 'Bearer resource_metadata="https://mcp.example/.well-known/oauth-protected-resource"' },
    });
  await assert.rejects(
    new McpClient({ url: 'https://mcp.example/mcp', fetch: locked }).connect(),
    (err) => err instanceof McpError && err.code === 'auth' && /resource_metadata/.test(String(err.authenticate)),
  );
});

test('pagination: every page of tools/list is read', async () => {
  /** @type {typeof fetch} */
  const paged = async (_u, init) => {
    const m = JSON.parse(String(init?.body ?? '{}'));
    const page = (/** @type {any} */ result) =>
      new Response(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }), { headers: { 'content-type': 'application/json' } });
    if (m.method === 'initialize')
      return page({ protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'paged' } });
    if (!('id' in m)) return new Response(null, { status: 202 });
    const cursor = m.params?.cursor;
    if (!cursor) return page({ tools: [{ name: 'a', inputSchema: { type: 'object' } }], nextCursor: 'p2' });
    if (cursor === 'p2') return page({ tools: [{ name: 'b', inputSchema: { type: 'object' } }], nextCursor: 'p3' });
    return page({ tools: [{ name: 'c', inputSchema: { type: 'object' } }] });
  };
  const client = new McpClient({ url: 'https://mcp.example/mcp', fetch: paged });
  await client.connect();
  assert.deepEqual(
    (await client.listTools()).map((t) => t.name),
    ['a', 'b', 'c'],
  );
});

test('the manager: a server saved with its token sealed; its tools registered as mcp__{server}__{tool} (read-only ones as read, \
destructive ones always asked), results untrusted; gone on disconnect', async () => {
  const config = new LocalConfig(memoryStorage());
  const registry = createBuiltinRegistry({ config, workspaceId: 'ws' });
  const rec = recordingFetch();
  const manager = new McpManager({ config, secrets, registry, workspaceId: 'ws', fetch: rec.fetch });
  const s = await manager.add({ name: 'Everything', url: server.url, auth: 'bearer', secret: 'tok-secret-987654' });
  assert.ok(!JSON.stringify(config.entries()).includes('tok-secret-987654'), 'the token is not stored in clear');
  await assert.rejects(manager.add({ name: 'everything', url: server.url }), /already set up/);
  await assert.rejects(manager.add({ name: 'Bad', url: 'ftp://x' }), /http/);
  await manager.connect(s.id);
  assert.equal(manager.state(s.id).status, 'connected');
  assert.equal(
    rec.seen.find((r) => r.body?.method === 'initialize')?.headers.authorization,
    'Bearer tok-secret-987654',
    'the token is sent',
  );
  const echo = registry.get('mcp__everything__echo');
  assert.ok(echo);
  assert.equal(echo.permission, 'read', 'readOnlyHint');
  assert.equal(registry.get('mcp__everything__toggle_simulated_logging')?.permission, 'network', 'no readOnlyHint: network');
  assert.equal(echo.untrusted, 'the MCP server “Everything”');
  const spec = registry.specs().find((t) => t.name === 'mcp__everything__get_sum');
  assert.equal(/** @type {any} */ (spec?.parameters).properties.a.type, 'number', "the server's own JSON Schema goes to the model");
  assert.ok(manager.state(s.id).resources.length > 0);
  assert.ok(manager.state(s.id).prompts.some((p) => p.name === 'simple-prompt'));
  assert.equal(manager.servers()[0].autoConnect, true, 'reconnected when the workspace opens again');

  // Through the gates: network tools ask at supervised autonomy; the result taints the conversation.
  /** @type {import('../../web/agent/runtime/tool-runner.js').ApprovalRequest[]} */
  const asked = [];
  const runner = new ToolRunner({
    registry,
    context: { workspaceId: 'ws', fs: new MemoryFileSystem(), settings: toolSettings(), fetch },
    autonomy: new AutonomyController({ config: { level: 'supervised' } }),
    approve: async (r) => {
      asked.push(r);
      return 'once';
    },
  });
  const out = await runner.run({ id: 'c1', name: 'mcp__everything__echo', arguments: { message: 'through the gates' } });
  assert.equal(out.ok, true);
  assert.equal(out.output, 'Echo: through the gates');
  assert.equal(asked.length, 0, 'a read-only tool runs without asking');
  assert.ok(
    runner.taint.some((t) => /MCP server “Everything”/.test(t.what)),
    'an MCP result is untrusted content',
  );
  const toggled = await runner.run({ id: 'c0', name: 'mcp__everything__toggle_simulated_logging', arguments: {} });
  assert.equal(toggled.ok, true);
  assert.deepEqual(
    asked.map((r) => r.tool),
    ['mcp__everything__toggle_simulated_logging'],
    'a network tool is asked for at supervised autonomy',
  );
  // The server's log messages arrive (on its GET stream) and are kept for the Servers panel.
  // (The roots exchange may log first; the simulated messages say "…-level message".)
  const simulated = () => manager.state(s.id).logs.some((l) => /level[- ]message/i.test(l.text));
  await waitUntil(simulated, () => `the simulated log messages; the logs: ${JSON.stringify(manager.state(s.id).logs)}`);
  const readOnly = await runner.run({ id: 'c2', name: 'mcp__everything__get_sum', arguments: { a: 1, b: 2 } });
  assert.equal(readOnly.ok, true);
  const failed = await runner.run({ id: 'c3', name: 'mcp__everything__get_sum', arguments: { a: 'x' } });
  assert.equal(failed.ok, false, 'isError is a failed result');

  await manager.disconnect(s.id);
  assert.equal(registry.get('mcp__everything__echo'), undefined, 'its tools are gone');
  assert.equal(manager.servers()[0].autoConnect, false);
  assert.equal(rec.seen.at(-1)?.method, 'DELETE');
  await manager.remove(s.id);
  assert.deepEqual(manager.servers(), []);
  assert.ok(!config.entries().some(([k]) => k.startsWith('clawser_mcp_secret_')), 'its sealed token is removed too');
});

test('tool names and permissions from annotations; a destructive tool is asked for every time, with no "Always allow"', async () => {
  assert.equal(mcpToolName('My Server', 'get-env'), 'mcp__my_server__get_env');
  const long = mcpToolName('a'.repeat(40), 'b'.repeat(40));
  assert.ok(long.length <= 64);
  assert.notEqual(long, mcpToolName('a'.repeat(40), `${'b'.repeat(39)}c`), 'long names stay apart');
  assert.equal(mcpPermission({ name: 't', inputSchema: {}, annotations: { readOnlyHint: true } }), 'read');
  assert.equal(mcpPermission({ name: 't', inputSchema: {} }), 'network');
  assert.equal(
    mcpPermission({ name: 't', inputSchema: {}, annotations: { readOnlyHint: true, destructiveHint: true } }),
    'network',
    'contradictory hints: the safer reading',
  );
  const { mcpToolDefinition } = await import('../../web/mcp/tools.js');
  const config = new LocalConfig(memoryStorage());
  const registry = createBuiltinRegistry({ config, workspaceId: 'ws' });
  let calls = 0;
  const fake = /** @type {any} */ ({
    callTool: async () => {
      calls++;
      return { content: [{ type: 'text', text: 'deleted' }], isError: false };
    },
  }); // the one method the tool calls
  registry.register(
    mcpToolDefinition(
      { id: 'x', name: 'files', url: 'https://files.example/mcp' },
      { name: 'delete-all', inputSchema: { type: 'object' }, annotations: { destructiveHint: true } },
      () => fake,
    ),
  );
  registry.setPolicy('mcp__files__delete_all', 'auto');
  /** @type {import('../../web/agent/runtime/tool-runner.js').ApprovalRequest[]} */
  const asked = [];
  const runner = new ToolRunner({
    registry,
    context: { workspaceId: 'ws', fs: new MemoryFileSystem(), settings: toolSettings(), fetch },
    autonomy: new AutonomyController({ config: { level: 'full' } }),
    approve: async (r) => {
      asked.push(r);
      return 'always';
    },
  });
  await runner.run({ id: 'd1', name: 'mcp__files__delete_all', arguments: {} });
  await runner.run({ id: 'd2', name: 'mcp__files__delete_all', arguments: {} });
  assert.equal(asked.length, 2, 'asked every time, even with the policy set to auto and "always" answered');
  assert.equal(asked[0].allowAlways, false);
  assert.match(asked[0].reason, /marks delete-all as destructive/);
  assert.equal(calls, 2);
});

test('a 404 for a known session: a new handshake and the request again; tools/list_changed and log notifications reach their callbacks; \
a server ping is answered', async () => {
  let sessions = 0;
  let forget = false;
  /** @type {any[]} */
  const replies = [];
  /** @type {typeof fetch} */
  const stub = async (_u, init) => {
    const m = JSON.parse(String(init?.body ?? '{}'));
    const headers = /** @type {Record<string, string>} */ (init?.headers ?? {});
    if (m.method === 'initialize') {
      sessions++;
      return new Response(
        JSON.stringify({
          jsonrpc: '2.0',
          id: m.id,
          result: { protocolVersion: '2025-06-18', capabilities: { tools: { listChanged: true } }, serverInfo: { name: 'stub' } },
        }),
        { headers: { 'content-type': 'application/json', 'mcp-session-id': `s${sessions}` } },
      );
    }
    if (!('id' in m)) return new Response(null, { status: 202 });
    if (!('method' in m)) {
      replies.push(m);
      return new Response(null, { status: 202 });
    }
    if (forget && headers['mcp-session-id'] === 's1') return new Response('{"error":"unknown session"}', { status: 404 });
    // An SSE answer carrying a server request and notifications before the result.
    const sse = [
      { jsonrpc: '2.0', id: 'srv-1', method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'warning', logger: 'stub', data: 'disk almost full' } },
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
      { jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: `ok in ${headers['mcp-session-id']}` }] } },
    ]
      .map((x) => `event: message\ndata: ${JSON.stringify(x)}\n\n`)
      .join('');
    return new Response(sse, { headers: { 'content-type': 'text/event-stream' } });
  };
  /** @type {string[]} */
  const logs = [];
  let changed = 0;
  const client = new McpClient({
    url: 'https://mcp.example/mcp',
    fetch: stub,
    onLog: (level, data, logger) => logs.push(`${level} ${logger}: ${data}`),
    onToolsChanged: () => changed++,
  });
  await client.connect();
  assert.equal(/** @type {any} */ ((await client.callTool('t', {})).content[0]).text, 'ok in s1');
  assert.deepEqual(logs, ['warning stub: disk almost full']);
  assert.equal(changed, 1);
  assert.deepEqual(replies, [{ jsonrpc: '2.0', id: 'srv-1', result: {} }], "the server's ping is answered");
  forget = true;
  assert.equal(
    /** @type {any} */ ((await client.callTool('t', {})).content[0]).text,
    'ok in s2',
    'a 404: new handshake, then the request again',
  );
  assert.equal(sessions, 2);
});

/**
 * A stub MCP server in a fetch: `handle(message, headers)` answers each JSON-RPC POST.
 * @param {(m: any, headers: Record<string, string>, init: RequestInit) => Response | Promise<Response>} handle
 */
const stubFetch = (handle) =>
  /** @type {typeof fetch} */ (
    async (_u, init = {}) =>
      handle(init.body ? JSON.parse(String(init.body)) : null, /** @type {Record<string, string>} */ (init.headers ?? {}), init)
  );
/** @param {number | string} id @param {unknown} result @param {Record<string, string>} [headers] */
const rpc = (id, result, headers = {}) =>
  new Response(JSON.stringify({ jsonrpc: '2.0', id, result }), { headers: { 'content-type': 'application/json', ...headers } });
const initResult = (/** @type {number} */ id, /** @type {string} */ session) =>
  rpc(id, { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'stub' } }, { 'mcp-session-id': session });

test('session loss seen by several requests at once: one new handshake, every request goes through; \
the protocol and session headers on every kind of request', async () => {
  let sessions = 0;
  let lost = false;
  /** @type {{method: string, headers: Record<string, string>}[]} */
  const seen = [];
  const f = stubFetch(async (m, headers, init) => {
    seen.push({ method: String(init.method), headers });
    if (init.method === 'DELETE' || init.method === 'GET') return new Response(null, { status: init.method === 'GET' ? 405 : 200 });
    if (m.method === 'initialize') {
      sessions++;
      lost = false;
      return initResult(m.id, `s${sessions}`);
    }
    if (!('id' in m)) return new Response(null, { status: 202 });
    if (lost || headers['mcp-session-id'] !== `s${sessions}`)
      return new Response('{"jsonrpc":"2.0","error":{"code":-32000,"message":"Session not found"}}', { status: 404 });
    await nextTurn(); // the answer takes a moment, as over a network
    return rpc(m.id, { content: [{ type: 'text', text: `ok ${headers['mcp-session-id']}` }] });
  });
  const client = new McpClient({ url: 'https://mcp.example/mcp', fetch: f });
  await client.connect();
  lost = true;
  const answers = await Promise.all([1, 2, 3, 4].map(() => client.callTool('t', {})));
  assert.deepEqual(
    answers.map((a) => /** @type {any} */ (a.content[0]).text),
    ['ok s2', 'ok s2', 'ok s2', 'ok s2'],
  );
  assert.equal(sessions, 2, 'one new handshake for the four');
  client.listen();
  await waitUntil(() => seen.some((r) => r.method === 'GET' && r.headers['mcp-session-id'] === 's2'), 'the GET stream to be asked for');
  await client.close();
  for (const r of seen.filter((x) => x.headers['mcp-session-id']))
    assert.equal(r.headers['mcp-protocol-version'], '2025-11-25', `${r.method} carries the protocol version`);
  assert.ok(
    seen.some((r) => r.method === 'GET' && r.headers['mcp-session-id'] === 's2'),
    'the GET stream carries the session',
  );
  assert.ok(
    seen.some((r) => r.method === 'DELETE' && r.headers['mcp-session-id'] === 's2'),
    'so does DELETE',
  );
});

test('a response stream that closes before the answer is resumed with Last-Event-ID (2025-11-25); \
a server that never answers times out', async () => {
  /** @type {string[]} */
  const resumedWith = [];
  let callId = 0;
  const f = stubFetch((m, headers, init) => {
    if (init.method === 'GET') {
      resumedWith.push(String(headers['last-event-id']));
      return new Response(
        `id: e2\ndata: ` +
          `${JSON.stringify({ jsonrpc: '2.0', id: callId, result: { content: [{ type: 'text', text: 'after resuming' }] } })}\n\n`,
        { headers: { 'content-type': 'text/event-stream' } },
      );
    }
    if (m.method === 'initialize') return initResult(m.id, 's1');
    if (!('id' in m)) return new Response(null, { status: 202 });
    callId = m.id;
    // The priming event (an id, no data) and a retry delay, then the connection closes.
    return new Response('id: e1\nretry: 10\ndata: \n\n', { headers: { 'content-type': 'text/event-stream' } });
  });
  const client = new McpClient({ url: 'https://mcp.example/mcp', fetch: f });
  await client.connect();
  const r = await client.callTool('slow', {});
  assert.equal(/** @type {any} */ (r.content[0]).text, 'after resuming');
  assert.deepEqual(resumedWith, ['e1']);

  const silent = stubFetch((m, _h, init) => {
    if (m?.method === 'initialize') return initResult(m.id, 's1');
    if (!m || !('id' in m)) return new Response(null, { status: 202 });
    return new Promise((_resolve, reject) =>
      init.signal?.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' }))),
    );
  });
  const slow = new McpClient({ url: 'https://mcp.example/mcp', fetch: silent, timeoutMs: 50 });
  await slow.connect();
  await assert.rejects(
    slow.callTool('hang', {}),
    (err) => err instanceof McpError && /did not answer tools\/call within 0 s/.test(err.message),
  );
});

test('a server of a draft of the sessionless revision (no initialize, and no server/discover either) is named as such, with the \
revisions it lists; a session id the page cannot read is explained', async () => {
  const sessionless = stubFetch(
    (m) =>
      new Response(
        JSON.stringify({
          jsonrpc: '2.0',
          id: m.id,
          error: { code: -32004, message: 'Unsupported protocol version', data: { supported: ['2026-07-28'] } },
        }),
        { status: 400, headers: { 'content-type': 'application/json' } },
      ),
  );
  await assert.rejects(
    new McpClient({ url: 'https://mcp.example/mcp', fetch: sessionless }).connect(),
    (err) =>
      err instanceof McpError &&
      err.code === 'unsupported_version' &&
      err.message.includes(
        "lists protocol revision 2026-07-28 but refused both Clawser's 2026-07-28 request (server/discover) and the initialize " +
          'handshake: it may speak a draft',
      ),
  );
  const noMethod = stubFetch(
    (m) =>
      new Response(JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found: initialize' } }), {
        headers: { 'content-type': 'application/json' },
      }),
  );
  await assert.rejects(
    new McpClient({ url: 'https://mcp.example/mcp', fetch: noMethod }).connect(),
    (err) => err instanceof McpError && err.code === 'unsupported_version',
  );
  // The handshake answers, but its Mcp-Session-Id is not exposed (CORS): the next request is refused for want of it.
  const hidden = stubFetch((m) => {
    if (m.method === 'initialize') return rpc(m.id, { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'hidden' } });
    if (!('id' in m)) return new Response(null, { status: 202 });
    return new Response('{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"}}', { status: 400 });
  });
  const client = new McpClient({ url: 'https://mcp.example/mcp', fetch: hidden });
  await client.connect();
  await assert.rejects(
    client.listTools(),
    (err) => err instanceof McpError && /must expose it \(Access-Control-Expose-Headers: Mcp-Session-Id\)/.test(err.message),
  );
});

test('OAuth discovery refuses metadata for another resource, a wrong issuer, plain http off this machine, no PKCE; \
asks only the scopes the server names', async () => {
  const { discover, McpOAuth } = await import('../../web/mcp/oauth.js');
  /** @param {Record<string, unknown>} routes url → JSON @returns {typeof fetch} */
  const serve = (routes) =>
    /** @type {typeof fetch} */ (
      async (u) => (String(u) in routes ? new Response(JSON.stringify(routes[String(u)])) : new Response('no', { status: 404 }))
    );
  const as = {
    issuer: 'https://auth.example',
    authorization_endpoint: 'https://auth.example/authorize',
    token_endpoint: 'https://auth.example/token',
    registration_endpoint: 'https://auth.example/register',
    code_challenge_methods_supported: ['S256'],
    scopes_supported: ['read', 'write', 'admin'],
  };
  const prm = { resource: 'https://mcp.example/mcp', authorization_servers: ['https://auth.example'], scopes_supported: ['read'] };
  const good = {
    'https://mcp.example/.well-known/oauth-protected-resource/mcp': prm,
    'https://auth.example/.well-known/oauth-authorization-server': as,
  };
  const found = await discover('https://mcp.example/mcp', 'Bearer realm="x"', serve(good));
  assert.equal(found.resource, 'https://mcp.example/mcp');
  assert.deepEqual(found.scopes, ['read'], "the resource's own scopes, not every scope of the authorization server");
  assert.deepEqual(
    (await discover('https://mcp.example/mcp', 'Bearer scope="read:files"', serve(good))).scopes,
    ['read:files'],
    'the scope the 401 names',
  );
  // Metadata naming another API as the resource: a token for it would be handed to this server.
  const other = {
    ...good,
    'https://mcp.example/.well-known/oauth-protected-resource/mcp': { ...prm, resource: 'https://api.bank.example/' },
  };
  await assert.rejects(
    discover('https://mcp.example/mcp', null, serve(other)),
    /names https:\/\/api\.bank\.example\/ as the resource to sign in for, which is not this server/,
  );
  const issuer = { ...good, 'https://auth.example/.well-known/oauth-authorization-server': { ...as, issuer: 'https://evil.example' } };
  await assert.rejects(discover('https://mcp.example/mcp', null, serve(issuer)), /names another issuer/);
  const plain = {
    ...good,
    'https://auth.example/.well-known/oauth-authorization-server': { ...as, token_endpoint: 'http://auth.example/token' },
  };
  await assert.rejects(discover('https://mcp.example/mcp', null, serve(plain)), /not on https/);
  const noPkce = {
    ...good,
    'https://auth.example/.well-known/oauth-authorization-server': { ...as, code_challenge_methods_supported: ['plain'] },
  };
  await assert.rejects(discover('https://mcp.example/mcp', null, serve(noPkce)), /PKCE \(S256\)/);
  await assert.rejects(discover('https://mcp.example/mcp', null, serve({})), /no OAuth protected-resource metadata/);

  // Tokens: refreshed once for concurrent requests (a refresh token may be good for one use), kept sealed, removed with the server.
  const config = new LocalConfig(memoryStorage());
  let now = 1_000_000;
  let refreshes = 0;
  const tokenFetch = /** @type {typeof fetch} */ (
    async (u, init) => {
      const url = String(u);
      if (url in good) return new Response(JSON.stringify(/** @type {any} */ (good)[url]));
      if (url === as.registration_endpoint) return new Response(JSON.stringify({ client_id: 'c1' }));
      if (url === as.token_endpoint) {
        const form = new URLSearchParams(String(init?.body));
        if (form.get('grant_type') === 'refresh_token') {
          refreshes++;
          await nextTurn();
          return new Response(
            JSON.stringify({ access_token: `at-${refreshes + 1}`, expires_in: 3600, refresh_token: `rt-${refreshes + 1}` }),
          );
        }
        return new Response(JSON.stringify({ access_token: 'at-1', expires_in: 3600, refresh_token: 'rt-1' }));
      }
      return new Response('no', { status: 404 });
    }
  );
  const oauth = new McpOAuth({
    config,
    secrets,
    fetch: tokenFetch,
    redirectUri: 'https://app.example/web/app/oauth-callback.html',
    now: () => now,
    authorize: async (url, state) => ({ code: 'code-1', state, asked: url }),
  });
  const server = { id: 'srv1', name: 'secured', url: 'https://mcp.example/mcp', auth: /** @type {const} */ ('oauth'), autoConnect: false };
  await oauth.signIn('ws', server, null);
  assert.deepEqual(await oauth.headers('ws', server), { authorization: 'Bearer at-1' });
  assert.ok(!JSON.stringify(config.entries()).includes('at-1'), 'sealed');
  now += 3600 * 1000;
  const both = await Promise.all([oauth.headers('ws', server), oauth.headers('ws', server)]);
  assert.equal(refreshes, 1, 'one refresh for two requests');
  assert.deepEqual(both, [{ authorization: 'Bearer at-2' }, { authorization: 'Bearer at-2' }]);
  // The manager redacts OAuth tokens and removes them with the server.
  const manager = new McpManager({ config, secrets, registry: createBuiltinRegistry(), workspaceId: 'ws' });
  config.set('clawser_mcp_servers_ws', [server]);
  assert.deepEqual((await manager.secretValues()).sort(), ['at-2', 'rt-2']);
  await manager.remove('srv1');
  assert.equal(await oauth.signedIn('ws', 'srv1'), false, 'its tokens are gone with it');
});

test('results with embedded resources and links; the manager lists tools again when the server says they changed; \
the public API is exported', async () => {
  const r = mcpResult({
    isError: false,
    content: [
      { type: 'text', text: 'Here:' },
      { type: 'resource', resource: { uri: 'file:///notes.md', mimeType: 'text/markdown', text: '# Notes' } },
      { type: 'resource', resource: { uri: 'file:///logo.png', mimeType: 'image/png', blob: 'iVBOR' } },
      { type: 'resource_link', uri: 'https://example.com/doc', name: 'doc', description: 'The doc' },
    ],
  });
  assert.equal(
    r.output,
    'Here:\n[resource file:///notes.md (text/markdown)]\n# Notes\n[resource file:///logo.png: ' +
      'binary, image/png]\n[link: doc — https://example.com/doc — The doc]',
  );
  assert.equal(mcpResult({ isError: true, content: [] }).ok, false);

  let tools = [{ name: 'first', inputSchema: { type: 'object' } }];
  /** @type {(() => void) | null} */
  let announce = null;
  const f = stubFetch((m, _h, init) => {
    if (init.method !== 'POST') return new Response(null, { status: 405 });
    if (m.method === 'initialize') return initResult(m.id, 's1');
    if (!('id' in m)) return new Response(null, { status: 202 });
    if (m.method === 'tools/list') return rpc(m.id, { tools });
    return rpc(m.id, {});
  });
  const config = new LocalConfig(memoryStorage());
  const registry = createBuiltinRegistry();
  const manager = new McpManager({
    config,
    secrets,
    registry,
    workspaceId: 'ws',
    fetch: /** @type {typeof fetch} */ (
      async (u, init) => {
        const res = await f(u, init);
        return res;
      }
    ),
  });
  const s = await manager.add({ name: 'Changing', url: 'https://mcp.example/mcp' });
  await manager.connect(s.id);
  assert.ok(registry.get('mcp__changing__first'));
  // The client's onToolsChanged, as a server notification would call it.
  announce = () => /** @type {any} */ (manager.client(s.id))?.options.onToolsChanged?.(); // the callback the manager gave the client
  tools = [{ name: 'second', inputSchema: { type: 'object' } }];
  announce();
  await waitUntil(() => registry.get('mcp__changing__second'), 'the new tool list');
  assert.ok(registry.get('mcp__changing__second'), 'the new tool is registered');
  assert.equal(registry.get('mcp__changing__first'), undefined, 'the old one is gone');
  await manager.disconnect(s.id);

  const api = await import('../../web/clawser.js');
  for (const name of [
    'McpClient',
    'McpError',
    'McpManager',
    'McpOAuth',
    'validateSkill',
    'SkillStore',
    'skillsFromZip',
    'checkSkillUpdates',
    'MemorySummaries',
  ])
    assert.equal(typeof (/** @type {any} */ (api)[name]), 'function', name);
});

test("a new handshake in progress: requests wait for it; one caller's Stop does not end it for the others; \
a failed one is tried again by the next request", async () => {
  let sessions = 0;
  let lost = false;
  let failNextInit = false;
  /** @type {(() => void) | null} */
  let releaseInit = null;
  const f = stubFetch(async (m, headers, init) => {
    if (init.method !== 'POST') return new Response(null, { status: 405 });
    if (m.method === 'initialize') {
      if (sessions >= 1)
        await new Promise((r) => {
          releaseInit = () => r(undefined);
        });
      if (failNextInit) {
        failNextInit = false;
        return new Response('overloaded', { status: 503 });
      }
      sessions++;
      lost = false;
      return initResult(m.id, `s${sessions}`);
    }
    if (!('id' in m)) return new Response(null, { status: 202 });
    if (!headers['mcp-session-id'])
      return new Response('{"jsonrpc":"2.0","error":{"code":-32000,"message":"Server not initialized"}}', { status: 400 });
    if (lost || headers['mcp-session-id'] !== `s${sessions}`) return new Response('{"error":"Session not found"}', { status: 404 });
    return rpc(m.id, { content: [{ type: 'text', text: `ok ${headers['mcp-session-id']}` }] });
  });
  const client = new McpClient({ url: 'https://mcp.example/mcp', fetch: f });
  await client.connect();
  lost = true;
  const stop = new AbortController();
  const first = client.callTool('t', {}, { signal: stop.signal });
  // Wait until the new handshake is under way, then start another request and stop the first caller.
  await waitUntil(() => releaseInit, 'the new handshake under way');
  const second = client.callTool('t', {});
  stop.abort();
  await assert.rejects(first, (err) => err instanceof McpError && err.code === 'aborted');
  /** @type {any} */ (releaseInit)();
  assert.equal(/** @type {any} */ ((await second).content[0]).text, 'ok s2', 'the other request waited for the handshake and went through');

  // A handshake that fails (the server restarting): the next request makes it again.
  lost = true;
  failNextInit = true;
  releaseInit = null;
  const failing = client.callTool('t', {});
  await waitUntil(() => releaseInit, 'the new handshake under way');
  /** @type {any} */ (releaseInit)();
  await assert.rejects(failing, /503/);
  releaseInit = null;
  const next = client.callTool('t', {});
  await waitUntil(() => releaseInit, 'the new handshake under way');
  /** @type {any} */ (releaseInit)();
  assert.equal(/** @type {any} */ ((await next).content[0]).text, 'ok s3', 'not stuck without a session');
});

test('a stream resumed again and again keeps going while it brings events', async () => {
  let callId = 0;
  let resumes = 0;
  const f = stubFetch((m, headers, init) => {
    if (init.method === 'GET') {
      resumes++;
      // Each resumed stream brings one event, then closes; the answer comes on the eighth.
      if (resumes < 8) {
        const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'x', progress: resumes } };
        return new Response(`id: e${resumes + 1}\nretry: 1\ndata: ${JSON.stringify(progress)}\n\n`, {
          headers: { 'content-type': 'text/event-stream' },
        });
      }
      return new Response(
        `id: last\ndata: ${JSON.stringify({
          jsonrpc: '2.0',
          id: callId,
          result: { content: [{ type: 'text', text: `after ${resumes} ` + `resumes (${headers['last-event-id']})` }] },
        })}\n\n`,
        { headers: { 'content-type': 'text/event-stream' } },
      );
    }
    if (m.method === 'initialize') return initResult(m.id, 's1');
    if (!('id' in m)) return new Response(null, { status: 202 });
    callId = m.id;
    return new Response('id: e1\nretry: 1\ndata: \n\n', { headers: { 'content-type': 'text/event-stream' } });
  });
  const client = new McpClient({ url: 'https://mcp.example/mcp', fetch: f });
  await client.connect();
  assert.equal(/** @type {any} */ ((await client.callTool('long', {})).content[0]).text, 'after 8 resumes (e8)');
});

test('the manager: a tools refresh that lands after a disconnect registers nothing; a tool name taken by another server is reported; \
a 401 on a resource offers Sign in', async () => {
  /** @type {(() => void) | null} */
  let releaseList = null;
  let slowList = false;
  let refuse = false;
  const f = stubFetch(async (m, _h, init) => {
    if (init.method !== 'POST') return new Response(null, { status: 405 });
    if (m.method === 'initialize') return initResult(m.id, 's1');
    if (!('id' in m)) return new Response(null, { status: 202 });
    if (m.method === 'tools/list') {
      if (slowList)
        await new Promise((r) => {
          releaseList = () => r(undefined);
        });
      return rpc(m.id, { tools: [{ name: 'files', inputSchema: { type: 'object' } }] });
    }
    if (m.method === 'resources/read' && refuse)
      return new Response('{"error":"invalid_token"}', {
        status: 401,
        headers: { 'www-authenticate': 'Bearer resource_metadata="https://mcp.example/.well-known/oauth-protected-resource"' },
      });
    if (m.method === 'resources/read') return rpc(m.id, { contents: [{ uri: m.params.uri, text: 'hello' }] });
    return rpc(m.id, {});
  });
  const config = new LocalConfig(memoryStorage());
  const registry = createBuiltinRegistry();
  const manager = new McpManager({ config, secrets, registry, workspaceId: 'ws', fetch: f });
  const a = await manager.add({ name: 'a', url: 'https://a.example/mcp' });
  await manager.connect(a.id);
  assert.ok(registry.get('mcp__a__files'));
  // The server says its tools changed; the user disconnects while the list is on its way.
  slowList = true;
  const client = /** @type {any} */ (manager.client(a.id)); // the manager's client: its options and listTools are not public
  /** @type {Promise<unknown>} */
  let listed = Promise.resolve();
  const listTools = client.listTools.bind(client);
  client.listTools = () => {
    const list = listTools();
    listed = list.catch(() => {});
    return list;
  };
  client.options.onToolsChanged(); // the callback the manager gave the client
  await waitUntil(() => releaseList, 'the tools list asked for');
  await manager.disconnect(a.id);
  /** @type {any} */ (releaseList)();
  await listed; // the late list is back; what the manager does with it follows in the same turn
  await nextTurn();
  assert.equal(registry.get('mcp__a__files'), undefined, 'nothing registered after the disconnect');
  assert.equal(manager.state(a.id).tools.length, 0);
  slowList = false;

  // Another server whose tool would get the same name.
  await manager.connect(a.id);
  await assert.rejects(
    manager.add({ name: 'A!', url: 'https://b.example/mcp' }),
    /its tools would have the same names/,
    'a name that reads the same in tool names is refused',
  );
  const c = await manager.add({ name: 'other', url: 'https://c.example/mcp' });
  // a tool already holding the name
  registry.register({ .../** @type {any} */ (registry.get('mcp__a__files')), name: 'mcp__other__files' });
  await manager.connect(c.id);
  assert.match(String(manager.state(c.id).logs.at(-1)?.text), /Tool files was left out: its name mcp__other__files is already taken/);

  refuse = true;
  await assert.rejects(manager.readResource(a.id, 'file:///x'), /HTTP 401/);
  assert.equal(manager.state(a.id).needsSignIn, true, 'the panel offers to sign in again');
  assert.match(String(manager.state(a.id).authenticate), /resource_metadata/);
});

test('the GET stream: reconnects with Last-Event-ID after the server closes it, \
and opens again on the new session after a new handshake', async () => {
  let sessions = 0;
  let lost = false;
  /** @type {{session: string, last: string}[]} */
  const gets = [];
  /** @type {string[]} */
  const logs = [];
  const f = stubFetch((m, headers, init) => {
    if (init.method === 'GET') {
      gets.push({ session: String(headers['mcp-session-id']), last: String(headers['last-event-id'] ?? '') });
      const n = gets.length;
      return new Response(
        `id: g${n}\nretry: ` +
          `1\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: `log ${n}` } })}` +
          `\n\n`,
        { headers: { 'content-type': 'text/event-stream' } },
      );
    }
    if (init.method === 'DELETE') return new Response(null, { status: 200 });
    if (m.method === 'initialize') {
      sessions++;
      lost = false;
      return initResult(m.id, `s${sessions}`);
    }
    if (!('id' in m)) return new Response(null, { status: 202 });
    if (lost) return new Response('{"error":"gone"}', { status: 404 });
    return rpc(m.id, { content: [] });
  });
  const client = new McpClient({ url: 'https://mcp.example/mcp', fetch: f, onLog: (_l, d) => logs.push(String(d)) });
  await client.connect();
  client.listen();
  await waitUntil(() => gets.length >= 3, 'the GET stream reconnected after each close');
  assert.equal(gets[1].last, 'g1', 'with the last event id');
  assert.ok(logs.includes('log 1') && logs.includes('log 2'));
  lost = true;
  await client.callTool('t', {});
  await waitUntil(() => gets.some((g) => g.session === 's2'), 'the GET stream listening again on the new session');
  await client.close();
});

test("the manager: the configuration document's servers replace the saved ones; an unchanged server keeps its id and token, \
a moved one loses its token, a dropped one is forgotten", async () => {
  const config = new LocalConfig(memoryStorage());
  const registry = createBuiltinRegistry({ config, workspaceId: 'ws' });
  const manager = new McpManager({ config, secrets, registry, workspaceId: 'ws' });
  const kept = await manager.add({ name: 'Kept', url: 'https://kept.example/mcp', auth: 'bearer', secret: 'tok-kept' });
  const moved = await manager.add({
    name: 'Moved',
    url: 'https://old.example/mcp',
    auth: 'header',
    headerName: 'X-Key',
    secret: 'tok-moved',
  });
  const dropped = await manager.add({ name: 'Dropped', url: 'https://dropped.example/mcp', auth: 'bearer', secret: 'tok-dropped' });
  const secretKeys = () =>
    config
      .entries()
      .map(([k]) => k)
      .filter((k) => k.startsWith('clawser_mcp_secret_'))
      .sort();
  assert.deepEqual(secretKeys(), [kept.id, moved.id, dropped.id].map((id) => `clawser_mcp_secret_ws_${id}`).sort());
  assert.deepEqual(
    manager.settings(),
    [
      { name: 'Kept', url: 'https://kept.example/mcp', auth: 'bearer' },
      { name: 'Moved', url: 'https://old.example/mcp', auth: 'header', headerName: 'X-Key' },
      { name: 'Dropped', url: 'https://dropped.example/mcp', auth: 'bearer' },
    ],
    'no id, no token, no session state',
  );
  let changes = 0;
  manager.subscribe(() => {
    changes++;
  });

  await manager.replaceServers([
    { name: 'Kept', url: 'https://kept.example/mcp', auth: 'bearer' },
    { name: 'Moved', url: 'https://new.example/mcp', auth: 'header', headerName: 'X-Key' },
    { name: 'Added', url: 'https://added.example/mcp', auth: 'none' },
  ]);
  const after = manager.servers();
  assert.deepEqual(
    after.map((s) => s.name),
    ['Kept', 'Moved', 'Added'],
  );
  assert.equal(after[0].id, kept.id, 'unchanged: the same server');
  assert.notEqual(after[1].id, moved.id, 'another address: a new server');
  assert.deepEqual(
    secretKeys(),
    [`clawser_mcp_secret_ws_${kept.id}`],
    'only the unchanged server keeps a token: none goes to a new address',
  );
  assert.ok(changes > 0, 'the Servers panel is told');
  // Control: the same list again changes nothing.
  await manager.replaceServers(manager.settings());
  assert.deepEqual(manager.servers(), after);
  // The moved server's token is entered again (the Servers panel's "Enter token").
  assert.equal(manager.hasSecret(after[1].id), false);
  await manager.setSecret(after[1].id, 'tok-new');
  assert.equal(manager.hasSecret(after[1].id), true);
  assert.ok(!JSON.stringify(config.entries()).includes('tok-new'), 'sealed');
  await assert.rejects(manager.setSecret(after[2].id, 'tok'), /takes no token/);
});

// Issue 32 §3: a tool's name is its identity. Servers whose names and tools read the same once
// joined must not share a tool name, and a user's choice for one server's tool never reaches
// another server's (or a later server's) tool.

/**
 * A workspace's MCP servers with a runner at supervised autonomy whose approval answers are
 * scripted; `ask` records each question.
 * @param {(r: import('../../web/agent/runtime/tool-runner.js').ApprovalRequest) => 'once' | 'always' | 'rule' | 'deny'} [answer]
 */
function mcpWorkspace(answer = () => 'once', config = new LocalConfig(memoryStorage())) {
  const registry = createBuiltinRegistry({ config, workspaceId: 'ws' });
  const manager = new McpManager({ config, secrets, registry, workspaceId: 'ws' });
  /** @type {import('../../web/agent/runtime/tool-runner.js').ApprovalRequest[]} */
  const asked = [];
  const runner = new ToolRunner({
    registry,
    context: { workspaceId: 'ws', fs: new MemoryFileSystem(), settings: toolSettings(), fetch },
    autonomy: new AutonomyController({ config: { level: 'supervised' } }),
    approve: async (r) => {
      asked.push(r);
      return answer(r);
    },
  });
  let n = 0;
  /** Runs a tool through every gate; how many questions it asked. @param {string} name @param {Record<string, unknown>} [args] */
  const call = async (name, args = {}) => {
    const before = asked.length;
    const out = await runner.run({ id: `c${n++}`, name, arguments: args });
    return { ...out, asked: asked.length - before };
  };
  return { config, registry, manager, runner, asked, call };
}

/** The Clawser name of a connected server's tool. @param {McpManager} manager @param {string} id @param {string} tool */
function nameOf(manager, id, tool) {
  const found = manager.state(id).tools.find((t) => t.tool.name === tool);
  assert.ok(
    found,
    `${tool} of ${manager.servers().find((s) => s.id === id)?.name} is registered ` +
      `(${JSON.stringify(manager.state(id).logs.map((l) => l.text))})`,
  );
  return found.name;
}

test('servers "github" (create_issue) and "github-create" (issue) get two tool names whichever connects first, \
and each "Always allow" lets only its own server\'s tool run without asking', async () => {
  const scripted = await startScriptedMcpServers({ '/github': [{ name: 'create_issue' }], '/github-create': [{ name: 'issue' }] });
  try {
    for (const first of ['github', 'github-create']) {
      const ws = mcpWorkspace((r) => (r.tool === gh ? 'always' : 'once'));
      // biome-ignore lint/correctness/noInnerDeclarations: a var on purpose, read by the answer above once set
      var gh = '';
      const a = await ws.manager.add({ name: 'github', url: scripted.url('/github') });
      const b = await ws.manager.add({ name: 'github-create', url: scripted.url('/github-create') });
      for (const s of first === 'github' ? [a, b] : [b, a]) await ws.manager.connect(s.id);
      gh = nameOf(ws.manager, a.id, 'create_issue');
      const ghc = nameOf(ws.manager, b.id, 'issue');
      assert.notEqual(gh, ghc, 'two tools, two names');
      assert.match(gh, /github.*create_issue/, 'readable: the server and the tool');
      assert.match(ghc, /github_create.*issue/);
      scripted.calls.length = 0;
      // The user says "Always allow" for github's create_issue.
      assert.deepEqual(await ws.call(gh).then((r) => [r.ok, r.asked]), [true, 1]);
      // Control: the allowed tool now runs without asking, on its own server.
      assert.deepEqual(await ws.call(gh).then((r) => [r.ok, r.asked]), [true, 0], 'the allowed tool runs without asking');
      // The other server's tool still asks, every time.
      assert.deepEqual(await ws.call(ghc).then((r) => [r.ok, r.asked]), [true, 1], "github-create's issue is asked for");
      assert.deepEqual(await ws.call(ghc).then((r) => [r.ok, r.asked]), [true, 1], 'and again: the "Always allow" was not its');
      assert.deepEqual(
        scripted.calls.map((c) => `${c.path} ${c.tool}`),
        ['/github create_issue', '/github create_issue', '/github-create issue', '/github-create issue'],
        'each name reaches its own server',
      );
      await ws.manager.closeAll();
    }
  } finally {
    await scripted.close();
  }
});

test('a narrowed "Always allow" (a domain) for one server\'s tool does not cover the other server\'s tool of the same joined \
name', async () => {
  const scripted = await startScriptedMcpServers({ '/github': [{ name: 'create_issue' }], '/github-create': [{ name: 'issue' }] });
  try {
    const ws = mcpWorkspace((r) => (r.rule ? 'rule' : 'once'));
    const a = await ws.manager.add({ name: 'github', url: scripted.url('/github') });
    const b = await ws.manager.add({ name: 'github-create', url: scripted.url('/github-create') });
    await ws.manager.connect(b.id);
    await ws.manager.connect(a.id);
    const ghc = nameOf(ws.manager, b.id, 'issue');
    const gh = nameOf(ws.manager, a.id, 'create_issue');
    const args = { url: 'https://docs.example/page' };
    assert.equal((await ws.call(ghc, args)).asked, 1, 'asked, and the rule for docs.example is chosen');
    assert.equal((await ws.call(ghc, args)).asked, 0, 'control: the rule covers its own tool');
    assert.equal((await ws.call(gh, args)).asked, 1, "github's create_issue is still asked for on docs.example");
    await ws.manager.closeAll();
  } finally {
    await scripted.close();
  }
});

test('"Always allow" is bound to the server: removed and added again (same name, same address), its tool asks again', async () => {
  const ws = mcpWorkspace((r) => (r.allowAlways === false ? 'once' : 'always'));
  const s = await ws.manager.add({ name: 'everything', url: server.url });
  await ws.manager.connect(s.id);
  const toggle = nameOf(ws.manager, s.id, 'toggle-simulated-logging');
  assert.equal((await ws.call(toggle)).asked, 1, 'asked the first time ("Always allow" chosen)');
  assert.equal((await ws.call(toggle)).asked, 0, 'control: before the removal it does not ask');
  await ws.manager.remove(s.id);
  assert.ok(!JSON.stringify(ws.config.entries()).includes(s.id), 'nothing of the removed server is kept (its policies included)');
  const again = await ws.manager.add({ name: 'everything', url: server.url });
  await ws.manager.connect(again.id);
  assert.equal(nameOf(ws.manager, again.id, 'toggle-simulated-logging'), toggle, 'the same name for the model');
  assert.equal((await ws.call(toggle)).asked, 1, 'a server added again asks again');
  await ws.manager.closeAll();
});

test('a server moved to another address (the Config document) does not keep "Always allow"; an unchanged one does', async () => {
  const scripted = await startScriptedMcpServers({
    '/old': [{ name: 'create_issue' }],
    '/new': [{ name: 'create_issue' }],
    '/kept': [{ name: 'close_issue' }],
  });
  try {
    const ws = mcpWorkspace(() => 'always');
    const moved = await ws.manager.add({ name: 'tracker', url: scripted.url('/old') });
    const kept = await ws.manager.add({ name: 'kept', url: scripted.url('/kept') });
    await ws.manager.connect(moved.id);
    await ws.manager.connect(kept.id);
    const t = nameOf(ws.manager, moved.id, 'create_issue');
    const k = nameOf(ws.manager, kept.id, 'close_issue');
    assert.equal((await ws.call(t)).asked, 1);
    assert.equal((await ws.call(k)).asked, 1);
    assert.equal((await ws.call(t)).asked, 0, 'control: allowed before the move');
    await ws.manager.replaceServers([
      { name: 'tracker', url: scripted.url('/new'), auth: 'none' },
      { name: 'kept', url: scripted.url('/kept'), auth: 'none' },
    ]);
    const now = /** @type {import('../../web/mcp/manager.js').McpServerConfig} */ (ws.manager.servers().find((s) => s.name === 'tracker'));
    await ws.manager.connect(now.id);
    if (ws.manager.state(kept.id).status !== 'connected') await ws.manager.connect(kept.id);
    assert.equal(nameOf(ws.manager, now.id, 'create_issue'), t);
    assert.equal((await ws.call(t)).asked, 1, 'moved: asked again');
    assert.equal((await ws.call(k)).asked, 0, 'control: the unchanged server keeps its "Always allow"');
    assert.equal(scripted.calls.filter((c) => c.path === '/new').length, 1);
    await ws.manager.closeAll();
  } finally {
    await scripted.close();
  }
});

test('adversarial server and tool names (joined, long, truncated, reading the same): every tool gets a name of its own, \
valid for every provider, stable, reaching its own server', async () => {
  const toolNames = [
    'create_issue',
    'issue',
    'create-issue',
    'Create Issue',
    'create__issue',
    'a__b',
    '__init__',
    'a',
    'b_issue',
    'issue_b',
    'x'.repeat(128),
    `${'x'.repeat(127)}y`,
    `y${'x'.repeat(127)}`,
    `${'x'.repeat(60)}-${'y'.repeat(60)}`,
    `${'x'.repeat(60)}_${'y'.repeat(60)}`,
    'mcp',
    'mcp__github__create_issue',
    'ünïcödé',
    'ÜNÏCÖDÉ',
    '日本語',
    '中文',
  ];
  const serverNames = [
    'github',
    'github-create',
    'github-create-issue',
    'github_create_issue_b',
    'a',
    'a-b',
    'a b c',
    'mcp',
    'mcp_github',
    'x',
    'x'.repeat(40),
    `${'x'.repeat(39)}y`,
    `${'x'.repeat(19)}-${'y'.repeat(20)}`,
    `${'x'.repeat(19)}-${'y'.repeat(19)}z`,
  ];
  /** @type {Record<string, {name: string}[]>} */
  const endpoints = {};
  serverNames.forEach((_, i) => {
    endpoints[`/s${i}`] = toolNames.map((name) => ({ name }));
  });
  const scripted = await startScriptedMcpServers(endpoints);
  try {
    const ws = mcpWorkspace();
    const servers = [];
    for (const [i, name] of serverNames.entries()) servers.push(await ws.manager.add({ name, url: scripted.url(`/s${i}`) }));
    for (const s of servers) await ws.manager.connect(s.id);
    /** @type {Map<string, string>} */
    const seen = new Map();
    for (const s of servers) {
      for (const tool of toolNames) {
        const name = nameOf(ws.manager, s.id, tool);
        assert.match(name, /^[a-zA-Z0-9_-]{1,64}$/, 'OpenAI, Anthropic, Gemini and Bedrock accept it');
        assert.match(name, /^[a-z][a-z0-9_]{0,63}$/);
        const other = seen.get(name);
        assert.equal(other, undefined, `${name}: ${s.name}/${tool} and ${other}`);
        seen.set(name, `${s.name}/${tool}`);
      }
    }
    assert.equal(seen.size, serverNames.length * toolNames.length);
    // Each name reaches its own server and tool (the identity, not only the string).
    scripted.calls.length = 0;
    for (const [i, s] of servers.entries()) {
      for (const tool of toolNames) {
        const r = await /** @type {NonNullable<ReturnType<typeof ws.registry.get>>} */ (
          ws.registry.get(nameOf(ws.manager, s.id, tool))
        ).run({}, /** @type {any} */ ({ signal: undefined })); // the MCP tool uses no context but the signal
        assert.equal(r.ok, true);
        assert.deepEqual(scripted.calls.at(-1), { path: `/s${i}`, tool, args: {} });
      }
    }
    // Stable: connected again, the same names.
    const before = servers.map((s) => ws.manager.state(s.id).tools.map((t) => `${t.tool.name} ${t.name}`));
    await ws.manager.closeAll();
    for (const s of servers) await ws.manager.connect(s.id);
    assert.deepEqual(
      servers.map((s) => ws.manager.state(s.id).tools.map((t) => `${t.tool.name} ${t.name}`)),
      before,
    );
    await ws.manager.closeAll();
    // Server names that read the same (in the tool names' alphabet) cannot both be set up.
    await assert.rejects(
      ws.manager.add({ name: 'GitHub', url: scripted.url('/s0') }),
      /“GitHub”.*“github”|“github”.*“GitHub”/,
      'refused, naming both servers',
    );
  } finally {
    await scripted.close();
  }
});

test("the Config document: the colliding pair imported stays two servers with two tool names; \
each server's policy and rule bind to its own tool; exported back the same", async () => {
  const { parseConfig, buildConfig } = await import('../../web/app/workspace-config.js');
  const { AgentSettingsSchema } = await import('../../web/app/agent-settings.js');
  const defaultAgentSettings = () => AgentSettingsSchema.parse({});
  const scripted = await startScriptedMcpServers({ '/github': [{ name: 'create_issue' }], '/github-create': [{ name: 'issue' }] });
  try {
    const ws = mcpWorkspace();
    const doc = {
      version: 1,
      provider: null,
      agent: defaultAgentSettings(),
      toolPolicies: {},
      approvalRules: [],
      skills: {},
      mcpServers: [
        { name: 'github', url: scripted.url('/github'), auth: 'none' },
        { name: 'github-create', url: scripted.url('/github-create'), auth: 'none' },
      ],
    };
    const first = parseConfig(JSON.stringify(doc), { toolNames: ws.registry.list().map((t) => t.name) });
    assert.ok(first.ok);
    await ws.manager.replaceServers(first.value.mcpServers);
    const [a, b] = ws.manager.servers();
    await ws.manager.connect(a.id);
    await ws.manager.connect(b.id);
    const gh = nameOf(ws.manager, a.id, 'create_issue');
    const ghc = nameOf(ws.manager, b.id, 'issue');
    assert.notEqual(gh, ghc, 'imported, the pair keeps two names');

    const { configToolChoices, storedToolChoices } = await import('../../web/app/workspace-config.js');
    // The Config panel's save, as it applies a document: the choices under the ids the servers will have, then the servers.
    /** @param {any} d */
    const apply = async (d) => {
      const parsed = parseConfig(JSON.stringify(d), {
        toolNames: ws.registry
          .list()
          .filter((t) => !t.policyKey)
          .map((t) => t.name),
      });
      assert.ok(parsed.ok, JSON.stringify(!parsed.ok && parsed.problems));
      const servers = ws.manager.planServers(parsed.value.mcpServers);
      const stored = storedToolChoices(parsed.value, servers);
      ws.registry.replacePolicies(stored.policies);
      ws.registry.replaceRules(stored.rules);
      await ws.manager.replaceServers(servers);
      return parsed.value;
    };

    await apply({
      ...doc,
      mcpToolPolicies: [
        { server: 'github', tool: 'create_issue', policy: 'auto' },
        { server: 'github-create', tool: 'issue', policy: 'denied' },
      ],
      approvalRules: [{ server: 'github-create', tool: 'issue', kind: 'domain', pattern: 'docs.example' }],
    });
    assert.deepEqual(
      ws.manager.servers().map((s) => s.id),
      [a.id, b.id],
      'the same servers',
    );
    assert.equal((await ws.call(gh)).asked, 0, "github's create_issue runs without asking");
    const denied = await ws.call(ghc, { url: 'https://docs.example/x' });
    assert.equal(denied.ok, false, "github-create's issue is off");
    assert.equal(denied.blocked?.kind, 'denied');
    // Control: the rule is github-create's, for its issue; github's tool is unaffected by it.
    assert.equal(ws.registry.ruleCovers(ghc, { url: 'https://docs.example/x' }), true);
    assert.equal(ws.registry.ruleCovers(gh, { url: 'https://docs.example/x' }), false);

    // Exported back: the same choices, named by server and tool.
    const out = buildConfig({
      provider: null,
      agent: defaultAgentSettings(),
      ...configToolChoices({ overrides: ws.registry.overrides(), rules: ws.registry.rules() }, ws.manager.servers()),
      skills: {},
      mcpServers: ws.manager.settings(),
    });
    assert.deepEqual(out.mcpToolPolicies, [
      { server: 'github', tool: 'create_issue', policy: 'auto' },
      { server: 'github-create', tool: 'issue', policy: 'denied' },
    ]);
    assert.deepEqual(
      out.approvalRules.map((r) => ({ ...r, createdAt: undefined })),
      [{ server: 'github-create', tool: 'issue', kind: 'domain', pattern: 'docs.example', createdAt: undefined }],
    );
    assert.deepEqual(out.toolPolicies, {});
    await ws.manager.closeAll();
  } finally {
    await scripted.close();
  }
});

test('policies stored under the old flat names: migrated only when one server can have made the name, \
otherwise "Always allow" is dropped and "Off" kept for every candidate; \
one of no saved server is dropped before a new server could take it', async () => {
  const scripted = await startScriptedMcpServers({
    '/github': [{ name: 'create_issue' }, { name: 'list_issues' }],
    '/github-create': [{ name: 'issue' }],
    '/solo': [{ name: 'create_issue' }],
    '/gone': [{ name: 'wipe' }],
  });
  try {
    const config = new LocalConfig(memoryStorage());
    // As an older version left them: the colliding pair set up, "Always allow" and "Off" under flat names.
    config.set('clawser_mcp_servers_ws', [
      { id: 'aaaa1111', name: 'github', url: scripted.url('/github'), auth: 'none', autoConnect: false },
      { id: 'bbbb2222', name: 'github-create', url: scripted.url('/github-create'), auth: 'none', autoConnect: false },
      { id: 'cccc3333', name: 'solo', url: scripted.url('/solo'), auth: 'none', autoConnect: false },
    ]);
    config.set('clawser_tool_perms_ws', {
      mcp_github_create_issue: 'auto',
      mcp_github_list_issues: 'denied',
      mcp_solo_create_issue: 'auto',
      mcp_gone_wipe: 'auto',
      web_fetch: 'denied',
    });
    config.set('clawser_tool_rules_ws', [
      { tool: 'mcp_github_create_issue', kind: 'domain', pattern: 'example.com' },
      { tool: 'mcp_solo_create_issue', kind: 'domain', pattern: 'solo.example' },
    ]);
    const ws = mcpWorkspace(() => 'once', config);
    assert.ok(!('mcp_gone_wipe' in ws.registry.overrides()), 'a flat name no saved server can have made is dropped when the servers load');
    for (const id of ['aaaa1111', 'bbbb2222', 'cccc3333']) await ws.manager.connect(id);
    const gh = nameOf(ws.manager, 'aaaa1111', 'create_issue');
    const ghc = nameOf(ws.manager, 'bbbb2222', 'issue');
    const solo = nameOf(ws.manager, 'cccc3333', 'create_issue');
    assert.equal((await ws.call(gh)).asked, 1, 'ambiguous (github or github-create): "Always allow" dropped');
    assert.equal((await ws.call(ghc)).asked, 1, 'and not given to the other server either');
    assert.equal(ws.registry.ruleCovers(gh, { url: 'https://example.com/' }), false, 'the ambiguous rule is dropped too');
    assert.equal(
      (await ws.call(nameOf(ws.manager, 'aaaa1111', 'list_issues'))).blocked?.kind,
      'denied',
      '"Off" is kept: dropping it would loosen',
    );
    assert.equal((await ws.call(solo)).asked, 0, 'control: one server only can have made mcp_solo_create_issue: migrated');
    assert.equal(ws.registry.ruleCovers(solo, { url: 'https://solo.example/' }), true, 'its rule too');
    assert.equal(ws.registry.userPolicyOf('web_fetch'), 'denied', 'built-in tools keep their choices');
    // A new server that would have taken the dropped flat name inherits nothing.
    const gone = await ws.manager.add({ name: 'gone', url: scripted.url('/gone') });
    await ws.manager.connect(gone.id);
    assert.equal((await ws.call(nameOf(ws.manager, gone.id, 'wipe'))).asked, 1, 'a new server never inherits an old one\'s "Always allow"');
    await ws.manager.closeAll();
  } finally {
    await scripted.close();
  }
});

test('"Always allow" answered in a dialog that stayed open while its server was removed and added again lands on the removed server\'s \
tool, never on the new server\'s tool of the same name', async () => {
  const scripted = await startScriptedMcpServers({ '/github': [{ name: 'create_issue' }] });
  try {
    /** What the user does while the dialog is open, then answers. @type {() => Promise<'once' | 'always'>} */
    let user = async () => 'always';
    const ws = mcpWorkspace();
    ws.runner.approve = async (r) => {
      ws.asked.push(r);
      return user();
    };
    const first = await ws.manager.add({ name: 'github', url: scripted.url('/github') });
    await ws.manager.connect(first.id);
    const gh = nameOf(ws.manager, first.id, 'create_issue');
    // Control: with nothing happening meanwhile, "Always allow" lets the tool run unasked afterwards.
    assert.equal((await ws.call(gh)).asked, 1);
    assert.equal((await ws.call(gh)).asked, 0, 'control: allowed');
    await ws.manager.remove(first.id);
    const second = await ws.manager.add({ name: 'github', url: scripted.url('/github') });
    await ws.manager.connect(second.id);
    // The question about the second server's tool: while it is open, the user removes the server and adds it again.
    let third = '';
    user = async () => {
      await ws.manager.remove(second.id);
      third = (await ws.manager.add({ name: 'github', url: scripted.url('/github') })).id;
      await ws.manager.connect(third);
      return 'always';
    };
    assert.equal((await ws.call(gh)).asked, 1, 'a new server asks');
    user = async () => 'once';
    assert.equal(nameOf(ws.manager, third, 'create_issue'), gh, 'the third server holds the name now');
    assert.equal((await ws.call(gh)).asked, 1, 'the "Always allow" did not pass to the server added while the dialog was open');
    await ws.manager.closeAll();
  } finally {
    await scripted.close();
  }
});
