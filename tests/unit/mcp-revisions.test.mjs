// The MCP client and the protocol revisions: 2026-07-28 (stateless: no initialize, no session,
// `server/discover`, the per-request `_meta`, the Mcp-Method / Mcp-Name / Mcp-Param-* headers)
// against a server built with the official v2 SDK, and negotiating down to 2025-11-25 (the v1
// SDK's server-everything) and 2025-06-18 (a server that speaks only that one). What the client
// sent is read from what the servers received.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startV2Server } from '../fixtures/mcp-v2.mjs';
import { startEverythingServer } from '../fixtures/mcp-everything.mjs';
import { startScriptedMcpServers } from '../fixtures/mcp-scripted.mjs';
import { waitUntil } from '../fixtures/wait.mjs';
import { McpClient, McpError, PROTOCOL_VERSIONS } from '../../web/mcp/client.js';
import { headerValue, paramHeadersOf, paramHeaderValues } from '../../web/mcp/revision.js';

const META = 'io.modelcontextprotocol/';

/** @type {Awaited<ReturnType<typeof startV2Server>>} */
let v2;
/** @type {Awaited<ReturnType<typeof startEverythingServer>>} */
let everything;
before(async () => {
  [v2, everything] = await Promise.all([startV2Server(), startEverythingServer()]);
});
after(async () => {
  await Promise.all([v2?.close(), everything?.close()]);
});

/**
 * The POSTs a server received since `from`, as JSON-RPC messages with their headers.
 * @param {import('../fixtures/mcp-v2.mjs').V2Request[]} seen
 */
const posts = (seen, from = 0) => seen.slice(from).filter((r) => r.method === 'POST');

test('2026-07-28 with a server of the v2 SDK: negotiated by server/discover with no initialize and no session; every request \
carries MCP-Protocol-Version, Mcp-Method, Mcp-Name and the _meta envelope; tools listed and called (a JSON and an SSE answer with \
progress), an error result, an Mcp-Param header, a Base64 Mcp-Name; close sends no DELETE', async () => {
  assert.equal(PROTOCOL_VERSIONS[0], '2026-07-28', 'the newest revision first');
  const from = v2.seen.length;
  const client = new McpClient({ url: v2.url });
  const info = await client.connect();
  assert.equal(info.protocolVersion, '2026-07-28');
  assert.equal(client.protocolVersion, '2026-07-28');
  assert.equal(info.serverInfo.name, 'v2-fixture');
  assert.ok(info.capabilities.tools, "the server's capabilities, from server/discover");

  const tools = await client.listTools();
  assert.deepEqual(
    tools.map((t) => t.name),
    ['echo', 'count', 'wait', 'fail', 'in-region', 'café'],
  );
  assert.deepEqual(await client.callTool('echo', { message: 'héllo' }), {
    content: [{ type: 'text', text: 'Echo: héllo' }],
    isError: false,
  });
  /** @type {import('../../web/mcp/client.js').McpProgress[]} */
  const progress = [];
  const counted = await client.callTool('count', { n: 3 }, { onProgress: (p) => progress.push(p) });
  assert.equal(/** @type {any} */ (counted.content[0]).text, 'counted to 3');
  assert.deepEqual(
    progress.map((p) => p.progress),
    [1, 2, 3],
    'progress arrived on the SSE answer before the result',
  );
  const failed = await client.callTool('fail', {});
  assert.equal(failed.isError, true);
  assert.match(/** @type {any} */ (failed.content[0]).text, /it broke on purpose/);
  assert.equal(
    /** @type {any} */ ((await client.callTool('in-region', { region: 'eu-west', query: 'q' })).content[0]).text,
    'q in eu-west',
  );
  assert.equal(/** @type {any} */ ((await client.callTool('café', {})).content[0]).text, 'served');
  const [resource] = await client.listResources();
  assert.equal((await client.readResource(resource.uri)).contents[0].text, 'buy bread');
  assert.equal(/** @type {any} */ ((await client.getPrompt('greet')).messages[0].content).text, 'Say hello.');
  await client.close();

  const sent = posts(v2.seen, from);
  assert.deepEqual(
    sent.map((r) => r.body?.method),
    [
      'server/discover',
      'tools/list',
      'tools/call',
      'tools/call',
      'tools/call',
      'tools/call',
      'tools/call',
      'resources/list',
      'resources/read',
      'prompts/get',
    ],
    'no initialize, no notifications/initialized',
  );
  assert.ok(
    v2.seen.slice(from).every((r) => r.method === 'POST'),
    'no GET stream and no DELETE',
  );
  for (const r of sent) {
    assert.equal(r.headers['mcp-protocol-version'], '2026-07-28', r.body.method);
    assert.equal(r.headers['mcp-method'], r.body.method, 'Mcp-Method mirrors the method');
    assert.equal(r.headers['mcp-session-id'], undefined, 'no session id is sent');
    assert.equal(r.headers.accept, 'application/json, text/event-stream');
    const meta = r.body.params?._meta ?? {};
    assert.equal(meta[`${META}protocolVersion`], '2026-07-28');
    assert.equal(meta[`${META}clientInfo`]?.name, 'clawser');
    assert.deepEqual(typeof meta[`${META}clientCapabilities`], 'object');
  }
  const calls = sent.filter((r) => r.body.method === 'tools/call');
  assert.deepEqual(
    calls.map((r) => r.headers['mcp-name']),
    ['echo', 'count', 'fail', 'in-region', `=?base64?${Buffer.from('café').toString('base64')}?=`],
    'Mcp-Name on each tools/call; a name outside the header-safe characters Base64-encoded',
  );
  assert.equal(sent[0].headers['mcp-name'], undefined, 'no Mcp-Name for a method without a name');
  const byMethod = (/** @type {string} */ m) => sent.find((r) => r.body.method === m)?.headers['mcp-name'];
  assert.equal(byMethod('resources/read'), 'note://today', 'the URI of resources/read');
  assert.equal(byMethod('prompts/get'), 'greet');
  assert.equal(calls[3].headers['mcp-param-region'], 'eu-west', "the x-mcp-header parameter's value in Mcp-Param-Region");
  assert.equal(calls[0].headers['mcp-param-region'], undefined, 'control: not on the call of another tool');
  assert.equal(calls[1].body.params._meta.progressToken !== undefined, true, 'the progress token kept next to the envelope');
});

