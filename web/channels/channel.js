// A channel connects a workspace agent to a conversation outside Clawser: a Telegram bot (the
// user's own; long polling from the page), an outgoing webhook (a POST to the user's URL) or an
// incoming webhook (POSTs to the user's own wsh server, relayed to the page: web/packages/wsh).
// Pure: the record's schema, its limits, and the error every channel module throws.
import { z } from 'zod';

export const CHANNEL_KINDS = /** @type {const} */ (['telegram', 'webhook', 'hook']);
export const CHANNEL_AUTONOMY = /** @type {const} */ (['readonly', 'supervised', 'full']);
/** Traffic entries kept per channel (newest last). */
export const TRAFFIC_KEPT = 30;

/** A channel refused, unreachable or misconfigured, with what to do. */
export class ChannelError extends Error {
  /**
   * @param {'invalid' | 'not_found' | 'paused' | 'network' | 'unauthorized' | 'conflict' | 'rate_limited' | 'api' |
   *   'invalid_response' | 'http' | 'no_secret'} code
   * @param {string} message never a token or a webhook's URL
   * @param {{cause?: unknown, retryAfterMs?: number}} [options]
   */
  constructor(code, message, options = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ChannelError';
    this.code = code;
    /** How long Telegram asked to wait (rate_limited). */
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** A Telegram user id, as digits (ids go past 2^31; kept as text). */
export const SenderIdSchema = z
  .string()
  .trim()
  .regex(/^[1-9][0-9]{0,15}$/, 'A Telegram user id is a number, such as 123456789 (the bot @userinfobot tells you yours).');

export const RateSchema = z.object({
  /** Messages answered a minute, all senders together. */
  perMinute: z
    .number({ error: 'The rate limit is a number of messages.' })
    .int('The rate limit is a whole number of messages.')
    .min(1, 'A rate limit of at least 1 message a minute.')
    .max(60, 'A rate limit of at most 60 messages a minute.')
    .default(5),
  /** Messages answered an hour. */
  perHour: z
    .number({ error: 'The rate limit is a number of messages.' })
    .int('The rate limit is a whole number of messages.')
    .min(1, 'A rate limit of at least 1 message an hour.')
    .max(1000, 'A rate limit of at most 1,000 messages an hour.')
    .default(60),
});

export const ChannelSchema = z.object({
  id: z.string().min(1).max(64),
  kind: z.enum(CHANNEL_KINDS),
  name: z.string().trim().min(1).max(40),
  /** What the user may see of where it goes: the bot's @name, or the webhook's host (never the token or the full URL). */
  label: z.string().max(200).default(''),
  paused: z.boolean().default(false),
  createdAt: z.number(),
  /** The named agent that answers ('': the workspace's own). */
  agent: z.string().max(32).default(''),
  /** At most the workspace's level (the lower of the two applies). */
  autonomy: z.enum(CHANNEL_AUTONOMY).default('readonly'),
  /** The tools the channel's turns may use: none unless chosen (an outside sender never gets the whole workspace by default). */
  tools: z
    .array(z.string().regex(/^[a-z][a-z0-9_]{0,63}$/))
    .max(200)
    .default([]),
  /** Telegram: the user ids whose messages are answered; everyone else is ignored (and logged). */
  allowedSenders: z.array(SenderIdSchema).max(50).default([]),
  rate: RateSchema.default({ perMinute: 5, perHour: 60 }),
  /** Where its turns and its log go (made on the first message). */
  conversationId: z.string().max(64).optional(),
  /** An incoming webhook: the Remote panel's machine whose wsh server takes the POSTs. */
  machine: z.string().max(32).optional(),
});
/** @typedef {z.infer<typeof ChannelSchema>} Channel */

export const TrafficSchema = z.object({
  at: z.number(),
  direction: z.enum(['in', 'out']),
  /** answered, ignored (a sender not allowed, not text, a group), limited (rate), sent, failed. */
  status: z.enum(['answered', 'ignored', 'limited', 'sent', 'failed']),
  /** A Telegram user id and name, or '' (a webhook). */
  sender: z.string().max(120).default(''),
  /** Why, in words (never a secret). */
  note: z.string().max(300).default(''),
});
/** @typedef {z.infer<typeof TrafficSchema>} Traffic */

/**
 * A webhook address: https, or http to this machine only (a local receiver while testing). The
 * address is kept sealed (a Slack or Discord hook's path is its secret).
 */
export const WebhookUrlSchema = z
  .string()
  .trim()
  .max(2048)
  .refine((url) => {
    try {
      const u = new URL(url);
      if (u.username || u.password) return false;
      return u.protocol === 'https:' || (u.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname));
    } catch {
      return false;
    }
  }, 'A webhook address starts with https:// (http:// only for localhost or 127.0.0.1), without a user name or password.');

/** A bot token as BotFather gives it: the bot's id, a colon, then its secret. */
export const BotTokenSchema = z
  .string()
  .trim()
  .regex(/^[0-9]{1,16}:[A-Za-z0-9_-]{20,100}$/, 'A bot token looks like 123456789:AAH… — the line @BotFather sent when you made the bot.');

/** A channel's kind in words. */
export const KIND_NAMES = Object.freeze({ telegram: 'Telegram', webhook: 'webhook', hook: 'incoming webhook' });

/** What the user sees of a webhook address: its host. @param {string} url */
export const webhookLabel = (url) => new URL(url).host;

/**
 * The address an incoming webhook's sender posts to: the machine's wsh server, /hook/, the token.
 * @param {string} machineUrl the machine's ws:// or wss:// address @param {string} token
 */
export function hookAddress(machineUrl, token) {
  const u = new URL(machineUrl);
  return `${u.protocol === 'wss:' ? 'https:' : 'http:'}//${u.host}/hook/${token}`;
}
