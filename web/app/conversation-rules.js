/**
 * The conversation rules the chat's buttons, the command palette and the chat controller share:
 * which reply Continue and Regenerate act on, which message Edit opens, which events the
 * transcript leaves out or folds, where a fork may end. Pure functions of a conversation's
 * events (the active version, as `Conversation.events` gives it).
 */
/** @import { ClawserEvent, EventOf } from '../agent/types.d.ts' */

/**
 * A reply that can be regenerated: not a step of tool calls (the button's rule).
 * @param {ClawserEvent} e
 */
export const regenerable = (e) => e.type === 'agent_message' && !e.data.toolCalls?.length;

/**
 * The reply "Regenerate" of the command palette acts on: the transcript's last reply when it
 * carries the button (null: none, or the last one is a tool step). A continued reply is one
 * message: its start is regenerated whole.
 * @param {readonly ClawserEvent[]} events
 * @returns {string | null}
 */
export function lastRegenerableReply(events) {
  const last = events.findLast((e) => e.type === 'agent_message');
  if (!last) return null;
  const head = joinedInto(continuedReplies(events).joined, last.id);
  return head ?? (regenerable(last) ? last.id : null);
}

/**
 * Replies the user stopped and then continued, each shown as one message: a stopped reply (no
 * tool calls) followed by a "continue" request and the reply to it, which may be stopped and
 * continued in turn. joined: each stopped reply's continuations, in order, whose text joins it;
 * hidden: the requests and continuations the transcript leaves out (drawn in the reply they
 * join); open: the reply a continuation being written now joins (the transcript ends with its
 * request, no failure after it), else null. The log keeps every event as it was recorded (the
 * model's context too); this is how the transcript shows them.
 * @param {readonly ClawserEvent[]} events
 * @returns {{joined: Map<string, EventOf<'agent_message'>[]>, hidden: Set<string>, open: string | null}}
 */
export function continuedReplies(events) {
  /** @type {Map<string, EventOf<'agent_message'>[]>} */
  const joined = new Map();
  /** @type {Set<string>} */
  const hidden = new Set();
  /** The reply shown, and the last part of it. @type {EventOf<'agent_message'> | null} */
  let head = null;
  /** @type {EventOf<'agent_message'> | null} */
  let tail = null;
  /** @type {EventOf<'user_message'> | null} a "continue" request waiting for its reply */
  let request = null;
  for (const e of events) {
    if (e.type === 'user_message') {
      if (e.data.continues && head && tail?.data.stopped && !tail.data.toolCalls?.length) request = e;
      else head = tail = request = null;
    } else if (e.type === 'provider_error' || e.type === 'stream_error') {
      request = null; // the continuation failed: its request stays said, a retry asks again
    } else if (e.type === 'agent_message') {
      if (request && head && e.data.text) {
        joined.set(head.id, [...(joined.get(head.id) ?? []), e]);
        hidden.add(request.id).add(e.id);
        tail = e;
      } else head = tail = e;
      request = null;
    }
  }
  if (request && head) hidden.add(request.id);
  return { joined, hidden, open: request && head ? head.id : null };
}

/**
 * The reply a continuation `id` joins (null: it joins none).
 * @param {Map<string, EventOf<'agent_message'>[]>} joined @param {string | null} id
 */
export function joinedInto(joined, id) {
  for (const [head, parts] of joined) if (parts.some((p) => p.id === id)) return head;
  return null;
}

/**
 * A stopped reply's text and its continuations' as one: a space between two words the stop
 * split (the model starts its continuation afresh), none before punctuation or where either
 * side has white space already.
 * @param {string[]} texts
 */
export function joinReplyText(texts) {
  let out = '';
  for (const next of texts) out = !out || !next || /\s$/.test(out) || /^[\s,.;:!?)\]}'"’”…]/.test(next) ? out + next : `${out} ${next}`;
  return out;
}

/**
 * The reply that carries "Continue" (the button's rule, the palette's too): the transcript ends
 * with a reply the user stopped (null: it ends otherwise).
 * @param {readonly ClawserEvent[]} events
 * @returns {string | null}
 */
export function stoppedLastReply(events) {
  const last = events.findLast((e) => e.type === 'agent_message' || e.type === 'user_message');
  return last?.type === 'agent_message' && last.data.stopped ? last.id : null;
}

/**
 * The last message the user wrote, which "Edit" of the command palette opens (a "continue"
 * request is not one: it has no Edit button).
 * @param {readonly ClawserEvent[]} events
 * @returns {string | null}
 */
export function lastOwnMessage(events) {
  return events.findLast((e) => e.type === 'user_message' && !e.data.continues)?.id ?? null;
}

/**
 * Events of failed attempts the user retried: a message whose reply failed, followed by the same
 * message sent again. The transcript shows the attempt that counts, not both (the model never
 * sees the failed one either).
 * @param {readonly ClawserEvent[]} events
 * @returns {Set<string>} ids of the events to leave out
 */
export function retriedAttempts(events) {
  /** @type {Set<string>} */
  const hidden = new Set();
  let start = -1;
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    if (e.type !== 'user_message') continue;
    if (start >= 0) {
      const attempt = events.slice(start, i);
      const failed = attempt.some((x) => x.type === 'provider_error' || x.type === 'stream_error');
      const replied = attempt.some((x) => x.type === 'agent_message' || x.type === 'tool_call');
      const sent = events[start];
      if (failed && !replied && sent.type === 'user_message' && String(sent.data.text ?? '') === String(e.data.text ?? ''))
        for (const x of attempt) hidden.add(x.id);
    }
    start = i;
  }
  return hidden;
}

/**
 * Runs of `provider_attempt` events (the tries of one model call) worth showing: more than one
 * try, or one that did not answer. One try the user stopped is not (its reply says it was
 * stopped; no provider failed). Keyed by the run's last event, where the notice goes.
 * @param {readonly ClawserEvent[]} events
 * @returns {Map<string, EventOf<'provider_attempt'>[]>}
 */
export function providerAttemptRuns(events) {
  /** @type {Map<string, EventOf<'provider_attempt'>[]>} */
  const runs = new Map();
  /** @type {EventOf<'provider_attempt'>[]} */
  let run = [];
  const close = () => {
    if (run.length > 1 || run.some((a) => a.data.outcome !== 'ok' && a.data.outcome !== 'aborted'))
      runs.set(/** @type {EventOf<'provider_attempt'>} */ (run.at(-1)).id, run);
    run = [];
  };
  for (const e of events) {
    if (e.type === 'provider_attempt') run.push(e);
    else if (run.length) close();
  }
  if (run.length) close();
  return runs;
}

/**
 * A fork must not end inside a tool round (a call without its result is refused by providers):
 * it stops before the assistant message whose calls are not all answered.
 * @param {ClawserEvent[]} events
 */
export function withoutOpenToolRound(events) {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i];
    if (e.type !== 'agent_message' || !Array.isArray(e.data.toolCalls) || !e.data.toolCalls.length) continue;
    const answered = new Set(
      events
        .slice(i + 1)
        .filter((x) => x.type === 'tool_result')
        .map((x) => x.data.toolCallId),
    );
    return e.data.toolCalls.every((/** @type {{id: string}} */ c) => answered.has(c.id)) ? events : events.slice(0, i);
  }
  return events;
}
