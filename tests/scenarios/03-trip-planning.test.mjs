// PRD scenario 3, trip co-planning, over a week of the pages' clock: the user sets a goal for a
// Tokyo trip; the agent reads forecasts from the test's own site and writes itinerary v1; the
// user's preference is remembered and, in a later conversation, given back to the model, which
// writes v2 beside v1; a reminder scheduled "in 3 days" fires three days later (not two), reads
// hotel prices and writes artifacts/tokyo-hotels.md; the user approves and the goal is completed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useFixture } from '../browser/fixture.mjs';
import { allowPrivateHost, committed, gitLog, listWorkspace, startSite, toolResults, turn, workspaceFile } from './scenario.mjs';

const DAY = 86_400_000;
/** A morning two weeks ago (9:00 UTC): the pages' clock starts there. */
const START = Math.floor(Date.now() / DAY) * DAY - 14 * DAY + 9 * 3_600_000;

const fx = await useFixture({
  llm: {},
  beforePage: ({ context }) => context.clock.install({ time: START }),
  settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1`, autonomy: 'full' }),
});
const { llm, page } = fx;
const site = await startSite(fx, {
  '/sakura': 'Cherry blossom forecast 2027: Tokyo full bloom expected 1-6 April.',
  '/hotels': 'Hotel prices, 3-8 April: Yanaka Ryokan 14,000 yen per night; Kichijoji Inn 11,500 yen per night.',
});

const V1 = '# Tokyo itinerary v1\n\nDay 1: Shibuya and Shinjuku\nDay 2: Ueno Park (full bloom 1-6 April)\n';
const V2 = '# Tokyo itinerary v2\n\nDay 1: Yanaka old town (quiet)\nDay 2: Ueno Park (full bloom 1-6 April)\nDay 3: Kichijoji\n';
const HOTELS = '# Tokyo hotels\n\n- Yanaka Ryokan: 14,000 yen per night\n- Kichijoji Inn: 11,500 yen per night\n';
const PREFERENCE = 'For the Tokyo itinerary the user prefers quieter neighborhoods over Shibuya and Shinjuku';
let goalId = '';
/** The scheduled tasks the model was asked to carry out, by job name. */
const scheduledTurns = () =>
  llm.requests
    .map((r) => /^\[Scheduled task “(.+?)”/.exec(String(r.body?.messages?.at(-1)?.content ?? ''))?.[1])
    .filter((name) => name !== undefined);

test('the goal is set, the forecast read with web_fetch, and itinerary v1 written', async () => {
  await allowPrivateHost(page, site.host);
  await turn(
    page,
    llm,
    'Plan a 5-day trip to Tokyo in April.',
    [
      { toolCalls: [{ id: 'g1', name: 'goal_add', arguments: { description: 'Tokyo trip' } }] },
      { toolCalls: [{ id: 'f1', name: 'web_fetch', arguments: { url: `${site.url}/sakura` } }] },
      { toolCalls: [{ id: 'w1', name: 'fs_write', arguments: { path: 'artifacts/tokyo-itinerary-v1.md', content: V1 } }] },
      { text: 'Here is a first itinerary.' },
    ],
    'Here is a first itinerary.',
  );
  const active = await listWorkspace(page, 'goals/active');
  assert.equal(active.length, 1);
  goalId = /^tokyo-trip-(.+)\.md$/.exec(active[0])?.[1] ?? '';
  assert.ok(goalId, active[0]);
  assert.match((await toolResults(page)).f1.result, /full bloom expected 1-6 April/);
  assert.equal(await workspaceFile(page, 'artifacts/tokyo-itinerary-v1.md'), V1);
  await committed(page, 'Plan a 5-day trip');
});

test('the preference is remembered and used in a later conversation to write v2 beside v1', async () => {
  await turn(
    page,
    llm,
    'I prefer quieter neighborhoods.',
    [
      {
        toolCalls: [
          {
            id: 'm1',
            name: 'memory_store',
            arguments: { key: 'Tokyo trip neighborhoods', content: PREFERENCE, category: 'user' },
          },
        ],
      },
      { text: 'Noted.' },
    ],
    'Noted.',
  );
  await fx.context.clock.setSystemTime(START + DAY);
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  const before = llm.requests.length;
  await turn(
    page,
    llm,
    'Revise the Tokyo itinerary.',
    [
      { toolCalls: [{ id: 'w2', name: 'fs_write', arguments: { path: 'artifacts/tokyo-itinerary-v2.md', content: V2 } }] },
      { text: 'v2 favours quiet neighborhoods.' },
    ],
    'v2 favours quiet neighborhoods.',
  );
  // The new conversation's first request carried the remembered preference to the model.
  const system = llm.requests[before].body.messages[0];
  assert.equal(system.role, 'system');
  assert.match(system.content, new RegExp(String.raw`Relevant long-term memories[\s\S]*\[user\] Tokyo trip neighborhoods: ${PREFERENCE}`));
  await page.getByText(/Memories used: .*Tokyo trip neighborhoods/).waitFor();
  assert.equal(await workspaceFile(page, 'artifacts/tokyo-itinerary-v1.md'), V1, 'v1 is kept');
  assert.equal(await workspaceFile(page, 'artifacts/tokyo-itinerary-v2.md'), V2);
  await committed(page, 'Revise the Tokyo itinerary');
  const log = await gitLog(page);
  // Each version in its own commit: the file's history (git log of the file) is one commit, that
  // of the turn that wrote it, and that commit does not hold the other version.
  const of = (/** @type {string} */ path) => log.filter((c) => c.paths.includes(path));
  const [c1, ...more1] = of('artifacts/tokyo-itinerary-v1.md');
  const [c2, ...more2] = of('artifacts/tokyo-itinerary-v2.md');
  assert.deepEqual([more1, more2], [[], []], 'each version was committed once');
  assert.match(c1?.message ?? '', /^Agent: Plan a 5-day trip/);
  assert.match(c2?.message ?? '', /^Agent: Revise the Tokyo itinerary/);
  assert.ok(!c1.paths.includes('artifacts/tokyo-itinerary-v2.md'), `v1's commit holds only v1: ${c1.paths}`);
  assert.ok(!c2.paths.includes('artifacts/tokyo-itinerary-v1.md'), `v2's commit holds only v2: ${c2.paths}`);
  assert.ok(log.indexOf(c2) < log.indexOf(c1), 'v2 was committed after v1');
});

