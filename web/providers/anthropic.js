/** @import { ChatRequest, StreamPart, StopReason, Message, WireOptions } from './types.d.ts' */
/** @import { SSEMessage } from '../net/sse.js' */
import { ProviderError, droppedError } from './errors.js';
import { HttpSseProvider, parseToolArguments } from './http.js';

export const ANTHROPIC_VERSION = '2023-06-01';
const DEFAULT_MAX_TOKENS = 4096;

/** @type {Record<string, StopReason>} */
const STOP_REASONS = {
  end_turn: 'end_turn',
  tool_use: 'tool_use',
  max_tokens: 'max_tokens',
  stop_sequence: 'stop_sequence',
  refusal: 'refusal',
  pause_turn: 'end_turn',
};

/**
 * Anthropic Messages wire format, called straight from the browser.
 */
export class AnthropicProvider extends HttpSseProvider {
  /** @param {ConstructorParameters<typeof HttpSseProvider>[0]} options */
  constructor(options) {
    super(options);
    if (!this.baseUrl) this.baseUrl = 'https://api.anthropic.com';
  }

  /** @override */
  get url() {
    return `${this.baseUrl}/v1/messages`;
  }

  /** @override */
  buildHeaders() {
    /** @type {Record<string, string>} */
    const headers = {
      'anthropic-version': ANTHROPIC_VERSION,
      // Required for calls from a web page; the key stays in this browser.
      'anthropic-dangerous-direct-browser-access': 'true',
    };
    if (this.apiKey) headers['x-api-key'] = this.apiKey;
    return headers;
  }

  /** @override @param {ChatRequest} request */
  buildBody(request) {
    /** @type {Record<string, unknown>} */
    const body = {
      model: this.model,
      max_tokens: request.maxTokens ?? DEFAULT_MAX_TOKENS,
      messages: toWireMessages(request.messages),
      stream: true,
    };
    // Prompt caching: the system prompt and the tool list are the same on every call of a turn
    // and across turns, so they are marked as cache breakpoints (reads cost a tenth of the input price).
    if (request.system) body.system = [{ type: 'text', text: request.system, cache_control: { type: 'ephemeral' } }];
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (request.tools?.length) {
      body.tools = request.tools.map((t, i, all) => ({
        name: t.name,
        description: t.description,
        input_schema: t.parameters,
        ...(i === all.length - 1 ? { cache_control: { type: 'ephemeral' } } : {}),
      }));
      const choice = request.toolChoice;
      if (choice)
        body.tool_choice =
          typeof choice === 'object' ? { type: 'tool', name: choice.name } : { type: choice === 'required' ? 'any' : choice };
    }
    return body;
  }

  /** @override @param {AsyncIterable<SSEMessage>} messages */
  assemble(messages) {
    return assembleAnthropicStream(messages, this.label);
  }

  /** Model ids the account can use (GET /v1/models). @param {import('./types.d.ts').CallOptions} [options] */
  listModels(options = {}) {
    return this.fetchModelIds('/v1/models?limit=1000', options);
  }
}

/** The wire's factory (the registry's lazy `load` imports this module). @param {WireOptions} options */
export function create(options) {
  return new AnthropicProvider(options);
}

/**
 * Messages alternate user/assistant; tool results travel as `tool_result` blocks in a user
 * message, so consecutive tool messages (parallel calls) merge into one user turn.
 * @param {Message[]} messages
 */
export function toWireMessages(messages) {
  /** @type {{role: 'user' | 'assistant', content: Record<string, unknown>[]}[]} */
  const out = [];
  for (const m of messages) {
    const role = m.role === 'assistant' ? 'assistant' : 'user';
    /** @type {Record<string, unknown>[]} */
    const blocks = [];
    if (m.role === 'tool') {
      const images = (m.images ?? []).map((i) => {
        const [head, data] = i.dataUrl.split(',');
        return { type: 'image', source: { type: 'base64', media_type: /data:([^;]+)/.exec(head)?.[1] ?? i.mediaType, data } };
      });
      blocks.push({
        type: 'tool_result',
        tool_use_id: m.toolCallId,
        content: images.length ? [{ type: 'text', text: m.content }, ...images] : m.content,
      });
    } else {
      for (const i of m.role === 'user' ? (m.images ?? []) : []) {
        const [head, data] = i.dataUrl.split(',');
        blocks.push({ type: 'image', source: { type: 'base64', media_type: /data:([^;]+)/.exec(head)?.[1] ?? i.mediaType, data } });
      }
      if (m.content) blocks.push({ type: 'text', text: m.content });
      for (const c of m.toolCalls ?? []) blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: c.arguments });
    }
    if (blocks.length === 0) continue;
    const prev = out[out.length - 1];
    if (prev && prev.role === role) prev.content.push(...blocks);
    else out.push({ role, content: blocks });
  }
  return out;
}

