// Python in the sandbox (issue 39 §4), the parts that run in Node: error texts, the Codex's Python
// blocks, the workspace files a run gets, run_python's write-back through the gates, and the vendored
// runtime's bookkeeping (version, files, not precached). The sandbox itself: tests/browser/python.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import {
  cleanTraceback,
  explainError,
  missingModule,
  PYODIDE_FILES,
  PYODIDE_VERSION,
  pyodideUrls,
} from '../../web/packages/andbox/python.js';
import { codeCalls, codexPrompt, codexPython, codexTools, extractCodeBlocks } from '../../web/agent/runtime/codex.js';
import { PYTHON_MOUNT, workspaceFiles } from '../../web/tools/code.js';
import { ToolRunner } from '../../web/agent/runtime/tool-runner.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { ScopedFileSystem } from '../../web/storage/scoped-fs.js';
import { ProtectedFileSystem } from '../../web/storage/protected-fs.js';
import { SafetyPipeline } from '../../web/safety/pipeline.js';
import { createBuiltinRegistry, toolSettings } from '../../web/tools/index.js';
import { PYODIDE_FILES as VENDORED } from '../../scripts/vendor.mjs';
import { buildPrecacheManifest, notForTheBrowser } from '../../scripts/build-manifest.mjs';
import { RuntimeCache } from '../../web/storage/runtime-cache.js';
import { pyodideSnapshotUrl } from '../../web/packages/andbox/python.js';

const TRACEBACK = [
  'Traceback (most recent call last):',
  '  File "/lib/python314.zip/_pyodide/_base.py", line 597, in eval_code_async',
  '    await CodeRunner(',
  '    ...<9 lines>...',
  '  File "/lib/python314.zip/_pyodide/_base.py", line 411, in run_async',
  '    coroutine = eval(self.code, globals, locals)',
  '  File "<code>", line 2, in <module>',
  '    import numpy',
  "ModuleNotFoundError: No module named 'numpy'",
  "The module 'numpy' is included in the Pyodide distribution, but it is not installed.",
  'You can install it by calling:',
  '  await micropip.install("numpy") in Python, or',
  '  await pyodide.loadPackage("numpy") in JavaScript',
  'See https://pyodide.org/en/stable/usage/loading-packages.html for more details.',
].join('\n');

test("a traceback keeps the user's frames only", () => {
  const clean = cleanTraceback(TRACEBACK);
  assert.doesNotMatch(clean, /_pyodide|CodeRunner/);
  assert.match(
    clean,
    /^Traceback \(most recent call last\):\n {2}File "<code>", line 2, in <module>\n {4}import numpy\nModuleNotFoundError/,
  );
  // Not a traceback (a syntax error's text, a limit): unchanged.
  assert.equal(cleanTraceback('The code ran longer than 10 ms and was stopped.'), 'The code ran longer than 10 ms and was stopped.');
});

test('a missing package is explained (not shipped, never downloaded), without the hint to install it', () => {
  assert.equal(missingModule(TRACEBACK), 'numpy');
  assert.equal(missingModule("ModuleNotFoundError: No module named 'matplotlib.pyplot'"), 'matplotlib.pyplot');
  assert.equal(missingModule('NameError: name x is not defined'), null);
  const text = explainError({ name: 'ModuleNotFoundError', message: TRACEBACK });
  assert.match(text, /No module named 'numpy'\nThe Python package “numpy” is not available here\. .*standard library only/);
  assert.match(text, /matplotlib/);
  assert.doesNotMatch(text, /micropip|loadPackage|You can install/);
  const sub = explainError({ name: 'ModuleNotFoundError', message: "ModuleNotFoundError: No module named 'matplotlib.pyplot'" });
  assert.match(sub, /“matplotlib” is not available/);
  // Control: another error is left as it is.
  assert.equal(
    explainError({ name: 'ZeroDivisionError', message: 'ZeroDivisionError: division by zero' }),
    'ZeroDivisionError: division by zero',
  );
});

