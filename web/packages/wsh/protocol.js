// The wsh wire protocol: one frame per WebSocket message (or per length-prefixed record on a
// WebTransport stream). Pure: no DOM, no Node; runs in the browser, in Node and in a Worker.
//
//   byte 0     'W' (0x57), the magic byte
//   byte 1     protocol version (PROTOCOL_VERSION)
//   bytes 2-5  channel id, unsigned 32-bit big-endian (0: the connection itself)
//   bytes 6-9  header length H, unsigned 32-bit big-endian
//   10..10+H   header: UTF-8 JSON object whose `t` names the frame type (validated per type)
//   the rest   payload: raw bytes (stdin, stdout, stderr, file and HTTP body chunks)
//
// Binary-safe because data never goes through JSON. Every frame is validated before use; a
// frame that fails is a WshProtocolError with a stable code, which the receiver answers with an
// `error` frame and a closed channel (the connection, when the frame cannot be trusted at all).
import { z } from 'zod';
import { ERROR_CODES, WshError, WshProtocolError, WshRefusedError } from './errors.js';

/** @import { WshErrorCode } from './errors.js' */

export const PROTOCOL_VERSION = 1;
export const MAGIC = 0x57;
export const PREFIX_BYTES = 10;
/** A header larger than this is refused (a header is a few hundred bytes). */
export const MAX_HEADER_BYTES = 64 * 1024;
/** A payload larger than this is refused; senders cut data into CHUNK_BYTES pieces. */
export const MAX_PAYLOAD_BYTES = 1024 * 1024;
export const CHUNK_BYTES = 64 * 1024;
/** The largest encoded frame a receiver accepts. */
export const MAX_FRAME_BYTES = PREFIX_BYTES + MAX_HEADER_BYTES + MAX_PAYLOAD_BYTES;

/** The signals a client may send to a process group. */
export const SIGNALS = /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGKILL', 'SIGHUP', 'SIGQUIT', 'SIGTSTP', 'SIGCONT', 'SIGWINCH']);

/** The MCP methods a server forwards to the client that exposes tools (the rest it answers itself). */
export const MCP_METHODS = /** @type {const} */ (['tools/list', 'tools/call']);

const channelText = z.string().max(4096);
const command = z.union([z.string().min(1).max(65536), z.array(z.string().max(65536)).min(1).max(4096)]);
const env = z.record(z.string().max(256), z.string().max(65536));
const dims = { cols: z.number().int().min(1).max(1000), rows: z.number().int().min(1).max(1000) };
const sha256 = z.string().regex(/^[0-9a-f]{64}$/);
const headerList = z.array(z.tuple([z.string().max(1024), z.string().max(65536)])).max(256);

