/** @import { ConversationMeta, ClawserEvent } from '../agent/types.d.ts' */
/** @import { FileSystem } from '../storage/types.d.ts' */
/** @import { SettingsStore } from './settings.js' */
/** @import { Provider, ProviderErrorShape } from '../providers/types.d.ts' */
/** @import { ClawserAgent } from '../agent/runtime/agent.js' */
/**
 * options.approve: the approval function of a scheduled job's turn (names the job, times out) instead of the dialog's default.
 * options.profile: the named agent a message "@name …" addressed.
 * @typedef {(provider: Provider, conversation: Conversation, secrets: string[], options?: {approve?: import('../agent/runtime/tool-runner.js').ApproveFn, profile?: import('../agent/runtime/agent-definitions.js').AgentDefinition}) => ClawserAgent | Promise<ClawserAgent>} AgentBuilder
 */
import { ConversationStore } from '../agent/conversation/conversation-store.js';
import { Conversation } from '../agent/conversation/conversation.js';
import { toHtml, toJsonl, toMarkdown, parseImport, markImported } from '../agent/conversation/conversation-export.js';
import { plainTitle, titleRequest, cleanModelTitle } from '../agent/conversation/title.js';
import { activePath, BranchTree } from '../agent/conversation/branches.js';
import { ConversationSearch } from '../agent/conversation/conversation-search.js';
import { estimateTextTokens, tokenFamily } from '../providers/tokens.js';
import { catalogEntry } from '../providers/catalog.js';
import { imageLimitsFor } from '../providers/images.js';
import { parseMention, mentionCompletions, DEFAULT_AGENT_NAME } from '../agent/conversation/mentions.js';
import { UndoStore, UNDO_KEEP, planUndo, applyUndo, describeChanges, undoPaths } from '../agent/runtime/undo.js';
import { ProviderError } from '../providers/errors.js';

/**
 * A fork must not end inside a tool round (a call without its result is refused by providers):
 * it stops before the assistant message whose calls are not all answered.
 * @param {ClawserEvent[]} events
 */
export function withoutOpenToolRound(events) {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i];
    if (e.type !== 'agent_message' || !Array.isArray(e.data.toolCalls) || !e.data.toolCalls.length) continue;
    const answered = new Set(events.slice(i + 1).filter((x) => x.type === 'tool_result').map((x) => x.data.toolCallId));
    return e.data.toolCalls.every((/** @type {{id: string}} */ c) => answered.has(c.id)) ? events : events.slice(0, i);
  }
  return events;
}

/** An image the user attached to a message. @typedef {{bytes: Uint8Array, mediaType: string}} AttachedImage */

/**
 * What the chat controller refuses to do as asked: `invalid` (an import that is not a
 * conversation), `not_found` (a fork at an event the conversation does not have), `client` (a
 * turn addressed to an agent that does not exist).
 */
export class ChatError extends Error {
  /** @param {'invalid' | 'not_found' | 'client'} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.name = 'ChatError';
    this.code = code;
  }
}

/** What "Continue" sends after the user stopped a reply (recorded as such, shown as a note). */
export const CONTINUE_TEXT = 'Continue your previous reply from exactly where it stopped, without repeating what you already wrote.';

/**
 * @typedef {object} ChatState
 * @property {ConversationMeta[]} conversations
 * @property {string | null} activeId
 * @property {readonly ClawserEvent[]} events transcript of the active conversation (its active version)
 * @property {ReadonlyMap<string, {index: number, count: number, siblings: string[]}>} versions events of the
 *   transcript that have other versions (an edited message, a regenerated reply): for ‹ 1/2 ›
 * @property {boolean} hasEarlier
 * @property {{text: string, thinking: string, status: string} | null} streaming reply in progress
 * @property {(ProviderErrorShape & {text: string, resume: boolean, selfRepair?: boolean, agent?: string}) | null} failure last turn's failure: `text` to re-send, or `resume` to continue after tool results;
 *   selfRepair: self-repair stopped a stuck run (the user may continue anyway); agent: the named agent whose turn failed (a retry is its again)
 * @property {string | null} notice a one-off message (storage repaired, …)
 * @property {string | null} [focus] a message to bring into view (a search hit), once
 * @property {ChatMeter | null} [meter] the cost and token meter of the active conversation
 * @property {{label: string}[]} [attachments] texts waiting to go with the next message (MCP resources)
 * @property {{turnId: string, last: string, summary: string, changes: number} | null} [undo] the turn "Undo" reverts (its last event carries the button)
 * @property {{turnId: string, event: string} | null} [redo] the undone turn "Redo" re-applies (its turn_undone notice carries the button)
 */

/**
 * @typedef {object} ChatMeter
 * @property {import('../agent/conversation/event-log.js').ConversationSpend} spend this conversation's model calls
 * @property {import('../providers/tokens.js').TokenFamily} family the provider's tokenizer family (for the composer's estimate)
 * @property {number} [todayCents] the workspace's spend today
 * @property {number} [monthCents] and this month
 * @property {{provider: string, failures: number, retryAt: number}[]} [paused] providers the circuit breaker skips until `retryAt`
 * @property {string | null} [warning] a cost limit is 80% used
 * @property {{hint: import('../agent/types.d.ts').RouteHint, label: string, model: string}[]} [routes] the workspace's routing hints (for the conversation's model menu)
 * @property {import('../agent/types.d.ts').RouteHint | null} [route] the hint this conversation is pinned to
 */

/** @typedef {{provider: string, model: string, baseUrl: string}} RouteTarget */
/**
 * What an undo or redo did: its message, the conflicts it asks about, and the workspace files it
 * changed (for its own commit).
 * @typedef {{ok: boolean, message: string, conflicts?: string[], commit?: {direction: 'undo' | 'redo', paths: string[], turn: {conversationId: string, title: string, text: string}}}} TakeBackOutcome
 */

/**
 * Chat of one workspace: conversations, sending, stopping, retrying. Owns no DOM; the chat
 * view renders its state.
 */
export class ChatController {
  /** @type {ChatState} */
  state = { conversations: [], activeId: null, events: [], versions: new Map(), hasEarlier: false, streaming: null, failure: null, notice: null };
  /** @type {Conversation | null} */
  #conversation = null;
  /**
   * Turns in progress, by conversation (a scheduled turn may run in one the user is not viewing).
   * `finishing`: its reply is done and only its undo record is being written (not busy any more).
   * @type {Map<string, {abort: AbortController, scheduled: boolean, conversation: Conversation, done: Promise<unknown>, streaming: {text: string, thinking: string, status: string}, finishing: boolean}>}
   */
  #runs = new Map();
  /** @type {Set<(state: ChatState) => void>} */
  #listeners = new Set();

