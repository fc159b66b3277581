// The local provider's pure parts (issue 34 §1): how a request reaches the model (its chat
// template, or a grammar of the call), which tools a grammar can hold, and the context it is
// loaded with, which the agent compacts within. The runtime itself runs in the browser tests
// (tests/browser/local-model.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LocalProvider, grammarFor, grammarToolsPrompt, toolModeOf } from '../../web/providers/local.js';
import { GrammarError } from '../../web/providers/local-grammar.js';
import { KV_BUDGET_BYTES, LOCAL_CONTEXT_CAP } from '../../web/providers/local-engine.js';
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
