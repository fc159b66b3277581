/** @import { PythonSandbox } from '../packages/andbox/python.js' */
import { RuntimeCache } from '../storage/runtime-cache.js';

/**
 * The conversations' Python sandboxes (run_python and Python code blocks): one warm sandbox per
 * conversation, so its variables persist between runs, loaded on first use (most turns never run
 * Python). Only the most recent stays: each holds a Python interpreter (tens of MB).
 */
export class PythonSandboxes {
  /** @type {Map<string, Promise<PythonSandbox>>} */
  #warm = new Map();

  /**
   * The conversation's sandbox; Stop (`signal`) ends the wait for it.
   * @param {string} conversationId @param {AbortSignal} [signal]
   * @returns {Promise<PythonSandbox>}
   */
  async for(conversationId, signal) {
    let py = this.#warm.get(conversationId);
    if (!py) {
      for (const [id, old] of this.#warm) {
        this.#warm.delete(id);
        old.then(
          (x) => x.dispose(),
          () => {},
        );
      }
      py = import('../packages/andbox/python.js').then(({ createPythonSandbox, pyodideSnapshotUrl }) =>
        createPythonSandbox({ snapshots: new RuntimeCache(pyodideSnapshotUrl()) }),
      );
      const mine = py;
      py.catch(() => {
        if (this.#warm.get(conversationId) === mine) this.#warm.delete(conversationId);
      });
      this.#warm.set(conversationId, py);
    }
    if (!signal) return py;
    if (signal.aborted) throw new Error('Cancelled by the user before it ran.');
    /** @type {() => void} */
    let unlisten = () => {};
    /** @type {Promise<never>} */
    const stopped = new Promise((_, reject) => {
      const onAbort = () => reject(new Error('Cancelled by the user before it ran.'));
      signal.addEventListener('abort', onAbort, { once: true });
      unlisten = () => signal.removeEventListener('abort', onAbort);
    });
    try {
      return await Promise.race([py, stopped]);
    } finally {
      unlisten();
    }
  }
}
