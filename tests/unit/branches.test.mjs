// Branches of a conversation (issue 13): edit and resend, regenerate, switch ‹ 1/2 ›, all kept
// in the append-only event log, surviving a reopen and an export/import.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BranchTree, activePath } from '../../web/agent/conversation/branches.js';
import { Conversation, SNAPSHOT_EVERY, DISPLAY_TAIL_BYTES } from '../../web/agent/conversation/conversation.js';
import { ConversationStore } from '../../web/agent/conversation/conversation-store.js';
import { ClawserAgent } from '../../web/agent/runtime/agent.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { EchoProvider } from '../../web/providers/echo.js';
import { toJsonl, parseImport } from '../../web/agent/conversation/conversation-export.js';
import { loose } from '../fixtures/loose-events.mjs';

/** @param {string} id @param {string} type @param {Record<string, unknown>} [data] */
const ev = (id, type, data = {}) => /** @type {any} */ ({ id, type, data, source: 'system', timestamp: 1 }); // test events

test('the tree: a branch event moves the head; the path follows parents; siblings and the latest leaf', () => {
  const events = [
    ev('u1', 'user_message', { text: 'hi' }),
    ev('a1', 'agent_message', { text: 'hello' }),
    ev('u2', 'user_message', { text: 'first' }),
    ev('a2', 'agent_message', { text: 'one' }),
    ev('b1', 'branch', { head: 'a1' }),
    ev('u2b', 'user_message', { text: 'second' }),
    ev('a2b', 'agent_message', { text: 'two' }),
  ];
  const tree = new BranchTree(events);
  assert.deepEqual(
    tree.path().map((e) => e.id),
    ['u1', 'a1', 'u2b', 'a2b'],
  );
  assert.deepEqual(tree.siblings('u2b'), ['u2', 'u2b']);
  assert.equal(tree.latestIn('u2'), 'a2');
  assert.deepEqual(
    [...tree.alternativesOnPath()].map(([id, v]) => [id, v.index, v.count]),
    [['u2b', 1, 2]],
  );
  // Back to the first version, continued: it keeps growing on its own branch.
  tree.add(ev('b2', 'branch', { head: 'a2' }));
  tree.add(ev('u3', 'user_message', { text: 'more' }));
  assert.deepEqual(
    tree.path().map((e) => e.id),
    ['u1', 'a1', 'u2', 'a2', 'u3'],
  );
  assert.equal(tree.latestIn('u2'), 'u3');
  // An unknown head (a log cut short) is ignored; null starts over.
  tree.add(ev('b3', 'branch', { head: 'nope' }));
  assert.equal(tree.head, 'u3');
  assert.deepEqual(
    activePath([...events, ev('b4', 'branch', { head: null }), ev('u0', 'user_message', { text: 'anew' })]).map((e) => e.id),
    ['u0'],
  );
  // Control: a log without branch events is its own path.
  assert.deepEqual(
    activePath(events.slice(0, 4)).map((e) => e.id),
    ['u1', 'a1', 'u2', 'a2'],
  );
});

test('an undo and a redo are not versions: no ‹ 1/2 › for the undo record, none left after the redo; an edit still is one', () => {
  const tree = new BranchTree([
    ev('u1', 'user_message', { text: 'hi' }),
    ev('a1', 'agent_message', { text: 'hello' }),
    ev('u2', 'user_message', { text: 'write the file' }),
    ev('a2', 'agent_message', { text: 'written' }),
    // Undo: the head goes back before the turn, and the undo is recorded there.
    ev('b1', 'branch', { head: 'a1' }),
    ev('x1', 'turn_undone', { turnId: 'u2', summary: '1 file' }),
  ]);
  assert.deepEqual(
    tree.path().map((e) => e.id),
    ['u1', 'a1', 'x1'],
  );
  assert.deepEqual([...tree.alternativesOnPath()], [], 'the undo record has no versions');
  // Redo: the head goes to the turn's last event, and the redo is recorded there.
  tree.add(ev('b2', 'branch', { head: 'a2' }));
  tree.add(ev('r1', 'turn_redone', { turnId: 'u2', summary: '1 file' }));
  assert.deepEqual(
    tree.path().map((e) => e.id),
    ['u1', 'a1', 'u2', 'a2', 'r1'],
  );
  assert.deepEqual([...tree.alternativesOnPath()], [], 'no switcher left on the redone turn');
  // Control: an edited message beside the same turn is a version, counted without the undo record.
  tree.add(ev('b3', 'branch', { head: 'a1' }));
  tree.add(ev('u2b', 'user_message', { text: 'write it again' }));
  assert.deepEqual(
    [...tree.alternativesOnPath()].map(([id, v]) => [id, v.index, v.count, v.siblings]),
    [['u2b', 1, 2, ['u2', 'u2b']]],
  );
});

