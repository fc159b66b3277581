// Why this file is long: one connection's state machine — sign-in, then channels (processes, files,
// relay requests) that share its send path, back-pressure and the key's session count; split, each
// kind of channel would have to reach into that private state.
//
// One client connection on the server: the challenge, the signature check, then the channels
// (processes, file transfers, relay requests) — every request checked against the key's limits
// before anything runs. A frame that breaks the protocol gets an `error` frame and the
// connection closed; the server and its other connections go on.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { WshError, WshProtocolError, WshRefusedError } from '../errors.js';
import { rawFromBlob, toBase64, fromBase64, verify } from '../keys.js';
import { CHUNK_BYTES, PROTOCOL_VERSION, authMessage, chunks, concatBytes, decodeFrame, encodeFrame, errorHeader } from '../protocol.js';
import { allowedPath, planCommand, planEnv } from './limits.js';
import { startProcess } from './processes.js';
import { checkRelayUrl, relayRequest } from './relay.js';
import { replyError } from './mcp.js';

/** @import { Frame, FrameType } from '../protocol.js' */
/** @import { KeyEntry } from './keys-file.js' */
/** @import { PtyModule, RunningProcess } from './processes.js' */

/** Output waiting in the socket above this pauses the producers (processes, file reads, relay bodies). */
const HIGH_WATER = 4 * 1024 * 1024;
const LOW_WATER = 1024 * 1024;
/**
 * Buffers for outgoing data frames, used again once the socket has written them: streamed output
 * (a frame per 64 KiB read from a pipe) then costs a copy into a buffer that exists already instead
 * of a new 64 KiB allocation each, which the garbage collector had to reclaim (issue 35's
 * throughput). A frame larger than a slab gets a buffer of its own.
 */
class FramePool {
  static SLAB = CHUNK_BYTES + 1024;
  /** @type {ArrayBuffer[]} */ #free = [];
  /** Slabs lent out now, by the views handed out. @type {WeakSet<Uint8Array>} */ #lent = new WeakSet();

