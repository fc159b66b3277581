/** @import { Provider, StreamEvent, Usage, ToolCall, ProviderErrorShape } from '../providers/types.d.ts' */
/** @import { Conversation } from './conversation.js' */
import { redactSecrets } from '../providers/errors.js';

export const DEFAULT_SYSTEM_PROMPT =
  'You are Clawser, a helpful assistant running inside the user\'s browser. Answer clearly; use Markdown for structure and fenced code blocks for code.';

/**
 * Events the agent yields to its caller (the UI): the provider's stream events plus
 * `saved` once the reply is in the event log.
 * @typedef {StreamEvent | {type: 'saved', eventId: string}} AgentStreamEvent
 */

/**
 * The agent run loop. One turn: record the user message, call the provider with the
 * derived history, stream its output, record the reply (or the failure) in the event log.
 * Tool calls join this same loop in a later issue; there is no second loop anywhere.
 */
export class ClawserAgent {
  /**
   * @param {{provider: Provider, conversation: Conversation, systemPrompt?: string, maxTokens?: number, secrets?: string[]}} options
   */
  constructor(options) {
    this.provider = options.provider;
    this.conversation = options.conversation;
    this.systemPrompt = options.systemPrompt ?? DEFAULT_SYSTEM_PROMPT;
    this.maxTokens = options.maxTokens;
    /** Values that must never be written to the log (API keys). */
    this.secrets = options.secrets ?? [];
  }

  /**
   * Sends a user message and streams the reply.
   * @param {string} text
   * @param {{signal?: AbortSignal}} [options]
   * @returns {AsyncGenerator<AgentStreamEvent>}
   */
  async *runStream(text, options = {}) {
    await this.conversation.append('user_message', { text }, 'user');
    yield* this.respond(options);
  }

  /**
   * Calls the provider for the history as it stands (used by runStream and by "retry"
   * after a failed reply, which must not record the user message twice).
   * @param {{signal?: AbortSignal}} [options]
   * @returns {AsyncGenerator<AgentStreamEvent>}
   */
  async *respond(options = {}) {
    const signal = options.signal;
    const { system, messages } = this.conversation.deriveSessionHistory(this.systemPrompt);
    let text = '';
    /** @type {ToolCall[]} */
    const toolCalls = [];
    /** @type {Usage | undefined} */
    let usage;
    /** @type {ProviderErrorShape | null} */
    let failure = null;
    /** @type {string | undefined} */
    let stopReason;
    const stream = this.provider.chatStream({ system, messages, maxTokens: this.maxTokens }, { signal });
    for await (const ev of stream) {
      if (ev.type === 'text') text += ev.text;
      else if (ev.type === 'tool_call') toolCalls.push({ id: ev.id, name: ev.name, arguments: ev.arguments });
      else if (ev.type === 'usage') usage = { inputTokens: ev.inputTokens, outputTokens: ev.outputTokens };
      else if (ev.type === 'done') stopReason = ev.stopReason;
      else if (ev.type === 'error') {
        failure = { ...ev.error, message: redactSecrets(ev.error.message, this.secrets) };
        yield { type: 'error', error: failure };
        break;
      }
      yield ev;
      if (signal?.aborted) break;
    }
    if (signal?.aborted || failure?.code === 'aborted') {
      // The user saw the partial reply: keep it, marked as stopped.
      if (text) {
        const e = await this.conversation.append('agent_message', { text, stopped: true, model: this.provider.model }, 'agent');
        yield { type: 'saved', eventId: e.id };
      }
      return;
    }
    if (failure) {
      const type = text ? 'stream_error' : 'provider_error';
      await this.conversation.append(type, { ...failure, partialText: text || undefined, provider: this.provider.id, model: this.provider.model }, 'provider');
      return;
    }
    /** @type {Record<string, any>} */
    const data = { text, model: this.provider.model, stopReason };
    if (usage) data.usage = usage;
    if (toolCalls.length) data.toolCalls = toolCalls;
    const e = await this.conversation.append('agent_message', data, 'agent');
    yield { type: 'saved', eventId: e.id };
  }
}
