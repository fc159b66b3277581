/** @import { ModelFacts } from './types.d.ts' */

/**
 * What Clawser knows of each model: one record per model, keyed by the prefix of the ids it
 * covers (`gpt-4.1-mini` covers `gpt-4.1-mini-2025-04-14`; a router's `openai/gpt-4.1` counts as
 * `gpt-4.1`); the longest prefix that matches is the model's record. Prices (pricing.js), badges
 * and context sizes (models.js) are read from here. A model without a record is unknown — "cost
 * unknown", no badges — never "free" or "no".
 *
 * Capabilities and context sizes are from the providers' documentation. Prices are list prices
 * in USD per million tokens — input, output, cached input, and cache write where it costs more
 * than input (Anthropic: cache reads 0.1×, 5-minute cache writes 1.25× the input price) — at the
 * standard tier for prompts up to 200k tokens, as last known when the table was written; this
 * build machine has no network, so they were not re-checked against the live pages on
 * 2026-11-26 (the table's date) — verify there:
 * - OpenAI: https://openai.com/api/pricing/
 * - Anthropic: https://www.anthropic.com/pricing#api
 * - Google: https://ai.google.dev/gemini-api/docs/pricing
 * - Groq: https://groq.com/pricing · DeepSeek: https://api-docs.deepseek.com/quick_start/pricing
 * - Mistral: https://mistral.ai/pricing#api-pricing · xAI: https://docs.x.ai/docs/models
 * - Perplexity: https://docs.perplexity.ai/getting-started/pricing
 * Prices change: a stale record shows a wrong estimate, never a missing one; the provider's bill is the reference.
 * @type {Record<string, ModelFacts>}
 */
export const MODELS = {
  // OpenAI
  'gpt-5-nano': { tools: true, vision: true, reasoning: true, context: 400_000, price: [0.05, 0.4, 0.005] },
  'gpt-5-mini': { tools: true, vision: true, reasoning: true, context: 400_000, price: [0.25, 2, 0.025] },
  'gpt-5': { tools: true, vision: true, reasoning: true, context: 400_000, price: [1.25, 10, 0.125] },
  'gpt-4.1-nano': { tools: true, vision: true, context: 1_047_576, price: [0.1, 0.4, 0.025] },
  'gpt-4.1-mini': { tools: true, vision: true, context: 1_047_576, price: [0.4, 1.6, 0.1] },
  'gpt-4.1': { tools: true, vision: true, context: 1_047_576, price: [2, 8, 0.5] },
  'gpt-4o-mini': { tools: true, vision: true, context: 128_000, price: [0.15, 0.6, 0.075] },
  'gpt-4o': { tools: true, vision: true, context: 128_000, price: [2.5, 10, 1.25] },
  'o4-mini': { tools: true, vision: true, reasoning: true, context: 200_000, price: [1.1, 4.4, 0.275] },
  'o3-mini': { tools: true, vision: true, reasoning: true, context: 200_000, price: [1.1, 4.4, 0.55] },
  o3: { tools: true, vision: true, reasoning: true, context: 200_000, price: [2, 8, 0.5] },
  // Anthropic
  'claude-opus-4-5': { tools: true, vision: true, reasoning: true, context: 200_000, price: [5, 25, 0.5, 6.25] },
  'claude-opus-4': { tools: true, vision: true, reasoning: true, context: 200_000, price: [15, 75, 1.5, 18.75] },
  'claude-sonnet-4': { tools: true, vision: true, reasoning: true, context: 200_000, price: [3, 15, 0.3, 3.75] },
  'claude-haiku-4': { tools: true, vision: true, reasoning: true, context: 200_000, price: [1, 5, 0.1, 1.25] },
  'claude-3-7-sonnet': { tools: true, vision: true, reasoning: true, context: 200_000, price: [3, 15, 0.3, 3.75] },
  'claude-3-5-haiku': { tools: true, vision: true, context: 200_000, price: [0.8, 4, 0.08, 1] },
  // Google
  'gemini-2.5-pro': { tools: true, vision: true, reasoning: true, context: 1_048_576, price: [1.25, 10, 0.31] },
  'gemini-2.5-flash-lite': { tools: true, vision: true, reasoning: true, context: 1_048_576, price: [0.1, 0.4, 0.025] },
  'gemini-2.5-flash': { tools: true, vision: true, reasoning: true, context: 1_048_576, price: [0.3, 2.5, 0.075] },
  'gemini-2.5': { tools: true, vision: true, reasoning: true, context: 1_048_576 },
  'gemini-2.0-flash-lite': { tools: true, vision: true, context: 1_048_576, price: [0.075, 0.3, 0.075] },
  'gemini-2.0-flash': { tools: true, vision: true, context: 1_048_576, price: [0.1, 0.4, 0.025] },
  'gemini-2.0': { tools: true, vision: true, context: 1_048_576 },
  // Others
  'llama-3.3-70b': { tools: true, context: 128_000, price: [0.59, 0.79, 0.59] },
  'llama-3.1-8b': { tools: true, context: 128_000, price: [0.05, 0.08, 0.05] },
  'deepseek-chat': { tools: true, context: 128_000, price: [0.27, 1.1, 0.07] },
  'deepseek-reasoner': { tools: true, reasoning: true, context: 128_000, price: [0.55, 2.19, 0.14] },
  'mistral-small': { tools: true, vision: true, context: 128_000, price: [0.1, 0.3, 0.1] },
  'mistral-large': { tools: true, context: 128_000, price: [2, 6, 2] },
  'grok-3-mini': { tools: true, reasoning: true, context: 131_072, price: [0.3, 0.5, 0.075] },
  'grok-4': { tools: true, vision: true, reasoning: true, context: 256_000, price: [3, 15, 0.75] },
  'sonar-pro': { tools: false, context: 128_000, price: [3, 15, 3] },
  sonar: { tools: false, context: 128_000, price: [1, 1, 1] },
};

