/**
 * Large runtime state kept in the browser's Cache Storage, beside the runtime files the service
 * worker keeps there on first use: Python's memory snapshot (issue 39), so a Python sandbox starts
 * from an interpreter already initialised instead of initialising one (most of a cold start).
 * Losing it costs time only: it is made again at the next start.
 */
export class RuntimeCache {
  /**
   * @param {string} url the entry's key (an http(s) URL; a new version is a new URL)
   * @param {{cacheName?: string, caches?: CacheStorage}} [options]
   */
  constructor(url, options = {}) {
    this.url = url;
    this.cacheName = options.cacheName ?? 'clawser-runtime-pyodide';
    this.caches = options.caches ?? globalThis.caches;
  }

  /** The kept bytes, or null (none yet, or Cache Storage unavailable). @returns {Promise<ArrayBuffer | null>} */
  async get() {
    try {
      const hit = await (await this.caches.open(this.cacheName)).match(this.url);
      return hit ? await hit.arrayBuffer() : null;
    } catch {
      return null;
    }
  }

  /** Keeps `bytes` (older versions of the same entry are removed). @param {ArrayBuffer} bytes */
  async put(bytes) {
    try {
      const cache = await this.caches.open(this.cacheName);
      const path = this.url.split('?')[0];
      for (const old of await cache.keys()) if (old.url.split('?')[0] === path && old.url !== this.url) await cache.delete(old);
      await cache.put(this.url, new Response(bytes, { headers: { 'content-type': 'application/octet-stream' } }));
    } catch {
      // Cache Storage full or unavailable: the next start makes it again.
    }
  }
}
