/** @import { Coordination } from '../types.d.ts' */
/** @import { LockRequester } from './tabs.js' */
import { LocalLocks } from '../../storage/local-locks.js';

/**
 * A backup restore replaces everything in storage, so it must be exclusive across tabs (issue
 * 11 §5). Every storage write of the app's stores (conversation appends, memory flushes, goal
 * and scheduler writes, checkpoints) runs through `write()`, which holds the Web Lock
 * `${name}` in `shared` mode; the restore holds it `exclusive`, so it starts only once the
 * writes in flight in every tab have ended. Before asking for it the restoring tab announces
 * the restore on the tab channel: from then on every tab refuses new writes (code
 * `restore_in_progress`), its app stops its schedulers and shows a banner, and when the
 * restore ends it reloads (or resumes if the restore failed and rolled back).
 *
 * A write that was waiting for the lock behind the restore is refused when it gets it: it
 * was meant for the data the restore replaced. Within one tab, writes share one hold of the
 * shared lock (counted), so a write nested in another (a scheduled job appending to a
 * conversation) never waits for itself behind a pending restore.
 *
 * Limits: only what goes through `write()` is held back — a file a tool writes straight to the
 * workspace during a turn is not (the turn's next append is refused, which ends it). Without
 * Web Locks and BroadcastChannel there are no other tabs to hold back.
 */

/** A write refused because a backup is being restored (in this or another tab). */
export class RestoreInProgressError extends Error {
  /** @param {boolean} here the restore runs in this tab */
  constructor(here) {
    super(
      here
        ? 'A backup is being restored: nothing is saved until it has finished and the page has reloaded.'
        : 'A backup is being restored in another tab: this change was not saved. The page reloads when the restore has finished.',
    );
    this.name = 'RestoreInProgressError';
    this.code = 'restore_in_progress';
  }
}

/** @typedef {{phase: 'begin'} | {phase: 'end', ok: boolean}} RestoreNotice */

const TOPIC = 'backup-restore';

export class RestoreGate {
  /** @type {LockRequester} */ #locks;
  /** @type {Pick<Coordination, 'publish' | 'subscribe'> | null} */ #channel;
  #name;
  /** null, or where the restore runs. @type {'here' | 'elsewhere' | null} */
  #restoring = null;
  /** @type {Set<(notice: RestoreNotice) => void>} */
  #listeners = new Set();
  #holders = 0;
  /** Granted when this tab holds the shared lock. @type {Promise<void> | null} */
  #held = null;
  /** @type {(() => void) | null} */
  #release = null;

  /**
   * @param {{locks?: LockRequester | null, channel?: Pick<Coordination, 'publish' | 'subscribe'> | null, name?: string}} [options]
   *   locks: default `navigator.locks` (an in-process lock without it); channel: the tabs'
   *   pub/sub (TabCoordinator); name: the lock's name
   */
  constructor(options = {}) {
    this.#locks = options.locks ?? globalThis.navigator?.locks ?? new LocalLocks();
    this.#channel = options.channel ?? null;
    this.#name = options.name ?? 'clawser-restore';
    this.#channel?.subscribe(TOPIC, (data) => {
      const notice = /** @type {Partial<RestoreNotice> | null} */ (data);
      if (notice?.phase === 'begin') this.#restoring = 'elsewhere';
      else if (notice?.phase === 'end' && this.#restoring === 'elsewhere') {
        // After a successful restore this tab's data is stale: it stays closed until it reloads.
        if (!notice.ok) this.#restoring = null;
      } else return;
      this.#emit(/** @type {RestoreNotice} */ (notice));
    });
  }

  /** Where a restore is running as far as this tab knows: `here`, `elsewhere` or null. */
  get restoring() {
    return this.#restoring;
  }

  /** Calls `fn` when another tab begins or ends a restore. @param {(notice: RestoreNotice) => void} fn */
  subscribe(fn) {
    this.#listeners.add(fn);
    return () => {
      this.#listeners.delete(fn);
    };
  }

  /** @param {RestoreNotice} notice */
  #emit(notice) {
    for (const fn of [...this.#listeners]) {
      try {
        fn(notice);
      } catch (err) {
        console.error('Restore listener failed:', err);
      }
    }
  }

  #check() {
    if (this.#restoring) throw new RestoreInProgressError(this.#restoring === 'here');
  }

  /**
   * Runs a storage write unless a backup is being restored (then rejects with
   * RestoreInProgressError, before or after waiting for the lock). A restore waits for it.
   * @template T
   * @param {() => T | PromiseLike<T>} fn
   * @returns {Promise<Awaited<T>>}
   */
  async write(fn) {
    this.#check();
    this.#holders++;
    try {
      this.#held ??= new Promise((granted, failed) => {
        this.#locks
          .request(this.#name, { mode: 'shared' }, () => {
            granted();
            return new Promise((release) => {
              this.#release = () => release(undefined);
            });
          })
          .catch(failed);
      });
      await this.#held;
      this.#check();
      return await fn();
    } finally {
      if (--this.#holders === 0) {
        this.#held = null;
        this.#release?.();
        this.#release = null;
      }
    }
  }

  /**
   * Runs a restore exclusively: announces it (other tabs stop writing and show a banner),
   * waits until the writes in flight in every tab have ended, runs `fn`, and announces the
   * end with its outcome (other tabs reload, or resume when it failed).
   * @template T
   * @param {() => Promise<T>} fn
   * @returns {Promise<T>}
   */
  async exclusive(fn) {
    this.#restoring = 'here';
    this.#publish({ phase: 'begin' });
    let ok = false;
    try {
      const result = await this.#locks.request(this.#name, { mode: 'exclusive' }, fn);
      ok = true;
      return result;
    } finally {
      this.#publish({ phase: 'end', ok });
      // A failed restore changed nothing: this tab writes again. After a good one it reloads.
      if (!ok) this.#restoring = null;
    }
  }

  /**
   * Runs `fn` holding the lock exclusively without announcing anything: a tab that opens while
   * another restores waits for the end before it reads storage (and before it would take
   * the half-done restore for an interrupted one).
   * @template T
   * @param {() => Promise<T>} fn
   * @returns {Promise<T>}
   */
  async quietly(fn) {
    return /** @type {T} */ (await this.#locks.request(this.#name, { mode: 'exclusive' }, fn));
  }

  /** @param {RestoreNotice} notice */
  #publish(notice) {
    try {
      this.#channel?.publish(TOPIC, notice);
    } catch {
      // A closed coordinator: no other tab to tell.
    }
  }
}

/**
 * The coordination the stores get: its locks (conversation appends, memory, goals) are taken
 * inside `gate.write`, so a restore holds every one of them back.
 * @param {Coordination} coordination @param {RestoreGate} gate
 * @returns {Coordination}
 */
export function gatedCoordination(coordination, gate) {
  return {
    withLock: (key, fn) => gate.write(() => coordination.withLock(key, fn)),
    publish: (topic, data) => coordination.publish(topic, data),
    subscribe: (topic, fn) => coordination.subscribe(topic, fn),
  };
}
