/** @import { ConversationMeta, EventType, EventData, RouteHint } from '../agent/types.d.ts' */
/** @import { Conversation } from '../agent/conversation/conversation.js' */
/** @import { ApproveFn } from '../agent/runtime/tool-runner.js' */
/** @import { ImageRef } from '../providers/types.d.ts' */
/** @import { AttachedImage, ChatState, ChatViewController, ConflictChoice, ImageLimits, TakeBackResult } from '../ui/types.d.ts' */
/** @import { ChatDeps, TurnResult } from './chat/types.d.ts' */
import { ConversationStore } from '../agent/conversation/conversation-store.js';
import { ConversationSearch } from '../agent/conversation/conversation-search.js';
import * as conversationRules from './conversation-rules.js';
import { ChatCore } from './chat/core.js';
import { chatMeter, draftTokens } from './chat/meter.js';
import { imageLimits, agentCompletions, documentBudget, switchModel } from './chat/model-choice.js';
import { documentAttachment } from './chat/documents.js';
import { ScopedFileSystem } from '../storage/scoped-fs.js';
import { Titles } from './chat/titles.js';
import { InterruptedTurns } from './chat/interrupted.js';
import { TakeBack } from './chat/take-back.js';
import { Conversations } from './chat/conversations.js';
import { ChatSearch } from './chat/search.js';
import { Turns } from './chat/turns.js';

export { ChatError } from './chat/errors.js';
export { CONTINUE_TEXT } from './chat/turns.js';

/**
 * Chat of one workspace: conversations, sending, stopping, retrying, undo. Owns no DOM; the chat
 * view renders its state. Its parts (web/app/chat/) share one ChatCore: the list and the
 * conversation on screen (conversations.js), turns (turns.js, the model chosen by
 * model-choice.js), undo and redo (take-back.js), search (search.js), titles (titles.js), the
 * meter (meter.js) and turns a closed tab cut off (interrupted.js).
 * @implements {ChatViewController}
 */
export class ChatController {
  /** The conversation rules the chat view draws by (web/app/conversation-rules.js). */
  rules = conversationRules;
  /**
   * Told when a turn starts and ends (the app checkpoints then).
   * @type {((phase: 'start' | 'end', turn: {conversationId: string, text: string, scheduled: boolean}) => void) | null}
   */
  onTurn = null;
  /**
   * Told after a conversation was deleted, to delete its other copies (the app's checkpoints); awaited.
   * @type {((conversationId: string) => Promise<void>) | null}
   */
  onRemoved = null;
  #core;
  #conversations;
  #turns;
  #takeBack;
  #interrupted;
  #search;
  /** @type {ChatDeps['runCode']} */
  #runCode;
  /** @type {ChatDeps['agents']} */
  #agents;
  /** @type {() => import('./chat/types.d.ts').RouteTarget[]} */
  #fallbacks;
  /** @type {ChatDeps['slashCommands']} */
  #slashCommands;
  /** @type {ChatDeps['saveFallbacks']} */
  #saveFallbacks;