/** Each frame type's header (besides `t`). Unknown fields are dropped, so newer peers may add some. */
export const FRAME_SCHEMAS = {
  // Connection (channel 0).
  /** server → client, first frame: what the server offers and the nonce to sign. */
  hello: z.object({
    versions: z.array(z.number().int()).min(1).max(16),
    nonce: z.string().min(16).max(256),
    server: z.string().max(256),
    pty: z.boolean(),
    relay: z.boolean(),
    transports: z.array(z.string().max(32)).max(8),
    webtransport: z.string().max(2048).optional(),
    /** Whether the server serves MCP at /mcp for a client that exposes tools (`expose`); absent: an older server. */
    mcp: z.boolean().optional(),
    /** Whether the server takes incoming webhooks at /hook/<token> for a client that listens (`listen`); absent: an older server. */
    hooks: z.boolean().optional(),
  }),
  /** client → server: the public key and the signature of the challenge. */
  auth: z.object({
    version: z.number().int(),
    publicKey: z.string().min(1).max(1024),
    signature: z.string().min(1).max(1024),
    host: z.string().max(1024),
  }),
  /** server → client: authenticated; the limits that apply to this key. */
  welcome: z.object({
    session: z.string().max(128),
    key: z.string().max(1024),
    pty: z.boolean(),
    relay: z.boolean(),
    limits: z.object({
      commands: z.union([z.literal('*'), z.array(z.string())]),
      dirs: z.union([z.literal('*'), z.array(z.string())]),
      sessions: z.number().int(),
      outputBytes: z.number().int(),
      idleTimeoutMs: z.number().int(),
    }),
  }),
  error: z.object({ code: z.string().max(64), message: z.string().max(4096) }),
  ping: z.object({ id: z.number().int().optional() }),
  pong: z.object({ id: z.number().int().optional() }),
  // Processes.
  /** client → server: run a command with pipes. A string runs through the shell (if the key allows any command). */
  exec: z.object({ cmd: command, cwd: channelText.optional(), env: env.optional() }),
  /** client → server: run a command (or the login shell) on a terminal; pipes when the server has no PTY. */
  pty: z.object({ cmd: command.optional(), cwd: channelText.optional(), env: env.optional(), ...dims }),
  /** server → client: the channel is open; for a process, how it runs. */
  open: z.object({
    mode: z.enum(['pty', 'pipe', 'file', 'relay', 'mcp', 'hook']),
    pid: z.number().int().optional(),
    size: z.number().int().optional(),
  }),
  stdin: z.object({ eof: z.boolean().optional() }),
  stdout: z.object({}),
  stderr: z.object({}),
  resize: z.object(dims),
  signal: z.object({ signal: z.enum(SIGNALS) }),
  exit: z.object({ code: z.number().int().nullable(), signal: z.string().max(32).nullable() }),
  close: z.object({}),
  // Files: `put` then `chunk`s then `end` (with the SHA-256 of all the bytes); `get` is answered the same way.
  put: z.object({ path: channelText.min(1), size: z.number().int().min(0), mode: z.number().int().min(0).max(0o7777).optional() }),
  /** `maxSize` (optional, since 0.2.0): the server refuses a bigger file with `file_too_large` before sending any of it. */
  get: z.object({ path: channelText.min(1), maxSize: z.number().int().min(0).optional() }),
  chunk: z.object({}),
  end: z.object({ sha256: sha256.optional(), size: z.number().int().min(0).optional() }),
  /** server → client: a put was written and checked. */
  done: z.object({ size: z.number().int(), sha256 }),
  // The HTTP relay: `fetch` (+ body `chunk`s and `end` when `body`), answered by `response`, `chunk`s and `end`.
  fetch: z.object({
    url: z.string().min(1).max(8192),
    method: z.string().regex(/^[A-Z]{1,16}$/),
    headers: headerList,
    body: z.boolean(),
  }),
  response: z.object({
    status: z.number().int().min(100).max(999),
    statusText: z.string().max(1024),
    headers: headerList,
    url: z.string().max(8192),
  }),
  // MCP exposure: the client offers tools that outside MCP clients reach through the server's /mcp.
  /**
   * client → server, opens a channel: serve MCP requests that carry one of these bearer tokens
   * (their SHA-256, hex: the server never learns a token itself) to this client, under `name`.
   */
  expose: z.object({ name: z.string().min(1).max(256), tokens: z.array(sha256).min(1).max(32) }),
  /** server → client on an expose channel: an MCP request; the payload is its `params` as UTF-8 JSON. */
  call: z.object({ id: z.number().int().min(1), method: z.enum(MCP_METHODS) }),
  /** client → server: the answer to a `call`; the payload is the result (ok) or the error `{code, message}` as UTF-8 JSON. */
  reply: z.object({ id: z.number().int().min(1), ok: z.boolean() }),
  /** server → client: the MCP client of a `call` went away; stop working on it. */
  cancel: z.object({ id: z.number().int().min(1) }),
  // Incoming webhooks: POSTs to the server's /hook/<token> travel to the client that listens with that token.
  /** client → server, opens a channel: take webhooks that carry one of these tokens (their SHA-256, hex). */
  listen: z.object({ name: z.string().min(1).max(256), tokens: z.array(sha256).min(1).max(32) }),
  /** server → client on a listen channel: one request; the payload is its body. The client answers with `reply` (ok: taken). */
  hook: z.object({ id: z.number().int().min(1), contentType: z.string().max(256) }),
};

