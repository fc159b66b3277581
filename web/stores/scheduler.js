/** @import { FileSystem } from '../storage/types.d.ts' */
/** @import { Trigger, LateReason } from './schedule.js' */
import { z } from 'zod';
import { LockedJsonFile } from '../storage/locked-json.js';
import { LocalLocks } from '../storage/local-locks.js';
import { TriggerSchema, CatchUpSchema, LATE_REASONS, ScheduleError, catchUpRuns, dueJobs, nextRun, nextRuns } from './schedule.js';
import { parseSchedulePhrase, describeTrigger, describeCatchUp, LATE_WORDS, CATCH_UP_LIMIT_MAX } from './schedule.js';
import { isMcpName } from '../mcp/tool-lists.js';

export const DELIVERY = /** @type {const} */ (['always', 'success', 'error', 'never']);
/** Runs kept per job (newest last). */
export const RUN_HISTORY = 20;

const ActionSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('prompt'), prompt: z.string().min(1).max(20_000) }),
  // key: for an MCP tool, what it was bound to when scheduled (its identity, or its server's while
  // not connected): the job never calls another server's tool of the same name (web/mcp/tool-lists.js).
  z.object({
    kind: z.literal('tool'),
    tool: z.string().min(1).max(100),
    args: z.record(z.string(), z.unknown()).default({}),
    key: z.string().max(600).optional(),
  }),
  // The workspace's heartbeat: the agent reviews its checklist (set up in the Agents panel, never by a tool).
  z.object({ kind: z.literal('heartbeat') }),
]);
/** @typedef {z.infer<typeof ActionSchema>} JobAction */

const RunSchema = z.object({
  at: z.number(),
  scheduledFor: z.number(),
  /**
   * needs_approval: an approval the run asked for was not answered in time, so it was refused;
   * skipped: missed times the job's catch-up policy did not run (scheduledFor: the newest, missed: how many before it).
   */
  status: z.enum(['running', 'ok', 'error', 'interrupted', 'needs_approval', 'skipped']),
  /** What the run produced (reply or tool output), shortened. */
  summary: z.string().max(2000).default(''),
  /** Missed times this run stands for besides its own (run once), or that were dropped (each, over the limit). */
  missed: z.number().int().min(0).default(0),
  /** Why it started after scheduledFor (absent: on time, or run now). */
  late: z.enum(LATE_REASONS).optional(),
  manual: z.boolean().optional(),
  durationMs: z.number().optional(),
});
/** @typedef {z.infer<typeof RunSchema>} JobRun */

export const JobSchema = z.object({
  id: z.string().min(1).max(64),
  name: z.string().min(1).max(200),
  trigger: TriggerSchema,
  action: ActionSchema,
  delivery: z.enum(DELIVERY).default('always'),
  /** A channel of the workspace (web/channels/) its result also goes out through, as `delivery` says; set by the user only. */
  channel: z.string().min(1).max(64).optional(),
  /** What it does about times it missed; absent (jobs saved before the choice): the workspace's default, 'once' unless changed. */
  catchUp: CatchUpSchema.optional(),
  /** Where prompts run and results are posted; created on the first run when absent. */
  conversationId: z.string().max(64).optional(),
  paused: z.boolean().default(false),
  /** A one-off that has run. */
  done: z.boolean().default(false),
  createdAt: z.number(),
  createdBy: z.enum(['user', 'agent']).default('user'),
  /** Slots up to this time are settled (run, skipped or before the job existed). */
  lastCheckedAt: z.number(),
  runs: z.array(RunSchema).default([]),
  /**
   * When it is due next, as last written (null: never). Written for readers that cannot compute
   * cron times themselves (the service worker's background check); the trigger is the truth.
   */
  nextDueAt: z.number().nullable().optional(),
});
/** @typedef {z.infer<typeof JobSchema>} Job */

const FileSchema = z.object({ version: z.literal(1), jobs: z.array(JobSchema) });
const STORE = '.scheduler/jobs.json';

