/** @import { LocalModel } from './local-models.js' */
// The local model's runtime (issue 34 §1): llama.cpp compiled to WebAssembly (wllama), loaded on
// first use and kept while the page lives. wllama runs llama.cpp in a Worker of its own, so the
// page never stutters while a model loads or writes. One model is loaded at a time (a model takes
// hundreds of megabytes of memory): asking for another unloads the first.
//
// The backend is chosen here, at load: WebGPU where the browser offers a real adapter (not a
// software fallback), else WebAssembly with threads where the page is cross-origin isolated
// (SharedArrayBuffer), else one thread. A WebGPU load that fails is tried again on the CPU.

/** The WebAssembly file, served from web/vendor/ by the install step (never a CDN). */
const WASM_URL = new URL('../vendor/wllama/wllama.wasm', import.meta.url).href;
/** The longest context loaded when the file does not say what a token of context costs. */
export const LOCAL_CONTEXT_CAP = 8192;
/** The memory the context (llama.cpp's KV cache) may take: the model's own weights come on top. */
export const KV_BUDGET_BYTES = 512 * 1024 * 1024;
/** When the file says nothing of its context length. */
const DEFAULT_CONTEXT = 4096;
/**
 * The most memory the runtime's WebAssembly worker asks for (wllama's WebAssembly.Memory maximum).
 * On the CPU the weights live in it with the KV cache and working buffers; on WebGPU the weights
 * go to the GPU. A single file over 2 GB is no problem: the runtime is 64-bit and reads the file
 * from the Blob in slices (wllama's README's 2 GB limit is its 32-bit build's).
 */
export const RUNTIME_MEMORY_BYTES = 4 * 1024 ** 3;
/** What llama.cpp's compute buffers and the runtime itself take besides weights and context (an allowance). */
const WORKING_BYTES = 256 * 1024 ** 2;

/**
 * The context a model is loaded with: as long as it was trained for, within what its KV cache may
 * take (KV_BUDGET_BYTES; LOCAL_CONTEXT_CAP when the file does not say), in whole 256-token steps.
 * @param {{contextLength: number | null, kvBytesPerToken: number | null}} model
 */
export function localContextTokens(model) {
  const trained = model.contextLength ?? DEFAULT_CONTEXT;
  const fits = model.kvBytesPerToken ? Math.floor(KV_BUDGET_BYTES / model.kvBytesPerToken / 256) * 256 : LOCAL_CONTEXT_CAP;
  return Math.max(Math.min(trained, 512), Math.min(trained, fits));
}

/**
 * How much more memory than the runtime has a model needs on the CPU: its weights (the file), its
 * context's KV cache and working buffers, against RUNTIME_MEMORY_BYTES. 0: it fits. Pure.
 * @param {{bytes: number, kvBytesPerToken: number | null}} model @param {number} contextTokens
 */
export function cpuMemoryShortfall(model, contextTokens) {
  const need = model.bytes + (model.kvBytesPerToken ?? 0) * contextTokens + WORKING_BYTES;
  return Math.max(0, need - RUNTIME_MEMORY_BYTES);
}

/** "3.6 GB". @param {number} bytes */
const gb = (bytes) => `${(bytes / 1e9).toFixed(1)} GB`;

/**
 * @typedef {{gpu: boolean, threads: number, isolated: boolean}} BackendChoice
 * @typedef {{kind: 'webgpu' | 'wasm-threads' | 'wasm', threads: number, label: string}} Backend
 * @typedef {{id: string, contextTokens: number, backend: Backend, wllama: any}} LoadedModel
 *   wllama: the runtime object (typed by its own package, which the app does not load at start)
 * @typedef {(paths: {default: string}, config: Record<string, unknown>) => any} RuntimeFactory makes wllama's runtime object
 *   (any: typed by its package, which the app does not load at start)
 */

/** A model the runtime could not load or run, with a message the user can act on. */
export class LocalEngineError extends Error {
  /**
   * @param {'unsupported' | 'load' | 'memory' | 'context' | 'runtime'} code @param {string} message
   * @param {{cause?: unknown}} [options]
   */
  constructor(code, message, options) {
    super(message, options);
    this.name = 'LocalEngineError';
    this.code = code;
  }
}

