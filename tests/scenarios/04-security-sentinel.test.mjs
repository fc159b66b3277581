// PRD scenario 4, security audit sentinel, over two days of the pages' clock: the agent reads the
// project's package.json, remembers its dependencies, starts the security report and schedules a
// daily CVE check (cron, 09:00 UTC). Each morning the job runs on its own: it recalls the CVEs it
// already knows, reads the advisories of the test's own site, remembers and reports only the new
// one and sends a browser notification for it. Day 2's advisories list day 1's CVE again: it is
// recognised from memory and neither reported nor notified twice. The Schedule panel shows, after
// each run, the next one the next morning at 09:00 and no lateness (daily, not hourly); at 08:30 it has
// not run. Then the browser is closed over two mornings and reopened at 11:00: the missed check is
// caught up once (the default policy), and the panel says when it was due and that it ran late.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appView, recordNotifications, writeWorkspaceFile } from '../browser/helpers.mjs';
import { useFixture } from '../browser/fixture.mjs';
import { allowPrivateHost, startSite, toolResults, turn, workspaceFile } from './scenario.mjs';

const DAY = 86_400_000;
/** 10:00 UTC a few days ago (09:00 has passed): the job's first run is the next morning at 09:00 UTC. */
const START = Math.floor(Date.now() / DAY) * DAY - 6 * DAY + 10 * 3_600_000;
const nine = (/** @type {number} */ day) => Math.floor(START / DAY) * DAY + day * DAY + 9 * 3_600_000;

