// Issue 35 §2: a provider or MCP server marked "through my relay" — its requests go through the
// wsh relay of one of the user's own machines. The machines store's relay fetch against the real
// wsh server in-process (streaming intact; a host off the relay's list refused with the relay's
// own words, control: the listed host answers), the settings and configuration schemas that
// carry the choice (validated, kept by export and import), the model choice that hands it on,
// and the MCP manager that connects a relayed server with that machine's fetch (control: a
// server without it uses the page's fetch).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { RemoteMachines } from '../../web/stores/remote-machines.js';
import { RelayError } from '../../web/net/relay.js';
import { fetchError } from '../../web/providers/errors.js';
import { LocalConfig } from '../../web/storage/local-config.js';
import { MemoryKeyStore } from '../../web/packages/wsh/index.js';
import { createWshServer } from '../../web/packages/wsh/server/index.js';
import { parseKeyLine } from '../../web/packages/wsh/server/keys-file.js';
import { buildConfig, parseConfig } from '../../web/app/workspace-config.js';
import { AgentSettingsSchema } from '../../web/app/agent-settings.js';
import { SettingsStore } from '../../web/app/settings.js';
import { routeConfig } from '../../web/app/chat/model-choice.js';
import { McpManager } from '../../web/mcp/manager.js';
import { createBuiltinRegistry } from '../../web/tools/index.js';
import { memoryStorage } from '../fixtures/stand-ins.mjs';
import { startScriptedMcpServers } from '../fixtures/mcp-scripted.mjs';

const wsh = () => import('../../web/packages/wsh/node.js');
/** A stand-in for SecretBox (IndexedDB is not in Node). */
const secrets = /** @type {any} */ ({
  encrypt: async (/** @type {string} */ s) => `v1:${Buffer.from(s).toString('base64')}`,
  decrypt: async (/** @type {string} */ s) => Buffer.from(s.slice(3), 'base64').toString(),
}); // the two methods the stores use

/** An upstream that streams SSE in three parts, the later ones after the client read the first. */
async function sseUpstream() {
  /** @type {(() => void)[]} */
  const waiting = [];
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`data: ${JSON.stringify({ n: 1, auth: req.headers.authorization ?? null })}\n\n`);
    waiting.push(() => res.end('data: {"n":2}\n\ndata: [DONE]\n\n'));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  after(() => new Promise((resolve) => server.close(() => resolve(undefined))));
  const port = /** @type {import('node:net').AddressInfo} */ (server.address()).port;
  return { host: `127.0.0.1:${port}`, release: () => waiting.shift()?.() };
}