test('negotiating down to 2025-11-25: the v1 SDK server (server-everything) gets initialize and a session after the probe; \
CONTROL: the same calls succeed', async () => {
  const client = new McpClient({ url: everything.url });
  const info = await client.connect();
  assert.equal(info.protocolVersion, '2025-11-25');
  assert.ok(client.sessionId, 'the 2025 session is kept');
  const tools = await client.listTools();
  assert.ok(tools.some((t) => t.name === 'echo'));
  assert.deepEqual(await client.callTool('echo', { message: 'héllo' }), {
    content: [{ type: 'text', text: 'Echo: héllo' }],
    isError: false,
  });
  await client.close();
});

test('negotiating down to 2025-06-18: a server that speaks only that revision; the era is probed once per client, not again for \
a new handshake', async () => {
  const scripted = await startScriptedMcpServers({ '/old': [{ name: 'ping-me' }] });
  try {
    /** @type {{method: string, headers: Record<string, string>}[]} */
    const seen = [];
    /** @type {typeof fetch} */
    const f = async (input, init = {}) => {
      const body = init.body ? JSON.parse(String(init.body)) : null;
      seen.push({
        method: body?.method ?? init.method ?? 'GET',
        headers: /** @type {Record<string, string>} */ ({ ...(init.headers ?? {}) }),
      });
      return fetch(input, init);
    };
    const client = new McpClient({ url: scripted.url('/old'), fetch: f });
    const info = await client.connect();
    assert.equal(info.protocolVersion, '2025-06-18');
    assert.equal(client.sessionId, 's1');
    assert.deepEqual(
      (await client.listTools()).map((t) => t.name),
      ['ping-me'],
    );
    assert.equal(/** @type {any} */ ((await client.callTool('ping-me', {})).content[0]).text, '/old ran ping-me');
    const init = seen.find((r) => r.method === 'initialize');
    assert.equal(init?.headers['mcp-method'], undefined, 'the 2025 requests carry no Mcp-Method');
    assert.equal(seen.find((r) => r.method === 'tools/call')?.headers['mcp-protocol-version'], '2025-06-18');
    await client.connect();
    assert.equal(seen.filter((r) => r.method === 'server/discover').length, 1, 'probed once');
    assert.equal(seen.filter((r) => r.method === 'initialize').length, 2);
    await client.close();
  } finally {
    await scripted.close();
  }
});

