/** @import { ClawserEvent, EventType, EventSource, EventData, EventOf, SessionHistory, LoadReport } from '../types.d.ts' */
/** @import { Message } from '../../providers/types.d.ts' */
import { activePath } from './branches.js';

/**
 * Every event type, for the checks at run time (a line read from disk, an import); the same list
 * as events.d.ts's EventDataMap (it type-checks only while both name the same types).
 */
export const EVENT_TYPES = /** @satisfies {readonly EventType[]} */ (
  /** @type {const} */ ([
    'user_message',
    'agent_message',
    'tool_call',
    'tool_result',
    'tool_result_truncated',
    'error',
    'autonomy_blocked',
    'cache_hit',
    'context_compacted',
    'memory_stored',
    'memory_forgotten',
    'memory_recalled',
    'goal_added',
    'goal_updated',
    'scheduler_added',
    'scheduler_fired',
    'scheduler_removed',
    'channel_message',
    'channel_ignored',
    'safety_input_flag',
    'safety_tool_blocked',
    'safety_output_blocked',
    'safety_output_redacted',
    'provider_error',
    'stream_error',
    'provider_attempt',
    'branch',
    'skill_activated',
    'skill_installed',
    'self_repair',
    'agent_delegated',
    'turn_undone',
    'turn_redone',
  ])
);
/** @type {EventType extends typeof EVENT_TYPES[number] ? true : false} */
const LISTS_EVERY_TYPE = true;
void LISTS_EVERY_TYPE;
const TYPE_SET = new Set(/** @type {readonly string[]} */ (EVENT_TYPES));

/**
 * Bounds of the history kept ready for the next turn. Older turns stay in the transcript
 * (and later issues summarise them through compaction); no model accepts more than this.
 */
export const HISTORY_WINDOW = { maxMessages: 400, maxChars: 400_000 };

const SUMMARIZED = ', in the summary of the earlier conversation';

/**
 * What a conversation has cost: model calls, tokens, estimated cents (calls to models without a
 * known price are counted apart: their cost is unknown, not 0), and the size of the context the
 * last call sent. `partial`: counted from a snapshot older than this record (earlier calls missing).
 * @typedef {{calls: number, inputTokens: number, outputTokens: number, costCents: number, unpricedCalls: number, contextTokens: number,
 *   partial?: boolean}} ConversationSpend
 */

/** @returns {ConversationSpend} */
export const emptySpend = () => ({ calls: 0, inputTokens: 0, outputTokens: 0, costCents: 0, unpricedCalls: 0, contextTokens: 0 });

/**
 * Adds an event's model call to the spend, in place (every branch's calls count: they were paid).
 * @param {ConversationSpend} spend @param {ClawserEvent} event
 */
export function addSpend(spend, event) {
  if (event.type !== 'agent_message' || !event.data.usage || typeof event.data.usage !== 'object') return;
  const u = event.data.usage;
  const input = Number(u.inputTokens) || 0;
  const output = Number(u.outputTokens) || 0;
  spend.calls++;
  spend.inputTokens += input;
  spend.outputTokens += output;
  spend.contextTokens = input + output;
  if (typeof event.data.costCents === 'number' && Number.isFinite(event.data.costCents)) spend.costCents += event.data.costCents;
  else if (event.data.costCents === null) spend.unpricedCalls++;
}

/**
 * Applies one event to a provider-message history, in place; the single definition of how
 * events become model context (used by full derivation and by snapshot fast-forward).
 * @param {Message[]} history
 * @param {ClawserEvent} event
 */
