import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupConversations, workspaceTags, withTag } from '../../web/ui/conversation-groups.js';

const now = new Date(2026, 10, 29, 15, 0);
const at = (/** @type {number} */ days, /** @type {number} */ hour = 12) =>
  new Date(now.getFullYear(), now.getMonth(), now.getDate() - days, hour).getTime();
/** @param {string} id @param {number} updatedAt @param {object} [extra] */
const conv = (id, updatedAt, extra = {}) => ({ id, title: id, createdAt: updatedAt, updatedAt, ...extra });

test('conversations are grouped by the local day of their last activity, pinned first, sub-agents and jobs apart', () => {
  const groups = groupConversations(
    [
      conv('today', at(0, 1)),
      conv('pinned-old', at(40), { pinned: true }),
      conv('yesterday', at(1, 23)),
      conv('agent', at(0), { parent: { conversationId: 'today', toolCallId: 't', agent: 'sub' } }),
      conv('six-days', at(6)),
      conv('job', at(0), { job: { id: 'j1', name: 'Weather' } }),
      conv('eight-days', at(8)),
    ],
    now,
  );
  assert.deepEqual(
    groups.map((g) => [g.label, g.conversations.map((c) => c.id)]),
    [
      ['Pinned', ['pinned-old']],
      ['Today', ['today']],
      ['Yesterday', ['yesterday']],
      ['Previous 7 days', ['six-days']],
      ['Older', ['eight-days']],
      ['Sub-agents', ['agent']],
      ['Scheduled jobs', ['job']],
    ],
  );
});

test('empty groups are left out and each keeps the order it was given', () => {
  const groups = groupConversations([conv('b', at(0, 14)), conv('a', at(0, 9))], now);
  assert.deepEqual(
    groups.map((g) => [g.label, g.conversations.map((c) => c.id)]),
    [['Today', ['b', 'a']]],
  );
  assert.deepEqual(groupConversations([], now), []);
});

test('the store keeps a pin in meta.json and the saved list (a reload reads it), unpinning removes it; a job marker is kept', async () => {
  const { ConversationStore } = await import('../../web/agent/conversation/conversation-store.js');
  const { MemoryFileSystem } = await import('../../web/storage/memory-fs.js');
  const fs = new MemoryFileSystem();
  const store = new ConversationStore(fs, 'w');
  const a = await store.create('Alpha');
  const b = await store.create('Beta', { job: { id: 'j1', name: 'Weather' } });
  const before = (await store.list()).find((c) => c.id === a.id);
  assert.equal(before?.pinned, undefined, 'control: not pinned');
  await store.setPinned(a.id, true);
  const again = new ConversationStore(fs, 'w');
  const listed = await again.list();
  assert.equal(listed.find((c) => c.id === a.id)?.pinned, true);
  assert.equal(listed.find((c) => c.id === a.id)?.updatedAt, a.updatedAt, 'pinning is not activity');
  assert.deepEqual(listed.find((c) => c.id === b.id)?.job, { id: 'j1', name: 'Weather' });
  await again.setPinned(a.id, false);
  assert.equal((await new ConversationStore(fs, 'w').list()).find((c) => c.id === a.id)?.pinned, undefined);
});

test("the workspace's tags (each once, in the case first met, sorted) and the conversations with one of them", () => {
  const list = [conv('a', at(0), { tags: ['work', 'Plans'] }), conv('b', at(1), { tags: ['plans'] }), conv('c', at(2))];
  assert.deepEqual(workspaceTags(list), ['Plans', 'work']);
  assert.deepEqual(
    withTag(list, 'PLANS').map((c) => c.id),
    ['a', 'b'],
  );
  assert.deepEqual(
    withTag(list, 'work').map((c) => c.id),
    ['a'],
  );
  // Control: no filter shows every conversation; a tag no conversation has shows none.
  assert.deepEqual(
    withTag(list, null).map((c) => c.id),
    ['a', 'b', 'c'],
  );
  assert.deepEqual(withTag(list, 'gone'), []);
});

test('the store keeps tags in meta.json and the saved list, checked (a reload reads them), and an empty list removes them', async () => {
  const { ConversationStore } = await import('../../web/agent/conversation/conversation-store.js');
  const { MemoryFileSystem } = await import('../../web/storage/memory-fs.js');
  const fs = new MemoryFileSystem();
  const store = new ConversationStore(fs, 'w');
  const a = await store.create('Alpha');
  assert.equal((await store.list())[0].tags, undefined, 'control: no tags');
  await store.setTags(a.id, [' work', 'Work', 'plans ']);
  const listed = await new ConversationStore(fs, 'w').list();
  assert.deepEqual(listed[0].tags, ['work', 'plans']);
  assert.equal(listed[0].updatedAt, a.updatedAt, 'tagging is not activity');
  const meta = JSON.parse(await fs.readText(`clawser_workspaces/w/.conversations/${a.id}/meta.json`));
  assert.deepEqual(meta.tags, ['work', 'plans']);
  await assert.rejects(store.setTags(a.id, ['x'.repeat(40)]), (/** @type {any} */ e) => e.code === 'invalid_tags');
  assert.deepEqual((await new ConversationStore(fs, 'w').list())[0].tags, ['work', 'plans'], 'a refused change changes nothing');
  await store.setTags(a.id, []);
  assert.equal((await new ConversationStore(fs, 'w').list())[0].tags, undefined);
});

test('the tag filter is remembered per workspace under a key the first view reads, and a saved value is checked before use', async () => {
  const { tagFilterKey, tagFilterOf } = await import('../../web/app/flags.js');
  const { firstViewKey } = await import('../../web/app/config-files.js');
  assert.equal(tagFilterKey('w1'), 'clawser_ui_tag_filter_w1');
  assert.notEqual(tagFilterKey('w1'), tagFilterKey('w2'));
  assert.equal(firstViewKey(tagFilterKey('w1')), true, 'the first view paints the list already filtered');
  assert.equal(firstViewKey('clawser_ui_layout'), false, 'control: not every UI key');
  assert.equal(tagFilterOf('Travel'), 'Travel');
  for (const bad of [null, 3, '', '   ', 'x'.repeat(33), ['Travel']]) assert.equal(tagFilterOf(bad), null, JSON.stringify(bad));
});

test('a channel’s conversation (its job marked viaChannel) is listed under Channels, not Scheduled jobs; control: a job’s stays \
there; the store keeps the mark', async () => {
  const channel = { id: 'channel-c1', name: 'phone', viaChannel: true };
  const groups = groupConversations(
    [conv('from-phone', at(0), { job: channel }), conv('weather', at(0), { job: { id: 'j1', name: 'Weather' } })],
    now,
  );
  assert.deepEqual(
    groups.map((g) => [g.label, g.conversations.map((c) => c.id)]),
    [
      ['Scheduled jobs', ['weather']],
      ['Channels', ['from-phone']],
    ],
  );
  const { ConversationStore } = await import('../../web/agent/conversation/conversation-store.js');
  const { MemoryFileSystem } = await import('../../web/storage/memory-fs.js');
  const fs = new MemoryFileSystem();
  const made = await new ConversationStore(fs, 'w').create('phone', { job: channel });
  assert.deepEqual((await new ConversationStore(fs, 'w').list()).find((c) => c.id === made.id)?.job, channel);
});
