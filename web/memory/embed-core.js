/**
 * The embedding worker's logic, kept apart from the worker entry (embed-worker.js) so Node
 * tests can run the very same code against Node's transformers.js. No bare imports: import
 * maps do not apply inside workers.
 *
 * Messages in:  {type: 'load', config: EmbedWorkerConfig} | {type: 'embed', id, texts}
 * Messages out: {type: 'status', status: EmbedderStatus}
 *               {type: 'result', id, data: Float32Array, dimensions} | {type: 'result', id, error: {code, message}}
 */
import { INSTALL_MANIFEST, REQUIRED_MODEL_FILES, modelFileUrl } from './model-files.js';

/**
 * @typedef {'idle' | 'missing' | 'loading' | 'ready' | 'error'} EmbedderState
 *   idle: not started; missing: no model installed; error: installed but failed to load
 */

/**
 * @typedef {object} EmbedderStatus
 * @property {EmbedderState} state
 * @property {string} message for people, e.g. "Semantic search is off: no embedding model is installed."
 * @property {string} [code] stable error code when state is missing or error
 * @property {{id: string, dimensions: number, fingerprint: string}} [model] when ready
 */

/**
 * @typedef {object} EmbedWorkerConfig
 * @property {string} modelId e.g. Xenova/all-MiniLM-L6-v2
 * @property {string} localModelPath absolute URL (browser) or folder path (Node) of the models
 * @property {string} [transformersUrl] module to import (the vendored bundle in the browser)
 * @property {string} [wasmPaths] onnxruntime-web wasm folder URL
 * @property {string | null} [cacheName] Cache Storage cache holding the model files (browser); null: none
 * @property {number} dimensions expected embedding size
 * @property {string} [fingerprint] model tag when there is no install manifest (Node)
 */

export const MISSING_MESSAGE =
  'Semantic search is off: no embedding model is installed. Install it in the Memory panel (download ' +
  'once, or import the model folder or ZIP); keyword search works meanwhile.';

/** transformers.js reports absent local files with these phrases (hub.js getModelFile). */
const NOT_FOUND = /not found locally|could not locate file|local_files_only|no such file|ENOENT/i;

/**
 * @param {unknown} err
 * @returns {{code: string, message: string}}
 */
export function classifyLoadError(err) {
  const text = err instanceof Error ? err.message : String(err);
  if (NOT_FOUND.test(text)) return { code: 'model_missing', message: MISSING_MESSAGE };
  return {
    code: 'load_failed',
    message:
      `The embedding model could not be loaded (${text.slice(0, 300)}). Remove it and install it again in the Memory panel; ` +
      `keyword search works meanwhile.`,
  };
}

/**
 * Looks for the install manifest and every required file in the cache.
 * @param {CacheStorage} cacheStorage
 * @param {EmbedWorkerConfig} config
 * @returns {Promise<{ok: true, cache: Cache, fingerprint: string} | {ok: false}>}
 */
async function findInstalled(cacheStorage, config) {
  if (!(await cacheStorage.has(/** @type {string} */ (config.cacheName)))) return { ok: false };
  const cache = await cacheStorage.open(/** @type {string} */ (config.cacheName));
  const manifest = await cache.match(modelFileUrl(config.localModelPath, config.modelId, INSTALL_MANIFEST));
  if (!manifest) return { ok: false };
  /** @type {unknown} */
  let data;
  try {
    data = await manifest.json();
  } catch {
    return { ok: false };
  }
  const fingerprint =
    data && typeof data === 'object' && 'fingerprint' in data && typeof data.fingerprint === 'string' ? data.fingerprint : '';
  for (const file of REQUIRED_MODEL_FILES) {
    if (!(await cache.match(modelFileUrl(config.localModelPath, config.modelId, file)))) return { ok: false };
  }
  return { ok: true, cache, fingerprint: fingerprint || config.modelId };
}

/**
 * The subset of transformers.js used here (the vendored bundle is untyped at the URL import).
 * @typedef {{
 *   env: any,
 *   pipeline: (task: string, model: string, options?: object) => Promise<(texts: string[], options: object) => Promise<{data: Float32Array,
 *   dims: number[]}>>
 * }} TransformersModule
 *   env: any — transformers' env object has a loose, version-specific shape
 */

/**
 * @param {{
 *   importModule: (url: string) => Promise<TransformersModule>,
 *   post: (message: object, transfer?: Transferable[]) => void,
 *   cacheStorage?: CacheStorage | null,
 * }} deps
 */
