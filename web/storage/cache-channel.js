/**
 * How the read caches of one origin stay correct together: every `OpfsFileSystem` (this tab's,
 * another tab's, a worker's) joins one BroadcastChannel, and a write to a path some cache may keep
 * is announced there once it is on storage — the write's promise resolves only after every other
 * member has forgotten the path and said so (an ack). So when a write has finished, no cache
 * anywhere serves what it replaced: another tab that reads after it reads storage.
 *
 * Membership: each member holds a Web Lock named after its id for its lifetime. A member that
 * starts lists the locks held (`navigator.locks.query`), greets the others, and keeps nothing
 * (`onReady` not called yet) until each of them has answered — by then each knows it and waits for
 * its acks too. A member that goes away (tab closed, crashed, worker ended) lets go of its lock:
 * the others, waiting on that lock, are granted it and stop waiting for its acks. A page being
 * frozen keeps nothing meanwhile (`onSuspend`); a member that does not answer within
 * `ackTimeoutMs` (a page busy for seconds) is not waited for longer than that.
 * Without BroadcastChannel and Web Locks (Node) there are no others: nothing is announced.
 */

/** @typedef {{files?: string[], trees?: string[]}} Change what a write made old (see ReadCache.invalidate) */

/**
 * @typedef {object} CacheChannelOptions
 * @property {(change: Change) => void} onChange another member's write: forget what it made old
 * @property {() => void} [onReady] every member there was at the start has answered: keeping may begin
 * @property {() => void} [onSuspend] the page is being frozen: keep nothing until `onReady` again
 * @property {string} [name] the channel's and locks' name
 * @property {number} [ackTimeoutMs] how long a write waits for one member's ack at most
 * @property {typeof BroadcastChannel | null} [Channel] default the global one
 * @property {LockManager | null} [locks] default navigator.locks
 */

