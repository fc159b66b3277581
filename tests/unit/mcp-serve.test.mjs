// Issue 35 §4: a workspace exposed over MCP (web/app/mcp-serve.js) against the real wsh server
// in-process and a real ToolRunner over the built-in tools, as AgentFactory.parts gives one for
// a named agent (a ToolSubset of the exposed tools): tokens are kept only as their SHA-256,
// outside requests see and call only the exposed tools, arguments taint the call, the user's
// answer decides, a revoked token stops reaching it, and a dropped connection is exposed again.
// The browser journey with the official SDK client is tests/browser/mcp-serve.test.mjs.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { McpServe, EXPOSURE_KEY, MCP_AGENT, mcpUrlOf } from '../../web/app/mcp-serve.js';
import { RemoteMachines } from '../../web/stores/remote-machines.js';
import { LocalConfig } from '../../web/storage/local-config.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { ScopedFileSystem } from '../../web/storage/scoped-fs.js';
import { MemoryKeyStore } from '../../web/packages/wsh/index.js';
import { createWshServer } from '../../web/packages/wsh/server/index.js';
import { parseKeyLine } from '../../web/packages/wsh/server/keys-file.js';
import { ToolRunner } from '../../web/agent/runtime/tool-runner.js';
import { SafetyPipeline } from '../../web/safety/pipeline.js';
import { createBuiltinRegistry, toolSettings } from '../../web/tools/index.js';
import { ToolSubset } from '../../web/tools/tool-subset.js';
import { memoryStorage } from '../fixtures/stand-ins.mjs';

const wsh = () => import('../../web/packages/wsh/node.js');
const config = new LocalConfig(memoryStorage());
/** @type {import('../../web/packages/wsh/server/keys-file.js').KeyEntry[]} */
const listed = [];
const server = await createWshServer({ keys: listed, pty: null, log: () => {} });
after(() => server.close());
const machines = new RemoteMachines({ config, keys: new MemoryKeyStore(), wsh, reconnect: { minDelayMs: 10, maxAttempts: 20 } });
after(() => machines.closeAll());
await machines.add({ name: 'laptop', url: server.url });
listed.push(await parseKeyLine(await machines.publicKeyLine('laptop')));

const files = new MemoryFileSystem();
const fs = new ScopedFileSystem(files, 'clawser_workspaces/ws');
await fs.write('notes.md', 'buy bread');
const registry = createBuiltinRegistry({ config, workspaceId: 'ws' });
/** @type {import('../../web/agent/runtime/tool-runner.js').ApprovalRequest[]} */
const asked = [];
/** @type {import('../../web/agent/runtime/tool-runner.js').ApprovalAnswer} */
let answer = 'deny';
/** @type {ToolRunner[]} */
const runners = [];
const exposure = new McpServe({
  workspaceId: 'ws',
  config,
  registry,
  remote: async () => machines,
  name: () => 'My workspace',
  // As AgentFactory.parts builds a named agent's runner: the workspace's registry narrowed to its tools.
  runner: async ({ profile, approve }) => {
    const runner = new ToolRunner({
      registry: new ToolSubset(registry, profile.tools),
      context: { workspaceId: 'ws', fs, settings: toolSettings(), fetch: globalThis.fetch },
      safety: new SafetyPipeline(),
      approve: (r) => (approve ?? (async () => 'deny'))({ ...r, agent: profile.name }),
    });
    runners.push(runner);
    return runner;
  },
  approve: async (request) => {
    asked.push(request);
    return answer;
  },
});

