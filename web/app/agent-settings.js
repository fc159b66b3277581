/** @import { ConfigStore } from '../storage/types.d.ts' */
/** @import { SecretBox } from '../storage/secrets.js' */
import { z } from 'zod';
import { AutonomySchema, mergeUsage, normalizeUsage } from '../agent/runtime/autonomy.js';
import { ToolSettingsSchema } from '../tools/tool-settings.js';
import { SelfRepairSchema, DEFAULT_SELF_REPAIR } from '../agent/runtime/self-repair.js';
import { RelaySchema } from '../net/relay.js';

const RouteSchema = z.object({
  provider: z.string().min(1),
  model: z.string().max(300).default(''),
  baseUrl: z.string().max(2000).default(''),
  /** "Through my relay": the machine whose wsh relay its requests go through; absent: direct. */
  relay: RelaySchema.optional(),
});

export const AgentSettingsSchema = z.object({
  autonomy: AutonomySchema.default({ level: 'supervised', maxActionsPerHour: 100, maxCostCentsPerDay: 500, maxCostCentsPerMonth: 0 }),
  compactionThresholdTokens: z.number().int().min(1000).max(1_000_000).default(12_000),
  maxIterations: z.number().int().min(1).max(100).default(20),
  maxToolResultChars: z.number().int().min(1000).max(1_000_000).default(50_000),
  tools: ToolSettingsSchema.omit({ searchApiKey: true, allowedPrivateHosts: true }).default({
    maxReadBytes: 50 * 1024 * 1024,
    maxWriteBytes: 10 * 1024 * 1024,
    maxFetchChars: 40_000,
    fetchAllowlist: [],
    searchEndpoint: '',
    tabSitesAllow: [],
    tabSitesDeny: [],
    companionId: '',
  }),
  leakAction: z.enum(['redact', 'warn', 'block']).default('redact'),
  /** Off only after the user confirmed it in a dialog (see SafetyPipeline.confirmDisable). */
  safetyEnabled: z.boolean().default(true),
  allowedPrivateHosts: z.array(z.string()).default([]),
  memory: z
    .object({
      /** Put the memories most relevant to each message into the turn's context. */
      autoRecall: z.boolean().default(true),
      recallLimit: z.number().int().min(1).max(20).default(5),
      /**
       * Who summarizes long memories (a summary stands in for them in prompts): SUMMARY_MODES of
       * web/memory/summaries.js, spelled out so that module stays off the start-up path.
       */
      summaries: z.enum(['auto', 'on-device', 'off']).default('auto'),
    })
    .default({ autoRecall: true, recallLimit: 5, summaries: 'auto' }),
  scheduler: z
    .object({
      /** A job due while the app was closed: run it once on the next open, or skip it. */
      missedPolicy: z.enum(['once', 'skip']).default('once'),
      /** How long a job's approval waits for an answer before the call is refused and the run marked "needs approval". */
      approvalTimeoutMinutes: z.number().int().min(1).max(1440).default(10),
    })
    .default({ missedPolicy: 'once', approvalTimeoutMinutes: 10 }),
  providers: z
    .object({
      /** Tried in order when the workspace's provider fails with a retryable error (never on auth or client errors). */
      fallbacks: z.array(RouteSchema).max(4).default([]),
      /** Routing hints: a kind of work mapped to a provider and model; a conversation can pin one. */
      routes: z
        .object({
          fast: RouteSchema.optional(),
          smart: RouteSchema.optional(),
          code: RouteSchema.optional(),
          vision: RouteSchema.optional(),
        })
        .default({}),
      /** Tries of one provider after its first, before the next in the chain. */
      retries: z.number().int().min(0).max(5).default(2),
      /** The response cache: identical requests within 30 minutes answered again (only at temperature 0, always, or never). */
      cache: z.enum(['deterministic', 'always', 'off']).default('deterministic'),
      /** Stream time-outs by state: no answer, no first byte, a gap between chunks. */
      timeouts: z
        .object({
          connectSeconds: z.number().int().min(1).max(600).default(30),
          firstByteSeconds: z.number().int().min(1).max(3600).default(300),
          gapSeconds: z.number().int().min(1).max(3600).default(180),
        })
        .default({ connectSeconds: 30, firstByteSeconds: 300, gapSeconds: 180 }),
    })
    .default({
      fallbacks: [],
      routes: {},
      retries: 2,
      cache: 'deterministic',
      timeouts: { connectSeconds: 30, firstByteSeconds: 300, gapSeconds: 180 },
    }),
  /** When a run counts as stuck, and its time and cost budgets (web/agent/runtime/self-repair.js). */
  selfRepair: SelfRepairSchema.default(DEFAULT_SELF_REPAIR),
  /** Sub-agents (agent_delegate): how many run at once in a turn, how deep they may nest. */
  delegation: z
    .object({
      maxParallel: z.number().int().min(1).max(10).default(3),
      maxDepth: z.number().int().min(1).max(5).default(2),
    })
    .default({ maxParallel: 3, maxDepth: 2 }),
  /** The heartbeat's schedule (a phrase or cron); whether it runs is its job in the scheduler. */
  heartbeat: z.object({ when: z.string().min(1).max(200).default('every 30 minutes') }).default({ when: 'every 30 minutes' }),
  /** Per-turn undo: how many turns of each conversation can be undone. */
  undo: z.object({ turnsKept: z.number().int().min(1).max(200).default(20) }).default({ turnsKept: 20 }),
  git: z
    .object({
      /** Make the workspace a git repository when it is first opened. */
      autoInit: z.boolean().default(true),
      /** Commit after each agent turn that changed files, so any agent edit can be rolled back. */
      autoCommit: z.boolean().default(true),
      /** Prefix for git's HTTP requests, for servers that do not allow browsers (CORS). */
      corsProxy: z.string().max(2000).default(''),
      authorName: z.string().max(200).default('Clawser'),
      authorEmail: z.string().max(200).default('clawser@localhost'),
    })
    .default({ autoInit: true, autoCommit: true, corsProxy: '', authorName: 'Clawser', authorEmail: 'clawser@localhost' }),
});
/** @typedef {z.infer<typeof AgentSettingsSchema>} AgentSettings */

