/** @import { Provider, ChatRequest, CallOptions, StreamPart, ProviderErrorShape, ProviderAttempt, ProviderStatus } from './types.d.ts' */
import { ProviderError } from './errors.js';
import { collectStream } from './http.js';
import { cacheKey, cacheable } from './cache.js';

/**
 * The reliability layer every provider call goes through: retries with exponential backoff and
 * jitter (honouring Retry-After), a fallback chain tried on retryable errors only, a circuit
 * breaker that skips a failing provider for a cool-down, and stream time-outs by state
 * (connecting, first byte, gap between chunks). Output the user has seen is never repeated:
 * a stream that fails after output ends with its error (the partial text kept), it does not
 * silently restart. Pure logic over an injected clock, so tests control time.
 *
 * Its stream is the reply's parts only; how the call went — each try (`attempt`), a wait before
 * retrying (`retry`), a move to the next provider (`fallback`), an answer from the response cache
 * (`cache_hit`), a provider's own progress — goes to `options.onStatus` as it happens.
 */

/**
 * @typedef {object} Clock
 * @property {() => number} now
 * @property {(fn: () => void, ms: number) => () => void} setTimer returns a cancel function
 * @property {(ms: number, signal?: AbortSignal) => Promise<void>} sleep resolves early (without throwing) when signal aborts
 * @property {() => number} random in [0, 1)
 */

/** @type {Clock} */
export const systemClock = {
  now: () => Date.now(),
  setTimer: (fn, ms) => {
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  },
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        signal?.removeEventListener('abort', done);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    }),
  random: () => Math.random(),
};

/** Stream time-outs by state, in ms (Claw'd's defaults). @type {Readonly<{connectMs: number, firstByteMs: number, gapMs: number}>} */
export const DEFAULT_TIMEOUTS = Object.freeze({ connectMs: 30_000, firstByteMs: 300_000, gapMs: 180_000 });
/**
 * Retries per provider after the first try; backoff base and cap; the longest Retry-After honoured before moving on.
 * @type {Readonly<{retries: number, baseDelayMs: number, maxDelayMs: number, maxRetryAfterMs: number}>}
 */
export const DEFAULT_RETRY = Object.freeze({ retries: 2, baseDelayMs: 1_000, maxDelayMs: 20_000, maxRetryAfterMs: 60_000 });

/**
 * Exponential backoff with "equal jitter": half the step fixed, half random, so tabs and jobs
 * that failed together do not retry together.
 * @param {number} attempt 0 for the first retry
 * @param {{baseDelayMs: number, maxDelayMs: number}} retry
 * @param {number} random in [0, 1)
 */
export function backoffDelay(attempt, retry, random) {
  const step = Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** attempt);
  return Math.round(step / 2 + (step / 2) * random);
}

/** Auth, client and CORS errors are the user's to fix; retrying or falling back hides them. @param {ProviderErrorShape} e */
export function isRetryable(e) {
  return e.retryable && (e.code === 'rate_limit' || e.code === 'server' || e.code === 'network');
}

/**
 * Skips a provider after `threshold` consecutive failed requests (each after its retries), for
 * `cooldownMs`; then lets one try through (half-open): success closes it, failure opens it again.
 */
export class CircuitBreaker {
  /** @type {Map<string, {failures: number, openUntil: number, trial: boolean}>} */
  #states = new Map();

  /** @param {{threshold?: number, cooldownMs?: number, now?: () => number}} [options] */
  constructor({ threshold = 3, cooldownMs = 60_000, now = Date.now } = {}) {
    this.threshold = threshold;
    this.cooldownMs = cooldownMs;
    this.now = now;
  }

  /** Whether a call may go to `key` now; in the half-open state only one does. @param {string} key */
  allow(key) {
    const s = this.#states.get(key);
    if (!s || s.failures < this.threshold) return true;
    if (this.now() < s.openUntil || s.trial) return false;
    s.trial = true;
    return true;
  }

  /** @param {string} key */
  success(key) {
    this.#states.delete(key);
  }

  /**
   * A try ended without telling whether the provider works (Stop, a refused request): a half-open trial may be made again.
   * @param {string} key
   */
  release(key) {
    const s = this.#states.get(key);
    if (s) s.trial = false;
  }

  /** @param {string} key */
  failure(key) {
    const s = this.#states.get(key) ?? { failures: 0, openUntil: 0, trial: false };
    s.failures++;
    s.trial = false;
    if (s.failures >= this.threshold) s.openUntil = this.now() + this.cooldownMs;
    this.#states.set(key, s);
  }

