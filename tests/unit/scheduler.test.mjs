import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Scheduler, localLock, shouldDeliver } from '../../web/stores/scheduler.js';
import { scheduleAdd, scheduleList, scheduleRemove } from '../../web/tools/scheduler.js';
import { toolSettings } from '../../web/tools/index.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';

const MIN = 60_000;
const HOUR = 60 * MIN;

/** A scheduler with a hand-driven clock and timers that only record what they would wait for. */
function setup({
  fs = new MemoryFileSystem(),
  start = Date.UTC(2026, 10, 23, 8, 0),
  lock = localLock(),
  policy = /** @type {'once' | 'skip'} */ ('once'),
} = {}) {
  const clock = { now: start };
  /** @type {{job: string, scheduledFor: number, missed: number, manual: boolean, late?: string}[]} */
  const ran = [];
  /** @type {number[]} */
  const waits = [];
  const scheduler = new Scheduler({
    fs,
    now: () => clock.now,
    lock,
    timezone: 'UTC',
    missedPolicy: () => policy,
    timers: {
      set: (_fn, ms) => {
        waits.push(ms);
        return /** @type {any} */ (waits.length);
      },
      clear: () => {},
    }, // fake handle
    execute: async (job, run) => {
      ran.push({ job: job.name, ...run });
      if (job.name === 'fails') throw new Error('The provider is down');
      return { ok: true, summary: `did ${job.name}`, conversationId: 'c1' };
    },
  });
  return { scheduler, clock, ran, waits, fs };
}

test('scheduler: a phrase becomes a job; it fires at its time, records the run, and re-arms', async () => {
  const { scheduler, clock, ran, waits, fs } = setup();
  const preview = scheduler.preview('every weekday at 9am');
  assert.deepEqual(preview.trigger, { kind: 'cron', expression: '0 9 * * 1-5', timezone: 'UTC' });
  assert.equal(preview.next.length, 5);
  assert.equal(new Date(preview.next[0]).toISOString(), '2026-11-23T09:00:00.000Z'); // a Monday
  const job = await scheduler.add({ when: 'every weekday at 9am', action: { kind: 'prompt', prompt: 'Summarize my inbox' } });
  assert.equal(job.name, 'Summarize my inbox');
  await scheduler.start();
  assert.equal(ran.length, 0);
  assert.equal(waits.at(-1), MIN, 'waits at most a minute (re-checks after sleep)');
  clock.now = Date.UTC(2026, 10, 23, 9, 0, 5);
  await scheduler.tick();
  assert.deepEqual(ran, [{ job: 'Summarize my inbox', scheduledFor: Date.UTC(2026, 10, 23, 9, 0), missed: 0, manual: false }]);
  await scheduler.tick();
  assert.equal(ran.length, 1, 'one occurrence fires once');
  const [saved] = await scheduler.list();
  assert.equal(saved.runs.length, 1);
  assert.equal(saved.runs[0].status, 'ok');
  assert.equal(saved.runs[0].summary, 'did Summarize my inbox');
  assert.equal(saved.conversationId, 'c1', 'the conversation created by the first run is kept');
  assert.equal(new Date(/** @type {number} */ (saved.nextRunAt)).toISOString(), '2026-11-24T09:00:00.000Z');
  // A second scheduler over the same files sees the same job and history (reload).
  const again = setup({ fs });
  assert.deepEqual(
    (await again.scheduler.list()).map((j) => [j.name, j.runs.length]),
    [['Summarize my inbox', 1]],
  );
});