  /**
   * @param {{fs: FileSystem, workspaceId: string, settings: SettingsStore, providerFactory?: (config: import('../providers/types.d.ts').ProviderConfig) => Provider | Promise<Provider>, buildAgent?: AgentBuilder, redact?: (text: string) => string,
   *   runCode?: (conversationId: string, code: string, signal: AbortSignal | undefined, taint: import('../agent/runtime/tool-runner.js').TaintSource[]) => Promise<{ok: boolean, output: string, durationMs: number}>,
   *   afterTurn?: (agent: ClawserAgent, turn: {conversationId: string, title: string, text: string}) => Promise<string | null>,
   *   onSideUsage?: (provider: Provider, usage: import('../providers/types.d.ts').Usage) => void,
   *   spendStatus?: () => {todayCents: number, monthCents: number, warning: string | null, paused?: {provider: string, failures: number, retryAt: number}[]},
   *   routes?: () => Partial<Record<import('../agent/types.d.ts').RouteHint, RouteTarget>>,
   *   coordination?: import('../agent/types.d.ts').Coordination,
   *   agents?: () => Promise<{list: () => Promise<import('../agent/runtime/agent-definitions.js').ScopedAgent[]>, get: (name: string) => Promise<import('../agent/runtime/agent-definitions.js').ScopedAgent | null>,
   *     forUse?: (agent: import('../agent/runtime/agent-definitions.js').ScopedAgent) => Promise<{agent: import('../agent/runtime/agent-definitions.js').ScopedAgent, leftOut: string[]}>}>,
   *   delegations?: import('../agent/coordination/delegation-board.js').DelegationBoard,
   *   undoDomains?: () => Promise<import('../agent/runtime/undo.js').UndoDomains>, undoKeep?: () => number,
   *   afterTakeBack?: (change: {direction: 'undo' | 'redo', paths: string[], turn: {conversationId: string, title: string, text: string}}) => Promise<string | null>,
   *   onDamage?: import('../storage/damage.js').DamageSink}} deps
   *   undoDomains: how undo reads and puts back the workspace's files, memories, goals and jobs; undoKeep: turns kept per conversation;
   *   afterTakeBack: runs after an undo or redo with the workspace files it changed (its own commit); a returned string ends its message
   *   onDamage: told of the damaged files of the workspace's conversations (the list, details, snapshots, log lines)
   *   agents: the named agents a message may address with "@name"
   *   delegations: the live sub-agents (their cards in the chat)
   *   coordination: other tabs of this workspace (their appends show live; conversation list changes too)
   *   afterTurn: runs when a turn ends (also after a failure or Stop); a returned string is shown as a notice.
   */
  constructor(deps) {
    this.workspaceId = deps.workspaceId;
    this.settings = deps.settings;
    /** Where damaged files of this workspace's conversations are reported. */
    this.onDamage = deps.onDamage;
    this.store = new ConversationStore(deps.fs, deps.workspaceId, deps.coordination, deps.onDamage ? { onDamage: deps.onDamage } : {});
    // A damaged file was set aside: the list is read again, and the conversation on screen is
    // opened again (its instance still works around the damage).
    this.store.onSetAside = (id) => {
      void (async () => {
        this.#set({ conversations: await this.store.list() });
        if (id && this.state.activeId === id && !this.#runs.has(id) && !this.#children.has(id)) {
          this.#conversation = null;
          await this.select(id);
        }
      })().catch(() => {});
    };
    /** Full-text search across the workspace's conversations. */
    // Damaged log lines the search comes across are kept and reported by the store, as opening would.
    this.search = new ConversationSearch(deps.fs, deps.workspaceId, { onDamagedLog: (id) => { this.store.checkLog(id).catch(() => {}); } });
    this.coordination = deps.coordination;
    // Another tab created, renamed or deleted a conversation.
    this.coordination?.subscribe(`convs:${deps.workspaceId}`, () => {
      this.store.list().then((conversations) => this.#set({ conversations }), () => {});
    });
    // The providers and the agent's run loop load with the first turn, not on the app's start-up path.
    this.providerFactory = deps.providerFactory ?? (async (c) => (await import('../providers/index.js')).createProvider(c));
    /** @type {AgentBuilder} */
    this.buildAgent = deps.buildAgent ?? (async (provider, conversation, secrets) => new (await import('../agent/runtime/agent.js')).ClawserAgent({ provider, conversation, secrets }));
    this.afterTurn = deps.afterTurn;
    /** Calls made besides the agent's turns (the title request): counted toward cost and the Dashboard. */
    this.onSideUsage = deps.onSideUsage;
    /** The workspace's spend today and this month, and a warning near a limit (for the meter). */
    this.spendStatus = deps.spendStatus;
    /** The workspace's routing hints (a kind of work → provider and model). */
    /** @type {() => Partial<Record<import('../agent/types.d.ts').RouteHint, RouteTarget>>} */
    this.routes = deps.routes ?? (() => ({}));
    /** Applied to text while it streams, so a leaked secret is never on screen. */
    this.redact = deps.redact ?? ((t) => t);
    this.runCodeImpl = deps.runCode;
    this.agents = deps.agents;
    this.delegations = deps.delegations;
    // A sub-agent's conversation on screen follows its work (the sub-agent appends to the instance shown).
    this.delegations?.subscribe(() => {
      const conv = this.#conversation;
      if (conv && this.#children.has(conv.id)) this.#set({ ...this.#transcript(conv), conversations: this.#withMeta(conv.meta) });
    });
    this.fs = deps.fs;
    this.undoDomains = deps.undoDomains;
    this.undoKeep = deps.undoKeep ?? (() => UNDO_KEEP);
    this.afterTakeBack = deps.afterTakeBack;
    /** Told when a turn starts and ends (the app checkpoints then). @type {((phase: 'start' | 'end', turn: {conversationId: string, text: string, scheduled: boolean}) => void) | null} */
    this.onTurn = null;
    /** Told after a conversation was deleted, to delete its other copies (the app's checkpoints); awaited. @type {((conversationId: string) => Promise<void>) | null} */
    this.onRemoved = null;
  }

  /** Turns that were cut off by a closed tab, by conversation: where its log stood when each started. @type {Map<string, number>} */
  #interrupted = new Map();

  /**
   * A turn was running when the tab closed (the last checkpoint says so, with the length of the
   * conversation's log when it started): when its conversation is on screen and the request
   * found after that offset got no reply, the user is offered to retry it.
   * @param {string} conversationId @param {number} bytes
   */
  async markInterrupted(conversationId, bytes) {
    this.#interrupted.set(conversationId, bytes);
    if (this.state.activeId === conversationId) await this.#offerInterrupted();
  }

  async #offerInterrupted() {
    const conv = this.#conversation;
    const bytes = conv ? this.#interrupted.get(conv.id) : undefined;
    if (!conv || bytes === undefined || this.#runs.has(conv.id)) return;
    this.#interrupted.delete(conv.id);
    // The request is read from the log (the checkpoint keeps no copy of it); only offered when
    // nothing answered it since (another tab may have retried already).
    const request = await conv.requestAfter(bytes).catch(() => null);
    if (!request || request.answered || this.#conversation !== conv) return;
    if (conv.deriveSessionHistory().messages.at(-1)?.role !== 'user') return;
    this.#set({ failure: { code: 'network', retryable: true, message: 'Your last request was interrupted: the tab closed before the reply finished. Retry to get the answer.', text: request.text, resume: true } });
  }

  /** The conversation a turn runs in, or the one on screen, and its log length now (for checkpoints). @param {string} [conversationId] */
  logPosition(conversationId) {
    const conv = (conversationId ? this.#runs.get(conversationId)?.conversation : undefined) ?? this.#conversation;
    return conv ? { conversationId: conv.id, bytes: conv.byteLength } : null;
  }

  /** The active conversation's history, as the next turn would send it (for checkpoints). */
  sessionMessages() {
    return this.#conversation?.deriveSessionHistory().messages ?? [];
  }

  /** @param {(state: ChatState) => void} fn */
  subscribe(fn) {
    this.#listeners.add(fn);
    fn(this.state);
    return () => this.#listeners.delete(fn);
  }

  /** @param {Partial<ChatState>} patch */
  #set(patch) {
    this.state = { ...this.state, ...patch };
    for (const fn of this.#listeners) fn(this.state);
  }

  /** A turn is running in the conversation on screen. */
  get busy() {
    const id = this.state.activeId;
    const run = id ? this.#runs.get(id) : undefined;
    return !!id && ((!!run && !run.finishing) || this.#subAgentRunning(id) || !!this.#takingBack);
  }

  /** A sub-agent is working in this conversation (its only writer until it ends). @param {string} id */
  #subAgentRunning(id) {
    return !!this.delegations?.list().some((d) => d.conversationId === id && (d.status === 'running' || d.status === 'waiting'));
  }

  /**
   * Leaving the conversation on screen stops the user's own turn in it (not a scheduled one) —
   * unless the user goes to one of its sub-agents' conversations: looking at a sub-agent's
   * work must not cancel it.
   * @param {string} [to] the conversation opened next
   */
  #leave(to) {
    const run = this.state.activeId ? this.#runs.get(this.state.activeId) : undefined;
    const child = to ? this.state.conversations.find((c) => c.id === to)?.parent : undefined;
    if (child && child.conversationId === this.state.activeId) return;
    if (run && !run.scheduled) run.abort.abort();
  }

  /** Loads the conversation list and opens `conversationId` (or the most recent). @param {string} [conversationId] */
  async init(conversationId) {
    const conversations = await this.store.list();
    this.#set({ conversations });
    const target = conversationId && conversations.some((c) => c.id === conversationId) ? conversationId : conversations[0]?.id;
    if (target) await this.select(target);
    else this.#set({ activeId: null, events: [], versions: new Map(), hasEarlier: false });
  }

  /** @param {string} id */
  async select(id) {
    if (this.state.activeId === id && this.#conversation) return;
    this.#leave(id);
    // A conversation with a turn running keeps its one open instance (one writer per log).
    const run = this.#runs.get(id);
    const conv = run?.conversation ?? this.#children.get(id) ?? (await this.store.open(id));
    this.#conversation = conv;
    this.#watch(conv);
    // What opening found damaged (a torn last entry included) is on the page's notice of damaged files.
    this.#set({ activeId: id, ...this.#transcript(conv), hasEarlier: conv.hasEarlier, streaming: run && !run.finishing ? { ...run.streaming } : null, failure: null, notice: null, undo: null, redo: null });
    await this.#refreshUndo(conv);
    await this.#offerInterrupted();
  }

  /** @type {(() => void) | null} */
  #unwatch = null;

  /** Shows what other tabs append to the conversation on screen, as it is written. @param {Conversation} conv */
  #watch(conv) {
    this.#unwatch?.();
    this.#unwatch = null;
    if (!this.coordination) return;
    const dir = this.store.dirOf(conv.id);
    this.#unwatch = this.coordination.subscribe(Conversation.topic(dir), () => {
      conv.refresh().then((added) => {
        if (added.length && this.#conversation === conv) {
          this.#set({ ...this.#transcript(conv), conversations: this.#withMeta(conv.meta) });
          return this.#refreshUndo(conv);
        }
      }).catch(() => {});
    });
  }

  #announceList() {
    this.coordination?.publish(`convs:${this.workspaceId}`, {});
  }

