// Catch-up after an overnight gap in a real Chromium, with no waiting: the pages run on
// Playwright's clock. Three hourly jobs are created in the Schedule panel, one per catch-up
// policy (run once; skip; run each missed time, up to 2); Clawser is closed; the clock moves
// 12½ hours; Clawser opens again and, as it starts, finds the 12 missed times of each job and
// runs them by policy: once (one turn), none (recorded as skipped), the 2 most recent (two
// turns, the cap). The panel says when each run was due and why it ran late. Then the tab goes
// unwatched for three hours and becomes visible again: the times missed meanwhile are found then.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useFixture } from './fixture.mjs';

const HOUR = 3_600_000;
/** An evening a day ago, on the hour: the pages' clock starts there. */
const EVENING = Math.floor(Date.now() / HOUR) * HOUR - 24 * HOUR;

const fx = await useFixture({
  llm: {},
  beforePage: ({ context }) => context.clock.install({ time: EVENING }),
  settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1` }),
});
const { app, llm, browser, page } = fx;

/** The scheduled tasks the model was asked to carry out, by job name. */
const scheduledTurns = () =>
  llm.requests
    .map((r) => /^\[Scheduled task “(.+?)”/.exec(String(r.body?.messages?.at(-1)?.content ?? ''))?.[1])
    .filter((name) => name !== undefined)
    .sort();

test('jobs missed overnight are found when Clawser opens and run by each policy: once, skip, each up to its limit', async () => {
  await page.getByRole('button', { name: 'Schedule', exact: true }).click();
  await page.getByRole('heading', { name: 'Schedule', exact: true }).waitFor();
  assert.equal(
    await page.getByLabel('If it was due while Clawser was closed').inputValue(),
    'once',
    'a new job runs missed times once unless the user picks otherwise',
  );
  assert.equal(await page.locator('#job-catchup-limit').isVisible(), false, 'the limit is asked for "each" only');
  /** @param {string} name @param {'once' | 'skip' | 'each'} policy @param {number} [limit] */
  const add = async (name, policy, limit) => {
    await page.getByLabel('When', { exact: true }).fill('every 1 hour');
    await page.getByLabel('Prompt for the agent').fill(`Report on ${name}`);
    await page.locator('#job-name').fill(name);
    await page.getByLabel('If it was due while Clawser was closed').selectOption(policy);
    if (limit) await page.getByLabel(/^At most this many missed times/).fill(String(limit));
    await page.getByRole('button', { name: 'Create job' }).click();
    await page
      .locator('.job', { hasText: name })
      .getByText(/Not run yet/)
      .waitFor();
  };
  await add('Run once', 'once');
  await add('Skip them', 'skip');
  await add('Each of them', 'each', 2);
  const job = (/** @type {string} */ name) => page.locator('.job', { hasText: name });
  await job('Run once').getByText('missed times: run once').waitFor();
  await job('Skip them').getByText('missed times: skipped').waitFor();
  await job('Each of them').getByText('missed times: each runs, up to 2').waitFor();
  const workspace = new URL(page.url()).hash.split('/')[1];
  const before = scheduledTurns();
  assert.deepEqual(before, [], 'nothing ran in the evening');

  // Closed overnight; the clock moves on without waiting (no page is open to run the jobs).
  await page.close();
  await browser.context.clock.setSystemTime(EVENING + 12 * HOUR + 30 * 60_000);
  const again = await fx.newPage();
  await again.goto(`${app.url}#workspace/${workspace}/schedule`);
  const jobNow = (/** @type {string} */ name) => again.locator('.job', { hasText: name });
  const late = 'ran late: missed while Clawser was closed';
  await jobNow('Run once')
    .getByText(new RegExp(String.raw`Last run .*: succeeded \(due .+, ${late}; 11 more missed times not run separately\)`))
    .waitFor();
  await jobNow('Skip them')
    .getByText(/Last run .*: skipped \(the newest due .+; missed while Clawser was closed\)/)
    .waitFor();
  await jobNow('Skip them').getByText('Skipped 12 missed times (this job skips missed times).').first().waitFor();
  const each = jobNow('Each of them');
  await each.getByText(new RegExp(String.raw`Last run .*: succeeded \(due .+, ${late}\)`)).waitFor();
  await each.getByText('History (2)').click();
  const history = await each.locator('.job-history li').allInnerTexts();
  assert.equal(history.length, 2, 'the cap: 2 of the 12 missed times ran');
  assert.match(history[0], new RegExp(String.raw` — ok \(due .+, ${late}\)`), 'the newest first');
  assert.match(history[1], new RegExp(String.raw` — ok \(due .+, ${late}; 10 older missed times not run \(over its limit\)\)`));
  // One turn for "once", none for "skip", two for "each" (in the job's one conversation).
  assert.deepEqual(scheduledTurns(), ['Each of them', 'Each of them', 'Run once']);
  assert.equal(await again.locator('.conv-item', { hasText: /Each of them/ }).count(), 1);

  // The tab goes unwatched for three hours (the clock jumps; no timer fires) and becomes visible
  // again: the missed times are found at once, with that reason.
  await browser.context.clock.setSystemTime(EVENING + 15 * HOUR + 40 * 60_000);
  await again.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
  const hidden = 'ran late: missed while the tab was in the background or the computer slept';
  // The two most recent of the three missed times, one after the other: the last one done means both are.
  await each.getByText(new RegExp(String.raw`Last run .*: succeeded \(due .+, ${hidden}\)`)).waitFor();
  const newer = (await each.locator('.job-history li').allInnerTexts()).slice(0, 2);
  assert.equal(newer.length, 2);
  assert.match(newer[0], new RegExp(String.raw` — ok \(due .+, ${hidden}\)`));
  assert.match(newer[1], new RegExp(String.raw` — ok \(due .+, ${hidden}; 1 older missed time not run \(over its limit\)\)`));
  await jobNow('Run once')
    .getByText(new RegExp(String.raw`Last run .*: succeeded \(due .+, ${hidden}; 2 more missed times not run separately\)`))
    .waitFor();
  await jobNow('Skip them')
    .getByText(/Last run .*: skipped \(the newest due .+; missed while the tab was in the background or the computer slept\)/)
    .waitFor();
  assert.deepEqual(scheduledTurns(), ['Each of them', 'Each of them', 'Each of them', 'Each of them', 'Run once', 'Run once']);

  // The probes for local model servers (none run here) are the only errors.
  assert.deepEqual(
    browser.errors.filter((e) => !e.startsWith('Failed to load resource: net::ERR_CONNECTION_REFUSED')),
    [],
  );
});