  /** @param {ChatDeps} deps */
  constructor(deps) {
    const { fs, workspaceId, settings, coordination, onDamage } = deps;
    this.workspaceId = workspaceId;
    this.settings = settings;
    /** The workspace's own files (attached documents are kept under uploads/). */
    this.files = new ScopedFileSystem(fs, `clawser_workspaces/${workspaceId}`);
    /** Where damaged files of this workspace's conversations are reported. */
    this.onDamage = onDamage;
    this.store = new ConversationStore(fs, workspaceId, coordination, onDamage ? { onDamage } : {});
    /** Full-text search across the workspace's conversations. */
    // Damaged log lines the search comes across are kept and reported by the store, as opening would.
    this.search = new ConversationSearch(fs, workspaceId, {
      onDamagedLog: (id) => {
        this.store.checkLog(id).catch(() => {});
      },
    });
    this.coordination = coordination;
    this.delegations = deps.delegations;
    /** The workspace's routing hints (a kind of work → provider and model). */
    this.routes = deps.routes ?? (() => ({}));
    const sources = { settings, workspaceId, routes: this.routes, agents: deps.agents };
    const redact = deps.redact ?? ((/** @type {string} */ t) => t);
    const busy = () => this.busy;
    this.#runCode = deps.runCode;
    this.#agents = deps.agents;
    this.#fallbacks = deps.fallbacks ?? (() => []);
    this.#saveFallbacks = deps.saveFallbacks;
    this.#slashCommands = deps.slashCommands;
    const core = new ChatCore({
      workspaceId,
      coordination,
      meter: (conv) => chatMeter(conv, { ...sources, spendStatus: deps.spendStatus, fallbacks: this.#fallbacks }),
    });
    this.#core = core;
    this.#takeBack = new TakeBack(core, {
      fs,
      store: this.store,
      search: this.search,
      busy,
      undoDomains: deps.undoDomains,
      undoKeep: deps.undoKeep,
      afterTakeBack: deps.afterTakeBack,
      onDamage,
    });
    this.#interrupted = new InterruptedTurns(core);
    this.#conversations = new Conversations(core, {
      workspaceId,
      store: this.store,
      search: this.search,
      coordination,
      delegations: deps.delegations,
      takeBack: this.#takeBack,
      interrupted: this.#interrupted,
      busy,
      removed: (id) => this.onRemoved?.(id),
    });
    this.#search = new ChatSearch(core, { search: this.search, conversations: this.#conversations, busy });
    this.#turns = new Turns(core, {
      sources,
      // The providers and the agent's run loop load with the first turn, not on the app's start-up path.
      providerFactory: deps.providerFactory ?? (async (c) => (await import('../providers/index.js')).createProvider(c)),
      buildAgent:
        deps.buildAgent ??
        (async (provider, conversation, secrets) =>
          new (await import('../agent/runtime/agent.js')).ClawserAgent({ provider, conversation, secrets })),
      redact,
      afterTurn: deps.afterTurn,
      search: this.search,
      conversations: this.#conversations,
      takeBack: this.#takeBack,
      interrupted: this.#interrupted,
      titles: new Titles(core, { redact, onSideUsage: deps.onSideUsage }),
      busy,
      onTurn: (phase, turn) => this.onTurn?.(phase, turn),
    });
  }

  /** @returns {ChatState} */
  get state() {
    return this.#core.state;
  }

  /** @param {(state: ChatState) => void} fn */
  subscribe(fn) {
    return this.#core.subscribe(fn);
  }

  /** A turn is running in the conversation on screen (or a sub-agent works there, or an undo runs). */
  get busy() {
    const { state, runs } = this.#core;
    const id = state.activeId;
    const run = id ? runs.get(id) : undefined;
    return !!id && ((!!run && !run.finishing) || this.#subAgentRunning(id) || !!this.#takeBack.taking);
  }

  /** A sub-agent is working in this conversation (its only writer until it ends). @param {string} id */
  #subAgentRunning(id) {
    return !!this.delegations?.list().some((d) => d.conversationId === id && (d.status === 'running' || d.status === 'waiting'));
  }

  // ── The conversations ───────────────────────────────────────────────────────────────────

  /** Loads the conversation list and opens `conversationId` (or the most recent). @param {string} [conversationId] */
  init(conversationId) {
    return this.#conversations.init(conversationId);
  }

  /** @param {string} id */
  select(id) {
    return this.#conversations.select(id);
  }

  loadEarlier() {
    return this.#conversations.loadEarlier();
  }

  /** @returns {Promise<ConversationMeta>} */
  newConversation() {
    return this.#conversations.newConversation();
  }

  /** @param {string} id @param {string} title */
  rename(id, title) {
    return this.#conversations.rename(id, title);
  }

  /** Pins a conversation to the top of the list, or unpins it. @param {string} id @param {boolean} pinned */
  setPinned(id, pinned) {
    return this.#conversations.setPinned(id, pinned);
  }

  /** Sets a conversation's tags (an empty list removes them). @param {string} id @param {string[]} tags */
  setTags(id, tags) {
    return this.#conversations.setTags(id, tags);
  }

  /** A conversation as a file to download. @param {string} id @param {'markdown' | 'jsonl' | 'html'} format */
  exportConversation(id, format) {
    return this.#conversations.export(id, format);
  }

  /**
   * Imports a JSONL export as a new conversation (a ChatError `invalid` for another file).
   * @param {string} fileName
   * @param {string} text
   */
  importConversation(fileName, text) {
    return this.#conversations.import(fileName, text);
  }

  /**
   * A new conversation of `conversationId`'s events up to `eventId` (a ChatError `not_found` when it has
   * none).
   * @param {string} conversationId
   * @param {string} eventId
   */
  forkAt(conversationId, eventId) {
    return this.#conversations.forkAt(conversationId, eventId);
  }

  /** Deletes a conversation (its turn stopped and awaited first), then its other copies. @param {string} id */
  remove(id) {
    return this.#conversations.remove(id);
  }

  /** Shows another version at `eventId`'s place. @param {string} eventId @param {-1 | 1} step */
  switchVersion(eventId, step) {
    return this.#conversations.switchVersion(eventId, step);
  }

  /** Pins the conversation on screen to a routing hint, or back to the workspace's model. @param {RouteHint | null} hint */
  pinRoute(hint) {
    return this.#conversations.pinRoute(hint);
  }

  /**
   * A sub-agent's conversation, listed and linked to the one that delegated.
   * @param {string} title
   * @param {{conversationId: string, toolCallId: string, agent: string}} parent
   */
  createChild(title, parent) {
    return this.#conversations.createChild(title, parent);
  }

  /**
   * Appends an event to a conversation (made when absent) and shows it when on screen.
   * @param {string | undefined} conversationId
   * @param {string} title
   * @template {EventType} T
   * @param {T} type
   * @param {EventData<T>} data
   * @param {{id: string, name: string, viaChannel?: boolean}} [job] the scheduled job it comes from (a new conversation is marked as its)
   */
  record(conversationId, title, type, data, job) {
    return this.#conversations.record(conversationId, title, type, data, job);
  }

  /** @param {ImageRef} ref @returns {Promise<string>} */
  imageUrl(ref) {
    return this.#conversations.imageUrl(ref);
  }

  /** Searches every conversation of the workspace. @param {string} query */
  searchConversations(query) {
    return this.#search.find(query);
  }

  /** Opens a conversation at one of its messages (a search hit). @param {string} conversationId @param {string | null} eventId */
  reveal(conversationId, eventId) {
    return this.#search.reveal(conversationId, eventId);
  }

  // ── Turns ───────────────────────────────────────────────────────────────────────────────

  /**
   * Sends a message and streams the whole turn; resolves when it ends.
   * @param {string} text
   * @param {AttachedImage[]} [images]
   * @returns {Promise<TurnResult | void>}
   */
  send(text, images) {
    return this.#turns.send(text, images);
  }

  /** Sends an edited version of the user message `eventId` (a new version from there). @param {string} eventId @param {string} text */
  edit(eventId, text) {
    return this.#turns.edit(eventId, text);
  }

  /** Another answer to the turn `eventId` belongs to, next to the earlier ones. @param {string} eventId */
  regenerate(eventId) {
    return this.#turns.regenerate(eventId);
  }

  /** Asks the model to go on with the reply the user stopped. */
  continueReply() {
    return this.#turns.continueReply();
  }

  /** Retries the failed turn: continues it after tool results, or re-sends its message. */
  retry() {
    return this.#turns.retry();
  }

  /** Stops the turn running in the conversation on screen. */
  stop() {
    const { state, runs } = this.#core;
    if (state.activeId) runs.get(state.activeId)?.abort.abort();
  }

  /**
   * Runs a scheduled prompt as a turn in `conversationId` (made when absent or deleted), on
   * screen or not; it waits for a turn already running there.
   * @param {{conversationId?: string, title: string, text: string, before?: (conversation: Conversation) => Promise<unknown>,
   *   approve?: ApproveFn, job?: {id: string, name: string, viaChannel?: boolean}, untrusted?: string, agent?: string,
   *   limits?: import('./chat/types.d.ts').TurnLimits}} job
   *   job: the scheduled job (a conversation made for it is marked as its); before: records what introduces the turn (the
   *   "scheduled job ran" line); approve: the job's approval function; untrusted, agent, limits: a channel's turn (its text
   *   from outside, its named agent, its tools and autonomy at most)
   */
  runScheduled(job) {
    return this.#turns.runScheduled(job);
  }

  /**
   * Attaches a text to the next message (an MCP server's resource).
   * @param {{label: string, text: string, untrusted?: string}} attachment
   */
  attach(attachment) {
    this.#turns.attach(attachment);
  }

  /**
   * Reads a document (PDF, Word, Excel, CSV, Markdown, code, text) in a worker, keeps the file in
   * the workspace's uploads/ folder and attaches its text to the next message, within the share
   * of the model's context an attachment gets (the rest left out with a note saying so). Its
   * text is outside content: the turn it goes with is tainted, as by a tool's output.
   * Rejects with a DocumentError saying why a file was not attached.
   * @param {Blob & {name: string}} file
   */
  async attachDocument(file) {
    const budget = documentBudget(
      { settings: this.settings, workspaceId: this.workspaceId, routes: this.routes },
      this.#core.conversation?.meta.route,
    );
    const doc = await documentAttachment(file, { fs: this.files, budget });
    this.#turns.attach({ label: `${doc.label} (${doc.detail})`, text: doc.text, untrusted: doc.untrusted }, doc);
    return { label: doc.label, detail: doc.detail, ...(doc.note ? { note: doc.note } : {}), path: doc.path };
  }

  /** Takes an attachment off the next message. @param {number} index */
  detach(index) {
    this.#turns.detach(index);
  }

  /** Stops one sub-agent (its card's Cancel); what it did so far stays in its conversation. @param {string} id its id on the board */
  cancelDelegation(id) {
    this.delegations?.cancel(id);
  }

  /**
   * Runs a code block again ("Run again" on a code card) in a sandbox of its own, with tools
   * through the same gates; `signal` stops it. The output is shown, not added to the conversation.
   * @param {string} code @param {AbortSignal} [signal]
   */
  async runAgain(code, signal) {
    const conv = this.#core.conversation;
    if (!this.#runCode || !conv || conv.id !== this.state.activeId) return { ok: false, output: 'Code cannot run here.', durationMs: 0 };
    // The conversation's outside content taints the re-run as it would a turn (standing tools ask).
    return this.#runCode(conv.id, code, signal, conv.earlierTaint());
  }

  /** The agents the composer's "@…" completes to. @param {string} text */
  mentionCompletions(text) {
    return agentCompletions(text, this.#agents);
  }

  /**
   * The commands the composer's "/…" completes to: the workspace's skills and its connected MCP
   * servers' prompts (what is looked up, and the matching, load with the first "/").
   * @param {string} text
   */
  async slashCompletions(text) {
    if (!this.#slashCommands || !/^\/[\p{L}\p{N}_-]*$/u.test(text)) return [];
    const [{ slashCompletions }, commands] = await Promise.all([import('../agent/runtime/slash-commands.js'), this.#slashCommands()]);
    return slashCompletions(text, commands);
  }

  /** What this workspace's model (or the conversation's pinned one) takes as images. @returns {ImageLimits} */
  imageLimits() {
    return imageLimits(
      { settings: this.settings, workspaceId: this.workspaceId, routes: this.routes },
      this.#core.conversation?.meta.route,
    );
  }

  /**
   * Makes a choice of the chat header's model menu the workspace's model, through the workspace's
   * settings (a fallback chosen swaps places with it); the menu shows it at once.
   * @param {string} id
   */
  async setModel(id) {
    await switchModel(id, {
      settings: this.settings,
      workspaceId: this.workspaceId,
      fallbacks: this.#fallbacks,
      saveFallbacks: this.#saveFallbacks ?? (() => {}),
    });
    const conv = this.#core.conversation;
    if (conv) this.#core.set({ meter: this.#core.meter(conv) });
  }

  /** The composer's pre-send estimate: a draft's size in tokens for this workspace's provider. @param {string} text */
  estimateTokens(text) {
    return draftTokens(text, this.state.meter);
  }

  // ── Undo ────────────────────────────────────────────────────────────────────────────────

  /**
   * Undoes the latest turn of the conversation on screen: puts back what it changed and takes
   * its messages out of the model's context. A conflict is asked about first (`conflicts`).
   * @param {{conflicts?: ConflictChoice}} [options] @returns {Promise<TakeBackResult>}
   */
  undoTurn(options = {}) {
    return this.#takeBack.run('undo', options);
  }

  /**
   * Re-applies the turn undone last (while nothing happened since).
   * @param {{conflicts?: ConflictChoice}} [options]
   * @returns {Promise<TakeBackResult>}
   */
  redoTurn(options = {}) {
    return this.#takeBack.run('redo', options);
  }

  // ── Checkpoints ─────────────────────────────────────────────────────────────────────────

  /**
   * A turn was running when the tab closed (with the length of its conversation's log then):
   * when that conversation is on screen and its request got no reply, a retry is offered.
   * @param {string} conversationId @param {number} bytes
   */
  markInterrupted(conversationId, bytes) {
    return this.#interrupted.mark(conversationId, bytes);
  }

  /** The conversation a turn runs in, or the one on screen, and its log length now (for checkpoints). @param {string} [conversationId] */
  logPosition(conversationId) {
    const conv = (conversationId ? this.#core.runs.get(conversationId)?.conversation : undefined) ?? this.#core.conversation;
    return conv ? { conversationId: conv.id, bytes: conv.byteLength } : null;
  }

  /** The active conversation's history, as the next turn would send it (for checkpoints). */
  sessionMessages() {
    return this.#core.conversation?.deriveSessionHistory().messages ?? [];
  }
}
