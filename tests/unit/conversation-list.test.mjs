// list.json, the saved copy of a workspace's conversation metas (read by the store and by the
// first view of a workspace's chat).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  parseConversationList,
  conversationListText,
  byActivity,
  LIST_VERSION,
  isConversationMeta,
  ConversationMetaSchema,
  normalizeTags,
  parseMeta,
  MAX_TAGS,
  MAX_TAG_LENGTH,
} from '../../web/agent/conversation/conversation-list.js';

const meta = (/** @type {string} */ id, /** @type {number} */ updatedAt) => ({ id, title: id, createdAt: 1, updatedAt });

test('a saved list reads back; anything unreadable or of another version reads as empty (the store rebuilds it), \
damage says what is wrong', () => {
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
  assert.deepEqual(
    byActivity([meta('a', 1), meta('b', 3), meta('c', 2)]).map((m) => m.id),
    ['b', 'c', 'a'],
  );
});

test("the list's fast check of an entry and the zod schema of meta.json agree", () => {
  const good = meta('a', 1);
  const samples = [
    good,
    {
      ...good,
      titleSet: true,
      titleGenerated: false,
      branched: true,
      route: 'code',
      parent: { conversationId: 'p', toolCallId: 't', agent: 'w' },
      forkOf: { conversationId: 'p', title: 'Plans' },
      pinned: true,
      job: { id: 'j1', name: 'Weather' },
      tags: ['work', 'Q3 plans'],
      extra: 'kept',
    },
    null,
    [],
    'a',
    5,
    {},
    { ...good, id: '' },
    { ...good, id: 'x'.repeat(201) },
    { ...good, title: 3 },
    { ...good, createdAt: '1' },
    { ...good, updatedAt: null },
    { ...good, titleSet: 'yes' },
    { ...good, branched: 1 },
    { ...good, route: 'slow' },
    { ...good, parent: { conversationId: 'p' } },
    { ...good, parent: null },
    { ...good, forkOf: { conversationId: 'p' } },
    { ...good, forkOf: null },
    { ...good, forkOf: { conversationId: 'p', title: 1 } },
    { ...good, createdAt: Infinity },
    { ...good, pinned: 'yes' },
    { ...good, job: { id: 'j1' } },
    { ...good, job: null },
    { ...good, tags: [] },
    { ...good, tags: 'work' },
    { ...good, tags: [1] },
    { ...good, tags: [''] },
    { ...good, tags: ['x'.repeat(33)] },
    { ...good, tags: ['x'.repeat(32)] },
    { ...good, tags: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'] },
    { ...good, tags: null },
  ];
  for (const s of samples) assert.equal(isConversationMeta(s), ConversationMetaSchema.safeParse(s).success, JSON.stringify(s));
});

test('tags are trimmed, unique whatever their case (the first spelling kept), bounded in number and length', () => {
  assert.equal(MAX_TAGS, 8);
  assert.equal(MAX_TAG_LENGTH, 32);
  assert.deepEqual(normalizeTags(['  work ', 'Work', 'WORK', 'q3  plans', '', '   ']), { ok: true, tags: ['work', 'q3 plans'] });
  assert.deepEqual(normalizeTags([]), { ok: true, tags: [] });
  const long = normalizeTags(['x'.repeat(33)]);
  assert.equal(long.ok, false);
  assert.match(long.ok ? '' : long.problem, /32 characters/);
  const many = normalizeTags(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']);
  assert.equal(many.ok, false);
  assert.match(many.ok ? '' : many.problem, /8 tags/);
  // Control: eight, of 32 characters (duplicates not counted), pass.
  const eight = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'x'.repeat(32), 'A'];
  assert.deepEqual(normalizeTags(eight), { ok: true, tags: eight.slice(0, 8) });
  assert.equal(normalizeTags(/** @type {any} */ ('work')).ok, false, 'not a list');
});

test('a title stored with an emoji mark of old (job, sub-agent, channel, heartbeat) reads without it; control: others kept', () => {
  const read = (/** @type {string} */ title) => {
    const m = parseMeta(JSON.stringify({ ...meta('a', 1), title }));
    const listed = parseConversationList(conversationListText({ a: { ...meta('a', 1), title } })).conversations.a;
    assert.equal(listed?.title, m.ok ? m.value.title : null, 'the list and meta.json agree');
    return m.ok ? m.value.title : null;
  };
  assert.equal(read('⏰ Morning weather'), 'Morning weather');
  assert.equal(read('⏰\uFE0F Morning weather'), 'Morning weather');
  assert.equal(read('↳ @helper: Summarise tides'), '@helper: Summarise tides');
  assert.equal(read('✉ Team chat'), 'Channel: Team chat', 'as a channel’s conversation is titled now');
  assert.equal(read('💓 Heartbeat'), 'Heartbeat');
  // Control: a mark elsewhere, a title that is only the mark, and an ordinary title are kept.
  assert.equal(read('Alarm ⏰ set'), 'Alarm ⏰ set');
  assert.equal(read('⏰'), '⏰');
  assert.equal(read('Plans'), 'Plans');
});
