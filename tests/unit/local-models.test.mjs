// The models the user brings (issue 34 §2): imported into clawser_models/ only when the file is a
// GGUF model that fits; a refused, failed or stopped import leaves nothing; listed and deleted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeTestGguf } from '../../scripts/make-test-gguf.mjs';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { LocalModelError, LocalModelStore, MODELS_FOLDER } from '../../web/providers/local-models.js';

const gguf = new Blob([makeTestGguf({ seed: 3 })]);
const roomy = { estimate: async () => ({ quota: 10e9, usage: 1e6 }) };
/** Every path under the models folder. @param {MemoryFileSystem} fs */
async function tree(fs, dir = MODELS_FOLDER) {
  /** @type {string[]} */
  const out = [];
  for (const e of await fs.list(dir).catch(() => [])) {
    const path = `${dir}/${e.name}`;
    out.push(path);
    if (e.kind === 'directory') out.push(...(await tree(fs, path)));
  }
  return out;
}

test('an imported model is stored whole, described by its header, listed, read back and deleted', async () => {
  const fs = new MemoryFileSystem();
  const store = new LocalModelStore(fs, roomy);
  /** @type {number[]} */
  const progress = [];
  const model = await store.import([gguf], { name: 'Tiny test model', onProgress: (w) => progress.push(w) });
  assert.match(model.id, /^tiny-test-model-[a-z0-9]{6}$/);
  assert.equal(model.architecture, 'llama');
  assert.equal(model.quantisation, 'F32');
  assert.equal(model.callsTools, true);
  assert.equal(model.bytes, gguf.size);
  assert.equal(progress.at(-1), gguf.size);
  const stored = await fs.readBytes(`${MODELS_FOLDER}/${model.id}/${model.files[0]}`);
  assert.deepEqual(stored, new Uint8Array(await gguf.arrayBuffer()), 'byte for byte');
  assert.deepEqual(await store.list(), [model]);
  assert.deepEqual(await store.get(model.id), model);
  await store.delete(model.id);
  assert.deepEqual(await store.list(), []);
  await assert.rejects(store.get(model.id), (err) => err instanceof LocalModelError && err.code === 'not_found');
});

test('a file that is not a GGUF model, one cut short, one corrupt, and one too big for the space left are refused before \
anything is written', async () => {
  const fs = new MemoryFileSystem();
  const store = new LocalModelStore(fs, roomy);
  const refused = async (/** @type {Promise<unknown>} */ p, /** @type {string} */ code) =>
    assert.rejects(p, (err) => err instanceof LocalModelError && err.code === code && err.message.length > 20);
  await refused(store.import([new Blob(['PK\x03\x04 a zip, not a model, with enough bytes to be read'])]), 'not_gguf');
  await refused(store.import([gguf.slice(0, 3000)]), 'not_gguf');
  // Cut in its tensors' data, the header whole: a copy or download stopped short.
  await refused(store.import([gguf.slice(0, gguf.size - 1000)]), 'not_gguf');
  // Whole but corrupt: a value type no writer makes, in its first metadata entry.
  const corrupt = new Uint8Array(await gguf.arrayBuffer());
  const view = new DataView(corrupt.buffer);
  view.setUint32(32 + Number(view.getBigUint64(24, true)), 99, true);
  await refused(store.import([new Blob([corrupt])]), 'not_gguf');
  const full = new LocalModelStore(fs, { estimate: async () => ({ quota: 100e6, usage: 99e6 }) });
  await refused(full.import([gguf]), 'quota');
  assert.deepEqual(await tree(fs), []);
  // Control: the same file with room imports.
  assert.equal((await store.import([gguf])).architecture, 'llama');
});

test('an import that fails or is stopped while writing leaves nothing behind', async () => {
  const fs = new MemoryFileSystem();
  const store = new LocalModelStore(fs, roomy);
  fs.failNextWrite = Object.assign(new Error('The quota has been exceeded.'), { name: 'QuotaExceededError' });
  await assert.rejects(store.import([gguf]), /quota/);
  const stop = new AbortController();
  stop.abort();
  await assert.rejects(store.import([gguf], { signal: stop.signal }), (err) => err instanceof LocalModelError && err.code === 'aborted');
  assert.deepEqual(
    (await tree(fs)).filter((p) => !p.endsWith('.incoming')),
    [],
  );
  assert.deepEqual(await store.list(), []);
});

test('a model whose description is damaged is left out of the list and named when asked for', async () => {
  const fs = new MemoryFileSystem();
  const store = new LocalModelStore(fs, roomy);
  const model = await store.import([gguf]);
  const other = await store.import([gguf], { name: 'second' });
  await fs.write(`${MODELS_FOLDER}/${model.id}/meta.json`, '{"id": "broken"');
  const listed = await store.list();
  assert.deepEqual(
    listed.map((m) => m.id),
    [other.id],
  );
  await assert.rejects(
    store.get(model.id),
    (err) => err instanceof LocalModelError && err.code === 'invalid' && /delete it/.test(err.message),
  );
});

test('open hands the runtime the model as Blobs of its stored bytes; a file cut short on disk is refused by name', async () => {
  const fs = new MemoryFileSystem();
  const store = new LocalModelStore(fs, roomy);
  const model = await store.import([gguf], { name: 'Opened' });
  const { parts } = await store.open(model.id);
  assert.equal(parts.length, 1);
  assert.deepEqual(new Uint8Array(await parts[0].arrayBuffer()), new Uint8Array(await gguf.arrayBuffer()));
  await fs.truncate(`${MODELS_FOLDER}/${model.id}/${model.files[0]}`, 1000);
  await assert.rejects(
    store.open(model.id),
    (err) => err instanceof LocalModelError && err.code === 'invalid' && /Opened/.test(err.message),
  );
  await assert.rejects(store.open('no-such-model'), (err) => err instanceof LocalModelError && err.code === 'not_found');
});
