import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryStore } from '../../web/memory/store.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { ScopedFileSystem } from '../../web/storage/scoped-fs.js';
import { memoryStore, memoryRecall, memoryForget } from '../../web/tools/memory.js';
import { toolSettings } from '../../web/tools/index.js';

test('memory store: same-key merge (newer wins), recall, forget, survives a reload from the log', async () => {
  const fs = new ScopedFileSystem(new MemoryFileSystem(), 'ws');
  let clock = 1000;
  const store = new MemoryStore({ fs, now: () => clock++ });
  await store.store({ key: 'Preferred language', content: 'The user writes TypeScript.', category: 'user' });
  await store.store({ key: 'project', content: 'Clawser is a browser agent workspace.', category: 'core' });
  const merged = await store.store({ key: 'preferred  LANGUAGE', content: 'The user prefers Rust now.', category: 'user' });
  assert.equal(store.size, 2, 'same key (case and spaces ignored) merged');
  assert.equal((await store.recall('which language does the user prefer'))[0].content, 'The user prefers Rust now.');
  assert.deepEqual(
    (await store.recall('typescript')).map((h) => h.id),
    [],
    'the replaced content is no longer indexed',
  );
  // A reload reads the append-only log and ends in the same state.
  const again = new MemoryStore({ fs });
  await again.load();
  assert.equal(again.size, 2);
  assert.equal((await again.list({ category: 'user' }))[0].id, merged.id);
  assert.equal(await again.forget('project'), true);
  assert.equal(await again.forget('project'), false);
  const third = new MemoryStore({ fs });
  assert.deepEqual(
    (await third.list()).map((e) => e.key),
    ['preferred  LANGUAGE'.trim()],
  );
  // A torn last line (tab closed mid-write) is skipped, the rest loads.
  await fs.append('.memory/entries.jsonl', '{"op":"put","entry":{"id":"x","key":');
  const fourth = new MemoryStore({ fs });
  assert.equal((await fourth.load()).skipped, 1);
  assert.equal(fourth.size, 1);
});

test('memory store: many stores in a burst are batched into few appends; export/import merges by key', async () => {
  const mem = new MemoryFileSystem();
  const fs = new ScopedFileSystem(mem, 'ws');
  let appends = 0;
  const realAppend = fs.append.bind(fs);
  fs.append = async (p, d) => {
    appends++;
    return realAppend(p, d);
  };
  const store = new MemoryStore({ fs });
  await Promise.all(
    Array.from({ length: 200 }, (_, i) => store.store({ key: `fact ${i}`, content: `Fact number ${i} about topic ${i % 7}` })),
  );
  assert.equal(store.size, 200);
  assert.ok(appends < 200, `batched (${appends} appends)`);
  const exported = await store.exportJson();
  const other = new MemoryStore({ fs: new ScopedFileSystem(new MemoryFileSystem(), 'ws2') });
  await other.store({ key: 'fact 1', content: 'newer local version' });
  const result = await other.importJson(exported);
  assert.equal(result.imported, 199, 'the newer local "fact 1" is kept');
  assert.equal((await other.list()).find((e) => e.key === 'fact 1')?.content, 'newer local version');
  await assert.rejects(other.importJson({ format: 'something-else', entries: [] }));
});

test('memory tools: store, recall, forget through the tool interface', async () => {
  const memory = new MemoryStore({ fs: new ScopedFileSystem(new MemoryFileSystem(), 'ws') });
  const ctx = { workspaceId: 'w', fs: new MemoryFileSystem(), settings: toolSettings(), fetch: globalThis.fetch, memory };
  assert.match(
    (await memoryStore.run({ key: 'deadline', content: 'The report is due on Friday.', category: 'context' }, ctx)).output,
    /Remembered "deadline" \(context\)/,
  );
  assert.match(
    (await memoryRecall.run({ query: 'when is the report due' }, ctx)).output,
    /\[context\] deadline: The report is due on Friday\./,
  );
  assert.equal((await memoryRecall.run({ query: 'bananas' }, ctx)).output, 'No matching memories.');
  assert.equal((await memoryForget.run({ key: 'deadline' }, ctx)).ok, true);
  assert.equal((await memoryForget.run({ key: 'deadline' }, ctx)).ok, false);
  assert.equal(memoryForget.permission, 'write');
});