test('scheduler: missed runs while closed run once (never once per slot), or are skipped by policy', async () => {
  for (const policy of /** @type {const} */ (['once', 'skip'])) {
    const fs = new MemoryFileSystem();
    const first = setup({ fs, policy });
    await first.scheduler.add({
      when: 'every 1 hour',
      action: { kind: 'tool', tool: 'fetch', args: { url: 'https://example.com' } },
      name: 'hourly',
    });
    await first.scheduler.add({ when: 'in 2 hours', action: { kind: 'prompt', prompt: 'one-off' }, name: 'once' });
    // The app was closed for 10 hours.
    const later = setup({ fs, policy, start: first.clock.now + 10 * HOUR + 30 * MIN });
    await later.scheduler.start();
    if (policy === 'once') {
      assert.deepEqual(later.ran.map((r) => [r.job, r.missed]).sort(), [
        ['hourly', 9],
        ['once', 0],
      ]);
    } else {
      assert.deepEqual(later.ran, []);
    }
    const jobs = await later.scheduler.list();
    assert.equal(jobs.find((j) => j.name === 'once')?.done, true, 'a one-off is done either way');
    assert.equal(jobs.find((j) => j.name === 'once')?.nextRunAt, null);
    // Nothing more is due until the next slot.
    await later.scheduler.tick();
    assert.equal(later.ran.length, policy === 'once' ? 2 : 0);
    later.clock.now += 30 * MIN;
    await later.scheduler.tick();
    assert.deepEqual(later.ran.at(-1)?.job, 'hourly');
  }
});

test('scheduler: two tabs sharing the files and a lock fire each occurrence exactly once', async () => {
  const fs = new MemoryFileSystem();
  const lock = localLock();
  const a = setup({ fs, lock });
  const b = setup({ fs, lock });
  await a.scheduler.add({ when: 'every 15 minutes', action: { kind: 'prompt', prompt: 'check' }, name: 'check' });
  await a.scheduler.start();
  await b.scheduler.start();
  for (let i = 1; i <= 8; i++) {
    a.clock.now = b.clock.now = a.clock.now + 15 * MIN;
    await Promise.all([a.scheduler.tick(), b.scheduler.tick(), a.scheduler.tick()]);
  }
  assert.equal(a.ran.length + b.ran.length, 8);
  assert.equal(new Set([...a.ran, ...b.ran].map((r) => r.scheduledFor)).size, 8);
});

test('scheduler: pause, resume (no make-up runs), run now, failures recorded, delete, interrupted runs', async () => {
  const { scheduler, clock, ran, fs } = setup();
  const job = await scheduler.add({ when: 'every 1 hour', action: { kind: 'prompt', prompt: 'x' }, name: 'fails', delivery: 'error' });
  await scheduler.start();
  await scheduler.pause(job.id);
  assert.equal((await scheduler.get(job.id))?.nextRunAt, null);
  clock.now += 5 * HOUR;
  await scheduler.tick();
  assert.equal(ran.length, 0, 'paused jobs do not run');
  await scheduler.resume(job.id);
  await scheduler.tick();
  assert.equal(ran.length, 0, 'runs missed while paused are not made up');
  const r = await scheduler.runNow(job.id);
  assert.deepEqual(r, { ok: false, summary: 'The provider is down' });
  const saved = await scheduler.get(job.id);
  assert.equal(saved?.runs.at(-1)?.status, 'error');
  assert.equal(saved?.runs.at(-1)?.manual, true);
  assert.equal(saved?.nextRunAt, clock.now - (clock.now % HOUR) + HOUR, 'run now leaves the schedule as it was');
  assert.equal(shouldDeliver(job.delivery, false), true);
  assert.equal(shouldDeliver(job.delivery, true), false);
  // A run left "running" by a closed tab is marked interrupted at the next start, not repeated.
  const raw = JSON.parse(await fs.readText('.scheduler/jobs.json'));
  raw.jobs[0].runs.push({ at: clock.now, scheduledFor: clock.now, status: 'running', summary: '', missed: 0 });
  await fs.write('.scheduler/jobs.json', JSON.stringify(raw));
  const next = setup({ fs, start: clock.now + 1000 });
  await next.scheduler.start();
  assert.equal((await next.scheduler.get(job.id))?.runs.at(-1)?.status, 'interrupted');
  assert.equal(next.ran.length, 0);
  await next.scheduler.remove(job.id);
  assert.deepEqual(await next.scheduler.list(), []);
  await assert.rejects(next.scheduler.remove(job.id), { code: 'not_found' });
  await assert.rejects(next.scheduler.add({ when: 'whenever you like', action: { kind: 'prompt', prompt: 'x' } }), {
    code: 'not_understood',
  });
  await fs.write('.scheduler/jobs.json', '{broken');
  // Damaged: read as no jobs (the app is told, with a way to set it aside), changes refused.
  assert.deepEqual(await next.scheduler.reload(), []);
  await assert.rejects(next.scheduler.add({ when: 'in 5 minutes', action: { kind: 'prompt', prompt: 'x' } }), { code: 'damaged' });
  assert.equal(await fs.readText('.scheduler/jobs.json'), '{broken', 'a damaged file is left as it was');
});

