/**
 * Where the embedding model lives, shared by the installer (main thread) and the embedding
 * worker. No bare imports here: import maps do not apply inside workers.
 *
 * Storage choice: Cache Storage, one cache (`clawser-models`) keyed by the model's *local*
 * URL under the app (`<app>/models/<modelId>/<file>`), which is the first key transformers.js
 * `getModelFile` tries (`tryCache(cache, localPath, remoteURL)`) — so the pipeline reads the
 * files straight from the cache as Response objects and never touches the network for them.
 * Preferred over OPFS because:
 * - transformers.js consumes Responses; from OPFS every file would need glue code and a copy;
 * - it is per-origin, not per-workspace: one model serves every workspace, and it stays out of
 *   workspace backups and exports (which archive every OPFS file: 23 MB each time);
 * - it is readable from the worker and the page without going through the storage worker's
 *   synchronous OPFS handles;
 * - the service worker only deletes caches named `clawser-app-*`, so updates keep the model.
 * Eviction is the same for both (best-effort unless the origin has persistent storage).
 */

export const DEFAULT_MODEL_ID = 'Xenova/all-MiniLM-L6-v2';
export const MODEL_DIMENSIONS = 384;
export const MODEL_CACHE_NAME = 'clawser-models';

/** The files transformers.js loads for a quantized BERT-style feature extractor. */
export const REQUIRED_MODEL_FILES = /** @type {const} */ ([
  'config.json',
  'tokenizer.json',
  'tokenizer_config.json',
  'onnx/model_quantized.onnx',
]);

/** Written last on install, removed first on uninstall: "installed" means this exists. */
export const INSTALL_MANIFEST = 'clawser-install.json';

/** The app's local model folder URL, e.g. http://host/app/models/ (never fetched over the network). */
export function defaultModelBaseUrl() {
  return new URL('../../models/', import.meta.url).href;
}

/** The vendored onnxruntime-web wasm folder. */
export function defaultWasmPaths() {
  return new URL('../vendor/ort/', import.meta.url).href;
}

/** The vendored transformers.js bundle (imported by URL in the worker). */
export function defaultTransformersUrl() {
  return new URL('../vendor/transformers.js', import.meta.url).href;
}

/**
 * Cache key of one model file.
 * @param {string} base model base URL ending in '/'
 * @param {string} modelId
 * @param {string} path relative path inside the model folder
 */
export function modelFileUrl(base, modelId, path) {
  return new URL(`${modelId}/${path}`, base.endsWith('/') ? base : `${base}/`).href;
}
