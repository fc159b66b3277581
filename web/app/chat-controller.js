/** @import { ConversationMeta, ClawserEvent } from '../agent/types.d.ts' */
/** @import { FileSystem } from '../storage/types.d.ts' */
/** @import { SettingsStore } from './settings.js' */
/** @import { Provider, ProviderErrorShape } from '../providers/types.d.ts' */
/** @typedef {(provider: Provider, conversation: Conversation, secrets: string[]) => ClawserAgent | Promise<ClawserAgent>} AgentBuilder */
import { ClawserAgent } from '../agent/agent.js';
import { ConversationStore } from '../agent/conversation-store.js';
import { Conversation } from '../agent/conversation.js';
import { createProvider } from '../providers/index.js';

/**
 * @typedef {object} ChatState
 * @property {ConversationMeta[]} conversations
 * @property {string | null} activeId
 * @property {readonly ClawserEvent[]} events transcript of the active conversation
 * @property {boolean} hasEarlier
 * @property {{text: string, thinking: string, status: string} | null} streaming reply in progress
 * @property {(ProviderErrorShape & {text: string, resume: boolean}) | null} failure last turn's failure: `text` to re-send, or `resume` to continue after tool results
 * @property {string | null} notice a one-off message (storage repaired, …)
 */

/**
 * Chat of one workspace: conversations, sending, stopping, retrying. Owns no DOM; the chat
 * view renders its state.
 */
export class ChatController {
  /** @type {ChatState} */
  state = { conversations: [], activeId: null, events: [], hasEarlier: false, streaming: null, failure: null, notice: null };
  /** @type {Conversation | null} */
  #conversation = null;
  /** @type {AbortController | null} */
  #abort = null;
  /** @type {Set<(state: ChatState) => void>} */
  #listeners = new Set();

