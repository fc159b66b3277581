/** @import { ChatRequest, CallOptions, StreamPart, Provider, WireOptions } from './types.d.ts' */
import { collectStream, ignoredSettings, lastUserText } from './http.js';

/**
 * Test provider: no AI, no network. Streams back the last user message word by word so
 * the whole app can be tried (and tested) offline.
 * @implements {Provider}
 */
export class EchoProvider {
  /** @param {{model?: string, delayMs?: number}} [options] */
  constructor(options = {}) {
    this.id = 'echo';
    this.model = options.model || 'echo';
    this.supportsNativeTools = false;
    this.delayMs = options.delayMs ?? 12;
  }

  /** @param {ChatRequest} request @param {CallOptions} [options] */
  chat(request, options) {
    return collectStream(this.chatStream(request, options), this.model);
  }

  /** @param {ChatRequest} request @param {CallOptions} [options] @returns {AsyncGenerator<StreamPart>} */
  async *chatStream(request, options = {}) {
    // A test provider: it repeats, so sampling and length settings mean nothing to it.
    yield* ignoredSettings(request, 'Echo', {
      temperature: 'repeats your message and takes no temperature',
      maxTokens: 'repeats your message whole',
    });
    const last = request.messages.at(-1);
    // After code ran (the Codex path) the last message is its output: echo that, without code.
    const text = last?.role === 'tool' ? last.content : lastUserText(request);
    // Multi-line messages start on their own line, so a fenced code block stays a block.
    const reply =
      last?.role === 'tool'
        ? `Echo: your code printed: ${text}`
        : text
          ? `Echo:${text.includes('\n') ? '\n' : ' '}${text}`
          : 'Echo: (empty message)';
    const pieces = reply.match(/\S+\s*|\s+/g) ?? [reply];
    for (const piece of pieces) {
      if (options.signal?.aborted) {
        yield { type: 'error', error: { code: 'aborted', retryable: false, message: 'Stopped.' } };
        return;
      }
      if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
      yield { type: 'text', text: piece };
    }
    const usage = { inputTokens: Math.ceil(text.length / 4), outputTokens: Math.ceil(reply.length / 4) };
    yield { type: 'finish', stopReason: 'end_turn', usage };
  }
}

/** The wire's factory (the registry's lazy `load` imports this module). @param {WireOptions} options */
export function create({ model, echoDelayMs }) {
  return new EchoProvider({ model, delayMs: echoDelayMs });
}
