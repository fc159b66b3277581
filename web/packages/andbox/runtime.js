// andbox worker runtime. Runs inside a dedicated Worker created from a blob by frame.html,
// in an opaque-origin sandboxed iframe whose CSP forbids any network. Evaluates code strings
// and relays capability calls to the host over a MessagePort. Loaded as text by the host and
// turned into a blob URL inside the frame, so it never runs in the app's origin.
/// <reference lib="webworker" />
/* eslint-disable no-restricted-globals */

(() => {
  const scope = /** @type {any} */ (self); // the worker global; typed loosely because this file is shipped as text
  /** @type {MessagePort | null} */
  let port = null;
  /** @type {Map<number, {resolve: (v: unknown) => void, reject: (e: Error) => void}>} */
  const pending = new Map();
  let nextCall = 1;
  /** @type {Record<string, string>} module sources by name, made into blob URLs on first use */
  let moduleSources = {};
  /** @type {Record<string, string>} */
  const moduleUrls = {};
  const MAX_LOG_CHARS = 100_000;
  const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;

  /** A capability call the host refused or that failed there, as the code catches it: the host's name, message and code. */
  class HostError extends Error {
    /** @param {{name?: string, message?: string, code?: string}} [error] */
    constructor(error = {}) {
      super(error.message ?? 'The host refused the call.');
      this.name = error.name ?? 'HostError';
      this.code = error.code ?? 'host_error';
    }
  }
  /** Lines the wrapper adds before user code in the generated function. */
  const HEADER_LINES = 2;

  /** @param {string} name @param {unknown} args */
  function call(name, args) {
    if (!port) return Promise.reject(new Error('The sandbox is not connected.'));
    const callId = nextCall++;
    return new Promise((resolve, reject) => {
      pending.set(callId, { resolve, reject });
      /** @type {MessagePort} */ (port).postMessage({ type: 'call', callId, name, args });
    });
  }

  /** @param {string} name */
  async function importModule(name) {
    if (!(name in moduleSources))
      throw new Error(`Module "${name}" is not available in the sandbox. Allowed: ${Object.keys(moduleSources).join(', ') || 'none'}.`);
    moduleUrls[name] ??= URL.createObjectURL(new Blob([moduleSources[name]], { type: 'text/javascript' }));
    return import(moduleUrls[name]);
  }

  /** @param {unknown} v */
  function show(v) {
    if (typeof v === 'string') return v;
    try {
      return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x), 2) ?? String(v);
    } catch {
      return String(v);
    }
  }

  /**
   * Rewrites imports of allowed modules: `import {a} from 'm'` → `const {a} = await __import('m')`,
   * `import x from 'm'` → `const x = (await __import('m')).default`, `import('m')` → `__import('m')`.
   * @param {string} code
   */
  function rewriteImports(code) {
    return code
      .replace(
        /^\s*import\s+\*\s+as\s+([\w$]+)\s+from\s+['"]([^'"]+)['"];?/gm,
        (_m, ns, mod) => `const ${ns} = await __import(${JSON.stringify(mod)});`,
      )
      .replace(
        /^\s*import\s+\{([^}]*)\}\s+from\s+['"]([^'"]+)['"];?/gm,
        (_m, names, mod) => `const {${names.replace(/\s+as\s+/g, ': ')}} = await __import(${JSON.stringify(mod)});`,
      )
      .replace(
        /^\s*import\s+([\w$]+)\s+from\s+['"]([^'"]+)['"];?/gm,
        (_m, name, mod) => `const ${name} = (await __import(${JSON.stringify(mod)})).default;`,
      )
      .replace(/\bimport\s*\(\s*(['"][^'"]+['"])\s*\)/g, '__import($1)');
  }

  const PARAMS = ['host', 'print', 'console', '__import'];

  /**
   * Compiles code so that the value of a final expression is returned, as in a REPL.
   * @param {string} code
   * @param {string[]} extra names of capability globals
   */
  function compile(code, extra) {
    const params = [...PARAMS, ...extra];
    const body = rewriteImports(code);
    const attempts = [`return (\n${body}\n);`];
    const lines = body.replace(/\s+$/, '').split('\n');
    const last = lines.length - 1;
    const lastLine = lines[last] ?? '';
    const statementStart = /^\s*(const|let|var|if|for|while|do|return|function|class|throw|try|switch|import|export|\}|\/\/)/;
    // The final expression may follow other statements on the same line ("a = 1; a + 1").
    const cuts = [-1];
    for (let i = lastLine.length - 1; i >= 0; i--) if (lastLine[i] === ';' && lastLine.slice(i + 1).trim()) cuts.push(i);
    for (const cut of cuts) {
      const expr = lastLine.slice(cut + 1).replace(/;\s*$/, '');
      if (!expr.trim() || statementStart.test(expr)) continue;
      attempts.push(`\n${[...lines.slice(0, last), `${lastLine.slice(0, cut + 1)} return (${expr});`].join('\n')}`);
    }
    attempts.push(`\n${body}`);
    /** @type {unknown} */
    let firstError = null;
    for (const src of attempts) {
      try {
        return { fn: new AsyncFunction(...params, src), offset: src.startsWith('return (\n') ? HEADER_LINES + 1 : HEADER_LINES + 1 };
      } catch (err) {
        firstError ??= err;
      }
    }
    throw firstError ?? new SyntaxError('Could not compile the code.');
  }

  /**
   * Keeps only stack lines from the user's code, with line numbers as the user wrote them.
   * @param {unknown} err
   * @param {number} offset
   */
  function userError(err, offset) {
    const e = /** @type {Error} */ (err);
    if (!e || typeof e !== 'object') return { name: 'Error', message: String(err), stack: '' };
    const lines = String(e.stack ?? '')
      .split('\n')
      .filter((l) => /<anonymous>|eval at/.test(l) && !/runtime|blob:/.test(l.replace(/eval at [^(]*\(blob:[^)]*\)/, '')))
      .map((l) =>
        l.replace(/.*<anonymous>:(\d+):(\d+).*/, (_m, line, col) => `    at your code, line ${Math.max(1, Number(line) - offset)}:${col}`),
      )
      .filter((l) => l.includes('your code'));
    return { name: e.name ?? 'Error', message: e.message ?? String(e), stack: lines.join('\n') };
  }

  /** @param {{id: number, code: string, capabilities: string[]}} msg */
  async function evaluate(msg) {
    /** @type {string[]} */
    const logs = [];
    let logChars = 0;
    let truncated = false;
    const print = (/** @type {unknown[]} */ ...args) => {
      if (truncated) return;
      const line = args.map(show).join(' ');
      logChars += line.length;
      if (logChars > MAX_LOG_CHARS) {
        truncated = true;
        logs.push(`…[output truncated at ${MAX_LOG_CHARS} characters]`);
      } else logs.push(line);
    };
    const consoleShim = { log: print, info: print, warn: print, error: print, debug: print };
    const host = Object.freeze({ call: (/** @type {string} */ name, /** @type {unknown} */ args) => call(name, args) });
    const names = msg.capabilities.filter((n) => /^[A-Za-z_$][\w$]*$/.test(n) && !PARAMS.includes(n));
    const fns = names.map((n) => (n === 'fetch' ? sandboxFetch : (/** @type {unknown} */ args) => call(n, args)));
    const started = performance.now();
    /** @type {number} */
    let offset = HEADER_LINES;
    try {
      const compiled = compile(msg.code, names);
      offset = compiled.offset;
      const value = await compiled.fn(host, print, consoleShim, importModule, ...fns);
      reply({ type: 'result', id: msg.id, value, logs, durationMs: performance.now() - started });
    } catch (err) {
      reply({ type: 'result', id: msg.id, value: undefined, logs, error: userError(err, offset), durationMs: performance.now() - started });
    }
  }

  /** `fetch` for sandboxed code: performed by the host (allow-listed), never by the sandbox. */
  async function sandboxFetch(
    /** @type {string} */ url,
    /** @type {{method?: string, headers?: Record<string, string>, body?: string}} */ init = {},
  ) {
    const r = /** @type {{status: number, statusText: string, headers: Record<string, string>, body: string}} */ (
      await call('fetch', {
        url: String(url),
        init: { method: init.method, headers: init.headers, body: typeof init.body === 'string' ? init.body : undefined },
      })
    );
    return new Response(r.body, { status: r.status, statusText: r.statusText, headers: r.headers });
  }

  /** @param {Record<string, unknown>} msg */
  function reply(msg) {
    try {
      /** @type {MessagePort} */ (port).postMessage(msg);
    } catch {
      // The value could not be cloned: send it as text.
      /** @type {MessagePort} */ (port).postMessage({ ...msg, value: show(msg.value) });
    }
  }

  scope.onmessage = (/** @type {MessageEvent} */ event) => {
    const data = event.data;
    if (data?.type !== 'connect' || port) return;
    port = /** @type {MessagePort} */ (event.ports[0]);
    moduleSources = data.modules ?? {};
    port.onmessage = (/** @type {MessageEvent} */ e) => {
      const m = e.data;
      if (m.type === 'eval') evaluate(m);
      else if (m.type === 'callResult') {
        const p = pending.get(m.callId);
        if (!p) return;
        pending.delete(m.callId);
        if (m.ok) p.resolve(m.value);
        else p.reject(new HostError(m.error));
      }
    };
    port.postMessage({ type: 'ready' });
  };
  // Tells the frame this thread is up (a pre-started worker is then warm).
  scope.postMessage({ type: 'booted' });
})();
