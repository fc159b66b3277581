/** @import { ChatRequest, StopReason } from './types.d.ts' */

/**
 * The response cache: an identical request (same provider, model, system prompt, messages,
 * tools and temperature) within 30 minutes gets the earlier answer again, at no cost. Kept in
 * memory only (a page's, per workspace). Only complete text answers are kept: never replies
 * with tool calls (they act), errors, or streams that were cut or stopped.
 */

/** @typedef {{text: string, thinking: string, stopReason: StopReason, model: string, provider: string, at: number}} CachedReply */
/**
 * When the cache is used: only for requests at temperature 0 (the default), for every request, or never.
 * @typedef {'deterministic' | 'always' | 'off'} CachePolicy
 */

export const CACHE_MAX_ENTRIES = 500;
export const CACHE_TTL_MS = 30 * 60_000;

/** A least-recently-used map with a time to live. */
export class ResponseCache {
  /** @type {Map<string, CachedReply>} insertion order is recency order */
  #entries = new Map();

  /** @param {{max?: number, ttlMs?: number, now?: () => number}} [options] */
  constructor({ max = CACHE_MAX_ENTRIES, ttlMs = CACHE_TTL_MS, now = Date.now } = {}) {
    this.max = max;
    this.ttlMs = ttlMs;
    this.now = now;
  }

  get size() {
    return this.#entries.size;
  }

  /** @param {string} key @returns {CachedReply | undefined} */
  get(key) {
    const e = this.#entries.get(key);
    if (!e) return undefined;
    this.#entries.delete(key);
    if (this.now() - e.at > this.ttlMs) return undefined;
    this.#entries.set(key, e);
    return e;
  }

  /** @param {string} key @param {Omit<CachedReply, 'at'>} reply */
  set(key, reply) {
    this.#entries.delete(key);
    this.#entries.set(key, { ...reply, at: this.now() });
    while (this.#entries.size > this.max) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
  }

  clear() {
    this.#entries.clear();
  }
}

/** Whether a request may be answered from the cache under `policy`. @param {ChatRequest} request @param {CachePolicy} policy */
export function cacheable(request, policy) {
  if (policy === 'off') return false;
  if (policy === 'always') return true;
  return request.temperature === 0;
}

/**
 * The cache key: SHA-256 of the normalized request. Tool-call ids are left out (they are random
 * per call, the calls themselves are not); images count by their content.
 * @param {string} provider @param {string} model @param {ChatRequest} request @param {string} [baseUrl] the server (two servers may serve
 *   one model id)
 */
export async function cacheKey(provider, model, request, baseUrl = '') {
  const normalized = {
    provider,
    baseUrl,
    model,
    system: request.system ?? '',
    messages: request.messages.map((m) => [
      m.role,
      m.content,
      (m.toolCalls ?? []).map((c) => [c.name, c.arguments]),
      (m.images ?? []).map((i) => i.dataUrl),
    ]),
    tools: (request.tools ?? []).map((t) => [t.name, t.description, t.parameters]),
    temperature: request.temperature ?? null,
    maxTokens: request.maxTokens ?? null,
  };
  const bytes = new TextEncoder().encode(JSON.stringify(normalized));
  const digest = await crypto.subtle.digest('SHA-256', bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}
