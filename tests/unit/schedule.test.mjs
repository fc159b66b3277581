import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  nextRun,
  nextRuns,
  dueJobs,
  parseSchedulePhrase,
  ScheduleError,
  CatchUpSchema,
  CATCH_UP_LIMIT_MAX,
} from '../../web/stores/schedule.js';

const T = (/** @type {string} */ iso) => Date.parse(iso);

test('next runs: once, interval, cron with a time zone, across a DST change', () => {
  assert.equal(nextRun({ kind: 'once', at: T('2026-11-22T10:00:00Z') }, T('2026-11-21T10:00:00Z')), T('2026-11-22T10:00:00Z'));
  assert.equal(nextRun({ kind: 'once', at: T('2026-11-20T10:00:00Z') }, T('2026-11-21T10:00:00Z')), null);
  const every = { kind: /** @type {const} */ ('interval'), everyMs: 3_600_000, startAt: T('2026-11-21T10:00:00Z') };
  assert.deepEqual(nextRuns(every, T('2026-11-21T10:30:00Z'), 2), [T('2026-11-21T11:00:00Z'), T('2026-11-21T12:00:00Z')]);
  const weekdays = { kind: /** @type {const} */ ('cron'), expression: '0 9 * * 1-5', timezone: 'Europe/Berlin' };
  // Saturday 21 Nov 2026: next are Monday–Friday at 09:00 Berlin (08:00 UTC in winter).
  assert.deepEqual(
    nextRuns(weekdays, T('2026-11-21T10:00:00Z')),
    ['23', '24', '25', '26', '27'].map((d) => T(`2026-11-${d}T08:00:00Z`)),
  );
  // DST: 09:00 Berlin is 08:00 UTC before 29 March 2026 and 07:00 UTC after.
  const daily = { kind: /** @type {const} */ ('cron'), expression: '0 9 * * *', timezone: 'Europe/Berlin' };
  assert.deepEqual(nextRuns(daily, T('2026-03-27T12:00:00Z'), 3), [
    T('2026-03-28T08:00:00Z'),
    T('2026-03-29T07:00:00Z'),
    T('2026-03-30T07:00:00Z'),
  ]);
  assert.throws(
    () => nextRun({ kind: 'cron', expression: '0 9 * *', timezone: undefined }, 0),
    (e) => e instanceof ScheduleError && e.code === 'invalid_cron',
  );
  assert.throws(() => nextRun({ kind: 'cron', expression: '0 9 * * *', timezone: 'Mars/Olympus' }, 0), { code: 'invalid_timezone' });
});

test('missed runs while the app was closed: each job runs once (never once per slot), or is skipped by policy', () => {
  const hourly = {
    id: 'h',
    trigger: { kind: /** @type {const} */ ('interval'), everyMs: 3_600_000, startAt: T('2026-11-21T00:00:00Z') },
    lastCheckedAt: T('2026-11-21T00:30:00Z'),
  };
  const future = {
    id: 'f',
    trigger: { kind: /** @type {const} */ ('once'), at: T('2026-11-25T00:00:00Z') },
    lastCheckedAt: T('2026-11-21T00:30:00Z'),
  };
  const paused = { ...hourly, id: 'p', paused: true };
  const now = T('2026-11-21T05:10:00Z');
  const due = dueJobs([hourly, future, paused], now);
  assert.deepEqual(
    due.map((d) => [d.job.id, d.missed, d.scheduledFor]),
    [['h', 4, T('2026-11-21T05:00:00Z')]],
  );
  assert.deepEqual(
    dueJobs([hourly], now, 'skip').map((d) => [d.slots, d.skipped, d.late]),
    [[[], 5, true]],
    'skip: the missed slot is not run late',
  );
  assert.deepEqual(dueJobs([hourly], T('2026-11-21T05:00:20Z'), 'skip')[0].slots, [T('2026-11-21T05:00:00Z')], 'on time is never skipped');
  assert.equal(dueJobs([{ ...hourly, lastCheckedAt: now }], now).length, 0, 'nothing due right after a check');
});

test('natural phrases become triggers; unclear ones get a helpful error', () => {
  const now = T('2026-11-21T10:00:00Z');
  const ctx = { now, timezone: 'Europe/Berlin' };
  assert.deepEqual(parseSchedulePhrase('every weekday at 9am', ctx), {
    kind: 'cron',
    expression: '0 9 * * 1-5',
    timezone: 'Europe/Berlin',
  });
  assert.deepEqual(parseSchedulePhrase('Every Monday at 17:30', ctx), {
    kind: 'cron',
    expression: '30 17 * * 1',
    timezone: 'Europe/Berlin',
  });
  assert.deepEqual(parseSchedulePhrase('daily at 8', ctx), { kind: 'cron', expression: '0 8 * * *', timezone: 'Europe/Berlin' });
  assert.deepEqual(parseSchedulePhrase('every 15 minutes', ctx), { kind: 'interval', everyMs: 900_000, startAt: now + 900_000 });
  assert.deepEqual(parseSchedulePhrase('every 2 days', ctx), { kind: 'interval', everyMs: 172_800_000, startAt: now + 172_800_000 });
  assert.deepEqual(parseSchedulePhrase('in 3 days', ctx), { kind: 'once', at: now + 3 * 86_400_000 });
  assert.deepEqual(parseSchedulePhrase('in an hour', ctx), { kind: 'once', at: now + 3_600_000 });
  assert.deepEqual(parseSchedulePhrase('tomorrow at 9am', ctx), { kind: 'once', at: T('2026-11-22T08:00:00Z') });
  assert.deepEqual(parseSchedulePhrase('today at 8pm', ctx), { kind: 'once', at: T('2026-11-21T19:00:00Z') });
  assert.throws(() => parseSchedulePhrase('today at 7am', ctx), { code: 'in_the_past' });
  assert.deepEqual(parseSchedulePhrase('*/10 * * * *', ctx), { kind: 'cron', expression: '*/10 * * * *', timezone: 'Europe/Berlin' });
  assert.throws(() => parseSchedulePhrase('every day', ctx), { code: 'not_understood' });
  assert.throws(() => parseSchedulePhrase('whenever you like', ctx), /every weekday at 9am/);
  assert.throws(() => parseSchedulePhrase('every friday at 25:00', ctx), { code: 'not_understood' });
});

