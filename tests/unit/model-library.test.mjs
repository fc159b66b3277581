// The app's side of the models on this computer (web/app/model-library.js): files picked or
// dropped grouped into models (a split model's parts together, in order); the provider that runs
// them found by its capabilities, not its name; the library's state through an import, a download
// stopped and resumed, a refused download, a background download taken in from the parts the
// service worker wrote, and which workspaces use a model — over a MemoryFileSystem store and a
// real HTTP server (tests/fixtures/model-server.mjs).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { makeTestGguf } from '../../scripts/make-test-gguf.mjs';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { LocalModelStore } from '../../web/providers/local-models.js';
import { DOWNLOADS_FOLDER } from '../../web/providers/local-model-download.js';
import { CATALOG } from '../../web/providers/catalog.js';
import { ModelLibrary, groupModelFiles, localModelProvider, FETCHED_MESSAGE, BACKGROUND_PREFIX } from '../../web/app/model-library.js';
import { startModelServer } from '../fixtures/model-server.mjs';
import { waitUntil } from '../fixtures/wait.mjs';

const model = makeTestGguf({ seed: 5 });
const server = await startModelServer();
after(() => server.close());
server.serve('/m.gguf', model);

/** @param {Partial<import('../../web/app/model-library.js').ModelLibraryDeps>} [deps] */
function library(deps = {}) {
  const store = new LocalModelStore(new MemoryFileSystem(), { estimate: async () => ({ quota: 10e9, usage: 0 }) });
  /** @type {Record<string, {provider: string, model: string}>} */
  const settings = {};
  /** @type {Record<string, import('../../web/app/model-library.js').WorkspaceProviders>} */
  const agent = {};
  const lib = new ModelLibrary({
    store,
    catalog: CATALOG,
    workspaces: () => [
      { id: 'w1', name: 'First' },
      { id: 'w2', name: 'Second' },
      { id: 'w3', name: 'Third' },
    ],
    settingsOf: (id) => settings[id] ?? null,
    providersOf: (id) => agent[id] ?? null,
    ...deps,
  });
  // The store's downloads ask the network as a page online would.
  lib.downloads.online = () => true;
  return { lib, store, settings, agent };
}

test('files picked or dropped become models: a split model’s parts together and in order, others alone, the rest left out', () => {
  const f = (/** @type {string} */ name) => ({ name });
  const { models, incomplete } = groupModelFiles([
    f('qwen-00002-of-00003.gguf'),
    f('README.md'),
    f('tiny.gguf'),
    f('qwen-00001-of-00003.gguf'),
    f('qwen-00003-of-00003.gguf'),
    f('other-00001-of-00002.gguf'),
  ]);
  assert.deepEqual(
    models.map((m) => m.map((x) => x.name)),
    [['tiny.gguf'], ['qwen-00001-of-00003.gguf', 'qwen-00002-of-00003.gguf', 'qwen-00003-of-00003.gguf']],
  );
  assert.deepEqual(incomplete, ['other: part 2 of 2 missing']);
  assert.deepEqual(groupModelFiles([f('notes.txt')]), { models: [], incomplete: [] });
});

test('the provider that runs the models is found by what it declares (modelFiles: it runs in the page, needs a model), \
not by its name', () => {
  const id = localModelProvider(CATALOG);
  const entry = CATALOG.find((e) => e.id === id);
  assert.ok(entry, 'the catalog has one');
  assert.equal(entry.capabilities.runs, 'browser');
  assert.equal(entry.capabilities.needsModel, true);
  // Controls: the page's other providers (Echo, Chrome's built-in AI) need no model; without such a provider, none.
  for (const other of CATALOG.filter((e) => e.capabilities.runs === 'browser' && e.id !== id))
    assert.equal(other.capabilities.needsModel, false, other.id);
  assert.equal(localModelProvider(CATALOG.filter((e) => e.id !== id)), null);
});

test('another provider that runs in the page and needs a model, listed first, does not take over the imported model files', () => {
  const id = localModelProvider(CATALOG);
  const local = /** @type {(typeof CATALOG)[number]} */ (CATALOG.find((e) => e.id === id));
  // A wire of the same shape that brings its own models (the probe of tests/browser/provider-registry.test.mjs).
  const probe = { ...local, id: 'probe', capabilities: { ...local.capabilities, modelFiles: false } };
  assert.equal(localModelProvider([probe, ...CATALOG]), id);
  assert.equal(local.capabilities.modelFiles, true, 'it says it runs the model files imported into this browser');
  assert.equal(localModelProvider([probe]), null, 'control: the probe alone runs none');
});

test('the library’s state: an import, then who uses the model', async () => {
  const { lib, settings } = library();
  /** @type {number} */
  let changes = 0;
  lib.subscribe(() => changes++);
  await lib.refresh();
  assert.deepEqual(lib.state().models, []);
  await lib.importFiles([new File([model], 'tiny.gguf')]);
  const [row] = lib.state().models;
  assert.equal(row.name, 'clawser-test-tiny');
  assert.equal(row.callsTools, true);
  assert.equal(row.chatTemplate, 'ChatML');
  assert.equal(row.contextLength, 2048);
  assert.deepEqual(row.usedBy, []);
  assert.match(String(lib.state().notice), /Imported “clawser-test-tiny”/);
  assert.ok(changes > 0);
  settings.w2 = { provider: String(lib.providerId), model: row.id };
  settings.w1 = { provider: 'openai', model: row.id };
  assert.deepEqual(
    lib.state().models[0].usedBy,
    [{ id: 'w2', name: 'Second', as: ['provider'] }],
    'only a workspace whose provider runs it',
  );
  await lib.importFiles([new File(['not a model at all, but long enough to be read as one'], 'x.gguf')]);
  assert.match(String(lib.state().error), /not a GGUF model file/);
  assert.equal(lib.state().models.length, 1);
});

