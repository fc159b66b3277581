// Why this file is long: 18 tests of the built-in tools through one real agent and scripted
//  provider, each a short scenario with its control.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { ScriptedProvider } from '../fixtures/scripted-provider.mjs';
import { ClawserAgent } from '../../web/agent/runtime/agent.js';
import { ConversationStore } from '../../web/agent/conversation/conversation-store.js';
import { HookPipeline } from '../../web/agent/runtime/hooks.js';
import { AutonomyController } from '../../web/agent/runtime/autonomy.js';
import { ToolRunner } from '../../web/agent/runtime/tool-runner.js';
import { planCompaction, estimateTokens } from '../../web/agent/conversation/compaction.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { ScopedFileSystem } from '../../web/storage/scoped-fs.js';
import { LocalConfig } from '../../web/storage/local-config.js';
import { SafetyPipeline } from '../../web/safety/pipeline.js';
import { createBuiltinRegistry, toolSettings, BrowserToolRegistry } from '../../web/tools/index.js';
import { estimateCostCents } from '../../web/providers/pricing.js';
import { memoryStorage } from '../fixtures/stand-ins.mjs';
import { loose } from '../fixtures/loose-events.mjs';

/**
 * @param {ConstructorParameters<typeof ScriptedProvider>[0]} turns
 * @param {{approve?: any, autonomy?: AutonomyController, hooks?: HookPipeline, maxIterations?: number, registry?: BrowserToolRegistry,
 *   compaction?: any, maxResultChars?: number}} [opts]
 */
async function setup(turns, opts = {}) {
  const fs = new MemoryFileSystem();
  const store = new ConversationStore(fs, 'ws');
  const conversation = await store.open((await store.create()).id);
  const provider = new ScriptedProvider(turns);
  const config = new LocalConfig(memoryStorage());
  const registry = opts.registry ?? createBuiltinRegistry({ config, workspaceId: 'ws' });
  const safety = new SafetyPipeline();
  const tools = new ToolRunner({
    registry,
    context: {
      workspaceId: 'ws',
      fs: new ScopedFileSystem(fs, 'clawser_workspaces/ws'),
      settings: toolSettings(),
      fetch: globalThis.fetch,
    },
    hooks: opts.hooks,
    autonomy: opts.autonomy,
    safety,
    approve: opts.approve ?? (async () => 'once'),
    maxResultChars: opts.maxResultChars,
  });
  const agent = new ClawserAgent({
    provider,
    conversation,
    tools,
    hooks: opts.hooks,
    autonomy: opts.autonomy,
    safety,
    maxIterations: opts.maxIterations,
    compaction: opts.compaction,
  });
  return { fs, conversation, provider, agent, registry, config, store };
}
/** @param {AsyncIterable<any>} it */
async function drain(it) {
  const out = [];
  for await (const e of it) out.push(e);
  return out;
}
const types = (/** @type {any} */ c) => c.events.map((/** @type {any} */ e) => e.type);

test('multi-step tool use: write a note, list files, answer; files really written; history consistent', async () => {
  const { agent, conversation, provider, fs } = await setup([
    { text: 'Saving. ', toolCalls: [{ id: 'c1', name: 'fs_write', arguments: { path: 'notes/x.md', content: '# X\nabout x' } }] },
    { toolCalls: [{ id: 'c2', name: 'fs_list', arguments: { path: '/', recursive: true } }] },
    { text: 'Saved notes/x.md.' },
  ]);
  const { text } = await agent.run('save a note about X to notes/x.md, then list my files');
  assert.equal(text, 'Saved notes/x.md.');
  assert.equal(await fs.readText('clawser_workspaces/ws/notes/x.md'), '# X\nabout x');
  assert.deepEqual(types(conversation), [
    'user_message',
    'agent_message',
    'tool_call',
    'tool_result',
    'agent_message',
    'tool_call',
    'tool_result',
    'agent_message',
  ]);
  const listResult = loose(conversation.events)[6].data.result;
  assert.match(listResult, /notes\/\nnotes\/x\.md \(11 B\)/);
  assert.doesNotMatch(listResult, /\.conversations/, 'internal folders are hidden');
  const last = provider.requests[2];
  assert.deepEqual(
    last.messages.map((m) => m.role),
    ['user', 'assistant', 'tool', 'assistant', 'tool'],
  );
  assert.equal(last.messages[2].toolCallId, 'c1');
  assert.ok(provider.requests[0].tools?.some((t) => t.name === 'fs_write' && /** @type {any} */ (t.parameters).properties.path));
  // Reopening derives the same history.
  assert.deepEqual((await Conversation_reopen(conversation)).messages.length, conversation.deriveSessionHistory().messages.length);
});
/** @param {any} conv */
async function Conversation_reopen(conv) {
  return conv.deriveSessionHistory();
}

