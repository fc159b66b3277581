// Search across every conversation of a workspace (issue 13): ranked full text with snippets,
// kept incrementally, saved, and following deletions and branches.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConversationSearch, makeSnippet } from '../../web/agent/conversation/conversation-search.js';
import { ConversationStore } from '../../web/agent/conversation/conversation-store.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';

/** @param {ConversationStore} store @param {string[]} texts */
async function conversation(store, texts) {
  const meta = await store.create();
  const conv = await store.open(meta.id);
  for (const [i, text] of texts.entries()) await conv.append(i % 2 ? 'agent_message' : 'user_message', { text }, i % 2 ? 'agent' : 'user');
  await conv.flush();
  return conv;
}

test('finds messages across conversations, ranked, with a snippet marking the words; prefixes and small typos match', async () => {
  const fs = new MemoryFileSystem();
  const store = new ConversationStore(fs, 'w');
  const garden = await conversation(store, ['Plan the garden party for Saturday', 'Sure: tables, lanterns and a rhubarb cake.']);
  await conversation(store, ['How do I configure nginx?', 'Edit nginx.conf and reload the service.']);
  const search = new ConversationSearch(fs, 'w');
  await search.update(await store.list());
  const hits = await search.search('rhubarb');
  assert.equal(hits.length, 1);
  assert.equal(hits[0].conversationId, garden.id);
  assert.equal(hits[0].role, 'assistant');
  assert.equal(hits[0].eventId, garden.events[1].id);
  const { text, marks } = hits[0].snippet;
  assert.deepEqual(
    marks.map(([a, b]) => text.slice(a, b)),
    ['rhubarb'],
  );
  assert.equal((await search.search('lant'))[0]?.eventId, garden.events[1].id, 'prefix');
  assert.equal((await search.search('rhubarb lant'))[0]?.eventId, garden.events[1].id, 'the last word, being typed, is a prefix');
  assert.deepEqual(await search.search('lant rhubarb'), [], 'an earlier word is matched whole');
  assert.equal((await search.search('lanterns rhubarb'))[0]?.eventId, garden.events[1].id, 'control: the whole word');
  assert.equal((await search.search('rhubarp'))[0]?.eventId, garden.events[1].id, 'one typo');
  assert.deepEqual(await search.search('submarine'), [], 'control: a word in no conversation');
  // The title is found too (plain text of the first message).
  assert.ok((await search.search('garden')).some((h) => h.role === 'title' || h.role === 'user'));
});

test('incremental: new messages after an update are found after the next one; the saved index serves a new session; \
deleted conversations leave it', async () => {
  const fs = new MemoryFileSystem();
  const store = new ConversationStore(fs, 'w');
  const a = await conversation(store, ['alpha message']);
  const search = new ConversationSearch(fs, 'w');
  await search.update(await store.list());
  // A new session reads the saved index; it does not re-read the logs it covers.
  const again = new ConversationSearch(fs, 'w');
  let reads = 0;
  const readBytes = fs.readBytes.bind(fs);
  fs.readBytes = async (path, range) => {
    if (path.endsWith('events.jsonl')) reads++;
    return readBytes(path, range);
  };
  await again.update(await store.list());
  assert.equal(reads, 0, 'nothing re-read');
  assert.equal((await again.search('alpha')).filter((h) => h.role !== 'title').length, 1);
  await a.append('agent_message', { text: 'zebra crossing' }, 'agent');
  await a.flush();
  again.touch(a.id);
  await again.update(await store.list());
  assert.equal((await again.search('zebra')).length, 1);
  await store.delete(a.id);
  await again.update(await store.list());
  assert.deepEqual(await again.search('zebra'), []);
  assert.equal(again.size, 0);
});

