/**
 * andbox for Python: Pyodide (vendored from its npm package into web/vendor/pyodide/) in the same
 * sandbox as JavaScript — a Worker inside an `<iframe sandbox="allow-scripts">` (opaque origin) whose
 * CSP forbids any network. The host fetches Pyodide's files from the app (the service worker keeps
 * them after the first use) and hands them over as bytes; nothing is downloaded from anywhere else.
 * Only the standard library is available: the npm distribution ships no packages (no numpy, pandas,
 * matplotlib) and nothing can be installed.
 */
/** @import { Sandbox } from './index.js' */
import { createSandbox, SandboxPool } from './index.js';

/** The Pyodide version vendored (package.json pins it; tests/unit/python.test.mjs checks they agree). */
export const PYODIDE_VERSION = '314.0.7';
/** Pyodide's files the runtime needs (scripts/vendor.mjs copies them). */
export const PYODIDE_FILES = ['pyodide.mjs', 'pyodide.asm.mjs', 'pyodide.asm.wasm', 'python_stdlib.zip', 'pyodide-lock.json'];
/** Default memory limit of a run (the WebAssembly memory of the interpreter, Python's objects included). */
export const PYTHON_MEMORY_LIMIT_BYTES = 512 * 2 ** 20;

/** What the standard library lacks, said once: the message a missing module gets. */
export const NO_PACKAGES =
  "Clawser's Python runs offline with the standard library only: Pyodide's npm distribution ships no other package " +
  '(numpy, pandas, matplotlib and the rest are not included), and nothing is downloaded or installed.';

/** @param {string} [base] the folder Pyodide's files are served from */
export function pyodideUrls(base = new URL('../../vendor/pyodide/', import.meta.url).href) {
  return Object.fromEntries(PYODIDE_FILES.map((f) => [f, `${base}${f}?v=${PYODIDE_VERSION}`]));
}

/** Where the memory snapshot of this Pyodide version is kept (a key; never fetched). */
export function pyodideSnapshotUrl(base = new URL('../../vendor/pyodide/', import.meta.url).href) {
  return `${base}memory-snapshot?v=${PYODIDE_VERSION}`;
}

/**
 * A traceback as the user's code sees it: Pyodide's own frames (its loader, `_pyodide`) left out.
 * @param {string} text
 */
export function cleanTraceback(text) {
  const lines = String(text).replace(/\s+$/, '').split('\n');
  if (lines[0] !== 'Traceback (most recent call last):') return lines.join('\n');
  /** @type {string[]} */
  const kept = [lines[0]];
  let keep = false;
  for (const line of lines.slice(1)) {
    const frame = /^ {2}File "([^"]*)"/.exec(line);
    if (frame) keep = !frame[1].includes('/_pyodide/') && !frame[1].includes('/pyodide/');
    else if (!line.startsWith(' ')) keep = true; // the exception line(s)
    if (keep) kept.push(line);
  }
  return kept.join('\n');
}

/**
 * The module a ModuleNotFoundError names, or null.
 * @param {string} message
 */
export function missingModule(message) {
  const m = /ModuleNotFoundError: No module named '([\w.]+)'/.exec(message) ?? /^No module named '([\w.]+)'/m.exec(message);
  return m ? m[1] : null;
}

/**
 * A run's error as the user reads it: the traceback without Pyodide's frames, a missing module
 * explained (not shipped, never downloaded).
 * @param {{name: string, message: string}} error
 */
export function explainError(error) {
  const text = cleanTraceback(error.message);
  const module = error.name === 'ModuleNotFoundError' || /ModuleNotFoundError/.test(text) ? missingModule(text) : null;
  if (!module) return text;
  // Pyodide's own hint ("… included in the Pyodide distribution … micropip.install …") would suggest a download: replaced.
  const top = module.split('.')[0];
  const bare = text
    .split('\n')
    .filter((l) => !/micropip|loadPackage|Pyodide distribution|pyodide\.org|You can install it/i.test(l))
    .join('\n');
  return `${bare}\nThe Python package “${top}” is not available here. ${NO_PACKAGES}`;
}