const BY_LENGTH = Object.keys(MODELS).sort((a, b) => b.length - a.length);

/**
 * The record of a model, by the longest prefix of its id (a router's `vendor/` path left out).
 * @param {string} model @returns {ModelFacts | undefined}
 */
export function modelFacts(model) {
  const bare = model.toLowerCase().split('/').pop() ?? '';
  const key = BY_LENGTH.find((prefix) => bare.startsWith(prefix));
  return key === undefined ? undefined : MODELS[key];
}

/**
 * Model ids without a record that reason: the OpenAI o-series and GPT-5 family, Gemini from 2.5
 * on. A record, where there is one, decides.
 */
const REASONING_FAMILIES = /^(?:o\d|gpt-5)|gemini-(?:2\.5|[3-9])/i;

/**
 * Whether a model reasons (a wire asks: Gemini's thinking summaries, the Responses API's
 * reasoning summaries and its refusal of temperature).
 * @param {string} model
 */
export function modelReasons(model) {
  const facts = modelFacts(model);
  if (facts) return !!facts.reasoning;
  return REASONING_FAMILIES.test(model.toLowerCase().split('/').pop() ?? '');
}

/**
 * Whether a model takes images, where its record says; `undefined` for a model without one (the
 * host decides then: images.js).
 * @param {string} model @returns {boolean | undefined}
 */
export function modelSeesImages(model) {
  const facts = modelFacts(model);
  return facts ? !!facts.vision : undefined;
}

/**
 * Tokenizer families (tokens.js) by model name, for models of any host (a local server's
 * `qwen2.5:7b`, a router's `meta-llama/…`), checked in this order; a model of none counts as
 * `default`. Three share a name with a wire (the vendor's tokenizer), nothing more.
 */
export const TOKEN_FAMILIES = /** @type {const} */ ({
  anthropic: /claude/,
  gemini: /gemini|gemma/,
  llama: /llama|mistral|mixtral|qwen|deepseek/,
  openai: /gpt|^o\d|openai/,
});

/** Local model families that take images (Ollama's library names); most local models are text only. */
export const LOCAL_VISION =
  /llava|vision|\bvl\b|-vl|vl:|qwen2\.5vl|gemma3|minicpm-v|moondream|pixtral|mistral-small3\.[12]|llama4|granite3\.2-vision/i;
