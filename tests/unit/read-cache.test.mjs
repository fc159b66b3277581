// The read cache's pure logic (issue 36 §2): which paths it keeps, its bounds and eviction order,
// what a change makes it forget, and that a read begun before a change is never kept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReadCache, cacheable, touchesCacheable } from '../../web/storage/read-cache.js';

const W = 'clawser_workspaces/w';
const bytes = (/** @type {number} */ n, fill = 1) => new Uint8Array(n).fill(fill);

test('keeps only a workspace’s own files and its repository, never Clawser’s stores or settings', () => {
  for (const p of [`${W}/notes/a.md`, `${W}/a.txt`, `${W}/.git/objects/ab/cd`, `${W}/.git/index`, `${W}/src/.conversations.txt`])
    assert.equal(cacheable(p), true, p);
  for (const p of [
    `${W}/.conversations/c1/events.jsonl`,
    `${W}/.memory/entries.jsonl`,
    `${W}/.Goals/goals.json`,
    `${W}/.scheduler/jobs.json`,
    `${W}/.checkpoints/x.json`,
    'clawser_state/settings.json',
    'clawser_models/m/meta.json',
    W,
    'clawser_workspaces',
    '',
  ])
    assert.equal(cacheable(p), false, p);
  // A change at the root, the workspaces' folder or a workspace reaches kept files; a store's does not.
  for (const p of ['', 'clawser_workspaces', W, `${W}/a.txt`]) assert.equal(touchesCacheable(p), true, p);
  for (const p of [`${W}/.conversations/c1/events.jsonl`, 'clawser_state/settings.json', 'clawser_models'])
    assert.equal(touchesCacheable(p), false, p);
});

test('a kept file comes back as a copy: changing what a caller got does not change the cache', () => {
  const c = new ReadCache();
  assert.equal(c.put(`${W}/a`, bytes(4, 7), c.ticket()), true);
  const got = /** @type {Uint8Array} */ (c.get(`${W}/a`));
  got.fill(0);
  assert.deepEqual([.../** @type {Uint8Array} */ (c.get(`${W}/a`))], [7, 7, 7, 7]);
  assert.equal(c.get(`${W}/missing`), undefined);
  // Control: a store's file is never kept.
  assert.equal(c.put(`${W}/.memory/entries.jsonl`, bytes(4), c.ticket()), false);
  assert.equal(c.get(`${W}/.memory/entries.jsonl`), undefined);
});

test('bounded by bytes: the least recently used file goes first, and a file too large is never kept', () => {
  const c = new ReadCache({ maxBytes: 100, maxFileBytes: 60 });
  c.put(`${W}/a`, bytes(40), c.ticket());
  c.put(`${W}/b`, bytes(40), c.ticket());
  // Reading a makes b the least recently used.
  assert.ok(c.get(`${W}/a`));
  c.put(`${W}/c`, bytes(40), c.ticket());
  assert.equal(c.bytes, 80);
  assert.ok(c.get(`${W}/a`));
  assert.equal(c.get(`${W}/b`), undefined);
  assert.ok(c.get(`${W}/c`));
  assert.equal(c.put(`${W}/big`, bytes(61), c.ticket()), false);
  assert.equal(c.bytes, 80);
  // Replacing a file counts its new size, not both.
  c.put(`${W}/a`, bytes(10), c.ticket());
  assert.equal(c.bytes, 50);
});

test('bounded by entries, stats included', () => {
  const c = new ReadCache({ maxEntries: 3 });
  for (const n of ['a', 'b', 'c', 'd']) c.putStat(`${W}/${n}`, { kind: 'file', size: 1, mtimeMs: 1 }, c.ticket());
  assert.equal(c.size, 3);
  assert.equal(c.getStat(`${W}/a`), undefined);
  assert.deepEqual(c.getStat(`${W}/d`), { kind: 'file', size: 1, mtimeMs: 1 });
});

test('a change forgets the file, the stats of its folders, and everything under a deleted or moved folder', () => {
  const c = new ReadCache();
  const t = c.ticket();
  c.put(`${W}/src/a.txt`, bytes(3), t);
  c.put(`${W}/src/sub/b.txt`, bytes(3), t);
  c.put(`${W}/other.txt`, bytes(3), t);
  c.putStat(`${W}/src`, { kind: 'directory', size: 0 }, t);
  c.putStat(`${W}/src/sub`, { kind: 'directory', size: 0 }, t);
  c.invalidate({ files: [`${W}/src/sub/new.txt`] });
  assert.equal(c.getStat(`${W}/src/sub`), undefined);
  assert.equal(c.getStat(`${W}/src`), undefined);
  assert.ok(c.get(`${W}/src/a.txt`), 'a sibling stays');
  c.invalidate({ trees: [`${W}/src`] });
  assert.equal(c.get(`${W}/src/a.txt`), undefined);
  assert.equal(c.get(`${W}/src/sub/b.txt`), undefined);
  assert.ok(c.get(`${W}/other.txt`), 'outside the folder stays');
  // A folder named like the start of another is not inside it.
  c.put(`${W}/srcx/c.txt`, bytes(3), c.ticket());
  c.invalidate({ trees: [`${W}/src`] });
  assert.ok(c.get(`${W}/srcx/c.txt`));
  c.invalidate({ trees: [''] });
  assert.equal(c.size, 0);
  assert.equal(c.bytes, 0);
});

