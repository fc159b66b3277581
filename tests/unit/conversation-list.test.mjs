// list.json, the saved copy of a workspace's conversation metas (read by the store and by the
// first view of a workspace's chat).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseConversationList, conversationListText, byActivity, LIST_VERSION } from '../../web/agent/conversation-list.js';

const meta = (/** @type {string} */ id, /** @type {number} */ updatedAt) => ({ id, title: id, createdAt: 1, updatedAt });

test('a saved list reads back; anything unreadable or of another version reads as empty (the store rebuilds it), damage says what is wrong', () => {
  const list = { a: meta('a', 5), b: meta('b', 9) };
  assert.deepEqual(parseConversationList(conversationListText(list)), { conversations: list, problem: null });
  assert.equal(JSON.parse(conversationListText(list)).version, LIST_VERSION);
  for (const text of [null, JSON.stringify({ version: LIST_VERSION + 1, conversations: list })]) {
    assert.deepEqual(parseConversationList(text), { conversations: {}, problem: null }, String(text));
  }
  for (const text of ['', '{', 'null', '[]', JSON.stringify({ version: LIST_VERSION, conversations: 'x' })]) {
    const r = parseConversationList(text);
    assert.deepEqual(r.conversations, {}, String(text));
    assert.ok(r.problem, String(text));
  }
});

test('newest activity first', () => {
  assert.deepEqual(byActivity([meta('a', 1), meta('b', 3), meta('c', 2)]).map((m) => m.id), ['b', 'c', 'a']);
});
