// ChatRequest.toolChoice (issue 34 §1): 'auto' | 'required' | 'none' | {name}, sent in each wire's
// own words, against the scripted server; a wire without it says so in a warning part.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startLlmServer } from '../fixtures/llm-server.mjs';
import { createProvider } from '../../web/providers/index.js';

const KEY = 'sk-test-key-123456';
/** @type {Awaited<ReturnType<typeof startLlmServer>>} */
let server;
before(async () => {
  server = await startLlmServer({ apiKey: KEY, models: ['test-model', 'claude-test', 'gemini-2.5-flash', 'gpt-5-mini', 'llama-test'] });
});
after(() => server.close());

const tools = [{ name: 'fs_list', description: 'list', parameters: { type: 'object', properties: {} } }];
/** @type {Record<string, () => import('../../web/providers/types.d.ts').Provider>} */
const WIRES = {
  openai: () => createProvider({ provider: 'openai-compatible', model: 'test-model', apiKey: KEY, baseUrl: `${server.url}/v1` }),
  anthropic: () => createProvider({ provider: 'anthropic', model: 'claude-test', apiKey: KEY, baseUrl: server.url }),
  gemini: () => createProvider({ provider: 'gemini', model: 'gemini-2.5-flash', apiKey: KEY, baseUrl: server.url }),
  responses: () => createProvider({ provider: 'openai-responses', model: 'gpt-5-mini', apiKey: KEY, baseUrl: `${server.url}/v1` }),
};

/** What each wire sends for each choice. */
const EXPECTED = {
  openai: { auto: 'auto', required: 'required', none: 'none', named: { type: 'function', function: { name: 'fs_list' } } },
  anthropic: { auto: { type: 'auto' }, required: { type: 'any' }, none: { type: 'none' }, named: { type: 'tool', name: 'fs_list' } },
  gemini: {
    auto: { functionCallingConfig: { mode: 'AUTO' } },
    required: { functionCallingConfig: { mode: 'ANY' } },
    none: { functionCallingConfig: { mode: 'NONE' } },
    named: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['fs_list'] } },
  },
  responses: { auto: 'auto', required: 'required', none: 'none', named: { type: 'function', name: 'fs_list' } },
};
/** Where each wire puts it in the body. */
const FIELD = { openai: 'tool_choice', anthropic: 'tool_choice', gemini: 'toolConfig', responses: 'tool_choice' };

for (const [wire, make] of Object.entries(WIRES)) {
  test(`${wire}: each tool choice is sent in the wire's words; without one, nothing is sent (control)`, async () => {
    const choices = /** @type {const} */ ([
      ['auto', 'auto'],
      ['required', 'required'],
      ['none', 'none'],
      ['named', { name: 'fs_list' }],
    ]);
    for (const [key, toolChoice] of choices) {
      server.reset();
      await make().chat({ messages: [{ role: 'user', content: 'hi' }], tools, toolChoice });
      const body = server.requests.at(-1)?.body;
      assert.deepEqual(
        body?.[FIELD[/** @type {keyof typeof FIELD} */ (wire)]],
        EXPECTED[/** @type {keyof typeof EXPECTED} */ (wire)][key],
        `${wire} ${key}`,
      );
    }
    server.reset();
    await make().chat({ messages: [{ role: 'user', content: 'hi' }], tools });
    assert.equal(server.requests.at(-1)?.body?.[FIELD[/** @type {keyof typeof FIELD} */ (wire)]], undefined, 'no choice: the wire decides');
  });
}

test("Ollama's API has no tool choice: 'required' gives a warning part and the call goes on; 'auto' says nothing (control)", async () => {
  const ollama = () => createProvider({ provider: 'ollama', model: 'llama-test', baseUrl: server.url });
  server.reset();
  const parts = [];
  for await (const p of ollama().chatStream({ messages: [{ role: 'user', content: 'hi' }], tools, toolChoice: 'required' })) parts.push(p);
  const warnings = parts.filter((p) => p.type === 'warning');
  assert.equal(warnings.length, 1);
  assert.equal(/** @type {any} */ (warnings[0]).setting, 'toolChoice');
  assert.match(/** @type {any} */ (warnings[0]).message, /tool choice/);
  assert.ok(
    parts.some((p) => p.type === 'finish'),
    'the call goes on',
  );
  const quiet = [];
  for await (const p of ollama().chatStream({ messages: [{ role: 'user', content: 'hi' }], tools, toolChoice: 'auto' })) quiet.push(p);
  assert.equal(quiet.filter((p) => p.type === 'warning').length, 0);
});
