// The embedding path in Node: the real transformers.js feature-extraction pipeline (Node's
// onnxruntime) on the tiny hand-built model, driven through the same worker logic
// (embed-core.js) and Embedder client the browser uses, with an in-process "worker"; then
// MemoryStore's background queue, vectors.bin persistence and hybrid recall.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Embedder, EmbedderError } from '../../web/memory/embedder.js';
import { createEmbedWorkerHost } from '../../web/memory/embed-core.js';
import { ModelInstaller } from '../../web/memory/model-install.js';
import { MemoryStore } from '../../web/memory/store.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { ScopedFileSystem } from '../../web/storage/scoped-fs.js';
import { writeTinyModel, tinyModelFiles, MemoryCacheStorage } from '../fixtures/tiny-model.mjs';

/** @type {string} */ let modelRoot;
/** @type {string} */ let emptyRoot;
before(async () => {
  modelRoot = await mkdtemp(join(tmpdir(), 'clawser-tiny-model-'));
  emptyRoot = await mkdtemp(join(tmpdir(), 'clawser-no-model-'));
  await writeTinyModel(modelRoot);
});
after(async () => {
  await rm(modelRoot, { recursive: true, force: true });
  await rm(emptyRoot, { recursive: true, force: true });
});

/**
 * A Worker stand-in running embed-core in this process; messages are structured-cloned and
 * delivered on a later turn, as between a page and a worker.
 * @param {{cacheStorage?: CacheStorage | null, log?: unknown[]}} [options]
 * @returns {() => import('../../web/memory/embedder.js').WorkerLike}
 */
function inProcessWorker(options = {}) {
  return () => {
    let terminated = false;
    /** @type {import('../../web/memory/embedder.js').WorkerLike} */
    const worker = {
      onmessage: null,
      onerror: null,
      postMessage(message) {
        options.log?.push(message);
        setImmediate(() => {
          if (!terminated) handle(structuredClone(message));
        });
      },
      terminate() {
        terminated = true;
      },
    };
    const handle = createEmbedWorkerHost({
      importModule: (url) => import(url),
      post: (message) =>
        setImmediate(() => {
          if (!terminated) worker.onmessage?.({ data: structuredClone(message) });
        }),
      cacheStorage: options.cacheStorage ?? null,
    });
    return worker;
  };
}

/** @param {string} root @param {{log?: unknown[]}} [options] */
const nodeEmbedder = (root, options = {}) =>
  new Embedder({
    modelBaseUrl: `${root}/`,
    cacheName: null,
    transformersUrl: '@xenova/transformers',
    createWorker: inProcessWorker(options),
  });

/** @param {ArrayLike<number>} a @param {ArrayLike<number>} b */
const cos = (a, b) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};

test('real pipeline on the tiny model: 384-d unit vectors, similar texts closer than dissimilar, batches keep order', async () => {
  const embedder = nodeEmbedder(modelRoot);
  /** @type {string[]} */
  const states = [];
  embedder.subscribe((s) => states.push(s.state));
  const status = await embedder.load();
  assert.equal(status.state, 'ready');
  assert.deepEqual(status.model, { id: 'Xenova/all-MiniLM-L6-v2', dimensions: 384, fingerprint: 'Xenova/all-MiniLM-L6-v2' });
  assert.deepEqual(
    states.filter((s, i) => s !== states[i - 1]),
    ['idle', 'loading', 'ready'],
  );
  const [car, automobile, dog, puppy] = await embedder.embed(['My car is red', 'I drive an automobile', 'the dog likes pizza', 'a puppy']);
  assert.equal(car.length, 384);
  assert.ok(Math.abs(cos(car, car) - 1) < 1e-5, 'normalized');
  assert.ok(cos(car, automobile) > cos(car, dog) + 0.3, `car~automobile ${cos(car, automobile)} vs car~dog ${cos(car, dog)}`);
  assert.ok(cos(dog, puppy) > cos(dog, automobile), 'dog~puppy beats dog~automobile');
  // One at a time in the worker; the same text gives the same vector in any batch.
  const [again] = await embedder.embed(['My car is red']);
  assert.ok(cos(again, car) > 0.9999);
  // any: a wrong input on purpose
  await assert.rejects(embedder.embed(/** @type {any} */ ([1])), (err) => err instanceof EmbedderError && err.code === 'invalid_input');
  assert.deepEqual(await embedder.embed([]), []);
  embedder.dispose();
  await assert.rejects(embedder.embed(['x']), (err) => err instanceof EmbedderError && err.code === 'not_ready');
});

