/** @import { ProviderConfig, ModelInfo, CallOptions } from './types.d.ts' */
import { catalogEntry } from './catalog.js';
import { createProvider } from './index.js';
import { modelFacts } from './model-facts.js';

/**
 * What is known of a model when the provider's list says only its id: tools, images, reasoning
 * and context size from its record (model-facts.js); a model without one gets no badges
 * (unknown, not "no").
 * @param {string} id @returns {ModelInfo}
 */
export function knownModel(id) {
  const facts = modelFacts(id);
  if (!facts) return { id };
  const { context, price: _price, ...badges } = facts;
  return { id, ...badges, ...(context ? { contextTokens: context } : {}) };
}

/**
 * The models a provider offers, with capability badges: from the provider's own list where it
 * has one (OpenAI-compatible `/models`, Anthropic's `/v1/models`, Gemini's `models`, Ollama's
 * `/api/tags` with `/api/show`), else the catalog's suggestions; badges the list does not give
 * come from the model family.
 * @param {ProviderConfig} config
 * @param {{fetchImpl?: typeof fetch} & CallOptions} [deps]
 * @returns {Promise<{models: ModelInfo[], source: 'provider' | 'catalog'}>}
 */
export async function listModelInfo(config, deps = {}) {
  const entry = catalogEntry(config.provider);
  // any: the list methods are optional per wire format
  // Listing needs no model: the list is where one is chosen.
  const provider = /** @type {any} */ (createProvider(config, { fetchImpl: deps.fetchImpl, forModels: true }));
  /** @type {ModelInfo[]} */
  let models = [];
  if (typeof provider.listModelInfo === 'function') models = await provider.listModelInfo({ signal: deps.signal });
  else if (typeof provider.listModels === 'function')
    models = (await provider.listModels({ signal: deps.signal })).map((/** @type {string} */ id) => ({ id }));
  if (!models.length) return { models: (entry?.models ?? []).map(knownModel), source: 'catalog' };
  return {
    models: models.map((m) => ({ ...knownModel(m.id), ...Object.fromEntries(Object.entries(m).filter(([, v]) => v !== undefined)) })),
    source: 'provider',
  };
}

/** The badges of a model, in words. @param {ModelInfo} m @returns {string[]} */
export function modelBadges(m) {
  const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });
  /** @type {string[]} */
  const out = [];
  if (m.tools) out.push('tools');
  if (m.vision) out.push('images');
  if (m.reasoning) out.push('reasoning');
  if (m.contextTokens) out.push(`${compact.format(m.contextTokens)} context`);
  if (m.sizeBytes)
    out.push(`${m.sizeBytes >= 1e9 ? `${(m.sizeBytes / 1e9).toFixed(1)} GB` : `${Math.max(1, Math.round(m.sizeBytes / 1e6))} MB`} on disk`);
  return out;
}