  /** The providers skipped now (open), with when they are tried again. @returns {{key: string, failures: number, retryAt: number}[]} */
  openKeys() {
    const now = this.now();
    return [...this.#states]
      .filter(([, s]) => s.failures >= this.threshold && now < s.openUntil)
      .map(([key, s]) => ({ key, failures: s.failures, retryAt: s.openUntil }));
  }

  /**
   * @param {string} key
   * @returns {{state: 'closed' | 'open' | 'half-open', failures: number, retryAt?: number}}
   */
  state(key) {
    const s = this.#states.get(key);
    if (!s || s.failures < this.threshold) return { state: 'closed', failures: s?.failures ?? 0 };
    return this.now() < s.openUntil
      ? { state: 'open', failures: s.failures, retryAt: s.openUntil }
      : { state: 'half-open', failures: s.failures };
  }
}

/** @param {Provider} p */
export const breakerKey = (p) => `${p.id}/${p.model}`;

/** @param {ChatRequest} request */
const hasImages = (request) => request.messages.some((m) => m.images?.length);

/**
 * A provider made of a chain: the first entry is the workspace's provider, the rest its
 * fallbacks. `model` and `id` are those of the entry that answered last.
 * @implements {Provider}
 */
export class ReliableProvider {
  /** @type {Provider} */
  #current;

  /**
   * @param {{chain: Provider[], breaker?: CircuitBreaker, clock?: Clock, retry?: Partial<typeof DEFAULT_RETRY>, timeouts?: Partial<typeof
   *   DEFAULT_TIMEOUTS>, labels?: Map<Provider, string>, secrets?: string[],
   *   cache?: import('./cache.js').ResponseCache, cachePolicy?: import('./cache.js').CachePolicy}} options
   *   labels: how to name each provider in status lines (default: its id)
   *   secrets: the keys of the whole chain, for redaction wherever the primary's key is redacted
   *   cache: identical requests answered again from memory (per `cachePolicy`, default: only at temperature 0)
   */
  constructor({
    chain,
    breaker,
    clock = systemClock,
    retry = {},
    timeouts = {},
    labels,
    secrets = [],
    cache,
    cachePolicy = 'deterministic',
  }) {
    if (!chain.length) throw new ProviderError('client', 'No provider configured.', { retryable: false });
    this.chain = chain;
    this.clock = clock;
    this.breaker = breaker ?? new CircuitBreaker({ now: clock.now });
    this.retry = { ...DEFAULT_RETRY, ...retry };
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...timeouts };
    this.labels = labels ?? new Map();
    this.secrets = secrets;
    this.cache = cache ?? null;
    this.cachePolicy = cachePolicy;
    this.#current = chain[0];
  }

  get id() {
    return this.#current.id;
  }

  get model() {
    return this.#current.model;
  }

  /** The primary's context, where it sets one (a request is shaped for the primary). @returns {Promise<number | null>} */
  async contextWindow() {
    return (await this.chain[0].contextWindow?.()) ?? null;
  }

  /** The request is shaped for the primary (native tools or the Codex): fallbacks must match it. */
  get supportsNativeTools() {
    return this.chain[0].supportsNativeTools;
  }

  get supportsVision() {
    return !!this.chain[0].supportsVision;
  }

