/** @import { ChatRequest, CallOptions, StreamPart, StopReason, Message, WireOptions, CatalogEntry, Usage } from './types.d.ts' */
/** @import { SSEMessage } from '../net/sse.js' */
import { ProviderError, droppedError } from './errors.js';
import { HttpSseProvider, parseToolArguments, probeServer } from './http.js';

/** @type {Record<string, StopReason>} */
const STOP_REASONS = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  length: 'max_tokens',
  content_filter: 'refusal',
};

/**
 * Chat Completions wire format: OpenAI itself and every OpenAI-compatible host
 * (Ollama, LM Studio, Groq, OpenRouter, …), which differ only by catalog entry.
 */
export class OpenAIProvider extends HttpSseProvider {
  /** @override */
  get url() {
    return `${this.baseUrl}/chat/completions`;
  }

  /**
   * The exact JSON body sent for a request.
   * @override
   * @param {ChatRequest} request
   */
  buildBody(request) {
    /** @type {Record<string, unknown>[]} */
    const messages = [];
    if (request.system) messages.push({ role: 'system', content: request.system });
    /** @type {import('./types.d.ts').ImagePart[]} */
    let pendingImages = [];
    const flushImages = () => {
      // Tool messages carry text only: images follow them as one user message.
      if (!pendingImages.length) return;
      messages.push({
        role: 'user',
        content: [
          { type: 'text', text: 'Images returned by the tool calls above:' },
          ...pendingImages.map((i) => ({ type: 'image_url', image_url: { url: i.dataUrl } })),
        ],
      });
      pendingImages = [];
    };
    for (const m of request.messages) {
      if (m.role !== 'tool') flushImages();
      if (!this.supportsNativeTools) {
        // No tool calling on this host (the Codex path): code output goes back as user text.
        if (m.role === 'tool') messages.push({ role: 'user', content: `Output of your code:\n${m.content}` });
        else messages.push({ role: m.role, content: m.content });
        continue;
      }
      messages.push(toWireMessage(m));
      if (m.role === 'tool' && m.images?.length) pendingImages.push(...m.images);
    }
    flushImages();
    /** @type {Record<string, unknown>} */
    const body = { model: this.model, messages, stream: true };
    if (this.entry.streamUsage) body.stream_options = { include_usage: true };
    if (request.maxTokens) body[this.entry.tokenLimitField ?? 'max_tokens'] = request.maxTokens;
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (request.tools?.length) {
      body.tools = request.tools.map((t) => ({
        type: 'function',
        function: { name: t.name, description: t.description, parameters: t.parameters },
      }));
      const choice = request.toolChoice;
      if (choice) body.tool_choice = typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
    }
    return body;
  }

  /** Only the headers every host's CORS preflight accepts: no custom ones. @override */
  buildHeaders() {
    /** @type {Record<string, string>} */
    const headers = {};
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    return headers;
  }

  /** @override @param {AsyncIterable<SSEMessage>} messages */
  assemble(messages) {
    return assembleOpenAIStream(messages, this.label);
  }

  /** Model ids the endpoint offers (GET /models). @param {CallOptions} [options] */
  listModels(options = {}) {
    return this.fetchModelIds('/models', options);
  }
}

/** The wire's factory (the registry's lazy `load` imports this module). @param {WireOptions} options */
export function create(options) {
  return new OpenAIProvider(options);
}

/**
 * A local server of this format (LM Studio) at its address: its `/models` list.
 * @param {CatalogEntry} entry @param {{fetchImpl?: typeof fetch, timeoutMs: number}} deps
 */
export function discover(entry, deps) {
  const ids = (/** @type {any} */ j) => (Array.isArray(j.data) ? j.data.map((/** @type {{id?: string}} */ m) => m.id) : []);
  return probeServer(`${(entry.baseUrl ?? '').replace(/\/+$/, '')}/models`, ids, deps);
}

