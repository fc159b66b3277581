// Why this file is long: leadership, presence and the stores' lock and publish primitives share one
//  BroadcastChannel and one lock namespace, and the freeze/resume hand-over touches all three; it
//  is just over the line.
/**
 * Coordination between the tabs of one origin (issue 6, "Daemon and tabs").
 *
 * - Leadership: every tab asks for the exclusive Web Lock `${name}-leader` and, once granted,
 *   holds it until `close()` or until the page goes away; the browser then grants it to the
 *   next waiting tab (a crash releases it too), so there is always at most one leader and a
 *   successor takes over as soon as the old one is gone. A page the browser freezes (hidden
 *   tab, back/forward cache) hands leadership on and asks again when it resumes.
 * - Presence: hello / heartbeat / bye over the BroadcastChannel `${name}-tabs`; a peer not
 *   heard from for 3 beats is dropped (`PeerTable`, pure, clock passed in).
 * - Primitives for the stores: `withLock` (exclusive Web Lock `${name}:${key}`), `publish` /
 *   `subscribe` on the same channel, and `runOnce` for jobs that must fire once across tabs.
 *
 * Without Web Locks or BroadcastChannel (node, old browsers) the coordinator runs in `single`
 * mode: this tab is the leader, locks are an in-process queue and nothing is sent. The module
 * imports only web/storage/local-locks.js (which imports nothing), so a page without the import map,
 * a worker or the service worker can load it.
 */
import { LocalLocks } from '../../storage/local-locks.js';

/** @typedef {'closed' | 'invalid_argument'} TabErrorCode */

/** A coordination failure with a stable `code`. */
export class TabError extends Error {
  /** @param {TabErrorCode} code @param {string} message @param {{cause?: unknown}} [options] */
  constructor(code, message, options) {
    super(message, options);
    this.name = 'TabError';
    this.code = code;
  }
}

/** What a tab announces about itself. @typedef {{id: string, leader: boolean, label?: string, startedAt: number}} TabInfo */
/** A peer as this tab last heard it. @typedef {TabInfo & {lastSeen: number}} PeerInfo */

/**
 * Messages on the channel. Every message carries the sender's `id`.
 * @typedef {({v: 1, kind: 'hello' | 'beat'} & TabInfo)
 *   | {v: 1, kind: 'bye', id: string}
 *   | {v: 1, kind: 'msg', id: string, topic: string, data: unknown}} TabMessage
 */

const MAX_ID = 100;
const MAX_LABEL = 200;
const MAX_TOPIC = 200;

/** @param {unknown} s @param {number} max */
const isText = (s, max) => typeof s === 'string' && s.length > 0 && s.length <= max;

/**
 * Checks a message received from the channel. Anything another script (or an older version of
 * this module) might post on the same channel name is returned as null and ignored.
 * @param {unknown} raw
 * @returns {TabMessage | null}
 */
export function parseMessage(raw) {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const m = /** @type {Record<string, unknown>} */ (raw);
  if (m.v !== 1 || !isText(m.id, MAX_ID)) return null;
  const id = /** @type {string} */ (m.id);
  switch (m.kind) {
    case 'hello':
    case 'beat': {
      if (typeof m.leader !== 'boolean' || typeof m.startedAt !== 'number' || !Number.isFinite(m.startedAt)) return null;
      if (m.label !== undefined && !(typeof m.label === 'string' && m.label.length <= MAX_LABEL)) return null;
      /** @type {TabMessage} */
      const msg = { v: 1, kind: m.kind, id, leader: m.leader, startedAt: m.startedAt };
      if (typeof m.label === 'string') msg.label = m.label;
      return msg;
    }
    case 'bye':
      return { v: 1, kind: 'bye', id };
    case 'msg':
      if (!isText(m.topic, MAX_TOPIC) || !('data' in m)) return null;
      return { v: 1, kind: 'msg', id, topic: /** @type {string} */ (m.topic), data: m.data };
    default:
      return null;
  }
}

/**
 * The peers this tab knows about: pure bookkeeping, the clock is passed in.
 */
export class PeerTable {
  /** @type {Map<string, PeerInfo>} */
  #peers = new Map();
  #staleAfterMs;