test('no model: load rejects quickly with model_missing and status missing; embed says so too', async () => {
  const embedder = nodeEmbedder(emptyRoot);
  const started = Date.now();
  await assert.rejects(
    embedder.load(),
    (err) => err instanceof EmbedderError && err.code === 'model_missing' && /no embedding model is installed/.test(err.message),
  );
  assert.ok(Date.now() - started < 5000, `fast (${Date.now() - started} ms)`);
  assert.equal(embedder.status.state, 'missing');
  assert.equal(embedder.status.code, 'model_missing');
  await assert.rejects(embedder.embed(['hello']), (err) => err instanceof EmbedderError && err.code === 'model_missing');

  // With Cache Storage configured and empty, the worker answers before importing transformers.
  const log = /** @type {unknown[]} */ ([]);
  const cached = new Embedder({
    modelBaseUrl: 'http://app.test/models/',
    transformersUrl: 'data:text/javascript,throw new Error("must not be imported")',
    createWorker: inProcessWorker({ cacheStorage: new MemoryCacheStorage(), log }),
  });
  await assert.rejects(cached.load(), (err) => err instanceof EmbedderError && err.code === 'model_missing');
});

test('installed into Cache Storage, the pipeline reads the files from there (the local URL keys transformers.js tries first)', async () => {
  const caches = new MemoryCacheStorage();
  const base = 'http://127.0.0.1:9/models/'; // nothing listens there: a fetch would fail
  const installer = new ModelInstaller({ caches, modelBaseUrl: base });
  const files = tinyModelFiles();
  await installer.importFiles(Object.entries(files).map(([path, b]) => ({ path, file: new Blob([b]) })));
  const embedder = new Embedder({
    modelBaseUrl: base,
    transformersUrl: '@xenova/transformers',
    createWorker: inProcessWorker({ cacheStorage: caches }),
  });
  const status = await embedder.load();
  assert.equal(status.model?.fingerprint, (await installer.status()).manifest?.fingerprint);
  const [a, b] = await embedder.embed(['weather forecast', 'rain and snow']);
  assert.ok(cos(a, b) > 0.5);
  embedder.dispose();
});

test('priority: a query overtakes queued background batches; timeouts and aborts reject with codes', async () => {
  const log = /** @type {any[]} */ ([]); // any: recorded worker messages
  const embedder = nodeEmbedder(modelRoot, { log });
  await embedder.load();
  const low = [
    embedder.embed(['car one'], { priority: 'low' }),
    embedder.embed(['car two'], { priority: 'low' }),
    embedder.embed(['car three'], { priority: 'low' }),
  ];
  const high = embedder.embed(['dog query'], { priority: 'high' });
  await Promise.all([...low, high]);
  const order = log.filter((m) => m.type === 'embed').map((m) => m.texts[0]);
  assert.deepEqual(order, ['car one', 'dog query', 'car two', 'car three'], 'the first low was already running; the query came next');
  const controller = new AbortController();
  const aborted = embedder.embed(['x'], { signal: controller.signal });
  controller.abort();
  await assert.rejects(aborted, (err) => err instanceof EmbedderError && err.code === 'aborted');
  await assert.rejects(embedder.embed(['y'], { timeoutMs: 0 }), (err) => err instanceof EmbedderError && err.code === 'timeout');
  assert.equal((await embedder.embed(['still works'])).length, 1);
  embedder.dispose();
});

/** @param {MemoryFileSystem} [mem] */
const workspace = (mem = new MemoryFileSystem()) => ({ mem, fs: new ScopedFileSystem(mem, 'ws') });

