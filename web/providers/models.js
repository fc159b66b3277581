/** @import { ProviderConfig, ModelInfo, CallOptions } from './types.d.ts' */
import { catalogEntry } from './catalog.js';
import { createProvider } from './index.js';

/**
 * What is known of a model family when the provider's list says only its id: tools, images,
 * reasoning and context size from the providers' documentation. Longest prefix wins; a model
 * not listed gets no badges (unknown, not "no").
 * @type {[prefix: string, info: Omit<ModelInfo, 'id'>][]}
 */
const FAMILIES = [
  ['gpt-5', { tools: true, vision: true, reasoning: true, contextTokens: 400_000 }],
  ['gpt-4.1', { tools: true, vision: true, contextTokens: 1_047_576 }],
  ['gpt-4o', { tools: true, vision: true, contextTokens: 128_000 }],
  ['o4-mini', { tools: true, vision: true, reasoning: true, contextTokens: 200_000 }],
  ['o3', { tools: true, vision: true, reasoning: true, contextTokens: 200_000 }],
  ['claude-opus-4', { tools: true, vision: true, reasoning: true, contextTokens: 200_000 }],
  ['claude-sonnet-4', { tools: true, vision: true, reasoning: true, contextTokens: 200_000 }],
  ['claude-haiku-4', { tools: true, vision: true, reasoning: true, contextTokens: 200_000 }],
  ['claude-3-5-haiku', { tools: true, vision: true, contextTokens: 200_000 }],
  ['gemini-2.5', { tools: true, vision: true, reasoning: true, contextTokens: 1_048_576 }],
  ['gemini-2.0', { tools: true, vision: true, contextTokens: 1_048_576 }],
  ['deepseek-reasoner', { tools: true, reasoning: true, contextTokens: 128_000 }],
  ['deepseek-chat', { tools: true, contextTokens: 128_000 }],
  ['llama-3.3-70b', { tools: true, contextTokens: 128_000 }],
  ['grok-4', { tools: true, vision: true, reasoning: true, contextTokens: 256_000 }],
  ['grok-3-mini', { tools: true, reasoning: true, contextTokens: 131_072 }],
  ['mistral-large', { tools: true, contextTokens: 128_000 }],
  ['mistral-small', { tools: true, vision: true, contextTokens: 128_000 }],
  ['sonar', { tools: false, contextTokens: 128_000 }],
];
const BY_LENGTH = [...FAMILIES].sort((a, b) => b[0].length - a[0].length);

/** @param {string} id @returns {ModelInfo} */
export function knownModel(id) {
  const bare = id.toLowerCase().split('/').pop() ?? '';
  const family = BY_LENGTH.find(([prefix]) => bare.startsWith(prefix));
  return { id, ...(family ? family[1] : {}) };
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
  const provider = /** @type {any} */ (createProvider(config, { fetchImpl: deps.fetchImpl })); // any: the list methods are optional per wire format
  /** @type {ModelInfo[]} */
  let models = [];
  if (typeof provider.listModelInfo === 'function') models = await provider.listModelInfo({ signal: deps.signal });
  else if (typeof provider.listModels === 'function') models = (await provider.listModels({ signal: deps.signal })).map((/** @type {string} */ id) => ({ id }));
  if (!models.length) return { models: (entry?.models ?? []).map(knownModel), source: 'catalog' };
  return { models: models.map((m) => ({ ...knownModel(m.id), ...Object.fromEntries(Object.entries(m).filter(([, v]) => v !== undefined)) })), source: 'provider' };
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
  if (m.sizeBytes) out.push(`${m.sizeBytes >= 1e9 ? `${(m.sizeBytes / 1e9).toFixed(1)} GB` : `${Math.max(1, Math.round(m.sizeBytes / 1e6))} MB`} on disk`);
  return out;
}
