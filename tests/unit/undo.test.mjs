import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ScriptedProvider } from '../fixtures/scripted-provider.mjs';
import { ClawserAgent } from '../../web/agent/runtime/agent.js';
import { ConversationStore } from '../../web/agent/conversation/conversation-store.js';
import { ToolRunner } from '../../web/agent/runtime/tool-runner.js';
import { GoalStore } from '../../web/stores/goals.js';
import { Scheduler } from '../../web/stores/scheduler.js';
import { MemoryStore } from '../../web/memory/store.js';
import { UndoStore, planUndo, applyUndo, describeChanges } from '../../web/agent/runtime/undo.js';
import { recordingContext, undoDomains } from '../../web/app/turn-undo.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { ScopedFileSystem } from '../../web/storage/scoped-fs.js';
import { ProtectedFileSystem } from '../../web/storage/protected-fs.js';
import { LocalConfig } from '../../web/storage/local-config.js';
import { createBuiltinRegistry, toolSettings } from '../../web/tools/index.js';
import { memoryStorage } from '../fixtures/stand-ins.mjs';
import { loose } from '../fixtures/loose-events.mjs';

/** A workspace with real stores, and a turn runner that records what its tools change. */
async function workspace() {
  const root = new MemoryFileSystem();
  const ws = new ScopedFileSystem(root, 'clawser_workspaces/ws');
  const stores = {
    fs: new ProtectedFileSystem(ws),
    memory: new MemoryStore({ fs: ws }),
    goals: new GoalStore({ fs: ws }),
    scheduler: new Scheduler({ fs: ws, timezone: 'UTC', execute: async () => ({ ok: true, summary: '' }) }),
  };
  const conversations = new ConversationStore(root, 'ws');
  const conversation = await conversations.open((await conversations.create()).id);
  const registry = createBuiltinRegistry({ config: new LocalConfig(memoryStorage()), workspaceId: 'ws' });
  /** @param {any[]} turns */
  const turn = async (turns, text = 'do it') => {
    const rec = recordingContext(stores);
    const tools = new ToolRunner({
      registry,
      context: {
        workspaceId: 'ws',
        fs: rec.fs,
        memory: rec.memory,
        goals: rec.goals,
        scheduler: rec.scheduler,
        settings: toolSettings(),
        fetch: globalThis.fetch,
        conversationId: conversation.id,
      },
      approve: async () => 'once',
    });
    tools.recorder = rec.recorder;
    const head = conversation.head;
    const agent = new ClawserAgent({ provider: /** @type {any} */ (new ScriptedProvider(turns)), conversation, tools });
    await agent.run(text);
    const events = conversation.events;
    const start = head === null ? 0 : events.findIndex((e) => e.id === head) + 1;
    const own = events.slice(start);
    const changes = await rec.recorder.finish();
    return {
      version: /** @type {const} */ (1),
      id: own[0].id,
      conversationId: conversation.id,
      head,
      last: /** @type {any} */ (own.at(-1)).id,
      at: Date.now(),
      state: /** @type {const} */ ('done'),
      messages: 2,
      changes,
    };
  };
  return {
    root,
    ws,
    stores,
    conversation,
    conversations,
    turn,
    domains: undoDomains(stores),
    undo: new UndoStore(root, conversations.dirOf(conversation.id), { keep: 3 }),
  };
}

const writeTwoFilesMemoryGoalJob = [
  {
    toolCalls: [
      { id: 'a', name: 'fs_write', arguments: { path: 'notes/a.md', content: 'A new' } },
      { id: 'b', name: 'fs_write', arguments: { path: 'b.md', content: 'B changed' } },
      { id: 'm', name: 'memory_store', arguments: { key: 'Colour', content: 'blue', category: 'user' } },
      { id: 'g', name: 'goal_add', arguments: { description: 'Ship the report' } },
      { id: 'j', name: 'schedule_add', arguments: { when: 'every day at 9:00', name: 'Daily digest', prompt: 'Summarize' } },
    ],
  },
  { text: 'Done.' },
];