/**
 * A sandbox running Python. `run` mounts the given workspace files at /workspace (the current
 * folder), read-only unless `writable`; a writable run returns the files it created or changed.
 */
export class PythonSandbox {
  /** @param {Sandbox} sandbox @param {{memoryLimitBytes?: number}} options */
  constructor(sandbox, options) {
    this.sandbox = sandbox;
    this.memoryLimitBytes = options.memoryLimitBytes ?? PYTHON_MEMORY_LIMIT_BYTES;
  }

  /**
   * @param {string} code
   * @param {{files?: {path: string, data: Uint8Array}[], writable?: boolean, signal?: AbortSignal, timeoutMs?: number,
   *   onOutput?: (stream: 'stdout' | 'stderr', text: string) => void, memoryLimitBytes?: number}} [options]
   * @returns {Promise<{ok: boolean, logs: string[], value: unknown, error: {name: string, message: string} | null,
   *   written: {path: string, data: Uint8Array}[], deleted: string[], durationMs: number}>}
   */
  async run(code, options = {}) {
    // What streamed, kept for a run that is stopped (a stopped run's result has no output of its own).
    /** @type {string[]} */
    const streamed = [];
    const r = await this.sandbox.evaluate(code, {
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      onOutput: (stream, text) => {
        streamed.push(text);
        options.onOutput?.(stream, text);
      },
      data: { files: options.files ?? [], writable: options.writable === true },
      memoryLimitBytes: options.memoryLimitBytes ?? this.memoryLimitBytes,
    });
    const extra = /** @type {{written?: {path: string, data: Uint8Array}[], deleted?: string[]} | undefined} */ (r.extra);
    return {
      ok: !r.error,
      logs: r.logs.length ? r.logs : streamed,
      value: r.value,
      error: r.error ? { name: r.error.name, message: explainError(r.error) } : null,
      written: extra?.written ?? [],
      deleted: extra?.deleted ?? [],
      durationMs: r.durationMs,
    };
  }

  dispose() {
    this.sandbox.dispose();
  }
}

/** Python sandboxes share the runtime's source and its frame, apart from JavaScript's. */
let pool = /** @type {SandboxPool | null} */ (null);

/**
 * Where a Python sandbox keeps the interpreter's memory snapshot between starts (the app's is in
 * Cache Storage, web/storage/runtime-cache.js): made by the first start, it lets the next ones skip
 * initialising Python. Keyed by the Pyodide version by whoever stores it.
 * @typedef {{get(): Promise<ArrayBuffer | null>, put(bytes: ArrayBuffer): Promise<void>}} SnapshotStore
 */

/**
 * Starts a Python sandbox: the frame loads and Pyodide's files are fetched; Python itself starts
 * in the worker right away (the first run waits for the rest of it) — from the snapshot in
 * `snapshots` when there is one, else from scratch, and then the snapshot is made and kept there.
 * The snapshot is taken before any code runs: nothing a run does reaches later sandboxes.
 * @param {{timeoutMs?: number, memoryLimitBytes?: number, container?: HTMLElement, baseUrl?: string, snapshots?: SnapshotStore}} [options]
 */
export async function createPythonSandbox(options = {}) {
  pool ??= new SandboxPool({ runtimeUrl: new URL('python-runtime.js', import.meta.url) });
  const kept = (await options.snapshots?.get().catch(() => null)) ?? null;
  /** @type {Sandbox | null} */
  let started = null;
  const sandbox = await createSandbox({
    pool,
    timeoutMs: options.timeoutMs ?? 300_000,
    binaries: pyodideUrls(options.baseUrl),
    ...(kept ? { buffers: { snapshot: kept } } : {}),
    onMessage: (m) => {
      if (m.type !== 'snapshot' || !(m.bytes instanceof ArrayBuffer)) return;
      // A restart (after Stop or a limit) starts from it too.
      started?.setBuffer('snapshot', m.bytes);
      options.snapshots?.put(m.bytes).catch(() => {});
    },
    ...(options.container ? { container: options.container } : {}),
  });
  started = sandbox;
  return new PythonSandbox(sandbox, options);
}
