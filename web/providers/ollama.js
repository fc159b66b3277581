/** @import { ChatRequest, StreamPart, StopReason, Message, CallOptions, ModelInfo, WireOptions, CatalogEntry } from './types.d.ts' */
/** @import { SSEMessage } from '../net/sse.js' */
import { ProviderError, droppedError, fetchError, httpError } from './errors.js';
import { HttpSseProvider, ignoredSettings, probeServer } from './http.js';
import { parseNDJSON } from './ndjson.js';
import { seesImages } from './images.js';

/** @type {Record<string, StopReason>} */
const DONE_REASONS = { stop: 'end_turn', length: 'max_tokens', load: 'end_turn', unload: 'end_turn' };

/**
 * Ollama's native chat API (`POST /api/chat`): one JSON object per line, no SSE and no
 * `[DONE]`; the last line says `done: true` and carries the token counts.
 */
export class OllamaProvider extends HttpSseProvider {
  /** @param {ConstructorParameters<typeof HttpSseProvider>[0]} options */
  constructor(options) {
    super(options);
    // Settings saved for the OpenAI-compatible preset pointed at /v1: the native API is at the root.
    this.baseUrl = (this.baseUrl || 'http://localhost:11434').replace(/\/v1$/, '');
    // Most local models are text only: images go to the ones whose family takes them.
    this.supportsVision = seesImages(this.entry, this.model);
  }

  /** @override */
  get url() {
    return `${this.baseUrl}/api/chat`;
  }

  /** No custom headers: a plain local server, or a proxy that takes a bearer key. @override */
  buildHeaders() {
    /** @type {Record<string, string>} */
    const headers = {};
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    return headers;
  }

  /** @override @param {ChatRequest} request */
  buildBody(request) {
    /** @type {Record<string, unknown>[]} */
    const messages = [];
    if (request.system) messages.push({ role: 'system', content: request.system });
    /** @type {Map<string, string>} */
    const callNames = new Map();
    for (const m of request.messages) messages.push(toOllamaMessage(m, callNames));
    /** @type {Record<string, unknown>} */
    const body = { model: this.model, messages, stream: true };
    /** @type {Record<string, unknown>} */
    const options = {};
    if (request.maxTokens) options.num_predict = request.maxTokens;
    if (request.temperature !== undefined) options.temperature = request.temperature;
    if (Object.keys(options).length) body.options = options;
    if (request.tools?.length)
      body.tools = request.tools.map((t) => ({
        type: 'function',
        function: { name: t.name, description: t.description, parameters: t.parameters },
      }));
    return body;
  }

  /**
   * Ollama's chat API has no tool choice: the model decides, and that is said.
   * @override @param {import('./types.d.ts').ChatRequest} request
   */
  warnings(request) {
    return ignoredSettings(request, this.label, { toolChoice: 'takes no tool choice (the model decides whether to call one)' });
  }

  /** @override */
  frame(/** @type {ReadableStream<Uint8Array>} */ body, /** @type {AbortSignal | undefined} */ signal) {
    return parseNDJSON(body, { signal });
  }

  /** @override @param {AsyncIterable<SSEMessage>} messages */
  assemble(messages) {
    return assembleOllamaStream(messages, this.label);
  }

