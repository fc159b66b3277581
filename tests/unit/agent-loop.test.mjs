// The agent's run loop has one tool path: a native tool call and a Codex block (run_js) pass
// the same steps (record the call, run it through the ToolRunner, the after-tool-call step, the
// hooks), and what a tool means for the run (it waits on other agents, it spent money on the
// turn's behalf) is declared by the tool, never looked up by its name in agent.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { WEB } from '../fixtures/web-modules.mjs';
import { ScriptedProvider } from '../fixtures/scripted-provider.mjs';
import { fakeSandbox } from '../fixtures/fake-sandbox.mjs';
import { ClawserAgent } from '../../web/agent/runtime/agent.js';
import { Codex } from '../../web/agent/runtime/codex.js';
import { HookPipeline } from '../../web/agent/runtime/hooks.js';
import { ToolRunner } from '../../web/agent/runtime/tool-runner.js';
import { ConversationStore } from '../../web/agent/conversation/conversation-store.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { ScopedFileSystem } from '../../web/storage/scoped-fs.js';
import { LocalConfig } from '../../web/storage/local-config.js';
import { SafetyPipeline } from '../../web/safety/pipeline.js';
import { createBuiltinRegistry, toolSettings } from '../../web/tools/index.js';
import { AGENT_TOOLS } from '../../web/tools/agents.js';
import { memoryStorage } from '../fixtures/stand-ins.mjs';

/**
 * An agent over a fresh workspace with the built-in tools plus `extra`.
 * @param {import('../fixtures/scripted-provider.mjs').ScriptedTurn[]} turns
 * @param {{extra?: import('../../web/tools/types.d.ts').ToolDefinition[], selfRepair?: any, hooks?: HookPipeline, codex?: boolean}} [o]
 */
async function setup(turns, o = {}) {
  const fs = new MemoryFileSystem();
  const store = new ConversationStore(fs, 'ws');
  const conversation = await store.open((await store.create()).id);
  const provider = new ScriptedProvider(turns, { nativeTools: !o.codex });
  const registry = createBuiltinRegistry({ config: new LocalConfig(memoryStorage()), workspaceId: 'ws' });
  for (const t of o.extra ?? []) registry.register(t);
  for (const t of registry.list()) registry.setPolicy(t.name, 'auto');
  const tools = new ToolRunner({
    registry,
    context: {
      workspaceId: 'ws',
      fs: new ScopedFileSystem(fs, 'clawser_workspaces/ws'),
      settings: toolSettings(),
      fetch: globalThis.fetch,
    },
    hooks: o.hooks,
    safety: new SafetyPipeline(),
    approve: async () => 'once',
  });
  const codex = o.codex ? new Codex({ getSandbox: async () => fakeSandbox() }) : undefined;
  const agent = new ClawserAgent({ provider, conversation, tools, codex, hooks: o.hooks, selfRepair: o.selfRepair ?? {} });
  return { agent, conversation, provider, registry, tools };
}

/**
 * Moves Date.now and performance.now together, for as long as `fn` runs.
 * @template T @param {(advance: (ms: number) => void) => Promise<T>} fn
 */
async function withClock(fn) {
  const realDate = Date.now;
  const realPerf = performance.now;
  let offset = 0;
  Date.now = () => realDate.call(Date) + offset;
  const perfBase = realPerf.call(performance);
  performance.now = () => perfBase + offset;
  try {
    return await fn((ms) => {
      offset += ms;
    });
  } finally {
    Date.now = realDate;
    performance.now = realPerf;
  }
}

/** A tool whose call takes two minutes of the test's clock. @param {(ms: number) => void} advance @param {boolean} waitsOnOthers */
const slowTool = (advance, waitsOnOthers) =>
  /** @type {import('../../web/tools/types.d.ts').ToolDefinition} */ ({
    name: 'slow_helper',
    description: 'Waits for something.',
    permission: 'read',
    schema: z.object({}),
    ...(waitsOnOthers ? { waitsOnOthers: true } : {}),
    async run() {
      advance(120_000);
      return { ok: true, output: 'it answered' };
    },
  });

test(
  "a tool that declares waitsOnOthers: its calls' time is waiting, not the run's own (no time finding); " +
    'control: the same tool without it runs the turn over its time budget',
  async () => {
    const turns = () => [{ toolCalls: [{ id: 's1', name: 'slow_helper', arguments: {} }] }, { text: 'done' }];
    const waiting = await withClock(async (advance) => {
      const s = await setup(turns(), { extra: [slowTool(advance, true)], selfRepair: { turnSeconds: 60 } });
      await s.agent.run('ask the helper');
      return s.conversation.events.filter((e) => e.type === 'self_repair');
    });
    assert.deepEqual(waiting, [], "two minutes waiting on others is not the run's time");
    const own = await withClock(async (advance) => {
      const s = await setup(turns(), { extra: [slowTool(advance, false)], selfRepair: { turnSeconds: 60 } });
      await s.agent.run('ask the helper');
      return s.conversation.events.filter((e) => e.type === 'self_repair');
    });
    assert.deepEqual(
      own.map((e) => [e.data.action, e.data.reason]),
      [['warned', 'time']],
    );
  },
);

test('the delegation tool declares that it waits on others (the sub-agents watch their own time)', () => {
  assert.equal(AGENT_TOOLS.find((t) => t.name === 'agent_delegate')?.waitsOnOthers, true);
});

