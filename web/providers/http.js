/** @import { ChatRequest, ChatResult, StreamPart, CallOptions, StopReason, ToolCall, CatalogEntry, Provider } from './types.d.ts' */
/** @import { CallWarning, IgnoredSetting } from './types.d.ts' */
/** @import { SSEMessage } from '../net/sse.js' */
import { ProviderError, droppedError, fetchError, httpError } from './errors.js';
import { parseSSE } from '../net/sse.js';
import { seesImages } from './images.js';

/**
 * POSTs JSON and returns the streaming response, or throws a classified ProviderError.
 * @param {{url: string, headers: Record<string, string>, body: unknown, signal?: AbortSignal, label: string, model: string,
 *   secrets?: (string | undefined)[], fetchImpl?: typeof fetch}} opts
 */
export async function postJson(opts) {
  const doFetch = opts.fetchImpl ?? globalThis.fetch.bind(globalThis);
  /** @type {Response} */
  let res;
  try {
    res = await doFetch(opts.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...opts.headers },
      body: JSON.stringify(opts.body),
      signal: opts.signal,
    });
  } catch (err) {
    throw fetchError(err, { label: opts.label, url: opts.url, signal: opts.signal });
  }
  if (!res.ok) {
    const body = await res.text().catch(() => '');
    throw httpError({
      status: res.status,
      body,
      label: opts.label,
      model: opts.model,
      url: opts.url,
      retryAfter: res.headers.get('retry-after'),
      secrets: opts.secrets,
    });
  }
  if (!res.body) throw new ProviderError('server', `${opts.label} sent an empty response.`);
  return res;
}

/**
 * Runs a stream to completion and assembles a ChatResult; the shared implementation of
 * every provider's `chat()`, so streaming and non-streaming calls can't disagree.
 * @param {AsyncIterable<StreamPart>} stream
 * @param {string} model
 * @returns {Promise<ChatResult>}
 */
export async function collectStream(stream, model) {
  let content = '';
  /** @type {ToolCall[]} */
  const toolCalls = [];
  /** @type {import('./types.d.ts').Usage} */
  const usage = { inputTokens: 0, outputTokens: 0 };
  /** @type {StopReason} */
  let stopReason = 'unknown';
  /** @type {CallWarning[]} */
  const warnings = [];
  for await (const ev of stream) {
    if (ev.type === 'text') content += ev.text;
    else if (ev.type === 'tool_call')
      toolCalls.push({ id: ev.id, name: ev.name, arguments: ev.arguments, ...(ev.signature ? { signature: ev.signature } : {}) });
    else if (ev.type === 'warning') warnings.push({ setting: ev.setting, message: ev.message });
    else if (ev.type === 'finish') {
      stopReason = ev.stopReason;
      if (ev.usage) {
        usage.inputTokens = ev.usage.inputTokens;
        usage.outputTokens = ev.usage.outputTokens;
        if (ev.usage.cachedInputTokens) usage.cachedInputTokens = ev.usage.cachedInputTokens;
        if (ev.usage.cacheWriteTokens) usage.cacheWriteTokens = ev.usage.cacheWriteTokens;
      }
    } else if (ev.type === 'error') {
      throw new ProviderError(ev.error.code, ev.error.message, { retryable: ev.error.retryable, status: ev.error.status });
    }
  }
  return { content, toolCalls, usage, model, stopReason, warnings };
}

/**
 * The warning parts of a request's settings that a provider leaves unapplied: `settings` names
 * each with the reason, said after the provider's name ("takes no temperature").
 * @param {ChatRequest} request @param {string} label
 * @param {Partial<Record<IgnoredSetting, string>>} settings
 * @returns {StreamPart[]}
 */
export function ignoredSettings(request, label, settings) {
  /** @type {Record<IgnoredSetting, boolean>} */
  const given = {
    temperature: request.temperature !== undefined,
    maxTokens: request.maxTokens !== undefined,
    tools: !!request.tools?.length,
    // 'auto' is what every wire does without one: only a stronger choice can be left unapplied.
    toolChoice: !!request.tools?.length && request.toolChoice !== undefined && request.toolChoice !== 'auto',
    images: request.messages.some((m) => m.images?.length),
    system: !!request.system,
  };
  return /** @type {[IgnoredSetting, string][]} */ (Object.entries(settings))
    .filter(([setting]) => given[setting])
    .map(([setting, why]) => ({
      type: 'warning',
      setting,
      message: `${label} ${why}: the request's ${SETTING_NAMES[setting]} was not applied.`,
    }));
}

