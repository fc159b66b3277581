// How the read caches of an origin stay correct together (web/storage/cache-channel.js, issue 36
// §2): a write resolves only once every other member has forgotten what it changed; a new member
// keeps nothing until the others know it; a member that is gone is not waited for, one that does
// not answer only for a while. Over an in-memory channel and lock manager, so each case is exact.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CacheChannel } from '../../web/storage/cache-channel.js';

/** A BroadcastChannel and a Web Locks manager in memory; a member can be cut off (a crashed or frozen tab). */
function origin() {
  /** @type {Set<FakeChannel>} */
  const channels = new Set();
  /** @type {Set<string>} names whose channel hears nothing (and says nothing) */
  const deaf = new Set();
  class FakeChannel {
    /** @type {((e: {data: unknown}) => void) | null} */
    onmessage = null;
    /** @param {string} name */
    constructor(name) {
      this.name = name;
      this.member = '';
      channels.add(this);
    }
    /** @param {any} data */
    postMessage(data) {
      this.member ||= data?.from ?? '';
      if (deaf.has(this.member)) return;
      const copy = structuredClone(data);
      for (const c of channels)
        if (c !== this && c.name === this.name && !deaf.has(c.member)) setImmediate(() => c.onmessage?.({ data: copy }));
    }
    close() {
      channels.delete(this);
    }
  }
  /** @type {Map<string, {release: () => void}>} */
  const held = new Map();
  /** @type {Map<string, (() => void)[]>} */
  const waiting = new Map();
  const locks = {
    /** @param {string} name @param {() => unknown} callback */
    request(name, callback) {
      return new Promise((resolve, reject) => {
        const run = () => {
          /** @type {() => void} */
          let release = () => {};
          const crashed = new Promise((r) => {
            release = () => r(undefined);
          });
          held.set(name, { release });
          const result = Promise.resolve().then(callback);
          result.then(resolve, reject);
          // Let go when the callback's promise settles, or at once when the holder "crashes".
          Promise.race([
            crashed,
            result.then(
              () => {},
              () => {},
            ),
          ]).then(() => {
            held.delete(name);
            waiting.get(name)?.shift()?.();
          });
        };
        if (held.has(name)) (waiting.get(name) ?? waiting.set(name, []).get(name))?.push(run);
        else run();
      });
    },
    async query() {
      return { held: [...held.keys()].map((name) => ({ name })) };
    },
  };
  return {
    Channel: /** @type {any} */ (FakeChannel), // the fake has what CacheChannel uses of a BroadcastChannel
    locks: /** @type {any} */ (locks), // likewise of a LockManager
    /** Cuts a member off: it hears and says nothing; `gone` also lets go of its lock, as a closed tab does. */
    cut(/** @type {CacheChannel} */ m, { gone = false } = {}) {
      deaf.add(m.id);
      if (gone) held.get(`clawser-read-cache:${m.id}`)?.release();
    },
  };
}

/** A member that records what it was told and whether it may keep. @param {ReturnType<typeof origin>} o @param {number} [ackTimeoutMs] */
function member(o, ackTimeoutMs = 60_000) {
  /** @type {{files?: string[], trees?: string[]}[]} */
  const told = [];
  const m = new CacheChannel({ onChange: (c) => told.push(c), Channel: o.Channel, locks: o.locks, ackTimeoutMs });
  return { m, told };
}

test('alone, a member may keep at once and a write waits for nobody', async () => {
  const o = origin();
  const { m } = member(o);
  await m.whenReady();
  assert.equal(m.ready, true);
  await m.announce({ files: ['clawser_workspaces/w/a.txt'] });
  m.close();
  // Without BroadcastChannel and Web Locks (Node's defaults here) there are no others either.
  const plain = new CacheChannel({ onChange: () => {}, Channel: null, locks: null });
  assert.equal(plain.ready, true);
  await plain.announce({ files: ['x'] });
});

test('a write resolves only after every other member has forgotten what it changed', async () => {
  const o = origin();
  const a = member(o);
  await a.m.whenReady();
  const b = member(o);
  await b.m.whenReady();
  const c = member(o);
  await c.m.whenReady();
  let resolved = false;
  const done = a.m.announce({ files: ['clawser_workspaces/w/a.txt'], trees: ['clawser_workspaces/w/old'] }).then(() => {
    resolved = true;
  });
  await done;
  assert.equal(resolved, true);
  for (const other of [b, c])
    assert.deepEqual(other.told, [{ files: ['clawser_workspaces/w/a.txt'], trees: ['clawser_workspaces/w/old'] }]);
  assert.deepEqual(a.told, [], 'the writer is not told of its own write');
  for (const x of [a, b, c]) x.m.close();
});

test('a new member keeps nothing until the members already there have answered it', async () => {
  const o = origin();
  const a = member(o);
  await a.m.whenReady();
  const b = member(o);
  assert.equal(b.m.ready, false, 'not before A answered');
  await b.m.whenReady();
  // By then A knows B: A's next write waits for B's ack, so B has forgotten the path when it resolves.
  await a.m.announce({ files: ['clawser_workspaces/w/a.txt'] });
  assert.deepEqual(b.told, [{ files: ['clawser_workspaces/w/a.txt'], trees: [] }]);
  a.m.close();
  b.m.close();
});

// The time-out fails the test if the gone member were waited for (a minute).
test('a member that is gone (its lock let go, no goodbye) is not waited for; one that stays silent only until the time-out', {
  timeout: 20_000,
}, async () => {
  const o = origin();
  const a = member(o);
  await a.m.whenReady();
  const crashed = member(o);
  await crashed.m.whenReady();
  await a.m.announce({ files: ['p'] });
  assert.equal(crashed.told.length, 1, 'control: a live member is told');
  o.cut(crashed.m, { gone: true });
  // A waits up to a minute for an ack: resolving now shows it stopped waiting for the gone member.
  await a.m.announce({ files: ['q'] });
  assert.equal(crashed.told.length, 1);

  const o2 = origin();
  const w = member(o2, 30);
  await w.m.whenReady();
  const frozen = member(o2);
  await frozen.m.whenReady();
  o2.cut(frozen.m);
  await w.m.announce({ files: ['r'] });
  assert.equal(frozen.told.length, 0, 'never told, and the write went on after its time-out');
  for (const x of [a, w, frozen]) x.m.close();
});
