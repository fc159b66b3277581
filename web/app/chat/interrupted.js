/** @import { ChatCore } from './core.js' */

/**
 * Turns cut off by a closed tab: the last checkpoint says a turn was running, with the length of
 * its conversation's log when it started. When that conversation is on screen and the request
 * found after that offset got no reply, the user is offered to retry it.
 */
export class InterruptedTurns {
  /** Where each conversation's log stood when its cut-off turn started. @type {Map<string, number>} */
  #at = new Map();

  /** @param {ChatCore} core */
  constructor(core) {
    this.core = core;
  }

  /** @param {string} conversationId @param {number} bytes */
  async mark(conversationId, bytes) {
    this.#at.set(conversationId, bytes);
    if (this.core.state.activeId === conversationId) await this.offer();
  }

  /** A turn starts in the conversation, or it was deleted: nothing is offered for it any more. @param {string} conversationId */
  forget(conversationId) {
    this.#at.delete(conversationId);
  }

  /** Offers the retry when the conversation on screen has a cut-off turn. */
  async offer() {
    const { core } = this;
    const conv = core.conversation;
    const bytes = conv ? this.#at.get(conv.id) : undefined;
    if (!conv || bytes === undefined || core.runs.has(conv.id)) return;
    this.#at.delete(conv.id);
    // The request is read from the log (the checkpoint keeps no copy of it); only offered when
    // nothing answered it since (another tab may have retried already).
    const request = await conv.requestAfter(bytes).catch(() => null);
    if (!request || request.answered || core.conversation !== conv) return;
    if (conv.deriveSessionHistory().messages.at(-1)?.role !== 'user') return;
    core.set({
      failure: {
        code: 'network',
        retryable: true,
        message: 'Your last request was interrupted: the tab closed before the reply finished. Retry to get the answer.',
        text: request.text,
        resume: true,
      },
    });
  }
}
