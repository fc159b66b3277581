// Agents that work together and can be taken back: self-repair of a stuck run, named agents
// and @mentions, sub-agents, per-turn undo/redo and the heartbeat, in the real page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, startApp, openWorkspace, sendMessage } from './helpers.mjs';
import { startLlmServer } from '../fixtures/llm-server.mjs';

/** @type {Awaited<ReturnType<typeof startApp>>} */ let app;
/** @type {Awaited<ReturnType<typeof startLlmServer>>} */ let llm;
/** @type {Awaited<ReturnType<typeof launchBrowser>>} */ let browser;
/** @type {import('playwright-core').Page} */ let page;

before(async () => {
  app = await startApp();
  llm = await startLlmServer();
  browser = await launchBrowser();
  page = await openWorkspace(browser.context, app.url, { provider: 'openai', model: 'gpt-4o', apiKey: 'sk-test-agents-key', baseUrl: `${llm.url}/v1`, autonomy: 'full' });
});
after(async () => {
  await browser?.close();
  await app?.close();
  await llm?.close();
});

test('a looping model is told it is stuck, then stopped by self-repair; Continue anyway lets it finish', async () => {
  await page.getByRole('button', { name: 'New conversation' }).click();
  const loop = (/** @type {number} */ i) => ({ toolCalls: [{ id: `loop${i}`, name: 'fs_list', arguments: { path: '/' } }] });
  llm.enqueue(loop(1), loop(2), loop(3), loop(4), loop(5));
  const before = llm.requests.length;
  await sendMessage(page, 'list my files until you find something');
  const stopped = page.getByRole('alert').filter({ hasText: 'this run looked stuck' });
  await stopped.waitFor();
  await page.getByText(/Self-repair: .*fs_list.* was called with the same arguments 3 times/).waitFor();
  assert.equal(llm.requests.length - before, 4, 'three calls, a warning, one more call, stopped');
  assert.match(JSON.stringify(llm.requests.at(-1)?.body.messages[0]), /Note from Clawser.*looks stuck/);
  // The fifth scripted call was never asked for: continuing gets a fresh watch.
  llm.reset();
  llm.enqueue({ text: 'Nothing found; the workspace is empty.' });
  await stopped.getByRole('button', { name: 'Continue anyway' }).click();
  await page.getByText('Nothing found; the workspace is empty.').waitFor();
  assert.equal(await page.getByRole('button', { name: 'Continue anyway' }).count(), 0);
});