test('a reminder "in 3 days" does not fire after two days and fires after three, writing the hotel prices', async () => {
  const asked = await turn(
    page,
    llm,
    'Remind me to check hotel prices in 3 days.',
    [
      {
        toolCalls: [
          {
            id: 's1',
            name: 'schedule_add',
            arguments: {
              when: 'in 3 days',
              name: 'Check hotel prices',
              prompt: 'Check hotel prices for the Tokyo trip and update artifacts/tokyo-hotels.md',
            },
          },
        ],
      },
      { text: 'I will check in 3 days.' },
    ],
    'I will check in 3 days.',
  );
  assert.deepEqual(asked, ['schedule_add'], 'a job acts later on its own: the user is asked');
  const due = START + DAY + 3 * DAY;
  // Two days on (the clock jumps; the scheduler looks every minute): nothing ran.
  await fx.context.clock.setSystemTime(START + 3 * DAY);
  await fx.context.clock.fastForward('01:05');
  await page.getByRole('button', { name: 'Schedule', exact: true }).click();
  const job = page.locator('.job', { hasText: 'Check hotel prices' });
  await job.getByText(/Not run yet/).waitFor();
  assert.deepEqual(scheduledTurns(), []);
  // Three days on: the job runs its prompt; the model reads the prices and writes them down.
  llm.enqueue(
    { toolCalls: [{ id: 'f2', name: 'web_fetch', arguments: { url: `${site.url}/hotels` } }] },
    { toolCalls: [{ id: 'w3', name: 'fs_write', arguments: { path: 'artifacts/tokyo-hotels.md', content: HOTELS } }] },
    { text: 'Hotel prices updated.' },
  );
  await fx.context.clock.setSystemTime(due - 20_000);
  await fx.context.clock.fastForward('01:05');
  await job.getByText(/Last run .*: succeeded/).waitFor();
  assert.doesNotMatch(await job.innerText(), /ran late/, 'on time, not a catch-up');
  assert.deepEqual(scheduledTurns(), ['Check hotel prices']);
  assert.deepEqual(site.hits, ['/sakura', '/hotels']);
  assert.equal(await workspaceFile(page, 'artifacts/tokyo-hotels.md'), HOTELS);
  await page.getByRole('button', { name: 'Back to chat' }).click();
});

test('the user approves the plan: the goal is completed and its file moves to goals/completed/', async () => {
  const artifacts = ['artifacts/tokyo-itinerary-v2.md', 'artifacts/tokyo-hotels.md'];
  await turn(
    page,
    llm,
    'The plan is approved, thanks!',
    [
      {
        toolCalls: [
          { id: 'g2', name: 'goal_update', arguments: { id: goalId, status: 'completed', progress: 'Plan approved', artifacts } },
        ],
      },
      { text: 'Enjoy Tokyo.' },
    ],
    'Enjoy Tokyo.',
  );
  assert.equal((await toolResults(page)).g2?.ok, true);
  assert.deepEqual(await listWorkspace(page, 'goals/active'), []);
  const done = String(await workspaceFile(page, `goals/completed/tokyo-trip-${goalId}.md`));
  assert.match(done, /- Status: completed/);
  assert.match(done, /## Files\n\n- artifacts\/tokyo-itinerary-v2\.md\n- artifacts\/tokyo-hotels\.md/);
});
