import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StuckDetector, SelfRepairSchema } from '../../web/agent/runtime/self-repair.js';
import { ScriptedProvider } from '../fixtures/scripted-provider.mjs';
import { ClawserAgent } from '../../web/agent/runtime/agent.js';
import { ConversationStore } from '../../web/agent/conversation/conversation-store.js';
import { ToolRunner } from '../../web/agent/runtime/tool-runner.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { ScopedFileSystem } from '../../web/storage/scoped-fs.js';
import { LocalConfig } from '../../web/storage/local-config.js';
import { createBuiltinRegistry, toolSettings } from '../../web/tools/index.js';
import { memoryStorage } from '../fixtures/stand-ins.mjs';
import { loose } from '../fixtures/loose-events.mjs';

/**
 * One iteration: the calls, each with its result, then the check.
 * @param {StuckDetector} d
 * @param {[string, object, boolean, string][]} calls
 */
function step(d, calls, state = {}) {
  for (const [name, args, ok, out] of calls) d.toolResult(name, args, ok, out);
  return d.check(state);
}

test('repeat: the same call with the same arguments (in any key order) and the same result warns at the limit, then stops', () => {
  const d = new StuckDetector({ repeatLimit: 3 });
  assert.equal(step(d, [['fs_read', { path: 'a', max: 1 }, true, 'A']]), null);
  assert.equal(step(d, [['fs_read', { max: 1, path: 'a' }, true, 'A']]), null);
  const warn = step(d, [['fs_read', { path: 'a', max: 1 }, true, 'A']]);
  assert.equal(warn?.action, 'warn');
  assert.equal(warn?.finding.kind, 'repeat');
  assert.match(String(warn?.note), /fs_read.*same arguments 3 times/);
  const stop = step(d, [['fs_read', { path: 'a', max: 1 }, true, 'A']]);
  assert.equal(stop?.action, 'stop');
});

test('repeat, negative: different arguments, a result that changes (fix, then test again), or a change of course after the warning, \
go on', () => {
  const d = new StuckDetector({ repeatLimit: 3 });
  for (let i = 0; i < 6; i++) assert.equal(step(d, [['fs_read', { path: `file${i}` }, true, `content ${i}`]]), null);
  const fixing = new StuckDetector({ repeatLimit: 3 });
  for (let failures = 4; failures >= 1; failures--) {
    assert.equal(step(fixing, [['fs_edit', { path: 'a.js', n: failures }, true, 'edited']]), null);
    assert.equal(
      step(fixing, [['shell', { command: 'npm test' }, false, `${failures} failing`]]),
      null,
      'the test run gives a new result each time',
    );
  }
  const e = new StuckDetector({ repeatLimit: 3 });
  step(e, [['web_fetch', { url: 'u' }, true, 'x']]);
  step(e, [['web_fetch', { url: 'u' }, true, 'x']]);
  assert.equal(step(e, [['web_fetch', { url: 'u' }, true, 'x']])?.action, 'warn');
  assert.equal(step(e, [['fs_write', { path: 'n', content: 'new' }, true, 'Wrote n']]), null, 'a new step clears the warning');
  assert.equal(step(e, [['fs_list', { path: '/' }, true, 'n']]), null);
});

test('error storm: N failures in a row warn, one more stops; a success resets the streak', () => {
  const d = new StuckDetector({ errorLimit: 3 });
  assert.equal(
    step(d, [
      ['a', { i: 1 }, false, 'e1'],
      ['a', { i: 2 }, false, 'e2'],
    ]),
    null,
  );
  assert.equal(step(d, [['a', { i: 3 }, false, 'e3']])?.finding.kind, 'errors');
  assert.equal(step(d, [['a', { i: 4 }, false, 'e4']])?.action, 'stop');
  const ok = new StuckDetector({ errorLimit: 3 });
  step(ok, [
    ['a', { i: 1 }, false, 'e1'],
    ['a', { i: 2 }, false, 'e2'],
  ]);
  assert.equal(step(ok, [['a', { i: 3 }, true, 'fine']]), null);
  assert.equal(
    step(ok, [
      ['a', { i: 4 }, false, 'e4'],
      ['a', { i: 5 }, false, 'e5'],
    ]),
    null,
  );
});

