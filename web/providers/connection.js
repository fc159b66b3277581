/** @import { ProviderConfig, CatalogEntry } from './types.d.ts' */
import { catalogEntry, loadWire } from './catalog.js';
import { ProviderError } from './errors.js';
import { isLocalAddress, offlineExplains, offlineMessage } from '../net/offline.js';
import { createProvider } from './index.js';

/** @typedef {{ok: true, message: string, models?: string[]} | {ok: false, code: string, message: string}} ConnectionReport */

/**
 * Sends a one-token request and reports success or a precise reason: bad key, CORS blocked
 * (with the fix for the host), unreachable, wrong model.
 * @param {ProviderConfig} config
 * @param {{fetchImpl?: typeof fetch, origin?: string, signal?: AbortSignal}} [deps]
 * @returns {Promise<ConnectionReport>}
 */
export async function testConnection(config, deps = {}) {
  const entry = catalogEntry(config.provider);
  if (!entry) return { ok: false, code: 'client', message: `Unknown provider "${config.provider}".` };
  // A provider that says whether it can run here is tested by asking that, without a call.
  const { availability } = entry.capabilities.availability ? await loadWire(entry.wire) : {};
  if (availability) {
    const a = await availability();
    const message = `${entry.label}: ${a.text}`;
    return a.usable ? { ok: true, message } : { ok: false, code: 'client', message };
  }
  let provider;
  try {
    provider = createProvider(config, { fetchImpl: deps.fetchImpl, echoDelayMs: 0 });
  } catch (err) {
    const e = /** @type {ProviderError} */ (err);
    return { ok: false, code: e.code ?? 'client', message: e.message };
  }
  try {
    const result = await provider.chat(
      { messages: [{ role: 'user', content: 'Reply with the single word: ok' }], maxTokens: 8 },
      { signal: deps.signal },
    );
    /** @type {string[] | undefined} */
    let models;
    if ('listModels' in provider && typeof provider.listModels === 'function') {
      models = await provider.listModels({ signal: deps.signal }).catch(() => undefined);
    }
    return { ok: true, message: `Connected to ${entry.label}: model "${result.model}" answered.`, models };
  } catch (err) {
    const e = err instanceof ProviderError ? err : new ProviderError('unknown', String(/** @type {Error} */ (err)?.message ?? err));
    if (e.code === 'network') return diagnoseNetworkFailure(entry, config, deps);
    return { ok: false, code: e.code, message: e.message };
  }
}

/**
 * A browser reports "blocked by CORS" and "nothing listening" as the same TypeError. A
 * `no-cors` request tells them apart: it succeeds (opaque) when a server answered.
 * @param {CatalogEntry} entry
 * @param {ProviderConfig} config
 * @param {{fetchImpl?: typeof fetch, origin?: string, online?: boolean}} deps online: default navigator.onLine
 * @returns {Promise<ConnectionReport>}
 */
export async function diagnoseNetworkFailure(entry, config, deps) {
  const base = (config.baseUrl || entry.baseUrl || '').replace(/\/+$/, '');
  const doFetch = deps.fetchImpl ?? globalThis.fetch.bind(globalThis);
  const origin = deps.origin ?? globalThis.location?.origin ?? 'this page';
  let reachable = false;
  try {
    await doFetch(base || 'about:blank', { mode: 'no-cors', cache: 'no-store' });
    reachable = true;
  } catch {
    reachable = false;
  }
  if (reachable) {
    const help = entry.corsHelp
      ? entry.corsHelp.replaceAll('{origin}', origin)
      : `${entry.label} answered but does not allow requests from a web page (CORS). Use a provider that allows browser access, or put ` +
        `a CORS proxy in front of it and set its URL as the base URL.`;
    // Some hosts (OpenAI) answer a wrong key with a response that lacks CORS headers.
    const keyHint = entry.corsMayMeanBadKey
      ? ` If you use ${entry.label} directly, this can also mean the API key is wrong: check it.`
      : '';
    return { ok: false, code: 'cors', message: help + keyHint };
  }
  if (!entry.local && offlineExplains(base, deps.online))
    return { ok: false, code: 'network', message: offlineMessage(`${entry.label} at ${base}`) };
  const hint = entry.local
    ? ` Is ${entry.label.replace(' (local)', '')} running? Start it and retry.`
    : isLocalAddress(base)
      ? ` Is the server at ${base} running? Start it and retry.`
      : ' Check your internet connection and the base URL.';
  return { ok: false, code: 'network', message: `Could not reach ${entry.label} at ${base}.${hint}` };
}
