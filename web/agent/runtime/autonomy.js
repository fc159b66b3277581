/** @import { PermissionLevel } from '../../tools/types.d.ts' */
import { z } from 'zod';

export const AutonomySchema = z.object({
  level: z.enum(['readonly', 'supervised', 'full']).default('supervised'),
  /** 0 = no limit */
  maxActionsPerHour: z.number().int().min(0).max(100_000).default(100),
  /** In cents; 0 = no limit */
  maxCostCentsPerDay: z.number().min(0).max(1_000_000).default(500),
  /** In cents; 0 = no limit */
  maxCostCentsPerMonth: z.number().min(0).max(100_000_000).default(0),
});
/** @typedef {z.infer<typeof AutonomySchema>} AutonomyConfig */
/** @typedef {{actions: number[], costDay: string, costCents: number, costMonth: string, monthCents: number}} AutonomyUsage */

/** The share of a cost limit at which the user is warned. */
export const COST_WARNING_SHARE = 0.8;

const HOUR = 3_600_000;

/**
 * @param {unknown} u a stored record, possibly malformed
 * @returns {AutonomyUsage} a fresh copy
 */
export function normalizeUsage(u) {
  const v = /** @type {Partial<AutonomyUsage> | null} */ (u && typeof u === 'object' ? u : null);
  return {
    actions: Array.isArray(v?.actions) ? v.actions.filter((t) => typeof t === 'number') : [],
    costDay: typeof v?.costDay === 'string' ? v.costDay : '',
    costCents: typeof v?.costCents === 'number' && Number.isFinite(v.costCents) ? v.costCents : 0,
    costMonth: typeof v?.costMonth === 'string' ? v.costMonth : '',
    monthCents: typeof v?.monthCents === 'number' && Number.isFinite(v.monthCents) ? v.monthCents : 0,
  };
}

/**
 * The sum of several records (one per tab): every action, and the cost of the latest day.
 * @param {unknown[]} parts
 * @returns {AutonomyUsage}
 */
export function mergeUsage(parts) {
  const all = parts.map(normalizeUsage);
  const costDay = all.reduce((d, u) => (u.costDay > d ? u.costDay : d), '');
  const costMonth = all.reduce((m, u) => (u.costMonth > m ? u.costMonth : m), '');
  return {
    actions: all.flatMap((u) => u.actions).sort((a, b) => a - b),
    costDay,
    costCents: all.filter((u) => u.costDay === costDay).reduce((sum, u) => sum + u.costCents, 0),
    costMonth,
    monthCents: all.filter((u) => u.costMonth === costMonth).reduce((sum, u) => sum + u.monthCents, 0),
  };
}

/**
 * Capability boundaries and rate limits, checked before every tool execution (and the cost
 * limit before every model call). Pure logic: clock and storage are injected.
 *
 * Usage is one shared count per workspace, not a copy per controller: every check reads the
 * stored total (`load`) and every record is a read-modify-write of the stored value, so
 * concurrent turns, jobs and tabs add up. `update` (when given) changes this page's own share
 * in one synchronous step while `load` returns the total of all shares — each tab writes only
 * its own record, so no tab can overwrite another's count. Without `update`, `load`/`save`
 * are one shared record.
 */
export class AutonomyController {
  /** @type {(() => AutonomyUsage | null) | null} */
  #load;
  /** @type {(u: AutonomyUsage) => void} */
  #save;
  /** @type {((change: (own: AutonomyUsage) => void) => void) | undefined} */
  #update;
  /** Usage when nothing is stored (no `load`). @type {AutonomyUsage} */
  #local = normalizeUsage(null);

  /**
   * @param {{config?: Partial<AutonomyConfig>, now?: () => number, load?: () => AutonomyUsage | null, save?: (u: AutonomyUsage) => void,
   *   update?: (change: (own: AutonomyUsage) => void) => void}} [options]
   */
  constructor(options = {}) {
    this.config = AutonomySchema.parse(options.config ?? {});
    this.now = options.now ?? Date.now;
    this.#load = options.load ?? null;
    this.#save = options.save ?? (() => {});
    this.#update = options.update;
  }

  /** The workspace's current usage (all turns, jobs and tabs), pruned to the last hour and today. */
  get usage() {
    const u = this.#load ? normalizeUsage(this.#load()) : this.#local;
    this.#prune(u);
    return u;
  }

