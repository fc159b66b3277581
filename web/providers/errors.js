/** @import { ProviderErrorCode, ProviderErrorShape } from './types.d.ts' */
import { LeakDetector } from '../safety/leak-detector.js';
import { isLocalAddress, offlineExplains, offlineMessage } from '../net/offline.js';
import { RelayError } from '../net/relay.js';

// The key shapes live in one place (the LeakDetector's rules), shared with the safety pipeline.
const detector = new LeakDetector();

/** A provider failure with a stable `code`, a `retryable` flag and an actionable message. */
export class ProviderError extends Error {
  /**
   * @param {ProviderErrorCode} code
   * @param {string} message
   * @param {{retryable?: boolean, status?: number, cause?: unknown, retryAfterMs?: number}} [options]
   */
  constructor(code, message, options = {}) {
    super(message, { cause: options.cause });
    this.name = 'ProviderError';
    this.code = code;
    this.retryable = options.retryable ?? (code === 'rate_limit' || code === 'server' || code === 'network');
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
  }

  /** @returns {ProviderErrorShape} */
  toJSON() {
    /** @type {ProviderErrorShape} */
    const out = { code: this.code, retryable: this.retryable, message: this.message };
    if (this.status !== undefined) out.status = this.status;
    if (this.retryAfterMs !== undefined) out.retryAfterMs = this.retryAfterMs;
    return out;
  }
}

/**
 * Removes every occurrence of the given secrets (and anything the LeakDetector recognises as a
 * key, token, private key or password-bearing URL) from text that may reach the UI, logs or
 * the event log.
 * @param {string} text
 * @param {(string | undefined)[]} [secrets]
 */
export function redactSecrets(text, secrets = []) {
  let out = String(text);
  for (const s of secrets) {
    if (s && s.length >= 4) out = out.split(s).join('[redacted]');
  }
  return detector.scan(out).redacted;
}

/**
 * Pulls a human-readable message out of a provider's error body (OpenAI, Anthropic, Ollama shapes).
 * @param {string} body
 */
export function errorBodyMessage(body) {
  try {
    const json = JSON.parse(body);
    const m = json?.error?.message ?? json?.message ?? (typeof json?.error === 'string' ? json.error : undefined) ?? json?.detail;
    if (typeof m === 'string' && m) return m;
  } catch {
    // not JSON: use the text itself
  }
  return body.trim().slice(0, 300);
}

/** @param {string} url */
const originOf = (url) => {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
};

/**
 * A Retry-After header's wait in ms: delay-seconds or an HTTP date; undefined when absent or unreadable.
 * @param {string | null | undefined} value
 * @param {number} [now]
 */
export function parseRetryAfter(value, now = Date.now()) {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+(?:\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * Maps an HTTP failure to a ProviderError.
 * @param {{status: number, body: string, label: string, model: string, url?: string, retryAfter?: string | null, secrets?: (string
 *   | undefined)[]}} info
 *   url: the request's address (a 404 from an address without a version segment suggests "/v1")
 */
export function httpError({ status, body, label, model, url, retryAfter, secrets }) {
  const detail = redactSecrets(errorBodyMessage(body), secrets);
  const suffix = detail ? ` (${label} said: ${detail})` : '';
  const retryAfterMs = parseRetryAfter(retryAfter);
  if (status === 401 || status === 403) {
    return new ProviderError('auth', `${label} rejected the API key. Check the key in Settings${suffix}.`, { status });
  }
  if (status === 429) {
    const wait = retryAfterMs !== undefined ? ` Try again in ${Math.ceil(retryAfterMs / 1000)} s.` : ' Wait a moment and retry.';
    return new ProviderError('rate_limit', `${label} is rate-limiting requests or the account is out of credit.${wait}${suffix}`, {
      status,
      retryAfterMs,
    });
  }
  if (status >= 500) {
    return new ProviderError('server', `${label} had a server error (HTTP ${status}). This is usually temporary; retry shortly${suffix}.`, {
      status,
      retryAfterMs,
    });
  }
  if (status === 408) {
    return new ProviderError('network', `${label} timed out waiting for the request (HTTP 408). Retry${suffix}.`, { status });
  }
  if (status === 404 && /model/i.test(detail)) {
    return new ProviderError('client', `The model "${model}" was not found at ${label}. Pick another model in Settings${suffix}.`, {
      status,
      retryable: false,
    });
  }
  if (status === 404) {
    // Most OpenAI-compatible servers (Ollama, LM Studio, llama.cpp, vLLM) serve under /v1; a base URL typed without it answers 404.
    const missingVersion =
      url && !/\/v\d+(?:beta\d*|alpha\d*)?(?:\/|$)/.test(new URL(url, 'http://x').pathname)
        ? ` The base URL may be missing "/v1": try ${originOf(url)}/v1.`
        : '';
    return new ProviderError(
      'client',
      `${label} answered "not found" (HTTP 404): check the base URL in Settings${suffix}.${missingVersion}`,
      { status, retryable: false },
    );
  }
  if (/model/i.test(detail) && /(not exist|not found|unknown|invalid|does not have access|no such)/i.test(detail)) {
    return new ProviderError('client', `The model "${model}" is not available at ${label}. Pick another model in Settings${suffix}.`, {
      status,
      retryable: false,
    });
  }
  return new ProviderError('client', `${label} refused the request (HTTP ${status})${suffix}.`, { status, retryable: false });
}

/**
 * Classifies a thrown fetch/stream error.
 * @param {unknown} err
 * @param {{label: string, url: string, signal?: AbortSignal, online?: boolean}} info online: default navigator.onLine
 * @returns {ProviderError}
 */
export function fetchError(err, { label, url, signal, online }) {
  if (err instanceof ProviderError) return err;
  if (signal?.aborted || /** @type {Error} */ (err)?.name === 'AbortError') {
    return new ProviderError('aborted', 'Stopped.', { retryable: false, cause: err });
  }
  // Through a machine's relay: its words say which machine and why (not this page's reach).
  if (err instanceof RelayError) return new ProviderError('network', err.message, { cause: err });
  const host = originOf(url);
  if (isLocalAddress(url)) {
    return new ProviderError(
      'network',
      `Nothing answered at ${host}. Is the ${label.replace(/ \(local\)$/, '')} server running? Start it and retry.`,
      { cause: err },
    );
  }
  if (offlineExplains(url, online)) return new ProviderError('network', offlineMessage(`${label} at ${host}`), { cause: err });
  return new ProviderError(
    'network',
    `Could not reach ${label} at ${host}. Check your connection and the base URL; if the server is running, it may be refusing requests ` +
      `from this page (CORS) — use "Test connection" in Settings for a precise diagnosis.`,
    { cause: err },
  );
}

/** The error for a stream that ended before its format's end marker. */
export function droppedError(/** @type {string} */ label) {
  return new ProviderError('network', `The connection to ${label} dropped in the middle of the reply. Retry to get a complete answer.`);
}