/**
 * @typedef {object} JobInput
 * @property {string} [name]
 * @property {Trigger} [trigger] or `when`, a phrase ("every weekday at 9am") or cron expression
 * @property {string} [when]
 * @property {JobAction} action
 * @property {Job['delivery']} [delivery]
 * @property {string} [channel] the id of a channel the result also goes out through (the Schedule panel's form)
 * @property {import('./schedule.js').CatchUp} [catchUp] what it does about missed times (default: run once)
 * @property {string} [conversationId]
 * @property {'user' | 'agent'} [createdBy]
 * @property {string} [timezone] for phrases and cron (default: the browser's)
 */

/**
 * needsApproval: the run was refused because nobody answered an approval in time.
 * quiet: nothing to tell (a heartbeat that found all well): no message, no notification.
 * @typedef {{ok: boolean, summary: string, conversationId?: string, needsApproval?: boolean, quiet?: boolean}} JobOutcome
 */
/**
 * One occurrence to run: when it was due, how many missed times it stands for, whether the user asked for it now, and why it is late.
 * @typedef {{scheduledFor: number, missed: number, manual: boolean, late?: LateReason}} JobRunInfo
 */
/** @typedef {(job: Job, run: JobRunInfo) => Promise<JobOutcome>} JobExecutor */
/**
 * What a check found: the times it runs now and the ones skipped (reason: what made it check).
 * @typedef {{reason: LateReason, runs: number, late: number, skipped: number}} CatchUpFound
 */
/** @typedef {(name: string, fn: () => Promise<any>) => Promise<any>} LockFn */

export class SchedulerError extends Error {
  /** @param {'not_found' | 'invalid_job'} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.name = 'SchedulerError';
    this.code = code;
  }
}

/** An in-process lock (one tab, or tests): TabCoordinator's single-tab locks. @returns {LockFn} */
export function localLock() {
  const locks = new LocalLocks();
  return (name, fn) => locks.request(name, {}, fn);
}

/**
 * The scheduled jobs of one workspace and the clock that runs them. Jobs live in
 * `.scheduler/jobs.json`; every change re-reads the file under a lock (another tab may have
 * changed it) and writes it atomically. A due occurrence is claimed under the same lock
 * before it runs, so it fires exactly once even with several tabs or a crash mid-run
 * (a run left "running" by a closed tab is marked interrupted, not repeated).
 */
export class Scheduler {
  /** A trigger in words ("every weekday at 09:00"). @param {Trigger} t */
  describe(t) {
    return describeTrigger(t);
  }

  /** What a job does about missed times, in words (a job without a choice: the default). @param {Job['catchUp']} c */
  describeCatchUp(c) {
    return describeCatchUp(c ?? { policy: this.missedPolicy() });
  }

  /** Why a run started late, in words ("missed while Clawser was closed"). @param {LateReason} reason */
  lateWords(reason) {
    return LATE_WORDS[reason];
  }

  /** The most times "each" may run on catch-up. */
  get catchUpLimitMax() {
    return CATCH_UP_LIMIT_MAX;
  }

  /** @type {Job[]} */
  #jobs = [];
  #loaded = false;
  /** @type {LockedJsonFile<z.infer<typeof FileSchema>> | null} */
  #jobsFile = null;
  /** @type {ReturnType<typeof setTimeout> | null} */
  #timer = null;
  #running = false;
  /** @type {Set<() => void>} */
  #listeners = new Set();
  /** Occurrences being executed by this tab (job id). */
  #busy = new Set();

