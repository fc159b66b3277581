// The channels of every workspace, wired: each Telegram channel polls (in the tab that runs the
// scheduled jobs, under a Web Lock of its own so one tab only) — an incoming webhook listens on
// its machine's wsh server the same way —, hands each allowed message to
// the workspace's chat as a turn of its own agent, autonomy and tools — the message untrusted,
// so the turn is tainted — and sends the reply back; what it ignores goes to the channel's
// conversation log and to its traffic. A job's result can go out through a channel. The logic
// that decides is in web/channels/ (pure); this module only connects it to the app.
/** @import { ConfigStore } from '../storage/types.d.ts' */
/** @import { ChatController } from './chat-controller.js' */
/** @import { AgentSettingsStore } from './agent-settings.js' */
/** @import { ApproveFn } from '../agent/runtime/tool-runner.js' */
/** @import { Channel, Traffic } from '../channels/channel.js' */
/** @import { ChannelInput } from '../channels/store.js' */
/** @import { PollStatus } from '../channels/poller.js' */
/** @import { TelegramUpdate } from '../channels/telegram.js' */
/** @import { ChannelsControl } from '../ui/types.d.ts' */
import { ChannelStore } from '../channels/store.js';
import { ChannelError, KIND_NAMES, hookAddress } from '../channels/channel.js';
import { TelegramApi } from '../channels/telegram.js';
import { pollTelegram, abortableWait, MIN_BACKOFF_MS, MAX_BACKOFF_MS } from '../channels/poller.js';
import { postWebhook } from '../channels/webhook.js';
import { decideTelegram, channelTurnText, hookText, hookTurnText, RateLimiter, IGNORE_REASONS } from '../channels/inbound.js';
import { jobApprover } from '../agent/scheduling/job-approval.js';

/** What a channel's sender is told when the turn failed (why is the owner's to see, in Clawser). */
export const FAILED_REPLY = 'Sorry — I could not answer this message. The owner can see why in Clawser.';

/**
 * @typedef {{config: ConfigStore, secrets: import('../channels/store.js').Sealer, chat: (workspaceId: string) => ChatController,
 *   agentSettings: AgentSettingsStore, workspaceName: (workspaceId: string) => string, approve?: ApproveFn,
 *   fetch?: (url: string, init: RequestInit) => Promise<Response>, locks?: LockManager | null, now?: () => number,
 *   remote?: () => Promise<HookMachines>}} HostDeps
 *   approve: the approval dialog (a channel's turn asks like a scheduled job's: named, and refused when nobody answers in time);
 *   locks: the Web Locks that keep a channel to one tab (null: none, a test); remote: the user's wsh machines (incoming webhooks)
 */

/**
 * What an incoming webhook needs of the user's machines (web/stores/remote-machines.js).
 * @typedef {{get: (name: string) => {url: string}, client: (name: string, signal?: AbortSignal) => Promise<{listenHooks:
 *   (o: {name: string, tokens: string[], onHook: (r: {contentType: string, body: Uint8Array}) => boolean | Promise<boolean>,
 *   signal?: AbortSignal}) => Promise<{ended: Promise<{stopped: boolean, error?: unknown}>, stop: () => Promise<void>}>}>}} HookMachines
 */

/**
 * A channel as the job its turns run for: its approvals name it, and its conversation is listed under Channels.
 * @param {{id: string, name: string}} channel
 */
const channelJob = (channel) => ({ id: `channel-${channel.id}`, name: channel.name, viaChannel: true });

/** @implements {ChannelsControl} */
export class WorkspaceChannels {
  /** @type {Map<string, PollStatus>} */
  #status = new Map();
  /** @type {Map<string, AbortController>} */
  #running = new Map();
  /** @type {Map<string, RateLimiter>} */
  #limits = new Map();
  /** @type {Set<() => void>} */
  #listeners = new Set();
  /** Incoming webhooks' turns, one after another. @type {Promise<unknown>} */
  #hookTurns = Promise.resolve();