/** A host or host:port (IPv6 in brackets), the form web_fetch and the validator compare with. */
export const HOST_RE = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;
const KIB = 1024;
/** @param {string} label @param {number} min @param {number} max */
const whole = (label, min, max) => {
  const message = `${label} must be a whole number from ${min.toLocaleString('en')} to ${max.toLocaleString('en')}.`;
  return z.coerce.number({ error: message }).int({ error: message }).min(min, { error: message }).max(max, { error: message });
};

/**
 * The limits of the Settings dialog as typed (strings), with a message a user can act on per
 * field. Sizes are entered in KiB.
 */
export const LimitFieldsSchema = z.object({
  allowedPrivateHosts: z
    .string()
    .max(2000, { error: 'Private hosts: the list is too long.' })
    .transform((v) => [
      ...new Set(
        v
          .split(/[\s,]+/)
          .map((h) => h.trim().toLowerCase())
          .filter(Boolean),
      ),
    ])
    .pipe(
      z
        .array(
          z.string().regex(HOST_RE, {
            error: 'Private hosts: write each as a host or host:port (e.g. 127.0.0.1:11434), without http:// or a path.',
          }),
        )
        .max(50, { error: 'Private hosts: at most 50.' }),
    ),
  maxIterations: whole('Steps per turn', 1, 100),
  maxToolResultChars: whole('Tool result cap', 1000, 1_000_000),
  maxReadKiB: whole('Largest file a tool reads', 1, 1024 * 1024),
  maxWriteKiB: whole('Largest file a tool writes', 1, 1024 * 1024),
});

/**
 * @param {Record<keyof z.input<typeof LimitFieldsSchema>, string>} raw the dialog's fields
 * @returns {{ok: true, value: {allowedPrivateHosts: string[], maxIterations: number, maxToolResultChars: number, maxReadBytes: number,
 *   maxWriteBytes: number}} | {ok: false, errors: Partial<Record<keyof z.input<typeof LimitFieldsSchema>, string>>}}
 */
export function parseLimitFields(raw) {
  const parsed = LimitFieldsSchema.safeParse(raw);
  if (!parsed.success) {
    /** @type {Partial<Record<keyof z.input<typeof LimitFieldsSchema>, string>>} */
    const errors = {};
    for (const issue of parsed.error.issues) {
      const field = /** @type {keyof z.input<typeof LimitFieldsSchema>} */ (issue.path[0]);
      errors[field] ??= issue.message;
    }
    return { ok: false, errors };
  }
  const { maxReadKiB, maxWriteKiB, ...rest } = parsed.data;
  return { ok: true, value: { ...rest, maxReadBytes: maxReadKiB * KIB, maxWriteBytes: maxWriteKiB * KIB } };
}