test('every version of a branched conversation is searchable', async () => {
  const fs = new MemoryFileSystem();
  const store = new ConversationStore(fs, 'w');
  const conv = await conversation(store, ['first wording about kites']);
  await conv.fork(conv.events[0].id, 'replace');
  await conv.append('user_message', { text: 'second wording about balloons' }, 'user');
  const search = new ConversationSearch(fs, 'w');
  await search.update(await store.list());
  assert.equal((await search.search('kites')).filter((h) => h.role !== 'title').length, 1);
  assert.equal((await search.search('balloons')).length, 1);
});

test('snippets: cut around the first match with ellipses, marks inside', () => {
  const long = `${'lorem ipsum '.repeat(40)}the needle is here ${'dolor sit '.repeat(40)}`;
  const s = makeSnippet(long, ['needle'], 80);
  assert.ok(s.text.startsWith('…') && s.text.endsWith('…'));
  assert.ok(s.text.length <= 82);
  assert.deepEqual(
    s.marks.map(([a, b]) => s.text.slice(a, b)),
    ['needle'],
  );
});

test('a new session finds what was appended after the index was saved, even without meta.json changing (an agent reply, \
another tab)', async () => {
  const fs = new MemoryFileSystem();
  const store = new ConversationStore(fs, 'w');
  const conv = await conversation(store, ['question about owls']);
  await new ConversationSearch(fs, 'w').update(await store.list());
  await conv.append('agent_message', { text: 'owls hunt voles at dusk' }, 'agent'); // no meta.json write
  await conv.flush();
  const next = new ConversationSearch(fs, 'w');
  await next.update(await store.list());
  assert.equal((await next.search('voles')).length, 1);
});

test("a deleted conversation's words leave the saved index file at once (control: they were in it)", async () => {
  const fs = new MemoryFileSystem();
  const store = new ConversationStore(fs, 'w');
  const conv = await conversation(store, ['the passphrase is quokkasecret']);
  const search = new ConversationSearch(fs, 'w');
  await search.update(await store.list());
  const file = 'clawser_workspaces/w/.conversations/search-index.json';
  assert.match(await fs.readText(file), /quokkasecret/, 'control: indexed and saved');
  await store.delete(conv.id);
  await search.forget(conv.id);
  assert.doesNotMatch(await fs.readText(file), /quokkasecret/);
  assert.deepEqual(await search.search('quokkasecret'), []);
});

test('searches typed while the index is being built wait for that build instead of each reading every log', async () => {
  const fs = new MemoryFileSystem();
  const store = new ConversationStore(fs, 'w');
  for (let i = 0; i < 5; i++) await conversation(store, [`message ${i}`]);
  const search = new ConversationSearch(fs, 'w');
  let reads = 0;
  const readBytes = fs.readBytes.bind(fs);
  fs.readBytes = async (path, range) => {
    if (path.endsWith('events.jsonl')) reads++;
    return readBytes(path, range);
  };
  const metas = await store.list();
  await Promise.all([search.update(metas), search.update(metas), search.update(metas)]);
  assert.equal(reads, 5);
});

test('a conversation is found by its tags (a title hit, the tag marked); a tag changed is searched at the next update', async () => {
  const fs = new MemoryFileSystem();
  const store = new ConversationStore(fs, 'w');
  const trip = await conversation(store, ['What should I pack?', 'Boots and a map.']);
  await conversation(store, ['Electricity bill', 'Paid.']);
  const search = new ConversationSearch(fs, 'w');
  await search.update(await store.list());
  assert.deepEqual(await search.search('holiday'), [], 'control: not tagged yet');
  await store.setTags(trip.id, ['Holiday', 'Cornwall']);
  await search.update(await store.list());
  const hits = await search.search('holiday');
  assert.equal(hits.length, 1);
  assert.equal(hits[0].conversationId, trip.id);
  assert.equal(hits[0].role, 'title');
  assert.deepEqual(
    hits[0].snippet.marks.map(([a, b]) => hits[0].snippet.text.slice(a, b)),
    ['Holiday'],
  );
  await store.setTags(trip.id, []);
  await search.update(await store.list());
  assert.deepEqual(await search.search('holiday'), [], 'untagged: no longer found');
});
