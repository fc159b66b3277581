// Shared set-up of the wsh tests: a real server on 127.0.0.1 (in-process, or the bin), keys,
// and a raw WebSocket for sending frames a well-behaved client never would. Waits are on
// events (a frame, a status, a process's exit), never on time.
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import WebSocket from 'ws';
import { generateKey, publicKeyLine } from '../node.js';
import { decodeFrame } from '../protocol.js';
import { createWshServer } from '../server/index.js';
import { parseKeyLine } from '../server/keys-file.js';

/** @import { Frame } from '../protocol.js' */
/** @import { WshServerOptions } from '../server/index.js' */

/** A key pair and its keys-file entry with `options` (e.g. "commands=echo dirs=/tmp"). @param {string} [options] */
export async function makeKey(options = '') {
  const pair = await generateKey();
  const line = await publicKeyLine(pair, 'test');
  return { pair, line, entry: await parseKeyLine(`${options} ${line}`) };
}

/**
 * A server on 127.0.0.1 with these keys, closed after the file's tests; `logs` collects its log lines.
 * @param {import('../server/keys-file.js').KeyEntry[]} keys
 * @param {WshServerOptions} [options]
 */
export async function startServer(keys, options = {}) {
  /** @type {string[]} */
  const logs = [];
  const server = await createWshServer({ keys, pty: null, log: (l) => logs.push(l), ...options });
  after(() => server.close());
  return { server, logs };
}

/** A temporary folder (real path), removed after the file's tests. */
export async function tempDir() {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'wsh-test-')));
  after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A raw WebSocket to the server: every frame it receives is kept; `next(type)` waits for one.
 * @param {string} url
 * @param {{headers?: Record<string, string>}} [options]
 */
export function rawSocket(url, options = {}) {
  const ws = new WebSocket(url, { headers: options.headers });
  /** @type {Frame[]} */
  const frames = [];
  /** @type {Set<() => void>} */
  const waiters = new Set();
  const notify = () => {
    for (const w of [...waiters]) w();
  };
  ws.on('message', (data) => {
    frames.push(decodeFrame(data));
    notify();
  });
  /** @type {Promise<{code: number, reason: string}>} */
  const closed = new Promise((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  /** @type {Promise<number>} the HTTP status of a refused handshake */
  const refused = new Promise((resolve) => ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
  ws.on('error', () => {});
  /** Waits for the first frame of a type (kept frames count). @param {string} type @returns {Promise<Frame>} */
  const next = (type) =>
    new Promise((resolve, reject) => {
      const check = () => {
        const found = frames.find((f) => f.t === type);
        if (found) {
          waiters.delete(check);
          resolve(found);
        }
      };
      waiters.add(check);
      check();
      closed.then(() => {
        check();
        if (waiters.has(check)) {
          waiters.delete(check);
          reject(new Error(`closed before a "${type}" frame arrived; got ${frames.map((f) => f.t).join(', ')}`));
        }
      });
    });
  const opened = new Promise((resolve, reject) => {
    ws.on('open', () => resolve(undefined));
    ws.on('close', () => reject(new Error('closed before opening')));
  });
  opened.catch(() => {});
  /** @type {Promise<number | 'upgraded'>} the handshake's outcome: a refusal's HTTP status, or 'upgraded' */
  const outcome = Promise.race([refused, opened.then(() => /** @type {const} */ ('upgraded'))]);
  return { ws, frames, next, closed, refused, opened, outcome };
}

/**
 * Resolves when the process with this pid has exited; fails naming it after `tries` looks. Portable
 * (no GNU `tail --pid`): it asks the system with signal 0, a bounded number of times, because the
 * process is not always a child of the test (an exec's command is the server's, or its shell's).
 * @param {number} pid @param {{tries?: number, everyMs?: number}} [options]
 */
export async function processGone(pid, { tries = 400, everyMs = 25 } = {}) {
  for (let i = 1; processExists(pid); i++) {
    if (i >= tries) throw new Error(`process ${pid} still runs after ${tries} checks`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Whether a process exists. @param {number} pid */
export function processExists(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Resolves with the next `status` event of a client whose status is `status`.
 * @param {EventTarget} client @param {string} status
 * @returns {Promise<Event & {status: string, error?: unknown}>}
 */
export function statusBecomes(client, status) {
  return new Promise((resolve) => {
    /** @param {Event} e */
    const on = (e) => {
      const event = /** @type {Event & {status: string, error?: unknown}} */ (e);
      if (event.status === status) {
        client.removeEventListener('status', on);
        resolve(event);
      }
    };
    client.addEventListener('status', on);
  });
}