test('a v2 server that speaks only 2026-07-28 (legacy traffic refused) works; CONTROL: the same server refuses a 2025 client \
with the revisions it speaks', async () => {
  const strict = await startV2Server({ legacy: 'reject' });
  try {
    const client = new McpClient({ url: strict.url });
    assert.equal((await client.connect()).protocolVersion, '2026-07-28');
    assert.equal(/** @type {any} */ ((await client.callTool('echo', { message: 'x' })).content[0]).text, 'Echo: x');
    const res = await fetch(strict.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
      }),
    });
    assert.equal(res.status, 400);
    assert.match(await res.text(), /2026-07-28/);
  } finally {
    await strict.close();
  }
});

/**
 * A stub server in a fetch. @param {(m: any, headers: Record<string, string>) => Response | Promise<Response>} handle
 */
const stub = (handle) =>
  /** @type {typeof fetch} */ (
    async (_u, init = {}) =>
      handle(init.body ? JSON.parse(String(init.body)) : null, /** @type {Record<string, string>} */ (init.headers ?? {}))
  );
/** @param {unknown} id @param {unknown} body @param {number} [status] */
const json = (id, body, status = 200) =>
  new Response(JSON.stringify({ jsonrpc: '2.0', id, .../** @type {object} */ (body) }), {
    status,
    headers: { 'content-type': 'application/json' },
  });

test('a server whose revisions this client does not speak: a clear error (McpError, code unsupported_version) naming them, \
from server/discover or from the -32022 error; CONTROL: a server listing 2026-07-28 is used', async () => {
  const future = stub((m) =>
    json(m.id, {
      result: {
        resultType: 'complete',
        supportedVersions: ['2027-03-01'],
        capabilities: {},
        _meta: { [`${META}serverInfo`]: { name: 'f' } },
      },
    }),
  );
  await assert.rejects(
    new McpClient({ url: 'https://mcp.example/mcp', fetch: future }).connect(),
    (err) =>
      err instanceof McpError &&
      err.code === 'unsupported_version' &&
      /2027-03-01/.test(err.message) &&
      /2026-07-28, 2025-11-25, 2025-06-18/.test(err.message),
  );
  const refusing = stub((m) =>
    json(
      m.id,
      { error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2027-03-01'], requested: '2026-07-28' } } },
      400,
    ),
  );
  await assert.rejects(
    new McpClient({ url: 'https://mcp.example/mcp', fetch: refusing }).connect(),
    (err) => err instanceof McpError && err.code === 'unsupported_version' && /2027-03-01/.test(err.message),
  );
  const usable = stub((m) => {
    if (m.method === 'server/discover')
      return json(m.id, {
        result: {
          resultType: 'complete',
          supportedVersions: ['2027-03-01', '2026-07-28'],
          capabilities: { tools: {} },
          _meta: { [`${META}serverInfo`]: { name: 'both' } },
        },
      });
    return json(m.id, { result: { resultType: 'complete', tools: [] } });
  });
  const client = new McpClient({ url: 'https://mcp.example/mcp', fetch: usable });
  assert.equal((await client.connect()).protocolVersion, '2026-07-28');
  assert.deepEqual(await client.listTools(), []);
});

test('2026-07-28 details: a tool whose x-mcp-header is invalid is left out (and said), the others kept; a result asking for input \
(input_required) is a clear error; a malformed discover result falls back to initialize', async () => {
  /** @type {string[]} */
  const logs = [];
  const tools = [
    { name: 'good', inputSchema: { type: 'object', properties: { r: { type: 'string', 'x-mcp-header': 'Region' } } } },
    {
      name: 'dup',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'string', 'x-mcp-header': 'X' }, b: { type: 'string', 'x-mcp-header': 'x' } },
      },
    },
    { name: 'num', inputSchema: { type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } } },
    { name: 'deep', inputSchema: { type: 'object', properties: { l: { type: 'array', items: { type: 'string', 'x-mcp-header': 'L' } } } } },
    { name: 'bad-name', inputSchema: { type: 'object', properties: { s: { type: 'string', 'x-mcp-header': 'a b' } } } },
  ];
  const modern = stub((m) => {
    if (m.method === 'server/discover')
      return json(m.id, { result: { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {} } } });
    if (m.method === 'tools/list') return json(m.id, { result: { resultType: 'complete', tools } });
    return json(m.id, {
      result: { resultType: 'input_required', inputRequests: { confirm: { method: 'elicitation/create', params: { message: 'Sure?' } } } },
    });
  });
  const client = new McpClient({ url: 'https://mcp.example/mcp', fetch: modern, onLog: (level, data) => logs.push(`${level}: ${data}`) });
  await client.connect();
  assert.deepEqual(
    (await client.listTools()).map((t) => t.name),
    ['good'],
  );
  for (const name of ['dup', 'num', 'deep', 'bad-name'])
    assert.ok(
      logs.some((l) => l.startsWith('warning') && l.includes(`"${name}"`)),
      `${name} is said to be left out`,
    );
  await assert.rejects(
    client.callTool('good', { r: 'x' }),
    (err) => err instanceof McpError && err.code === 'protocol' && /asks for more input/.test(err.message),
  );
  // A 2xx answer to server/discover that is not a discover result: the server is of the 2025 era.
  let initialized = false;
  const odd = stub((m, headers) => {
    if (m.method === 'server/discover') return json(m.id, { result: { hello: 'world' } });
    if (m.method === 'initialize') {
      initialized = headers['mcp-method'] === undefined;
      return json(m.id, { result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'odd' } } });
    }
    return new Response(null, { status: 202 });
  });
  assert.equal((await new McpClient({ url: 'https://mcp.example/mcp', fetch: odd }).connect()).protocolVersion, '2025-11-25');
  assert.ok(initialized);
});

