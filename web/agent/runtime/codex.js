/** @import { ToolRunner, ToolOutcome } from './tool-runner.js' */
/** @import { ToolDefinition } from '../../tools/types.d.ts' */
/** @import { BrowserToolRegistry } from '../../tools/registry.js' */
/** @import { ToolCall } from '../../providers/types.d.ts' */
import { toJsonSchema } from '../../tools/registry.js';

/**
 * The Codex: how providers without native tool calling use tools. The system prompt
 * describes each tool as an async function; the model answers with fenced js blocks; each block
 * runs in the andbox sandbox, where every tool function is a host capability that goes
 * through the same ToolRunner gates (validation, hooks, safety, autonomy, approval) as a
 * native tool call. Printed output and the final value go back to the model.
 */

/** @typedef {{lang: string, code: string, closed: boolean, write?: true}} CodeBlock  write: a Python fence tagged "python write" */
/**
 * What the Codex needs of a sandbox (andbox's Sandbox, or a stand-in in tests). Capability
 * arguments are structured clones coming from sandboxed code, hence `any`.
 * @typedef {{evaluate(code: string, options?: {timeoutMs?: number, signal?: AbortSignal}): Promise<{value: unknown, logs: string[],
 *   error: {name: string, message: string, stack: string} | null, durationMs: number}>, capabilities: Record<string, (args: any) =>
 *   unknown>}} SandboxLike
 */

const RUNNABLE = new Set(['js', 'javascript', 'mjs', 'node', 'jsx', 'ts', 'typescript']);
/** Python blocks: each runs as a run_python call (Pyodide, in a sandbox of its own). */
const PYTHON = new Set(['python', 'py', 'python3']);
/** The tool a Python block is a call of. */
export const PYTHON_TOOL = 'run_python';

/**
 * Extracts fenced JavaScript and Python blocks (backtick or tilde fences; tags js, javascript, python and
 * friends, any case). An unterminated fence at the end of a reply counts as a block that runs to the end.
 * A Python fence with the word "write" after its tag (a python-write fence) asks to save the files it writes.
 * @param {string} text
 * @returns {CodeBlock[]}
 */
export function extractCodeBlocks(text) {
  /** @type {CodeBlock[]} */
  const blocks = [];
  const lines = String(text ?? '').split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const open = /^\s{0,3}(`{3,}|~{3,})\s*([\w+#.-]*)([^\n]*)$/.exec(lines[i]);
    if (!open) continue;
    const fence = open[1];
    const lang = open[2].toLowerCase();
    /** @type {string[]} */
    const body = [];
    let closed = false;
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = new RegExp(`^\\s{0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`);
      if (close.test(lines[j])) {
        closed = true;
        break;
      }
      body.push(lines[j]);
    }
    if (!body.join('').trim()) {
      i = j;
      continue;
    }
    if (RUNNABLE.has(lang)) blocks.push({ lang, code: body.join('\n'), closed });
    else if (PYTHON.has(lang))
      blocks.push({
        lang,
        code: body.join('\n'),
        closed,
        ...(/(^|\s)write(\s|$)/.test(open[3]) ? { write: /** @type {const} */ (true) } : {}),
      });
    i = j;
  }
  return blocks;
}

/**
 * Adapts common Python-isms models slip into JavaScript: `print x` statements, True /
 * False / None, f-strings and # comments. String literals and comments are left alone.
 * @param {string} code
 */
export function adaptPythonisms(code) {
  let out = '';
  let i = 0;
  const n = code.length;
  let lineStart = true;
  while (i < n) {
    const c = code[i];
    // f-strings: f"..." / f'...' → template literals
    if ((c === 'f' || c === 'F') && (code[i + 1] === '"' || code[i + 1] === "'") && !/[\w$]/.test(code[i - 1] ?? '')) {
      const q = code[i + 1];
      let j = i + 2;
      let s = '';
      while (j < n && code[j] !== q && code[j] !== '\n') {
        if (code[j] === '\\') {
          s += code[j] + (code[j + 1] ?? '');
          j += 2;
          continue;
        }
        if (code[j] === '{' && code[j + 1] === '{') {
          s += '{';
          j += 2;
          continue;
        }
        if (code[j] === '}' && code[j + 1] === '}') {
          s += '}';
          j += 2;
          continue;
        }
        if (code[j] === '{') {
          s += '${';
          j++;
          continue;
        }
        if (code[j] === '`') {
          s += '\\`';
          j++;
          continue;
        }
        s += code[j++];
      }
      out += '`' + s + '`';
      i = j + 1;
      lineStart = false;
      continue;
    }
    if (c === '"' || c === "'" || c === '`') {
      let j = i + 1;
      while (j < n && code[j] !== c) {
        if (code[j] === '\\') j++;
        else if (c !== '`' && code[j] === '\n') break;
        j++;
      }
      out += code.slice(i, j + 1);
      i = j + 1;
      lineStart = false;
      continue;
    }
    if (c === '/' && code[i + 1] === '/') {
      const j = code.indexOf('\n', i);
      const end = j === -1 ? n : j;
      out += code.slice(i, end);
      i = end;
      continue;
    }
    if (c === '/' && code[i + 1] === '*') {
      const j = code.indexOf('*/', i + 2);
      const end = j === -1 ? n : j + 2;
      out += code.slice(i, end);
      i = end;
      continue;
    }
    if (c === '#' && lineStart && code[i + 1] !== '!') {
      out += '//';
      i++;
      lineStart = false;
      continue;
    }
    if (c === '\n') {
      out += c;
      i++;
      lineStart = true;
      continue;
    }
    if (/\s/.test(c)) {
      out += c;
      i++;
      continue;
    }
    if (/[A-Za-z_$]/.test(c)) {
      let j = i;
      while (j < n && /[\w$]/.test(code[j])) j++;
      const word = code.slice(i, j);
      const prev = out.trimEnd().slice(-1);
      const isProperty = prev === '.';
      if (!isProperty && word === 'True') out += 'true';
      else if (!isProperty && word === 'False') out += 'false';
      else if (!isProperty && word === 'None') out += 'null';
      else if (lineStart && word === 'print' && /^[ \t]+[^\s(=.]/.test(code.slice(j))) {
        // Python 2 style `print "x"` → print("x")
        const end = code.indexOf('\n', j);
        const stmt = code
          .slice(j, end === -1 ? n : end)
          .trim()
          .replace(/;$/, '');
        out += `print(${adaptPythonisms(stmt)});`;
        i = end === -1 ? n : end;
        lineStart = false;
        continue;
      } else out += word;
      i = j;
      lineStart = false;
      continue;
    }
    out += c;
    i++;
    lineStart = false;
  }
  return out;
}

