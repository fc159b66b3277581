// TabCoordinator's pure parts (peer table, message checks, the in-process lock queue), the
// single-tab fallback node 20 really gets, and two coordinators in one process talking over
// node's real BroadcastChannel with the in-process locks and a hand-driven clock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PeerTable, parseMessage, TabCoordinator, TabError } from '../../web/agent/coordination/tabs.js';
import { LocalLocks } from '../../web/storage/local-locks.js';

/**
 * Resolves on the next call of a `subscribe`-style registration.
 * @template T
 * @param {(fn: (v: T) => void) => () => void} on
 * @param {(v: T) => boolean} [until]
 * @returns {Promise<T>}
 */
function next(on, until = () => true) {
  return new Promise((resolve) => {
    const off = on((v) => {
      if (!until(v)) return;
      off();
      resolve(v);
    });
  });
}

/** A clock and repeating timers the test advances by hand. */
function manualTime() {
  const state = { now: 1_000_000 };
  /** @type {Set<() => void>} */
  const timers = new Set();
  return {
    now: () => state.now,
    /** @param {() => void} fn */
    every: (fn) => {
      timers.add(fn);
      return () => void timers.delete(fn);
    },
    /** Moves the clock on and fires every timer once. @param {number} ms */
    tick(ms) {
      state.now += ms;
      for (const fn of [...timers]) fn();
    },
    timers,
  };
}

test('peer table: a peer silent for 3 beats is pruned, a beating one stays; one leader; oldest first', () => {
  const beat = 1000;
  const table = new PeerTable({ staleAfterMs: 3 * beat });
  let now = 0;
  assert.equal(table.seen({ id: 'b', leader: false, startedAt: 20 }, now), true);
  assert.equal(table.seen({ id: 'a', leader: true, startedAt: 10, label: 'ws 1' }, now), true);
  assert.equal(table.seen({ id: 'a', leader: true, startedAt: 10, label: 'ws 1' }, now), false, 'a refresh is not a change');
  assert.deepEqual(
    table.list().map((p) => p.id),
    ['a', 'b'],
  );
  // "a" keeps beating, "b" goes silent.
  for (let i = 1; i <= 3; i++) {
    now = i * beat;
    table.seen({ id: 'a', leader: true, startedAt: 10, label: 'ws 1' }, now);
    assert.deepEqual(table.prune(now), [], `after ${i} missed beat(s) b is still there`);
  }
  now = 3 * beat + 1;
  assert.deepEqual(table.prune(now), ['b'], 'the 3rd missed beat is over: b is pruned');
  assert.deepEqual(table.list(), [{ id: 'a', leader: true, startedAt: 10, label: 'ws 1', lastSeen: 3 * beat }]);
  // Any message counts as a sign of life.
  now = 5 * beat;
  table.touch('a', now);
  assert.deepEqual(table.prune(6 * beat), []);
  // A new leader clears the stale flag of the old one (only one tab can hold the lock).
  assert.equal(table.seen({ id: 'c', leader: true, startedAt: 30 }, now), true);
  assert.deepEqual(
    table.list().map((p) => [p.id, p.leader]),
    [
      ['a', false],
      ['c', true],
    ],
  );
  assert.equal(table.remove('c'), true);
  assert.equal(table.remove('c'), false);
});

test('channel messages: only well-formed ones are accepted, unknown fields dropped', () => {
  const bad = [
    null,
    'hello',
    42,
    [],
    {},
    { v: 2, kind: 'beat', id: 'x', leader: false, startedAt: 1 },
    { v: 1, kind: 'beat', id: '', leader: false, startedAt: 1 },
    { v: 1, kind: 'beat', id: 'x'.repeat(101), leader: false, startedAt: 1 },
    { v: 1, kind: 'beat', id: 'x', leader: 'yes', startedAt: 1 },
    { v: 1, kind: 'beat', id: 'x', leader: false, startedAt: Number.NaN },
    { v: 1, kind: 'hello', id: 'x', leader: false, startedAt: 1, label: 7 },
    { v: 1, kind: 'msg', id: 'x', topic: '', data: 1 },
    { v: 1, kind: 'msg', id: 'x', topic: 't' },
    { v: 1, kind: 'steal', id: 'x' },
    { v: 1, kind: 'bye', id: 5 },
  ];
  for (const raw of bad) assert.equal(parseMessage(raw), null, JSON.stringify(raw));
  assert.deepEqual(parseMessage({ v: 1, kind: 'hello', id: 'x', leader: true, startedAt: 5, label: 'L', extra: 'dropped' }), {
    v: 1,
    kind: 'hello',
    id: 'x',
    leader: true,
    startedAt: 5,
    label: 'L',
  });
  assert.deepEqual(parseMessage({ v: 1, kind: 'bye', id: 'x', leader: 1 }), { v: 1, kind: 'bye', id: 'x' });
  assert.deepEqual(parseMessage({ v: 1, kind: 'msg', id: 'x', topic: 't', data: undefined }), {
    v: 1,
    kind: 'msg',
    id: 'x',
    topic: 't',
    data: undefined,
  });
});

