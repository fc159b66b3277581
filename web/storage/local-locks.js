/**
 * Exclusive locks by name for the stores' read-modify-write cycles: `navigator.locks` where the
 * browser has Web Locks, `LocalLocks` (in-process) where it has not. No imports, so a worker, the
 * service worker or a page without the import map can load it (web/agent/coordination/tabs.js does).
 */

/**
 * The part of `navigator.locks` the stores and the tab coordinator use.
 * @typedef {{request<T>(name: string, options: {mode?: 'exclusive' | 'shared', signal?: AbortSignal}, callback: () => T
 *   | PromiseLike<T>): Promise<Awaited<T>>}} LockRequester
 */

/**
 * An in-process exclusive lock per name with the shape of `navigator.locks.request`: the
 * fallback when the browser has no Web Locks (callers queue in arrival order).
 */
export class LocalLocks {
  /** The promise the next caller of a name waits for. @type {Map<string, Promise<void>>} */
  #tails = new Map();

  /**
   * @template T
   * @param {string} name
   * @param {{mode?: 'exclusive' | 'shared', signal?: AbortSignal}} options `shared` is treated as exclusive
   * @param {() => T | PromiseLike<T>} callback
   * @returns {Promise<Awaited<T>>}
   */
  request(name, options, callback) {
    const signal = options.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const before = this.#tails.get(name) ?? Promise.resolve();
    /** @type {() => void} */
    let release = () => {};
    const held = new Promise((resolve) => {
      release = () => resolve(undefined);
    });
    const tail = before.then(() => held);
    this.#tails.set(name, tail);
    tail.then(() => {
      if (this.#tails.get(name) === tail) this.#tails.delete(name);
    });
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(signal?.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      before.then(async () => {
        signal?.removeEventListener('abort', onAbort);
        // Given up while waiting: pass the turn on without running.
        if (signal?.aborted) return release();
        try {
          resolve(await callback());
        } catch (err) {
          reject(err);
        } finally {
          release();
        }
      });
    });
  }
}
