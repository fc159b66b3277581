/**
 * Clawser's public API: the one module an embedder imports. Everything exported here is
 * documented in docs/api.md and kept stable; anything else is internal.
 */
/** @typedef {import('./providers/types.d.ts').Provider} Provider */
/** @typedef {import('./providers/types.d.ts').ProviderConfig} ProviderConfig */
/** @typedef {import('./providers/types.d.ts').ChatRequest} ChatRequest */
/** @typedef {import('./providers/types.d.ts').ChatResult} ChatResult */
/** @typedef {import('./providers/types.d.ts').StreamPart} StreamPart */
/** @typedef {import('./providers/types.d.ts').ProviderStatus} ProviderStatus */
/** @typedef {import('./providers/types.d.ts').StreamEvent} StreamEvent */
/** @typedef {import('./providers/types.d.ts').Message} Message */
/** @typedef {import('./storage/types.d.ts').FileSystem} FileSystem */
/** @typedef {import('./agent/types.d.ts').ClawserEvent} ClawserEvent */

// Agent core
export { EventLog, EVENT_TYPES } from './agent/conversation/event-log.js';
export { Conversation } from './agent/conversation/conversation.js';
export { ConversationStore } from './agent/conversation/conversation-store.js';
export { BranchTree, activePath } from './agent/conversation/branches.js';
export { ConversationSearch } from './agent/conversation/conversation-search.js';
export { UsageLedger, summarizeLedger } from './stores/usage-ledger.js';
export { buildConfig, parseConfig, loosenedProtections, configToolChoices, storedToolChoices } from './app/workspace-config.js';
export {
  toJsonl as conversationToJsonl,
  toMarkdown as conversationToMarkdown,
  toHtml as conversationToHtml,
  parseImport as parseConversationImport,
} from './agent/conversation/conversation-export.js';
export { ClawserAgent } from './agent/runtime/agent.js';
export { HookPipeline, HOOK_POINTS } from './agent/runtime/hooks.js';
export { AutonomyController } from './agent/runtime/autonomy.js';
export { ToolRunner } from './agent/runtime/tool-runner.js';
export { planCompaction, estimateTokens } from './agent/conversation/compaction.js';
export { Codex, extractCodeBlocks, adaptPythonisms } from './agent/runtime/codex.js';

// Memory, goals, scheduler
export { MemoryStore, CATEGORIES as MEMORY_CATEGORIES } from './memory/store.js';
export { MemoryIndex, tokenize } from './memory/search.js';
export { Embedder, EmbedderError } from './memory/embedder.js';
export { ModelInstaller, ModelInstallError } from './memory/model-install.js';
export { MemorySummaries, SUMMARIZE_OVER, SUMMARY_MODES, currentSummary, promptText, summaryRequest } from './memory/summaries.js';
export { GoalStore, GoalStore as GoalManager, GOAL_STATUSES } from './stores/goals.js';
export { Scheduler, SchedulerError, describeTrigger } from './stores/scheduler.js';
export { nextRunDates as nextRuns, parseSchedulePhrase, ScheduleError } from './stores/schedule.js';
export { shouldDeliver } from './stores/scheduler.js';

// Daemon, checkpoints, tabs
export { CheckpointManager, CheckpointError } from './agent/coordination/checkpoint.js';
export { Daemon, DaemonState, DaemonStateMachine, DaemonError, DAEMON_TRANSITIONS } from './agent/coordination/daemon.js';
export { TabCoordinator, TabError } from './agent/coordination/tabs.js';

// Sandbox
export {
  createSandbox,
  prewarmSandbox,
  discardSpareSandbox,
  SandboxPool,
  SandboxNotIsolatedError,
  SandboxStartError,
} from './packages/andbox/index.js';

// Skills (Agent Skills: agentskills.io)
export { validateSkill, splitFrontmatter, nameProblem } from './skills/format.js';
export { SkillStore, SkillError, SKILL_LIMITS } from './skills/store.js';
export { skillsFromZip, skillsFromUrl, skillsFromDirectoryHandle, skillsFromFileList, skillZip } from './skills/sources.js';
export { checkUpdates as checkSkillUpdates, compareVersions, RegistryError } from './skills/registry.js';
export { skillsPrompt, skillInstructions } from './tools/skills.js';

// MCP (Model Context Protocol, Streamable HTTP)
export { McpClient, McpError, PROTOCOL_VERSIONS as MCP_PROTOCOL_VERSIONS } from './mcp/client.js';
export { McpManager, McpServerSchema } from './mcp/manager.js';
export { McpOAuth, discover as discoverMcpOAuth } from './mcp/oauth.js';
export { mcpToolDefinition, mcpToolName, mcpToolNames, mcpToolKey, parseMcpToolKey, mcpResult } from './mcp/tools.js';