/** @typedef {keyof typeof FRAME_SCHEMAS} FrameType */
/**
 * A decoded frame: the header with its type, the channel and the payload.
 * @template {FrameType} [T=FrameType]
 * @typedef {{t: T, channel: number, header: z.infer<(typeof FRAME_SCHEMAS)[T]>, payload: Uint8Array}} Frame
 */

export const FRAME_TYPES = /** @type {FrameType[]} */ (Object.keys(FRAME_SCHEMAS));

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });
const EMPTY = new Uint8Array(0);

/**
 * The data frames' headers, which carry nothing but their type: encoded once, and recognised by
 * their bytes when decoding, so the hot path (stdout, file and body chunks) skips JSON and the
 * schema. Any other spelling of the same header still goes the validated way.
 */
const BARE_HEADERS = new Map(
  /** @type {FrameType[]} */ (['stdout', 'stderr', 'chunk', 'stdin', 'close']).map((t) => [t, encoder.encode(JSON.stringify({ t }))]),
);

/** The type whose bare header these bytes are, or undefined. @param {Uint8Array} bytes @param {number} start @param {number} length */
function bareType(bytes, start, length) {
  for (const [t, header] of BARE_HEADERS) {
    if (header.byteLength !== length) continue;
    let same = true;
    for (let i = 0; i < length && same; i++) same = bytes[start + i] === header[i];
    if (same) return t;
  }
  return undefined;
}

/**
 * Encodes one frame. The header is validated, so a sender cannot put a frame on the wire its
 * peer would refuse.
 * @template {FrameType} T
 * @param {T} t
 * @param {number} channel
 * @param {z.input<(typeof FRAME_SCHEMAS)[T]>} header
 * @param {Uint8Array} [payload]
 * @param {(size: number) => Uint8Array} [alloc] where the frame's bytes go (a sender's pool of buffers; default: new ones)
 * @returns {Uint8Array}
 */
export function encodeFrame(t, channel, header, payload = EMPTY, alloc = newBytes) {
  const bare = BARE_HEADERS.get(t);
  if (bare && Object.keys(header).length === 0) return assemble(bare, channel, payload, alloc);
  const schema = FRAME_SCHEMAS[t];
  if (!schema) throw new WshProtocolError('malformed_frame', `Unknown frame type "${String(t)}".`);
  const checked = schema.safeParse(header);
  if (!checked.success) throw new WshProtocolError('malformed_frame', `A "${t}" frame's header is invalid: ${issueText(checked.error)}`);
  return assemble(encoder.encode(JSON.stringify({ ...checked.data, t })), channel, payload, alloc);
}

/** @param {number} size */
const newBytes = (size) => new Uint8Array(size);

/** @param {Uint8Array} json @param {number} channel @param {Uint8Array} payload @param {(size: number) => Uint8Array} alloc */
function assemble(json, channel, payload, alloc) {
  if (!Number.isInteger(channel) || channel < 0 || channel > 0xffffffff)
    throw new WshProtocolError('malformed_frame', `Bad channel ${channel}.`);
  if (payload.byteLength > MAX_PAYLOAD_BYTES)
    throw new WshProtocolError(
      'frame_too_large',
      `A payload of ${payload.byteLength} bytes is over ${MAX_PAYLOAD_BYTES}: send it in chunks.`,
    );
  const out = alloc(PREFIX_BYTES + json.byteLength + payload.byteLength);
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  out[0] = MAGIC;
  out[1] = PROTOCOL_VERSION;
  view.setUint32(2, channel);
  view.setUint32(6, json.byteLength);
  out.set(json, PREFIX_BYTES);
  out.set(payload, PREFIX_BYTES + json.byteLength);
  return out;
}

