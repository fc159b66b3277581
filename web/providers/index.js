/** @import { Provider, ProviderConfig } from './types.d.ts' */
import { z } from 'zod';
import { AnthropicProvider } from './anthropic.js';
import { CATALOG, catalogEntry } from './catalog.js';
import { ChromeAIProvider } from './chrome-ai.js';
import { EchoProvider } from './echo.js';
import { ProviderError } from './errors.js';
import { GeminiProvider } from './gemini.js';
import { OllamaProvider } from './ollama.js';
import { OpenAIProvider } from './openai.js';
import { OpenAIResponsesProvider } from './openai-responses.js';

export { CATALOG, catalogEntry, ProviderError };
export { parseSSE, SSEParser } from '../net/sse.js';

/** Validated shape of a provider configuration (a boundary input: it comes from settings). */
export const ProviderConfigSchema = z.object({
  provider: z.string().min(1),
  model: z.string().trim().max(200).optional(),
  apiKey: z.string().trim().max(500).optional(),
  baseUrl: z
    .string()
    .trim()
    .max(500)
    .refine((v) => v === '' || /^https?:\/\/[^\s]+$/i.test(v), 'The base URL must start with http:// or https://')
    .optional(),
});

/**
 * Creates a provider from its configuration.
 * @param {ProviderConfig} config
 * @param {{fetchImpl?: typeof fetch, echoDelayMs?: number}} [deps]
 * @returns {Provider}
 */
export function createProvider(config, deps = {}) {
  const parsed = ProviderConfigSchema.safeParse(config);
  if (!parsed.success) {
    throw new ProviderError('client', `Invalid provider settings: ${parsed.error.issues.map((i) => i.message).join('; ')}`, { retryable: false });
  }
  const { provider, apiKey, baseUrl } = parsed.data;
  const entry = catalogEntry(provider);
  if (!entry) throw new ProviderError('client', `Unknown provider "${provider}". Choose one of: ${CATALOG.map((e) => e.id).join(', ')}.`, { retryable: false });
  const model = parsed.data.model || entry.defaultModel;
  if (entry.needsKey && !apiKey) {
    throw new ProviderError('auth', `${entry.label} needs an API key. Add it in Settings${entry.keyUrl ? ` (get one at ${entry.keyUrl})` : ''}.`, { retryable: false });
  }
  if (entry.wire !== 'echo' && entry.wire !== 'chrome-ai' && !model) {
    throw new ProviderError('client', `Choose a model for ${entry.label} in Settings.`, { retryable: false });
  }
  if (entry.wire === 'openai' && !(baseUrl || entry.baseUrl)) {
    throw new ProviderError('client', `Enter the base URL of your OpenAI-compatible server in Settings (for example http://localhost:11434/v1).`, { retryable: false });
  }
  switch (entry.wire) {
    case 'echo':
      return new EchoProvider({ model, delayMs: deps.echoDelayMs });
    case 'chrome-ai':
      return new ChromeAIProvider({ model });
    case 'anthropic':
      return new AnthropicProvider({ entry, model, apiKey, baseUrl, fetchImpl: deps.fetchImpl });
    case 'openai':
      return new OpenAIProvider({ entry, model, apiKey, baseUrl, fetchImpl: deps.fetchImpl });
    case 'openai-responses':
      return new OpenAIResponsesProvider({ entry, model, apiKey, baseUrl, fetchImpl: deps.fetchImpl });
    case 'gemini':
      return new GeminiProvider({ entry, model, apiKey, baseUrl, fetchImpl: deps.fetchImpl });
    case 'ollama':
      return new OllamaProvider({ entry, model, apiKey, baseUrl, fetchImpl: deps.fetchImpl });
  }
}
