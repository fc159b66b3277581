/** @import { FileSystem } from '../storage/types.d.ts' */
/** @import { Coordination } from '../agent/types.d.ts' */
import { z } from 'zod';
import { LockedJsonFile } from '../storage/locked-json.js';
import { LocalLocks } from '../storage/local-locks.js';

/**
 * What a workspace's model calls and tool calls added up to, per day: the Dashboard's data.
 * Kept as daily totals (not one record per call) so years of use stay a small file, and
 * recorded where the calls happen — the agent's provider calls, the ToolRunner's gates — so
 * chat turns, scheduled jobs, code runs and title requests all count.
 */

const count = z.number().finite().min(0).default(0);
const ModelDaySchema = z.object({
  provider: z.string().max(100),
  model: z.string().max(300),
  calls: count,
  inputTokens: count,
  outputTokens: count,
  costCents: count,
  unpricedCalls: count,
});
const ToolDaySchema = z.object({ calls: count, failures: count, blocked: count, ms: count });
const DaySchema = z.object({
  models: z.record(z.string(), ModelDaySchema).default({}),
  tools: z.record(z.string(), ToolDaySchema).default({}),
});
export const LedgerSchema = z.object({ version: z.literal(1), days: z.record(z.string().regex(/^\d{4}-\d{2}-\d{2}$/), DaySchema) });
/** @typedef {z.infer<typeof LedgerSchema>} Ledger */
/** @typedef {z.infer<typeof DaySchema>} LedgerDay */
/**
 * unpriced: the model's price is unknown (its cost is not in costCents).
 * @typedef {{provider: string, model: string, inputTokens: number, outputTokens: number, costCents: number, unpriced?: boolean}} TurnUsage
 */
/** @typedef {{name: string, ok: boolean, blocked: boolean, durationMs: number}} ToolUse */

/** How long daily totals are kept. */
export const KEEP_DAYS = 400;
const DAY_MS = 86_400_000;
export const LEDGER_PATH = '.usage/ledger.json';

/** @returns {Ledger} */
export const emptyLedger = () => ({ version: 1, days: {} });