  /** @param {{staleAfterMs: number}} options a peer silent for longer than this is pruned */
  constructor({ staleAfterMs }) {
    this.#staleAfterMs = staleAfterMs;
  }

  /**
   * Records a hello or heartbeat. True when the list changed (a new peer, or its leader flag or
   * label changed) — not for a mere refresh.
   * @param {TabInfo} tab @param {number} now
   */
  seen(tab, now) {
    const prev = this.#peers.get(tab.id);
    let changed = !prev || prev.leader !== tab.leader || prev.label !== tab.label || prev.startedAt !== tab.startedAt;
    if (tab.leader) changed = this.markLeader(tab.id) || changed;
    /** @type {PeerInfo} */
    const peer = { id: tab.id, leader: tab.leader, startedAt: tab.startedAt, lastSeen: now };
    if (tab.label !== undefined) peer.label = tab.label;
    this.#peers.set(tab.id, peer);
    return changed;
  }

  /** Any message from a known peer shows it is alive. @param {string} id @param {number} now */
  touch(id, now) {
    const p = this.#peers.get(id);
    if (p) p.lastSeen = now;
  }

  /**
   * Only one tab can hold the leader lock, so when `id` (a peer, this tab, or null for nobody
   * known) leads, every other peer's stale leader flag is cleared. True when a flag changed.
   * @param {string | null} id
   */
  markLeader(id) {
    let changed = false;
    for (const p of this.#peers.values()) {
      if (p.id !== id && p.leader) {
        p.leader = false;
        changed = true;
      }
    }
    return changed;
  }

  /** @param {string} id @returns {boolean} whether it was known */
  remove(id) {
    return this.#peers.delete(id);
  }

