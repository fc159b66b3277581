/**
 * Embedder: the page's handle on the embedding worker (embed-worker.js → embed-core.js),
 * which runs transformers.js `feature-extraction` with all-MiniLM-L6-v2 (mean pooling,
 * normalized, 384 dimensions) from locally installed files only (see model-install.js).
 *
 * One request is in the worker at a time; the rest wait here, so a query (priority 'high')
 * overtakes queued background batches and waits at most for the one batch being computed.
 */
/** @import { EmbedderStatus, EmbedWorkerConfig } from './embed-core.js' */
import {
  DEFAULT_MODEL_ID,
  MODEL_CACHE_NAME,
  MODEL_DIMENSIONS,
  defaultModelBaseUrl,
  defaultTransformersUrl,
  defaultWasmPaths,
} from './model-files.js';
import { MISSING_MESSAGE } from './embed-core.js';

/**
 * @typedef {'model_missing' | 'load_failed' | 'wrong_dimensions' | 'not_ready' | 'timeout' | 'worker_failed' | 'embed_failed'
 *   | 'invalid_input' | 'aborted' | 'unsupported'} EmbedderErrorCode
 */

/** Embedding failure with a stable `code` and a message a person can act on. */
export class EmbedderError extends Error {
  /** @param {EmbedderErrorCode} code @param {string} message @param {{cause?: unknown}} [options] */
  constructor(code, message, options) {
    super(message, options);
    this.name = 'EmbedderError';
    this.code = code;
  }
}

/** Texts are cut to this many characters: the tokenizer keeps 512 tokens anyway (~2,000+ chars). */
export const MAX_EMBED_CHARS = 4000;

/**
 * What the worker needs from a Worker (tests pass an in-process stand-in).
 * @typedef {{
 *   postMessage(message: unknown, transfer?: Transferable[]): void,
 *   terminate(): void,
 *   onmessage: ((event: {data: any}) => void) | null,
 *   onerror: ((event: {message?: string}) => void) | null,
 * }} WorkerLike
 *   data: any — messages are checked by `type` when they arrive
 */

/**
 * @typedef {object} EmbedderOptions
 * @property {string} [modelId] default Xenova/all-MiniLM-L6-v2
 * @property {number} [dimensions] default 384
 * @property {string} [modelBaseUrl] local models folder (URL in the browser, path in Node)
 * @property {string | null} [cacheName] Cache Storage cache with the installed files; null: none (Node)
 * @property {string} [transformersUrl] the transformers.js module the worker imports
 * @property {string} [wasmPaths] onnxruntime-web wasm folder
 * @property {string} [fingerprint] model tag when there is no install manifest (Node)
 * @property {string | URL} [workerUrl]
 * @property {() => WorkerLike} [createWorker] tests: an in-process worker
 * @property {number} [loadTimeoutMs] give up loading after this long (default 120 s)
 */

/**
 * @typedef {object} EmbedOptions
 * @property {'high' | 'low'} [priority] high (queries) overtakes queued low (background) requests
 * @property {number} [timeoutMs] reject with code 'timeout' after this long (queued or running)
 * @property {AbortSignal} [signal]
 */

/**
 * @typedef {object} Job
 * @property {string[]} texts
 * @property {'high' | 'low'} priority
 * @property {(v: Float32Array[]) => void} resolve
 * @property {(e: Error) => void} reject
 * @property {boolean} settled
 * @property {() => void} cleanup
 */

export class Embedder {
  /** @type {EmbedWorkerConfig} */
  #config;
  /** @type {() => WorkerLike} */
  #createWorker;
  /** @type {WorkerLike | null} */
  #worker = null;
  /** @type {EmbedderStatus} */
  #status = { state: 'idle', message: 'The embedding model has not been loaded yet.' };
  /** @type {Set<(status: EmbedderStatus) => void>} */
  #listeners = new Set();
  /** @type {{resolve: (s: EmbedderStatus) => void, reject: (e: Error) => void}[]} */
  #loadWaiters = [];
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  #loadTimer;
  /** @type {Job[]} */
  #queue = [];
  /** @type {{id: number, job: Job} | null} */
  #inFlight = null;
  #nextId = 1;

