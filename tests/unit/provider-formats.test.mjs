// Why this file is long: three wire formats against one scripted server, and their assemblers on
//  hand-cut byte streams; each test is short.
// Gemini, OpenAI Responses and Ollama's native API against the scripted server speaking each
// wire format, and each assembler on hand-cut byte streams (CRLF, chunks split anywhere, a
// multi-byte character split across reads, a connection dropped mid-line, errors mid-stream).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startLlmServer } from '../fixtures/llm-server.mjs';
import { createProvider } from '../../web/providers/index.js';
import { parseSSE } from '../../web/net/sse.js';
import { parseNDJSON } from '../../web/providers/ndjson.js';
import { assembleGeminiStream, toGeminiContents } from '../../web/providers/gemini.js';
import { assembleResponsesStream } from '../../web/providers/openai-responses.js';
import { assembleOllamaStream } from '../../web/providers/ollama.js';
import { assembleOpenAIStream } from '../../web/providers/openai.js';
import { migrateSettings } from '../../web/app/settings.js';

const KEY = 'sk-test-key-123456';
/** @type {Awaited<ReturnType<typeof startLlmServer>>} */
let server;
before(async () => {
  server = await startLlmServer({ apiKey: KEY, models: ['gemini-2.5-flash', 'gpt-5-mini', 'llama-test', 'llava-vision'] });
});
after(() => server.close());

/** @param {AsyncIterable<any>} it */
async function all(it) {
  const out = [];
  for await (const x of it) out.push(x);
  return out;
}
/** @param {any[]} events */
const textOf = (events) =>
  events
    .filter((e) => e.type === 'text')
    .map((e) => e.text)
    .join('');
/** The part that ended a stream, without its token counts (asserted apart). @param {any[]} events */
const ending = (events) => {
  const { usage: _usage, ...rest } = events.at(-1) ?? {};
  return rest;
};
/** @param {any[]} events */
const thinkingOf = (events) =>
  events
    .filter((e) => e.type === 'reasoning')
    .map((e) => e.text)
    .join('');

/**
 * Bytes cut at every given size, so frames, CRLFs and multi-byte characters split anywhere.
 * @param {string} text @param {number} size
 */
