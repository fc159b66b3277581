// CheckpointManager on the memory file system: save/load/latest/list, sortable ids, keep-10
// pruning with the index, damaged files skipped and reported, failed saves keeping the
// earlier checkpoints, typed errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CheckpointManager, CheckpointError, CheckpointStateSchema } from '../../web/agent/coordination/checkpoint.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { ScopedFileSystem } from '../../web/storage/scoped-fs.js';
import { StorageError, QUOTA_MESSAGE } from '../../web/storage/errors.js';

/** A running turn that started when its conversation's log was `n` KB long. @param {number} n */
const turnAt = (n) => ({ status: /** @type {const} */ ('running'), startedAt: n, bytes: n * 1024 });

function manager(fs = new MemoryFileSystem(), options = {}) {
  let clock = Date.UTC(2026, 4, 1, 12);
  return {
    fs,
    cm: new CheckpointManager({ fs, now: () => (clock += 1000), ...options }),
    tick: (/** @type {number} */ ms) => (clock += ms),
  };
}

test('save → latest/load return the same state; the file is one JSON per checkpoint under .checkpoints/ plus an index', async () => {
  const { fs, cm } = manager();
  assert.deepEqual(await cm.latest(), { checkpoint: null, skipped: [] });
  assert.deepEqual(await cm.list(), []);
  const input = { workspaceId: 'ws1', conversationId: 'conv1', turn: turnAt(50) };
  const info = await cm.save(input);
  assert.match(info.id, /^[0-9a-z]{9}-[0-9a-z]{4}$/);
  assert.equal(info.conversationId, 'conv1');
  assert.equal(info.turnStatus, 'running');
  assert.equal(info.bytes, (await fs.stat(`.checkpoints/${info.id}.json`))?.size);
  const { checkpoint, skipped } = await cm.latest();
  assert.deepEqual(skipped, []);
  assert.deepEqual(checkpoint?.info, info);
  assert.deepEqual(checkpoint?.state, { ...input, version: 2, savedAt: info.at });
  assert.deepEqual(await cm.load(info.id), checkpoint);
  assert.deepEqual((await fs.list('.checkpoints')).map((e) => e.name).sort(), [`${info.id}.json`, 'index.json']);
  const index = JSON.parse(await fs.readText('.checkpoints/index.json'));
  assert.deepEqual(index, { version: 1, checkpoints: [info] });
  // Over a workspace-scoped file system, as the app uses it.
  const root = new MemoryFileSystem();
  const scoped = new CheckpointManager({ fs: new ScopedFileSystem(root, 'clawser_workspaces/ws1') });
  const s = await scoped.save({ workspaceId: 'ws1', turn: { status: 'idle' } });
  assert.ok(await root.stat(`clawser_workspaces/ws1/.checkpoints/${s.id}.json`));
});

test('ids sort by time, also when saves land in the same millisecond; list is newest first', async () => {
  const fs = new MemoryFileSystem();
  const cm = new CheckpointManager({ fs, now: () => 1_000_000 });
  const ids = [];
  for (let i = 0; i < 5; i++) ids.push((await cm.save({ workspaceId: 'w', turn: { status: 'idle' } })).id);
  assert.deepEqual([...ids].sort(), ids, 'ascending in save order');
  assert.equal(new Set(ids).size, 5);
  assert.deepEqual(
    (await cm.list()).map((c) => c.id),
    [...ids].reverse(),
  );
  // A second manager over the same files (a reload, with the clock behind) continues after them.
  const again = new CheckpointManager({ fs, now: () => 5 });
  await again.list();
  const next = (await again.save({ workspaceId: 'w', turn: { status: 'idle' } })).id;
  assert.ok(next > ids[4]);
  // Concurrent saves all land.
  await Promise.all(Array.from({ length: 3 }, () => cm.save({ workspaceId: 'w', turn: { status: 'idle' } })));
  assert.equal((await cm.list()).length, 9);
});

test('keeps the newest 10 by default: older files and their index entries are deleted; prune({keep}) on demand', async () => {
  const { fs, cm } = manager();
  const ids = [];
  for (let i = 0; i < 13; i++) ids.push((await cm.save({ workspaceId: 'w', turn: turnAt(i) })).id);
  const listed = await cm.list();
  assert.deepEqual(
    listed.map((c) => c.id),
    ids.slice(3).reverse(),
  );
  for (const id of ids.slice(0, 3)) assert.equal(await fs.stat(`.checkpoints/${id}.json`), null);
  assert.deepEqual(
    JSON.parse(await fs.readText('.checkpoints/index.json')).checkpoints.map((/** @type {any} */ c) => c.id),
    ids.slice(3).reverse(),
  );
  await assert.rejects(cm.load(ids[0]), { name: 'CheckpointError', code: 'not_found' });
  assert.deepEqual(await cm.prune({ keep: 2 }), ids.slice(3, 11).reverse());
  assert.deepEqual(
    (await cm.list()).map((c) => c.id),
    [ids[12], ids[11]],
  );
  const small = manager(new MemoryFileSystem(), { keep: 3 }).cm;
  for (let i = 0; i < 6; i++) await small.save({ workspaceId: 'w', turn: { status: 'idle' } });
  assert.equal((await small.list()).length, 3);
});