test('in-process locks: same key runs one at a time in order, errors propagate and free the lock, other keys overlap, \
abort while waiting', async () => {
  const locks = new LocalLocks();
  let shared = 0;
  let inside = 0;
  let maxInside = 0;
  const bump = () =>
    locks.request('k', {}, async () => {
      inside++;
      maxInside = Math.max(maxInside, inside);
      const seen = shared;
      await Promise.resolve(); // a read-modify-write split by awaits, as storage would be
      await Promise.resolve();
      shared = seen + 1;
      inside--;
      return seen;
    });
  const results = await Promise.all(Array.from({ length: 20 }, bump));
  assert.equal(shared, 20);
  assert.equal(maxInside, 1);
  assert.deepEqual(
    results,
    Array.from({ length: 20 }, (_, i) => i),
    'granted in arrival order',
  );

  const failed = locks.request('k', {}, () => {
    throw new Error('boom');
  });
  await assert.rejects(failed, /boom/);
  assert.equal(await locks.request('k', {}, () => 'after'), 'after');

  // A different key does not wait for a held one.
  /** @type {() => void} */
  let letGo = () => {};
  const holding = locks.request('a', {}, () => new Promise((r) => (letGo = () => r(undefined))));
  assert.equal(await locks.request('b', {}, () => 'b ran'), 'b ran');
  // A waiter that gives up is rejected with the signal's reason and never runs.
  const abort = new AbortController();
  let ranAborted = false;
  const waiting = locks.request('a', { signal: abort.signal }, () => (ranAborted = true));
  const third = locks.request('a', {}, () => 'third');
  abort.abort(new Error('gave up'));
  await assert.rejects(waiting, /gave up/);
  letGo();
  await holding;
  assert.equal(await third, 'third');
  assert.equal(ranAborted, false);
});

test('node 20: BroadcastChannel but no navigator.locks → single mode: leader at once, in-process locks, publish a no-op', {
  skip: globalThis.navigator?.locks ? 'this node has Web Locks' : false,
}, async () => {
  assert.equal(typeof BroadcastChannel, 'function', 'node 20 has BroadcastChannel');
  assert.equal(globalThis.navigator?.locks, undefined, 'node 20 has no Web Locks');
  const tabs = new TabCoordinator({ label: 'node' });
  assert.equal(tabs.mode, 'single');
  assert.equal(tabs.isLeader, true);
  assert.equal(tabs.leaderId, tabs.id);
  await tabs.whenLeader();
  assert.deepEqual(tabs.peers(), []);
  let received = 0;
  tabs.subscribe('t', () => received++);
  tabs.publish('t', { a: 1 });
  // withLock is still a real lock inside the tab.
  let counter = 0;
  await Promise.all(
    Array.from({ length: 10 }, () =>
      tabs.withLock('counter', async () => {
        const v = counter;
        await Promise.resolve();
        counter = v + 1;
      }),
    ),
  );
  assert.equal(counter, 10);
  await assert.rejects(
    tabs.withLock('x', () => Promise.reject(new RangeError('inner'))),
    RangeError,
  );
  // runOnce: the leader runs a due occurrence once; the persisted check stops repeats.
  let lastRun = 0;
  const job = { isDue: () => lastRun < 1, run: () => (lastRun = 1) };
  const runs = await Promise.all([tabs.runOnce('job', job), tabs.runOnce('job', job), tabs.runOnce('job', job)]);
  assert.deepEqual(runs, [
    { ran: true, value: 1 },
    { ran: false, reason: 'not_due' },
    { ran: false, reason: 'not_due' },
  ]);
  /** @type {boolean[]} */
  const changes = [];
  tabs.onLeaderChange((l) => changes.push(l));
  await tabs.close();
  assert.equal(tabs.isLeader, false);
  assert.deepEqual(changes, [false]);
  assert.equal(received, 0, 'a tab never receives its own messages');
  // any: assert.rejects' validator gets unknown
  await assert.rejects(tabs.whenLeader(), (/** @type {any} */ e) => e instanceof TabError && e.code === 'closed');
  assert.throws(() => tabs.publish('t', 1), { code: 'closed' });
  assert.deepEqual(await tabs.runOnce('job', job), { ran: false, reason: 'not_leader' });
});