test('“Used by” counts a workspace whose fallback or routing hint runs the model, saying how; control: another model or \
provider is no use', async () => {
  const { lib, settings, agent } = library();
  await lib.importFiles([new File([model], 'tiny.gguf')]);
  const [{ id }] = lib.state().models;
  const local = String(lib.providerId);
  settings.w1 = { provider: 'openai', model: 'gpt-5' };
  agent.w1 = {
    fallbacks: [
      { provider: 'anthropic', model: 'x' },
      { provider: local, model: id },
    ],
    routes: {},
  };
  settings.w2 = { provider: local, model: id };
  agent.w2 = { fallbacks: [], routes: { fast: { provider: local, model: id }, smart: { provider: 'openai', model: 'gpt-5' } } };
  // Controls: another model of the same provider, the same id under another provider.
  settings.w3 = { provider: local, model: 'another-model' };
  agent.w3 = { fallbacks: [{ provider: 'openai', model: id }], routes: { code: { provider: local, model: 'another-model' } } };
  assert.deepEqual(lib.state().models[0].usedBy, [
    { id: 'w1', name: 'First', as: ['fallback'] },
    { id: 'w2', name: 'Second', as: ['provider', 'fast route'] },
  ]);
  // Control: without the fallbacks and routes, only the workspace whose provider runs it.
  for (const w of Object.values(agent)) Object.assign(w, { fallbacks: [], routes: {} });
  assert.deepEqual(lib.state().models[0].usedBy, [{ id: 'w2', name: 'Second', as: ['provider'] }]);
});

test('a download stopped mid-way is listed as stopped with what came; Resume finishes it', async () => {
  const { lib } = library();
  server.serve('/held.gguf', model);
  server.state.holdAfter = 100_000;
  const running = lib.download(`${server.url}/held.gguf`, { background: false });
  const t = await waitUntil(
    () => lib.state().transfers.find((x) => x.state === 'running' && x.received === 100_000),
    'the download under way',
  );
  assert.equal(t.total, model.length);
  lib.stop(t.id);
  await running;
  server.release();
  assert.deepEqual(
    lib.state().transfers.map((x) => [x.state, x.received, x.canResume]),
    [['stopped', 100_000, true]],
  );
  await lib.resume(t.id);
  assert.deepEqual(lib.state().transfers, []);
  assert.equal(lib.state().models.length, 1);
  assert.match(String(lib.state().notice), /Downloaded/);
  // A refused download leaves nothing behind and says why.
  await lib.download(`${server.url}/missing.gguf`, { background: false });
  assert.match(String(lib.state().error), /404/);
  assert.deepEqual(lib.state().transfers, []);
});

test('a background download: handed to Background Fetch, then taken in from the parts the service worker wrote; control: parts \
missing', async () => {
  /** @type {{id: string, requests: string[], options: unknown}[]} */
  const fetched = [];
  const manager = {
    /** @param {string} id @param {string[]} requests @param {unknown} options */
    fetch: async (id, requests, options) => {
      fetched.push({ id, requests, options });
      const registration = Object.assign(new EventTarget(), { id, downloaded: 0, downloadTotal: 0, result: '', failureReason: '' });
      return /** @type {any} */ (registration); // any: a stand-in for the browser's registration
    },
    get: async () => undefined,
  };
  const { lib, store } = library({ backgroundFetch: async () => manager, hasBackgroundFetch: async () => true });
  await lib.refresh();
  assert.equal(lib.state().backgroundFetch, true);
  await lib.download(`${server.url}/m.gguf`, { background: true });
  assert.equal(fetched.length, 1);
  assert.deepEqual(fetched[0].requests, [`${server.url}/m.gguf`]);
  assert.deepEqual(fetched[0].options, { title: 'Clawser: downloading m.gguf', downloadTotal: model.length });
  const id = fetched[0].id.slice(BACKGROUND_PREFIX.length);
  // As sw.js does: the parts written into the download's folder, then the pages told.
  await store.fs.write(`${DOWNLOADS_FOLDER}/${id}/part-00001.gguf`, model);
  lib.onServiceWorkerMessage({ type: FETCHED_MESSAGE, id: fetched[0].id });
  await waitUntil(
    () => lib.state().models.length === 1,
    () => `the model taken in: ${JSON.stringify(lib.state())}`,
  );
  assert.deepEqual(lib.state().transfers, []);
  // Without room for the browser's own copy too, it downloads in the page (said), not in the background.
  const tight = library({
    backgroundFetch: async () => manager,
    hasBackgroundFetch: async () => true,
  });
  tight.store.estimate = async () => ({ quota: 64 * 1024 * 1024 + 1.5 * model.length, usage: 0 });
  await tight.lib.download(`${server.url}/m.gguf`, { background: true });
  assert.equal(fetched.length, 1, 'not handed to Background Fetch');
  assert.equal(tight.lib.state().models.length, 1);
  // Control: a background download whose parts never came is offered to resume here.
  await lib.download(`${server.url}/m.gguf`, { background: true });
  lib.onServiceWorkerMessage({ type: FETCHED_MESSAGE, id: fetched[1].id });
  await waitUntil(() => lib.state().transfers.some((t) => t.state === 'stopped'), 'the download offered to resume');
  assert.equal(lib.state().models.length, 1);
});
