/** @import { ToolSettings, ToolDefinition, ToolFamily } from './types.d.ts' */
/** @import { ConfigStore } from '../storage/types.d.ts' */
import { z } from 'zod';
import { BrowserToolRegistry } from './registry.js';
import { TOOL_FAMILIES, familyTools } from './families.js';

export { BrowserToolRegistry, DEFAULT_POLICY, toJsonSchema, ToolChoiceError } from './registry.js';
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

export const ToolSettingsSchema = z.object({
  maxReadBytes: z
    .number()
    .int()
    .min(1)
    .default(50 * 1024 * 1024),
  maxWriteBytes: z
    .number()
    .int()
    .min(1)
    .default(10 * 1024 * 1024),
  maxFetchChars: z.number().int().min(100).default(40_000),
  fetchAllowlist: z.array(z.string()).default([]),
  allowedPrivateHosts: z.array(z.string()).default([]),
  searchEndpoint: z.string().default(''),
  searchApiKey: z.string().default(''),
  tabSitesAllow: z.array(z.string().max(253)).max(500).default([]),
  tabSitesDeny: z.array(z.string().max(253)).max(500).default([]),
  companionId: z
    .string()
    .regex(/^([a-p]{32})?$/, 'an extension id is 32 letters a–p')
    .default(''),
});

/** @param {Partial<ToolSettings>} [partial] @returns {ToolSettings} */
export function toolSettings(partial = {}) {
  return ToolSettingsSchema.parse(partial);
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
