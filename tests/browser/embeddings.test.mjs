// Semantic memory in a real Chromium: the embedding model is installed from a stand-in hub on
// 127.0.0.1 (with byte progress) and from a ZIP, the embedding worker runs the vendored
// transformers.js + onnxruntime-web on the tiny test model, MemoryStore embeds in the
// background, the vectors survive a reload, and recall ranks by meaning. Without a model,
// the status says so at once and keyword recall works — with no request off this machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { zipSync } from 'fflate';
import { offMachine, waitInPage } from './helpers.mjs';
import { useFixture } from './fixture.mjs';
import { startModelServer, tinyModelFiles } from '../fixtures/tiny-model.mjs';

// Each test starts a browser of its own.
const fx = await useFixture({ browser: false });
const { app } = fx;
const hub = await startModelServer();
fx.defer(() => hub.close());

/** @param {import('playwright-core').BrowserContext} context */
async function openApp(context) {
  const page = await fx.newPage(context);
  await page.goto(app.url);
  return page;
}

/**
 * Creates (in the page) window.__mem = {embedder, store, states} over an OPFS folder.
 * @param {import('playwright-core').Page} page
 * @param {{folder: string, load: boolean}} options
 */
function setUpMemory(page, options) {
  return page.evaluate(async ({ folder, load }) => {
    const [{ Embedder }, { MemoryStore }, { OpfsFileSystem }, { ScopedFileSystem }] = await Promise.all([
      import('/web/memory/embedder.js'),
      import('/web/memory/store.js'),
      import('/web/storage/opfs-fs.js'),
      import('/web/storage/scoped-fs.js'),
    ]);
    const embedder = new Embedder();
    const store = new MemoryStore({ fs: new ScopedFileSystem(new OpfsFileSystem(), folder), embedder });
    /** @type {string[]} */
    const states = [];
    store.subscribeEmbedding((s) => states.push(`${s.state} ${s.done}/${s.total}`));
    /** @type {any} */ (window).__mem = { embedder, store, states }; // any: a test handle on window
    const started = performance.now();
    /** @type {string | null} */
    let code = null;
    if (load)
      await embedder.load().catch((/** @type {any} */ err) => {
        code = err.code;
      }); // any: EmbedderError
    return { code, ms: performance.now() - started, status: embedder.status.state, message: embedder.status.message };
  }, options);
}

