import { Cron } from 'croner';
import { z } from 'zod';

/**
 * The scheduler's pure core (no timers, no storage): when a job runs next, which jobs are due
 * after the app was closed and which of their missed times run (a job's catch-up policy: once,
 * skip, or each up to a limit), and turning a phrase like "every weekday at 9am" into a job
 * spec. The clock is always passed in.
 */

export const TriggerSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('once'), at: z.number() }),
  z.object({ kind: z.literal('interval'), everyMs: z.number().int().min(60_000), startAt: z.number() }),
  z.object({ kind: z.literal('cron'), expression: z.string().min(9).max(200), timezone: z.string().max(100).optional() }),
]);
/** @typedef {z.infer<typeof TriggerSchema>} Trigger */

export class ScheduleError extends Error {
  /** @param {'invalid_cron' | 'invalid_timezone' | 'not_understood' | 'in_the_past'} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.name = 'ScheduleError';
    this.code = code;
  }
}

/** @param {string} expression @param {string | undefined} timezone */
function cronOf(expression, timezone) {
  if (expression.trim().split(/\s+/).length !== 5)
    throw new ScheduleError('invalid_cron', `"${expression}" is not a 5-field cron expression (minute hour day month weekday).`);
  if (timezone) {
    try {
      new Intl.DateTimeFormat('en', { timeZone: timezone });
    } catch {
      throw new ScheduleError('invalid_timezone', `"${timezone}" is not a time zone this browser knows (e.g. "Europe/Berlin").`);
    }
  }
  try {
    return new Cron(expression, { timezone, paused: true });
  } catch (err) {
    throw new ScheduleError('invalid_cron', `"${expression}" is not a valid cron expression: ${/** @type {Error} */ (err).message}`);
  }
}

/**
 * The next run strictly after `after` (ms), or null when there is none (a past one-off).
 * @param {Trigger} trigger @param {number} after
 */
export function nextRun(trigger, after) {
  if (trigger.kind === 'once') return trigger.at > after ? trigger.at : null;
  if (trigger.kind === 'interval') {
    if (after < trigger.startAt) return trigger.startAt;
    return trigger.startAt + (Math.floor((after - trigger.startAt) / trigger.everyMs) + 1) * trigger.everyMs;
  }
  return cronOf(trigger.expression, trigger.timezone).nextRun(new Date(after))?.getTime() ?? null;
}

/**
 * The next `count` runs after `after` (for the confirmation that shows the next 5 times).
 * @param {Trigger} trigger
 * @param {number} after
 * @param {number} [count]
 */
export function nextRuns(trigger, after, count = 5) {
  /** @type {number[]} */
  const out = [];
  let t = after;
  while (out.length < count) {
    const n = nextRun(trigger, t);
    if (n === null) break;
    out.push(n);
    t = n;
  }
  return out;
}

/** The most missed times a job set to "run each missed time" runs on catch-up. */
export const CATCH_UP_LIMIT_MAX = 12;

/**
 * What a job does about times it missed (Clawser closed, the tab hidden, the computer asleep):
 * once: run once for all of them; skip: run none (a time that is due right now still runs);
 * each: run each missed time, oldest first, but at most `limit` of them (the most recent ones).
 */
export const CatchUpSchema = z.discriminatedUnion('policy', [
  z.object({ policy: z.literal('once') }),
  z.object({ policy: z.literal('skip') }),
  z.object({ policy: z.literal('each'), limit: z.number().int().min(1).max(CATCH_UP_LIMIT_MAX) }),
]);
/** @typedef {z.infer<typeof CatchUpSchema>} CatchUp */

/**
 * Why a run started after its time: closed (Clawser was not open), hidden (the tab was in the
 * background or the computer slept, found when it became visible), asleep (the timer fired late).
 */
export const LATE_REASONS = /** @type {const} */ (['closed', 'hidden', 'asleep']);
/** @typedef {typeof LATE_REASONS[number]} LateReason */

/** How a late run's reason reads in the Schedule panel and the chat. @type {Record<LateReason, string>} */
export const LATE_WORDS = {
  closed: 'missed while Clawser was closed',
  hidden: 'missed while the tab was in the background or the computer slept',
  asleep: 'the computer was asleep or busy when it was due',
};

/** A time that passed less than this long ago is on time, not missed. */
export const LATE_AFTER_MS = 60_000;
/** The most missed times counted one by one (a cron job every minute, closed for a week, is 10 080). */
const MAX_SLOTS = 10_000;

/**
 * The times a trigger fell due in (after, now], counted, keeping the `keep` most recent.
 * @param {Trigger} trigger @param {number} first the first time after the last check @param {number} now @param {number} keep
 */
function passedSlots(trigger, first, now, keep) {
  if (trigger.kind === 'interval') {
    const count = Math.floor((now - first) / trigger.everyMs) + 1;
    const last = first + (count - 1) * trigger.everyMs;
    /** @type {number[]} */
    const recent = [];
    for (let i = Math.min(keep, count) - 1; i >= 0; i--) recent.push(last - i * trigger.everyMs);
    return { count, recent };
  }
  /** @param {number} from */
  const scan = (from) => {
    /** @type {number[]} */
    const recent = [];
    let count = 0;
    /** @type {number | null} */
    let t = from;
    while (t !== null && t <= now && count < MAX_SLOTS) {
      count++;
      recent.push(t);
      if (recent.length > keep) recent.shift();
      t = nextRun(trigger, t);
    }
    return { count, recent, capped: t !== null && t <= now };
  };
  const all = scan(first);
  if (!all.capped) return all;
  // Too many to count: the most recent ones are found by scanning the last day alone.
  const day = nextRun(trigger, now - 86_400_000);
  const tail = day !== null && day <= now ? scan(day) : all;
  return { count: all.count, recent: tail.recent };
}

/**
 * A job with times due; scheduledFor and missed: the newest time, and how many passed before it.
 * @template J
 * @typedef {{job: J, policy: CatchUp['policy'], slots: number[], passed: number, skipped: number, late: boolean, scheduledFor: number,
 *   missed: number}} DueJob
 */

/**
 * Which jobs have times due at `now`, and which of those times run by each job's catch-up
 * policy (its own `catchUp`, else `defaultPolicy`: jobs saved before a job had one).
 * slots: the times to run now, oldest first (empty: all were skipped); passed: how many times
 * passed since the last check; skipped: how many of them will not run; late: the newest time
 * passed more than LATE_AFTER_MS ago (it was missed, not just reached).
 * @template {{id: string, trigger: Trigger, lastCheckedAt: number, paused?: boolean, catchUp?: CatchUp}} J
 * @param {J[]} jobs @param {number} now @param {'once' | 'skip'} [defaultPolicy]
 * @returns {DueJob<J>[]}
 */
export function dueJobs(jobs, now, defaultPolicy = 'once') {
  /** @type {DueJob<J>[]} */
  const due = [];
  for (const job of jobs) {
    if (job.paused) continue;
    const first = nextRun(job.trigger, job.lastCheckedAt);
    if (first === null || first > now) continue;
    const catchUp = /** @type {CatchUp} */ (job.catchUp ?? { policy: defaultPolicy });
    const { count, recent } = passedSlots(job.trigger, first, now, catchUp.policy === 'each' ? catchUp.limit : 1);
    const last = /** @type {number} */ (recent.at(-1));
    const late = now - last >= LATE_AFTER_MS;
    const slots = catchUp.policy === 'skip' ? (late ? [] : [last]) : recent;
    due.push({
      job,
      policy: catchUp.policy,
      slots,
      passed: count,
      skipped: count - slots.length,
      late,
      scheduledFor: last,
      missed: count - 1,
    });
  }
  return due;
}

/**
 * The run records a check writes for a due job and the occurrences it runs now: one `running`
 * record per time to run (late ones say why), or one `skipped` record when none runs.
 * @param {DueJob<unknown>} d @param {number} now @param {LateReason} reason what made the check look
 */
export function catchUpRuns(d, now, reason) {
  const lateBy = (/** @type {number} */ t) => (now - t >= LATE_AFTER_MS ? { late: reason } : {});
  const occurrences = d.slots.map((t, i) => ({
    scheduledFor: t,
    // Run once: it stands for every time that passed; each: the first says how many the limit dropped.
    missed: d.policy === 'each' ? (i === 0 ? d.skipped : 0) : d.missed,
    manual: false,
    ...lateBy(t),
  }));
  const records = occurrences.map((o) => ({
    at: now,
    scheduledFor: o.scheduledFor,
    status: /** @type {'running' | 'skipped'} */ ('running'),
    summary: '',
    missed: o.missed,
    ...lateBy(o.scheduledFor),
  }));
  // Skipped by its policy: the history says which times and why they were missed.
  if (!records.length)
    records.push({
      at: now,
      scheduledFor: d.scheduledFor,
      status: 'skipped',
      summary: `Skipped ${d.passed === 1 ? 'the missed time' : `${d.passed} missed times`} (this job skips missed times).`,
      missed: d.missed,
      late: reason,
    });
  return { occurrences, records };
}

/** What a job does about missed times, in words. @param {CatchUp} c */
export function describeCatchUp(c) {
  if (c.policy === 'each') return `missed times: each runs, up to ${c.limit}`;
  return c.policy === 'skip' ? 'missed times: skipped' : 'missed times: run once';
}

/** A short human description of a trigger ("cron 0 9 * * 1-5 (Europe/Berlin)"). @param {Trigger} t */
export function describeTrigger(t) {
  if (t.kind === 'once') return `once, ${new Date(t.at).toLocaleString()}`;
  if (t.kind === 'interval') {
    const mins = Math.round(t.everyMs / 60_000);
    return mins % 1440 === 0 ? `every ${mins / 1440} day(s)` : mins % 60 === 0 ? `every ${mins / 60} hour(s)` : `every ${mins} minute(s)`;
  }
  return `cron ${t.expression}${t.timezone ? ` (${t.timezone})` : ''}`;
}

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** "9", "9am", "9:30", "21:15", "9.30 pm" → [hour, minute] @param {string} text */
function parseTime(text) {
  const m = text.trim().match(/^(\d{1,2})(?:[:.](\d{2}))?\s*(am|pm)?$/i);
  if (!m) return null;
  let hour = Number(m[1]);
  const minute = Number(m[2] ?? 0);
  const ampm = m[3]?.toLowerCase();
  if (ampm === 'pm' && hour < 12) hour += 12;
  if (ampm === 'am' && hour === 12) hour = 0;
  if (hour > 23 || minute > 59) return null;
  return [hour, minute];
}

/**
 * Turns a phrase into a trigger: "every weekday at 9am", "every monday at 17:30",
 * "every day at 8", "every 2 hours", "every 15 minutes", "in 3 days", "in 2 hours",
 * "tomorrow at 9am", or a raw 5-field cron expression. Local times use `timezone`.
 * @param {string} phrase @param {{now: number, timezone?: string}} context
 * @returns {Trigger}
 */
export function parseSchedulePhrase(phrase, { now, timezone }) {
  const p = phrase.trim().toLowerCase().replace(/\s+/g, ' ');
  if (/^[\d*/,-]+( [\d*/,\-a-z]+){4}$/.test(p)) {
    cronOf(p, timezone);
    return { kind: 'cron', expression: p, timezone };
  }
  const units = /** @type {Record<string, number>} */ ({ minute: 60_000, hour: 3_600_000, day: 86_400_000, week: 604_800_000 });
  let m = p.match(/^in (\d+|an?|one) (minute|hour|day|week)s?$/);
  if (m) {
    const n = /^\d+$/.test(m[1]) ? Number(m[1]) : 1;
    return { kind: 'once', at: now + n * units[m[2]] };
  }
  m = p.match(/^every (\d+ )?(minute|hour|day|week)s?$/);
  // "every day" alone has no time of day: it needs "at …" (below); "every 2 days" is an interval.
  if (m && (m[1] || !(m[2] === 'day' || m[2] === 'week'))) {
    const n = m[1] ? Number(m[1]) : 1;
    return { kind: 'interval', everyMs: Math.max(60_000, n * units[m[2]]), startAt: now + n * units[m[2]] };
  }
  m =
    p.match(/^(?:every |each )?(day|weekday|weekend day|monday|tuesday|wednesday|thursday|friday|saturday|sunday)s? at (.+)$/) ??
    p.match(/^(daily|every morning) at (.+)$/);
  if (m) {
    const time = parseTime(m[2]);
    if (!time) throw new ScheduleError('not_understood', `"${m[2]}" is not a time; write e.g. "9am" or "17:30".`);
    const days =
      m[1] === 'weekday' ? '1-5' : m[1] === 'weekend day' ? '0,6' : WEEKDAYS.includes(m[1]) ? String(WEEKDAYS.indexOf(m[1])) : '*';
    return { kind: 'cron', expression: `${time[1]} ${time[0]} * * ${days}`, timezone };
  }
  m = p.match(/^(today|tomorrow) at (.+)$/);
  if (m) {
    const time = parseTime(m[2]);
    if (!time) throw new ScheduleError('not_understood', `"${m[2]}" is not a time; write e.g. "9am" or "17:30".`);
    // The next matching minute in the time zone, found by cron (handles DST and zones).
    const midnight = startOfNextDay(now, timezone);
    const at = cronOf(`${time[1]} ${time[0]} * * *`, timezone)
      .nextRun(new Date(m[1] === 'tomorrow' ? midnight - 1 : now))
      ?.getTime();
    if (!at || (m[1] === 'today' && at >= midnight))
      throw new ScheduleError('in_the_past', `Today at ${m[2]} has already passed; say "tomorrow at ${m[2]}".`);
    return { kind: 'once', at };
  }
  throw new ScheduleError(
    'not_understood',
    `"${phrase}" is not a schedule I understand. Try "every weekday at 9am", "every 2 hours", "in 3 days", "tomorrow at 8:30" or a cron ` +
      `expression like "0 9 * * 1-5".`,
  );
}

/** Midnight starting the next day in `timezone`, as ms. @param {number} now @param {string | undefined} timezone */
function startOfNextDay(now, timezone) {
  return cronOf('0 0 * * *', timezone).nextRun(new Date(now))?.getTime() ?? now + 86_400_000;
}

/**
 * The next run times of a cron expression (or a phrase), as dates — the public helper.
 * @param {string} expression 5-field cron ("0 9 * * 1-5") or a phrase ("every weekday at 9am")
 * @param {{from?: Date | number, timezone?: string, count?: number}} [options]
 * @returns {Date[]}
 */
export function nextRunDates(expression, options = {}) {
  const from = options.from === undefined ? Date.now() : +options.from;
  const trigger = parseSchedulePhrase(expression, { now: from, timezone: options.timezone });
  return nextRuns(trigger, from, options.count ?? 5).map((t) => new Date(t));
}
