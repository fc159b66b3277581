// The reliability layer with an injected clock: retries (backoff, jitter, Retry-After), the
// fallback chain (never on auth or client errors), the circuit breaker, stream time-outs by
// state, and the rule that text the user saw is never repeated.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReliableProvider, CircuitBreaker, backoffDelay, DEFAULT_RETRY } from '../../web/providers/reliability.js';
import { parseRetryAfter, httpError } from '../../web/providers/errors.js';
import { withStatus } from '../../web/providers/status.js';

function fakeClock() {
  let t = 1_000_000;
  /** @type {{at: number, fn: () => void, on: boolean}[]} */
  const timers = [];
  /** @type {number[]} */
  const sleeps = [];
  const clock = {
    now: () => t,
    random: () => 0.5,
    /** @param {() => void} fn @param {number} ms */
    setTimer(fn, ms) {
      const timer = { at: t + ms, fn, on: true };
      timers.push(timer);
      return () => {
        timer.on = false;
      };
    },
    /** @param {number} ms @param {AbortSignal} [signal] */
    async sleep(ms, signal) {
      sleeps.push(ms);
      if (!signal?.aborted) clock.advance(ms);
    },
    /** Time passes: due timers fire. @param {number} ms */
    advance(ms) {
      t += ms;
      for (const x of timers.filter((x) => x.on && x.at <= t)) {
        x.on = false;
        x.fn();
      }
    },
    sleeps,
  };
  return clock;
}

/**
 * @typedef {{text?: string[], error?: {code: string, retryable: boolean, message: string, retryAfterMs?: number}, connectStall?: number,
 *   firstByteStall?: number, gapStall?: number, toolCall?: boolean}} Step
 */

/**
 * A provider playing one scripted step per call; stalls make the clock move while it waits.
 * @param {string} id @param {Step[]} script @param {ReturnType<typeof fakeClock>} clock
 * @param {{nativeTools?: boolean, vision?: boolean}} [caps]
 */
function scripted(id, script, clock, caps = {}) {
  /** @type {any} */
  const aborted = { type: 'error', error: { code: 'aborted', retryable: false, message: 'Stopped.' } };
  return {
    id,
    model: `${id}-model`,
    supportsNativeTools: caps.nativeTools ?? true,
    supportsVision: caps.vision ?? true,
    connects: true,
    calls: 0,
    chat() {
      throw new Error('not used');
    },
    /**
     * @param {any} _request @param {{signal?: AbortSignal, onConnected?: () => void}} options
     * @returns {AsyncGenerator<any>} any: plain scripted events, checked by the tests that read them
     */
    async *chatStream(_request, { signal, onConnected } = {}) {
      this.calls++;
      const s = script.shift() ?? { text: ['ok'] };
      if (s.connectStall) clock.advance(s.connectStall);
      if (signal?.aborted) {
        yield aborted;
        return;
      }
      onConnected?.();
      if (s.firstByteStall) clock.advance(s.firstByteStall);
      if (signal?.aborted) {
        yield aborted;
        return;
      }
      for (const text of s.text ?? []) yield { type: 'text', text };
      if (s.gapStall) clock.advance(s.gapStall);
      if (signal?.aborted) {
        yield aborted;
        return;
      }
      if (s.error) {
        yield { type: 'error', error: s.error };
        return;
      }
      if (s.toolCall) yield { type: 'tool_call', id: 'c1', name: 'fs_list', arguments: {} };
      yield { type: 'finish', stopReason: 'end_turn', usage: { inputTokens: 1, outputTokens: 1 } };
    },
  };
}

const server = (/** @type {string} */ m = 'HTTP 503') => ({ code: 'server', retryable: true, message: m });
const limited = (/** @type {number} */ retryAfterMs) => ({ code: 'rate_limit', retryable: true, message: 'slow down', retryAfterMs });
const request = { messages: [{ role: /** @type {const} */ ('user'), content: 'hi' }] };

/** @param {AsyncIterable<any>} it */
async function all(it) {
  const out = [];
  for await (const x of it) out.push(x);
  return out;
}
/**
 * A call's parts and its status (attempts, retries, fallbacks, cache hits), in the order they happened.
 * @param {{chatStream: (r: any, o?: any) => AsyncIterable<any>}} p @param {any} req @param {any} [options]
 */
