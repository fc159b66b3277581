/** @import { CheckpointManager, CheckpointInfo, CheckpointInput, CheckpointState, SkippedCheckpoint } from './checkpoint.js' */

/**
 * The agent daemon's life cycle: a state machine with an explicit table of allowed
 * transitions, and `Daemon`, which drives it around a CheckpointManager (restore on start,
 * checkpoints while running). Pure: no DOM, no timers, no storage of its own — the clock,
 * the checkpoint store and the collect/restore callbacks are passed in.
 */

export const DaemonState = Object.freeze({
  STOPPED: 'stopped',
  STARTING: 'starting',
  RUNNING: 'running',
  CHECKPOINTING: 'checkpointing',
  RECOVERING: 'recovering',
  PAUSED: 'paused',
  ERROR: 'error',
});
/** @typedef {typeof DaemonState[keyof typeof DaemonState]} DaemonStateName */

const S = DaemonState;

/**
 * Every allowed transition; anything else is a bug in the caller and throws.
 * @type {Readonly<Record<DaemonStateName, readonly DaemonStateName[]>>}
 */
export const DAEMON_TRANSITIONS = Object.freeze({
  [S.STOPPED]: Object.freeze([S.STARTING]),
  [S.STARTING]: Object.freeze([S.RECOVERING, S.RUNNING, S.ERROR]),
  [S.RECOVERING]: Object.freeze([S.RUNNING, S.ERROR]),
  [S.RUNNING]: Object.freeze([S.CHECKPOINTING, S.PAUSED, S.STOPPED, S.ERROR]),
  [S.CHECKPOINTING]: Object.freeze([S.RUNNING, S.ERROR]),
  [S.PAUSED]: Object.freeze([S.RUNNING, S.STOPPED]),
  [S.ERROR]: Object.freeze([S.STARTING, S.STOPPED]),
});

/** @typedef {'invalid_transition' | 'restore_failed' | 'collect_failed'} DaemonErrorCode */

/** A daemon failure with a stable `code`. */
export class DaemonError extends Error {
  /** @param {DaemonErrorCode} code @param {string} message @param {{cause?: unknown}} [options] */
  constructor(code, message, options) {
    super(message, options);
    this.name = 'DaemonError';
    this.code = code;
  }
}

/** @typedef {{from: DaemonStateName, to: DaemonStateName, reason?: string, at: number}} DaemonTransition */

export class DaemonStateMachine {
  /** @type {DaemonStateName} */
  #state;
  /** @type {DaemonTransition[]} */
  #history = [];
  /** @type {Set<(t: DaemonTransition) => void>} */
  #listeners = new Set();

