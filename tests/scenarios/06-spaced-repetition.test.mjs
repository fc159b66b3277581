// PRD scenario 6, skill learning with spaced repetition, over a week of the pages' clock: the
// agent writes a Rust curriculum, records the student's progress, remembers a misconception about
// lifetimes and schedules reviews by difficulty: lifetimes (hard) in 3 days, ownership (easy) in 7.
// The clock moves: on day 3 only the lifetimes review runs; it recalls the misconception into the
// model's context, and the curriculum and progress are updated; on day 7 the ownership review runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitUntil } from '../fixtures/wait.mjs';
import { useFixture } from '../browser/fixture.mjs';
import { toolResults, turn, workspaceFile } from './scenario.mjs';

const DAY = 86_400_000;
const START = Math.floor(Date.now() / DAY) * DAY - 10 * DAY + 18 * 3_600_000;

const fx = await useFixture({
  llm: {},
  beforePage: ({ context }) => context.clock.install({ time: START }),
  settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1`, autonomy: 'full' }),
});
const { llm, page } = fx;

const CURRICULUM = '# Rust curriculum\n\n1. Ownership\n2. Borrowing\n3. Lifetimes\n';
const ADAPTED = '# Rust curriculum\n\n1. Ownership\n2. Borrowing\n3. Lifetimes (extra practice: returning references)\n';
const MISCONCEPTION = 'Lifetimes misconception: the student thinks a returned reference can outlive the value it borrows';
const PROGRESS = '# Rust progress\n\n';
/** The scheduled tasks the model was asked to carry out, by job name. */
const scheduled = () =>
  llm.requests
    .map((r) => ({ name: /^\[Scheduled task “(.+?)”/.exec(String(r.body?.messages?.at(-1)?.content ?? ''))?.[1], body: r.body }))
    .filter((r) => r.name !== undefined);

/** Moves the clock to `at` and runs the scheduler's minute timer. @param {number} at */
async function clockTo(at) {
  await fx.context.clock.setSystemTime(at - 20_000);
  await fx.context.clock.fastForward('01:05');
}
/** When a job is due (a one-off's time, as the scheduler saved it). @param {string} name */
async function dueAt(name) {
  const jobs = JSON.parse(String(await workspaceFile(page, '.scheduler/jobs.json'))).jobs;
  return /** @type {number} */ (jobs.find((/** @type {any} */ j) => j.name === name).trigger.at);
}
/**
 * The two review jobs' state lines in the Schedule panel, once `ready` holds for them (the panel is
 * opened, then closed again).
 * @param {(lifetimes: import('playwright-core').Locator, ownership: import('playwright-core').Locator) => Promise<unknown>} ready
 */
async function reviewStates(ready) {
  await page.getByRole('button', { name: 'Schedule', exact: true }).click();
  const lifetimes = page.locator('.job', { hasText: 'Review lifetimes' });
  const ownership = page.locator('.job', { hasText: 'Review ownership' });
  await ready(lifetimes, ownership);
  const out = { lifetimes: await lifetimes.innerText(), ownership: await ownership.innerText() };
  await page.getByRole('button', { name: 'Back to chat' }).click();
  return out;
}

test('session 1: curriculum, progress and a misconception recorded; reviews scheduled by difficulty', async () => {
  const asked = await turn(
    page,
    llm,
    'Teach me Rust - track my progress and misconceptions. I think a function can return a reference to its local String.',
    [
      {
        toolCalls: [
          { id: 'c1', name: 'fs_write', arguments: { path: 'artifacts/rust-curriculum.md', content: CURRICULUM } },
          {
            id: 'p1',
            name: 'fs_write',
            arguments: { path: 'artifacts/rust-progress.md', content: `${PROGRESS}- Day 1: ownership 4/5, lifetimes 1/5\n` },
          },
          { id: 'm1', name: 'memory_store', arguments: { key: 'lifetimes misconception', content: MISCONCEPTION, category: 'learned' } },
          {
            id: 's1',
            name: 'schedule_add',
            arguments: { when: 'in 3 days', name: 'Review lifetimes', prompt: 'Review the lifetimes misconception with the student.' },
          },
          {
            id: 's2',
            name: 'schedule_add',
            arguments: { when: 'in 7 days', name: 'Review ownership', prompt: 'Review ownership with the student.' },
          },
        ],
      },
      { text: 'Lifetimes again in 3 days, ownership in a week.' },
    ],
    'Lifetimes again in 3 days, ownership in a week.',
  );
  assert.deepEqual(asked, ['fs_write', 'schedule_add']);
  assert.equal(await workspaceFile(page, 'artifacts/rust-curriculum.md'), CURRICULUM);
  // The intervals by difficulty: the hard topic in 3 days, the easy one in 7 (from the session's time).
  assert.ok(Math.abs((await dueAt('Review lifetimes')) - START - 3 * DAY) < 5 * 60_000);
  assert.ok(Math.abs((await dueAt('Review ownership')) - START - 7 * DAY) < 5 * 60_000);
});

test('day 2 nothing is due; day 3 only the lifetimes review runs, with the misconception recalled; curriculum adapts', async () => {
  await clockTo(START + 2 * DAY);
  // The panel after the clock moved: both reviews still wait (their state read, not a sleep).
  const day2 = await reviewStates((l, o) => Promise.all([l.getByText(/Not run yet/).waitFor(), o.getByText(/Not run yet/).waitFor()]));
  assert.match(day2.lifetimes, /Not run yet/);
  assert.deepEqual(
    scheduled().map((s) => s.name),
    [],
  );
  llm.enqueue(
    { toolCalls: [{ id: 'r1', name: 'memory_recall', arguments: { query: 'lifetimes misconception', category: 'learned' } }] },
    {
      toolCalls: [
        { id: 'c2', name: 'fs_write', arguments: { path: 'artifacts/rust-curriculum.md', content: ADAPTED } },
        {
          id: 'p2',
          name: 'fs_write',
          arguments: { path: 'artifacts/rust-progress.md', content: '- Day 3: lifetimes 3/5\n', mode: 'append' },
        },
      ],
    },
    { text: 'You struggled with lifetimes 3 days ago - we revisited them.' },
  );
  await clockTo(await dueAt('Review lifetimes'));
  await page.locator('.msg.assistant .msg-body', { hasText: 'You struggled with lifetimes 3 days ago' }).waitFor();
  const day3 = await reviewStates((l, o) =>
    Promise.all([l.getByText(/Last run .*: succeeded/).waitFor(), o.getByText(/Not run yet/).waitFor()]),
  );
  assert.doesNotMatch(day3.lifetimes, /ran late|caught up/, 'on time at its interval, not a catch-up');
  assert.match(day3.lifetimes, /Done/, 'a one-off review: done once it ran');
  const runs = scheduled();
  assert.deepEqual(
    runs.map((s) => s.name),
    ['Review lifetimes'],
  );
  // The job's turn recalled the misconception of three days before, word for word.
  // The reply is drawn from memory a moment before the job's conversation is on storage.
  const recalled = await waitUntil(async () => (await toolResults(page)).r1, 'the scheduled turn’s recall on storage');
  assert.match(recalled.result, new RegExp(`^- \\[learned\\] lifetimes misconception: ${MISCONCEPTION}$`, 'm'));
  assert.match(JSON.stringify(llm.requests.at(-1)?.body.messages), /returned reference can outlive/);
  assert.equal(await workspaceFile(page, 'artifacts/rust-curriculum.md'), ADAPTED);
  assert.equal(
    await workspaceFile(page, 'artifacts/rust-progress.md'),
    `${PROGRESS}- Day 1: ownership 4/5, lifetimes 1/5\n- Day 3: lifetimes 3/5\n`,
    'progress accumulates',
  );
});

test('day 7 the ownership review runs, and the lifetimes review does not run again', async () => {
  llm.enqueue(
    {
      toolCalls: [
        {
          id: 'p3',
          name: 'fs_write',
          arguments: { path: 'artifacts/rust-progress.md', content: '- Day 7: ownership 5/5\n', mode: 'append' },
        },
      ],
    },
    { text: 'Ownership mastered.' },
  );
  await clockTo(await dueAt('Review ownership'));
  await page.locator('.msg.assistant .msg-body', { hasText: 'Ownership mastered.' }).waitFor();
  const day7 = await reviewStates((_l, o) => o.getByText(/Last run .*: succeeded/).waitFor());
  assert.doesNotMatch(day7.ownership, /ran late|caught up/, 'on time at its interval, not a catch-up');
  assert.match(day7.lifetimes, /History \(1\)/, 'the lifetimes review ran once');
  assert.deepEqual(
    scheduled().map((s) => s.name),
    ['Review lifetimes', 'Review ownership'],
  );
  assert.match(String(await workspaceFile(page, 'artifacts/rust-progress.md')), /Day 3: lifetimes 3\/5\n- Day 7: ownership 5\/5\n$/);
});
