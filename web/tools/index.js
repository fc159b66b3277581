/** @import { ToolSettings, ToolDefinition } from './types.d.ts' */
/** @import { ConfigStore } from '../storage/types.d.ts' */
import { z } from 'zod';
import { BrowserToolRegistry } from './registry.js';
import { FS_TOOLS } from './fs.js';
import { WEB_TOOLS } from './web.js';
import { STORAGE_TOOLS } from './page-storage.js';
import { BROWSER_TOOLS } from './browser.js';
import { CODE_TOOLS } from './code.js';
import { GIT_TOOLS } from './git.js';
import { MEMORY_TOOLS } from './memory.js';
import { GOAL_TOOLS } from './goals.js';
import { SCHEDULER_TOOLS } from './scheduler.js';
import { SKILL_TOOLS } from './skills.js';
import { createShellTool } from './shell.js';
import { AGENT_TOOLS } from './agents.js';

export { BrowserToolRegistry, DEFAULT_POLICY, toJsonSchema, ToolChoiceError } from './registry.js';
/**
 * Every built-in tool, made for one registry: most are plain definitions, but the shell keeps
 * sessions (working directory, variables) that belong to the registry that runs them.
 * @returns {ToolDefinition[]}
 */
export function builtinTools() {
  return [...FS_TOOLS, ...WEB_TOOLS, ...STORAGE_TOOLS, ...BROWSER_TOOLS, ...CODE_TOOLS, ...GIT_TOOLS, ...MEMORY_TOOLS, ...GOAL_TOOLS, ...SCHEDULER_TOOLS, ...SKILL_TOOLS, createShellTool(), ...AGENT_TOOLS];
}

export const ToolSettingsSchema = z.object({
  maxReadBytes: z.number().int().min(1).default(50 * 1024 * 1024),
  maxWriteBytes: z.number().int().min(1).default(10 * 1024 * 1024),
  maxFetchChars: z.number().int().min(100).default(40_000),
  fetchAllowlist: z.array(z.string()).default([]),
  allowedPrivateHosts: z.array(z.string()).default([]),
  searchEndpoint: z.string().default(''),
  searchApiKey: z.string().default(''),
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