  /**
   * @param {{initial?: DaemonStateName, now?: () => number, historyLimit?: number, onListenerError?: (err: unknown) => void}} [options]
   */
  constructor(options = {}) {
    this.#state = options.initial ?? S.STOPPED;
    if (!(this.#state in DAEMON_TRANSITIONS)) throw new DaemonError('invalid_transition', `"${this.#state}" is not a daemon state.`);
    this.now = options.now ?? Date.now;
    this.historyLimit = options.historyLimit ?? 50;
    // A broken listener must not stop the transition or the other listeners.
    this.onListenerError = options.onListenerError ?? ((err) => console.error('Daemon state listener failed:', err));
  }

  get state() {
    return this.#state;
  }

  /** The last `historyLimit` transitions, oldest first. */
  get history() {
    return [...this.#history];
  }

  /** @param {DaemonStateName} to */
  can(to) {
    return DAEMON_TRANSITIONS[this.#state].includes(to);
  }

  /**
   * @param {DaemonStateName} to
   * @param {{reason?: string}} [options]
   * @returns {DaemonTransition}
   */
  transition(to, options = {}) {
    const from = this.#state;
    if (!this.can(to)) {
      const allowed = DAEMON_TRANSITIONS[from].join(', ');
      throw new DaemonError('invalid_transition', `The daemon cannot go from "${from}" to "${to}" (allowed from "${from}": ${allowed}).`);
    }
    /** @type {DaemonTransition} */
    const record = { from, to, at: this.now() };
    if (options.reason !== undefined) record.reason = options.reason;
    this.#state = to;
    this.#history.push(record);
    if (this.#history.length > this.historyLimit) this.#history.splice(0, this.#history.length - this.historyLimit);
    for (const fn of [...this.#listeners]) {
      try {
        fn(record);
      } catch (err) {
        this.onListenerError(err);
      }
    }
    return record;
  }

  /** @param {(t: DaemonTransition) => void} fn @returns {() => void} unsubscribe */
  subscribe(fn) {
    this.#listeners.add(fn);
    return () => {
      this.#listeners.delete(fn);
    };
  }
}

/**
 * What `start()` found: the checkpoint restored (if any), the turn that was running when the
 * previous tab stopped (so the app can say "your last request was interrupted" and offer
 * Retry: `bytes` is where the conversation's log stood when it started, so its request is the
 * first user message after that offset), and damaged checkpoint files that were skipped.
 * @typedef {{restored: CheckpointInfo | null, interrupted: {startedAt?: number, bytes?: number} | null, skipped: SkippedCheckpoint[]}}
 *   StartResult
 */

/**
 * @typedef {object} DaemonDeps
 * @property {Pick<CheckpointManager, 'save' | 'latest'>} checkpoints
 * @property {() => CheckpointInput | Promise<CheckpointInput>} collect the state to save now
 * @property {(state: CheckpointState, info: CheckpointInfo) => void | Promise<void>} restore applies a saved state at start
 * @property {() => number} [now]
 * @property {DaemonStateMachine} [machine]
 */

/**
 * Drives the state machine: start (restoring the newest checkpoint), checkpoint, pause,
 * resume, stop. A failure moves it to ERROR with the message as the reason; `start()` from
 * ERROR resumes. State that is live in memory is never overwritten by an older checkpoint:
 * only the first start (or a start after `stop()`) restores.
 */
export class Daemon {
  /** @type {Promise<StartResult> | null} */
  #starting = null;
  /** @type {Promise<CheckpointInfo> | null} */
  #inflight = null;
  /** @type {Promise<CheckpointInfo> | null} */
  #queued = null;
  /** True while the app's state in memory is the current one (restored or running). */
  #live = false;

  /** @param {DaemonDeps} deps */
  constructor(deps) {
    this.checkpoints = deps.checkpoints;
    this.collect = deps.collect;
    this.restoreState = deps.restore;
    this.machine = deps.machine ?? new DaemonStateMachine({ now: deps.now });
    /** The error that last put the daemon into ERROR. @type {Error | null} */
    this.error = null;
    /** @type {CheckpointInfo | null} */
    this.lastCheckpoint = null;
  }

  get state() {
    return this.machine.state;
  }

  /** @param {(t: DaemonTransition) => void} fn */
  subscribe(fn) {
    return this.machine.subscribe(fn);
  }

  /** @param {unknown} err @returns {never} */
  #fail(err) {
    const error = err instanceof Error ? err : new Error(String(err));
    this.error = error;
    if (this.machine.can(S.ERROR)) this.machine.transition(S.ERROR, { reason: error.message });
    throw error;
  }

  /**
   * STOPPED|ERROR → STARTING → (RECOVERING when a checkpoint exists and nothing is live) → RUNNING.
   * Damaged checkpoints are skipped and reported, never thrown; a storage failure or a failing
   * `restore` callback moves to ERROR and rejects.
   * @param {{restore?: boolean}} [options] restore: false starts without looking at checkpoints
   * @returns {Promise<StartResult>}
   */
  start(options = {}) {
    if (this.#starting) return this.#starting;
    try {
      this.machine.transition(S.STARTING, { reason: this.state === S.ERROR ? 'restart after error' : undefined });
    } catch (err) {
      return Promise.reject(err); // async API: a refused transition is a rejection, not a throw
    }
    this.#starting = this.#start(options.restore ?? true).finally(() => {
      this.#starting = null;
    });
    return this.#starting;
  }

  /** @param {boolean} wantRestore */
  async #start(wantRestore) {
    /** @type {StartResult} */
    const result = { restored: null, interrupted: null, skipped: [] };
    if (wantRestore && !this.#live) {
      let found;
      try {
        found = await this.checkpoints.latest();
      } catch (err) {
        return this.#fail(err);
      }
      result.skipped = found.skipped;
      const cp = found.checkpoint;
      if (cp) {
        this.machine.transition(S.RECOVERING, { reason: `checkpoint ${cp.info.id}` });
        try {
          await this.restoreState(cp.state, cp.info);
        } catch (err) {
          this.#fail(
            new DaemonError(
              'restore_failed',
              `The saved agent state (checkpoint ${cp.info.id}) could not be restored: ` +
                `${/** @type {Error} */ (err)?.message ?? String(err)}`,
              { cause: err },
            ),
          );
        }
        result.restored = cp.info;
        this.lastCheckpoint = cp.info;
        const turn = cp.state.turn;
        if (turn?.status === 'running') {
          /** @type {NonNullable<StartResult['interrupted']>} */
          const interrupted = {};
          if (turn.startedAt !== undefined) interrupted.startedAt = turn.startedAt;
          if (turn.bytes !== undefined) interrupted.bytes = turn.bytes;
          result.interrupted = interrupted;
        }
      }
    }
    this.#live = true;
    this.error = null;
    this.machine.transition(S.RUNNING);
    return result;
  }

  /**
   * RUNNING → CHECKPOINTING → RUNNING. A call while one is being written waits for it and then
   * writes one more (calls in between share it), so the newest state is always saved. A
   * failure (quota, collect error) moves to ERROR and rejects; earlier checkpoints stay.
   * @param {{reason?: string}} [options]
   * @returns {Promise<CheckpointInfo>}
   */
  checkpoint(options = {}) {
    if (this.#inflight) {
      this.#queued ??= this.#inflight
        .catch(() => {})
        .then(() => {
          this.#queued = null;
          // The one before failed: callers waiting for the next get that failure, not a
          // confusing "cannot go from error to checkpointing".
          if (this.state === S.ERROR && this.error) throw this.error;
          return this.checkpoint(options);
        });
      return this.#queued;
    }
    try {
      this.machine.transition(S.CHECKPOINTING, { reason: options.reason });
    } catch (err) {
      return Promise.reject(err);
    }
    this.#inflight = this.#checkpoint().finally(() => {
      this.#inflight = null;
    });
    return this.#inflight;
  }

