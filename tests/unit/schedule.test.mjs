import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextRun, nextRuns, dueJobs, parseSchedulePhrase, ScheduleError } from '../../web/stores/schedule.js';

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
  assert.deepEqual(dueJobs([hourly], now, 'skip'), [], 'skip: the missed slot is not run late');
  assert.equal(dueJobs([hourly], T('2026-11-21T05:00:20Z'), 'skip').length, 1, 'on time is never skipped');
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
