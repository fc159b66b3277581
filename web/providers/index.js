/** @import { Provider, ProviderConfig, WireModule } from './types.d.ts' */
import { z } from 'zod';
import { CATALOG, WIRES, catalogEntry } from './catalog.js';
import { ProviderError } from './errors.js';

export { CATALOG, catalogEntry, ProviderError };
export { parseSSE, SSEParser } from '../net/sse.js';

/**
 * Every wire's module, through its lazy factory: loaded with this module (which the app imports
 * with the first turn, not at start-up), so createProvider answers at once.
 * @type {Map<string, WireModule>}
 */
const WIRE_MODULES = new Map(await Promise.all(WIRES.map(async (w) => /** @type {const} */ ([w.id, await w.load()]))));

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
 * @param {{fetchImpl?: typeof fetch, echoDelayMs?: number, forModels?: boolean}} [deps] forModels: the provider is made to
 *   list or download models, which needs no model chosen (a chat does: without one it is refused)
 * @returns {Provider}
 */
export function createProvider(config, deps = {}) {
  const parsed = ProviderConfigSchema.safeParse(config);
  if (!parsed.success) {
    throw new ProviderError('client', `Invalid provider settings: ${parsed.error.issues.map((i) => i.message).join('; ')}`, {
      retryable: false,
    });
  }
  const { provider, apiKey, baseUrl } = parsed.data;
  const entry = catalogEntry(provider);
  if (!entry)
    throw new ProviderError('client', `Unknown provider "${provider}". Choose one of: ${CATALOG.map((e) => e.id).join(', ')}.`, {
      retryable: false,
    });
  const model = parsed.data.model || entry.defaultModel;
  const caps = entry.capabilities;
  if (caps.key === 'required' && !apiKey) {
    throw new ProviderError(
      'auth',
      `${entry.label} needs an API key. Add it in Settings${entry.keyUrl ? ` (get one at ${entry.keyUrl})` : ''}.`,
      { retryable: false },
    );
  }
  if (caps.needsModel && !model && !deps.forModels) {
    throw new ProviderError('client', `Choose a model for ${entry.label} in Settings.`, { retryable: false });
  }
  if (caps.baseUrl === 'required' && !baseUrl) {
    const example = entry.baseUrlExample ? ` (for example ${entry.baseUrlExample})` : '';
    throw new ProviderError('client', `Enter the base URL of your ${entry.label} server in Settings${example}.`, { retryable: false });
  }
  const wire = /** @type {WireModule} */ (WIRE_MODULES.get(entry.wire));
  return wire.create({ entry, model, apiKey, baseUrl, fetchImpl: deps.fetchImpl, echoDelayMs: deps.echoDelayMs });
}
