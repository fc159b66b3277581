// Model installation (download with progress from a local stand-in hub, folder and ZIP
// import with their guards, validation, remove) against an in-memory Cache Storage, and the
// vectors.bin codec (round trip, torn tail, corruption).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { zipSync, strToU8 } from 'fflate';
import { ModelInstaller, ModelInstallError, matchModelFile, validateModelFiles } from '../../web/memory/model-install.js';
import { decodeVectorFile, encodeVectorHeader, encodeVectorRecord, concatBytes, textHash } from '../../web/memory/vectors.js';
import { REQUIRED_MODEL_FILES } from '../../web/memory/model-files.js';
import { tinyModelFiles, startModelServer, TINY_MODEL_ID, MemoryCacheStorage } from '../fixtures/tiny-model.mjs';

const BASE = 'http://app.test/models/';
/** @type {Awaited<ReturnType<typeof startModelServer>>[]} */
const servers = [];
after(async () => {
  for (const s of servers) await s.close();
});

/** @param {Parameters<typeof startModelServer>[0]} [options] */
async function hub(options) {
  const s = await startModelServer(options);
  servers.push(s);
  return s;
}

test('download: four files from the hub URL, byte progress to the full size, stored and listed; remove', async () => {
  const server = await hub();
  const caches = new MemoryCacheStorage();
  const installer = new ModelInstaller({ caches, modelBaseUrl: BASE, hubUrl: server.url });
  assert.equal(await installer.isInstalled(), false);
  assert.deepEqual((await installer.status()).missing, [...REQUIRED_MODEL_FILES]);
  /** @type {import('../../web/memory/model-install.js').InstallProgress[]} */
  const progress = [];
  const result = await installer.download({ onProgress: (p) => progress.push(p) });
  const files = tinyModelFiles();
  const expected = Object.values(files).reduce((s, b) => s + b.length, 0);
  assert.equal(result.totalBytes, expected);
  assert.deepEqual(
    server.requests.map((r) => r.path).sort(),
    REQUIRED_MODEL_FILES.map((p) => `/${TINY_MODEL_ID}/resolve/main/${p}`).sort(),
  );
  const downloads = progress.filter((p) => p.phase === 'download');
  assert.ok(downloads.length >= 8, `several progress steps (${downloads.length})`);
  for (let i = 1; i < downloads.length; i++) assert.ok(downloads[i].loaded >= downloads[i - 1].loaded, 'loaded never goes back');
  assert.equal(downloads.at(-1)?.loaded, expected);
  assert.equal(downloads.at(-1)?.total, expected);
  assert.equal(progress.at(-1)?.phase, 'done');
  const status = await installer.status();
  assert.equal(status.installed, true);
  assert.equal(status.manifest?.source, 'download');
  assert.match(status.manifest?.fingerprint ?? '', /^Xenova\/all-MiniLM-L6-v2@sha256:[0-9a-f]{24}$/);
  assert.deepEqual(
    await installer.listFiles(),
    REQUIRED_MODEL_FILES.map((path) => ({ path, size: files[path].length })),
  );
  // Stored under the local URL transformers.js looks up first.
  const cache = await caches.open('clawser-models');
  assert.ok(await cache.match(`${BASE}${TINY_MODEL_ID}/onnx/model_quantized.onnx`));
  await installer.remove();
  assert.equal(await installer.isInstalled(), false);
  assert.equal(await caches.has('clawser-models'), false);
});

test('download: no Content-Length still reports growing totals; HTTP errors and aborts install nothing', async () => {
  const chunked = await hub({ noLength: true });
  const caches = new MemoryCacheStorage();
  /** @type {number[]} */
  const totals = [];
  await new ModelInstaller({ caches, modelBaseUrl: BASE, hubUrl: chunked.url }).download({
    onProgress: (p) => {
      if (p.phase === 'download') totals.push(p.total);
    },
  });
  assert.ok(totals.at(-1) === Object.values(tinyModelFiles()).reduce((s, b) => s + b.length, 0));

  const broken = await hub({ fail: { 'tokenizer.json': 503 } });
  const caches2 = new MemoryCacheStorage();
  const installer = new ModelInstaller({ caches: caches2, modelBaseUrl: BASE, hubUrl: broken.url });
  await assert.rejects(
    installer.download(),
    (err) => err instanceof ModelInstallError && err.code === 'http' && /tokenizer\.json failed: HTTP 503/.test(err.message),
  );
  assert.equal(await installer.isInstalled(), false);

  const controller = new AbortController();
  controller.abort();
  await assert.rejects(
    installer.download({ signal: controller.signal }),
    (err) => err instanceof ModelInstallError && err.code === 'aborted',
  );

  const unreachable = new ModelInstaller({ caches: caches2, modelBaseUrl: BASE, hubUrl: 'http://127.0.0.1:1' });
  await assert.rejects(
    unreachable.download(),
    (err) => err instanceof ModelInstallError && err.code === 'network' && /import the model folder or ZIP/.test(err.message),
  );
});

