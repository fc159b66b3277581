import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startLlmServer } from '../fixtures/llm-server.mjs';
import { createProvider, ProviderError } from '../../web/providers/index.js';
import { testConnection } from '../../web/providers/connection.js';
import { discoverNoKeyOptions } from '../../web/providers/discovery.js';
import {
  ChromeAIProvider,
  chromeAIAvailability,
  tabChromeAIAvailability,
  UNAVAILABLE_KEY,
  splitConversation,
} from '../../web/providers/chrome-ai.js';
import { toWireMessages } from '../../web/providers/anthropic.js';
import { redactSecrets } from '../../web/providers/errors.js';

/** @type {Awaited<ReturnType<typeof startLlmServer>>} */
let server;
before(async () => {
  server = await startLlmServer({ apiKey: 'sk-test-key-123456', models: ['test-model', 'claude-test'] });
});
after(() => server.close());

/** @param {AsyncIterable<any>} it */
async function all(it) {
  const out = [];
  for await (const x of it) out.push(x);
  return out;
}
/** The part that ended a stream, without its token counts (asserted apart). @param {any[]} events */
const ending = (events) => {
  const { usage: _usage, ...rest } = events.at(-1) ?? {};
  return rest;
};
const openai = () =>
  createProvider({ provider: 'openai-compatible', model: 'test-model', apiKey: 'sk-test-key-123456', baseUrl: `${server.url}/v1` });
const anthropic = () => createProvider({ provider: 'anthropic', model: 'claude-test', apiKey: 'sk-test-key-123456', baseUrl: server.url });

test("the token limit's field is the host's: OpenAI's max_completion_tokens, another OpenAI-compatible host's max_tokens", async () => {
  server.reset();
  const base = { model: 'test-model', apiKey: 'sk-test-key-123456', baseUrl: `${server.url}/v1` };
  await createProvider({ provider: 'openai', ...base }).chat({ maxTokens: 50, messages: [{ role: 'user', content: 'hi' }] });
  await createProvider({ provider: 'openai-compatible', ...base }).chat({ maxTokens: 60, messages: [{ role: 'user', content: 'hi' }] });
  const [official, compatible] = server.requests.map((r) => r.body);
  assert.equal(official.max_completion_tokens, 50);
  assert.equal(official.max_tokens, undefined);
  assert.equal(compatible.max_tokens, 60, 'control: a host that takes the older field');
  assert.equal(compatible.max_completion_tokens, undefined);
});

test('OpenAI request body and headers follow Chat Completions', async () => {
  server.reset();
  const p = createProvider({ provider: 'openai', model: 'test-model', apiKey: 'sk-test-key-123456', baseUrl: `${server.url}/v1` });
  await p.chat({
    system: 'sys',
    maxTokens: 50,
    temperature: 0.2,
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'fs_list', arguments: { path: '/' } }] },
      { role: 'tool', toolCallId: 'c1', content: '[]' },
    ],
    tools: [{ name: 'fs_list', description: 'list', parameters: { type: 'object', properties: {} } }],
  });
  const req = server.requests[0];
  assert.equal(req.headers.authorization, 'Bearer sk-test-key-123456');
  assert.equal(req.body.stream, true);
  assert.deepEqual(req.body.stream_options, { include_usage: true });
  assert.equal(req.body.max_completion_tokens, 50);
  assert.deepEqual(req.body.messages[0], { role: 'system', content: 'sys' });
  assert.deepEqual(req.body.messages[2].tool_calls[0], {
    id: 'c1',
    type: 'function',
    function: { name: 'fs_list', arguments: '{"path":"/"}' },
  });
  assert.deepEqual(req.body.messages[3], { role: 'tool', tool_call_id: 'c1', content: '[]' });
  assert.equal(req.body.tools[0].type, 'function');
});

test('OpenAI stream assembles text, usage and fragmented parallel tool calls', async () => {
  server.reset();
  server.enqueue({
    text: 'Hello wörld 🌍',
    toolCalls: [
      { id: 'a', name: 'one', arguments: { x: 1 } },
      { id: 'b', name: 'two', arguments: { y: 'é' } },
    ],
    chunkBytes: 7,
  });
  const events = await all(openai().chatStream({ messages: [{ role: 'user', content: 'hi' }] }));
  const text = events
    .filter((e) => e.type === 'text')
    .map((e) => e.text)
    .join('');
  assert.equal(text, 'Hello wörld 🌍');
  assert.deepEqual(
    events.filter((e) => e.type === 'tool_call'),
    [
      { type: 'tool_call', id: 'a', name: 'one', arguments: { x: 1 } },
      { type: 'tool_call', id: 'b', name: 'two', arguments: { y: 'é' } },
    ],
  );
  assert.deepEqual(events.find((e) => e.type === 'finish')?.usage, { inputTokens: 11, outputTokens: 3 });
  assert.deepEqual(ending(events), { type: 'finish', stopReason: 'tool_use' });
});