test('relayFetch: a listed host answers through the machine, streaming (the first event before the last is sent); a host off the \
relay list is refused in the relay’s words; an unknown machine is a RelayError naming it', async () => {
  const upstream = await sseUpstream();
  const machines = new RemoteMachines({ config: new LocalConfig(memoryStorage()), keys: new MemoryKeyStore(), wsh });
  /** @type {import('../../web/packages/wsh/server/keys-file.js').KeyEntry[]} */
  const listed = [];
  const server = await createWshServer({ keys: listed, pty: null, log: () => {}, relayAllow: [upstream.host] });
  after(() => server.close());
  after(() => machines.closeAll());
  await machines.add({ name: 'laptop', url: server.url });
  listed.push(await parseKeyLine(await machines.publicKeyLine('laptop')));
  const relayed = machines.relayFetch('laptop');
  const res = await relayed(`http://${upstream.host}/v1/chat`, { method: 'POST', headers: { authorization: 'Bearer own' }, body: '{}' });
  assert.equal(res.status, 200);
  const reader = /** @type {ReadableStream<Uint8Array>} */ (res.body).getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  assert.equal(first, 'data: {"n":1,"auth":"Bearer own"}\n\n', 'the first event arrives while the upstream still holds the rest');
  upstream.release();
  let rest = '';
  for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
  assert.equal(rest, 'data: {"n":2}\n\ndata: [DONE]\n\n');

  await assert.rejects(relayed('http://127.0.0.1:9/elsewhere'), (err) => {
    assert.ok(err instanceof RelayError);
    assert.match(err.message, /^Through the relay on “laptop”: 127\.0\.0\.1:9 is not in this relay's list/);
    return true;
  });
  await assert.rejects(machines.relayFetch('nowhere')(`http://${upstream.host}/`), (err) => {
    assert.ok(err instanceof RelayError);
    assert.match(err.message, /“nowhere”/);
    return true;
  });
  // A provider's error keeps the relay's words (control: a plain network failure says its own).
  const relayedError = fetchError(new RelayError('Through the relay on “laptop”: refused.'), { label: 'X', url: 'http://a.example/' });
  assert.equal(relayedError.message, 'Through the relay on “laptop”: refused.');
  assert.match(fetchError(new TypeError('Failed to fetch'), { label: 'X', url: 'https://a.example/' }).message, /^Could not reach X/);
});

test('settings: the workspace provider, fallbacks and hints keep their relay; a bad machine name is refused; none means \
direct', async () => {
  const settings = new SettingsStore({ config: new LocalConfig(memoryStorage()), secrets });
  await settings.save('w', { provider: 'openai-compatible', model: 'm', baseUrl: 'http://127.0.0.1:1/v1', relay: 'laptop' });
  assert.equal((await settings.providerConfig('w'))?.relay, 'laptop');
  await assert.rejects(settings.save('w', { provider: 'openai-compatible', model: 'm', baseUrl: '', relay: 'bad name!' }));
  await settings.save('w', { provider: 'openai-compatible', model: 'm', baseUrl: '' });
  assert.equal((await settings.providerConfig('w'))?.relay, undefined, 'control: no relay, direct');

  const agent = AgentSettingsSchema.parse({
    providers: {
      fallbacks: [{ provider: 'openai', relay: 'desk' }],
      routes: { fast: { provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:2/v1', relay: 'laptop' } },
    },
  });
  assert.equal(agent.providers.fallbacks[0].relay, 'desk');
  assert.equal(AgentSettingsSchema.safeParse({ providers: { fallbacks: [{ provider: 'openai', relay: 'a b' }] } }).success, false);
  const config = await routeConfig('fast', { settings, workspaceId: 'w', routes: () => agent.providers.routes });
  assert.equal(config?.relay, 'laptop', 'a routing hint hands its relay to the turn');
});

test('the configuration document keeps the relay of the provider, a fallback, a hint and an MCP server through export and import; \
a bad name is a problem at its field', () => {
  const agent = AgentSettingsSchema.parse({
    providers: { fallbacks: [{ provider: 'openai', relay: 'desk' }], routes: { code: { provider: 'openai', relay: 'laptop' } } },
  });
  const doc = buildConfig({
    provider: { provider: 'openai-compatible', model: 'm', baseUrl: 'http://127.0.0.1:1/v1', relay: 'laptop' },
    agent,
    toolPolicies: {},
    approvalRules: [],
    skills: {},
    mcpServers: [{ name: 'Docs', url: 'http://127.0.0.1:3/mcp', auth: 'none', relay: 'laptop' }],
  });
  const back = parseConfig(JSON.stringify(doc), { toolNames: [] });
  assert.ok(back.ok, JSON.stringify(!back.ok && back.problems));
  assert.equal(back.value.provider?.relay, 'laptop');
  assert.equal(back.value.agent.providers.fallbacks[0].relay, 'desk');
  assert.equal(back.value.agent.providers.routes.code?.relay, 'laptop');
  assert.equal(back.value.mcpServers[0].relay, 'laptop');
  const bad = parseConfig(JSON.stringify({ ...doc, provider: { ...doc.provider, relay: 'no such!' } }), { toolNames: [] });
  assert.equal(bad.ok, false);
  assert.ok(!bad.ok && bad.problems.some((p) => p.path === 'provider.relay'));
  // Control: a document without any relay has none (direct), and none is written into it.
  const direct = buildConfig({
    provider: { provider: 'openai', model: '', baseUrl: '' },
    agent: AgentSettingsSchema.parse({}),
    toolPolicies: {},
    approvalRules: [],
    skills: {},
    mcpServers: [{ name: 'Docs', url: 'http://127.0.0.1:3/mcp', auth: 'none' }],
  });
  assert.ok(!('relay' in /** @type {object} */ (direct.provider)));
  assert.ok(!('relay' in direct.mcpServers[0]));
});

test('the MCP manager connects a relayed server with that machine’s fetch, and a direct one with the page’s (control)', async () => {
  const mcp = await startScriptedMcpServers({ '/a': [{ name: 'ping' }], '/b': [{ name: 'pong' }] });
  after(() => mcp.close());
  /** @type {string[]} */
  const through = [];
  const config = new LocalConfig(memoryStorage());
  const manager = new McpManager({
    config,
    secrets,
    registry: createBuiltinRegistry({ config, workspaceId: 'ws' }),
    workspaceId: 'ws',
    fetch: (input, init) => {
      through.push(`page ${String(input)}`);
      return fetch(input, init);
    },
    relayFetch: (machine) => (input, init) => {
      through.push(`${machine} ${String(input)}`);
      return fetch(input, init);
    },
  });
  const relayed = await manager.add({ name: 'A', url: mcp.url('/a'), relay: 'laptop' });
  const direct = await manager.add({ name: 'B', url: mcp.url('/b') });
  assert.equal(manager.servers()[0].relay, 'laptop');
  await assert.rejects(manager.add({ name: 'C', url: mcp.url('/a'), relay: 'bad name!' }));
  await manager.connect(relayed.id);
  assert.ok(through.length > 0 && through.every((t) => t === `laptop ${mcp.url('/a')}`), through.join('\n'));
  through.length = 0;
  await manager.connect(direct.id);
  assert.ok(through.length > 0 && through.every((t) => t === `page ${mcp.url('/b')}`), through.join('\n'));
  assert.deepEqual(
    manager.settings().map((s) => s.relay),
    ['laptop', undefined],
  );
  // The configuration document moves A to direct and B behind the desk's relay: the same servers (ids kept), reached anew.
  const [a, b] = manager.settings();
  await manager.replaceServers(
    manager.planServers([
      { ...a, relay: undefined },
      { ...b, relay: 'desk' },
    ]),
  );
  assert.deepEqual(
    manager.servers().map((s) => [s.id, s.relay]),
    [
      [relayed.id, undefined],
      [direct.id, 'desk'],
    ],
  );
  await manager.closeAll();
});

test('the agent factory gives a provider marked with a relay, and a fallback marked with another, that machine’s fetch; a direct \
one gets none (control)', async () => {
  const { AgentFactory } = await import('../../web/app/agent-factory.js');
  const { AgentSettingsStore } = await import('../../web/app/agent-settings.js');
  const agentSettings = new AgentSettingsStore({ config: new LocalConfig(memoryStorage()), secrets });
  agentSettings.save('w', {
    ...agentSettings.load('w'),
    providers: {
      ...agentSettings.load('w').providers,
      retries: 0,
      fallbacks: [{ provider: 'openai-compatible', model: 'm', baseUrl: 'http://fallback.invalid/v1', relay: 'desk' }],
    },
  });
  /** @type {string[]} */
  const calls = [];
  /** What each machine's relay answers: the laptop's upstream fails (retryable), the desk's streams a reply. */
  const remote = {
    /** @param {string} machine @returns {typeof fetch} */
    relayFetch: (machine) => async (input) => {
      calls.push(`${machine} ${String(input)}`);
      if (machine === 'laptop') return new Response('busy', { status: 503 });
      const sse = 'data: {"choices":[{"delta":{"content":"from the desk"}}]}\n\ndata: [DONE]\n\n';
      return new Response(sse, { headers: { 'content-type': 'text/event-stream' } });
    },
  };
  const factory = new AgentFactory({
    agentSettings,
    hooks: /** @type {any} */ ({}), // not used here
    services: () => /** @type {any} */ ({ remote: async () => remote }), // any: the one service provider() reads
    workspaceFs: () => {
      throw new Error('not used');
    },
    mountedFolder: () => null,
  });
  const primary = { provider: 'openai-compatible', model: 'm', baseUrl: 'http://primary.invalid/v1', relay: 'laptop' };
  const provider = await factory.provider('w', primary);
  const result = await provider.chat({ messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(result.content, 'from the desk');
  assert.deepEqual(calls, ['laptop http://primary.invalid/v1/chat/completions', 'desk http://fallback.invalid/v1/chat/completions']);
  // Control: a direct provider is made without the machines (its fetch is the page's: the .invalid host fails).
  calls.length = 0;
  agentSettings.save('w', { ...agentSettings.load('w'), providers: { ...agentSettings.load('w').providers, fallbacks: [] } });
  const direct = await factory.provider('w', { ...primary, relay: undefined });
  await assert.rejects(direct.chat({ messages: [{ role: 'user', content: 'hi' }] }));
  assert.deepEqual(calls, []);
});
