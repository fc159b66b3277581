/** @import { ChromeAIAvailability } from './chrome-ai.js' */
/** @import { LocalFinding } from './types.d.ts' */
import { CATALOG, alwaysThere, loadWire } from './catalog.js';

/**
 * Looks for what this machine offers without an API key: every local provider of the registry
 * (catalog.js) — one that runs in the page and says whether it can (its wire's `availability`:
 * Chrome built-in AI), one that runs in the page and lists its models (`discover`: the models
 * imported into this browser), or a server on this machine (its wire's `discover`: Ollama, LM Studio).
 * Each search is bounded by a short time-out; a provider running in the page with nothing to
 * ask (Echo) is always found. The wires' code loads here, on first use.
 * @param {{fetchImpl?: typeof fetch, timeoutMs?: number}} [deps]
 * @returns {Promise<LocalFinding[]>}
 */
export async function discoverLocalProviders(deps = {}) {
  const timeoutMs = deps.timeoutMs ?? 1500;
  return Promise.all(
    CATALOG.filter((e) => e.capabilities.local).map(async (entry) => {
      const caps = entry.capabilities;
      const none = { provider: entry.id, found: false, models: [] };
      // In the page with nothing to ask (Echo): there. One that lists its models (the local
      // models) says which it has.
      if (alwaysThere(entry)) return { provider: entry.id, found: true, models: [] };
      try {
        const wire = await loadWire(entry.wire);
        if (caps.availability && wire.availability) {
          const a = await wire.availability({ perTab: true });
          return { ...none, found: a.usable, state: a.state, text: a.text };
        }
        return wire.discover ? { provider: entry.id, ...(await wire.discover(entry, { fetchImpl: deps.fetchImpl, timeoutMs })) } : none;
      } catch {
        return none;
      }
    }),
  );
}

/**
 * @typedef {{chromeAI: ChromeAIAvailability, ollama: {found: boolean, models: string[]}, lmstudio: {found: boolean, models: string[]}}}
 *   NoKeyOptions
 */

/**
 * The first API's answer (docs/api.md), in its shape: Chrome built-in AI's state and what was
 * found of a local Ollama and LM Studio. The app uses discoverLocalProviders.
 * @deprecated use discoverLocalProviders, which covers every local provider of the registry
 * @param {{fetchImpl?: typeof fetch, timeoutMs?: number}} [deps]
 * @returns {Promise<NoKeyOptions>}
 */
export async function discoverNoKeyOptions(deps = {}) {
  const found = await discoverLocalProviders(deps);
  /** @type {Record<string, {found: boolean, models: string[]}>} */
  const servers = Object.fromEntries(found.map((f) => [f.provider, { found: f.found, models: f.models }]));
  const none = { found: false, models: [] };
  const chromeAI = /** @type {ChromeAIAvailability} */ (found.find((f) => f.state !== undefined)?.state ?? 'unsupported');
  return { chromeAI, ollama: servers.ollama ?? none, lmstudio: servers.lmstudio ?? none };
}