  /**
   * @param {{fs: FileSystem, execute: JobExecutor, now?: () => number, lock?: LockFn, missedPolicy?: () => 'once' | 'skip',
   *   timers?: {set: (fn: () => void, ms: number) => ReturnType<typeof setTimeout>, clear: (t: ReturnType<typeof setTimeout>) => void},
   *   timezone?: string, maxDelayMs?: number, onChange?: () => void, onDamage?: import('../storage/damage.js').DamageSink,
   *   bindTool?: (name: string) => Promise<string | undefined>, onFound?: (found: CatchUpFound) => void}} deps
   *   lock: cross-tab lock (TabCoordinator.withLock); onChange: after this tab changed jobs (e.g. tell other tabs);
   *   bindTool: what an MCP tool a new job calls is bound to now (see web/mcp/tool-lists.js); absent: such a job reaches only servers saved
   *   before bindings;
   *   onDamage: told when jobs.json is damaged (no job runs and changes are refused until it is set aside);
   *   onFound: after each check that found due times (what it found), before they run
   */
  constructor(deps) {
    this.fs = deps.fs;
    this.onDamage = deps.onDamage;
    this.execute = deps.execute;
    this.now = deps.now ?? Date.now;
    this.lock = deps.lock ?? localLock();
    this.missedPolicy = deps.missedPolicy ?? (() => 'once');
    this.timers = deps.timers ?? { set: (fn, ms) => setTimeout(fn, ms), clear: (t) => clearTimeout(t) };
    this.timezone = deps.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
    /** Re-check at least this often (the computer may have slept; timers drift). */
    this.maxDelayMs = deps.maxDelayMs ?? 60_000;
    this.onChange = deps.onChange;
    this.bindTool = deps.bindTool;
    this.onFound = deps.onFound;
  }

  get running() {
    return this.#running;
  }