// Named agents, sub-agents, per-turn undo, self-repair, heartbeat
export {
  validateAgent,
  parseAgentFile,
  agentToJson,
  agentToMarkdown,
  agentSystemPrompt,
  allowedTools,
  lowerAutonomy,
  AgentDefinitionSchema,
} from './agent/runtime/agent-definitions.js';
export { parseMention, mentionCompletions, DEFAULT_AGENT_NAME } from './agent/conversation/mentions.js';
export { parseIdentity, identityPrompt, IdentitySchema } from './agent/runtime/identity.js';
export { AgentStore, AgentStoreError } from './agent/runtime/agent-store.js';
export { runDelegation, Semaphore, DEFAULT_DELEGATION } from './agent/coordination/delegation.js';
export { DelegationBoard } from './agent/coordination/delegation-board.js';
export { ToolSubset } from './tools/tool-subset.js';
export { TurnRecorder, RecordingFileSystem, UndoStore, planUndo, applyUndo, describeChanges, fileDomain } from './agent/runtime/undo.js';
export { StuckDetector, SelfRepairSchema, DEFAULT_SELF_REPAIR } from './agent/runtime/self-repair.js';
export { heartbeatText, isHeartbeatOk, HEARTBEAT_OK } from './agent/scheduling/heartbeat.js';

// The shell (bash over a FileSystem) and the approval rules narrowed by arguments
export { createShell, Shell, ShellSyntaxError, DEFAULT_SHELL_LIMITS } from './shell/shell.js';
export { BashFileSystem } from './shell/bash-fs.js';
export { READ_ONLY_COMMANDS, readOnlyVerdict } from './shell/read-only.js';
export { gitCommand } from './shell/commands/git.js';
export { clawserCommand } from './shell/commands/clawser.js';
export { complete as completeShellLine } from './shell/completion.js';
export { LineEditor } from './shell/line-editor.js';
export { ruleMatches, rulesCover, suggestRule, scopeOf as approvalScopeOf } from './tools/approval-rules.js';

// Tools
export { BrowserToolRegistry, ToolChoiceError, createBuiltinRegistry, builtinTools, toolSettings } from './tools/index.js';
export { ruleFetch } from './tools/web.js';

// Providers
export { createProvider, ProviderConfigSchema, CATALOG, catalogEntry } from './providers/index.js';
export { ProviderError } from './providers/errors.js';
export { parseSSE, SSEParser } from './net/sse.js';
export { testConnection } from './providers/connection.js';
export { discoverNoKeyOptions } from './providers/discovery.js';
export { chromeAIAvailability } from './providers/chrome-ai.js';
export { importLocalModel, listLocalModels, deleteLocalModel } from './providers/local.js';
export { LocalModelError } from './providers/local-models.js';

// Storage
export { OpfsFileSystem } from './storage/opfs-fs.js';
export { MemoryFileSystem } from './storage/memory-fs.js';
export { LocalConfig } from './storage/local-config.js';
export { DurableConfig, ConfigError, STATE_FOLDER } from './storage/durable-config.js';
export { SecretBox } from './storage/secrets.js';
export { StorageError } from './storage/errors.js';

// Files and git
export { WorkspaceGit, DEFAULT_AUTHOR, cloneInto, fileDiff, formatDiff, isTracked } from './git/git.js';
export { GitError } from './git/errors.js';
export { createGitFs } from './git/git-fs.js';
export { workspaceFs } from './files/workspace-fs.js';
export { createBackup, readBackup, restoreBackup, recoverInterruptedRestore, localStorageConfig, BackupError } from './backup/backup.js';
export { zipFolder, importZip, readZip, ZipError, ZIP_LIMITS } from './files/zip.js';

// Safety
export { renderMarkdown } from './safety/markdown.js';
export { InputSanitizer } from './safety/input-sanitizer.js';
export { ToolCallValidator } from './safety/tool-call-validator.js';
export { LeakDetector } from './safety/leak-detector.js';
export { SafetyPipeline } from './safety/pipeline.js';
export { estimateCostCents, costCents, priceOf, MODEL_PRICES, formatCost } from './providers/pricing.js';
export { ReliableProvider, CircuitBreaker, backoffDelay } from './providers/reliability.js';
export { ResponseCache, cacheKey } from './providers/cache.js';
export { estimateTextTokens, estimateMessagesTokens, tokenFamily } from './providers/tokens.js';
export { listModelInfo, modelBadges } from './providers/models.js';
export { onDeviceSummarizer } from './providers/on-device-summarizer.js';
export { ScopedFileSystem } from './storage/scoped-fs.js';