test('single mode is also chosen when only one of the two APIs exists; bad options are refused', async () => {
  const noChannel = new TabCoordinator({ locks: new LocalLocks(), BroadcastChannel: null });
  assert.equal(noChannel.mode, 'single');
  await noChannel.close();
  const noLocks = new TabCoordinator({ locks: null });
  assert.equal(noLocks.mode, 'single');
  await noLocks.close();
  assert.throws(() => new TabCoordinator({ name: 'a b' }), { code: 'invalid_argument' });
  assert.throws(() => new TabCoordinator({ heartbeatMs: 0 }), { code: 'invalid_argument' });
  assert.throws(() => new TabCoordinator({ label: 'x'.repeat(201), locks: null }), { code: 'invalid_argument' });
});

test("two coordinators over node's BroadcastChannel and shared in-process locks: one leader, presence, pub/sub, \
malformed messages ignored, pruning, takeover", async () => {
  const name = `unit-${process.pid}`;
  const time = manualTime();
  const locks = new LocalLocks();
  const opts = { name, locks, now: time.now, every: time.every, pageEvents: null, heartbeatMs: 1000 };
  const a = new TabCoordinator({ ...opts, label: 'A' });
  await a.whenLeader();
  const bSeesA = new Promise((resolve) => {
    const b = new TabCoordinator({ ...opts, label: 'B' });
    const off = b.onPeersChange((peers) => {
      if (peers.some((p) => p.id === a.id && p.leader)) {
        off();
        resolve(b);
      }
    });
  });
  const aSeesB = next(a.onPeersChange.bind(a), (peers) => peers.length === 1);
  const b = /** @type {TabCoordinator} */ (await bSeesA);
  await aSeesB;
  assert.equal(a.mode, 'web-locks');
  assert.equal([a, b].filter((t) => t.isLeader).length, 1);
  assert.deepEqual(
    a.peers().map((p) => [p.id, p.label, p.leader]),
    [[b.id, 'B', false]],
  );
  assert.deepEqual(
    b.peers().map((p) => [p.id, p.label, p.leader]),
    [[a.id, 'A', true]],
  );
  assert.equal(b.leaderId, a.id);

  // Publish reaches the other coordinator only; malformed messages on the channel change nothing.
  /** @type {unknown[]} */
  const gotA = [];
  /** @type {unknown[]} */
  const gotB = [];
  a.subscribe('goals', (d) => gotA.push(d));
  b.subscribe('goals', (d, from) => gotB.push([d, from]));
  const stranger = new BroadcastChannel(`${name}-tabs`);
  for (const junk of [
    null,
    'x',
    { v: 1, kind: 'msg', id: 'z', topic: 'goals' },
    { v: 1, kind: 'beat', id: 'z', leader: true },
    { kind: 'bye', id: a.id },
  ])
    stranger.postMessage(junk);
  // The stranger's valid message comes after its junk (one sender's messages stay in order).
  const delivered = [a, b].map((t) =>
    next(
      (fn) => t.subscribe('goals', fn),
      (d) => d === 'sentinel',
    ),
  );
  stranger.postMessage({ v: 1, kind: 'msg', id: 'z', topic: 'goals', data: 'sentinel' });
  await Promise.all(delivered);
  a.publish('goals', { rev: 2 });
  await next(
    (fn) => b.subscribe('goals', fn),
    (d) => JSON.stringify(d) === '{"rev":2}',
  );
  assert.deepEqual(gotB, [
    ['sentinel', 'z'],
    [{ rev: 2 }, a.id],
  ]);
  assert.deepEqual(gotA, ['sentinel']);
  assert.deepEqual(
    b.peers().map((p) => p.id),
    [a.id],
    'the junk beat and the forged bye were ignored',
  );
  assert.throws(() => a.publish('goals', () => 1), { code: 'invalid_argument' });

  // A peer that announces itself once and then goes silent is pruned after 3 missed beats.
  const ghostBeat = { v: 1, kind: 'beat', id: 'ghost', leader: false, startedAt: 1 };
  const aSeesGhost = next(a.onPeersChange.bind(a), (peers) => peers.some((p) => p.id === 'ghost'));
  stranger.postMessage(ghostBeat);
  await aSeesGhost;
  /** @type {string[][]} */
  const pruned = [];
  a.onPeersChange((peers) => pruned.push(peers.map((p) => p.id)));
  // b keeps beating on each tick; the beats arrive asynchronously, so wait for each.
  for (let i = 0; i < 3; i++) {
    time.tick(1000);
    // Nothing changes on a plain refresh, so publish a marker to know b's beat went through.
    b.publish('tick', i);
    await next(
      (fn) => a.subscribe('tick', fn),
      (d) => d === i,
    );
  }
  assert.deepEqual(pruned, [], 'within 3 beats the ghost is kept');
  time.tick(1);
  assert.deepEqual(pruned, [[b.id]], 'past 3 missed beats the ghost is pruned, b stays');
  stranger.close();

  // The leader closes: b takes over and a is gone from its peers.
  const bLeads = next(b.onLeaderChange.bind(b), (l) => l);
  const aGone = next(b.onPeersChange.bind(b), (peers) => peers.length === 0);
  await a.close();
  await bLeads;
  await aGone;
  assert.equal(b.isLeader, true);
  assert.equal(a.isLeader, false);
  await b.close();
  assert.equal(time.timers.size, 0, 'close stops the heartbeat');
});