test('parallel tool calls in one reply all run, in order, each with its result', async () => {
  const { agent, conversation } = await setup([
    {
      toolCalls: [
        { id: 'a', name: 'fs_write', arguments: { path: 'a.txt', content: 'A' } },
        { id: 'b', name: 'fs_write', arguments: { path: 'b.txt', content: 'B' } },
        { id: 'c', name: 'fs_read', arguments: { path: 'a.txt' } },
      ],
    },
    { text: 'ok' },
  ]);
  await agent.run('go');
  const results = conversation.events.filter((e) => e.type === 'tool_result').map((e) => [e.data.toolCallId, e.data.ok, e.data.result]);
  assert.deepEqual(results, [
    ['a', true, 'Created "a.txt" (1 B).'],
    ['b', true, 'Created "b.txt" (1 B).'],
    ['c', true, 'A'],
  ]);
});

test('the loop stops at the iteration cap with a clear error event', async () => {
  const turns = Array.from({ length: 10 }, (_, i) => ({ toolCalls: [{ id: `t${i}`, name: 'fs_list', arguments: {} }] }));
  const { agent, conversation } = await setup(turns, { maxIterations: 3 });
  const evs = await drain(agent.runStream('loop forever'));
  assert.equal(conversation.events.filter((e) => e.type === 'tool_result').length, 3);
  assert.equal(conversation.events.at(-1)?.type, 'error');
  assert.match(loose(conversation.events).at(-1)?.data.message, /Stopped after 3 steps/);
  assert.ok(evs.some((e) => e.type === 'error'));
});

test('abort while a tool waits for approval leaves a consistent log (every call answered)', async () => {
  const ac = new AbortController();
  const { agent, conversation, provider } = await setup(
    [
      {
        toolCalls: [
          { id: 'w1', name: 'fs_write', arguments: { path: 'x', content: '1' } },
          { id: 'w2', name: 'fs_write', arguments: { path: 'y', content: '2' } },
        ],
      },
      { text: 'after' },
    ],
    {
      approve: async () => {
        ac.abort();
        return 'once';
      },
    },
  );
  await drain(agent.runStream('write two files', { signal: ac.signal }));
  assert.deepEqual(types(conversation), ['user_message', 'agent_message', 'tool_call', 'tool_result', 'tool_call', 'tool_result']);
  assert.deepEqual(
    conversation.events.filter((e) => e.type === 'tool_result').map((e) => e.data.blocked),
    ['cancelled', 'cancelled'],
  );
  const h = conversation.deriveSessionHistory().messages;
  assert.deepEqual(
    h.map((m) => m.role),
    ['user', 'assistant', 'tool', 'tool'],
  );
  assert.equal(provider.requests.length, 1);
});

test('denied approval never runs the tool and tells the model; "always" persists the policy', async () => {
  let asked = 0;
  const { agent, conversation, fs, registry, config } = await setup(
    [
      { toolCalls: [{ id: 'd', name: 'fs_write', arguments: { path: 'no.txt', content: 'x' } }] },
      { toolCalls: [{ id: 'e', name: 'fs_write', arguments: { path: 'yes.txt', content: 'y' } }] },
      { toolCalls: [{ id: 'f', name: 'fs_write', arguments: { path: 'yes2.txt', content: 'z' } }] },
      { text: 'done' },
    ],
    { approve: async () => (++asked === 1 ? 'deny' : 'always') },
  );
  await agent.run('try');
  assert.equal(await fs.stat('clawser_workspaces/ws/no.txt'), null);
  const denied = loose(conversation.events).find((e) => e.type === 'tool_result' && e.data.toolCallId === 'd');
  assert.equal(denied?.data.blocked, 'denied');
  assert.match(denied?.data.result, /denied/);
  assert.equal(asked, 2, 'after "always" no more questions');
  assert.equal(registry.policyOf('fs_write'), 'auto');
  assert.deepEqual(config.get('clawser_tool_perms_ws', null), { fs_write: 'auto' });
  assert.equal(await fs.readText('clawser_workspaces/ws/yes2.txt'), 'z');
});

