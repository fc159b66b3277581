// Providers (issue 14), in Node: stream assembly throughput per wire format (bytes of a real-shaped
// stream through its framing and assembler, in MB/s), and the reliability layer's overhead per
// request (the same scripted provider called with and without it).
import { performance } from 'node:perf_hooks';
import { parseSSE } from '../web/net/sse.js';
import { parseNDJSON } from '../web/providers/ndjson.js';
import { assembleOpenAIStream } from '../web/providers/openai.js';
import { assembleAnthropicStream } from '../web/providers/anthropic.js';
import { assembleGeminiStream } from '../web/providers/gemini.js';
import { assembleResponsesStream } from '../web/providers/openai-responses.js';
import { assembleOllamaStream } from '../web/providers/ollama.js';
import { ReliableProvider } from '../web/providers/reliability.js';
import { ResponseCache } from '../web/providers/cache.js';
import { openaiEvents, anthropicEvents, geminiEvents, responsesEvents, ollamaEvents } from '../tests/fixtures/llm-server.mjs';

/** @param {number[]} xs */
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (/** @type {number} */ x) => Math.round(x * 100) / 100;

/** About 8 MB of one reply in a format, cut into 16 KiB reads. @param {(r: any, model: string) => string[]} events */
function streamOf(events) {
  const words = 'The quick brown fox jumps over the lazy dog — naïve café façade, 数据 ✓. '.split(/(?<= )/);
  const text = Array.from({ length: 180_000 }, (_, i) => words[i % words.length]).join('');
  const body = new TextEncoder().encode(
    events(
      { text, toolCalls: [{ id: 'c1', name: 'fs_write', arguments: { path: 'a.md', content: 'x'.repeat(10_000) } }] },
      'bench-model',
    ).join(''),
  );
  /** @type {Uint8Array[]} */
  const chunks = [];
  for (let i = 0; i < body.length; i += 16 * 1024) chunks.push(body.subarray(i, i + 16 * 1024));
  return {
    bytes: body.length,
    source: async function* () {
      for (const c of chunks) yield c;
    },
  };
}

export async function providersBench() {
  /** @type {Record<string, number>} */
  const out = {};
  const formats = /** @type {const} */ ([
    ['openaiChat', openaiEvents, (/** @type {any} */ s) => assembleOpenAIStream(parseSSE(s), 'bench')],
    ['anthropic', anthropicEvents, (/** @type {any} */ s) => assembleAnthropicStream(parseSSE(s), 'bench')],
    ['gemini', geminiEvents, (/** @type {any} */ s) => assembleGeminiStream(parseSSE(s, { stray: true }), 'bench')],
    ['openaiResponses', responsesEvents, (/** @type {any} */ s) => assembleResponsesStream(parseSSE(s), 'bench')],
    ['ollama', ollamaEvents, (/** @type {any} */ s) => assembleOllamaStream(parseNDJSON(s), 'bench')],
  ]);
  for (const [name, events, assemble] of formats) {
    const { bytes, source } = streamOf(events);
    const times = [];
    for (let r = 0; r < 5; r++) {
      const t = performance.now();
      let done = false;
      for await (const ev of assemble(source())) if (ev.type === 'finish') done = true;
      times.push(performance.now() - t);
      if (!done) throw new Error(`${name}: the bench stream did not complete`);
    }
    out[`streamAssemble_${name}_MBps`] = round(bytes / (1024 * 1024) / (median(times) / 1000));
  }

  // The reliability layer: a provider that answers at once with a typical reply (59 parts).
  const words = Array.from({ length: 58 }, (_, i) => ({ type: 'text', text: `word${i} ` }));
  const reply = [...words, { type: 'finish', stopReason: 'end_turn', usage: { inputTokens: 100, outputTokens: 58 } }];
  const provider = {
    id: 'bench',
    model: 'bench-model',
    supportsNativeTools: true,
    supportsVision: false,
    connects: true,
    chat() {
      throw new Error('unused');
    },
    /** @param {any} _r @param {{onConnected?: () => void}} [o] @returns {AsyncGenerator<any>} any: scripted events */
    async *chatStream(_r, o = {}) {
      o.onConnected?.();
      for (const ev of reply) yield ev;
    },
  };
  const request = {
    system: 'You are helpful.',
    messages: Array.from({ length: 20 }, (_, i) => ({
      role: /** @type {'user' | 'assistant'} */ (i % 2 ? 'assistant' : 'user'),
      content: `message ${i} `.repeat(40),
    })),
  };
  const drain = async (/** @type {AsyncIterable<unknown>} */ it) => {
    for await (const _ of it);
  };
  const reliable = new ReliableProvider({ chain: [/** @type {any} */ (provider)] });
  const cached = new ReliableProvider({ chain: [/** @type {any} */ (provider)], cache: new ResponseCache(), cachePolicy: 'always' });
  const N = 2000;
  /** @param {() => Promise<void>} fn */
  const per = async (fn) => {
    const runs = [];
    for (let r = 0; r < 5; r++) {
      const t = performance.now();
      for (let i = 0; i < N; i++) await fn();
      runs.push((performance.now() - t) / N);
    }
    return median(runs);
  };
  const raw = await per(() => drain(provider.chatStream(request)));
  const wrapped = await per(() => drain(reliable.chatStream(request)));
  // Hashing the request and a cache hit replayed.
  const hit = await per(() => drain(cached.chatStream(request)));
  out.reliabilityOverheadPerRequestMs = Math.round(Math.max(0, wrapped - raw) * 1000) / 1000;
  out.reliabilityCacheHitPerRequestMs = Math.round(hit * 1000) / 1000;
  return out;
}