  /** Drops the peers not heard from for longer than the limit. @param {number} now @returns {string[]} the dropped ids */
  prune(now) {
    /** @type {string[]} */
    const dropped = [];
    for (const p of this.#peers.values()) {
      if (now - p.lastSeen > this.#staleAfterMs) dropped.push(p.id);
    }
    for (const id of dropped) this.#peers.delete(id);
    return dropped;
  }

  /** Oldest tab first. @returns {PeerInfo[]} */
  list() {
    return [...this.#peers.values()].map((p) => ({ ...p })).sort((a, b) => a.startedAt - b.startedAt || (a.id < b.id ? -1 : 1));
  }

  clear() {
    this.#peers.clear();
  }
}

/** @typedef {import('../../storage/local-locks.js').LockRequester} LockRequester */

/**
 * @typedef {{
 *   postMessage(message: unknown): void,
 *   close(): void,
 *   addEventListener(type: 'message', listener: (event: MessageEvent) => void): void,
 * }} Channel
 */

/** @typedef {{addEventListener: EventTarget['addEventListener'], removeEventListener: EventTarget['removeEventListener']}} Listenable */

/**
 * @typedef {object} TabCoordinatorOptions
 * @property {string} [name] prefix of the lock and channel names (default `clawser`): tabs with the same name coordinate
 * @property {string} [label] shown to peers (e.g. the open workspace)
 * @property {number} [heartbeatMs] presence beat (default 1000); a peer silent for 3 beats is dropped
 * @property {string} [id] this tab's id (default `crypto.randomUUID()`)
 * @property {LockRequester | null} [locks] default `navigator.locks`; null forces `single` mode
 * @property {(new (name: string) => Channel) | null} [BroadcastChannel] default the global one; null forces `single` mode
 * @property {() => number} [now] clock (ms)
 * @property {(fn: () => void, ms: number) => () => void} [every] starts a repeating timer, returns its stop function
 * @property {Listenable | null} [pageEvents] where `pagehide`/`pageshow` arrive (default the window)
 * @property {Listenable | null} [documentEvents] where `freeze`/`resume` arrive (default the document)
 * @property {(err: unknown) => void} [onError] a listener threw or the lock request failed (default `reportError`)
 */

/** @param {() => void} fn @param {number} ms */
const defaultEvery = (fn, ms) => {
  const timer = setInterval(fn, ms);
  return () => clearInterval(timer);
};

/** @param {unknown} err */
const defaultOnError = (err) => {
  if (typeof globalThis.reportError === 'function') globalThis.reportError(err);
  else console.error(err);
};

/**
 * @template T
 * @typedef {{ran: true, value: T} | {ran: false, reason: 'not_leader' | 'not_due'}} RunOnceResult
 */

export class TabCoordinator {
  /** @type {'web-locks' | 'single'} */
  mode;
  /** This tab's id. */
  id;
  /** When this coordinator started (ms, from the clock). */
  startedAt;
  heartbeatMs;

  #name;
  /** @type {string | undefined} */
  #label;
  #now;
  #onError;
  /** @type {LockRequester} */
  #locks;
  /** @type {Channel | null} */
  #channel = null;
  #table;
  #leader = false;
  #closed = false;
  #frozen = false;
  /** @type {(() => void) | null} */
  #stopBeats = null;
  /** Aborts the pending leader request. @type {AbortController | null} */
  #abortLeader = null;
  /** Releases the held leader lock. @type {(() => void) | null} */
  #releaseLeader = null;
  /** @type {Promise<unknown>} */
  #leaderRequest = Promise.resolve();
  /** @type {Array<{resolve: () => void, reject: (err: unknown) => void}>} */
  #leaderWaiters = [];
  /** @type {Set<(isLeader: boolean) => void>} */
  #leaderListeners = new Set();
  /** @type {Set<(peers: PeerInfo[]) => void>} */
  #peerListeners = new Set();
  /** @type {Map<string, Set<(data: unknown, from: string) => void>>} */
  #topics = new Map();
  /** @type {Listenable | null} */
  #pageEvents = null;
  /** @type {Listenable | null} */
  #documentEvents = null;

  /** @param {TabCoordinatorOptions} [options] */
  constructor(options = {}) {
    const name = options.name ?? 'clawser';
    if (!/^[\w.-]{1,100}$/.test(name))
      throw new TabError('invalid_argument', `The coordinator name "${name}" must be 1–100 letters, digits, "_", "-" or ".".`);
    const heartbeatMs = options.heartbeatMs ?? 1000;
    if (!Number.isFinite(heartbeatMs) || heartbeatMs < 10)
      throw new TabError('invalid_argument', 'heartbeatMs must be a number of at least 10 (milliseconds).');
    if (options.label !== undefined) checkLabel(options.label);
    this.#name = name;
    this.#label = options.label;
    this.#now = options.now ?? Date.now;
    this.#onError = options.onError ?? defaultOnError;
    this.id = options.id ?? crypto.randomUUID();
    if (!isText(this.id, MAX_ID)) throw new TabError('invalid_argument', `A tab id must be 1–${MAX_ID} characters.`);
    this.startedAt = this.#now();
    this.heartbeatMs = heartbeatMs;
    this.#table = new PeerTable({ staleAfterMs: 3 * heartbeatMs });

    const locks = options.locks !== undefined ? options.locks : (globalThis.navigator?.locks ?? null);
    const Channel = options.BroadcastChannel !== undefined ? options.BroadcastChannel : (globalThis.BroadcastChannel ?? null);
    if (!locks || !Channel) {
      // Nothing to coordinate with: this tab is the only one we can know about.
      this.mode = 'single';
      this.#locks = new LocalLocks();
      this.#leader = true;
      return;
    }
    this.mode = 'web-locks';
    this.#locks = locks;
    this.#channel = new Channel(`${name}-tabs`);
    this.#channel.addEventListener('message', (event) => this.#receive(event.data));
    this.#send(this.#announce('hello'));
    this.#stopBeats = (options.every ?? defaultEvery)(() => this.#beat(), heartbeatMs);
    this.#pageEvents =
      options.pageEvents !== undefined ? options.pageEvents : typeof globalThis.addEventListener === 'function' ? globalThis : null;
    this.#pageEvents?.addEventListener('pagehide', this.#onPageHide);
    this.#pageEvents?.addEventListener('pageshow', this.#onPageShow);
    this.#documentEvents = options.documentEvents !== undefined ? options.documentEvents : (globalThis.document ?? null);
    this.#documentEvents?.addEventListener('freeze', this.#onFreeze);
    this.#documentEvents?.addEventListener('resume', this.#onResume);
    this.#requestLeadership();
  }

  /** Whether this tab is the leader now. */
  get isLeader() {
    return this.#leader;
  }

  /** The leader's id as far as this tab knows (null while unknown, e.g. right after the leader vanished). */
  get leaderId() {
    if (this.#leader) return this.id;
    return this.#table.list().find((p) => p.leader)?.id ?? null;
  }

  get closed() {
    return this.#closed;
  }

  /** What this tab announces. @returns {TabInfo} */
  info() {
    /** @type {TabInfo} */
    const tab = { id: this.id, leader: this.#leader, startedAt: this.startedAt };
    if (this.#label !== undefined) tab.label = this.#label;
    return tab;
  }

  /** The other live tabs, oldest first. */
  peers() {
    return this.#table.list();
  }

  /** @param {string | undefined} label */
  setLabel(label) {
    if (label !== undefined) checkLabel(label);
    this.#label = label;
    if (!this.#closed) this.#send(this.#announce('beat'));
  }

  /**
   * Calls `fn(isLeader)` whenever this tab gains or loses leadership. A tab loses it on
   * `close()`, and when the browser freezes the page (`freeze` event, or entering the
   * back/forward cache) — it asks again on `resume`. @param {(isLeader: boolean) => void} fn @returns {() => void} unsubscribe
   */
  onLeaderChange(fn) {
    this.#leaderListeners.add(fn);
    return () => this.#leaderListeners.delete(fn);
  }

  /** Calls `fn(peers)` when a peer appears, leaves or changes. @param {(peers: PeerInfo[]) => void} fn @returns {() => void} unsubscribe */
  onPeersChange(fn) {
    this.#peerListeners.add(fn);
    return () => this.#peerListeners.delete(fn);
  }

  /** Resolves once this tab is the leader; rejects with `closed` if it is closed first. @returns {Promise<void>} */
  whenLeader() {
    if (this.#closed) return Promise.reject(new TabError('closed', 'This tab coordinator is closed.'));
    if (this.#leader) return Promise.resolve();
    return new Promise((resolve, reject) => this.#leaderWaiters.push({ resolve, reject }));
  }

  /**
   * Runs `fn` while holding the exclusive lock `${name}:${key}` across all tabs of the origin
   * (in `single` mode: across callers in this tab) and returns its result; its error is
   * rethrown. Callers of the same key run one at a time, in arrival order. Do not call
   * `withLock` for the same key from inside `fn`: it would wait for itself.
   * @template T
   * @param {string} key
   * @param {() => T | PromiseLike<T>} fn
   * @returns {Promise<Awaited<T>>}
   */
  withLock(key, fn) {
    if (!isText(key, MAX_TOPIC)) return Promise.reject(new TabError('invalid_argument', `A lock key must be 1–${MAX_TOPIC} characters.`));
    return this.#locks.request(`${this.#name}:${key}`, { mode: 'exclusive' }, () => fn());
  }

  /**
   * Sends `data` (anything structured-clonable) to the subscribers of `topic` in the OTHER tabs;
   * this tab's own subscribers are not called. A no-op in `single` mode.
   * @param {string} topic @param {unknown} data
   */
  publish(topic, data) {
    if (!isText(topic, MAX_TOPIC)) throw new TabError('invalid_argument', `A topic must be 1–${MAX_TOPIC} characters.`);
    if (this.#closed) throw new TabError('closed', 'This tab coordinator is closed.');
    if (!this.#channel) return;
    try {
      this.#channel.postMessage({ v: 1, kind: 'msg', id: this.id, topic, data });
    } catch (err) {
      throw new TabError(
        'invalid_argument',
        `The data published on "${topic}" cannot be sent to other tabs (it must be structured-clonable).`,
        { cause: err },
      );
    }
  }

  /**
   * Calls `fn(data, fromTabId)` for each message another tab publishes on `topic`.
   * @param {string} topic @param {(data: unknown, from: string) => void} fn @returns {() => void} unsubscribe
   */
  subscribe(topic, fn) {
    if (!isText(topic, MAX_TOPIC)) throw new TabError('invalid_argument', `A topic must be 1–${MAX_TOPIC} characters.`);
    let set = this.#topics.get(topic);
    if (!set) this.#topics.set(topic, (set = new Set()));
    set.add(fn);
    return () => {
      set.delete(fn);
      if (!set.size && this.#topics.get(topic) === set) this.#topics.delete(topic);
    };
  }

  /**
   * Runs a job occurrence at most once across tabs, even during a leadership handover.
   *
   * Only the leader runs it (unless `leaderOnly: false`), and it runs under the lock
   * `run-once:${key}`, so a job still running in an old leader's tab blocks the new leader
   * until it finishes. The contract that makes this exact:
   * - `key` names the job (e.g. `${workspaceId}:${jobId}`), so every attempt at it shares a lock;
   * - `isDue()` runs INSIDE the lock and must re-read the persisted "last run" state (from OPFS or
   *   localStorage, not an in-memory copy made before the call) and answer whether this
   *   occurrence still has to run;
   * - `run()` must persist that the occurrence ran before it resolves — write the marker first
   *   for at-most-once (a tab killed mid-run leaves it done), or last for at-least-once.
   * @template T
   * @param {string} key
   * @param {{isDue: () => boolean | PromiseLike<boolean>, run: () => T | PromiseLike<T>, leaderOnly?: boolean}} job
   * @returns {Promise<RunOnceResult<Awaited<T>>>}
   */
  async runOnce(key, { isDue, run, leaderOnly = true }) {
    if (!isText(key, MAX_TOPIC - 9)) throw new TabError('invalid_argument', `A job key must be 1–${MAX_TOPIC - 9} characters.`);
    /** @type {RunOnceResult<Awaited<T>>} */
    const notLeader = { ran: false, reason: 'not_leader' };
    if (leaderOnly && !this.#leader) return notLeader;
    return this.withLock(`run-once:${key}`, async () => {
      // Leadership may have ended (close) while waiting for the lock.
      if (leaderOnly && !this.#leader) return notLeader;
      if (!(await isDue())) return /** @type {RunOnceResult<Awaited<T>>} */ ({ ran: false, reason: 'not_due' });
      return /** @type {RunOnceResult<Awaited<T>>} */ ({ ran: true, value: await run() });
    });
  }

  /**
   * Says bye, gives up leadership (the next waiting tab takes over), closes the channel and
   * stops the timers. Resolves when the leader lock is released. Idempotent.
   * @returns {Promise<void>}
   */
  async close() {
    if (this.#closed) return;
    this.#closed = true;
    this.#stopBeats?.();
    this.#pageEvents?.removeEventListener('pagehide', this.#onPageHide);
    this.#pageEvents?.removeEventListener('pageshow', this.#onPageShow);
    this.#documentEvents?.removeEventListener('freeze', this.#onFreeze);
    this.#documentEvents?.removeEventListener('resume', this.#onResume);
    if (this.#channel) {
      this.#send({ v: 1, kind: 'bye', id: this.id });
      this.#channel.close();
    }
    // Bye first, then the lock: peers forget the old leader before a new one announces itself.
    this.#abortLeader?.abort();
    this.#releaseLeader?.();
    const wasLeader = this.#leader;
    this.#leader = false;
    const closedError = new TabError('closed', 'This tab coordinator is closed.');
    for (const w of this.#leaderWaiters.splice(0)) w.reject(closedError);
    if (wasLeader) this.#emitLeader(false);
    this.#table.clear();
    this.#leaderListeners.clear();
    this.#peerListeners.clear();
    this.#topics.clear();
    await this.#leaderRequest;
  }

  #requestLeadership() {
    const abort = new AbortController();
    this.#abortLeader = abort;
    this.#releaseLeader = null;
    this.#leaderRequest = this.#locks
      .request(`${this.#name}-leader`, { mode: 'exclusive', signal: abort.signal }, () => {
        // Granted after we gave up (closed, or frozen and since resumed): pass it on.
        if (this.#closed || abort.signal.aborted) return undefined;
        // Held for as long as this tab leads: released by close() or by the page going away.
        return new Promise((resolve) => {
          this.#releaseLeader = () => resolve(undefined);
          this.#setLeader(true);
        });
      })
      .catch((err) => {
        if (!abort.signal.aborted) this.#onError(err);
      });
  }

  /**
   * Gives up leadership (or the place in the queue for it) without closing: a frozen page
   * keeps its locks but runs nothing, so it must not keep the scheduler from the other tabs.
   */
  #stepDown() {
    this.#abortLeader?.abort();
    this.#releaseLeader?.();
    this.#abortLeader = null;
    this.#releaseLeader = null;
    if (this.#leader) {
      this.#leader = false;
      this.#emitLeader(false);
    }
  }

  /** @param {boolean} leader */
  #setLeader(leader) {
    if (this.#leader === leader || this.#closed) return;
    this.#leader = leader;
    const peersChanged = leader && this.#table.markLeader(null);
    this.#send(this.#announce('beat'));
    if (leader) for (const w of this.#leaderWaiters.splice(0)) w.resolve();
    this.#emitLeader(leader);
    if (peersChanged) this.#emitPeers();
  }

  #beat() {
    if (this.#closed || this.#frozen) return;
    this.#send(this.#announce('beat'));
    if (this.#table.prune(this.#now()).length) this.#emitPeers();
  }

  /** @param {'hello' | 'beat'} kind @returns {TabMessage} */
  #announce(kind) {
    return { v: 1, kind, ...this.info() };
  }

  /** @param {TabMessage} msg */
  #send(msg) {
    try {
      this.#channel?.postMessage(msg);
    } catch (err) {
      // Only our own small objects go through here; a closed channel is the one expected failure.
      if (!this.#closed) this.#onError(err);
    }
  }

  /** @param {unknown} raw */
  #receive(raw) {
    if (this.#closed) return;
    const msg = parseMessage(raw);
    if (!msg || msg.id === this.id) return;
    const now = this.#now();
    switch (msg.kind) {
      case 'hello':
      case 'beat': {
        /** @type {TabInfo} */
        const tab = { id: msg.id, leader: msg.leader, startedAt: msg.startedAt };
        if (msg.label !== undefined) tab.label = msg.label;
        // A peer claiming leadership while this tab holds the lock is an out-of-date message.
        if (tab.leader && this.#leader) tab.leader = false;
        const changed = this.#table.seen(tab, now);
        // Answer a newcomer at once so it need not wait a beat to learn about this tab.
        if (msg.kind === 'hello' && !this.#frozen) this.#send(this.#announce('beat'));
        if (changed) this.#emitPeers();
        break;
      }
      case 'bye':
        if (this.#table.remove(msg.id)) this.#emitPeers();
        break;
      case 'msg':
        this.#table.touch(msg.id, now);
        for (const fn of [...(this.#topics.get(msg.topic) ?? [])]) this.#call(() => fn(msg.data, msg.id));
        break;
    }
  }

  /** @param {boolean} leader */
  #emitLeader(leader) {
    for (const fn of [...this.#leaderListeners]) this.#call(() => fn(leader));
  }

  #emitPeers() {
    const list = this.#table.list();
    for (const fn of [...this.#peerListeners]) this.#call(() => fn(list));
  }

  /** A listener's failure must not stop the others or the coordinator. @param {() => void} fn */
  #call(fn) {
    try {
      fn();
    } catch (err) {
      this.#onError(err);
    }
  }

  /** @param {Event} event */
  #onPageHide = (event) => {
    if (this.#closed) return;
    // Leaving: peers drop this tab now rather than after 3 beats (the browser frees its locks).
    // Into the back/forward cache: the page will be frozen, so also hand leadership on.
    if (/** @type {PageTransitionEvent} */ (event).persisted) this.#onFreeze();
    else this.#send({ v: 1, kind: 'bye', id: this.id });
  };

  /** @param {Event} event */
  #onPageShow = (event) => {
    if (/** @type {PageTransitionEvent} */ (event).persisted) this.#onResume();
  };

  #onFreeze = () => {
    if (this.#closed || this.#frozen) return;
    this.#frozen = true;
    this.#send({ v: 1, kind: 'bye', id: this.id });
    this.#stepDown();
  };

  #onResume = () => {
    if (this.#closed || !this.#frozen) return;
    this.#frozen = false;
    this.#send(this.#announce('hello'));
    this.#requestLeadership();
  };
}

/** @param {unknown} label */
function checkLabel(label) {
  if (typeof label !== 'string' || label.length > MAX_LABEL)
    throw new TabError('invalid_argument', `A tab label must be a string of at most ${MAX_LABEL} characters.`);
}
