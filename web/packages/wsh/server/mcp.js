// MCP over Streamable HTTP at /mcp, for tools a signed-in wsh client exposes (`expose` frame):
// an outside MCP client (a coding agent in a terminal) sends JSON-RPC here with a bearer token;
// the token's SHA-256 names the exposure, and tools/list and tools/call go to that client over
// its wsh connection, which answers them (the browser tab runs them through its own gates). The
// server answers the rest itself: the 2025 handshake (initialize, stateless: no session), ping,
// and 2026-07-28's server/discover with its header checks. It never learns a token (only the
// hashes the client sent), and logs neither tokens nor bodies.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { WshRefusedError } from '../errors.js';

/** @import { IncomingMessage, ServerResponse } from 'node:http' */

export const MCP_PATH = '/mcp';
/** Revisions without a handshake (every request says its revision in `_meta`). */
export const MCP_MODERN_VERSIONS = ['2026-07-28'];
/** Revisions with the initialize handshake, newest first. */
export const MCP_LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'];
/** The largest request body taken (it travels to the client as one frame's payload). */
export const MAX_MCP_BODY = 1024 * 1024 - 1024;

/** JSON-RPC error codes this endpoint answers with. */
export const MCP_ERRORS = {
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  /** The token is right, but no client exposes its tools now (stopped, or its tab is gone). */
  notExposed: -32003,
  /** No token, or not one any exposure was given. */
  unauthorized: -32001,
  headerMismatch: -32020,
  unsupportedVersion: -32022,
};

const META = 'io.modelcontextprotocol/';
const SERVER_INFO = { name: 'clawser-wsh', title: 'Clawser (through wsh-server)', version: '0.1.0' };

const MessageSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string().max(256), z.number().int()]).optional(),
  method: z.string().min(1).max(256),
  params: z.record(z.string(), z.unknown()).optional(),
});

const ReplyErrorSchema = z.object({ code: z.number().int(), message: z.string().max(4096), data: z.unknown().optional() });

