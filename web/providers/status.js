/** @import { CallOptions, ProviderStatus, StreamPart } from './types.d.ts' */

/**
 * A call's reply and its status as one sequence, each on its own channel: `{part}` for the
 * reply's parts, `{status}` for how the call goes (CallOptions.onStatus), in the order they
 * happened. A status comes as soon as it is given — a "retrying in 4 s…" during the wait,
 * before the next part exists — and never after a part given later.
 * @param {(onStatus: NonNullable<CallOptions['onStatus']>) => AsyncIterable<StreamPart>} start
 *   starts the call with the status callback to use
 * @returns {AsyncGenerator<{part: StreamPart} | {status: ProviderStatus}>}
 */
export async function* withStatus(start) {
  /** @type {ProviderStatus[]} */
  const queue = [];
  /** @type {(() => void) | null} */
  let wake = null;
  const iterator = start((status) => {
    queue.push(status);
    wake?.();
  })[Symbol.asyncIterator]();
  try {
    let pending = iterator.next();
    for (;;) {
      /** @type {IteratorResult<StreamPart> | null} */
      /** @type {Promise<null>} */
      const said = new Promise((resolve) => {
        wake = () => resolve(null);
        if (queue.length) resolve(null);
      });
      const next = await Promise.race([pending, said]);
      wake = null;
      // What was said before this part was given comes first.
      while (queue.length) yield { status: /** @type {ProviderStatus} */ (queue.shift()) };
      if (!next) continue;
      if (next.done) return;
      yield { part: next.value };
      pending = iterator.next();
    }
  } finally {
    // The consumer stopped early (a break): the call's own clean-up runs.
    await iterator.return?.();
  }
}
