/**
 * The conversation event log's records: one data interface per event type, and `ClawserEvent`,
 * the union discriminated by `type` that every writer (EventLog.append, Conversation.append, a
 * tool's `events`) and every reader (history derivation, the transcript, the Events panel,
 * export, search, undo, delegation, spend) goes through. A reader narrows by `type` before it
 * reads `data`.
 *
 * The fields are what this version writes. The log is read back from disk, where a line may have
 * been written by an older version: a field added since is optional here, and readers keep
 * checking what they use (`String(d.text ?? '')`). A line whose type this version does not know
 * (an older or a newer version wrote it) never becomes a `ClawserEvent`: `isEvent` refuses it, so
 * opening the log skips it and keeps its exact bytes in `events.damaged.jsonl` (the damage notice
 * shows it raw), and an import refuses the file.
 */
import type { ImageRef, ProviderAttempt, ProviderErrorCode, ToolCall, Usage } from '../providers/types.d.ts';

export type EventSource = 'user' | 'agent' | 'system' | 'tool' | 'provider';

/** Untrusted content from outside, in words: the message keeps the conversation tainted while in context. */
type Untrusted = { untrusted?: string };

/** An injection-like passage the sanitizer found (web/safety/input-sanitizer.js). */
export interface InputFlagData {
  rule: string;
  match: string;
}

/** A message of the user (or of the agent that delegated a task to this one). */
export interface UserMessageData extends Untrusted {
  text: string;
  /** It asks the model to go on with a reply the user stopped. */
  continues?: true;
  /** Images attached to it, kept as files of the conversation. */
  images?: ImageRef[];
  /** The skill the user activated with "/name": its instructions, as they were then. */
  skill?: { name: string; instructions: string };
  /** Texts sent with it (an MCP resource), untrusted ones tainting the conversation. */
  attachments?: { label: string; text: string; untrusted?: string }[];
  /** The MCP prompt "/mcp__server__prompt" it is (its text replaces the message's for the model). */
  prompt?: { server: string; name: string; text: string };
}

/** What the turn's last reply records about spending (cents). */
export interface TurnCosts {
  turnCents: number;
  /** Calls of the turn to models without a known price. */
  turnUnpricedCalls?: number;
  conversationCents: number;
  todayCents?: number;
  monthCents?: number;
}

/** A reply of the model. */
export interface AgentMessageData extends Untrusted {
  text: string;
  model?: string;
  provider?: string;
  stopReason?: string;
  /** The tool calls it asked for (arguments with secrets redacted). */
  toolCalls?: ToolCall[];
  usage?: Usage;
  /** The call's cost; null: the model's price is unknown (shown as "cost unknown", never 0). */
  costCents?: number | null;
  /** The turn's last reply: what the turn cost, and the totals it brings the conversation, the day and the month to. */
  costs?: TurnCosts;
  /** The user pressed Stop (or self-repair cut a runaway reply): the text is what arrived until then. */
  stopped?: true;
  /** The answer came from the response cache (no model call). */
  cached?: true;
  /** The named agent that answered. */
  agent?: string;
}

/** Untrusted content the conversation had taken in when a call was made. */
export interface TaintData {
  tool: string;
  what: string;
  detail?: string;
  earlier?: true;
}

export interface ToolCallData {
  id: string;
  name: string;
  /** As the model sent them, secrets redacted. */
  arguments: Record<string, unknown>;
  /** A code block of the reply (the Codex): shown as code. */
  codex?: true;
  /** Why the call was asked about: the untrusted content taken in before it. */
  taint?: TaintData[];
}

/** Why a gate refused a call (web/agent/runtime/tool-runner.js). */
export type ToolBlock = 'unknown' | 'validation' | 'hook' | 'safety' | 'autonomy' | 'denied' | 'cancelled';