test('no new information: steps that only repeat calls that gave the same results before; silent commands that differ are progress', () => {
  const d = new StuckDetector({ staleIterations: 2, repeatLimit: 50 });
  assert.equal(step(d, [['search', { q: 'a' }, true, 'nothing found']]), null);
  assert.equal(step(d, [['search', { q: 'a' }, true, 'nothing found']]), null, 'one stale step');
  const warn = step(d, [['search', { q: 'a' }, true, 'nothing found']]);
  assert.equal(warn?.finding.kind, 'stale');
  assert.equal(step(d, [['search', { q: 'a' }, true, 'nothing found']])?.action, 'stop');
  const shell = new StuckDetector({ staleIterations: 2 });
  for (const command of ['mkdir out', 'mv a out/', 'sed -i s/x/y/ out/a', 'touch done', 'rm tmp']) {
    assert.equal(step(shell, [['shell', { command }, true, 'exit code: 0\nstdout: (empty)']]), null, command);
  }
});

test('runaway output, time and cost budgets; disabled finds nothing', () => {
  const out = new StuckDetector({ maxOutputChars: 1000 });
  out.reply('x'.repeat(600));
  assert.equal(step(out, [['t', { i: 1 }, true, '1']]), null);
  out.reply('x'.repeat(600));
  assert.equal(step(out, [['t', { i: 2 }, true, '2']])?.finding.kind, 'output');
  let now = 0;
  const time = new StuckDetector({ turnSeconds: 60 }, { now: () => now });
  now = 30_000;
  assert.equal(step(time, [['t', { i: 1 }, true, '1']]), null);
  now = 61_000;
  assert.equal(step(time, [['t', { i: 2 }, true, '2']])?.finding.kind, 'time');
  assert.equal(step(time, [['t', { i: 3 }, true, '3']])?.action, 'stop', 'one step to wrap up, then stopped');
  // Time spent waiting for the user's approval (or a sub-agent) is not the run's.
  now = 0;
  const waiting = new StuckDetector({ turnSeconds: 60 }, { now: () => now });
  now = 100_000;
  waiting.toolResult('fs_write', { path: 'a' }, true, 'ok', 90_000);
  assert.equal(waiting.check(), null, '100 s passed, 90 s of them in the approval dialog');
  const cost = new StuckDetector({ turnCents: 10 });
  assert.equal(step(cost, [['t', { i: 1 }, true, '1']], { costCents: 9 }), null);
  assert.equal(step(cost, [['t', { i: 2 }, true, '2']], { costCents: 11 })?.finding.kind, 'cost');
  const off = new StuckDetector({ enabled: false, repeatLimit: 2 });
  for (let i = 0; i < 5; i++) assert.equal(step(off, [['same', {}, false, 'err']]), null);
  assert.equal(new StuckDetector({ turnSeconds: 0 }, { now: () => now }).check(), null, '0: no time budget');
  assert.equal(SelfRepairSchema.safeParse({ repeatLimit: 1 }).success, false);
});

async function agentWith(/** @type {any[]} */ turns, selfRepair = {}) {
  const fs = new MemoryFileSystem();
  const store = new ConversationStore(fs, 'ws');
  const conversation = await store.open((await store.create()).id);
  const provider = new ScriptedProvider(turns);
  const registry = createBuiltinRegistry({ config: new LocalConfig(memoryStorage()), workspaceId: 'ws' });
  const tools = new ToolRunner({
    registry,
    context: {
      workspaceId: 'ws',
      fs: new ScopedFileSystem(fs, 'clawser_workspaces/ws'),
      settings: toolSettings(),
      fetch: globalThis.fetch,
    },
    approve: async () => 'once',
  });
  const agent = new ClawserAgent({ provider, conversation, tools, selfRepair, maxIterations: 20 });
  return { agent, conversation, provider };
}

