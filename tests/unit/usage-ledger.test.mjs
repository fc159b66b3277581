import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  UsageLedger,
  summarizeLedger,
  emptyLedger,
  addTurn,
  addTool,
  pruneLedger,
  dayKey,
  LEDGER_PATH,
} from '../../web/stores/usage-ledger.js';
import { ToolRunner } from '../../web/agent/runtime/tool-runner.js';
import { ClawserAgent } from '../../web/agent/runtime/agent.js';
import { Conversation } from '../../web/agent/conversation/conversation.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { ProtectedFileSystem } from '../../web/storage/protected-fs.js';
import { createBuiltinRegistry, toolSettings } from '../../web/tools/index.js';
import { EchoProvider } from '../../web/providers/echo.js';
import { LocalLocks } from '../../web/storage/local-locks.js';

const NOON = new Date(2026, 10, 25, 12).getTime();
const DAY = 86_400_000;

test('usage ledger: daily totals per provider and model and per tool, summarised over a range with zero days', () => {
  const l = emptyLedger();
  addTurn(l, dayKey(NOON - 2 * DAY), { provider: 'openai', model: 'gpt-4o', inputTokens: 100, outputTokens: 50, costCents: 0.5 });
  addTurn(l, dayKey(NOON), { provider: 'openai', model: 'gpt-4o', inputTokens: 10, outputTokens: 5, costCents: 0.1 });
  addTurn(l, dayKey(NOON), { provider: 'anthropic', model: 'claude', inputTokens: 1000, outputTokens: 500, costCents: NaN });
  addTool(l, dayKey(NOON), { name: 'fs_read', ok: true, blocked: false, durationMs: 10 });
  addTool(l, dayKey(NOON), { name: 'fs_read', ok: false, blocked: false, durationMs: 30 });
  addTool(l, dayKey(NOON), { name: 'fs_read', ok: false, blocked: true, durationMs: 0 });
  addTool(l, dayKey(NOON - 40 * DAY), { name: 'web_fetch', ok: true, blocked: false, durationMs: 5 });
  const s = summarizeLedger(l, { now: NOON, days: 7 });
  assert.equal(s.days.length, 7);
  assert.equal(s.days[6], dayKey(NOON));
  assert.deepEqual(
    s.models.map((m) => [m.provider, m.model, m.calls]),
    [
      ['anthropic', 'claude', 1],
      ['openai', 'gpt-4o', 2],
    ],
    'most tokens first',
  );
  assert.deepEqual(s.models[1].tokensPerDay, [0, 0, 0, 0, 150, 0, 15]);
  assert.equal(s.models[0].costCents, 0, 'an unknown price counts as 0, never NaN');
  assert.equal(s.totals.tokens, 1665);
  assert.deepEqual(
    s.tools.map((t) => [t.name, t.calls, t.failures, t.blocked, t.avgMs]),
    [['fs_read', 3, 1, 1, 20]],
    'the 40-day-old call is outside the range; a refusal is not a failure nor timed',
  );
  pruneLedger(l, NOON, 30);
  assert.equal(l.days[dayKey(NOON - 40 * DAY)], undefined, 'days past the keep window go');
});