test('memory store: background embedding, vectors persist across a reload, semantic recall, changed text re-queued', async () => {
  const { mem, fs } = workspace();
  const embedder = nodeEmbedder(modelRoot);
  await embedder.load();
  const store = new MemoryStore({ fs, embedder, batchSize: 2, queryTimeoutMs: 5000 });
  /** @type {import('../../web/memory/store.js').EmbeddingState[]} */
  const states = [];
  store.subscribeEmbedding((s) => states.push(s));
  // One burst (as an import would be): the queue sees all four at once.
  await Promise.all([
    store.store({ key: 'vehicle', content: 'The user owns a red car.', category: 'user' }),
    store.store({ key: 'pet', content: 'Their dog is called Rex.', category: 'user' }),
    store.store({ key: 'food', content: 'Pizza every Friday.', category: 'user' }),
    store.store({ key: 'tooling', content: 'Uses the Helix editor for TypeScript code.', category: 'user' }),
  ]);
  assert.ok(store.embedding.pending > 0, 'store() returned before embedding');
  const done = await store.whenEmbedded();
  assert.equal(done.state, 'idle');
  assert.equal(done.vectors, 4);
  assert.ok(
    states.some((s) => s.state === 'running' && s.total === 4),
    'a "running, n of 4" state was observable',
  );
  assert.match(done.message, /4 memories embedded/);
  // Semantic: no word in common with "automobile", yet the car memory ranks first.
  const hits = await store.recall('automobile', { limit: 2 });
  assert.equal(hits[0]?.key, 'vehicle');
  assert.deepEqual(store.lastRecall, { mode: 'hybrid', reason: 'embedded' });
  await store.recall('automobile');
  assert.deepEqual(store.lastRecall, { mode: 'hybrid', reason: 'cached' });
  assert.ok(await mem.stat('ws/.memory/vectors.bin'));

  // Reload without any embedder: the vectors come from vectors.bin.
  const reloaded = new MemoryStore({ fs });
  const loaded = await reloaded.load();
  assert.deepEqual(loaded.vectors, { loaded: 4, stale: 0, torn: false });
  assert.equal(reloaded.index.vectorCount, 4);
  assert.equal(reloaded.embedding.state, 'off');
  assert.equal(reloaded.embedding.pending, 0);
  // Keyword-only recall without an embedder.
  assert.equal((await reloaded.recall('pizza'))[0]?.key, 'food');
  assert.deepEqual(reloaded.lastRecall, { mode: 'keyword', reason: 'off' });

  // Changing the text drops the vector and queues it again; a pin keeps it.
  reloaded.attachEmbedder(embedder);
  const pet = (await reloaded.list()).find((e) => e.key === 'pet');
  await reloaded.update(/** @type {string} */ (pet?.id), { pinned: true });
  assert.equal(reloaded.embedding.pending, 0, 'a pin does not re-embed');
  await reloaded.store({ key: 'pet', content: 'They have a kitten now.' });
  assert.equal(reloaded.index.vectorCount, 3);
  assert.equal((await reloaded.whenEmbedded()).vectors, 4);
  assert.equal((await reloaded.recall('cat', { limit: 1 }))[0]?.key, 'pet');

  // A third load sees the new vector for the new text, and the old record as stale.
  const third = new MemoryStore({ fs });
  assert.deepEqual((await third.load()).vectors, { loaded: 4, stale: 1, torn: false });
  embedder.dispose();
});

