import { Cron } from 'croner';
import { z } from 'zod';

/**
 * The scheduler's pure core (no timers, no storage): when a job runs next, which jobs are due
 * after the app was closed (each missed job once, never once per missed slot), and turning a
 * phrase like "every weekday at 9am" into a job spec. The clock is always passed in.
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

/**
 * Which jobs are due at `now`. A job whose last check was before one or more scheduled times
 * is due ONCE (policy 'once') or skipped (policy 'skip', only its next slot counts), however
 * many slots were missed while the app was closed.
 * @template {{id: string, trigger: Trigger, lastCheckedAt: number, paused?: boolean}} J
 * @param {J[]} jobs @param {number} now @param {'once' | 'skip'} [missedPolicy]
 * @returns {{job: J, scheduledFor: number, missed: number}[]}
 */
export function dueJobs(jobs, now, missedPolicy = 'once') {
  /** @type {{job: J, scheduledFor: number, missed: number}[]} */
  const due = [];
  for (const job of jobs) {
    if (job.paused) continue;
    const first = nextRun(job.trigger, job.lastCheckedAt);
    if (first === null || first > now) continue;
    // Count the slots that passed (bounded: only for the message "missed 3 runs").
    let missed = 0;
    let last = first;
    /** @type {number | null} */
    let t = first;
    while (t !== null && t <= now && missed < 1000) {
      missed++;
      last = t;
      t = nextRun(job.trigger, t);
    }
    const onTime = now - last < 60_000;
    if (missedPolicy === 'skip' && !onTime) continue;
    due.push({ job, scheduledFor: last, missed: missed - 1 });
  }
  return due;
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