/**
 * Whether this browser runs the runtime: its WebAssembly file uses 64-bit memory and awaits the
 * page's promises through JSPI (`WebAssembly.Suspending`): Chrome and Edge 137 or later. Without
 * JSPI, wllama would fetch its "compat" build from a CDN: Clawser never loads code from outside
 * its own files, so such a browser is told it cannot run a model in the page instead.
 * A tiny module with a 64-bit memory either validates or not.
 * @param {{validate: (bytes: Uint8Array) => boolean, Suspending?: unknown}} [wasm] the page's WebAssembly (tests: a
 *   stand-in; JSPI's Suspending is not in TypeScript's lib yet)
 */
export function supportsLocalModels(wasm = /** @type {{validate: (b: Uint8Array) => boolean}} */ (globalThis.WebAssembly)) {
  try {
    return typeof wasm?.Suspending === 'function' && wasm.validate(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 5, 3, 1, 4, 0]));
  } catch {
    return false;
  }
}

/**
 * What this page can offer the runtime (the choice is made, not yet tried).
 * @param {{navigator?: unknown, crossOriginIsolated?: boolean}} [env] the page (tests: a stand-in)
 * @returns {Promise<BackendChoice>}
 */
export async function chooseBackend(env = globalThis) {
  const nav = /** @type {any} */ (env.navigator); // navigator.gpu is not in TypeScript's DOM lib here
  let gpu = false;
  try {
    const adapter = nav?.gpu ? await nav.gpu.requestAdapter() : null;
    // A software adapter (SwiftShader) is slower than the CPU path: not worth it.
    gpu = !!adapter && !(adapter.info?.isFallbackAdapter ?? adapter.isFallbackAdapter);
  } catch {
    gpu = false;
  }
  const isolated = env.crossOriginIsolated === true;
  const cores = Number(nav?.hardwareConcurrency) || 1;
  // Leave a core to the page; threads need SharedArrayBuffer, which needs isolation.
  const threads = isolated ? Math.max(1, Math.min(8, cores - 1)) : 1;
  return { gpu, threads, isolated };
}

/**
 * The backend a load ran on, as the Models list shows it.
 * @param {BackendChoice} choice @param {boolean} gpu @param {number} threads @returns {Backend}
 */
export function backendOf(choice, gpu, threads) {
  if (gpu) return { kind: 'webgpu', threads, label: 'WebGPU' };
  if (threads > 1) return { kind: 'wasm-threads', threads, label: `WebAssembly, ${threads} threads` };
  return {
    kind: 'wasm',
    threads: 1,
    label: choice.isolated ? 'WebAssembly, 1 thread' : 'WebAssembly, 1 thread (the page is not cross-origin isolated)',
  };
}

/**
 * A load, shared by the calls that wait for it. `waiting`: the calls still waiting (a load all of
 * them stopped is cancelled); `runtime`: the runtime being loaded, torn down when it is.
 * @typedef {{id: string, ready: Promise<LoadedModel>, loaded?: LoadedModel, waiting: number, cancelled: boolean, runtime?: any}} Entry
 */

/** @type {Entry | null} */
let current = null;

/** What Stop ends a load or a reply with (the providers' usual AbortError). */
const stopped = () => new DOMException('Stopped', 'AbortError');

/**
 * The loaded model `model`, loading it (and unloading another) when needed. Stop (`signal`) ends
 * the wait at once: the runtime cannot be interrupted mid-load, so a load no call waits for any
 * more is cancelled by tearing its worker down, and the next call loads again.
 * @param {LocalModel} model
 * @param {() => Promise<Blob[]>} files its parts, in order (read from disk as the runtime reads them)
 * @param {{onProgress?: (text: string) => void, choice?: BackendChoice, signal?: AbortSignal, createRuntime?: RuntimeFactory}} [options]
 *   choice, createRuntime: the backend and how the runtime is made (tests: stand-ins)
 * @returns {Promise<LoadedModel>}
 */
