/** @import { FileSystem } from '../storage/types.d.ts' */
/** @import { LocalConfig } from '../storage/local-config.js' */
import { z } from 'zod';

const WorkspaceSchema = z.object({ id: z.string().regex(/^[A-Za-z0-9_-]+$/), name: z.string(), createdAt: z.number(), lastUsedAt: z.number().optional() });
const ListSchema = z.array(WorkspaceSchema);
/** @typedef {z.infer<typeof WorkspaceSchema>} Workspace */

export const WORKSPACES_KEY = 'clawser_workspaces';

/** The saved workspace list as stored (damaged: empty). @param {unknown} raw @returns {Workspace[]} */
export function parseWorkspaceList(raw) {
  const parsed = ListSchema.safeParse(raw);
  return parsed.success ? parsed.data : [];
}

/** @param {string} name */
function cleanName(name) {
  const n = name.replace(/\s+/g, ' ').trim();
  if (!n) throw new Error('A workspace needs a name.');
  if (n.length > 80) throw new Error('Keep the workspace name under 80 characters.');
  return n;
}

/** A new workspace's entry (its folder is made by WorkspaceStore). @param {string} name @returns {Workspace} */
export function newWorkspace(name) {
  return { id: `w${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}`, name: cleanName(name), createdAt: Date.now() };
}

/** What a first visit starts with. */
export const FIRST_WORKSPACE_NAME = 'My workspace';

/**
 * Removes what the workspace's tools keep in config: tool policies and "Always allow" rules,
 * skills choices, MCP servers with their sealed tokens. Its provider and agent settings go
 * through their own stores (SettingsStore.forget, AgentSettingsStore.forget).
 * @param {LocalConfig} config @param {string} id
 */
function forgetWorkspaceConfig(config, id) {
  config.remove(`clawser_tool_perms_${id}`);
  config.remove(`clawser_tool_rules_${id}`);
  config.remove(`clawser_skills_enabled_${id}`);
  for (const prefix of [`clawser_mcp_secret_${id}_`, `clawser_mcp_oauth_${id}_`]) for (const k of config.keys(prefix)) config.remove(k);
  config.remove(`clawser_mcp_servers_${id}`);
}

/** The workspace list (in config), each workspace's folder (in the file system), and on delete what its tools kept in config. */
export class WorkspaceStore {
  /** @param {{config: LocalConfig, fs: FileSystem, onDelete?: (id: string) => void}} deps */
  constructor(deps) {
    this.config = deps.config;
    this.fs = deps.fs;
    this.onDelete = deps.onDelete;
  }

  /** @returns {Workspace[]} */
  list() {
    return parseWorkspaceList(this.config.get(WORKSPACES_KEY, []));
  }

  /** @param {string} id */
  get(id) {
    return this.list().find((w) => w.id === id);
  }

  /** @param {string} name @returns {Promise<Workspace>} */
  async create(name) {
    const ws = newWorkspace(name);
    await this.fs.mkdir(`clawser_workspaces/${ws.id}`);
    this.config.set(WORKSPACES_KEY, [...this.list(), ws]);
    return ws;
  }

  /** Records that the workspace was opened now (shown on the home screen). @param {string} id */
  touch(id) {
    const now = Date.now();
    this.config.set(WORKSPACES_KEY, this.list().map((w) => (w.id === id ? { ...w, lastUsedAt: now } : w)));
  }

  /** @param {string} id @param {string} name */
  rename(id, name) {
    const n = cleanName(name);
    this.config.set(WORKSPACES_KEY, this.list().map((w) => (w.id === id ? { ...w, name: n } : w)));
  }

  /** Makes the folder of a workspace listed without one (the first view lists the first workspace before storage is up). @param {string} id */
  async ensureFolder(id) {
    await this.fs.mkdir(`clawser_workspaces/${id}`);
  }

  /** Deletes the workspace's files, conversations and settings. @param {string} id */
  async delete(id) {
    await this.fs.delete(`clawser_workspaces/${id}`);
    this.config.set(WORKSPACES_KEY, this.list().filter((w) => w.id !== id));
    forgetWorkspaceConfig(this.config, id);
    this.onDelete?.(id);
  }
}
