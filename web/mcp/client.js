// Why this file is long: one Streamable HTTP connection of the MCP protocol in either era (the
//  revision probe, handshake, session id, response, GET and listen streams, cancellation, progress,
//  re-handshake); every part reads and writes the same connection state. The rules that differ
//  between revisions are in revision.js, the errors and their explanations in errors.js.
/**
 * A Model Context Protocol client over Streamable HTTP, from the page. It speaks the stateless
 * revision 2026-07-28 and negotiates down to 2025-11-25, 2025-06-18 and 2025-03-26: connect()
 * first asks `server/discover` as 2026-07-28 (the spec's HTTP probe) and falls back to the
 * initialize handshake when the server does not answer as a 2026-07-28 server.
 * 2026-07-28: no session; every request carries `_meta` (protocol version, client identity and
 * capabilities) and the `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*`
 * headers; change notifications come on a `subscriptions/listen` stream; cancelling closes the
 * request's stream. 2025: the session (`Mcp-Session-Id`) kept and sent, `MCP-Protocol-Version` on
 * every request after the handshake, a new handshake when the server forgot the session (404, or
 * 400 "no valid session"), `DELETE` on close, server notifications and requests on response
 * streams (and on the optional GET stream), cancellation (`notifications/cancelled`).
 * Both: JSON-RPC POSTs that accept a JSON or an SSE answer, progress tokens.
 * Errors say what to do: a server that speaks only the old HTTP+SSE transport, a revision this
 * client does not speak, and a server the browser cannot reach because of CORS (with the exact
 * headers it must allow).
 */
import { parseSSE } from '../net/sse.js';
import { CORS_HELP, McpError, explainNoStreamableHttp, hostOf, httpError, unreachable } from './errors.js';
import {
  DiscoverResultSchema,
  LEGACY_VERSIONS,
  MODERN_ERRORS,
  MODERN_VERSIONS,
  paramHeadersOf,
  paramHeaderValues,
  standardHeaders,
  supportedVersionsOf,
  withEnvelope,
} from './revision.js';

export { CORS_HELP, McpError } from './errors.js';

/** Protocol revisions this client speaks, newest first. */
export const PROTOCOL_VERSIONS = [...MODERN_VERSIONS, ...LEGACY_VERSIONS];
export const CLIENT_INFO = { name: 'clawser', title: 'Clawser', version: '0.1.0' };

/**
 * @typedef {object} McpTool
 * @property {string} name
 * @property {string} [title]
 * @property {string} [description]
 * @property {Record<string, unknown>} inputSchema
 * @property {{title?: string, readOnlyHint?: boolean, destructiveHint?: boolean, idempotentHint?: boolean, openWorldHint?: boolean}}
 *   [annotations]
 */

/**
 * @typedef {{type: 'text', text: string} | {type: 'image', data: string, mimeType: string} | {type: 'audio', data: string, mimeType:
 *   string}
 *   | {type: 'resource', resource: {uri: string, mimeType?: string, text?: string, blob?: string}} | {type: 'resource_link', uri: string,
 *   name?: string, description?: string, mimeType?: string}} McpContent
 */

/** @typedef {{progress: number, total?: number, message?: string}} McpProgress */

/**
 * @typedef {object} McpClientOptions
 * @property {string} url the server's MCP endpoint
 * @property {Record<string, string>} [headers] sent with every request (a bearer token, a custom header)
 * @property {() => Promise<Record<string, string>>} [authHeaders] headers made fresh per request (OAuth access tokens)
 * @property {typeof fetch} [fetch]
 * @property {(notification: {method: string, params?: any}) => void} [onNotification] server notifications (logging, list changes, …)
 * @property {(level: string, data: unknown, logger?: string) => void} [onLog] `notifications/message`
 * @property {() => void} [onToolsChanged] `notifications/tools/list_changed`
 * @property {string} [origin] this page's origin, for error messages
 * @property {number} [timeoutMs] how long a request may go without an answer or progress (5 minutes)
 */

/**
 * @typedef {object} McpRequestOptions
 * @property {AbortSignal} [signal]
 * @property {boolean} [handshake] initialize or the 2026-07-28 probe: no session needed, not cancelled with a notification
 * @property {boolean} [retried] sent again after a new handshake
 * @property {boolean} [probe] the 2026-07-28 probe: what else the server sends meanwhile is not acted on
 * @property {boolean} [lasting] no time-out (a listen stream)
 * @property {Record<string, string>} [headers] more headers (a call's Mcp-Param-*)
 */