export function loadLocalModel(model, files, options = {}) {
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(stopped());
  const entry = current?.id === model.id ? current : startLoad(model, files, options);
  if (entry.loaded) return entry.ready;
  // A call that cannot stop keeps the load going for good.
  entry.waiting++;
  if (!signal) return entry.ready;
  return new Promise((resolve, reject) => {
    const onStop = () => {
      reject(stopped());
      if (--entry.waiting === 0 && !entry.loaded) cancelLoad(entry);
    };
    signal.addEventListener('abort', onStop, { once: true });
    entry.ready.then(
      (loaded) => {
        signal.removeEventListener('abort', onStop);
        resolve(loaded);
      },
      (err) => {
        signal.removeEventListener('abort', onStop);
        reject(err);
      },
    );
  });
}

/** Stops a load: its worker is torn down (nothing else interrupts it) and it is forgotten. @param {Entry} entry */
function cancelLoad(entry) {
  entry.cancelled = true;
  if (current === entry) current = null;
  entry.runtime?.exit().catch(() => {});
}

/**
 * Starts loading `model` (after unloading the model loaded before), as the current entry.
 * @param {LocalModel} model @param {() => Promise<Blob[]>} files
 * @param {{onProgress?: (text: string) => void, choice?: BackendChoice, createRuntime?: RuntimeFactory}} options
 * @returns {Entry}
 */
function startLoad(model, files, options) {
  const previous = current;
  /** @type {Entry} */
  const entry = { id: model.id, ready: /** @type {Promise<LoadedModel>} */ (/** @type {unknown} */ (null)), waiting: 0, cancelled: false };
  /** Between the load's steps: a cancelled load goes no further. */
  const check = () => {
    if (entry.cancelled) throw stopped();
  };
  entry.ready = (async () => {
    if (previous) await unload(previous);
    check();
    if (!supportsLocalModels()) {
      throw new LocalEngineError(
        'unsupported',
        'This browser cannot run a model in the page (it needs 64-bit WebAssembly memory and JSPI: Chrome or Edge 137 or later).',
      );
    }
    const choice = options.choice ?? (await chooseBackend());
    /** @type {RuntimeFactory} */
    const create =
      options.createRuntime ??
      (await import('@wllama/wllama').then(
        ({ Wllama }) =>
          (/** @type {any} */ paths, /** @type {any} */ config) =>
            new Wllama(paths, config),
      ));
    const parts = await files();
    check();
    const contextTokens = localContextTokens(model);
    /** @param {boolean} gpu */
    const tryLoad = async (gpu) => {
      // A load that cannot fit fails deep in the runtime with no words for it: said here instead.
      if (!gpu && cpuMemoryShortfall(model, contextTokens) > 0) {
        throw new LocalEngineError(
          'memory',
          `The model “${model.name}” (${gb(model.bytes)}) needs more memory than the ${RUNTIME_MEMORY_BYTES / 1024 ** 3} GB ` +
            'a model run by the CPU in a page can have, with its context. Import a smaller model or a smaller ' +
            'quantisation of it (Q4_K_M or lower), or use a browser with WebGPU, where the weights go to the GPU.',
        );
      }
      // Quiet: llama.cpp logs every step of a load; its errors come back as the load's error.
      const noop = () => {};
      const wllama = create({ default: WASM_URL }, { logger: { debug: noop, log: noop, warn: noop, error: noop } });
      // Never the runtime's "compat" build from its CDN (its default where JSPI is missing).
      wllama.setCompat?.(null);
      entry.runtime = wllama;
      options.onProgress?.(`Loading ${model.name} (${backendOf(choice, gpu, choice.threads).label})…`);
      try {
        check();
        await wllama.loadModel(parts, { n_ctx: contextTokens, n_threads: choice.threads, n_gpu_layers: gpu ? 999 : 0 });
        check();
      } catch (err) {
        await wllama.exit().catch(() => {});
        throw entry.cancelled ? stopped() : err;
      }
      const threads = wllama.getNumThreads?.() ?? choice.threads;
      return { id: model.id, contextTokens, backend: backendOf(choice, gpu, threads), wllama };
    };
    try {
      return await tryLoad(choice.gpu);
    } catch (err) {
      if (entry.cancelled) throw stopped();
      if (choice.gpu) {
        try {
          return await tryLoad(false);
        } catch (cpu) {
          // The CPU's failure says no more than the first one, unless it is the memory's.
          if (cpu instanceof LocalEngineError || entry.cancelled) throw entry.cancelled ? stopped() : cpu;
        }
      }
      if (err instanceof LocalEngineError) throw err;
      throw new LocalEngineError(
        'load',
        `The model “${model.name}” could not be loaded: ${/** @type {Error} */ (err).message || 'the runtime refused it'}. ` +
          'If the file is damaged, delete it and import it again; a model too big for this computer’s memory needs a smaller one.',
        { cause: err },
      );
    }
  })();
  current = entry;
  // A failed load is not kept: the next call tries again.
  entry.ready.then(
    (loaded) => {
      entry.loaded = loaded;
    },
    () => {
      if (current === entry) current = null;
    },
  );
  return entry;
}

