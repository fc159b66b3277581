/**
 * Retrying a browser call that never answers. Under a burst of file creations right after a
 * large delete, Chromium sometimes leaves an OPFS file open unanswered forever; the same call
 * made again goes through. Pure logic (timers only), so `node --test` covers it.
 */

/** @param {number} ms */
const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `attempt()`; if it neither resolves nor rejects within `stallMs`, abandons it and runs it
 * again, up to `attempts` times. A result an abandoned call delivers late goes to `release` (so
 * a late file handle is closed and holds no lock). Errors listed in `retryOn` (by `name`) are
 * retried after a short pause too — an abandoned call may hold the file for a moment.
 * @template T
 * @param {() => Promise<T>} attempt
 * @param {{stallMs: number, attempts: number, release: (late: T) => void, retryOn?: string[], pauseMs?: number,
 *   onStall?: (attempt: number) => void, stalledError: () => Error}} options
 *   `pauseMs`: the pause before a retried error's next attempt grows by this much each time (default 50)
 * @returns {Promise<T>}
 */
export async function retryStalled(attempt, options) {
  const { stallMs, attempts, release, retryOn = [], pauseMs = 50, onStall, stalledError } = options;
  const STALLED = Symbol('stalled');
  for (let n = 1; ; n++) {
    const call = attempt();
    /** @type {T | typeof STALLED} */
    let result;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    try {
      result = await Promise.race([
        call,
        new Promise((resolve) => {
          timer = setTimeout(() => resolve(STALLED), stallMs);
        }),
      ]);
    } catch (err) {
      if (!retryOn.includes(/** @type {Error} */ (err)?.name) || n >= attempts) throw err;
      await delay(pauseMs * n);
      continue;
    } finally {
      clearTimeout(timer);
    }
    if (result !== STALLED) return /** @type {T} */ (result);
    call.then(release, () => {});
    onStall?.(n);
    if (n >= attempts) throw stalledError();
  }
}