/**
 * Decodes and validates one frame. Throws WshProtocolError (`malformed_frame`,
 * `version_mismatch`, `frame_too_large`); never anything else, whatever the bytes.
 * @param {ArrayBuffer | ArrayBufferView} data
 * @returns {Frame}
 */
export function decodeFrame(data) {
  const bytes = toBytes(data);
  if (bytes.byteLength < PREFIX_BYTES || bytes[0] !== MAGIC)
    throw new WshProtocolError('malformed_frame', 'Not a wsh frame (bad magic byte or too short): is this a wsh server and client?');
  if (bytes[1] !== PROTOCOL_VERSION)
    throw new WshProtocolError(
      'version_mismatch',
      `The peer speaks wsh protocol version ${bytes[1]}; this side speaks ${PROTOCOL_VERSION}. Update the older of the two.`,
    );
  if (bytes.byteLength > MAX_FRAME_BYTES)
    throw new WshProtocolError('frame_too_large', `A frame of ${bytes.byteLength} bytes is over the limit.`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const channel = view.getUint32(2);
  const headerLength = view.getUint32(6);
  if (headerLength > MAX_HEADER_BYTES || PREFIX_BYTES + headerLength > bytes.byteLength)
    throw new WshProtocolError('malformed_frame', 'The frame header length runs past the frame.');
  const bare = bareType(bytes, PREFIX_BYTES, headerLength);
  if (bare) return /** @type {Frame} */ ({ t: bare, channel, header: {}, payload: bytes.subarray(PREFIX_BYTES + headerLength) });
  /** @type {unknown} */
  let raw;
  try {
    raw = JSON.parse(decoder.decode(bytes.subarray(PREFIX_BYTES, PREFIX_BYTES + headerLength)));
  } catch {
    throw new WshProtocolError('malformed_frame', 'The frame header is not UTF-8 JSON.');
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw))
    throw new WshProtocolError('malformed_frame', 'The frame header is not an object.');
  const t = /** @type {{t?: unknown}} */ (raw).t;
  if (typeof t !== 'string' || !Object.hasOwn(FRAME_SCHEMAS, t))
    throw new WshProtocolError('malformed_frame', `Unknown frame type ${JSON.stringify(t)?.slice(0, 40)}.`);
  const type = /** @type {FrameType} */ (t);
  const checked = FRAME_SCHEMAS[type].safeParse(raw);
  if (!checked.success) throw new WshProtocolError('malformed_frame', `A "${type}" frame's header is invalid: ${issueText(checked.error)}`);
  const payload = bytes.subarray(PREFIX_BYTES + headerLength);
  if (payload.byteLength > MAX_PAYLOAD_BYTES)
    throw new WshProtocolError('frame_too_large', `A payload of ${payload.byteLength} bytes is over the limit.`);
  return /** @type {Frame} */ ({ t: type, channel, header: checked.data, payload });
}

/** @param {z.ZodError} error */
function issueText(error) {
  const issue = error.issues[0];
  return issue ? `${issue.path.join('.') || '(header)'}: ${issue.message}` : 'invalid';
}

/** @param {ArrayBuffer | ArrayBufferView} data @returns {Uint8Array} */
export function toBytes(data) {
  if (data instanceof Uint8Array) return data;
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return new Uint8Array(data);
}

/** An `error` frame header from any thrown value (a non-wsh error reads as `server_error`, its text kept short). @param {unknown} err */
export function errorHeader(err) {
  if (err instanceof WshError) return { code: err.code, message: err.message.slice(0, 4000) };
  return { code: 'server_error', message: `Unexpected error: ${String(/** @type {Error} */ (err)?.message ?? err).slice(0, 500)}` };
}