/** Runs one turn of the Echo agent. @param {Conversation} conversation @param {string} text */
async function turn(conversation, text) {
  const agent = new ClawserAgent({ provider: new EchoProvider(), conversation });
  for await (const _ of agent.runStream(text)) {
    /* drain */
  }
}

test('edit and resend: the model sees only the new version; both survive a reopen; switching back restores the first', async () => {
  const fs = new MemoryFileSystem();
  const store = new ConversationStore(fs, 'w');
  const meta = await store.create();
  let conv = await store.open(meta.id);
  await turn(conv, 'alpha');
  await turn(conv, 'beta');
  const beta = /** @type {any} */ (conv.events.find((e) => e.type === 'user_message' && e.data.text === 'beta'));
  await conv.fork(beta.id, 'replace');
  await turn(conv, 'gamma');
  const texts = (/** @type {Conversation} */ c) => c.deriveSessionHistory().messages.map((m) => m.content);
  assert.deepEqual(
    texts(conv).filter((t) => /alpha|beta|gamma/.test(t) && !t.startsWith('Echo')),
    ['alpha', 'gamma'],
  );
  assert.ok(!texts(conv).some((t) => t.includes('beta')), 'the replaced message is not in the model context');
  assert.ok(conv.branched);
  const gamma = loose(conv.events).find((e) => e.data.text === 'gamma');
  assert.deepEqual(conv.alternatives().get(gamma.id), { index: 1, count: 2, siblings: [beta.id, gamma.id] });

  conv = await store.open(meta.id); // reload
  assert.deepEqual(
    conv.events.filter((e) => e.type === 'user_message').map((e) => e.data.text),
    ['alpha', 'gamma'],
  );
  assert.deepEqual(texts(conv), texts(conv)); // stable
  await conv.switchTo(beta.id);
  assert.deepEqual(
    conv.events.filter((e) => e.type === 'user_message').map((e) => e.data.text),
    ['alpha', 'beta'],
  );
  assert.ok(texts(conv).some((t) => t === 'beta'));
  assert.equal(conv.events.at(-1)?.type, 'agent_message', 'the first version as it was last continued (its reply)');
  conv = await store.open(meta.id);
  assert.deepEqual(
    conv.events.filter((e) => e.type === 'user_message').map((e) => e.data.text),
    ['alpha', 'beta'],
    'the switch survives a reopen',
  );

  // Exported as JSONL and imported again: every version comes along, and the same one is shown.
  const all = await store.allEvents(meta.id);
  const parsed = parseImport(toJsonl(all));
  assert.ok(parsed.ok);
  const copy = await store.createFrom('copy', parsed.ok ? parsed.events : []);
  const reopened = await store.open(copy.id);
  assert.deepEqual(
    reopened.events.filter((e) => e.type === 'user_message').map((e) => e.data.text),
    ['alpha', 'beta'],
  );
  assert.equal([...reopened.alternatives().values()][0]?.count, 2);
});

