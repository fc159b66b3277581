/** @import { ChatRequest, StreamPart, StopReason, Message, WireOptions, Usage } from './types.d.ts' */
/** @import { SSEMessage } from '../net/sse.js' */
import { ProviderError, droppedError } from './errors.js';
import { HttpSseProvider, ignoredSettings, parseToolArguments } from './http.js';
import { OpenAIProvider } from './openai.js';
import { modelReasons } from './model-facts.js';

/** Reasoning models, which stream summaries of their reasoning when asked. */

/**
 * OpenAI's Responses API (`POST /responses`, typed SSE events). Nothing is stored on OpenAI's
 * side (`store: false`): every request carries the whole conversation, as with Chat Completions.
 */
export class OpenAIResponsesProvider extends HttpSseProvider {
  /** @override */
  get url() {
    return `${this.baseUrl}/responses`;
  }

  /** Only the bearer key, as Chat Completions. @override */
  buildHeaders() {
    return OpenAIProvider.prototype.buildHeaders.call(this);
  }

  /** @override @param {ChatRequest} request */
  buildBody(request) {
    /** @type {Record<string, unknown>} */
    const body = { model: this.model, input: toResponsesInput(request.messages), stream: true, store: false };
    if (request.system) body.instructions = request.system;
    if (request.maxTokens) body.max_output_tokens = request.maxTokens;
    if (request.temperature !== undefined && !modelReasons(this.model)) body.temperature = request.temperature;
    if (modelReasons(this.model)) body.reasoning = { summary: 'auto' };
    // strict: false — left out, the Responses API makes every schema strict (all fields required).
    if (request.tools?.length) {
      body.tools = request.tools.map((t) => ({
        type: 'function',
        name: t.name,
        description: t.description,
        parameters: t.parameters,
        strict: false,
      }));
      const choice = request.toolChoice;
      if (choice) body.tool_choice = typeof choice === 'string' ? choice : { type: 'function', name: choice.name };
    }
    return body;
  }

  /** @override @param {AsyncIterable<SSEMessage>} messages */
  assemble(messages) {
    return assembleResponsesStream(messages, this.label);
  }

  /** Reasoning models take no temperature (the API refuses it): it is left out, and said. @override @param {ChatRequest} request */
  warnings(request) {
    if (!modelReasons(this.model)) return [];
    return ignoredSettings(request, `${this.label} (${this.model}, a reasoning model)`, { temperature: 'takes no temperature' });
  }

  /** Model ids the endpoint offers (GET /models). @param {import('./types.d.ts').CallOptions} [options] */
  listModels(options = {}) {
    return this.fetchModelIds('/models', options);
  }
}

/** The wire's factory (the registry's lazy `load` imports this module). @param {WireOptions} options */
export function create(options) {
  return new OpenAIResponsesProvider(options);
}

/**
 * Input items: messages (user text and images as `input_text`/`input_image`, assistant text),
 * and each tool call and its output as their own `function_call` / `function_call_output` items.
 * @param {Message[]} messages
 */
export function toResponsesInput(messages) {
  /** @type {Record<string, unknown>[]} */
  const out = [];
  for (const m of messages) {
    if (m.role === 'tool') {
      out.push({ type: 'function_call_output', call_id: m.toolCallId, output: m.content });
      if (m.images?.length)
        out.push({
          role: 'user',
          content: [
            { type: 'input_text', text: 'Images returned by the tool call above:' },
            ...m.images.map((i) => ({ type: 'input_image', image_url: i.dataUrl })),
          ],
        });
      continue;
    }
    if (m.role === 'user') {
      out.push(
        m.images?.length
          ? {
              role: 'user',
              content: [
                ...(m.content ? [{ type: 'input_text', text: m.content }] : []),
                ...m.images.map((i) => ({ type: 'input_image', image_url: i.dataUrl })),
              ],
            }
          : { role: 'user', content: m.content },
      );
      continue;
    }
    if (m.content) out.push({ role: 'assistant', content: m.content });
    for (const c of m.toolCalls ?? [])
      out.push({ type: 'function_call', call_id: c.id, name: c.name, arguments: JSON.stringify(c.arguments) });
  }
  return out;
}

/**
 * Turns Responses API events into stream parts: text and reasoning-summary deltas (with their
 * output item's id), function calls assembled from argument deltas (emitted when their item is
 * done, with their `call_id`), usage from `response.completed` in the finish part, and `error` /
 * `response.failed` as errors.
 * @param {AsyncIterable<SSEMessage>} messages
 * @param {string} label
 * @returns {AsyncGenerator<StreamPart>}
 */
