// The Telegram Bot API, as much of it as a channel uses: getMe (the connection test),
// getUpdates (long polling: no server of ours, nothing for Telegram to reach) and sendMessage.
// Every response is validated with zod before use. Requests are form-encoded POSTs (a simple
// request: no CORS preflight). The token is part of each request's path: it never appears in
// an error, a status or a log line this module writes.
import { z } from 'zod';
import { ChannelError } from './channel.js';
import { TELEGRAM_API } from './telegram-endpoint.js';

/** Telegram's own limit on a message's text. */
export const MESSAGE_LIMIT = 4096;

const UserSchema = z.object({
  id: z.number().int(),
  is_bot: z.boolean(),
  first_name: z.string().max(256),
  username: z.string().max(64).optional(),
});

const MessageSchema = z.object({
  message_id: z.number().int(),
  from: UserSchema.optional(),
  chat: z.object({ id: z.number().int(), type: z.string().max(32) }),
  date: z.number().int(),
  text: z
    .string()
    .max(MESSAGE_LIMIT * 4)
    .optional(),
});
/** @typedef {z.infer<typeof MessageSchema>} TelegramMessage */

export const UpdateSchema = z.object({
  update_id: z.number().int().min(0),
  message: MessageSchema.optional(),
});
/** @typedef {z.infer<typeof UpdateSchema>} TelegramUpdate */

const EnvelopeSchema = z.union([
  z.object({ ok: z.literal(true), result: z.unknown() }),
  z.object({
    ok: z.literal(false),
    error_code: z.number().int(),
    description: z.string().max(1000).default(''),
    parameters: z.object({ retry_after: z.number().optional() }).optional(),
  }),
]);

/** @typedef {(url: string, init: RequestInit) => Promise<Response>} FetchFn */

/** The bot's own name and id (getMe). */
export const BotSchema = UserSchema;
/** @typedef {z.infer<typeof BotSchema>} TelegramBot */

/**
 * One bot's side of the Bot API.
 */
export class TelegramApi {
  #token;
  #fetch;

  /** @param {{token: string, fetch?: FetchFn}} deps fetch: the page's by default */
  constructor(deps) {
    this.#token = deps.token;
    this.#fetch = deps.fetch ?? ((url, init) => globalThis.fetch(url, init));
  }

  /**
   * Calls a method; resolves to its `result` checked against `schema`, or throws a ChannelError.
   * @template {z.ZodType} S
   * @param {string} method @param {Record<string, string | number>} params @param {S} schema @param {AbortSignal} [signal]
   * @returns {Promise<z.infer<S>>}
   */
  async call(method, params, schema, signal) {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) body.set(k, String(v));
    /** @type {Response} */
    let res;
    try {
      res = await this.#fetch(`${TELEGRAM_API}/bot${this.#token}/${method}`, { method: 'POST', body, signal });
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new ChannelError('network', 'Telegram cannot be reached (no network, or api.telegram.org is blocked here).', { cause: err });
    }
    /** @type {unknown} */
    let json;
    try {
      json = await res.json();
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new ChannelError('invalid_response', `Telegram answered ${method} with something that is not JSON (HTTP ${res.status}).`);
    }
    const envelope = EnvelopeSchema.safeParse(json);
    if (!envelope.success) throw new ChannelError('invalid_response', `Telegram's answer to ${method} is not in the Bot API's form.`);
    const e = envelope.data;
    if (!e.ok) throw apiError(e.error_code, e.description, e.parameters?.retry_after);
    const result = schema.safeParse(e.result);
    if (!result.success) throw new ChannelError('invalid_response', `Telegram's ${method} result is not in the Bot API's form.`);
    return result.data;
  }

  /** @param {AbortSignal} [signal] @returns {Promise<TelegramBot>} */
  getMe(signal) {
    return this.call('getMe', {}, BotSchema, signal);
  }

  /**
   * Long polling: waits up to `timeout` seconds for messages from `offset` on (which confirms every earlier update).
   * @param {{offset: number, timeout: number}} o @param {AbortSignal} [signal]
   * @returns {Promise<TelegramUpdate[]>}
   */
  getUpdates(o, signal) {
    const params = { offset: o.offset, timeout: o.timeout, limit: 20, allowed_updates: JSON.stringify(['message']) };
    // An update of a kind this version does not read is skipped, but its id still moves the offset on.
    const lenient = z.array(z.unknown()).max(100);
    return this.call('getUpdates', params, lenient, signal).then((list) => list.map(readUpdate));
  }

  /**
   * Sends a text (cut into Telegram's 4,096-character pieces) to a chat.
   * @param {number} chatId @param {string} text @param {AbortSignal} [signal]
   */
  async sendMessage(chatId, text, signal) {
    for (const piece of splitMessage(text)) await this.call('sendMessage', { chat_id: chatId, text: piece }, MessageSchema, signal);
  }
}

/**
 * An update as read: its id always (the offset moves past it), its message when it is in the
 * form this version reads (else `message` is absent and the update is ignored).
 * @param {unknown} raw @returns {TelegramUpdate}
 */
export function readUpdate(raw) {
  const full = UpdateSchema.safeParse(raw);
  if (full.success) return full.data;
  const id = z.object({ update_id: z.number().int().min(0) }).safeParse(raw);
  if (!id.success) throw new ChannelError('invalid_response', "An update from Telegram has no update_id: it is not in the Bot API's form.");
  return { update_id: id.data.update_id };
}

/**
 * @param {number} code @param {string} description @param {number} [retryAfter] seconds
 * @returns {ChannelError}
 */
function apiError(code, description, retryAfter) {
  const said = description.slice(0, 200);
  if (code === 401 || code === 404)
    return new ChannelError('unauthorized', 'Telegram refused the bot token: copy it again from @BotFather, or make a new one.');
  if (code === 409)
    return new ChannelError(
      'conflict',
      'Another program is reading this bot’s messages (a webhook is set, or another copy polls): stop it, or use another bot.',
    );
  if (code === 429)
    return new ChannelError('rate_limited', `Telegram asks to slow down${retryAfter ? ` for ${retryAfter} s` : ''}.`, {
      retryAfterMs: (retryAfter ?? 5) * 1000,
    });
  return new ChannelError('api', `Telegram refused the request (${code}${said ? `: ${said}` : ''}).`);
}

/** A text in pieces Telegram takes (at most MESSAGE_LIMIT each, cut at a line end where one is near). @param {string} text */
export function splitMessage(text) {
  const t = text.trim() || '(empty reply)';
  /** @type {string[]} */
  const out = [];
  let rest = t;
  while (rest.length > MESSAGE_LIMIT) {
    const nl = rest.lastIndexOf('\n', MESSAGE_LIMIT);
    const cut = nl > MESSAGE_LIMIT / 2 ? nl : MESSAGE_LIMIT;
    out.push(rest.slice(0, cut));
    rest = rest.slice(cut).replace(/^\n/, '');
  }
  out.push(rest);
  return out;
}