export class CacheChannel {
  #id = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
  /** @type {BroadcastChannel | null} */
  #channel = null;
  /** Members known (their ids). @type {Set<string>} */
  #peers = new Set();
  /** Members whose lock is waited on. @type {Set<string>} */
  #watched = new Set();
  /** Announcements waiting for acks, by number. @type {Map<number, {pending: Set<string>, done: () => void}>} */
  #waiting = new Map();
  #seq = 0;
  /** Resolves once this member holds its lock, knows the others and has greeted them. @type {Promise<void>} */
  #joined;
  /** Members there at the start that have not answered yet. @type {Set<string>} */
  #unanswered = new Set();
  #ready = false;
  #release = () => {};
  /** @type {() => void} */
  #readyNow = () => {};
  /** Resolves the first time keeping may begin. */
  #whenReady = new Promise((resolve) => {
    this.#readyNow = () => resolve(undefined);
  });

  /** @param {CacheChannelOptions} options */
  constructor(options) {
    this.options = options;
    this.name = options.name ?? 'clawser-read-cache';
    this.ackTimeoutMs = options.ackTimeoutMs ?? 2000;
    const Channel = options.Channel !== undefined ? options.Channel : (globalThis.BroadcastChannel ?? null);
    const locks = options.locks !== undefined ? options.locks : (globalThis.navigator?.locks ?? null);
    this.locks = locks;
    if (!Channel || !locks) {
      this.#joined = Promise.resolve();
      this.#becomeReady();
      return;
    }
    this.#joined = this.#join(Channel, locks).catch(() => {
      // No lock manager after all (an opaque origin): alone, as without one.
      this.#channel?.close();
      this.#channel = null;
      this.#becomeReady();
    });
    const doc = globalThis.document;
    doc?.addEventListener('freeze', () => {
      this.#ready = false;
      this.options.onSuspend?.();
    });
    // Back from frozen: what changed meanwhile was never kept; keep again from now on.
    doc?.addEventListener('resume', () => this.#becomeReady());
    globalThis.addEventListener?.('pagehide', () => this.#post({ t: 'bye', from: this.#id }));
  }

  /** This member's id. */
  get id() {
    return this.#id;
  }

  /** Whether keeping may begin (every member there at the start has answered). */
  get ready() {
    return this.#ready;
  }

  /** @param {typeof BroadcastChannel} Channel @param {LockManager} locks */
  async #join(Channel, locks) {
    const prefix = `${this.name}:`;
    await new Promise((held, failed) => {
      locks
        .request(`${prefix}${this.#id}`, () => {
          held(undefined);
          return new Promise((resolve) => {
            this.#release = () => resolve(undefined);
          });
        })
        .catch(failed);
    });
    const channel = new Channel(this.name);
    this.#channel = channel;
    channel.onmessage = (event) => this.#receive(event.data);
    const { held = [] } = await locks.query();
    for (const lock of held) {
      const id = lock.name?.startsWith(prefix) ? lock.name.slice(prefix.length) : null;
      if (id && id !== this.#id) {
        this.#unanswered.add(id);
        this.#meet(id);
      }
    }
    this.#post({ t: 'hello', from: this.#id });
    if (!this.#unanswered.size) this.#becomeReady();
    // A member that never answers (a frozen page) does not keep this one from caching for good.
    else setTimeout(() => this.#becomeReady(), this.ackTimeoutMs);
  }

  #becomeReady() {
    this.#unanswered.clear();
    if (this.#ready) return;
    this.#ready = true;
    this.options.onReady?.();
    this.#readyNow();
  }

  /** Resolves once keeping may begin the first time (the other members there at the start have answered). */
  whenReady() {
    return this.#whenReady;
  }

  /** Knows `id` from now on, and stops waiting for it once it is gone. @param {string} id */
  #meet(id) {
    this.#peers.add(id);
    if (this.#watched.has(id) || !this.locks) return;
    this.#watched.add(id);
    // Granted once the member lets go of its lock: it is gone (closed, crashed, ended).
    this.locks.request(`${this.name}:${id}`, () => this.#gone(id)).catch(() => this.#gone(id));
  }

  /** @param {string} id */
  #gone(id) {
    this.#peers.delete(id);
    this.#watched.delete(id);
    this.#answered(id);
    for (const [seq, w] of this.#waiting) this.#acked(seq, w, id);
  }

  /** @param {string} id */
  #answered(id) {
    if (this.#unanswered.delete(id) && !this.#unanswered.size) this.#becomeReady();
  }

  /** @param {number} seq @param {{pending: Set<string>, done: () => void}} w @param {string} id */
  #acked(seq, w, id) {
    w.pending.delete(id);
    if (w.pending.size) return;
    this.#waiting.delete(seq);
    w.done();
  }

  /** @param {unknown} message */
  #post(message) {
    try {
      this.#channel?.postMessage(message);
    } catch {
      // A closed channel: nobody to tell.
    }
  }

  /** @param {any} m a message of another member (any: checked field by field below) */
  #receive(m) {
    if (!m || typeof m.from !== 'string' || m.from === this.#id) return;
    if (m.t === 'hello') {
      this.#meet(m.from);
      this.#post({ t: 'here', from: this.#id, to: m.from });
    } else if (m.t === 'here' && m.to === this.#id) {
      this.#meet(m.from);
      this.#answered(m.from);
    } else if (m.t === 'change') {
      this.#meet(m.from);
      this.options.onChange({ files: toPaths(m.files), trees: toPaths(m.trees) });
      this.#post({ t: 'ack', from: this.#id, to: m.from, seq: m.seq });
    } else if (m.t === 'ack' && m.to === this.#id) {
      const w = this.#waiting.get(m.seq);
      if (w) this.#acked(m.seq, w, m.from);
    } else if (m.t === 'bye') {
      this.#gone(m.from);
    }
  }

  /**
   * Tells every other member what a finished write made old; resolves once each has forgotten it
   * (or is gone, or has not answered within ackTimeoutMs). At once when there is nobody.
   * @param {Change} change
   * @returns {Promise<void>}
   */
  async announce(change) {
    await this.#joined;
    if (!this.#peers.size || !this.#channel) return;
    const seq = ++this.#seq;
    const pending = new Set(this.#peers);
    /** @type {Promise<void>} */
    const acked = new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(seq);
        resolve();
      }, this.ackTimeoutMs);
      this.#waiting.set(seq, {
        pending,
        done: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
    this.#post({ t: 'change', from: this.#id, seq, files: change.files ?? [], trees: change.trees ?? [] });
    return acked;
  }

  /** Leaves the channel (tests; a page leaving lets go of everything anyway). */
  close() {
    this.#post({ t: 'bye', from: this.#id });
    this.#release();
    this.#channel?.close();
    this.#channel = null;
    for (const [seq, w] of this.#waiting) {
      this.#waiting.delete(seq);
      w.done();
    }
  }
}

/** @param {unknown} v @returns {string[]} */
const toPaths = (v) => (Array.isArray(v) ? v.filter((p) => typeof p === 'string') : []);
