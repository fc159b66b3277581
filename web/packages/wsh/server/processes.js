// Running a process for a channel: on a pseudo-terminal when the optional `node-pty` package is
// installed and a terminal was asked for, otherwise on pipes. Each process leads its own process
// group, so a signal (Ctrl-C) reaches what it started too, as a terminal's would.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { WshError } from '../errors.js';

/**
 * The part of node-pty used here (its `spawn` and the IPty it returns).
 * @typedef {object} PtyModule
 * @property {(file: string, args: string[], options: {name: string, cols: number, rows: number, cwd: string,
 *   env: Record<string, string | undefined>, encoding: null}) => PtyProcess} spawn
 */
/**
 * @typedef {object} PtyProcess
 * @property {number} pid
 * @property {(cb: (data: string | Uint8Array) => void) => unknown} onData
 * @property {(cb: (e: {exitCode: number, signal?: number}) => void) => unknown} onExit
 * @property {(data: string | Uint8Array) => void} write
 * @property {(cols: number, rows: number) => void} resize
 * @property {(signal?: string) => void} kill
 * @property {() => void} [pause]
 * @property {() => void} [resume]
 */

/**
 * Loads node-pty when it is installed; null when not (the usual case: it needs a native build).
 * @param {(name: string) => Promise<any>} [importModule] how to import it (tests force it off or on); any: an optional module
 * @param {(reason: string) => void} [onMissing] told why it could not be loaded (not installed, its native build missing)
 */
export async function loadNodePty(importModule = (/** @type {string} */ name) => import(name), onMissing = () => {}) {
  try {
    const name = 'node-pty'; // a variable, so bundlers and type checkers leave the optional module alone
    const mod = await importModule(name);
    return /** @type {PtyModule} */ (mod.default ?? mod);
  } catch (err) {
    onMissing(String(/** @type {Error} */ (err)?.message ?? err).split('\n')[0]);
    return null;
  }
}

/**
 * @typedef {object} RunningProcess
 * @property {'pty' | 'pipe'} mode
 * @property {number | undefined} pid
 * @property {Promise<void>} ready resolves once it runs; rejects with `spawn_failed`
 * @property {(data: Uint8Array) => void} write
 * @property {() => void} endInput
 * @property {(cols: number, rows: number) => void} resize
 * @property {(signal: NodeJS.Signals) => void} kill signals the whole process group
 * @property {() => void} pause stop reading its output (the connection is full)
 * @property {() => void} resume
 */

/**
 * @typedef {object} ProcessHandlers
 * @property {(data: Uint8Array) => void} stdout
 * @property {(data: Uint8Array) => void} stderr
 * @property {(code: number | null, signal: string | null) => void} exit once, after all output
 */

/**
 * @param {{file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, terminal: {cols: number, rows: number} | null,
 *   pty: PtyModule | null}} plan
 * @param {ProcessHandlers} on
 * @returns {RunningProcess}
 */
export function startProcess(plan, on) {
  if (plan.terminal && plan.pty) return startPty(plan.pty, plan, plan.terminal, on);
  return startPipes(plan, on);
}

/**
 * @param {{file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv}} plan
 * @param {ProcessHandlers} on
 * @returns {RunningProcess}
 */
function startPipes(plan, on) {
  const child = spawn(plan.file, plan.args, {
    cwd: plan.cwd,
    env: plan.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: process.platform !== 'win32',
    windowsHide: true,
  });
  let started = false;
  /** @type {Promise<void>} */
  const ready = new Promise((resolve, reject) => {
    child.on('spawn', () => {
      started = true;
      resolve();
    });
    child.on('error', (err) => {
      if (!started) reject(new WshError('spawn_failed', `Could not start "${plan.file}": ${err.message}`));
    });
  });
  child.stdout.on('data', (b) => on.stdout(b));
  child.stderr.on('data', (b) => on.stderr(b));
  child.stdin.on('error', () => {}); // a process that exits before reading its input is not an error of ours
  child.on('close', (code, signal) => {
    if (started) on.exit(code, signal);
  });
  return {
    mode: 'pipe',
    pid: child.pid,
    ready,
    write: (data) => {
      if (child.stdin.writable) child.stdin.write(data);
    },
    endInput: () => child.stdin.end(),
    resize: () => {},
    kill: (signal) => killGroup(child.pid, signal, () => child.kill(signal)),
    pause: () => {
      child.stdout.pause();
      child.stderr.pause();
    },
    resume: () => {
      child.stdout.resume();
      child.stderr.resume();
    },
  };
}

/**
 * @param {PtyModule} pty
 * @param {{file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv}} plan
 * @param {{cols: number, rows: number}} size
 * @param {ProcessHandlers} on
 * @returns {RunningProcess}
 */
function startPty(pty, plan, size, on) {
  /** @type {PtyProcess} */
  let term;
  try {
    term = pty.spawn(plan.file, plan.args, {
      name: 'xterm-256color',
      cols: size.cols,
      rows: size.rows,
      cwd: plan.cwd,
      env: { TERM: 'xterm-256color', ...plan.env },
      encoding: null,
    });
  } catch (err) {
    const ready = Promise.reject(
      new WshError('spawn_failed', `Could not start "${plan.file}" on a terminal: ${/** @type {Error} */ (err).message}`),
    );
    return { mode: 'pty', pid: undefined, ready, write() {}, endInput() {}, resize() {}, kill() {}, pause() {}, resume() {} };
  }
  const encoder = new TextEncoder();
  term.onData((data) => on.stdout(typeof data === 'string' ? encoder.encode(data) : data));
  term.onExit(({ exitCode, signal }) => on.exit(signal ? null : exitCode, signal ? signalName(signal) : null));
  return {
    mode: 'pty',
    pid: term.pid,
    ready: Promise.resolve(),
    write: (data) => term.write(typeof Buffer === 'undefined' ? new TextDecoder().decode(data) : Buffer.from(data)),
    // A terminal has no separate end of input: Ctrl-D is the end of a line's input.
    endInput: () => term.write('\x04'),
    resize: (cols, rows) => term.resize(cols, rows),
    kill: (signal) => killGroup(term.pid, signal, () => term.kill(signal)),
    pause: () => term.pause?.(),
    resume: () => term.resume?.(),
  };
}

/** @param {number | undefined} pid @param {NodeJS.Signals} signal @param {() => void} fallback */
function killGroup(pid, signal, fallback) {
  try {
    if (pid === undefined || process.platform === 'win32') fallback();
    else process.kill(-pid, signal);
  } catch {
    try {
      fallback();
    } catch {
      // already gone
    }
  }
}

/** "SIGINT" for 2. @param {number} n */
function signalName(n) {
  for (const [name, value] of Object.entries(constants.signals)) if (value === n) return name;
  return `SIG${n}`;
}