test('the Codex runs ```python blocks as run_python calls (```python write asks to save); JavaScript blocks stay run_js', () => {
  const reply = 'First\n```python\nprint(1)\n```\n```py write\nopen("a", "w")\n```\n```js\nprint(2)\n```';
  assert.deepEqual(
    extractCodeBlocks(reply).map((b) => [b.lang, b.code, b.write ?? false]),
    [
      ['python', 'print(1)', false],
      ['py', 'open("a", "w")', true],
      ['js', 'print(2)', false],
    ],
  );
  assert.deepEqual(
    codeCalls(reply, 'c').map((c) => [c.name, c.arguments]),
    [
      ['run_python', { code: 'print(1)' }],
      ['run_python', { code: 'open("a", "w")', write: true }],
      ['run_js', { code: 'print(2)' }],
    ],
  );
  const registry = createBuiltinRegistry();
  // Code does not start more code: run_python is not one of the functions JavaScript may call.
  assert.equal(
    codexTools(registry).some((t) => t.name === 'run_python' || t.name === 'run_js'),
    false,
  );
  assert.equal(codexPython(registry), true);
  const prompt = codexPrompt([], { python: true });
  assert.match(prompt, /```python block/);
  assert.match(prompt, /standard library only \(no\nnumpy, pandas or matplotlib/);
  assert.match(prompt, /```python write/);
  assert.doesNotMatch(codexPrompt([]), /```python/);
});

test("a run gets the workspace's files but Clawser's own folders and .git, within the limits", async () => {
  const mem = new MemoryFileSystem();
  const ws = new ProtectedFileSystem(new ScopedFileSystem(mem, 'clawser_workspaces/w'));
  await mem.write('clawser_workspaces/w/notes/a.md', 'alpha');
  await mem.write('clawser_workspaces/w/data.csv', 'x,y');
  await mem.write('clawser_workspaces/w/.git/HEAD', 'ref: refs/heads/main');
  await mem.write('clawser_workspaces/w/.memory/m.json', '{}');
  await mem.write('clawser_workspaces/w/big.bin', 'x'.repeat(100));
  const { files, skipped } = await workspaceFiles(ws, { ...PYTHON_MOUNT, maxFileBytes: 50 });
  assert.deepEqual(files.map((f) => [f.path, new TextDecoder().decode(f.data)]).sort(), [
    ['data.csv', 'x,y'],
    ['notes/a.md', 'alpha'],
  ]);
  assert.deepEqual(skipped, ['big.bin']);
});

/** A runner with the real tools over a memory workspace; run_python's sandbox is a stand-in that "writes" out.txt. */
async function pythonRunner(answers = /** @type {Record<string, 'once' | 'deny'>} */ ({}), fail = false) {
  const mem = new MemoryFileSystem();
  await mem.write('clawser_workspaces/w/in.txt', 'input');
  /** @type {string[]} */
  const asked = [];
  /** @type {any[]} */
  const runs = [];
  const tools = new ToolRunner({
    registry: createBuiltinRegistry(),
    context: { workspaceId: 'w', fs: new ScopedFileSystem(mem, 'clawser_workspaces/w'), settings: toolSettings(), fetch: globalThis.fetch },
    safety: new SafetyPipeline(),
    approve: async ({ tool }) => (asked.push(tool), answers[tool] ?? 'once'),
  });
  let n = 0;
  tools.context.callTool = async (name, args, signal) => {
    const o = await tools.run({ id: `nested_${n++}`, name, arguments: args }, { signal });
    return { ok: o.ok, output: o.output };
  };
  tools.context.runPython = async (code, o) => {
    runs.push({ code, ...o });
    return {
      ok: !fail,
      logs: ['ran'],
      value: fail ? undefined : 42,
      error: fail ? { name: 'ValueError', message: 'Traceback (most recent call last):\nValueError: half way' } : null,
      written: o.writable ? [{ path: 'out.txt', data: new TextEncoder().encode('from python') }] : [],
      deleted: o.writable ? ['in.txt'] : [],
      durationMs: 1,
    };
  };
  return { mem, tools, asked, runs };
}

test('run_python: files mounted, output and value shown; a read-only run saves nothing', async () => {
  const { mem, tools, asked, runs } = await pythonRunner();
  const r = await tools.run({ id: 'p1', name: 'run_python', arguments: { code: 'print(1)' } });
  assert.equal(r.ok, true, r.output);
  assert.equal(r.output, 'ran\n=> 42');
  assert.deepEqual(asked, ['run_python']);
  assert.equal(runs[0].writable, false);
  assert.deepEqual(
    runs[0].files.map((/** @type {{path: string}} */ f) => f.path),
    ['in.txt'],
  );
  assert.equal(await mem.stat('clawser_workspaces/w/out.txt'), null);
});

test('run_python write: each save goes through fs_write / fs_delete and their approval; denied saves do not land \
(control: approved ones do)', async () => {
  const denied = await pythonRunner({ fs_write: 'deny', fs_delete: 'deny' });
  const r = await denied.tools.run({ id: 'p2', name: 'run_python', arguments: { code: 'x', write: true } });
  assert.equal(r.ok, false);
  assert.match(r.output, /out\.txt: not saved — .*denied/i);
  assert.match(r.output, /in\.txt: not deleted/);
  assert.deepEqual(denied.asked, ['run_python', 'fs_write', 'fs_delete']);
  assert.equal(await denied.mem.stat('clawser_workspaces/w/out.txt'), null);
  assert.equal(await denied.mem.readText('clawser_workspaces/w/in.txt'), 'input');

  const allowed = await pythonRunner();
  const ok = await allowed.tools.run({ id: 'p3', name: 'run_python', arguments: { code: 'x', write: true } });
  assert.equal(ok.ok, true, ok.output);
  assert.match(ok.output, /out\.txt: saved\nin\.txt: deleted/);
  assert.equal(await allowed.mem.readText('clawser_workspaces/w/out.txt'), 'from python');
  assert.equal(await allowed.mem.stat('clawser_workspaces/w/in.txt'), null);
});

test('the vendored Pyodide: the version package.json pins, the files vendor.mjs copies, kept out of the precache', async () => {
  const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'));
  assert.equal(pkg.dependencies.pyodide, PYODIDE_VERSION);
  assert.deepEqual(VENDORED, PYODIDE_FILES);
  const urls = pyodideUrls('/base/');
  assert.equal(urls['pyodide.asm.wasm'], `/base/pyodide.asm.wasm?v=${PYODIDE_VERSION}`);
  assert.equal(notForTheBrowser('web/vendor/pyodide/pyodide.asm.wasm'), true);
  const manifest = await buildPrecacheManifest();
  assert.deepEqual(
    manifest.files.filter((f) => f.includes('vendor/pyodide/')),
    [],
  );
  // Control: the Python runtime's own modules are precached (they are small and start every Python sandbox).
  assert.ok(manifest.files.includes('./web/packages/andbox/python-runtime.js'));
  assert.ok(manifest.files.includes('./web/packages/andbox/python.js'));
});

test('run_python write: a run that failed saves nothing (its files may be half written), and asks nothing', async () => {
  const { mem, tools, asked } = await pythonRunner({}, true);
  const r = await tools.run({ id: 'p4', name: 'run_python', arguments: { code: 'x', write: true } });
  assert.equal(r.ok, false);
  assert.match(r.output, /ValueError: half way\n\(the code failed: none of its file changes were saved\)/);
  assert.deepEqual(asked, ['run_python']);
  assert.equal(await mem.stat('clawser_workspaces/w/out.txt'), null);
  assert.equal(await mem.readText('clawser_workspaces/w/in.txt'), 'input');
});

/** Cache Storage as far as RuntimeCache uses it (Node has none), one cache per name. */
function memoryCaches() {
  /** @type {Map<string, Map<string, Response>>} */
  const all = new Map();
  const open = async (/** @type {string} */ name) => {
    const entries = all.get(name) ?? new Map();
    all.set(name, entries);
    return {
      match: async (/** @type {string} */ url) => entries.get(url)?.clone(),
      keys: async () => [...entries.keys()].map((url) => ({ url })),
      delete: async (/** @type {{url: string}} */ r) => entries.delete(r.url),
      put: async (/** @type {string} */ url, /** @type {Response} */ res) => void entries.set(url, res),
    };
  };
  return { all, caches: /** @type {CacheStorage} */ (/** @type {unknown} */ ({ open })) };
}

test("the memory snapshot's cache: kept by version, an older version's copy removed, nothing on failure", async () => {
  const { all, caches } = memoryCaches();
  const old = new RuntimeCache('https://app.test/web/vendor/pyodide/memory-snapshot?v=1', { caches });
  assert.equal(await old.get(), null);
  await old.put(new Uint8Array([1, 2]).buffer);
  assert.deepEqual([...new Uint8Array(/** @type {ArrayBuffer} */ (await old.get()))], [1, 2]);
  const next = new RuntimeCache(pyodideSnapshotUrl('https://app.test/web/vendor/pyodide/'), { caches });
  assert.match(next.url, /memory-snapshot\?v=314\./);
  assert.equal(await next.get(), null, 'another version is another entry');
  await next.put(new Uint8Array([3]).buffer);
  assert.deepEqual([...(all.get('clawser-runtime-pyodide')?.keys() ?? [])], [next.url]);
  // Cache Storage unavailable or failing: no snapshot, no error (Python starts from scratch).
  const broken = new RuntimeCache(next.url, {
    caches: /** @type {CacheStorage} */ (/** @type {unknown} */ ({ open: () => Promise.reject(new Error('no')) })),
  });
  assert.equal(await broken.get(), null);
  await broken.put(new Uint8Array([4]).buffer);
});
