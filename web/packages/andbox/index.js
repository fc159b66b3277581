/**
 * andbox — run untrusted JavaScript in a browser with only the capabilities you grant.
 *
 * Code runs in a dedicated Worker inside an `<iframe sandbox="allow-scripts">` (opaque
 * origin) whose own CSP forbids all network access; it cannot reach the host page, its
 * storage, cookies or the network. The host grants named async capabilities that the code
 * calls with `await host.call(name, args)` (or the matching global function).
 */

/** @typedef {(args: any) => unknown | Promise<unknown>} Capability  args are whatever the sandboxed code passed (structured clone) */
/** @typedef {{name: string, message: string, stack: string}} SandboxError */
/**
 * @typedef {{value: unknown, logs: string[], error: SandboxError | null, durationMs: number, extra?: unknown}} EvaluateResult
 *   extra: what a runtime other than JavaScript's returns besides (the Python runtime's changed files)
 */
/**
 * @typedef {object} EvaluateOptions
 * @property {number} [timeoutMs] wall-clock limit of this evaluation
 * @property {AbortSignal} [signal] aborting it stops the run (the worker is terminated)
 * @property {(stream: 'stdout' | 'stderr', text: string) => void} [onOutput] output as it comes (runtimes that stream it)
 * @property {Record<string, unknown>} [data] more for the runtime (the Python runtime's files), sent with the code
 * @property {number} [memoryLimitBytes] a runtime that can enforce it (Python's) ends the run past it
 */
/** @typedef {{name: string, args: unknown, ok: boolean, durationMs: number, error?: string}} CapabilityCall */

import { FRAME_VERSION } from './frame-version.js';

const here = new URL('.', import.meta.url);

/** @param {URL | string} url */
function fetchRuntime(url) {
  return fetch(url).then((r) => {
    if (!r.ok) throw new Error(`Could not load the sandbox runtime (HTTP ${r.status}).`);
    return r.text();
  });
}

/** @typedef {{frame: HTMLIFrameElement, control: MessagePort}} ReadyFrame */

/** How long a sandbox frame may take to load and answer before the start counts as failed. */
export const FRAME_START_TIMEOUT_MS = 10_000;

/** The sandbox frame did not load or answer in time (e.g. offline before Clawser cached it). */
export class SandboxStartError extends Error {
  constructor() {
    super(
      'The code sandbox could not start: its frame did not load. If you are offline, ' +
        'connect once so Clawser can keep a copy, then try again.',
    );
    this.name = 'SandboxStartError';
    this.code = 'sandbox_unavailable';
  }
}

/** The frame found itself with a real origin (not sandboxed), so it refused to run code. */
export class SandboxNotIsolatedError extends Error {
  constructor() {
    super(
      'The sandbox frame is not isolated (its origin is not opaque), so it refused to ' +
        'run code. The browser may not support sandboxed frames here.',
    );
    this.name = 'SandboxNotIsolatedError';
    this.code = 'sandbox_not_isolated';
  }
}

/**
 * A capability call the host refused, as the sandboxed code catches it (by its name):
 * `CapabilityError` for a capability this sandbox was not granted (code `not_granted`),
 * `PermissionDenied` for a call `allowCall` denied (code `denied`).
 */
