import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventLog, trimHistory, parseEventLines } from '../../web/agent/conversation/event-log.js';
import { Conversation, SNAPSHOT_EVERY } from '../../web/agent/conversation/conversation.js';
import { ConversationStore } from '../../web/agent/conversation/conversation-store.js';
import { ClawserAgent } from '../../web/agent/runtime/agent.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { StorageError } from '../../web/storage/errors.js';
import { EchoProvider } from '../../web/providers/echo.js';
import { loose } from '../fixtures/loose-events.mjs';

test('EventLog JSONL round trip keeps every field', () => {
  const log = new EventLog();
  log.append('user_message', { text: 'héllo\n"quoted"' }, 'user');
  log.append('agent_message', { text: 'hi', toolCalls: [{ id: 'a', name: 'n', arguments: { k: 1 } }] }, 'agent');
  // any: a record of another shape (its result not text), as a log written elsewhere may hold
  log.append('tool_result', /** @type {any} */ ({ toolCallId: 'a', result: { ok: true } }), 'tool');
  const { log: back, report } = EventLog.fromJSONL(log.toJSONL());
  assert.deepEqual(back.events, log.events);
  assert.deepEqual(report, { tornBytes: 0, skippedLines: 0 });
  assert.deepEqual(back.deriveSessionHistory('sys'), {
    system: 'sys',
    messages: [
      { role: 'user', content: 'héllo\n"quoted"' },
      { role: 'assistant', content: 'hi', toolCalls: [{ id: 'a', name: 'n', arguments: { k: 1 } }] },
      { role: 'tool', toolCallId: 'a', content: '{"ok":true}' },
    ],
  });
});

test('EventLog rejects unknown event types', () => {
  assert.throws(() => new EventLog().append(/** @type {any} */ ('bogus'), {}), /Unknown event type/);
});

test('a torn last line is dropped and reported; earlier events survive; bad middle lines are skipped', () => {
  const log = new EventLog();
  for (let i = 0; i < 3; i++) log.append('user_message', { text: `m${i}` }, 'user');
  const text = log.toJSONL();
  const torn = text + '{"id":"x","type":"user_mes';
  const r = parseEventLines(torn);
  assert.equal(r.events.length, 3);
  assert.equal(r.report.tornBytes, 26);
  const withGarbage = text.replace('\n', '\nnot json\n');
  assert.equal(parseEventLines(withGarbage).report.skippedLines, 1);
});

test('history window never starts with a tool result or orphan assistant', () => {
  const h = [
    { role: 'user', content: 'a'.repeat(100) },
    { role: 'assistant', content: '', toolCalls: [{ id: '1', name: 'x', arguments: {} }] },
    { role: 'tool', content: 'r', toolCallId: '1' },
    { role: 'assistant', content: 'b' },
    { role: 'user', content: 'c' },
  ];
  trimHistory(/** @type {any} */ (h), { maxMessages: 4, maxChars: 1e9 });
  assert.deepEqual(
    h.map((m) => m.role),
    ['user'],
  );
});

test('Conversation appends line by line, reopens identically, and is not rewritten', async () => {
  const fs = new MemoryFileSystem();
  const store = new ConversationStore(fs, 'ws1');
  const meta = await store.create();
  const conv = await store.open(meta.id);
  await conv.append('user_message', { text: 'first question' }, 'user');
  await conv.append('agent_message', { text: 'answer' }, 'agent');
  const path = `${store.dirOf(meta.id)}/events.jsonl`;
  const before = await fs.readText(path);
  await conv.append('user_message', { text: 'second' }, 'user');
  const afterText = await fs.readText(path);
  assert.ok(afterText.startsWith(before), 'append only adds to the end');
  const again = await store.open(meta.id);
  assert.deepEqual(again.events, conv.events);
  assert.deepEqual(again.deriveSessionHistory(), conv.deriveSessionHistory());
  assert.equal(again.meta.title, 'first question');
  const list = await store.list();
  assert.equal(list.length, 1);
  assert.equal(list[0].title, 'first question');
});