/** The tool a code block is a call of: each block the model writes runs as one call of it. */
export const CODE_TOOL = 'run_js';

/**
 * The code blocks of a reply as calls of the code tool, `{idPrefix}_{n}` their ids.
 * @param {string} text @param {string} idPrefix
 * @returns {ToolCall[]}
 */
export function codeCalls(text, idPrefix) {
  return extractCodeBlocks(text).map((block, i) =>
    PYTHON.has(block.lang)
      ? { id: `${idPrefix}_${i}`, name: PYTHON_TOOL, arguments: { code: block.code, ...(block.write ? { write: true } : {}) } }
      : { id: `${idPrefix}_${i}`, name: CODE_TOOL, arguments: { code: block.code } },
  );
}

/**
 * The tools code may call, as the system prompt lists them: every tool the workspace has not
 * turned off, but the code tools themselves.
 * @param {BrowserToolRegistry} registry
 */
export function codexTools(registry) {
  return registry.list().filter((t) => t.name !== CODE_TOOL && t.name !== PYTHON_TOOL && registry.policyOf(t.name) !== 'denied');
}

/**
 * Whether Python blocks can run: run_python is there and not turned off.
 * @param {BrowserToolRegistry} registry
 */
export function codexPython(registry) {
  return !!registry.get(PYTHON_TOOL) && registry.policyOf(PYTHON_TOOL) !== 'denied';
}

/**
 * The system-prompt section that presents tools as async functions.
 * @param {ToolDefinition[]} tools
 * @param {{python?: boolean}} [options] python: Python blocks can run too (run_python)
 */
export function codexPrompt(tools, options = {}) {
  const lines = tools.map((t) => {
    const schema = /** @type {{properties?: Record<string, {type?: string, description?: string}>, required?: string[]}} */ (
      toJsonSchema(t.schema)
    );
    const props = Object.entries(schema.properties ?? {}).map(
      ([k, v]) => `${k}${schema.required?.includes(k) ? '' : '?'}: ${v.type ?? 'any'}`,
    );
    return `- await ${t.name}({ ${props.join(', ')} }) — ${t.description}`;
  });
  return [
    'You can act by writing JavaScript in a ```js code block. It runs in a sandbox with top-level await;',
    'use print(...) to show results. These async functions are available (each returns a string):',
    ...lines,
    ...(options.python
      ? [
          'You can also write Python in a ```python block: it runs in a sandbox of its own with the standard library only (no',
          'numpy, pandas or matplotlib; nothing can be installed) and cannot call the functions above. The workspace files are in',
          'the current folder, read-only; start the fence with ```python write to save the files the code writes (each save asks).',
        ]
      : []),
    'After the code runs you receive its output and can continue. When you have the answer, reply without code.',
  ].join('\n');
}

/**
 * The run holding each sandbox. A sandbox has one set of capabilities, looked up when code
 * calls them: a second run setting its own while the first is still running would hand the
 * first run's code another runner (other approvals, another abort signal). Runs on one
 * sandbox therefore take turns, capabilities and evaluation together.
 * @type {WeakMap<object, Promise<unknown>>}
 */
const holders = new WeakMap();

/**
 * A tool call made from code that did not succeed, as the code catches it: named `ToolBlocked`
 * (a gate refused it: code `tool_blocked`) or `ToolFailed` (it ran and failed: `tool_failed`),
 * the tool's output as the message. The name is what the model reads back.
 */