  /** @param {() => void} fn called after any change (this tab's or a reload) */
  subscribe(fn) {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  #emit() {
    for (const fn of this.#listeners) fn();
  }

  /** The jobs as stored (none while jobs.json is damaged: reported, kept as it is). */
  async #read() {
    return (await this.#file.readOr()).jobs;
  }

  /** `.scheduler/jobs.json`, changed under the cross-tab lock. */
  get #file() {
    return (this.#jobsFile ??= new LockedJsonFile({
      fs: this.fs,
      path: STORE,
      name: 'scheduler',
      lock: this.lock,
      empty: () => ({ version: /** @type {const} */ (1), jobs: /** @type {Job[]} */ ([]) }),
      serialize: (value) => JSON.stringify(value, null, 1),
      schema: FileSchema,
      what: `The scheduled jobs of this workspace (${STORE})`,
      ...(this.onDamage ? { onDamage: this.onDamage } : {}),
      // Set aside: read again, and the clock (if running) goes on with what is there now.
      onSetAside: () => this.reload().catch(() => {}),
    }));
  }

  /**
   * Re-reads the jobs under the lock, applies `fn` (which may change them in place and return
   * a result), writes them back when `fn` says so, and refreshes this tab's view.
   * @template T
   * @param {(jobs: Job[]) => {result: T, changed: boolean}} fn
   * @returns {Promise<T>}
   */
  async #mutate(fn) {
    const out = await this.#file.update((stored) => {
      const r = fn(stored.jobs);
      if (r.changed) for (const j of stored.jobs) j.nextDueAt = j.paused || j.done ? null : nextRun(j.trigger, j.lastCheckedAt);
      this.#jobs = stored.jobs;
      this.#loaded = true;
      return r;
    });
    this.#emit();
    if (out.changed) this.onChange?.();
    return out.result;
  }

  /** Reads the jobs from storage (after another tab changed them). */
  async reload() {
    this.#jobs = await this.#read();
    this.#loaded = true;
    this.#emit();
    if (this.#running) this.#arm();
    return this.#jobs;
  }

  async list() {
    if (!this.#loaded) await this.reload();
    return this.#jobs.map((j) => ({ ...j, nextRunAt: this.nextRunOf(j) }));
  }

  /** @param {string} id */
  async get(id) {
    return (await this.list()).find((j) => j.id === id) ?? null;
  }

  /** When the job runs next (null: paused, done or no more runs). @param {Job} job */
  nextRunOf(job) {
    if (job.paused || job.done) return null;
    return nextRun(job.trigger, Math.max(job.lastCheckedAt, this.now() - 1));
  }

  /**
   * The trigger a phrase or expression means, with its next run times, without saving anything
   * (the confirmation shown before a job is created).
   * @param {string | Trigger} when @param {{count?: number, timezone?: string}} [options]
   */
  preview(when, options = {}) {
    const now = this.now();
    const trigger =
      typeof when === 'string'
        ? parseSchedulePhrase(when, { now, timezone: options.timezone ?? this.timezone })
        : TriggerSchema.parse(when);
    const next = nextRuns(trigger, now, options.count ?? 5);
    if (!next.length) throw new ScheduleError('in_the_past', 'That time has already passed; choose a time in the future.');
    return { trigger, next, description: describeTrigger(trigger) };
  }

  /** @param {JobInput} input */
  async add(input) {
    const { trigger } = this.preview(input.trigger ?? input.when ?? '', { timezone: input.timezone });
    // A job calling an MCP tool calls the one scheduled, never one added later under its name (the binding is made here, never given).
    let action = input.action;
    if (action.kind === 'tool') {
      const { key: _given, ...rest } = /** @type {JobAction & {kind: 'tool'}} */ (action);
      const key = isMcpName(rest.tool) ? await this.bindTool?.(rest.tool) : undefined;
      action = { ...rest, ...(key ? { key } : {}) };
    }
    const now = this.now();
    const parsed = JobSchema.safeParse({
      id: `j${now.toString(36)}${Math.random().toString(36).slice(2, 6)}`,
      name: (input.name?.trim() || defaultName(input.action)).slice(0, 200),
      trigger,
      action,
      delivery: input.delivery ?? 'always',
      ...(input.channel ? { channel: input.channel } : {}),
      ...(input.catchUp ? { catchUp: input.catchUp } : {}),
      conversationId: input.conversationId,
      createdAt: now,
      createdBy: input.createdBy ?? 'user',
      lastCheckedAt: now,
      runs: [],
    });
    if (!parsed.success)
      throw new SchedulerError(
        'invalid_job',
        `The job is not valid: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'job'}: ${i.message}`).join('; ')}`,
      );
    const job = parsed.data;
    await this.#mutate((jobs) => {
      jobs.push(job);
      return { result: null, changed: true };
    });
    if (this.#running) this.#arm();
    return job;
  }

  /** @param {string} id @param {(job: Job) => void} change */
  async #change(id, change) {
    const job = await this.#mutate((jobs) => {
      const j = jobs.find((x) => x.id === id);
      if (!j) return { result: null, changed: false };
      change(j);
      return { result: { ...j }, changed: true };
    });
    if (!job) throw new SchedulerError('not_found', `There is no scheduled job with the id "${id}". schedule_list shows them.`);
    if (this.#running) this.#arm();
    return job;
  }

  /** @param {string} id */
  pause(id) {
    return this.#change(id, (j) => {
      j.paused = true;
    });
  }

  /** Resumes from now: runs missed while paused are not made up. @param {string} id */
  resume(id) {
    return this.#change(id, (j) => {
      j.paused = false;
      j.lastCheckedAt = Math.max(j.lastCheckedAt, this.now());
    });
  }

  /**
   * @param {string} id
   * @param {{name?: string, delivery?: Job['delivery'], conversationId?: string, catchUp?: import('./schedule.js').CatchUp}} patch
   */
  async update(id, patch) {
    const catchUp = patch.catchUp ? CatchUpSchema.safeParse(patch.catchUp) : null;
    if (catchUp && !catchUp.success)
      throw new SchedulerError('invalid_job', `The catch-up choice is not valid: ${catchUp.error.issues.map((i) => i.message).join('; ')}`);
    return this.#change(id, (j) => {
      if (patch.name?.trim()) j.name = patch.name.trim().slice(0, 200);
      if (catchUp?.success) j.catchUp = catchUp.data;
      if (patch.delivery) j.delivery = z.enum(DELIVERY).parse(patch.delivery);
      if (patch.conversationId) j.conversationId = patch.conversationId;
    });
  }

  /**
   * Puts a job back exactly as it was (undo of a turn), or removes it (null).
   * @param {string} id @param {Job | null} job
   */
  async restore(id, job) {
    const next = job ? JobSchema.parse(job) : null;
    await this.#mutate((jobs) => {
      const i = jobs.findIndex((x) => x.id === id);
      if (i >= 0) jobs.splice(i, 1);
      if (next) jobs.push(next);
      return { result: null, changed: true };
    });
    if (this.#running) this.#arm();
  }

  /** @param {string} id @returns {Promise<Job>} the removed job */
  async remove(id) {
    const job = await this.#mutate((jobs) => {
      const i = jobs.findIndex((x) => x.id === id);
      if (i === -1) return { result: null, changed: false };
      const [removed] = jobs.splice(i, 1);
      return { result: removed, changed: true };
    });
    if (!job) throw new SchedulerError('not_found', `There is no scheduled job with the id "${id}". schedule_list shows them.`);
    if (this.#running) this.#arm();
    return job;
  }

  /**
   * Starts the clock: runs left "running" by a closed tab are marked interrupted, jobs missed
   * while the app was closed run by each job's catch-up policy (once, skipped, or each missed
   * time up to its limit), then a timer waits for the next one. Call in one tab only (the leader).
   */
  async start() {
    if (this.#running) return;
    this.#running = true;
    // A damaged jobs file (reported) runs nothing; the clock keeps checking, so the jobs run
    // again once it is set aside.
    const damaged = (/** @type {unknown} */ err) => {
      if (/** @type {{code?: string}} */ (err).code !== 'damaged') throw err;
    };
    await this.#mutate((jobs) => {
      // Files written before `nextDueAt` existed get it now (the background check reads it).
      let changed = jobs.some((j) => j.nextDueAt === undefined);
      for (const j of jobs) {
        for (const r of j.runs) {
          if (r.status === 'running' && !this.#busy.has(j.id)) {
            r.status = 'interrupted';
            r.summary ||= 'The tab running this job was closed before it finished.';
            changed = true;
          }
        }
      }
      return { result: null, changed };
    }).catch(damaged);
    await this.tick({ reason: 'closed' }).catch(damaged);
  }

  /**
   * Looks for missed times now (the tab became visible again, the service worker woke): they run
   * by policy, recorded with `reason`. Nothing while the clock is stopped (another tab leads).
   * @param {LateReason} reason
   */
  async catchUp(reason) {
    if (this.#running) await this.tick({ reason });
  }

  stop() {
    this.#running = false;
    if (this.#timer) this.timers.clear(this.#timer);
    this.#timer = null;
  }

  #arm() {
    if (this.#timer) this.timers.clear(this.#timer);
    this.#timer = null;
    if (!this.#running) return;
    const now = this.now();
    let next = now + this.maxDelayMs;
    for (const j of this.#jobs) {
      const n = this.nextRunOf(j);
      if (n !== null && n < next) next = n;
    }
    this.#timer = this.timers.set(
      () => {
        this.#timer = null;
        this.tick().catch(() => {});
      },
      Math.max(0, next - now),
    );
  }

  /**
   * Runs whatever is due now (the timer calls this; tests call it with an injected clock).
   * @param {{reason?: LateReason}} [options] why a time found late was missed (default: the timer
   *   fired late, the computer was asleep or busy)
   */
  async tick(options = {}) {
    const reason = options.reason ?? 'asleep';
    try {
      const now = this.now();
      const policy = this.missedPolicy();
      // Claim under the lock: another tab (or a crashed run) may have settled these already.
      const claimed = await this.#mutate((jobs) => {
        const active = jobs.filter((j) => !j.done && !this.#busy.has(j.id));
        const due = dueJobs(active, now, policy);
        let changed = false;
        for (const j of active) {
          const first = j.paused ? null : nextRun(j.trigger, j.lastCheckedAt);
          if (first !== null && first <= now) {
            // Due or skipped: either way these slots are settled.
            j.lastCheckedAt = now;
            if (j.trigger.kind === 'once') j.done = true;
            changed = true;
          }
        }
        /** @type {{job: Job, occurrences: JobRunInfo[]}[]} */
        const out = [];
        let skipped = 0;
        for (const d of due) {
          skipped += d.skipped;
          const { occurrences, records } = catchUpRuns(d, now, reason);
          d.job.runs.push(...records);
          d.job.runs = d.job.runs.slice(-RUN_HISTORY);
          if (!occurrences.length) continue;
          this.#busy.add(d.job.id);
          out.push({ job: { ...d.job }, occurrences });
        }
        return { result: { out, skipped }, changed };
      });
      const found = claimed.out.flatMap((c) => c.occurrences);
      const late = found.filter((o) => o.late).length;
      if (late || claimed.skipped) this.onFound?.({ reason, runs: found.length, late, skipped: claimed.skipped });
      // Due jobs run side by side, and the clock is re-armed before they finish: a job waiting
      // for an approval (up to its time-out) must not hold back the workspace's other jobs. One
      // job's missed times run one after another, oldest first.
      const runs = claimed.out.map(async (c) => {
        try {
          let job = c.job;
          for (const o of c.occurrences) {
            const r = await this.#execute(job, o);
            // The first run made the job's conversation: the next ones run there too.
            if (r.conversationId && !job.conversationId) job = { ...job, conversationId: r.conversationId };
          }
        } finally {
          this.#busy.delete(c.job.id);
        }
      });
      this.#arm();
      await Promise.all(runs);
    } finally {
      this.#arm();
    }
  }

  /** Runs a job now, outside its schedule (its schedule is unchanged). @param {string} id */
  async runNow(id) {
    const now = this.now();
    const job = await this.#mutate((jobs) => {
      const j = jobs.find((x) => x.id === id);
      if (!j || this.#busy.has(id)) return { result: j ? { ...j, busy: true } : null, changed: false };
      j.runs.push({ at: now, scheduledFor: now, status: 'running', summary: '', missed: 0, manual: true });
      j.runs = j.runs.slice(-RUN_HISTORY);
      this.#busy.add(id);
      return { result: { ...j, busy: false }, changed: true };
    });
    if (!job) throw new SchedulerError('not_found', `There is no scheduled job with the id "${id}".`);
    if (job.busy) return null;
    try {
      return await this.#execute(job, { scheduledFor: now, missed: 0, manual: true });
    } finally {
      this.#busy.delete(id);
    }
  }

  /** @param {Job} job @param {JobRunInfo} run */
  async #execute(job, run) {
    const { scheduledFor } = run;
    const started = this.now();
    /** @type {JobOutcome} */
    let outcome;
    try {
      outcome = await this.execute(job, run);
    } catch (err) {
      outcome = { ok: false, summary: /** @type {Error} */ (err)?.message ?? String(err) };
    }
    const status = outcome.ok ? 'ok' : outcome.needsApproval ? 'needs_approval' : 'error';
    await this.#mutate((jobs) => {
      const j = jobs.find((x) => x.id === job.id);
      if (!j) return { result: null, changed: false }; // deleted while it ran
      const run = j.runs.findLast((r) => r.status === 'running' && r.scheduledFor === scheduledFor);
      if (run) Object.assign(run, { status, summary: outcome.summary.slice(0, 2000), durationMs: this.now() - started });
      if (outcome.conversationId && !j.conversationId) j.conversationId = outcome.conversationId;
      return { result: null, changed: true };
    });
    return {
      ok: outcome.ok,
      summary: outcome.summary,
      ...(outcome.needsApproval ? { needsApproval: true } : {}),
      ...(outcome.conversationId ? { conversationId: outcome.conversationId } : {}),
    };
  }
}

/** Whether a run's result is delivered (notification + chat message). @param {Job['delivery']} delivery @param {boolean} ok */
export function shouldDeliver(delivery, ok) {
  return delivery === 'always' || (delivery === 'success' && ok) || (delivery === 'error' && !ok);
}

/** @param {JobAction} action */
function defaultName(action) {
  const text = action.kind === 'prompt' ? action.prompt : action.kind === 'tool' ? `${action.tool}` : 'Heartbeat';
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 60 ? `${line.slice(0, 57)}…` : line;
}

/** A short human description of a trigger (public, from here as before; it lives in schedule.js). */
export { describeTrigger };