  /**
   * @param {{fs: FileSystem, workspaceId: string, settings: SettingsStore, providerFactory?: (config: import('../providers/types.d.ts').ProviderConfig) => Provider, buildAgent?: AgentBuilder, redact?: (text: string) => string,
   *   runCode?: (conversationId: string, code: string) => Promise<{ok: boolean, output: string, durationMs: number}>,
   *   afterTurn?: (agent: ClawserAgent, turn: {conversationId: string, title: string, text: string}) => Promise<string | null>}} deps
   *   afterTurn: runs when a turn ends (also after a failure or Stop); a returned string is shown as a notice.
   */
  constructor(deps) {
    this.workspaceId = deps.workspaceId;
    this.settings = deps.settings;
    this.store = new ConversationStore(deps.fs, deps.workspaceId);
    this.providerFactory = deps.providerFactory ?? ((c) => createProvider(c));
    /** @type {AgentBuilder} */
    this.buildAgent = deps.buildAgent ?? ((provider, conversation, secrets) => new ClawserAgent({ provider, conversation, secrets }));
    this.afterTurn = deps.afterTurn;
    /** Applied to text while it streams, so a leaked secret is never on screen. */
    this.redact = deps.redact ?? ((t) => t);
    this.runCodeImpl = deps.runCode;
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

  get busy() {
    return this.#abort !== null;
  }

  /** Loads the conversation list and opens `conversationId` (or the most recent). @param {string} [conversationId] */
  async init(conversationId) {
    const conversations = await this.store.list();
    this.#set({ conversations });
    const target = conversationId && conversations.some((c) => c.id === conversationId) ? conversationId : conversations[0]?.id;
    if (target) await this.select(target);
    else this.#set({ activeId: null, events: [], hasEarlier: false });
  }

  /** @param {string} id */
  async select(id) {
    if (this.state.activeId === id && this.#conversation) return;
    this.stop();
    const conv = await this.store.open(id);
    this.#conversation = conv;
    const notice = conv.report.tornBytes
      ? 'The end of this conversation was being written when the tab closed; the incomplete last entry was removed. Everything before it is intact.'
      : null;
    this.#set({ activeId: id, events: conv.events.slice(), hasEarlier: conv.hasEarlier, streaming: null, failure: null, notice });
  }

  async loadEarlier() {
    if (!this.#conversation) return;
    await this.#conversation.loadEarlier();
    this.#set({ events: this.#conversation.events.slice(), hasEarlier: this.#conversation.hasEarlier });
  }

  async newConversation() {
    this.stop();
    const meta = await this.store.create();
    this.#set({ conversations: [meta, ...this.state.conversations] });
    await this.select(meta.id);
    return meta;
  }

  /** @param {string} id @param {string} title */
  async rename(id, title) {
    const t = title.replace(/\s+/g, ' ').trim().slice(0, 120);
    if (!t) return;
    if (this.#conversation?.id === id) await this.#conversation.rename(t);
    else await this.store.rename(id, t);
    this.#set({ conversations: this.state.conversations.map((c) => (c.id === id ? { ...c, title: t, titleSet: true } : c)) });
  }

  /** @param {string} id */
  async remove(id) {
    if (this.state.activeId === id) {
      this.stop();
      this.#conversation = null;
      this.#set({ activeId: null, events: [], hasEarlier: false, failure: null, streaming: null });
    }
    await this.store.delete(id);
    this.#set({ conversations: this.state.conversations.filter((c) => c.id !== id) });
  }

  /**
   * Sends a message and streams the whole turn. Resolves when the turn ends.
   * @param {string} text
   */
  send(text) {
    const message = text.trim();
    if (!message || this.busy) return Promise.resolve();
    return this.#turn(message, (agent, signal) => agent.runStream(message, { signal }));
  }

  /**
   * @param {string} message the user text (for a retry that re-sends it)
   * @param {(agent: ClawserAgent, signal: AbortSignal) => AsyncIterable<import('../agent/agent.js').AgentStreamEvent>} start
   */
  async #turn(message, start) {
    /** @type {Provider} */
    let provider;
    /** @type {string | undefined} */
    let apiKey;
    try {
      const config = await this.settings.providerConfig(this.workspaceId);
      if (!config) throw Object.assign(new Error('Choose a provider in Settings first.'), { code: 'client' });
      apiKey = config.apiKey;
      provider = this.providerFactory(config);
    } catch (err) {
      const e = /** @type {{code?: string, message: string}} */ (err);
      this.#set({ failure: { code: /** @type {any} */ (e.code ?? 'client'), retryable: false, message: e.message, text: message, resume: false } }); // code comes from ProviderError/StorageError
      return;
    }
    if (!this.#conversation) await this.newConversation();
    const conv = /** @type {Conversation} */ (this.#conversation);
    const abort = new AbortController();
    this.#abort = abort;
    const streaming = { text: '', thinking: '', status: '' };
    this.#set({ failure: null, notice: null, streaming: { ...streaming } });
    const agent = await this.buildAgent(provider, conv, apiKey ? [apiKey] : []);
    /** @type {string | null} */
    let storageError = null;
    const visible = () => this.state.activeId === conv.id;
    try {
      for await (const ev of start(agent, abort.signal)) {
        if (ev.type === 'text') streaming.text += ev.text;
        else if (ev.type === 'thinking') streaming.thinking += ev.text;
        else if (ev.type === 'status') streaming.status = ev.text;
        else if (ev.type === 'tool_start') streaming.status = `Running ${ev.name}…`;
        else if (ev.type === 'compacting') streaming.status = 'Summarizing earlier messages to keep the conversation within the model\'s context…';
        else if (ev.type === 'saved') {
          if (ev.eventType === 'agent_message' || ev.eventType === 'tool_result') {
            streaming.text = '';
            streaming.thinking = '';
            streaming.status = ev.eventType === 'tool_result' ? 'Thinking…' : '';
          }
          if (visible()) this.#set({ events: conv.events.slice(), conversations: this.#withMeta(conv.meta) });
        }
        if (visible()) this.#set({ streaming: { ...streaming, text: this.redact(streaming.text) } });
      }
    } catch (err) {
      // Storage failures (quota) end up here: what failed was not recorded.
      storageError = /** @type {Error} */ (err).message;
    } finally {
      if (this.#abort === abort) this.#abort = null;
    }
    /** @type {ChatState['failure']} */
    let failure = null;
    const last = conv.events.at(-1);
    if (storageError) failure = { code: 'client', retryable: true, message: storageError, text: message, resume: false };
    else if (last && (last.type === 'provider_error' || last.type === 'stream_error')) {
      // After tool results the turn continues from where it failed; otherwise the message is re-sent.
      const resume = conv.deriveSessionHistory().messages.at(-1)?.role === 'tool';
      failure = { code: last.data.code, retryable: !!last.data.retryable, message: String(last.data.message ?? 'The reply failed.'), text: message, resume };
    }
    if (visible()) this.#set({ events: conv.events.slice(), streaming: null, failure, conversations: this.#withMeta(conv.meta) });
    if (this.afterTurn) {
      let notice = null;
      try {
        notice = await this.afterTurn(agent, { conversationId: conv.id, title: conv.meta.title, text: message });
      } catch (err) {
        notice = `After the turn: ${/** @type {Error} */ (err).message}`;
      }
      if (notice && visible()) this.#set({ notice });
    }
  }

  /** Retries the failed turn: continues it after tool results, or re-sends its message. */
  retry() {
    const f = this.state.failure;
    if (!f || this.busy) return Promise.resolve();
    if (f.resume) return this.#turn(f.text, (agent, signal) => agent.respond({ signal }));
    return this.send(f.text);
  }

  /**
   * Runs a code block again ("Run again" on a code card) in the conversation's sandbox, with
   * tools through the same gates. The output is shown, not added to the conversation.
   * @param {string} code
   */
  async runAgain(code) {
    if (!this.runCodeImpl || !this.state.activeId) return { ok: false, output: 'Code cannot run here.', durationMs: 0 };
    return this.runCodeImpl(this.state.activeId, code);
  }

  stop() {
    this.#abort?.abort();
  }

  /** @param {ConversationMeta} meta */
  #withMeta(meta) {
    const rest = this.state.conversations.filter((c) => c.id !== meta.id);
    return [meta, ...rest].sort((a, b) => b.updatedAt - a.updatedAt);
  }
}