test('no model: status "missing" at once, keyword recall works, nothing requested off the machine or from the model URL', async () => {
  const browser = await fx.launchBrowser();
  /** Requests of the page and its workers (the service worker precaches every vendor file). @type {string[]} */
  const ownRequests = [];
  browser.context.on('request', (r) => {
    if (!r.serviceWorker()) ownRequests.push(r.url());
  });
  try {
    const page = await openApp(browser.context);
    const result = await setUpMemory(page, { folder: 'emb-tests/none', load: true });
    assert.equal(result.code, 'model_missing');
    assert.equal(result.status, 'missing');
    assert.match(result.message, /no embedding model is installed/);
    assert.ok(result.ms < 5000, `answered in ${Math.round(result.ms)} ms`);
    const recall = await page.evaluate(async () => {
      const { store } = /** @type {any} */ (window).__mem; // any: the test handle
      await store.store({ key: 'deadline', content: 'The report is due on Friday.' });
      const hits = await store.recall('when is the report due');
      return { first: hits[0]?.key, last: store.lastRecall, queue: store.embedding };
    });
    assert.equal(recall.first, 'deadline');
    assert.deepEqual(recall.last, { mode: 'keyword', reason: 'not_ready' });
    assert.equal(recall.queue.state, 'waiting');
    assert.equal(recall.queue.pending, 1);
    assert.deepEqual(offMachine(browser.requests), []);
    assert.ok(
      ownRequests.some((u) => u.endsWith('/web/memory/embed-worker.js')),
      'the worker ran',
    );
    assert.deepEqual(
      ownRequests.filter((u) => u.includes('/models/') || u.startsWith(hub.url) || u.includes('transformers.js') || u.endsWith('.wasm')),
      [],
      'transformers is not even imported',
    );
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});

test('download with progress, background embedding, vectors persist across a reload, semantic recall; \
then ZIP and folder import', async () => {
  const browser = await fx.launchBrowser();
  /** @type {string[]} */
  const ownRequests = [];
  browser.context.on('request', (r) => {
    if (!r.serviceWorker()) ownRequests.push(r.url());
  });
  try {
    const page = await openApp(browser.context);
    const installed = await page.evaluate(async (hubUrl) => {
      const { ModelInstaller } = await import('/web/memory/model-install.js');
      const installer = new ModelInstaller({ hubUrl });
      const before = await installer.isInstalled();
      /** @type {{phase: string, loaded: number, total: number}[]} */
      const progress = [];
      await installer.download({ onProgress: (p) => progress.push({ phase: p.phase, loaded: p.loaded, total: p.total }) });
      return { before, progress, status: await installer.status() };
    }, hub.url);
    assert.equal(installed.before, false);
    const expected = Object.values(tinyModelFiles()).reduce((s, b) => s + b.length, 0);
    const downloads = installed.progress.filter((p) => p.phase === 'download');
    assert.ok(downloads.length >= 8, `byte progress reported (${downloads.length} steps)`);
    assert.equal(downloads.at(-1)?.loaded, expected);
    assert.equal(downloads.at(-1)?.total, expected);
    assert.equal(installed.status.installed, true);
    assert.equal(installed.status.totalBytes, expected);
    assert.equal(hub.requests.length, 4);

    const loaded = await setUpMemory(page, { folder: 'emb-tests/ws', load: true });
    assert.equal(loaded.status, 'ready', loaded.message);
    await page.evaluate(async () => {
      const { store } = /** @type {any} */ (window).__mem; // any: the test handle
      // One burst (as an import would be): the queue sees all four at once.
      await Promise.all([
        store.store({ key: 'vehicle', content: 'The user owns a red car.', category: 'user' }),
        store.store({ key: 'pet', content: 'Their dog is called Rex.', category: 'user' }),
        store.store({ key: 'food', content: 'Pizza every Friday.', category: 'user' }),
        store.store({ key: 'tooling', content: 'Uses the Helix editor for TypeScript code.', category: 'user' }),
      ]);
    });
    await waitInPage(
      page,
      async () => {
        const { store } = /** @type {any} */ (window).__mem; // any: the test handle
        return store.embedding.state === 'idle' && store.embedding.vectors === 4;
      },
      undefined,
      { what: 'four memories embedded in the background' },
    );
    const semantic = await page.evaluate(async () => {
      const { store, states } = /** @type {any} */ (window).__mem; // any: the test handle
      await store.whenEmbedded(); // vectors on disk
      const hits = await store.recall('automobile', { limit: 2, semanticTimeoutMs: 10_000 });
      return { first: hits[0]?.key, last: store.lastRecall, states };
    });
    assert.equal(semantic.first, 'vehicle', 'no word in common, ranked by meaning');
    assert.equal(semantic.last.mode, 'hybrid');
    assert.ok(
      semantic.states.some((/** @type {string} */ s) => /^running \d+\/4$/.test(s)),
      `queue progress observable: ${semantic.states.join(', ')}`,
    );

    // Reload: the vectors come back from .memory/vectors.bin, nothing is embedded again.
    await page.reload();
    const after = await page.evaluate(async () => {
      const [{ MemoryStore }, { OpfsFileSystem }, { ScopedFileSystem }] = await Promise.all([
        import('/web/memory/store.js'),
        import('/web/storage/opfs-fs.js'),
        import('/web/storage/scoped-fs.js'),
      ]);
      const store = new MemoryStore({ fs: new ScopedFileSystem(new OpfsFileSystem(), 'emb-tests/ws') });
      const { vectors } = await store.load();
      return { vectors, count: store.index.vectorCount, pending: store.embedding.pending };
    });
    assert.deepEqual(after, { vectors: { loaded: 4, stale: 0, torn: false }, count: 4, pending: 0 });
    const reloaded = await setUpMemory(page, { folder: 'emb-tests/ws', load: true });
    assert.equal(reloaded.status, 'ready', 'the installed model loads offline from Cache Storage');
    const again = await page.evaluate(async () => {
      const { store } = /** @type {any} */ (window).__mem; // any: the test handle
      const hits = await store.recall('my puppy', { limit: 1, semanticTimeoutMs: 10_000 });
      return { first: hits[0]?.key, last: store.lastRecall, pending: store.embedding.pending };
    });
    assert.deepEqual(again, { first: 'pet', last: { mode: 'hybrid', reason: 'embedded' }, pending: 0 });
    assert.equal(hub.requests.length, 4, 'the model was not downloaded again');

    // Remove, then install from a ZIP (the model folder nested inside).
    /** @type {Record<string, Uint8Array>} */
    const nested = {};
    for (const [p, b] of Object.entries(tinyModelFiles())) nested[`all-MiniLM-L6-v2/${p}`] = b;
    const zipBase64 = Buffer.from(zipSync(nested)).toString('base64');
    const viaZip = await page.evaluate(async (b64) => {
      const { ModelInstaller } = await import('/web/memory/model-install.js');
      const { embedder } = /** @type {any} */ (window).__mem; // any: the test handle
      const installer = new ModelInstaller();
      await installer.remove();
      embedder.reset();
      const removed = await installer.status();
      const missing = await embedder.load().then(
        () => 'ready',
        (/** @type {any} */ e) => e.code,
      ); // any: EmbedderError
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      /** @type {string[]} */
      const phases = [];
      await installer.importZip(new Blob([bytes]), { onProgress: (p) => phases.push(p.phase) });
      const status = await embedder.reload();
      const [v] = await embedder.embed(['rain and snow']);
      return {
        removed: removed.installed,
        missing,
        phases: [...new Set(phases)],
        state: status.state,
        dims: v.length,
        source: (await installer.status()).manifest?.source,
      };
    }, zipBase64);
    assert.deepEqual(viaZip, {
      removed: false,
      missing: 'model_missing',
      phases: ['read', 'verify', 'store', 'done'],
      state: 'ready',
      dims: 384,
      source: 'zip',
    });

    // And from a picked folder (File objects, as <input webkitdirectory> gives them).
    const files = Object.entries(tinyModelFiles()).map(([path, b]) => ({ path, b64: Buffer.from(b).toString('base64') }));
    const viaFolder = await page.evaluate(async (list) => {
      const { ModelInstaller } = await import('/web/memory/model-install.js');
      const installer = new ModelInstaller();
      await installer.remove();
      const picked = list.map(({ path, b64 }) => ({
        path: `all-MiniLM-L6-v2/${path}`,
        file: new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], path.split('/').pop() ?? path),
      }));
      await installer.importFiles(picked);
      return (await installer.status()).manifest?.source;
    }, files);
    assert.equal(viaFolder, 'folder');

    assert.deepEqual(offMachine(browser.requests), []);
    assert.deepEqual(
      browser.requests.filter((u) => u.includes('/models/')),
      [],
      'model files come from Cache Storage, never the network',
    );
    assert.ok(
      ownRequests.some((u) => u.endsWith('/web/vendor/ort/ort-wasm-simd.wasm')),
      `onnxruntime wasm from the vendored folder: ${ownRequests.filter((u) => /vendor/.test(u)).join(', ')}`,
    );
    assert.deepEqual(browser.errors, []);
  } finally {
    await browser.close();
  }
});
