import { z } from 'zod';

/**
 * Self-repair: noticing that a run is stuck and stepping in, in two steps. The first finding
 * tells the model what is happening (a note in its system prompt for the rest of the turn);
 * if the next iteration still finds one, the run stops with a clear message and the user may
 * continue anyway. Pure logic: the agent's loop feeds it what happened and asks after each
 * iteration.
 */

export const SelfRepairSchema = z.object({
  enabled: z.boolean().default(true),
  /** The same tool with the same arguments, giving the same result, this many times in a turn. */
  repeatLimit: z.number().int().min(2).max(50).default(3),
  /** This many tool errors in a row. */
  errorLimit: z.number().int().min(2).max(50).default(4),
  /** This many iterations in a row whose calls all gave what the same call gave before (nothing new learned). */
  staleIterations: z.number().int().min(2).max(50).default(3),
  /** The model's text in one turn beyond this many characters. */
  maxOutputChars: z.number().int().min(1000).max(10_000_000).default(200_000),
  /** A turn running longer than this (0: no limit). */
  turnSeconds: z.number().int().min(0).max(86_400).default(900),
  /** A turn costing more than this many cents (0: no limit). */
  turnCents: z.number().min(0).max(100_000).default(0),
});
/** @typedef {z.infer<typeof SelfRepairSchema>} SelfRepairConfig */
export const DEFAULT_SELF_REPAIR = SelfRepairSchema.parse({});

/** @typedef {'repeat' | 'stale' | 'errors' | 'output' | 'time' | 'cost'} StuckKind */
/** @typedef {{kind: StuckKind, message: string}} StuckFinding */
/**
 * What to do after an iteration: nothing, tell the model, or stop the run.
 * @typedef {{action: 'warn' | 'stop', finding: StuckFinding, note?: string}} Intervention
 */

