// andbox's Python runtime: Pyodide in the same place as the JavaScript runtime (runtime.js) — a
// Worker made from a blob inside the opaque-origin sandbox frame, whose CSP forbids any network.
// The host hands over Pyodide's files as bytes (`binaries` of createSandbox); every fetch Pyodide
// makes is answered from them, and any other URL is refused here (the CSP would refuse it too), so
// nothing is ever downloaded (no package, no CDN). Loaded as text by the host, never run in the
// app's origin.
/// <reference lib="webworker" />

(() => {
  const scope = /** @type {any} */ (self); // the worker global; typed loosely because this file is shipped as text
  /** Pyodide's files are "served" from here; the URL is never fetched (see the fetch below). */
  const INDEX = 'https://pyodide.invalid/';
  const MAX_OUTPUT_CHARS = 100_000;
  const WORKSPACE = '/workspace';
  /** @type {MessagePort | null} */
  let port = null;
  /** @type {Record<string, ArrayBuffer | string>} */
  let files = {};
  /** @type {Promise<any> | null} */
  let booting = null;
  /**
   * The evaluation running now (its output is sent with its id).
   * @type {{id: number, logs: string[], chars: number, cut: boolean} | null}
   */
  let current = null;
  let memoryLimit = Number.POSITIVE_INFINITY;

  // The memory limit: WebAssembly memory only grows through this (Emscripten's heap growth). Past the
  // limit the host is told (it terminates this worker) and the growth fails (Python sees MemoryError).
  // The property cannot be replaced by the code (non-writable, non-configurable).
  const grow = WebAssembly.Memory.prototype.grow;
  Object.defineProperty(WebAssembly.Memory.prototype, 'grow', {
    /** @this {WebAssembly.Memory} @param {number} delta */
    value: function limitedGrow(delta) {
      const next = this.buffer.byteLength + Number(delta) * 65536;
      if (next > memoryLimit) {
        const mb = Math.round(memoryLimit / 2 ** 20);
        port?.postMessage({
          type: 'limit',
          id: current?.id,
          name: 'MemoryLimitError',
          message: `The code needed more than ${mb} MB of memory and was stopped.`,
        });
        throw new RangeError('Memory limit reached.');
      }
      return grow.call(this, delta);
    },
    writable: false,
    configurable: false,
    enumerable: false,
  });

  // No network: Pyodide's own files come from the host's copies; anything else is refused with a message.
  const noNetwork = (/** @type {string} */ url) =>
    new TypeError(`No network in Clawser's Python sandbox: ${url} was not fetched (nothing is downloaded, no package can be installed).`);
  scope.fetch = async (/** @type {unknown} */ input) => {
    const url = typeof input === 'string' ? input : String(/** @type {{url?: string}} */ (input)?.url ?? input);
    if (url.startsWith(INDEX)) {
      const name = url.slice(INDEX.length).split('?')[0];
      const body = Object.hasOwn(files, name) ? files[name] : undefined;
      if (body !== undefined)
        return new Response(body, {
          headers: { 'content-type': name.endsWith('.wasm') ? 'application/wasm' : 'application/octet-stream' },
        });
    }
    throw noNetwork(url);
  };

  /** @param {'stdout' | 'stderr'} stream @param {string} text */
  function emit(stream, text) {
    const run = current;
    if (!run || run.cut) return;
    run.chars += text.length + 1;
    if (run.chars > MAX_OUTPUT_CHARS) {
      run.cut = true;
      text = `…[output truncated at ${MAX_OUTPUT_CHARS} characters]`;
    }
    run.logs.push(text);
    port?.postMessage({ type: 'output', id: run.id, stream, text });
  }

  /** @param {string} name */
  const moduleUrl = (name) => URL.createObjectURL(new Blob([files[name]], { type: 'text/javascript' }));

  /**
   * Whether a snapshot was made by this very build of Pyodide and is whole: Pyodide checks its magic
   * number and build only after it has instantiated WebAssembly with the snapshot's memory size, and
   * a memory too small for the module never settles. Checked here first (its header: magic, header
   * length, the 256-bit build id; then whole pages of memory).
   * @param {ArrayBuffer} bytes
   */
  function usableSnapshot(bytes) {
    if (bytes.byteLength < 48 || bytes.byteLength % 4) return false;
    const head = new Uint32Array(bytes, 0, 12);
    const loader = files['pyodide.mjs'];
    const build = /BUILD_ID:"([0-9a-f]{64})"/.exec(typeof loader === 'string' ? loader : new TextDecoder().decode(loader))?.[1];
    const id = Array.from(head.subarray(4, 12), (x) => x.toString(16).padStart(8, '0')).join('');
    const memory = bytes.byteLength - head[1];
    return head[0] === 1886286592 && head[1] >= 48 && head[1] % 16 === 0 && id === build && memory > 0 && memory % 65536 === 0;
  }

  /**
   * Starts Python: from the host's memory snapshot when it has one (an interpreter already
   * initialised — most of a start saved), else from scratch, and then the snapshot is made and sent
   * to the host (before any code has run) for the next starts.
   */
  async function boot() {
    const { loadPyodide } = await import(moduleUrl('pyodide.mjs'));
    const createPyodideModule = (await import(moduleUrl('pyodide.asm.mjs'))).default;
    const lock = files['pyodide-lock.json'];
    const options = {
      indexURL: INDEX,
      packageBaseUrl: INDEX,
      createPyodideModule,
      lockFileContents: typeof lock === 'string' ? lock : new TextDecoder().decode(lock),
      stdin: () => null,
      env: { HOME: '/home/pyodide' },
    };
    const snapshot = files.snapshot;
    /** @type {any} */
    let py = null;
    if (snapshot instanceof ArrayBuffer && usableSnapshot(snapshot))
      py = await loadPyodide({ ...options, _loadSnapshot: new Uint8Array(snapshot) }).catch(() => null);
    if (!py) {
      py = await loadPyodide({ ...options, _makeSnapshot: true });
      const made = /** @type {Uint8Array} */ (py.makeMemorySnapshot());
      const bytes = made.byteOffset === 0 && made.byteLength === made.buffer.byteLength ? made.buffer : made.slice().buffer;
      port?.postMessage({ type: 'snapshot', bytes }, [bytes]);
    }
    py.setStdout({ batched: (/** @type {string} */ t) => emit('stdout', t) });
    py.setStderr({ batched: (/** @type {string} */ t) => emit('stderr', t) });
    py.FS.mkdirTree(WORKSPACE);
    return py;
  }

  /** @param {any} FS @param {string} dir */
  function removeTree(FS, dir) {
    FS.chmod(dir, 0o777);
    for (const name of FS.readdir(dir)) {
      if (name === '.' || name === '..') continue;
      const path = `${dir}/${name}`;
      if (FS.isDir(FS.lstat(path).mode)) {
        removeTree(FS, path);
        FS.rmdir(path);
      } else FS.unlink(path); // the folder's write bit is what unlinking needs
    }
  }

  /** @param {any} FS @param {string} dir @param {(path: string, rel: string) => void} onFile @param {string} [rel] */
  function walk(FS, dir, onFile, rel = '') {
    for (const name of FS.readdir(dir)) {
      if (name === '.' || name === '..') continue;
      const path = `${dir}/${name}`;
      const sub = rel ? `${rel}/${name}` : name;
      const mode = FS.lstat(path).mode;
      if (FS.isDir(mode)) walk(FS, path, onFile, sub);
      else if (FS.isFile(mode)) onFile(path, sub); // a link the code made is not followed (nor saved)
    }
  }

  /** Read-only: files 0444, folders 0555 (the code gets PermissionError on a write). @param {any} FS @param {string} dir */
  function lockTree(FS, dir) {
    for (const name of FS.readdir(dir)) {
      if (name === '.' || name === '..') continue;
      const path = `${dir}/${name}`;
      if (FS.isDir(FS.lstat(path).mode)) lockTree(FS, path);
      else FS.chmod(path, 0o444);
    }
    FS.chmod(dir, 0o555);
  }

  /**
   * /workspace afresh for each run: the host's copy of the workspace files, read-only unless writable.
   * @param {any} py @param {{path: string, data: Uint8Array}[]} given @param {boolean} writable
   */
  function mountWorkspace(py, given, writable) {
    const FS = py.FS;
    FS.chdir('/');
    removeTree(FS, WORKSPACE);
    /** @type {Map<string, Uint8Array>} */
    const before = new Map();
    for (const f of given) {
      const path = `${WORKSPACE}/${f.path}`;
      FS.mkdirTree(path.slice(0, path.lastIndexOf('/')));
      FS.writeFile(path, f.data);
      before.set(f.path, f.data);
    }
    if (!writable) lockTree(FS, WORKSPACE);
    FS.chdir(WORKSPACE);
    return before;
  }

  /** @param {Uint8Array} a @param {Uint8Array} b */
  const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

  /** The files a writable run created or changed, and the ones it removed. @param {any} py @param {Map<string, Uint8Array>} before */
  function changes(py, before) {
    const FS = py.FS;
    /** @type {{path: string, data: Uint8Array}[]} */
    const written = [];
    const seen = new Set();
    walk(FS, WORKSPACE, (path, rel) => {
      seen.add(rel);
      const data = FS.readFile(path);
      const old = before.get(rel);
      if (!old || !same(old, data)) written.push({ path: rel, data });
    });
    return { written, deleted: [...before.keys()].filter((p) => !seen.has(p)) };
  }

  /** The value of a final expression as text (strings as they are, others as repr()). @param {any} py @param {unknown} v */
  function show(py, v) {
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'object' && v && 'destroy' in v) {
      try {
        return String(py.pyimport('builtins').repr(v));
      } finally {
        /** @type {{destroy: () => void}} */ (v).destroy();
      }
    }
    return v;
  }

  /**
   * @param {{id: number, code: string, data?: {files?: {path: string, data: Uint8Array}[], writable?: boolean},
   *   memoryLimitBytes?: number}} msg
   */
  async function evaluate(msg) {
    const started = performance.now();
    const run = { id: msg.id, logs: /** @type {string[]} */ ([]), chars: 0, cut: false };
    /** @type {any} */
    let py;
    try {
      py = await (booting ??= boot());
    } catch (err) {
      booting = null;
      const e = /** @type {Error} */ (err);
      return reply({
        type: 'result',
        id: msg.id,
        logs: [],
        error: { name: 'PythonStartError', message: `Python could not start: ${e?.message ?? String(err)}`, stack: '' },
        durationMs: performance.now() - started,
      });
    }
    current = run;
    memoryLimit = msg.memoryLimitBytes ?? Number.POSITIVE_INFINITY;
    const writable = msg.data?.writable === true;
    try {
      const before = mountWorkspace(py, msg.data?.files ?? [], writable);
      /** @type {unknown} */
      let value;
      /** @type {{name: string, message: string, stack: string} | null} */
      let error = null;
      try {
        value = show(py, await py.runPythonAsync(msg.code, { filename: '<code>' }));
      } catch (err) {
        const e = /** @type {Error & {type?: string}} */ (err);
        error = { name: e?.type ?? e?.name ?? 'Error', message: e?.message ?? String(err), stack: '' };
      }
      py.runPython('import sys\nsys.stdout.flush()\nsys.stderr.flush()');
      const extra = writable ? changes(py, before) : undefined;
      reply({ type: 'result', id: msg.id, value, logs: run.logs, error, extra, durationMs: performance.now() - started });
    } catch (err) {
      const e = /** @type {Error} */ (err);
      reply({
        type: 'result',
        id: msg.id,
        logs: run.logs,
        error: { name: e?.name ?? 'Error', message: e?.message ?? String(err), stack: '' },
        durationMs: performance.now() - started,
      });
    } finally {
      current = null;
      memoryLimit = Number.POSITIVE_INFINITY;
    }
  }

  /** @param {Record<string, unknown>} msg */
  function reply(msg) {
    try {
      /** @type {MessagePort} */ (port).postMessage(msg);
    } catch {
      /** @type {MessagePort} */ (port).postMessage({ ...msg, value: String(msg.value) });
    }
  }

  scope.onmessage = (/** @type {MessageEvent} */ event) => {
    const data = event.data;
    if (data?.type !== 'connect' || port) return;
    port = /** @type {MessagePort} */ (event.ports[0]);
    files = data.modules ?? {};
    // Evaluations take turns: Python runs one thing at a time.
    /** @type {Promise<unknown>} */
    let queue = Promise.resolve();
    port.onmessage = (/** @type {MessageEvent} */ e) => {
      if (e.data?.type === 'eval') queue = queue.then(() => evaluate(e.data));
    };
    port.postMessage({ type: 'ready' });
    // Python starts now, so the first run does not wait for all of it.
    booting = boot();
    booting.catch(() => {});
  };
  scope.postMessage({ type: 'booted' });
})();
