// The conversation rules the chat, the command palette and the controller share (which reply
// Continue and Regenerate act on, which message Edit opens, which events the transcript leaves
// out or folds): pure functions of a conversation's events, outside the UI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  stoppedLastReply,
  lastRegenerableReply,
  lastOwnMessage,
  regenerable,
  retriedAttempts,
  providerAttemptRuns,
  continuedReplies,
  joinedInto,
  joinReplyText,
} from '../../web/app/conversation-rules.js';

/** A test event. @param {string} id @param {string} type @param {Record<string, unknown>} [data] */
const ev = (id, type, data = {}) => /** @type {any} */ ({ id, type, data, source: 'system', timestamp: 1 }); // test events
const toolStep = (/** @type {string} */ id) =>
  ev(id, 'agent_message', { text: '', toolCalls: [{ id: `${id}-c`, name: 'fs_read', arguments: {} }] });

test('Continue: the stopped reply the transcript ends with, also past records after it; nothing once the user wrote again', () => {
  const stopped = [ev('u', 'user_message', { text: 'go' }), ev('a', 'agent_message', { text: 'half', stopped: true })];
  assert.equal(stoppedLastReply(stopped), 'a');
  assert.equal(stoppedLastReply([...stopped, ev('m', 'memory_stored', { key: 'k' })]), 'a', 'a record after it is not a message');
  assert.equal(stoppedLastReply([...stopped, ev('u2', 'user_message', { text: 'next' })]), null);
  // Control: a reply that finished is not continued.
  assert.equal(stoppedLastReply([ev('u', 'user_message', { text: 'go' }), ev('a', 'agent_message', { text: 'all' })]), null);
  assert.equal(stoppedLastReply([]), null);
});

test('Regenerate: the last reply when it is not a step of tool calls', () => {
  const done = [
    ev('u', 'user_message', { text: 'go' }),
    toolStep('s'),
    ev('r', 'tool_result', { toolCallId: 's-c' }),
    ev('a', 'agent_message', { text: 'answer' }),
  ];
  assert.equal(lastRegenerableReply(done), 'a');
  assert.equal(regenerable(done[3]), true);
  // A turn that ends on a tool step (stopped mid-way) offers no Regenerate; the button's rule is the same.
  assert.equal(lastRegenerableReply(done.slice(0, 3)), null);
  assert.equal(regenerable(done[1]), false);
  assert.equal(regenerable(done[0]), false, 'a user message is edited, not regenerated');
  assert.equal(lastRegenerableReply([ev('u', 'user_message', { text: 'go' })]), null);
});

test('Edit: the last message the user wrote, never a "continue" request', () => {
  const events = [
    ev('u1', 'user_message', { text: 'first' }),
    ev('a', 'agent_message', { text: 'half', stopped: true }),
    ev('c', 'user_message', { text: 'Continue…', continues: true }),
    ev('b', 'agent_message', { text: 'rest' }),
  ];
  assert.equal(lastOwnMessage(events), 'u1');
  // Control: a message of the user's own after it is the one.
  assert.equal(lastOwnMessage([...events, ev('u2', 'user_message', { text: 'second' })]), 'u2');
  assert.equal(lastOwnMessage([ev('a', 'agent_message', { text: 'hello' })]), null);
});

test('a failed attempt the user retried with the same message is left out; one with a reply, or another message, stays', () => {
  const events = [
    ev('u1', 'user_message', { text: 'hi' }),
    ev('e1', 'provider_error', { code: 'network', message: 'down' }),
    ev('u2', 'user_message', { text: 'hi' }),
    ev('a2', 'agent_message', { text: 'hello' }),
  ];
  assert.deepEqual([...retriedAttempts(events)], ['u1', 'e1']);
  // Controls: another message after the failure, and a failure after part of a reply (tool calls ran), are kept.
  assert.deepEqual([...retriedAttempts([events[0], events[1], ev('u2', 'user_message', { text: 'something else' })])], []);
  assert.deepEqual(
    [
      ...retriedAttempts([
        events[0],
        toolStep('s'),
        ev('e1', 'stream_error', { message: 'cut' }),
        ev('u2', 'user_message', { text: 'hi' }),
      ]),
    ],
    [],
  );
  assert.deepEqual([...retriedAttempts([events[0], events[1]])], [], 'the last attempt is never hidden');
});