test('catch-up policies per job, the clock a parameter: once, skip, each missed time up to its limit', () => {
  const evening = T('2026-11-20T20:00:00Z');
  const morning = T('2026-11-21T08:30:00Z'); // closed overnight: 12 hourly times passed (21:00 … 08:00)
  const hourly = (/** @type {string} */ id, /** @type {any} */ catchUp = undefined) => ({
    id,
    trigger: { kind: /** @type {const} */ ('interval'), everyMs: 3_600_000, startAt: T('2026-11-20T21:00:00Z') },
    lastCheckedAt: evening,
    ...(catchUp ? { catchUp } : {}),
  });
  const jobs = [
    hourly('once', { policy: 'once' }),
    hourly('skip', { policy: 'skip' }),
    hourly('each', { policy: 'each', limit: 3 }),
    hourly('each-all', { policy: 'each', limit: 12 }),
    hourly('old'),
  ];
  const due = Object.fromEntries(dueJobs(jobs, morning).map((d) => [d.job.id, d]));
  const hour = (/** @type {number} */ h) => T(`2026-11-21T${String(h).padStart(2, '0')}:00:00Z`);
  assert.deepEqual(due.once.slots, [hour(8)], 'once: the newest time, once');
  assert.equal(due.once.passed, 12);
  assert.equal(due.once.skipped, 11);
  assert.deepEqual(due.skip.slots, [], 'skip: none of the missed times');
  assert.equal(due.skip.skipped, 12);
  assert.deepEqual(due.each.slots, [hour(6), hour(7), hour(8)], 'each: the 3 most recent, oldest first (the cap)');
  assert.equal(due.each.skipped, 9);
  assert.equal(due['each-all'].slots.length, 12, 'each under its limit: every missed time');
  assert.equal(due['each-all'].slots[0], T('2026-11-20T21:00:00Z'));
  assert.equal(due['each-all'].skipped, 0);
  assert.deepEqual(due.old.slots, [hour(8)], 'a job saved before the choice runs once');
  assert.deepEqual(
    dueJobs([hourly('old')], morning, 'skip').map((d) => d.slots),
    [[]],
    "…or follows the workspace's earlier default",
  );
  for (const d of Object.values(due)) assert.equal(d.late, true, `${d.job.id}: 08:00 passed half an hour ago`);

  // A cron job, and one that came due seconds ago: on time, not late, and skip runs it.
  const weekdays = {
    id: 'cron',
    trigger: { kind: /** @type {const} */ ('cron'), expression: '0 9 * * 1-5', timezone: 'UTC' },
    lastCheckedAt: T('2026-11-20T10:00:00Z'), // a Friday
    catchUp: /** @type {const} */ ({ policy: 'each', limit: 5 }),
  };
  const monday = T('2026-11-23T09:00:30Z');
  const [cron] = dueJobs([weekdays], monday);
  assert.deepEqual(cron.slots, [monday - 30_000], 'the weekend has no times: only Monday 09:00');
  assert.equal(cron.late, false);
  assert.deepEqual(dueJobs([{ ...weekdays, catchUp: { policy: 'skip' } }], monday)[0].slots, [monday - 30_000]);

  // Dense: a cron every minute, closed for two weeks (more times than are counted one by one).
  const everyMinute = {
    id: 'dense',
    trigger: { kind: /** @type {const} */ ('cron'), expression: '* * * * *', timezone: 'UTC' },
    lastCheckedAt: T('2026-11-01T00:00:00Z'),
    catchUp: /** @type {const} */ ({ policy: 'each', limit: 2 }),
  };
  const [dense] = dueJobs([everyMinute], T('2026-11-15T00:00:10Z'));
  assert.deepEqual(dense.slots, [T('2026-11-14T23:59:00Z'), T('2026-11-15T00:00:00Z')], 'the most recent times, however many passed');
  assert.ok(dense.passed >= 10_000);
});

test('catch-up choices are validated: the policy by name, the limit a whole number from 1 to the maximum', () => {
  assert.deepEqual(CatchUpSchema.parse({ policy: 'each', limit: 3 }), { policy: 'each', limit: 3 });
  assert.deepEqual(CatchUpSchema.parse({ policy: 'once' }), { policy: 'once' });
  for (const bad of [
    { policy: 'each' },
    { policy: 'each', limit: 0 },
    { policy: 'each', limit: CATCH_UP_LIMIT_MAX + 1 },
    { policy: 'each', limit: 2.5 },
    { policy: 'sometimes' },
  ])
    assert.equal(CatchUpSchema.safeParse(bad).success, false, JSON.stringify(bad));
});
