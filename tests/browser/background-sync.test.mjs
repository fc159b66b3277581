// Background checks for due jobs in a real Chromium. With Periodic Background Sync and
// notifications granted (CDP Browser.grantPermissions; Playwright has no name for the former)
// the Schedule panel says so and registers the check; a periodic sync fired through CDP
// (ServiceWorker.dispatchPeriodicSyncEvent, as the browser would) while no Clawser window is
// open shows one notification naming the due jobs (damaged files skipped; paused, finished
// and future jobs left out), does not repeat it, and does nothing while a window is open.
// Without the permission the panel says jobs only run while Clawser is open.
//
// The job is made due without waiting: the pages run on a clock set two hours back (the
// service worker keeps real time), so the job created in the panel is already due for the
// service worker while the open page, thinking it is not, does not run it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openWorkspace } from './helpers.mjs';
import { openFixture } from './fixture.mjs';
import { waitUntil } from '../fixtures/wait.mjs';

const HOUR = 3_600_000;

/**
 * Grants (or denies) permissions for the app's origin through a browser-level CDP session,
 * kept open: Chromium drops a session's permission overrides when it detaches.
 * @param {import('./fixture.mjs').Browser} browser @param {string} origin
 */
async function permissionsOf(browser, origin) {
  const b = browser.context.browser();
  assert.ok(b, 'a browser-level CDP session is available');
  const session = await b.newBrowserCDPSession();
  return {
    /** @param {string[]} names CDP permission types */
    // any: CDP's PermissionType union
    grant: (names) => session.send('Browser.grantPermissions', { origin, permissions: /** @type {any} */ (names) }),
    /** @param {string} name a permission descriptor name */
    deny: (name) => session.send('Browser.setPermission', { origin, permission: { name }, setting: 'denied' }),
  };
}

/**
 * Fires the app's periodic sync as the browser would, from a CDP session of a page that is
 * not a Clawser window (about:blank), so it does not count as an open app.
 * @param {import('playwright-core').BrowserContext} context @param {string} appUrl
 */
async function periodicSyncTrigger(context, appUrl) {
  const blank = context.pages().find((p) => p.url() === 'about:blank') ?? (await context.newPage());
  const cdp = await context.newCDPSession(blank);
  /** @type {Promise<string>} */
  const registrationId = new Promise((resolve) => {
    cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
      const reg = registrations.find((r) => r.scopeURL === appUrl && !r.isDeleted);
      if (reg) resolve(reg.registrationId);
    });
  });
  await cdp.send('ServiceWorker.enable');
  const id = await registrationId;
  return () =>
    cdp.send('ServiceWorker.dispatchPeriodicSyncEvent', { origin: new URL(appUrl).origin, registrationId: id, tag: 'clawser-jobs' });
}

/**
 * Runs a function in the app's service worker (started by the sync just fired), retrying
 * until `until` accepts its result.
 * @template T
 * @param {import('playwright-core').BrowserContext} context @param {string} appUrl
 * @param {() => Promise<T>} fn @param {(value: T) => boolean} until @param {string} what
 * @returns {Promise<T>}
 */
async function inServiceWorker(context, appUrl, fn, until, what) {
  const accepted = await waitUntil(
    async () => {
      const worker = context.serviceWorkers().find((w) => w.url().startsWith(appUrl));
      // A worker stopped between calls throws; the next round finds the new one.
      const value = worker ? await worker.evaluate(fn).catch(() => undefined) : undefined;
      return value !== undefined && until(/** @type {T} */ (value)) ? { value: /** @type {T} */ (value) } : null;
    },
    what,
    { tries: 600 },
  );
  return accepted.value;
}

/** The service worker's record of its last check (Cache Storage). */
async function checkState() {
  const hit = await caches.match(new URL('clawser-background-check.json', /** @type {any} */ (self).registration.scope).href, {
    cacheName: 'clawser-background',
  }); // any: `self` is the service worker here
  return hit ? hit.json() : null;
}