let nextProgress = 1;

export class McpClient {
  /** @type {string | null} */
  sessionId = null;
  /** @type {string | null} */
  protocolVersion = null;
  /**
   * @type {{serverInfo: {name: string, version?: string, title?: string}, capabilities: Record<string, any>, instructions?: string,
   *   protocolVersion: string} | null}
   */
  server = null;
  #nextId = 1;
  /** Progress callbacks by token. @type {Map<string | number, (p: McpProgress) => void>} */
  #progress = new Map();
  /** The GET stream for server-initiated messages, when the server offers one. @type {AbortController | null} */
  #listening = null;
  /** Listening was asked for (kept after a new handshake). */
  #wantsListening = false;
  /** The server keeps sessions (its handshake gave one): without one, a new handshake comes first. */
  #sessionful = false;
  /** close() was called: no new handshake after it. */
  #closed = false;
  /**
   * The new handshake in progress after the server lost the session (shared by every request that noticed).
   * @type {Promise<unknown> | null}
   */
  #reconnecting = null;
  /** Requests waiting for an answer: each restarts its time-out when the server reports progress. @type {Map<number, () => void>} */
  #alive = new Map();
  /** The server's era, once it answered the probe (kept for this client's life, as the spec advises). @type {'modern' | 'legacy' | null} */
  #era = null;
  /** The 2026-07-28 probe did not get through (CORS, network): said when the server then turns out to speak only 2026-07-28. */
  #probeBlocked = false;
  /** The log level asked for, sent with every 2026-07-28 request (there is no logging/setLevel). @type {string | null} */
  #logLevel = null;
  /** The Mcp-Param-* headers each listed tool's calls carry (2026-07-28). @type {Map<string, import('./revision.js').ParamHeader[]>} */
  #paramHeaders = new Map();