  /** Read-modify-write of the stored usage. @param {(u: AutonomyUsage) => void} change */
  #change(change) {
    if (this.#update) {
      this.#update((own) => {
        this.#prune(own);
        change(own);
      });
      return;
    }
    const u = this.usage;
    change(u);
    if (!this.#load) this.#local = u;
    this.#save(u);
  }

  #day() {
    return new Date(this.now()).toISOString().slice(0, 10);
  }

  /** @param {AutonomyUsage} u */
  #prune(u) {
    const cutoff = this.now() - HOUR;
    u.actions = u.actions.filter((t) => t > cutoff);
    if (u.costDay !== this.#day()) {
      u.costDay = this.#day();
      u.costCents = 0;
    }
    const month = this.#day().slice(0, 7);
    if (u.costMonth !== month) {
      u.costMonth = month;
      u.monthCents = 0;
    }
  }

  /**
   * What the autonomy level says about a tool. Read-only: only read tools and internal ones
   * that change nothing lasting (ask_user, the artifact pane); a tool that creates standing
   * state (memory, goals, jobs) is refused like any write. Supervised: everything that changes
   * something asks (`forceApproval`), standing-state tools included; the runner lifts that for
   * a tool the user chose "Always allow" for. Full: each tool's policy decides.
   * @param {PermissionLevel | {permission: PermissionLevel, standing?: boolean}} tool
   * @returns {{allowed: false, reason: string} | {allowed: true, forceApproval: boolean}}
   */
  checkTool(tool) {
    const { permission, standing = false } = typeof tool === 'string' ? { permission: tool } : tool;
    const changes = standing || !(permission === 'read' || permission === 'internal');
    if (this.config.level === 'readonly' && changes) {
      return {
        allowed: false,
        reason: standing
          ? 'Autonomy is set to read-only: the agent changes nothing that persists, and this tool changes ' +
            'memory, goals or scheduled jobs. Change it in Settings to allow more.'
          : `Autonomy is set to read-only: the agent may only use read tools (this one is "${permission}"). Change it in Settings to ` +
            `allow more.`,
      };
    }
    const limit = this.checkLimits();
    if (limit) return { allowed: false, reason: limit };
    return { allowed: true, forceApproval: this.config.level === 'supervised' && changes };
  }

  /** @returns {string | null} why the run must stop, or null */
  checkLimits() {
    const usage = this.usage;
    const { maxActionsPerHour } = this.config;
    if (maxActionsPerHour > 0 && usage.actions.length >= maxActionsPerHour) {
      return (
        `The limit of ${maxActionsPerHour} tool actions per hour is reached. It frees up as older actions age out, or raise it in ` +
        `Settings.`
      );
    }
    return this.checkCost();
  }

  /** @returns {string | null} why no more may be spent (a cost limit is reached), or null */
  checkCost() {
    const usage = this.usage;
    const { maxCostCentsPerDay, maxCostCentsPerMonth } = this.config;
    if (maxCostCentsPerDay > 0 && usage.costCents >= maxCostCentsPerDay) {
      return (
        `Today's cost limit of ${(maxCostCentsPerDay / 100).toFixed(2)} USD is reached (${(usage.costCents / 100).toFixed(2)} USD ` +
        `spent). Raise it in Settings or continue tomorrow.`
      );
    }
    if (maxCostCentsPerMonth > 0 && usage.monthCents >= maxCostCentsPerMonth) {
      return (
        `This month's cost limit of ${(maxCostCentsPerMonth / 100).toFixed(2)} USD is reached ` +
        `(${(usage.monthCents / 100).toFixed(2)} USD spent). Raise it in Settings or continue next month.`
      );
    }
    return null;
  }

  /**
   * A warning once a cost limit is 80% used (and not yet reached), or null.
   * @returns {string | null}
   */
  costWarning() {
    const usage = this.usage;
    const { maxCostCentsPerDay: day, maxCostCentsPerMonth: month } = this.config;
    const usd = (/** @type {number} */ c) => `${(c / 100).toFixed(2)} USD`;
    if (day > 0 && usage.costCents >= day * COST_WARNING_SHARE && usage.costCents < day) {
      return `${Math.floor((usage.costCents / day) * 100)}% of today's cost limit is used (${usd(usage.costCents)} of ${usd(day)}).`;
    }
    if (month > 0 && usage.monthCents >= month * COST_WARNING_SHARE && usage.monthCents < month) {
      return (
        `${Math.floor((usage.monthCents / month) * 100)}% of this month's cost limit is used (${usd(usage.monthCents)} ` +
        `of ${usd(month)}).`
      );
    }
    return null;
  }

  recordAction() {
    const at = this.now();
    this.#change((u) => u.actions.push(at));
  }

  /** @param {number} cents */
  recordCost(cents) {
    if (cents > 0)
      this.#change((u) => {
        u.costCents += cents;
        u.monthCents += cents;
      });
  }
}