export function applyEventToHistory(history, event) {
  switch (event.type) {
    case 'user_message': {
      const d = event.data;
      /** @type {Message} */
      const m = { role: 'user', content: String(d.text ?? '') };
      // A skill the user activated with "/name": its instructions, as they were then.
      const skill = /** @type {{name?: unknown, instructions?: unknown} | undefined} */ (d.skill);
      if (skill && typeof skill.instructions === 'string')
        m.content =
          `(The user activated the skill “${String(skill.name)}”; follow its ` + `instructions.)\n${skill.instructions}\n\n${m.content}`;
      // An MCP prompt the user chose is the message; attachments (MCP resources) follow it.
      const prompt = /** @type {{text?: unknown} | undefined} */ (d.prompt);
      if (prompt && typeof prompt.text === 'string') m.content = prompt.text;
      if (Array.isArray(d.attachments)) {
        for (const a of d.attachments)
          if (a && typeof a.text === 'string')
            m.content +=
              `\n\n<attachment label=${JSON.stringify(String(a.label ?? ''))}>\n` +
              `${a.text.replaceAll('</attachment>', '‹/attachment>')}\n</attachment>`;
      }
      if (typeof d.untrusted === 'string' && d.untrusted) m.untrusted = d.untrusted; // e.g. an imported conversation
      if (Array.isArray(d.images)) {
        // Checked as read from disk: only files of this conversation.
        const refs = d.images.filter(
          (r) => r && typeof r.path === 'string' && /^images\/[\w.-]+$/.test(r.path) && typeof r.mediaType === 'string',
        );
        if (refs.length) m.imageRefs = refs.map((r) => ({ path: r.path, mediaType: r.mediaType }));
      }
      history.push(m);
      break;
    }
    case 'agent_message': {
      const d = event.data;
      /** @type {Message} */
      const m = { role: 'assistant', content: String(d.text ?? '') };
      if (typeof d.untrusted === 'string' && d.untrusted) m.untrusted = d.untrusted;
      if (Array.isArray(d.toolCalls) && d.toolCalls.length) m.toolCalls = d.toolCalls;
      if (m.content || m.toolCalls) history.push(m);
      break;
    }
    case 'tool_result': {
      const d = event.data;
      /** @type {Message} */
      const m = {
        role: 'tool',
        toolCallId: String(d.toolCallId ?? ''),
        content: typeof d.result === 'string' ? d.result : JSON.stringify(d.result ?? null),
      };
      if (typeof d.untrusted === 'string' && d.untrusted) m.untrusted = d.untrusted;
      history.push(m);
      break;
    }
    case 'context_compacted': {
      const d = event.data;
      const keep = Math.max(0, Number(d.keptMessages ?? 10));
      const recent = keep ? history.slice(-keep) : [];
      // A summary of untrusted content is untrusted content: the taint outlives compaction.
      const untrusted = history.slice(0, history.length - recent.length).find((m) => m.untrusted)?.untrusted;
      history.length = 0;
      /** @type {Message} */
      const summary = { role: 'user', content: `Summary of the earlier conversation:\n${d.summary ?? ''}` };
      if (untrusted) summary.untrusted = untrusted.endsWith(SUMMARIZED) ? untrusted : `${untrusted}${SUMMARIZED}`;
      history.push(summary, { role: 'assistant', content: 'Understood; continuing from that summary.' }, ...recent);
      break;
    }
    case 'provider_error':
    case 'stream_error':
      // The turn failed: its user message goes back to the composer and is re-sent on
      // retry, so it leaves the model's context instead of appearing twice.
      if (history.at(-1)?.role === 'user') history.pop();
      break;
    default:
      break; // other events are records, not model context (a `branch` moves the path: see branches.js)
  }
}

/**
 * Drops the oldest messages beyond the window, never leaving a tool result or an
 * assistant tool call without its partner at the front.
 * @param {Message[]} history
 * @param {{maxMessages: number, maxChars: number}} [window]
 */
export function trimHistory(history, window = HISTORY_WINDOW) {
  let chars = 0;
  let keepFrom = history.length;
  for (let i = history.length - 1; i >= 0; i--) {
    chars += history[i].content.length;
    if (history.length - i > window.maxMessages || chars > window.maxChars) break;
    keepFrom = i;
  }
  while (keepFrom < history.length && history[keepFrom].role !== 'user') keepFrom++;
  if (keepFrom > 0) history.splice(0, keepFrom);
  return history;
}