/** The local calendar day of a time, as YYYY-MM-DD (what a person calls "today"). @param {number} ms */
export function dayKey(ms) {
  const d = new Date(ms);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** @param {Ledger} ledger @param {string} day @returns {LedgerDay} */
function dayOf(ledger, day) {
  return (ledger.days[day] ??= { models: {}, tools: {} });
}

/** @param {number} n */
const clean = (n) => (Number.isFinite(n) && n > 0 ? n : 0);

/** Adds one model call. @param {Ledger} ledger @param {string} day @param {TurnUsage} u */
export function addTurn(ledger, day, u) {
  const models = dayOf(ledger, day).models;
  const key = `${u.provider}\u0000${u.model}`;
  const m = (models[key] ??= {
    provider: u.provider,
    model: u.model,
    calls: 0,
    inputTokens: 0,
    outputTokens: 0,
    costCents: 0,
    unpricedCalls: 0,
  });
  m.calls += 1;
  if (u.unpriced) m.unpricedCalls += 1;
  m.inputTokens += clean(u.inputTokens);
  m.outputTokens += clean(u.outputTokens);
  m.costCents += clean(u.costCents);
}

/**
 * Adds one tool call (a call the gates refused counts as blocked, not as a failure).
 * @param {Ledger} ledger
 * @param {string} day
 * @param {ToolUse} t
 */
export function addTool(ledger, day, t) {
  const tools = dayOf(ledger, day).tools;
  const s = (tools[t.name] ??= { calls: 0, failures: 0, blocked: 0, ms: 0 });
  s.calls += 1;
  if (t.blocked) s.blocked += 1;
  else if (!t.ok) s.failures += 1;
  s.ms += clean(t.durationMs);
}

/** Adds `delta`'s totals into `into` (in place) and returns it. @param {Ledger} into @param {Ledger} delta */
export function mergeLedger(into, delta) {
  for (const [day, d] of Object.entries(delta.days)) {
    const target = dayOf(into, day);
    for (const [key, m] of Object.entries(d.models)) {
      const t = (target.models[key] ??= {
        provider: m.provider,
        model: m.model,
        calls: 0,
        inputTokens: 0,
        outputTokens: 0,
        costCents: 0,
        unpricedCalls: 0,
      });
      t.calls += m.calls;
      t.unpricedCalls += m.unpricedCalls ?? 0;
      t.inputTokens += m.inputTokens;
      t.outputTokens += m.outputTokens;
      t.costCents += m.costCents;
    }
    for (const [name, s] of Object.entries(d.tools)) {
      const t = (target.tools[name] ??= { calls: 0, failures: 0, blocked: 0, ms: 0 });
      t.calls += s.calls;
      t.failures += s.failures;
      t.blocked += s.blocked;
      t.ms += s.ms;
    }
  }
  return into;
}

/** Drops days older than `keepDays` before `today` (in place). @param {Ledger} ledger @param {number} now @param {number} [keepDays] */
export function pruneLedger(ledger, now, keepDays = KEEP_DAYS) {
  const oldest = dayKey(now - keepDays * DAY_MS);
  for (const day of Object.keys(ledger.days)) if (day < oldest) delete ledger.days[day];
  return ledger;
}

/**
 * The Dashboard's view of the last `days` days (today included): one series per provider and
 * model (tokens and cost per day, zero on days without use), the totals, and each tool's calls,
 * failures, refusals and average run time, most used first.
 * @param {Ledger} ledger @param {{now: number, days: number}} range
 */
export function summarizeLedger(ledger, range) {
  /** @type {string[]} */
  const days = [];
  // Walk by calendar day around noon so daylight-saving changes never skip or repeat a day.
  const today = new Date(range.now);
  for (let i = range.days - 1; i >= 0; i--)
    days.push(dayKey(new Date(today.getFullYear(), today.getMonth(), today.getDate() - i, 12).getTime()));
  /**
   * @type {Map<string, {provider: string, model: string, calls: number, inputTokens: number, outputTokens: number, costCents: number,
   *   unpricedCalls: number, tokensPerDay: number[], centsPerDay: number[]}>}
   */
  const series = new Map();
  /** @type {Map<string, {name: string, calls: number, failures: number, blocked: number, ms: number}>} */
  const tools = new Map();
  days.forEach((day, i) => {
    const d = ledger.days[day];
    if (!d) return;
    for (const [key, m] of Object.entries(d.models)) {
      let s = series.get(key);
      if (!s)
        series.set(
          key,
          (s = {
            provider: m.provider,
            model: m.model,
            calls: 0,
            inputTokens: 0,
            outputTokens: 0,
            costCents: 0,
            unpricedCalls: 0,
            tokensPerDay: days.map(() => 0),
            centsPerDay: days.map(() => 0),
          }),
        );
      s.calls += m.calls;
      s.unpricedCalls += m.unpricedCalls ?? 0;
      s.inputTokens += m.inputTokens;
      s.outputTokens += m.outputTokens;
      s.costCents += m.costCents;
      s.tokensPerDay[i] += m.inputTokens + m.outputTokens;
      s.centsPerDay[i] += m.costCents;
    }
    for (const [name, t] of Object.entries(d.tools)) {
      const s = tools.get(name) ?? { name, calls: 0, failures: 0, blocked: 0, ms: 0 };
      s.calls += t.calls;
      s.failures += t.failures;
      s.blocked += t.blocked;
      s.ms += t.ms;
      tools.set(name, s);
    }
  });
  const models = [...series.values()].sort((a, b) => b.inputTokens + b.outputTokens - (a.inputTokens + a.outputTokens));
  return {
    days,
    models,
    totals: {
      calls: models.reduce((n, m) => n + m.calls, 0),
      tokens: models.reduce((n, m) => n + m.inputTokens + m.outputTokens, 0),
      costCents: models.reduce((n, m) => n + m.costCents, 0),
      unpricedCalls: models.reduce((n, m) => n + m.unpricedCalls, 0),
    },
    tools: [...tools.values()]
      .map((t) => ({ ...t, avgMs: t.calls - t.blocked > 0 ? t.ms / (t.calls - t.blocked) : 0 }))
      .sort((a, b) => b.calls - a.calls || a.name.localeCompare(b.name)),
  };
}

/**
 * The ledger of one workspace, in `.usage/ledger.json` (one of Clawser's own folders: tools,
 * git and imports never write it). Calls are added up in memory and written at most once a
 * second under a cross-tab lock, merged into what is stored now, so tabs add up. A damaged
 * file is kept aside (`.usage/ledger.damaged-….json`) and counting starts again.
 */
export class UsageLedger {
  /** Not written yet. @type {Ledger} */
  #pending = emptyLedger();
  /** Being written now. @type {Ledger | null} */
  #inFlight = null;
  /** @type {ReturnType<typeof setTimeout> | null} */
  #timer = null;
  /** @type {Promise<void>} */
  #writing = Promise.resolve();
  #localLocks = new LocalLocks();
  /** @type {LockedJsonFile<Ledger> | null} */
  #lockedFile = null;
  /** @type {Set<() => void>} */
  #listeners = new Set();

  /**
   * @param {{fs: FileSystem, coordination?: Coordination, key?: string, now?: () => number, delayMs?: number,
   *   onDamage?: import('../storage/damage.js').DamageSink}} deps
   *   key: the workspace id (the lock's and the change notice's name); delayMs: how long calls are gathered before a write;
   *   onDamage: told when the ledger file is damaged, and when it was set aside to count again
   */
  constructor(deps) {
    this.fs = deps.fs;
    this.onDamage = deps.onDamage;
    this.coordination = deps.coordination;
    this.now = deps.now ?? Date.now;
    this.delayMs = deps.delayMs ?? 1000;
    this.topic = `usage:${deps.key ?? ''}`;
    this.coordination?.subscribe(this.topic, () => this.#notify());
  }

  get #file() {
    const c = this.coordination;
    return (this.#lockedFile ??= new LockedJsonFile({
      fs: this.fs,
      path: LEDGER_PATH,
      name: this.topic,
      lock: c ? (name, fn) => c.withLock(name, fn) : (name, fn) => this.#localLocks.request(name, {}, fn),
      empty: emptyLedger,
      schema: LedgerSchema,
      what: `The usage statistics of this workspace (${LEDGER_PATH})`,
      ...(this.onDamage ? { onDamage: this.onDamage } : {}),
      onSetAside: () => this.#notify(),
      serialize: (value) => JSON.stringify(value),
      onWritten: () => c?.publish(this.topic, {}),
    }));
  }

  /** Calls `fn` when the totals change (in this tab or another). @param {() => void} fn */
  onChange(fn) {
    this.#listeners.add(fn);
    return () => {
      this.#listeners.delete(fn);
    };
  }

  #notify() {
    for (const fn of this.#listeners) fn();
  }

  /** One model call's tokens and estimated cost. @param {TurnUsage} u */
  recordTurn(u) {
    addTurn(this.#pending, dayKey(this.now()), u);
    this.#schedule();
  }

  /** One tool call through the gates. @param {ToolUse} t */
  recordTool(t) {
    addTool(this.#pending, dayKey(this.now()), t);
    this.#schedule();
  }

  #schedule() {
    this.#notify();
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.flush().catch(() => {});
    }, this.delayMs);
    // Under Node (tests, tools) a pending write does not keep the process alive.
    /** @type {{unref?: () => void}} */ (/** @type {unknown} */ (this.#timer)).unref?.();
  }

  /** Writes what was gathered (resolves when it is stored). */
  flush() {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#writing = this.#writing
      .catch(() => {})
      .then(async () => {
        const delta = this.#pending;
        if (!Object.keys(delta.days).length) return;
        this.#pending = emptyLedger();
        // Counted by read() while it is being written (neither pending nor stored yet).
        this.#inFlight = delta;
        try {
          await this.#file
            .update(async (stored) => ({ result: null, changed: true, value: pruneLedger(mergeLedger(stored, delta), this.now()) }))
            .catch(async (err) => {
              if (/** @type {{code?: string}} */ (err).code !== 'damaged') throw err;
              // Damaged: counting must go on, so it is set aside at once (renamed, its bytes kept for
              // the person to look at; under the lock, checked again there) and counting starts again.
              const to = await this.#file.setAside();
              if (to !== LEDGER_PATH)
                this.onDamage?.({
                  what: this.#file.what,
                  problem: `damaged; it was set aside, kept as ${to}, and counting started again`,
                  path: LEDGER_PATH,
                  keptAt: to,
                });
              await this.#file.update(async (stored) => ({ result: null, changed: true, value: mergeLedger(stored, delta) }));
            });
        } catch (err) {
          // Not lost: added back to be written with the next call.
          this.#inFlight = null;
          this.#pending = mergeLedger(delta, this.#pending);
          throw err;
        }
        this.#inFlight = null;
        // This tab's readers too (the write's announcement reaches only the other tabs).
        this.#notify();
      });
    return this.#writing;
  }

  /** Everything counted: what is stored plus what is not written yet. @returns {Promise<Ledger>} */
  async read() {
    /** @type {Ledger} */
    let stored;
    try {
      stored = await this.#file.readOr();
    } catch {
      stored = emptyLedger();
    }
    if (this.#inFlight) mergeLedger(stored, this.#inFlight);
    return mergeLedger(stored, this.#pending);
  }
}
