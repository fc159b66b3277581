import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractCodeBlocks, adaptPythonisms, Codex, codexPrompt } from '../../web/agent/runtime/codex.js';
import { ClawserAgent } from '../../web/agent/runtime/agent.js';
import { ToolRunner } from '../../web/agent/runtime/tool-runner.js';
import { ConversationStore } from '../../web/agent/conversation/conversation-store.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { ScopedFileSystem } from '../../web/storage/scoped-fs.js';
import { SafetyPipeline } from '../../web/safety/pipeline.js';
import { createBuiltinRegistry, toolSettings } from '../../web/tools/index.js';
import { ScriptedProvider } from '../fixtures/scripted-provider.mjs';
import { HookPipeline } from '../../web/agent/runtime/hooks.js';
import { AutonomyController } from '../../web/agent/runtime/autonomy.js';
import { fakeSandbox } from '../fixtures/fake-sandbox.mjs';

test('extracts js blocks from real-looking replies', () => {
  const cases = [
    ['Sure!\n```js\nprint(1)\n```\nDone.', ['print(1)']],
    ['```javascript\nconst a = 1;\n```\ntext\n```JS\na + 1\n```', ['const a = 1;', 'a + 1']],
    ['Python first:\n```python\nprint(1)\n```\nthen\n```js\nprint(2)\n```', ['print(1)', 'print(2)']],
    ['No code here, just `inline()` code.', []],
    ['```\nplain fence without language\n```', []],
    ['Start:\n```js\nawait fs_list({})\nprint("unterminated")', ['await fs_list({})\nprint("unterminated")']],
    ['~~~javascript\nlet x = 2\n~~~', ['let x = 2']],
    ['````js\nconst s = "```";\n````', ['const s = "```";']],
    ['  ```js\n  indented()\n  ```', ['  indented()']],
    ['```js\n\n```\n```ts\nconst n: number = 1\n```', ['const n: number = 1']],
    ['```json\n{"a":1}\n```', []],
  ];
  for (const [reply, expected] of cases)
    assert.deepEqual(
      extractCodeBlocks(/** @type {string} */ (reply)).map((b) => b.code),
      expected,
      String(reply),
    );
  assert.equal(extractCodeBlocks('```js\nx\n```')[0].closed, true);
  assert.equal(extractCodeBlocks('```js\nx')[0].closed, false);
});

test('adapts Python-isms but leaves strings and comments alone', () => {
  const cases = [
    ['print "hello"', 'print("hello");'],
    ['  print x', '  print(x);'],
    ['x = True\ny = False\nz = None', 'x = true\ny = false\nz = null'],
    ['print(f"Hello {name}!")', 'print(`Hello ${name}!`)'],
    ["msg = f'{a} and {{b}}'", 'msg = `${a} and {b}`'],
    ['# a comment\nprint(1)', '// a comment\nprint(1)'],
    ['s = "True stays True"; t = \'None\'', 's = "True stays True"; t = \'None\''],
    ['// True in a comment\nobj.True = 1', '// True in a comment\nobj.True = 1'],
    ['const url = "http://x/#anchor"', 'const url = "http://x/#anchor"'],
    ['print(x)', 'print(x)'],
    ['const printer = 1', 'const printer = 1'],
    ['TrueValue = 1', 'TrueValue = 1'],
    ['`${True}`', '`${True}`'],
  ];
  for (const [input, expected] of cases) assert.equal(adaptPythonisms(input), expected, input);
});

