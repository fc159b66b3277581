// Why this file is long: the client is one state machine (connect, sign in, reconnect) whose
// channels (processes, files, relay requests) all share its send path and its disconnect rules;
// split, each kind of channel would have to reach into the connection's private state.
//
// The wsh client, for the browser and Node: `WshClient.connect(url, {key})` signs in with an
// Ed25519 key (the server sends a nonce; the client signs it with the host it meant to reach),
// then runs commands, terminals, file transfers and relayed HTTP requests on numbered channels
// of one connection. A dropped connection is retried with back-off; what was running on it
// fails with `disconnected`, and new calls wait for the connection to come back.
import { WshError, WshMcpError, WshRefusedError } from './errors.js';
import { publicKeyBlob, sign, toBase64 } from './keys.js';
import {
  CHUNK_BYTES,
  MAX_PAYLOAD_BYTES,
  PROTOCOL_VERSION,
  authMessage,
  chunks,
  concatBytes,
  decodeFrame,
  encodeFrame,
  errorFromHeader,
  sha256Hex,
} from './protocol.js';
import { chooseTransport, openWebSocket, openWebTransport } from './transport.js';

/** @import { Frame, FrameType, FRAME_SCHEMAS } from './protocol.js' */
/** @import { Transport, WebSocketConstructor, WebTransportConstructor } from './transport.js' */

/** Sending waits while more than this is queued on the connection. */
const SEND_HIGH_WATER = 4 * 1024 * 1024;
/** The most `exec` gathers of a command's output unless told otherwise (it is all held in memory). */
const DEFAULT_MAX_OUTPUT = 64 * 1024 * 1024;
/** The numbers of the signals, for the shell's exit code of a killed process (128 + n). */
const SIGNAL_NUMBERS = /** @type {Record<string, number>} */ ({ SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15, SIGTSTP: 20 });
/** Errors after which trying again cannot help. */
const PERMANENT = new Set(['auth_failed', 'version_mismatch', 'origin_refused', 'host_refused', 'malformed_frame']);

/** @type {WebSocketConstructor | undefined} */
let defaultWebSocket;
/** Sets the WebSocket used when none is given and the runtime has none (the Node entry sets `ws`'s). @param {WebSocketConstructor} impl */
export function setDefaultWebSocket(impl) {
  defaultWebSocket = impl;
}

/**
 * @typedef {object} ConnectOptions
 * @property {CryptoKeyPair} key the key pair to sign in with (its public key must be in the server's keys file)
 * @property {AbortSignal} [signal] cancels connecting
 * @property {boolean | {minDelayMs?: number, maxDelayMs?: number, maxAttempts?: number}} [reconnect] true by default
 * @property {'auto' | 'websocket' | 'webtransport'} [transport] 'auto': WebTransport when the server offers it
 * @property {WebSocketConstructor} [WebSocket]
 * @property {WebTransportConstructor | null} [WebTransport]
 * @property {{setTimeout?: (run: () => void, ms: number) => unknown, random?: () => number}} [timers] the clock and the jitter
 *   source of the reconnect back-off (default: the global `setTimeout`, `Math.random`); a seam for tests
 */

/** @typedef {'connecting' | 'open' | 'reconnecting' | 'idle' | 'closed'} ClientStatus */
/** @typedef {{stdout: string, stderr: string, exitCode: number, signal: string | null}} ExecResult */
/** @typedef {{stdout: Uint8Array, stderr: Uint8Array, exitCode: number, signal: string | null}} ExecBytesResult */
/** @typedef {{type: 'stdout' | 'stderr', data: Uint8Array}} OutputPart */
/** @typedef {{exitCode: number, signal: string | null}} ExitStatus */
/** @typedef {z.infer<typeof FRAME_SCHEMAS.welcome>} Welcome */
/** @import { z } from 'zod' */
/**
 * Answers one forwarded MCP request: resolves with its result object, or throws (an `rpcCode` on
 * the error sets the JSON-RPC error code; else -32603).
 * @typedef {(method: 'tools/list' | 'tools/call', params: Record<string, unknown>, signal: AbortSignal) => Promise<object>} McpCallHandler
 */
/**
 * A live exposure: `stop()` ends it (the server then answers its tokens with a clear error);
 * `ended` resolves with `{stopped: true}` after stop, or `{stopped: false, error}` when the connection dropped.
 * @typedef {{channel: number, ended: Promise<{stopped: boolean, error?: unknown}>, stop: () => Promise<void>}} McpExposure
 */

/**
 * A queue read as an async iterable: one producer (frames), one reader.
 * @template T
 */
class PartQueue {
  /** @type {T[]} */ #items = [];
  /** @type {((r: IteratorResult<T>) => void) | null} */ #wake = null;
  /** @type {((e: unknown) => void) | null} */ #wakeError = null;
  #done = false;
  /** @type {unknown} */ #error = null;