const key = (/** @type {string} */ ws) => `clawser_agent_${ws}`;
const usageKey = (/** @type {string} */ ws) => `clawser_autonomy_usage_${ws}`;
const searchKey = (/** @type {string} */ ws) => `clawser_secret_${ws}_search`;
const gitTokenKey = (/** @type {string} */ ws) => `clawser_secret_${ws}_git`;

const DAY = 86_400_000;

/**
 * The settings with one value changed, named by its dotted path (`memory.recallLimit`), as
 * `clawser config set` does it: the text is read as JSON when it parses (numbers, booleans,
 * lists), else kept as a string. Only existing settings can be changed; the result is not
 * validated here (AgentSettingsStore.save does that).
 * @param {AgentSettings} settings left unchanged
 * @param {string} key
 * @param {string} text
 * @returns {{next: AgentSettings, parsed: unknown}}
 */
export function withSetting(settings, key, text) {
  const next = /** @type {Record<string, any>} */ (structuredClone(settings)); // any: a dotted path into the settings object
  const path = key.split('.');
  let at = next;
  for (const part of path.slice(0, -1)) {
    if (!at[part] || typeof at[part] !== 'object') throw new Error(`"${key}" is not a setting (see clawser config list).`);
    at = at[part];
  }
  const last = /** @type {string} */ (path.at(-1));
  if (!(last in at)) throw new Error(`"${key}" is not a setting (see clawser config list).`);
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  at[last] = parsed;
  return { next: /** @type {AgentSettings} */ (next), parsed };
}

/** Per-workspace agent settings: autonomy, limits, compaction, tool settings. */
export class AgentSettingsStore {
  /** This page's share of the autonomy usage is kept under its own key (see usageStore). */
  // getRandomValues, not randomUUID: the latter is missing outside secure contexts.
  #writer = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, '0')).join('');

  /** @param {{config: ConfigStore, secrets: SecretBox}} deps */
  constructor(deps) {
    this.config = deps.config;
    this.secrets = deps.secrets;
  }

  /** The usage records of a workspace: the shared key of older versions and one key per page. @param {string} ws */
  #usageKeys(ws) {
    const base = usageKey(ws);
    return this.config.keys(base).filter((k) => k === base || k.startsWith(`${base}~`));
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

  /**
   * Changes some settings of one section (what a panel's switch changes), keeping the rest.
   * @template {'git' | 'memory' | 'scheduler'} K @param {string} ws @param {K} section @param {Partial<AgentSettings[K]>} change
   */
  saveSection(ws, section, change) {
    const cur = this.load(ws);
    return this.save(ws, { ...cur, [section]: { ...cur[section], ...change } });
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
    await this.config.flush();
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
    await this.config.flush();
  }

  /** @param {string} ws */
  hasGitToken(ws) {
    return this.config.get(gitTokenKey(ws), null) !== null;
  }

  /** @param {string} ws */
  hasSearchApiKey(ws) {
    return this.config.get(searchKey(ws), null) !== null;
  }

  /**
   * Autonomy usage (actions, cost) of a workspace, shared by every turn, job and tab and kept
   * across reloads. Each page writes only its own record (`update`, a synchronous
   * read-modify-write, so turns and jobs of one page never lose a count) and every check reads
   * the sum of all records (`load`), so tabs add up instead of overwriting each other. Records of
   * pages that have been idle for more than a day are removed as they are read, unless they hold
   * spend of the current month.
   * @param {string} ws
   * @param {{now?: () => number}} [clock] the clock the AutonomyController uses (tests inject one)
   */
  usageStore(ws, { now = Date.now } = {}) {
    const own = `${usageKey(ws)}~${this.#writer}`;
    return {
      load: () => {
        const stale = new Date(now() - DAY).toISOString().slice(0, 10);
        const parts = [];
        for (const k of this.#usageKeys(ws)) {
          const u = normalizeUsage(this.config.get(k, null));
          // A record holding this month's spend stays until the month is over (the monthly limit counts it).
          const month = new Date(now()).toISOString().slice(0, 7);
          const idle =
            k !== own && u.costDay < stale && u.actions.every((t) => t < now() - DAY) && !(u.costMonth === month && u.monthCents > 0);
          if (idle) this.config.remove(k);
          else parts.push(u);
        }
        return mergeUsage(parts);
      },
      update: (/** @type {(own: import('../agent/runtime/autonomy.js').AutonomyUsage) => void} */ change) => {
        const u = normalizeUsage(this.config.get(own, null));
        change(u);
        this.config.set(own, u);
      },
    };
  }

  /** @param {string} ws */
  forget(ws) {
    for (const k of [key(ws), searchKey(ws), ...this.#usageKeys(ws)]) this.config.remove(k);
  }
}