test('a read begun before a change is not kept (its answer may be what the change replaced)', () => {
  const c = new ReadCache();
  const before = c.ticket();
  c.invalidate({ files: [`${W}/elsewhere.txt`] });
  assert.equal(c.put(`${W}/a`, bytes(3), before), false);
  assert.equal(c.putStat(`${W}/a`, { kind: 'file', size: 3 }, before), false);
  assert.equal(c.get(`${W}/a`), undefined);
  // Control: a read begun after the change is kept.
  assert.equal(c.put(`${W}/a`, bytes(3), c.ticket()), true);
});

test('disabled, it keeps nothing, and reads begun while disabled are not kept after enable', () => {
  const c = new ReadCache();
  c.put(`${W}/a`, bytes(3), c.ticket());
  c.disable();
  assert.equal(c.get(`${W}/a`), undefined);
  const during = c.ticket();
  assert.equal(c.put(`${W}/b`, bytes(3), during), false);
  c.enable();
  assert.equal(c.put(`${W}/b`, bytes(3), during), false);
  assert.equal(c.put(`${W}/b`, bytes(3), c.ticket()), true);
});

test('a stat that disagrees with the kept bytes (size or time) drops them; one that agrees keeps them', () => {
  const c = new ReadCache();
  c.put(`${W}/a`, bytes(3), c.ticket(), { kind: 'file', size: 3, mtimeMs: 10 });
  c.putStat(`${W}/a`, { kind: 'file', size: 3, mtimeMs: 10 }, c.ticket());
  assert.ok(c.get(`${W}/a`), 'same size and time');
  c.putStat(`${W}/a`, { kind: 'file', size: 3, mtimeMs: 11 }, c.ticket());
  assert.equal(c.get(`${W}/a`), undefined, 'another time');
  c.put(`${W}/b`, bytes(3), c.ticket());
  c.putStat(`${W}/b`, { kind: 'file', size: 4, mtimeMs: 1 }, c.ticket());
  assert.equal(c.get(`${W}/b`), undefined, 'another size');
  assert.equal(c.bytes, 0);
  c.put(`${W}/d`, bytes(3), c.ticket());
  c.putStat(`${W}/d`, { kind: 'directory', size: 0 }, c.ticket());
  assert.equal(c.get(`${W}/d`), undefined, 'a folder there now');
});

test("a folder's listing is kept until something inside it changes; it counts in the bytes bound", () => {
  const c = new ReadCache();
  const list = [
    { name: 'a.txt', kind: /** @type {const} */ ('file') },
    { name: 'sub', kind: /** @type {const} */ ('directory') },
  ];
  assert.equal(c.putList(`${W}/src`, list, c.ticket()), true);
  const got = /** @type {import('../../web/storage/types.d.ts').DirEntry[]} */ (c.getList(`${W}/src`));
  got[0].name = 'changed';
  assert.deepEqual(c.getList(`${W}/src`), list, 'a copy each time');
  assert.ok(c.bytes > 0);
  // A change to a file in it (created, written, deleted) or deeper forgets the listing.
  c.invalidate({ files: [`${W}/src/sub/deep/new.txt`] });
  assert.equal(c.getList(`${W}/src`), undefined);
  assert.equal(c.bytes, 0);
  c.putList(`${W}/src`, list, c.ticket());
  c.invalidate({ trees: [`${W}/src/sub`] });
  assert.equal(c.getList(`${W}/src`), undefined, 'a folder inside it deleted or moved');
  // Control: a change beside it leaves it.
  c.putList(`${W}/src`, list, c.ticket());
  c.invalidate({ files: [`${W}/other/x.txt`] });
  assert.deepEqual(c.getList(`${W}/src`), list);
  // A file where the folder was: the listing goes.
  c.putStat(`${W}/src`, { kind: 'file', size: 1, mtimeMs: 1 }, c.ticket());
  assert.equal(c.getList(`${W}/src`), undefined);
  // Never a store's folder, nor a workspace's top (Clawser's own folders are made there unannounced).
  assert.equal(c.putList(`${W}/.conversations`, list, c.ticket()), false);
  assert.equal(c.putList(W, list, c.ticket()), false);
});
