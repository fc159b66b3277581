/** @import { ChatRequest, StreamPart, StopReason, Message, ImagePart, CallOptions, WireOptions } from './types.d.ts' */
/** @import { SSEMessage } from '../net/sse.js' */
import { ProviderError, droppedError, errorBodyMessage } from './errors.js';
import { HttpSseProvider } from './http.js';
import { parseSSE } from '../net/sse.js';
import { modelReasons } from './model-facts.js';

/** @type {Record<string, StopReason>} */
const FINISH_REASONS = {
  STOP: 'end_turn',
  MAX_TOKENS: 'max_tokens',
  SAFETY: 'refusal',
  RECITATION: 'refusal',
  BLOCKLIST: 'refusal',
  PROHIBITED_CONTENT: 'refusal',
  SPII: 'refusal',
  IMAGE_SAFETY: 'refusal',
  LANGUAGE: 'refusal',
  OTHER: 'unknown',
  MALFORMED_FUNCTION_CALL: 'unknown',
  FINISH_REASON_UNSPECIFIED: 'unknown',
};

/** Google status names of an error body, mapped to our codes. @type {Record<string, import('./types.d.ts').ProviderErrorCode>} */
const STATUS_CODES = {
  RESOURCE_EXHAUSTED: 'rate_limit',
  UNAVAILABLE: 'server',
  INTERNAL: 'server',
  DEADLINE_EXCEEDED: 'server',
  UNAUTHENTICATED: 'auth',
  PERMISSION_DENIED: 'auth',
  INVALID_ARGUMENT: 'client',
  NOT_FOUND: 'client',
  FAILED_PRECONDITION: 'client',
};

/** Models that think and can report their thoughts (Gemini 2.5 and later). */

/**
 * Google Gemini's native API (generateContent, streamed as SSE), called from the browser with
 * the key in the `x-goog-api-key` header.
 */
export class GeminiProvider extends HttpSseProvider {
  /** @param {ConstructorParameters<typeof HttpSseProvider>[0]} options */
  constructor(options) {
    super(options);
    if (!this.baseUrl) this.baseUrl = 'https://generativelanguage.googleapis.com';
  }

  /** @override */
  get url() {
    return `${this.baseUrl}/v1beta/models/${encodeURIComponent(this.model.replace(/^models\//, ''))}:streamGenerateContent?alt=sse`;
  }

  /** @override */
  buildHeaders() {
    /** @type {Record<string, string>} */
    const headers = {};
    if (this.apiKey) headers['x-goog-api-key'] = this.apiKey;
    return headers;
  }