test('damaged or partial files are skipped with a report (moved to damaged/), never thrown; the index is only a cache', async () => {
  const { fs, cm } = manager();
  const good = await cm.save({ workspaceId: 'w', turn: turnAt(3) });
  const older = await cm.save({ workspaceId: 'w', turn: turnAt(2) });
  // Newer files: cut off mid-write, empty, wrong shape, newer format, id mismatch; plus stray files.
  const text = await fs.readText(`.checkpoints/${good.id}.json`);
  await fs.write('.checkpoints/zzzzzzzz5-0000.json', text.slice(0, text.length / 2));
  await fs.write('.checkpoints/zzzzzzzz4-0000.json', '');
  await fs.write(
    '.checkpoints/zzzzzzzz3-0000.json',
    JSON.stringify({ id: 'zzzzzzzz3-0000', at: 1, state: { version: 2, workspaceId: 'w', savedAt: 1, turn: { status: 'robot' } } }),
  );
  await fs.write('.checkpoints/zzzzzzzz2-0000.json', JSON.stringify({ id: 'zzzzzzzz2-0000', at: 1, state: { version: 3 } }));
  await fs.write('.checkpoints/zzzzzzzz1-0000.json', text);
  await fs.write('.checkpoints/notes.txt', 'not a checkpoint');
  await fs.write('.checkpoints/index.json', '{"broken');
  const { checkpoint, skipped } = await cm.latest();
  assert.equal(checkpoint?.info.id, older.id);
  assert.deepEqual(checkpoint?.state.turn, turnAt(2));
  assert.deepEqual(
    skipped.map((s) => s.id),
    ['zzzzzzzz5-0000', 'zzzzzzzz4-0000', 'zzzzzzzz3-0000', 'zzzzzzzz2-0000', 'zzzzzzzz1-0000'],
  );
  assert.match(skipped[0].reason, /not valid JSON \(cut off or damaged\)/);
  assert.match(skipped[1].reason, /not valid JSON \(empty\)/);
  assert.match(skipped[2].reason, /turn\.status/);
  assert.match(skipped[3].reason, /newer version of Clawser \(format 3\)/);
  assert.match(skipped[4].reason, /holds checkpoint/);
  assert.equal(skipped[0].path, '.checkpoints/zzzzzzzz5-0000.json');
  // Reported once: they were moved aside, so the next start is clean.
  assert.equal((await fs.list('.checkpoints/damaged')).length, 5);
  assert.deepEqual((await cm.latest()).skipped, []);
  // The broken index does not matter: list() falls back to the files.
  const fresh = new CheckpointManager({ fs });
  assert.deepEqual(
    (await fresh.list()).map((c) => [c.id, c.at, c.bytes]),
    [
      [older.id, older.at, older.bytes],
      [good.id, good.at, good.bytes],
    ],
  );
  await assert.rejects(cm.load('zzzzzzzz5-0000'), { code: 'not_found' });
  await assert.rejects(cm.load('../../etc'), { code: 'not_found' });
  // A save rewrites the index; damaged files are pruned down to `keep` as well.
  const small = new CheckpointManager({ fs, keep: 2 });
  await small.save({ workspaceId: 'w', turn: { status: 'idle' } });
  await small.idle();
  assert.equal(JSON.parse(await fs.readText('.checkpoints/index.json')).checkpoints.length, 2);
  assert.deepEqual(
    (await fs.list('.checkpoints/damaged')).map((e) => e.name),
    ['zzzzzzzz4-0000.json', 'zzzzzzzz5-0000.json'],
  );
});

