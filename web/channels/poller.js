// The long-polling loop of a Telegram channel. The offset (the next update to read) is stored
// — and flushed — before an update is handled, so a reload or a crash never hands the same
// message to the agent twice (one caught mid-answer is lost rather than answered twice); it is
// also what confirms the update to Telegram on the next call. A network failure is retried with
// back-off, and the status says what is happening in words.
/** @import { TelegramApi, TelegramUpdate } from './telegram.js' */
/** @import { ChannelError } from './channel.js' */

/**
 * listening: connected, waiting for messages; offline: Telegram cannot be reached, retrying;
 * stopped: refused for good (the token, another reader) until the user acts; paused; standby:
 * another tab of this browser runs the channel.
 * @typedef {{state: 'starting' | 'listening' | 'offline' | 'stopped' | 'paused' | 'standby', message: string, at: number}} PollStatus
 */

/** Seconds a getUpdates call waits for messages (Telegram holds the request that long). */
export const LONG_POLL_SECONDS = 25;
/** Back-off after a failure: from this, doubling, up to MAX_BACKOFF_MS. */
export const MIN_BACKOFF_MS = 1000;
export const MAX_BACKOFF_MS = 15_000;

/**
 * @param {{api: Pick<TelegramApi, 'getUpdates'>, offset: {get: () => number, set: (next: number) => Promise<void>},
 *   handle: (update: TelegramUpdate) => Promise<void>, onStatus: (s: PollStatus) => void, paused?: () => boolean,
 *   wait?: (ms: number, signal: AbortSignal) => Promise<void>, now?: () => number, timeoutSeconds?: number}} deps
 *   offset: the stored offset (set: stored durably before it resolves); handle: one update, in order (its failure is its own);
 *   wait: the back-off's pause (ends early when the signal aborts); paused: the channel was paused or removed (another tab may
 *   do it): the loop ends before it takes another update, which waits at Telegram
 * @param {AbortSignal} signal stops the loop
 */
export async function pollTelegram(deps, signal) {
  const now = deps.now ?? Date.now;
  const pause = deps.wait ?? abortableWait;
  const timeout = deps.timeoutSeconds ?? LONG_POLL_SECONDS;
  let backoff = MIN_BACKOFF_MS;
  let listening = false;
  deps.onStatus({ state: 'starting', message: 'Connecting to Telegram…', at: now() });
  const stopped = () => {
    if (!deps.paused?.()) return false;
    deps.onStatus({ state: 'paused', message: 'Paused: messages wait at Telegram until it is resumed.', at: now() });
    return true;
  };
  while (!signal.aborted) {
    if (stopped()) return;
    /** @type {TelegramUpdate[]} */
    let updates;
    // The first call after a start or a failure answers at once (timeout 0): the status says "listening" only once
    // Telegram answered; later calls are long polls.
    const wait = listening ? timeout : 0;
    try {
      updates = await deps.api.getUpdates({ offset: deps.offset.get(), timeout: wait }, withDeadline(signal, (wait + 15) * 1000));
    } catch (err) {
      if (signal.aborted) return;
      const e = /** @type {ChannelError} */ (err);
      listening = false;
      if (e.code === 'unauthorized' || e.code === 'conflict') {
        deps.onStatus({ state: 'stopped', message: e.message, at: now() });
        return;
      }
      const delay = e.code === 'rate_limited' && e.retryAfterMs ? e.retryAfterMs : backoff;
      const why = e.code === 'network' || e.name === 'AbortError' || e.name === 'TimeoutError' ? 'Telegram cannot be reached' : e.message;
      deps.onStatus({ state: 'offline', message: `${why.replace(/\.$/, '')}: trying again in ${Math.ceil(delay / 1000)} s.`, at: now() });
      await pause(delay, signal);
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      continue;
    }
    backoff = MIN_BACKOFF_MS;
    if (!listening) {
      listening = true;
      deps.onStatus({ state: 'listening', message: 'Listening for messages.', at: now() });
    }
    for (const update of [...updates].sort((a, b) => a.update_id - b.update_id)) {
      if (signal.aborted || stopped()) return;
      if (update.update_id < deps.offset.get()) continue; // already taken (an answer Telegram repeated)
      // Taken first, handled second: a message is never handled twice.
      await deps.offset.set(update.update_id + 1);
      await deps.handle(update).catch(() => {});
    }
  }
}

/** A signal that also aborts after `ms` (a request that hangs counts as a failure). @param {AbortSignal} signal @param {number} ms */
function withDeadline(signal, ms) {
  return typeof AbortSignal.any === 'function' ? AbortSignal.any([signal, AbortSignal.timeout(ms)]) : signal;
}

/** @param {number} ms @param {AbortSignal} signal @returns {Promise<void>} */
export function abortableWait(ms, signal) {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
