// Python in the sandbox (issue 39 §4) in a real Chromium: Pyodide from web/vendor/pyodide/ in andbox's
// opaque-origin frame. From the chat (Echo's ```python blocks, through run_python's gates) and from the
// package (limits, Stop, no network). Every request the browser makes is recorded: none leaves 127.0.0.1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { offMachine, readWorkspaceFile, sendMessage, waitInPage, writeWorkspaceFile } from './helpers.mjs';
import { useFixture } from './fixture.mjs';

const fx = await useFixture({ page: 'workspace' });
const { page, browser } = fx;

// A server on this machine that counts what reaches it: sandboxed Python must never get there.
let probeHits = 0;
const probe = createServer((req, res) => {
  probeHits++;
  res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' });
  res.end('reached');
});
await new Promise((resolve) => probe.listen(0, '127.0.0.1', () => resolve(undefined)));
const probeUrl = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (probe.address()).port}/probe`;
fx.defer(() => new Promise((resolve) => probe.close(() => resolve(undefined))));

await page.getByRole('button', { name: 'Try Echo' }).click();
await page.getByText('Echo · test provider, no AI').waitFor();

/** Sends a Python block and allows it; resolves once Echo repeats its output. @param {string} code @param {string} [fence] */
async function runBlock(code, fence = 'python') {
  const replies = page.getByText(/^Echo: your code printed:/);
  const before = await replies.count();
  await sendMessage(page, `\`\`\`${fence}\n${code}\n\`\`\``);
  await page.getByRole('dialog', { name: 'Allow “run_python”?' }).getByRole('button', { name: 'Allow once' }).click();
  return replies.nth(before);
}

/** The output of the last code card. */
const lastOutput = () => page.locator('.code-card').last().locator('.tool-output').last().innerText();

test('a Python block prints and computes; the card shows the code as Python', async () => {
  const reply = await runBlock('import statistics\nprint("mean", statistics.mean([1, 2, 3, 4]))\n6 * 7');
  await reply.waitFor();
  assert.equal(await lastOutput(), 'mean 2.5\n=> 42');
  const card = page.locator('.code-card').last();
  assert.equal(await card.locator('.tool-name').innerText(), 'python');
  assert.equal(await card.locator('code.language-python').count(), 1);
  assert.match(await card.locator('.tool-state').innerText(), /✓/);
});

test('workspace files are in the current folder: Python reads them', async () => {
  await writeWorkspaceFile(page, 'data/numbers.csv', 'a,b\n1,2\n3,4\n');
  const reply = await runBlock(
    'import csv\nrows = list(csv.DictReader(open("data/numbers.csv")))\nprint("sum of b:", sum(int(r["b"]) for r in rows))',
  );
  await reply.waitFor();
  assert.equal(await lastOutput(), 'sum of b: 6');
});

test('a write is refused unless the block asks for it and the write is approved; control: the approved write lands', async () => {
  const write = 'with open("py-note.txt", "w") as f:\n    f.write("from python")\nprint("wrote")';
  // Read-only: the file system refuses the write, nothing reaches the workspace.
  const refused = await runBlock(
    `try:\n${write.replace(/^/gm, '    ')}\nexcept PermissionError as e:\n    print("refused:", type(e).__name__)`,
  );
  await refused.waitFor();
  assert.equal(await lastOutput(), 'refused: PermissionError');
  assert.equal(await readWorkspaceFile(page, 'py-note.txt'), null);
  // ```python write, but the save (fs_write through the gates) is denied: still nothing.
  await sendMessage(page, `\`\`\`python write\n${write}\n\`\`\``);
  await page.getByRole('dialog', { name: 'Allow “run_python”?' }).getByRole('button', { name: 'Allow once' }).click();
  const save = page.getByRole('dialog', { name: 'Allow “fs_write”?' });
  await save.waitFor();
  assert.match(await save.locator('pre').innerText(), /"path": "py-note.txt"/);
  await save.getByRole('button', { name: 'Deny' }).click();
  await page.locator('.code-card').last().locator('.tool-output', { hasText: 'py-note.txt: not saved' }).waitFor();
  assert.equal(await readWorkspaceFile(page, 'py-note.txt'), null);
  // Control: the same block with the save approved lands in the workspace.
  await sendMessage(page, `\`\`\`python write\n${write}\n\`\`\``);
  await page.getByRole('dialog', { name: 'Allow “run_python”?' }).getByRole('button', { name: 'Allow once' }).click();
  await page.getByRole('dialog', { name: 'Allow “fs_write”?' }).getByRole('button', { name: 'Allow once' }).click();
  await page.locator('.code-card').last().locator('.tool-output', { hasText: 'py-note.txt: saved' }).waitFor();
  assert.equal(await readWorkspaceFile(page, 'py-note.txt'), 'from python');
});