test('policies: defaults by level, overrides, denied tools hidden from the model', async () => {
  const config = new LocalConfig(memoryStorage());
  const r = createBuiltinRegistry({ config, workspaceId: 'w9' });
  assert.equal(r.policyOf('fs_read'), 'auto');
  assert.equal(r.policyOf('ask_user'), 'auto');
  for (const t of ['fs_write', 'web_fetch', 'navigate']) assert.equal(r.policyOf(t), 'approve');
  r.setPolicy('web_fetch', 'denied');
  assert.ok(!r.specs().some((s) => s.name === 'web_fetch'));
  const again = createBuiltinRegistry({ config, workspaceId: 'w9' });
  assert.equal(again.policyOf('web_fetch'), 'denied', 'persisted per workspace');
  assert.equal(createBuiltinRegistry({ config, workspaceId: 'other' }).policyOf('web_fetch'), 'approve');
  again.setPolicy('web_fetch', null);
  assert.equal(again.policyOf('web_fetch'), 'approve');
});

test('argument validation errors go back to the model, and the tool does not run', async () => {
  const { agent, conversation } = await setup([
    {
      toolCalls: [
        { id: 'v', name: 'fs_write', arguments: { path: 'a.md' } },
        { id: 'u', name: 'no_such_tool', arguments: {} },
        { id: 'j', name: 'fs_read', arguments: { _raw: '{bad json' } },
      ],
    },
    { text: 'fixed' },
  ]);
  await agent.run('x');
  const res = loose(conversation.events)
    .filter((e) => e.type === 'tool_result')
    .map((e) => [e.data.blocked, e.data.result]);
  assert.equal(res[0][0], 'validation');
  assert.match(res[0][1], /Invalid arguments for fs_write: content:/);
  assert.equal(res[1][0], 'unknown');
  assert.match(res[2][1], /not valid JSON/);
});

test('hooks: every point runs, can rewrite and block; a throwing hook is skipped', async () => {
  /** @type {string[]} */
  const seen = [];
  /** @type {string[]} */
  const errors = [];
  const hooks = new HookPipeline({ onError: (i) => errors.push(i.name) });
  hooks.register('onSessionStart', () => void seen.push('start'));
  hooks.register('beforeInbound', ({ text }) => ({ text: text.replace('secret-word', '[x]') }));
  hooks.register('beforeInbound', function boom() {
    throw new Error('hook bug');
  });
  hooks.register('beforeOutbound', ({ request, iteration }) => {
    seen.push(`out${iteration}`);
    return { request: { ...request, system: `${request.system}\nEXTRA` } };
  });
  hooks.register('transformResponse', ({ text }) => ({ text: text.toUpperCase() }));
  hooks.register('beforeToolCall', ({ name, args }) =>
    name === 'fs_delete' ? { block: 'no deleting' } : name === 'fs_write' ? { args: { ...args, path: `hooked/${args.path}` } } : undefined,
  );
  hooks.register('onSessionEnd', ({ reason }) => void seen.push(`end:${reason}`));
  const { agent, conversation, provider, fs } = await setup(
    [
      {
        text: 'ok ',
        toolCalls: [
          { id: '1', name: 'fs_write', arguments: { path: 'f.txt', content: 'c' } },
          { id: '2', name: 'fs_delete', arguments: { path: 'f.txt' } },
        ],
      },
      { text: 'fin' },
    ],
    { hooks },
  );
  await agent.run('my secret-word');
  assert.equal(loose(conversation.events)[0].data.text, 'my [x]');
  assert.deepEqual(errors, ['boom']);
  assert.match(provider.requests[0].system ?? '', /EXTRA$/);
  assert.equal(loose(conversation.events).at(-1)?.data.text, 'FIN');
  assert.equal(await fs.readText('clawser_workspaces/ws/hooked/f.txt'), 'c');
  const blocked = loose(conversation.events).find((e) => e.type === 'tool_result' && e.data.toolCallId === '2');
  assert.match(blocked?.data.result, /Blocked by .*no deleting/);
  assert.deepEqual(seen, ['start', 'out0', 'out1', 'end:done']);
  const blocking = new HookPipeline();
  blocking.register('beforeInbound', () => ({ block: 'off-topic' }), { name: 'policy' });
  const b = await setup([{ text: 'never' }], { hooks: blocking });
  await b.agent.run('hi');
  assert.deepEqual(types(b.conversation), ['error']);
  assert.equal(b.provider.requests.length, 0);
});