test(
  "a tool result's costCents counts in the turn's cost (the last reply's costs, the self-repair cost budget); " +
    'control: a result without it adds nothing',
  async () => {
    /** @param {number | undefined} cents */
    const spender = (cents) =>
      /** @type {import('../../web/tools/types.d.ts').ToolDefinition} */ ({
        name: 'paid_helper',
        description: "Spends on the turn's behalf.",
        permission: 'read',
        schema: z.object({}),
        async run() {
          return { ok: true, output: 'paid', ...(cents === undefined ? {} : { costCents: cents }) };
        },
      });
    const turns = () => [{ toolCalls: [{ id: 'p1', name: 'paid_helper', arguments: {} }] }, { text: 'done' }];
    const paid = await setup(turns(), { extra: [spender(7)], selfRepair: { turnCents: 5 } });
    await paid.agent.run('pay');
    const last = paid.conversation.events.findLast((e) => e.type === 'agent_message');
    assert.equal(last?.data.costs?.turnCents, 7);
    assert.deepEqual(
      paid.conversation.events.filter((e) => e.type === 'self_repair').map((e) => e.data.reason),
      ['cost'],
    );
    const free = await setup(turns(), { extra: [spender(undefined)], selfRepair: { turnCents: 5 } });
    await free.agent.run('pay');
    assert.equal(free.conversation.events.findLast((e) => e.type === 'agent_message')?.data.costs?.turnCents, 0);
    assert.deepEqual(
      free.conversation.events.filter((e) => e.type === 'self_repair'),
      [],
    );
  },
);

test(
  'afterToolCall hooks see every call the same way — a native call, a Codex block (run_js) and the tool its code calls — ' +
    "and can rewrite what the model is told; control: without a hook the output is the tool's",
  async () => {
    const hooks = new HookPipeline();
    /** @type {string[]} */
    const seen = [];
    hooks.register('afterToolCall', ({ name, ok, output }) => {
      seen.push(`${name}:${ok}`);
      return name === 'fs_list' ? { output: `${output}\n(checked by the hook)` } : undefined;
    });
    const native = await setup([{ toolCalls: [{ id: 'n1', name: 'fs_list', arguments: {} }] }, { text: 'done' }], { hooks });
    await native.agent.run('list');
    assert.deepEqual(seen, ['fs_list:true']);
    assert.match(String(native.conversation.events.find((e) => e.type === 'tool_result')?.data.result), /\(checked by the hook\)$/);
    seen.length = 0;
    const code = await setup([{ text: '```js\nprint(await fs_list({}))\n```' }, { text: 'done' }], { hooks, codex: true });
    await code.agent.run('list with code');
    assert.deepEqual(seen, ['fs_list:true', 'run_js:true'], 'the inner call, then the block');
    assert.match(String(code.conversation.events.find((e) => e.type === 'tool_result')?.data.result), /\(checked by the hook\)/);
    const plain = await setup([{ toolCalls: [{ id: 'n1', name: 'fs_list', arguments: {} }] }, { text: 'done' }]);
    await plain.agent.run('list');
    assert.doesNotMatch(String(plain.conversation.events.find((e) => e.type === 'tool_result')?.data.result), /checked by the hook/);
  },
);

test(
  'one recording for both paths: arguments a hook rewrote are on the tool_result of a native call and of a Codex block alike; ' +
    'control: unrewritten calls record none',
  async () => {
    const hooks = new HookPipeline();
    hooks.register('beforeToolCall', ({ name, args }) => {
      if (name === 'fs_list') return { args: { ...args, path: '/' } };
      return name === 'run_js' ? { args: { code: `${args.code}\nprint("hooked")` } } : undefined;
    });
    const native = await setup([{ toolCalls: [{ id: 'n1', name: 'fs_list', arguments: {} }] }, { text: 'done' }], { hooks });
    await native.agent.run('list');
    assert.deepEqual(native.conversation.events.find((e) => e.type === 'tool_result')?.data.arguments, { path: '/' });
    const code = await setup([{ text: '```js\nprint(1)\n```' }, { text: 'done' }], { hooks, codex: true });
    await code.agent.run('print');
    const result = code.conversation.events.find((e) => e.type === 'tool_result');
    assert.deepEqual(result?.data.arguments, { code: 'print(1)\nprint("hooked")' });
    assert.match(String(result?.data.result), /hooked/);
    const plain = await setup([{ text: '```js\nprint(1)\n```' }, { text: 'done' }], { codex: true });
    await plain.agent.run('print');
    assert.equal(plain.conversation.events.find((e) => e.type === 'tool_result')?.data.arguments, undefined);
  },
);

/**
 * The tool names a source writes as string literals ('name' or "name").
 * @param {string} source @param {string[]} names
 */
export function namedTools(source, names) {
  return names.filter((n) => source.includes(`'${n}'`) || source.includes(`"${n}"`) || source.includes(`\`${n}\``));
}

test("the check finds a tool named in a source (control: a source that only reads a tool's declared metadata)", () => {
  const names = ['agent_delegate', 'run_js'];
  assert.deepEqual(namedTools("if (batch.some((c) => c.name === 'agent_delegate')) stuck.addWait(ms);", names), ['agent_delegate']);
  assert.deepEqual(namedTools('if (batch.some((c) => registry.get(c.name)?.waitsOnOthers)) stuck.addWait(ms);', names), []);
});

test("agent.js names no tool: what a tool means for the run comes from the tool's declaration", () => {
  const names = [...createBuiltinRegistry().list(), ...AGENT_TOOLS].map((t) => t.name);
  assert.ok(names.includes('agent_delegate') && names.includes('run_js'), 'the tool names were found');
  const source = readFileSync(join(WEB, 'agent', 'runtime', 'agent.js'), 'utf8');
  assert.deepEqual(namedTools(source, names), []);
});
