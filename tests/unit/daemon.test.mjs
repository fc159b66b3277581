// The daemon's state machine (every allowed transition, every refused one, listeners,
// history) and the Daemon driving it over a CheckpointManager on the memory file system.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DaemonState, DaemonStateMachine, DaemonError, DAEMON_TRANSITIONS, Daemon } from '../../web/agent/coordination/daemon.js';
import { CheckpointManager } from '../../web/agent/coordination/checkpoint.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { StorageError, QUOTA_MESSAGE } from '../../web/storage/errors.js';

/** @typedef {import('../../web/agent/coordination/daemon.js').DaemonStateName} DaemonStateName */
const S = DaemonState;
const ALL = /** @type {DaemonStateName[]} */ (Object.values(S));

const EXPECTED = {
  stopped: ['starting'],
  starting: ['recovering', 'running', 'error'],
  recovering: ['running', 'error'],
  running: ['checkpointing', 'paused', 'stopped', 'error'],
  checkpointing: ['running', 'error'],
  paused: ['running', 'stopped'],
  error: ['starting', 'stopped'],
};

test('state machine: the table is the documented one; every allowed transition works, every other one throws invalid_transition', () => {
  assert.deepEqual(Object.keys(DAEMON_TRANSITIONS).sort(), ALL.slice().sort());
  for (const from of ALL) assert.deepEqual([...DAEMON_TRANSITIONS[from]].sort(), [...EXPECTED[from]].sort(), from);
  let clock = 1000;
  for (const from of ALL) {
    for (const to of ALL) {
      const m = new DaemonStateMachine({ initial: from, now: () => ++clock });
      const allowed = EXPECTED[from].includes(to);
      assert.equal(m.can(to), allowed, `${from} → ${to}`);
      if (allowed) {
        const t = m.transition(to, { reason: 'because' });
        assert.deepEqual(t, { from, to, reason: 'because', at: clock });
        assert.equal(m.state, to);
      } else {
        assert.throws(
          () => m.transition(to),
          (/** @type {any} */ err) => {
            assert.ok(err instanceof DaemonError);
            assert.ok(err instanceof Error);
            assert.equal(err.code, 'invalid_transition');
            assert.match(err.message, new RegExp(`from "${from}" to "${to}"`));
            return true;
          },
        );
        assert.equal(m.state, from, 'a refused transition changes nothing');
        assert.equal(m.history.length, 0);
      }
    }
  }
  assert.throws(() => new DaemonStateMachine({ initial: /** @type {any} */ ('bogus') }), { code: 'invalid_transition' });
  assert.throws(() => new DaemonStateMachine().transition(/** @type {any} */ ('bogus')), { code: 'invalid_transition' });
});

test('state machine: listeners get {from, to, reason, at}, can unsubscribe, a throwing one does not stop the others; \
history keeps the last N', () => {
  let clock = 0;
  /** @type {unknown[]} */
  const listenerErrors = [];
  const m = new DaemonStateMachine({ now: () => (clock += 10), historyLimit: 3, onListenerError: (e) => listenerErrors.push(e) });
  assert.equal(m.state, S.STOPPED);
  /** @type {any[]} */
  const seen = [];
  m.subscribe(() => {
    throw new Error('broken listener');
  });
  const off = m.subscribe((t) => seen.push(t));
  m.transition(S.STARTING);
  m.transition(S.RUNNING, { reason: 'nothing to restore' });
  assert.deepEqual(seen, [
    { from: 'stopped', to: 'starting', at: 10 },
    { from: 'starting', to: 'running', reason: 'nothing to restore', at: 20 },
  ]);
  assert.equal(listenerErrors.length, 2);
  off();
  m.transition(S.PAUSED);
  m.transition(S.RUNNING);
  assert.equal(seen.length, 2, 'unsubscribed');
  assert.deepEqual(
    m.history.map((t) => `${t.from}>${t.to}@${t.at}`),
    ['starting>running@20', 'running>paused@30', 'paused>running@40'],
  );
  m.history.pop();
  assert.equal(m.history.length, 3, 'history is a copy');
});

/**
 * The app's state here is a log offset (`app.log`, what a checkpoint keeps of a conversation).
 * @param {{fs?: MemoryFileSystem, log?: number, turn?: any}} [options]
 */