test('autonomy: readonly blocks non-read tools; supervised forces approval; limits stop the run', async () => {
  const ro = new AutonomyController({ config: { level: 'readonly' } });
  const a = await setup(
    [
      {
        toolCalls: [
          { id: 'r', name: 'fs_list', arguments: {} },
          { id: 'w', name: 'fs_write', arguments: { path: 'x', content: '1' } },
        ],
      },
      { text: 'ok' },
    ],
    { autonomy: ro },
  );
  await a.agent.run('x');
  const r = a.conversation.events.filter((e) => e.type === 'tool_result');
  assert.equal(r[0].data.ok, true);
  assert.equal(r[1].data.blocked, 'autonomy');
  assert.match(r[1].data.result, /read-only/);

  let asked = 0;
  const sup = new AutonomyController({ config: { level: 'supervised' } });
  const registry = createBuiltinRegistry();
  const s = await setup(
    [
      {
        toolCalls: [
          { id: 'w', name: 'fs_write', arguments: { path: 'x', content: '1' } },
          { id: 'm', name: 'memory_store', arguments: { key: 'k', content: 'v' } },
        ],
      },
      { text: 'ok' },
    ],
    {
      autonomy: sup,
      registry,
      approve: async () => {
        asked++;
        return 'once';
      },
    },
  );
  await s.agent.run('x');
  assert.equal(asked, 2, 'supervised asks for every change, a memory too (its default policy is auto)');

  let now = Date.parse('2026-11-21T10:00:00Z');
  /** @type {any} */
  let saved = null;
  const limited = new AutonomyController({
    config: { level: 'full', maxActionsPerHour: 2 },
    now: () => now,
    save: (u) => (saved = structuredClone(u)),
  });
  const l = await setup(
    [{ toolCalls: [1, 2, 3].map((i) => ({ id: `l${i}`, name: 'fs_list', arguments: {} })) }, { text: 'never reached' }],
    { autonomy: limited },
  );
  const evs = await drain(l.agent.runStream('x'));
  assert.ok(types(l.conversation).includes('autonomy_blocked'));
  assert.match(evs.find((e) => e.type === 'error')?.error.message, /2 tool actions per hour/);
  assert.equal(l.provider.requests.length, 1, 'the run stopped');
  assert.equal(saved.actions.length, 2);
  now += 3_600_001;
  assert.equal(limited.checkLimits(), null, 'actions age out after an hour');
  const reloaded = new AutonomyController({ config: { maxActionsPerHour: 2 }, now: () => now - 10, load: () => saved });
  assert.match(reloaded.checkLimits() ?? '', /per hour/, 'usage survives a reload');

  const costly = new AutonomyController({ config: { level: 'full', maxCostCentsPerDay: 1 }, now: () => now });
  const c = await setup([{ text: 'expensive', usage: { inputTokens: 1_000_000, outputTokens: 0 } }, { text: 'never' }], {
    autonomy: costly,
  });
  c.provider.model = 'gpt-4o';
  await c.agent.run('first');
  assert.ok(costly.usage.costCents >= 250);
  const second = await drain(c.agent.runStream('second'));
  assert.match(second.find((e) => e.type === 'error')?.error.message, /cost limit/);
  assert.equal(c.conversation.events.at(-1)?.type, 'autonomy_blocked');
});

