import type { Message } from '../providers/types.d.ts';

/** The event log's records, a union discriminated by `type`: see events.d.ts. */
export type { ClawserEvent, EventType, EventSource, EventData, EventOf, EventDataMap } from './events.d.ts';

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
  /** A fork ("Fork here" in the Events panel): the conversation it was forked from and that one's title then. */
  forkOf?: { conversationId: string; title: string };
  /** Pinned by the user: listed in the Pinned group, above the dated ones. */
  pinned?: boolean;
  /** A scheduled job's (or, viaChannel, a channel's) conversation: its id and name (listed apart from the person's own). */
  job?: { id: string; name: string; viaChannel?: boolean };
  /** The person's tags (at most 8, each at most 32 characters, unique whatever their case). */
  tags?: string[];
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