test('codexPrompt lists tools as async functions', () => {
  const p = codexPrompt(
    createBuiltinRegistry()
      .list()
      .filter((t) => t.name === 'fs_write'),
  );
  assert.match(p, /await fs_write\(\{ path: string, content: string, mode\?: string \}\)/);
  assert.match(p, /```js/);
});

test('a Codex turn: the model writes code, tools run through the gates (approval), output goes back', async () => {
  const fs = new MemoryFileSystem();
  const store = new ConversationStore(fs, 'w');
  const conversation = await store.open((await store.create()).id);
  /** @type {string[]} */
  const approvals = [];
  const registry = createBuiltinRegistry();
  const tools = new ToolRunner({
    registry,
    context: { workspaceId: 'w', fs: new ScopedFileSystem(fs, 'clawser_workspaces/w'), settings: toolSettings(), fetch: globalThis.fetch },
    safety: new SafetyPipeline(),
    approve: async ({ tool }) => (approvals.push(tool), 'once'),
  });
  const sandbox = fakeSandbox();
  const codex = new Codex({ getSandbox: async () => sandbox });
  const provider = new ScriptedProvider(
    [
      {
        text:
          'Writing it.\n```js\nawait fs_write({ path: "notes/c.md", content: "from ' +
          'code" })\nprint(await fs_list({ path: "notes" }))\n```',
      },
      { text: 'Trying the forbidden.\n```js\nawait fs_read({ path: "../../x" })\n```' },
      { text: 'All done, notes/c.md exists.' },
    ],
    { nativeTools: false },
  );
  const agent = new ClawserAgent({ provider, conversation, tools, codex, safety: new SafetyPipeline() });
  const { text } = await agent.run('save a note with code');
  assert.equal(text, 'All done, notes/c.md exists.');
  assert.equal(await fs.readText('clawser_workspaces/w/notes/c.md'), 'from code');
  // Each block is a run_js call (approved like one), and the write inside asks too.
  assert.deepEqual(approvals, ['run_js', 'fs_write', 'run_js']);
  const results = conversation.events.filter((e) => e.type === 'tool_result');
  assert.equal(results.length, 2);
  assert.match(results[0].data.result, /c\.md \(9 B\)/);
  assert.equal(results[1].data.ok, false);
  assert.match(results[1].data.result, /ToolBlocked: Blocked by the safety check: Path traversal/);
  assert.match(provider.requests[0].system ?? '', /await fs_write\(/);
  assert.equal(provider.requests[0].tools, undefined, 'no native tools offered');
  const h = provider.requests[1].messages;
  assert.deepEqual(
    h.map((m) => m.role),
    ['user', 'assistant', 'tool'],
  );
});

/**
 * A Codex agent over a fresh workspace; `code` is the block the model writes.
 * @param {{code: string, policy?: 'auto' | 'approve' | 'denied', level?: 'full' | 'readonly' | 'supervised', hooks?: HookPipeline,
 *   approve?: (r: any) => Promise<'once' | 'always' | 'deny'>}} o
 */
async function codexGateSetup(o) {
  const fs = new MemoryFileSystem();
  const store = new ConversationStore(fs, 'w');
  const conversation = await store.open((await store.create()).id);
  const registry = createBuiltinRegistry();
  if (o.policy) registry.setPolicy('run_js', o.policy);
  registry.setPolicy('fs_write', 'auto');
  const autonomy = o.level ? new AutonomyController({ config: { level: o.level } }) : undefined;
  const tools = new ToolRunner({
    registry,
    context: { workspaceId: 'w', fs: new ScopedFileSystem(fs, 'clawser_workspaces/w'), settings: toolSettings(), fetch: globalThis.fetch },
    hooks: o.hooks,
    autonomy,
    approve: o.approve,
  });
  const sandbox = fakeSandbox();
  /** @type {string[]} */
  const ran = [];
  const codex = new Codex({ getSandbox: async () => (ran.push('sandbox'), sandbox) });
  const provider = new ScriptedProvider([{ text: `Code:\n\`\`\`js\n${o.code}\n\`\`\`` }, { text: 'Done.' }], { nativeTools: false });
  const agent = new ClawserAgent({ provider, conversation, tools, codex, hooks: o.hooks, autonomy });
  await agent.run('go');
  return { fs, conversation, ran, autonomy, result: conversation.events.find((e) => e.type === 'tool_result') };
}

const WRITE = 'await fs_write({ path: "g.md", content: "x" })';

test('Codex block: run_js turned off (policy denied) → the block does not run; control: policy auto runs it', async () => {
  const denied = await codexGateSetup({ code: WRITE, policy: 'denied' });
  assert.deepEqual(denied.ran, [], 'the sandbox was never used');
  assert.equal(await denied.fs.readText('clawser_workspaces/w/g.md').catch(() => null), null);
  assert.equal(denied.result?.data.ok, false);
  assert.equal(denied.result?.data.blocked, 'denied');
  const auto = await codexGateSetup({ code: WRITE, policy: 'auto' });
  assert.equal(await auto.fs.readText('clawser_workspaces/w/g.md'), 'x');
  assert.equal(auto.result?.data.ok, true);
});

test('Codex block: read-only autonomy refuses the code (run_js is a write tool); control: \
full autonomy runs it and counts one action per block', async () => {
  const ro = await codexGateSetup({ code: 'print(1)', policy: 'auto', level: 'readonly' });
  assert.deepEqual(ro.ran, []);
  assert.equal(ro.result?.data.blocked, 'autonomy');
  assert.ok(ro.conversation.events.some((e) => e.type === 'autonomy_blocked'));
  const full = await codexGateSetup({ code: 'print(1)', policy: 'auto', level: 'full' });
  assert.equal(full.result?.data.ok, true);
  assert.equal(full.autonomy?.usage.actions.length, 1, 'the block counts as an action');
});

test('Codex block: beforeToolCall hooks see it as a run_js call and can block it; control: an allowing hook lets it run', async () => {
  const hooks = new HookPipeline();
  /** @type {string[]} */
  const seen = [];
  hooks.register('beforeToolCall', (ctx) => {
    seen.push(ctx.name);
    return ctx.name === 'run_js' && String(ctx.args.code).includes('forbidden') ? { block: 'no code today' } : undefined;
  });
  const blocked = await codexGateSetup({ code: 'print("forbidden")', policy: 'auto', hooks });
  assert.deepEqual(seen, ['run_js']);
  assert.deepEqual(blocked.ran, []);
  assert.equal(blocked.result?.data.blocked, 'hook');
  seen.length = 0;
  const ok = await codexGateSetup({ code: WRITE, policy: 'auto', hooks });
  assert.deepEqual(seen, ['run_js', 'fs_write'], 'the inner tool call still passes the gates');
  assert.equal(ok.result?.data.ok, true);
});

test('Codex block under the default policy asks for approval showing the code; a denial means it does not run', async () => {
  /** @type {any[]} */
  const asked = [];
  const r = await codexGateSetup({ code: WRITE, approve: async (req) => (asked.push(req), 'deny') });
  assert.equal(asked[0].tool, 'run_js');
  assert.equal(asked[0].args.code, WRITE);
  assert.deepEqual(r.ran, []);
  assert.equal(r.result?.data.blocked, 'denied');
});

test("two Codex runs sharing a sandbox never swap each other's capabilities (a Run again during a turn); control: \
each sees its own runner", async () => {
  // Like andbox, this sandbox looks a capability up when the code calls it, not when it starts.
  const sb = {
    /** @type {Record<string, (args: any) => unknown>} */
    capabilities: {},
    /** @param {string} code */
    async evaluate(code) {
      const logs = /** @type {string[]} */ ([]);
      const fn = new (Object.getPrototypeOf(async () => {}).constructor)('print', 'probe', 'gate', code);
      const value = await fn(
        (/** @type {unknown} */ x) => logs.push(String(x)),
        (/** @type {any} */ a) => sb.capabilities.probe(a),
        () => /** @type {any} */ (globalThis).__codexGate,
      );
      return { value, logs, error: null, durationMs: 0 };
    },
  };
  /** @param {string} who */
  const runner = (who) =>
    // a stand-in ToolRunner
    /** @type {any} */ ({ registry: { list: () => [{ name: 'probe' }] }, run: async () => ({ ok: true, output: who }) });
  /** @type {() => void} */
  let open = () => {};
  /** @type {any} */ (globalThis).__codexGate = new Promise((r) => {
    open = () => r(undefined);
  });
  const codex = new Codex({ getSandbox: async () => sb });
  const turn = codex.run('await gate(); print(await probe({}))', { tools: runner('turn') });
  const again = codex.run('print(await probe({}))', { tools: runner('run again') });
  open();
  const [a, b] = await Promise.all([turn, again]);
  assert.equal(a.output, 'turn', "the turn's code still calls the turn's runner");
  assert.equal(b.output, 'run again');
});

test('Stop ends a run whose sandbox is still starting, and a sandbox that fails to start is a clear failed run, not a hang', async () => {
  // A sandbox that never starts (its frame never loads): Stop returns at once.
  const stuck = new Codex({ getSandbox: () => new Promise(() => {}) });
  const controller = new AbortController();
  const run = stuck.run('print(1)', { signal: controller.signal });
  controller.abort();
  const stopped = await run;
  assert.equal(stopped.ok, false);
  assert.equal(stopped.error, 'cancelled');
  // Control: a sandbox that starts runs the code.
  const ok = await new Codex({
    getSandbox: async () => ({ capabilities: {}, evaluate: async () => ({ value: 2, logs: ['hi'], error: null, durationMs: 1 }) }),
  }).run('print("hi"); 2');
  assert.equal(ok.ok, true);
  // A sandbox that cannot start: the run fails with the reason.
  const broken = new Codex({
    getSandbox: async () => {
      throw Object.assign(new Error('The code sandbox could not start: its frame did not load.'), { code: 'sandbox_unavailable' });
    },
  });
  const failed = await broken.run('print(1)');
  assert.equal(failed.ok, false);
  assert.match(failed.output, /^The code did not run: The code sandbox could not start/);
});
