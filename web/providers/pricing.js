/** @import { Usage } from './types.d.ts' */
import { catalogEntry } from './catalog.js';
import { MODELS, modelFacts } from './model-facts.js';

/**
 * List prices in USD per million tokens by model-id prefix (the longest prefix wins):
 * [prefix, input, output, cached input, cache write]. Read from the model records of
 * model-facts.js (where the prices and their sources are); kept in this shape for the first API.
 * @type {[prefix: string, input: number, output: number, cachedInput: number, cacheWrite?: number][]}
 */
export const MODEL_PRICES = Object.entries(MODELS).flatMap(([prefix, m]) => (m.price ? [[prefix, ...m.price]] : []));

/**
 * The price of a model, or 'free' (local), or null when Clawser does not know it.
 * @param {string} provider catalog id
 * @param {string} model
 * @returns {{input: number, output: number, cachedInput: number, cacheWrite: number} | 'free' | null}
 */
export function priceOf(provider, model) {
  // Providers that run on this machine or in the browser cost nothing.
  if (catalogEntry(provider)?.capabilities.local) return 'free';
  const price = modelFacts(model)?.price;
  if (!price) return null;
  const [input, output, cachedInput, cacheWrite = input] = price;
  return { input, output, cachedInput, cacheWrite };
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
  return (
    ((plain * price.input + cached * price.cachedInput + written * price.cacheWrite + usage.outputTokens * price.output) / 1_000_000) * 100
  );
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