function setup(options = {}) {
  const fs = options.fs ?? new MemoryFileSystem();
  let clock = Date.UTC(2026, 0, 1);
  const now = () => (clock += 1000);
  const checkpoints = new CheckpointManager({ fs, now });
  const app = { log: options.log ?? 4, turn: options.turn, restored: /** @type {any[]} */ ([]) };
  const daemon = new Daemon({
    checkpoints,
    now,
    collect: () => ({ workspaceId: 'ws', conversationId: 'c1', turn: app.turn ?? { status: 'idle', bytes: app.log } }),
    restore: (state, info) => {
      app.restored.push({ state, info });
      app.log = state.turn?.bytes ?? 0;
    },
  });
  /** @type {string[]} */
  const path = [];
  daemon.subscribe((t) => path.push(t.to));
  return { fs, checkpoints, daemon, app, path };
}

test('Daemon: start without a checkpoint goes STARTING → RUNNING; checkpoint goes through CHECKPOINTING; pause, resume, stop', async () => {
  const { daemon, app, path, checkpoints } = setup();
  const result = await daemon.start();
  assert.deepEqual(result, { restored: null, interrupted: null, skipped: [] });
  assert.deepEqual(path, ['starting', 'running']);
  assert.equal(app.restored.length, 0);
  const info = await daemon.checkpoint({ reason: 'turn finished' });
  assert.equal((await checkpoints.load(info.id)).state.turn?.bytes, 4);
  assert.deepEqual(daemon.lastCheckpoint, info);
  assert.deepEqual(path.slice(2), ['checkpointing', 'running']);
  assert.equal(daemon.machine.history.find((t) => t.to === 'checkpointing')?.reason, 'turn finished');
  await daemon.pause();
  await assert.rejects(daemon.checkpoint(), { code: 'invalid_transition' }, 'no checkpoint while paused');
  daemon.resume();
  await daemon.stop({ checkpoint: true });
  assert.deepEqual(path.slice(4), ['paused', 'running', 'checkpointing', 'running', 'stopped']);
  assert.equal((await checkpoints.list()).length, 2);
  await daemon.stop();
  assert.equal(daemon.state, S.STOPPED, 'stop is idempotent');
  assert.throws(() => daemon.resume(), { code: 'invalid_transition' });
});

test('Daemon: start with a checkpoint goes through RECOVERING and restores it; an interrupted turn is reported', async () => {
  const fs = new MemoryFileSystem();
  const first = setup({ fs, turn: { status: 'running', startedAt: 42, bytes: 6 } });
  await first.daemon.start();
  const saved = await first.daemon.checkpoint();
  // The tab is killed here (no stop): the next start finds the turn still running.
  const second = setup({ fs, log: 0 });
  const result = await second.daemon.start();
  assert.deepEqual(second.path, ['starting', 'recovering', 'running']);
  assert.deepEqual(result.restored, saved);
  assert.deepEqual(result.interrupted, { startedAt: 42, bytes: 6 });
  assert.equal(second.app.restored.length, 1);
  assert.equal(second.app.log, 6);
  assert.equal(second.app.restored[0].state.workspaceId, 'ws');
  // An idle turn is not an interruption.
  first.app.turn = { status: 'idle' };
  await first.daemon.checkpoint();
  assert.equal((await setup({ fs }).daemon.start()).interrupted, null);
  // restore: false skips the checkpoints.
  const third = setup({ fs });
  assert.equal((await third.daemon.start({ restore: false })).restored, null);
  assert.deepEqual(third.path, ['starting', 'running']);
});

test('Daemon: a failed checkpoint moves to ERROR with the message, keeps the previous checkpoint; \
start() from ERROR resumes without restoring over live state', async () => {
  const { fs, daemon, app, path, checkpoints } = setup();
  await daemon.start();
  const good = await daemon.checkpoint();
  app.log = 8;
  fs.failNextWrite = new StorageError('quota', QUOTA_MESSAGE);
  await assert.rejects(
    daemon.checkpoint(),
    (/** @type {any} */ err) => err.name === 'CheckpointError' && err.code === 'quota' && /storage is full/.test(err.message),
  );
  assert.equal(daemon.state, S.ERROR);
  assert.match(daemon.error?.message ?? '', /storage is full/);
  assert.match(daemon.machine.history.at(-1)?.reason ?? '', /storage is full/);
  assert.deepEqual(
    (await checkpoints.list()).map((c) => c.id),
    [good.id],
    'the previous checkpoint is intact',
  );
  assert.equal((await checkpoints.latest()).checkpoint?.state.turn?.bytes, 4);
  await assert.rejects(daemon.checkpoint(), { code: 'invalid_transition' });
  // Restart: the live state (8) must not be replaced by the older checkpoint (4).
  const result = await daemon.start();
  assert.equal(result.restored, null);
  assert.equal(app.restored.length, 0);
  assert.equal(daemon.error, null);
  assert.equal((await checkpoints.load((await daemon.checkpoint()).id)).state.turn?.bytes, 8);
  assert.deepEqual(path, [
    'starting',
    'running',
    'checkpointing',
    'running',
    'checkpointing',
    'error',
    'starting',
    'running',
    'checkpointing',
    'running',
  ]);
});

