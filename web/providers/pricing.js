/** @import { Usage } from './types.d.ts' */

/**
 * List prices in USD per million tokens, matched by model-id prefix (the longest prefix wins):
 * [prefix, input, output, cached input, cache write]. A cache write costs the input price where
 * the provider does not charge extra for it.
 *
 * Taken from the providers' pricing pages below (standard tier, prompts up to 200k tokens) as
 * last known when this table was written; this build machine has no network, so they were not
 * re-checked against the live pages on 2026-11-26 (the date of this table) — verify there:
 * - OpenAI: https://openai.com/api/pricing/
 * - Anthropic: https://www.anthropic.com/pricing#api (cache reads 0.1×, 5-minute cache writes 1.25× the input price)
 * - Google: https://ai.google.dev/gemini-api/docs/pricing
 * - Groq: https://groq.com/pricing · DeepSeek: https://api-docs.deepseek.com/quick_start/pricing
 * - Mistral: https://mistral.ai/pricing#api-pricing · xAI: https://docs.x.ai/docs/models · Perplexity: https://docs.perplexity.ai/getting-started/pricing
 * Prices change: a stale entry shows a wrong estimate, never a missing one; the provider's bill is the reference.
 * @type {[prefix: string, input: number, output: number, cachedInput: number, cacheWrite?: number][]}
 */
export const MODEL_PRICES = [
  // OpenAI
  ['gpt-5-nano', 0.05, 0.4, 0.005], ['gpt-5-mini', 0.25, 2, 0.025], ['gpt-5', 1.25, 10, 0.125],
  ['gpt-4.1-nano', 0.1, 0.4, 0.025], ['gpt-4.1-mini', 0.4, 1.6, 0.1], ['gpt-4.1', 2, 8, 0.5],
  ['gpt-4o-mini', 0.15, 0.6, 0.075], ['gpt-4o', 2.5, 10, 1.25], ['o4-mini', 1.1, 4.4, 0.275], ['o3-mini', 1.1, 4.4, 0.55], ['o3', 2, 8, 0.5],
  // Anthropic
  ['claude-opus-4-5', 5, 25, 0.5, 6.25], ['claude-opus-4', 15, 75, 1.5, 18.75], ['claude-sonnet-4', 3, 15, 0.3, 3.75],
  ['claude-haiku-4', 1, 5, 0.1, 1.25], ['claude-3-7-sonnet', 3, 15, 0.3, 3.75], ['claude-3-5-haiku', 0.8, 4, 0.08, 1],
  // Google
  ['gemini-2.5-pro', 1.25, 10, 0.31], ['gemini-2.5-flash-lite', 0.1, 0.4, 0.025], ['gemini-2.5-flash', 0.3, 2.5, 0.075],
  ['gemini-2.0-flash-lite', 0.075, 0.3, 0.075], ['gemini-2.0-flash', 0.1, 0.4, 0.025],
  // Others
  ['llama-3.3-70b', 0.59, 0.79, 0.59], ['llama-3.1-8b', 0.05, 0.08, 0.05], ['deepseek-chat', 0.27, 1.1, 0.07], ['deepseek-reasoner', 0.55, 2.19, 0.14],
  ['mistral-small', 0.1, 0.3, 0.1], ['mistral-large', 2, 6, 2], ['grok-3-mini', 0.3, 0.5, 0.075], ['grok-4', 3, 15, 0.75], ['sonar-pro', 3, 15, 3], ['sonar', 1, 1, 1],
];
const BY_LENGTH = [...MODEL_PRICES].sort((a, b) => b[0].length - a[0].length);

/** Providers that run on this machine or in the browser: they cost nothing. */
const FREE_PROVIDERS = new Set(['echo', 'chrome-ai', 'ollama', 'lmstudio']);

/**
 * The price of a model, or 'free' (local), or null when Clawser does not know it.
 * @param {string} provider catalog id
 * @param {string} model
 * @returns {{input: number, output: number, cachedInput: number, cacheWrite: number} | 'free' | null}
 */
export function priceOf(provider, model) {
  if (FREE_PROVIDERS.has(provider)) return 'free';
  const id = model.toLowerCase().split('/').pop() ?? '';
  const match = BY_LENGTH.find(([prefix]) => id.startsWith(prefix));
  if (!match) return null;
  return { input: match[1], output: match[2], cachedInput: match[3], cacheWrite: match[4] ?? match[1] };
}

/**
 * The cost of one call in US cents, or null when the model's price is unknown ("cost unknown",
 * never 0). `inputTokens` includes the cached and cache-written tokens; each part is billed at its price.
 * @param {string} provider @param {string} model @param {Usage} usage
 * @returns {number | null}
 */
export function costCents(provider, model, usage) {
  const price = priceOf(provider, model);
  if (price === 'free') return 0;
  if (!price) return null;
  const cached = Math.max(0, usage.cachedInputTokens ?? 0);
  const written = Math.max(0, usage.cacheWriteTokens ?? 0);
  const plain = Math.max(0, usage.inputTokens - cached - written);
  return ((plain * price.input + cached * price.cachedInput + written * price.cacheWrite + usage.outputTokens * price.output) / 1_000_000) * 100;
}

/**
 * Cost by model id alone (no provider known), 0 when unknown: kept for embedders of the first API.
 * @deprecated use costCents(provider, model, usage), which tells unknown from free
 * @param {string} model @param {Usage} usage
 */
export function estimateCostCents(model, usage) {
  return costCents('', model, usage) ?? 0;
}

/** "$0.0042", "$1.23", "cost unknown". @param {number | null} cents */
export function formatCost(cents) {
  if (cents === null) return 'cost unknown';
  const usd = cents / 100;
  if (usd === 0) return '$0';
  return usd < 0.01 ? `$${usd.toFixed(4)}` : usd < 1 ? `$${usd.toFixed(3)}` : `$${usd.toFixed(2)}`;
}