  /** This connection speaks the stateless revision (2026-07-28). */
  get #modern() {
    return this.protocolVersion !== null && MODERN_VERSIONS.includes(this.protocolVersion);
  }

  /** @param {McpClientOptions} options */
  constructor(options) {
    this.options = options;
    this.url = options.url;
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    /** How long a request may go without an answer or a progress report. */
    this.timeoutMs = options.timeoutMs ?? 300_000;
  }

  /**
   * Connects: the 2026-07-28 probe (`server/discover`), else the 2025 handshake (`initialize`,
   * then `notifications/initialized`). Returns what the server is.
   * @param {{signal?: AbortSignal}} [options]
   */
  async connect(options = {}) {
    this.#closed = false;
    this.sessionId = null;
    this.protocolVersion = null;
    this.#paramHeaders.clear();
    if (this.#era !== 'legacy') {
      const modern = await this.#discover(options.signal);
      if (modern) {
        if (this.#wantsListening) {
          this.#listening?.abort();
          this.#listening = null;
          this.listen();
        }
        return modern;
      }
    }
    let result;
    try {
      result = await this.#request(
        'initialize',
        { protocolVersion: LEGACY_VERSIONS[0], capabilities: { roots: { listChanged: false } }, clientInfo: CLIENT_INFO },
        { signal: options.signal, handshake: true },
      );
    } catch (err) {
      const e = /** @type {McpError} */ (err);
      // A server of the sessionless revision has no `initialize`: it says so with an unsupported
      // protocol version error listing what it supports (-32022; -32004 in drafts) or -32601.
      if (
        e.rpcCode === MODERN_ERRORS.unsupportedVersion ||
        e.rpcCode === -32004 ||
        e.rpcCode === -32601 ||
        (e.code === 'rpc' && /protocol version|unsupported/i.test(e.message))
      ) {
        const supported = supportedVersionsOf(e.data) ?? [];
        const list = supported.join(', ');
        if (this.#probeBlocked && supported.some((v) => MODERN_VERSIONS.includes(v)))
          throw new McpError(
            'cors',
            `${this.#host()} speaks protocol revision ${list}, but this page's request in that revision did not get through: the ` +
              `server must allow the Mcp-Method and Mcp-Name request headers (CORS). For a browser to use an MCP server it must ` +
              `${CORS_HELP}.`,
            { rpcCode: e.rpcCode, data: e.data },
          );
        throw new McpError(
          'unsupported_version',
          supported.some((v) => MODERN_VERSIONS.includes(v))
            ? `${this.#host()} lists protocol revision ${list} but refused both Clawser's ${MODERN_VERSIONS.join(', ')} request ` +
                `(server/discover) and the initialize handshake: it may speak a draft of that revision. Update the server.`
            : `${this.#host()} answers neither server/discover (${MODERN_VERSIONS.join(', ')}) nor initialize (` +
                `${LEGACY_VERSIONS.join(', ')})${list ? `; it speaks protocol revision ${list}` : ''}. Clawser speaks ` +
                `${PROTOCOL_VERSIONS.join(', ')}: update Clawser or the server, or use the server's endpoint for these revisions.`,
          { rpcCode: e.rpcCode, data: e.data },
        );
      }
      if (e.code === 'http' && (e.status === 404 || e.status === 405 || e.status === 400))
        throw await explainNoStreamableHttp(this.fetch, this.url, this.options.headers ?? {}, e, options.signal);
      throw err;
    }
    const version = String(result?.protocolVersion ?? '');
    if (!LEGACY_VERSIONS.includes(version)) {
      this.close().catch(() => {});
      throw new McpError(
        'unsupported_version',
        `${this.#host()} answered the initialize handshake with protocol revision "${version || 'none'}", which Clawser does not ` +
          `speak there (it speaks ${LEGACY_VERSIONS.join(', ')} with the handshake, ${MODERN_VERSIONS.join(', ')} without).${
            version > LEGACY_VERSIONS[0] ? ' The server is newer: update Clawser.' : ''
          }`,
      );
    }
    this.protocolVersion = version;
    this.#sessionful = !!this.sessionId;
    this.server = {
      serverInfo: result.serverInfo ?? { name: this.#host() },
      capabilities: result.capabilities ?? {},
      instructions: typeof result.instructions === 'string' ? result.instructions : undefined,
      protocolVersion: version,
    };
    await this.#notify('notifications/initialized', undefined, options.signal);
    // A probe the browser could not send (CORS) is not tried again on a server that answers the 2025 way.
    if (this.#probeBlocked) this.#era = 'legacy';
    if (this.#wantsListening) {
      this.#listening?.abort();
      this.#listening = null;
      this.listen();
    }
    return this.server;
  }

  /**
   * The 2026-07-28 probe: `server/discover` in that revision. Returns what the server is when it
   * answers as a 2026-07-28 server; null when it is of the 2025 era (any other answer but a
   * refusal to authenticate, as the spec's backward-compatibility rules say); throws when it lists
   * only revisions this client does not speak.
   * @param {AbortSignal} [signal]
   */
  async #discover(signal) {
    this.#probeBlocked = false;
    this.protocolVersion = MODERN_VERSIONS[0];
    let result;
    try {
      result = await this.#request('server/discover', {}, { signal, handshake: true, probe: true });
    } catch (err) {
      this.protocolVersion = null;
      const e = /** @type {McpError} */ (err);
      if (e.code === 'auth' || e.code === 'aborted') throw err;
      const supported = e.rpcCode === MODERN_ERRORS.unsupportedVersion ? supportedVersionsOf(e.data) : null;
      if (supported) {
        this.#era = 'modern';
        return this.#unspeakable(supported);
      }
      // The request did not get through (a CORS preflight that refuses the new headers, nothing
      // listening): the handshake tries the 2025 way and says what is wrong if that fails too.
      // Only an answer of the server (not a 5xx, which says nothing of its era) is remembered.
      if (e.code === 'cors' || e.code === 'unreachable') this.#probeBlocked = true;
      else if (!(e.status && e.status >= 500)) this.#era = 'legacy';
      return null;
    }
    const parsed = DiscoverResultSchema.safeParse(result);
    if (!parsed.success) {
      this.protocolVersion = null;
      this.#era = 'legacy';
      return null;
    }
    const version = MODERN_VERSIONS.find((v) => parsed.data.supportedVersions.includes(v));
    if (!version) {
      this.protocolVersion = null;
      this.#era = 'modern';
      return this.#unspeakable(parsed.data.supportedVersions);
    }
    this.#era = 'modern';
    this.protocolVersion = version;
    const d = parsed.data;
    const info = d._meta?.['io.modelcontextprotocol/serverInfo'];
    this.server = {
      serverInfo: info ?? { name: this.#host() },
      capabilities: /** @type {Record<string, any>} */ (d.capabilities),
      instructions: d.instructions,
      protocolVersion: version,
    };
    return this.server;
  }

  /**
   * A server of the 2026-07-28 era that lists no revision this client speaks in it: the 2025
   * handshake when it lists one of those, else a clear error.
   * @param {string[]} supported
   * @returns {null}
   */
  #unspeakable(supported) {
    if (supported.some((v) => LEGACY_VERSIONS.includes(v))) {
      this.#era = 'legacy';
      return null;
    }
    throw new McpError(
      'unsupported_version',
      `${this.#host()} speaks only protocol revision ${supported.join(', ') || '(none listed)'}, which Clawser does not speak ` +
        `(it speaks ${PROTOCOL_VERSIONS.join(', ')}). Update Clawser, or use the server's endpoint for an older revision if it has one.`,
      { rpcCode: MODERN_ERRORS.unsupportedVersion, data: { supported } },
    );
  }

  /**
   * Keeps a stream open for messages the server sends on its own (list changes, logs): in
   * 2026-07-28 a `subscriptions/listen` request, when the server says its tools list changes; in
   * 2025 the GET stream, when it offers one (405: it does not). Stops with close().
   */
  listen() {
    this.#wantsListening = true;
    if (this.#listening) return;
    if (this.#modern) {
      if (this.server?.capabilities.tools?.listChanged) this.#subscribe();
      return;
    }
    if (!this.sessionId) return;
    const controller = new AbortController();
    this.#listening = controller;
    (async () => {
      /** @type {{lastEventId: string, retryMs: number}} */
      const resume = { lastEventId: '', retryMs: 1000 };
      let failures = 0;
      // Reconnects after the server closes the stream (with its retry delay, longer after each
      // failure); a server without a GET stream (405) is not asked again.
      while (!controller.signal.aborted && failures < 8) {
        let res = null;
        try {
          res = await this.fetch(this.url, {
            method: 'GET',
            headers: {
              ...(await this.#headers()),
              accept: 'text/event-stream',
              ...(resume.lastEventId ? { 'last-event-id': resume.lastEventId } : {}),
            },
            signal: controller.signal,
            credentials: 'omit',
          });
        } catch {
          res = null;
        }
        if (controller.signal.aborted) return;
        if (res && (res.status === 405 || res.status === 404)) return;
        if (res?.ok && res.body && (res.headers.get('content-type') ?? '').includes('text/event-stream')) {
          failures = 0;
          await this.#readStream(res.body, -1, controller.signal, resume).catch(() => null);
        } else failures++;
        await new Promise((r) => setTimeout(r, Math.min(resume.retryMs * 2 ** failures, 60_000)));
      }
    })()
      .catch(() => {})
      .finally(() => {
        if (this.#listening === controller) this.#listening = null;
      });
  }

  /**
   * The 2026-07-28 change stream: `subscriptions/listen` for tools list changes, opened again
   * (with a longer wait after each failure) when it ends.
   */
  #subscribe() {
    const controller = new AbortController();
    this.#listening = controller;
    (async () => {
      let failures = 0;
      while (!controller.signal.aborted && failures < 8) {
        try {
          await this.#request(
            'subscriptions/listen',
            { notifications: { toolsListChanged: true } },
            { signal: controller.signal, lasting: true },
          );
          failures = 0;
        } catch (err) {
          if (controller.signal.aborted || /** @type {McpError} */ (err).rpcCode === -32601) return;
          failures++;
        }
        await new Promise((r) => setTimeout(r, Math.min(1000 * 2 ** failures, 60_000)));
      }
    })()
      .catch(() => {})
      .finally(() => {
        if (this.#listening === controller) this.#listening = null;
      });
  }

  /**
   * Every tool, through all pages. In 2026-07-28 a tool whose `x-mcp-header` annotations break the
   * revision's rules is left out (and said through onLog), as the revision requires.
   * @param {{signal?: AbortSignal}} [options] @returns {Promise<McpTool[]>}
   */
  async listTools(options = {}) {
    /** @type {McpTool[]} */
    const tools = await this.#all('tools/list', 'tools', options.signal);
    if (!this.#modern) return tools;
    this.#paramHeaders.clear();
    return tools.filter((t) => {
      const headers = paramHeadersOf(t?.inputSchema);
      if (headers.ok) {
        this.#paramHeaders.set(t.name, headers.headers);
        return true;
      }
      this.options.onLog?.('warning', `Clawser left out the tool "${t?.name}" of ${this.#host()}: ${headers.reason}.`, 'clawser');
      return false;
    });
  }

  /**
   * Calls a tool. Progress arrives through `onProgress` (a progress token is sent); the signal
   * cancels it (the server is told with `notifications/cancelled`).
   * @param {string} name @param {Record<string, unknown>} args
   * @param {{signal?: AbortSignal, onProgress?: (p: McpProgress) => void}} [options]
   * @returns {Promise<{content: McpContent[], isError: boolean, structuredContent?: unknown}>}
   */
  async callTool(name, args, options = {}) {
    /** @type {Record<string, unknown>} */
    const params = { name, arguments: args ?? {} };
    let token = null;
    if (options.onProgress) {
      token = `p${nextProgress++}`;
      this.#progress.set(token, options.onProgress);
      params._meta = { progressToken: token };
    }
    try {
      const call = () =>
        this.#request('tools/call', params, {
          signal: options.signal,
          headers: this.#modern ? paramHeaderValues(this.#paramHeaders.get(name) ?? [], args ?? {}) : {},
        });
      let r;
      try {
        r = await call();
      } catch (err) {
        // The tool mirrors arguments into headers this client has not learnt yet: list the tools, then once again.
        if (/** @type {McpError} */ (err).rpcCode !== MODERN_ERRORS.headerMismatch || !this.#modern || this.#paramHeaders.has(name))
          throw err;
        await this.listTools({ signal: options.signal });
        r = await call();
      }
      return {
        content: Array.isArray(r?.content) ? r.content : [],
        isError: r?.isError === true,
        ...(r?.structuredContent !== undefined ? { structuredContent: r.structuredContent } : {}),
      };
    } finally {
      if (token) this.#progress.delete(token);
    }
  }

  /**
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<{uri: string, name: string, title?: string, description?: string, mimeType?: string}[]>}
   */
  async listResources(options = {}) {
    return this.#all('resources/list', 'resources', options.signal);
  }

  /**
   * @param {string} uri
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<{contents: {uri: string, mimeType?: string, text?: string, blob?: string}[]}>}
   */
  async readResource(uri, options = {}) {
    const r = await this.#request('resources/read', { uri }, { signal: options.signal });
    return { contents: Array.isArray(r?.contents) ? r.contents : [] };
  }

  /**
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<{name: string, title?: string, description?: string, arguments?: {name: string, description?: string,
   *   required?: boolean}[]}[]>}
   */
  async listPrompts(options = {}) {
    return this.#all('prompts/list', 'prompts', options.signal);
  }

  /**
   * @param {string} name
   * @param {Record<string, string>} [args]
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<{description?: string, messages: {role: string, content: McpContent}[]}>}
   */
  async getPrompt(name, args = {}, options = {}) {
    const r = await this.#request('prompts/get', { name, arguments: args }, { signal: options.signal });
    return { description: r?.description, messages: Array.isArray(r?.messages) ? r.messages : [] };
  }

  /**
   * Asks the server to send its log messages from `level` up (when it has logging): in 2026-07-28
   * with every request, in 2025 with `logging/setLevel`.
   * @param {string} level
   */
  async setLogLevel(level) {
    if (!this.server?.capabilities.logging) return;
    if (this.#modern) this.#logLevel = level;
    else await this.#request('logging/setLevel', { level });
  }

  /** Ends the session (`DELETE`; 2026-07-28 has none) and stops listening. */
  async close() {
    this.#closed = true;
    this.#wantsListening = false;
    this.#listening?.abort();
    this.#listening = null;
    const session = this.sessionId;
    this.sessionId = null;
    if (!session) return;
    try {
      await this.fetch(this.url, {
        method: 'DELETE',
        headers: { ...(await this.#headers()), 'mcp-session-id': session },
        credentials: 'omit',
      });
    } catch {
      // The server may be gone already: nothing to end.
    }
  }

  // --- transport ------------------------------------------------------------------------

  /** @param {string} method @param {string} key @param {AbortSignal} [signal] */
  async #all(method, key, signal) {
    /** @type {any[]} */
    const out = [];
    let cursor;
    for (let page = 0; page < 100; page++) {
      const r = await this.#request(method, cursor ? { cursor } : {}, { signal });
      if (Array.isArray(r?.[key])) out.push(...r[key]);
      cursor = typeof r?.nextCursor === 'string' && r.nextCursor ? r.nextCursor : undefined;
      if (!cursor) break;
    }
    return out;
  }

  /** Headers of every request after the handshake. */
  async #headers() {
    return {
      ...(this.options.headers ?? {}),
      ...(this.options.authHeaders ? await this.options.authHeaders() : {}),
      ...(this.sessionId ? { 'mcp-session-id': this.sessionId } : {}),
      ...(this.protocolVersion ? { 'mcp-protocol-version': this.protocolVersion } : {}),
    };
  }

  /**
   * One JSON-RPC request; its answer comes as JSON or as an SSE stream (with notifications and
   * server requests before it). A forgotten session is re-established once.
   * In 2026-07-28 it carries the `_meta` envelope and the revision's headers (with `headers`:
   * a call's Mcp-Param-*), and a result that asks for more input is refused.
   * @param {string} method @param {unknown} params
   * @param {McpRequestOptions} [options]
   * @returns {Promise<any>}
   */
  async #request(method, params, options = {}) {
    const result = await this.#exchange(method, params, options);
    if (this.#modern && result?.resultType === 'input_required')
      throw new McpError(
        'protocol',
        `${this.#host()} asks for more input to answer ${method} (${Object.keys(result.inputRequests ?? {}).join(', ') || 'unnamed'}: ` +
          `elicitation, sampling or roots), which Clawser does not offer to MCP servers.`,
      );
    return result;
  }

  /** @param {string} method @param {unknown} params @param {McpRequestOptions} options @returns {Promise<any>} */
  async #exchange(method, params, options) {
    const id = this.#nextId++;
    const modern = this.#modern;
    if (modern) params = withEnvelope(params, /** @type {string} */ (this.protocolVersion), CLIENT_INFO, this.#logLevel);
    const extra = modern ? { ...(options.headers ?? {}), ...standardHeaders(method, params) } : {};
    const body = JSON.stringify({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) });
    const signal = options.signal;
    if (signal?.aborted) throw new McpError('aborted', 'Cancelled.');
    if (!options.handshake) {
      // A new handshake in progress (or needed: the last one failed) comes first: this request needs its session.
      if (!this.#reconnecting && this.#sessionful && this.sessionId === null && !this.#closed) this.#reconnect();
      if (this.#reconnecting) await this.#awaitOrStop(this.#reconnecting, signal);
    }
    const controller = new AbortController();
    const onAbort = () => {
      controller.abort();
      // The server stops the work too (not for the handshake, which may not be cancelled). In
      // 2026-07-28 closing the request's stream is the cancellation.
      if (!options.handshake && !modern)
        this.#notify('notifications/cancelled', { requestId: id, reason: 'The user cancelled it.' }).catch(() => {});
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    // A server that never answers does not hold the turn for ever: the time-out restarts with each progress report.
    let timedOut = false;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    const arm = () => {
      clearTimeout(timer);
      if (options.lasting) return;
      timer = setTimeout(() => {
        timedOut = true;
        onAbort();
      }, this.timeoutMs);
    };
    arm();
    this.#alive.set(id, arm);
    const sent = this.sessionId;
    try {
      const res = await this.#post(body, controller.signal, extra);
      if (
        !modern &&
        (res.status === 404 ||
          (res.status === 400 &&
            /session/i.test(
              await res
                .clone()
                .text()
                .catch(() => ''),
            ))) &&
        !options.handshake &&
        !options.retried
      ) {
        if (sent && !this.#closed) {
          // The server forgot the session (restarted, expired): one new handshake for every request that noticed, then the request again.
          if (this.sessionId === sent || this.sessionId === null) {
            if (!this.#reconnecting) this.#reconnect();
            await this.#awaitOrStop(/** @type {Promise<unknown>} */ (this.#reconnecting), signal);
          }
          return this.#request(method, params, { ...options, retried: true });
        }
        if (res.status === 400) {
          // No session id to send although the server keeps sessions: it sent one the page may not read.
          throw new McpError(
            'cors',
            `${this.#host()} answered HTTP 400 about its session: it sends an Mcp-Session-Id this page cannot read. The server must ` +
              `expose it (Access-Control-Expose-Headers: Mcp-Session-Id).`,
            { status: 400 },
          );
        }
      }
      if (!res.ok) throw await httpError(res, this.#host());
      const session = res.headers.get('mcp-session-id');
      if (options.handshake && session) this.sessionId = session;
      const type = res.headers.get('content-type') ?? '';
      if (type.includes('text/event-stream')) {
        if (!res.body) throw new McpError('protocol', `${this.#host()} sent an empty event stream.`);
        /** @type {{lastEventId: string, retryMs: number}} */
        const resume = { lastEventId: '', retryMs: 1000 };
        const answer = await this.#readStream(res.body, id, controller.signal, resume, options.probe);
        if (answer) return answer.result;
        // The stream closed before the answer: resumable when the server gave event ids (2025-11-25; not in 2026-07-28).
        // Up to 5 tries in a row that bring nothing; a resumed stream that brought events resets the count.
        for (let attempt = 0; !modern && resume.lastEventId && attempt < 5 && !controller.signal.aborted; attempt++) {
          await new Promise((r) => setTimeout(r, Math.min(resume.retryMs, 10_000)));
          const again = await this.fetch(this.url, {
            method: 'GET',
            headers: { ...(await this.#headers()), accept: 'text/event-stream', 'last-event-id': resume.lastEventId },
            signal: controller.signal,
            credentials: 'omit',
          }).catch(() => null);
          if (!again?.ok || !again.body) continue;
          const before = resume.lastEventId;
          const resumed = await this.#readStream(again.body, id, controller.signal, resume);
          if (resumed) return resumed.result;
          if (resume.lastEventId !== before) attempt = -1;
        }
        if (controller.signal.aborted) throw new McpError('aborted', 'Cancelled.');
        throw new McpError('protocol', `${this.#host()} closed the stream before answering ${method}.`);
      }
      const text = await res.text();
      let message;
      try {
        message = JSON.parse(text);
      } catch {
        throw new McpError('protocol', `${this.#host()} did not answer ${method} with JSON-RPC (${text.slice(0, 120)}).`);
      }
      for (const m of Array.isArray(message) ? message : [message]) {
        const answer = await this.#incoming(m, id, options.probe);
        if (answer) return answer.result;
      }
      throw new McpError('protocol', `${this.#host()} did not answer ${method}.`);
    } catch (err) {
      if (timedOut)
        throw new McpError(
          'http',
          `${this.#host()} did not answer ${method} within ${Math.round(this.timeoutMs / 1000)} s (no progress either); the request was ` +
            `cancelled.`,
        );
      if (signal?.aborted || /** @type {Error} */ (err).name === 'AbortError') throw new McpError('aborted', 'Cancelled.');
      throw err;
    } finally {
      clearTimeout(timer);
      this.#alive.delete(id);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * A new handshake shared by every request that needs it: its own signal and time-out, so one
   * caller's Stop does not end it for the others; a failure leaves the next request to try again.
   */
  #reconnect() {
    this.#reconnecting = this.connect().finally(() => {
      this.#reconnecting = null;
    });
    this.#reconnecting.catch(() => {});
  }

  /** Waits for `p` unless `signal` stops the caller first. @param {Promise<unknown>} p @param {AbortSignal} [signal] */
  async #awaitOrStop(p, signal) {
    if (!signal) return p;
    /** @type {() => void} */
    let off = () => {};
    const stopped = new Promise((_resolve, reject) => {
      const onAbort = () => reject(new McpError('aborted', 'Cancelled.'));
      signal.addEventListener('abort', onAbort, { once: true });
      off = () => signal.removeEventListener('abort', onAbort);
    });
    try {
      return await Promise.race([p, stopped]);
    } finally {
      off();
    }
  }

  /**
   * Reads an SSE stream until the answer to `id` (returned) or its end (null), handling what
   * else the server sends; remembers the last event id and the retry delay for resuming.
   * @param {ReadableStream<Uint8Array>} body @param {number} id @param {AbortSignal} signal @param {{lastEventId: string, retryMs: number}}
   *   resume @param {boolean} [quiet] only the answer counts (the probe)
   */
  async #readStream(body, id, signal, resume, quiet = false) {
    for await (const msg of parseSSE(body, { signal })) {
      if (msg.id) resume.lastEventId = msg.id;
      if (msg.retry !== undefined) resume.retryMs = msg.retry;
      if (!msg.data) continue;
      const answer = await this.#incoming(msg.data, id, quiet);
      if (answer) return answer;
    }
    return null;
  }

  /** A notification (no answer expected: 202). @param {string} method @param {unknown} [params] @param {AbortSignal} [signal] */
  async #notify(method, params, signal) {
    const res = await this.#post(JSON.stringify({ jsonrpc: '2.0', method, ...(params !== undefined ? { params } : {}) }), signal);
    if (!res.ok && res.status !== 202) throw await httpError(res, this.#host());
    res.body?.cancel().catch(() => {});
  }

  /**
   * An answer to a server's request.
   * @param {string | number} id
   * @param {{result?: unknown, error?: {code: number, message: string}}} reply
   */
  async #reply(id, reply) {
    const res = await this.#post(JSON.stringify({ jsonrpc: '2.0', id, ...reply }));
    res.body?.cancel().catch(() => {});
  }

  /** @param {string} body @param {AbortSignal} [signal] @param {Record<string, string>} [extra] the revision's headers of this request */
  async #post(body, signal, extra = {}) {
    try {
      return await this.fetch(this.url, {
        method: 'POST',
        headers: {
          ...(await this.#headers()),
          ...extra,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body,
        signal,
        credentials: 'omit',
      });
    } catch (err) {
      if (signal?.aborted || /** @type {Error} */ (err).name === 'AbortError') throw err;
      throw await unreachable(this.fetch, this.url, this.options.origin, err);
    }
  }

  /**
   * A message from the server: the answer to `waiting` (returned), or a notification or request
   * it sent meanwhile (handled here).
   * @param {string | any} raw @param {number | null} waiting @param {boolean} [quiet] only the answer counts (the probe)
   * @returns {Promise<{result: any} | null>}
   */
  async #incoming(raw, waiting, quiet = false) {
    let m;
    try {
      m = typeof raw === 'string' ? JSON.parse(raw) : raw;
    } catch {
      return null;
    }
    if (!m || typeof m !== 'object') return null;
    if ('id' in m && m.id === waiting && ('result' in m || 'error' in m)) {
      if (m.error)
        throw new McpError('rpc', `${this.#host()}: ${String(m.error.message ?? 'error')}`, { rpcCode: m.error.code, data: m.error.data });
      return { result: m.result };
    }
    if (typeof m.method !== 'string' || quiet) return null;
    if ('id' in m && m.id !== undefined && m.id !== null) {
      // 2026-07-28 servers send no requests (they ask for input in their results): nothing to answer.
      if (this.#modern) return null;
      // A request of the server: ping and roots are answered; sampling and elicitation are not offered.
      if (m.method === 'ping') await this.#reply(m.id, { result: {} }).catch(() => {});
      else if (m.method === 'roots/list') await this.#reply(m.id, { result: { roots: [] } }).catch(() => {});
      else await this.#reply(m.id, { error: { code: -32601, message: `Clawser does not offer ${m.method}.` } }).catch(() => {});
      return null;
    }
    if (m.method === 'notifications/progress') {
      const p = m.params ?? {};
      for (const arm of this.#alive.values()) arm();
      this.#progress.get(p.progressToken)?.({
        progress: Number(p.progress),
        ...(p.total !== undefined ? { total: Number(p.total) } : {}),
        ...(typeof p.message === 'string' ? { message: p.message } : {}),
      });
    } else if (m.method === 'notifications/message')
      this.options.onLog?.(String(m.params?.level ?? 'info'), m.params?.data, m.params?.logger);
    else if (m.method === 'notifications/tools/list_changed') this.options.onToolsChanged?.();
    this.options.onNotification?.({ method: m.method, params: m.params });
    return null;
  }

  #host() {
    return hostOf(this.url);
  }
}
