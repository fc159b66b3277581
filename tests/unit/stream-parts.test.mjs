// A provider's stream is the reply's parts only (web/providers/types.d.ts, StreamPart): text and
// reasoning with the wire's block or item id where it has one, tool calls with the wire's call
// id, one `finish` part with the stop reason and the token counts, a `warning` part for each
// setting the provider leaves unapplied. How the call goes — tries, retries, fallbacks, cache
// hits, a model downloading — reaches `onStatus` (ProviderStatus), never the stream. Each wire
// is checked against the scripted server speaking its real format.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startLlmServer } from '../fixtures/llm-server.mjs';
import { createProvider } from '../../web/providers/index.js';
import { ReliableProvider } from '../../web/providers/reliability.js';
import { ChromeAIProvider } from '../../web/providers/chrome-ai.js';
import { withStatus } from '../../web/providers/status.js';
import { ClawserAgent } from '../../web/agent/runtime/agent.js';
import { Conversation } from '../../web/agent/conversation/conversation.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';

const KEY = 'sk-test-key-123456';
/** @type {Awaited<ReturnType<typeof startLlmServer>>} */
let server;
before(async () => {
  server = await startLlmServer({ apiKey: KEY });
});
after(() => server.close());

/** Every kind of part a provider's stream may carry. */
const PART_TYPES = ['text', 'reasoning', 'tool_call', 'warning', 'finish', 'error'];

/** @param {AsyncIterable<any>} it */
async function all(it) {
  const out = [];
  for await (const x of it) out.push(x);
  return out;
}

/** A provider of the catalog at the scripted server. @param {string} provider @param {string} model @param {string} [path] */
const at = (provider, model, path = '') => createProvider({ provider, model, apiKey: KEY, baseUrl: `${server.url}${path}` });
/** The requests used below. */
const HI = { messages: [{ role: /** @type {const} */ ('user'), content: 'hi' }] };
const LIST = { messages: [{ role: /** @type {const} */ ('user'), content: 'list' }] };
/** A request of one user message. @param {string} content */
const ask = (content) => ({ messages: [{ role: /** @type {const} */ ('user'), content }] });
/** A reply the server refuses for a moment. */
const BUSY = { status: 503, body: { error: { message: 'busy' } } };

/** Each wire at the scripted server, with the input tokens the server reports (the output: a word each). */
const WIRES = [
  { wire: 'openai', make: () => at('openai-compatible', 'test-model', '/v1'), input: 11 },
  { wire: 'anthropic', make: () => at('anthropic', 'claude-test'), input: 12 },
  { wire: 'gemini', make: () => at('gemini', 'gemini-2.0-flash'), input: 13 },
  { wire: 'openai-responses', make: () => at('openai-responses', 'gpt-4.1-mini', '/v1'), input: 17 },
  { wire: 'ollama', make: () => at('ollama', 'llama-test'), input: 21 },
];

/** The wires that run in the page, and the test file that checks their finish part. */
const IN_PAGE = {
  echo: 'tests/unit/stream-parts.test.mjs',
  'chrome-ai': 'tests/unit/stream-parts.test.mjs',
  local: 'tests/browser/local-model.test.mjs',
};

test('every wire of the registry is checked: HTTP wires in WIRES above, in-page ones name their test file', async () => {
  const { WIRES: REGISTERED } = await import('../../web/providers/catalog.js');
  const checked = new Set([...WIRES.map((w) => w.wire), ...Object.keys(IN_PAGE)]);
  for (const wire of REGISTERED)
    assert.ok(checked.has(wire.id), `wire ${wire.id} is registered but not checked: add it to WIRES in this file (or IN_PAGE)`);
  for (const [wire, file] of Object.entries(IN_PAGE)) {
    assert.ok(
      REGISTERED.some((w) => w.id === wire && w.capabilities.runs === 'browser'),
      `${wire} runs in the page`,
    );
    assert.match(
      readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'),
      /type, 'finish'|type: 'finish'/,
      `${file} checks ${wire}'s finish`,
    );
  }
  // Control: a wire missing from both lists is named.
  assert.ok(!new Set([...checked].filter((w) => w !== 'ollama')).has('ollama'));
});