/** Arguments as a key that does not depend on property order. @param {unknown} value @returns {string} */
function stableKey(value) {
  if (Array.isArray(value)) return `[${value.map(stableKey).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableKey(/** @type {Record<string, unknown>} */ (value)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'undefined';
}

/** A short fingerprint of a tool result (FNV-1a over the text and its length). @param {string} text */
function fingerprint(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return `${(h >>> 0).toString(36)}:${text.length}`;
}

/** What the model is told (the first step). @param {StuckFinding} f */
function noteFor(f) {
  const advice = {
    repeat:
      'Do not call it again with the same arguments: the result will not change. Try a different ' +
      'approach, or answer the user with what you have and say what is blocking you.',
    stale: 'Your recent tool calls brought nothing new. Stop repeating them; answer with what you know, or ask the user for what you need.',
    errors: 'Stop and look at the errors: change the arguments or the approach, or tell the user what fails.',
    output: 'Wrap up now with a short final answer.',
    time: 'Wrap up now: give your final answer without further tool calls.',
    cost: 'Wrap up now: give your final answer without further tool calls.',
  }[f.kind];
  return (
    `Note from Clawser (not from the user or a tool): this run looks stuck — ${f.message} ${advice} If the next step is stuck too, ` +
    `the run will be stopped.`
  );
}

export class StuckDetector {
  /** @param {Partial<SelfRepairConfig>} [config] @param {{now?: () => number}} [deps] */
  constructor(config = {}, deps = {}) {
    this.config = { ...DEFAULT_SELF_REPAIR, ...config };
    this.now = deps.now ?? (() => Date.now());
    this.startedAt = this.now();
    /** Time the run spent waiting for the user (approvals) or for sub-agents: not the run's own. */
    this.waitedMs = 0;
    /** @type {Map<string, number>} */
    this.calls = new Map();
    /** Calls that reached the repeat limit in the current iteration. @type {string[]} */
    this.repeatedNow = [];
    this.errorStreak = 0;
    this.newThisIteration = false;
    this.resultsThisIteration = 0;
    this.staleStreak = 0;
    this.outputChars = 0;
    /** The model has been told once. @type {StuckFinding | null} */
    this.warned = null;
  }

  /**
   * A tool call ended. A call counts as repeated, and its result as nothing new, only when the
   * same call (tool and arguments) gave the same result before: a test run whose failures change,
   * or different commands that all print nothing, are progress, not a loop.
   * @param {string} name @param {unknown} args @param {boolean} ok @param {string} output
   * @param {number} [waitedMs] time the call spent waiting for the user's approval or a sub-agent
   */
  toolResult(name, args, ok, output, waitedMs = 0) {
    this.waitedMs += Math.max(0, waitedMs);
    this.errorStreak = ok ? 0 : this.errorStreak + 1;
    this.resultsThisIteration++;
    const key = `${name}\u0000${stableKey(args)}\u0000${fingerprint(output)}`;
    const n = (this.calls.get(key) ?? 0) + 1;
    this.calls.set(key, n);
    if (n >= this.config.repeatLimit && !this.repeatedNow.includes(name)) this.repeatedNow.push(name);
    if (n === 1) this.newThisIteration = true;
  }

  /** Time the run waited on something else (sub-agents working), not its own. @param {number} ms */
  addWait(ms) {
    this.waitedMs += Math.max(0, ms);
  }

  /**
   * The run changed something (a file written): the same call may give news now, so earlier
   * results stop counting as repeats (a fix, then the same test run, is progress).
   */
  madeChange() {
    this.calls.clear();
    this.staleStreak = 0;
  }

  /** The model wrote text. @param {string} text */
  reply(text) {
    this.outputChars += text.length;
  }

  /**
   * After an iteration with tool calls: what is wrong now, if anything (the first finding).
   * A repeat counts in the iteration that reached the limit; errors, stale steps, output, time
   * and cost count while they last.
   * @param {{costCents?: number}} [state]
   * @returns {StuckFinding | null}
   */
  findings(state = {}) {
    const c = this.config;
    /** @type {StuckFinding[]} */
    const found = [];
    if (this.repeatedNow.length)
      found.push({
        kind: 'repeat',
        message:
          `${this.repeatedNow.map((n) => `“${n}”`).join(', ')} was called with the same arguments ${c.repeatLimit} times or more ` +
          `in this turn, with the same result each time.`,
      });
    if (this.errorStreak >= c.errorLimit) found.push({ kind: 'errors', message: `the last ${this.errorStreak} tool calls failed.` });
    if (this.resultsThisIteration) this.staleStreak = this.newThisIteration ? 0 : this.staleStreak + 1;
    if (this.staleStreak >= c.staleIterations)
      found.push({
        kind: 'stale',
        message: `the last ${this.staleStreak} steps only repeated calls that had given the same results before.`,
      });
    if (this.outputChars > c.maxOutputChars)
      found.push({
        kind: 'output',
        message:
          `the model has written ${this.outputChars.toLocaleString('en')} characters in this turn (the limit ` +
          `is ${c.maxOutputChars.toLocaleString('en')}).`,
      });
    const seconds = (this.now() - this.startedAt - this.waitedMs) / 1000;
    if (c.turnSeconds && seconds > c.turnSeconds)
      found.push({ kind: 'time', message: `the turn has run for ${Math.round(seconds)} seconds (the budget is ${c.turnSeconds}).` });
    if (c.turnCents && (state.costCents ?? 0) > c.turnCents)
      found.push({ kind: 'cost', message: `the turn has cost ${(state.costCents ?? 0).toFixed(2)}¢ (the budget is ${c.turnCents}¢).` });
    this.repeatedNow = [];
    this.newThisIteration = false;
    this.resultsThisIteration = 0;
    return found[0] ?? null;
  }

  /**
   * The step to take after an iteration: warn the first time something is found, stop when the
   * iteration after a warning is stuck too. Null when the run may go on.
   * @param {{costCents?: number}} [state]
   * @returns {Intervention | null}
   */
  check(state = {}) {
    if (!this.config.enabled) return null;
    const finding = this.findings(state);
    if (!finding) {
      // A clean step after a warning: the model changed course.
      this.warned = null;
      return null;
    }
    if (!this.warned) {
      this.warned = finding;
      return { action: 'warn', finding, note: noteFor(finding) };
    }
    return { action: 'stop', finding };
  }
}
