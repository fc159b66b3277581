/** @import { ToolDefinition, ToolPolicy, PermissionLevel } from './types.d.ts' */
/** @import { ApprovalRule } from './approval-rules.js' */
import { BrowserToolRegistry } from './registry.js';

/**
 * A view of a registry that offers only some of its tools: what a named agent or a sub-agent
 * gets. A tool outside the subset does not exist for it (not offered to the model, refused as
 * unknown if called anyway); policies, rules and "Always allow" are the workspace's own.
 * Each name is pinned to the tool it names when the subset is made (its identity): an MCP
 * server replaced meanwhile by another of the same name does not bring its tool in.
 */
export class ToolSubset extends BrowserToolRegistry {
  /** Name → the identity (policyKey, else name) of the tool it named when the subset was made. @type {Map<string, string>} */
  #pinned = new Map();

  /** @param {BrowserToolRegistry} inner @param {Iterable<string>} allowed names of tools registered now (others are left out) */
  constructor(inner, allowed) {
    super({ workspaceId: inner.workspaceId });
    this.inner = inner;
    for (const name of allowed) {
      const tool = inner.get(name);
      if (tool) this.#pinned.set(name, tool.policyKey ?? tool.name);
    }
  }

  /** Whether `name` is in the subset and still names the tool it named then. @param {string} name */
  #has(name) {
    const tool = this.inner.get(name);
    return !!tool && this.#pinned.get(name) === (tool.policyKey ?? tool.name);
  }

  /** @override @param {ToolDefinition} _tool @returns {() => boolean} */
  register(_tool) {
    throw new Error('Tools are registered on the workspace registry, not on a subset.');
  }

  /** @override @param {string} name */
  get(name) {
    return this.#has(name) ? this.inner.get(name) : undefined;
  }

  /** @override */
  list() {
    return this.inner.list().filter((t) => this.#has(t.name));
  }

  /** @override */
  specs() {
    return this.inner.specs().filter((t) => this.#has(t.name));
  }

  /** @override */
  rules() {
    return this.inner.rules();
  }
  /** @override @param {ApprovalRule} rule */
  addRule(rule) {
    this.inner.addRule(rule);
  }
  /** @override @param {ApprovalRule} rule */
  removeRule(rule) {
    this.inner.removeRule(rule);
  }
  /** @override @param {string} name @param {Record<string, unknown>} args @param {unknown} [ctx] */
  ruleCovers(name, args, ctx) {
    return this.#has(name) && this.inner.ruleCovers(name, args, ctx);
  }
  /** @override */
  overrides() {
    return this.inner.overrides();
  }
  /** @override @param {string} name @param {PermissionLevel} [permission] @returns {ToolPolicy} */
  policyOf(name, permission) {
    return this.#has(name) ? this.inner.policyOf(name, permission) : 'denied';
  }
  /** @override @param {string} name */
  userPolicyOf(name) {
    return this.inner.userPolicyOf(name);
  }
  /** @override @param {string} name @param {ToolPolicy | null} policy */
  setPolicy(name, policy) {
    this.inner.setPolicy(name, policy);
  }
  /** @override @param {Record<string, ToolPolicy>} policies */
  replacePolicies(policies) {
    this.inner.replacePolicies(policies);
  }
  /** @override @param {ApprovalRule[]} rules */
  replaceRules(rules) {
    this.inner.replaceRules(rules);
  }
  /** @override @param {string} name */
  keyOf(name) {
    return this.inner.keyOf(name);
  }
  /** @override @param {string} key */
  toolOfKey(key) {
    const tool = this.inner.toolOfKey(key);
    return tool && this.#has(tool.name) ? tool : undefined;
  }
  /** @override @param {(key: string) => boolean} drop */
  forgetChoices(drop) {
    this.inner.forgetChoices(drop);
  }

  /**
   * @override
   * @param {string} name
   * @param {unknown} args
   * @returns {{ok: true, value: Record<string, unknown>} | {ok: false, error: string}}
   */
  validate(name, args) {
    if (!this.#has(name))
      return {
        ok: false,
        error: `There is no tool named "${name}" for this agent. Available tools: ${
          this.list()
            .map((t) => t.name)
            .join(', ') || 'none'
        }.`,
      };
    return this.inner.validate(name, args);
  }
}