test('a turn records files, a memory, a goal and a job; undo puts every one back, redo re-applies them', async () => {
  const w = await workspace();
  await w.ws.write('b.md', 'B before');
  await w.stores.memory.store({ key: 'colour', content: 'red', category: 'user' });
  const record = await w.turn(writeTwoFilesMemoryGoalJob);
  assert.deepEqual(
    record.changes.map((c) => `${c.kind}:${c.key}`).sort(),
    [
      'file:b.md',
      'file:notes/a.md',
      'goal:' + record.changes.find((c) => c.kind === 'goal')?.key,
      'job:' + record.changes.find((c) => c.kind === 'job')?.key,
      'memory:colour',
    ].sort(),
  );
  assert.equal(describeChanges(record), '2 files, 1 memory, 1 goal, 1 scheduled job');
  const undo = await planUndo(record, w.domains, 'undo');
  assert.equal(undo.conflicts.length, 0);
  assert.deepEqual(await applyUndo(undo, w.domains), []);
  assert.equal(await w.ws.stat('notes/a.md'), null, 'a created file is removed');
  assert.equal(await w.ws.readText('b.md'), 'B before', 'a changed file gets its old content');
  assert.equal((await w.stores.memory.list()).find((m) => m.key.toLowerCase() === 'colour')?.content, 'red');
  assert.deepEqual(await w.stores.goals.list(), []);
  assert.deepEqual(await w.stores.scheduler.list(), []);
  const redo = await planUndo(record, w.domains, 'redo');
  assert.equal(redo.conflicts.length, 0);
  await applyUndo(redo, w.domains);
  assert.equal(await w.ws.readText('notes/a.md'), 'A new');
  assert.equal(await w.ws.readText('b.md'), 'B changed');
  assert.equal((await w.stores.memory.list()).find((m) => m.key === 'Colour')?.content, 'blue');
  assert.equal((await w.stores.goals.list())[0]?.description, 'Ship the report');
  assert.equal((await w.stores.scheduler.list())[0]?.name, 'Daily digest');
});

test('undo of a delete and a forget; an undo that changed nothing else is a no-op on things already back', async () => {
  const w = await workspace();
  await w.ws.write('keep.txt', 'precious');
  await w.stores.memory.store({ key: 'pin', content: 'remember me', category: 'user', pinned: true });
  const record = await w.turn([
    {
      toolCalls: [
        { id: 'd', name: 'fs_delete', arguments: { path: 'keep.txt' } },
        { id: 'f', name: 'memory_forget', arguments: { key: 'pin' } },
      ],
    },
    { text: 'gone' },
  ]);
  assert.equal(await w.ws.stat('keep.txt'), null);
  await applyUndo(await planUndo(record, w.domains, 'undo'), w.domains);
  assert.equal(await w.ws.readText('keep.txt'), 'precious');
  const back = (await w.stores.memory.list()).find((m) => m.key === 'pin');
  assert.equal(back?.content, 'remember me');
  assert.equal(back?.pinned, true);
  assert.deepEqual((await planUndo(record, w.domains, 'undo')).apply, [], 'nothing left to do');
});

test('conflict: a file or goal changed by someone else since is never overwritten silently; everything else is undone', async () => {
  const w = await workspace();
  const record = await w.turn(writeTwoFilesMemoryGoalJob);
  await w.ws.write('notes/a.md', 'the user edited this');
  const goalId = String(record.changes.find((c) => c.kind === 'goal')?.key);
  await w.stores.goals.update(goalId, { progress: 'another tab noted progress' });
  const plan = await planUndo(record, w.domains, 'undo');
  assert.deepEqual(plan.conflicts.map((c) => c.what).sort(), [`the file notes/a.md`, `the goal ${goalId}`].sort());
  // "Keep their changes": everything else is undone, the conflicts stay as they are.
  await applyUndo(plan, w.domains);
  assert.equal(await w.ws.readText('notes/a.md'), 'the user edited this');
  assert.equal((await w.stores.goals.get(goalId))?.progress.at(-1)?.note, 'another tab noted progress');
  assert.equal(await w.ws.stat('b.md'), null, 'the unconflicted file is undone');
  // "Overwrite them": the conflicts are put back too.
  await applyUndo(await planUndo(record, w.domains, 'undo'), w.domains, { overwrite: true });
  assert.equal(await w.ws.stat('notes/a.md'), null);
  assert.equal(await w.stores.goals.get(goalId), null);
  // A job's run bookkeeping (it ran since) is not a conflict; its name changed by the user is.
  const w2 = await workspace();
  const r2 = await w2.turn(writeTwoFilesMemoryGoalJob);
  const jobId = String(r2.changes.find((c) => c.kind === 'job')?.key);
  await w2.stores.scheduler.update(jobId, { name: 'Renamed by the user' });
  assert.deepEqual(
    (await planUndo(r2, w2.domains, 'undo')).conflicts.map((c) => c.what),
    [`the scheduled job ${jobId}`],
  );
});