test('a failed save (storage full, other errors) keeps every earlier checkpoint and surfaces a typed error', async () => {
  const { fs, cm } = manager();
  const first = await cm.save({ workspaceId: 'w', turn: turnAt(4) });
  await cm.idle();
  const indexBefore = await fs.readText('.checkpoints/index.json');
  fs.failNextWrite = new StorageError('quota', QUOTA_MESSAGE);
  await assert.rejects(cm.save({ workspaceId: 'w', turn: turnAt(9) }), (/** @type {any} */ err) => {
    assert.ok(err instanceof CheckpointError);
    assert.equal(err.code, 'quota');
    assert.match(err.message, /storage is full\. Earlier checkpoints were kept/);
    assert.equal(/** @type {any} */ (err.cause).code, 'quota');
    return true;
  });
  fs.failNextWrite = Object.assign(new Error('quota exceeded'), { name: 'QuotaExceededError' });
  await assert.rejects(cm.save({ workspaceId: 'w', turn: turnAt(9) }), { code: 'quota' });
  fs.failNextWrite = new StorageError('io', 'disk on fire');
  await assert.rejects(cm.save({ workspaceId: 'w', turn: turnAt(9) }), {
    code: 'io',
    message: /disk on fire\. Earlier checkpoints were kept/,
  });
  assert.deepEqual(
    (await cm.list()).map((c) => c.id),
    [first.id],
  );
  assert.equal(await fs.readText('.checkpoints/index.json'), indexBefore);
  assert.deepEqual((await cm.latest()).checkpoint?.state.turn, turnAt(4));
  // The next save works again.
  assert.equal((await cm.save({ workspaceId: 'w', turn: turnAt(9) })).turnStatus, 'running');
  assert.equal((await cm.list()).length, 2);
});

test('invalid or oversized state is refused before anything is written; a copy of the history is not a checkpoint', async () => {
  const { fs, cm } = manager(new MemoryFileSystem(), { maxBytes: 300 });
  await assert.rejects(cm.save(/** @type {any} */ ({ turn: { status: 'idle' } })), { code: 'invalid_state', message: /workspaceId/ });
  await assert.rejects(cm.save(/** @type {any} */ ({ workspaceId: 'w', turn: { status: 'lost' } })), {
    code: 'invalid_state',
    message: /turn\.status/,
  });
  await assert.rejects(cm.save(/** @type {any} */ ({ workspaceId: 'w', turn: { status: 'running', bytes: -1 } })), {
    code: 'invalid_state',
    message: /turn\.bytes/,
  });
  // Checkpoints hold ids and offsets: the messages of a conversation (or its request text) are refused.
  await assert.rejects(
    cm.save(/** @type {any} */ ({ workspaceId: 'w', session: { messages: [{ role: 'user', content: 'my secret plan' }] } })),
    { code: 'invalid_state', message: /session/ },
  );
  await assert.rejects(cm.save(/** @type {any} */ ({ workspaceId: 'w', turn: { status: 'running', userText: 'my secret plan' } })), {
    code: 'invalid_state',
    message: /userText/,
  });
  await assert.rejects(cm.save({ workspaceId: 'w'.repeat(500) }), { code: 'too_large', message: /more than the/ });
  assert.equal(await fs.stat('.checkpoints'), null);
  const info = await cm.save({ workspaceId: 'w', turn: { status: 'idle' } });
  const loaded = await cm.load(info.id);
  assert.deepEqual(loaded.state.turn, { status: 'idle' });
  assert.equal(CheckpointStateSchema.safeParse(loaded.state).success, true);
});

test('a format-1 checkpoint (with a copy of the history) is read without the copy', async () => {
  const { fs, cm } = manager();
  await fs.write(
    '.checkpoints/000000001-0000.json',
    JSON.stringify({
      id: '000000001-0000',
      at: 1,
      state: {
        version: 1,
        workspaceId: 'w',
        conversationId: 'c1',
        savedAt: 1,
        session: { messages: [{ role: 'user', content: 'old copy' }] },
        turn: { status: 'running', userText: 'old copy', startedAt: 7 },
        extra: {},
      },
    }),
  );
  const { checkpoint } = await cm.latest();
  assert.deepEqual(checkpoint?.state, {
    version: 2,
    workspaceId: 'w',
    conversationId: 'c1',
    savedAt: 1,
    turn: { status: 'running', startedAt: 7 },
  });
});

