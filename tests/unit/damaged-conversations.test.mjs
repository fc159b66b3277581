// Issue 32 §9: a damaged file of a conversation (meta.json, snapshot.json, events.jsonl, the
// workspace's list.json) costs only that file. The rest opens; the damage is reported with a way
// to set the file aside; nothing is overwritten before that; damaged lines of a log are kept in
// a sibling file (once) before anything drops them. Each case with its control: the same file
// intact, no report, and the file written as usual.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Conversation, SNAPSHOT_EVERY } from '../../web/agent/conversation/conversation.js';
import { ConversationStore } from '../../web/agent/conversation/conversation-store.js';
import * as listModule from '../../web/agent/conversation/conversation-list.js';

// Through the namespace, so this file also runs (and fails test by test) against code without them.
const { parseConversationList, conversationListText } = listModule;
/** @param {string} text @returns {{ok: boolean, value?: any, problem?: string}} */
const parseMeta = (text) => /** @type {any} */ (listModule).parseMeta(text); // any: absent before issue 32
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { fromBase64 } from '../../web/storage/base64.js';
import { loose } from '../fixtures/loose-events.mjs';

/** The three ways a file is found damaged: cut short (a crash mid-write), garbage bytes, valid JSON of the wrong shape. */
const DAMAGES = {
  'cut short': (/** @type {string} */ good) => good.slice(0, Math.floor(good.length / 2)),
  garbage: () => '\u0000\u0007\u00ff binary \u0001\u0002',
  'wrong shape': () => JSON.stringify({ version: 1, conversations: [1, 2], title: 42, history: 'x' }),
};

/** A store with two conversations of two turns each; the notices it reports. */
async function setup() {
  const fs = new MemoryFileSystem();
  /** @type {import('../../web/storage/damage.js').DamageNotice[]} */
  const notices = [];
  const store = new ConversationStore(fs, 'ws', undefined, { onDamage: (n) => notices.push(n) });
  const ids = [];
  for (const topic of ['alpha', 'beta']) {
    const { id } = await store.create();
    const conv = await store.open(id);
    await conv.append('user_message', { text: `${topic} question` }, 'user');
    await conv.append('agent_message', { text: `${topic} answer` }, 'agent');
    ids.push(id);
  }
  await store.list();
  return { fs, store, notices, ids, dir: (/** @type {string} */ id) => store.dirOf(id) };
}