/** A JSON-RPC POST to the server's /mcp. @param {string} token @param {string} method @param {object} [params] */
async function rpc(token, method, params = {}) {
  const res = await fetch(server.mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return { status: res.status, body: await res.json() };
}

test('the MCP address of a wsh URL is the same server’s /mcp', () => {
  assert.equal(mcpUrlOf('ws://127.0.0.1:4021/wsh'), 'http://127.0.0.1:4021/mcp');
  assert.equal(mcpUrlOf('wss://box.example/wsh?x=1'), 'https://box.example/mcp');
  assert.equal(mcpUrlOf(server.url), server.mcpUrl);
});

test('starting needs a machine and a token, said so; a token is returned once and only its SHA-256 is stored', async () => {
  await assert.rejects(exposure.start(), { code: 'no_machine' });
  exposure.setMachine('laptop');
  await assert.rejects(exposure.start(), { code: 'no_token' });
  const token = await exposure.createToken('agent');
  assert.match(token, /^clawser_mcp_[A-Za-z0-9_-]{43}$/);
  const stored = JSON.stringify(config.get(EXPOSURE_KEY, {}));
  assert.ok(!stored.includes(token), 'the token itself is not stored');
  assert.ok(stored.includes(createHash('sha256').update(token).digest('hex')), 'its SHA-256 is');
  assert.deepEqual(
    exposure.settings().tokens.map((t) => t.label),
    ['agent'],
  );
  await exposure.revokeToken(exposure.settings().tokens[0].id);
});

test('outside clients see and call only the exposed tools; arguments taint the call; the user’s answer decides', async () => {
  exposure.setTools(['fs_read', 'fs_write']);
  const token = await exposure.createToken('cli');
  await exposure.start();
  assert.equal(exposure.status().state, 'on');
  assert.equal(exposure.status().url, server.mcpUrl);

  const list = await rpc(token, 'tools/list');
  assert.deepEqual(
    list.body.result.tools.map((/** @type {{name: string}} */ t) => t.name),
    ['fs_read', 'fs_write'],
  );
  assert.equal(list.body.result.tools[0].inputSchema.type, 'object');

  const read = await rpc(token, 'tools/call', { name: 'fs_read', arguments: { path: 'notes.md' } });
  assert.equal(read.body.result.isError, false);
  assert.match(read.body.result.content[0].text, /buy bread/);
  assert.equal(asked.length, 0, 'a read asks nothing');
  assert.deepEqual(
    runners.at(-1)?.taint.map((t) => t.what),
    ['arguments sent by an outside MCP client'],
  );

  const hidden = await rpc(token, 'tools/call', { name: 'fs_delete', arguments: { path: 'notes.md' } });
  assert.match(hidden.body.error.message, /not among the tools this workspace exposes/);
  const bad = await rpc(token, 'tools/call', { arguments: {} });
  assert.equal(bad.body.error.code, -32602);

  answer = 'deny';
  const denied = await rpc(token, 'tools/call', { name: 'fs_write', arguments: { path: 'out.md', content: 'no' } });
  assert.equal(denied.body.result.isError, true);
  assert.equal(await fs.readText('out.md').catch(() => null), null, 'a denied write wrote nothing');
  assert.equal(asked.at(-1)?.agent, MCP_AGENT, 'the dialog names who asks');
  answer = 'once';
  const written = await rpc(token, 'tools/call', { name: 'fs_write', arguments: { path: 'out.md', content: 'yes' } });
  assert.equal(written.body.result.isError, false);
  assert.equal(await fs.readText('out.md'), 'yes');
  assert.equal(typeof written.body.result._meta['dev.clawser/toolMs'], 'number');

  // Unticking a tool takes effect at once.
  exposure.setTools(['fs_read']);
  const narrowed = await rpc(token, 'tools/list');
  assert.deepEqual(
    narrowed.body.result.tools.map((/** @type {{name: string}} */ t) => t.name),
    ['fs_read'],
  );
});

test('a revoked token stops reaching the workspace at once (control: another token still does); stop says so', async () => {
  const [first] = exposure.settings().tokens;
  const second = await exposure.createToken('second');
  assert.equal((await rpc(second, 'tools/list')).status, 200, 'a token made while exposed reaches it at once');
  await exposure.revokeToken(first.id);
  assert.equal(exposure.status().state, 'on');
  assert.equal((await rpc(second, 'tools/list')).body.result.tools.length, 1);
  await exposure.stop();
  const after = await rpc(second, 'tools/list');
  assert.match(after.body.error.message, /Clawser stopped exposing “My workspace” over MCP/);
});

test('a dropped connection is exposed again once the client reconnects', async () => {
  const token = await exposure.createToken('again');
  await exposure.start();
  /** @type {string[]} */
  const states = [];
  const back = new Promise((resolve) => {
    const stop = exposure.onChange(() => {
      states.push(exposure.status().state);
      if (states.includes('starting') && exposure.status().state === 'on') {
        stop();
        resolve(undefined);
      }
    });
  });
  server.disconnectAll();
  await back;
  assert.ok(states.includes('starting'), 'it said it was exposing again');
  assert.equal((await rpc(token, 'tools/list')).body.result.tools.length, 1);
  await exposure.stop();
});
