/** @import { EmbedderLike, EmbeddingState } from './store.js' */
/** @import { EmbedderStatus } from './embed-core.js' */

/** Embedder errors that mean "not now" (the queue waits for the next 'ready'), not "bad text". */
const UNAVAILABLE = new Set(['not_ready', 'model_missing', 'load_failed', 'wrong_dimensions', 'worker_failed', 'aborted', 'unsupported']);

/**
 * The memories waiting for a vector, embedded in the background in small batches (a query
 * overtakes them), one at a time after a batch failed, and given up on (until their text
 * changes) when the model fails on them alone. Knows ids and texts only: what a vector is for
 * is the store's business (`deps.accept`).
 */
export class EmbeddingQueue {
  /** @type {EmbedderLike | null} */
  #embedder = null;
  /** @type {(() => void) | null} */
  #unsubscribe = null;
  /** Ids without a vector, in the order they will be embedded. @type {Set<string>} */
  #waiting = new Set();
  /** Ids to embed one at a time (their batch failed). @type {Set<string>} */
  #single = new Set();
  /** Ids the model failed on; retried when their text changes. @type {Set<string>} */
  #failed = new Set();
  #running = false;
  #runScheduled = false;
  #done = 0;
  /** @type {Set<(state: EmbeddingState) => void>} */
  #listeners = new Set();
  #notifyScheduled = false;

  /**
   * @param {{textOf: (id: string) => string | null, dimensions: number, batchSize: number, batchChars: number,
   *   started: () => boolean, vectors: () => number,
   *   accept: (id: string, text: string, vector: Float32Array) => Uint8Array,
   *   persist: (records: Uint8Array[]) => void, onReady?: (status: EmbedderStatus) => void}} deps
   *   textOf: a memory's text now (null: gone); started: the store has loaded (nothing runs before);
   *   vectors: how many memories have one; accept: stores a vector, returns its record (throws when unusable);
   *   persist: writes records; onReady: the embedder became ready (its model may differ from the stored vectors')
   */
  constructor(deps) {
    this.deps = deps;
  }

  get embedder() {
    return this.#embedder;
  }

