import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupConversations } from '../../web/ui/conversation-groups.js';

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