async function run(p, req, options = {}) {
  return (await all(withStatus((onStatus) => p.chatStream(req, { ...options, onStatus })))).map((x) => ('part' in x ? x.part : x.status));
}
/** @param {any[]} events */
const textOf = (events) =>
  events
    .filter((e) => e.type === 'text')
    .map((e) => e.text)
    .join('');
/** @param {any[]} events */
const attempts = (events) =>
  events.filter((e) => e.type === 'attempt').map((e) => `${e.provider}:${e.outcome}${e.retryInMs !== undefined ? `+${e.retryInMs}` : ''}`);

test('backoff doubles up to its cap with equal jitter; Retry-After reads seconds and HTTP dates', () => {
  const r = { baseDelayMs: 1000, maxDelayMs: 8000 };
  assert.deepEqual(
    [0, 1, 2, 3, 4].map((a) => backoffDelay(a, r, 0)),
    [500, 1000, 2000, 4000, 4000],
  );
  assert.deepEqual(
    [0, 1, 2, 3, 4].map((a) => backoffDelay(a, r, 0.999999)),
    [1000, 2000, 4000, 8000, 8000],
  );
  assert.equal(parseRetryAfter('7'), 7000);
  assert.equal(parseRetryAfter('1.5'), 1500);
  const now = Date.parse('2026-11-26T10:00:00Z');
  assert.equal(parseRetryAfter('Thu, 26 Nov 2026 10:00:30 GMT', now), 30_000);
  assert.equal(parseRetryAfter('soon'), undefined);
  assert.equal(parseRetryAfter(null), undefined);
  const e = httpError({ status: 429, body: '{}', label: 'X', model: 'm', retryAfter: '12' });
  assert.deepEqual([e.code, e.retryAfterMs], ['rate_limit', 12_000]);
  assert.match(e.message, /Try again in 12 s/);
});

test('retryable failures before any output are retried with backoff, then the reply comes once', async () => {
  const clock = fakeClock();
  const p = scripted('a', [{ error: server() }, { error: server() }, { text: ['Hello'] }], clock);
  const events = await run(new ReliableProvider({ chain: [p], clock }), request);
  assert.equal(textOf(events), 'Hello');
  assert.deepEqual(clock.sleeps, [750, 1500]);
  assert.deepEqual(attempts(events), ['a:failed+750', 'a:failed+1500', 'a:ok']);
  assert.ok(events.some((e) => e.type === 'retry' && /retrying in 1 s/.test(e.text)));
  assert.equal(events.filter((e) => e.type === 'finish').length, 1);
  assert.equal(
    events.some((e) => e.type === 'error'),
    false,
  );
});

test('Retry-After is honoured; one longer than the cap moves on to the fallback at once', async () => {
  const clock = fakeClock();
  const a = scripted('a', [{ error: limited(5000) }, { text: ['fine'] }], clock);
  const events = await run(new ReliableProvider({ chain: [a], clock }), request);
  assert.deepEqual(clock.sleeps, [5000], 'the server’s wait, longer than the backoff');
  assert.equal(textOf(events), 'fine');
  const clock2 = fakeClock();
  const slow = scripted('slow', [{ error: limited(DEFAULT_RETRY.maxRetryAfterMs + 1) }], clock2);
  const other = scripted('other', [{ text: ['from the fallback'] }], clock2);
  const r = new ReliableProvider({ chain: [slow, other], clock: clock2 });
  const ev2 = await run(r, request);
  assert.deepEqual(clock2.sleeps, []);
  assert.deepEqual([slow.calls, other.calls], [1, 1]);
  assert.equal(textOf(ev2), 'from the fallback');
  assert.equal(r.model, 'other-model', 'the reply is labelled with the model that wrote it');
});

test('auth and client errors are never retried nor sent to the fallback (control: a server error is)', async () => {
  for (const code of ['auth', 'client', 'cors']) {
    const clock = fakeClock();
    const a = scripted('a', [{ error: { code, retryable: false, message: `${code} problem` } }], clock);
    const b = scripted('b', [], clock);
    const events = await run(new ReliableProvider({ chain: [a, b], clock }), request);
    assert.deepEqual([a.calls, b.calls], [1, 0], code);
    assert.equal(events.at(-1).error.code, code);
    assert.equal(events.at(-1).error.message, `${code} problem`, 'the provider’s own message, unchanged');
  }
  const clock = fakeClock();
  const a = scripted('a', [{ error: server() }, { error: server() }, { error: server() }], clock);
  const b = scripted('b', [{ text: ['saved'] }], clock);
  const events = await run(new ReliableProvider({ chain: [a, b], clock }), request);
  assert.deepEqual([a.calls, b.calls], [3, 1]);
  assert.equal(textOf(events), 'saved');
  assert.deepEqual(attempts(events), ['a:failed+750', 'a:failed+1500', 'a:failed', 'b:ok']);
  assert.ok(events.some((e) => e.type === 'fallback' && /trying b \(b-model\)/.test(e.text)));
});