test('pricing: cost in cents by model prefix; unknown and local models are free', () => {
  assert.equal(Math.round(estimateCostCents('gpt-4o', { inputTokens: 1_000_000, outputTokens: 1_000_000 })), 1250);
  assert.equal(Math.round(estimateCostCents('openai/gpt-4.1-mini', { inputTokens: 1_000_000, outputTokens: 0 })), 40);
  assert.equal(estimateCostCents('llama3.2', { inputTokens: 1e6, outputTokens: 1e6 }), 0);
});

test('tool results are capped with a tool_result_truncated event; secrets in results are redacted', async () => {
  const { agent, conversation, fs } = await setup(
    [
      {
        toolCalls: [
          { id: 'big', name: 'fs_read', arguments: { path: 'big.txt' } },
          { id: 'sec', name: 'fs_read', arguments: { path: 'sec.txt' } },
        ],
      },
      { text: 'ok' },
    ],
    { maxResultChars: 1000 },
  );
  await fs.write('clawser_workspaces/ws/big.txt', 'x'.repeat(5000));
  await fs.write('clawser_workspaces/ws/sec.txt', 'key: sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789');
  await agent.run('read');
  const trunc = conversation.events.find((e) => e.type === 'tool_result_truncated');
  assert.deepEqual([trunc?.data.originalChars, trunc?.data.keptChars], [5000, 1000]);
  const big = loose(conversation.events).find((e) => e.type === 'tool_result' && e.data.toolCallId === 'big');
  assert.ok(big && big.data.result.length < 1100);
  assert.doesNotMatch(JSON.stringify(conversation.events), /sk-ant-api03/);
});

test('a traversal attempt is blocked by the safety check and recorded', async () => {
  const { agent, conversation } = await setup([
    {
      toolCalls: [
        { id: 't', name: 'fs_read', arguments: { path: '../../other-workspace/secret.md' } },
        { id: 'u', name: 'fs_read', arguments: { path: '.conversations/c1/events.jsonl' } },
      ],
    },
    { text: 'ok' },
  ]);
  await agent.run('x');
  const blocked = conversation.events.filter((e) => e.type === 'safety_tool_blocked');
  assert.equal(blocked.length, 2);
  assert.match(blocked[0].data.reason, /traversal/);
});

test('a leaked key in the model reply is redacted before it is stored', async () => {
  const { agent, conversation } = await setup([{ text: 'Your key is sk-proj-AbCdEfGhIjKlMnOpQrStUvWx0123 ok' }]);
  await agent.run('what is my key');
  assert.equal(loose(conversation.events).at(-1)?.data.text, 'Your key is [REDACTED openai_key] ok');
  assert.ok(types(conversation).includes('safety_output_redacted'));
  assert.doesNotMatch(JSON.stringify(conversation.events), /AbCdEfGhIj/);
});

test('compaction: triggered past the threshold, keeps 10 recent messages, falls back to truncation', async () => {
  const long = 'word '.repeat(400);
  const turns = Array.from({ length: 30 }, () => ({ text: long }));
  const { agent, conversation, provider } = await setup(turns, { compaction: { thresholdTokens: 3000, keepRecent: 10 } });
  provider.onChat = async () => 'SUMMARY OF EARLIER TALK';
  for (let i = 0; i < 12; i++) await agent.run(`question ${i} ${long}`);
  const compacted = conversation.events.filter((e) => e.type === 'context_compacted');
  assert.ok(compacted.length >= 1);
  assert.equal(compacted[0].data.method, 'model');
  const h = conversation.deriveSessionHistory().messages;
  assert.match(h[0].content, /SUMMARY OF EARLIER TALK/);
  assert.ok(h.length <= 2 + 10 + 4, `history stays bounded (${h.length} messages)`);
  assert.ok(
    estimateTokens(h) <
      estimateTokens(
        conversation.events
          .filter((e) => e.type === 'user_message' || e.type === 'agent_message')
          .map((e) => ({ role: 'user', content: e.data.text })),
      ) *
        0.75,
  );
  assert.match(provider.chatRequests[0].messages[0].content, /^Summarize this conversation concisely/);
  provider.onChat = async () => {
    throw new Error('model down');
  };
  for (let i = 0; i < 8; i++) await agent.run(`more ${i} ${long}`);
  const last = conversation.events.filter((e) => e.type === 'context_compacted').at(-1);
  assert.equal(last?.data.method, 'truncation');
  assert.equal(planCompaction([{ role: 'user', content: 'short' }]), null);
});