  /** @override @param {ChatRequest} request */
  buildBody(request) {
    /** @type {Record<string, unknown>} */
    const body = { contents: toGeminiContents(request.messages) };
    if (request.system) body.systemInstruction = { parts: [{ text: request.system }] };
    if (request.tools?.length) {
      body.tools = [
        { functionDeclarations: request.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })) },
      ];
      const choice = request.toolChoice;
      if (choice) {
        const mode = typeof choice === 'object' || choice === 'required' ? 'ANY' : choice.toUpperCase();
        body.toolConfig = {
          functionCallingConfig: { mode, ...(typeof choice === 'object' ? { allowedFunctionNames: [choice.name] } : {}) },
        };
      }
    }
    /** @type {Record<string, unknown>} */
    const generation = {};
    if (request.maxTokens) generation.maxOutputTokens = request.maxTokens;
    if (request.temperature !== undefined) generation.temperature = request.temperature;
    if (modelReasons(this.model)) generation.thinkingConfig = { includeThoughts: true };
    if (Object.keys(generation).length) body.generationConfig = generation;
    return body;
  }

  /** The error body Gemini appends outside SSE framing must be seen: keep stray lines. @override */
  frame(/** @type {ReadableStream<Uint8Array>} */ body, /** @type {AbortSignal | undefined} */ signal) {
    return parseSSE(body, { signal, stray: true });
  }

  /** @override @param {AsyncIterable<SSEMessage>} messages */
  assemble(messages) {
    return assembleGeminiStream(messages, this.label);
  }

  /**
   * The models that can chat, with what they accept (GET /v1beta/models).
   * @param {CallOptions} [options]
   * @returns {Promise<import('./types.d.ts').ModelInfo[]>}
   */
  async listModelInfo(options = {}) {
    const doFetch = this.fetchImpl ?? globalThis.fetch.bind(globalThis);
    /** @type {import('./types.d.ts').ModelInfo[]} */
    const out = [];
    let pageToken = '';
    for (let page = 0; page < 10; page++) {
      const res = await doFetch(
        `${this.baseUrl}/v1beta/models?pageSize=1000${pageToken ? `&pageToken=${encodeURIComponent(pageToken)}` : ''}`,
        { headers: this.buildHeaders(), signal: options.signal },
      );
      if (!res.ok) break;
      const json = await res.json().catch(() => null);
      for (const m of Array.isArray(json?.models) ? json.models : []) {
        if (typeof m?.name !== 'string') continue;
        const methods = Array.isArray(m.supportedGenerationMethods) ? m.supportedGenerationMethods : [];
        if (methods.length && !methods.includes('generateContent')) continue;
        const id = m.name.replace(/^models\//, '');
        out.push({
          id,
          label: typeof m.displayName === 'string' ? m.displayName : id,
          contextTokens: typeof m.inputTokenLimit === 'number' ? m.inputTokenLimit : undefined,
          tools: true,
          vision: /gemini/i.test(id),
          reasoning: m.thinking === true || modelReasons(id),
        });
      }
      pageToken = typeof json?.nextPageToken === 'string' ? json.nextPageToken : '';
      if (!pageToken) break;
    }
    return out;
  }

  /** Model ids (for the connection test). @param {CallOptions} [options] */
  async listModels(options = {}) {
    return (await this.listModelInfo(options)).map((m) => m.id);
  }
}

/** The wire's factory (the registry's lazy `load` imports this module). @param {WireOptions} options */
export function create(options) {
  return new GeminiProvider(options);
}

/** @param {ImagePart} image */
function inlineData(image) {
  const [head, data] = image.dataUrl.split(',');
  return { inlineData: { mimeType: /data:([^;]+)/.exec(head)?.[1] ?? image.mediaType, data } };
}

/**
 * Gemini turns are `user` and `model`, each a list of parts. Tool results are
 * `functionResponse` parts of a user turn and name their function (calls carry no id the
 * model needs back), so a call's name is found by its id; consecutive same-role turns merge.
 * A call's `thoughtSignature` goes back on its part, as the API requires for thinking models.
 * @param {Message[]} messages
 */
export function toGeminiContents(messages) {
  /** @type {Map<string, string>} */
  const callNames = new Map();
  /** @type {{role: 'user' | 'model', parts: Record<string, unknown>[]}[]} */
  const out = [];
  for (const m of messages) {
    const role = m.role === 'assistant' ? 'model' : 'user';
    /** @type {Record<string, unknown>[]} */
    const parts = [];
    if (m.role === 'tool') {
      const name = callNames.get(m.toolCallId ?? '') ?? 'tool';
      parts.push({ functionResponse: { name, response: { content: m.content } } });
      for (const image of m.images ?? []) parts.push(inlineData(image));
    } else {
      if (m.content) parts.push({ text: m.content });
      for (const image of m.images ?? []) parts.push(inlineData(image));
      for (const c of m.toolCalls ?? []) {
        callNames.set(c.id, c.name);
        parts.push({ functionCall: { name: c.name, args: c.arguments }, ...(c.signature ? { thoughtSignature: c.signature } : {}) });
      }
    }
    if (!parts.length) continue;
    const prev = out.at(-1);
    if (prev && prev.role === role) prev.parts.push(...parts);
    else out.push({ role, parts });
  }
  return out;
}

/**
 * An error object from a Gemini body (`{error: {code, message, status}}`, or a one-element
 * array of it) as a ProviderError, or null when the value is no error.
 * @param {unknown} json @param {string} label
 */
function geminiError(json, label) {
  const e = /** @type {any} */ (Array.isArray(json) ? json[0] : json)?.error;
  if (!e || typeof e !== 'object') return null;
  const status = typeof e.status === 'string' ? e.status : '';
  const http = typeof e.code === 'number' ? e.code : undefined;
  const code =
    STATUS_CODES[status] ??
    (http === 429 ? 'rate_limit' : http && http >= 500 ? 'server' : http === 401 || http === 403 ? 'auth' : http ? 'client' : 'server');
  const message = typeof e.message === 'string' && e.message ? e.message : status || 'unknown error';
  return new ProviderError(code, `${label} reported an error mid-reply: ${message}`, { status: http });
}

