// PRD scenario 1, health investigation, over four weeks of the pages' clock: the user sets a goal
// and reports headaches in sessions a week apart; the agent keeps a goal file, a symptom log and
// memories; the browser is closed and reopened; three weeks later the agent recalls the first
// week's entry by category, reads a page of the test's own site with web_fetch and writes a doctor
// briefing; a bad edit is undone by restoring the workspace to an earlier commit; the diagnosis is
// remembered and the goal completed (its file moves to goals/completed/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appView } from '../browser/helpers.mjs';
import { useFixture } from '../browser/fixture.mjs';
import { allowPrivateHost, committed, listWorkspace, startSite, toolResults, turn, workspaceFile } from './scenario.mjs';

const DAY = 86_400_000;
/** Four weeks ago, at 9:00 UTC: the pages' clock starts there. */
const WEEK1 = Math.floor(Date.now() / DAY) * DAY - 28 * DAY + 9 * 3_600_000;

const fx = await useFixture({
  llm: {},
  beforePage: ({ context }) => context.clock.install({ time: WEEK1 }),
  settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1`, autonomy: 'full' }),
});
const { llm } = fx;
let page = fx.page;
const site = await startSite(fx, {
  '/migraine': 'Migraine: recurring one-sided throbbing headaches. Common triggers: red wine, missed meals, poor sleep.',
});

const FIRST = 'Week 1, Monday: throbbing left-side headache for 4 hours after a late night with red wine';
const SECOND = 'Week 2, Tuesday: left-side headache in the afternoon after skipping lunch';
const LOG = '# Symptom log\n\n';
/** The goal's id, from its file under goals/active/. */
let goalId = '';

test('the user sets the goal: a goal file, the symptom log and the first entry in memory', async () => {
  const asked = await turn(
    page,
    llm,
    'Help me track and research my recurring headaches. Today: throbbing left-side headache, 4 hours, after a late night with red wine.',
    [
      {
        toolCalls: [
          { id: 'g1', name: 'goal_add', arguments: { description: 'Headache research' } },
          { id: 'w1', name: 'fs_write', arguments: { path: 'artifacts/symptom-log.md', content: `${LOG}- ${FIRST}\n` } },
          { id: 'm1', name: 'memory_store', arguments: { key: 'headache week 1', content: FIRST, category: 'user' } },
        ],
      },
      { text: 'I set up your headache research and logged today.' },
    ],
    'I set up your headache research',
  );
  assert.deepEqual(asked, ['fs_write'], 'a workspace write is asked for; goal and memory are the agent’s own');
  const active = await listWorkspace(page, 'goals/active');
  assert.equal(active.length, 1);
  assert.match(active[0], /^headache-research-.+\.md$/);
  goalId = /^headache-research-(.+)\.md$/.exec(active[0])?.[1] ?? '';
  assert.match(String(await workspaceFile(page, `goals/active/${active[0]}`)), /^# Headache research\n\n- Status: active/);
  assert.equal(await workspaceFile(page, 'artifacts/symptom-log.md'), `${LOG}- ${FIRST}\n`);
  await committed(page, 'Help me track and research');
});

test('a week later the user reports again: remembered and appended to the log', async () => {
  await fx.context.clock.setSystemTime(WEEK1 + 8 * DAY);
  await turn(
    page,
    llm,
    'Another one today, in the afternoon, after I skipped lunch.',
    [
      {
        toolCalls: [
          { id: 'm2', name: 'memory_store', arguments: { key: 'headache week 2', content: SECOND, category: 'user' } },
          { id: 'w2', name: 'fs_write', arguments: { path: 'artifacts/symptom-log.md', content: `- ${SECOND}\n`, mode: 'append' } },
        ],
      },
      { text: 'Logged the second headache.' },
    ],
    'Logged the second headache',
  );
  assert.equal(await workspaceFile(page, 'artifacts/symptom-log.md'), `${LOG}- ${FIRST}\n- ${SECOND}\n`);
  await committed(page, 'Another one today');
});

test('after the browser is closed and reopened two weeks later, the agent recalls the first week by category', async () => {
  await fx.relaunch();
  await fx.context.clock.install({ time: WEEK1 + 22 * DAY });
  page = await fx.openWorkspace();
  await appView(page);
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  await turn(
    page,
    llm,
    'What patterns do you see in my headaches?',
    [
      {
        toolCalls: [
          { id: 'r1', name: 'memory_recall', arguments: { query: 'headache', category: 'user' } },
          { id: 'r2', name: 'memory_recall', arguments: { query: 'headache', category: 'core' } },
        ],
      },
      { text: 'Both were left-sided, one after wine and one after a missed meal.' },
    ],
    'Both were left-sided',
  );
  const results = await toolResults(page);
  assert.equal(results.r1?.ok, true);
  assert.match(results.r1.result, new RegExp(`\\[user\\] headache week 1: ${FIRST}`), 'the entry of three weeks ago');
  assert.match(results.r1.result, new RegExp(`\\[user\\] headache week 2: ${SECOND}`));
  // The control recall itself worked (a result, not an error) and holds none of them.
  assert.equal(results.r2?.ok, true, `control recall failed: ${results.r2?.result}`);
  assert.match(results.r2.result, /^(No matching memories\.|- \[core\] )/, 'a recall result');
  assert.doesNotMatch(results.r2.result, /headache week/, 'control: another category holds none of them');
  // The model was given the recalled entries in its next request.
  const sent = JSON.stringify(llm.requests.at(-1)?.body.messages.slice(-2));
  assert.match(sent, /red wine/);
});

test('the agent researches with web_fetch and writes a doctor briefing', async () => {
  await allowPrivateHost(page, site.host);
  const briefing = [
    '# Doctor briefing',
    '',
    '## Timeline',
    `- ${FIRST}`,
    `- ${SECOND}`,
    '',
    '## Patterns',
    '- Always left-sided, a week apart; triggers: red wine, a missed meal',
    '',
    '## Questions to ask',
    '- Could this be migraine?',
    '',
  ].join('\n');
  await turn(
    page,
    llm,
    'Research what this could be and prepare a briefing for my doctor.',
    [
      { toolCalls: [{ id: 'f1', name: 'web_fetch', arguments: { url: `${site.url}/migraine` } }] },
      { toolCalls: [{ id: 'w3', name: 'fs_write', arguments: { path: 'artifacts/doctor-briefing.md', content: briefing } }] },
      { text: 'Your briefing is in artifacts/doctor-briefing.md.' },
    ],
    'Your briefing is in',
  );
  const results = await toolResults(page);
  assert.equal(results.f1?.ok, true, results.f1?.result);
  assert.match(results.f1.result, /Common triggers: red wine, missed meals/);
  assert.deepEqual(site.hits, ['/migraine']);
  assert.equal(await workspaceFile(page, 'artifacts/doctor-briefing.md'), briefing);
  await committed(page, 'Research what this could be');
});

test('workspace files survive a checkpoint/restore cycle: a bad edit is undone from the Git history', async () => {
  await turn(
    page,
    llm,
    'Start the symptom log over.',
    [{ toolCalls: [{ id: 'w4', name: 'fs_write', arguments: { path: 'artifacts/symptom-log.md', content: LOG } }] }, { text: 'Cleared.' }],
    'Cleared.',
  );
  assert.equal(await workspaceFile(page, 'artifacts/symptom-log.md'), LOG);
  await committed(page, 'Start the symptom log over');
  await page.getByRole('button', { name: 'Git', exact: true }).click();
  const history = page.getByRole('region', { name: 'History' }).locator('.commit-list > li');
  await history
    .first()
    .getByRole('button', { name: /Agent: Start the symptom log over/ })
    .waitFor();
  await history.nth(1).getByRole('button').click();
  await page.getByRole('button', { name: 'Restore workspace to this commit' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Restore workspace' }).click();
  await page.locator('.git-status', { hasText: /^Restored/ }).waitFor();
  assert.equal(await workspaceFile(page, 'artifacts/symptom-log.md'), `${LOG}- ${FIRST}\n- ${SECOND}\n`);
  assert.match(String(await workspaceFile(page, 'artifacts/doctor-briefing.md')), /^# Doctor briefing/);
  await page.getByRole('button', { name: 'Back to chat' }).click();
});

test('the diagnosis is remembered and the goal moves from active to completed', async () => {
  const asked = await turn(
    page,
    llm,
    'The doctor says it is migraine without aura. We are done.',
    [
      {
        toolCalls: [
          { id: 'm3', name: 'memory_store', arguments: { key: 'diagnosis', content: 'Migraine without aura', category: 'user' } },
          { id: 'g2', name: 'goal_update', arguments: { id: goalId, status: 'completed', progress: 'Diagnosed: migraine without aura' } },
        ],
      },
      { text: 'Noted, and the research goal is closed.' },
    ],
    'the research goal is closed',
  );
  // The conversation read a web page: memory and goal changes are asked for once each.
  assert.deepEqual(asked, ['memory_store', 'goal_update']);
  assert.deepEqual(await listWorkspace(page, 'goals/active'), []);
  const done = await workspaceFile(page, `goals/completed/headache-research-${goalId}.md`);
  assert.match(String(done), /- Status: completed/);
  assert.match(String(done), /Diagnosed: migraine without aura/);
  // Memory panel, filtered to the user's category: the diagnosis and both weeks' entries.
  await page.getByRole('button', { name: 'Memory', exact: true }).click();
  await page.locator('#memory-category').selectOption('user');
  const list = page.locator('.memory-list');
  await list.getByText('Migraine without aura', { exact: true }).waitFor();
  // Stored three weeks before, on the first week's day.
  const week1Day = await page.evaluate((t) => new Date(t).toLocaleDateString(), WEEK1);
  await list
    .locator('.memory', { hasText: FIRST })
    .getByText(new RegExp(`Category: user .*${week1Day.replace(/[.]/g, '\\.')}`))
    .waitFor();
});
