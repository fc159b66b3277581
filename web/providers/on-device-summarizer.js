/**
 * Chrome's built-in Summarizer API (on-device, no key, no cost), where the browser has it and
 * its model is already on this device: compaction summaries use it before the chat model. A
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
 * @typedef {{availability: (options?: object) => Promise<string>, create: (options?: object) => Promise<ChromeSummarizer>}} ChromeSummarizerApi
 */

const OPTIONS = { type: 'key-points', format: 'plain-text', length: 'long', expectedInputLanguages: ['en'], outputLanguage: 'en' };
const CONTEXT = 'A conversation between a user and an AI assistant. Keep facts, decisions, names, file paths, open tasks and the user\'s preferences.';

/**
 * The on-device summarizer, or null when the browser has none ready.
 * @param {{Summarizer?: ChromeSummarizerApi}} [scope] where the API lives (globalThis; tests pass a stand-in)
 * @returns {Promise<OnDeviceSummarizer | null>}
 */
export async function onDeviceSummarizer(scope = /** @type {any} */ (globalThis)) { // any: the API is not in TypeScript's DOM types yet
  const api = scope.Summarizer;
  if (!api || typeof api.availability !== 'function') return null;
  try {
    if ((await api.availability(OPTIONS)) !== 'available') return null;
  } catch {
    return null;
  }
  return {
    async summarize(text, { signal } = {}) {
      const s = await api.create({ ...OPTIONS, sharedContext: CONTEXT, signal });
      try {
        return (await summarizeWithin(s, text, signal)).trim();
      } finally {
        s.destroy?.();
      }
    },
  };
}

/**
 * Summarizes text longer than the model's input quota in parts, then the parts' summaries.
 * @param {ChromeSummarizer} s @param {string} text @param {AbortSignal | undefined} signal @param {number} [depth]
 * @returns {Promise<string>}
 */
async function summarizeWithin(s, text, signal, depth = 0) {
  const quota = s.inputQuota ?? Infinity;
  const fits = !Number.isFinite(quota) || !s.measureInputUsage || (await s.measureInputUsage(text)) <= quota;
  if (fits || depth > 2) return s.summarize(text, { context: CONTEXT, signal });
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
  for (const p of parts) summaries.push(await s.summarize(p, { context: CONTEXT, signal }));
  return summarizeWithin(s, summaries.join('\n\n'), signal, depth + 1);
}