  /** Uses `embedder` (null detaches); the queue starts when it reports ready. @param {EmbedderLike | null} embedder */
  attach(embedder) {
    this.#unsubscribe?.();
    this.#unsubscribe = null;
    this.#embedder = embedder;
    if (embedder) {
      this.#unsubscribe = embedder.subscribe((status) => {
        if (status.state === 'ready' && status.model) this.deps.onReady?.(status);
        this.schedule();
        this.notify();
      });
    }
    this.notify();
  }

  /** Ready, with vectors of the size the index holds. */
  ready() {
    const status = this.#embedder?.status;
    return status?.state === 'ready' && (!status.model || status.model.dimensions === this.deps.dimensions);
  }

  /** A memory needs a (new) vector. @param {string} id */
  add(id) {
    this.#failed.delete(id);
    this.#waiting.add(id);
  }

  /** A memory got its vector elsewhere (read from the vector file). @param {string} id */
  satisfied(id) {
    this.#waiting.delete(id);
  }

  /** A memory is gone. @param {string} id */
  remove(id) {
    this.#waiting.delete(id);
    this.#single.delete(id);
    this.#failed.delete(id);
  }

  /** Every memory needs a new vector (the model changed). @param {Iterable<string>} ids */
  redoAll(ids) {
    for (const id of ids) this.#waiting.add(id);
    this.#failed.clear();
    this.#single.clear();
  }

  /** The queue's state, for a "embedding 12 of 40" line. @returns {EmbeddingState} */
  get state() {
    const pending = this.#waiting.size;
    const embedder = this.#embedder;
    const vectors = this.deps.vectors();
    const base = {
      pending,
      done: this.#done,
      total: this.#done + pending,
      failed: this.#failed.size,
      vectors,
      embedder: embedder?.status.state ?? null,
    };
    if (!embedder) return { ...base, state: 'off', message: 'Semantic search is off.' };
    if (!this.ready()) {
      const status = embedder.status;
      const message =
        status.state === 'ready'
          ? `The embedding model makes ${status.model?.dimensions}-dimensional vectors; memory needs ${this.deps.dimensions}.`
          : status.message;
      return { ...base, state: 'waiting', message };
    }
    if (pending > 0 || this.#running)
      return { ...base, state: 'running', message: `Embedding ${this.#done} of ${this.#done + pending} memories…` };
    return {
      ...base,
      state: 'idle',
      message: `Semantic search is on (${vectors} ${vectors === 1 ? 'memory' : 'memories'} embedded${
        this.#failed.size ? `, ` + `${this.#failed.size} failed` : ''
      }).`,
    };
  }

  /** Calls `fn` with the state now and after every change (coalesced per microtask). @param {(state: EmbeddingState) => void} fn */
  subscribe(fn) {
    this.#listeners.add(fn);
    fn(this.state);
    return () => {
      this.#listeners.delete(fn);
    };
  }

  /** Resolves once the queue is not running (everything embedded, or the embedder not ready). */
  idle() {
    return new Promise((resolve) => {
      const check = () => {
        if (this.state.state !== 'running') {
          this.#listeners.delete(check);
          resolve(undefined);
        }
      };
      this.#listeners.add(check);
      check();
    });
  }

  notify() {
    if (this.#notifyScheduled || this.#listeners.size === 0) return;
    this.#notifyScheduled = true;
    queueMicrotask(() => {
      this.#notifyScheduled = false;
      const state = this.state;
      for (const fn of [...this.#listeners]) {
        try {
          fn(state);
        } catch (err) {
          console.error('Embedding listener failed', err);
        }
      }
    });
  }

  /** Starts a run soon when there is work and the embedder is ready. */
  schedule() {
    if (this.#listeners.size) this.notify();
    if (this.#runScheduled || this.#running || !this.deps.started() || this.#waiting.size === 0 || !this.ready()) return;
    this.#runScheduled = true;
    // A macrotask later: the store() that queued the entry finishes (and writes) first.
    setTimeout(() => {
      this.#runScheduled = false;
      void this.#run();
    }, 0);
  }

  /** Next ids to embed: up to batchSize texts within batchChars (at least one). */
  #nextBatch() {
    for (const id of this.#single) {
      if (this.#waiting.has(id)) return [id];
      this.#single.delete(id);
    }
    /** @type {string[]} */
    const ids = [];
    let chars = 0;
    for (const id of this.#waiting) {
      const len = Math.min((this.deps.textOf(id) ?? '').length, 4000);
      if (ids.length > 0 && (ids.length >= this.deps.batchSize || chars + len > this.deps.batchChars)) break;
      ids.push(id);
      chars += len;
    }
    return ids;
  }

  async #run() {
    if (this.#running) return;
    this.#running = true;
    this.#done = 0;
    this.notify();
    try {
      while (this.#waiting.size > 0 && this.ready()) {
        const embedder = /** @type {EmbedderLike} */ (this.#embedder);
        const ids = this.#nextBatch();
        const texts = ids.map((id) => this.deps.textOf(id) ?? '');
        /** @type {Float32Array[]} */
        let vectors;
        try {
          vectors = await embedder.embed(texts, { priority: 'low', timeoutMs: 120_000 });
        } catch (err) {
          const code = /** @type {{code?: string}} */ (err)?.code ?? '';
          if (UNAVAILABLE.has(code) || embedder !== this.#embedder) break; // resumes on the next 'ready'
          // A problem with these texts: retry them one by one, then give up on the culprit.
          if (ids.length > 1) for (const id of ids) this.#single.add(id);
          else this.#markFailed(ids[0]);
          continue;
        }
        if (embedder !== this.#embedder) break;
        /** @type {Uint8Array[]} */
        const records = [];
        for (let i = 0; i < ids.length; i++) {
          if (this.deps.textOf(ids[i]) !== texts[i]) continue; // changed or gone meanwhile: queued again
          try {
            records.push(this.deps.accept(ids[i], texts[i], vectors[i]));
          } catch {
            this.#markFailed(ids[i]); // e.g. a zero vector
            continue;
          }
          this.#waiting.delete(ids[i]);
          this.#single.delete(ids[i]);
          this.#done++;
        }
        if (records.length) this.deps.persist(records);
        this.notify();
        // Let the page breathe between batches.
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
    } finally {
      this.#running = false;
      if (this.#waiting.size === 0) this.#done = 0;
      this.notify();
      this.schedule(); // entries stored during the last batch
    }
  }

  /** @param {string} id */
  #markFailed(id) {
    this.#waiting.delete(id);
    this.#single.delete(id);
    this.#failed.add(id);
  }
}