export interface ToolResultData extends Untrusted {
  toolCallId: string;
  name: string;
  ok: boolean;
  /** What the model was told. */
  result: string;
  durationMs: number;
  /** The wait for the user's approval, apart from the call's own time. */
  approvalMs?: number;
  blocked?: ToolBlock;
  /** The arguments as run, when a hook rewrote them (secrets redacted). */
  arguments?: Record<string, unknown>;
}

export interface ToolResultTruncatedData {
  toolCallId: string;
  name: string;
  originalChars: number;
  keptChars: number;
}

/** A turn that did not run or ended early, for a reason of Clawser's own. */
export interface ErrorData {
  code: 'blocked' | 'client' | 'max_iterations';
  message: string;
}

/** A call refused by the autonomy level or limits (`toolCallId`), or a run stopped by a limit. */
export interface AutonomyBlockedData {
  reason: string;
  toolCallId?: string;
  name?: string;
}

export interface CacheHitData {
  provider: string;
  model: string;
  ageMs: number;
}

export interface ContextCompactedData {
  summary: string;
  /** The newest messages kept as they were. */
  keptMessages: number;
  replacedMessages: number;
  method: 'on-device' | 'model' | 'truncation';
}

export interface MemoryStoredData {
  id: string;
  key: string;
  category: string;
}

export interface MemoryForgottenData {
  key: string;
}

export interface MemoryRecalledData {
  memories: { id: string; key: string }[];
  /** Labels of recalled memories that look like instructions. */
  flagged?: string[];
}

export interface GoalAddedData {
  id: string;
  description: string;
  parentId?: string;
}

export interface GoalUpdatedData {
  id: string;
  status: import('../stores/goals.js').Goal['status'];
  progress?: string;
}

export interface SchedulerAddedData {
  jobId: string;
  name: string;
  trigger: import('../stores/schedule.js').Trigger;
  createdBy: 'agent';
}

export interface SchedulerRemovedData {
  jobId: string;
  name: string;
}

/** A scheduled job ran: in the conversation it runs in (a prompt, the heartbeat) or reports to (a tool job). */
export interface SchedulerFiredData {
  jobId: string;
  name: string;
  kind: import('../stores/scheduler.js').JobAction['kind'];
  scheduledFor: number;
  /** Missed times this run stands for besides its own (run once), or that its limit dropped (each). */
  missed: number;
  manual?: true;
  /** Why it ran after scheduledFor, and that in words (absent: on time). */
  late?: import('../stores/schedule.js').LateReason;
  why?: string;
  /** A tool job's outcome. */
  ok?: boolean;
  summary?: string;
}

/** A message that came through a channel (web/channels/): its turn follows. Never a token or a webhook's address. */
export interface ChannelMessageData {
  channelId: string;
  channel: string;
  /** The sender's Telegram user id and name. */
  sender: { id: string; name: string };
}

/** A message a channel did not answer (a sender not allowed, not text, a group, over the rate limit): logged, not shown to the agent. */
export interface ChannelIgnoredData {
  channelId: string;
  channel: string;
  sender: { id: string; name: string } | null;
  reason: 'not_text' | 'from_bot' | 'not_private' | 'sender_not_allowed' | 'rate';
}

export interface SafetyInputFlagData {
  where: 'user' | 'tool' | 'scheduled_task' | 'heartbeat';
  flags: InputFlagData[];
  toolCallId?: string;
  jobId?: string;
}

export interface SafetyToolBlockedData {
  toolCallId: string;
  name: string;
  reason: string;
}

/** The leak check found secrets in a reply (their kinds, never the values). */
export interface SafetyOutputData {
  kinds: string[];
}

/** A provider call failed (`provider_error`: before any text; `stream_error`: after some, kept in `partialText`). */
export interface ProviderErrorData {
  code: ProviderErrorCode;
  retryable: boolean;
  message: string;
  status?: number;
  retryAfterMs?: number;
  partialText?: string;
  provider: string;
  model: string;
}

