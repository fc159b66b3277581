/** @import { Conversation } from '../../agent/conversation/conversation.js' */
/** @import { Provider } from '../../providers/types.d.ts' */
/** @import { ChatCore } from './core.js' */
/** @import { ChatDeps } from './types.d.ts' */
import { plainTitle, titleRequest, cleanModelTitle } from '../../agent/conversation/title.js';
import { catalogEntry } from '../../providers/catalog.js';

/**
 * The titles the model writes: after a conversation's first exchange it is asked once, in the
 * background, for a short title; on any failure the first message's plain text stays the title.
 * A rename by the user always wins, and a test provider (Echo: no AI) is never asked, nor a model
 * that takes no background work (one run by this computer's CPU in the page: the first words stay
 * the title rather than taking the machine from the user's turns).
 */
export class Titles {
  /** Conversations whose title is being written. @type {Set<string>} */
  #titling = new Set();

  /** @param {ChatCore} core @param {{redact: (text: string) => string, onSideUsage?: ChatDeps['onSideUsage']}} deps */
  constructor(core, deps) {
    this.core = core;
    this.deps = deps;
  }

  /**
   * After the first exchange, asks the model for a short title.
   * @param {Conversation} conv @param {Provider} provider
   */
  afterFirstExchange(conv, provider) {
    const meta = conv.meta;
    // A chain (the reliability layer's) asks its first provider first.
    const first = /** @type {{chain?: Provider[]}} */ (provider).chain?.[0] ?? provider;
    const caps = catalogEntry(first.id)?.capabilities;
    if (meta.titleSet || meta.titleGenerated || caps?.test || caps?.background === false || this.#titling.has(conv.id)) return;
    const ask = conv.events.filter((e) => e.type === 'user_message').find((e) => !e.data.continues);
    const reply = conv.events.filter((e) => e.type === 'agent_message').find((e) => e.data.text);
    if (!ask || !reply) return;
    // Only a conversation still named by its first message: one created with a name of its own
    // (a scheduled job's) keeps it.
    if (meta.title !== 'New conversation' && meta.title !== plainTitle(String(ask.data.text ?? ''))) return;
    this.#titling.add(conv.id);
    const { core } = this;
    (async () => {
      const answer = await provider.chat(titleRequest(String(ask.data.text ?? ''), this.deps.redact(String(reply.data.text ?? ''))));
      if (answer.usage) this.deps.onSideUsage?.(provider, answer.usage);
      const title = cleanModelTitle(answer.content);
      if (!title || !core.state.conversations.some((c) => c.id === conv.id)) return; // deleted meanwhile
      await conv.setGeneratedTitle(title);
      core.set({ conversations: core.withMeta(conv.meta) });
      core.announceList();
    })()
      .catch(() => {})
      .finally(() => this.#titling.delete(conv.id)); // a title is a nicety: the provisional one stays
  }
}