test('forget(conversationId) deletes every checkpoint file that mentions the conversation, damaged ones too, \
and rewrites the index', async () => {
  const { fs, cm } = manager();
  const keep = await cm.save({ workspaceId: 'w', conversationId: 'c-other', turn: turnAt(1) });
  await cm.save({ workspaceId: 'w', conversationId: 'c-gone', turn: turnAt(2) });
  await cm.save({ workspaceId: 'w', conversationId: 'c-gone', turn: { status: 'idle' } });
  await fs.write('.checkpoints/damaged/000000002-0000.json', '{"id":"000000002-0000","state":{"conversationId":"c-gone","ses');
  await fs.write('.checkpoints/damaged/000000003-0000.json', '{"id":"000000003-0000","state":{"conversationId":"c-other"');
  await cm.idle();
  // Control: the files mention it before.
  const mentions = async () => {
    let n = 0;
    for (const dir of ['.checkpoints', '.checkpoints/damaged']) {
      for (const e of await fs.list(dir)) if (e.kind === 'file' && (await fs.readText(`${dir}/${e.name}`)).includes('c-gone')) n++;
    }
    return n;
  };
  assert.equal(await mentions(), 4, 'two checkpoints, the index and a damaged file');
  assert.equal(await cm.forget('c-gone'), 3);
  assert.equal(await mentions(), 0);
  assert.deepEqual(
    (await cm.list()).map((c) => c.id),
    [keep.id],
  );
  assert.deepEqual(
    (await fs.list('.checkpoints/damaged')).map((e) => e.name),
    ['000000003-0000.json'],
  );
  assert.equal(await cm.forget('c-none'), 0);
});

test('housekeeping after a save (index, pruning) never fails the save; a later save heals the index', async () => {
  const inner = new MemoryFileSystem();
  let failIndex = true;
  // Writes of the index fail (storage full) while the checkpoint files themselves get through.
  const fs = new Proxy(inner, {
    get(target, prop) {
      if (prop === 'write') {
        return (/** @type {string} */ path, /** @type {string | Uint8Array} */ data, /** @type {any} */ options) =>
          failIndex && path.endsWith('index.json')
            ? Promise.reject(new StorageError('quota', QUOTA_MESSAGE))
            : /** @type {import('../../web/storage/types.d.ts').FileSystem} */ (target).write(path, data, options);
      }
      const value = Reflect.get(target, prop);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const { cm } = manager(fs, { keep: 3 });
  const infos = [];
  for (let i = 0; i < 5; i++) infos.push(await cm.save({ workspaceId: 'w', conversationId: `c${i}`, turn: turnAt(i) }));
  await cm.idle();
  assert.equal(await inner.stat('.checkpoints/index.json'), null);
  assert.deepEqual(
    (await cm.list()).map((c) => c.id),
    infos
      .slice(2)
      .map((c) => c.id)
      .reverse(),
    'pruned even though the index could not be written',
  );
  failIndex = false;
  const last = await cm.save({ workspaceId: 'w', turn: turnAt(1) });
  await cm.idle();
  // A new manager (a reload) reads the healed index: full summaries, not just file sizes.
  assert.deepEqual(await new CheckpointManager({ fs: inner }).list(), [last, infos[4], infos[3]]);
});

test('a checkpoint file, new and of its own name, is written in place ({atomic: false}), as the index', async () => {
  const inner = new MemoryFileSystem();
  /** @type {[string, unknown][]} */
  const writes = [];
  const fs = new Proxy(inner, {
    get(target, prop) {
      if (prop === 'write') {
        return (/** @type {string} */ path, /** @type {string | Uint8Array} */ data, /** @type {any} */ options) => {
          writes.push([path.replace(/[0-9a-z]{9}-[0-9a-z]{4}/, 'ID'), options]);
          return target.write(path, data);
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const { cm } = manager(fs);
  await cm.save({ workspaceId: 'w', conversationId: 'c', turn: turnAt(1) });
  await cm.idle();
  assert.deepEqual(writes, [
    ['.checkpoints/ID.json', { atomic: false }],
    ['.checkpoints/index.json', { atomic: false }],
  ]);
});

test("a recent checkpoint that is empty or cut off may be another tab's being written: latest() passes over it without setting it aside; \
an older one is set aside", async () => {
  let clock = 5_000_000;
  const fs = new MemoryFileSystem();
  const cm = new CheckpointManager({ fs, now: () => clock });
  const good = await cm.save({ workspaceId: 'w', turn: turnAt(1) });
  await cm.idle();
  const text = await fs.readText(`.checkpoints/${good.id}.json`);
  // Another tab's save, 2 s later, read half-written.
  const writing = `${(clock + 2000).toString(36).padStart(9, '0')}-abcd`;
  await fs.write(`.checkpoints/${writing}.json`, text.slice(0, 20));
  clock += 3000;
  const now = await cm.latest();
  assert.equal(now.checkpoint?.info.id, good.id);
  assert.deepEqual(now.skipped, [], 'not reported');
  assert.equal(await fs.readText(`.checkpoints/${writing}.json`), text.slice(0, 20), 'not moved');
  // Still cut off long after: damaged, set aside and reported.
  clock += 60_000;
  const later = await cm.latest();
  assert.equal(later.checkpoint?.info.id, good.id);
  assert.deepEqual(
    later.skipped.map((s) => s.id),
    [writing],
  );
  assert.equal(await fs.stat(`.checkpoints/${writing}.json`), null);
});
