/** @import { ToolDefinition, ToolFamily } from './types.d.ts' */
/** @import { ConfigStore } from '../storage/types.d.ts' */
import { BrowserToolRegistry } from './registry.js';
import { TOOL_FAMILIES, familyTools } from './families.js';

export { BrowserToolRegistry, DEFAULT_POLICY, toJsonSchema, ToolChoiceError } from './registry.js';
export { ToolSettingsSchema, toolSettings } from './tool-settings.js';
/**
 * Every built-in tool, made for one registry: the tools of every family of web/tools/families.js
 * (checked: a family that lacks what it must declare throws a ToolFamilyError), in its order.
 * Most are plain definitions, but the shell keeps sessions (working directory, variables) that
 * belong to the registry that runs them.
 * @param {readonly ToolFamily[]} [families] the built-in ones by default
 * @returns {ToolDefinition[]}
 */
export function builtinTools(families = TOOL_FAMILIES) {
  return familyTools(families);
}

/**
 * A registry with every built-in tool, policies persisted for the workspace.
 * @param {{config?: ConfigStore, workspaceId?: string}} [options]
 */
export function createBuiltinRegistry(options = {}) {
  const registry = new BrowserToolRegistry(options);
  for (const tool of builtinTools()) registry.register(tool);
  return registry;
}