  /** @param {string} path @param {RequestInit} [init] */
  async #get(path, init = {}) {
    const doFetch = this.fetchImpl ?? globalThis.fetch.bind(globalThis);
    const url = `${this.baseUrl}${path}`;
    let res;
    try {
      res = await doFetch(url, {
        ...init,
        headers: { ...(init.body ? { 'content-type': 'application/json' } : {}), ...this.buildHeaders() },
      });
    } catch (err) {
      throw fetchError(err, { label: this.label, url, signal: init.signal ?? undefined });
    }
    if (!res.ok)
      throw httpError({
        status: res.status,
        body: await res.text().catch(() => ''),
        label: this.label,
        model: this.model,
        url,
        secrets: [this.apiKey],
      });
    return res;
  }

  /**
   * Installed models (`/api/tags`), with capabilities from `/api/show` where this Ollama reports them.
   * @param {CallOptions} [options]
   * @returns {Promise<ModelInfo[]>}
   */
  async listModelInfo(options = {}) {
    const json = await (await this.#get('/api/tags', { signal: options.signal })).json().catch(() => null);
    const models = (Array.isArray(json?.models) ? json.models : []).filter((/** @type {any} */ m) => typeof m?.name === 'string');
    return Promise.all(
      models.map(async (/** @type {any} */ m) => {
        /** @type {ModelInfo} */
        const info = { id: m.name, label: m.name, ...(typeof m.size === 'number' ? { sizeBytes: m.size } : {}) };
        try {
          const show = await (
            await this.#get('/api/show', { method: 'POST', body: JSON.stringify({ model: m.name }), signal: options.signal })
          ).json();
          const caps = Array.isArray(show?.capabilities) ? show.capabilities : null;
          if (caps)
            Object.assign(info, { tools: caps.includes('tools'), vision: caps.includes('vision'), reasoning: caps.includes('thinking') });
          const ctx = Object.entries(show?.model_info ?? {}).find(([k]) => k.endsWith('.context_length'))?.[1];
          if (typeof ctx === 'number') info.contextTokens = ctx;
        } catch {
          // An older Ollama without /api/show details: the model is listed without badges.
        }
        return info;
      }),
    );
  }

  /** @param {CallOptions} [options] */
  async listModels(options = {}) {
    const json = await (await this.#get('/api/tags', { signal: options.signal })).json().catch(() => null);
    return (Array.isArray(json?.models) ? json.models : [])
      .map((/** @type {{name?: string}} */ m) => m.name)
      .filter((/** @type {unknown} */ x) => typeof x === 'string');
  }

  /**
   * Downloads a model (`/api/pull`), reporting progress as it comes.
   * @param {string} model
   * @param {{signal?: AbortSignal, onProgress?: (p: {status: string, completed?: number, total?: number}) => void}} [options]
   */
  async pullModel(model, options = {}) {
    const res = await this.#get('/api/pull', { method: 'POST', body: JSON.stringify({ model, stream: true }), signal: options.signal });
    if (!res.body) throw new ProviderError('server', `${this.label} sent an empty response.`);
    let last = '';
    for await (const line of parseNDJSON(res.body, { signal: options.signal })) {
      let json;
      try {
        json = JSON.parse(line.data);
      } catch {
        continue;
      }
      if (typeof json.error === 'string')
        throw new ProviderError('client', `${this.label} could not pull "${model}": ${json.error}`, { retryable: false });
      last = String(json.status ?? '');
      options.onProgress?.({
        status: last,
        ...(typeof json.completed === 'number' ? { completed: json.completed } : {}),
        ...(typeof json.total === 'number' ? { total: json.total } : {}),
      });
    }
    if (last !== 'success') throw droppedError(this.label);
  }
}

/** The wire's factory (the registry's lazy `load` imports this module). @param {WireOptions} options */
export function create(options) {
  return new OllamaProvider(options);
}

/**
 * An Ollama server at the provider's address: its installed models (`/api/tags`).
 * @param {CatalogEntry} entry @param {{fetchImpl?: typeof fetch, timeoutMs: number}} deps
 */
export function discover(entry, deps) {
  const names = (/** @type {any} */ j) => (Array.isArray(j.models) ? j.models.map((/** @type {{name?: string}} */ m) => m.name) : []);
  return probeServer(`${(entry.baseUrl ?? '').replace(/\/+$/, '')}/api/tags`, names, deps);
}

/** @param {Message} m @param {Map<string, string>} callNames */
function toOllamaMessage(m, callNames) {
  // Ollama takes images as bare base64 next to the text.
  const images = m.images?.length ? { images: m.images.map((i) => i.dataUrl.slice(i.dataUrl.indexOf(',') + 1)) } : {};
  if (m.role === 'tool') return { role: 'tool', content: m.content, tool_name: callNames.get(m.toolCallId ?? '') ?? 'tool', ...images };
  if (m.role === 'assistant' && m.toolCalls?.length) {
    for (const c of m.toolCalls) callNames.set(c.id, c.name);
    return {
      role: 'assistant',
      content: m.content,
      tool_calls: m.toolCalls.map((c) => ({ function: { name: c.name, arguments: c.arguments } })),
    };
  }
  return { role: m.role, content: m.content, ...images };
}

/**
 * Turns Ollama's NDJSON lines into stream parts: the last line (`done: true`) gives the finish
 * part with the token counts. Tool calls carry Ollama's id where it sends one.
 * @param {AsyncIterable<SSEMessage>} lines
 * @param {string} label
 * @returns {AsyncGenerator<StreamPart>}
 */
export async function* assembleOllamaStream(lines, label) {
  let calls = 0;
  for await (const line of lines) {
    let json;
    try {
      json = JSON.parse(line.data);
    } catch {
      // A line cut by a dropped connection is not a malformed server reply.
      if (line.event === 'partial') throw droppedError(label);
      throw new ProviderError('server', `${label} sent a malformed stream line.`);
    }
    if (json.error !== undefined) {
      const message = typeof json.error === 'string' ? json.error : (json.error?.message ?? 'unknown error');
      yield { type: 'error', error: new ProviderError('server', `${label} reported an error mid-reply: ${message}`).toJSON() };
      return;
    }
    const m = json.message ?? {};
    if (typeof m.thinking === 'string' && m.thinking) yield { type: 'reasoning', text: m.thinking };
    if (typeof m.content === 'string' && m.content) yield { type: 'text', text: m.content };
    for (const tc of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
      const fn = tc?.function ?? {};
      if (typeof fn.name !== 'string') continue;
      calls++;
      let args = fn.arguments;
      if (typeof args === 'string') {
        try {
          args = JSON.parse(args);
        } catch {
          args = { _raw: args };
        }
      }
      yield {
        type: 'tool_call',
        id: typeof tc.id === 'string' && tc.id ? tc.id : `ollama_call_${Date.now().toString(36)}_${calls}`,
        name: fn.name,
        arguments: args && typeof args === 'object' && !Array.isArray(args) ? args : {},
      };
    }
    if (json.done === true) {
      const usage = { inputTokens: json.prompt_eval_count ?? 0, outputTokens: json.eval_count ?? 0 };
      yield { type: 'finish', stopReason: calls ? 'tool_use' : (DONE_REASONS[json.done_reason] ?? 'end_turn'), usage };
      return;
    }
  }
  throw droppedError(label);
}