export async function* assembleResponsesStream(messages, label) {
  /** @type {Map<string, {callId: string, name: string, args: string, emitted: boolean}>} by item id */
  const calls = new Map();
  /** @type {StopReason | null} */
  let stopReason = null;
  let refused = false;
  let sawCall = false;
  /** @type {Usage | undefined} */
  let usage;
  /** Text and reasoning's output item, where the event names it. @param {{item_id?: unknown}} json */
  const itemId = (json) => (typeof json.item_id === 'string' && json.item_id ? { id: json.item_id } : {});
  /** @param {{callId: string, name: string, args: string, emitted: boolean}} c @returns {StreamPart | null} */
  const emit = (c) => {
    if (c.emitted) return null;
    c.emitted = true;
    sawCall = true;
    return { type: 'tool_call', id: c.callId, name: c.name, arguments: parseToolArguments(c.args) };
  };
  for await (const msg of messages) {
    if (!msg.data.trim() || msg.data.trim() === '[DONE]') continue;
    let json;
    try {
      json = JSON.parse(msg.data);
    } catch {
      throw new ProviderError('server', `${label} sent a malformed stream chunk.`);
    }
    const type = json.type ?? msg.event;
    switch (type) {
      case 'response.output_text.delta':
        if (typeof json.delta === 'string' && json.delta) yield { type: 'text', text: json.delta, ...itemId(json) };
        break;
      case 'response.refusal.delta':
        if (typeof json.delta === 'string' && json.delta) {
          refused = true;
          yield { type: 'text', text: json.delta, ...itemId(json) };
        }
        break;
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        if (typeof json.delta === 'string' && json.delta) yield { type: 'reasoning', text: json.delta, ...itemId(json) };
        break;
      case 'response.reasoning_summary_part.done':
        yield { type: 'reasoning', text: '\n\n', ...itemId(json) };
        break;
      case 'response.output_item.added': {
        const item = json.item ?? {};
        if (item.type === 'function_call')
          calls.set(item.id ?? `out_${json.output_index}`, {
            callId: item.call_id ?? item.id ?? `call_${json.output_index}`,
            name: item.name ?? '',
            args: item.arguments ?? '',
            emitted: false,
          });
        break;
      }
      case 'response.function_call_arguments.delta': {
        const c = calls.get(json.item_id);
        if (c && typeof json.delta === 'string') c.args += json.delta;
        break;
      }
      case 'response.function_call_arguments.done': {
        const c = calls.get(json.item_id);
        if (c && typeof json.arguments === 'string') c.args = json.arguments;
        break;
      }
      case 'response.output_item.done': {
        const item = json.item ?? {};
        if (item.type !== 'function_call') break;
        const key = item.id ?? `out_${json.output_index}`;
        const c = calls.get(key) ?? { callId: item.call_id ?? key, name: '', args: '', emitted: false };
        if (typeof item.name === 'string' && item.name) c.name = item.name;
        if (typeof item.arguments === 'string') c.args = item.arguments;
        calls.set(key, c);
        const ev = emit(c);
        if (ev) yield ev;
        break;
      }
      case 'response.completed':
      case 'response.incomplete': {
        for (const c of calls.values()) {
          const ev = emit(c);
          if (ev) yield ev;
        }
        const u = json.response?.usage;
        if (u) {
          const cached = u.input_tokens_details?.cached_tokens ?? 0;
          usage = { inputTokens: u.input_tokens ?? 0, outputTokens: u.output_tokens ?? 0 };
          if (cached) usage.cachedInputTokens = cached;
        }
        const reason = json.response?.incomplete_details?.reason;
        stopReason =
          type === 'response.completed'
            ? sawCall
              ? 'tool_use'
              : 'end_turn'
            : reason === 'max_output_tokens'
              ? 'max_tokens'
              : reason === 'content_filter'
                ? 'refusal'
                : 'unknown';
        break;
      }
      case 'response.failed': {
        const e = json.response?.error ?? {};
        yield { type: 'error', error: responsesError(e.code, e.message, label).toJSON() };
        return;
      }
      case 'error': {
        yield { type: 'error', error: responsesError(json.code ?? json.error?.code, json.message ?? json.error?.message, label).toJSON() };
        return;
      }
      default:
        break;
    }
    if (stopReason) break;
  }
  if (stopReason === null) throw droppedError(label);
  yield { type: 'finish', stopReason: refused ? 'refusal' : stopReason, ...(usage ? { usage } : {}) };
}

/** @param {unknown} code @param {unknown} message @param {string} label */
function responsesError(code, message, label) {
  const c = String(code ?? '');
  const kind = /rate_limit/.test(c)
    ? 'rate_limit'
    : /server_error|overloaded|unavailable|timeout/.test(c)
      ? 'server'
      : /invalid_api_key|auth/.test(c)
        ? 'auth'
        : c
          ? 'client'
          : 'server';
  return new ProviderError(
    kind,
    `${label} reported an error mid-reply: ${typeof message === 'string' && message ? message : c || 'unknown error'}`,
    { retryable: kind === 'rate_limit' || kind === 'server' },
  );
}
