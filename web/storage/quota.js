/** @import { FileSystem } from './types.d.ts' */

/**
 * How much the browser lets this origin store, and whether it may evict it: the Dashboard's
 * storage section. Browsers without the Storage API report `null`s, never an error.
 */

/** @returns {Promise<{usage: number | null, quota: number | null, persisted: boolean | null}>} */
export async function storageState() {
  const s = globalThis.navigator?.storage;
  const [estimate, persisted] = await Promise.all([
    s?.estimate ? s.estimate().catch(() => null) : null,
    s?.persisted ? s.persisted().catch(() => null) : null,
  ]);
  return { usage: estimate?.usage ?? null, quota: estimate?.quota ?? null, persisted };
}

/**
 * Asks the browser to keep this origin's data under storage pressure. Chrome answers without a
 * prompt (from how the site is used: installed, bookmarked, notifications…).
 * @returns {Promise<boolean | null>} null: the browser has no such request
 */
export async function requestPersistence() {
  const s = globalThis.navigator?.storage;
  if (!s?.persist) return null;
  return s.persist();
}

/**
 * The bytes of every file under `path`, counted folder by folder (yields between folders so a
 * big repository does not freeze the page). Stops early, returning what it counted, when
 * `signal` aborts.
 * @param {FileSystem} fs @param {string} path @param {{signal?: AbortSignal}} [options]
 * @returns {Promise<{bytes: number, files: number}>}
 */
export async function folderBytes(fs, path, options = {}) {
  let bytes = 0;
  let files = 0;
  const queue = [path];
  while (queue.length) {
    if (options.signal?.aborted) break;
    const dir = /** @type {string} */ (queue.pop());
    const entries = await fs.list(dir).catch(() => []);
    const stats = await Promise.all(
      entries.map(async (e) => {
        const p = dir ? `${dir}/${e.name}` : e.name;
        if (e.kind === 'directory') {
          queue.push(p);
          return 0;
        }
        const st = await fs.stat(p).catch(() => null);
        return st?.kind === 'file' ? st.size : 0;
      }),
    );
    for (const size of stats) bytes += size;
    files += entries.filter((e) => e.kind === 'file').length;
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  return { bytes, files };
}