test('reopening after a torn write cuts only the torn line, then appends cleanly', async () => {
  const fs = new MemoryFileSystem();
  const store = new ConversationStore(fs, 'ws');
  const { id } = await store.create();
  const conv = await store.open(id);
  await conv.append('user_message', { text: 'kept' }, 'user');
  const path = `${store.dirOf(id)}/events.jsonl`;
  await fs.append(path, '{"id":"half","type":"agent_mess');
  const reopened = await store.open(id);
  assert.equal(reopened.report.tornBytes, 31);
  assert.equal(reopened.events.length, 1);
  await reopened.append('agent_message', { text: 'next' }, 'agent');
  const third = await store.open(id);
  assert.deepEqual(
    loose(third.events).map((e) => e.data.text),
    ['kept', 'next'],
  );
  assert.equal(third.report.tornBytes, 0);
});

test('a complete last event missing only its newline is kept', async () => {
  const fs = new MemoryFileSystem();
  const store = new ConversationStore(fs, 'ws');
  const { id } = await store.create();
  const line = JSON.stringify(EventLog.createEvent('user_message', { text: 'no newline' }, 'user'));
  await fs.write(`${store.dirOf(id)}/events.jsonl`, line);
  const conv = await store.open(id);
  assert.equal(conv.events.length, 1);
  await conv.append('agent_message', { text: 'ok' }, 'agent');
  assert.equal((await store.open(id)).events.length, 2);
});