/** @returns {string} */
function newEventId() {
  return globalThis.crypto.randomUUID();
}

/**
 * Append-only, in-memory list of conversation events with JSONL (de)serialisation.
 * Persistence lives in Conversation (conversation.js), which appends line by line.
 */
export class EventLog {
  /** @type {ClawserEvent[]} */
  #events;

  /** @param {ClawserEvent[]} [events] */
  constructor(events = []) {
    this.#events = events;
  }

  /** @returns {readonly ClawserEvent[]} */
  get events() {
    return this.#events;
  }

  get size() {
    return this.#events.length;
  }

  /**
   * Creates (but does not store) an event.
   * @template {EventType} T
   * @param {T} type
   * @param {EventData<T>} data payload; per-type shapes in events.d.ts
   * @param {EventSource} [source]
   * @returns {EventOf<T>}
   */
  static createEvent(type, data, source = 'system') {
    if (!TYPE_SET.has(type)) throw new TypeError(`Unknown event type "${type}".`);
    return { id: newEventId(), type, data, source, timestamp: Date.now() };
  }

  /**
   * @template {EventType} T
   * @param {T} type
   * @param {EventData<T>} data payload; per-type shapes in events.d.ts
   * @param {EventSource} [source]
   * @returns {EventOf<T>}
   */
  append(type, data, source = 'system') {
    const event = EventLog.createEvent(type, data, source);
    this.#events.push(/** @type {ClawserEvent} */ (event)); // EventOf<T> is one member of the union
    return event;
  }

  /** @param {ClawserEvent} event */
  push(event) {
    this.#events.push(event);
  }

  /**
   * Rebuilds the provider request's history from the events.
   * @param {string} [systemPrompt]
   * @returns {SessionHistory}
   */
  deriveSessionHistory(systemPrompt) {
    /** @type {Message[]} */
    const messages = [];
    for (const e of activePath(this.#events)) applyEventToHistory(messages, e);
    trimHistory(messages);
    return systemPrompt ? { system: systemPrompt, messages } : { messages };
  }

  toJSONL() {
    return this.#events.map((e) => JSON.stringify(e) + '\n').join('');
  }

  /**
   * Parses JSONL; tolerates a torn last line and skips invalid lines, reporting both.
   * @param {string} text
   * @returns {{log: EventLog, report: LoadReport}}
   */
  static fromJSONL(text) {
    const { events, report } = parseEventLines(text);
    return { log: new EventLog(events), report };
  }
}

/**
 * @param {unknown} value
 * @returns {value is ClawserEvent}
 */
export function isEvent(value) {
  const e = /** @type {ClawserEvent} */ (value);
  return (
    !!e &&
    typeof e === 'object' &&
    typeof e.id === 'string' &&
    TYPE_SET.has(e.type) &&
    typeof e.timestamp === 'number' &&
    !!e.data &&
    typeof e.data === 'object'
  );
}

/**
 * @param {string} text JSONL; the last line may lack its newline (torn write)
 * @returns {{events: ClawserEvent[], report: LoadReport}}
 */
export function parseEventLines(text) {
  /** @type {ClawserEvent[]} */
  const events = [];
  const report = { tornBytes: 0, skippedLines: 0 };
  const lines = text.split('\n');
  const last = lines.pop() ?? '';
  for (const line of lines) {
    if (!line.trim()) continue;
    try {
      const e = JSON.parse(line);
      if (isEvent(e)) events.push(e);
      else report.skippedLines++;
    } catch {
      report.skippedLines++;
    }
  }
  if (last.trim()) {
    // A final line without "\n" is complete only if it parses; otherwise it was torn.
    try {
      const e = JSON.parse(last);
      if (isEvent(e)) events.push(e);
      else report.tornBytes = new TextEncoder().encode(last).length;
    } catch {
      report.tornBytes = new TextEncoder().encode(last).length;
    }
  }
  return { events, report };
}