test('a stream that fails after output is not restarted: the error ends it and the seen text is not repeated', async () => {
  const clock = fakeClock();
  const a = scripted('a', [{ text: ['Half ', 'an'], error: { code: 'network', retryable: true, message: 'dropped' } }], clock);
  const b = scripted('b', [], clock);
  const events = await run(new ReliableProvider({ chain: [a, b], clock }), request);
  assert.equal(textOf(events), 'Half an');
  assert.deepEqual([a.calls, b.calls], [1, 0]);
  assert.equal(events.at(-1).error.message, 'dropped');
  assert.deepEqual(attempts(events), ['a:cut']);
});

test('circuit breaker: after 3 failed requests the provider is skipped for the cool-down, then one trial goes through', async () => {
  const clock = fakeClock();
  const breaker = new CircuitBreaker({ threshold: 3, cooldownMs: 60_000, now: clock.now });
  const a = scripted('a', [{ error: server() }, { error: server() }, { error: server() }], clock);
  const b = scripted('b', [], clock);
  const r = new ReliableProvider({ chain: [a, b], clock, breaker, retry: { retries: 0 } });
  await run(r, request);
  await run(r, request);
  assert.equal(breaker.state('a/a-model').state, 'closed', 'two failed requests: still closed');
  await run(r, request);
  assert.equal(breaker.state('a/a-model').state, 'open');
  const second = await run(r, request);
  assert.equal(a.calls, 3, 'skipped while open');
  assert.match(second.find((e) => e.type === 'attempt').message, /Skipped for \d+ s after 3 failures/);
  assert.deepEqual(attempts(second), ['a:skipped', 'b:ok']);
  clock.advance(60_001);
  assert.equal(breaker.state('a/a-model').state, 'half-open');
  const third = await run(r, request);
  assert.equal(a.calls, 4, 'one trial after the cool-down');
  assert.deepEqual(attempts(third), ['a:ok']);
  assert.equal(breaker.state('a/a-model').state, 'closed');
  // A trial that ends in a refused request or Stop does not leave the provider skipped for good.
  for (const ending of ['client', 'stop']) {
    const c = scripted(
      'c',
      [
        { error: server() },
        ending === 'client' ? { error: { code: 'client', retryable: false, message: 'bad request' } } : { text: ['partial'] },
        { text: ['fine'] },
      ],
      clock,
    );
    const br = new CircuitBreaker({ threshold: 1, cooldownMs: 1000, now: clock.now });
    const rc = new ReliableProvider({ chain: [c, scripted('d', [], clock)], clock, breaker: br, retry: { retries: 0 } });
    await run(rc, request);
    assert.equal(br.state('c/c-model').state, 'open', ending);
    clock.advance(1001);
    const ac = new AbortController();
    if (ending === 'stop') {
      for await (const ev of rc.chatStream(request, { signal: ac.signal })) if (ev.type === 'text') ac.abort();
    } else await run(rc, request);
    const after = await run(rc, request);
    assert.equal(textOf(after), 'fine', `${ending}: the next request tries the provider again`);
  }
  // With no other provider to turn to, the breaker does not stand between the user and the request.
  const lone = new CircuitBreaker({ threshold: 1, cooldownMs: 60_000, now: clock.now });
  lone.failure('a/a-model');
  const callsBefore = a.calls;
  const tried = await run(new ReliableProvider({ chain: [a], clock, breaker: lone }), request);
  assert.equal(a.calls, callsBefore + 1);
  assert.deepEqual(attempts(tried), ['a:ok']);
});

