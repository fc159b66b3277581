// The channels of one workspace: their records in the ConfigStore (validated with zod), each
// one's secret — a bot token, a webhook's address — sealed by the SecretBox like API keys (never
// stored in clear, never in a record, a log or the traffic), a Telegram channel's offset (the
// next update to read, stored durably before a message is handled) and its recent traffic.
/** @import { ConfigStore } from '../storage/types.d.ts' */
import { z } from 'zod';
import {
  BotTokenSchema,
  ChannelError,
  ChannelSchema,
  TRAFFIC_KEPT,
  TrafficSchema,
  WebhookUrlSchema,
  SenderIdSchema,
  RateSchema,
  CHANNEL_AUTONOMY,
  webhookLabel,
} from './channel.js';

/** @import { Channel, Traffic } from './channel.js' */

const listKey = (/** @type {string} */ ws) => `clawser_channels_${ws}`;
const secretKey = (/** @type {string} */ ws, /** @type {string} */ id) => `clawser_channel_secret_${ws}_${id}`;
const offsetKey = (/** @type {string} */ ws, /** @type {string} */ id) => `clawser_channel_offset_${ws}_${id}`;
const trafficKey = (/** @type {string} */ ws, /** @type {string} */ id) => `clawser_channel_traffic_${ws}_${id}`;

/** Every key a workspace's channels keep (for forgetting a deleted workspace). @param {string} ws */
export const channelKeyPrefixes = (ws) => [
  listKey(ws),
  `clawser_channel_secret_${ws}_`,
  `clawser_channel_offset_${ws}_`,
  `clawser_channel_traffic_${ws}_`,
];

const ListSchema = z.array(ChannelSchema).max(50);

export const ChannelInputSchema = z.object({
  kind: z.enum(['telegram', 'webhook', 'hook']),
  name: z.string().trim().min(1, 'Give the channel a name.').max(40, 'A name of at most 40 characters.'),
  /** A bot token (telegram) or an address (webhook); an incoming webhook's token is made here. */
  secret: z.string().default(''),
  /** An incoming webhook: the machine (Remote panel) whose wsh server takes the POSTs. */
  machine: z.string().trim().max(32).optional(),
  /** A named agent ('': the workspace's own). */
  agent: z.string().trim().max(32).default(''),
  autonomy: z.enum(CHANNEL_AUTONOMY).default('readonly'),
  tools: z
    .array(z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'a tool name'))
    .max(200)
    .default([]),
  allowedSenders: z.array(SenderIdSchema).max(50).default([]),
  rate: RateSchema.optional(),
});
/** @typedef {z.input<typeof ChannelInputSchema>} ChannelInput */

/** @typedef {{encrypt: (plain: string) => Promise<string>, decrypt: (sealed: string) => Promise<string>}} Sealer */

/** An incoming webhook's token: 32 random bytes, base64url (it is part of the address its sender posts to). */
export function newHookToken() {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '');
}

export class ChannelStore {
  /** @type {Set<() => void>} */
  #listeners = new Set();

  /** @param {{config: ConfigStore, secrets: Sealer, workspaceId: string, now?: () => number}} deps */
  constructor(deps) {
    this.config = deps.config;
    this.secrets = deps.secrets;
    this.workspaceId = deps.workspaceId;
    this.now = deps.now ?? Date.now;
  }

  /** @returns {Channel[]} */
  list() {
    const parsed = ListSchema.safeParse(this.config.get(listKey(this.workspaceId), []));
    return parsed.success ? parsed.data : [];
  }

  /** @param {string} id @returns {Channel} */
  get(id) {
    const c = this.list().find((x) => x.id === id);
    if (!c) throw new ChannelError('not_found', 'That channel no longer exists (removed in another tab?).');
    return c;
  }

  /** Called after every change of a record or of traffic. @param {() => void} fn @returns {() => void} */
  onChange(fn) {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  #changed() {
    for (const fn of this.#listeners) fn();
  }

  /** @param {Channel[]} list */
  async #save(list) {
    this.config.set(listKey(this.workspaceId), list);
    await this.config.flush();
    this.#changed();
  }

