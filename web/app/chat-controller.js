/** @import { ConversationMeta, ClawserEvent } from '../agent/types.d.ts' */
/** @import { FileSystem } from '../storage/types.d.ts' */
/** @import { SettingsStore } from './settings.js' */
/** @import { Provider, ProviderErrorShape } from '../providers/types.d.ts' */
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
 * @property {(ProviderErrorShape & {text: string}) | null} failure last turn's failure, with the text to retry
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
   * @param {{fs: FileSystem, workspaceId: string, settings: SettingsStore, providerFactory?: (config: import('../providers/types.d.ts').ProviderConfig) => Provider}} deps
   */
  constructor(deps) {
    this.workspaceId = deps.workspaceId;
    this.settings = deps.settings;
    this.store = new ConversationStore(deps.fs, deps.workspaceId);
    this.providerFactory = deps.providerFactory ?? ((c) => createProvider(c));
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
   * Sends a message and streams the reply. Resolves when the turn ends.
   * @param {string} text
   */
  async send(text) {
    const message = text.trim();
    if (!message || this.busy) return;
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
      this.#set({ failure: { code: /** @type {any} */ (e.code ?? 'client'), retryable: false, message: e.message, text: message } }); // code comes from ProviderError/StorageError
      return;
    }
    if (!this.#conversation) await this.newConversation();
    const conv = /** @type {Conversation} */ (this.#conversation);
    const abort = new AbortController();
    this.#abort = abort;
    const streaming = { text: '', thinking: '', status: '' };
    this.#set({ failure: null, notice: null, streaming: { ...streaming } });
    const agent = new ClawserAgent({ provider, conversation: conv, secrets: apiKey ? [apiKey] : [] });
    /** @type {(ProviderErrorShape & {text: string}) | null} */
    let failure = null;
    try {
      let first = true;
      for await (const ev of agent.runStream(message, { signal: abort.signal })) {
        if (first) {
          first = false;
          this.#set({ events: conv.events.slice(), conversations: this.#withMeta(conv.meta) });
        }
        if (ev.type === 'text') streaming.text += ev.text;
        else if (ev.type === 'thinking') streaming.thinking += ev.text;
        else if (ev.type === 'status') streaming.status = ev.text;
        else if (ev.type === 'error' && ev.error.code !== 'aborted') failure = { ...ev.error, text: message };
        if (this.state.activeId === conv.id) this.#set({ streaming: { ...streaming } });
      }
    } catch (err) {
      // Storage failures (quota) end up here: the message was not recorded.
      const e = /** @type {{code?: string, message: string}} */ (err);
      failure = { code: 'client', retryable: true, message: e.message, text: message };
    } finally {
      if (this.#abort === abort) this.#abort = null;
    }
    if (this.state.activeId === conv.id) {
      this.#set({ events: conv.events.slice(), streaming: null, failure, conversations: this.#withMeta(conv.meta) });
    }
  }

  /** Re-sends the message of the failed turn. */
  retry() {
    const f = this.state.failure;
    if (f) return this.send(f.text);
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
