// The local provider's pure parts (issue 34 §1): how a request reaches the model (its chat
// template, or a grammar of the call), which tools a grammar can hold, and the context it is
// loaded with, which the agent compacts within. The runtime itself runs in the browser tests
// (tests/browser/local-model.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LocalProvider, contextError, grammarFor, grammarToolsPrompt, toolModeOf } from '../../web/providers/local.js';
import { GrammarError } from '../../web/providers/local-grammar.js';
import { KV_BUDGET_BYTES, LOCAL_CONTEXT_CAP, LocalEngineError } from '../../web/providers/local-engine.js';
import { ReliableProvider } from '../../web/providers/reliability.js';
import { compactAt } from '../../web/app/agent-factory.js';

const TOOL = {
  name: 'fs_read',
  description: 'Read a file.',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};
const PATTERNED = {
  name: 'web_fetch',
  description: 'Fetch a page.',
  parameters: { type: 'object', properties: { url: { type: 'string', pattern: '^https?://' } }, required: ['url'] },
};
const ask = (/** @type {any} */ extra = {}) => ({ messages: [{ role: /** @type {const} */ ('user'), content: 'hi' }], ...extra });

test("a request reaches the model through its template ('auto' and a template with tools), else through a grammar, \
or plainly without tools", () => {
  const withTools = { callsTools: true };
  const without = { callsTools: false };
  assert.equal(toolModeOf(ask({ tools: [TOOL] }), withTools), 'native');
  assert.equal(toolModeOf(ask({ tools: [TOOL], toolChoice: 'auto' }), withTools), 'native');
  assert.equal(toolModeOf(ask({ tools: [TOOL], toolChoice: 'required' }), withTools), 'grammar');
  assert.equal(toolModeOf(ask({ tools: [TOOL], toolChoice: { name: 'fs_read' } }), withTools), 'grammar');
  assert.equal(toolModeOf(ask({ tools: [TOOL] }), without), 'grammar', 'a template without tools: the grammar');
  assert.equal(toolModeOf(ask({ tools: [TOOL], toolChoice: 'none' }), withTools), 'plain');
  assert.equal(toolModeOf(ask(), withTools), 'plain');
});

