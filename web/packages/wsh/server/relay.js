// The HTTP relay the user owns: an authenticated client asks the server to make an HTTP request
// for it (a provider or MCP server that sends no CORS headers). Only hosts the user listed
// (--relay-allow) are reached, redirects included; the log names the method, host and status
// only — never a path, a query, a header or a body, where keys and prompts travel.
import { WshRefusedError, WshError } from '../errors.js';

/** Request headers that belong to one hop, or that fetch sets itself. */
const HOP_REQUEST = new Set([
  'connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
]);
/** Response headers that would be wrong once the body is decoded and re-framed. */
const HOP_RESPONSE = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-encoding', 'content-length', 'upgrade']);
const MAX_REDIRECTS = 5;

/**
 * An allow list entry: `host`, `host:port`, or `*.domain` (any subdomain); without a port, any port.
 * @param {string[]} entries
 * @returns {(url: URL) => boolean}
 */
export function relayMatcher(entries) {
  const rules = entries
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean)
    .map((e) => {
      const m = /^(\*\.)?(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d+))?$/.exec(e);
      if (!m) throw new Error(`--relay-allow: "${e}" is not a host, host:port or *.domain`);
      return { wildcard: Boolean(m[1]), host: m[2], port: m[3] };
    });
  return (url) => {
    const host = url.hostname.toLowerCase();
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    return rules.some((r) => (r.wildcard ? host.endsWith(`.${r.host}`) : host === r.host) && (r.port === undefined || r.port === port));
  };
}

/**
 * Makes the request; resolves with the response (body unread) once its headers arrive.
 * @param {{url: string, method: string, headers: [string, string][], body: Uint8Array | null, allowed: (url: URL) => boolean,
 *   signal: AbortSignal, log: (line: string) => void}} request
 * @returns {Promise<{response: Response, url: string, headers: [string, string][]}>}
 */
export async function relayRequest({ url, method, headers, body, allowed, signal, log }) {
  let target = checkRelayUrl(url, allowed);
  const sent = new Headers();
  for (const [name, value] of headers) if (!HOP_REQUEST.has(name.toLowerCase())) sent.append(name, value);
  let currentMethod = method;
  let currentBody = body;
  for (let hop = 0; ; hop++) {
    /** @type {Response} */
    let response;
    try {
      response = await fetch(target, {
        method: currentMethod,
        headers: sent,
        body:
          currentBody && currentMethod !== 'GET' && currentMethod !== 'HEAD'
            ? /** @type {Uint8Array<ArrayBuffer>} */ (currentBody)
            : undefined,
        redirect: 'manual',
        signal,
      });
    } catch (err) {
      log(`relay: ${currentMethod} ${target.host} failed`);
      if (signal.aborted) throw new WshError('aborted', 'The relayed request was cancelled.');
      throw new WshError(
        'relay_failed',
        `The relay could not reach ${target.host}: ${/** @type {Error} */ (err).cause ?? /** @type {Error} */ (err).message}`,
      );
    }
    log(`relay: ${currentMethod} ${target.host} → ${response.status}`);
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location && hop < MAX_REDIRECTS) {
      const next = new URL(location, target);
      if (!allowed(next)) {
        await response.body?.cancel();
        throw new WshRefusedError(
          'relay_host_not_allowed',
          `${target.host} redirected to ${next.host}, which is not in this relay's list (--relay-allow); the redirect was not followed.`,
        );
      }
      await response.body?.cancel();
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && currentMethod === 'POST')) {
        currentMethod = 'GET';
        currentBody = null;
      }
      target = next;
      continue;
    }
    /** @type {[string, string][]} */
    const out = [];
    response.headers.forEach((value, name) => {
      if (!HOP_RESPONSE.has(name)) out.push([name, value]);
    });
    return { response, url: target.href, headers: out };
  }
}

/** @param {string} url @param {(url: URL) => boolean} allowed */
export function checkRelayUrl(url, allowed) {
  /** @type {URL} */
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    throw new WshRefusedError('relay_host_not_allowed', `"${url.slice(0, 100)}" is not a URL.`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new WshRefusedError('relay_host_not_allowed', `The relay forwards http and https only, not ${parsed.protocol}`);
  if (parsed.username || parsed.password)
    throw new WshRefusedError('relay_host_not_allowed', 'The relay does not forward URLs with a user name or password in them.');
  if (!allowed(parsed))
    throw new WshRefusedError(
      'relay_host_not_allowed',
      `${parsed.host} is not in this relay's list: start the server with --relay-allow ${parsed.host} (comma-separated) to forward to it.`,
    );
  return parsed;
}