test('schedule tools: add (with an event), list, remove', async () => {
  const { scheduler } = setup();
  const ctx = {
    workspaceId: 'w',
    fs: new MemoryFileSystem(),
    settings: toolSettings(),
    fetch: globalThis.fetch,
    scheduler,
    conversationId: 'conv1',
    toolNames: ['fetch'],
  };
  assert.equal(scheduleAdd.permission, 'write', 'creating a job needs approval by default');
  const preview = await scheduleAdd.preview?.({ when: 'every day at 7:30', prompt: 'Good morning briefing' }, ctx);
  assert.match(String(preview), /^Means: cron 30 7 \* \* \* \(UTC\)\. Next 5 runs:\n(• .+\n){4}• .+$/);
  assert.deepEqual(await scheduler.list(), [], 'a preview saves nothing');
  const added = await scheduleAdd.run({ when: 'every day at 7:30', prompt: 'Good morning briefing' }, ctx);
  assert.match(added.output, /Scheduled job j\w+ "Good morning briefing" \(cron 30 7 \* \* \* \(UTC\)\); next run 2026-11-24T07:30Z\./);
  assert.equal(added.events?.[0].type, 'scheduler_added');
  const [job] = await scheduler.list();
  assert.equal(job.conversationId, 'conv1');
  assert.equal(job.createdBy, 'agent');
  assert.equal((await scheduleAdd.run({ when: 'in 1 hour', tool: 'nope' }, ctx)).ok, false);
  assert.match((await scheduleList.run({}, ctx)).output, /Good morning briefing — cron 30 7 \* \* \* \(UTC\); next 2026-11-24T07:30Z/);
  const removed = await scheduleRemove.run({ id: job.id }, ctx);
  assert.equal(removed.events?.[0].type, 'scheduler_removed');
  assert.equal((await scheduleList.run({}, ctx)).output, 'No scheduled jobs.');
});

test('public API: nextRuns(expression, {from, timezone, count}) gives Dates, across a DST change', async () => {
  const { nextRuns, Scheduler: Exported, GoalManager, MemoryStore } = await import('../../web/clawser.js');
  assert.equal(Exported, Scheduler);
  assert.equal(typeof GoalManager, 'function');
  assert.equal(typeof MemoryStore, 'function');
  // Europe/Berlin leaves summer time on 2026-10-25: 9:00 local is 07:00Z before, 08:00Z after.
  const dates = nextRuns('0 9 * * *', { from: new Date('2026-10-23T12:00:00Z'), timezone: 'Europe/Berlin', count: 3 });
  assert.ok(dates.every((d) => d instanceof Date));
  assert.deepEqual(
    dates.map((d) => d.toISOString()),
    ['2026-10-24T07:00:00.000Z', '2026-10-25T08:00:00.000Z', '2026-10-26T08:00:00.000Z'],
  );
  assert.equal(
    nextRuns('every weekday at 9am', { from: Date.UTC(2026, 10, 21), timezone: 'UTC', count: 1 })[0].toISOString(),
    '2026-11-23T09:00:00.000Z',
  );
});