test('regenerate: another reply to the same message, the earlier one kept; no second user message', async () => {
  const fs = new MemoryFileSystem();
  const store = new ConversationStore(fs, 'w');
  const conv = await store.open((await store.create()).id);
  await turn(conv, 'alpha');
  const ask = /** @type {any} */ (conv.events.find((e) => e.type === 'user_message'));
  await conv.fork(ask.id, 'after');
  const agent = new ClawserAgent({ provider: new EchoProvider(), conversation: conv });
  for await (const _ of agent.regenerateStream('alpha')) {
    /* drain */
  }
  assert.equal(conv.events.filter((e) => e.type === 'user_message').length, 1);
  const replies = conv.events.filter((e) => e.type === 'agent_message');
  assert.equal(replies.length, 1);
  assert.deepEqual(conv.alternatives().get(replies[0].id)?.index, 1);
  assert.deepEqual(
    conv.deriveSessionHistory().messages.map((m) => m.role),
    ['user', 'assistant'],
  );
});

test('a long branched conversation opens whole (its path may leave the tail and the snapshot); control: \
an unbranched one opens from its tail', async () => {
  const fs = new MemoryFileSystem();
  const store = new ConversationStore(fs, 'w');
  const meta = await store.create();
  let conv = await store.open(meta.id);
  await turn(conv, 'first');
  // Past a snapshot and more than the tail read at opening.
  const count = SNAPSHOT_EVERY + 20;
  const big = 'x'.repeat(Math.ceil((DISPLAY_TAIL_BYTES * 1.5) / count));
  for (let i = 0; i < count; i++) await conv.append('agent_message', { text: `${i} ${big}` }, 'agent');
  conv = await store.open(meta.id);
  assert.ok(conv.hasEarlier, 'control: only the tail is read');
  const first = /** @type {any} */ ((await store.allEvents(meta.id)).find((e) => e.type === 'user_message'));
  await conv.fork(first.id, 'replace');
  await turn(conv, 'second');
  conv = await store.open(meta.id);
  assert.ok(!conv.hasEarlier);
  assert.deepEqual(
    conv.events.map((e) => (e.type === 'user_message' ? e.data.text : e.type)),
    ['second', 'agent_message'],
  );
  assert.equal(conv.deriveSessionHistory().messages[0].content, 'second');
});

test('another tab branching the conversation is followed', async () => {
  const fs = new MemoryFileSystem();
  /** @type {Map<string, Set<(d: unknown, from: string) => void>>} */
  const subs = new Map();
  const coordination = {
    withLock: (/** @type {string} */ _k, /** @type {() => Promise<any>} */ fn) => fn(),
    publish: () => {},
    subscribe: (/** @type {string} */ t, /** @type {any} */ fn) => {
      if (!subs.has(t)) subs.set(t, new Set());
      subs.get(t)?.add(fn);
      return () => {};
    },
  };
  const store = new ConversationStore(fs, 'w', coordination);
  const meta = await store.create();
  const a = await store.open(meta.id);
  await turn(a, 'one');
  const b = await store.open(meta.id);
  const one = /** @type {any} */ (a.events[0]);
  await a.fork(one.id, 'replace');
  await turn(a, 'two');
  await b.refresh();
  assert.ok(b.branched);
  assert.deepEqual(
    b.events.filter((e) => e.type === 'user_message').map((e) => e.data.text),
    ['two'],
  );
});

test('a regenerate cut short by a closed tab is found as the request to retry (control: a finished one is answered)', async () => {
  const fs = new MemoryFileSystem();
  const store = new ConversationStore(fs, 'w');
  const conv = await store.open((await store.create()).id);
  await turn(conv, 'alpha');
  const ask = /** @type {any} */ (conv.events.find((e) => e.type === 'user_message'));
  const before = conv.byteLength;
  await conv.fork(ask.id, 'after'); // the tab closes here, before any reply
  assert.deepEqual(await conv.requestAfter(before), { text: 'alpha', answered: false });
  const agent = new ClawserAgent({ provider: new EchoProvider(), conversation: conv });
  for await (const _ of agent.regenerateStream('alpha')) {
    /* drain */
  }
  assert.deepEqual(await conv.requestAfter(before), { text: 'alpha', answered: true });
});