test('2026-07-28: the tools list changes reach onToolsChanged through subscriptions/listen (there is no GET stream); \
close ends the subscription', async () => {
  let changed = 0;
  const from = v2.seen.length;
  const client = new McpClient({ url: v2.url, onToolsChanged: () => changed++ });
  await client.connect();
  client.listen();
  await waitUntil(() => posts(v2.seen, from).some((r) => r.body?.method === 'subscriptions/listen'), 'the subscriptions/listen request');
  const listen = posts(v2.seen, from).find((r) => r.body?.method === 'subscriptions/listen');
  assert.equal(listen?.headers['mcp-method'], 'subscriptions/listen');
  assert.equal(listen?.body.params.notifications.toolsListChanged, true);
  // The server's acknowledgement may come after the POST arrived: tell it again until one lands.
  await waitUntil(() => {
    v2.toolsChanged();
    return changed > 0;
  }, 'notifications/tools/list_changed on the listen stream');
  await client.close();
  assert.ok(
    v2.seen.slice(from).every((r) => r.method === 'POST'),
    'no GET stream',
  );
});

test('2026-07-28: cancelling a call closes its stream, which the server takes as the cancellation (no notifications/cancelled is \
sent); the log level goes with every request instead of logging/setLevel', async () => {
  const from = v2.seen.length;
  const client = new McpClient({ url: v2.url });
  await client.connect();
  const stop = new AbortController();
  const call = client.callTool('wait', {}, { signal: stop.signal });
  await waitUntil(() => posts(v2.seen, from).some((r) => r.body?.params?.name === 'wait'), 'the wait call to reach the server');
  const before = v2.cancelled.count;
  stop.abort();
  await assert.rejects(call, (err) => err instanceof McpError && err.code === 'aborted');
  await waitUntil(() => v2.cancelled.count > before, 'the server to see the call cancelled');
  assert.ok(
    posts(v2.seen, from).every((r) => r.body?.method !== 'notifications/cancelled'),
    'no cancellation message',
  );
  await client.close();

  /** @type {any[]} */
  const sent = [];
  const logging = stub((m) => {
    sent.push(m);
    if (m.method === 'server/discover')
      return json(m.id, {
        result: { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { logging: {}, tools: {} } },
      });
    return json(m.id, { result: { resultType: 'complete', tools: [] } });
  });
  const logged = new McpClient({ url: 'https://mcp.example/mcp', fetch: logging });
  await logged.connect();
  await logged.listTools();
  assert.equal(sent.at(-1).params._meta[`${META}logLevel`], undefined, 'control: no level before one is asked for');
  await logged.setLogLevel('debug');
  await logged.listTools();
  assert.equal(sent.at(-1).params._meta[`${META}logLevel`], 'debug');
  assert.ok(
    sent.every((m) => m.method !== 'logging/setLevel'),
    'no logging/setLevel in 2026-07-28',
  );
});