test('OpenAI refusals (delta.refusal with content null) reach the reply as text, marked as a refusal', async () => {
  server.reset();
  const chunk = (/** @type {Record<string, unknown>} */ delta, /** @type {string | null} */ finish = null) => {
    const data = { id: 'r', object: 'chat.completion.chunk', model: 'test-model', choices: [{ index: 0, delta, finish_reason: finish }] };
    return `data: ${JSON.stringify(data)}\n\n`;
  };
  server.enqueue({
    rawEvents: [
      chunk({ role: 'assistant', content: null, refusal: '' }),
      chunk({ content: null, refusal: "I'm sorry, " }),
      chunk({ content: null, refusal: 'I cannot help with that.' }),
      chunk({}, 'stop'),
      'data: [DONE]\n\n',
    ],
  });
  const events = await all(openai().chatStream({ messages: [{ role: 'user', content: 'hi' }] }));
  assert.equal(
    events
      .filter((e) => e.type === 'text')
      .map((e) => e.text)
      .join(''),
    "I'm sorry, I cannot help with that.",
  );
  assert.deepEqual(ending(events), { type: 'finish', stopReason: 'refusal' });
  // Control: an ordinary reply ends as end_turn.
  server.enqueue({ text: 'Sure.' });
  const plain = await all(openai().chatStream({ messages: [{ role: 'user', content: 'hi' }] }));
  assert.deepEqual(ending(plain), { type: 'finish', stopReason: 'end_turn' });
});

test('Anthropic request uses the browser header and merges tool results', async () => {
  server.reset();
  await anthropic().chat({
    system: 'be brief',
    messages: [
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: 'calling',
        toolCalls: [
          { id: 't1', name: 'a', arguments: {} },
          { id: 't2', name: 'b', arguments: {} },
        ],
      },
      { role: 'tool', toolCallId: 't1', content: 'r1' },
      { role: 'tool', toolCallId: 't2', content: 'r2' },
    ],
  });
  const req = server.requests[0];
  assert.equal(req.path, '/v1/messages');
  assert.equal(req.headers['anthropic-dangerous-direct-browser-access'], 'true');
  assert.equal(req.headers['anthropic-version'], '2023-06-01');
  assert.equal(req.headers['x-api-key'], 'sk-test-key-123456');
  // The system prompt and the tool list are prompt-cache breakpoints.
  assert.deepEqual(req.body.system, [{ type: 'text', text: 'be brief', cache_control: { type: 'ephemeral' } }]);
  assert.equal(req.body.max_tokens, 4096);
  assert.equal(req.body.messages.length, 3);
  assert.deepEqual(
    req.body.messages[2].content.map((/** @type {any} */ b) => b.tool_use_id),
    ['t1', 't2'],
  );
});

test('Anthropic stream assembles text, tool use and usage', async () => {
  server.reset();
  server.enqueue({
    text: 'Sure — done.',
    toolCalls: [{ id: 'tu1', name: 'fs_write', arguments: { path: 'a.md', content: 'x' } }],
    chunkBytes: 5,
  });
  const events = await all(anthropic().chatStream({ messages: [{ role: 'user', content: 'hi' }] }));
  assert.equal(
    events
      .filter((e) => e.type === 'text')
      .map((e) => e.text)
      .join(''),
    'Sure — done.',
  );
  assert.deepEqual(
    events.find((e) => e.type === 'tool_call'),
    { type: 'tool_call', id: 'tu1', name: 'fs_write', arguments: { path: 'a.md', content: 'x' } },
  );
  assert.deepEqual(events.find((e) => e.type === 'finish')?.usage, { inputTokens: 12, outputTokens: 3 });
  assert.deepEqual(ending(events), { type: 'finish', stopReason: 'tool_use' });
});

test('a connection dropped mid-stream becomes a retryable network error', async () => {
  for (const make of [openai, anthropic]) {
    server.reset();
    server.enqueue({ text: 'one two three four five', dropAfter: 4 });
    const events = await all(make().chatStream({ messages: [{ role: 'user', content: 'hi' }] }));
    const err = events.at(-1);
    assert.equal(err.type, 'error');
    assert.equal(err.error.code, 'network');
    assert.equal(err.error.retryable, true);
    assert.match(err.error.message, /dropped/);
  }
});