test('time-outs by state: connecting and first byte are retried; a stall mid-reply keeps the partial text and says so', async () => {
  const timeouts = { connectMs: 30_000, firstByteMs: 300_000, gapMs: 180_000 };
  let clock = fakeClock();
  let a = scripted('a', [{ connectStall: 30_001 }, { text: ['ok'] }], clock);
  let events = await run(new ReliableProvider({ chain: [a], clock, timeouts }), request);
  assert.match(events.find((e) => e.type === 'attempt').message, /did not answer within 30 s/);
  assert.equal(textOf(events), 'ok');
  // Control: a slow connection inside the limit is no time-out.
  clock = fakeClock();
  a = scripted('a', [{ connectStall: 29_000, firstByteStall: 299_000, gapStall: 179_000, text: ['slow but fine'] }], clock);
  events = await run(new ReliableProvider({ chain: [a], clock, timeouts }), request);
  assert.deepEqual(attempts(events), ['a:ok']);
  clock = fakeClock();
  a = scripted('a', [{ firstByteStall: 300_001 }, { text: ['ok'] }], clock);
  events = await run(new ReliableProvider({ chain: [a], clock, timeouts }), request);
  assert.match(events.find((e) => e.type === 'attempt').message, /accepted the request but sent nothing for 300 s/);
  clock = fakeClock();
  a = scripted('a', [{ text: ['Partial ', 'answer'], gapStall: 180_001 }], clock);
  events = await run(new ReliableProvider({ chain: [a], clock, timeouts }), request);
  assert.equal(textOf(events), 'Partial answer');
  const err = events.at(-1);
  assert.deepEqual([err.type, err.error.code, a.calls], ['error', 'network', 1]);
  assert.match(err.error.message, /stopped sending for 180 s in the middle of the reply \(the text so far is kept\)/);
});

test('Stop during a backoff ends at once; Stop mid-stream is "aborted", not a failure', async () => {
  const clock = fakeClock();
  const ac = new AbortController();
  const a = scripted('a', [{ error: server() }], clock);
  const orig = clock.sleep;
  clock.sleep = async (ms, signal) => {
    ac.abort();
    return orig(ms, signal);
  };
  const events = await run(new ReliableProvider({ chain: [a], clock }), request, { signal: ac.signal });
  assert.equal(a.calls, 1);
  assert.equal(events.at(-1).error.code, 'aborted');
});

test('a fallback that cannot take the request (tools by code instead of natively, no images) is skipped', async () => {
  const clock = fakeClock();
  const a = scripted('a', [{ error: server() }, { error: server() }, { error: server() }], clock);
  const codex = scripted('codex', [], clock, { nativeTools: false });
  const blind = scripted('blind', [], clock, { vision: false });
  const image = { mediaType: 'image/png', dataUrl: 'data:image/png;base64,AA==' };
  const seeing = { messages: [{ role: /** @type {const} */ ('user'), content: 'see', images: [image] }] };
  const events = await run(new ReliableProvider({ chain: [a, codex, blind], clock }), seeing);
  assert.deepEqual([codex.calls, blind.calls], [0, 0]);
  assert.deepEqual(attempts(events).slice(-2), ['codex:skipped', 'blind:skipped']);
  assert.match(events.at(-1).error.message, /every provider of the fallback chain failed/);
});

// ---------------------------------------------------------------------------------------------
// Response cache

test('response cache: least recently used goes first past the limit; entries expire after their time to live', async () => {
  const { ResponseCache } = await import('../../web/providers/cache.js');
  let now = 0;
  const cache = new ResponseCache({ max: 3, ttlMs: 1000, now: () => now });
  const reply = (/** @type {string} */ text) => ({
    text,
    thinking: '',
    stopReason: /** @type {const} */ ('end_turn'),
    model: 'm',
    provider: 'p',
  });
  cache.set('a', reply('A'));
  cache.set('b', reply('B'));
  cache.set('c', reply('C'));
  assert.equal(cache.get('a')?.text, 'A', 'a is now the most recent');
  cache.set('d', reply('D'));
  assert.equal(cache.get('b'), undefined, 'b was the least recently used');
  assert.deepEqual(
    ['a', 'c', 'd'].map((k) => cache.get(k)?.text),
    ['A', 'C', 'D'],
  );
  now = 1001;
  assert.equal(cache.get('a'), undefined);
  assert.equal(cache.size, 2, 'an expired entry is dropped when met');
});