test('runOnce: a job still running in the old leader blocks the new one, whose persisted check then skips it', async () => {
  const name = `unit-run-${process.pid}`;
  const locks = new LocalLocks();
  const time = manualTime();
  const opts = { name, locks, now: time.now, every: time.every, pageEvents: null };
  const a = new TabCoordinator(opts);
  await a.whenLeader();
  const b = new TabCoordinator(opts);
  assert.deepEqual(await b.runOnce('job1', { isDue: () => true, run: () => 'x' }), { ran: false, reason: 'not_leader' });
  // "Persisted" state: the occurrence the job last ran for.
  let lastRunOccurrence = 0;
  let runs = 0;
  /** @type {() => void} */
  let finishOld = () => {};
  /** @type {() => void} */
  let oldStarted = () => {};
  const started = new Promise((r) => (oldStarted = () => r(undefined)));
  const oldRun = a.runOnce('job1', {
    isDue: () => lastRunOccurrence < 7,
    run: async () => {
      runs++;
      oldStarted();
      await new Promise((r) => (finishOld = () => r(undefined)));
      lastRunOccurrence = 7;
      return 'old';
    },
  });
  await started;
  const bLeads = b.whenLeader();
  await a.close(); // leadership handed over while a's run is still going
  await bLeads;
  const newRun = b.runOnce('job1', { isDue: () => lastRunOccurrence < 7, run: () => (runs++, 'new') });
  finishOld();
  assert.deepEqual(await oldRun, { ran: true, value: 'old' });
  assert.deepEqual(await newRun, { ran: false, reason: 'not_due' });
  assert.equal(runs, 1);
  await b.close();
});

test('a frozen leader hands leadership on and asks again on resume', async () => {
  const name = `unit-freeze-${process.pid}`;
  const locks = new LocalLocks();
  const time = manualTime();
  const doc = new EventTarget(); // stands in for the document's freeze/resume events
  const opts = { name, locks, now: time.now, every: time.every, pageEvents: null };
  const a = new TabCoordinator({ ...opts, documentEvents: doc });
  await a.whenLeader();
  const b = new TabCoordinator({ ...opts, documentEvents: null });
  await next(b.onPeersChange.bind(b), (peers) => peers.some((p) => p.id === a.id && p.leader));
  /** @type {boolean[]} */
  const aChanges = [];
  a.onLeaderChange((l) => aChanges.push(l));
  const bLeads = b.whenLeader();
  const aGone = next(b.onPeersChange.bind(b), (peers) => peers.length === 0);
  doc.dispatchEvent(new Event('freeze'));
  assert.equal(a.isLeader, false);
  await bLeads;
  await aGone;
  const aBack = next(b.onPeersChange.bind(b), (peers) => peers.length === 1);
  doc.dispatchEvent(new Event('resume'));
  await aBack;
  assert.deepEqual(aChanges, [false], 'after resume a waits behind b');
  assert.equal(b.isLeader, true);
  await b.close();
  await a.whenLeader();
  assert.deepEqual(aChanges, [false, true]);
  await a.close();
});