const PROTOCOL_CODES = new Set(['malformed_frame', 'version_mismatch', 'frame_too_large', 'unknown_channel', 'channel_in_use']);
const REFUSAL_CODES = new Set([
  'auth_failed',
  'auth_timeout',
  'origin_refused',
  'host_refused',
  'command_not_allowed',
  'shell_syntax_not_allowed',
  'env_not_allowed',
  'dir_not_allowed',
  'too_many_sessions',
  'output_limit',
  'relay_host_not_allowed',
  'relay_disabled',
  'mcp_token_in_use',
  'mcp_unsupported',
  'hook_token_in_use',
  'hook_unsupported',
]);

/**
 * The Error subclass a received `error` frame becomes (an unknown code reads as `server_error`).
 * @param {{code: string, message: string}} header
 */
export function errorFromHeader(header) {
  const code = /** @type {WshErrorCode} */ (
    /** @type {readonly string[]} */ (ERROR_CODES).includes(header.code) ? header.code : 'server_error'
  );
  if (PROTOCOL_CODES.has(code)) return new WshProtocolError(/** @type {any} */ (code), header.message); // any: narrowed by the set above
  if (REFUSAL_CODES.has(code)) return new WshRefusedError(code, header.message);
  return new WshError(code, header.message);
}

/**
 * Splits data into payload-sized pieces (a view each, no copy).
 * @param {Uint8Array} bytes @param {number} [size]
 * @returns {Generator<Uint8Array>}
 */
export function* chunks(bytes, size = CHUNK_BYTES) {
  for (let i = 0; i < bytes.byteLength; i += size) yield bytes.subarray(i, Math.min(i + size, bytes.byteLength));
}

/** Pieces of bytes one after another, in one array. @param {Uint8Array[]} parts */
export function concatBytes(parts) {
  let total = 0;
  for (const p of parts) total += p.byteLength;
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/** Lower-case hex of bytes. @param {ArrayBuffer | Uint8Array} bytes */
export function hex(bytes) {
  return Array.from(toBytes(bytes), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The SHA-256 (hex) of bytes, through WebCrypto. @param {Uint8Array} bytes */
export async function sha256Hex(bytes) {
  return hex(await crypto.subtle.digest('SHA-256', /** @type {Uint8Array<ArrayBuffer>} */ (bytes)));
}

/** The text every client signs: the server's nonce and the host it meant to reach (so a signature is good for one server, once). */
export function authMessage(/** @type {string} */ nonce, /** @type {string} */ host) {
  return encoder.encode(`wsh-auth-v${PROTOCOL_VERSION}\n${nonce}\n${host.toLowerCase()}`);
}

/** Length-prefixed records (4 bytes big-endian each) for stream transports such as WebTransport. @param {Uint8Array} frame */
export function lengthPrefixed(frame) {
  const out = new Uint8Array(4 + frame.byteLength);
  new DataView(out.buffer).setUint32(0, frame.byteLength);
  out.set(frame, 4);
  return out;
}

/** Reassembles length-prefixed records from a byte stream's pieces. */
export class RecordReader {
  /** @type {Uint8Array} */ #buffer = new Uint8Array(0);
  /**
   * Adds bytes; returns the records now complete. Throws `frame_too_large` on a length over the limit.
   * @param {Uint8Array} piece @returns {Uint8Array[]}
   */
  push(piece) {
    const joined = new Uint8Array(this.#buffer.byteLength + piece.byteLength);
    joined.set(this.#buffer);
    joined.set(piece, this.#buffer.byteLength);
    /** @type {Uint8Array[]} */
    const out = [];
    let at = 0;
    while (joined.byteLength - at >= 4) {
      const length = new DataView(joined.buffer, at, 4).getUint32(0);
      if (length > MAX_FRAME_BYTES) throw new WshProtocolError('frame_too_large', `A record of ${length} bytes is over the limit.`);
      if (joined.byteLength - at - 4 < length) break;
      out.push(joined.slice(at + 4, at + 4 + length));
      at += 4 + length;
    }
    this.#buffer = joined.slice(at);
    return out;
  }
}
