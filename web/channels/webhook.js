// The outgoing webhook: a channel that sends text (a job's result, a test) as a JSON POST to
// an address the user gave. The address is kept sealed (a Slack or Discord hook's path is its
// secret) and never appears in an error.
import { ChannelError } from './channel.js';

/**
 * What is POSTed: the channel's name, what the text is (a job's result, a test, the agent's message), when, and the text.
 * @typedef {{channel: string, kind: 'job_result' | 'test' | 'message', title: string, text: string, at: string}} WebhookPayload
 */

/**
 * Sends one payload. Resolves when the receiver answered 2xx; else a ChannelError (`network`, `http`).
 * @param {{url: string, payload: WebhookPayload, fetch?: (url: string, init: RequestInit) => Promise<Response>, signal?: AbortSignal}} o
 */
export async function postWebhook(o) {
  const fetchFn = o.fetch ?? ((url, init) => globalThis.fetch(url, init));
  /** @type {Response} */
  let res;
  try {
    res = await fetchFn(o.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(o.payload),
      signal: o.signal ?? AbortSignal.timeout(30_000),
      // Nothing of this browser's session goes with it.
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
    });
  } catch (err) {
    throw new ChannelError(
      'network',
      'The webhook’s address cannot be reached (offline, or the receiver does not allow requests from this page: it must answer CORS).',
      { cause: err },
    );
  }
  await res.body?.cancel().catch(() => {});
  if (!res.ok) throw new ChannelError('http', `The webhook’s receiver answered HTTP ${res.status}.`);
}