test("provider tries are folded by run: more than one try or one that did not answer, keyed by the run's last try", () => {
  const attempt = (/** @type {string} */ id, /** @type {string} */ outcome) =>
    ev(id, 'provider_attempt', { provider: 'openai', model: 'm', outcome, latencyMs: 10 });
  const events = [
    ev('u', 'user_message', { text: 'go' }),
    attempt('t1', 'failed'),
    attempt('t2', 'ok'),
    ev('a', 'agent_message', { text: 'x' }),
    attempt('t3', 'ok'),
    ev('b', 'agent_message', { text: 'y' }),
    attempt('t4', 'skipped'),
  ];
  const runs = providerAttemptRuns(events);
  assert.deepEqual([...runs.keys()], ['t2', 't4']);
  assert.deepEqual(
    runs.get('t2')?.map((e) => e.id),
    ['t1', 't2'],
  );
  // Control: one try that answered is not worth a notice.
  assert.equal(runs.has('t3'), false);
  // One try the user stopped is not either (no provider failed); stopped after failed tries, the failures are shown.
  const stopped = providerAttemptRuns([
    ev('u1', 'user_message', { text: 'go' }),
    attempt('s1', 'aborted'),
    ev('a1', 'agent_message', { text: 'par', stopped: true }),
    ev('u2', 'user_message', { text: 'again' }),
    attempt('s2', 'failed'),
    attempt('s3', 'aborted'),
    ev('a2', 'agent_message', { text: 'tia', stopped: true }),
  ]);
  assert.deepEqual([...stopped.keys()], ['s3']);
});

test('Continue extends the stopped reply: the continuations join it (stopped and continued again too); the requests are left out', () => {
  const events = [
    ev('u', 'user_message', { text: 'story' }),
    ev('a', 'agent_message', { text: 'Once upon', stopped: true }),
    ev('c1', 'user_message', { text: 'Continue…', continues: true }),
    ev('p1', 'provider_attempt', { outcome: 'ok' }),
    ev('b', 'agent_message', { text: 'a time there', stopped: true }),
    ev('c2', 'user_message', { text: 'Continue…', continues: true }),
    ev('d', 'agent_message', { text: 'was a fox.' }),
  ];
  const r = continuedReplies(events);
  assert.deepEqual(
    [...r.joined].map(([k, v]) => [k, v.map((x) => x.id)]),
    [['a', ['b', 'd']]],
  );
  assert.deepEqual([...r.hidden].sort(), ['b', 'c1', 'c2', 'd']);
  assert.equal(r.open, null);
  assert.equal(joinedInto(r.joined, 'd'), 'a');
  assert.equal(joinedInto(r.joined, 'a'), null);
  // Regenerate on a continued reply answers the question again, whole.
  assert.equal(lastRegenerableReply(events), 'a');
  // While the continuation is written, its request is left out and the stopped reply is where it goes.
  const writing = continuedReplies(events.slice(0, 6));
  assert.equal(writing.open, 'a');
  assert.ok(writing.hidden.has('c2'));
  // Controls: a failed continuation keeps its request said; a message of the user's own ends the reply; a reply that
  // was not stopped, or a step of tool calls, is not extended.
  const failed = continuedReplies([...events.slice(0, 3), ev('e', 'provider_error', { message: 'boom' })]);
  assert.equal(failed.open, null);
  assert.equal(failed.hidden.has('c1'), false);
  const own = continuedReplies([
    ...events.slice(0, 2),
    ev('u2', 'user_message', { text: 'stop there' }),
    ev('x', 'agent_message', { text: 'ok' }),
  ]);
  assert.equal(own.joined.size, 0);
  assert.equal(own.hidden.size, 0);
  const done = continuedReplies([
    ev('a', 'agent_message', { text: 'all' }),
    ev('c', 'user_message', { text: 'Continue…', continues: true }),
    ev('b', 'agent_message', { text: 'more' }),
  ]);
  assert.equal(done.joined.size, 0);
});

test('the joined text: a space between words the stop split, none before punctuation or next to white space', () => {
  assert.equal(
    joinReplyText(['The first half of a long', 'story, and its second half.']),
    'The first half of a long story, and its second half.',
  );
  assert.equal(joinReplyText(['It was', ', indeed.']), 'It was, indeed.');
  assert.equal(joinReplyText(['Line one\n', 'Line two']), 'Line one\nLine two');
  assert.equal(joinReplyText(['ends ', 'here']), 'ends here');
  assert.equal(joinReplyText(['```js\nconst a = 1;', '\nconst b = 2;\n```']), '```js\nconst a = 1;\nconst b = 2;\n```');
  assert.equal(joinReplyText(['only']), 'only');
});