test('registry: JSON Schema for providers, unique names', () => {
  const r = new BrowserToolRegistry();
  r.register({
    name: 'echo_tool',
    description: 'd',
    permission: 'read',
    schema: z.object({ a: z.string(), n: z.number().int().optional() }),
    run: async () => ({ ok: true, output: '' }),
  });
  assert.throws(
    () =>
      r.register({
        name: 'echo_tool',
        description: 'd',
        permission: 'read',
        schema: z.object({}),
        run: async () => ({ ok: true, output: '' }),
      }),
    /already/,
  );
  const [spec] = r.specs();
  assert.equal(/** @type {any} */ (spec.parameters).type, 'object');
  assert.deepEqual(/** @type {any} */ (spec.parameters).required, ['a']);
  assert.equal('$schema' in spec.parameters, false);
});

test("a tool call's time is its own: the wait for the user's approval is recorded apart", async () => {
  // A clock the test moves: the approval takes 5 s, nothing else takes time.
  let clock = 1000;
  const realNow = performance.now;
  performance.now = () => clock;
  try {
    const { agent, conversation } = await setup(
      [{ toolCalls: [{ id: 'w1', name: 'fs_write', arguments: { path: 'x', content: '1' } }] }, { text: 'done' }],
      {
        approve: async () => {
          clock += 5000;
          return 'once';
        },
      },
    );
    await drain(agent.runStream('write a file'));
    const result = conversation.events.find((e) => e.type === 'tool_result');
    assert.equal(result?.data.ok, true);
    assert.equal(result?.data.approvalMs, 5000);
    assert.equal(result?.data.durationMs, 0);
  } finally {
    performance.now = realNow;
  }
});

test("costs in the event log: a turn's last reply records the turn's cost and the totals of the conversation, \
today and this month", async () => {
  const autonomy = new AutonomyController({ config: { level: 'full', maxCostCentsPerDay: 0 } });
  const million = { inputTokens: 1_000_000, outputTokens: 0 };
  const c = await setup(
    [
      { toolCalls: [{ id: 'l1', name: 'fs_list', arguments: {} }], usage: million },
      { text: 'listed', usage: million },
      { text: 'again', usage: million },
    ],
    { autonomy },
  );
  c.provider.model = 'gpt-4o';
  await c.agent.run('list the files');
  const replies = c.conversation.events.filter((e) => e.type === 'agent_message');
  assert.equal(replies[0].data.costs, undefined, 'a reply that calls tools is not the end of the turn');
  assert.deepEqual(
    replies[1].data.costs,
    { turnCents: 500, conversationCents: 500, todayCents: 500, monthCents: 500 },
    'two calls of $2.50',
  );
  await c.agent.run('once more');
  assert.deepEqual(c.conversation.events.filter((e) => e.type === 'agent_message').at(-1)?.data.costs, {
    turnCents: 250,
    conversationCents: 750,
    todayCents: 750,
    monthCents: 750,
  });
  // A model without a price: the turn says so instead of counting 0.
  const u = await setup([{ text: 'hi', usage: million }], { autonomy: new AutonomyController({ config: { level: 'full' } }) });
  u.provider.model = 'some-unpriced-model';
  await u.agent.run('hello');
  assert.deepEqual(u.conversation.events.find((e) => e.type === 'agent_message')?.data.costs, {
    turnCents: 0,
    turnUnpricedCalls: 1,
    conversationCents: 0,
    todayCents: 0,
    monthCents: 0,
  });
});

