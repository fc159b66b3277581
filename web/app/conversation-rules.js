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
 * carries the button (null: none, or the last one is a tool step).
 * @param {readonly ClawserEvent[]} events
 * @returns {string | null}
 */
export function lastRegenerableReply(events) {
  const last = events.findLast((e) => e.type === 'agent_message');
  return last && regenerable(last) ? last.id : null;
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