  /** @param {number} size */
  take = (size) => {
    if (size > FramePool.SLAB) return new Uint8Array(size);
    const view = new Uint8Array(this.#free.pop() ?? new ArrayBuffer(FramePool.SLAB), 0, size);
    this.#lent.add(view);
    return view;
  };

  /** A frame the socket has written (or dropped): its slab can hold another. @param {Uint8Array} view */
  give = (view) => {
    if (!this.#lent.delete(view)) return;
    if (this.#free.length < 128) this.#free.push(/** @type {ArrayBuffer} */ (view.buffer));
  };
}
const framePool = new FramePool();

/** The most a relayed request's body may hold (prompts, MCP messages). */
const MAX_RELAY_BODY = 32 * 1024 * 1024;

/**
 * What the connection needs of the server.
 * @typedef {object} ServerContext
 * @property {() => Promise<KeyEntry[]>} keys the keys file as it is now
 * @property {PtyModule | null} pty
 * @property {(url: URL) => boolean} relayAllowed
 * @property {boolean} relayEnabled
 * @property {string | undefined} webtransport
 * @property {number} idleTimeoutMs
 * @property {number} authTimeoutMs
 * @property {Map<string, number>} sessions open channels by key blob, across connections
 * @property {(line: string) => void} log
 * @property {import('./mcp.js').McpGateway} mcp where exposures are registered (the /mcp endpoint)
 * @property {import('./hooks.js').HookGateway} hooks where webhook listeners are registered (the /hook/<token> endpoint)
 */

/**
 * The socket as this module uses it (a `ws` WebSocket).
 * @typedef {object} Socket
 * @property {(data: Uint8Array, cb: (err?: Error) => void) => void} send
 * @property {(code?: number, reason?: string) => void} close
 * @property {() => void} terminate
 * @property {(event: 'message', cb: (data: Buffer, isBinary: boolean) => void) => void} on
 */

/**
 * @typedef {object} Channel
 * @property {'process' | 'put' | 'get' | 'fetch' | 'expose' | 'listen'} kind
 * @property {RunningProcess} [process]
 * @property {number} [outputBytes]
 * @property {(frame: Frame) => void} [onFrame] put and fetch: their data frames
 * @property {() => void} close ends it (kills, deletes a half-written file, aborts)
 */

export class Connection {
  /** @type {KeyEntry | null} */ key = null;
  /** @type {Map<number, Channel>} */ channels = new Map();
  #pending = 0;
  /** @type {Set<() => void>} */ #drainWaiters = new Set();
  #closed = false;
  #signingIn = false;
  /** @type {Frame[]} */ #held = [];
  #heldBytes = 0;
  /** The highest channel id opened so far (ids only go up, so a stale frame is told from a bad one). */
  #highest = 0;
  #nonce = toBase64(randomBytes(32));
  /** @type {ReturnType<typeof setTimeout> | undefined} */ #timer;

  /**
   * @param {Socket} socket
   * @param {ServerContext} server
   * @param {{host: string, remote: string}} request the Host header the client used, its address
   */
  constructor(socket, server, request) {
    this.socket = socket;
    this.server = server;
    this.request = request;
    this.id = toBase64(randomBytes(9));
    socket.on('message', (data, isBinary) => this.#receive(data, isBinary));
    this.#send('hello', 0, {
      versions: [PROTOCOL_VERSION],
      nonce: this.#nonce,
      server: 'wsh-server/0.1',
      pty: Boolean(server.pty),
      relay: server.relayEnabled,
      transports: server.webtransport ? ['websocket', 'webtransport'] : ['websocket'],
      webtransport: server.webtransport,
      mcp: true,
      hooks: true,
    });
    this.#timer = setTimeout(
      () => this.fail(new WshRefusedError('auth_timeout', 'No authentication in time: connection closed.')),
      server.authTimeoutMs,
    );
  }

  /** Whether the socket can take more output now; else wait with `drained()`. */
  get writable() {
    return this.#pending < HIGH_WATER;
  }

  /** @returns {Promise<void>} */
  drained() {
    if (this.writable || this.#closed) return Promise.resolve();
    return new Promise((resolve) => this.#drainWaiters.add(resolve));
  }

  /**
   * @template {FrameType} T
   * @param {T} t @param {number} channel @param {import('zod').input<(typeof import('../protocol.js').FRAME_SCHEMAS)[T]>} header
   * @param {Uint8Array} [payload]
   */
  #send(t, channel, header, payload) {
    if (this.#closed) return;
    const frame = encodeFrame(t, channel, header, payload, framePool.take);
    this.#pending += frame.byteLength;
    this.socket.send(frame, () => {
      framePool.give(frame);
      this.#pending -= frame.byteLength;
      if (this.#pending < LOW_WATER && this.#drainWaiters.size) {
        const waiters = [...this.#drainWaiters];
        this.#drainWaiters.clear();
        for (const w of waiters) w();
      }
    });
  }

  /**
   * Sends bytes as data frames of payload size.
   * @param {'stdout' | 'stderr' | 'chunk'} t
   * @param {number} channel
   * @param {Uint8Array} bytes
   */
  #sendData(t, channel, bytes) {
    for (const piece of chunks(bytes)) this.#send(t, channel, {}, piece);
  }

  /** Ends the connection with an error frame saying why. @param {unknown} err */
  fail(err) {
    if (this.#closed) return;
    this.#send('error', 0, errorHeader(err));
    const code = err instanceof WshProtocolError ? 1002 : 1008;
    this.#closed = true;
    this.socket.close(code, err instanceof WshError ? err.code : 'error');
    this.cleanup();
  }

  /** The socket closed: stop everything it started. */
  cleanup() {
    this.#closed = true;
    clearTimeout(this.#timer);
    for (const id of [...this.channels.keys()]) this.#closeChannel(id);
    for (const w of this.#drainWaiters) w();
    this.#drainWaiters.clear();
  }

  #touch() {
    clearTimeout(this.#timer);
    if (this.#closed || !this.key) return;
    this.#timer = setTimeout(() => {
      if (this.channels.size === 0)
        this.fail(new WshError('idle_timeout', `Closed after ${Math.round(this.server.idleTimeoutMs / 1000)} s without use.`));
      else this.#touch();
    }, this.server.idleTimeoutMs);
  }

  /** @param {Buffer} data @param {boolean} isBinary */
  #receive(data, isBinary) {
    if (this.#closed) return;
    /** @type {Frame} */
    let frame;
    try {
      if (!isBinary) throw new WshProtocolError('malformed_frame', 'wsh frames are binary WebSocket messages, not text.');
      frame = decodeFrame(data);
    } catch (err) {
      this.server.log(`connection ${this.id}: ${/** @type {WshError} */ (err).code ?? 'error'} (closed)`);
      this.fail(err);
      return;
    }
    if (!this.key) {
      // Frames sent right behind the auth frame wait for its check; they are dropped if it fails.
      if (this.#signingIn) {
        this.#heldBytes += frame.payload.byteLength;
        if (this.#held.length >= 64 || this.#heldBytes > 1024 * 1024)
          this.fail(new WshRefusedError('auth_failed', 'Too much sent before signing in.'));
        else this.#held.push(frame);
        return;
      }
      this.#signingIn = true;
      this.#authenticate(frame).then(
        () => {
          for (const held of this.#held.splice(0)) this.#handle(held);
        },
        (err) => {
          this.#held.length = 0;
          this.fail(err);
        },
      );
      return;
    }
    this.#handle(frame);
  }

  /** @param {Frame} frame */
  #handle(frame) {
    if (this.#closed) return;
    this.#touch();
    try {
      this.#dispatch(frame);
    } catch (err) {
      if (err instanceof WshProtocolError) this.fail(err);
      else this.#channelError(frame.channel, err);
    }
  }

  /** @param {Frame} frame */
  async #authenticate(frame) {
    if (frame.t !== 'auth' || frame.channel !== 0)
      throw new WshRefusedError('auth_failed', 'Authenticate first: the first frame must be "auth" on channel 0.');
    const auth = /** @type {Frame<'auth'>} */ (frame).header;
    if (auth.version !== PROTOCOL_VERSION)
      throw new WshProtocolError('version_mismatch', `The client speaks wsh ${auth.version}; this server speaks ${PROTOCOL_VERSION}.`);
    const entry = (await this.server.keys()).find((k) => k.blob === auth.publicKey);
    let ok = false;
    if (entry && auth.host.toLowerCase() === this.request.host.toLowerCase()) {
      let signature;
      try {
        signature = fromBase64(auth.signature);
      } catch {
        signature = new Uint8Array(0);
      }
      ok = await verify(rawFromBlob(entry.blob), signature, authMessage(this.#nonce, auth.host));
    }
    if (!entry || !ok) {
      this.server.log(
        `connection ${this.id} from ${this.request.remote}: authentication refused (${entry ? 'bad signature' : 'key not listed'})`,
      );
      throw new WshRefusedError(
        'auth_failed',
        entry
          ? 'Authentication failed: the signature does not match the key.'
          : "Authentication failed: this key is not in the server's keys file. Add its public key line there.",
      );
    }
    this.key = entry;
    this.server.log(`connection ${this.id} from ${this.request.remote}: key "${entry.comment || `line ${entry.line}`}" signed in`);
    this.#send('welcome', 0, {
      session: this.id,
      key: entry.comment,
      pty: Boolean(this.server.pty),
      relay: this.server.relayEnabled && entry.relay,
      limits: {
        commands: entry.commands,
        dirs: entry.dirs,
        sessions: entry.sessions,
        outputBytes: entry.outputBytes,
        idleTimeoutMs: this.server.idleTimeoutMs,
      },
    });
    this.#touch();
  }

  /** @param {Frame} frame */
  #dispatch(frame) {
    const { channel: id } = frame;
    if (id === 0) {
      if (frame.t === 'ping') this.#send('pong', 0, /** @type {Frame<'ping'>} */ (frame).header);
      else if (frame.t === 'pong' || frame.t === 'error') return;
      else throw new WshProtocolError('malformed_frame', `A "${frame.t}" frame cannot go on channel 0.`);
      return;
    }
    const opening =
      frame.t === 'exec' ||
      frame.t === 'pty' ||
      frame.t === 'put' ||
      frame.t === 'get' ||
      frame.t === 'fetch' ||
      frame.t === 'expose' ||
      frame.t === 'listen';
    if (opening) {
      if (id <= this.#highest) throw new WshProtocolError('channel_in_use', `Channel ${id} was used already: channel ids only go up.`);
      this.#highest = id;
      this.#open(frame);
      return;
    }
    const channel = this.channels.get(id);
    if (!channel) {
      // A channel this side has just closed (the process exited while input was on its way): drop the frame.
      if (id <= this.#highest) return;
      throw new WshProtocolError('unknown_channel', `No open channel ${id} for a "${frame.t}" frame.`);
    }
    if (frame.t === 'close') {
      this.#closeChannel(id);
      return;
    }
    if (channel.onFrame) {
      channel.onFrame(frame);
      return;
    }
    const proc = channel.process;
    if (!proc) {
      if (channel.kind === 'process') return; // input for a process still being checked and started: nothing to give it to yet
      throw new WshProtocolError('malformed_frame', `A "${frame.t}" frame does not belong on channel ${id}.`);
    }
    if (frame.t === 'stdin') {
      if (frame.payload.byteLength) proc.write(frame.payload);
      if (/** @type {Frame<'stdin'>} */ (frame).header.eof) proc.endInput();
    } else if (frame.t === 'resize') {
      const { cols, rows } = /** @type {Frame<'resize'>} */ (frame).header;
      proc.resize(cols, rows);
    } else if (frame.t === 'signal') {
      proc.kill(/** @type {Frame<'signal'>} */ (frame).header.signal);
    } else throw new WshProtocolError('malformed_frame', `A "${frame.t}" frame does not belong on a process channel.`);
  }

  /** Counts a channel against the key's limit of sessions. @param {number} id @param {Channel} channel */
  #register(id, channel) {
    const key = /** @type {KeyEntry} */ (this.key);
    const open = this.server.sessions.get(key.blob) ?? 0;
    if (open >= key.sessions)
      throw new WshRefusedError(
        'too_many_sessions',
        `This key already has ${open} sessions open, its limit (sessions=${key.sessions} in the keys file).`,
      );
    this.server.sessions.set(key.blob, open + 1);
    this.channels.set(id, channel);
  }

  /** Forgets a channel that ended by itself, and gives its session back. @param {number} id */
  #release(id) {
    const channel = this.channels.get(id);
    if (!channel) return undefined;
    this.channels.delete(id);
    const key = /** @type {KeyEntry} */ (this.key);
    this.server.sessions.set(key.blob, Math.max(0, (this.server.sessions.get(key.blob) ?? 1) - 1));
    return channel;
  }

  /** Ends a channel and what runs on it. @param {number} id */
  #closeChannel(id) {
    const channel = this.#release(id);
    if (!channel) return;
    try {
      channel.close();
    } catch {
      // closing is best effort
    }
  }

  /** An error that ends one channel, said on that channel. @param {number} id @param {unknown} err */
  #channelError(id, err) {
    this.#send('error', id, errorHeader(err));
    this.#closeChannel(id);
  }

  /** @param {Frame} frame */
  #open(frame) {
    const id = frame.channel;
    /** @param {Promise<void>} work */
    const guard = (work) =>
      work.catch((err) => {
        if (this.channels.has(id) || !(err instanceof WshError && err.code === 'aborted')) this.#channelError(id, err);
      });
    if (frame.t === 'exec' || frame.t === 'pty') guard(this.#startProcess(/** @type {Frame<'exec'> | Frame<'pty'>} */ (frame)));
    else if (frame.t === 'put') guard(this.#put(/** @type {Frame<'put'>} */ (frame)));
    else if (frame.t === 'get') guard(this.#get(/** @type {Frame<'get'>} */ (frame)));
    else if (frame.t === 'fetch') guard(this.#fetch(/** @type {Frame<'fetch'>} */ (frame)));
    else if (frame.t === 'expose') this.#expose(/** @type {Frame<'expose'>} */ (frame));
    else if (frame.t === 'listen') this.#listen(/** @type {Frame<'listen'>} */ (frame));
  }

  /**
   * The client takes incoming webhooks: a POST to /hook/<token> with one of its tokens comes to
   * it as a `hook` frame (the body its payload), and its `reply` says it took it. Closing the
   * channel (or the connection) ends it; the endpoint then answers 404.
   * @param {Frame<'listen'>} frame
   */
  #listen(frame) {
    const id = frame.channel;
    /** @type {Map<number, (taken: boolean) => void>} */
    const pending = new Map();
    let next = 0;
    /** @type {import('./hooks.js').HookListener} */
    const listener = {
      name: frame.header.name,
      tokens: [...new Set(frame.header.tokens)],
      deliver: (request, signal) =>
        new Promise((resolve, reject) => {
          if (!this.channels.has(id)) {
            reject(new WshError('closed', 'The listener ended.'));
            return;
          }
          const hookId = ++next;
          pending.set(hookId, resolve);
          signal.addEventListener(
            'abort',
            () => {
              if (pending.delete(hookId)) reject(new WshError('timeout', 'The listener did not answer in time.'));
            },
            { once: true },
          );
          this.#send('hook', id, { id: hookId, contentType: request.contentType }, request.body);
        }),
    };
    /** @type {Channel} */
    const channel = {
      kind: 'listen',
      onFrame: (f) => {
        if (f.t !== 'reply') throw new WshProtocolError('malformed_frame', `A "${f.t}" frame does not belong on a listen channel.`);
        const { id: hookId, ok } = /** @type {Frame<'reply'>} */ (f).header;
        const taken = pending.get(hookId);
        if (!taken) return; // timed out meanwhile
        pending.delete(hookId);
        taken(ok);
      },
      close: () => {
        this.server.hooks.unregister(listener);
        for (const taken of pending.values()) taken(false);
        pending.clear();
      },
    };
    this.#register(id, channel);
    try {
      this.server.hooks.register(listener);
    } catch (err) {
      this.#release(id);
      throw err;
    }
    this.#send('open', id, { mode: 'hook' });
  }

  /**
   * The client exposes tools: MCP requests to /mcp with one of its tokens come to it as `call`
   * frames on this channel, and its `reply` frames answer them. Closing the channel (or the
   * connection) ends the exposure; the endpoint then tells those clients why.
   * @param {Frame<'expose'>} frame
   */
  #expose(frame) {
    const id = frame.channel;
    /** @typedef {Awaited<ReturnType<import('./mcp.js').Exposure['call']>>} Reply */
    /** @type {Map<number, {resolve: (r: Reply) => void, reject: (e: unknown) => void}>} */
    const pending = new Map();
    let next = 0;
    /** @type {import('./mcp.js').Exposure} */
    const exposure = {
      name: frame.header.name,
      tokens: [...new Set(frame.header.tokens)],
      call: (method, params, signal) =>
        new Promise((resolve, reject) => {
          if (!this.channels.has(id)) {
            reject(new WshError('closed', 'The exposure ended.'));
            return;
          }
          const callId = ++next;
          pending.set(callId, { resolve, reject });
          signal.addEventListener(
            'abort',
            () => {
              if (!pending.delete(callId)) return;
              reject(new WshError('aborted', 'The MCP client went away.'));
              this.#send('cancel', id, { id: callId });
            },
            { once: true },
          );
          const payload = new TextEncoder().encode(JSON.stringify(params));
          this.#send('call', id, { id: callId, method }, payload);
        }),
    };
    /** @type {Channel} */
    const channel = {
      kind: 'expose',
      onFrame: (f) => {
        if (f.t !== 'reply') throw new WshProtocolError('malformed_frame', `A "${f.t}" frame does not belong on an expose channel.`);
        const { id: callId, ok } = /** @type {Frame<'reply'>} */ (f).header;
        const waiting = pending.get(callId);
        if (!waiting) return; // cancelled meanwhile
        pending.delete(callId);
        /** @type {unknown} */
        let value;
        try {
          value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(f.payload));
        } catch {
          waiting.resolve({ ok: false, error: replyError(null) });
          return;
        }
        if (ok && value && typeof value === 'object' && !Array.isArray(value))
          waiting.resolve({ ok: true, result: /** @type {Record<string, unknown>} */ (value) });
        else waiting.resolve({ ok: false, error: replyError(ok ? null : value) });
      },
      close: () => {
        this.server.mcp.unregister(exposure, this.#closed ? 'disconnected' : 'stopped');
        for (const w of pending.values()) w.reject(new WshError('closed', 'The exposure ended.'));
        pending.clear();
      },
    };
    this.#register(id, channel);
    try {
      this.server.mcp.register(exposure);
    } catch (err) {
      this.#release(id);
      throw err;
    }
    this.#send('open', id, { mode: 'mcp' });
  }

  /** @param {Frame<'exec'> | Frame<'pty'>} frame */
  async #startProcess(frame) {
    const id = frame.channel;
    const key = /** @type {KeyEntry} */ (this.key);
    const { header } = frame;
    const terminal =
      frame.t === 'pty'
        ? { cols: /** @type {Frame<'pty'>} */ (frame).header.cols, rows: /** @type {Frame<'pty'>} */ (frame).header.rows }
        : null;
    // Every check before anything runs.
    const plan = planCommand(key, header.cmd);
    const env = planEnv(key, header.env);
    /** @type {Channel} */
    const channel = { kind: 'process', outputBytes: 0, close: () => {} };
    this.#register(id, channel);
    let cwd;
    try {
      cwd = await allowedPath(key, header.cwd, 'working directory');
      const info = await stat(cwd).catch(() => null);
      if (!info?.isDirectory()) throw new WshError('not_found', `The working directory "${header.cwd}" does not exist.`);
    } catch (err) {
      this.#channelError(id, err);
      return;
    }
    if (!this.channels.has(id)) return; // closed while checking
    let ended = false;
    /** @param {'stdout' | 'stderr'} t @param {Uint8Array} data */
    const output = (t, data) => {
      if (ended) return;
      channel.outputBytes = (channel.outputBytes ?? 0) + data.byteLength;
      if (key.outputBytes && channel.outputBytes > key.outputBytes) {
        ended = true;
        proc.kill('SIGKILL');
        this.#channelError(
          id,
          new WshRefusedError('output_limit', `The command wrote more than ${key.outputBytes} bytes (output= in the keys file): stopped.`),
        );
        return;
      }
      this.#sendData(t, id, data);
      if (!this.writable) {
        proc.pause();
        this.drained().then(() => proc.resume());
      }
    };
    const proc = startProcess(
      { ...plan, cwd, env, terminal, pty: this.server.pty },
      {
        stdout: (d) => output('stdout', d),
        stderr: (d) => output('stderr', d),
        exit: (code, signal) => {
          if (ended) return;
          ended = true;
          this.#send('exit', id, { code, signal });
          this.#send('close', id, {});
          this.#closeChannel(id);
        },
      },
    );
    channel.process = proc;
    channel.close = () => {
      if (ended) return;
      ended = true;
      proc.kill('SIGHUP');
      const hard = setTimeout(() => proc.kill('SIGKILL'), 3000);
      hard.unref();
    };
    try {
      await proc.ready;
    } catch (err) {
      ended = true;
      this.#channelError(id, err);
      return;
    }
    this.#send('open', id, { mode: proc.mode, pid: proc.pid });
  }

  /** @param {Frame<'put'>} frame */
  async #put(frame) {
    const id = frame.channel;
    const key = /** @type {KeyEntry} */ (this.key);
    const { path, size, mode } = frame.header;
    /** @type {Frame[]} */
    const early = [];
    /** @type {Channel} */
    const channel = { kind: 'put', onFrame: (f) => early.push(f), close: () => {} };
    this.#register(id, channel);
    const target = await allowedPath(key, path, 'file');
    const existing = await stat(target).catch(() => null);
    if (existing?.isDirectory()) throw new WshError('not_a_file', `"${path}" is a directory.`);
    const temp = join(dirname(target), `.${basename(target)}.wsh-${toBase64(randomBytes(6)).replace(/[/+=]/g, '_')}`);
    await mkdir(dirname(target), { recursive: true });
    const file = await open(temp, 'wx', mode ?? 0o644);
    const hash = createHash('sha256');
    let written = 0;
    let finished = false;
    let chain = Promise.resolve();
    channel.close = () => {
      if (finished) return;
      finished = true;
      chain.finally(() => file.close().finally(() => rm(temp, { force: true })));
    };
    /** @param {Frame} f */
    const onFrame = (f) => {
      if (f.t === 'chunk') {
        written += f.payload.byteLength;
        if (written > size) throw new WshError('checksum_mismatch', `More bytes arrived than the ${size} announced.`);
        hash.update(f.payload);
        const data = f.payload;
        chain = chain.then(() => file.write(data).then(() => {}));
      } else if (f.t === 'end') {
        const want = /** @type {Frame<'end'>} */ (f).header.sha256;
        finished = true;
        chain = chain.then(async () => {
          await file.close();
          const got = hash.digest('hex');
          if (written !== size || got !== want) {
            await rm(temp, { force: true });
            this.#channelError(
              id,
              new WshError(
                'checksum_mismatch',
                `The file arrived damaged (${written} of ${size} bytes, SHA-256 ${got}); it was not written.`,
              ),
            );
            return;
          }
          await rename(temp, target);
          this.#send('done', id, { size: written, sha256: got });
          this.#send('close', id, {});
          this.#release(id);
        });
        chain.catch((err) => this.#channelError(id, new WshError('io_error', `Could not write "${path}": ${err.message}`)));
      } else throw new WshProtocolError('malformed_frame', `A "${f.t}" frame does not belong on a put channel.`);
    };
    channel.onFrame = (f) => {
      try {
        onFrame(f);
      } catch (err) {
        this.#channelError(id, err);
      }
    };
    this.#send('open', id, { mode: 'file' });
    for (const f of early) channel.onFrame(f);
  }