/** The due-jobs notifications on display. */
async function dueNotifications() {
  // any: `self` is the service worker here
  const list = await /** @type {any} */ (self).registration.getNotifications({ tag: 'clawser-due' });
  return list.map((/** @type {any} */ n) => ({
    title: n.title,
    body: n.body,
    data: n.data,
    actions: n.actions.map((/** @type {{action: string}} */ a) => a.action),
  })); // any: `actions` is not in the DOM types
}

/**
 * Writes a file into the origin's OPFS from a page (test data the app did not create).
 * @param {import('playwright-core').Page} page @param {string[]} path @param {string} text
 */
function writeOpfs(page, path, text) {
  return page.evaluate(
    async ({ path, text }) => {
      let dir = await navigator.storage.getDirectory();
      for (const name of path.slice(0, -1)) dir = await dir.getDirectoryHandle(name, { create: true });
      const w = await (await dir.getFileHandle(/** @type {string} */ (path.at(-1)), { create: true })).createWritable();
      await w.write(text);
      await w.close();
    },
    { path, text },
  );
}

/** Errors in the pages, apart from the probes for local model servers (none run here). @param {import('./fixture.mjs').Browser} browser */
const pageErrors = (browser) => browser.errors.filter((e) => !e.startsWith('Failed to load resource: net::ERR_CONNECTION_REFUSED'));

/**
 * Whether this Chromium build has Periodic Background Sync at all: Chrome and Debian's chromium
 * do; the headless-shell build npm provides (@sparticuz/chromium) has no background-sync service
 * and rejects every call. There the app's answer to a refusing browser is what is tested.
 * @param {import('playwright-core').Page} page
 */
function periodicSyncExists(page) {
  return page.evaluate(async () => {
    try {
      await /** @type {any} */ (await navigator.serviceWorker.ready).periodicSync.getTags(); // any: not in the DOM types
      return true;
    } catch {
      return false;
    }
  });
}

const REFUSED =
  'Jobs run while Clawser is open in a tab (one tab runs them when several are open). Jobs that fall due while ' +
  'it is closed are handled when you next open it, as chosen below. The browser allows background checks but ' +
  'refused to set them up, so nothing checks for due jobs while Clawser is closed.';

/** @param {import('playwright-core').Page} page */
async function openSchedulePanel(page) {
  // The panel reads the service worker's registration: wait until it is active.
  await page.waitForFunction(() => !!navigator.serviceWorker.controller, null, { timeout: 30_000 });
  await page.getByRole('button', { name: 'Schedule', exact: true }).click();
  await page.getByRole('heading', { name: 'Schedule', exact: true }).waitFor();
  return page.locator('#job-mode');
}