test('Daemon: collect and restore failures are typed; storage failure at start goes to ERROR; damaged checkpoints are reported, \
not thrown', async () => {
  const fs = new MemoryFileSystem();
  const a = setup({ fs });
  await a.daemon.start();
  a.app.turn = { status: 'robot' };
  await assert.rejects(a.daemon.checkpoint(), { name: 'CheckpointError', code: 'invalid_state' });
  assert.equal(a.daemon.state, S.ERROR);
  await a.daemon.stop();

  const broken = new Daemon({
    checkpoints: new CheckpointManager({ fs }),
    collect: () => {
      throw new Error('no conversation open');
    },
    restore: () => {
      throw new Error('unknown conversation');
    },
  });
  await broken.start();
  await assert.rejects(broken.checkpoint(), { name: 'DaemonError', code: 'collect_failed', message: /no conversation open/ });
  await broken.stop();
  // Give it a checkpoint to restore, then the restore callback fails.
  a.app.turn = undefined;
  a.app.log = 2;
  await a.daemon.start();
  await a.daemon.checkpoint();
  await assert.rejects(broken.start(), { name: 'DaemonError', code: 'restore_failed', message: /unknown conversation/ });
  assert.equal(broken.state, S.ERROR);
  assert.deepEqual(
    broken.machine.history.slice(-3).map((t) => t.to),
    ['starting', 'recovering', 'error'],
  );

  const failing = new Daemon({
    checkpoints: {
      latest: async () => {
        throw new StorageError('unavailable', 'Browser storage is not available here.');
      },
      save: async () => {
        throw new Error('unused');
      },
    },
    collect: () => ({ workspaceId: 'w' }),
    restore: () => {},
  });
  await assert.rejects(failing.start(), { code: 'unavailable' });
  assert.equal(failing.state, S.ERROR);

  // A damaged newest file: start restores the one before and reports the damaged one.
  const latestId = (await new CheckpointManager({ fs }).list())[0].id;
  await fs.write(`.checkpoints/${'zzzzzzzzz-0000'}.json`, '{"id": "zzzz');
  const b = setup({ fs });
  const result = await b.daemon.start();
  assert.equal(result.restored?.id, latestId);
  assert.equal(result.skipped.length, 1);
  assert.match(result.skipped[0].reason, /not valid JSON/);
  assert.equal(b.daemon.state, S.RUNNING);
});

test('Daemon: checkpoints requested while one is written are coalesced into one more; pause and stop wait for it', async () => {
  const { daemon, app, checkpoints } = setup();
  await daemon.start();
  const p1 = daemon.checkpoint();
  app.log = 5;
  const p2 = daemon.checkpoint();
  const p3 = daemon.checkpoint();
  assert.equal(p2, p3, 'calls while one is in flight share the next one');
  const [a, b] = await Promise.all([p1, p2]);
  assert.notEqual(a.id, b.id);
  assert.equal((await checkpoints.load(b.id)).state.turn?.bytes, 5, 'the queued one saved the newest state');
  assert.equal((await checkpoints.list()).length, 2);
  daemon.checkpoint();
  await daemon.pause();
  assert.equal(daemon.state, S.PAUSED);
  assert.equal((await checkpoints.list()).length, 3);
  daemon.resume();
  daemon.checkpoint();
  await daemon.stop();
  assert.equal(daemon.state, S.STOPPED);
  assert.equal((await checkpoints.list()).length, 4);
  // When the one being written fails, the queued callers get its error.
  app.log = 1;
  await daemon.start();
  daemon.checkpoints = {
    latest: checkpoints.latest.bind(checkpoints),
    save: async () => {
      throw new StorageError('quota', QUOTA_MESSAGE);
    },
  };
  const failing = daemon.checkpoint();
  const queued = daemon.checkpoint();
  await assert.rejects(failing, { code: 'quota' });
  await assert.rejects(queued, { code: 'quota' });
  await daemon.stop();
  daemon.checkpoints = checkpoints;
  // Concurrent starts share one.
  const s1 = daemon.start();
  assert.equal(daemon.start(), s1);
  await s1;
  assert.equal(daemon.state, S.RUNNING);
});