  /** @param {Frame<'get'>} frame */
  async #get(frame) {
    const id = frame.channel;
    const key = /** @type {KeyEntry} */ (this.key);
    const { path } = frame.header;
    /** @type {Channel} */
    const channel = { kind: 'get', close: () => {} };
    this.#register(id, channel);
    const target = await allowedPath(key, path, 'file');
    const info = await stat(target).catch(() => null);
    if (!info) throw new WshError('not_found', `"${path}" does not exist.`);
    if (!info.isFile()) throw new WshError('not_a_file', `"${path}" is not a file.`);
    const { maxSize } = frame.header;
    if (maxSize !== undefined && info.size > maxSize)
      throw new WshError('file_too_large', `"${path}" is ${info.size} bytes, over the ${maxSize} asked for at most; nothing was sent.`);
    const stream = createReadStream(target, { highWaterMark: CHUNK_BYTES });
    channel.close = () => stream.destroy();
    this.#send('open', id, { mode: 'file', size: info.size });
    const hash = createHash('sha256');
    let size = 0;
    try {
      for await (const piece of stream) {
        if (!this.channels.has(id)) return;
        hash.update(piece);
        size += piece.byteLength;
        this.#sendData('chunk', id, piece);
        await this.drained();
      }
    } catch (err) {
      throw new WshError('io_error', `Could not read "${path}": ${/** @type {Error} */ (err).message}`);
    }
    if (!this.channels.has(id)) return;
    this.#send('end', id, { sha256: hash.digest('hex'), size });
    this.#send('close', id, {});
    this.#release(id);
  }

  /** @param {Frame<'fetch'>} frame */
  async #fetch(frame) {
    const id = frame.channel;
    const key = /** @type {KeyEntry} */ (this.key);
    if (!this.server.relayEnabled)
      throw new WshRefusedError('relay_disabled', 'This server relays nothing: start it with --relay-allow host,… to relay.');
    if (!key.relay) throw new WshRefusedError('relay_disabled', 'This key may not use the relay (relay=no in the keys file).');
    checkRelayUrl(frame.header.url, this.server.relayAllowed);
    const abort = new AbortController();
    /** @type {Uint8Array[]} */
    const parts = [];
    let total = 0;
    /** @type {(value?: unknown) => void} */
    let bodyDone = () => {};
    const bodyReady = new Promise((resolve) => {
      bodyDone = resolve;
    });
    /** @type {Channel} */
    const channel = {
      kind: 'fetch',
      close: () => abort.abort(),
      onFrame: (f) => {
        if (f.t === 'chunk') {
          total += f.payload.byteLength;
          if (total > MAX_RELAY_BODY) {
            this.#channelError(id, new WshError('output_too_large', `A relayed request body is limited to ${MAX_RELAY_BODY} bytes.`));
            return;
          }
          parts.push(f.payload.slice());
        } else if (f.t === 'end') bodyDone();
        else this.#channelError(id, new WshProtocolError('malformed_frame', `A "${f.t}" frame does not belong on a relay channel.`));
      },
    };
    this.#register(id, channel);
    this.#send('open', id, { mode: 'relay' });
    if (!frame.header.body) bodyDone();
    await bodyReady;
    const body = frame.header.body ? concatBytes(parts) : null;
    const { response, url, headers } = await relayRequest({
      url: frame.header.url,
      method: frame.header.method,
      headers: frame.header.headers,
      body,
      allowed: this.server.relayAllowed,
      signal: abort.signal,
      log: this.server.log,
    });
    if (!this.channels.has(id)) {
      await response.body?.cancel();
      return;
    }
    this.#send('response', id, { status: response.status, statusText: response.statusText, headers, url });
    if (response.body) {
      try {
        for await (const piece of /** @type {AsyncIterable<Uint8Array>} */ (/** @type {unknown} */ (response.body))) {
          if (!this.channels.has(id)) return;
          this.#sendData('chunk', id, piece);
          await this.drained();
        }
      } catch (err) {
        if (abort.signal.aborted) return;
        throw new WshError('relay_failed', `The response from ${new URL(url).host} broke off: ${/** @type {Error} */ (err).message}`);
      }
    }
    if (!this.channels.has(id)) return;
    this.#send('end', id, {});
    this.#send('close', id, {});
    this.#release(id);
  }
}