/** One try of one provider, recorded as the reliability layer reported it. */
export type ProviderAttemptData = ProviderAttempt;

/**
 * Moves the conversation's head: the next event follows `head` (null: it starts the
 * conversation), so what came after `head` on the old path becomes an alternative version.
 */
export interface BranchData {
  head: string | null;
}

export interface SkillActivatedData {
  name: string;
  by: 'user' | 'agent';
}

export interface SkillInstalledData {
  name: string;
  url?: string;
}

export interface SelfRepairData {
  action: 'warned' | 'stopped';
  reason: import('./runtime/self-repair.js').StuckKind;
  message: string;
}

/** A sub-agent's run for a tool call: its conversation, how it ended, what it cost and changed. */
export interface AgentDelegatedData {
  toolCallId: string;
  agent: string;
  conversationId: string;
  title: string;
  status: 'done' | 'failed' | 'cancelled';
  costCents: number;
  files: string[];
}

/** A turn undone or redone (web/agent/runtime/undo.js): what it changed, and what could not be. */
export interface TurnUndoData {
  /** The turn's first event. */
  turnId: string;
  summary: string;
  /** Changed since the turn, kept as they are. */
  kept?: string[];
  /** Changed since the turn, overwritten. */
  overwritten?: string[];
  failed?: string[];
}

/** Every event type and its data: the one list (EVENT_TYPES in event-log.js is checked against it). */
export interface EventDataMap {
  user_message: UserMessageData;
  agent_message: AgentMessageData;
  tool_call: ToolCallData;
  tool_result: ToolResultData;
  tool_result_truncated: ToolResultTruncatedData;
  error: ErrorData;
  autonomy_blocked: AutonomyBlockedData;
  cache_hit: CacheHitData;
  context_compacted: ContextCompactedData;
  memory_stored: MemoryStoredData;
  memory_forgotten: MemoryForgottenData;
  memory_recalled: MemoryRecalledData;
  goal_added: GoalAddedData;
  goal_updated: GoalUpdatedData;
  scheduler_added: SchedulerAddedData;
  scheduler_fired: SchedulerFiredData;
  scheduler_removed: SchedulerRemovedData;
  channel_message: ChannelMessageData;
  channel_ignored: ChannelIgnoredData;
  safety_input_flag: SafetyInputFlagData;
  safety_tool_blocked: SafetyToolBlockedData;
  safety_output_blocked: SafetyOutputData;
  safety_output_redacted: SafetyOutputData;
  provider_error: ProviderErrorData;
  stream_error: ProviderErrorData;
  provider_attempt: ProviderAttemptData;
  branch: BranchData;
  skill_activated: SkillActivatedData;
  skill_installed: SkillInstalledData;
  self_repair: SelfRepairData;
  agent_delegated: AgentDelegatedData;
  turn_undone: TurnUndoData;
  turn_redone: TurnUndoData;
}

export type EventType = keyof EventDataMap;
export type EventData<T extends EventType> = EventDataMap[T];

/** One event of type T. */
export interface EventOf<T extends EventType> {
  id: string;
  type: T;
  data: EventDataMap[T];
  source: EventSource;
  timestamp: number;
}

/** An event of the log: the union of every type's, discriminated by `type`. */
export type ClawserEvent = { [T in EventType]: EventOf<T> }[EventType];

/** A type and its data, as a writer hands them over (a tool's `events`). */
export type EventRecord<T extends EventType = EventType> = { [K in T]: { type: K; data: EventDataMap[K] } }[T];

/** The events a tool may ask to record after its result (ToolResult.events). */
export type ToolEventType =
  | 'memory_stored'
  | 'memory_forgotten'
  | 'goal_added'
  | 'goal_updated'
  | 'scheduler_added'
  | 'scheduler_removed'
  | 'skill_activated'
  | 'skill_installed'
  | 'agent_delegated';
export type ToolEvent = EventRecord<ToolEventType>;