test('ZIP import: model folder at any depth, unrelated entries never inflated; bombs, traversal and junk refused', async () => {
  const files = tinyModelFiles();
  const caches = new MemoryCacheStorage();
  const installer = new ModelInstaller({ caches, modelBaseUrl: BASE });
  /** @type {Record<string, Uint8Array>} */
  const nested = { 'README.md': strToU8('hello') };
  for (const [p, b] of Object.entries(files)) nested[`all-MiniLM-L6-v2/${p}`] = b;
  nested['all-MiniLM-L6-v2/onnx/model.onnx'] = new Uint8Array(1000); // another variant: ignored
  /** @type {import('../../web/memory/model-install.js').InstallProgress[]} */
  const progress = [];
  await installer.importZip(new Blob([zipSync(nested)]), { onProgress: (p) => progress.push(p) });
  assert.equal((await installer.status()).manifest?.source, 'zip');
  assert.ok(progress.some((p) => p.phase === 'read'));
  assert.equal(await installer.isInstalled(), true);

  // A zip bomb: config.json claims to be small but inflates to 8 MB of zeros (limit 1 MB).
  const bomb = zipSync({ ...files, 'config.json': new Uint8Array(8 * 1024 * 1024) }, { level: 9 });
  assert.ok(bomb.length < 200_000);
  await assert.rejects(
    installer.importZip(new Blob([bomb])),
    (err) => err instanceof ModelInstallError && err.code === 'too_large' && /config\.json/.test(err.message),
  );
  assert.equal(await installer.isInstalled(), true, 'a failed import leaves the installed model alone');

  // Traversal names are never matched, so the model counts as incomplete.
  /** @type {Record<string, Uint8Array>} */
  const evil = {};
  for (const [p, b] of Object.entries(files)) evil[p === 'config.json' ? '../config.json' : p] = b;
  await assert.rejects(
    installer.importZip(new Blob([zipSync(evil)])),
    (err) => err instanceof ModelInstallError && err.code === 'missing_files' && /config\.json is missing/.test(err.message),
  );
  await assert.rejects(
    installer.importZip(new Blob([strToU8('not a zip at all')])),
    (err) => err instanceof ModelInstallError && err.code === 'zip_corrupt',
  );
  const stored = zipSync(files, { level: 0 });
  await assert.rejects(
    installer.importZip(new Blob([stored.subarray(0, Math.floor(stored.length * 0.6))])),
    (err) => err instanceof ModelInstallError && err.code === 'zip_corrupt',
    'cut off mid-entry',
  );
  assert.equal(matchModelFile('/abs/config.json'), null);
  assert.equal(matchModelFile('C:/x/config.json'), null);
  assert.deepEqual(matchModelFile('a\\b\\onnx\\model_quantized.onnx'), { required: 'onnx/model_quantized.onnx', rank: 4 });
});