/** A message as Chat Completions takes it (the local model's runtime speaks the same shape). @param {Message} m */
export function toWireMessage(m) {
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
  if (m.role === 'user' && m.images?.length) {
    return {
      role: 'user',
      content: [
        ...(m.content ? [{ type: 'text', text: m.content }] : []),
        ...m.images.map((i) => ({ type: 'image_url', image_url: { url: i.dataUrl } })),
      ],
    };
  }
  if (m.role === 'assistant' && m.toolCalls?.length) {
    return {
      role: 'assistant',
      content: m.content || null,
      tool_calls: m.toolCalls.map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.name, arguments: JSON.stringify(c.arguments) },
      })),
    };
  }
  return { role: m.role, content: m.content };
}

/**
 * Turns Chat Completions SSE messages into stream parts. Tool calls arrive as fragments
 * keyed by index and are emitted once complete (at finish or end of stream); text has no id on
 * this wire (the reply is choice 0). The token counts come in a last chunk of their own (where
 * the host sends them): the finish part carries them.
 * @param {AsyncIterable<{data: string}>} messages
 * @param {string} label
 * @returns {AsyncGenerator<StreamPart>}
 */
export async function* assembleOpenAIStream(messages, label) {
  /** @type {Map<number, {id: string, name: string, args: string}>} */
  const calls = new Map();
  /** @type {StopReason | null} */
  let stopReason = null;
  let refused = false;
  let finished = false;
  /** @type {Usage | undefined} */
  let usage;
  const flushCalls = function* () {
    for (const [index, c] of [...calls].sort((a, b) => a[0] - b[0])) {
      /** @type {StreamPart} */
      const part = { type: 'tool_call', id: c.id || `call_${index}`, name: c.name, arguments: parseToolArguments(c.args) };
      yield part;
    }
    calls.clear();
  };
  for await (const msg of messages) {
    const data = msg.data.trim();
    if (data === '[DONE]') {
      finished = true;
      break;
    }
    if (!data) continue;
    let json;
    try {
      json = JSON.parse(data);
    } catch {
      throw new ProviderError('server', `${label} sent a malformed stream chunk.`);
    }
    if (json.error) {
      const message = typeof json.error === 'string' ? json.error : json.error.message || 'unknown error';
      yield { type: 'error', error: new ProviderError('server', `${label} reported an error mid-reply: ${message}`).toJSON() };
      return;
    }
    // With n > 1 the choices interleave, one per chunk: the reply is choice 0.
    const choice = Array.isArray(json.choices) ? json.choices.find((/** @type {{index?: number}} */ c) => (c.index ?? 0) === 0) : undefined;
    const delta = choice?.delta ?? {};
    const thinking = delta.reasoning_content ?? delta.reasoning;
    if (typeof thinking === 'string' && thinking) yield { type: 'reasoning', text: thinking };
    if (typeof delta.content === 'string' && delta.content) yield { type: 'text', text: delta.content };
    // A refusal comes in its own field with content null: it is the reply the user must see.
    if (typeof delta.refusal === 'string' && delta.refusal) {
      refused = true;
      yield { type: 'text', text: delta.refusal };
    }
    if (Array.isArray(delta.tool_calls)) {
      for (const tc of delta.tool_calls) {
        const index = typeof tc.index === 'number' ? tc.index : calls.size;
        const cur = calls.get(index) ?? { id: '', name: '', args: '' };
        if (tc.id) cur.id = tc.id;
        if (tc.function?.name) cur.name += tc.function.name;
        if (typeof tc.function?.arguments === 'string') cur.args += tc.function.arguments;
        calls.set(index, cur);
      }
    }
    if (choice?.finish_reason) {
      stopReason = STOP_REASONS[choice.finish_reason] ?? 'unknown';
      yield* flushCalls();
    }
    if (json.usage) {
      const cached = json.usage.prompt_tokens_details?.cached_tokens ?? 0;
      usage = { inputTokens: json.usage.prompt_tokens ?? 0, outputTokens: json.usage.completion_tokens ?? 0 };
      if (cached) usage.cachedInputTokens = cached;
    }
  }
  if (!finished && stopReason === null) throw droppedError(label);
  yield* flushCalls();
  yield { type: 'finish', stopReason: refused ? 'refusal' : (stopReason ?? 'end_turn'), ...(usage ? { usage } : {}) };
}
