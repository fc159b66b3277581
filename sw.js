// Clawser service worker: precaches the whole app (shell, every module, vendor files)
// under a versioned cache so the app loads with the network off after the first visit.
/// <reference lib="webworker" />
// @ts-check
/** @type {ServiceWorkerGlobalScope} */
const sw = /** @type {any} */ (self); // `self` is typed as Window in the shared lib set; this file runs in a ServiceWorker.

importScripts('./precache-manifest.js');

/** @type {{version: string, files: string[]}} */
const manifest = /** @type {any} */ (self).CLAWSER_PRECACHE; // set by precache-manifest.js
const CACHE_PREFIX = 'clawser-app-';
const CACHE_NAME = CACHE_PREFIX + manifest.version;
const SHELL_URL = new URL('./index.html', sw.registration.scope).href;
const PRECACHED = new Set(manifest.files.map((f) => new URL(f, sw.registration.scope).href));

sw.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE_NAME);
      // cache: 'reload' so the precache never takes a stale copy from the HTTP cache.
      await cache.addAll(manifest.files.map((f) => new Request(f, { cache: 'reload' })));
    })(),
  );
});

sw.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const key of await caches.keys()) {
        if (key.startsWith(CACHE_PREFIX) && key !== CACHE_NAME) await caches.delete(key);
      }
      await sw.clients.claim();
    })(),
  );
});

sw.addEventListener('message', (event) => {
  if (event.data && event.data.type === 'SKIP_WAITING') sw.skipWaiting();
  if (event.data && event.data.type === 'GET_VERSION') event.ports[0]?.postMessage({ version: manifest.version });
});

sw.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== sw.location.origin) return; // provider APIs etc. go straight to the network
  url.hash = '';
  const path = url.origin + url.pathname;
  // Navigations get their own precached document (e.g. the sandbox frame), else the app shell.
  const key = request.mode === 'navigate' ? (PRECACHED.has(path) && path.endsWith('.html') ? path : SHELL_URL) : path;
  if (!PRECACHED.has(key) && request.mode !== 'navigate') return;
  event.respondWith(
    (async () => {
      // Keys are stored without a query string, so an exact match finds them (ignoreSearch
      // makes Chromium scan the whole cache on each of the ~70 module requests of a start).
      const hit = await (await appCache()).match(key);
      if (hit) return hit;
      return fetch(request);
    })(),
  );
});

/** @type {Promise<Cache> | null} the opened cache, kept for the worker's life */
let openedCache = null;
const appCache = () => (openedCache ??= caches.open(CACHE_NAME));