test('the recorder notes a file once, before its first change, also under parallel calls; internal folders stay out of reach', async () => {
  const w = await workspace();
  await w.ws.write('x.txt', 'v0');
  const rec = recordingContext(w.stores);
  await Promise.all([rec.fs.write('x.txt', 'v1'), rec.fs.write('x.txt', 'v2')]);
  await rec.fs.write('x.txt', 'v3');
  const [change] = await rec.recorder.finish();
  assert.equal(atob(String(change.before)), 'v0');
  assert.equal(atob(String(change.after)), 'v3');
  await assert.rejects(rec.fs.write('.scheduler/jobs.json', '{}'), /Clawser's own folders/);
});

test('undo store: newest records kept (3 here), a new turn drops the redo of undone ones, damaged files skipped', async () => {
  const w = await workspace();
  const make = (/** @type {number} */ i) => ({
    version: /** @type {const} */ (1),
    id: `t${i}`,
    conversationId: 'c',
    head: null,
    last: `e${i}`,
    at: i,
    state: /** @type {const} */ ('done'),
    messages: 2,
    changes: [],
  });
  for (let i = 1; i <= 5; i++) await w.undo.add(make(i));
  assert.deepEqual(
    (await w.undo.list()).map((r) => r.id),
    ['t3', 't4', 't5'],
  );
  await w.undo.save({ ...make(5), state: 'undone', undoneAt: 10 });
  assert.equal((await w.undo.undoable('e4'))?.id, 't4', 'the turn that ends where the conversation ends');
  assert.equal(await w.undo.undoable('e5'), null, 't5 is undone');
  assert.equal((await w.undo.redoable(null))?.id, 't5', 'the undone turn that starts where the conversation ends');
  await w.undo.add(make(6));
  assert.equal(await w.undo.redoable(null), null, 'redo is gone once a new turn ran');
  await w.root.write(`${w.undo.dir}/broken.json`, '{not json');
  assert.deepEqual(
    (await w.undo.list()).map((r) => r.id),
    ['t3', 't4', 't6'],
  );
});

test("ChatController: undo goes back turn by turn, redo comes forward again; an edited message's turn is undoable; \
a memory keeps who wrote it", async () => {
  const { ChatController } = await import('../../web/app/chat-controller.js');
  const root = new MemoryFileSystem();
  const ws = new ScopedFileSystem(root, 'clawser_workspaces/w');
  const stores = {
    fs: new ProtectedFileSystem(ws),
    memory: new MemoryStore({ fs: ws }),
    goals: new GoalStore({ fs: ws }),
    scheduler: new Scheduler({ fs: ws, timezone: 'UTC', execute: async () => ({ ok: true, summary: '' }) }),
  };
  const registry = createBuiltinRegistry({ config: new LocalConfig(memoryStorage()), workspaceId: 'w' });
  /** @type {any[]} */
  let script = [];
  // any: only providerConfig is used
  const settings = /** @type {any} */ ({ providerConfig: async () => ({ provider: 'echo', model: 'echo' }) });
  const chat = new ChatController({
    fs: root,
    workspaceId: 'w',
    settings,
    providerFactory: () => /** @type {any} */ (new ScriptedProvider(script.splice(0))),
    buildAgent: (provider, conversation) => {
      const rec = recordingContext(stores);
      const tools = new ToolRunner({
        registry,
        context: {
          workspaceId: 'w',
          fs: rec.fs,
          memory: rec.memory,
          goals: rec.goals,
          scheduler: rec.scheduler,
          settings: toolSettings(),
          fetch: globalThis.fetch,
          conversationId: conversation.id,
        },
        approve: async () => 'once',
      });
      tools.recorder = rec.recorder;
      return new ClawserAgent({ provider, conversation, tools });
    },
    undoDomains: async () => undoDomains(stores),
  });
  await chat.init();
  await chat.newConversation();
  // Read through a function: the state changes under assertions that would narrow it.
  const undoState = () => chat.state.undo;
  const write = (/** @type {string} */ path, /** @type {string} */ content) => [
    { toolCalls: [{ id: `w-${path}-${content}`, name: 'fs_write', arguments: { path, content } }] },
    { text: `wrote ${path}` },
  ];
  script = write('one.txt', '1');
  await chat.send('first');
  script = [
    { toolCalls: [{ id: 'm', name: 'memory_store', arguments: { key: 'sea', content: 'Baltic', category: 'user' } }] },
    { text: 'remembered' },
  ];
  await chat.send('second');
  const stored = (await stores.memory.list())[0];
  assert.equal(stored.source, 'agent');
  assert.equal(chat.state.undo?.summary, '1 memory');

  assert.equal((await chat.undoTurn()).ok, true);
  assert.equal(chat.state.notice, null, "a done undo is said by its line in the transcript, not again in the chat's notice");
  assert.deepEqual(await stores.memory.list(), []);
  assert.equal(chat.state.undo?.summary, '1 file', 'the turn before is next');
  assert.equal((await chat.undoTurn()).ok, true);
  assert.equal(await ws.stat('one.txt'), null);
  assert.equal(chat.state.undo, null);
  assert.match((await chat.undoTurn()).message, /no turn to undo/);
  assert.match(String(chat.state.notice), /no turn to undo/, 'control: a refusal is said in the notice');
  assert.deepEqual(
    chat.state.events.map((e) => e.type),
    ['turn_undone'],
    'both turns left the transcript; the log keeps them',
  );

  assert.equal((await chat.redoTurn()).ok, true);
  assert.equal(chat.state.notice, null, 'a done redo too');
  assert.equal(await ws.readText('one.txt'), '1');
  assert.equal((await chat.redoTurn()).ok, true, 'the second turn comes back after the first');
  const back = (await stores.memory.list())[0];
  assert.deepEqual(
    [back.key, back.content, back.source, back.id],
    ['sea', 'Baltic', 'agent', stored.id],
    'exactly as it was, its author included',
  );
  assert.match((await chat.redoTurn()).message, /nothing to redo/);
  assert.deepEqual(
    loose(chat.state.events)
      .filter((e) => e.type === 'agent_message' && e.data.text)
      .map((e) => e.data.text),
    ['wrote one.txt', 'remembered'],
  );
  // After redoing both, undo still goes back turn by turn.
  assert.equal((await chat.undoTurn()).ok, true);
  assert.equal((await chat.undoTurn()).ok, true);
  assert.equal(await ws.stat('one.txt'), null);
  assert.deepEqual(await stores.memory.list(), []);
  assert.equal((await chat.redoTurn()).ok, true);
  assert.equal((await chat.redoTurn()).ok, true);
  assert.equal((await stores.memory.list())[0]?.key, 'sea');

  // An edited message starts a new version: its turn is recorded and undoable too.
  const firstMessage = chat.state.events.find((e) => e.type === 'user_message');
  script = write('edited.txt', 'E');
  await chat.edit(String(firstMessage?.id), 'first, edited');
  assert.equal(await ws.readText('edited.txt'), 'E');
  assert.equal(undoState()?.summary, '1 file');
  assert.equal((await chat.undoTurn()).ok, true);
  assert.equal(await ws.stat('edited.txt'), null);
  // Undoing the edit shows the version from before it again, and undo goes on from there.
  assert.deepEqual(
    loose(chat.state.events)
      .filter((e) => e.type === 'agent_message' && e.data.text)
      .map((e) => e.data.text),
    ['wrote one.txt', 'remembered'],
  );
  assert.equal(undoState()?.summary, '1 memory');
  assert.equal((await chat.undoTurn()).ok, true);
  assert.deepEqual(await stores.memory.list(), []);
  // Redo comes forward the same way: the memory turn, then the edit.
  assert.equal((await chat.redoTurn()).ok, true);
  assert.equal((await chat.redoTurn()).ok, true);
  assert.equal(await ws.readText('edited.txt'), 'E');
  assert.deepEqual(
    loose(chat.state.events)
      .filter((e) => e.type === 'agent_message' && e.data.text)
      .map((e) => e.data.text),
    ['wrote edited.txt'],
  );
});

test('copies are kept within a budget: a file past it is reported as too large to put back, the others are undone', async () => {
  const { fileDomain } = await import('../../web/agent/runtime/undo.js');
  const root = new MemoryFileSystem();
  await root.write('small.txt', 'small before');
  await root.write('big.bin', new Uint8Array(3000));
  const domain = fileDomain(root, { budgetBytes: 1000 });
  const { TurnRecorder: Recorder, RecordingFileSystem: Recording } = await import('../../web/agent/runtime/undo.js');
  const rec = new Recorder({ file: domain });
  const fs = new Recording(root, rec);
  await fs.write('small.txt', 'small after');
  await fs.write('big.bin', new Uint8Array(10));
  const changes = await rec.finish();
  const record = {
    version: /** @type {const} */ (1),
    id: 't',
    conversationId: 'c',
    head: null,
    last: 'e',
    at: 0,
    state: /** @type {const} */ ('done'),
    messages: 1,
    changes,
  };
  const plan = await planUndo(record, { file: fileDomain(root) }, 'undo');
  assert.deepEqual(
    plan.conflicts.map((c) => c.what),
    ['the file big.bin (too large to keep a copy of: left as it is)'],
  );
  await applyUndo(plan, { file: fileDomain(root) });
  assert.equal(await root.readText('small.txt'), 'small before');
  assert.equal((await root.readBytes('big.bin')).length, 10, 'left as it is');
  assert.match((await applyUndo(plan, { file: fileDomain(root) }, { overwrite: true })).join(), /no copy was kept/);
});
