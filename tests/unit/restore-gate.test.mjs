// RestoreGate (issue 11 §5): a backup restore is exclusive across tabs. Two "tabs" here are two
// gates sharing a reader-writer lock with Web Locks' semantics and a channel like
// BroadcastChannel's (a tab does not hear itself).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RestoreGate, RestoreInProgressError, gatedCoordination } from '../../web/agent/coordination/restore-gate.js';

/** Web Locks' shared/exclusive modes, first come first served (a waiting exclusive holds back later shared requests). */
class RwLocks {
  /** @type {Map<string, {shared: number, exclusive: boolean, queue: {mode: string, run: () => void}[]}>} */
  #names = new Map();

  /**
   * @template T
   * @param {string} name @param {{mode?: 'shared' | 'exclusive'}} options @param {() => T | PromiseLike<T>} callback
   * @returns {Promise<Awaited<T>>}
   */
  request(name, options, callback) {
    let st = this.#names.get(name);
    if (!st) this.#names.set(name, (st = { shared: 0, exclusive: false, queue: [] }));
    const state = st;
    const mode = options.mode ?? 'exclusive';
    return new Promise((resolve, reject) => {
      state.queue.push({
        mode,
        run: async () => {
          try {
            resolve(await callback());
          } catch (err) {
            reject(err);
          } finally {
            if (mode === 'shared') state.shared--;
            else state.exclusive = false;
            this.#pump(state);
          }
        },
      });
      this.#pump(state);
    });
  }

  /** @param {{shared: number, exclusive: boolean, queue: {mode: string, run: () => void}[]}} st */
  #pump(st) {
    while (st.queue.length) {
      const next = st.queue[0];
      if (next.mode === 'shared' ? st.exclusive : st.exclusive || st.shared > 0) return;
      st.queue.shift();
      if (next.mode === 'shared') st.shared++;
      else st.exclusive = true;
      next.run();
    }
  }
}

/** A BroadcastChannel-like bus: each tab's channel delivers to the other tabs' subscribers only. */
function bus() {
  /** @type {{topic: string, fn: (data: unknown, from: string) => void, tab: number}[]} */
  const subs = [];
  let tabs = 0;
  return () => {
    const tab = tabs++;
    return {
      /** @param {string} topic @param {unknown} data */
      publish: (topic, data) => {
        for (const s of subs) if (s.topic === topic && s.tab !== tab) s.fn(structuredClone(data), String(tab));
      },
      /** @param {string} topic @param {(data: unknown, from: string) => void} fn */
      subscribe: (topic, fn) => {
        const s = { topic, fn, tab };
        subs.push(s);
        return () => {
          subs.splice(subs.indexOf(s), 1);
        };
      },
    };
  };
}

function twoTabs() {
  const locks = new RwLocks();
  const channel = bus();
  const a = new RestoreGate({ locks, channel: channel() });
  const b = new RestoreGate({ locks, channel: channel() });
  return { a, b, locks };
}

