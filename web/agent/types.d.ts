import type { Message, ToolCall } from '../providers/types.d.ts';

export type EventType =
  | 'user_message' | 'agent_message' | 'tool_call' | 'tool_result' | 'tool_result_truncated' | 'error'
  | 'autonomy_blocked' | 'cache_hit' | 'context_compacted' | 'memory_stored' | 'memory_forgotten' | 'memory_recalled'
  | 'goal_added' | 'goal_updated' | 'scheduler_added' | 'scheduler_fired' | 'scheduler_removed'
  | 'safety_input_flag' | 'safety_tool_blocked' | 'safety_output_blocked' | 'safety_output_redacted'
  | 'provider_error' | 'stream_error' | 'provider_attempt' | 'branch' | 'skill_activated' | 'skill_installed'
  | 'self_repair' | 'agent_delegated' | 'turn_undone' | 'turn_redone';

export type EventSource = 'user' | 'agent' | 'system' | 'tool' | 'provider';

export interface ClawserEvent {
  id: string;
  type: EventType;
  data: Record<string, any>; // event payloads differ per type; readers check the fields they use
  source: EventSource;
  timestamp: number;
}

export interface UserMessageData { text: string }
export interface AgentMessageData {
  text: string;
  toolCalls?: ToolCall[];
  model?: string;
  usage?: { inputTokens: number; outputTokens: number };
  stopReason?: string;
  /** The user pressed Stop: the text is what arrived until then. */
  stopped?: boolean;
}

/**
 * Moves the conversation's head: the next event follows `head` (null: it starts the
 * conversation), so what came after `head` on the old path becomes an alternative version.
 */
export interface BranchData { head: string | null }

export interface SessionHistory {
  system?: string;
  messages: Message[];
}

export interface ConversationMeta {
  id: string;
  title: string;
  createdAt: number;
  updatedAt: number;
  /** True once the user renamed it (no more automatic titles). */
  titleSet?: boolean;
  /** The title was written by the model after the first exchange (still replaced by a rename). */
  titleGenerated?: boolean;
  /** The log holds `branch` events: opening it reads the whole log to find the active path. */
  branched?: boolean;
  /** A sub-agent's conversation: the conversation and tool call that delegated to it, and the agent's name. */
  parent?: { conversationId: string; toolCallId: string; agent: string };
  /** The routing hint this conversation is pinned to (its model comes from the workspace's routes). */
  route?: RouteHint;
}

/** Routing hints: kinds of work a workspace maps to a provider and model. */
export type RouteHint = 'fast' | 'smart' | 'code' | 'vision';

/** Fast-forward state written every N events so opening a long conversation costs the same as a short one. */
export interface HistorySnapshot {
  version: 1;
  /** Number of events covered. */
  eventCount: number;
  /** Byte length of events.jsonl covered. */
  byteLength: number;
  history: Message[];
  /** What the conversation cost up to this snapshot (absent in snapshots of older versions). */
  spend?: import('./conversation/event-log.js').ConversationSpend;
}

export interface LoadReport {
  /** Bytes of an incomplete last line moved aside (kept in `events.damaged.jsonl`, then cut off: a tab killed mid-write). */
  tornBytes: number;
  /** Complete lines that were not valid events and were skipped. */
  skippedLines: number;
  /** Files of the conversation that are damaged, with what is wrong (used without them, kept as they are). */
  damaged?: { file: 'meta.json' | 'snapshot.json'; problem: string }[];
  /** Damaged lines of the log kept in `events.damaged.jsonl` by this opening (lines kept before are not repeated). */
  keptLines?: import('../storage/damage.js').DamagedLine[];
}

/**
 * What stores need to stay consistent across tabs (TabCoordinator provides it): an exclusive
 * lock around each read-modify-write, and a message to the other tabs after a change.
 */
export interface Coordination {
  withLock<T>(key: string, fn: () => Promise<T>): Promise<T>;
  publish(topic: string, data: unknown): void;
  subscribe(topic: string, fn: (data: unknown, from: string) => void): () => void;
}
