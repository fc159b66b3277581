/**
 * The MCP client's errors: `McpError` (a stable `code` and a message a user can act on) and the
 * explanations of a request that failed (HTTP refusals, CORS, nothing there, the old HTTP+SSE
 * transport).
 */
import { parseSSE } from '../net/sse.js';
import { offlineExplains, offlineMessage } from '../net/offline.js';
import { RelayError } from '../net/relay.js';

export class McpError extends Error {
  /**
   * @param {'http' | 'rpc' | 'cors' | 'unreachable' | 'old_transport' | 'unsupported_version' | 'session' | 'aborted' | 'auth'
   *   | 'protocol'} code
   * @param {string} message @param {{rpcCode?: number, status?: number, data?: unknown, authenticate?: string | null}} [details]
   */
  constructor(code, message, details = {}) {
    super(message);
    this.name = 'McpError';
    this.code = code;
    this.rpcCode = details.rpcCode;
    this.status = details.status;
    this.data = details.data;
    /** The WWW-Authenticate header of a 401 (OAuth discovery starts there). */
    this.authenticate = details.authenticate ?? null;
  }
}

/** What a server must send for a page to use it (the CORS part of the error message). */
export const CORS_HELP =
  'send Access-Control-Allow-Origin for this page, allow the Content-Type, Authorization, Mcp-Session-Id, ' +
  'MCP-Protocol-Version, Mcp-Method, Mcp-Name (and any Mcp-Param-* its tools declare) and Last-Event-ID request headers ' +
  'and the GET, POST and DELETE methods, and expose the Mcp-Session-Id response header (Access-Control-Expose-Headers)';

/** The host of a server's URL, for messages (the URL as it is when it is not one). @param {string} url */
export function hostOf(url) {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/**
 * The error of an HTTP answer that is not a success: a refusal to authenticate (with its
 * WWW-Authenticate, where OAuth starts), a JSON-RPC error in the body, or the status and text.
 * @param {Response} res @param {string} host
 */
export async function httpError(res, host) {
  const text = await res.text().catch(() => '');
  /** @type {any} */ // the body's shape is the server's: read defensively below
  let j = null;
  try {
    j = JSON.parse(text);
  } catch {
    // not JSON: the text as it is
  }
  const detail = j ? String(j?.error?.message ?? j?.error_description ?? j?.message ?? text.slice(0, 300)) : text.slice(0, 300);
  if (res.status === 401 || res.status === 403) {
    return new McpError(
      'auth',
      `${host} refused the request (HTTP ${res.status})${detail ? `: ${detail}` : ''}. Check the server's token or sign in ` + `again.`,
      { status: res.status, authenticate: res.headers.get('www-authenticate') },
    );
  }
  if (j?.jsonrpc === '2.0' && j.error && typeof j.error.code === 'number')
    return new McpError('rpc', `${host} answered HTTP ${res.status}: ${String(j.error.message ?? '')}`, {
      status: res.status,
      rpcCode: j.error.code,
      data: j.error.data,
    });
  return new McpError('http', `${host} answered HTTP ${res.status}${detail ? `: ${detail}` : ''}.`, { status: res.status });
}

/**
 * The request did not get through: offline, CORS (a `no-cors` request gets an answer), or nothing
 * there; through a machine's relay, the relay's own words.
 * @param {typeof globalThis.fetch} fetch @param {string} url @param {string | undefined} pageOrigin this page's origin, for the message
 * @param {unknown} [cause] what the request threw
 */
export async function unreachable(fetch, url, pageOrigin, cause) {
  if (cause instanceof RelayError) return new McpError('unreachable', cause.message);
  const host = hostOf(url);
  if (offlineExplains(url)) return new McpError('unreachable', offlineMessage(host));
  let answered = false;
  try {
    await fetch(url, { mode: 'no-cors', cache: 'no-store', credentials: 'omit' });
    answered = true;
  } catch {
    answered = false;
  }
  const origin = pageOrigin ?? globalThis.location?.origin ?? 'this page';
  if (answered)
    return new McpError(
      'cors',
      `${host} answered, but does not let this page (${origin}) use it: CORS. For a browser to use an MCP server it ` +
        `must ${CORS_HELP}.`,
    );
  return new McpError('unreachable', `${host} could not be reached: is the server running, and is ${url} its MCP endpoint?`);
}

/**
 * Initialize was refused with 404/405: an old HTTP+SSE server (2024-11-05) answers a GET with
 * an `endpoint` event. Says which it is.
 * @param {typeof globalThis.fetch} fetch @param {string} url @param {Record<string, string>} headers the user's headers for this server
 * @param {McpError} original @param {AbortSignal} [signal]
 */
export async function explainNoStreamableHttp(fetch, url, headers, original, signal) {
  const host = hostOf(url);
  const controller = new AbortController();
  signal?.addEventListener('abort', () => controller.abort(), { once: true });
  const timer = setTimeout(() => controller.abort(), 5000);
  try {
    const res = await fetch(url, {
      method: 'GET',
      headers: { ...headers, accept: 'text/event-stream' },
      signal: controller.signal,
    });
    if (res.ok && res.body && (res.headers.get('content-type') ?? '').includes('text/event-stream')) {
      for await (const msg of parseSSE(res.body, { signal: controller.signal })) {
        if (msg.event === 'endpoint') {
          return new McpError(
            'old_transport',
            `${host} speaks only the old HTTP+SSE transport (protocol 2024-11-05), which Clawser does not use. Use the ` +
              `server's Streamable HTTP endpoint (often /mcp) or a newer version of the server.`,
          );
        }
        break;
      }
    }
  } catch {
    // no old-style stream either
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return new McpError('http', `${original.message} Is ${url} the server's MCP endpoint (often ending in /mcp)?`, {
    status: original.status,
  });
}
