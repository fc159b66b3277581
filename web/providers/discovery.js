import { tabChromeAIAvailability } from './chrome-ai.js';

/** @typedef {import('./chrome-ai.js').ChromeAIAvailability} ChromeAIAvailability */
/** @typedef {{chromeAI: ChromeAIAvailability, ollama: {found: boolean, models: string[]}, lmstudio: {found: boolean, models: string[]}}} NoKeyOptions */

export const LOCAL_SERVERS = {
  ollama: 'http://localhost:11434',
  lmstudio: 'http://localhost:1234',
};

/**
 * Finds the options this machine has that need no API key: Chrome built-in AI and a local
 * Ollama or LM Studio server. Each probe is bounded by a short timeout.
 * @param {{fetchImpl?: typeof fetch, timeoutMs?: number, servers?: {ollama: string, lmstudio: string}}} [deps]
 * @returns {Promise<NoKeyOptions>}
 */
export async function discoverNoKeyOptions(deps = {}) {
  const doFetch = deps.fetchImpl ?? globalThis.fetch.bind(globalThis);
  const servers = deps.servers ?? LOCAL_SERVERS;
  const timeoutMs = deps.timeoutMs ?? 1500;
  /** @param {string} url @param {(json: any) => string[]} pick server JSON, read defensively */
  const probe = async (url, pick) => {
    try {
      const res = await doFetch(url, { signal: AbortSignal.timeout(timeoutMs), cache: 'no-store' });
      if (!res.ok) return { found: false, models: [] };
      const json = await res.json().catch(() => ({}));
      return { found: true, models: pick(json).filter((m) => typeof m === 'string') };
    } catch {
      return { found: false, models: [] };
    }
  };
  const [chromeAI, ollama, lmstudio] = await Promise.all([
    tabChromeAIAvailability(),
    probe(`${servers.ollama}/api/tags`, (j) => (Array.isArray(j.models) ? j.models.map((/** @type {{name?: string}} */ m) => m.name) : [])),
    probe(`${servers.lmstudio}/v1/models`, (j) => (Array.isArray(j.data) ? j.data.map((/** @type {{id?: string}} */ m) => m.id) : [])),
  ]);
  return { chromeAI, ollama, lmstudio };
}