test('usage ledger: calls gathered in memory are readable at once, written once, and two ledgers (tabs) add up', async () => {
  const fs = new MemoryFileSystem();
  // Two tabs share the cross-tab lock (Web Locks in the app) and the change notices.
  const locks = new LocalLocks();
  /** @type {Set<() => void>} */
  const subscribers = new Set();
  /** @type {import('../../web/agent/types.d.ts').Coordination} */
  const coordination = {
    withLock: (k, fn) => locks.request(k, {}, fn),
    publish: () => subscribers.forEach((fn) => fn()),
    subscribe: (_t, fn) => {
      const f = () => fn(null, 'other');
      subscribers.add(f);
      return () => {
        subscribers.delete(f);
      };
    },
  };
  const a = new UsageLedger({ fs, coordination, key: 'w', now: () => NOON, delayMs: 60_000 });
  const b = new UsageLedger({ fs, coordination, key: 'w', now: () => NOON, delayMs: 60_000 });
  let changes = 0;
  a.onChange(() => changes++);
  a.recordTurn({ provider: 'echo', model: 'echo', inputTokens: 3, outputTokens: 4, costCents: 0 });
  b.recordTool({ name: 'fs_write', ok: true, blocked: false, durationMs: 7 });
  assert.equal(changes, 1, "this tab's change is announced");
  assert.equal(summarizeLedger(await a.read(), { now: NOON, days: 1 }).totals.tokens, 7, 'not written yet, still counted');
  assert.equal(await fs.stat(LEDGER_PATH), null);
  await Promise.all([a.flush(), b.flush()]);
  assert.ok(changes >= 2, "the other tab's write is announced too");
  const fresh = summarizeLedger(await new UsageLedger({ fs, now: () => NOON }).read(), { now: NOON, days: 1 });
  assert.equal(fresh.totals.tokens, 7);
  assert.deepEqual(
    fresh.tools.map((t) => [t.name, t.calls]),
    [['fs_write', 1]],
  );
  await a.flush();
  assert.equal(summarizeLedger(await a.read(), { now: NOON, days: 1 }).totals.calls, 1, 'a second flush adds nothing twice');
});

test('usage ledger: a damaged file is kept aside and counting goes on; a failed write keeps the counts for the next one', async () => {
  const fs = new MemoryFileSystem();
  await fs.write(LEDGER_PATH, '{"version":1,"days":{"not a day":');
  const l = new UsageLedger({ fs, now: () => NOON, delayMs: 60_000 });
  l.recordTurn({ provider: 'p', model: 'm', inputTokens: 1, outputTokens: 1, costCents: 1 });
  await l.flush();
  assert.equal(summarizeLedger(await l.read(), { now: NOON, days: 1 }).totals.tokens, 2);
  const aside = (await fs.list('.usage')).map((e) => e.name).filter((n) => n.startsWith('ledger.damaged-'));
  assert.equal(aside.length, 1);
  assert.match(await fs.readText(`.usage/${aside[0]}`), /not a day/, 'the damaged text is kept');
  // A write that fails (quota): the counts stay and go with the next write.
  const write = fs.write.bind(fs);
  let failOnce = true;
  fs.write = async (/** @type {string} */ p, /** @type {string | Uint8Array} */ d) => {
    if (failOnce) {
      failOnce = false;
      throw Object.assign(new Error('quota'), { code: 'quota' });
    }
    return write(p, d);
  };
  l.recordTurn({ provider: 'p', model: 'm', inputTokens: 10, outputTokens: 0, costCents: 0 });
  await assert.rejects(l.flush(), /quota/);
  assert.equal(summarizeLedger(await l.read(), { now: NOON, days: 1 }).totals.tokens, 12, 'kept in memory');
  await l.flush();
  assert.equal(
    summarizeLedger(await new UsageLedger({ fs, now: () => NOON }).read(), { now: NOON, days: 1 }).totals.tokens,
    12,
    'written the next time',
  );
});

