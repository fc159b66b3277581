/**
 * Chrome's built-in Summarizer API (on-device, no key, no cost), where the browser has it and
 * its model is already on this device: compaction summaries and summaries of long memories use
 * it before the chat model. A
 * summary never waits for a model download (that needs the user's click); the caller falls
 * back to the chat model then.
 */

/**
 * @typedef {object} OnDeviceSummarizer
 * @property {(text: string, options?: {signal?: AbortSignal}) => Promise<string>} summarize
 */

/**
 * @typedef {{summarize: (text: string, options?: {context?: string, signal?: AbortSignal}) => Promise<string>, inputQuota?: number,
 *   measureInputUsage?: (text: string) => Promise<number>, destroy?: () => void}} ChromeSummarizer
 * @typedef {{availability: (options?: object) => Promise<string>, create: (options?: object) => Promise<ChromeSummarizer>}}
 *   ChromeSummarizerApi
 */

const LANGUAGES = { format: 'plain-text', expectedInputLanguages: ['en'], outputLanguage: 'en' };
/** What is summarized: the Summarizer's options and the context it is given. */
const PURPOSES = {
  conversation: {
    options: { ...LANGUAGES, type: 'key-points', length: 'long' },
    context:
      "A conversation between a user and an AI assistant. Keep facts, decisions, names, file paths, open tasks and the user's preferences.",
  },
  memory: {
    options: { ...LANGUAGES, type: 'tldr', length: 'medium' },
    context: "A note saved in an AI assistant's long-term memory. Keep facts, names, numbers, file paths, decisions and preferences.",
  },
};

/**
 * The on-device summarizer, or null when the browser has none ready.
 * @param {{Summarizer?: ChromeSummarizerApi}} [scope] where the API lives (globalThis; tests pass a stand-in)
 * @param {keyof typeof PURPOSES} [purpose] a conversation (compaction) or a memory
 * @returns {Promise<OnDeviceSummarizer | null>}
 */
export async function onDeviceSummarizer(scope = /** @type {any} */ (globalThis), purpose = 'conversation') {
  // any: the API is not in TypeScript's DOM types yet
  const api = scope.Summarizer;
  if (!api || typeof api.availability !== 'function') return null;
  const { options, context } = PURPOSES[purpose];
  try {
    if ((await api.availability(options)) !== 'available') return null;
  } catch {
    return null;
  }
  return {
    async summarize(text, { signal } = {}) {
      const s = await api.create({ ...options, sharedContext: context, signal });
      try {
        return (await summarizeWithin(s, text, context, signal)).trim();
      } finally {
        s.destroy?.();
      }
    },
  };
}

/**
 * Summarizes text longer than the model's input quota in parts, then the parts' summaries.
 * @param {ChromeSummarizer} s @param {string} text @param {string} context @param {AbortSignal | undefined} signal @param {number} [depth]
 * @returns {Promise<string>}
 */
async function summarizeWithin(s, text, context, signal, depth = 0) {
  const quota = s.inputQuota ?? Infinity;
  const fits = !Number.isFinite(quota) || !s.measureInputUsage || (await s.measureInputUsage(text)) <= quota;
  if (fits || depth > 2) return s.summarize(text, { context, signal });
  // About three characters per token of quota, on paragraph boundaries where possible.
  const size = Math.max(1000, Math.floor(quota * 3 * 0.9));
  /** @type {string[]} */
  const parts = [];
  let rest = text;
  while (rest.length > size) {
    const cut = rest.lastIndexOf('\n\n', size);
    const at = cut > size / 2 ? cut : size;
    parts.push(rest.slice(0, at));
    rest = rest.slice(at);
  }
  if (rest.trim()) parts.push(rest);
  const summaries = [];
  for (const p of parts) summaries.push(await s.summarize(p, { context, signal }));
  return summarizeWithin(s, summaries.join('\n\n'), context, signal, depth + 1);
}