  /** @param {HostDeps} deps @param {string} workspaceId */
  constructor(deps, workspaceId) {
    this.deps = deps;
    this.workspaceId = workspaceId;
    this.store = new ChannelStore({ config: deps.config, secrets: deps.secrets, workspaceId, ...(deps.now ? { now: deps.now } : {}) });
    this.store.onChange(() => this.#changed());
  }

  #changed() {
    for (const fn of this.#listeners) fn();
  }

  /** @param {() => void} fn @returns {() => void} */
  onChange(fn) {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  list() {
    return this.store.list();
  }

  /** @param {string} id @returns {PollStatus | null} */
  status(id) {
    const c = this.store.list().find((x) => x.id === id);
    if (!c) return null;
    if (c.paused) return { state: 'paused', message: 'Paused: messages wait at Telegram until it is resumed.', at: Date.now() };
    return this.#status.get(id) ?? null;
  }

  /** @param {string} id @returns {Traffic[]} */
  traffic(id) {
    return this.store.traffic(id);
  }

  /** @param {ChannelInput} input */
  async add(input) {
    const channel = await this.store.add(input);
    this.start(channel.id);
    return channel;
  }

  /** @param {string} id */
  async remove(id) {
    this.#stop(id);
    this.#status.delete(id);
    await this.store.remove(id);
  }

  /** @param {string} id @param {boolean} paused */
  async setPaused(id, paused) {
    await this.store.update(id, { paused });
    if (paused) this.#stop(id);
    else this.start(id);
    this.#changed();
  }

  /**
   * Checks a channel end to end: a Telegram bot answers getMe (its @name is kept as its label);
   * a webhook gets a test POST. Resolves to what to tell the user; a failure throws its ChannelError.
   * @param {string} id @returns {Promise<string>}
   */
  async test(id) {
    const c = this.store.get(id);
    const secret = await this.store.secret(id);
    if (c.kind === 'hook') {
      const s = this.status(id);
      if (s?.state !== 'listening') throw new ChannelError('network', s?.message ?? 'It is not listening in this tab.');
      return `Listening. Senders post to ${await this.address(id)}`;
    }
    if (c.kind === 'telegram') {
      const bot = await this.#api(secret).getMe();
      const label = bot.username ? `@${bot.username}` : bot.first_name;
      await this.store.update(id, { label });
      return `Connected: the bot is ${label}. Send it a message from an allowed account.`;
    }
    await postWebhook({
      url: secret,
      payload: { channel: c.name, kind: 'test', title: 'Test', text: 'A test message from Clawser.', at: new Date().toISOString() },
      ...(this.deps.fetch ? { fetch: this.deps.fetch } : {}),
    });
    this.store.addTraffic(id, { direction: 'out', status: 'sent', note: 'test message' });
    return `The webhook’s receiver accepted a test message.`;
  }

  /**
   * Where an incoming webhook's sender posts (its machine's wsh server, with the channel's token):
   * shown to the user on request, never logged.
   * @param {string} id @returns {Promise<string>}
   */
  async address(id) {
    const c = this.store.get(id);
    if (c.kind !== 'hook' || !c.machine || !this.deps.remote) throw new ChannelError('invalid', 'Only an incoming webhook has an address.');
    const machine = (await this.deps.remote()).get(c.machine);
    return hookAddress(machine.url, await this.store.secret(id));
  }

  /**
   * Sends a text out through a channel (a job's result): a webhook POSTs it; a Telegram bot sends
   * it to each allowed sender's private chat with the bot (they must have started the bot).
   * @param {string} id @param {{title: string, text: string}} message
   */
  async deliver(id, message) {
    const c = this.store.get(id);
    await this.#out(c, { kind: 'job_result', title: message.title, text: message.text, telegram: `${message.title}\n\n${message.text}` });
  }

  /**
   * The agent's message out through a channel (channel_send): as a job's result, or to one allowed
   * sender (`to`). A paused channel, an incoming webhook or a sender not on the list is refused
   * (ChannelError `paused`, `invalid`) before anything is sent.
   * @param {string} id @param {{text: string, to?: string}} message
   */
  async send(id, message) {
    const c = this.store.get(id);
    if (c.paused) throw new ChannelError('paused', `The channel “${c.name}” is paused: the user resumes it in the Channels panel.`);
    if (message.to !== undefined && (c.kind !== 'telegram' || !c.allowedSenders.includes(message.to)))
      throw new ChannelError(
        'invalid',
        `“to” names one of the Telegram user ids the channel “${c.name}” answers (${c.allowedSenders.join(', ') || 'none'}).`,
      );
    const to = message.to === undefined ? undefined : [message.to];
    await this.#out(c, { kind: 'message', title: 'A message from the agent', text: message.text, telegram: message.text, to });
  }

  /**
   * A channel by the name the user gave it (or its id), else a ChannelError `not_found` naming the channels there are.
   * @param {string} name @returns {Channel}
   */
  named(name) {
    const list = this.store.list();
    const found = list.find((c) => c.name === name) ?? list.find((c) => c.id === name);
    if (found) return found;
    const there = list.map((c) => `${c.name} (${KIND_NAMES[c.kind]})`).join(', ');
    throw new ChannelError(
      'not_found',
      `There is no channel named “${name}”. ${there ? `The channels: ${there}.` : 'This workspace has none.'}`,
    );
  }

  /**
   * Sends out, in the channel's traffic whether it went or not (never its secret: the errors name none).
   * @param {Channel} c @param {{kind: 'job_result' | 'message', title: string, text: string, telegram: string, to?: string[]}} m
   */
  async #out(c, m) {
    const secret = await this.store.secret(c.id);
    try {
      if (c.kind === 'hook')
        throw new ChannelError('invalid', 'An incoming webhook only receives: choose another channel to send through.');
      if (c.kind === 'webhook')
        await postWebhook({
          url: secret,
          payload: { channel: c.name, kind: m.kind, title: m.title, text: m.text, at: new Date().toISOString() },
          ...(this.deps.fetch ? { fetch: this.deps.fetch } : {}),
        });
      else {
        const api = this.#api(secret);
        for (const user of m.to ?? c.allowedSenders) await api.sendMessage(Number(user), m.telegram);
      }
      const note = m.kind === 'message' ? 'sent by the agent' : m.title.slice(0, 300);
      this.store.addTraffic(c.id, { direction: 'out', status: 'sent', note });
    } catch (err) {
      this.store.addTraffic(c.id, { direction: 'out', status: 'failed', note: String(/** @type {Error} */ (err).message).slice(0, 300) });
      throw err;
    }
  }

  /** Starts every Telegram channel that is not paused. */
  startAll() {
    for (const c of this.store.list()) this.start(c.id);
  }

  /** Stops every channel's polling (another tab takes over, or the page goes). */
  stopAll() {
    for (const id of [...this.#running.keys()]) this.#stop(id);
  }

  /** @param {string} id */
  #stop(id) {
    this.#running.get(id)?.abort();
    this.#running.delete(id);
  }

  /** @param {string} secret */
  #api(secret) {
    return new TelegramApi({ token: secret, ...(this.deps.fetch ? { fetch: this.deps.fetch } : {}) });
  }

  /** @param {string} id @param {PollStatus} s */
  #setStatus(id, s) {
    this.#status.set(id, s);
    this.#changed();
  }