async function* pieces(text, size) {
  const bytes = new TextEncoder().encode(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

const gemini = () => createProvider({ provider: 'gemini', model: 'gemini-2.5-flash', apiKey: KEY, baseUrl: server.url });
const responses = () => createProvider({ provider: 'openai-responses', model: 'gpt-5-mini', apiKey: KEY, baseUrl: `${server.url}/v1` });
const ollama = (model = 'llama-test') => createProvider({ provider: 'ollama', model, baseUrl: server.url });

const toolHistory = /** @type {import('../../web/providers/types.d.ts').Message[]} */ ([
  { role: 'user', content: 'list files' },
  {
    role: 'assistant',
    content: '',
    toolCalls: [
      { id: 'c1', name: 'fs_list', arguments: { path: '/' }, signature: 'sig-abc' },
      { id: 'c2', name: 'fs_read', arguments: { path: 'a.txt' } },
    ],
  },
  { role: 'tool', toolCallId: 'c1', content: '["a.txt"]' },
  { role: 'tool', toolCallId: 'c2', content: 'hello', images: [{ mediaType: 'image/png', dataUrl: 'data:image/png;base64,iVBORw0KGgo=' }] },
]);
const tools = [{ name: 'fs_list', description: 'list', parameters: { type: 'object', properties: { path: { type: 'string' } } } }];

// ---------------------------------------------------------------------------------------------
// Gemini

test('Gemini: URL, key header and body — system instruction, function declarations, calls by name with their thoughtSignature, \
merged tool results', async () => {
  server.reset();
  await gemini().chat({ system: 'sys', maxTokens: 99, temperature: 0.3, messages: toolHistory, tools });
  const req = server.requests[0];
  assert.equal(req.path, '/v1beta/models/gemini-2.5-flash:streamGenerateContent');
  assert.equal(req.headers['x-goog-api-key'], KEY);
  assert.equal(req.headers.authorization, undefined, 'the key goes in its own header only');
  assert.deepEqual(req.body.systemInstruction, { parts: [{ text: 'sys' }] });
  assert.deepEqual(req.body.tools, [{ functionDeclarations: [{ name: 'fs_list', description: 'list', parameters: tools[0].parameters }] }]);
  assert.deepEqual(req.body.generationConfig, { maxOutputTokens: 99, temperature: 0.3, thinkingConfig: { includeThoughts: true } });
  assert.deepEqual(req.body.contents, [
    { role: 'user', parts: [{ text: 'list files' }] },
    {
      role: 'model',
      parts: [
        { functionCall: { name: 'fs_list', args: { path: '/' } }, thoughtSignature: 'sig-abc' },
        { functionCall: { name: 'fs_read', args: { path: 'a.txt' } } },
      ],
    },
    {
      role: 'user',
      parts: [
        { functionResponse: { name: 'fs_list', response: { content: '["a.txt"]' } } },
        { functionResponse: { name: 'fs_read', response: { content: 'hello' } } },
        { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
      ],
    },
  ]);
  // No thinking config for a model that has none.
  const older = /** @type {any} */ (createProvider({ provider: 'gemini', model: 'gemini-2.0-flash', apiKey: KEY }));
  assert.equal(older.buildBody({ messages: [{ role: 'user', content: 'x' }] }).generationConfig, undefined);
  assert.equal(older.url, 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse');
  assert.deepEqual(
    toGeminiContents([{ role: 'user', content: 'a', images: [{ mediaType: 'image/jpeg', dataUrl: 'data:image/jpeg;base64,/9j/' }] }]),
    [{ role: 'user', parts: [{ text: 'a' }, { inlineData: { mimeType: 'image/jpeg', data: '/9j/' } }] }],
  );
});

test('Gemini stream: CRLF frames split into 5-byte reads, multi-byte text, thoughts as thinking, usage of the last chunk, \
whole function calls keeping thoughtSignature', async () => {
  server.reset();
  server.enqueue({
    text: 'Grüße 🌍 aus Köln',
    thinking: 'Let me think',
    toolCalls: [{ id: 'x', name: 'fs_list', arguments: { path: '/ü' } }],
    signature: 'c2lnbmF0dXJl',
    chunkBytes: 5,
  });
  const events = await all(gemini().chatStream({ messages: [{ role: 'user', content: 'hi' }] }));
  assert.equal(textOf(events), 'Grüße 🌍 aus Köln');
  assert.equal(thinkingOf(events), 'Let me think');
  const call = events.find((e) => e.type === 'tool_call');
  assert.equal(call.name, 'fs_list');
  assert.deepEqual(call.arguments, { path: '/ü' });
  assert.equal(call.signature, 'c2lnbmF0dXJl');
  assert.ok(call.id, 'a call gets an id even though Gemini sends none');
  const counted = events.filter((e) => e.type === 'finish').map((e) => e.usage);
  assert.deepEqual(counted, [{ inputTokens: 13, outputTokens: 5 + 4 }], 'once, from the last chunk; thoughts count as output');
  assert.deepEqual(ending(events), { type: 'finish', stopReason: 'tool_use' });
  // chat() keeps the signature so the next request can send it back.
  server.enqueue({ toolCalls: [{ id: 'x', name: 'fs_list', arguments: {} }], signature: 'sig2' });
  const r = await gemini().chat({ messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(r.toolCalls[0].signature, 'sig2');
});

test('Gemini: an error body appended after the frames with status 200 (raw, pretty-printed) is an error, the partial text stays shown; \
an error chunk inside SSE too', async () => {
  const frame = (/** @type {string} */ text) => {
    const data = {
      candidates: [{ content: { parts: [{ text }], role: 'model' }, index: 0 }],
      usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 1 },
    };
    return `data: ${JSON.stringify(data)}\r\n\r\n`;
  };
  const tail =
    '{\n  "error": {\n    "code": 503,\n    "message": "The model is overloaded. ' +
    'Please try again later.",\n    "status": "UNAVAILABLE"\n  }\n}\n';
  server.reset();
  server.enqueue({ rawEvents: [frame('Half an '), frame('answer'), tail], chunkBytes: 7 });
  const events = await all(gemini().chatStream({ messages: [{ role: 'user', content: 'x' }] }));
  assert.equal(textOf(events), 'Half an answer');
  const err = events.at(-1);
  assert.equal(err.type, 'error');
  assert.equal(err.error.code, 'server');
  assert.equal(err.error.retryable, true);
  assert.match(err.error.message, /overloaded/);
  // Quota exhausted inside SSE framing, as an array.
  server.enqueue({
    rawEvents: [frame('a'), `data: [{"error": {"code": 429, "message": "Quota exceeded", "status": "RESOURCE_EXHAUSTED"}}]\r\n\r\n`],
  });
  const q = (await all(gemini().chatStream({ messages: [{ role: 'user', content: 'x' }] }))).at(-1);
  assert.deepEqual([q.error.code, q.error.retryable], ['rate_limit', true]);
  // Control: the same frames ending with a finishReason are a complete reply.
  server.enqueue({
    rawEvents: [
      frame('a'),
      `data: ${JSON.stringify({ candidates: [{ content: { parts: [{ text: 'b' }], role: 'model' }, finishReason: 'STOP', index: 0 }] })}` +
        `\r\n\r\n`,
    ],
  });
  const ok = await all(gemini().chatStream({ messages: [{ role: 'user', content: 'x' }] }));
  assert.deepEqual(ending(ok), { type: 'finish', stopReason: 'end_turn' });
});

test('Gemini: a stream cut before any finishReason is a dropped connection; \
a blocked prompt and a safety stop are refusals the user can read', async () => {
  server.reset();
  server.enqueue({ text: 'one two three four', dropAfter: 2 });
  const cut = await all(gemini().chatStream({ messages: [{ role: 'user', content: 'x' }] }));
  assert.equal(cut.at(-1).error.code, 'network');
  assert.match(cut.at(-1).error.message, /dropped/);
  const blocked = await all(
    assembleGeminiStream(
      parseSSE(pieces(`data: {"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 4}}\r\n\r\n`, 3)),
      'Google Gemini',
    ),
  );
  assert.match(textOf(blocked), /refused this request \(safety\)/);
  assert.deepEqual(ending(blocked), { type: 'finish', stopReason: 'refusal' });
  const stopped = await all(
    assembleGeminiStream(
      parseSSE(pieces(`data: {"candidates": [{"finishReason": "RECITATION", "index": 0}]}\r\n\r\n`, 4)),
      'Google Gemini',
    ),
  );
  assert.match(textOf(stopped), /stopped the reply \(recitation\)/);
});

test('Gemini model list: chat models with context size and badges, embedding models left out', async () => {
  const models = await /** @type {import('../../web/providers/gemini.js').GeminiProvider} */ (gemini()).listModelInfo();
  assert.deepEqual(
    models.map((m) => m.id),
    ['gemini-2.5-flash', 'gpt-5-mini', 'llama-test', 'llava-vision'],
  );
  assert.deepEqual(
    { ...models[0], label: undefined },
    { id: 'gemini-2.5-flash', label: undefined, contextTokens: 1048576, tools: true, vision: true, reasoning: true },
  );
});

// ---------------------------------------------------------------------------------------------
// OpenAI Responses

test('Responses API: body — instructions, input items for calls and outputs, flat function tools, \
reasoning summaries for reasoning models, nothing stored', async () => {
  server.reset();
  await responses().chat({
    system: 'sys',
    maxTokens: 50,
    temperature: 0.5,
    messages: [
      ...toolHistory,
      { role: 'assistant', content: 'Done.' },
      { role: 'user', content: 'look', images: [{ mediaType: 'image/png', dataUrl: 'data:image/png;base64,AAA=' }] },
    ],
    tools,
  });
  const req = server.requests[0];
  assert.equal(req.path, '/v1/responses');
  assert.equal(req.headers.authorization, `Bearer ${KEY}`);
  assert.equal(req.body.instructions, 'sys');
  assert.equal(req.body.store, false);
  assert.equal(req.body.max_output_tokens, 50);
  assert.equal(req.body.temperature, undefined, 'reasoning models take no temperature');
  assert.deepEqual(req.body.reasoning, { summary: 'auto' });
  assert.deepEqual(req.body.tools, [
    { type: 'function', name: 'fs_list', description: 'list', parameters: tools[0].parameters, strict: false },
  ]);
  assert.deepEqual(req.body.input, [
    { role: 'user', content: 'list files' },
    { type: 'function_call', call_id: 'c1', name: 'fs_list', arguments: '{"path":"/"}' },
    { type: 'function_call', call_id: 'c2', name: 'fs_read', arguments: '{"path":"a.txt"}' },
    { type: 'function_call_output', call_id: 'c1', output: '["a.txt"]' },
    { type: 'function_call_output', call_id: 'c2', output: 'hello' },
    {
      role: 'user',
      content: [
        { type: 'input_text', text: 'Images returned by the tool call above:' },
        { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=' },
      ],
    },
    { role: 'assistant', content: 'Done.' },
    {
      role: 'user',
      content: [
        { type: 'input_text', text: 'look' },
        { type: 'input_image', image_url: 'data:image/png;base64,AAA=' },
      ],
    },
  ]);
});

test('Responses API stream: text and reasoning-summary deltas, function calls assembled from argument deltas, \
usage from response.completed (split into 6-byte reads)', async () => {
  server.reset();
  server.enqueue({
    text: 'Voilà — fini ✓',
    thinking: 'Plan first',
    toolCalls: [
      { id: 'call_1', name: 'fs_list', arguments: { path: '/é' } },
      { id: 'call_2', name: 'fs_read', arguments: { path: 'b' } },
    ],
    chunkBytes: 6,
  });
  const events = await all(responses().chatStream({ messages: [{ role: 'user', content: 'hi' }] }));
  assert.equal(textOf(events), 'Voilà — fini ✓');
  assert.equal(thinkingOf(events).trim(), 'Plan first');
  assert.deepEqual(
    events.filter((e) => e.type === 'tool_call'),
    [
      { type: 'tool_call', id: 'call_1', name: 'fs_list', arguments: { path: '/é' } },
      { type: 'tool_call', id: 'call_2', name: 'fs_read', arguments: { path: 'b' } },
    ],
  );
  assert.deepEqual(
    events.filter((e) => e.type === 'finish').map((e) => e.usage),
    [{ inputTokens: 17, outputTokens: 4 }],
  );
  assert.deepEqual(ending(events), { type: 'finish', stopReason: 'tool_use' });
});

test('Responses API: `error` and `response.failed` events are errors; an incomplete reply says why; \
a stream without response.completed was dropped', async () => {
  const ev = (/** @type {string} */ type, /** @type {object} */ obj) => `event: ${type}\ndata: ${JSON.stringify({ type, ...obj })}\n\n`;
  const run = (/** @type {string[]} */ frames) => all(assembleResponsesStream(parseSSE(pieces(frames.join(''), 5)), 'OpenAI'));
  const delta = ev('response.output_text.delta', { item_id: 'm', output_index: 0, content_index: 0, delta: 'Partial' });
  const e1 = await run([delta, ev('error', { code: 'rate_limit_exceeded', message: 'Slow down', param: null })]);
  assert.equal(textOf(e1), 'Partial');
  assert.deepEqual([e1.at(-1).error.code, e1.at(-1).error.retryable], ['rate_limit', true]);
  assert.match(e1.at(-1).error.message, /Slow down/);
  const e2 = await run([
    delta,
    ev('response.failed', { response: { status: 'failed', error: { code: 'server_error', message: 'The server had an error' } } }),
  ]);
  assert.deepEqual([e2.at(-1).error.code, e2.at(-1).error.retryable], ['server', true]);
  const e3 = await run([
    ev('response.failed', { response: { status: 'failed', error: { code: 'invalid_prompt', message: 'Bad prompt' } } }),
  ]);
  assert.deepEqual([e3.at(-1).error.code, e3.at(-1).error.retryable], ['client', false]);
  const inc = await run([
    delta,
    ev('response.incomplete', {
      response: {
        status: 'incomplete',
        incomplete_details: { reason: 'max_output_tokens' },
        usage: { input_tokens: 5, output_tokens: 9, input_tokens_details: { cached_tokens: 3 } },
      },
    }),
  ]);
  const usage = { inputTokens: 5, outputTokens: 9, cachedInputTokens: 3 };
  assert.deepEqual(inc.at(-1), { type: 'finish', stopReason: 'max_tokens', usage });
  const refusal = await run([
    ev('response.refusal.delta', { item_id: 'm', delta: 'I can’t help with that.' }),
    ev('response.completed', { response: { status: 'completed' } }),
  ]);
  assert.equal(textOf(refusal), 'I can’t help with that.');
  assert.deepEqual(ending(refusal), { type: 'finish', stopReason: 'refusal' });
  await assert.rejects(run([delta]), /dropped/);
});

// ---------------------------------------------------------------------------------------------
// Ollama (native)

test('Ollama native: POST /api/chat with messages, options, tools; tool results name their tool; images as bare base64', async () => {
  server.reset();
  await ollama().chat({
    system: 'sys',
    maxTokens: 64,
    temperature: 0.1,
    messages: [
      ...toolHistory,
      { role: 'user', content: 'see', images: [{ mediaType: 'image/png', dataUrl: 'data:image/png;base64,QUJD' }] },
    ],
    tools,
  });
  const req = server.requests[0];
  assert.equal(req.path, '/api/chat');
  assert.equal(req.body.stream, true);
  assert.deepEqual(req.body.options, { num_predict: 64, temperature: 0.1 });
  assert.deepEqual(req.body.tools, [
    { type: 'function', function: { name: 'fs_list', description: 'list', parameters: tools[0].parameters } },
  ]);
  assert.deepEqual(req.body.messages, [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'list files' },
    {
      role: 'assistant',
      content: '',
      tool_calls: [
        { function: { name: 'fs_list', arguments: { path: '/' } } },
        { function: { name: 'fs_read', arguments: { path: 'a.txt' } } },
      ],
    },
    { role: 'tool', content: '["a.txt"]', tool_name: 'fs_list' },
    { role: 'tool', content: 'hello', tool_name: 'fs_read', images: ['iVBORw0KGgo='] },
    { role: 'user', content: 'see', images: ['QUJD'] },
  ]);
});

test('Ollama NDJSON stream: lines split into 4-byte reads, thinking, tool_calls, counts from the done line', async () => {
  server.reset();
  server.enqueue({
    text: 'Ça marche 👍',
    thinking: 'hmm',
    toolCalls: [{ id: 'ignored', name: 'fs_list', arguments: { path: '/' } }],
    chunkBytes: 4,
  });
  const events = await all(ollama().chatStream({ messages: [{ role: 'user', content: 'hi' }] }));
  assert.equal(textOf(events), 'Ça marche 👍');
  assert.equal(thinkingOf(events), 'hmm');
  const call = events.find((e) => e.type === 'tool_call');
  assert.deepEqual([call.name, call.arguments], ['fs_list', { path: '/' }]);
  assert.deepEqual(
    events.filter((e) => e.type === 'finish').map((e) => e.usage),
    [{ inputTokens: 21, outputTokens: 3 }],
  );
  assert.deepEqual(ending(events), { type: 'finish', stopReason: 'tool_use' });
});

test('Ollama: a bare {"error"} line with status 200 is an error after the partial text; \
a connection dropped mid-line or before done is a dropped reply; CRLF lines read', async () => {
  const line = (/** @type {object} */ o) => `${JSON.stringify(o)}\n`;
  server.reset();
  server.enqueue({
    rawEvents: [
      line({ message: { role: 'assistant', content: 'Some ' }, done: false }),
      line({ error: 'model runner has unexpectedly stopped' }),
    ],
  });
  const e = await all(ollama().chatStream({ messages: [{ role: 'user', content: 'x' }] }));
  assert.equal(textOf(e), 'Some ');
  assert.match(e.at(-1).error.message, /unexpectedly stopped/);
  /** @type {any[]} */
  const midLine = [];
  await assert.rejects(async () => {
    for await (const ev of assembleOllamaStream(
      parseNDJSON(pieces(`${line({ message: { content: 'a' }, done: false })}{"message": {"content": "b`, 3)),
      'Ollama',
    ))
      midLine.push(ev);
  }, /dropped/);
  assert.equal(textOf(midLine), 'a', 'the text before the cut line was delivered');
  await assert.rejects(
    all(assembleOllamaStream(parseNDJSON(pieces(line({ message: { content: 'a' }, done: false }), 3)), 'Ollama')),
    /dropped/,
  );
  const crlf = await all(
    assembleOllamaStream(
      parseNDJSON(
        pieces(
          `{"message":{"content":"é"},"done":false}\r\n{"message":{"content":""},"done":true,"done_reason":"length","prompt_eval_count":` +
            `1,"eval_count":2}\r\n`,
          2,
        ),
      ),
      'Ollama',
    ),
  );
  assert.equal(textOf(crlf), 'é');
  assert.deepEqual(ending(crlf), { type: 'finish', stopReason: 'max_tokens' });
  server.enqueue({ text: 'one two three', dropAfter: 1 });
  const cut = await all(ollama().chatStream({ messages: [{ role: 'user', content: 'x' }] }));
  assert.equal(cut.at(-1).error.code, 'network');
});

test('Ollama models: /api/tags with capabilities from /api/show; pulling a model reports progress to success', async () => {
  const p = /** @type {import('../../web/providers/ollama.js').OllamaProvider} */ (ollama());
  const models = await p.listModelInfo();
  const vision = models.find((m) => m.id === 'llava-vision');
  assert.deepEqual(
    { ...vision },
    {
      id: 'llava-vision',
      label: 'llava-vision',
      sizeBytes: 2019393189,
      tools: true,
      vision: true,
      reasoning: false,
      contextTokens: 131072,
    },
  );
  assert.equal(models.find((m) => m.id === 'llama-test')?.vision, false);
  /** @type {any[]} */
  const progress = [];
  await p.pullModel('qwen-new', { onProgress: (x) => progress.push(x) });
  assert.equal(progress[0].status, 'pulling manifest');
  assert.deepEqual(
    progress.filter((x) => x.total).map((x) => x.completed / x.total),
    [0.25, 1],
  );
  assert.equal(progress.at(-1).status, 'success');
  assert.ok((await p.listModels()).includes('qwen-new'));
});

test('settings saved for the OpenAI-compatible Ollama preset move to the native API', () => {
  assert.deepEqual(migrateSettings({ provider: 'ollama', model: 'llama3.2', baseUrl: 'http://localhost:11434/v1' }), {
    provider: 'ollama',
    model: 'llama3.2',
    baseUrl: '',
  });
  assert.deepEqual(migrateSettings({ provider: 'ollama', model: 'm', baseUrl: 'http://gpu-box:11434/v1/' }), {
    provider: 'ollama',
    model: 'm',
    baseUrl: 'http://gpu-box:11434',
  });
  const untouched = { provider: 'openai-compatible', model: 'm', baseUrl: 'http://x/v1' };
  assert.equal(migrateSettings(untouched), untouched);
  // The provider itself also takes an old /v1 address.
  assert.equal(
    /** @type {any} */ (createProvider({ provider: 'ollama', model: 'm', baseUrl: 'http://h:11434/v1' })).url,
    'http://h:11434/api/chat',
  );
});

// ---------------------------------------------------------------------------------------------
// OpenAI Chat Completions extras

test('Chat Completions with n > 1: only choice 0 is the reply', async () => {
  const chunk = (/** @type {number} */ index, /** @type {object} */ delta, /** @type {string | null} */ finish = null) =>
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index, delta, finish_reason: finish }] })}\n\n`;
  const frames = [
    chunk(0, { role: 'assistant', content: 'Hel' }),
    chunk(1, { role: 'assistant', content: 'Other' }),
    chunk(0, { content: 'lo' }),
    chunk(1, { content: ' answer' }),
    chunk(1, {}, 'stop'),
    chunk(0, {}, 'stop'),
    'data: [DONE]\n\n',
  ];
  const events = await all(assembleOpenAIStream(parseSSE(pieces(frames.join(''), 9)), 'OpenAI'));
  assert.equal(textOf(events), 'Hello');
  assert.deepEqual(ending(events), { type: 'finish', stopReason: 'end_turn' });
});

test("model lists: the provider's own list with family badges; the catalog's suggestions when the provider lists none; \
badges in words", async () => {
  const { listModelInfo, modelBadges, knownModel } = await import('../../web/providers/models.js');
  const fromServer = await listModelInfo({ provider: 'openai', apiKey: KEY, baseUrl: `${server.url}/v1` });
  assert.equal(fromServer.source, 'provider');
  assert.deepEqual(
    fromServer.models.slice(0, 4).map((m) => m.id),
    ['gemini-2.5-flash', 'gpt-5-mini', 'llama-test', 'llava-vision'],
  );
  assert.deepEqual(modelBadges(/** @type {any} */ (fromServer.models[1])), ['tools', 'images', 'reasoning', '400K context']);
  assert.deepEqual(knownModel('some-new-model'), { id: 'some-new-model' }, 'unknown is not "no"');
  // A provider whose chats need a model lists its models without one (the list is where it is chosen)…
  const compatible = { provider: 'openai-compatible', apiKey: KEY, baseUrl: `${server.url}/v1` };
  const unchosen = await listModelInfo(compatible);
  assert.equal(unchosen.source, 'provider');
  assert.deepEqual(
    unchosen.models.map((m) => m.id),
    fromServer.models.map((m) => m.id),
  );
  // …while a chat without one is still refused with what to do.
  const { createProvider } = await import('../../web/providers/index.js');
  assert.throws(() => createProvider(compatible), /Choose a model for OpenAI-compatible/);
  /** @type {typeof fetch} */
  const down = async () => new Response('nope', { status: 500 });
  const fallback = await listModelInfo({ provider: 'anthropic', apiKey: KEY }, { fetchImpl: down });
  assert.equal(fallback.source, 'catalog');
  assert.ok(fallback.models.some((m) => m.id === 'claude-sonnet-4-5' && m.vision && m.tools));
  assert.deepEqual(modelBadges({ id: 'x', sizeBytes: 2_019_393_189, tools: true }), ['tools', '2.0 GB on disk']);
});

test('tier-2 presets send only the headers every host accepts (no custom ones); Perplexity takes tools through code', () => {
  for (const id of [
    'groq',
    'openrouter',
    'together',
    'fireworks',
    'mistral',
    'deepseek',
    'xai',
    'perplexity',
    'lmstudio',
    'openai-compatible',
  ]) {
    const p = /** @type {any} */ (createProvider({ provider: id, apiKey: 'k', model: 'm', baseUrl: 'https://example.test/v1' }));
    assert.deepEqual(Object.keys(p.buildHeaders()), ['authorization'], id);
  }
  assert.equal(createProvider({ provider: 'perplexity', apiKey: 'k' }).supportsNativeTools, false);
  assert.equal(createProvider({ provider: 'openrouter', apiKey: 'k' }).supportsNativeTools, true);
});

test("a user's image in the Anthropic and Chat Completions shapes", async () => {
  const { toWireMessages } = await import('../../web/providers/anthropic.js');
  const image = { mediaType: 'image/png', dataUrl: 'data:image/png;base64,QUJD' };
  assert.deepEqual(toWireMessages([{ role: 'user', content: 'see', images: [image] }]), [
    {
      role: 'user',
      content: [
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'QUJD' } },
        { type: 'text', text: 'see' },
      ],
    },
  ]);
  const openai = /** @type {any} */ (createProvider({ provider: 'openai', apiKey: 'k', model: 'gpt-4.1' }));
  assert.deepEqual(openai.buildBody({ messages: [{ role: 'user', content: 'see', images: [image] }] }).messages, [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'see' },
        { type: 'image_url', image_url: { url: image.dataUrl } },
      ],
    },
  ]);
});

test('token estimates per family: characters per token, CJK and emoji one each, messages with overhead and images', async () => {
  const { estimateTextTokens, estimateMessagesTokens, tokenFamily } = await import('../../web/providers/tokens.js');
  assert.equal(estimateTextTokens('x'.repeat(400), 'openai'), 100);
  assert.equal(estimateTextTokens('x'.repeat(350), 'anthropic'), 100);
  assert.equal(estimateTextTokens('数据库连接', 'openai'), 5);
  assert.equal(estimateTextTokens('👍👍 ok', 'openai'), 2 + 1);
  assert.equal(estimateMessagesTokens([{ role: 'user', content: 'x'.repeat(40) }], 'openai'), 4 + 10);
  assert.equal(
    estimateMessagesTokens([{ role: 'user', content: '', imageRefs: [{ path: 'images/a.png', mediaType: 'image/png' }] }], 'openai'),
    4 + 1300,
  );
  assert.deepEqual(
    ['claude-sonnet-4-5', 'gemini-2.5-flash', 'llama3.2', 'gpt-4.1', 'my-model'].map((m) => tokenFamily('openai-compatible', m)),
    ['anthropic', 'gemini', 'llama', 'openai', 'default'],
  );
});

test('Responses API with CRLF framing, and streams cut inside a frame (Gemini, Responses) are dropped replies, \
not malformed ones', async () => {
  const ev = (/** @type {string} */ type, /** @type {object} */ o) => `event: ${type}\r\ndata: ${JSON.stringify({ type, ...o })}\r\n\r\n`;
  const crlf = await all(
    assembleResponsesStream(
      parseSSE(
        pieces(
          [
            ev('response.output_text.delta', { delta: 'é' }),
            ev('response.completed', { response: { status: 'completed', usage: { input_tokens: 1, output_tokens: 1 } } }),
          ].join(''),
          3,
        ),
      ),
      'OpenAI',
    ),
  );
  assert.equal(textOf(crlf), 'é');
  assert.deepEqual(ending(crlf), { type: 'finish', stopReason: 'end_turn' });
  const cutResponses =
    `${ev('response.output_text.delta', { delta: 'Half' })}event: response.output_text.delta\r\ndata: ` + `{"type":"response.output_te`;
  await assert.rejects(all(assembleResponsesStream(parseSSE(pieces(cutResponses, 4)), 'OpenAI')), /dropped/);
  const cutGemini =
    `data: ${JSON.stringify({ candidates: [{ content: { parts: [{ text: 'Half' }] }, index: 0 }] })}\r\n\r\ndata: ` +
    `{"candidates": [{"content": {"par`;
  await assert.rejects(all(assembleGeminiStream(parseSSE(pieces(cutGemini, 4), { stray: true }), 'Google Gemini')), /dropped/);
});

test("Gemini through the agent: a call's thoughtSignature is kept in the event log and sent back with the next request, \
also after a reload of the conversation", async () => {
  const { ClawserAgent } = await import('../../web/agent/runtime/agent.js');
  const { ConversationStore } = await import('../../web/agent/conversation/conversation-store.js');
  const { ToolRunner } = await import('../../web/agent/runtime/tool-runner.js');
  const { AutonomyController } = await import('../../web/agent/runtime/autonomy.js');
  const { MemoryFileSystem } = await import('../../web/storage/memory-fs.js');
  const { ScopedFileSystem } = await import('../../web/storage/scoped-fs.js');
  const { createBuiltinRegistry, toolSettings } = await import('../../web/tools/index.js');
  const fs = new MemoryFileSystem();
  const store = new ConversationStore(fs, 'ws');
  const id = (await store.create()).id;
  const tools = new ToolRunner({
    registry: createBuiltinRegistry(),
    context: { workspaceId: 'ws', fs: new ScopedFileSystem(fs, 'clawser_workspaces/ws'), settings: toolSettings(), fetch },
    autonomy: new AutonomyController({ config: { level: 'full' } }),
  });
  server.reset();
  server.enqueue({ toolCalls: [{ id: 'x', name: 'fs_list', arguments: {} }], signature: 'sig-round-trip' }, { text: 'Listed.' });
  await new ClawserAgent({ provider: gemini(), conversation: await store.open(id), tools }).run('list the files');
  const second = server.requests.at(-1)?.body;
  const modelTurn = second.contents.find(
    (/** @type {any} */ c) => c.role === 'model' && c.parts.some((/** @type {any} */ p) => p.functionCall),
  );
  assert.equal(
    modelTurn.parts.find((/** @type {any} */ p) => p.functionCall).thoughtSignature,
    'sig-round-trip',
    'sent back with the tool result',
  );
  // A new turn on the conversation read back from storage sends it again with the history.
  server.enqueue({ text: 'Again.' });
  const reopened = new ConversationStore(fs, 'ws');
  await new ClawserAgent({ provider: gemini(), conversation: await reopened.open(id), tools }).run('and again');
  const third = server.requests.at(-1)?.body;
  const kept = third.contents.find((/** @type {any} */ c) => c.role === 'model' && c.parts.some((/** @type {any} */ p) => p.functionCall));
  assert.equal(kept.parts.find((/** @type {any} */ p) => p.functionCall).thoughtSignature, 'sig-round-trip');
});