test('Stop ends a tool call even when the tool ignores its signal; its later result is dropped, \
a well-behaved tool still answers', async () => {
  /** @type {(r: {ok: boolean, output: string}) => void} */
  let finishLate = () => {};
  let lateStarted = false;
  let stuckStarted = false;
  const registry = new BrowserToolRegistry();
  const schema = z.object({});
  // Never settles and never looks at its signal.
  registry.register({
    name: 'stuck_tool',
    description: 'd',
    permission: 'read',
    schema,
    run: () =>
      new Promise(() => {
        stuckStarted = true;
      }),
  });
  // Ignores its signal, answers when the test says so (after Stop).
  registry.register({
    name: 'late_tool',
    description: 'd',
    permission: 'read',
    schema,
    run: () =>
      new Promise((resolve) => {
        lateStarted = true;
        finishLate = resolve;
      }),
  });
  registry.register({
    name: 'good_tool',
    description: 'd',
    permission: 'read',
    schema,
    run: async () => ({ ok: true, output: 'the answer' }),
  });
  const runner = new ToolRunner({
    registry,
    context: { workspaceId: 'ws', fs: new MemoryFileSystem(), settings: toolSettings(), fetch: globalThis.fetch },
  });

  // Control: with a signal that never aborts, the tool's own result comes back.
  const good = await runner.run({ id: 'g', name: 'good_tool', arguments: {} }, { signal: new AbortController().signal });
  assert.deepEqual([good.ok, good.output, good.blocked], [true, 'the answer', undefined]);

  const stop = new AbortController();
  const stuck = runner.run({ id: 's', name: 'stuck_tool', arguments: {} }, { signal: stop.signal });
  while (!stuckStarted) await new Promise((r) => setImmediate(r));
  stop.abort();
  const stopped = await stuck;
  assert.equal(stopped.ok, false);
  assert.deepEqual(stopped.blocked, { kind: 'cancelled', reason: 'Cancelled by the user while it was running.' });

  const stopLate = new AbortController();
  const late = runner.run({ id: 'l', name: 'late_tool', arguments: {} }, { signal: stopLate.signal });
  while (!lateStarted) await new Promise((r) => setImmediate(r));
  stopLate.abort();
  const lateOutcome = await late;
  finishLate({ ok: true, output: 'too late' });
  assert.equal(lateOutcome.blocked?.kind, 'cancelled');
  assert.doesNotMatch(lateOutcome.output, /too late/);

  // Through the agent: Stop during the stuck tool ends the run, and the tool's card records it as cancelled.
  let agentToolStarted = false;
  const agentRegistry = new BrowserToolRegistry();
  agentRegistry.register({
    name: 'stuck_tool',
    description: 'd',
    permission: 'read',
    schema,
    run: () =>
      new Promise(() => {
        agentToolStarted = true;
      }),
  });
  const { agent, conversation } = await setup([{ toolCalls: [{ id: 'k', name: 'stuck_tool', arguments: {} }] }, { text: 'never asked' }], {
    registry: agentRegistry,
  });
  const ac = new AbortController();
  // The user presses Stop once the tool is running.
  void (async () => {
    while (!agentToolStarted) await new Promise((r) => setImmediate(r));
    ac.abort();
  })();
  await drain(agent.runStream('go', { signal: ac.signal }));
  const result = conversation.events.find((e) => e.type === 'tool_result');
  assert.deepEqual(
    [result?.data.ok, result?.data.blocked, result?.data.result],
    [false, 'cancelled', 'Cancelled by the user while it was running.'],
  );
  assert.equal(conversation.events.filter((e) => e.type === 'agent_message').length, 1, 'the model is not asked again');
});

test("the runner checks a tool's input as a shell line when the tool declares it runs shell lines (runsCode), \
not by its name", async () => {
  /** @param {boolean} declares */
  const runnerWith = (declares) => {
    const registry = new BrowserToolRegistry();
    registry.register({
      name: 'notes_sh',
      description: 'Runs a line of notes commands.',
      permission: 'read',
      ...(declares ? { runsCode: /** @type {const} */ ('bash') } : {}),
      schema: z.object({ input: z.string() }),
      run: async ({ input }) => ({ ok: true, output: `ran ${input}` }),
    });
    const context = { workspaceId: 'ws', fs: new MemoryFileSystem(), settings: toolSettings(), fetch: globalThis.fetch };
    return new ToolRunner({ registry, context, safety: new SafetyPipeline() });
  };
  const call = { id: 'c', name: 'notes_sh', arguments: { input: 'curl x | sh' } };
  const declared = await runnerWith(true).run(call);
  assert.equal(declared.ok, false);
  assert.match(declared.output, /Blocked by the safety check: .*dangerous pattern/);
  // Control: the same tool, declaring nothing, takes its input as text.
  const plain = await runnerWith(false).run(call);
  assert.deepEqual([plain.ok, plain.output], [true, 'ran curl x | sh']);
});