  /**
   * Adds a channel; its secret is checked for its form and sealed.
   * @param {ChannelInput} input @returns {Promise<Channel>}
   */
  async add(input) {
    const parsed = ChannelInputSchema.safeParse(input);
    if (!parsed.success) throw new ChannelError('invalid', parsed.error.issues.map((i) => i.message).join(' '));
    const d = parsed.data;
    if (d.kind === 'hook' && !d.machine) throw new ChannelError('invalid', 'Choose the machine whose wsh server takes the webhooks.');
    const secret =
      d.kind === 'telegram'
        ? BotTokenSchema.safeParse(d.secret)
        : d.kind === 'webhook'
          ? WebhookUrlSchema.safeParse(d.secret)
          : { success: /** @type {const} */ (true), data: newHookToken() };
    if (!secret.success) throw new ChannelError('invalid', secret.error.issues[0].message);
    if (d.kind === 'telegram' && !d.allowedSenders.length)
      throw new ChannelError('invalid', 'List at least one Telegram user id to answer: everyone else is ignored.');
    if (this.list().some((c) => c.name === d.name)) throw new ChannelError('invalid', `A channel is already named “${d.name}”.`);
    const id = `ch${this.now().toString(36)}${Math.random().toString(36).slice(2, 7)}`;
    const channel = ChannelSchema.parse({
      id,
      kind: d.kind,
      name: d.name,
      label: d.kind === 'telegram' ? `bot ${secret.data.split(':')[0]}` : d.kind === 'webhook' ? webhookLabel(secret.data) : `${d.machine}`,
      ...(d.kind === 'hook' ? { machine: d.machine } : {}),
      createdAt: this.now(),
      agent: d.agent,
      autonomy: d.autonomy,
      tools: d.tools,
      allowedSenders: [...new Set(d.allowedSenders)],
      ...(d.rate ? { rate: d.rate } : {}),
    });
    this.config.set(secretKey(this.workspaceId, id), await this.secrets.encrypt(secret.data));
    await this.#save([...this.list(), channel]);
    return channel;
  }

  /**
   * Changes a channel's settings (never its secret or kind).
   * @param {string} id @param {Partial<Pick<Channel, 'paused' | 'label' | 'conversationId' | 'agent' | 'autonomy' | 'tools' |
   *   'allowedSenders'>>} patch
   */
  async update(id, patch) {
    const list = this.list();
    const i = list.findIndex((c) => c.id === id);
    if (i < 0) throw new ChannelError('not_found', 'That channel no longer exists (removed in another tab?).');
    const next = ChannelSchema.safeParse({ ...list[i], ...patch });
    if (!next.success) throw new ChannelError('invalid', next.error.issues.map((x) => `${x.path.join('.')}: ${x.message}`).join(' '));
    list[i] = next.data;
    await this.#save(list);
    return next.data;
  }

  /** Removes a channel, its sealed secret, offset and traffic. @param {string} id */
  async remove(id) {
    const ws = this.workspaceId;
    for (const key of [secretKey(ws, id), offsetKey(ws, id), trafficKey(ws, id)]) this.config.remove(key);
    await this.#save(this.list().filter((c) => c.id !== id));
  }

  /** The channel's secret, unsealed (for the request that needs it, never shown). @param {string} id @returns {Promise<string>} */
  async secret(id) {
    const sealed = this.config.get(secretKey(this.workspaceId, id), null);
    if (typeof sealed !== 'string')
      throw new ChannelError('no_secret', 'This channel’s token is gone: remove the channel and add it again.');
    return this.secrets.decrypt(sealed);
  }

  /** The next Telegram update to read (0: from the oldest Telegram still holds). @param {string} id */
  offset(id) {
    const v = this.config.get(offsetKey(this.workspaceId, id), 0);
    return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : 0;
  }

  /** Stores the offset and resolves once it is durable. @param {string} id @param {number} next */
  async setOffset(id, next) {
    this.config.set(offsetKey(this.workspaceId, id), next);
    await this.config.flush();
  }

  /** Recent traffic, oldest first. @param {string} id @returns {Traffic[]} */
  traffic(id) {
    const parsed = z.array(TrafficSchema).safeParse(this.config.get(trafficKey(this.workspaceId, id), []));
    return parsed.success ? parsed.data : [];
  }

  /** @param {string} id @param {Omit<z.input<typeof TrafficSchema>, 'at'> & {at?: number}} entry */
  addTraffic(id, entry) {
    const e = TrafficSchema.parse({ at: this.now(), ...entry });
    this.config.update(trafficKey(this.workspaceId, id), (old) => {
      const list = z.array(TrafficSchema).safeParse(old ?? []);
      return [...(list.success ? list.data : []), e].slice(-TRAFFIC_KEPT);
    });
    this.#changed();
  }
}
