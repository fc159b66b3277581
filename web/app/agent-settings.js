/** @import { LocalConfig } from '../storage/local-config.js' */
/** @import { SecretBox } from '../storage/secrets.js' */
import { z } from 'zod';
import { AutonomySchema } from '../agent/autonomy.js';
import { ToolSettingsSchema } from '../tools/index.js';

export const AgentSettingsSchema = z.object({
  autonomy: AutonomySchema.default({ level: 'supervised', maxActionsPerHour: 100, maxCostCentsPerDay: 500 }),
  compactionThresholdTokens: z.number().int().min(1000).max(1_000_000).default(12_000),
  maxIterations: z.number().int().min(1).max(100).default(20),
  maxToolResultChars: z.number().int().min(1000).max(1_000_000).default(50_000),
  tools: ToolSettingsSchema.omit({ searchApiKey: true, allowedPrivateHosts: true }).default({ maxReadBytes: 50 * 1024 * 1024, maxWriteBytes: 10 * 1024 * 1024, maxFetchChars: 40_000, fetchAllowlist: [], searchEndpoint: '' }),
  leakAction: z.enum(['redact', 'warn', 'block']).default('redact'),
  /** Off only after the user confirmed it in a dialog (see SafetyPipeline.confirmDisable). */
  safetyEnabled: z.boolean().default(true),
  allowedPrivateHosts: z.array(z.string()).default([]),
  memory: z.object({
    /** Put the memories most relevant to each message into the turn's context. */
    autoRecall: z.boolean().default(true),
    recallLimit: z.number().int().min(1).max(20).default(5),
  }).default({ autoRecall: true, recallLimit: 5 }),
  scheduler: z.object({
    /** A job due while the app was closed: run it once on the next open, or skip it. */
    missedPolicy: z.enum(['once', 'skip']).default('once'),
  }).default({ missedPolicy: 'once' }),
  git: z.object({
    /** Make the workspace a git repository when it is first opened. */
    autoInit: z.boolean().default(true),
    /** Commit after each agent turn that changed files, so any agent edit can be rolled back. */
    autoCommit: z.boolean().default(true),
    /** Prefix for git's HTTP requests, for servers that do not allow browsers (CORS). */
    corsProxy: z.string().max(2000).default(''),
    authorName: z.string().max(200).default('Clawser'),
    authorEmail: z.string().max(200).default('clawser@localhost'),
  }).default({ autoInit: true, autoCommit: true, corsProxy: '', authorName: 'Clawser', authorEmail: 'clawser@localhost' }),
});
/** @typedef {z.infer<typeof AgentSettingsSchema>} AgentSettings */

const key = (/** @type {string} */ ws) => `clawser_agent_${ws}`;
const usageKey = (/** @type {string} */ ws) => `clawser_autonomy_usage_${ws}`;
const searchKey = (/** @type {string} */ ws) => `clawser_secret_${ws}_search`;
const gitTokenKey = (/** @type {string} */ ws) => `clawser_secret_${ws}_git`;

/** Per-workspace agent settings: autonomy, limits, compaction, tool settings. */
export class AgentSettingsStore {
  /** @param {{config: LocalConfig, secrets: SecretBox}} deps */
  constructor(deps) {
    this.config = deps.config;
    this.secrets = deps.secrets;
  }

  /** @param {string} ws @returns {AgentSettings} */
  load(ws) {
    const parsed = AgentSettingsSchema.safeParse(this.config.get(key(ws), {}));
    return parsed.success ? parsed.data : AgentSettingsSchema.parse({});
  }

  /** @param {string} ws @param {unknown} next validated here */
  save(ws, next) {
    const parsed = AgentSettingsSchema.parse(next);
    this.config.set(key(ws), parsed);
    return parsed;
  }

  /** @param {string} ws */
  async searchApiKey(ws) {
    const sealed = this.config.get(searchKey(ws), null);
    return typeof sealed === 'string' ? this.secrets.decrypt(sealed).catch(() => '') : '';
  }

  /** @param {string} ws @param {string | null} apiKey */
  async setSearchApiKey(ws, apiKey) {
    if (!apiKey) this.config.remove(searchKey(ws));
    else this.config.set(searchKey(ws), await this.secrets.encrypt(apiKey));
  }

  /** The git access token (sealed at rest). @param {string} ws */
  async gitToken(ws) {
    const sealed = this.config.get(gitTokenKey(ws), null);
    return typeof sealed === 'string' ? this.secrets.decrypt(sealed).catch(() => '') : '';
  }

  /** @param {string} ws @param {string | null} token */
  async setGitToken(ws, token) {
    if (!token) this.config.remove(gitTokenKey(ws));
    else this.config.set(gitTokenKey(ws), await this.secrets.encrypt(token));
  }

  /** @param {string} ws */
  hasGitToken(ws) {
    return this.config.get(gitTokenKey(ws), null) !== null;
  }

  /** @param {string} ws */
  hasSearchApiKey(ws) {
    return this.config.get(searchKey(ws), null) !== null;
  }

  /** Persistence of autonomy usage (actions, cost) so a reload keeps the limits. @param {string} ws */
  usageStore(ws) {
    return {
      load: () => /** @type {import('../agent/autonomy.js').AutonomyUsage | null} */ (this.config.get(usageKey(ws), null)),
      save: (/** @type {import('../agent/autonomy.js').AutonomyUsage} */ u) => this.config.set(usageKey(ws), u),
    };
  }

  /** @param {string} ws */
  forget(ws) {
    for (const k of [key(ws), usageKey(ws), searchKey(ws)]) this.config.remove(k);
  }
}