test('memory store: a torn vectors.bin tail is cut off; another model means re-embedding; stale records are compacted', async () => {
  const { mem, fs } = workspace();
  const embedder = nodeEmbedder(modelRoot);
  await embedder.load();
  const store = new MemoryStore({ fs, embedder });
  for (let i = 0; i < 5; i++) await store.store({ key: `car fact ${i}`, content: `The car number ${i} is red.` });
  await store.whenEmbedded();
  const full = await mem.readBytes('ws/.memory/vectors.bin');
  await mem.append('ws/.memory/vectors.bin', new Uint8Array([0xa5, 3, 0, 1, 2])); // a torn record
  const reloaded = new MemoryStore({ fs });
  assert.deepEqual((await reloaded.load()).vectors, { loaded: 5, stale: 0, torn: true });
  assert.equal((await mem.readBytes('ws/.memory/vectors.bin')).length, full.length, 'cut back to the last whole record');

  // The same store with an embedder of another model: all vectors are recomputed.
  const other = new Embedder({
    modelBaseUrl: `${modelRoot}/`,
    cacheName: null,
    transformersUrl: '@xenova/transformers',
    fingerprint: 'another-model',
    createWorker: inProcessWorker(),
  });
  await other.load();
  reloaded.attachEmbedder(other);
  assert.equal(reloaded.index.vectorCount, 0, 'old-model vectors dropped');
  assert.equal((await reloaded.whenEmbedded()).vectors, 5);
  const fresh = new MemoryStore({ fs });
  await fresh.load();
  assert.equal(fresh.index.vectorCount, 5);

  // Many rewrites of one memory leave stale records; the file is compacted once they dominate.
  const small = new MemoryStore({ fs: new ScopedFileSystem(mem, 'ws2'), embedder });
  for (let i = 0; i < 1100; i++) {
    await small.store({ key: 'the one', content: `car version ${i}` });
    await small.whenEmbedded(); // one record per version
  }
  const size = (await mem.stat('ws2/.memory/vectors.bin'))?.size ?? 0;
  assert.ok(size < 200 * 420, `compacted (${size} bytes; 1,100 records would be ~460 KB)`);
  const last = new MemoryStore({ fs: new ScopedFileSystem(mem, 'ws2') });
  const lastLoad = await last.load();
  assert.equal(lastLoad.vectors.loaded, 1);
  assert.ok(lastLoad.vectors.stale < 200);
  embedder.dispose();
  other.dispose();
});

test('memory store: recall falls back to keywords fast when the embedder is missing or slow, and caches the late vector', async () => {
  const { fs } = workspace();
  const missing = nodeEmbedder(emptyRoot);
  await missing.load().catch(() => {});
  const store = new MemoryStore({ fs, embedder: missing });
  await store.store({ key: 'deadline', content: 'The report is due on Friday.' });
  assert.equal(store.embedding.state, 'waiting');
  assert.match(store.embedding.message, /no embedding model is installed/);
  assert.equal(store.embedding.pending, 1);
  assert.equal((await store.recall('report due'))[0]?.key, 'deadline');
  assert.deepEqual(store.lastRecall, { mode: 'keyword', reason: 'not_ready' });

  // A ready embedder that answers only when told to.
  /** @type {((v: Float32Array[]) => void)[]} */
  const waiting = [];
  const vector = Float32Array.from({ length: 384 }, (_, i) => (i === 0 ? 1 : 0));
  /** @type {import('../../web/memory/store.js').EmbedderLike} */
  const slow = {
    status: { state: 'ready', message: 'ok', model: { id: 'slow', dimensions: 384, fingerprint: 'slow' } },
    subscribe(fn) {
      fn(this.status);
      return () => {};
    },
    embed(texts, options) {
      if (options?.priority === 'low') return Promise.resolve(texts.map(() => vector));
      return new Promise((resolve) => waiting.push(resolve));
    },
  };
  store.attachEmbedder(slow);
  await store.whenEmbedded();
  const started = Date.now();
  const hits = await store.recall('report', { semanticTimeoutMs: 50 });
  assert.ok(Date.now() - started < 2000, 'did not wait for the slow query embedding');
  assert.equal(hits[0]?.key, 'deadline');
  assert.deepEqual(store.lastRecall, { mode: 'keyword', reason: 'timeout' });
  waiting.shift()?.([vector]);
  await new Promise((resolve) => setImmediate(resolve));
  await store.recall('report', { semanticTimeoutMs: 50 });
  assert.deepEqual(store.lastRecall, { mode: 'hybrid', reason: 'cached' });
  await store.recall('report', { semantic: false });
  assert.deepEqual(store.lastRecall, { mode: 'keyword', reason: 'disabled' });
  missing.dispose();
});