test('agent: a looping model is told (a note in its system prompt), then stopped with a self_repair event', async () => {
  const loop = (/** @type {number} */ i) => ({ toolCalls: [{ id: `c${i}`, name: 'fs_list', arguments: { path: '/' } }] });
  const { agent, conversation, provider } = await agentWith([loop(1), loop(2), loop(3), loop(4), loop(5), loop(6)], { repeatLimit: 3 });
  const { error } = await agent.run('list my files');
  assert.match(String(error?.message), /looked stuck.*fs_list.*Continue anyway/s);
  const repairs = conversation.events.filter((e) => e.type === 'self_repair');
  assert.deepEqual(
    repairs.map((e) => e.data.action),
    ['warned', 'stopped'],
  );
  assert.equal(repairs[0].data.reason, 'repeat');
  assert.equal(provider.requests.length, 4, 'three calls, the warning, one more call, then stopped');
  assert.doesNotMatch(String(provider.requests[2].system), /looks stuck/);
  assert.match(String(provider.requests[3].system), /Note from Clawser.*looks stuck.*fs_list/s);
  assert.equal(conversation.events.at(-1)?.type, 'self_repair');
  // Continue anyway: the run is watched afresh and the model may finish.
  provider.turns = [{ text: 'Here are your files.' }];
  const more = [];
  for await (const e of agent.respond()) more.push(e);
  assert.equal(loose(conversation.events).at(-1)?.data.text, 'Here are your files.');
});

test('agent, control: the same model that changes course after the note finishes normally', async () => {
  const loop = (/** @type {number} */ i) => ({ toolCalls: [{ id: `c${i}`, name: 'fs_list', arguments: { path: '/' } }] });
  const { agent, conversation } = await agentWith([loop(1), loop(2), loop(3), { text: 'Nothing there yet.' }], { repeatLimit: 3 });
  const { text, error } = await agent.run('list my files');
  assert.equal(error, null);
  assert.equal(text, 'Nothing there yet.');
  assert.deepEqual(
    conversation.events.filter((e) => e.type === 'self_repair').map((e) => e.data.action),
    ['warned'],
  );
  const off = await agentWith([loop(1), loop(2), loop(3), loop(4), loop(5), { text: 'done' }], { enabled: false });
  assert.equal((await off.agent.run('list')).text, 'done', 'without self-repair the loop runs on');
  assert.equal(off.conversation.events.filter((e) => e.type === 'self_repair').length, 0);
});

test('agent: a reply that runs away (endless text, no tools) is cut at the output limit, kept as stopped, with a self_repair event; \
the control under the limit ends normally', async () => {
  const long = 'spam '.repeat(600); // 3,000 characters
  const { agent, conversation } = await agentWith([{ text: long }], { maxOutputChars: 1000 });
  const { error } = await agent.run('write forever');
  assert.match(String(error?.message), /ran away — it passed 1,000 characters/);
  const reply = conversation.events.find((e) => e.type === 'agent_message');
  assert.equal(reply?.data.stopped, true);
  assert.ok(String(reply?.data.text).length < long.length, 'the rest was not taken');
  assert.deepEqual(
    conversation.events.filter((e) => e.type === 'self_repair').map((e) => [e.data.action, e.data.reason]),
    [['stopped', 'output']],
  );
  const fine = await agentWith([{ text: long }], { maxOutputChars: 10_000 });
  assert.equal((await fine.agent.run('write a bit')).text, long);
});

test('a change resets the repeat count: fix, then the same test run with the same output, is not a loop', () => {
  const d = new StuckDetector({ repeatLimit: 3, errorLimit: 50 });
  assert.equal(step(d, [['shell', { command: 'npm test' }, false, '1 failing']]), null);
  assert.equal(step(d, [['shell', { command: 'npm test' }, false, '1 failing']]), null);
  d.madeChange();
  assert.equal(step(d, [['shell', { command: 'npm test' }, false, '1 failing']]), null, 'after a change, the same run counts afresh');
  assert.equal(step(d, [['shell', { command: 'npm test' }, false, '1 failing']]), null);
  assert.equal(
    step(d, [['shell', { command: 'npm test' }, false, '1 failing']])?.finding.kind,
    'repeat',
    'control: without a change in between, the third identical run is a repeat',
  );
});