/** @type {Record<IgnoredSetting, string>} */
const SETTING_NAMES = {
  temperature: 'temperature',
  maxTokens: 'token limit',
  tools: 'tools',
  toolChoice: 'tool choice',
  images: 'images',
  system: 'system prompt',
};

/**
 * Wraps a provider's event generator so that any thrown error becomes one
 * `{type:'error'}` event: consumers handle a single shape.
 * @param {() => AsyncGenerator<StreamPart>} run
 * @param {{label: string, url: string, signal?: AbortSignal}} info
 * @returns {AsyncGenerator<StreamPart>}
 */
export async function* guardStream(run, info) {
  try {
    yield* run();
  } catch (err) {
    yield { type: 'error', error: fetchError(err, info).toJSON() };
  }
}

/**
 * Parses tool-call arguments sent as a JSON string.
 * @param {string} raw
 * @returns {Record<string, unknown>}
 */
export function parseToolArguments(raw) {
  if (!raw || !raw.trim()) return {};
  try {
    const v = JSON.parse(raw);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : { _raw: raw };
  } catch {
    return { _raw: raw };
  }
}

/**
 * Runs a response body through a format's assembler; a read failure after the reply
 * started (socket reset, server gone) is reported as a dropped connection, not as
 * "could not reach".
 * @param {Response} res
 * @param {AbortSignal | undefined} signal
 * @param {string} label
 * @param {(messages: AsyncIterable<import('../net/sse.js').SSEMessage>) => AsyncGenerator<StreamPart>} assemble
 * @param {(body: ReadableStream<Uint8Array>, signal: AbortSignal | undefined) => AsyncIterable<SSEMessage>} [frame] how the body is cut
 *   into messages (default: SSE)
 * @returns {AsyncGenerator<StreamPart>}
 */
export async function* streamBody(res, signal, label, assemble, frame = (body, s) => parseSSE(body, { signal: s })) {
  try {
    yield* assemble(frame(/** @type {ReadableStream<Uint8Array>} */ (res.body), signal));
  } catch (err) {
    if (err instanceof ProviderError || signal?.aborted || /** @type {Error} */ (err)?.name === 'AbortError') throw err;
    throw droppedError(label);
  }
}

/**
 * Looks for a server on this machine by a list endpoint (the first-run card's search): found
 * when it answers 2xx within `timeoutMs`, with the model names `pick` reads from its JSON.
 * @param {string} url @param {(json: any) => unknown[]} pick server JSON, read defensively
 * @param {{fetchImpl?: typeof fetch, timeoutMs: number}} deps
 * @returns {Promise<{found: boolean, models: string[]}>}
 */
export async function probeServer(url, pick, deps) {
  const doFetch = deps.fetchImpl ?? globalThis.fetch.bind(globalThis);
  try {
    const res = await doFetch(url, { signal: AbortSignal.timeout(deps.timeoutMs), cache: 'no-store' });
    if (!res.ok) return { found: false, models: [] };
    const json = await res.json().catch(() => ({}));
    const models = pick(json ?? {});
    return { found: true, models: (Array.isArray(models) ? models : []).filter((m) => typeof m === 'string') };
  } catch {
    return { found: false, models: [] };
  }
}

/** @param {ChatRequest} request */
export function lastUserText(request) {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    if (request.messages[i].role === 'user') return request.messages[i].content;
  }
  return '';
}

/**
 * What every HTTP+SSE wire format shares: configuration, the POST, error classification and
 * `chat()` built on `chatStream()`. A subclass supplies the URL, headers, body and the
 * assembler that turns its SSE messages into stream events.
 * @implements {Provider}
 */