/** The SHA-256 (hex) of a token. @param {string} token */
export function tokenHash(token) {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * What a connection hands the gateway for one exposure.
 * @typedef {object} Exposure
 * @property {string} name what the client calls it (a workspace's name), said in errors
 * @property {string[]} tokens the SHA-256 of each token that reaches it
 * @property {(method: 'tools/list' | 'tools/call', params: Record<string, unknown>, signal: AbortSignal) =>
 *   Promise<{ok: true, result: Record<string, unknown>} | {ok: false, error: {code: number, message: string, data?: unknown}}>} call
 */

/** Why an exposure's tokens reach nothing now, said to the MCP client. @typedef {{name: string, why: 'stopped' | 'disconnected'}} Gone */

export class McpGateway {
  /** @type {Map<string, Exposure>} live exposures by token hash */
  #live = new Map();
  /** @type {Map<string, Gone>} tokens of exposures that ended (the newest 1024), so their clients hear why */
  #gone = new Map();

  /** @param {(line: string) => void} log */
  constructor(log) {
    this.log = log;
  }

  /** How many exposures are live. */
  get size() {
    return new Set(this.#live.values()).size;
  }

  /** @param {Exposure} exposure */
  register(exposure) {
    for (const hash of exposure.tokens) {
      const holder = this.#live.get(hash);
      if (holder && holder !== exposure)
        throw new WshRefusedError(
          'mcp_token_in_use',
          `A token of this exposure already reaches “${holder.name}”, exposed by another connection: ` +
            'stop that one first, or make a new token.',
        );
    }
    for (const hash of exposure.tokens) {
      this.#live.set(hash, exposure);
      this.#gone.delete(hash);
    }
    this.log(`mcp: “${exposure.name}” exposed (${exposure.tokens.length} token${exposure.tokens.length === 1 ? '' : 's'})`);
  }

  /** @param {Exposure} exposure @param {'stopped' | 'disconnected'} why */
  unregister(exposure, why) {
    let had = false;
    for (const hash of exposure.tokens) {
      if (this.#live.get(hash) !== exposure) continue;
      had = true;
      this.#live.delete(hash);
      this.#gone.set(hash, { name: exposure.name, why });
      while (this.#gone.size > 1024) this.#gone.delete(/** @type {string} */ (this.#gone.keys().next().value));
    }
    if (had) this.log(`mcp: “${exposure.name}” no longer exposed (${why})`);
  }

  /**
   * Serves one HTTP request to /mcp (Host and Origin were checked by the server).
   * @param {IncomingMessage} req @param {ServerResponse} res
   */
  async handle(req, res) {
    if (req.method !== 'POST') {
      send(
        res,
        405,
        rpcError(null, MCP_ERRORS.invalidRequest, 'This MCP endpoint takes POST only: no session and no stream to GET or DELETE.'),
        {
          allow: 'POST',
        },
      );
      return;
    }
    // The token first: nothing about the endpoint is told without one.
    const auth = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    const hash = auth ? tokenHash(auth[1]) : null;
    const exposure = hash ? this.#live.get(hash) : undefined;
    const gone = hash && !exposure ? this.#gone.get(hash) : undefined;
    if (!exposure && !gone) {
      req.resume();
      this.log(`mcp: refused a request from ${req.socket.remoteAddress}: ${auth ? 'unknown token' : 'no token'}`);
      send(
        res,
        401,
        rpcError(
          null,
          MCP_ERRORS.unauthorized,
          auth
            ? 'Unauthorized: this bearer token reaches no Clawser workspace. Create a token in Clawser’s Remote panel ' +
                '(“Expose this workspace over MCP”) and send it as “Authorization: Bearer TOKEN”.'
            : 'Unauthorized: send the token Clawser made for this workspace as “Authorization: Bearer TOKEN” ' +
                '(Remote panel, “Expose this workspace over MCP”).',
        ),
        { 'www-authenticate': 'Bearer realm="wsh-mcp"' },
      );
      return;
    }
    /** @type {Buffer} */
    let body;
    try {
      body = await readBody(req, MAX_MCP_BODY);
    } catch {
      send(res, 413, rpcError(null, MCP_ERRORS.invalidRequest, `The request body is over ${MAX_MCP_BODY} bytes.`));
      return;
    }
    /** @type {unknown} */
    let raw;
    try {
      raw = JSON.parse(body.toString('utf8'));
    } catch {
      send(res, 400, rpcError(null, MCP_ERRORS.parse, 'Parse error: the body is not JSON.'));
      return;
    }
    if (Array.isArray(raw)) {
      send(res, 400, rpcError(null, MCP_ERRORS.invalidRequest, 'Batches are not accepted: send one JSON-RPC message a request.'));
      return;
    }
    const parsed = MessageSchema.safeParse(raw);
    if (!parsed.success) {
      // A response to a server request (this server sends none) or a malformed message.
      const isResponse = raw && typeof raw === 'object' && ('result' in raw || 'error' in raw);
      if (isResponse) res.writeHead(202).end();
      else send(res, 400, rpcError(null, MCP_ERRORS.invalidRequest, 'Invalid request: not a JSON-RPC 2.0 request or notification.'));
      return;
    }
    const message = parsed.data;
    if (message.id === undefined) {
      res.writeHead(202).end(); // a notification (initialized, cancelled): nothing to answer
      return;
    }
    const id = message.id;
    const answer = await this.#answer({ ...message, id }, req, exposure, gone).catch((err) => ({
      status: 200,
      body: rpcError(id, MCP_ERRORS.internal, `Internal error: ${String(/** @type {Error} */ (err)?.message ?? err).slice(0, 300)}`),
    }));
    send(res, answer.status, answer.body);
  }

  /**
   * @param {z.infer<typeof MessageSchema> & {id: string | number}} message @param {IncomingMessage} req
   * @param {Exposure | undefined} exposure @param {Gone | undefined} gone
   * @returns {Promise<{status: number, body: object}>}
   */
  async #answer(message, req, exposure, gone) {
    const { id, method } = message;
    const params = message.params ?? {};
    const meta = /** @type {Record<string, unknown>} */ (params._meta && typeof params._meta === 'object' ? params._meta : {});
    const headerVersion = header(req, 'mcp-protocol-version');
    const ok = (/** @type {object} */ result) => ({ status: 200, body: { jsonrpc: '2.0', id, result } });
    const fail = (/** @type {number} */ code, /** @type {string} */ text, /** @type {unknown} */ data = undefined, status = 200) => ({
      status,
      body: rpcError(id, code, text, data),
    });
    const bodyVersion = meta[`${META}protocolVersion`];
    const modern = typeof bodyVersion === 'string';
    if (modern) {
      // 2026-07-28: the revision is in every request; the standard headers must agree with the body.
      if (!MCP_MODERN_VERSIONS.includes(bodyVersion)) {
        const supported = [...MCP_MODERN_VERSIONS, ...MCP_LEGACY_VERSIONS];
        return fail(
          MCP_ERRORS.unsupportedVersion,
          `Unsupported protocol version ${bodyVersion}: this server speaks ${supported.join(', ')}.`,
          {
            supported,
            requested: bodyVersion,
          },
        );
      }
      if (headerVersion !== bodyVersion)
        return fail(
          MCP_ERRORS.headerMismatch,
          `The MCP-Protocol-Version header (${headerVersion ?? 'none'}) does not match the request's ${bodyVersion}.`,
          undefined,
          400,
        );
      if (header(req, 'mcp-method') !== method)
        return fail(
          MCP_ERRORS.headerMismatch,
          `The Mcp-Method header (${header(req, 'mcp-method') ?? 'none'}) does not match the method ${method}.`,
          undefined,
          400,
        );
      if (method === 'tools/call') {
        const named = decodeHeaderValue(header(req, 'mcp-name'));
        if (named !== params.name)
          return fail(MCP_ERRORS.headerMismatch, 'The Mcp-Name header does not match the tool the request names.', undefined, 400);
      }
      if (!meta[`${META}clientCapabilities`] || typeof meta[`${META}clientCapabilities`] !== 'object')
        return fail(
          MCP_ERRORS.invalidParams,
          `The request's _meta lacks ${META}clientCapabilities, which ${bodyVersion} requires.`,
          undefined,
          400,
        );
    } else {
      if (headerVersion && MCP_MODERN_VERSIONS.includes(headerVersion))
        return fail(
          MCP_ERRORS.invalidParams,
          `A ${headerVersion} request carries its revision in params._meta (${META}protocolVersion): it is missing.`,
          undefined,
          400,
        );
      if (headerVersion && !MCP_LEGACY_VERSIONS.includes(headerVersion) && method !== 'initialize')
        return fail(
          MCP_ERRORS.invalidRequest,
          `Unsupported MCP-Protocol-Version ${headerVersion}: this server speaks ` +
            `${[...MCP_MODERN_VERSIONS, ...MCP_LEGACY_VERSIONS].join(', ')}.`,
          undefined,
          400,
        );
    }
    /** @param {Record<string, unknown>} result */
    const complete = (result) =>
      modern
        ? {
            ...result,
            resultType: 'complete',
            _meta: { .../** @type {Record<string, unknown>} */ (result._meta ?? {}), [`${META}serverInfo`]: SERVER_INFO },
          }
        : result;
    if (!exposure) {
      const what = /** @type {Gone} */ (gone);
      return fail(
        MCP_ERRORS.notExposed,
        what.why === 'stopped'
          ? `Clawser stopped exposing “${what.name}” over MCP: start it again in Clawser’s Remote panel to use its tools.`
          : `The Clawser tab exposing “${what.name}” is not connected to this wsh server now (closed or offline): ` +
              'open it again and start exposing in its Remote panel.',
        { exposure: what.name, reason: what.why },
      );
    }
    if (method === 'ping') return ok(complete({}));
    if (method === 'initialize' && !modern) {
      const asked = typeof params.protocolVersion === 'string' ? params.protocolVersion : '';
      return ok({
        protocolVersion: MCP_LEGACY_VERSIONS.includes(asked) ? asked : MCP_LEGACY_VERSIONS[0],
        capabilities: { tools: { listChanged: false } },
        serverInfo: SERVER_INFO,
        instructions:
          `The tools of the Clawser workspace “${exposure.name}”. ` +
          'Calls that change something may wait for the user’s approval in Clawser.',
      });
    }
    if (method === 'server/discover' && modern)
      return ok(
        complete({
          supportedVersions: [...MCP_MODERN_VERSIONS, ...MCP_LEGACY_VERSIONS],
          capabilities: { tools: { listChanged: false } },
          instructions: `The tools of the Clawser workspace “${exposure.name}”.`,
          // Private and not to be reused: what a token reaches changes when the user changes the exposure.
          ttlMs: 0,
          cacheScope: 'private',
        }),
      );
    if (method === 'tools/list' || method === 'tools/call') {
      const { _meta, ...rest } = params;
      const abort = new AbortController();
      const onClose = () => abort.abort();
      req.socket.once('close', onClose);
      try {
        const reply = await exposure.call(method, rest, abort.signal);
        // 2026-07-28 list results say how long they may be reused: not at all (the exposed tools change with the user's choice).
        const list = modern && method === 'tools/list' ? { ttlMs: 0, cacheScope: 'private' } : {};
        return reply.ok ? ok(complete({ ...reply.result, ...list })) : fail(reply.error.code, reply.error.message, reply.error.data);
      } catch (err) {
        if (/** @type {{code?: string}} */ (err)?.code !== 'closed') throw err;
        return fail(
          MCP_ERRORS.notExposed,
          `Clawser stopped exposing “${exposure.name}” (or its tab went away) while this request waited: nothing more was done for it.`,
          { exposure: exposure.name, reason: 'stopped' },
        );
      } finally {
        req.socket.off('close', onClose);
      }
    }
    return fail(MCP_ERRORS.methodNotFound, `Method not found: ${method} (this server offers tools only).`);
  }
}

/** The error `{code, message}` of a client's reply, validated (a bad one reads as an internal error). @param {unknown} value */
export function replyError(value) {
  const parsed = ReplyErrorSchema.safeParse(value);
  return parsed.success
    ? parsed.data
    : { code: MCP_ERRORS.internal, message: 'The exposing client answered with a malformed error.', data: undefined };
}

/** @param {string | number | null} id @param {number} code @param {string} message @param {unknown} [data] */
function rpcError(id, code, message, data) {
  return { jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } };
}

/** @param {ServerResponse} res @param {number} status @param {object} body @param {Record<string, string>} [headers] */
function send(res, status, body, headers = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers }).end(text);
}

/** @param {IncomingMessage} req @param {string} name */
function header(req, name) {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** A header value as 2026-07-28 carries it (`=?base64?…?=` for one that is not plain ASCII). @param {string | undefined} value */
export function decodeHeaderValue(value) {
  if (value === undefined) return undefined;
  const m = /^=\?base64\?([A-Za-z0-9+/=]*)\?=$/.exec(value);
  return m ? Buffer.from(m[1], 'base64').toString('utf8') : value;
}

/** @param {IncomingMessage} req @param {number} limit @returns {Promise<Buffer>} */
function readBody(req, limit) {
  return new Promise((resolve, reject) => {
    /** @type {Buffer[]} */
    const parts = [];
    let size = 0;
    // Past the limit the rest is read and dropped, so the answer can still be sent.
    req.on('data', (/** @type {Buffer} */ piece) => {
      size += piece.byteLength;
      if (size <= limit) parts.push(piece);
    });
    req.on('end', () => (size > limit ? reject(new Error('too large')) : resolve(Buffer.concat(parts))));
    req.on('error', reject);
  });
}