test('snapshots make reopening read only the tail, with the same history', async () => {
  const fs = new MemoryFileSystem();
  const store = new ConversationStore(fs, 'ws');
  const { id } = await store.create();
  const conv = await store.open(id);
  const n = SNAPSHOT_EVERY * 2 + 37;
  for (let i = 0; i < n; i++)
    await conv.append(i % 2 ? 'agent_message' : 'user_message', { text: `message ${i} ${'x'.repeat(300)}` }, i % 2 ? 'agent' : 'user');
  const snap = JSON.parse(await fs.readText(`${store.dirOf(id)}/snapshot.json`));
  assert.equal(snap.eventCount, SNAPSHOT_EVERY * 2);
  /** @type {any[]} */
  const reads = [];
  /** @type {any} */
  const spy = new Proxy(fs, {
    get(target, prop) {
      if (prop === 'readBytes')
        return (/** @type {string} */ p, /** @type {any} */ r) => (p.endsWith('events.jsonl') && reads.push(r), target.readBytes(p, r));
      const v = Reflect.get(target, prop);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  const again = await Conversation.open(spy, store.dirOf(id));
  assert.equal(again.eventCount, n);
  assert.deepEqual(again.deriveSessionHistory(), conv.deriveSessionHistory());
  assert.ok(reads[0].start > 0, 'did not read the log from the start');
  assert.ok(again.hasEarlier);
  const firstLoaded = conv.events.findIndex((e) => e.id === again.events[0].id);
  const older = await again.loadEarlier();
  assert.ok(older.length > 0);
  assert.equal(older.at(-1)?.id, conv.events[firstLoaded - 1].id);
  while (again.hasEarlier) await again.loadEarlier();
  assert.equal(again.events.length, n);
  assert.deepEqual(
    again.events.map((e) => e.id),
    conv.events.map((e) => e.id),
  );
});

test('a failed append (quota) changes nothing and reports a clear error', async () => {
  const fs = new MemoryFileSystem();
  const store = new ConversationStore(fs, 'ws');
  const { id } = await store.create();
  const conv = await store.open(id);
  await conv.append('user_message', { text: 'safe' }, 'user');
  fs.failNextWrite = new StorageError('quota', 'Browser storage is full');
  await assert.rejects(conv.append('user_message', { text: 'lost?' }, 'user'), /storage is full/);
  assert.equal(conv.events.length, 1);
  assert.equal(conv.deriveSessionHistory().messages.length, 1);
  await conv.append('user_message', { text: 'after' }, 'user');
  assert.deepEqual(
    loose((await store.open(id)).events).map((e) => e.data.text),
    ['safe', 'after'],
  );
});

test('ClawserAgent records the turn; stop keeps the partial reply; errors are logged', async () => {
  const fs = new MemoryFileSystem();
  const store = new ConversationStore(fs, 'ws');
  const conv = await store.open((await store.create()).id);
  const agent = new ClawserAgent({ provider: new EchoProvider({ delayMs: 0 }), conversation: conv });
  let text = '';
  for await (const ev of agent.runStream('hello world')) if (ev.type === 'text') text += ev.text;
  assert.equal(text, 'Echo: hello world');
  assert.deepEqual(
    conv.events.map((e) => e.type),
    ['user_message', 'agent_message'],
  );
  const ac = new AbortController();
  for await (const ev of agent.runStream('one two three four', { signal: ac.signal })) if (ev.type === 'text') ac.abort();
  const last = conv.events.at(-1);
  assert.equal(last?.type, 'agent_message');
  assert.equal(last?.data.stopped, true);
  const failing = new ClawserAgent({
    conversation: conv,
    secrets: ['sk-very-secret-1'],
    provider: {
      id: 'x',
      model: 'm',
      supportsNativeTools: false,
      chat: async () => {
        throw new Error('unused');
      },
      async *chatStream() {
        yield { type: 'error', error: { code: 'auth', retryable: false, message: 'bad key sk-very-secret-1' } };
      },
    },
  });
  const evs = [];
  for await (const ev of failing.runStream('x')) evs.push(ev);
  // The user's message is announced as saved first (the view shows it at once), then the error.
  assert.deepEqual(
    evs.slice(0, 2).map((e) => e.type),
    ['saved', 'error'],
  );
  assert.equal(/** @type {{eventType?: string}} */ (evs[0]).eventType, 'user_message');
  const logged = conv.events.at(-1);
  assert.equal(logged?.type, 'provider_error');
  assert.doesNotMatch(JSON.stringify(conv.events), /sk-very-secret-1/);
  assert.equal(conv.deriveSessionHistory().messages.at(-1)?.role, 'assistant', 'the failed user message left the context');
});

test('the conversation list is read from one saved file, kept in step with every meta.json write; \
conversations it does not know are found, deleted ones leave it', async () => {
  const fs = new MemoryFileSystem();
  const store = new ConversationStore(fs, 'w');
  const a = await store.create('first');
  const b = await store.create('second');
  const conv = await store.open(a.id);
  await conv.append('user_message', { text: 'hello' }, 'user');
  await conv.rename('renamed by the conversation');
  await store.rename(b.id, 'renamed by the store');
  // A conversation written without the store (an older version, a restore): found by its folder.
  await fs.write(
    `clawser_workspaces/w/.conversations/cold/meta.json`,
    JSON.stringify({ id: 'cold', title: 'from elsewhere', createdAt: 1, updatedAt: 1 }),
  );
  let metaReads = 0;
  const readText = fs.readText.bind(fs);
  fs.readText = async (path) => {
    if (path.endsWith('/meta.json')) metaReads++;
    return readText(path);
  };
  const first = await store.list();
  assert.deepEqual(first.map((m) => m.title).sort(), ['from elsewhere', 'renamed by the conversation', 'renamed by the store']);
  assert.equal(metaReads, 1, 'only the unknown conversation was read');
  metaReads = 0;
  const again = await store.list();
  assert.deepEqual(again, first);
  assert.equal(metaReads, 0, 'a second list reads no meta.json');
  await store.delete(b.id);
  assert.deepEqual((await store.list()).map((m) => m.title).sort(), ['from elsewhere', 'renamed by the conversation']);
  // A folder deleted behind the store's back leaves the list too.
  await fs.delete('clawser_workspaces/w/.conversations/cold');
  assert.deepEqual(
    (await store.list()).map((m) => m.title),
    ['renamed by the conversation'],
  );
  // A damaged list is rebuilt from the meta.json files.
  await fs.write('clawser_workspaces/w/.conversations/list.json', '{not json');
  assert.deepEqual(
    (await store.list()).map((m) => m.title),
    ['renamed by the conversation'],
  );
});