/**
 * Turns Gemini's SSE chunks into stream parts. Every chunk repeats `usageMetadata` (the last
 * one counts, in the finish part); thought parts are reasoning; function calls arrive whole, with
 * an id where the API gives one. Text has no id on this wire. There is no end marker but the
 * candidate's `finishReason`: a stream without one was cut.
 * @param {AsyncIterable<SSEMessage>} messages
 * @param {string} label
 * @returns {AsyncGenerator<StreamPart>}
 */
export async function* assembleGeminiStream(messages, label) {
  /** @type {{inputTokens: number, outputTokens: number, cachedInputTokens?: number} | null} */
  let usage = null;
  /** @type {StopReason | null} */
  let stopReason = null;
  let calls = 0;
  let sawText = false;
  for await (const msg of messages) {
    let json;
    try {
      json = JSON.parse(msg.data);
    } catch {
      if (msg.event === 'stray') {
        // Not JSON either: an HTML error page or a proxy's message after the stream.
        throw new ProviderError('server', `${label} ended the reply with an error: ${errorBodyMessage(msg.data)}`);
      }
      throw new ProviderError('server', `${label} sent a malformed stream chunk.`);
    }
    const error = geminiError(json, label);
    if (error) {
      yield { type: 'error', error: error.toJSON() };
      return;
    }
    if (msg.event === 'stray') continue;
    const meta = json.usageMetadata;
    if (meta && typeof meta === 'object') {
      usage = {
        inputTokens: meta.promptTokenCount ?? 0,
        // Thoughts are billed as output.
        outputTokens: (meta.candidatesTokenCount ?? 0) + (meta.thoughtsTokenCount ?? 0),
        ...(meta.cachedContentTokenCount ? { cachedInputTokens: meta.cachedContentTokenCount } : {}),
      };
    }
    const blocked = json.promptFeedback?.blockReason;
    if (blocked && !json.candidates?.length) {
      yield { type: 'text', text: `${label} refused this request (${String(blocked).toLowerCase().replace(/_/g, ' ')}).` };
      stopReason = 'refusal';
      continue;
    }
    const candidate = json.candidates?.[0];
    if (!candidate) continue;
    for (const part of candidate.content?.parts ?? []) {
      if (typeof part.text === 'string' && part.text) {
        if (part.thought === true) yield { type: 'reasoning', text: part.text };
        else {
          sawText = true;
          yield { type: 'text', text: part.text };
        }
      } else if (part.functionCall && typeof part.functionCall.name === 'string') {
        const args = part.functionCall.args;
        calls++;
        /** @type {StreamPart} */
        const ev = {
          type: 'tool_call',
          id:
            typeof part.functionCall.id === 'string' && part.functionCall.id
              ? part.functionCall.id
              : `gemini_call_${Date.now().toString(36)}_${calls}`,
          name: part.functionCall.name,
          arguments: args && typeof args === 'object' && !Array.isArray(args) ? args : {},
        };
        if (typeof part.thoughtSignature === 'string' && part.thoughtSignature) ev.signature = part.thoughtSignature;
        yield ev;
      }
    }
    if (candidate.finishReason) {
      const reason = String(candidate.finishReason);
      stopReason = calls && reason === 'STOP' ? 'tool_use' : (FINISH_REASONS[reason] ?? 'unknown');
      if (stopReason === 'refusal' && !sawText)
        yield { type: 'text', text: `${label} stopped the reply (${reason.toLowerCase().replace(/_/g, ' ')}).` };
      if (reason === 'MALFORMED_FUNCTION_CALL' && !sawText && !calls) {
        yield {
          type: 'error',
          error: new ProviderError('server', `${label} produced a malformed tool call. Retry, or rephrase the request.`).toJSON(),
        };
        return;
      }
    }
  }
  if (stopReason === null) throw droppedError(label);
  yield { type: 'finish', stopReason, ...(usage ? { usage } : {}) };
}
