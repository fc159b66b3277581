// PRD scenario 8, browsing augmentation, with the companion extension loaded (extension/, as
// tests/browser/extension.test.mjs loads it): the user has a Clawser project goal, a memory of it
// and a research file. Reading a WebAssembly article in another tab (the test's own site on
// 127.0.0.2), the user asks Clawser whether it is relevant: the agent reads the tab through the
// extension, the project memory is in its context, and it offers to save the finding. The save is
// asked for: denied, the file is unchanged; allowed, the finding is appended after what was there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { useFixture } from '../browser/fixture.mjs';
import { waitUntil } from '../fixtures/wait.mjs';
import { COMPANION_ID } from '../../web/net/companion.js';
import { toolResults, turn, workspaceFile } from './scenario.mjs';

const EXTENSION = fileURLToPath(new URL('../../extension', import.meta.url));

const fx = await useFixture({
  llm: {},
  browser: { extensions: [EXTENSION] },
  // The extension's worker runs before the app's page is made, so the page gets `chrome.runtime`.
  beforePage: async (f) => {
    const ours = (/** @type {{url(): string}} */ w) => w.url().startsWith(`chrome-extension://${COMPANION_ID}/`);
    if (!f.context.serviceWorkers().some(ours)) await f.context.waitForEvent('serviceworker', { predicate: ours });
  },
  settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1`, autonomy: 'full' }),
});
const { llm, page, context } = fx;

const ARTICLE =
  '<!doctype html><title>WebAssembly optimizations</title><main><h1>Faster WebAssembly</h1>' +
  '<p>Compile with SIMD enabled and strip debug sections: binaries shrink by a third.</p></main>';
const site = createServer((req, res) => {
  res.writeHead(req.url === '/wasm.html' ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
  res.end(req.url === '/wasm.html' ? ARTICLE : 'not found');
});
await new Promise((resolve) => site.listen(0, '127.0.0.2', () => resolve(undefined)));
fx.defer(
  () =>
    new Promise((resolve) => {
      site.closeAllConnections();
      site.close(() => resolve(undefined));
    }),
);
const ARTICLE_URL = `http://127.0.0.2:${/** @type {import('node:net').AddressInfo} */ (site.address()).port}/wasm.html`;

const EXISTING = '# WASM research\n\n- The shell is compiled to WebAssembly (2026-10)\n';
const FINDING = '- Compile with SIMD and strip debug sections: a third smaller (from the WebAssembly optimizations article)\n';
const MEMORY = 'The Clawser project compiles its shell to WebAssembly; its research notes are in artifacts/wasm-research.md';

/** The extension's number for the tab showing `url` (what the model learns from tabs_list). @param {string} url */
async function tabIdOf(url) {
  /** @type {number | undefined} */
  let id;
  await waitUntil(async () => {
    const reply = await page.evaluate(
      ({ id }) =>
        new Promise((resolve) =>
          /** @type {any} */ (globalThis).chrome.runtime.sendMessage(
            id,
            { v: 1, session: 'scenario-8', command: 'tabs_list', params: {} },
            resolve,
          ),
        ),
      { id: COMPANION_ID },
    );
    id = /** @type {any} */ (reply).result?.tabs.find((/** @type {any} */ t) => t.url === url && t.status === 'complete')?.tabId;
    return id !== undefined;
  }, `the extension to list ${url}`);
  return /** @type {number} */ (id);
}

test('earlier: the Clawser project is a goal, a memory and a research file', async () => {
  await turn(
    page,
    llm,
    'I am working on my Clawser project: its shell runs on WebAssembly. Keep notes.',
    [
      {
        toolCalls: [
          { id: 'g1', name: 'goal_add', arguments: { description: 'Clawser project: a faster WebAssembly shell' } },
          { id: 'm1', name: 'memory_store', arguments: { key: 'Clawser project', content: MEMORY, category: 'context' } },
          { id: 'w1', name: 'fs_write', arguments: { path: 'artifacts/wasm-research.md', content: EXISTING } },
        ],
      },
      { text: 'Noted your project.' },
    ],
    'Noted your project.',
    { answer: 'once' },
  );
  assert.equal(await workspaceFile(page, 'artifacts/wasm-research.md'), EXISTING);
});

test('reading an article in another tab: the agent reads it and connects it to the project from memory', async () => {
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  const tab = await context.newPage();
  await tab.goto(ARTICLE_URL);
  const tabId = await tabIdOf(ARTICLE_URL);
  await page.bringToFront();
  const before = llm.requests.length;
  const asked = await turn(
    page,
    llm,
    'Is this WebAssembly article relevant to my Clawser project?',
    [
      { toolCalls: [{ id: 't1', name: 'tab_read', arguments: { tabId } }] },
      { text: 'This WASM optimization technique is relevant to your Clawser project. Save it to artifacts/wasm-research.md?' },
    ],
    'This WASM optimization technique is relevant',
    { answer: 'once' },
  );
  assert.deepEqual(asked, ['tab_read'], 'reading another tab is asked for');
  assert.match((await toolResults(page)).t1.result, /Compile with SIMD enabled and strip debug sections/);
  assert.match(llm.requests[before].body.messages[0].content, /Relevant long-term memories[\s\S]*\[context\] Clawser project: The Clawser/);
  await tab.close();
});

test('saving the finding needs the user: denied, nothing changes; allowed, it is appended after the existing notes', async () => {
  const save = [
    { toolCalls: [{ id: 'a1', name: 'fs_write', arguments: { path: 'artifacts/wasm-research.md', content: FINDING, mode: 'append' } }] },
    { text: 'Done with the note.' },
  ];
  const denied = await turn(page, llm, 'Hmm, save it.', save, 'Done with the note.', { answer: 'deny' });
  assert.deepEqual(denied, ['fs_write']);
  assert.equal((await toolResults(page)).a1?.ok, false);
  assert.equal(await workspaceFile(page, 'artifacts/wasm-research.md'), EXISTING, 'denied: unchanged');
  const save2 = [{ ...save[0], toolCalls: [{ ...save[0].toolCalls?.[0], id: 'a2' }] }, { text: 'Saved the note.' }];
  const allowed = await turn(page, llm, 'Yes, really save it.', /** @type {any} */ (save2), 'Saved the note.', { answer: 'once' });
  assert.deepEqual(allowed, ['fs_write']);
  assert.equal(await workspaceFile(page, 'artifacts/wasm-research.md'), `${EXISTING}${FINDING}`, 'appended; what was there is kept');
});