test('every wire ends a reply with one finish part carrying the stop reason and the token counts; only parts in the stream', async () => {
  for (const { wire, make, input } of WIRES) {
    server.enqueue({ text: 'Three short words' });
    const text = await all(make().chatStream(HI));
    const usage = { inputTokens: input, outputTokens: 3 };
    assert.deepEqual(
      text.filter((p) => p.type === 'finish'),
      [{ type: 'finish', stopReason: 'end_turn', usage }],
      wire,
    );
    assert.equal(text.at(-1).type, 'finish', `${wire}: last`);
    assert.deepEqual(
      text.filter((p) => !PART_TYPES.includes(p.type)),
      [],
      `${wire}: parts only`,
    );
    server.enqueue({ toolCalls: [{ id: 'call_9', name: 'fs_list', arguments: { path: '/' } }] });
    const offered = [{ name: 'fs_list', description: 'list', parameters: { type: 'object' } }];
    const tools = await all(make().chatStream({ ...LIST, tools: offered }));
    const finish = tools.filter((p) => p.type === 'finish');
    assert.equal(finish.length, 1, wire);
    assert.equal(finish[0].stopReason, 'tool_use', wire);
    assert.ok(finish[0].usage && finish[0].usage.inputTokens > 0, `${wire}: counts with a tool call too`);
  }
  // In the browser: Echo counts its words; Chrome's Prompt API reports no counts, so its finish has none.
  const echo = await all(createProvider({ provider: 'echo' }, { echoDelayMs: 0 }).chatStream(ask('four words in here')));
  assert.deepEqual(echo.at(-1), { type: 'finish', stopReason: 'end_turn', usage: { inputTokens: 5, outputTokens: 6 } });
  const chrome = await all(new ChromeAIProvider({ scope: promptApi(['Hi', ' there']) }).chatStream(HI));
  assert.deepEqual(chrome.at(-1), { type: 'finish', stopReason: 'end_turn' });
});

test("parts carry the wire's ids: tool calls their call ids, text and reasoning their block or item where the wire has one", async () => {
  const call = { id: 'call_from_wire', name: 'fs_list', arguments: { path: '/' } };
  for (const { wire, make } of WIRES.filter((w) => ['openai', 'anthropic', 'openai-responses'].includes(w.wire))) {
    server.enqueue({ toolCalls: [call] });
    const parts = await all(make().chatStream(LIST));
    assert.deepEqual(
      parts.filter((p) => p.type === 'tool_call').map((p) => p.id),
      ['call_from_wire'],
      wire,
    );
  }
  // Gemini gives a call id only in newer replies; Ollama none: an id is made up, one per call.
  for (const { wire, make } of WIRES.filter((w) => ['gemini', 'ollama'].includes(w.wire))) {
    server.enqueue({ toolCalls: [call, { ...call, id: 'second' }] });
    const ids = (await all(make().chatStream(LIST))).filter((p) => p.type === 'tool_call').map((p) => p.id);
    assert.equal(ids.length, 2, wire);
    assert.ok(ids.every((id) => typeof id === 'string' && id) && ids[0] !== ids[1], `${wire}: made-up ids, distinct`);
  }
  const parts = [{ functionCall: { id: 'gem-7', name: 'fs_list', args: {} } }];
  const withId = JSON.stringify({ candidates: [{ content: { parts }, finishReason: 'STOP' }] });
  server.enqueue({ rawEvents: [`data: ${withId}\r\n\r\n`] });
  const gem = await all(WIRES[2].make().chatStream(LIST));
  assert.deepEqual(
    gem.filter((p) => p.type === 'tool_call').map((p) => p.id),
    ['gem-7'],
    "Gemini's own id when it sends one",
  );
  // Text and reasoning: Anthropic's content block, the Responses API's output item.
  server.enqueue({ text: 'Hello there' });
  const anthropic = await all(WIRES[1].make().chatStream(HI));
  assert.deepEqual([...new Set(anthropic.filter((p) => p.type === 'text').map((p) => p.id))], ['0']);
  server.enqueue({ text: 'Hello there', thinking: 'Let me think' });
  const responses = await all(at('openai-responses', 'gpt-5-mini', '/v1').chatStream(HI));
  assert.deepEqual([...new Set(responses.filter((p) => p.type === 'text').map((p) => p.id))], ['msg_1']);
  assert.deepEqual([...new Set(responses.filter((p) => p.type === 'reasoning').map((p) => p.id))], ['rs_1']);
  // Control: Chat Completions names no text block (the reply is choice 0): no id is made up.
  server.enqueue({ text: 'Hello there' });
  const chat = await all(WIRES[0].make().chatStream(HI));
  assert.ok(chat.filter((p) => p.type === 'text').every((p) => !('id' in p)));
});

