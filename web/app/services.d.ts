// The shapes of a workspace's services (web/app/workspace-services.js makes them).
import type { createBuiltinRegistry } from '../tools/index.js';
import type { ArtifactDocument } from './artifact.js';
import type { ArtifactShelf } from './artifacts.js';
import type { AppToolUi } from './tool-ui.js';
import type { GoalStore } from '../stores/goals.js';
import type { Scheduler } from '../stores/scheduler.js';
import type { UsageLedger } from '../stores/usage-ledger.js';

/** A folder opened from the computer for a workspace, and whether the page may use it now. */
export interface Mount {
  handle: FileSystemDirectoryHandle;
  granted: boolean;
}

/**
 * The folder from the computer a workspace works in: `current()` (null: none; undefined: not
 * loaded yet), `set` another (null: the workspace's own files again), `permissionChanged` after
 * the browser's permission for it changed (its files are read anew).
 */
export interface WorkspaceMount {
  workspaceId: string;
  current: () => Mount | null | undefined;
  set: (mount: Mount | null) => Promise<void>;
  permissionChanged: () => void;
}

/** What one workspace has besides its conversations, made once per page. */
export interface Services {
  registry: ReturnType<typeof createBuiltinRegistry>;
  artifact: ArtifactDocument;
  artifacts: ArtifactShelf;
  toolUi: AppToolUi;
  files: () => Promise<import('./files-controller.js').FilesController>;
  git: () => Promise<import('../git/git.js').WorkspaceGit>;
  memory: () => Promise<import('../memory/store.js').MemoryStore>;
  summaries: () => Promise<import('../memory/summaries.js').MemorySummaries>;
  skills: () => Promise<import('../skills/store.js').SkillStore>;
  mcp: () => Promise<import('../mcp/manager.js').McpManager>;
  /** The tools defined with the tool builder (registered once loaded). */
  builtTools: () => Promise<import('../tools/builder/store.js').BuiltToolStore>;
  agents: () => Promise<import('../agent/runtime/agent-store.js').AgentStore>;
  goals: GoalStore;
  scheduler: Scheduler;
  usage: UsageLedger;
  /** The workspace's shell sessions and history (loads the shell). */
  terminal: () => Promise<import('./terminal-host.js').TerminalHost>;
  /** OAuth sign-in for MCP servers (the page's). */
  mcpAuth: () => Promise<import('./mcp-auth.js').McpAuth>;
  /** The user's machines through wsh (the page's: every workspace reaches the same machines). */
  remote: () => Promise<import('../stores/remote-machines.js').RemoteMachines>;
  /**
   * The companion extension that reaches the browser's other tabs (the workspace's: its own
   * session with the extension, and the extension's id from its tool settings).
   */
  companion: () => Promise<import('../net/companion.js').CompanionClient>;
  /** This workspace exposed to outside MCP clients through a machine's wsh server (made on first use). */
  mcpServe: () => Promise<import('./mcp-serve.js').McpServe>;
  /** The workspace's channels (Telegram, webhooks; web/app/channels.js). */
  channels: () => Promise<import('./channels.js').WorkspaceChannels>;
  mount: WorkspaceMount;
  /** Search by meaning (the page's). */
  semantic: import('./semantic.js').SemanticSearch;
  /** This browser's tabs of Clawser. */
  tabs: import('../agent/coordination/tabs.js').TabCoordinator;
  /** The bytes a workspace's folder holds (any workspace of this browser: the Dashboard compares them). */
  measureWorkspace: (workspaceId: string, signal: AbortSignal) => Promise<{ bytes: number; files: number }>;
}