test('granted: the service worker notifies of due jobs while no Clawser window is open, once, and never while one is', async (t) => {
  const fx = await openFixture();
  const { app, browser } = fx;
  try {
    await (await permissionsOf(browser, new URL(app.url).origin)).grant(['periodicBackgroundSync', 'notifications']);
    await browser.context.clock.install({ time: Date.now() - 2 * HOUR });
    const page = await openWorkspace(browser.context, app.url);
    const mode = await openSchedulePanel(page);
    if (!(await periodicSyncExists(page))) {
      t.diagnostic(
        'This Chromium build has no Periodic Background Sync: checked that the panel says the browser refused the background check.',
      );
      await mode.getByText(/refused to set them up/).waitFor();
      assert.equal(await mode.innerText(), REFUSED);
      assert.deepEqual(pageErrors(browser), []);
      return;
    }
    const text = await mode.innerText();
    assert.match(text, /^Jobs run while Clawser is open in a tab/);
    assert.match(
      text,
      new RegExp(
        String.raw`While no Clawser tab is open, this browser lets Clawser check for due jobs now and then \(the browser decides when` +
          String.raw`, typically at most about once an hour\) and notify you of them; they run when you open Clawser`,
      ),
    );
    assert.match(text, /No background check has happened yet\./);
    assert.doesNotMatch(text, /Notifications are not allowed/);
    assert.deepEqual(await page.evaluate(async () => /** @type {any} */ (await navigator.serviceWorker.ready).periodicSync.getTags()), [
      'clawser-jobs',
    ]); // any: not in the DOM types

    // A job created in the panel, "two hours ago" as far as the service worker is concerned.
    await page.getByLabel('When', { exact: true }).fill('every 30 minutes');
    await page.getByLabel('Prompt for the agent').fill('Water the plants');
    await page.getByRole('button', { name: 'Create job' }).click();
    await page
      .locator('.job', { hasText: 'Water the plants' })
      .getByText(/Next: .* · Not run yet/)
      .waitFor();
    // Another workspace's jobs (only one is due now) and a damaged jobs file.
    const now = Date.now();
    const job = (/** @type {string} */ id, /** @type {object} */ fields) => ({
      id,
      name: id,
      trigger: { kind: 'interval', everyMs: HOUR, startAt: now - 5 * HOUR },
      action: { kind: 'prompt', prompt: id },
      createdAt: now - 5 * HOUR,
      lastCheckedAt: now - 5 * HOUR,
      runs: [],
      paused: false,
      done: false,
      ...fields,
    });
    await writeOpfs(
      page,
      ['clawser_workspaces', 'ws-other', '.scheduler', 'jobs.json'],
      JSON.stringify({
        version: 1,
        jobs: [
          job('Paused job', { paused: true, nextDueAt: now - HOUR }),
          job('Backup the notes', { nextDueAt: now - HOUR }),
          job('Finished job', { done: true, nextDueAt: now - HOUR }),
          job('Future job', { nextDueAt: now + 5 * HOUR }),
          job('Never again', { nextDueAt: null }),
        ],
      }),
    );
    await writeOpfs(page, ['clawser_workspaces', 'ws-damaged', '.scheduler', 'jobs.json'], '{"version": 1, "jobs": [{"id": "x", "nextDue');

    // With a Clawser window open, a check does nothing: that tab runs the jobs.
    const fire = await periodicSyncTrigger(browser.context, app.url);
    await fire();
    const first = await inServiceWorker(
      browser.context,
      app.url,
      checkState,
      (s) => s?.outcome === 'app-open',
      'the check with a window open',
    );
    assert.deepEqual(await inServiceWorker(browser.context, app.url, dueNotifications, () => true, 'the notifications'), []);

    // No Clawser window: one notification naming the due jobs.
    await page.close();
    // Closing a page is not instant for the service worker's client list: wait until it is gone.
    await inServiceWorker(
      browser.context,
      app.url,
      async () => (await /** @type {any} */ (self).clients.matchAll({ type: 'window', includeUncontrolled: true })).length,
      (n) => n === 0,
      'the closed window to leave the client list',
    ); // any: `self` is the service worker here
    await fire();
    const second = await inServiceWorker(browser.context, app.url, checkState, (s) => s?.at > first.at, 'the check with no window open');
    assert.equal(second.outcome, 'notified');
    const [note, ...more] = await inServiceWorker(browser.context, app.url, dueNotifications, (n) => n.length > 0, 'the notification');
    assert.equal(more.length, 0);
    assert.equal(note.title, 'Clawser: 2 scheduled jobs due');
    assert.equal(
      note.body,
      '• Water the plants\n• Backup the notes\nThey run when you open Clawser (unless you chose to skip missed jobs).',
    );
    assert.equal(note.data.workspaces.length, 2);
    assert.deepEqual(note.actions, ['open', 'snooze'], 'Open Clawser, Remind me in an hour');
    // Queued for the next Clawser tab, with why they could not run here.
    assert.deepEqual(
      second.queued.map((/** @type {{name: string, why: string}} */ j) => [j.name, j.why]),
      ['Water the plants', 'Backup the notes'].map((name) => [
        name,
        'Jobs run in a Clawser tab: the agent, its providers and tools cannot run in the background.',
      ]),
    );

    // The same due jobs are not announced again.
    await fire();
    const third = await inServiceWorker(browser.context, app.url, checkState, (s) => s?.at > second.at, 'the repeated check');
    assert.equal(third.outcome, 'already-notified');
    const [same] = await inServiceWorker(browser.context, app.url, dueNotifications, () => true, 'the notification');
    assert.equal(same.data.checkedAt, note.data.checkedAt, 'the notification was not shown again');

    // Snoozed with no page open: gone, and shown again by the first wake after the hour (not before).
    const snoozed = await inServiceWorker(
      browser.context,
      app.url,
      async () => {
        const sw = /** @type {any} */ (self); // any: the service worker's global, with sw.js's functions
        const [n] = await sw.registration.getNotifications({ tag: 'clawser-due' });
        const clicked = await sw.jobNotificationClick(n, 'snooze');
        const gone = (await sw.registration.getNotifications({ tag: 'clawser-due' })).length === 0;
        const early = await sw.resurfaceSnoozed(Date.now() + 30 * 60_000);
        const due = await sw.resurfaceSnoozed(Date.now() + 61 * 60_000);
        return { clicked, gone, early, due };
      },
      () => true,
      'the snoozed reminder',
    );
    assert.deepEqual(snoozed, { clicked: 'snoozed', gone: true, early: 0, due: 1 });
    const [back] = await inServiceWorker(browser.context, app.url, dueNotifications, (n) => n.length > 0, 'the reminder again');
    assert.equal(back.title, note.title);

    // Opening Clawser: the panel reports the last check; a check now removes the stale reminder.
    const again = await fx.newPage(browser.context);
    await again.goto(`${app.url}#workspace/${note.data.workspaces.find((/** @type {string} */ w) => w !== 'ws-other')}/schedule`);
    await again
      .locator('#job-mode')
      .getByText(/The last background check was on /)
      .waitFor();
    await fire();
    await inServiceWorker(
      browser.context,
      app.url,
      checkState,
      (s) => s?.at > third.at && s.outcome === 'app-open',
      'the check with the app reopened',
    );
    assert.deepEqual(await inServiceWorker(browser.context, app.url, dueNotifications, () => true, 'the notifications'), []);
    assert.deepEqual(pageErrors(browser), []);
  } finally {
    await fx.close();
  }
});