export class CapabilityRefusedError extends Error {
  /** @param {'not_granted' | 'denied'} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.name = code === 'denied' ? 'PermissionDenied' : 'CapabilityError';
    this.code = code;
  }
}

/**
 * Loads the sandbox frame document and connects its control port. Most of a cold start is
 * Chromium loading this opaque-origin document (in its own process), not our code.
 * @param {HTMLElement} [container]
 * @returns {Promise<ReadyFrame>}
 */
async function loadFrame(container) {
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.setAttribute('aria-hidden', 'true');
  frame.tabIndex = -1;
  frame.title = 'andbox sandbox';
  frame.style.display = 'none';
  frame.src = new URL(`frame.html?v=${FRAME_VERSION}`, here).href;
  const loaded = new Promise((resolve, reject) => {
    frame.addEventListener('load', resolve, { once: true });
    frame.addEventListener('error', () => reject(new Error('The sandbox frame failed to load.')), { once: true });
  });
  (container ?? document.body).append(frame);
  // A frame that cannot load (offline before it was ever cached) shows the browser's error page,
  // which never answers: give up after a few seconds with an error that says so.
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => {
      frame.remove();
      reject(new SandboxStartError());
    }, FRAME_START_TIMEOUT_MS);
  });
  try {
    return await Promise.race([connectFrame(frame, loaded), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * @param {HTMLIFrameElement} frame @param {Promise<unknown>} loaded
 * @returns {Promise<ReadyFrame>}
 */
async function connectFrame(frame, loaded) {
  await loaded;
  const channel = new MessageChannel();
  const control = channel.port1;
  const frameReady = new Promise((resolve, reject) => {
    control.onmessage = (e) => {
      if (e.data?.type === 'frame-ready') resolve(undefined);
      else if (e.data?.type === 'refused') {
        frame.remove();
        reject(new SandboxNotIsolatedError());
      }
    };
  });
  // The frame's origin is opaque ("null"), so "*" is the only target; only ports cross.
  frame.contentWindow?.postMessage({ type: 'andbox:init' }, '*', [channel.port2]);
  await frameReady;
  return { frame, control };
}

/**
 * What sandboxes of a page share: the runtime's source (fetched once) and one spare frame with
 * a started worker, so the next sandbox skips the frame load. An owned object: the module's
 * functions use one default pool; an embedder may make its own.
 */
export class SandboxPool {
  /** @type {Promise<string> | null} */
  #runtime = null;
  /** One loaded, unused frame kept ready. @type {Promise<ReadyFrame> | null} */
  #spare = null;
  #runtimeUrl;

  /** @param {{runtimeUrl?: URL | string}} [options] runtimeUrl: another worker runtime (the Python one) */
  constructor(options = {}) {
    this.#runtimeUrl = options.runtimeUrl ?? new URL('runtime.js', here);
  }

  /** The worker runtime's source (fetched once; a failed fetch is tried again next time). */
  runtime() {
    if (!this.#runtime) {
      const p = fetchRuntime(this.#runtimeUrl);
      p.catch(() => {
        if (this.#runtime === p) this.#runtime = null;
      });
      this.#runtime = p;
    }
    return this.#runtime;
  }

  /**
   * Keeps one sandbox frame loaded in the background (in `document.body`); refilled each time
   * a sandbox takes it. Costs one hidden, empty frame.
   * @returns {Promise<void>}
   */
  prewarm() {
    this.#spare ??= this.#loadSpare();
    return this.#spare.then(() => undefined);
  }

  /** A loaded frame with a worker already started from the runtime (not yet connected). */
  #loadSpare() {
    const source = this.runtime();
    const ready = loadFrame().then(async (r) => {
      const booted = new Promise((resolve) => {
        r.control.onmessage = (e) => {
          if (e.data?.type === 'prestarted') resolve(undefined);
        };
      });
      r.control.postMessage({ type: 'prestart', source: await source });
      await booted;
      return r;
    });
    ready.catch(() => {
      if (this.#spare === ready) this.#spare = null;
    });
    return ready;
  }

  /** Removes the pre-warmed frame, if any. */
  async discard() {
    const s = this.#spare;
    this.#spare = null;
    const ready = await s?.catch(() => null);
    ready?.control.close();
    ready?.frame.remove();
  }

  /**
   * The spare frame, for a sandbox starting now (then refilled when idle), or null.
   * @param {HTMLElement | undefined} container
   */
  takeSpare(container) {
    // A frame that moves in the DOM reloads, so only a body-level sandbox can use the spare.
    if (!this.#spare || (container && container !== document.body)) return null;
    const taken = this.#spare;
    this.#spare = null;
    // The refill waits for an idle moment, so it does not compete with the sandbox starting now.
    const refill = () => {
      this.#spare ??= this.#loadSpare();
    };
    taken.then(
      () => ('requestIdleCallback' in globalThis ? requestIdleCallback(refill, { timeout: 2000 }) : setTimeout(refill, 200)),
      () => {},
    );
    return taken;
  }
}

/** The page's default pool (what createSandbox and prewarmSandbox use). */
const defaultPool = new SandboxPool();

/**
 * Keeps one sandbox frame loaded in the background (in `document.body`), so the next
 * `createSandbox()` skips the frame load. Call it when the page is idle.
 * @returns {Promise<void>}
 */
export function prewarmSandbox() {
  return defaultPool.prewarm();
}

/** Removes the pre-warmed frame, if any (e.g. before a page tears down its sandboxes). */
export function discardSpareSandbox() {
  return defaultPool.discard();
}

/**
 * @param {object} [options]
 * @param {Record<string, Capability>} [options.capabilities] functions the code may call
 * @param {number} [options.timeoutMs] default wall-clock limit per evaluation (30 s)
 * @param {number} [options.memoryLimitHint] advisory only: browsers expose no per-worker memory cap
 * @param {Record<string, string>} [options.imports] module name → URL of an ES module the code may import
 * @param {(call: {name: string, args: unknown}) => Promise<boolean> | boolean} [options.allowCall] permission check before each capability
 *   call
 * @param {(call: CapabilityCall) => void} [options.onCall] log of every capability call
 * @param {HTMLElement} [options.container] where the hidden iframe goes (document.body)
 * @param {SandboxPool} [options.pool] shares the runtime and a spare frame (default: the page's)
 * @param {Record<string, string>} [options.binaries] name → URL of a file handed to the runtime as bytes (Python's runtime files)
 * @param {Record<string, ArrayBuffer>} [options.buffers] name → bytes already at hand, handed over the same way
 * @param {(message: Record<string, unknown>) => void} [options.onMessage] messages of the runtime that andbox does not know
 *   (Python's memory snapshot)
 */
export async function createSandbox(options = {}) {
  const sandbox = new Sandbox(options);
  await sandbox.start();
  return sandbox;
}

export class Sandbox {
  /** @type {HTMLIFrameElement | null} */ #frame = null;
  /** @type {MessagePort | null} */ #control = null;
  /** @type {MessagePort | null} */ #data = null;
  /** @type {Promise<void> | null} */ #workerReady = null;
  /** @type {Record<string, string | ArrayBuffer>} */ #modules = {};
  #nextId = 1;
  /** @type {Map<number, (r: EvaluateResult) => void>} */ #waiting = new Map();
  /**
   * How each running evaluation is stopped early (a limit the runtime reports).
   * @type {Map<number, (name: string, message: string) => void>}
   */
  #stops = new Map();
  /** @type {Map<number, NonNullable<EvaluateOptions['onOutput']>>} */ #outputs = new Map();
  /** @type {Promise<unknown>} */ #queue = Promise.resolve();
  #disposed = false;
  /** Capability calls, newest last (bounded). @type {CapabilityCall[]} */
  calls = [];

  /** @param {Parameters<typeof createSandbox>[0]} options */
  constructor(options = {}) {
    this.capabilities = { ...(options.capabilities ?? {}) };
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.memoryLimitHint = options.memoryLimitHint;
    this.imports = options.imports ?? {};
    this.allowCall = options.allowCall;
    this.onCall = options.onCall;
    this.container = options.container;
    this.pool = options.pool ?? defaultPool;
    this.binaries = options.binaries ?? {};
    this.buffers = options.buffers ?? {};
    this.onMessage = options.onMessage;
  }

  async start() {
    // The frame loads (or a pre-warmed one is taken) while the runtime and modules are fetched.
    const fetched = Promise.all([this.pool.runtime(), this.#loadModules()]);
    const framePromise = this.pool.takeSpare(this.container) ?? loadFrame(this.container);
    const [[source], { frame, control }] = await Promise.all([fetched, framePromise]);
    this.source = source;
    this.#frame = frame;
    this.#control = control;
    if (this.#disposed) return this.dispose();
    await this.#startWorker();
  }

  async #loadModules() {
    /** @param {string} name @param {string} url @param {boolean} binary @returns {Promise<[string, string | ArrayBuffer]>} */
    const load = async (name, url, binary) => {
      const r = await fetch(url);
      if (!r.ok) throw new Error(`Could not load ${binary ? 'file' : 'module'} "${name}" for the sandbox (HTTP ${r.status}).`);
      return [name, binary ? await r.arrayBuffer() : await r.text()];
    };
    const entries = await Promise.all([
      ...Object.entries(this.imports).map(([name, url]) => load(name, url, false)),
      ...Object.entries(this.binaries).map(([name, url]) => load(name, url, true)),
    ]);
    this.#modules = { ...Object.fromEntries(entries), ...this.buffers };
  }

  /**
   * Adds (or replaces) a file handed to the runtime from the next worker start on (a restart after
   * a limit or Stop included).
   * @param {string} name @param {ArrayBuffer} bytes
   */
  setBuffer(name, bytes) {
    this.#modules = { ...this.#modules, [name]: bytes };
  }

  #startWorker() {
    const channel = new MessageChannel();
    this.#data = channel.port1;
    this.#workerReady = new Promise((resolve) => {
      channel.port1.onmessage = (e) => {
        const m = e.data;
        if (m.type === 'ready') resolve();
        else if (m.type === 'result') this.#waiting.get(m.id)?.(m);
        else if (m.type === 'output') this.#outputs.get(m.id)?.(m.stream === 'stderr' ? 'stderr' : 'stdout', String(m.text));
        else if (m.type === 'limit') this.#stops.get(m.id)?.(String(m.name), String(m.message));
        else if (m.type === 'call') this.#handleCall(channel.port1, m);
        else this.onMessage?.(m);
      };
    });
    /** @type {MessagePort} */ (this.#control).postMessage({ type: 'start', source: this.source, modules: this.#modules }, [channel.port2]);
    return this.#workerReady;
  }

  /** @param {MessagePort} port @param {{callId: number, name: string, args: unknown}} m */
  async #handleCall(port, m) {
    const started = performance.now();
    const fn = Object.hasOwn(this.capabilities, m.name) ? this.capabilities[m.name] : undefined;
    /** @type {CapabilityCall} */
    const record = { name: m.name, args: m.args, ok: false, durationMs: 0 };
    try {
      if (!fn) throw new CapabilityRefusedError('not_granted', `The capability "${m.name}" is not granted to this sandbox.`);
      if (this.allowCall && !(await this.allowCall({ name: m.name, args: m.args }))) {
        throw new CapabilityRefusedError('denied', `The call to "${m.name}" was denied.`);
      }
      const value = await fn(m.args);
      record.ok = true;
      port.postMessage({ type: 'callResult', callId: m.callId, ok: true, value });
    } catch (err) {
      const e = /** @type {Error & {code?: unknown}} */ (err);
      record.error = e?.message ?? String(err);
      try {
        port.postMessage({
          type: 'callResult',
          callId: m.callId,
          ok: false,
          error: { name: e?.name ?? 'Error', message: record.error, ...(typeof e?.code === 'string' ? { code: e.code } : {}) },
        });
      } catch {
        // the worker was reset meanwhile
      }
    } finally {
      record.durationMs = performance.now() - started;
      this.calls.push(record);
      if (this.calls.length > 500) this.calls.shift();
      this.onCall?.(record);
    }
  }

  /**
   * Evaluates code. The value of a final expression is returned; `print()` / `console.log()`
   * output is collected. Never rejects for errors in the code: they come back in `error`.
   * @param {string} code
   * @param {EvaluateOptions} [options]
   * @returns {Promise<EvaluateResult>}
   */
  evaluate(code, options = {}) {
    const run = this.#queue.then(() => this.#evaluate(code, options));
    this.#queue = run.catch(() => {});
    return run;
  }

  /** @param {string} code @param {EvaluateOptions} options @returns {Promise<EvaluateResult>} */
  async #evaluate(code, options) {
    if (this.#disposed) throw new Error('This sandbox was disposed.');
    await this.#workerReady;
    const id = this.#nextId++;
    const limit = options.timeoutMs ?? this.timeoutMs;
    const started = performance.now();
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    /** @type {() => void} */
    let onAbort = () => {};
    const result = await new Promise((resolve) => {
      this.#waiting.set(id, resolve);
      const stop = (/** @type {string} */ name, /** @type {string} */ message) => {
        // Terminating the worker is the only way to stop a loop; a fresh one takes its place.
        this.#waiting.delete(id);
        this.#stops.delete(id);
        this.#outputs.delete(id);
        this.#restartWorker();
        resolve({ value: undefined, logs: [], error: { name, message, stack: '' }, durationMs: performance.now() - started });
      };
      timer = setTimeout(() => stop('TimeoutError', `The code ran longer than ${limit} ms and was stopped.`), limit);
      this.#stops.set(id, stop);
      if (options.onOutput) this.#outputs.set(id, options.onOutput);
      onAbort = () => stop('AbortError', 'The run was cancelled.');
      if (options.signal?.aborted) return onAbort();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      /** @type {MessagePort} */ (this.#data).postMessage({
        type: 'eval',
        id,
        code,
        capabilities: Object.keys(this.capabilities),
        ...(options.data ? { data: options.data } : {}),
        ...(options.memoryLimitBytes ? { memoryLimitBytes: options.memoryLimitBytes } : {}),
      });
    });
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    this.#waiting.delete(id);
    this.#stops.delete(id);
    this.#outputs.delete(id);
    const r = /** @type {EvaluateResult} */ (result);
    return {
      value: r.value,
      logs: r.logs ?? [],
      error: r.error ?? null,
      durationMs: r.durationMs ?? performance.now() - started,
      ...(r.extra !== undefined ? { extra: r.extra } : {}),
    };
  }

  /** The hidden iframe this sandbox runs in (null once disposed). */
  get frameElement() {
    return this.#frame;
  }

  #restartWorker() {
    this.#data?.close();
    this.#startWorker();
  }

  dispose() {
    this.#disposed = true;
    this.#control?.postMessage({ type: 'stop' });
    this.#data?.close();
    this.#control?.close();
    this.#frame?.remove();
    this.#frame = null;
  }
}