test('folder import: relative paths matched, nearest wins; validation names the problem', async () => {
  const files = tinyModelFiles();
  const caches = new MemoryCacheStorage();
  const installer = new ModelInstaller({ caches, modelBaseUrl: BASE });
  const picked = Object.entries(files).map(([p, b]) => ({ path: `models/all-MiniLM-L6-v2/${p}`, file: new Blob([b]) }));
  picked.push({ path: 'models/all-MiniLM-L6-v2/old/backup/config.json', file: new Blob(['{broken']) }); // deeper: loses
  /** @type {string[]} */
  const phases = [];
  await installer.importFiles(picked, { onProgress: (p) => phases.push(p.phase) });
  assert.equal(await installer.isInstalled(), true);
  assert.deepEqual([...new Set(phases)], ['read', 'verify', 'store', 'done']);

  const dec = new TextDecoder();
  /** @param {Record<string, Uint8Array | string>} patch */
  const withFiles = (patch) => new Map(Object.entries({ ...files, ...patch }).map(([k, v]) => [k, typeof v === 'string' ? strToU8(v) : v]));
  const invalid = (/** @type {RegExp} */ re) => (/** @type {unknown} */ err) =>
    err instanceof ModelInstallError && err.code === 'invalid_file' && re.test(err.message);
  assert.throws(
    () =>
      validateModelFiles(
        withFiles({ 'config.json': JSON.stringify({ ...JSON.parse(dec.decode(files['config.json'])), hidden_size: 768 }) }),
      ),
    invalid(/768-dimensional/),
  );
  assert.throws(() => validateModelFiles(withFiles({ 'config.json': '{"hidden_size": 384}' })), invalid(/config\.json does not look like/));
  assert.throws(() => validateModelFiles(withFiles({ 'tokenizer.json': '[1,2]' })), invalid(/tokenizer\.json/));
  assert.throws(
    () => validateModelFiles(withFiles({ 'onnx/model_quantized.onnx': 'version https://git-lfs.github.com/spec/v1\noid sha256:abc' })),
    invalid(/Git LFS pointer/),
  );
  assert.throws(
    () => validateModelFiles(withFiles({ 'onnx/model_quantized.onnx': '<!doctype html><html>not found</html>' })),
    invalid(/not an ONNX model/),
  );
  const noTokenizer = withFiles({});
  noTokenizer.delete('tokenizer.json');
  assert.throws(
    () => validateModelFiles(noTokenizer),
    (err) => err instanceof ModelInstallError && err.code === 'missing_files',
  );
  // Without Cache Storage (an insecure context) the installer says so.
  await assert.rejects(
    new ModelInstaller({ caches: null }).download(),
    (err) => err instanceof ModelInstallError && err.code === 'unavailable',
  );
  assert.equal((await new ModelInstaller({ caches: null }).status()).available, false);
});

test('vectors.bin codec: round trip within int8 precision, torn tail and corruption stop decoding at the last whole record', () => {
  const dims = 384;
  const vec = (/** @type {number} */ seed) => Float32Array.from({ length: dims }, (_, i) => Math.sin(seed * 7 + i * 0.37));
  const header = encodeVectorHeader(dims, 'Xenova/all-MiniLM-L6-v2@sha256:abc');
  const records = [encodeVectorRecord('m1', 'key\ncontent', vec(1), dims), encodeVectorRecord('m2', 'other\ntext', vec(2), dims)];
  const file = concatBytes([header, ...records]);
  /** @type {{id: string, hash: number, len: number, cos: number}[]} */
  const seen = [];
  const result = decodeVectorFile(file, (r) => {
    const v = vec(r.id === 'm1' ? 1 : 2);
    let dot = 0,
      n1 = 0,
      n2 = 0;
    for (let i = 0; i < dims; i++) {
      dot += v[i] * r.vector[i];
      n1 += v[i] * v[i];
      n2 += r.vector[i] * r.vector[i];
    }
    seen.push({ id: r.id, hash: r.textHash, len: r.textLength, cos: dot / Math.sqrt(n1 * n2) });
  });
  assert.deepEqual(result.header, { dimensions: dims, modelTag: 'Xenova/all-MiniLM-L6-v2@sha256:abc', size: header.length });
  assert.equal(result.records, 2);
  assert.equal(result.torn, false);
  assert.deepEqual(
    seen.map((s) => [s.id, s.hash, s.len]),
    [
      ['m1', textHash('key\ncontent'), 11],
      ['m2', textHash('other\ntext'), 10],
    ],
  );
  for (const s of seen) assert.ok(s.cos > 0.9999, `cosine after int8 round trip ${s.cos}`);

  const torn = file.subarray(0, file.length - 100);
  const t = decodeVectorFile(torn, () => {});
  assert.equal(t.records, 1);
  assert.equal(t.torn, true);
  assert.equal(t.validBytes, header.length + records[0].length);

  const flipped = file.slice();
  flipped[header.length + records[0].length + 40] ^= 0xff; // inside the second record
  const f = decodeVectorFile(flipped, () => {});
  assert.equal(f.records, 1, 'the checksum catches the damaged record');

  assert.equal(decodeVectorFile(strToU8('something else entirely'), () => {}).header, null);
  assert.throws(() => encodeVectorRecord('m3', 'x', new Float32Array(dims), dims), /zero vector/);
  assert.throws(() => encodeVectorRecord('m3', 'x', new Float32Array(10), dims), /384 dimensions/);
});
