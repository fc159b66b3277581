/** @import { ToolDefinition, ToolPolicy, PermissionLevel } from './types.d.ts' */
/** @import { ToolSpec } from '../providers/types.d.ts' */
/** @import { ConfigStore } from '../storage/types.d.ts' */
/** @import { ApprovalRule } from './approval-rules.js' */
import { z } from 'zod';
import { ApprovalRulesSchema, rulesCover, scopeOf } from './approval-rules.js';

/** A choice for a tool that cannot be stored: it would name no tool for sure. */
export class ToolChoiceError extends Error {
  /** @param {'not_connected' | 'unknown_server'} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.name = 'ToolChoiceError';
    this.code = code;
  }
}

/** @type {Record<PermissionLevel, ToolPolicy>} */
export const DEFAULT_POLICY = { internal: 'auto', read: 'auto', write: 'approve', network: 'approve', browser: 'approve' };
const PolicySchema = z.record(z.string(), z.enum(['auto', 'approve', 'denied']));

/**
 * The tools the agent may call, their JSON Schemas for providers, argument validation, and
 * the per-workspace policy of each (auto / approve / denied) stored under
 * `clawser_tool_perms_{wsId}`. Policies and rules are stored under a tool's identity — its
 * `policyKey` (an MCP server's tool: the server's id and address and the tool), else its name —
 * so a choice made for one tool never applies to another that later takes the same name.
 */
export class BrowserToolRegistry {
  /** @type {Map<string, ToolDefinition>} */
  #tools = new Map();

  /** @param {{config?: ConfigStore, workspaceId?: string}} [options] without config, policies live in memory */
  constructor(options = {}) {
    this.config = options.config;
    this.workspaceId = options.workspaceId ?? 'default';
    /** @type {Record<string, ToolPolicy>} */
    this.memoryPolicies = {};
    /** @type {ApprovalRule[]} */
    this.memoryRules = [];
  }

  get #rulesKey() {
    return `clawser_tool_rules_${this.workspaceId}`;
  }

