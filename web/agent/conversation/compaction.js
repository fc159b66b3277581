/** @import { Message, Provider } from '../../providers/types.d.ts' */
import { estimateMessagesTokens } from '../../providers/tokens.js';

export const DEFAULT_COMPACTION = { thresholdTokens: 12_000, keepRecent: 10 };

/**
 * The messages' size in tokens, estimated for the provider's tokenizer family (see web/providers/tokens.js).
 * @param {Message[]} messages @param {import('../../providers/tokens.js').TokenFamily} [family]
 */
export function estimateTokens(messages, family = 'default') {
  return estimateMessagesTokens(messages, family);
}

/**
 * Decides whether to compact: past the threshold, everything but the most recent messages
 * is summarised. The kept part starts at a user message so no tool result loses its call.
 * @param {Message[]} messages
 * @param {{thresholdTokens: number, keepRecent: number, family?: import('../../providers/tokens.js').TokenFamily}} [options]
 * @returns {{older: Message[], keptMessages: number} | null}
 */
export function planCompaction(messages, options = DEFAULT_COMPACTION) {
  const family = options.family ?? 'default';
  if (estimateTokens(messages, family) <= options.thresholdTokens) return null;
  let start = Math.max(0, messages.length - options.keepRecent);
  while (start > 0 && messages[start].role !== 'user') start--;
  if (start <= 0) return null;
  const older = messages.slice(0, start);
  // Not worth a model call when the older part is small (e.g. just the previous summary).
  if (estimateTokens(older, family) < options.thresholdTokens * 0.25) return null;
  return { older, keptMessages: messages.length - start };
}

/** @param {Message[]} older */
function transcript(older) {
  return older
    .map((m) => {
      const who = m.role === 'user' ? 'User' : m.role === 'assistant' ? 'Assistant' : 'Tool result';
      const calls = m.toolCalls?.length ? ` [called ${m.toolCalls.map((c) => c.name).join(', ')}]` : '';
      return `${who}${calls}: ${m.content}`;
    })
    .join('\n\n');
}

/**
 * Summarises older messages with the model; if that call fails, falls back to a truncated
 * transcript so the conversation can go on.
 * @param {Provider} provider
 * @param {Message[]} older
 * @param {{signal?: AbortSignal, maxFallbackChars?: number, onDevice?: () =>
 *   Promise<import('../../providers/on-device-summarizer.js').OnDeviceSummarizer | null>}} [options]
 *   onDevice: Chrome's built-in summarizer, tried first (no key, no cost); the chat model when it is missing or fails
 * @returns {Promise<{summary: string, method: 'on-device' | 'model' | 'truncation', usage?: {inputTokens: number, outputTokens: number}}>}
 *   usage: what the model call cost (counted like a turn's)
 */
export async function summarize(provider, older, options = {}) {
  const text = transcript(older);
  try {
    const local = await options.onDevice?.();
    const summary = local ? await local.summarize(text, { signal: options.signal }) : '';
    if (summary) return { summary, method: 'on-device' };
  } catch {
    // The on-device model failed (quota, language): the chat model does it.
  }
  try {
    const result = await provider.chat(
      {
        system: 'You compress conversations. Keep facts, decisions, names, file paths, open tasks and user preferences. Be concise.',
        messages: [{ role: 'user', content: `Summarize this conversation concisely:\n\n${text}` }],
        maxTokens: 1024,
      },
      { signal: options.signal },
    );
    if (result.content.trim()) return { summary: result.content.trim(), method: 'model', usage: result.usage };
  } catch {
    // fall through to truncation
  }
  const max = options.maxFallbackChars ?? 6000;
  const summary = text.length > max ? `(Earlier conversation, truncated to its last ${max} characters.)\n…${text.slice(-max)}` : text;
  return { summary, method: 'truncation' };
}