test("two tabs on one memory log: appends serialized, each reads the other's, compaction keeps both, deletions carry over", async () => {
  const { localLock } = await import('../../web/stores/scheduler.js');
  const fs = new MemoryFileSystem();
  const lock = localLock();
  /** @type {Set<{topic: string, fn: (data: unknown, from: string) => void, tab: string}>} */
  const subs = new Set();
  const settle = () => new Promise((r) => setTimeout(r, 0));
  /** An in-process stand-in for TabCoordinator: a shared lock and a bus to the other tab. @param {string} tab */
  const tabOf = (tab) => ({
    withLock: (/** @type {string} */ key, /** @type {() => Promise<any>} */ fn) => lock(key, fn),
    publish: (/** @type {string} */ topic, /** @type {unknown} */ data) => {
      for (const s of subs) if (s.topic === topic && s.tab !== tab) queueMicrotask(() => s.fn(data, tab));
    },
    subscribe: (/** @type {string} */ topic, /** @type {(data: unknown, from: string) => void} */ fn) => {
      const s = { topic, fn, tab };
      subs.add(s);
      return () => subs.delete(s);
    },
  });
  let clock = 1000;
  const a = new MemoryStore({ fs, coordination: tabOf('a'), key: 'ws', now: () => clock++ });
  const b = new MemoryStore({ fs, coordination: tabOf('b'), key: 'ws', now: () => clock++ });
  await Promise.all([a.load(), b.load()]);
  let bChanged = 0;
  b.subscribe(() => bChanged++);
  await Promise.all([
    ...Array.from({ length: 20 }, (_, i) => a.store({ key: `a${i}`, content: `from tab a ${i}` })),
    ...Array.from({ length: 20 }, (_, i) => b.store({ key: `b${i}`, content: `from tab b ${i}` })),
  ]);
  for (let i = 0; i < 5; i++) await settle();
  assert.equal(a.size, 40);
  assert.equal(b.size, 40);
  assert.ok(bChanged > 0, 'b was told');
  // The same key from both tabs: the newer one wins everywhere, and after a reload.
  await a.store({ key: 'shared', content: 'older' });
  await b.store({ key: 'shared', content: 'newer' });
  for (let i = 0; i < 5; i++) await settle();
  assert.equal((await a.recall('shared'))[0].content, 'newer');
  const fresh = new MemoryStore({ fs });
  await fresh.load();
  assert.equal(fresh.size, 41);
  assert.equal((await fresh.recall('shared'))[0].content, 'newer');
  // Many changes in a: its compaction rewrites the log and keeps b's memories; b sees a's deletions.
  for (let r = 0; r < 50; r++)
    for (let i = 0; i < 20; i++) await a.update((await a.recall(`a${i}`))[0].id, { content: `from tab a ${i} rev ${r}` });
  for (let i = 10; i < 20; i++) await a.forget(`a${i}`);
  for (let i = 0; i < 5; i++) await settle();
  const log = await fs.readText('.memory/entries.jsonl');
  assert.ok(log.split('\n').length < 200, 'the log was compacted');
  await b.store({ key: 'after compaction', content: 'still here' });
  for (let i = 0; i < 5; i++) await settle();
  assert.deepEqual((await b.list()).map((e) => e.key).sort(), (await a.list()).map((e) => e.key).sort());
  assert.equal(b.size, 32);
  assert.equal(a.size, 32);
  const reloaded = new MemoryStore({ fs });
  await reloaded.load();
  assert.deepEqual((await reloaded.list()).map((e) => e.key).sort(), [...(await a.list()).map((e) => e.key)].sort());
  assert.equal((await reloaded.recall('a3'))[0].content, 'from tab a 3 rev 49');
});

test('a memory folder written by a newer version is left alone with a clear error', async () => {
  const fs = new MemoryFileSystem();
  await fs.write('.memory/meta.json', JSON.stringify({ format: 99 }));
  await fs.write('.memory/entries.jsonl', '{"future":"line"}\n');
  const store = new MemoryStore({ fs });
  await assert.rejects(store.load(), { code: 'newer_format', message: /newer version of Clawser \(format 99\); update Clawser/ });
  assert.equal(await fs.readText('.memory/entries.jsonl'), '{"future":"line"}\n');
  assert.equal(await fs.readText('.memory/meta.json'), '{"format":99}');
});