/** A promise and its resolve function. */
function deferred() {
  /** @type {(v?: unknown) => void} */
  let resolve = () => {};
  const promise = new Promise((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

test('writes of several tabs run side by side; a restore waits until every write in flight has ended', async () => {
  const { a, b } = twoTabs();
  const order = /** @type {string[]} */ ([]);
  const slow = deferred();
  const started = deferred();
  const writeB = b.write(async () => {
    started.resolve();
    await slow.promise;
    order.push('b write');
  });
  await started.promise;
  // Control: another write (other tab) does not wait behind B's.
  await a.write(async () => order.push('a write'));
  assert.deepEqual(order, ['a write']);
  const restore = a.exclusive(async () => order.push('restore'));
  await Promise.resolve();
  assert.deepEqual(order, ['a write'], "the restore waits for B's write in flight");
  slow.resolve();
  await Promise.all([writeB, restore]);
  assert.deepEqual(order, ['a write', 'b write', 'restore']);
});

test('from the announcement on, every tab refuses new writes (code restore_in_progress); the write already running finishes', async () => {
  const { a, b } = twoTabs();
  /** @type {import('../../web/agent/coordination/restore-gate.js').RestoreNotice[]} */
  const heardByB = [];
  b.subscribe((n) => heardByB.push(n));
  const release = deferred();
  const holding = deferred();
  // A write in tab B holds the lock, so the restore has to wait; meanwhile B tries more writes.
  const inFlight = b.write(async () => {
    holding.resolve();
    await release.promise;
    return 'done';
  });
  await holding.promise;
  const restored = deferred();
  const restore = a.exclusive(async () => {
    restored.resolve();
    return 'restored';
  });
  assert.deepEqual(heardByB, [{ phase: 'begin' }]);
  assert.equal(b.restoring, 'elsewhere');
  let ran = false;
  await assert.rejects(
    b.write(async () => {
      ran = true;
    }),
    (err) => err instanceof RestoreInProgressError && err.code === 'restore_in_progress' && /another tab/.test(err.message),
  );
  await assert.rejects(
    a.write(async () => {
      ran = true;
    }),
    (err) => err instanceof RestoreInProgressError && /nothing is saved until/.test(err.message),
  );
  assert.equal(ran, false);
  release.resolve();
  assert.equal(await inFlight, 'done', 'the write already running finishes');
  assert.equal(await restore, 'restored');
  assert.deepEqual(heardByB, [{ phase: 'begin' }, { phase: 'end', ok: true }]);
  // After a good restore the tab's data is stale: it stays closed (the app reloads it).
  await assert.rejects(
    b.write(async () => {}),
    RestoreInProgressError,
  );
});

test('a failed restore is announced as failed: the other tabs, and the restoring one, write again', async () => {
  const { a, b } = twoTabs();
  /** @type {unknown[]} */
  const heard = [];
  b.subscribe((n) => heard.push(n));
  await assert.rejects(
    a.exclusive(async () => {
      throw new Error('bad backup');
    }),
    /bad backup/,
  );
  assert.deepEqual(heard, [{ phase: 'begin' }, { phase: 'end', ok: false }]);
  assert.equal(b.restoring, null);
  assert.equal(await b.write(async () => 'b writes'), 'b writes');
  assert.equal(await a.write(async () => 'a writes'), 'a writes');
});

test('writes nested in one tab share its hold; with a restore pending, \
a nested write is refused at once instead of waiting for itself', async () => {
  const locks = new RwLocks();
  let requests = 0;
  const counting = {
    request: /** @type {RwLocks['request']} */ (
      (name, options, cb) => {
        requests++;
        return locks.request(name, options, cb);
      }
    ),
  };
  const channel = bus();
  const a = new RestoreGate({ locks, channel: channel() });
  const b = new RestoreGate({ locks: counting, channel: channel() });
  // A job's write with a conversation append inside it: one hold of the lock.
  assert.equal(await b.write(() => b.write(async () => 'inner ran')), 'inner ran');
  assert.equal(requests, 1);
  // Now a restore is asked for while the outer write holds the lock: the inner write must not
  // queue behind it (the restore waits for the outer write: that would never end).
  const outerStarted = deferred();
  const goOn = deferred();
  const outer = b.write(async () => {
    outerStarted.resolve();
    await goOn.promise;
    return b.write(async () => 'inner ran').catch((err) => err);
  });
  await outerStarted.promise;
  const restore = a.exclusive(async () => 'restored');
  goOn.resolve();
  const inner = await outer;
  assert.ok(inner instanceof RestoreInProgressError, 'the nested write is refused, not stuck');
  assert.equal(await restore, 'restored');
});

test('quietly: a tab that opens during a restore waits for its end before reading storage', async () => {
  const { a, b } = twoTabs();
  const inRestore = deferred();
  const finish = deferred();
  const order = /** @type {string[]} */ ([]);
  const restore = a.exclusive(async () => {
    inRestore.resolve();
    await finish.promise;
    order.push('restore done');
  });
  await inRestore.promise;
  const opening = b.quietly(async () => order.push('new tab reads'));
  await Promise.resolve();
  assert.deepEqual(order, []);
  finish.resolve();
  await Promise.all([restore, opening]);
  assert.deepEqual(order, ['restore done', 'new tab reads']);
});

test("gatedCoordination: the stores' cross-tab locks are taken inside the gate, so a restore holds them back", async () => {
  const { a, b } = twoTabs();
  /** @type {string[]} */
  const locked = [];
  const coordination = {
    withLock: async (/** @type {string} */ key, /** @type {() => Promise<unknown>} */ fn) => {
      locked.push(key);
      return fn();
    },
    publish: () => {},
    subscribe: () => () => {},
  };
  const gated = gatedCoordination(/** @type {any} */ (coordination), b); // any: a minimal Coordination
  assert.equal(await gated.withLock('memory:ws', async () => 'stored'), 'stored');
  const hold = deferred();
  const started = deferred();
  const restore = a.exclusive(async () => {
    started.resolve();
    await hold.promise;
  });
  await started.promise;
  await assert.rejects(
    gated.withLock('goals:ws', async () => 'never'),
    RestoreInProgressError,
  );
  assert.deepEqual(locked, ['memory:ws'], "the refused write never took the store's lock");
  hold.resolve();
  await restore;
});

test('a write that was already waiting for the lock when the restore was announced is refused when it gets it \
(it was meant for the replaced data)', async () => {
  const locks = new RwLocks();
  const channel = bus();
  const a = new RestoreGate({ locks, channel: channel() });
  const c = new RestoreGate({ locks, channel: channel() });
  const opener = new RestoreGate({ locks, channel: channel() });
  const holding = deferred();
  const release = deferred();
  // Something holds the lock exclusively (a tab opening while it checks for an interrupted restore).
  const quiet = opener.quietly(async () => {
    holding.resolve();
    await release.promise;
  });
  await holding.promise;
  let ran = false;
  const waiting = c.write(async () => {
    ran = true;
  });
  const restore = a.exclusive(async () => 'restored');
  release.resolve();
  await quiet;
  await assert.rejects(waiting, RestoreInProgressError);
  assert.equal(ran, false);
  assert.equal(await restore, 'restored');
});