test('a package the npm distribution does not ship gives a clear message (numpy, matplotlib); nothing is downloaded', async () => {
  for (const name of ['numpy', 'matplotlib']) {
    const reply = await runBlock(`import ${name === 'matplotlib' ? 'matplotlib.pyplot as plt' : name}`);
    await reply.waitFor();
    const out = await lastOutput();
    assert.match(out, new RegExp(`ModuleNotFoundError: No module named '${name}`));
    assert.match(out, new RegExp(`The Python package “${name}” is not available here\\. .*standard library only`));
    assert.doesNotMatch(out, /micropip|loadPackage/);
  }
});

test('output streams to the chat while Python runs; Stop ends the run; the next block runs', async () => {
  await sendMessage(page, '```python\nprint("looping")\nwhile True:\n    pass\n```');
  await page.getByRole('dialog', { name: 'Allow “run_python”?' }).getByRole('button', { name: 'Allow once' }).click();
  const card = page.locator('.code-card', { hasText: 'while True' }).last();
  await card.waitFor();
  // The printed line is in the chat's status while the loop still runs (it never ends by itself).
  await page.getByText('run_python: looping').waitFor();
  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  await card.locator('.tool-state', { hasText: '✗' }).waitFor();
  const reply = await runBlock('print("after stop", 1 + 1)');
  await reply.waitFor();
  assert.equal(await lastOutput(), 'after stop 2');
});

/** Runs code in a Python sandbox of the page (created once). @param {string} code @param {Record<string, unknown>} [options] */
const py = (code, options = {}) =>
  page.evaluate(
    async ([c, o]) => {
      const w = /** @type {any} */ (window);
      const { createPythonSandbox, pyodideSnapshotUrl } = await import('/web/packages/andbox/python.js');
      const { RuntimeCache } = await import('/web/storage/runtime-cache.js');
      w.__py ??= await createPythonSandbox({ snapshots: new RuntimeCache(pyodideSnapshotUrl()) });
      return w.__py.run(c, o);
    },
    /** @type {const} */ ([code, options]),
  );

test('what the npm distribution ships loads offline: the standard library, sqlite3, zlib and hashlib included', async () => {
  const code = [
    'import sqlite3, zlib, hashlib, decimal, datetime',
    'db = sqlite3.connect(":memory:")',
    'db.execute("create table t (n)")',
    'db.executemany("insert into t values (?)", [(1,), (2,), (3,)])',
    'print(db.execute("select sum(n) from t").fetchone()[0])',
    'print(len(zlib.compress(b"a" * 1000)) < 100, hashlib.sha256(b"x").hexdigest()[:8])',
    'print(decimal.Decimal("0.1") + decimal.Decimal("0.2"), datetime.date(2026, 1, 1).isoformat())',
  ].join('\n');
  const r = await py(code);
  assert.equal(r.ok, true, JSON.stringify(r.error));
  assert.deepEqual(r.logs, ['6', 'True 2d711642', '0.3 2026-01-01']);
});

test('the time limit kills an infinite loop; the sandbox runs again afterwards', async () => {
  const r = await py('while True:\n    pass', { timeoutMs: 1500 });
  assert.equal(r.ok, false);
  assert.equal(r.error?.name, 'TimeoutError');
  const again = await py('print("alive")');
  assert.deepEqual(again.logs, ['alive']);
});

test('Stop (an aborted signal) ends a run at once', async () => {
  const r = await page.evaluate(async () => {
    const w = /** @type {any} */ (window);
    const stop = new AbortController();
    const lines = /** @type {string[]} */ ([]);
    const run = w.__py.run('import time\nprint("started")\nwhile True:\n    time.sleep(0.01)', {
      signal: stop.signal,
      onOutput: (/** @type {string} */ _s, /** @type {string} */ t) => {
        lines.push(t);
        stop.abort();
      },
    });
    const result = await run;
    return { result, lines };
  });
  // Output streamed while it ran (the abort came from the first line).
  assert.deepEqual(r.lines, ['started']);
  assert.equal(r.result.error?.name, 'AbortError');
  assert.deepEqual((await py('print(3 * 3)')).logs, ['9']);
});

test('the memory limit stops a run that allocates past it; control: an allocation under it succeeds', async () => {
  const limit = 256 * 2 ** 20;
  const over = await py('x = bytearray(400 * 1024 * 1024)\nprint(len(x))', { memoryLimitBytes: limit });
  assert.equal(over.error?.name, 'MemoryLimitError');
  const under = await py('y = bytearray(16 * 1024 * 1024)\nprint(len(y))', { memoryLimitBytes: limit });
  assert.deepEqual(under.logs, [String(16 * 1024 * 1024)]);
});

