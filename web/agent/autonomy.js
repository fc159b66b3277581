/** @import { PermissionLevel } from '../tools/types.d.ts' */
import { z } from 'zod';

export const AutonomySchema = z.object({
  level: z.enum(['readonly', 'supervised', 'full']).default('supervised'),
  /** 0 = no limit */
  maxActionsPerHour: z.number().int().min(0).max(100_000).default(100),
  /** In cents; 0 = no limit */
  maxCostCentsPerDay: z.number().min(0).max(1_000_000).default(500),
});
/** @typedef {z.infer<typeof AutonomySchema>} AutonomyConfig */
/** @typedef {{actions: number[], costDay: string, costCents: number}} AutonomyUsage */

const HOUR = 3_600_000;

/**
 * Capability boundaries and rate limits, checked before every tool execution (and the cost
 * limit before every model call). Usage persists through the injected load/save so a reload
 * does not reset the limits. Pure logic: clock and storage are injected.
 */
export class AutonomyController {
  /**
   * @param {{config?: Partial<AutonomyConfig>, now?: () => number, load?: () => AutonomyUsage | null, save?: (u: AutonomyUsage) => void}} [options]
   */
  constructor(options = {}) {
    this.config = AutonomySchema.parse(options.config ?? {});
    this.now = options.now ?? Date.now;
    this.save = options.save ?? (() => {});
    const loaded = options.load?.();
    /** @type {AutonomyUsage} */
    this.usage = loaded && Array.isArray(loaded.actions) ? loaded : { actions: [], costDay: '', costCents: 0 };
  }

  #day() {
    return new Date(this.now()).toISOString().slice(0, 10);
  }

  #prune() {
    const cutoff = this.now() - HOUR;
    this.usage.actions = this.usage.actions.filter((t) => t > cutoff);
    if (this.usage.costDay !== this.#day()) {
      this.usage.costDay = this.#day();
      this.usage.costCents = 0;
    }
  }

  /**
   * What the autonomy level says about a tool of this permission level.
   * @param {PermissionLevel} permission
   * @returns {{allowed: false, reason: string} | {allowed: true, forceApproval: boolean}}
   */
  checkTool(permission) {
    const readLike = permission === 'read' || permission === 'internal';
    if (this.config.level === 'readonly' && !readLike) {
      return { allowed: false, reason: `Autonomy is set to read-only: the agent may only use read tools (this one is "${permission}"). Change it in Settings to allow more.` };
    }
    const limit = this.checkLimits();
    if (limit) return { allowed: false, reason: limit };
    return { allowed: true, forceApproval: this.config.level === 'supervised' && !readLike };
  }

  /** @returns {string | null} why the run must stop, or null */
  checkLimits() {
    this.#prune();
    const { maxActionsPerHour, maxCostCentsPerDay } = this.config;
    if (maxActionsPerHour > 0 && this.usage.actions.length >= maxActionsPerHour) {
      return `The limit of ${maxActionsPerHour} tool actions per hour is reached. It frees up as older actions age out, or raise it in Settings.`;
    }
    if (maxCostCentsPerDay > 0 && this.usage.costCents >= maxCostCentsPerDay) {
      return `Today's cost limit of ${(maxCostCentsPerDay / 100).toFixed(2)} USD is reached (${(this.usage.costCents / 100).toFixed(2)} USD spent). Raise it in Settings or continue tomorrow.`;
    }
    return null;
  }

  recordAction() {
    this.#prune();
    this.usage.actions.push(this.now());
    this.save(this.usage);
  }

  /** @param {number} cents */
  recordCost(cents) {
    this.#prune();
    if (cents > 0) {
      this.usage.costCents += cents;
      this.save(this.usage);
    }
  }
}