  /** Polls a Telegram channel, or listens for an incoming webhook (once: a second call while it runs does nothing). @param {string} id */
  start(id) {
    const c = this.store.list().find((x) => x.id === id);
    if (!c || c.kind === 'webhook' || c.paused || this.#running.has(id)) return;
    const stop = new AbortController();
    this.#running.set(id, stop);
    const run = async () => {
      if (c.kind === 'hook') return this.#listen(c, stop.signal);
      const token = await this.store.secret(id);
      const api = this.#api(token);
      await pollTelegram(
        {
          api,
          offset: { get: () => this.store.offset(id), set: (next) => this.store.setOffset(id, next) },
          handle: (update) => this.#handle(id, api, update),
          onStatus: (s) => this.#setStatus(id, s),
          // Paused or removed in another tab: this one stops taking messages.
          paused: () => this.store.list().find((x) => x.id === id)?.paused !== false,
        },
        stop.signal,
      );
    };
    const locks = this.deps.locks === undefined ? globalThis.navigator?.locks : this.deps.locks;
    this.#setStatus(id, { state: 'standby', message: 'Waiting for another tab of Clawser that runs this channel.', at: Date.now() });
    const done = locks ? locks.request(`clawser-channel:${this.workspaceId}:${id}`, { signal: stop.signal }, run) : run();
    done
      .catch((err) => {
        if (stop.signal.aborted) return;
        this.#setStatus(id, { state: 'stopped', message: String(/** @type {Error} */ (err)?.message ?? err), at: Date.now() });
      })
      .finally(() => {
        if (this.#running.get(id) === stop) this.#running.delete(id);
      });
  }

  /**
   * An incoming webhook: listens on its machine's wsh server while the channel runs, and again
   * after the connection drops (back-off, the status saying why); a refusal that cannot change
   * (the token taken elsewhere, the key refused, an older server) stops it.
   * @param {Channel} channel @param {AbortSignal} signal
   */
  async #listen(channel, signal) {
    const id = channel.id;
    const token = await this.store.secret(id);
    const remote = this.deps.remote;
    if (!remote || !channel.machine) throw new ChannelError('invalid', 'Incoming webhooks need a machine of the Remote panel.');
    let backoff = MIN_BACKOFF_MS;
    const now = () => (this.deps.now ?? Date.now)();
    this.#setStatus(id, { state: 'starting', message: `Connecting to the machine “${channel.machine}”…`, at: now() });
    while (!signal.aborted) {
      try {
        const client = await (await remote()).client(/** @type {string} */ (channel.machine), signal);
        const listener = await client.listenHooks({ name: channel.name, tokens: [token], onHook: (r) => this.#hook(id, r), signal });
        this.#setStatus(id, { state: 'listening', message: 'Listening for webhooks.', at: now() });
        backoff = MIN_BACKOFF_MS;
        const onAbort = () => void listener.stop();
        signal.addEventListener('abort', onAbort, { once: true });
        const end = await listener.ended;
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) return;
        throw end.error ?? new ChannelError('network', 'The machine stopped listening.');
      } catch (err) {
        if (signal.aborted) return;
        const e = /** @type {{code?: string, message?: string}} */ (err);
        if (['hook_token_in_use', 'hook_unsupported', 'auth_failed', 'not_found', 'no_key'].includes(String(e.code))) {
          this.#setStatus(id, { state: 'stopped', message: String(e.message ?? err), at: now() });
          return;
        }
        this.#setStatus(id, {
          state: 'offline',
          message: `The machine “${channel.machine}” cannot be reached: trying again in ${Math.ceil(backoff / 1000)} s.`,
          at: now(),
        });
        await abortableWait(backoff, signal);
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
    }
  }

  /**
   * One incoming webhook: taken (true: its sender hears 202) when it is text and within the rate
   * limit — its turn runs after the ones before it —, else logged; false (503: the sender may try
   * again later) when over the limit.
   * @param {string} id @param {{contentType: string, body: Uint8Array}} request
   */
  #hook(id, request) {
    const channel = this.store.list().find((c) => c.id === id);
    if (!channel || channel.paused) return false;
    const body = hookText(request.contentType, request.body);
    if (body === null || !body.trim()) {
      void this.#ignored(channel, null, 'not_text');
      return true;
    }
    if (!this.#limiter(channel).take()) {
      void this.#ignored(channel, null, 'rate');
      return false;
    }
    const { text, untrusted } = hookTurnText(channel, body, (this.deps.now ?? Date.now)());
    const sender = { id: 'webhook', name: 'a webhook sender' };
    this.#hookTurns = this.#hookTurns
      .then(() => this.#turn(channel, sender, text, untrusted))
      .then((result) =>
        this.store.addTraffic(id, {
          direction: 'in',
          status: result.ok ? 'answered' : 'failed',
          sender: 'webhook',
          note: result.ok ? 'handled: the reply is in the channel’s conversation' : `the turn failed: ${result.summary.slice(0, 200)}`,
        }),
      )
      .catch(() => {});
    return true;
  }

  /** The channel's rate limiter (a new one when its limits changed). @param {Channel} channel */
  #limiter(channel) {
    let limiter = this.#limits.get(channel.id);
    const same = limiter && limiter.rate.perMinute === channel.rate.perMinute && limiter.rate.perHour === channel.rate.perHour;
    if (!limiter || !same) this.#limits.set(channel.id, (limiter = new RateLimiter(channel.rate, this.deps.now)));
    return limiter;
  }