/**
 * Turns Anthropic's typed SSE events into stream parts. Text and thinking carry their content
 * block's index as their id (the wire names blocks by index); tool calls their `tool_use` id.
 * @param {AsyncIterable<{event: string, data: string}>} messages
 * @param {string} label
 * @returns {AsyncGenerator<StreamPart>}
 */
export async function* assembleAnthropicStream(messages, label) {
  /** @type {Map<number, {kind: string, id: string, name: string, json: string}>} */
  const blocks = new Map();
  let inputTokens = 0;
  let outputTokens = 0;
  let cacheRead = 0;
  let cacheWrite = 0;
  /** @type {StopReason} */
  let stopReason = 'unknown';
  let stopped = false;
  for await (const msg of messages) {
    if (msg.event === 'ping') continue;
    let json;
    try {
      json = JSON.parse(msg.data);
    } catch {
      throw new ProviderError('server', `${label} sent a malformed stream chunk.`);
    }
    const type = json.type ?? msg.event;
    switch (type) {
      case 'message_start': {
        const u = json.message?.usage ?? {};
        inputTokens = u.input_tokens ?? 0;
        outputTokens = u.output_tokens ?? 0;
        cacheRead = u.cache_read_input_tokens ?? 0;
        cacheWrite = u.cache_creation_input_tokens ?? 0;
        break;
      }
      case 'content_block_start': {
        const b = json.content_block ?? {};
        blocks.set(json.index, { kind: b.type, id: b.id ?? '', name: b.name ?? '', json: '' });
        if (b.type === 'text' && b.text) yield { type: 'text', text: b.text, id: String(json.index) };
        break;
      }
      case 'content_block_delta': {
        const d = json.delta ?? {};
        if (d.type === 'text_delta' && d.text) yield { type: 'text', text: d.text, id: String(json.index) };
        else if (d.type === 'thinking_delta' && d.thinking) yield { type: 'reasoning', text: d.thinking, id: String(json.index) };
        else if (d.type === 'input_json_delta') {
          const b = blocks.get(json.index);
          if (b) b.json += d.partial_json ?? '';
        }
        break;
      }
      case 'content_block_stop': {
        const b = blocks.get(json.index);
        if (b && b.kind === 'tool_use') yield { type: 'tool_call', id: b.id, name: b.name, arguments: parseToolArguments(b.json) };
        blocks.delete(json.index);
        break;
      }
      case 'message_delta':
        if (json.delta?.stop_reason) stopReason = STOP_REASONS[json.delta.stop_reason] ?? 'unknown';
        if (json.usage?.output_tokens !== undefined) outputTokens = json.usage.output_tokens;
        if (json.usage?.input_tokens) inputTokens = json.usage.input_tokens;
        if (json.usage?.cache_read_input_tokens) cacheRead = json.usage.cache_read_input_tokens;
        if (json.usage?.cache_creation_input_tokens) cacheWrite = json.usage.cache_creation_input_tokens;
        break;
      case 'message_stop':
        stopped = true;
        break;
      case 'error': {
        const errType = json.error?.type ?? '';
        const message = json.error?.message ?? 'unknown error';
        const code =
          errType === 'rate_limit_error'
            ? 'rate_limit'
            : errType === 'overloaded_error' || errType === 'api_error'
              ? 'server'
              : errType === 'authentication_error'
                ? 'auth'
                : 'server';
        yield { type: 'error', error: new ProviderError(code, `${label} reported an error mid-reply: ${message}`).toJSON() };
        return;
      }
      default:
        break;
    }
    if (stopped) break;
  }
  if (!stopped) throw droppedError(label);
  // Anthropic counts cached input apart from input_tokens; the finish part's input is all of it.
  const cache = { ...(cacheRead ? { cachedInputTokens: cacheRead } : {}), ...(cacheWrite ? { cacheWriteTokens: cacheWrite } : {}) };
  yield { type: 'finish', stopReason, usage: { inputTokens: inputTokens + cacheRead + cacheWrite, outputTokens, ...cache } };
}