  /** @param {T} item */
  push(item) {
    if (this.#done) return;
    if (this.#wake) {
      const wake = this.#wake;
      this.#wake = this.#wakeError = null;
      wake({ value: item, done: false });
    } else this.#items.push(item);
  }
  /** @param {unknown} [error] */
  end(error) {
    if (this.#done) return;
    this.#done = true;
    this.#error = error ?? null;
    if (this.#wake) {
      const [wake, wakeError] = [this.#wake, this.#wakeError];
      this.#wake = this.#wakeError = null;
      if (error) wakeError?.(error);
      else wake({ value: undefined, done: true });
    }
  }
  /** @returns {AsyncIterator<T>} */
  [Symbol.asyncIterator]() {
    return {
      next: () => {
        if (this.#items.length) return Promise.resolve({ value: /** @type {T} */ (this.#items.shift()), done: false });
        if (this.#done) return this.#error ? Promise.reject(this.#error) : Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve, reject) => {
          this.#wake = resolve;
          this.#wakeError = reject;
        });
      },
    };
  }
}

/** A process on the server: its output as an async iterable of tagged parts, its input, its terminal. */
export class WshProcess {
  /** @type {PartQueue<OutputPart>} */ #parts = new PartQueue();
  /** @type {(s: ExitStatus) => void} */ #resolveExit = () => {};
  /** @type {(e: unknown) => void} */ #rejectExit = () => {};
  #ended = false;

  /**
   * @param {WshClient} client
   * @param {number} channel
   * @param {{mode: 'pty' | 'pipe', pid?: number}} opened
   * @param {(t: FrameType, header: object, payload?: Uint8Array) => Promise<void>} send
   */
  constructor(client, channel, opened, send) {
    this.client = client;
    this.channel = channel;
    /** 'pty': a real terminal on the server; 'pipe': plain pipes (the server has no node-pty). */
    this.mode = opened.mode;
    this.pid = opened.pid;
    this.#send = send;
    /** Resolves with the exit status; rejects if the channel fails (`disconnected`, `output_limit`…). */
    this.exited = /** @type {Promise<ExitStatus>} */ (
      new Promise((resolve, reject) => {
        this.#resolveExit = resolve;
        this.#rejectExit = reject;
      })
    );
    this.exited.catch(() => {}); // read through the parts or `exited`; never unhandled
  }
  /** @type {(t: FrameType, header: object, payload?: Uint8Array) => Promise<void>} */ #send;

  /** @param {Frame} frame @internal */
  receive(frame) {
    if (frame.t === 'stdout' || frame.t === 'stderr') this.#parts.push({ type: frame.t, data: frame.payload });
    else if (frame.t === 'exit') {
      const { code, signal } = /** @type {Frame<'exit'>} */ (frame).header;
      this.#ended = true;
      this.#resolveExit({ exitCode: code ?? 128 + (SIGNAL_NUMBERS[signal ?? ''] ?? 0), signal });
      this.#parts.end();
    }
  }
  /** @param {unknown} error @internal */
  fail(error) {
    if (this.#ended) return;
    this.#ended = true;
    this.#rejectExit(error);
    this.#parts.end(error);
  }

  /** stdout and stderr as they arrive, in order: `{type: 'stdout' | 'stderr', data}`; ends when the process exits. */
  [Symbol.asyncIterator]() {
    return this.#parts[Symbol.asyncIterator]();
  }
  /** Writes to its input. @param {string | Uint8Array} data */
  async write(data) {
    const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
    for (const piece of chunks(bytes)) await this.#send('stdin', {}, piece);
  }
  /** Closes its input (end of file). */
  async end() {
    await this.#send('stdin', { eof: true });
  }
  /** Resizes its terminal. @param {number} cols @param {number} rows */
  async resize(cols, rows) {
    await this.#send('resize', { cols, rows });
  }
  /** Sends a signal to its process group (Ctrl-C is SIGINT). @param {(typeof import('./protocol.js').SIGNALS)[number]} [signal] */
  async kill(signal = 'SIGTERM') {
    await this.#send('signal', { signal });
  }
  /** Closes the channel: the server hangs the process up. */
  async close() {
    await this.#send('close', {}).catch(() => {});
    this.fail(new WshError('closed', 'The process channel was closed.'));
  }
}

export class WshClient extends EventTarget {
  /** @type {Transport | null} */ #transport = null;
  /** @type {Map<number, (frame: Frame) => void>} */ #channels = new Map();
  /** @type {Map<number, (error: unknown) => void>} */ #failers = new Map();
  #nextChannel = 1;
  /** @type {ClientStatus} */ #status = 'connecting';
  /** @type {Promise<void> | null} */ #connecting = null;
  #attempts = 0;
  #pingId = 0;
  /** @type {Welcome | null} */ #welcome = null;
  /** What the server's hello offered beyond the basics (an older server offers no MCP). */
  #serves = { mcp: false, hooks: false };

  /** @param {string} url @param {ConnectOptions} options */
  constructor(url, options) {
    super();
    this.url = url;
    this.options = options;
  }

  /**
   * Connects and signs in; rejects with a WshError (`connect_failed`, `auth_failed`, `version_mismatch`, `aborted`).
   * @param {string} url e.g. ws://127.0.0.1:8022/wsh
   * @param {ConnectOptions} options
   */
  static async connect(url, options) {
    const client = new WshClient(url, options);
    await client.#connect(options.signal);
    return client;
  }

  /** @returns {ClientStatus} */
  get status() {
    return this.#status;
  }
  /** What the server said when this key signed in: whether it has a PTY and a relay, and the key's limits. */
  get server() {
    return this.#welcome;
  }
  /** 'websocket' or 'webtransport' (null before connecting). */
  get transport() {
    return this.#transport?.kind ?? null;
  }

  /** @param {ClientStatus} status @param {unknown} [error] */
  #setStatus(status, error) {
    if (this.#status === status) return;
    this.#status = status;
    this.dispatchEvent(Object.assign(new Event('status'), { status, error }));
  }

  /** @param {AbortSignal} [signal] */
  #connect(signal) {
    this.#connecting ??= this.#open(signal).finally(() => {
      this.#connecting = null;
    });
    return this.#connecting;
  }

  /**
   * Opens the connection and signs in. An abort at any step before the connection is ready (the
   * socket opening, the hello, the WebTransport hop, the sign-in's answer) rejects with `aborted`;
   * any failure closes what was opened.
   * @param {AbortSignal} [signal]
   */
  async #open(signal) {
    const WebSocketImpl =
      this.options.WebSocket ?? defaultWebSocket ?? /** @type {WebSocketConstructor | undefined} */ (globalThis.WebSocket);
    if (!WebSocketImpl)
      throw new WshError('connect_failed', 'No WebSocket here: in Node, import the package by its name (its Node entry uses ws).');
    /** @type {Transport[]} what is open so far, closed if connecting fails */
    const open = [];
    /**
     * A step of connecting, cancelled by the signal.
     * @template R @param {Promise<R>} step @returns {Promise<R>}
     */
    const abortable = (step) => {
      if (!signal) return step;
      return new Promise((resolve, reject) => {
        const onAbort = () => reject(new WshError('aborted', 'Connecting was cancelled.'));
        if (signal.aborted) onAbort();
        signal.addEventListener('abort', onAbort, { once: true });
        step.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
      });
    };
    try {
      if (signal?.aborted) throw new WshError('aborted', 'Connecting was cancelled.');
      let transport = await openWebSocket(this.url, WebSocketImpl, signal);
      open.push(transport);
      let hello = await abortable(this.#nextFrame(transport, 'hello'));
      // any: WebTransport is not in every lib's types yet
      const fromGlobal = /** @type {WebTransportConstructor | undefined} */ (/** @type {any} */ (globalThis).WebTransport);
      const WebTransportImpl = this.options.WebTransport === undefined ? fromGlobal : this.options.WebTransport;
      const pick = chooseTransport(hello, { preference: this.options.transport ?? 'auto', hasWebTransport: Boolean(WebTransportImpl) });
      let authHost = new URL(this.url).host;
      if (pick === 'webtransport' && WebTransportImpl && hello.webtransport) {
        try {
          const wt = await openWebTransport(hello.webtransport, WebTransportImpl, signal);
          open.push(wt);
          hello = await abortable(this.#nextFrame(wt, 'hello'));
          transport.close(1000, 'moved to WebTransport');
          transport = wt;
          authHost = new URL(hello.webtransport ?? this.url).host;
        } catch (err) {
          if (this.options.transport === 'webtransport' || (err instanceof WshError && err.code === 'aborted')) throw err;
          // auto: stay on the WebSocket
          open.splice(1).forEach((t) => t.close(1000, 'staying on the WebSocket'));
        }
      }
      const key = this.options.key;
      const signature = await abortable(sign(key, authMessage(hello.nonce, authHost)));
      transport.send(
        encodeFrame('auth', 0, {
          version: PROTOCOL_VERSION,
          publicKey: await publicKeyBlob(key),
          signature: toBase64(signature),
          host: authHost,
        }),
      );
      const welcome = await abortable(this.#nextFrame(transport, 'welcome'));
      this.#welcome = welcome;
      this.#serves = { mcp: hello.mcp === true, hooks: hello.hooks === true };
      this.#transport = transport;
      this.#attempts = 0;
      this.#setStatus('open');
      transport.listen(
        (bytes) => this.#receive(bytes),
        (info) => this.#lost(transport, info),
      );
    } catch (err) {
      const code = err instanceof WshError && err.code === 'version_mismatch' ? 1002 : 1000;
      for (const t of open) t.close(code, err instanceof WshError ? err.code : 'connecting failed');
      throw err;
    }
  }

  /**
   * The next frame on a transport during sign-in: the expected type, or the server's error.
   * @template {'hello' | 'welcome'} T
   * @param {Transport} transport @param {T} type
   * @returns {Promise<Frame<T>['header']>}
   */
  #nextFrame(transport, type) {
    return new Promise((resolve, reject) => {
      const onframe = (/** @type {Uint8Array} */ bytes) => {
        try {
          const frame = decodeFrame(bytes);
          if (frame.t === 'error') reject(errorFromHeader(/** @type {Frame<'error'>} */ (frame).header));
          else if (frame.t !== type) reject(new WshError('malformed_frame', `Expected "${type}" from the server, got "${frame.t}".`));
          else {
            if (type === 'hello' && !(/** @type {Frame<'hello'>} */ (frame).header.versions.includes(PROTOCOL_VERSION)))
              reject(
                new WshError(
                  'version_mismatch',
                  `The server speaks wsh ${/** @type {Frame<'hello'>} */ (frame).header.versions}; this client speaks ${PROTOCOL_VERSION}.`,
                ),
              );
            else resolve(/** @type {Frame<T>['header']} */ (frame.header));
          }
        } catch (err) {
          transport.close(1002, 'protocol error');
          reject(err);
        }
      };
      transport.listen(onframe, ({ code }) =>
        reject(new WshError('connect_failed', `The server closed the connection during sign-in (code ${code}).`)),
      );
    });
  }

  /** @type {unknown} */ #lastServerError = null;

  /** @param {Uint8Array} bytes */
  #receive(bytes) {
    /** @type {Frame} */
    let frame;
    try {
      frame = decodeFrame(bytes);
    } catch (err) {
      this.#transport?.close(1002, 'protocol error');
      this.#lastServerError = err;
      return;
    }
    if (frame.channel === 0) {
      if (frame.t === 'ping') this.#transport?.send(encodeFrame('pong', 0, /** @type {Frame<'ping'>} */ (frame).header));
      else if (frame.t === 'pong') {
        const pong = /** @type {Frame<'pong'>} */ (frame);
        this.#channels.get(-(pong.header.id ?? 0))?.(frame);
      } else if (frame.t === 'error') this.#lastServerError = errorFromHeader(/** @type {Frame<'error'>} */ (frame).header);
      return;
    }
    this.#channels.get(frame.channel)?.(frame);
  }

  /**
   * The connection dropped: fail what ran on it, then reconnect unless that cannot help.
   * @param {Transport} transport
   * @param {{code: number, reason: string}} info
   */
  #lost(transport, info) {
    if (this.#transport !== transport) return;
    this.#transport = null;
    const cause = /** @type {WshError | null} */ (this.#lastServerError);
    this.#lastServerError = null;
    const error =
      cause ??
      new WshError('disconnected', `The connection to ${this.url} was lost (code ${info.code}${info.reason ? `: ${info.reason}` : ''}).`);
    const failing =
      error.code === 'disconnected' ? error : new WshError('disconnected', `Disconnected: ${error.message}`, { cause: error });
    for (const fail of [...this.#failers.values()]) fail(failing);
    this.#channels.clear();
    this.#failers.clear();
    if (this.#status === 'closed') return;
    if (error.code === 'idle_timeout') {
      this.#setStatus('idle', error); // reconnects on the next call
      return;
    }
    if (PERMANENT.has(error.code) || this.options.reconnect === false) {
      this.#setStatus('closed', error);
      return;
    }
    this.#scheduleReconnect(error);
  }

  /** @param {unknown} error */
  #scheduleReconnect(error) {
    const settings = typeof this.options.reconnect === 'object' ? this.options.reconnect : {};
    const min = settings.minDelayMs ?? 250;
    const max = settings.maxDelayMs ?? 15000;
    if (settings.maxAttempts !== undefined && this.#attempts >= settings.maxAttempts) {
      this.#setStatus('closed', error);
      return;
    }
    this.#setStatus('reconnecting', error);
    const { setTimeout: later = setTimeout, random = Math.random } = this.options.timers ?? {};
    // Doubling from min, capped at max; the jitter takes off up to half so that clients dropped together spread out.
    const delay = Math.min(max, min * 2 ** this.#attempts) * (0.5 + random() / 2);
    this.#attempts++;
    const attempt = new Promise((resolve) => later(() => resolve(undefined), delay)).then(() => {
      if (this.#status === 'closed') return;
      return this.#open().catch((err) => {
        if (this.#status === 'closed') return;
        if (err instanceof WshError && PERMANENT.has(err.code)) this.#setStatus('closed', err);
        else this.#scheduleReconnect(err); // sets the next attempt before this one settles
      });
    });
    this.#connecting = attempt;
    attempt.finally(() => {
      if (this.#connecting === attempt) this.#connecting = null;
    });
  }

  /** Waits for a usable connection (reconnecting after an idle close); throws `closed` once closed. */
  async #ready() {
    for (;;) {
      if (this.#status === 'open' && this.#transport) return this.#transport;
      if (this.#status === 'closed')
        throw new WshError('closed', 'This client is closed (close() was called, or the server refused it for good).');
      if (this.#status === 'idle') this.#setStatus('connecting');
      if (this.#connecting) await this.#connecting;
      else await this.#connect();
    }
  }

  /**
   * Sends a frame, waiting while the connection is full.
   * @param {FrameType} t
   * @param {number} channel
   * @param {object} header
   * @param {Uint8Array} [payload]
   */
  async #send(t, channel, header, payload) {
    const transport = this.#transport;
    if (!transport || this.#status !== 'open') throw new WshError('disconnected', 'Not connected.');
    while (transport.buffered() > SEND_HIGH_WATER && this.#transport === transport) await new Promise((r) => setTimeout(r, 5));
    if (this.#transport !== transport) throw new WshError('disconnected', 'The connection was lost while sending.');
    // any: the caller pairs the type and its header
    transport.send(encodeFrame(/** @type {any} */ (t), channel, /** @type {any} */ (header), payload));
  }

  /**
   * Opens a channel: sends the opening frame, resolves with the server's `open` (or rejects with its refusal).
   * @param {FrameType} t @param {object} header
   * @param {(frame: Frame) => void} onFrame frames after `open`
   * @param {(error: unknown) => void} onFail the connection dropped, or the channel failed after opening
   * @param {AbortSignal} [signal]
   * @returns {Promise<{channel: number, opened: Frame<'open'>['header']}>}
   */
  async #openChannel(t, header, onFrame, onFail, signal) {
    const aborted = () => new WshError('aborted', 'Cancelled.');
    if (signal?.aborted) throw aborted();
    await this.#ready();
    if (signal?.aborted) throw aborted();
    const channel = this.#nextChannel++;
    return new Promise((resolve, reject) => {
      let opened = false;
      const fail = (/** @type {unknown} */ error) => {
        this.#channels.delete(channel);
        this.#failers.delete(channel);
        signal?.removeEventListener('abort', onAbort);
        if (opened) onFail(error);
        else reject(error);
      };
      const onAbort = () => {
        this.#send('close', channel, {}).catch(() => {});
        fail(aborted());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#failers.set(channel, fail);
      this.#channels.set(channel, (frame) => {
        if (frame.t === 'error') {
          fail(errorFromHeader(/** @type {Frame<'error'>} */ (frame).header));
        } else if (!opened && frame.t === 'open') {
          opened = true;
          resolve({ channel, opened: /** @type {Frame<'open'>} */ (frame).header });
        } else if (frame.t === 'close') {
          this.#channels.delete(channel);
          this.#failers.delete(channel);
          signal?.removeEventListener('abort', onAbort);
          onFrame(frame);
        } else onFrame(frame);
      });
      this.#send(t, channel, header).catch(fail);
    });
  }

  /**
   * Starts a process. `pty`: a terminal (`true` or `{cols, rows}`), a real PTY when the server
   * has node-pty — `proc.mode` says which it got.
   * @param {string | string[] | undefined} cmd a command line (run by the shell when the key allows any command) or argv;
   *   undefined with `pty`: the user's login shell
   * @param {{pty?: boolean | {cols?: number, rows?: number}, cwd?: string, env?: Record<string, string>, signal?: AbortSignal}} [options]
   * @returns {Promise<WshProcess>}
   */
  async spawn(cmd, { pty, cwd, env, signal } = {}) {
    /** @type {WshProcess | null} */
    let proc = null;
    /** @type {Frame[]} */
    const early = [];
    /** @type {unknown} */
    let earlyError = null;
    const terminal = pty ? { cols: (typeof pty === 'object' && pty.cols) || 80, rows: (typeof pty === 'object' && pty.rows) || 24 } : null;
    const { channel, opened } = await this.#openChannel(
      terminal ? 'pty' : 'exec',
      { cmd, cwd, env, ...terminal },
      (frame) => (proc ? proc.receive(frame) : early.push(frame)),
      (error) => {
        if (proc) proc.fail(error);
        else earlyError = error;
      },
      signal,
    );
    const created = new WshProcess(this, channel, /** @type {{mode: 'pty' | 'pipe', pid?: number}} */ (opened), (t, header, payload) =>
      this.#send(t, channel, header, payload),
    );
    proc = created;
    for (const f of early) created.receive(f);
    if (earlyError) created.fail(earlyError);
    signal?.addEventListener('abort', () => created.kill('SIGKILL').catch(() => {}), { once: true });
    return created;
  }

  /**
   * Runs a command to its end and gathers its output.
   * @overload
   * @param {string | string[]} cmd
   * @param {{cwd?: string, env?: Record<string, string>, stdin?: string | Uint8Array | Blob, signal?: AbortSignal,
   *   maxOutputBytes?: number, encoding?: 'utf8'}} [options]
   * @returns {Promise<ExecResult>}
   */
  /**
   * @overload
   * @param {string | string[]} cmd
   * @param {{cwd?: string, env?: Record<string, string>, stdin?: string | Uint8Array | Blob, signal?: AbortSignal,
   *   maxOutputBytes?: number, encoding: 'binary'}} options
   * @returns {Promise<ExecBytesResult>}
   */
  /**
   * @param {string | string[]} cmd
   * @param {{cwd?: string, env?: Record<string, string>, stdin?: string | Uint8Array | Blob, signal?: AbortSignal,
   *   maxOutputBytes?: number, encoding?: 'utf8' | 'binary'}} [options]
   * @returns {Promise<ExecResult | ExecBytesResult>}
   */
  async exec(cmd, { cwd, env, stdin, signal, maxOutputBytes = DEFAULT_MAX_OUTPUT, encoding = 'utf8' } = {}) {
    const proc = await this.spawn(cmd, { cwd, env, signal });
    if (stdin !== undefined) await proc.write(stdin instanceof Blob ? new Uint8Array(await stdin.arrayBuffer()) : stdin);
    await proc.end();
    /** @type {Uint8Array[]} */
    const out = [];
    /** @type {Uint8Array[]} */
    const err = [];
    let total = 0;
    try {
      for await (const part of proc) {
        total += part.data.byteLength;
        if (total > maxOutputBytes) {
          await proc.close();
          throw new WshError(
            'output_too_large',
            `The command wrote more than ${maxOutputBytes} bytes; use spawn() to stream large output.`,
          );
        }
        (part.type === 'stdout' ? out : err).push(part.data);
      }
    } catch (e) {
      if (signal?.aborted) throw new WshError('aborted', 'The command was cancelled.');
      throw e;
    }
    const { exitCode, signal: killedBy } = await proc.exited;
    const stdout = concatBytes(out);
    const stderr = concatBytes(err);
    if (encoding === 'binary') return { stdout, stderr, exitCode, signal: killedBy };
    const text = new TextDecoder();
    return { stdout: text.decode(stdout), stderr: text.decode(stderr), exitCode, signal: killedBy };
  }

  /**
   * Writes a file on the server (within the key's directories), checked by SHA-256 before it replaces anything.
   * @param {string} path
   * @param {Blob | Uint8Array | string} data
   * @param {{mode?: number, signal?: AbortSignal}} [options]
   * @returns {Promise<{size: number, sha256: string}>}
   */
  async put(path, data, { mode, signal } = {}) {
    const bytes =
      typeof data === 'string' ? new TextEncoder().encode(data) : data instanceof Blob ? new Uint8Array(await data.arrayBuffer()) : data;
    const sha256 = await sha256Hex(bytes);
    /** @type {(v: {size: number, sha256: string}) => void} */
    let done = () => {};
    /** @type {(e: unknown) => void} */
    let failed = () => {};
    const result = new Promise((resolve, reject) => {
      done = resolve;
      failed = reject;
    });
    const { channel } = await this.#openChannel(
      'put',
      { path, size: bytes.byteLength, mode },
      (frame) => {
        if (frame.t === 'done') done(/** @type {Frame<'done'>} */ (frame).header);
      },
      (error) => failed(error),
      signal,
    );
    for (const piece of chunks(bytes, CHUNK_BYTES)) await this.#send('chunk', channel, {}, piece);
    await this.#send('end', channel, { sha256, size: bytes.byteLength });
    const written = /** @type {{size: number, sha256: string}} */ (await result);
    if (written.sha256 !== sha256) throw new WshError('checksum_mismatch', 'The server wrote different bytes than were sent.');
    return written;
  }

  /**
   * Reads a file from the server (within the key's directories), checked by SHA-256. With
   * `maxSize`, a bigger file is refused with `file_too_large` before any of it is sent (an older
   * server that does not know `maxSize` announces the size as it opens: the client closes then).
   * @param {string} path
   * @param {{signal?: AbortSignal, maxSize?: number}} [options]
   * @returns {Promise<Blob>}
   */
  async get(path, { signal, maxSize } = {}) {
    /** @type {Uint8Array[]} */
    const parts = [];
    /** @type {(v: {sha256?: string, size?: number}) => void} */
    let done = () => {};
    /** @type {(e: unknown) => void} */
    let failed = () => {};
    const ended = new Promise((resolve, reject) => {
      done = resolve;
      failed = reject;
    });
    ended.catch(() => {}); // awaited below, unless the size check refuses first
    const { channel, opened } = await this.#openChannel(
      'get',
      maxSize === undefined ? { path } : { path, maxSize },
      (frame) => {
        if (frame.t === 'chunk') parts.push(frame.payload);
        else if (frame.t === 'end') done(/** @type {Frame<'end'>} */ (frame).header);
      },
      (error) => failed(error),
      signal,
    );
    if (maxSize !== undefined && opened.size !== undefined && opened.size > maxSize) {
      this.#channels.delete(channel);
      this.#failers.delete(channel);
      this.#send('close', channel, {}).catch(() => {});
      throw new WshError('file_too_large', `"${path}" is ${opened.size} bytes, over the ${maxSize} asked for at most.`);
    }
    const end = /** @type {{sha256?: string, size?: number}} */ (await ended);
    const bytes = concatBytes(parts);
    const got = await sha256Hex(bytes);
    if (got !== end.sha256 || bytes.byteLength !== end.size)
      throw new WshError('checksum_mismatch', `"${path}" arrived damaged (${bytes.byteLength} of ${end.size} bytes); try again.`);
    return new Blob([/** @type {Uint8Array<ArrayBuffer>} */ (bytes)]);
  }

  /**
   * An HTTP request made by the server (the relay), to a host on its --relay-allow list; the
   * response streams (SSE, NDJSON) as it arrives. Same arguments and result as `fetch`.
   * @param {string | URL} url
   * @param {RequestInit} [init]
   * @returns {Promise<Response>}
   */
  async fetch(url, init = {}) {
    const request = new Request(url, init);
    const body = init.body === undefined || init.body === null ? null : new Uint8Array(await request.arrayBuffer());
    /** @type {[string, string][]} */
    const headers = [];
    request.headers.forEach((value, name) => headers.push([name, value]));
    const signal = init.signal ?? undefined;
    /** @type {ReadableStreamDefaultController<Uint8Array> | null} */
    let sink = null;
    /** @type {number | null} */
    let channelId = null;
    // Made before the channel opens: body chunks may arrive right behind the response head.
    const stream = new ReadableStream({
      start: (controller) => {
        sink = controller;
      },
      cancel: () => {
        if (channelId !== null) this.#send('close', channelId, {}).catch(() => {});
      },
    });
    /** @type {(h: Frame<'response'>['header']) => void} */
    let onResponse = () => {};
    /** @type {(e: unknown) => void} */
    let onFail = () => {};
    const responded = /** @type {Promise<Frame<'response'>['header']>} */ (
      new Promise((resolve, reject) => {
        onResponse = resolve;
        onFail = reject;
      })
    );
    const { channel } = await this.#openChannel(
      'fetch',
      { url: String(url), method: request.method, headers, body: body !== null },
      (frame) => {
        if (frame.t === 'response') onResponse(/** @type {Frame<'response'>} */ (frame).header);
        else if (frame.t === 'chunk') sink?.enqueue(frame.payload);
        else if (frame.t === 'end') sink?.close();
      },
      (error) => {
        onFail(error);
        sink?.error(error);
      },
      signal,
    );
    if (body) {
      for (const piece of chunks(body)) await this.#send('chunk', channel, {}, piece);
      await this.#send('end', channel, {});
    }
    channelId = channel;
    const head = await responded;
    const nullBody = [101, 204, 205, 304].includes(head.status) || request.method === 'HEAD';
    const response = new Response(nullBody ? null : stream, {
      status: head.status < 200 ? 200 : head.status,
      statusText: head.statusText,
      headers: head.headers,
    });
    Object.defineProperty(response, 'url', { value: head.url });
    return response;
  }

  /**
   * Exposes tools to outside MCP clients: the server's /mcp forwards `tools/list` and
   * `tools/call` requests that carry one of `tokens` (their SHA-256 is all the server gets) to
   * `onCall`, whose result (an MCP result object) or thrown error (`rpcCode`, `message`) is the
   * answer. Ends when `stop()` is called or the connection drops (`ended` says which).
   * @param {{name: string, tokens: string[], onCall: McpCallHandler, signal?: AbortSignal}} options
   *   tokens: the tokens themselves or their SHA-256 in hex (64 characters)
   * @returns {Promise<McpExposure>}
   */
  async expose({ name, tokens, onCall, signal }) {
    await this.#ready();
    if (!this.#serves.mcp)
      throw new WshRefusedError(
        'mcp_unsupported',
        'This wsh server serves no MCP (an older version): update it (npx wsh-server@latest) to expose tools.',
      );
    const hashes = await Promise.all(tokens.map((t) => (/^[0-9a-f]{64}$/.test(t) ? t : sha256Hex(new TextEncoder().encode(t)))));
    /** @type {Map<number, AbortController>} */
    const running = new Map();
    /** @type {(reason: {stopped: boolean, error?: unknown}) => void} */
    let finish = () => {};
    const ended = /** @type {Promise<{stopped: boolean, error?: unknown}>} */ (
      new Promise((resolve) => {
        finish = resolve;
      })
    );
    let channelId = 0;
    /** @param {number} id @param {boolean} ok @param {unknown} body */
    const reply = (id, ok, body) => {
      let bytes = new TextEncoder().encode(JSON.stringify(body));
      if (bytes.byteLength > MAX_PAYLOAD_BYTES) {
        ok = false;
        bytes = new TextEncoder().encode(
          JSON.stringify({ code: -32603, message: `The result is over ${MAX_PAYLOAD_BYTES} bytes, more than one answer carries.` }),
        );
      }
      this.#send('reply', channelId, { id, ok }, bytes).catch(() => {});
    };
    /** @param {Frame} frame */
    const onFrame = (frame) => {
      if (frame.t === 'cancel') running.get(/** @type {Frame<'cancel'>} */ (frame).header.id)?.abort();
      else if (frame.t === 'close') {
        for (const c of running.values()) c.abort();
        finish({ stopped: true });
      } else if (frame.t === 'call') {
        const { id, method } = /** @type {Frame<'call'>} */ (frame).header;
        const abort = new AbortController();
        running.set(id, abort);
        (async () => {
          /** @type {unknown} */
          let params;
          try {
            params = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(frame.payload));
          } catch {
            throw new WshMcpError(-32700, 'The request’s params are not JSON.');
          }
          if (!params || typeof params !== 'object' || Array.isArray(params))
            throw new WshMcpError(-32602, 'The request’s params are not an object.');
          return onCall(method, /** @type {Record<string, unknown>} */ (params), abort.signal);
        })()
          .then(
            (result) => reply(id, true, result),
            (err) => {
              const e = /** @type {{rpcCode?: unknown, message?: unknown}} */ (err);
              const code = typeof e?.rpcCode === 'number' && Number.isInteger(e.rpcCode) ? e.rpcCode : -32603;
              reply(id, false, { code, message: String(e?.message ?? err).slice(0, 4000) });
            },
          )
          .finally(() => running.delete(id));
      }
    };
    const { channel } = await this.#openChannel(
      'expose',
      { name, tokens: hashes },
      onFrame,
      (error) => {
        for (const c of running.values()) c.abort();
        finish({ stopped: false, error });
      },
      signal,
    );
    channelId = channel;
    return {
      channel,
      ended,
      stop: async () => {
        await this.#send('close', channel, {}).catch(() => {});
        for (const c of running.values()) c.abort();
        finish({ stopped: true });
      },
    };
  }

  /**
   * Takes incoming webhooks: the server's /hook/TOKEN (TOKEN one of `tokens`, of which the server
   * gets only the SHA-256) hands each POST's body to `onHook`; the sender is answered 202 once
   * `onHook` resolves true (503 when it resolves false or throws). Ends when `stop()` is called or
   * the connection drops (`ended` says which).
   * @param {{name: string, tokens: string[], onHook: (request: {contentType: string, body: Uint8Array}) => boolean | Promise<boolean>,
   *   signal?: AbortSignal}} options tokens: each at least 16 letters, digits, `-` or `_` (they are part of a URL)
   * @returns {Promise<{channel: number, ended: Promise<{stopped: boolean, error?: unknown}>, stop: () => Promise<void>}>}
   */
  async listenHooks({ name, tokens, onHook, signal }) {
    await this.#ready();
    if (!this.#serves.hooks)
      throw new WshRefusedError(
        'hook_unsupported',
        'This wsh server takes no incoming webhooks (an older version): update it (the Remote panel shows the command).',
      );
    if (tokens.some((t) => !/^[A-Za-z0-9_-]{16,256}$/.test(t)))
      throw new WshError('server_error', 'A webhook token is 16–256 letters, digits, - or _ (it is part of the address).');
    const hashes = await Promise.all(tokens.map((t) => sha256Hex(new TextEncoder().encode(t))));
    /** @type {(reason: {stopped: boolean, error?: unknown}) => void} */
    let finish = () => {};
    const ended = /** @type {Promise<{stopped: boolean, error?: unknown}>} */ (
      new Promise((resolve) => {
        finish = resolve;
      })
    );
    let channelId = 0;
    /** @param {Frame} frame */
    const onFrame = (frame) => {
      if (frame.t === 'close') finish({ stopped: true });
      else if (frame.t === 'hook') {
        const { id, contentType } = /** @type {Frame<'hook'>} */ (frame).header;
        Promise.resolve()
          .then(() => onHook({ contentType, body: frame.payload }))
          .then(
            (taken) => taken === true,
            () => false,
          )
          .then((ok) => this.#send('reply', channelId, { id, ok }, new TextEncoder().encode('{}')).catch(() => {}));
      }
    };
    const { channel } = await this.#openChannel(
      'listen',
      { name, tokens: hashes },
      onFrame,
      (error) => finish({ stopped: false, error }),
      signal,
    );
    channelId = channel;
    return {
      channel,
      ended,
      stop: async () => {
        await this.#send('close', channel, {}).catch(() => {});
        finish({ stopped: true });
      },
    };
  }

  /** A round trip to the server, in milliseconds. */
  async ping() {
    const transport = await this.#ready();
    const id = ++this.#pingId;
    const started = performance.now();
    await new Promise((resolve) => {
      this.#channels.set(-id, () => {
        this.#channels.delete(-id);
        resolve(undefined);
      });
      transport.send(encodeFrame('ping', 0, { id }));
    });
    return performance.now() - started;
  }

  /** Closes the connection for good: what runs on it is stopped by the server, and no reconnect follows. */
  close() {
    this.#setStatus('closed');
    const transport = this.#transport;
    this.#transport = null;
    for (const fail of [...this.#failers.values()]) fail(new WshError('closed', 'The client was closed.'));
    this.#channels.clear();
    this.#failers.clear();
    transport?.close(1000, 'client closed');
  }
}