test('a 5xx answer to the probe says nothing of the era: the handshake is tried, and the next connect probes again (CONTROL: \
a 4xx answer is remembered, above); a 2026-07-28 server that sends a request on a stream gets no answer', async () => {
  let discovers = 0;
  let busy = true;
  const flaky = stub((m) => {
    if (m.method === 'server/discover') {
      discovers++;
      if (busy) return new Response('overloaded', { status: 503 });
      return json(m.id, { result: { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: {} } });
    }
    if (m.method === 'initialize')
      return json(m.id, { result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'x' } } });
    return new Response(null, { status: 202 });
  });
  const client = new McpClient({ url: 'https://mcp.example/mcp', fetch: flaky });
  assert.equal((await client.connect()).protocolVersion, '2025-11-25', 'the handshake after a 503');
  busy = false;
  assert.equal((await client.connect()).protocolVersion, '2026-07-28', 'probed again');
  assert.equal(discovers, 2);

  /** @type {any[]} */
  const posted = [];
  const asking = stub((m) => {
    posted.push(m);
    if (m.method === 'server/discover')
      return json(m.id, { result: { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: {} } } });
    const sse = [
      { jsonrpc: '2.0', id: 'srv-1', method: 'ping' },
      { jsonrpc: '2.0', id: m.id, result: { resultType: 'complete', tools: [] } },
    ]
      .map((x) => `event: message\ndata: ${JSON.stringify(x)}\n\n`)
      .join('');
    return new Response(sse, { headers: { 'content-type': 'text/event-stream' } });
  });
  const modern = new McpClient({ url: 'https://mcp.example/mcp', fetch: asking });
  await modern.connect();
  assert.deepEqual(await modern.listTools(), []);
  assert.deepEqual(
    posted.map((m) => m.method ?? 'a reply'),
    ['server/discover', 'tools/list'],
    'no reply to the ping',
  );
});

test("header values as the revision encodes them (the spec's examples): plain ASCII as it is; non-ASCII, edge spaces, a newline \
and the sentinel itself in Base64; Mcp-Param values of integers, booleans and nested properties; absent and null left out", () => {
  assert.equal(headerValue('us-west1'), 'us-west1');
  assert.equal(headerValue('a b'), 'a b', 'inner spaces are plain');
  assert.equal(headerValue('Hello, 世界'), '=?base64?SGVsbG8sIOS4lueVjA==?=');
  assert.equal(headerValue(' padded '), '=?base64?IHBhZGRlZCA=?=');
  assert.equal(headerValue('line1\nline2'), '=?base64?bGluZTEKbGluZTI=?=');
  assert.equal(headerValue('=?base64?literal?='), '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=');
  const schema = {
    type: 'object',
    properties: {
      n: { type: 'integer', 'x-mcp-header': 'Count' },
      ok: { type: 'boolean', 'x-mcp-header': 'Ok' },
      where: { type: 'object', properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } } },
      gone: { type: ['string', 'null'], 'x-mcp-header': 'Gone' },
      data: { type: 'object', default: { 'x-mcp-header': 'not an annotation' } },
    },
  };
  const found = paramHeadersOf(schema);
  assert.ok(found.ok);
  assert.deepEqual(found.ok ? found.headers.map((h) => [h.header, h.path.join('.')]) : [], [
    ['Count', 'n'],
    ['Ok', 'ok'],
    ['Zone', 'where.zone'],
    ['Gone', 'gone'],
  ]);
  assert.deepEqual(paramHeaderValues(found.ok ? found.headers : [], { n: 42, ok: false, where: { zone: 'Zürich' }, gone: null }), {
    'mcp-param-count': '42',
    'mcp-param-ok': 'false',
    'mcp-param-zone': `=?base64?${Buffer.from('Zürich').toString('base64')}?=`,
  });
  assert.deepEqual(paramHeaderValues(found.ok ? found.headers : [], {}), {}, 'no value, no header');
  assert.equal(paramHeadersOf({ type: 'object', 'x-mcp-header': 'Root' }).ok, false, 'not on the root');
  assert.equal(
    paramHeadersOf({ type: 'object', properties: { a: { anyOf: [{ type: 'string', 'x-mcp-header': 'A' }] } } }).ok,
    false,
    'not through a composition keyword',
  );
});