test('not granted: the panel says jobs only run while Clawser is open; granted later it registers the check, \
withdrawn it removes it', async (t) => {
  const fx = await openFixture();
  const { app, browser } = fx;
  const foreground =
    'Jobs run while Clawser is open in a tab (one tab runs them when several are open). Jobs that fall due while it is closed are ' +
    'handled when you next open it, as chosen below. The browser has not allowed Clawser background checks (Periodic Background ' +
    'Sync), so nothing checks for due jobs while Clawser is closed. Installing Clawser as an app may let the browser allow them.';
  try {
    const page = await openWorkspace(browser.context, app.url);
    const mode = await openSchedulePanel(page);
    assert.equal(await mode.innerText(), foreground);
    if (!(await periodicSyncExists(page))) {
      t.diagnostic(
        'This Chromium build has no Periodic Background Sync: checked that granting it leads ' +
          'to the panel saying the browser refused the background check.',
      );
      await (await permissionsOf(browser, new URL(app.url).origin)).grant(['periodicBackgroundSync']);
      await page.reload();
      await mode.getByText(/refused to set them up/).waitFor();
      assert.equal(await mode.innerText(), REFUSED);
      return;
    }
    // any: not in the DOM types
    const tags = () => page.evaluate(async () => /** @type {any} */ (await navigator.serviceWorker.ready).periodicSync.getTags());
    assert.deepEqual(await tags(), []);

    const permissions = await permissionsOf(browser, new URL(app.url).origin);
    await permissions.grant(['periodicBackgroundSync']);
    await page.reload();
    await mode.getByText(/this browser lets Clawser check for due jobs now and then/).waitFor();
    // Notifications not allowed: the checks could not tell anyone, and the panel says so.
    assert.match(
      await mode.innerText(),
      /Notifications are not allowed for Clawser, so these checks cannot tell you anything until you allow them below\./,
    );
    assert.deepEqual(await tags(), ['clawser-jobs']);

    await permissions.deny('periodic-background-sync');
    await page.reload();
    await page.getByRole('heading', { name: 'Schedule', exact: true }).waitFor();
    assert.equal(await mode.innerText(), foreground);
    assert.deepEqual(await tags(), [], 'the check registered earlier was removed');
    assert.deepEqual(pageErrors(browser), []);
  } finally {
    await fx.close();
  }
});