  /** The user's narrowed "Always allow" rules of this workspace (command prefix, domain, path glob). @returns {ApprovalRule[]} */
  rules() {
    if (!this.config) return [...this.memoryRules];
    const parsed = ApprovalRulesSchema.safeParse(this.config.get(this.#rulesKey, []));
    return parsed.success ? parsed.data : [];
  }

  /** @param {ApprovalRule[]} rules */
  #saveRules(rules) {
    const next = ApprovalRulesSchema.parse(rules);
    if (this.config) this.config.set(this.#rulesKey, next);
    else this.memoryRules = next;
  }

  /**
   * The key a tool's choices are stored under: its identity (`policyKey`) when it has one, else
   * its name; a key given is returned as it is.
   * @param {string} name
   */
  keyOf(name) {
    const tool = this.#tools.get(name);
    if (tool) return tool.policyKey ?? tool.name;
    // An MCP tool's name means nothing without its server connected: a choice made by that name
    // alone could later reach whichever server's tool takes it.
    if (name.startsWith('mcp__'))
      throw new ToolChoiceError('not_connected', `The tool ${name} is not connected: connect its MCP server to choose for it.`);
    return name;
  }

  /** The registered tool whose choices are stored under `key` (its name or identity). @param {string} key */
  toolOfKey(key) {
    return this.#tools.get(key) ?? this.list().find((t) => t.policyKey === key);
  }

  /** Adds a rule (a duplicate is kept once); `rule.tool` is a tool's name or key. @param {ApprovalRule} rule */
  addRule(rule) {
    const tool = this.keyOf(rule.tool);
    const rules = this.rules().filter((r) => !(r.tool === tool && r.kind === rule.kind && r.pattern === rule.pattern));
    this.#saveRules([...rules, { ...rule, tool, createdAt: rule.createdAt ?? Date.now() }]);
  }

  /** Replaces every rule at once (the Config panel's save). @param {ApprovalRule[]} rules */
  replaceRules(rules) {
    this.#saveRules(rules);
  }

  /** @param {ApprovalRule} rule its `tool` a name or key */
  removeRule(rule) {
    const tool = this.#tools.has(rule.tool) ? this.keyOf(rule.tool) : rule.tool;
    this.#saveRules(this.rules().filter((r) => !(r.tool === tool && r.kind === rule.kind && r.pattern === rule.pattern)));
  }

  /**
   * Forgets every policy and rule stored under a key `drop` picks (a removed MCP server's tools).
   * @param {(key: string) => boolean} drop
   */
  forgetChoices(drop) {
    const policies = this.overrides();
    const kept = Object.fromEntries(Object.entries(policies).filter(([k]) => !drop(k)));
    if (Object.keys(kept).length !== Object.keys(policies).length) this.replacePolicies(kept);
    const rules = this.rules();
    const keptRules = rules.filter((r) => !drop(r.tool));
    if (keptRules.length !== rules.length) this.#saveRules(keptRules);
  }

  /**
   * Whether the user's rules allow this call without asking.
   * @param {string} name @param {Record<string, unknown>} args @param {unknown} [ctx] the call's ToolContext
   */
  ruleCovers(name, args, ctx) {
    const tool = this.#tools.get(name);
    if (!tool) return false;
    const rules = this.rules();
    return rules.length > 0 && rulesCover(rules, this.keyOf(name), scopeOf(tool, args, ctx));
  }

  /** @param {ToolDefinition} tool */
  register(tool) {
    if (!/^[a-z][a-z0-9_]{0,63}$/.test(tool.name)) throw new Error(`Invalid tool name "${tool.name}".`);
    if (this.#tools.has(tool.name)) throw new Error(`A tool named "${tool.name}" is already registered.`);
    this.#tools.set(tool.name, tool);
    return () => this.#tools.delete(tool.name);
  }

  /** @param {string} name */
  get(name) {
    return this.#tools.get(name);
  }

  list() {
    return [...this.#tools.values()];
  }

  /** Provider-facing descriptions of every tool that is not denied. @returns {ToolSpec[]} */
  specs() {
    return this.list()
      .filter((t) => this.policyOf(t.name) !== 'denied')
      .map((t) => ({ name: t.name, description: t.description, parameters: t.jsonSchema ?? toJsonSchema(t.schema) }));
  }

  get #key() {
    return `clawser_tool_perms_${this.workspaceId}`;
  }

  /** @returns {Record<string, ToolPolicy>} */
  overrides() {
    if (!this.config) return { ...this.memoryPolicies };
    const parsed = PolicySchema.safeParse(this.config.get(this.#key, {}));
    return parsed.success ? parsed.data : {};
  }

  /**
   * @param {string} name
   * @param {PermissionLevel} [permission] this call's permission, when it depends on its arguments
   * @returns {ToolPolicy}
   */
  policyOf(name, permission) {
    const tool = this.#tools.get(name);
    const override = this.overrides()[tool ? (tool.policyKey ?? tool.name) : name];
    if (override) return override;
    return tool ? DEFAULT_POLICY[permission ?? tool.permission] : 'denied';
  }

  /**
   * The policy the user chose for a tool ("Always allow", or in the Tools panel), or null when
   * it follows its default. Supervised autonomy honours a user's "auto" but not a default one.
   * @param {string} name @returns {ToolPolicy | null}
   */
  userPolicyOf(name) {
    const tool = this.#tools.get(name);
    return this.overrides()[tool ? (tool.policyKey ?? tool.name) : name] ?? null;
  }

  /** @param {string} name a tool's name (or key) @param {ToolPolicy | null} policy null restores the default */
  setPolicy(name, policy) {
    const key = this.keyOf(name);
    const next = this.overrides();
    if (policy === null) delete next[key];
    else next[key] = policy;
    if (this.config) this.config.set(this.#key, next);
    else this.memoryPolicies = next;
  }

  /**
   * Replaces every choice at once (a configuration applied whole); tools not listed follow their default.
   * @param {Record<string, ToolPolicy>} policies
   */
  replacePolicies(policies) {
    const next = PolicySchema.parse(policies);
    if (this.config) this.config.set(this.#key, next);
    else this.memoryPolicies = next;
  }

  /**
   * Validates arguments against the tool's schema.
   * @param {string} name
   * @param {unknown} args
   * @returns {{ok: true, value: Record<string, unknown>} | {ok: false, error: string}}
   */
  validate(name, args) {
    const tool = this.#tools.get(name);
    if (!tool)
      return {
        ok: false,
        error: `There is no tool named "${name}". Available tools: ${this.list()
          .map((t) => t.name)
          .join(', ')}.`,
      };
    const raw = /** @type {Record<string, unknown>} */ (args ?? {});
    if (raw && typeof raw === 'object' && '_raw' in raw)
      return { ok: false, error: `The arguments for ${name} were not valid JSON: ${String(raw._raw).slice(0, 200)}` };
    const result = tool.schema.safeParse(raw);
    if (result.success) return { ok: true, value: /** @type {Record<string, unknown>} */ (result.data) };
    const issues = result.error.issues.map((i) => `${i.path.length ? i.path.join('.') : 'arguments'}: ${i.message}`).join('; ');
    return {
      ok: false,
      error: `Invalid arguments for ${name}: ${issues}. Expected: ${JSON.stringify(tool.jsonSchema ?? toJsonSchema(tool.schema))}`,
    };
  }
}

/**
 * JSON Schema of a zod schema, as providers expect it (no $schema key).
 * @param {import('zod').ZodType} schema
 * @returns {Record<string, unknown>}
 */
export function toJsonSchema(schema) {
  let json = jsonSchemas.get(schema);
  if (!json) {
    const { $schema: _ignored, ...rest } = /** @type {Record<string, unknown>} */ (
      z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' })
    );
    void _ignored;
    jsonSchemas.set(schema, (json = rest));
  }
  // A copy: callers (providers adapting it to their dialect) may change what they get.
  return structuredClone(json);
}

/** A tool's schema converted once: the conversion runs on every model call otherwise (~1 ms a tool list). */
/** @type {WeakMap<import('zod').ZodType, Record<string, unknown>>} */
const jsonSchemas = new WeakMap();