test('pure readers: a cut-short, garbage or wrong-shaped meta.json or list.json says what is wrong; the intact ones read back', () => {
  const meta = { id: 'c1', title: 'Trip', createdAt: 1, updatedAt: 2 };
  const good = JSON.stringify(meta);
  assert.deepEqual(parseMeta(good), { ok: true, value: meta });
  const cut = parseMeta(DAMAGES['cut short'](good));
  assert.equal(cut.ok, false);
  assert.match(/** @type {{problem: string}} */ (cut).problem, /^cut short/);
  assert.match(/** @type {{problem: string}} */ (parseMeta(DAMAGES.garbage())).problem, /^garbage/);
  assert.match(
    /** @type {{problem: string}} */ (parseMeta(JSON.stringify({ ...meta, title: 42 }))).problem,
    /^not in the expected shape \(title:/,
  );
  const list = { c1: meta };
  assert.deepEqual(parseConversationList(conversationListText(list)), { conversations: list, problem: null });
  assert.deepEqual(parseConversationList(null), { conversations: {}, problem: null });
  // Another version is not damage: the store rebuilds it.
  assert.deepEqual(parseConversationList(JSON.stringify({ version: 2, conversations: list })), { conversations: {}, problem: null });
  for (const [name, damage] of Object.entries(DAMAGES)) {
    const r = parseConversationList(damage(conversationListText(list)));
    assert.deepEqual(r.conversations, {}, name);
    assert.ok(r.problem, name);
  }
  // One entry of the wrong shape makes the list damaged (it would otherwise hide that conversation's details).
  assert.match(
    String(parseConversationList(JSON.stringify({ version: 1, conversations: { c1: { ...meta, updatedAt: 'soon' } } })).problem),
    /c1/,
  );
});

for (const [name, damage] of Object.entries(DAMAGES)) {
  test(`meta.json ${name}: the conversation opens with its events, is reported, \
and meta.json is not overwritten until set aside`, async () => {
    const { fs, store, notices, ids, dir } = await setup();
    const path = `${dir(ids[0])}/meta.json`;
    const bad = damage(await fs.readText(path));
    await fs.write(path, bad);
    const conv = await store.open(ids[0]);
    assert.deepEqual(
      loose(conv.events).map((e) => e.data.text),
      ['alpha question', 'alpha answer'],
    );
    assert.equal(conv.meta.title, 'alpha question', "the saved list's copy stands in");
    assert.equal(notices.length, 1);
    assert.match(notices[0].what, /Conversation “alpha question”: its details \(meta\.json\)/);
    assert.equal(notices[0].path, path);
    await conv.append('user_message', { text: 'more' }, 'user');
    await assert.rejects(conv.rename('New name'), { code: 'damaged' });
    assert.equal(await fs.readText(path), bad, 'not overwritten');
    await assert.rejects(store.rename(ids[0], 'x'), { code: 'damaged' });
    // The other conversation is untouched.
    assert.deepEqual(
      loose((await store.open(ids[1])).events).map((e) => e.data.text),
      ['beta question', 'beta answer'],
    );
    // Set aside: the bytes are kept next to it, new details are written and used.
    const to = await /** @type {() => Promise<string>} */ (notices[0].setAside)();
    assert.match(to, /meta\.damaged-[\d-]+T[\d-]+Z\.json$/);
    assert.equal(await fs.readText(to), bad);
    assert.equal(parseMeta(await fs.readText(path)).ok, true);
    await store.rename(ids[0], 'Fixed');
    assert.equal((await store.open(ids[0])).meta.title, 'Fixed');
  });
}

test('meta.json intact (control): no report, and its details are written as usual', async () => {
  const { fs, store, notices, ids, dir } = await setup();
  const conv = await store.open(ids[0]);
  await conv.rename('New name');
  assert.deepEqual(notices, []);
  assert.equal(JSON.parse(await fs.readText(`${dir(ids[0])}/meta.json`)).title, 'New name');
});

test('a damaged meta.json of a conversation the saved list does not know is listed as damaged, never saved into the list', async () => {
  const { fs, store, notices, ids, dir } = await setup();
  const listPath = 'clawser_workspaces/ws/.conversations/list.json';
  await fs.delete(listPath);
  await fs.write(`${dir(ids[0])}/meta.json`, '{"id":"');
  const list = await store.list();
  assert.deepEqual(list.map((m) => m.title).sort(), ['Conversation with damaged details', 'beta question']);
  assert.equal(notices.length, 1);
  assert.deepEqual(Object.keys(JSON.parse(await fs.readText(listPath)).conversations), [ids[1]]);
  // Opened without the list's copy: a stand-in with the log's dates.
  const conv = await store.open(ids[0]);
  assert.equal(conv.events.length, 2);
  assert.equal(conv.meta.createdAt, conv.events[0].timestamp);
  // Set aside: rebuilt from the log (the first message is its title).
  await /** @type {() => Promise<string>} */ (notices[0].setAside)();
  assert.equal(JSON.parse(await fs.readText(`${dir(ids[0])}/meta.json`)).title, 'alpha question');
});

for (const [name, damage] of Object.entries(DAMAGES)) {
  test(`list.json ${name}: every conversation is still listed (from its own details), \
it is reported and not overwritten until set aside`, async () => {
    const { fs, store, notices, ids } = await setup();
    const path = 'clawser_workspaces/ws/.conversations/list.json';
    const bad = damage(await fs.readText(path));
    await fs.write(path, bad);
    const list = await store.list();
    assert.deepEqual(list.map((m) => m.title).sort(), ['alpha question', 'beta question']);
    assert.equal(notices.length, 1);
    assert.match(notices[0].what, /list of conversations \(list\.json\)/);
    await store.create('third');
    await store.rename(ids[1], 'renamed');
    assert.equal(await fs.readText(path), bad, 'not overwritten');
    assert.deepEqual((await store.list()).map((m) => m.title).sort(), ['alpha question', 'renamed', 'third']);
    const to = await /** @type {() => Promise<string>} */ (notices[0].setAside)();
    assert.equal(await fs.readText(to), bad);
    await store.list();
    assert.equal(Object.keys(parseConversationList(await fs.readText(path)).conversations).length, 3, 'rebuilt once set aside');
  });
}

test('list.json intact (control): no report, and it follows every change', async () => {
  const { fs, store, notices } = await setup();
  const meta = await store.create('third');
  assert.deepEqual(notices, []);
  assert.ok(JSON.parse(await fs.readText('clawser_workspaces/ws/.conversations/list.json')).conversations[meta.id]);
});

/** A conversation with a snapshot: SNAPSHOT_EVERY + 3 events. */
async function withSnapshot() {
  const s = await setup();
  const conv = await s.store.open(s.ids[0]);
  for (let i = 0; i < SNAPSHOT_EVERY + 1; i++)
    await conv.append(i % 2 ? 'agent_message' : 'user_message', { text: `m${i}` }, i % 2 ? 'agent' : 'user');
  const path = `${s.dir(s.ids[0])}/snapshot.json`;
  assert.ok(await s.fs.stat(path));
  return { ...s, conv, path };
}

for (const [name, damage] of Object.entries({
  ...DAMAGES,
  'wrong shape': () => JSON.stringify({ version: 1, eventCount: 3, byteLength: 10, history: [5, { role: 'user' }] }),
})) {
  test(`snapshot.json ${name}: ignored (the log is replayed, same history), reported, not rewritten until set aside`, async () => {
    const { fs, store, notices, ids, conv, path } = await withSnapshot();
    const bad = damage(await fs.readText(path));
    await fs.write(path, bad);
    const again = await store.open(ids[0]);
    assert.deepEqual(again.deriveSessionHistory(), conv.deriveSessionHistory());
    assert.equal(again.eventCount, conv.eventCount);
    assert.equal(notices.length, 1);
    assert.match(notices[0].what, /its snapshot \(snapshot\.json/);
    for (let i = 0; i < SNAPSHOT_EVERY + 1; i++) await again.append('user_message', { text: `n${i}` }, 'user');
    assert.equal(await fs.readText(path), bad, 'not rewritten');
    await /** @type {() => Promise<string>} */ (notices[0].setAside)();
    for (let i = 0; i < SNAPSHOT_EVERY; i++) await again.append('user_message', { text: `p${i}` }, 'user');
    assert.equal(JSON.parse(await fs.readText(path)).version, 1, 'written again once set aside');
  });
}

test('snapshot.json intact (control): used (the log is read from the tail), no report', async () => {
  const { store, notices, ids, conv } = await withSnapshot();
  const again = await store.open(ids[0]);
  assert.deepEqual(again.deriveSessionHistory(), conv.deriveSessionHistory());
  assert.deepEqual(notices, []);
});

/** The records of a log's sibling file of kept lines. @param {MemoryFileSystem} fs @param {string} logPath */
async function kept(fs, logPath) {
  const text = await fs.readText(logPath.replace(/\.jsonl$/, '.damaged.jsonl')).catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

test('damaged middle lines of events.jsonl are skipped, kept in events.damaged.jsonl with their exact bytes, and reported once; \
the log is not changed', async () => {
  const { fs, store, notices, ids, dir } = await setup();
  const path = `${dir(ids[0])}/events.jsonl`;
  const [first, second] = (await fs.readText(path)).split('\n');
  const garbage = new Uint8Array([0x7b, 0xff, 0xfe, 0x00, 0x22]);
  const wrongShape = '{"id":"x","type":"no_such_event","data":{},"timestamp":1}';
  const bytes = new Uint8Array([
    ...new TextEncoder().encode(`${first}\n`),
    ...garbage,
    0x0a,
    ...new TextEncoder().encode(`${wrongShape}\n${second}\n`),
  ]);
  await fs.write(path, bytes);
  const conv = await store.open(ids[0]);
  assert.deepEqual(
    loose(conv.events).map((e) => e.data.text),
    ['alpha question', 'alpha answer'],
  );
  assert.equal(notices.length, 1);
  assert.match(notices[0].problem, /2 lines could not be read/);
  assert.match(String(notices[0].keptAt), /events\.damaged\.jsonl$/);
  const records = await kept(fs, path);
  assert.equal(records.length, 2);
  assert.deepEqual([...fromBase64(records[0].raw)], [...garbage], 'the exact bytes');
  assert.equal(new TextDecoder().decode(fromBase64(records[1].raw)), wrongShape);
  assert.deepEqual([...(await fs.readBytes(path))], [...bytes], 'the log is not changed');
  // Reported once: opening again finds them kept already.
  await store.open(ids[0]);
  assert.equal(notices.length, 1);
  assert.equal((await kept(fs, path)).length, 2);
});

for (const [name, tail] of Object.entries({ torn: '{"id":"half","type":"agent_mess', garbage: '\u0000\u0001garbage\u00ff' })) {
  test(`a ${name} last line of events.jsonl is moved aside (kept with its exact bytes), then cut off; appends go on cleanly`, async () => {
    const { fs, store, notices, ids, dir } = await setup();
    const path = `${dir(ids[0])}/events.jsonl`;
    const before = await fs.readText(path);
    await fs.append(path, tail);
    const conv = await store.open(ids[0]);
    assert.equal(conv.report.tornBytes, new TextEncoder().encode(tail).length);
    assert.equal(await fs.readText(path), before, 'cut off after it was kept');
    const records = await kept(fs, path);
    assert.equal(records.length, 1);
    assert.equal(new TextDecoder().decode(fromBase64(records[0].raw)), tail);
    assert.equal(records[0].offset, new TextEncoder().encode(before).length);
    assert.equal(records[0].last, true);
    assert.equal(notices.length, 1);
    assert.match(notices[0].problem, /last entry was incomplete/);
    await conv.append('user_message', { text: 'after' }, 'user');
    assert.deepEqual(
      loose((await store.open(ids[0])).events).map((e) => e.data.text),
      ['alpha question', 'alpha answer', 'after'],
    );
    assert.equal(notices.length, 1, 'reported once');
  });
}

test('events.jsonl intact (control): nothing kept aside, nothing reported', async () => {
  const { fs, store, notices, ids, dir } = await setup();
  await store.open(ids[0]);
  assert.deepEqual(notices, []);
  assert.equal(await fs.stat(`${dir(ids[0])}/events.damaged.jsonl`), null);
});

test('damaged lines found later (older events loaded) are kept and reported too', async () => {
  const { fs, store, notices, ids, dir } = await setup();
  const path = `${dir(ids[0])}/events.jsonl`;
  const conv0 = await store.open(ids[0]);
  // An old damaged line, then enough events that it is before the tail read at opening.
  await fs.append(path, 'not json at all\n');
  for (let i = 0; i < 900; i++) await conv0.append('user_message', { text: `filler ${i} ${'x'.repeat(300)}` }, 'user');
  const conv = await store.open(ids[0]);
  assert.equal(notices.length, 0, 'not read yet');
  while (conv.hasEarlier) await conv.loadEarlier();
  assert.equal(notices.length, 1);
  assert.match(notices[0].problem, /1 line could not be read/);
  assert.equal((await kept(fs, path)).length, 1);
});

test('Conversation.open without a store: the report says what was damaged', async () => {
  const { fs, ids, dir } = await setup();
  await fs.write(`${dir(ids[0])}/meta.json`, '{');
  const conv = await Conversation.open(fs, dir(ids[0]));
  assert.equal(conv.metaDamaged, true);
  assert.deepEqual(
    conv.report.damaged?.map((d) => d.file),
    ['meta.json'],
  );
  assert.equal(conv.events.length, 2);
});

// The check of conversations that are not open (workspace-check.js runs it when a workspace
// opens): the notice appears where the person is, not only when that conversation opens.

/** A file system that counts the bytes read (to see what the check reads again). */
class CountingFs extends MemoryFileSystem {
  reads = 0;
  /** @override @param {string} path @param {{start?: number, end?: number}} [range] */
  async readBytes(path, range) {
    const bytes = await super.readBytes(path, range);
    this.reads += bytes.length;
    return bytes;
  }
}

/** @param {Uint8Array} bytes */
const text = (bytes) => new TextDecoder().decode(bytes);

test("check: each conversation's damage is found without opening it — a middle line, a torn last line, details, \
snapshot — reported as opening would, kept once, nothing overwritten; control: intact, nothing reported", async () => {
  const { fs, store, notices, ids, dir } = await setup();
  const [alpha, beta] = ids;
  // Control: intact, nothing reported, nothing kept.
  await store.check();
  assert.equal(notices.length, 0);
  assert.equal(await fs.stat(`${dir(alpha)}/events.damaged.jsonl`), null);

  const log = `${dir(alpha)}/events.jsonl`;
  const good = await fs.readText(log);
  const [first, ...rest] = good.split('\n');
  // A damaged middle line.
  await fs.write(log, [first, '\u0000\u00ff garbage', ...rest].join('\n'));
  await store.check();
  assert.equal(notices.length, 1);
  assert.match(notices[0].what, /^Conversation “alpha question”: its log \(events\.jsonl\)$/);
  assert.match(notices[0].problem, /1 line could not be read \(garbage/);
  assert.equal(notices[0].keptAt, `${dir(alpha)}/events.damaged.jsonl`);
  assert.match(await fs.readText(log), /garbage/, 'the log is as it was');
  await store.check();
  assert.equal(notices.length, 1, 'reported once');
  const conv = await store.open(alpha);
  assert.equal(notices.length, 1, 'opening it finds the line kept already');
  assert.deepEqual(
    loose(conv.events).map((e) => e.data.text),
    ['alpha question', 'alpha answer'],
  );
  assert.equal((await fs.readText(`${dir(alpha)}/events.damaged.jsonl`)).trim().split('\n').length, 1);

  // A torn last line, in beta: kept, reported; the log not cut (opening does that).
  const betaLog = `${dir(beta)}/events.jsonl`;
  const torn = `${await fs.readText(betaLog)}{"id":"x","type":"user_mess`;
  await fs.write(betaLog, torn);
  await store.check();
  assert.equal(notices.length, 2);
  assert.match(notices[1].what, /^Conversation “beta question”: its log/);
  assert.match(notices[1].problem, /its last entry was incomplete/);
  assert.equal(await fs.readText(betaLog), torn);

  // Details and snapshot.
  await fs.write(`${dir(beta)}/meta.json`, '{"id":"');
  await fs.write(`${dir(beta)}/snapshot.json`, JSON.stringify({ version: 1, eventCount: 1, byteLength: 1, history: [5] }));
  await store.check();
  const whats = notices
    .slice(2)
    .map((n) => n.what)
    .sort();
  assert.deepEqual(whats, [
    'Conversation “beta question”: its details (meta.json)',
    'Conversation “beta question”: its snapshot (snapshot.json, a copy that makes opening faster)',
  ]);
  // Set aside from the notice: kept under another name, found no more.
  const snap = /** @type {import('../../web/storage/damage.js').DamageNotice} */ (notices.find((n) => /snapshot/.test(n.what)));
  const to = await /** @type {() => Promise<string>} */ (snap.setAside)();
  assert.match(to, /snapshot\.damaged-/);
  assert.equal(await fs.stat(`${dir(beta)}/snapshot.json`), null);
});

test('check: a file unchanged since it was found intact is not read again; a changed one is (control)', async () => {
  const fs = new CountingFs();
  const store = new ConversationStore(fs, 'ws');
  for (let i = 0; i < 30; i++) {
    const { id } = await store.create();
    const conv = await store.open(id);
    await conv.append('user_message', { text: `question ${i} ${'words '.repeat(200)}` }, 'user');
  }
  await store.check();
  const first = fs.reads;
  fs.reads = 0;
  await store.check();
  const again = fs.reads;
  assert.ok(again < first / 20, `read ${again} bytes the second time, ${first} the first`);
  // Control: a log written since is read again, and its damage found.
  const notices = /** @type {import('../../web/storage/damage.js').DamageNotice[]} */ ([]);
  const watched = new ConversationStore(fs, 'ws', undefined, { onDamage: (n) => notices.push(n) });
  const [one] = await watched.list();
  await fs.append(`${watched.dirOf(one.id)}/events.jsonl`, 'not a record\n');
  await watched.check();
  assert.equal(notices.length, 1);
  assert.match(notices[0].what, /its log/);
});

test('search: a log with damaged lines is left out of the results and reported (kept, once), not skipped silently; control: intact logs, \
no report', async () => {
  const { ConversationSearch } = await import('../../web/agent/conversation/conversation-search.js');
  const { fs, store, notices, ids, dir } = await setup();
  /** @type {Promise<void>[]} */
  const told = [];
  const search = new ConversationSearch(fs, 'ws', { onDamagedLog: (id) => told.push(store.checkLog(id)) });
  await search.update(await store.list());
  assert.equal((await search.search('question')).length > 0, true);
  assert.equal(told.length, 0, 'control: nothing to tell');
  const log = `${dir(ids[1])}/events.jsonl`;
  await fs.append(log, '{"broken": \n');
  const fresh = new ConversationSearch(fs, 'ws', { onDamagedLog: (id) => told.push(store.checkLog(id)) });
  await fresh.update(await store.list());
  await fresh.search('beta');
  await Promise.all(told);
  assert.equal(told.length, 1, 'told once');
  assert.equal(notices.length, 1);
  assert.match(notices[0].what, /Conversation “beta question”: its log/);
  assert.match(text(await fs.readBytes(`${dir(ids[1])}/events.damaged.jsonl`)), /broken/);
});