export function createEmbedWorkerHost(deps) {
  /** @type {((texts: string[], options: object) => Promise<{data: Float32Array, dims: number[]}>) | null} */
  let extractor = null;
  /** @type {EmbedderStatus} */
  let status = { state: 'idle', message: 'The embedding model has not been loaded yet.' };
  /** @type {Promise<void> | null} */
  let loading = null;
  /** Embeds run one at a time (onnxruntime sessions are not re-entrant here). */
  let chain = Promise.resolve();

  /** @param {EmbedderStatus} next */
  const setStatus = (next) => {
    status = next;
    deps.post({ type: 'status', status });
  };

  /** @param {EmbedWorkerConfig} config */
  async function load(config) {
    setStatus({ state: 'loading', message: 'Loading the embedding model…' });
    try {
      let fingerprint = config.fingerprint ?? config.modelId;
      /** @type {Cache | null} */
      let cache = null;
      if (config.cacheName && deps.cacheStorage) {
        // Checked before importing transformers: with no model this answers in milliseconds
        // and makes no request at all.
        const found = await findInstalled(deps.cacheStorage, config);
        if (!found.ok) {
          setStatus({ state: 'missing', code: 'model_missing', message: MISSING_MESSAGE });
          return;
        }
        cache = found.cache;
        fingerprint = found.fingerprint;
      }
      const transformers = await deps.importModule(config.transformersUrl ?? '@xenova/transformers');
      const env = transformers.env;
      env.allowRemoteModels = false; // offline only: never the hub
      env.allowLocalModels = true;
      env.localModelPath = config.localModelPath;
      env.useBrowserCache = false; // our own cache below (dedicated name, never written by transformers)
      env.useFSCache = false; // Node: do not write into node_modules
      if (cache) {
        const c = cache;
        env.useCustomCache = true;
        env.customCache = { match: (/** @type {string} */ key) => c.match(key), put: async () => {} };
      }
      const wasm = env.backends?.onnx?.wasm;
      if (wasm) {
        if (config.wasmPaths) wasm.wasmPaths = config.wasmPaths;
        wasm.numThreads = 1; // threads need cross-origin isolation, which the app does not have
        wasm.proxy = false; // already in a worker
      }
      const pipe = await transformers.pipeline('feature-extraction', config.modelId, { quantized: true });
      const probe = await pipe(['probe'], { pooling: 'mean', normalize: true });
      const dims = probe.dims.at(-1);
      if (dims !== config.dimensions) {
        setStatus({
          state: 'error',
          code: 'wrong_dimensions',
          message:
            `The installed embedding model makes ${dims}-dimensional vectors; memory search needs ${config.dimensions} ` +
            `(all-MiniLM-L6-v2). Remove it and install all-MiniLM-L6-v2.`,
        });
        return;
      }
      extractor = pipe;
      setStatus({ state: 'ready', message: 'Semantic search is on.', model: { id: config.modelId, dimensions: dims, fingerprint } });
    } catch (err) {
      const { code, message } = classifyLoadError(err);
      setStatus(code === 'model_missing' ? { state: 'missing', code, message } : { state: 'error', code, message });
    }
  }

  /** @param {number} id @param {string[]} texts */
  async function embed(id, texts) {
    if (!extractor || status.state !== 'ready') {
      deps.post({ type: 'result', id, error: { code: 'not_ready', message: status.message } });
      return;
    }
    try {
      const out = await extractor(texts, { pooling: 'mean', normalize: true });
      const data = out.data instanceof Float32Array ? out.data : Float32Array.from(out.data);
      deps.post({ type: 'result', id, data, dimensions: out.dims.at(-1) }, [data.buffer]);
    } catch (err) {
      deps.post({
        type: 'result',
        id,
        error: { code: 'embed_failed', message: `Embedding failed: ${err instanceof Error ? err.message : String(err)}` },
      });
    }
  }

  /** @param {any} message from the page: checked field by field below */
  return function handle(message) {
    if (!message || typeof message !== 'object') return;
    if (message.type === 'load') {
      if (status.state === 'ready' || loading) {
        deps.post({ type: 'status', status });
        return;
      }
      loading = load(/** @type {EmbedWorkerConfig} */ (message.config)).finally(() => {
        loading = null;
      });
    } else if (message.type === 'embed') {
      const id = Number(message.id);
      const texts = Array.isArray(message.texts) ? message.texts.map(String) : [];
      chain = chain.then(() => embed(id, texts));
    }
  };
}