test('HTTP errors map to stable codes without leaking the key', async () => {
  server.reset();
  const bad = createProvider({
    provider: 'openai-compatible',
    model: 'test-model',
    apiKey: 'sk-wrong-secret-999',
    baseUrl: `${server.url}/v1`,
  });
  const [authErr] = await all(bad.chatStream({ messages: [{ role: 'user', content: 'x' }] }));
  assert.equal(authErr.error.code, 'auth');
  assert.doesNotMatch(authErr.error.message, /sk-wrong-secret-999/);
  server.enqueue({ status: 429, body: { error: { message: 'slow down' } } });
  const [rl] = await all(openai().chatStream({ messages: [{ role: 'user', content: 'x' }] }));
  assert.equal(rl.error.code, 'rate_limit');
  assert.equal(rl.error.retryable, true);
  server.enqueue({ status: 503 });
  const [srv] = await all(anthropic().chatStream({ messages: [{ role: 'user', content: 'x' }] }));
  assert.equal(srv.error.code, 'server');
  const wrongModel = createProvider({
    provider: 'openai-compatible',
    model: 'nope',
    apiKey: 'sk-test-key-123456',
    baseUrl: `${server.url}/v1`,
  });
  const [wm] = await all(wrongModel.chatStream({ messages: [{ role: 'user', content: 'x' }] }));
  assert.equal(wm.error.code, 'client');
  assert.match(wm.error.message, /model "nope"/);
  await assert.rejects(
    wrongModel.chat({ messages: [{ role: 'user', content: 'x' }] }),
    (/** @type {any} */ e) => e instanceof ProviderError && e.code === 'client',
  );
});

test('unreachable server is a network error; abort is "aborted"', async () => {
  const p = createProvider({ provider: 'ollama', model: 'x', baseUrl: 'http://127.0.0.1:9/v1' });
  const [e] = await all(p.chatStream({ messages: [{ role: 'user', content: 'x' }] }));
  assert.equal(e.error.code, 'network');
  server.reset();
  server.enqueue({ text: 'a b c d e f g h', delayMs: 30 });
  const ac = new AbortController();
  /** @type {any[]} */
  const events = [];
  for await (const ev of openai().chatStream({ messages: [{ role: 'user', content: 'x' }] }, { signal: ac.signal })) {
    events.push(ev);
    if (ev.type === 'text' && ev.text.trim() === 'b') ac.abort();
  }
  assert.equal(events.at(-1).error.code, 'aborted');
});

test('createProvider validates configuration with clear messages', () => {
  assert.throws(() => createProvider({ provider: 'nope' }), /Unknown provider/);
  assert.throws(
    () => createProvider({ provider: 'openai' }),
    (/** @type {any} */ e) => e.code === 'auth' && /needs an API key/.test(e.message),
  );
  assert.throws(() => createProvider({ provider: 'openai-compatible', model: 'm' }), /base URL/);
  assert.throws(() => createProvider({ provider: 'openai-compatible', model: 'm', baseUrl: 'ftp://x' }), /http/);
  for (const id of ['ollama', 'lmstudio', 'groq', 'openrouter', 'together', 'fireworks', 'mistral', 'deepseek', 'xai', 'perplexity']) {
    const p = createProvider({ provider: id, apiKey: 'k' });
    assert.equal(p.id, id);
    assert.ok(p.model);
  }
});

test('Echo streams the message back and needs nothing', async () => {
  const p = createProvider({ provider: 'echo' }, { echoDelayMs: 0 });
  const r = await p.chat({ messages: [{ role: 'user', content: 'hello there' }] });
  assert.equal(r.content, 'Echo: hello there');
  assert.equal(r.stopReason, 'end_turn');
});

test('testConnection reports success with models, bad key, wrong model and unreachable', async () => {
  const ok = await testConnection({
    provider: 'openai-compatible',
    model: 'test-model',
    apiKey: 'sk-test-key-123456',
    baseUrl: `${server.url}/v1`,
  });
  assert.equal(ok.ok, true);
  assert.deepEqual(ok.ok && ok.models, ['test-model', 'claude-test']);
  const bad = await testConnection({
    provider: 'openai-compatible',
    model: 'test-model',
    apiKey: 'sk-nope-000000',
    baseUrl: `${server.url}/v1`,
  });
  assert.deepEqual([bad.ok, !bad.ok && bad.code], [false, 'auth']);
  const wm = await testConnection({ provider: 'anthropic', model: 'gpt-x', apiKey: 'sk-test-key-123456', baseUrl: server.url });
  assert.equal(!wm.ok && wm.code, 'client');
  assert.match(wm.message, /gpt-x/);
  const down = await testConnection({ provider: 'ollama', model: 'x', baseUrl: 'http://127.0.0.1:9/v1' });
  assert.equal(!down.ok && down.code, 'network');
  assert.match(down.message, /Is Ollama running/);
});