test("scheduler: a job waiting (e.g. for an approval) never stalls the workspace's other jobs", async () => {
  const clock = { now: Date.UTC(2026, 10, 23, 8, 0) };
  /** @type {(() => void)[]} */
  const armed = [];
  /** @type {(v: {ok: boolean, summary: string}) => void} */
  let answerSlow = () => {};
  /** @type {(name: string) => void} */
  let finished = () => {};
  const fastDone = new Promise((r) => {
    finished = r;
  });
  const scheduler = new Scheduler({
    fs: new MemoryFileSystem(),
    now: () => clock.now,
    timezone: 'UTC',
    timers: {
      set: (fn) => {
        armed.push(fn);
        return /** @type {any} */ (armed.length);
      },
      clear: () => {},
    }, // fake handle
    execute: (job) => {
      if (job.name === 'slow')
        return new Promise((r) => {
          answerSlow = r;
        });
      finished(job.name);
      return Promise.resolve({ ok: true, summary: `did ${job.name}` });
    },
  });
  await scheduler.add({ name: 'slow', when: 'every 1 hour', action: { kind: 'prompt', prompt: 'waits for an approval' } });
  await scheduler.add({ name: 'fast', when: 'every 1 hour', action: { kind: 'prompt', prompt: 'quick' } });
  await scheduler.start();
  const armedBefore = armed.length;
  clock.now = Date.UTC(2026, 10, 23, 9, 0, 1);
  const tick = scheduler.tick();
  assert.equal(await fastDone, 'fast', 'the second due job ran while the first waits');
  // The result of the fast job is recorded while the slow one still waits.
  while ((await scheduler.list()).find((j) => j.name === 'fast')?.runs.at(-1)?.status !== 'ok') await new Promise((r) => setImmediate(r));
  assert.equal((await scheduler.list()).find((j) => j.name === 'slow')?.runs.at(-1)?.status, 'running');
  assert.ok(armed.length > armedBefore, 'the clock is re-armed for later jobs while one still waits');
  answerSlow({ ok: true, summary: 'approved at last' });
  await tick;
  assert.equal((await scheduler.list()).find((j) => j.name === 'slow')?.runs.at(-1)?.status, 'ok');
});

test('scheduler: a run whose approval nobody answered is recorded as "needs approval"; control: \
a refused-by-error run is "error"', async () => {
  const clock = { now: Date.UTC(2026, 10, 23, 8, 0) };
  const scheduler = new Scheduler({
    fs: new MemoryFileSystem(),
    now: () => clock.now,
    timezone: 'UTC',
    timers: { set: () => /** @type {any} */ (1), clear: () => {} }, // fake handle
    execute: async (job) =>
      job.name === 'unanswered' ? { ok: false, summary: 'No one answered', needsApproval: true } : { ok: false, summary: 'broke' },
  });
  const a = await scheduler.add({ name: 'unanswered', when: 'every 1 hour', action: { kind: 'tool', tool: 'fs_write', args: {} } });
  const b = await scheduler.add({ name: 'broken', when: 'every 1 hour', action: { kind: 'tool', tool: 'fs_write', args: {} } });
  await scheduler.runNow(a.id);
  await scheduler.runNow(b.id);
  assert.equal((await scheduler.get(a.id))?.runs.at(-1)?.status, 'needs_approval');
  assert.equal((await scheduler.get(b.id))?.runs.at(-1)?.status, 'error');
});