  /** @param {EmbedderOptions} [options] */
  constructor(options = {}) {
    this.modelId = options.modelId ?? DEFAULT_MODEL_ID;
    this.dimensions = options.dimensions ?? MODEL_DIMENSIONS;
    this.loadTimeoutMs = options.loadTimeoutMs ?? 120_000;
    this.#config = {
      modelId: this.modelId,
      localModelPath: options.modelBaseUrl ?? defaultModelBaseUrl(),
      transformersUrl: options.transformersUrl ?? defaultTransformersUrl(),
      wasmPaths: options.wasmPaths ?? defaultWasmPaths(),
      cacheName: options.cacheName === undefined ? MODEL_CACHE_NAME : options.cacheName,
      dimensions: this.dimensions,
      fingerprint: options.fingerprint,
    };
    const workerUrl = options.workerUrl ?? new URL('./embed-worker.js', import.meta.url);
    this.#createWorker =
      options.createWorker ??
      (() => {
        if (typeof Worker === 'undefined')
          throw new EmbedderError(
            'unsupported',
            'This browser cannot run the embedding worker (no module Workers); keyword search still works.',
          );
        return /** @type {WorkerLike} */ (/** @type {unknown} */ (new Worker(workerUrl, { type: 'module', name: 'clawser-embedder' })));
      });
  }

  /** Current status (state, message, code, model). */
  get status() {
    return this.#status;
  }
  get ready() {
    return this.#status.state === 'ready';
  }

  /**
   * Calls `fn` with the current status now and on every change.
   * @param {(status: EmbedderStatus) => void} fn
   * @returns {() => void} unsubscribe
   */
  subscribe(fn) {
    this.#listeners.add(fn);
    fn(this.#status);
    return () => {
      this.#listeners.delete(fn);
    };
  }

  /** @param {EmbedderStatus} status */
  #setStatus(status) {
    this.#status = Object.freeze({ ...status });
    for (const fn of [...this.#listeners]) {
      try {
        fn(this.#status);
      } catch (err) {
        console.error('Embedder status listener failed', err);
      }
    }
  }

  /**
   * Loads the model in the worker (again, after a missing/error state). Resolves with the
   * ready status; rejects with EmbedderError `model_missing` (fast, no network), `load_failed`,
   * `wrong_dimensions`, `timeout`, `worker_failed` or `unsupported`.
   * @returns {Promise<EmbedderStatus>}
   */
  load() {
    if (this.#status.state === 'ready') return Promise.resolve(this.#status);
    const promise = new Promise((resolve, reject) => {
      this.#loadWaiters.push({ resolve, reject });
    });
    if (this.#loadWaiters.length === 1) {
      try {
        const worker = this.#ensureWorker();
        this.#setStatus({ state: 'loading', message: 'Loading the embedding model…' });
        clearTimeout(this.#loadTimer);
        this.#loadTimer = setTimeout(() => {
          if (this.#status.state !== 'loading') return;
          this.#fail(
            'timeout',
            `The embedding model did not load within ${Math.round(this.loadTimeoutMs / 1000)} s. Try again; if it keeps failing, remove ` +
              `and reinstall it.`,
          );
        }, this.loadTimeoutMs);
        worker.postMessage({ type: 'load', config: this.#config });
      } catch (err) {
        const e =
          err instanceof EmbedderError
            ? err
            : new EmbedderError(
                'worker_failed',
                `The embedding worker could not start: ${err instanceof Error ? err.message : String(err)}`,
                { cause: err },
              );
        this.#setStatus({ state: 'error', code: e.code, message: e.message });
        this.#settleLoad(e);
      }
    }
    return promise;
  }

  /** Stops the worker and forgets the loaded model (after a remove or a new install, then `load()`). */
  reset() {
    this.#teardown(new EmbedderError('aborted', 'The embedding model was unloaded.'));
    this.#setStatus({ state: 'idle', message: 'The embedding model has not been loaded yet.' });
  }

  /**
   * reset() then load(): after installing, replacing or removing the model.
   * @returns {Promise<EmbedderStatus>}
   */
  reload() {
    this.reset();
    return this.load();
  }

  /** Terminates the worker for good (same as reset). */
  dispose() {
    this.reset();
  }

  /**
   * Embeds texts in one batch. Each vector is normalized (unit length), `dimensions` long.
   * @param {string[]} texts
   * @param {EmbedOptions} [options]
   * @returns {Promise<Float32Array[]>}
   */
  embed(texts, options = {}) {
    if (!Array.isArray(texts) || texts.some((t) => typeof t !== 'string')) {
      return Promise.reject(new EmbedderError('invalid_input', 'embed() takes an array of strings.'));
    }
    if (texts.length === 0) return Promise.resolve([]);
    if (this.#status.state !== 'ready') {
      const missing = this.#status.state === 'missing';
      return Promise.reject(
        new EmbedderError(
          missing ? 'model_missing' : 'not_ready',
          missing ? MISSING_MESSAGE : `The embedding model is not ready (${this.#status.state}): ${this.#status.message}`,
        ),
      );
    }
    if (options.signal?.aborted) return Promise.reject(new EmbedderError('aborted', 'Embedding was cancelled.'));
    return new Promise((resolve, reject) => {
      /** @type {ReturnType<typeof setTimeout> | undefined} */
      let timer;
      const onAbort = () => settle(new EmbedderError('aborted', 'Embedding was cancelled.'));
      /** @type {Job} */
      const job = {
        texts: texts.map((t) => (t.length > MAX_EMBED_CHARS ? t.slice(0, MAX_EMBED_CHARS) : t)),
        priority: options.priority ?? 'low',
        resolve: (v) => {
          if (!job.settled) {
            job.settled = true;
            job.cleanup();
            resolve(v);
          }
        },
        reject: (e) => {
          if (!job.settled) {
            job.settled = true;
            job.cleanup();
            reject(e);
          }
        },
        settled: false,
        cleanup: () => {
          clearTimeout(timer);
          options.signal?.removeEventListener('abort', onAbort);
        },
      };
      /** @param {Error} err */
      const settle = (err) => {
        const i = this.#queue.indexOf(job);
        if (i >= 0) this.#queue.splice(i, 1);
        job.reject(err); // a running job's result is dropped when it arrives
      };
      if (options.timeoutMs !== undefined)
        timer = setTimeout(
          () => settle(new EmbedderError('timeout', `Embedding took longer than ${options.timeoutMs} ms.`)),
          options.timeoutMs,
        );
      options.signal?.addEventListener('abort', onAbort, { once: true });
      if (job.priority === 'high') {
        const firstLow = this.#queue.findIndex((j) => j.priority === 'low');
        this.#queue.splice(firstLow < 0 ? this.#queue.length : firstLow, 0, job);
      } else {
        this.#queue.push(job);
      }
      this.#pump();
    });
  }

  /** Sends the next queued job when the worker is free. */
  #pump() {
    while (!this.#inFlight && this.#queue.length) {
      const job = /** @type {Job} */ (this.#queue.shift());
      if (job.settled) continue;
      if (!this.#worker || this.#status.state !== 'ready') {
        job.reject(new EmbedderError('not_ready', `The embedding model is not ready (${this.#status.state}).`));
        continue;
      }
      const id = this.#nextId++;
      this.#inFlight = { id, job };
      this.#worker.postMessage({ type: 'embed', id, texts: job.texts });
    }
  }

  #ensureWorker() {
    if (this.#worker) return this.#worker;
    const worker = this.#createWorker();
    worker.onmessage = (event) => this.#onMessage(event.data);
    worker.onerror = (event) => {
      if (this.#worker !== worker) return;
      this.#fail(
        'worker_failed',
        `The embedding worker failed${event?.message ? ` (${event.message})` : ''}. Reload the page to try again; keyword search still ` +
          `works.`,
      );
    };
    this.#worker = worker;
    return worker;
  }

  /** @param {any} data a message from our worker (shape checked by type) */
  #onMessage(data) {
    if (!data || typeof data !== 'object') return;
    if (data.type === 'status') {
      /** @type {EmbedderStatus} */
      const status = data.status;
      this.#setStatus(status);
      if (status.state === 'ready') {
        clearTimeout(this.#loadTimer);
        this.#settleLoad(null);
        this.#pump();
      } else if (status.state === 'missing' || status.state === 'error') {
        clearTimeout(this.#loadTimer);
        this.#settleLoad(new EmbedderError(/** @type {EmbedderErrorCode} */ (status.code ?? 'load_failed'), status.message));
      }
    } else if (data.type === 'result') {
      const flight = this.#inFlight;
      if (!flight || flight.id !== data.id) return;
      this.#inFlight = null;
      const { job } = flight;
      if (data.error) {
        job.reject(new EmbedderError(data.error.code === 'not_ready' ? 'not_ready' : 'embed_failed', data.error.message));
      } else {
        /** @type {Float32Array} */
        const flat = data.data;
        const d = Number(data.dimensions);
        if (d !== this.dimensions || flat.length !== d * job.texts.length) {
          job.reject(
            new EmbedderError(
              'embed_failed',
              `The embedding worker returned ${flat.length} numbers for ${job.texts.length} texts of ${this.dimensions} dimensions.`,
            ),
          );
        } else {
          job.resolve(Array.from({ length: job.texts.length }, (_, i) => flat.subarray(i * d, (i + 1) * d)));
        }
      }
      this.#pump();
    }
  }

  /** @param {EmbedderError | null} err */
  #settleLoad(err) {
    const waiters = this.#loadWaiters.splice(0);
    for (const w of waiters) {
      if (err) w.reject(err);
      else w.resolve(this.#status);
    }
  }

  /** @param {EmbedderErrorCode} code @param {string} message */
  #fail(code, message) {
    const err = new EmbedderError(code, message);
    this.#teardown(err);
    this.#setStatus({ state: 'error', code, message });
  }

  /** @param {EmbedderError} err */
  #teardown(err) {
    clearTimeout(this.#loadTimer);
    this.#worker?.terminate();
    this.#worker = null;
    this.#settleLoad(err);
    const flight = this.#inFlight;
    this.#inFlight = null;
    flight?.job.reject(err);
    for (const job of this.#queue.splice(0)) job.reject(err);
  }
}