test('testConnection tells CORS from unreachable with the OLLAMA_ORIGINS fix', async () => {
  // A browser's fetch fails with a TypeError on CORS; a no-cors probe then succeeds.
  /** @type {typeof fetch} */
  const corsFetch = async (input, init) => {
    if (init?.mode === 'no-cors') return new Response(null, { status: 200 });
    throw new TypeError('Failed to fetch');
  };
  const r = await testConnection({ provider: 'ollama', model: 'llama3.2' }, { fetchImpl: corsFetch, origin: 'http://127.0.0.1:8080' });
  assert.equal(!r.ok && r.code, 'cors');
  assert.match(r.message, /OLLAMA_ORIGINS="http:\/\/127\.0\.0\.1:8080"/);
});

test('discovery finds local servers and reports Chrome AI absence', async () => {
  /** @type {typeof fetch} */
  const fakeFetch = async (input) => {
    const url = String(input);
    if (url.endsWith('/api/tags')) return Response.json({ models: [{ name: 'llama3.2:latest' }] });
    throw new TypeError('Failed to fetch');
  };
  const found = await discoverNoKeyOptions({ fetchImpl: fakeFetch });
  assert.deepEqual(found.ollama, { found: true, models: ['llama3.2:latest'] });
  assert.deepEqual(found.lmstudio, { found: false, models: [] });
  assert.equal(found.chromeAI, 'unsupported');
});

test('Chrome AI: an "unavailable" answer is asked once per tab (a reload while it is pending crashes Chromium 150); \
other answers are asked again', async () => {
  /** A scope with a Prompt API answering `answer`, counting questions, and a session storage. @param {string} answer */
  const scope = (answer) => {
    const store = new Map();
    const s = {
      asked: 0,
      LanguageModel: {
        availability: async () => {
          s.asked++;
          return answer;
        },
        create() {},
      },
      sessionStorage: {
        getItem: (/** @type {string} */ k) => store.get(k) ?? null,
        setItem: (/** @type {string} */ k, /** @type {string} */ v) => store.set(k, v),
      },
    };
    return s;
  };
  const none = scope('unavailable');
  assert.equal(await tabChromeAIAvailability(none), 'unavailable');
  assert.equal(await tabChromeAIAvailability(none), 'unavailable');
  assert.equal(none.asked, 1, 'kept for the tab');
  assert.equal(none.sessionStorage.getItem(UNAVAILABLE_KEY), '1');
  // Control: the plain question asks every time.
  await chromeAIAvailability(none);
  assert.equal(none.asked, 2);
  const later = scope('downloadable');
  await tabChromeAIAvailability(later);
  assert.equal(await tabChromeAIAvailability(later), 'downloadable');
  assert.equal(later.asked, 2, 'a download moves on: asked again');
  // Without session storage (or refused), it still answers.
  assert.equal(await tabChromeAIAvailability({ LanguageModel: { availability: async () => 'unavailable', create() {} } }), 'unavailable');
  assert.equal(
    await tabChromeAIAvailability({
      LanguageModel: { availability: async () => 'unavailable', create() {} },
      get sessionStorage() {
        throw new Error('SecurityError');
      },
    }),
    'unavailable',
  );
});