export class HttpSseProvider {
  /**
   * @param {{entry: CatalogEntry, model: string, apiKey?: string, baseUrl?: string, fetchImpl?: typeof fetch}} options
   */
  constructor({ entry, model, apiKey, baseUrl, fetchImpl }) {
    this.id = entry.id;
    this.entry = entry;
    this.model = model;
    this.supportsNativeTools = entry.capabilities.tools === 'native';
    this.supportsVision = seesImages(entry, model);
    /** Reports when the response headers arrive (`onConnected`), so a connect time-out can apply. */
    this.connects = true;
    this.baseUrl = (baseUrl || entry.baseUrl || '').replace(/\/+$/, '');
    this.label = entry.label;
    this.apiKey = apiKey;
    this.fetchImpl = fetchImpl;
  }

  /** @returns {string} */
  get url() {
    throw new Error('HttpSseProvider subclasses define url');
  }

  /** @returns {Record<string, string>} */
  buildHeaders() {
    throw new Error('HttpSseProvider subclasses define buildHeaders');
  }

  /** @param {ChatRequest} request @returns {Record<string, unknown>} */
  buildBody(request) {
    void request;
    throw new Error('HttpSseProvider subclasses define buildBody');
  }

  /**
   * Cuts the response body into messages: SSE by default; NDJSON formats give one message per line.
   * @param {ReadableStream<Uint8Array>} body @param {AbortSignal | undefined} signal @returns {AsyncIterable<SSEMessage>}
   */
  frame(body, signal) {
    return parseSSE(body, { signal });
  }

  /** @param {AsyncIterable<SSEMessage>} messages @returns {AsyncGenerator<StreamPart>} */
  assemble(messages) {
    void messages;
    throw new Error('HttpSseProvider subclasses define assemble');
  }

  /**
   * The request's settings this format leaves unapplied, as warning parts (sent first).
   * @param {ChatRequest} request @returns {StreamPart[]}
   */
  warnings(request) {
    void request;
    return [];
  }

  /**
   * Model ids from a list endpoint of the provider (`data[].id`, or `models[].name`); an empty
   * list when it has none or refuses.
   * @param {string} path after the base URL @param {CallOptions} [options]
   * @returns {Promise<string[]>}
   */
  async fetchModelIds(path, options = {}) {
    const doFetch = this.fetchImpl ?? globalThis.fetch.bind(globalThis);
    const res = await doFetch(`${this.baseUrl}${path}`, { headers: this.buildHeaders(), signal: options.signal });
    if (!res.ok) return [];
    const json = await res.json().catch(() => null);
    const data = Array.isArray(json?.data) ? json.data : Array.isArray(json?.models) ? json.models : [];
    return data
      .map((/** @type {{id?: string, name?: string}} */ m) => m.id ?? m.name)
      .filter((/** @type {unknown} */ x) => typeof x === 'string');
  }

  /** @param {ChatRequest} request @param {CallOptions} [options] */
  chat(request, options) {
    return collectStream(this.chatStream(request, options), this.model);
  }

  /** @param {ChatRequest} request @param {CallOptions} [options] @returns {AsyncGenerator<StreamPart>} */
  chatStream(request, options = {}) {
    const signal = options.signal;
    const warnings = this.warnings(request);
    const reply = () => this.#stream(request, signal, options.onConnected);
    return guardStream(
      async function* () {
        yield* warnings;
        yield* reply();
      },
      { label: this.label, url: this.url, signal },
    );
  }

  /**
   * @param {ChatRequest} request @param {AbortSignal | undefined} signal
   * @param {(() => void) | undefined} onConnected called once the response headers arrived
   * @returns {AsyncGenerator<StreamPart>}
   */
  async *#stream(request, signal, onConnected) {
    const res = await postJson({
      url: this.url,
      headers: this.buildHeaders(),
      body: this.buildBody(request),
      signal,
      label: this.label,
      model: this.model,
      secrets: [this.apiKey],
      fetchImpl: this.fetchImpl,
    });
    onConnected?.();
    yield* streamBody(
      res,
      signal,
      this.label,
      (messages) => this.assemble(messages),
      (body, s) => this.frame(body, s),
    );
  }
}
