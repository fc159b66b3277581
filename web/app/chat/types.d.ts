// The shapes the parts of a workspace's chat (web/app/chat/) pass each other, and what the
// ChatController is built from.
import type { Conversation } from '../../agent/conversation/conversation.js';
import type { ClawserAgent, AgentStreamEvent } from '../../agent/runtime/agent.js';
import type { ApproveFn, TaintSource } from '../../agent/runtime/tool-runner.js';
import type { AgentDefinition, ScopedAgent } from '../../agent/runtime/agent-definitions.js';
import type { DelegationBoard } from '../../agent/coordination/delegation-board.js';
import type { UndoDomains } from '../../agent/runtime/undo.js';
import type { Coordination, RouteHint } from '../../agent/types.d.ts';
import type { Provider, ProviderConfig, Usage } from '../../providers/types.d.ts';
import type { FileSystem } from '../../storage/types.d.ts';
import type { DamageSink } from '../../storage/damage.js';
import type { SlashCompletion } from '../../ui/types.d.ts';
import type { SettingsStore } from '../settings.js';

/**
 * Builds a turn's agent. options.approve: the approval function of a scheduled job's turn (names
 * the job, times out) instead of the dialog's default; options.profile: the named agent a message
 * "@name …" addressed; options.limits: what a channel's turn may use at most (its tools and autonomy,
 * narrowing the agent's and the workspace's).
 */
export type AgentBuilder = (
  provider: Provider,
  conversation: Conversation,
  secrets: string[],
  options?: { approve?: ApproveFn; profile?: AgentDefinition; limits?: TurnLimits },
) => ClawserAgent | Promise<ClawserAgent>;

/** At most these tools and this autonomy (a channel's turn): they only narrow what the agent and workspace allow. */
export interface TurnLimits {
  tools: string[];
  autonomy: 'readonly' | 'supervised' | 'full';
}

/** A routing hint's model. */
export interface RouteTarget {
  provider: string;
  model: string;
  baseUrl: string;
  /** The machine whose wsh relay its requests go through; absent: direct. */
  relay?: string;
}

/** The named agents a message may address with "@name". */
export interface AgentDirectory {
  list(): Promise<ScopedAgent[]>;
  get(name: string): Promise<ScopedAgent | null>;
  /** The agent as it can run now, and what its list of tools names that it does not reach. */
  forUse?(agent: ScopedAgent): Promise<{ agent: ScopedAgent; leftOut: string[] }>;
}

/** The turn a commit after it describes. */
export interface TurnInfo {
  conversationId: string;
  title: string;
  text: string;
}

/** What an undo or a redo changed in the workspace's files (for its own commit). */
export interface TakeBackChange {
  direction: 'undo' | 'redo';
  paths: string[];
  turn: TurnInfo;
}

/** What an undo or redo did: its message, the conflicts it asks about, the files it changed. */
export interface TakeBackOutcome {
  ok: boolean;
  message: string;
  conflicts?: string[];
  commit?: TakeBackChange;
}

/**
 * A turn in progress. `finishing`: its reply is done and only its undo record is being written
 * (not busy any more).
 */
export interface TurnRun {
  abort: AbortController;
  scheduled: boolean;
  conversation: Conversation;
  done: Promise<unknown>;
  streaming: { text: string; thinking: string; status: string };
  finishing: boolean;
}

/**
 * Where a turn runs and who answers. Default: the conversation on screen; agent: the named agent
 * answering when the message names none (continuing its reply); needsVision: the message carries
 * images (a model without them hands over to the Vision hint).
 */
export interface TurnTarget {
  conversation?: Conversation;
  scheduled?: boolean;
  approve?: ApproveFn;
  needsVision?: boolean;
  agent?: string;
  /** A channel's turn: the tools and autonomy it may use at most. */
  limits?: TurnLimits;
}

/** The start of a turn's stream, given its agent. */
export type TurnStart = (agent: ClawserAgent, signal: AbortSignal) => AsyncIterable<AgentStreamEvent>;

/** What a turn ended with: the final reply, or what failed; acted: it changed something. */
export interface TurnResult {
  ok: boolean;
  summary: string;
  acted?: boolean;
}

/** What a workspace's ChatController is built from. */
export interface ChatDeps {
  fs: FileSystem;
  workspaceId: string;
  settings: SettingsStore;
  providerFactory?: (config: ProviderConfig) => Provider | Promise<Provider>;
  buildAgent?: AgentBuilder;
  /** Applied to text while it streams, so a leaked secret is never on screen. */
  redact?: (text: string) => string;
  /** Runs a code block again in a sandbox of its own ("Run again"). */
  runCode?: (
    conversationId: string,
    code: string,
    signal: AbortSignal | undefined,
    taint: TaintSource[],
  ) => Promise<{ ok: boolean; output: string; durationMs: number }>;
  /** Runs when a turn ends (also after a failure or Stop); a returned string is shown as a notice. */
  afterTurn?: (agent: ClawserAgent, turn: TurnInfo) => Promise<string | null>;
  /** Calls made besides the agent's turns (the title request): counted toward cost and the Dashboard. */
  onSideUsage?: (provider: Provider, usage: Usage) => void;
  /** The workspace's spend today and this month, and a warning near a limit (for the meter). */
  spendStatus?: () => {
    todayCents: number;
    monthCents: number;
    warning: string | null;
    paused?: { provider: string; failures: number; retryAt: number }[];
  };
  /** The workspace's routing hints (a kind of work → provider and model). */
  routes?: () => Partial<Record<RouteHint, RouteTarget>>;
  /** The commands the composer's "/" completes to: the workspace's skills and its connected MCP servers' prompts. */
  slashCommands?: () => Promise<SlashCompletion[]>;
  /** The workspace's fallback chain (its agent settings), and how a changed one is saved (the chat header's model menu swaps). */
  fallbacks?: () => RouteTarget[];
  saveFallbacks?: (fallbacks: RouteTarget[]) => void;
  /** Other tabs of this workspace (their appends show live; conversation list changes too). */
  coordination?: Coordination;
  /** The named agents a message may address with "@name". */
  agents?: () => Promise<AgentDirectory>;
  /** The live sub-agents (their cards in the chat). */
  delegations?: DelegationBoard;
  /** How undo reads and puts back the workspace's files, memories, goals and jobs. */
  undoDomains?: () => Promise<UndoDomains>;
  /** Turns kept for undo per conversation. */
  undoKeep?: () => number;
  /** Runs after an undo or redo with the workspace files it changed (its own commit); a returned string ends its message. */
  afterTakeBack?: (change: TakeBackChange) => Promise<string | null>;
  /** Told of the damaged files of the workspace's conversations (the list, details, snapshots, log lines). */
  onDamage?: DamageSink;
}