test('Chrome AI: availability states of both API shapes, streaming deltas and cumulative chunks', async () => {
  const current = {
    LanguageModel: {
      availability: async () => 'downloadable',
      create: async () => ({
        promptStreaming: async function* () {
          yield 'Hel';
          yield 'lo';
        },
        destroy() {},
      }),
    },
  };
  assert.equal(await chromeAIAvailability(current), 'downloadable');
  const legacy = {
    ai: {
      languageModel: {
        capabilities: async () => ({ available: 'readily' }),
        create: async () => ({
          promptStreaming: async function* () {
            yield 'Hel';
            yield 'Hello';
            yield 'Hello!';
          },
        }),
      },
    },
  };
  assert.equal(await chromeAIAvailability(legacy), 'available');
  assert.equal(await chromeAIAvailability({}), 'unsupported');
  assert.equal(await chromeAIAvailability({ LanguageModel: { availability: async () => 'unavailable', create() {} } }), 'unavailable');
  const a = await new ChromeAIProvider({ scope: current }).chat({ messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(a.content, 'Hello');
  const b = await new ChromeAIProvider({ scope: legacy }).chat({ messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(b.content, 'Hello!');
  await assert.rejects(new ChromeAIProvider({ scope: {} }).chat({ messages: [{ role: 'user', content: 'hi' }] }), /not available/);
  const split = splitConversation({
    system: 's',
    messages: [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'b' },
      { role: 'user', content: 'c' },
    ],
  });
  assert.deepEqual(split, {
    initialPrompts: [
      { role: 'system', content: 's' },
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'b' },
    ],
    prompt: 'c',
  });
});

test('Anthropic wire messages alternate roles', () => {
  const wire = toWireMessages([
    { role: 'user', content: 'a' },
    { role: 'user', content: 'b' },
    { role: 'assistant', content: 'c' },
  ]);
  assert.deepEqual(
    wire.map((m) => m.role),
    ['user', 'assistant'],
  );
  assert.equal(wire[0].content.length, 2);
});

test('redactSecrets removes keys and bearer tokens', () => {
  // Key shapes are the LeakDetector's (real keys are long; see secrets-limits.test.mjs for every shape).
  const t = redactSecrets('key sk-ant-api03-abcdefghijklmnopqrstuvwx and Bearer abcdefghijklmnopqrstuvwx and mine123456', ['mine123456']);
  assert.doesNotMatch(t, /abcdefghijkl|mine123456/);
});

test('Anthropic prompt caching: the tool list ends with a cache breakpoint; cached input is counted apart and priced lower', async () => {
  server.reset();
  const tools = [
    { name: 'a', description: 'a', parameters: { type: 'object' } },
    { name: 'b', description: 'b', parameters: { type: 'object' } },
  ];
  const ev = (/** @type {string} */ type, /** @type {object} */ o) => `event: ${type}\ndata: ${JSON.stringify({ type, ...o })}\n\n`;
  server.enqueue({
    rawEvents: [
      ev('message_start', {
        message: {
          id: 'm',
          type: 'message',
          role: 'assistant',
          model: 'claude-test',
          content: [],
          usage: { input_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 3000, output_tokens: 1 },
        },
      }),
      ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
      ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'ok' } }),
      ev('content_block_stop', { index: 0 }),
      ev('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 10 } }),
      ev('message_stop', {}),
    ],
  });
  const r = await anthropic().chat({ system: 'long stable prompt', messages: [{ role: 'user', content: 'hi' }], tools });
  const body = server.requests[0].body;
  assert.equal(body.tools[0].cache_control, undefined);
  assert.deepEqual(body.tools[1].cache_control, { type: 'ephemeral' });
  assert.deepEqual(r.usage, { inputTokens: 3020, outputTokens: 10, cachedInputTokens: 3000 });
  const { costCents } = await import('../../web/providers/pricing.js');
  const withCache = /** @type {number} */ (costCents('anthropic', 'claude-sonnet-4-5', r.usage));
  const without = /** @type {number} */ (costCents('anthropic', 'claude-sonnet-4-5', { inputTokens: 3020, outputTokens: 10 }));
  assert.ok(Math.abs(withCache - ((20 * 3 + 3000 * 0.3 + 10 * 15) / 1e6) * 100) < 1e-9);
  assert.ok(withCache < without / 4);
});

test('pricing: per model with cached input; local models are free; an unknown model is "cost unknown", never 0', async () => {
  const { costCents, formatCost, priceOf } = await import('../../web/providers/pricing.js');
  assert.equal(costCents('openai', 'gpt-4.1-mini', { inputTokens: 1_000_000, outputTokens: 1_000_000 }), 40 + 160);
  assert.equal(
    costCents('openai', 'gpt-4.1-mini-2025-04-14', { inputTokens: 1_000_000, outputTokens: 0, cachedInputTokens: 1_000_000 }),
    10,
  );
  assert.equal(costCents('openrouter', 'openai/gpt-4.1', { inputTokens: 1_000_000, outputTokens: 0 }), 200, "a router's model path");
  assert.deepEqual(
    priceOf('anthropic', 'claude-opus-4-5-20251101'),
    { input: 5, output: 25, cachedInput: 0.5, cacheWrite: 6.25 },
    'the longest prefix wins',
  );
  assert.equal(costCents('ollama', 'llama3.2', { inputTokens: 5000, outputTokens: 5000 }), 0);
  assert.equal(costCents('openai-compatible', 'my-own-model', { inputTokens: 5000, outputTokens: 5000 }), null);
  assert.equal(formatCost(null), 'cost unknown');
  assert.equal(formatCost(0.42), '$0.0042');
  assert.equal(formatCost(123), '$1.23');
});