test('a setting the provider does not apply is a warning part before the reply, not silence (control: applied, no warning)', async () => {
  // The Responses API refuses a temperature for reasoning models: it is left out, and said.
  server.enqueue({ text: 'ok' });
  const reasoning = at('openai-responses', 'gpt-5-mini', '/v1');
  const parts = await all(reasoning.chatStream({ ...HI, temperature: 0.3 }));
  assert.equal(parts[0].type, 'warning');
  assert.equal(parts[0].setting, 'temperature');
  assert.match(parts[0].message, /gpt-5-mini, a reasoning model\) takes no temperature: the request's temperature was not applied/);
  assert.equal(parts.filter((p) => p.type === 'warning').length, 1);
  assert.equal('temperature' in server.requests.at(-1)?.body, false, 'not sent');
  server.enqueue({ text: 'ok' });
  const plain = at('openai-responses', 'gpt-4.1-mini', '/v1');
  assert.deepEqual(
    (await all(plain.chatStream({ ...HI, temperature: 0.3 }))).filter((p) => p.type === 'warning'),
    [],
  );
  assert.equal(server.requests.at(-1)?.body.temperature, 0.3, 'control: applied');
  // Chrome's Prompt API takes no length limit, no temperature and no images.
  const image = { mediaType: 'image/png', dataUrl: 'data:image/png;base64,AA==' };
  const chrome = new ChromeAIProvider({ scope: promptApi(['Hi']) });
  const said = await chrome.chat({ messages: [{ role: 'user', content: 'see', images: [image] }], maxTokens: 50, temperature: 0 });
  assert.deepEqual(
    said.warnings?.map((w) => w.setting),
    ['maxTokens', 'temperature', 'images'],
  );
  assert.equal(said.content, 'Hi', 'the reply still comes');
  assert.deepEqual((await chrome.chat(HI)).warnings, [], 'control: nothing to warn of');
  // Through the reliability layer a warning is said once, not once per try.
  server.enqueue(BUSY, { text: 'ok' });
  const reliable = new ReliableProvider({ chain: [reasoning], clock: instantClock() });
  const retried = await all(reliable.chatStream({ ...HI, temperature: 0.3 }));
  assert.equal(retried.filter((p) => p.type === 'warning').length, 1);
  assert.equal(
    retried
      .filter((p) => p.type === 'text')
      .map((p) => p.text)
      .join(''),
    'ok',
    'control: it was retried',
  );
});

test('status is not in the parts: tries, retries and fallbacks reach onStatus as they happen; withStatus puts both in order', async () => {
  const failing = at('anthropic', 'claude-test');
  const backup = at('openai-compatible', 'test-model', '/v1');
  server.enqueue(BUSY, BUSY, { text: 'from the backup' });
  /** @type {any[]} */
  const statuses = [];
  const reliable = new ReliableProvider({ chain: [failing, backup], clock: instantClock(), retry: { retries: 1 } });
  const parts = await all(reliable.chatStream(HI, { onStatus: (s) => statuses.push(s) }));
  assert.deepEqual(
    parts.filter((p) => !PART_TYPES.includes(p.type)),
    [],
    'parts only',
  );
  assert.equal(parts.map((p) => p.text ?? '').join(''), 'from the backup');
  assert.deepEqual(
    statuses.map((s) => (s.type === 'attempt' ? `attempt:${s.provider}:${s.outcome}` : s.type)),
    ['attempt:anthropic:failed', 'retry', 'attempt:anthropic:failed', 'fallback', 'attempt:openai-compatible:ok'],
  );
  assert.match(statuses[1].text, /Anthropic|anthropic/);
  // Control: merged, the statuses stand where they happened among the parts.
  server.enqueue(BUSY, BUSY, { text: 'again' });
  const merged = await all(withStatus((onStatus) => reliable.chatStream(HI, { onStatus })));
  const kinds = merged.map((x) => ('status' in x ? `status:${x.status.type}` : `part:${x.part.type}`));
  assert.deepEqual(kinds.slice(0, 4), ['status:attempt', 'status:retry', 'status:attempt', 'status:fallback']);
  assert.ok(kinds.indexOf('part:text') > 3 && kinds.indexOf('part:finish') < kinds.lastIndexOf('status:attempt'), kinds.join(' '));
  // The cache's answer: a status too, not a part.
  const { ResponseCache } = await import('../../web/providers/cache.js');
  const cached = new ReliableProvider({ chain: [backup], clock: instantClock(), cache: new ResponseCache(), cachePolicy: 'always' });
  server.enqueue({ text: 'Paris.' });
  await all(cached.chatStream(ask('Capital of France?')));
  /** @type {any[]} */
  const hit = [];
  const again = await all(cached.chatStream(ask('Capital of France?'), { onStatus: (s) => hit.push(s) }));
  assert.deepEqual(
    hit.map((s) => s.type),
    ['cache_hit'],
  );
  assert.deepEqual(
    again.map((p) => p.type),
    ['text', 'finish'],
  );
});

