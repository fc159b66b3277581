/** @import { ConversationMeta } from '../../agent/types.d.ts' */
/** @import { Conversation } from '../../agent/conversation/conversation.js' */
/** @import { ChatState, ChatMeter } from '../../ui/types.d.ts' */
/** @import { TurnRun } from './types.d.ts' */

/**
 * What the parts of a workspace's chat share: the state the chat view shows and its
 * subscribers, the conversation on screen, the turns running and the sub-agents' conversations
 * open in this page. The ChatController makes one and hands it to each part.
 */
export class ChatCore {
  /** @type {ChatState} */
  state = {
    conversations: [],
    activeId: null,
    events: [],
    versions: new Map(),
    hasEarlier: false,
    streaming: null,
    failure: null,
    notice: null,
  };
  /** The conversation on screen. @type {Conversation | null} */
  conversation = null;
  /** Turns in progress, by conversation (a scheduled turn may run in one the user is not viewing). @type {Map<string, TurnRun>} */
  runs = new Map();
  /**
   * Sub-agents' conversations open in this page (one instance per log: the viewer shares the writer's).
   * @type {Map<string, Conversation>}
   */
  children = new Map();
  /** @type {Set<(state: ChatState) => void>} */
  #listeners = new Set();

  /**
   * @param {{workspaceId: string, coordination?: import('../../agent/types.d.ts').Coordination,
   *   meter: (conv: Conversation) => ChatMeter}} deps
   *   meter: the cost and token meter the transcript carries
   */
  constructor(deps) {
    this.workspaceId = deps.workspaceId;
    this.coordination = deps.coordination;
    this.meter = deps.meter;
  }

  /** @param {(state: ChatState) => void} fn */
  subscribe(fn) {
    this.#listeners.add(fn);
    fn(this.state);
    return () => this.#listeners.delete(fn);
  }

  /** @param {Partial<ChatState>} patch */
  set(patch) {
    this.state = { ...this.state, ...patch };
    for (const fn of this.#listeners) fn(this.state);
  }

  /** What the chat shows of `conv`. @param {Conversation} conv */
  transcript(conv) {
    return { events: conv.events.slice(), versions: conv.alternatives(), hasEarlier: conv.hasEarlier, meter: this.meter(conv) };
  }

  /** Shows `conv`'s transcript and its place in the list, with `patch`. @param {Conversation} conv @param {Partial<ChatState>} [patch] */
  show(conv, patch = {}) {
    this.set({ ...this.transcript(conv), conversations: this.withMeta(conv.meta), ...patch });
  }

  /** The list with `meta` in it, by activity. @param {ConversationMeta} meta */
  withMeta(meta) {
    const rest = this.state.conversations.filter((c) => c.id !== meta.id);
    return [meta, ...rest].sort((a, b) => b.updatedAt - a.updatedAt);
  }

  /** A conversation made here: first in the list, and other tabs told. @param {ConversationMeta} meta */
  listed(meta) {
    this.set({ conversations: [meta, ...this.state.conversations] });
    this.announceList();
  }

  /** Other tabs read the list again. */
  announceList() {
    this.coordination?.publish(`convs:${this.workspaceId}`, {});
  }
}