  async #checkpoint() {
    let input;
    try {
      input = await this.collect();
    } catch (err) {
      return this.#fail(
        new DaemonError(
          'collect_failed',
          `The agent state could not be collected for a checkpoint: ${/** @type {Error} */ (err)?.message ?? String(err)}`,
          { cause: err },
        ),
      );
    }
    let info;
    try {
      info = await this.checkpoints.save(input);
    } catch (err) {
      return this.#fail(err);
    }
    this.lastCheckpoint = info;
    this.machine.transition(S.RUNNING);
    return info;
  }

  /** Waits for a checkpoint being written (its failure is already reported by it). */
  async #settle() {
    while (this.#inflight || this.#queued) await (this.#queued ?? this.#inflight)?.catch(() => {});
  }

  /** RUNNING → PAUSED (after a checkpoint being written). */
  async pause() {
    await this.#settle();
    this.machine.transition(S.PAUSED);
  }

  /** PAUSED → RUNNING. */
  resume() {
    this.machine.transition(S.RUNNING);
  }

  /**
   * → STOPPED from RUNNING, PAUSED or ERROR (no-op when stopped). With `checkpoint: true`
   * a RUNNING daemon saves first; if that fails it still stops, then rejects with the error.
   * @param {{checkpoint?: boolean, reason?: string}} [options]
   */
  async stop(options = {}) {
    if (this.#starting) await this.#starting.catch(() => {});
    await this.#settle();
    if (this.state === S.STOPPED) return;
    /** @type {unknown} */
    let failure = null;
    if (options.checkpoint && this.state === S.RUNNING) {
      await this.checkpoint({ reason: 'stop' }).catch((err) => {
        failure = err;
      });
    }
    this.machine.transition(S.STOPPED, { reason: options.reason });
    this.#live = false;
    if (failure) throw failure;
  }
}