  /**
   * A turn of the channel's agent, with its autonomy and tools, the text untrusted; its approvals
   * named and refused when nobody answers in time (as a scheduled job's).
   * @param {Channel} channel @param {{id: string, name: string}} sender @param {string} text @param {string} untrusted
   * @returns {Promise<{ok: boolean, summary: string}>}
   */
  async #turn(channel, sender, text, untrusted) {
    const d = this.deps;
    const timeoutMs = d.agentSettings.load(this.workspaceId).scheduler.approvalTimeoutMinutes * 60_000;
    const approver = jobApprover({
      ...(d.approve ? { approve: d.approve } : {}),
      job: channelJob(channel),
      workspace: { id: this.workspaceId, name: d.workspaceName(this.workspaceId) },
      timeoutMs,
    });
    const result = await d
      .chat(this.workspaceId)
      .runScheduled({
        ...(channel.conversationId ? { conversationId: channel.conversationId } : {}),
        title: channel.name,
        job: channelJob(channel),
        text,
        untrusted,
        ...(channel.agent ? { agent: channel.agent } : {}),
        limits: { tools: channel.tools, autonomy: channel.autonomy },
        ...(approver.approve ? { approve: approver.approve } : {}),
        before: (conv) => conv.append('channel_message', { channelId: channel.id, channel: channel.name, sender }, 'system'),
      })
      .catch((err) => ({ ok: false, summary: String(/** @type {Error} */ (err)?.message ?? err), conversationId: channel.conversationId }));
    if (result.conversationId && result.conversationId !== channel.conversationId)
      await this.store.update(channel.id, { conversationId: result.conversationId }).catch(() => {});
    return result;
  }

  /**
   * One update: ignored (logged, without its text) or answered by the channel's agent.
   * @param {string} id @param {TelegramApi} api @param {TelegramUpdate} update
   */
  async #handle(id, api, update) {
    const channel = this.store.get(id);
    const decision = decideTelegram(channel, update);
    if (decision.action === 'ignore') {
      await this.#ignored(channel, decision.sender, decision.reason);
      return;
    }
    if (!this.#limiter(channel).take()) {
      await this.#ignored(channel, decision.sender, 'rate');
      return;
    }
    const { sender } = decision;
    const { text, untrusted } = channelTurnText(channel, sender, decision.text, (this.deps.now ?? Date.now)());
    const result = await this.#turn(channel, sender, text, untrusted);
    const who = `${sender.name} (${sender.id})`;
    try {
      await api.sendMessage(decision.chatId, result.ok ? result.summary : FAILED_REPLY);
      this.store.addTraffic(id, {
        direction: 'in',
        status: result.ok ? 'answered' : 'failed',
        sender: who,
        note: result.ok ? 'answered' : `the turn failed: ${result.summary.slice(0, 200)}`,
      });
    } catch (err) {
      this.store.addTraffic(id, {
        direction: 'in',
        status: 'failed',
        sender: who,
        note: `the reply could not be sent: ${String(/** @type {Error} */ (err).message).slice(0, 200)}`,
      });
    }
  }

  /**
   * A message not answered: in the traffic and the channel's conversation log — who and why, never its text.
   * @param {Channel} channel @param {{id: string, name: string} | null} sender
   * @param {keyof typeof IGNORE_REASONS} reason
   */
  async #ignored(channel, sender, reason) {
    this.store.addTraffic(channel.id, {
      direction: 'in',
      status: reason === 'rate' ? 'limited' : 'ignored',
      sender: sender ? `${sender.name} (${sender.id})` : '',
      note: IGNORE_REASONS[reason],
    });
    const conversationId = await this.deps
      .chat(this.workspaceId)
      .record(
        channel.conversationId,
        channel.name,
        'channel_ignored',
        {
          channelId: channel.id,
          channel: channel.name,
          sender,
          reason,
        },
        channelJob(channel),
      )
      .catch(() => null);
    if (conversationId && conversationId !== channel.conversationId)
      await this.store.update(channel.id, { conversationId }).catch(() => {});
  }
}

/** Every workspace's channels (the page's), made on first use. */
export class ChannelHost {
  /** @type {Map<string, WorkspaceChannels>} */
  #of = new Map();

  /** @param {HostDeps} deps */
  constructor(deps) {
    this.deps = deps;
  }

  /** @param {string} workspaceId */
  of(workspaceId) {
    let w = this.#of.get(workspaceId);
    if (!w) this.#of.set(workspaceId, (w = new WorkspaceChannels(this.deps, workspaceId)));
    return w;
  }

  /** Starts the channels of these workspaces (the tab that runs scheduled jobs). @param {string[]} workspaceIds */
  start(workspaceIds) {
    for (const id of workspaceIds) this.of(id).startAll();
  }

  stop() {
    for (const w of this.#of.values()) w.stopAll();
  }

  /** A workspace was deleted. @param {string} workspaceId */
  forget(workspaceId) {
    this.#of.get(workspaceId)?.stopAll();
    this.#of.delete(workspaceId);
  }
}