export class ToolCallError extends Error {
  /** @param {Pick<ToolOutcome, 'output' | 'blocked'>} outcome */
  constructor(outcome) {
    super(outcome.output);
    this.name = outcome.blocked ? 'ToolBlocked' : 'ToolFailed';
    this.code = outcome.blocked ? 'tool_blocked' : 'tool_failed';
  }
}

/**
 * Runs code in a sandbox with every tool of the runner granted as a gated capability.
 */
export class Codex {
  /**
   * @param {{getSandbox: () => Promise<SandboxLike>, timeoutMs?: number, maxOutputChars?: number, exclude?: string[]}} deps
   */
  constructor(deps) {
    this.getSandbox = deps.getSandbox;
    this.timeoutMs = deps.timeoutMs ?? 300_000;
    this.maxOutputChars = deps.maxOutputChars ?? 20_000;
    // Code does not start more code: every tool that runs it in the sandbox (declared runsCode) is left out.
    this.exclude = new Set(deps.exclude ?? []);
  }

  /**
   * @param {string} code
   * @param {{tools?: ToolRunner, signal?: AbortSignal, only?: string[], adapt?: boolean}} options only: the tools the code may call
   *   (default: every tool but the excluded); adapt: false runs the code as written (no fixes of Python habits)
   * @returns {Promise<{ok: boolean, output: string, durationMs: number, value: unknown, logs: string[], error: string | null}>}
   */
  async run(code, options = {}) {
    // Stop ends a run even while its sandbox is still starting.
    const signal = options.signal;
    if (signal?.aborted)
      return { ok: false, output: 'Cancelled by the user before it ran.', durationMs: 0, value: undefined, logs: [], error: 'cancelled' };
    /** @type {(() => void) | undefined} */
    let unlisten;
    const stopped = new Promise((resolve) => {
      const onAbort = () => resolve(null);
      signal?.addEventListener('abort', onAbort, { once: true });
      unlisten = () => signal?.removeEventListener('abort', onAbort);
    });
    /** @type {SandboxLike | null} */
    let sandbox;
    try {
      sandbox = /** @type {SandboxLike | null} */ (await Promise.race([this.getSandbox(), stopped]));
    } catch (err) {
      const message = /** @type {Error} */ (err)?.message ?? String(err);
      return { ok: false, output: `The code did not run: ${message}`, durationMs: 0, value: undefined, logs: [], error: message };
    } finally {
      unlisten?.();
    }
    if (!sandbox)
      return { ok: false, output: 'Cancelled by the user before it ran.', durationMs: 0, value: undefined, logs: [], error: 'cancelled' };
    const before = holders.get(sandbox) ?? Promise.resolve();
    const mine = before.then(() => this.#runIn(sandbox, code, options));
    holders.set(
      sandbox,
      mine.catch(() => {}),
    );
    return mine;
  }

  /**
   * @param {SandboxLike} sandbox
   * @param {string} code
   * @param {{tools?: ToolRunner, signal?: AbortSignal, only?: string[], adapt?: boolean}} options
   */
  async #runIn(sandbox, code, options) {
    if (options.signal?.aborted)
      return { ok: false, output: 'Cancelled by the user before it ran.', durationMs: 0, value: undefined, logs: [], error: 'cancelled' };
    /** @type {Record<string, (args: any) => Promise<string>>} */ // args come from sandboxed code; the runner validates them
    const caps = {};
    const runner = options.tools;
    let n = 0;
    if (runner) {
      for (const tool of runner.registry.list()) {
        if (tool.runsCode === 'sandbox' || this.exclude.has(tool.name) || (options.only && !options.only.includes(tool.name))) continue;
        caps[tool.name] = async (args) => {
          // `only` goes with the call: the tools it reaches in turn (a shell's clawser) stay within it.
          const outcome = await runner.run(
            { id: `code_${Date.now().toString(36)}_${n++}`, name: tool.name, arguments: args ?? {} },
            { signal: options.signal, ...(options.only ? { only: options.only } : {}) },
          );
          if (!outcome.ok) throw new ToolCallError(outcome);
          return outcome.output;
        };
      }
    }
    sandbox.capabilities = caps;
    const r = await sandbox.evaluate(options.adapt === false ? code : adaptPythonisms(code), {
      timeoutMs: this.timeoutMs,
      signal: options.signal,
    });
    const parts = [];
    if (r.logs.length) parts.push(r.logs.join('\n'));
    if (r.error) parts.push(`${r.error.name}: ${r.error.message}${r.error.stack ? `\n${r.error.stack}` : ''}`);
    else if (r.value !== undefined) parts.push(`=> ${typeof r.value === 'string' ? r.value : safeJson(r.value)}`);
    let output = parts.join('\n') || '(no output)';
    if (output.length > this.maxOutputChars)
      output = `${output.slice(0, this.maxOutputChars)}\n…[output cut at ${this.maxOutputChars} characters]`;
    return { ok: !r.error, output, durationMs: r.durationMs, value: r.value, logs: r.logs, error: r.error ? r.error.message : null };
  }
}

/** @param {unknown} v */
function safeJson(v) {
  try {
    return JSON.stringify(v, null, 2) ?? String(v);
  } catch {
    return String(v);
  }
}
