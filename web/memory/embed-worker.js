/**
 * The embedding worker: runs transformers.js feature extraction off the main thread. The
 * logic lives in embed-core.js (shared with the Node tests); this file only wires it to the
 * worker's message port. The vendored transformers bundle is imported by absolute URL
 * (config.transformersUrl, built from import.meta.url by the page): import maps do not apply
 * inside workers.
 */
import { createEmbedWorkerHost } from './embed-core.js';

/** @type {DedicatedWorkerGlobalScope} */
const scope = /** @type {any} */ (self); // any: `self` is typed as Window in the shared lib set

const handle = createEmbedWorkerHost({
  importModule: (url) => import(url),
  post: (message, transfer = []) => scope.postMessage(message, transfer),
  cacheStorage: typeof caches === 'undefined' ? null : caches,
});

scope.onmessage = (event) => handle(event.data);