test('a grammar holds the tools its converter can express and says which it left out; a named tool must be there', () => {
  const forced = grammarFor([TOOL, PATTERNED], 'required');
  assert.deepEqual(
    forced.tools.map((t) => t.name),
    ['fs_read'],
  );
  assert.match(forced.left[0], /^web_fetch \(.*pattern/);
  assert.doesNotMatch(forced.grammar, /reply/, 'a forced call has no words branch');
  const auto = grammarFor([TOOL], 'auto');
  assert.match(auto.grammar, /^root ::= \(.*\) \| reply/m, "'auto': a call or words");
  assert.throws(() => grammarFor([TOOL], { name: 'nope' }), GrammarError);
  assert.throws(
    () => grammarFor([PATTERNED], 'required'),
    (err) => err instanceof GrammarError && /web_fetch/.test(err.message),
  );
  // Control: the named tool alone.
  assert.deepEqual(
    grammarFor([TOOL, PATTERNED], { name: 'fs_read' }).tools.map((t) => t.name),
    ['fs_read'],
  );
  assert.match(grammarToolsPrompt([TOOL], true), /"name":"fs_read"[\s\S]*one tool call only/);
  assert.match(grammarToolsPrompt([TOOL], false), /Otherwise reply in words/);
});

test("the context a local model is loaded with is the agent's to compact within; other providers set none", async () => {
  const model = (/** @type {number | null} */ contextLength, /** @type {number | null} */ kvBytesPerToken) => ({
    get: async () => ({ contextLength, kvBytesPerToken }),
    open: async () => ({ parts: [] }),
  });
  const small = new LocalProvider({ model: 'm', store: /** @type {any} */ (model(4096, 28672)) });
  // A 1.5 B model trained for 128K: a token of context takes 28 KB, so 18,688 tokens fit in the budget.
  const big = new LocalProvider({ model: 'm', store: /** @type {any} */ (model(131072, 28672)) });
  const unknown = new LocalProvider({ model: 'm', store: /** @type {any} */ (model(131072, null)) });
  assert.equal(await small.contextWindow(), 4096, 'as trained');
  assert.equal(await big.contextWindow(), 18688);
  assert.equal(Math.floor(KV_BUDGET_BYTES / 28672 / 256) * 256, 18688);
  assert.equal(await unknown.contextWindow(), LOCAL_CONTEXT_CAP, 'a file that does not say: the cap');
  const reliable = new ReliableProvider({ chain: [small] });
  assert.equal(await reliable.contextWindow(), 4096, 'the reliability layer gives the primary’s');
  assert.equal(compactAt(12_000, 4096), 2457);
  assert.equal(compactAt(12_000, null), 12_000, 'control: no context of its own, the setting');
  assert.equal(compactAt(3000, 131072), 3000, 'a smaller setting stays');
});

test('the backend: WebGPU where the browser gives a real adapter; else threads where the page is cross-origin isolated; \
else one thread — and what the Models list shows of each', async () => {
  const { chooseBackend, backendOf } = await import('../../web/providers/local-engine.js');
  /** A page: its WebGPU adapter (null: none; 'throws'; or the adapter), isolation and cores. */
  const env = (/** @type {any} */ adapter, /** @type {boolean} */ isolated, cores = 4) => ({
    navigator: {
      hardwareConcurrency: cores,
      ...(adapter === undefined
        ? {}
        : {
            gpu: {
              requestAdapter: async () => {
                if (adapter === 'throws') throw new Error('GPU process crashed');
                return adapter;
              },
            },
          }),
    },
    crossOriginIsolated: isolated,
  });
  assert.deepEqual(await chooseBackend(env({ info: { isFallbackAdapter: false } }, true)), { gpu: true, threads: 3, isolated: true });
  assert.deepEqual(await chooseBackend(env({ isFallbackAdapter: false }, false)), { gpu: true, threads: 1, isolated: false });
  // A software adapter (SwiftShader) is slower than the CPU; no adapter; an adapter that fails; no WebGPU at all.
  assert.equal((await chooseBackend(env({ info: { isFallbackAdapter: true } }, true))).gpu, false);
  assert.equal((await chooseBackend(env(null, true))).gpu, false);
  assert.equal((await chooseBackend(env('throws', true))).gpu, false);
  assert.equal((await chooseBackend(env(undefined, true))).gpu, false);
  // Threads need isolation (SharedArrayBuffer); a core is left to the page; at most 8.
  assert.deepEqual(await chooseBackend(env(null, true, 4)), { gpu: false, threads: 3, isolated: true });
  assert.deepEqual(await chooseBackend(env(null, true, 32)), { gpu: false, threads: 8, isolated: true });
  assert.deepEqual(await chooseBackend(env(null, true, 1)), { gpu: false, threads: 1, isolated: true });
  assert.deepEqual(await chooseBackend(env(null, false, 16)), { gpu: false, threads: 1, isolated: false }, 'control: not isolated');
  // What is shown.
  assert.equal(backendOf({ gpu: true, threads: 3, isolated: true }, true, 3).label, 'WebGPU');
  assert.equal(backendOf({ gpu: false, threads: 3, isolated: true }, false, 3).label, 'WebAssembly, 3 threads');
  assert.match(
    backendOf({ gpu: false, threads: 1, isolated: false }, false, 1).label,
    /1 thread \(the page is not cross-origin isolated\)/,
  );
  assert.equal(backendOf({ gpu: false, threads: 1, isolated: true }, false, 1).label, 'WebAssembly, 1 thread');
});

test("the Models list's rows: each model with what its file says and the context it loads with; a store that cannot list, \
none", async () => {
  const models = [
    { id: 'qwen-1', name: 'Qwen 1.5B', callsTools: true, bytes: 986e6, contextLength: 32768, kvBytesPerToken: 28672 },
    { id: 'plain-2', name: 'Plain', callsTools: false, bytes: 2e6, contextLength: 2048, kvBytesPerToken: null },
  ];
  const store = { list: async () => models, get: async () => models[0], open: async () => ({ parts: [] }) };
  const provider = new LocalProvider({ model: 'qwen-1', store: /** @type {any} */ (store) });
  assert.deepEqual(await provider.listModelInfo(), [
    { id: 'qwen-1', label: 'Qwen 1.5B', tools: true, vision: false, sizeBytes: 986e6, contextTokens: 18688 },
    { id: 'plain-2', label: 'Plain', tools: false, vision: false, sizeBytes: 2e6, contextTokens: 2048 },
  ]);
  assert.deepEqual(await provider.listModels(), ['qwen-1', 'plain-2']);
  // Control: a store that does not list (an injected one) gives no rows rather than failing.
  const { list: _list, ...unlisted } = store;
  assert.deepEqual(await new LocalProvider({ model: 'qwen-1', store: /** @type {any} */ (unlisted) }).listModelInfo(), []);
});

test("the runtime's context overflow becomes an error with a stable code and what the user can do; control: other errors stay", () => {
  const overflow = new Error('the request exceeds the available context size, try increasing it');
  const err = contextError(overflow, { name: 'Qwen 1.5B' }, 4096);
  assert.ok(err instanceof LocalEngineError);
  assert.equal(err.code, 'context');
  assert.equal(err.cause, overflow);
  assert.match(err.message, /longer than the 4,096 tokens of context “Qwen 1\.5B” is loaded with\. Start a new conversation, or compact/);
  assert.doesNotMatch(err.message, /increasing/);
  assert.equal(contextError(new Error('Model failed to start inference'), { name: 'Qwen 1.5B' }, 4096), null);
  assert.equal(contextError(new Error('WebGPU device lost'), { name: 'Qwen 1.5B' }, 4096), null);
});

test('a single GGUF file over 2 GB is taken as it is (the 64-bit runtime reads files in slices); a model whose weights and \
context outgrow the runtime’s 4 GB of memory on the CPU is refused with what to do; control: a model that fits', async () => {
  const { cpuMemoryShortfall, RUNTIME_MEMORY_BYTES } = await import('../../web/providers/local-engine.js');
  const GB = 1024 ** 3;
  assert.equal(RUNTIME_MEMORY_BYTES, 4 * GB);
  const model = (/** @type {number} */ bytes, /** @type {number | null} */ kv = 28672) => ({ bytes, kvBytesPerToken: kv, name: 'M' });
  // Over 2 GB in one file, within the memory: no refusal, no splitting asked for.
  assert.equal(cpuMemoryShortfall(model(2.6 * GB), 4096), 0);
  assert.equal(cpuMemoryShortfall(model(1 * GB), 4096), 0, 'control: a 1 GB model');
  // Weights, the context's KV cache (28 KB a token × 18,688 tokens ≈ 0.5 GB) and working buffers over 4 GB.
  assert.ok(cpuMemoryShortfall(model(3.5 * GB), 18688) > 0);
  assert.equal(cpuMemoryShortfall(model(3.5 * GB), 512), 0, 'the same weights with a short context fit');
  assert.ok(cpuMemoryShortfall(model(4.2 * GB, null), 4096) > 0, 'weights alone over 4 GB');
});

test('without JSPI no model runs in the page (wllama would load its compat build from a CDN); control: with it', async () => {
  const { supportsLocalModels } = await import('../../web/providers/local-engine.js');
  const memory64 = { validate: () => true };
  assert.equal(supportsLocalModels({ ...memory64, Suspending: function Suspending() {} }), true);
  assert.equal(supportsLocalModels(memory64), false, 'no WebAssembly.Suspending: Chrome 133–136, Firefox');
  assert.equal(supportsLocalModels({ validate: () => false, Suspending: function Suspending() {} }), false, 'no 64-bit memory');
});