test("scheduler: catch-up by each job's policy after an overnight gap (the clock moved): once, skip, each up to its limit; \
late runs say when they were due and why", async () => {
  const fs = new MemoryFileSystem();
  const evening = Date.UTC(2026, 10, 20, 20, 0);
  const first = setup({ fs, start: evening });
  /** @param {string} name @param {import('../../web/stores/schedule.js').CatchUp} [catchUp] */
  const add = (name, catchUp) =>
    first.scheduler.add({ name, when: 'every 1 hour', action: { kind: 'prompt', prompt: name }, ...(catchUp ? { catchUp } : {}) });
  await add('once', { policy: 'once' });
  await add('skip', { policy: 'skip' });
  await add('each', { policy: 'each', limit: 3 });
  const old = await add('old');
  assert.equal(old.catchUp, undefined, 'a job without a choice keeps none (it follows the default, run once)');
  await assert.rejects(add('bad', { policy: 'each', limit: 0 }), { code: 'invalid_job', message: /catchUp/ });
  await assert.rejects(
    first.scheduler.add({
      name: 'bad',
      when: 'every 1 hour',
      action: { kind: 'prompt', prompt: 'x' },
      catchUp: /** @type {any} */ ({ policy: 'x' }),
    }),
    { code: 'invalid_job' },
  ); // any: a value a caller could pass
  // Closed overnight: 12 hourly times pass (21:00 … 08:00); Clawser opens at 08:30.
  /** @type {import('../../web/stores/scheduler.js').CatchUpFound[]} */
  const found = [];
  const later = setup({ fs, start: Date.UTC(2026, 10, 21, 8, 30) });
  later.scheduler.onFound = (f) => found.push(f);
  await later.scheduler.start();
  const at = (/** @type {number} */ h) => Date.UTC(2026, 10, 21, h, 0);
  const ran = (/** @type {string} */ name) => later.ran.filter((r) => r.job === name).map((r) => [r.scheduledFor, r.missed, r.late]);
  assert.deepEqual(ran('once'), [[at(8), 11, 'closed']]);
  assert.deepEqual(ran('skip'), []);
  assert.deepEqual(
    ran('each'),
    [
      [at(6), 9, 'closed'],
      [at(7), 0, 'closed'],
      [at(8), 0, 'closed'],
    ],
    'the three most recent, oldest first; the first says 9 were dropped',
  );
  assert.deepEqual(ran('old'), [[at(8), 11, 'closed']], 'an old job runs once');
  assert.deepEqual(found, [{ reason: 'closed', runs: 5, late: 5, skipped: 11 + 12 + 9 + 11 }]);
  const jobs = Object.fromEntries((await later.scheduler.list()).map((j) => [j.name, j]));
  assert.deepEqual(
    jobs.skip.runs.map((r) => [r.status, r.scheduledFor, r.missed, r.late, r.summary]),
    [['skipped', at(8), 11, 'closed', 'Skipped 12 missed times (this job skips missed times).']],
  );
  assert.deepEqual(
    jobs.each.runs.map((r) => [r.status, r.scheduledFor, r.late]),
    [at(6), at(7), at(8)].map((t) => ['ok', t, 'closed']),
  );
  assert.equal(jobs.each.conversationId, 'c1');
  // Nothing more until 09:00; then on time (no reason recorded), whatever the policy.
  await later.scheduler.tick();
  assert.equal(later.ran.length, 5);
  later.clock.now = at(9) + 5000;
  await later.scheduler.tick();
  assert.deepEqual(
    later.ran
      .slice(5)
      .map((r) => [r.job, r.late])
      .sort(),
    [
      ['each', undefined],
      ['old', undefined],
      ['once', undefined],
      ['skip', undefined],
    ],
  );
  // Hidden for three hours (a laptop lid closed): found when the tab is visible again, with that reason.
  later.clock.now = at(12) + 20 * MIN;
  await later.scheduler.catchUp('hidden');
  assert.deepEqual(ran('each').slice(-3), [
    [at(10), 0, 'hidden'],
    [at(11), 0, 'hidden'],
    [at(12), 0, 'hidden'],
  ]);
  assert.deepEqual(found.at(-1), { reason: 'hidden', runs: 5, late: 5, skipped: 2 + 3 + 0 + 2 });
  assert.equal(found.length, 2, 'the on-time run at 09:00 found nothing missed');
  // The choice changes later (validated); stopped, a catch-up does nothing (another tab leads).
  await later.scheduler.update(jobs.once.id, { catchUp: { policy: 'each', limit: 2 } });
  assert.deepEqual((await later.scheduler.get(jobs.once.id))?.catchUp, { policy: 'each', limit: 2 });
  await assert.rejects(later.scheduler.update(jobs.once.id, { catchUp: /** @type {any} */ ({ policy: 'each', limit: 99 }) }), {
    code: 'invalid_job',
  }); // any: a value a caller could pass
  later.scheduler.stop();
  later.clock.now = at(15) + 20 * MIN;
  const before = later.ran.length;
  await later.scheduler.catchUp('hidden');
  assert.equal(later.ran.length, before);
});