  /** @param {Provider} p */
  #label(p) {
    return this.labels.get(p) ?? p.id;
  }

  /** @param {ChatRequest} request @param {CallOptions} [options] */
  chat(request, options) {
    return collectStream(this.chatStream(request, options), this.model);
  }

  /**
   * @param {ChatRequest} request @param {CallOptions} [options]
   * @returns {AsyncGenerator<StreamPart>}
   */
  async *chatStream(request, options = {}) {
    const cache = this.cache && cacheable(request, this.cachePolicy) ? this.cache : null;
    if (!cache) {
      yield* this.#chain(request, options);
      return;
    }
    const primary = this.chain[0];
    const key = await cacheKey(primary.id, primary.model, request, String(/** @type {{baseUrl?: string}} */ (primary).baseUrl ?? ''));
    const hit = options.fresh ? undefined : cache.get(key);
    if (hit) {
      options.onStatus?.({ type: 'cache_hit', provider: hit.provider, model: hit.model, ageMs: this.clock.now() - hit.at });
      if (hit.thinking) yield { type: 'reasoning', text: hit.thinking };
      yield { type: 'text', text: hit.text };
      yield { type: 'finish', stopReason: hit.stopReason, usage: { inputTokens: 0, outputTokens: 0 } };
      return;
    }
    let text = '';
    let thinking = '';
    /** @type {import('./types.d.ts').StopReason | null} */
    let stopReason = null;
    let keep = true;
    for await (const ev of this.#chain(request, options)) {
      if (ev.type === 'text') text += ev.text;
      else if (ev.type === 'reasoning') thinking += ev.text;
      else if (ev.type === 'tool_call' || ev.type === 'error') keep = false;
      else if (ev.type === 'finish') stopReason = ev.stopReason;
      yield ev;
    }
    // Only a whole text answer: no tool calls (they act), no error, not cut by a limit or Stop.
    if (keep && text && (stopReason === 'end_turn' || stopReason === 'stop_sequence') && !options.signal?.aborted) {
      cache.set(key, { text, thinking, stopReason, model: this.model, provider: this.id });
    }
  }

  /**
   * The chain with retries, fallbacks and time-outs.
   * @param {ChatRequest} request @param {CallOptions} options
   * @returns {AsyncGenerator<StreamPart>}
   */
  async *#chain(request, options) {
    const signal = options.signal;
    const status = (/** @type {ProviderStatus} */ s) => options.onStatus?.(s);
    /** A setting left unapplied is said once per request, not once per try. @type {Set<string>} */
    const warned = new Set();
    /** @type {ProviderErrorShape | null} */
    let lastError = null;
    let triedAny = false;
    /** @param {Provider} provider */
    const unfitFor = (provider) =>
      provider.supportsNativeTools !== this.supportsNativeTools
        ? 'it takes tools differently'
        : hasImages(request) && !provider.supportsVision
          ? 'it does not accept images'
          : '';
    // The breaker only steers the request to another provider: with none left, the user's request still goes out.
    const useBreaker = this.chain.some((p) => !unfitFor(p) && this.breaker.state(breakerKey(p)).state !== 'open');
    for (let index = 0; index < this.chain.length; index++) {
      const provider = this.chain[index];
      const key = breakerKey(provider);
      const unfit = unfitFor(provider);
      if (unfit || (useBreaker && !this.breaker.allow(key))) {
        const st = this.breaker.state(key);
        const message = unfit
          ? `Skipped: ${unfit}.`
          : `Skipped for ${Math.ceil(((st.retryAt ?? this.clock.now()) - this.clock.now()) / 1000)} s after ${st.failures} failures in ` +
            `a row.`;
        status(attemptStatus(provider, { outcome: 'skipped', attempt: 0, latencyMs: 0, message }));
        continue;
      }
      if (triedAny) {
        const why = lastError ? `${lastError.code === 'rate_limit' ? 'Rate-limited' : 'Failed'}; ` : '';
        const text = `${why}trying ${this.#label(provider)} (${provider.model})…`;
        status({ type: 'fallback', provider: provider.id, model: provider.model, text });
      }
      triedAny = true;
      for (let attempt = 0; attempt <= this.retry.retries; attempt++) {
        this.#current = provider;
        const started = this.clock.now();
        /** @type {{error: ProviderErrorShape | null, output: boolean}} */
        const result = { error: null, output: false };
        for await (const ev of this.#attempt(provider, request, signal, result, options.onStatus)) {
          if (ev.type === 'warning') {
            if (warned.has(ev.setting)) continue;
            warned.add(ev.setting);
          }
          yield ev;
        }
        const latencyMs = this.clock.now() - started;
        const error = /** @type {ProviderErrorShape | null} */ (result.error);
        if (!error) {
          this.breaker.success(key);
          status(attemptStatus(provider, { outcome: 'ok', attempt: attempt + 1, latencyMs }));
          return;
        }
        if (error.code === 'aborted' || signal?.aborted) {
          this.breaker.release(key);
          status(attemptStatus(provider, { outcome: 'aborted', attempt: attempt + 1, latencyMs, code: 'aborted' }));
          yield { type: 'error', error };
          return;
        }
        if (result.output || !isRetryable(error)) {
          // Seen text is never repeated, and auth or client errors are the user's to fix.
          if (result.output && isRetryable(error)) this.breaker.failure(key);
          else this.breaker.release(key);
          const outcome = result.output ? 'cut' : 'failed';
          status(attemptStatus(provider, { outcome, attempt: attempt + 1, latencyMs, code: error.code, message: error.message }));
          yield { type: 'error', error };
          return;
        }
        lastError = error;
        const tooLong = error.retryAfterMs !== undefined && error.retryAfterMs > this.retry.maxRetryAfterMs;
        const again = attempt < this.retry.retries && !tooLong;
        const wait = again ? Math.max(error.retryAfterMs ?? 0, backoffDelay(attempt, this.retry, this.clock.random())) : undefined;
        const tried = { outcome: /** @type {const} */ ('failed'), attempt: attempt + 1, latencyMs, code: error.code };
        status(attemptStatus(provider, { ...tried, message: error.message, ...(wait !== undefined ? { retryInMs: wait } : {}) }));
        if (wait === undefined) {
          // One failure of this provider per request (its tries all failed), toward the breaker.
          this.breaker.failure(key);
          break;
        }
        const what = error.code === 'rate_limit' ? 'rate-limited' : error.code === 'network' ? 'no answer' : 'server error';
        const text = `${this.#label(provider)}: ${what}; retrying in ${Math.max(1, Math.round(wait / 1000))} s…`;
        status({ type: 'retry', provider: provider.id, model: provider.model, inMs: wait, text });
        await this.clock.sleep(wait, signal);
        if (signal?.aborted) {
          this.breaker.release(key);
          yield { type: 'error', error: new ProviderError('aborted', 'Stopped.', { retryable: false }).toJSON() };
          return;
        }
      }
    }
    if (!lastError) {
      yield {
        type: 'error',
        error: new ProviderError(
          'server',
          triedAny
            ? 'The provider failed.'
            : 'Every provider of this workspace is cooling down after repeated failures, ' +
                'or cannot take this request. Wait a minute and retry.',
          { retryable: true },
        ).toJSON(),
      };
      return;
    }
    const several = this.chain.length > 1 ? ` (every provider of the fallback chain failed; the last said this)` : '';
    yield { type: 'error', error: { ...lastError, message: `${lastError.message}${several}` } };
  }

  /**
   * One try of one provider under the stream time-outs. Parts pass through; an error part is
   * kept in `result` instead (the caller decides whether the user sees it). The provider's own
   * status (a download's progress) goes to `onStatus`.
   * @param {Provider} provider @param {ChatRequest} request @param {AbortSignal | undefined} signal
   * @param {{error: ProviderErrorShape | null, output: boolean}} result
   * @param {((status: ProviderStatus) => void) | undefined} onStatus
   * @returns {AsyncGenerator<StreamPart>}
   */
  async *#attempt(provider, request, signal, result, onStatus) {
    const inner = new AbortController();
    const relay = () => inner.abort(signal?.reason);
    if (signal?.aborted) inner.abort(signal.reason);
    signal?.addEventListener('abort', relay, { once: true });
    /** @type {'connect' | 'first byte' | 'gap' | null} */
    let expired = null;
    /** @type {() => void} */
    let cancel = () => {};
    const arm = (/** @type {'connect' | 'first byte' | 'gap'} */ state) => {
      cancel();
      const ms = state === 'connect' ? this.timeouts.connectMs : state === 'first byte' ? this.timeouts.firstByteMs : this.timeouts.gapMs;
      if (!(ms > 0)) return;
      cancel = this.clock.setTimer(() => {
        expired = state;
        inner.abort(new Error(`time-out (${state})`));
      }, ms);
    };
    arm(provider.connects ? 'connect' : 'first byte');
    let connected = !provider.connects;
    try {
      const onConnected = () => {
        if (!connected) {
          connected = true;
          arm('first byte');
        }
      };
      const stream = provider.chatStream(request, { signal: inner.signal, onConnected, onStatus });
      for await (const ev of stream) {
        if (expired) break;
        if (ev.type === 'error') {
          result.error = ev.error;
          break;
        }
        if (ev.type === 'text' || ev.type === 'reasoning' || ev.type === 'tool_call') result.output = true;
        arm('gap');
        yield ev;
      }
    } catch (err) {
      result.error = (
        err instanceof ProviderError ? err : new ProviderError('unknown', String(/** @type {Error} */ (err)?.message ?? err))
      ).toJSON();
    } finally {
      cancel();
      signal?.removeEventListener('abort', relay);
    }
    if (expired && !signal?.aborted) {
      const seconds = Math.round(
        (expired === 'connect' ? this.timeouts.connectMs : expired === 'first byte' ? this.timeouts.firstByteMs : this.timeouts.gapMs) /
          1000,
      );
      const what =
        expired === 'connect'
          ? `did not answer within ${seconds} s`
          : expired === 'first byte'
            ? `accepted the request but sent nothing for ${seconds} s`
            : `stopped sending for ${seconds} s in the middle of the reply${result.output ? ' (the text so far is kept)' : ''}`;
      result.error = new ProviderError(
        'network',
        `${this.#label(provider)} ${what}. Retry, or raise the time-out in Settings if the model is slow.`,
      ).toJSON();
    }
  }
}

/**
 * @param {Provider} provider
 * @param {Omit<ProviderAttempt, 'provider' | 'model'>} info
 * @returns {ProviderStatus}
 */
function attemptStatus(provider, info) {
  return { type: 'attempt', provider: provider.id, model: provider.model, ...info };
}
