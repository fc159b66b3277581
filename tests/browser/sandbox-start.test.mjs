// A Codex turn (Echo runs the code) whose sandbox cannot start, seen from the chat: the code
// card ends with a clear error and the composer is free again within the sandbox's start
// time-out; Stop while the sandbox is still starting ends the run at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sendMessage } from './helpers.mjs';
import { useFixture } from './fixture.mjs';
import { FRAME_START_TIMEOUT_MS } from '../../web/packages/andbox/index.js';

// Each test starts a browser of its own.
const fx = await useFixture({ browser: false });
const { app } = fx;

/** The sandbox frame's document (as offline before the browser ever kept a copy of it). */
const FRAME = '**/andbox/frame.html*';
/** Room for a loaded machine on top of a bound; never a timing claim of its own. */
const MARGIN_MS = 20_000;

/**
 * A fresh browser (no copy of the frame kept) on a workspace chat with Echo, its sandbox frame's
 * requests answered by `route`.
 * @param {(route: import('playwright-core').Route) => unknown} route
 */
async function echoChat(route) {
  const browser = await fx.launchBrowser();
  const page = await fx.newPage(browser.context);
  await page.route(FRAME, route);
  await page.goto(app.url);
  await page.getByRole('link', { name: /My workspace/ }).click();
  await page.getByRole('button', { name: 'Try Echo' }).click();
  await page.getByText('Echo · test provider, no AI').waitFor();
  return { browser, page };
}

/** The run is over: Stop is gone and Send works again. @param {import('playwright-core').Page} page */
async function composerFree(page) {
  await page.getByRole('button', { name: 'Stop', exact: true }).waitFor({ state: 'hidden' });
  await page.waitForFunction(() => !(/** @type {HTMLButtonElement} */ (document.querySelector('form.composer .send-btn')).disabled));
}

/**
 * Sends a code block and allows it: the run starts its sandbox now.
 * @param {import('playwright-core').Page} page @param {string} code
 */
async function runCode(page, code) {
  await sendMessage(page, `\`\`\`js\n${code}\n\`\`\``);
  await page.getByRole('dialog', { name: 'Allow “run_js”?' }).getByRole('button', { name: 'Allow once' }).click();
}

test('a sandbox frame that cannot load: the code card fails with a clear error and the composer is free, within the start time-out \
(control: reachable, the same code runs)', async () => {
  const { browser, page } = await echoChat((route) => route.abort('internetdisconnected'));
  try {
    await runCode(page, 'print("unreachable", 6 * 7)');
    const started = Date.now();
    const card = page.locator('.code-card').last();
    await card.locator('.tool-state', { hasText: '✗ failed' }).waitFor({ timeout: FRAME_START_TIMEOUT_MS + MARGIN_MS });
    await composerFree(page);
    const tookMs = Date.now() - started;
    assert.ok(
      tookMs < FRAME_START_TIMEOUT_MS + MARGIN_MS,
      `the failed start ended the run within the start time-out and a margin (${tookMs} ms)`,
    );
    assert.match(
      await card.locator('.tool-output').last().innerText(),
      new RegExp(
        String.raw`^The code did not run: The code sandbox could not start: its frame did not load\. If you are` +
          String.raw` offline, connect once so Clawser can keep a copy, then try again\.`,
      ),
    );
    await page.getByText(/Echo: your code printed: The code did not run: The code sandbox could not start/).waitFor();

    // Control: with the frame reachable the same code runs, in the same conversation.
    await page.unroute(FRAME);
    await runCode(page, 'print("reachable", 6 * 7)');
    await page.getByText('Echo: your code printed: reachable 42').waitFor();
  } finally {
    await browser.close();
  }
});

test('Stop while the sandbox is still starting ends the run at once and frees the composer (control: \
the next message is answered)', async () => {
  /** Frame requests held without an answer: the sandbox stays "starting". @type {import('playwright-core').Route[]} */
  const held = [];
  const { browser, page } = await echoChat((route) => {
    held.push(route);
  });
  try {
    // The app keeps a spare frame loading when idle; let that attempt run out first, so the turn's
    // sandbox starts its own frame now and is certainly still starting when Stop is pressed.
    const frames = () => page.locator('iframe[title="andbox sandbox"]').count();
    await page.waitForFunction(() => document.querySelector('iframe[title="andbox sandbox"]') !== null, null, { timeout: 30_000 });
    await page.waitForFunction(() => document.querySelector('iframe[title="andbox sandbox"]') === null, null, {
      timeout: FRAME_START_TIMEOUT_MS + MARGIN_MS,
    });

    const asked = page.waitForRequest(/\/andbox\/frame\.html/);
    await runCode(page, 'print("never", 6 * 7)');
    const card = page.locator('.code-card').last();
    await card.locator('.tool-state', { hasText: 'running…' }).waitFor();
    await page.waitForFunction(() => document.querySelector('iframe[title="andbox sandbox"]') !== null);
    assert.equal(await frames(), 1, "the turn's sandbox frame is loading");
    await asked;

    const stopped = Date.now();
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await composerFree(page);
    const tookMs = Date.now() - stopped;
    // Well before the start would have timed out: Stop did not wait for the sandbox.
    assert.ok(tookMs < FRAME_START_TIMEOUT_MS, `Stop freed the composer before the start time-out (${tookMs} ms)`);
    assert.match(await card.locator('.tool-state').innerText(), /^✗ cancelled/);
    assert.match(await card.locator('.tool-output').last().innerText(), /^Cancelled by the user/);
    assert.equal(await page.getByText('Echo: your code printed', { exact: false }).count(), 0, 'the model was not asked again');

    // Control: the composer really is usable — a message goes out and is answered.
    await sendMessage(page, 'after stop');
    await page.getByText('Echo: after stop').waitFor();
  } finally {
    await Promise.all(held.map((r) => r.abort().catch(() => {})));
    await browser.close();
  }
});