test('withStatus hands on a status as soon as it is given, while the next part is still to come', async () => {
  /** @type {() => void} */
  let release = () => {};
  const gate = new Promise((resolve) => {
    release = () => resolve(undefined);
  });
  /** @param {(s: any) => void} onStatus */
  async function* slow(onStatus) {
    yield/** @type {any} */ ({ type: 'text', text: 'a' });
    onStatus({ type: 'progress', text: 'waiting' });
    await gate; // the next part exists only once the test lets it
    yield/** @type {any} */ ({ type: 'finish', stopReason: 'end_turn' });
  }
  const it = withStatus((onStatus) => slow(onStatus))[Symbol.asyncIterator]();
  assert.deepEqual((await it.next()).value, { part: { type: 'text', text: 'a' } });
  assert.deepEqual((await it.next()).value, { status: { type: 'progress', text: 'waiting' } }, 'before the gate opened');
  release();
  assert.deepEqual((await it.next()).value, { part: { type: 'finish', stopReason: 'end_turn' } });
  assert.equal((await it.next()).done, true);
  // Chrome's download progress is a status of the call, not a part of the reply.
  /** @type {any[]} */
  const progress = [];
  const downloading = new ChromeAIProvider({ scope: promptApi(['Hi'], 'downloadable') });
  const parts = await all(downloading.chatStream(HI, { onStatus: (s) => progress.push(s) }));
  assert.deepEqual(
    progress.map((s) => s.type),
    ['progress', 'progress'],
  );
  assert.match(progress[1].text, /Downloading the on-device model… 100%/);
  assert.deepEqual(
    parts.map((p) => p.type),
    ['text', 'finish'],
  );
});

test('the agent records each try from the status channel, shows retries as status lines, takes the usage from finish', async () => {
  const fs = new MemoryFileSystem();
  const conversation = await Conversation.open(fs, '.conversations/c1', { id: 'c1', title: 'T', createdAt: 1, updatedAt: 1 });
  const provider = at('openai-compatible', 'test-model', '/v1');
  server.enqueue(BUSY, { text: 'Hello you' });
  const agent = new ClawserAgent({ provider: new ReliableProvider({ chain: [provider], clock: instantClock() }), conversation });
  const streamed = await all(agent.runStream('hi'));
  assert.ok(
    streamed.some((e) => e.type === 'status' && /retrying/.test(e.text)),
    'the retry line reaches the view',
  );
  const agentEvents = [...PART_TYPES, 'status', 'saved', 'tool_start', 'compacting'];
  assert.deepEqual(
    streamed.filter((e) => !agentEvents.includes(e.type)),
    [],
    'statuses reach the view as status lines or records only',
  );
  const attempts = conversation.events.filter((e) => e.type === 'provider_attempt').map((e) => e.data.outcome);
  assert.deepEqual(attempts.slice(-2), ['failed', 'ok']);
  const reply = conversation.events.filter((e) => e.type === 'agent_message').at(-1);
  assert.deepEqual(reply?.data.usage, { inputTokens: 11, outputTokens: 2 });
  assert.equal(reply?.data.stopReason, 'end_turn');
});

/** A clock whose waits end at once (the retries' backoff). */
function instantClock() {
  let now = 0;
  return {
    now: () => now,
    setTimer: () => () => {},
    /** @param {number} ms */
    sleep: async (ms) => {
      now += ms;
    },
    random: () => 0.5,
  };
}

/**
 * A global scope with Chrome's Prompt API streaming `chunks`.
 * @param {string[]} chunks @param {string} [state] what availability() answers
 */
function promptApi(chunks, state = 'available') {
  return {
    LanguageModel: {
      availability: async () => state,
      async create(/** @type {any} */ options) {
        if (state === 'downloadable') {
          const target = new EventTarget();
          options.monitor?.(target);
          target.dispatchEvent(Object.assign(new Event('downloadprogress'), { loaded: 1, total: 1 }));
        }
        return {
          async *promptStreaming() {
            yield* chunks;
          },
          destroy() {},
        };
      },
    },
  };
}