/** @param {{ready: Promise<LoadedModel>}} entry */
async function unload(entry) {
  const loaded = await entry.ready.catch(() => null);
  await loaded?.wllama.exit().catch(() => {});
}

/**
 * Unloads the model `id` if it is the one loaded (it is being deleted), or any model (no id).
 * @param {string} [id]
 */
export async function unloadLocalModel(id) {
  const entry = current;
  if (!entry || (id && entry.id !== id)) return;
  current = null;
  await unload(entry);
}

/**
 * The model loaded now and its backend, if any (for the Models list): one still loading is not
 * waited for. @returns {Promise<LoadedModel | null>}
 */
export async function loadedLocalModel() {
  return current?.loaded ?? null;
}

/** Replies under way, per loaded model. @type {WeakMap<LoadedModel, number>} */
const replying = new WeakMap();

/**
 * A reply of the loaded model: the runtime's Chat Completions chunks (`params` as its
 * createChatCompletion takes them, streamed). Stop (`signal`) ends it at once, whatever the runtime
 * is doing: it looks at the signal only between its steps, and its first step reads the whole
 * prompt (up to a batch of 2,048 tokens), which takes seconds to minutes on a slow CPU. Stopped
 * there (before the first token), the runtime's worker is torn down — unless another reply is
 * using it — and the next call loads the model again; stopped mid-reply, the runtime ends the
 * reply itself at its next token.
 * @param {LoadedModel} loaded @param {Record<string, unknown>} params @param {AbortSignal} [signal]
 * @returns {AsyncGenerator<any>} the runtime's chat.completion.chunk objects
 */
export async function* localReply(loaded, params, signal) {
  if (signal?.aborted) throw stopped();
  const chunks = /** @type {AsyncIterable<any>} */ (
    await loaded.wllama.createChatCompletion({ ...params, stream: true, abortSignal: signal })
  );
  const it = chunks[Symbol.asyncIterator]();
  const STOP = Symbol('stop');
  /** @type {Promise<typeof STOP> | null} */
  const stop = signal
    ? new Promise((resolve) => {
        if (signal.aborted) resolve(STOP);
        else signal.addEventListener('abort', () => resolve(STOP), { once: true });
      })
    : null;
  replying.set(loaded, (replying.get(loaded) ?? 0) + 1);
  let started = false;
  try {
    while (true) {
      const next = it.next();
      // Left behind on Stop, it settles (or fails) later: no unhandled rejection.
      next.catch(() => {});
      const r = stop ? await Promise.race([next, stop]) : await next;
      if (r === STOP) {
        if (!started && replying.get(loaded) === 1) void tearDown(loaded);
        throw stopped();
      }
      if (r.done) return;
      started = true;
      yield r.value;
    }
  } finally {
    replying.set(loaded, (replying.get(loaded) ?? 1) - 1);
  }
}

/** Tears a loaded model's runtime down (its worker busy with a stopped reply): the next call loads again. @param {LoadedModel} loaded */
async function tearDown(loaded) {
  if (current?.loaded === loaded) current = null;
  await loaded.wllama.exit().catch(() => {});
}
