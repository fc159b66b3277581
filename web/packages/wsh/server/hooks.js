// Incoming webhooks at /hook/<token>: an outside service (a form, a CI, a home automation) POSTs
// to a URL that carries a token, and the body travels to the signed-in wsh client that listens
// with that token (`listen` frame) — the browser tab, which has no address of its own to be
// reached at. The server knows a token only by the SHA-256 the client sent, answers 202 once the
// client took the request, 404 for a token nobody listens with (never saying whether it ever
// existed), 503 when the listening client does not answer in time, and logs neither tokens nor
// bodies. A page cannot post here (a request with an Origin is refused by the server first).
import { createHash } from 'node:crypto';
import { WshRefusedError } from '../errors.js';

/** @import { IncomingMessage, ServerResponse } from 'node:http' */

export const HOOK_PREFIX = '/hook/';
/** The largest body taken (it travels to the client as one frame's payload). */
export const MAX_HOOK_BODY = 256 * 1024;
/** How long the server waits for the listening client to take a request. */
export const HOOK_ANSWER_MS = 10_000;

/** The SHA-256 (hex) of a token. @param {string} token */
const hashOf = (token) => createHash('sha256').update(token, 'utf8').digest('hex');

/**
 * What a connection hands the gateway for one listener.
 * @typedef {object} HookListener
 * @property {string} name what the client calls it, said in the server's log
 * @property {string[]} tokens the SHA-256 of each token that reaches it
 * @property {(request: {contentType: string, body: Uint8Array}, signal: AbortSignal) => Promise<boolean>} deliver
 *   resolves true once the client took it
 */

export class HookGateway {
  /** @type {Map<string, HookListener>} */
  #live = new Map();

  /** @param {(line: string) => void} log */
  constructor(log) {
    this.log = log;
  }

  /** @param {HookListener} listener */
  register(listener) {
    for (const hash of listener.tokens) {
      const holder = this.#live.get(hash);
      if (holder && holder !== listener)
        throw new WshRefusedError(
          'hook_token_in_use',
          `A token of this listener already reaches “${holder.name}”, on another connection: stop that one first, or make a new token.`,
        );
    }
    for (const hash of listener.tokens) this.#live.set(hash, listener);
    this.log(`hook: “${listener.name}” listening (${listener.tokens.length} token${listener.tokens.length === 1 ? '' : 's'})`);
  }

  /** @param {HookListener} listener */
  unregister(listener) {
    let had = false;
    for (const hash of listener.tokens) {
      if (this.#live.get(hash) !== listener) continue;
      this.#live.delete(hash);
      had = true;
    }
    if (had) this.log(`hook: “${listener.name}” stopped listening`);
  }

  /**
   * Serves one request to /hook/<token> (Host and Origin were checked by the server).
   * @param {IncomingMessage} req @param {ServerResponse} res @param {string} token the path's last part
   */
  async handle(req, res, token) {
    const listener = /^[A-Za-z0-9_-]{16,256}$/.test(token) ? this.#live.get(hashOf(token)) : undefined;
    if (!listener) {
      req.resume();
      this.log(`hook: a request from ${req.socket.remoteAddress} for no listener`);
      return text(res, 404, 'No listener has this address (stopped, or never made).');
    }
    if (req.method !== 'POST') {
      req.resume();
      return text(res, 405, 'A webhook is a POST.', { allow: 'POST' });
    }
    /** @type {Buffer} */
    let body;
    try {
      body = await readBody(req, MAX_HOOK_BODY);
    } catch {
      return text(res, 413, `The body is over ${MAX_HOOK_BODY} bytes.`);
    }
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), HOOK_ANSWER_MS);
    const onClose = () => abort.abort();
    req.socket.once('close', onClose);
    try {
      const contentType = String(req.headers['content-type'] ?? '').slice(0, 256);
      const taken = await listener.deliver({ contentType, body: new Uint8Array(body) }, abort.signal);
      this.log(`hook: “${listener.name}” ${taken ? 'took' : 'refused'} a request (${body.byteLength} bytes)`);
      text(res, taken ? 202 : 503, taken ? 'Accepted.' : 'The listener did not take the request: try again later.');
    } catch {
      text(res, 503, 'The listener is not reachable now (its tab closed, or it is offline): try again later.');
    } finally {
      clearTimeout(timer);
      req.socket.off('close', onClose);
    }
  }
}

/** @param {ServerResponse} res @param {number} status @param {string} body @param {Record<string, string>} [headers] */
function text(res, status, body, headers = {}) {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...headers }).end(`${body}\n`);
}

/** @param {IncomingMessage} req @param {number} limit @returns {Promise<Buffer>} */
function readBody(req, limit) {
  return new Promise((resolve, reject) => {
    /** @type {Buffer[]} */
    const parts = [];
    let size = 0;
    req.on('data', (/** @type {Buffer} */ piece) => {
      size += piece.byteLength;
      if (size <= limit) parts.push(piece);
    });
    req.on('end', () => (size > limit ? reject(new Error('too large')) : resolve(Buffer.concat(parts))));
    req.on('error', reject);
  });
}