const fx = await useFixture({
  llm: {},
  beforePage: async ({ context }) => {
    await context.clock.install({ time: START });
    await recordNotifications(context);
  },
  settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1`, autonomy: 'full' }),
});
const { llm } = fx;
let page = fx.page;
const A = 'CVE-2027-0001 lodash 4.17.20: prototype pollution';
const B = 'CVE-2027-0002 left-pad 1.3.0: denial of service';
/** The vulnerability database's answer, changed between the days. */
const advisories = { '/advisories': `${A}\n` };
const site = await startSite(fx, advisories);
const REPORT = '# Security report\n\n';
/** The scheduled tasks the model was asked to carry out, by job name. */
const scheduledTurns = () =>
  llm.requests
    .map((r) => /^\[Scheduled task “(.+?)”/.exec(String(r.body?.messages?.at(-1)?.content ?? ''))?.[1])
    .filter((name) => name !== undefined);
/**
 * A time as the Schedule panel shows it to the user (their locale and time zone), as a pattern.
 * @param {number} t
 */
const shownAs = async (t) =>
  (
    await page.evaluate(
      (at) =>
        new Date(at).toLocaleString(undefined, {
          weekday: 'short',
          year: 'numeric',
          month: 'short',
          day: 'numeric',
          hour: '2-digit',
          minute: '2-digit',
        }),
      t,
    )
  ).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The job in the Schedule panel (the panel is opened first). */
async function scheduleJob() {
  await page.getByRole('button', { name: 'Schedule', exact: true }).click();
  return page.locator('.job', { hasText: 'CVE check' });
}
/**
 * In the Schedule panel, once its run of `day` has finished: the next run is the next morning at
 * 09:00 (daily, not hourly) and the job has run `runs` times. Returns the job's state line.
 * @param {number} day @param {number} runs
 */
async function nextMorning(day, runs) {
  const job = await scheduleJob();
  const state = job.locator('.job-state');
  await state.filter({ hasText: new RegExp(`^Next: ${await shownAs(nine(day + 1))} · Last run .*: succeeded`) }).waitFor();
  await job.getByText(`History (${runs})`).waitFor();
  const text = await state.innerText();
  await page.getByRole('button', { name: 'Back to chat' }).click();
  return text;
}
/** @returns {Promise<{title: string, body: string}[]>} */
const shown = () => page.evaluate(() => /** @type {any} */ (window).__notifications);
/** The agent's own notifications (the job's "finished" ones apart). */
const notifications = async () => (await shown()).filter((n) => n.title.startsWith('New vulnerability'));

/**
 * One morning's run of the job, as the model plays it: recall the known CVEs, read the advisories,
 * remember, report and notify the new one. The user allows the memory change the job asks for.
 * @param {number} day @param {string} id @param {string} cve @param {string} pkg
 */
async function morning(day, id, cve, pkg) {
  llm.enqueue(
    { toolCalls: [{ id: `r${id}`, name: 'memory_recall', arguments: { query: 'CVE vulnerability', category: 'learned' } }] },
    { toolCalls: [{ id: `f${id}`, name: 'web_fetch', arguments: { url: `${site.url}/advisories` } }] },
    {
      toolCalls: [
        { id: `m${id}`, name: 'memory_store', arguments: { key: cve.slice(0, 13), content: cve, category: 'learned' } },
        { id: `w${id}`, name: 'fs_write', arguments: { path: 'artifacts/security-report.md', content: `- ${cve}\n`, mode: 'append' } },
        { id: `n${id}`, name: 'notify', arguments: { title: `New vulnerability found in ${pkg}`, body: cve } },
      ],
    },
    { text: `Morning ${day}: one new CVE (${pkg}).` },
  );
  await fx.context.clock.setSystemTime(nine(day) - 20_000);
  await fx.context.clock.fastForward('01:05');
  // The job read a web page: its memory change is asked for, here in the open tab.
  const approval = page.getByRole('dialog', { name: 'Allow “memory_store” for job “CVE check”?' });
  await approval.getByRole('button', { name: 'Allow once' }).click();
  await page.locator('.msg.assistant .msg-body', { hasText: `Morning ${day}: one new CVE` }).waitFor();
}

test('the agent reads package.json, remembers the dependencies and schedules a daily CVE check', async () => {
  await writeWorkspaceFile(page, 'package.json', '{ "dependencies": { "lodash": "4.17.20", "left-pad": "1.3.0" } }\n');
  await allowPrivateHost(page, site.host);
  // The user lets the agent fetch and notify without asking each time (Tools panel).
  await page.getByRole('button', { name: 'Tools', exact: true }).click();
  await page.getByRole('combobox', { name: 'Policy for web_fetch' }).selectOption('auto');
  await page.getByRole('combobox', { name: 'Policy for notify' }).selectOption('auto');
  await page.getByRole('button', { name: 'Back to chat' }).click();
  const asked = await turn(
    page,
    llm,
    "Monitor my project's dependencies for security vulnerabilities.",
    [
      { toolCalls: [{ id: 'p1', name: 'fs_read', arguments: { path: 'package.json' } }] },
      {
        toolCalls: [
          { id: 'g1', name: 'goal_add', arguments: { description: 'Monitor dependencies for vulnerabilities' } },
          {
            id: 'd1',
            name: 'memory_store',
            arguments: { key: 'project dependencies', content: 'lodash 4.17.20, left-pad 1.3.0', category: 'context' },
          },
          { id: 'w1', name: 'fs_write', arguments: { path: 'artifacts/security-report.md', content: REPORT } },
          {
            id: 's1',
            name: 'schedule_add',
            arguments: { when: '0 9 * * *', timezone: 'UTC', name: 'CVE check', prompt: 'Check for new CVEs in the project dependencies.' },
          },
        ],
      },
      { text: 'I will check every morning.' },
    ],
    'I will check every morning.',
  );
  assert.deepEqual(asked, ['fs_write', 'schedule_add']);
  assert.match((await toolResults(page)).p1.result, /"lodash": "4.17.20"/);
  assert.deepEqual(scheduledTurns(), []);
  // The Schedule panel: daily at 09:00, first tomorrow morning (an hourly job's would be 11:00 today).
  const job = await scheduleJob();
  const before = new RegExp(`^Next: ${await shownAs(nine(1))} · Not run yet$`);
  await job.locator('.job-state').filter({ hasText: before }).waitFor();
  assert.match(await job.innerText(), /Prompt · cron 0 9 \* \* \* \(UTC\) · missed times: run once/);
});

test('the next morning at 08:30 it has not run yet', async () => {
  await fx.context.clock.setSystemTime(nine(1) - 30 * 60_000 - 20_000);
  await fx.context.clock.fastForward('01:05');
  const job = page.locator('.job', { hasText: 'CVE check' });
  // An hourly job (due 11:00, 12:00, … yesterday and 08:00 today) would have caught up by now; this
  // one still waits for 09:00 (and its history holds only the runs of 09:00 below: nextMorning).
  await job
    .locator('.job-state')
    .filter({ hasText: new RegExp(`^Next: ${await shownAs(nine(1))} · Not run yet$`) })
    .waitFor();
  assert.deepEqual(scheduledTurns(), []);
  await page.getByRole('button', { name: 'Back to chat' }).click();
});

test('day 1 at 09:00 the job runs: a new CVE is remembered, reported and notified', async () => {
  await morning(1, '1', A, 'lodash');
  const results = await toolResults(page);
  assert.doesNotMatch(results.r1.result, /CVE-/, 'nothing known yet');
  assert.equal(await workspaceFile(page, 'artifacts/security-report.md'), `${REPORT}- ${A}\n`);
  assert.deepEqual(await notifications(), [{ title: 'New vulnerability found in lodash', body: A }]);
  assert.deepEqual(scheduledTurns(), ['CVE check']);
  const state = await nextMorning(1, 1);
  assert.doesNotMatch(state, /ran late|caught up/, 'on time at 09:00, not a catch-up');
});

test('day 2 at 09:00 it runs again: the known CVE is recalled from memory; only the new one is added and notified', async () => {
  advisories['/advisories'] = `${A}\n${B}\n`;
  await morning(2, '2', B, 'left-pad');
  const results = await toolResults(page);
  assert.match(results.r2.result, /\[learned\] CVE-2027-0001: CVE-2027-0001 lodash/, 'day 1’s CVE is known');
  assert.match(results.f2.result, /CVE-2027-0002/);
  const report = String(await workspaceFile(page, 'artifacts/security-report.md'));
  assert.equal(report, `${REPORT}- ${A}\n- ${B}\n`, 'the findings accumulate, each once');
  assert.deepEqual(
    (await notifications()).map((n) => n.title),
    ['New vulnerability found in lodash', 'New vulnerability found in left-pad'],
  );
  assert.deepEqual(scheduledTurns(), ['CVE check', 'CVE check'], 'daily: once each morning');
  const state = await nextMorning(2, 2);
  assert.doesNotMatch(state, /ran late|caught up/, 'on time at 09:00: nothing was missed in between (an hourly job would have)');
  // The job's results came as notifications too.
  assert.ok((await shown()).some((n) => n.title === 'Scheduled job “CVE check” finished'));
});

test('closed for two mornings, the browser reopened at 11:00: the missed check runs once, late, and says so', async () => {
  await fx.relaunch();
  // While it was closed, days 3 and 4 at 09:00 passed; it reopens on day 4 at 11:00.
  await fx.context.clock.install({ time: nine(4) + 2 * 3_600_000 });
  await recordNotifications(fx.context);
  llm.enqueue(
    { toolCalls: [{ id: 'r3', name: 'memory_recall', arguments: { query: 'CVE vulnerability', category: 'learned' } }] },
    { toolCalls: [{ id: 'f3', name: 'web_fetch', arguments: { url: `${site.url}/advisories` } }] },
    { text: 'Catch-up check: nothing new.' },
  );
  page = await fx.openWorkspace();
  await appView(page);
  const job = await scheduleJob();
  const state = job.locator('.job-state');
  // The default policy for missed times: run once. The panel says when it was due and why late.
  await state.filter({ hasText: /Last run .*: succeeded/ }).waitFor();
  await job.getByText('History (3)').waitFor();
  const text = await state.innerText();
  assert.match(text, new RegExp(`^Next: ${await shownAs(nine(5))} · `));
  assert.match(
    text,
    new RegExp(`\\(due ${await shownAs(nine(4))}, ran late: missed while Clawser was closed; 1 more missed time not run separately\\)`),
  );
  assert.deepEqual(scheduledTurns(), ['CVE check', 'CVE check', 'CVE check'], 'two missed mornings, one catch-up run');
  // The model, in its last step, had both known CVEs recalled from memory.
  const seen = JSON.stringify(llm.requests.at(-1)?.body?.messages ?? []);
  assert.match(seen, /\[learned\] CVE-2027-0001/);
  assert.match(seen, /\[learned\] CVE-2027-0002/);
  // Nothing new: the report is unchanged and no new vulnerability was notified.
  assert.equal(await workspaceFile(page, 'artifacts/security-report.md'), `${REPORT}- ${A}\n- ${B}\n`);
  assert.deepEqual(await notifications(), []);
  await page.getByRole('button', { name: 'Back to chat' }).click();
});