  async loadEarlier() {
    if (!this.#conversation) return;
    await this.#conversation.loadEarlier();
    this.#set({ ...this.#transcript(this.#conversation), hasEarlier: this.#conversation.hasEarlier });
  }

  newConversation() {
    const opening = (async () => {
      this.#leave();
      const meta = await this.store.create();
      this.#set({ conversations: [meta, ...this.state.conversations] });
      this.#announceList();
      await this.select(meta.id);
      return meta;
    })();
    // A message sent while the new conversation is being made goes into it (not into the one
    // being left, whose turn leaving would stop).
    const settled = opening.then(() => {}, () => {});
    this.#opening = settled;
    settled.then(() => { if (this.#opening === settled) this.#opening = null; });
    return opening;
  }

  /** A new conversation being made, which the next message waits for. @type {Promise<void> | null} */
  #opening = null;

  /** @param {string} id @param {string} title */
  async rename(id, title) {
    const t = title.replace(/\s+/g, ' ').trim().slice(0, 120);
    if (!t) return;
    if (this.#conversation?.id === id) await this.#conversation.rename(t);
    else await this.store.rename(id, t);
    this.#set({ conversations: this.state.conversations.map((c) => (c.id === id ? { ...c, title: t, titleSet: true } : c)) });
    this.#announceList();
  }

  /**
   * A conversation as a file to download: Markdown, the JSONL event log, or a self-contained
   * HTML page (messages through the sanitizing Markdown renderer).
   * @param {string} id @param {'markdown' | 'jsonl' | 'html'} format
   * @returns {Promise<{name: string, type: string, text: string}>}
   */
  async exportConversation(id, format) {
    const meta = this.state.conversations.find((c) => c.id === id) ?? { title: 'Conversation' };
    const events = await this.store.allEvents(id);
    const base = meta.title.replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'conversation';
    if (format === 'jsonl') return { name: `${base}.jsonl`, type: 'application/x-ndjson', text: toJsonl(events) };
    // A page shows the version on screen; the JSONL log above keeps every version.
    const shown = activePath(events);
    if (format === 'markdown') return { name: `${base}.md`, type: 'text/markdown', text: toMarkdown(meta, shown) };
    const { renderMarkdown } = await import('../safety/markdown.js');
    return { name: `${base}.html`, type: 'text/html', text: toHtml(meta, shown, renderMarkdown) };
  }

  /**
   * Imports a conversation exported as JSONL: validated whole first (a bad file changes
   * nothing), then added as a new conversation and opened.
   * @param {string} fileName @param {string} text
   */
  async importConversation(fileName, text) {
    const parsed = parseImport(text);
    if (!parsed.ok) throw new ChatError('invalid', `Not imported: ${parsed.error}`);
    const first = parsed.events.find((e) => e.type === 'user_message');
    const title = plainTitle(fileName.replace(/\.jsonl?$/i, '').replace(/[-_]+/g, ' ')) || plainTitle(String(first?.data.text ?? '')) || 'Imported conversation';
    const meta = await this.store.createFrom(title, markImported(parsed.events, fileName));
    this.#set({ conversations: [meta, ...this.state.conversations] });
    this.#announceList();
    await this.select(meta.id);
    return meta;
  }

  /**
   * Deletes a conversation. A turn running in it is stopped and its end awaited first, and the
   * conversation then refuses appends: deleting under a running turn would leave an
   * `events.jsonl` without `meta.json` behind. Then `onRemoved` deletes the other copies (checkpoints).
   * @param {string} id
   */
  async remove(id) {
    const run = this.#runs.get(id);
    run?.abort.abort();
    const open = run?.conversation ?? (this.#conversation?.id === id ? this.#conversation : null);
    if (this.state.activeId === id) {
      this.#conversation = null;
      this.#set({ activeId: null, events: [], versions: new Map(), hasEarlier: false, failure: null, streaming: null });
    }
    this.#interrupted.delete(id);
    if (run) await run.done;
    await open?.markDeleted();
    await this.store.delete(id);
    await this.search.forget(id).catch(() => {}); // the index file is rewritten without it (a failure leaves it for the next update)
    this.#set({ conversations: this.state.conversations.filter((c) => c.id !== id) });
    this.#announceList();
    await this.onRemoved?.(id);
  }

  /** The last message sent with images, so a Retry re-sends them too. @type {{text: string, images: AttachedImage[]} | null} */
  #lastImages = null;

  /**
   * Sends a message and streams the whole turn. Resolves when the turn ends.
   * @param {string} text
   * @param {AttachedImage[]} [images] attached by the user (already fitted to the provider's limits)
   */
  send(text, images = []) {
    const message = text.trim();
    const attachments = this.#attachments.splice(0);
    if ((!message && !images.length && !attachments.length) || this.busy) {
      this.#attachments.unshift(...attachments);
      return Promise.resolve();
    }
    if (attachments.length) this.#set({ attachments: [] });
    this.#lastImages = images.length ? { text: message, images } : null;
    return this.#turn(message, (agent, signal) => agent.runStream(message, { signal, ...(images.length ? { images } : {}), ...(attachments.length ? { attachments } : {}) }), images.length ? { needsVision: true } : {});
  }

  /**
   * A sub-agent's conversation (agent_delegate): listed at once, titled by the task, linked to
   * the conversation that delegated. The sub-agent is its only writer.
   * @param {string} title @param {{conversationId: string, toolCallId: string, agent: string}} parent
   */
  async createChild(title, parent) {
    const meta = await this.store.create(title.slice(0, 120), { parent });
    this.#set({ conversations: [meta, ...this.state.conversations] });
    this.#announceList();
    const conv = await this.store.open(meta.id);
    this.#children.set(meta.id, conv);
    return conv;
  }

  /** Sub-agents' conversations open in this page (one instance per log: the viewer shares the writer's). @type {Map<string, Conversation>} */
  #children = new Map();

  /** Stops one sub-agent (its card's Cancel); what it did so far stays in its conversation. @param {string} id its id on the board */
  cancelDelegation(id) {
    this.delegations?.cancel(id);
  }

  /**
   * The agents the composer's "@…" completes to (its whole text is "@" and a name's start).
   * @param {string} text
   * @returns {Promise<{name: string, description: string}[]>}
   */
  async mentionCompletions(text) {
    if (!this.agents || !/^@[a-z0-9_-]*$/i.test(text)) return [];
    const all = await (await this.agents()).list();
    return mentionCompletions(text, all.map((a) => ({ name: a.name, description: a.description })));
  }

  /** Texts waiting to go with the next message. @type {{label: string, text: string, untrusted?: string}[]} */
  #attachments = [];

  /**
   * Attaches a text to the next message (an MCP server's resource; its origin makes it untrusted).
   * @param {{label: string, text: string, untrusted?: string}} attachment
   */
  attach(attachment) {
    this.#attachments.push(attachment);
    this.#set({ attachments: this.#attachments.map((a) => ({ label: a.label })) });
  }

  /** Takes an attachment off the next message. @param {number} index */
  detach(index) {
    this.#attachments.splice(index, 1);
    this.#set({ attachments: this.#attachments.map((a) => ({ label: a.label })) });
  }

  /**
   * What this workspace's model takes as images: whether it accepts them at all, the longest
   * edge and the size an image is fitted to before it is sent.
   * @returns {{accepts: boolean, maxEdge: number, maxBytes: number, why?: string}}
   */
  imageLimits() {
    const s = this.settings.load?.(this.workspaceId) ?? null;
    const pinned = this.#conversation?.meta.route;
    // One read of the settings (a parse of stored JSON) for the whole decision.
    const hints = this.routes();
    const routed = pinned ? hints[pinned] : undefined;
    const own = routed ? imageLimitsFor(catalogEntry(routed.provider), routed.model) : imageLimitsFor(s ? catalogEntry(s.provider) : undefined, s?.model ?? '');
    // A model without images hands a message with images to the Vision hint, when one is set.
    const vision = hints.vision;
    if (!own.accepts && vision) {
      const v = imageLimitsFor(catalogEntry(vision.provider), vision.model);
      if (v.accepts) return v;
    }
    return own;
  }

  /**
   * An attached image of the conversation on screen, as a blob: URL for its thumbnail (the caller revokes it).
   * @param {import('../providers/types.d.ts').ImageRef} ref
   */
  async imageUrl(ref) {
    const conv = this.#conversation;
    if (!conv) throw new Error('No conversation is open.');
    const bytes = await conv.readImage(ref);
    return URL.createObjectURL(new Blob([/** @type {Uint8Array<ArrayBuffer>} */ (bytes)], { type: ref.mediaType }));
  }

  /**
   * Runs a scheduled prompt as a turn in `conversationId` (created when absent or deleted),
   * whether or not that conversation is on screen; it waits for a turn already running there.
   * @param {{conversationId?: string, title: string, text: string, before?: (conversation: Conversation) => Promise<unknown>, approve?: import('../agent/runtime/tool-runner.js').ApproveFn}} job
   *   before: records what introduces the turn (the "scheduled job ran" line); approve: the job's approval function
   * @returns {Promise<{ok: boolean, summary: string, conversationId: string, acted?: boolean}>}
   */
  async runScheduled(job) {
    const conv = await this.#openForBackground(job.conversationId, job.title);
    // An undo being applied there finishes first (it moves the conversation's head).
    if (this.#takingBack) await this.#takingBack.catch(() => {});
    while (this.#runs.has(conv.id)) await this.#runs.get(conv.id)?.done;
    if (job.before) await job.before(conv);
    const r = await this.#turn(job.text, (agent, signal) => agent.runStream(job.text, { signal }), { conversation: conv, scheduled: true, approve: job.approve });
    return { ...r, conversationId: conv.id };
  }

  /**
   * Appends an event to a conversation (e.g. a scheduled tool job's result) through its one open
   * instance, and shows it when the conversation is on screen.
   * @param {string | undefined} conversationId @param {string} title for a new conversation
   * @template {import('../agent/types.d.ts').EventType} T
   * @param {T} type @param {import('../agent/types.d.ts').EventData<T>} data
   */
  async record(conversationId, title, type, data) {
    const conv = await this.#openForBackground(conversationId, title);
    await conv.append(type, data, 'system');
    this.search.touch(conv.id);
    if (this.state.activeId === conv.id) {
      this.#set({ ...this.#transcript(conv), conversations: this.#withMeta(conv.meta) });
      await this.#refreshUndo(conv).catch(() => {});
    }
    else this.#set({ conversations: this.#withMeta(conv.meta) });
    return conv.id;
  }

  /** @param {string | undefined} id @param {string} title */
  async #openForBackground(id, title) {
    if (id && this.#conversation?.id === id) return this.#conversation;
    const running = id ? this.#runs.get(id)?.conversation : undefined;
    if (running) return running;
    if (id && (await this.store.list()).some((c) => c.id === id)) return this.store.open(id);
    const meta = await this.store.create(title.slice(0, 120));
    this.#set({ conversations: [meta, ...this.state.conversations] });
    this.#announceList();
    return this.store.open(meta.id);
  }

  /**
   * @param {string} message the user text (for a retry that re-sends it)
   * @param {(agent: ClawserAgent, signal: AbortSignal) => AsyncIterable<import('../agent/runtime/agent.js').AgentStreamEvent>} start
   * @param {{conversation?: Conversation, scheduled?: boolean, approve?: import('../agent/runtime/tool-runner.js').ApproveFn, needsVision?: boolean, agent?: string}} [target] default: the conversation on screen;
   *   agent: the named agent answering when the message names none (continuing its reply);
   *   needsVision: the message carries images (a model without them hands over to the Vision hint).
   *   A message "@name …" is answered by that named agent (its model, prompt, tools and autonomy).
   * @returns {Promise<{ok: boolean, summary: string, acted?: boolean}>} the final reply, or what failed; acted: it changed something
   */
  async #turn(message, start, target = {}) {
    if (!target.conversation && this.#opening) await this.#opening;
    /** @type {Provider} */
    let provider;
    /** @type {string | undefined} */
    let apiKey;
    /** @type {import('../agent/runtime/agent-definitions.js').ScopedAgent | null} */
    let profile = null;
    /** What the named agent's list of tools names that it does not reach now, in words (shown as the turn starts). */
    let leftOut = /** @type {string[]} */ ([]);
    try {
      let config = await this.settings.providerConfig(this.workspaceId);
      // A conversation pinned to a routing hint uses that hint's model.
      const pinned = (target.conversation ?? this.#conversation)?.meta.route;
      if (pinned) config = (await this.#routeConfig(pinned)) ?? config;
      // A named agent's own model or hint wins over the conversation's pin: it is who was asked.
      const mention = parseMention(message);
      const named = mention?.name ?? target.agent;
      if (named && named !== DEFAULT_AGENT_NAME && this.agents) {
        const store = await this.agents();
        profile = await store.get(named);
        // Continuing a reply of an agent that no longer exists (or of a sub-agent copy): the workspace's agent goes on.
        if (!profile && !mention) profile = null;
        else if (!profile) throw new ChatError('client', `There is no agent named @${named}. Create it in the Agents panel, or remove the @ to ask the workspace's agent.`);
        // Its MCP tools are the ones its list was saved for: another server's of the same name is left out, and the user told.
        if (profile && store.forUse) {
          ({ agent: profile, leftOut } = await store.forUse(profile));
          if (leftOut.length) leftOut = [...leftOut, `Edit @${profile.name} in the Agents panel to choose its tools again.`];
        }
        const own = profile?.model;
        // Its base URL is the one saved for that provider (a definition carries none: an imported
        // one could otherwise send the saved key elsewhere).
        if (own) config = { provider: own.provider, model: own.model || undefined, baseUrl: config?.provider === own.provider ? config.baseUrl : undefined, apiKey: await this.settings.apiKey(this.workspaceId, own.provider).catch(() => undefined) };
        else if (profile?.route) config = (await this.#routeConfig(profile.route)) ?? config;
      }
      if (target.needsVision && config && !imageLimitsFor(catalogEntry(config.provider), config.model).accepts) config = (await this.#routeConfig('vision')) ?? config;
      if (!config) throw new ProviderError('client', 'Choose a provider in Settings first.');
      apiKey = config.apiKey;
      provider = await this.providerFactory(config);
    } catch (err) {
      const e = /** @type {{code?: string, message: string}} */ (err);
      if (!target.scheduled) this.#set({ failure: { code: /** @type {any} */ (e.code ?? 'client'), retryable: false, message: e.message, text: message, resume: false } }); // code comes from ProviderError/StorageError/ChatError
      return { ok: false, summary: e.message };
    }
    if (!target.conversation && !this.#conversation) await this.newConversation();
    const conv = /** @type {Conversation} */ (target.conversation ?? this.#conversation);
    const abort = new AbortController();
    const streaming = { text: '', thinking: '', status: '' };
    /** @type {() => void} */
    let finished = () => {};
    const run = { abort, scheduled: !!target.scheduled, conversation: conv, streaming, done: new Promise((r) => { finished = () => r(undefined); }), finishing: false };
    this.#runs.set(conv.id, run);
    this.#interrupted.delete(conv.id);
    const turnInfo = { conversationId: conv.id, text: message, scheduled: !!target.scheduled };
    /** The turn's first event (after an edit's or a regeneration's branch). @type {string | null} */
    let firstSaved = null;
    /** Where the conversation stood before (for an edit: the version shown then): where undo goes back to. */
    const headBefore = this.#end(conv);
    /** The turn changed something (a heartbeat that did is never silent, whatever it answers). */
    let acted = false;
    this.onTurn?.('start', turnInfo);
    const visible = () => this.state.activeId === conv.id;
    if (visible()) this.#set({ failure: null, notice: leftOut.length ? leftOut.join(' ') : null, streaming: { ...streaming } });
    /** @type {ClawserAgent} */
    let agent;
    try {
      agent = await this.buildAgent(provider, conv, apiKey ? [apiKey] : [], target.approve || profile ? { ...(target.approve ? { approve: target.approve } : {}), ...(profile ? { profile } : {}) } : undefined);
    } catch (err) {
      this.#runs.delete(conv.id);
      finished();
      this.onTurn?.('end', turnInfo);
      if (visible()) this.#set({ streaming: null });
      throw err;
    }
    /** @type {string | null} */
    let storageError = null;
    agent.onToolProgress = (tool, text) => {
      streaming.status = `${tool}: ${text}`;
      if (visible()) this.#set({ streaming: { ...streaming } });
    };
    try {
      for await (const ev of start(agent, abort.signal)) {
        if (ev.type === 'text') streaming.text += ev.text;
        else if (ev.type === 'reasoning') streaming.thinking += ev.text;
        else if (ev.type === 'status') streaming.status = ev.text;
        else if (ev.type === 'tool_start') streaming.status = `Running ${ev.name}…`;
        else if (ev.type === 'compacting') streaming.status = 'Summarizing earlier messages to keep the conversation within the model\'s context…';
        else if (ev.type === 'saved') {
          if (ev.eventType !== 'branch') firstSaved ??= ev.eventId;
          this.search.touch(conv.id);
          if (ev.eventType === 'agent_message' || ev.eventType === 'tool_result') {
            streaming.text = '';
            streaming.thinking = '';
            streaming.status = ev.eventType === 'tool_result' ? 'Thinking…' : '';
          }
          if (visible()) this.#set({ ...this.#transcript(conv), conversations: this.#withMeta(conv.meta) });
        }
        if (visible()) this.#set({ streaming: { ...streaming, text: this.redact(streaming.text) } });
      }
    } catch (err) {
      // Storage failures (quota) end up here: what failed was not recorded.
      storageError = /** @type {Error} */ (err).message;
    }
    // What the turn changed, as it left it — taken before the conversation is free again, so the
    // next turn cannot change things first (the stream's catch above takes every failure).
    const changes = (await agent.tools?.recorder?.finish().catch(() => null)) ?? [];
    acted = changes.length > 0 || !!agent.tools?.writes.length;
    // Free for the next message while the undo record is written; a delete still waits for it.
    run.finishing = true;
    /** @type {ChatState['failure']} */
    let failure = null;
    const last = conv.events.at(-1);
    if (storageError) failure = { code: 'client', retryable: true, message: storageError, text: message, resume: false };
    else if (last && (last.type === 'provider_error' || last.type === 'stream_error')) {
      // After tool results the turn continues from where it failed; otherwise the message is re-sent.
      const resume = conv.deriveSessionHistory().messages.at(-1)?.role === 'tool';
      failure = { code: last.data.code, retryable: !!last.data.retryable, message: String(last.data.message ?? 'The reply failed.'), text: message, resume, ...(profile ? { agent: profile.name } : {}) };
    } else if (last?.type === 'self_repair' && last.data.action === 'stopped') {
      failure = { code: 'client', retryable: true, message: String(last.data.message ?? 'Stopped: the run looked stuck.'), text: message, resume: true, selfRepair: true, ...(profile ? { agent: profile.name } : {}) };
    }
    if (visible()) this.#set({ ...this.#transcript(conv), streaming: null, failure, conversations: this.#withMeta(conv.meta) });
    // Kept for undo (a failure here costs the user only the undo); a delete of the conversation
    // waits for it (`done`).
    await this.#recordTurn(conv, firstSaved, headBefore, changes).catch(() => {});
    if (this.#runs.get(conv.id) === run) this.#runs.delete(conv.id);
    finished();
    this.onTurn?.('end', turnInfo);
    await this.#refreshUndo(conv).catch(() => {});
    if (!failure && !target.scheduled) this.#titleAfterFirstExchange(conv, provider);
    if (this.afterTurn) {
      let notice = null;
      const afterTurn = this.afterTurn;
      const made = Promise.resolve().then(() => afterTurn(agent, { conversationId: conv.id, title: conv.meta.title, text: message }));
      this.#committing = made.catch(() => null);
      try {
        notice = await made;
      } catch (err) {
        notice = `After the turn: ${/** @type {Error} */ (err).message}`;
      }
      // What the named agent was left without stays said.
      if (notice && visible()) this.#set({ notice: [...leftOut, notice].join(' ') });
    }
    if (failure) return { ok: false, summary: failure.message, acted };
    const reply = conv.events.findLast((e) => e.type === 'agent_message' || e.type === 'user_message');
    return { ok: reply?.type === 'agent_message' && !reply.data.stopped, summary: reply?.type === 'agent_message' ? String(reply.data.text ?? '') : 'No reply.', acted };
  }

  /** @param {Conversation} conv */
  #undoStore(conv) {
    return new UndoStore(this.fs, this.store.dirOf(conv.id), { keep: this.undoKeep(), title: conv.meta.title, ...(this.onDamage ? { onDamage: this.onDamage } : {}) });
  }

  /**
   * Keeps a finished turn's record for undo: its events on the active path (from its first one)
   * and what its tools changed (the recorder's before and after).
   * @param {Conversation} conv @param {string | null} first the turn's first event @param {string | null} headBefore where the conversation stood before
   * @param {import('../agent/runtime/undo.js').UndoChange[]} changes
   */
  async #recordTurn(conv, first, headBefore, changes) {
    if (!first) return;
    const events = conv.events;
    const start = events.findIndex((e) => e.id === first);
    // Not on the path, or its predecessor not loaded (a very long turn): nothing safe to cut at.
    if (start === -1 || (start === 0 && conv.hasEarlier)) return;
    const turn = events.slice(start);
    await this.#undoStore(conv).add({
      version: 1, id: first, conversationId: conv.id, head: headBefore, last: /** @type {ClawserEvent} */ (turn.at(-1)).id,
      at: Date.now(), state: 'done', messages: turn.filter((e) => e.type === 'user_message' || e.type === 'agent_message').length, changes,
    });
  }

  /**
   * Where the conversation ends for undo and redo: its last event that is not itself the record
   * of an undo or a redo (null: nothing yet).
   * @param {Conversation} conv
   */
  #end(conv) {
    return conv.events.findLast((e) => e.type !== 'turn_undone' && e.type !== 'turn_redone')?.id ?? null;
  }

  /** What Undo and Redo offer for the conversation on screen. @param {Conversation} conv */
  async #refreshUndo(conv) {
    const store = this.#undoStore(conv);
    const end = this.#end(conv);
    const [undo, redo] = await Promise.all([store.undoable(end), store.redoable(end)]).catch(() => [null, null]);
    if (this.#conversation !== conv) return;
    const head = conv.head;
    this.#set({
      undo: undo ? { turnId: undo.id, last: undo.last, summary: describeChanges(undo), changes: undo.changes.length } : null,
      // The button goes on the notice of the undo the conversation ends with.
      redo: redo && head ? { turnId: redo.id, event: head } : null,
    });
  }

  /**
   * Undoes the latest turn of the conversation on screen: puts back the files, memories, goals
   * and jobs it changed, and takes its messages out of the model's context (kept in the log,
   * recorded as `turn_undone`). Something changed by someone else since is a conflict: nothing
   * is done until the caller says whether to overwrite it or keep it.
   * @param {{conflicts?: 'ask' | 'overwrite' | 'keep'}} [options]
   * @returns {Promise<{ok: boolean, message: string, conflicts?: string[]}>}
   */
  undoTurn(options = {}) {
    return this.#takeBack('undo', options);
  }

  /** Re-applies the turn undone last (while nothing happened since). @param {{conflicts?: 'ask' | 'overwrite' | 'keep'}} [options] */
  redoTurn(options = {}) {
    return this.#takeBack('redo', options);
  }

  /** An undo or redo in progress (a second Alt+Z waits its turn instead of racing it). @type {Promise<unknown> | null} */
  #takingBack = null;

  /**
   * The commit after the last turn or undo, while it is being made: an undo or redo waits for
   * it before reading the files, so each commit holds what its own turn or undo left.
   * @type {Promise<unknown>}
   */
  #committing = Promise.resolve();

  /** @param {'undo' | 'redo'} direction @param {{conflicts?: 'ask' | 'overwrite' | 'keep'}} options @returns {Promise<{ok: boolean, message: string, conflicts?: string[]}>} */
  async #takeBack(direction, options) {
    if (this.#takingBack) return { ok: false, message: `An ${direction === 'undo' ? 'undo' : 'redo'} is already under way.` };
    if (this.busy) {
      const message = `Wait for the reply to finish (or stop it) before ${direction === 'undo' ? 'undoing' : 'redoing'} a turn.`;
      this.#set({ notice: message });
      return { ok: false, message };
    }
    /** @type {Promise<TakeBackOutcome>} */
    const run = this.#takeBackNow(direction, options).catch((err) => ({ ok: false, message: `${direction === 'undo' ? 'Undo' : 'Redo'} failed: ${/** @type {Error} */ (err).message}` }));
    this.#takingBack = run;
    /** @type {TakeBackOutcome} */
    let r;
    try {
      r = await run;
    } finally {
      this.#takingBack = null;
    }
    const { commit, ...outcome } = r;
    // Its own commit, so a later turn's commit never carries what it changed. Made once the
    // undo is done (the next Alt+Z may start meanwhile: it waits for this commit first).
    const afterTakeBack = this.afterTakeBack;
    if (commit && afterTakeBack) {
      const made = Promise.resolve().then(() => afterTakeBack(commit));
      this.#committing = made.catch(() => null);
      try {
        const notice = await made;
        if (notice) outcome.message += ` ${notice}`;
      } catch (err) {
        outcome.message += ` It could not be committed: ${/** @type {Error} */ (err).message}`;
      }
    }
    // Every outcome is said (a conflict is the caller's question to ask).
    if (!outcome.conflicts) this.#set({ notice: outcome.message });
    return outcome;
  }

  /** @param {'undo' | 'redo'} direction @param {{conflicts?: 'ask' | 'overwrite' | 'keep'}} options @returns {Promise<TakeBackOutcome>} */
  async #takeBackNow(direction, options) {
    // What the last turn or undo changed is committed first (its commit reads the files).
    await this.#committing;
    const conv = this.#conversation;
    if (!conv) return { ok: false, message: 'Open a conversation first.' };
    if (!this.undoDomains) return { ok: false, message: 'Undo is not available here.' };
    const store = this.#undoStore(conv);
    const end = this.#end(conv);
    const record = direction === 'undo' ? await store.undoable(end) : await store.redoable(end);
    if (!record) {
      const any = (await store.list()).some((r) => r.state === (direction === 'undo' ? 'done' : 'undone'));
      if (!any) return { ok: false, message: direction === 'undo' ? 'There is no turn to undo in this conversation.' : 'There is nothing to redo.' };
      return { ok: false, message: direction === 'undo' ? 'The conversation went on after its last recorded turn (a message or a result came after it, or another version is shown): there is nothing here to undo.' : 'The conversation went on after the undo: the turn cannot be redone.' };
    }
    const domains = await this.undoDomains();
    const plan = await planUndo(record, domains, direction);
    const mode = options.conflicts ?? 'ask';
    if (plan.conflicts.length && mode === 'ask') {
      return { ok: false, conflicts: plan.conflicts.map((c) => c.what), message: `Changed since the turn: ${plan.conflicts.map((c) => c.what).join(', ')}.` };
    }
    const failed = await applyUndo(plan, domains, { overwrite: mode === 'overwrite' });
    const paths = undoPaths(plan, domains, { overwrite: mode === 'overwrite' });
    const kept = mode === 'keep' ? plan.conflicts.map((c) => c.what) : [];
    const summary = describeChanges(record);
    /** The turn's request (for the commit's message): on the path shown before an undo, after a redo. */
    const request = () => {
      const e = conv.events.find((x) => x.id === record.id);
      return e?.type === 'user_message' ? e.data.text : undefined;
    };
    let text = direction === 'undo' ? request() : undefined;
    /** @type {import('../agent/types.d.ts').EventData<'turn_undone'>} */
    const data = { turnId: record.id, summary, ...(kept.length ? { kept } : {}), ...(mode === 'overwrite' && plan.conflicts.length ? { overwritten: plan.conflicts.map((c) => c.what) } : {}), ...(failed.length ? { failed } : {}) };
    if (direction === 'undo') {
      await conv.moveHead(record.head);
      await conv.append('turn_undone', data, 'user');
      await store.save({ ...record, state: 'undone', undoneAt: Date.now() });
    } else {
      await conv.moveHead(record.last);
      await conv.append('turn_redone', data, 'user');
      const { undoneAt: _at, ...rest } = record;
      await store.save({ ...rest, state: 'done' });
    }
    text ??= request();
    this.search.touch(conv.id);
    if (this.#conversation === conv) this.#set({ ...this.#transcript(conv), conversations: this.#withMeta(conv.meta) });
    await this.#refreshUndo(conv);
    const what = direction === 'undo' ? `Undid the turn (${summary} put back; its ${record.messages} message${record.messages === 1 ? '' : 's'} are out of the model's context, kept in the log).` : `Redid the turn (${summary}).`;
    const extra = [kept.length ? ` Kept as they are now: ${kept.join(', ')}.` : '', failed.length ? ` Could not put back: ${failed.join('; ')}.` : ''].join('');
    return { ok: !failed.length, message: `${what}${extra}`, ...(paths.length ? { commit: { direction, paths, turn: { conversationId: conv.id, title: conv.meta.title, text: typeof text === 'string' ? text : '' } } } : {}) };
  }

  /** Retries the failed turn: continues it after tool results, or re-sends its message. */
  retry() {
    const f = this.state.failure;
    if (!f || this.busy) return Promise.resolve();
    const as = f.agent ? { agent: f.agent } : {};
    if (f.resume) return this.#turn(f.text, (agent, signal) => agent.respond({ signal }), as);
    if (f.text === CONTINUE_TEXT) return this.#turn(CONTINUE_TEXT, (agent, signal) => agent.runStream(CONTINUE_TEXT, { signal, continues: true }), as);
    return this.send(f.text, this.#lastImages?.text === f.text ? this.#lastImages.images : []);
  }

  /**
   * Runs a code block again ("Run again" on a code card) in a sandbox of its own, with tools
   * through the same gates; `signal` stops it (the card's Stop button). The output is shown,
   * not added to the conversation.
   * @param {string} code @param {AbortSignal} [signal]
   */
  async runAgain(code, signal) {
    const conv = this.#conversation;
    if (!this.runCodeImpl || !conv || conv.id !== this.state.activeId) return { ok: false, output: 'Code cannot run here.', durationMs: 0 };
    // The conversation's outside content taints the re-run as it would a turn (standing tools ask).
    return this.runCodeImpl(conv.id, code, signal, conv.earlierTaint());
  }

  /** Stops the turn running in the conversation on screen. */
  stop() {
    if (this.state.activeId) this.#runs.get(this.state.activeId)?.abort.abort();
  }

  /**
   * Searches every conversation of the workspace (the index is brought up to date first).
   * @param {string} query
   */
  async searchConversations(query) {
    await this.search.update(this.state.conversations);
    return this.search.search(query);
  }

  /**
   * Opens a conversation at one of its messages (a search hit): the version holding it is
   * shown, earlier messages are loaded until it is there, and the chat brings it into view.
   * @param {string} conversationId @param {string | null} eventId null: the conversation's end
   */
  async reveal(conversationId, eventId) {
    await this.select(conversationId);
    const conv = this.#conversation;
    if (!conv || conv.id !== conversationId || !eventId) return;
    const has = () => conv.events.some((e) => e.id === eventId);
    while (!has() && conv.hasEarlier) await conv.loadEarlier();
    if (!has() && conv.branched && !this.busy) await conv.switchTo(eventId).catch(() => null);
    this.#set({ ...this.#transcript(conv), hasEarlier: conv.hasEarlier, focus: has() ? eventId : null });
    this.#set({ focus: null });
  }

  /**
   * A new conversation holding `conversationId`'s events up to `eventId` (its version of the
   * conversation, the event included): the Events panel's "Fork here".
   * @param {string} conversationId @param {string} eventId
   */
  async forkAt(conversationId, eventId) {
    const tree = new BranchTree(await this.store.allEvents(conversationId));
    if (!tree.has(eventId)) throw new ChatError('not_found', 'That event is not in this conversation (it may have been deleted).');
    const source = this.state.conversations.find((c) => c.id === conversationId)?.title ?? 'Conversation';
    const meta = await this.store.createFrom(`${source} (fork)`.slice(0, 120), withoutOpenToolRound(tree.pathTo(eventId)), { imagesFrom: conversationId });
    this.#set({ conversations: [meta, ...this.state.conversations] });
    this.#announceList();
    return meta;
  }

  /**
   * After the first exchange, asks the model for a short title (in the background; on any
   * failure the first message's plain text stays the title). A test provider (Echo) has no AI to ask.
   * @param {Conversation} conv @param {Provider} provider
   */
  #titleAfterFirstExchange(conv, provider) {
    const meta = conv.meta;
    if (meta.titleSet || meta.titleGenerated || catalogEntry(provider.id)?.capabilities.test || this.#titling.has(conv.id)) return;
    const ask = conv.events.filter((e) => e.type === 'user_message').find((e) => !e.data.continues);
    const reply = conv.events.filter((e) => e.type === 'agent_message').find((e) => e.data.text);
    if (!ask || !reply) return;
    // Only a conversation still named by its first message: one created with a name of its own
    // (a scheduled job's) keeps it.
    if (meta.title !== 'New conversation' && meta.title !== plainTitle(String(ask.data.text ?? ''))) return;
    this.#titling.add(conv.id);
    (async () => {
      const answer = await provider.chat(titleRequest(String(ask.data.text ?? ''), this.redact(String(reply.data.text ?? ''))));
      if (answer.usage) this.onSideUsage?.(provider, answer.usage);
      const title = cleanModelTitle(answer.content);
      if (!title || !this.state.conversations.some((c) => c.id === conv.id)) return; // deleted meanwhile
      await conv.setGeneratedTitle(title);
      this.#set({ conversations: this.#withMeta(conv.meta) });
      this.#announceList();
    })().catch(() => {}).finally(() => this.#titling.delete(conv.id)); // a title is a nicety: the provisional one stays
  }

  /** Conversations whose title is being written. @type {Set<string>} */
  #titling = new Set();

  /** What the chat shows of `conv`. @param {Conversation} conv */
  #transcript(conv) {
    return { events: conv.events.slice(), versions: conv.alternatives(), hasEarlier: conv.hasEarlier, meter: this.#meter(conv) };
  }

  /** The composer's pre-send estimate: a draft's size in tokens for this workspace's provider. @param {string} text */
  estimateTokens(text) {
    return estimateTextTokens(text, this.state.meter?.family ?? 'default');
  }

  /** @param {Conversation} conv @returns {ChatMeter} */
  #meter(conv) {
    const s = this.settings.load?.(this.workspaceId) ?? null;
    let status = null;
    try {
      status = this.spendStatus?.() ?? null;
    } catch {
      status = null; // the meter never breaks the chat
    }
    // Drawn on every transcript update: the settings are read once here.
    const hints = this.routes();
    const routes = Object.entries(hints).filter(([, r]) => r && catalogEntry(r.provider))
      .map(([hint, r]) => ({ hint: /** @type {import('../agent/types.d.ts').RouteHint} */ (hint), label: `${hint[0].toUpperCase()}${hint.slice(1)}`, model: `${catalogEntry(r?.provider ?? '')?.label ?? r?.provider}${r?.model ? ` · ${r.model}` : ''}` }));
    const pinned = conv.meta.route ?? null;
    const routed = pinned ? hints[pinned] : undefined;
    return { spend: conv.spend, family: tokenFamily(routed?.provider ?? s?.provider ?? '', routed?.model ?? s?.model ?? ''), routes, route: pinned, ...(status ?? {}) };
  }

  /**
   * Pins the conversation on screen to a routing hint (its turns use that hint's model), or back to the workspace's model.
   * @param {import('../agent/types.d.ts').RouteHint | null} hint
   */
  async pinRoute(hint) {
    const conv = this.#conversation;
    if (!conv) return;
    await conv.setRoute(hint);
    this.#set({ ...this.#transcript(conv), conversations: this.#withMeta(conv.meta) });
  }

  /**
   * The provider configuration of a routing hint, with its saved key; null when the hint is not set.
   * @param {import('../agent/types.d.ts').RouteHint} hint
   * @returns {Promise<import('../providers/types.d.ts').ProviderConfig | null>}
   */
  async #routeConfig(hint) {
    const r = this.routes()[hint];
    if (!r || !catalogEntry(r.provider)) return null;
    return { provider: r.provider, model: r.model || undefined, baseUrl: r.baseUrl || undefined, apiKey: await this.settings.apiKey(this.workspaceId, r.provider).catch(() => undefined) };
  }

  /**
   * Sends an edited version of the user message `eventId`: a new version of the conversation
   * from that point (the earlier one stays, switchable).
   * @param {string} eventId @param {string} text
   */
  edit(eventId, text) {
    const message = text.trim();
    const conv = this.#conversation;
    // The edited message keeps the images of the original (the same files of the conversation).
    const original = conv?.events.find((e) => e.id === eventId);
    const imageRefs = original?.type === 'user_message' && Array.isArray(original.data.images) ? original.data.images : [];
    if ((!message && !imageRefs.length) || !conv || this.busy) return Promise.resolve();
    // The conversation is fixed now: switching away while the turn starts must not move it.
    return this.#turn(message, (agent, signal) => this.#afterFork(conv, eventId, 'replace', () => agent.runStream(message, { signal, ...(imageRefs.length ? { imageRefs } : {}) })), { conversation: conv, ...(imageRefs.length ? { needsVision: true } : {}) });
  }

  /**
   * Another answer to the turn that `eventId` (a reply, or the user message) belongs to: a new
   * version of the reply, next to the earlier ones.
   * @param {string} eventId
   */
  regenerate(eventId) {
    const conv = this.#conversation;
    if (!conv || this.busy) return Promise.resolve();
    const events = conv.events;
    const at = events.findIndex((e) => e.id === eventId);
    const ask = events.slice(0, at + 1).findLast((e) => e.type === 'user_message');
    if (at === -1 || !ask) return Promise.resolve();
    const text = String(ask.data.text ?? '');
    return this.#turn(text, (agent, signal) => this.#afterFork(conv, ask.id, 'after', () => agent.regenerateStream(text, { signal })), { conversation: conv });
  }

  /** Asks the model to go on with the reply the user stopped. */
  continueReply() {
    if (!this.#conversation || this.busy) return Promise.resolve();
    // The reply is continued by the agent that wrote it (a named agent keeps its tools and autonomy).
    const by = this.#conversation.events.findLast((e) => e.type === 'agent_message')?.data.agent;
    return this.#turn(CONTINUE_TEXT, (agent, signal) => agent.runStream(CONTINUE_TEXT, { signal, continues: true }), typeof by === 'string' ? { agent: by } : {});
  }

  /**
   * Shows another version at `eventId`'s place: `step` -1 the previous, +1 the next.
   * @param {string} eventId @param {-1 | 1} step
   */
  async switchVersion(eventId, step) {
    const conv = this.#conversation;
    const v = this.state.versions.get(eventId);
    if (!conv || !v || this.busy) return;
    const target = v.siblings[v.index + step];
    if (!target) return;
    await conv.switchTo(target);
    if (this.#conversation === conv) this.#set({ ...this.#transcript(conv), failure: null, conversations: this.#withMeta(conv.meta) });
  }

  /**
   * Moves the conversation's head, shows that at once, then streams the turn `start` gives.
   * @param {Conversation} conv @param {string} eventId @param {'replace' | 'after'} where
   * @param {() => AsyncIterable<import('../agent/runtime/agent.js').AgentStreamEvent>} start
   * @returns {AsyncGenerator<import('../agent/runtime/agent.js').AgentStreamEvent>}
   */
  async *#afterFork(conv, eventId, where, start) {
    const e = await conv.fork(eventId, where);
    yield { type: 'saved', eventId: e.id, eventType: e.type };
    yield* start();
  }

  /** @param {ConversationMeta} meta */
  #withMeta(meta) {
    const rest = this.state.conversations.filter((c) => c.id !== meta.id);
    return [meta, ...rest].sort((a, b) => b.updatedAt - a.updatedAt);
  }
}