test('Python reaches no network: fetch and urllib fail inside; control: the page reaches the same URL', async () => {
  const code = [
    'import js, urllib.request',
    'out = []',
    'try:',
    `    await js.fetch(${JSON.stringify(probeUrl)})`,
    '    out.append("fetch: reached")',
    'except Exception as e:',
    '    out.append("fetch: " + str(e)[:60])',
    'try:',
    `    urllib.request.urlopen(${JSON.stringify(probeUrl)})`,
    '    out.append("urllib: reached")',
    'except Exception as e:',
    '    out.append("urllib: " + type(e).__name__)',
    'print("\\n".join(out))',
  ].join('\n');
  const r = await py(code);
  assert.equal(r.ok, true, JSON.stringify(r.error));
  assert.match(r.logs.join('\n'), /fetch: .*No network in Clawser's Python sandbox/);
  assert.doesNotMatch(r.logs.join('\n'), /reached/);
  assert.equal(probeHits, 0);
  // Control: the same URL from the page does reach the server.
  assert.equal(await page.evaluate((u) => fetch(u).then((x) => x.text()), probeUrl), 'reached');
  assert.equal(probeHits, 1);
});

test('a damaged memory snapshot is not used: Python starts from scratch and replaces it', async () => {
  const r = await page.evaluate(async () => {
    const { createPythonSandbox, pyodideSnapshotUrl } = await import('/web/packages/andbox/python.js');
    const { RuntimeCache } = await import('/web/storage/runtime-cache.js');
    const store = new RuntimeCache(pyodideSnapshotUrl());
    await store.put(new Uint8Array(4096).fill(7).buffer);
    const sb = await createPythonSandbox({ snapshots: store });
    const run = await sb.run('print(sum(range(10)))');
    sb.dispose();
    return { logs: run.logs };
  });
  assert.deepEqual(r.logs, ['45']);
  // The fresh start's snapshot is stored as it arrives (not awaited by the run): a real one replaces the damaged one.
  await waitInPage(
    page,
    async () => {
      const { pyodideSnapshotUrl } = await import('/web/packages/andbox/python.js');
      const { RuntimeCache } = await import('/web/storage/runtime-cache.js');
      return ((await new RuntimeCache(pyodideSnapshotUrl()).get())?.byteLength ?? 0) > 1_000_000;
    },
    undefined,
    { what: 'a real snapshot in place of the damaged one' },
  );
});

test('once Python has run, the service worker keeps its runtime: Python runs offline', async () => {
  // The page is the service worker's (clients.claim): the runtime's files go through it.
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  const first = await page.evaluate(async () => {
    const { createPythonSandbox } = await import('/web/packages/andbox/python.js');
    const sb = await createPythonSandbox();
    const r = await sb.run('print("online")');
    sb.dispose();
    const kept = await (await caches.open('clawser-runtime-pyodide')).keys();
    return { logs: r.logs, kept: kept.map((k) => new URL(k.url).pathname.split('/').pop()).sort() };
  });
  assert.deepEqual(first.logs, ['online']);
  // The runtime's files, and the memory snapshot the first start made (later starts skip initialising Python).
  assert.deepEqual(first.kept, [
    'memory-snapshot',
    'pyodide-lock.json',
    'pyodide.asm.mjs',
    'pyodide.asm.wasm',
    'pyodide.mjs',
    'python_stdlib.zip',
  ]);
  await fx.context.setOffline(true);
  try {
    const offline = await fx.newPage();
    await offline.goto(`${fx.url}#home`);
    const logs = await offline.evaluate(async () => {
      const { createPythonSandbox, pyodideSnapshotUrl } = await import('/web/packages/andbox/python.js');
      const { RuntimeCache } = await import('/web/storage/runtime-cache.js');
      const sb = await createPythonSandbox({ snapshots: new RuntimeCache(pyodideSnapshotUrl()) });
      const r = await sb.run('import json\nprint(json.dumps({"offline": True}))');
      sb.dispose();
      return r.logs;
    });
    assert.deepEqual(logs, ['{"offline": true}']);
    await offline.close();
  } finally {
    await fx.context.setOffline(false);
  }
});

test('no request left 127.0.0.1 (control: Pyodide’s runtime was fetched from the app)', () => {
  assert.ok(browser.requests.some((u) => u.includes('/web/vendor/pyodide/pyodide.asm.wasm')));
  assert.deepEqual(offMachine(browser.requests), []);
  assert.deepEqual(
    browser.requests.filter((u) => /jsdelivr|pyodide\.org|pypi/.test(u)),
    [],
  );
});
