/** @import { ConversationSearch } from '../../agent/conversation/conversation-search.js' */
/** @import { ChatCore } from './core.js' */
/** @import { Conversations } from './conversations.js' */

/**
 * Search across a workspace's conversations, and a hit opened where it is: the version holding
 * it shown, earlier messages loaded until it is there, the message brought into view.
 */
export class ChatSearch {
  /**
   * @param {ChatCore} core
   * @param {{search: ConversationSearch, conversations: Conversations, busy: () => boolean}} deps
   */
  constructor(core, deps) {
    this.core = core;
    this.deps = deps;
  }

  /** Searches every conversation (the index is brought up to date first). @param {string} query */
  async find(query) {
    await this.deps.search.update(this.core.state.conversations);
    return this.deps.search.search(query);
  }

  /** @param {string} conversationId @param {string | null} eventId null: the conversation's end */
  async reveal(conversationId, eventId) {
    const { core } = this;
    await this.deps.conversations.select(conversationId);
    const conv = core.conversation;
    if (!conv || conv.id !== conversationId || !eventId) return;
    const has = () => conv.events.some((e) => e.id === eventId);
    while (!has() && conv.hasEarlier) await conv.loadEarlier();
    if (!has() && conv.branched && !this.deps.busy()) await conv.switchTo(eventId).catch(() => null);
    core.set({ ...core.transcript(conv), hasEarlier: conv.hasEarlier, focus: has() ? eventId : null });
    core.set({ focus: null });
  }
}