test('cache key: the normalized request — tool-call ids do not matter, content, tools, model and temperature do; policy', async () => {
  const { cacheKey, cacheable } = await import('../../web/providers/cache.js');
  /** @param {string} id @param {any} [extra] */
  const req = (id, extra = {}) => ({
    system: 's',
    messages: [
      { role: /** @type {const} */ ('assistant'), content: '', toolCalls: [{ id, name: 'fs_list', arguments: { path: '/' } }] },
      { role: /** @type {const} */ ('tool'), toolCallId: id, content: '[]' },
    ],
    temperature: 0,
    ...extra,
  });
  const k = await cacheKey('openai', 'gpt-4.1', req('call_1'));
  assert.match(k, /^[0-9a-f]{64}$/);
  assert.equal(await cacheKey('openai', 'gpt-4.1', req('call_2')), k);
  assert.notEqual(await cacheKey('openai', 'gpt-4.1-mini', req('call_1')), k);
  assert.notEqual(await cacheKey('openai', 'gpt-4.1', req('call_1', { temperature: 0.5 })), k);
  assert.notEqual(await cacheKey('openai', 'gpt-4.1', req('call_1', { tools: [{ name: 't', description: '', parameters: {} }] })), k);
  assert.notEqual(await cacheKey('openai', 'gpt-4.1', req('call_1', { system: 'another system prompt' })), k, 'the system prompt');
  const other = req('call_1');
  other.messages[1].content = '["a.txt"]';
  assert.notEqual(await cacheKey('openai', 'gpt-4.1', other), k, "a message's content");
  assert.notEqual(await cacheKey('anthropic', 'gpt-4.1', req('call_1')), k, 'the provider');
  assert.notEqual(
    await cacheKey('openai', 'gpt-4.1', req('call_1'), 'http://127.0.0.1:1234/v1'),
    k,
    'the server (two OpenAI-compatible servers with one model name)',
  );
  assert.equal(await cacheKey('openai', 'gpt-4.1', req('call_1', { maxTokens: undefined })), k, 'an absent field is the same as none');
  assert.equal(cacheable({ messages: [], temperature: 0 }, 'deterministic'), true);
  assert.equal(cacheable({ messages: [] }, 'deterministic'), false, 'the provider’s default temperature is above 0');
  assert.equal(cacheable({ messages: [], temperature: 0.7 }, 'deterministic'), false);
  assert.equal(cacheable({ messages: [], temperature: 0.7 }, 'always'), true);
  assert.equal(cacheable({ messages: [], temperature: 0 }, 'off'), false);
});

test('the reliability layer answers a repeated request from the cache (no call, no cost) — never tool calls, errors or cut replies; \
fresh skips it', async () => {
  const { ResponseCache } = await import('../../web/providers/cache.js');
  const clock = fakeClock();
  const a = scripted(
    'a',
    [{ text: ['Paris.'] }, { text: ['A new answer.'] }, { toolCall: true }, { toolCall: true }, { text: ['half'], error: server() }],
    clock,
  );
  const cache = new ResponseCache({ now: clock.now });
  const r = new ReliableProvider({ chain: [a], clock, cache, cachePolicy: 'always' });
  const q = { messages: [{ role: /** @type {const} */ ('user'), content: 'Capital of France?' }] };
  assert.equal(textOf(await run(r, q)), 'Paris.');
  const again = await run(r, q);
  assert.equal(a.calls, 1, 'no second call');
  assert.equal(again[0].type, 'cache_hit');
  assert.equal(textOf(again), 'Paris.');
  assert.deepEqual(again.find((e) => e.type === 'finish')?.usage, { inputTokens: 0, outputTokens: 0 });
  // Regenerate asks the model again (and the new answer replaces the old).
  assert.equal(textOf(await run(r, q, { fresh: true })), 'A new answer.');
  assert.equal(textOf(await run(r, q)), 'A new answer.');
  assert.equal(a.calls, 2);
  // A reply that calls a tool is asked for every time.
  const t = { messages: [{ role: /** @type {const} */ ('user'), content: 'list files' }] };
  await run(r, t);
  await run(r, t);
  assert.equal(a.calls, 4);
  // A failed reply is not kept.
  const f = { messages: [{ role: /** @type {const} */ ('user'), content: 'fail' }] };
  await run(r, f);
  assert.equal(cache.size, 1, 'only the complete text answer is kept');
  // Control: the default policy does not cache a request without temperature 0.
  const b = scripted('b', [{ text: ['one'] }, { text: ['two'] }], clock);
  const d = new ReliableProvider({ chain: [b], clock, cache: new ResponseCache({ now: clock.now }) });
  await run(d, q);
  await run(d, q);
  assert.equal(b.calls, 2);
});