test('usage ledger: the ToolRunner counts every call however it ends, the agent counts each provider call; \
tools cannot write .usage/', async () => {
  const fs = new MemoryFileSystem();
  const ledger = new UsageLedger({ fs, now: () => NOON, delayMs: 60_000 });
  const registry = createBuiltinRegistry();
  // any: a minimal tool context (the tools used here read fs, settings and the workspace id only)
  const runner = new ToolRunner({
    registry,
    context: /** @type {any} */ ({ fs: new ProtectedFileSystem(fs), workspaceId: 'w', settings: toolSettings() }),
    ledger,
    approve: async () => 'once',
  });
  await runner.run({ id: '1', name: 'fs_list', arguments: { path: '' } });
  await runner.run({ id: '2', name: 'fs_read', arguments: { path: 'missing.txt' } });
  await runner.run({ id: '3', name: 'no_such_tool', arguments: {} });
  // Control: an approved write outside Clawser's folders succeeds; the same write into .usage/ fails in storage.
  const ok = await runner.run({ id: '4', name: 'fs_write', arguments: { path: 'notes/ok.txt', content: 'fine' } });
  assert.equal(ok.ok, true, ok.output);
  const w = await runner.run({ id: '5', name: 'fs_write', arguments: { path: '.usage/ledger.json', content: '{}' } });
  assert.equal(w.ok, false);
  assert.equal(w.blocked, undefined, `refused by the protected file system, not by a gate: ${w.output}`);
  assert.match(w.output, /Clawser's own folders/);
  const tools = summarizeLedger(await ledger.read(), { now: NOON, days: 1 }).tools;
  assert.deepEqual(Object.fromEntries(tools.map((t) => [t.name, [t.calls, t.failures, t.blocked]])), {
    fs_list: [1, 0, 0],
    fs_read: [1, 1, 0],
    '(unknown tool)': [1, 0, 1],
    fs_write: [2, 1, 0],
  });
  const conversation = await Conversation.open(fs, '.conversations/c1', { id: 'c1', title: 'T', createdAt: NOON, updatedAt: NOON });
  const agent = new ClawserAgent({ provider: new EchoProvider(), conversation, ledger });
  await agent.run('hello there');
  const models = summarizeLedger(await ledger.read(), { now: NOON, days: 1 }).models;
  assert.equal(models.length, 1);
  assert.equal(models[0].provider, 'echo');
  assert.equal(models[0].calls, 1);
  assert.ok(models[0].inputTokens + models[0].outputTokens > 0);
  // A provider that reports no token counts (Chrome AI) still counts as a call.
  const quiet = {
    id: 'chrome-ai',
    model: 'gemini-nano',
    supportsNativeTools: false,
    supportsVision: false,
    async *chatStream() {
      yield { type: 'text', text: 'hi' };
      yield { type: 'finish', stopReason: 'end_turn' };
    },
    async chat() {
      return { content: 'x', toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 }, model: 'gemini-nano', stopReason: 'end_turn' };
    },
  };
  const conv2 = await Conversation.open(fs, '.conversations/c2', { id: 'c2', title: 'T', createdAt: NOON, updatedAt: NOON });
  // any: a hand-made provider with the methods the agent calls
  await new ClawserAgent({ provider: /** @type {any} */ (quiet), conversation: conv2, ledger }).run('hello');
  const nano = summarizeLedger(await ledger.read(), { now: NOON, days: 1 }).models.find((m) => m.provider === 'chrome-ai');
  assert.equal(nano?.calls, 1);
});

test('calls being written are counted by a read meanwhile, and this tab is told when the write is done', async () => {
  /** @type {() => void} */
  let release = () => {};
  const gate = new Promise((r) => {
    release = () => r(undefined);
  });
  /** @type {() => void} */
  let started = () => {};
  const writeStarted = new Promise((r) => {
    started = () => r(undefined);
  });
  // A slow disk: the ledger's write waits until the test lets it go.
  class SlowFs extends MemoryFileSystem {
    /** @override @param {string} path @param {string | Uint8Array} data */
    async write(path, data) {
      started();
      await gate;
      return super.write(path, data);
    }
  }
  const fs = new SlowFs();
  const ledger = new UsageLedger({ fs, key: 'w', now: () => Date.parse('2026-11-26T12:00:00'), delayMs: 60_000 });
  let told = 0;
  ledger.onChange(() => {
    told++;
  });
  ledger.recordTurn({ provider: 'p', model: 'm', inputTokens: 10, outputTokens: 5, costCents: 1 });
  const writing = ledger.flush();
  await writeStarted; // the call is on its way to the disk
  const during = await ledger.read();
  assert.equal(Object.values(Object.values(during.days)[0]?.models ?? {})[0]?.calls, 1, 'the call being written is counted');
  const before = told;
  release();
  await writing;
  assert.equal(told, before + 1, 'readers in this tab are told the write is done');
  const after = await ledger.read();
  assert.equal(Object.values(Object.values(after.days)[0]?.models ?? {})[0]?.calls, 1, 'counted once');
});
