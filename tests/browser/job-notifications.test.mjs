// Scheduled jobs' notifications with actions, in a real Chromium with its service worker, while
// the Clawser tab is not visible (an init script makes the document report "hidden"; the pages
// run on Playwright's clock, so a job comes due without waiting):
// - an approval a job waits for comes as the service worker's notification with "Allow once" and
//   "Deny"; Deny refuses the call, Allow once lets it run, both through the same gate as the
//   dialog (which closes), and an answer naming no waiting request does nothing;
// - a job's result comes as a notification with "Open the conversation" and "Snooze 1 hour":
//   Open shows the conversation in the tab, Snooze takes it away and it comes back after the hour.
// A notification click cannot be made through the DevTools protocol, and a NotificationEvent made
// by a script cannot be waited on, so the test calls the worker's click handler
// (jobNotificationClick of sw.js) with the notification and the action, as the event would.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useFixture } from './fixture.mjs';
import { waitUntil } from '../fixtures/wait.mjs';

const fx = await useFixture({
  llm: {},
  beforePage: async ({ context }) => {
    await context.clock.install();
    // The tab says it is hidden when the test sets window.__hidden (headless tabs are always visible).
    await context.addInitScript(() => {
      const hidden = () => !!(/** @type {any} */ (window).__hidden); // any: the test's flag
      Object.defineProperty(document, 'visibilityState', { get: () => (hidden() ? 'hidden' : 'visible'), configurable: true });
      Object.defineProperty(document, 'hidden', { get: hidden, configurable: true });
    });
  },
  settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1` }),
});
const { app, browser, page } = fx;
await browser.context.grantPermissions(['notifications'], { origin: new URL(app.url).origin });

/**
 * Runs `fn` in the app's service worker until `until` accepts its result.
 * @template T @param {(arg: any) => Promise<T>} fn @param {(value: T) => boolean} until @param {string} what @param {unknown} [arg]
 * @returns {Promise<T>}
 */
async function inWorker(fn, until, what, arg) {
  const accepted = await waitUntil(
    async () => {
      const worker = browser.context.serviceWorkers().find((w) => w.url().startsWith(app.url));
      // A worker stopped between calls throws; the next round finds the new one.
      const value = worker ? await worker.evaluate(fn, arg).catch(() => undefined) : undefined;
      return value !== undefined && until(/** @type {T} */ (value)) ? { value: /** @type {T} */ (value) } : null;
    },
    what,
    { tries: 600 },
  );
  return accepted.value;
}

/**
 * The notifications the worker shows of a kind whose title has `text`: title, body, data, actions.
 * @param {string} kind @param {string} text @param {number} [count] how many to wait for (0: until there are none)
 */
const shown = (kind, text, count = 1) =>
  inWorker(
    async ({ kind, text }) => {
      // any: `self` is the service worker here, and `actions` is not in the DOM types
      const list = await /** @type {any} */ (self).registration.getNotifications();
      return list
        .filter((/** @type {any} */ n) => n.data?.kind === kind && n.title.includes(text))
        .map((/** @type {any} */ n) => ({
          title: n.title,
          body: n.body,
          data: n.data,
          actions: n.actions.map((/** @type {{action: string}} */ a) => a.action),
        }));
    },
    (list) => (count ? list.length >= count : list.length === 0),
    `${count || 'no'} notification(s) of kind ${kind} with “${text}”`,
    { kind, text },
  );

/**
 * Clicks an action of the notification of `kind` whose title has `text`, as the notificationclick event would.
 * @param {string} kind @param {string} text @param {string} action
 */
const click = (kind, text, action) =>
  inWorker(
    async ({ kind, text, action }) => {
      const sw = /** @type {any} */ (self); // any: the service worker's global, with sw.js's functions
      const [n] = (await sw.registration.getNotifications()).filter(
        (/** @type {any} */ x) => x.data?.kind === kind && x.title.includes(text),
      );
      return n ? sw.jobNotificationClick(n, action) : null;
    },
    (r) => r !== null,
    `the ${action} of a ${kind} notification with “${text}”`,
    { kind, text, action },
  );

/** The text of a workspace file, or null. @param {string} path */
const fileText = (path) =>
  page.evaluate(async (path) => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    return new OpfsFileSystem().readText(`clawser_workspaces/${location.hash.split('/')[1]}/${path}`).catch(() => null);
  }, path);

test('approvals from a notification while the tab is hidden: Deny refuses, Allow once runs, through the same gate; \
an answer naming no waiting request does nothing', async () => {
  await page.waitForFunction(() => !!navigator.serviceWorker.controller, null, { timeout: 30_000 });
  await page.getByRole('button', { name: 'Schedule', exact: true }).click();
  await page.getByRole('heading', { name: 'Schedule', exact: true }).waitFor();
  await page.getByLabel('When', { exact: true }).fill('every 2 hours');
  await page.locator('#job-name').fill('Nightly notes');
  await page.getByLabel('Call a tool').check();
  await page.locator('#job-tool').selectOption('fs_write');
  await page.getByLabel('Arguments (JSON)').fill(JSON.stringify({ path: 'nightly.md', content: 'written' }));
  await page.getByRole('button', { name: 'Create job' }).click();
  const job = page.locator('.job', { hasText: 'Nightly notes' });
  await job.waitFor();
  await page.evaluate(() => {
    /** @type {any} */ (window).__hidden = true; // any: the test's flag
  });

  await browser.context.clock.fastForward('02:00:00');
  const dialog = page.getByRole('dialog', { name: 'Allow “fs_write” for job “Nightly notes”?' });
  await dialog.waitFor({ state: 'attached' });
  const [asking] = await shown('clawser-job-approval', 'Nightly notes');
  assert.equal(asking.title, 'Allow “fs_write” for job “Nightly notes”?');
  assert.match(asking.body, /^Scheduled job “Nightly notes” in workspace “.+” wants to run fs_write\. Unanswered within 10 minutes/);
  assert.deepEqual(asking.actions, ['approve', 'deny']);
  // An answer for a request that is not waiting (a stale or made-up id) is ignored…
  await inWorker(
    async () => {
      const sw = /** @type {any} */ (self); // any: the service worker's global
      for (const w of await sw.clients.matchAll({ type: 'window', includeUncontrolled: true }))
        w.postMessage({ type: 'clawser-approval-answer', id: 'not-a-waiting-request', answer: 'once' });
      return true;
    },
    () => true,
    'a made-up answer',
  );
  // …and Deny, sent after it, is what answers: the call is refused, nothing is written.
  assert.equal(await click('clawser-job-approval', 'Nightly notes', 'deny'), 'deny');
  await dialog.waitFor({ state: 'detached' });
  await job.getByText(/Last run .*: failed/).waitFor();
  assert.equal(await fileText('nightly.md'), null, 'a denied call did not run');
  await shown('clawser-job-approval', 'Nightly notes', 0); // answered, its notification is gone

  // Control: Allow once from the notification lets the next run's call through.
  await browser.context.clock.fastForward('02:00:00');
  await dialog.waitFor({ state: 'attached' });
  await shown('clawser-job-approval', 'Nightly notes');
  assert.equal(await click('clawser-job-approval', 'Nightly notes', 'approve'), 'approve');
  await dialog.waitFor({ state: 'detached' });
  await job.getByText(/Last run .*: succeeded/).waitFor();
  assert.equal(await fileText('nightly.md'), 'written');
  await shown('clawser-job-approval', 'Nightly notes', 0);
  // The results came as notifications too (the tab is hidden): the refused run's, then this one's.
  await shown('clawser-job-result', 'Scheduled job “Nightly notes” finished');
});

test("a job's result while the tab is hidden: a notification that opens its conversation, or snoozes for an hour", async () => {
  await page.evaluate(() => {
    /** @type {any} */ (window).__hidden = false; // any: the test's flag
  });
  await page.getByRole('button', { name: 'Schedule', exact: true }).click();
  await page.getByLabel('When', { exact: true }).fill('every 15 minutes');
  await page.getByLabel('Run a prompt').check();
  await page.getByLabel('Prompt for the agent').fill('Summarise the day');
  await page.locator('#job-name').fill('Day summary');
  await page.getByRole('button', { name: 'Create job' }).click();
  const job = page.locator('.job', { hasText: 'Day summary' });
  await job.waitFor();
  await page.evaluate(() => {
    /** @type {any} */ (window).__hidden = true; // any: the test's flag
  });
  fx.llm.enqueue({ text: 'A calm day.' });
  await browser.context.clock.fastForward('15:30');
  const [result] = await shown('clawser-job-result', 'Day summary');
  assert.equal(result.title, 'Scheduled job “Day summary” finished');
  assert.equal(result.body, 'A calm day.');
  assert.deepEqual(result.actions, ['open', 'snooze']);
  assert.match(result.data.hash, /^#workspace\/[^/]+\/conversation\/[^/]+$/);

  assert.equal(await click('clawser-job-result', 'Day summary', 'open'), 'opened');
  await page.waitForURL((url) => url.hash === result.data.hash);
  await page.locator('.msg.assistant', { hasText: 'A calm day.' }).waitFor();

  // The next run's result is snoozed: gone now, back once the hour has passed.
  await page.getByRole('button', { name: 'Schedule', exact: true }).click();
  await shown('clawser-job-result', 'Day summary', 0); // opened, the first is gone
  fx.llm.enqueue({ text: 'Still calm.' });
  await browser.context.clock.fastForward('15:00');
  await job.getByText('History (2)').waitFor();
  const [again] = await shown('clawser-job-result', 'Day summary');
  assert.equal(again.body, 'Still calm.');
  assert.equal(await click('clawser-job-result', 'Day summary', 'snooze'), 'snoozed');
  const later = await inWorker(
    async () => {
      const sw = /** @type {any} */ (self); // any: the service worker's global, with sw.js's functions
      const calm = async () =>
        (await sw.registration.getNotifications())
          .filter((/** @type {any} */ n) => n.body === 'Still calm.')
          .map((/** @type {any} */ n) => n.body);
      const before = (await calm()).length;
      const soon = await sw.resurfaceSnoozed(Date.now() + 30 * 60_000);
      const hourOn = await sw.resurfaceSnoozed(Date.now() + 61 * 60_000);
      const after = await calm();
      return { before, soon, hourOn, after };
    },
    () => true,
    'the snoozed notification',
  );
  assert.deepEqual(later, { before: 0, soon: 0, hourOn: 1, after: ['Still calm.'] });
});
