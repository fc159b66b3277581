/** @import { EventType, EventData, Coordination, RouteHint } from '../../agent/types.d.ts' */
/** @import { ConversationStore } from '../../agent/conversation/conversation-store.js' */
/** @import { ConversationSearch } from '../../agent/conversation/conversation-search.js' */
/** @import { DelegationBoard } from '../../agent/coordination/delegation-board.js' */
/** @import { ImageRef } from '../../providers/types.d.ts' */
/** @import { ChatCore } from './core.js' */
/** @import { TakeBack } from './take-back.js' */
/** @import { InterruptedTurns } from './interrupted.js' */
import { Conversation } from '../../agent/conversation/conversation.js';
import { toHtml, toJsonl, toMarkdown, parseImport, markImported } from '../../agent/conversation/conversation-export.js';
import { plainTitle } from '../../agent/conversation/title.js';
import { normalizeTags, TagsError } from '../../agent/conversation/conversation-list.js';
import { activePath, BranchTree } from '../../agent/conversation/branches.js';
import { withoutOpenToolRound } from '../conversation-rules.js';
import { ChatError } from './errors.js';

/**
 * The workspace's conversations as the chat has them: the list (kept current with other tabs),
 * the one on screen and its versions, and making, naming, exporting, importing, forking and
 * deleting them. Leaving the conversation on screen stops the user's own turn in it.
 */
export class Conversations {
  /** A new conversation being made, which the next message waits for. @type {Promise<void> | null} */
  opening = null;
  /** @type {(() => void) | null} */
  #unwatch = null;

  /**
   * @param {ChatCore} core
   * @param {{workspaceId: string, store: ConversationStore, search: ConversationSearch, coordination?: Coordination,
   *   delegations?: DelegationBoard, takeBack: TakeBack, interrupted: InterruptedTurns, busy: () => boolean,
   *   removed: (conversationId: string) => Promise<void> | undefined}} deps
   *   busy: a turn runs in the conversation on screen; removed: deletes a deleted conversation's other copies (the app's checkpoints)
   */
  constructor(core, deps) {
    this.core = core;
    this.deps = deps;
    const { store } = deps;
    // A damaged file was set aside: the list is read again, and the conversation on screen is
    // opened again (its instance still works around the damage).
    store.onSetAside = (id) => {
      void (async () => {
        core.set({ conversations: await store.list() });
        if (id && core.state.activeId === id && !core.runs.has(id) && !core.children.has(id)) {
          core.conversation = null;
          await this.select(id);
        }
      })().catch(() => {});
    };
    // Another tab created, renamed or deleted a conversation.
    deps.coordination?.subscribe(`convs:${deps.workspaceId}`, () => {
      store.list().then(
        (conversations) => core.set({ conversations }),
        () => {},
      );
    });
    // A sub-agent's conversation on screen follows its work (the sub-agent appends to the instance shown).
    deps.delegations?.subscribe(() => {
      const conv = core.conversation;
      if (conv && core.children.has(conv.id)) core.show(conv);
    });
  }

  /**
   * Leaving the conversation on screen stops the user's own turn in it (not a scheduled one) —
   * unless the user goes to one of its sub-agents' conversations: looking at a sub-agent's
   * work must not cancel it.
   * @param {string} [to] the conversation opened next
   */
  #leave(to) {
    const { state, runs } = this.core;
    const run = state.activeId ? runs.get(state.activeId) : undefined;
    const child = to ? state.conversations.find((c) => c.id === to)?.parent : undefined;
    if (child && child.conversationId === state.activeId) return;
    if (run && !run.scheduled) run.abort.abort();
  }

  /** Loads the list and opens `conversationId` (or the most recent). @param {string} [conversationId] */
  async init(conversationId) {
    const conversations = await this.deps.store.list();
    this.core.set({ conversations });
    const target = conversationId && conversations.some((c) => c.id === conversationId) ? conversationId : conversations[0]?.id;
    if (target) await this.select(target);
    else this.core.set({ activeId: null, events: [], versions: new Map(), hasEarlier: false });
    // The view is built again (e.g. after Settings were saved): the bar reads the settings again (its model menus).
    const conv = this.core.conversation;
    if (conv && this.core.state.activeId === conv.id) this.core.set({ meter: this.core.meter(conv) });
  }

  /** @param {string} id */
  async select(id) {
    const { core } = this;
    if (core.state.activeId === id && core.conversation) return;
    this.#leave(id);
    // A conversation with a turn running keeps its one open instance (one writer per log).
    const run = core.runs.get(id);
    const conv = run?.conversation ?? core.children.get(id) ?? (await this.deps.store.open(id));
    core.conversation = conv;
    this.#watch(conv);
    // What opening found damaged (a torn last entry included) is on the page's notice of damaged files.
    core.set({
      activeId: id,
      ...core.transcript(conv),
      hasEarlier: conv.hasEarlier,
      streaming: run && !run.finishing ? { ...run.streaming } : null,
      failure: null,
      notice: null,
      undo: null,
      redo: null,
    });
    await this.deps.takeBack.refresh(conv);
    await this.deps.interrupted.offer();
  }

  /** Shows what other tabs append to the conversation on screen, as it is written. @param {Conversation} conv */
  #watch(conv) {
    this.#unwatch?.();
    this.#unwatch = null;
    const { coordination } = this.deps;
    if (!coordination) return;
    const dir = this.deps.store.dirOf(conv.id);
    this.#unwatch = coordination.subscribe(Conversation.topic(dir), () => {
      conv
        .refresh()
        .then((added) => {
          if (added.length && this.core.conversation === conv) {
            this.core.show(conv);
            return this.deps.takeBack.refresh(conv);
          }
        })
        .catch(() => {});
    });
  }

  async loadEarlier() {
    const conv = this.core.conversation;
    if (!conv) return;
    await conv.loadEarlier();
    this.core.set({ ...this.core.transcript(conv), hasEarlier: conv.hasEarlier });
  }

  /**
   * Shows another version at `eventId`'s place: `step` -1 the previous, +1 the next.
   * @param {string} eventId @param {-1 | 1} step
   */
  async switchVersion(eventId, step) {
    const { core } = this;
    const conv = core.conversation;
    const v = core.state.versions.get(eventId);
    if (!conv || !v || this.deps.busy()) return;
    const target = v.siblings[v.index + step];
    if (!target) return;
    await conv.switchTo(target);
    if (core.conversation === conv) core.show(conv, { failure: null });
  }

  /**
   * Pins the conversation on screen to a routing hint (its turns use that hint's model), or back to the workspace's model.
   * @param {RouteHint | null} hint
   */
  async pinRoute(hint) {
    // Chosen while a new conversation is being made: it is for that one (as a message sent then is).
    if (this.opening) await this.opening;
    const conv = this.core.conversation;
    if (!conv) return;
    await conv.setRoute(hint);
    this.core.show(conv);
  }

  newConversation() {
    const opening = (async () => {
      this.#leave();
      const meta = await this.deps.store.create();
      this.core.listed(meta);
      await this.select(meta.id);
      return meta;
    })();
    // A message sent while the new conversation is being made goes into it (not into the one
    // being left, whose turn leaving would stop).
    const settled = opening.then(
      () => {},
      () => {},
    );
    this.opening = settled;
    settled.then(() => {
      if (this.opening === settled) this.opening = null;
    });
    return opening;
  }

  /** Pins a conversation (the list's Pinned group) or unpins it. @param {string} id @param {boolean} pinned */
  async setPinned(id, pinned) {
    const { core } = this;
    // Through the instance open in this page when there is one (on screen, a turn running in the
    // background, a sub-agent's): its next write of meta.json then keeps the pin.
    const open = core.conversation?.id === id ? core.conversation : (core.runs.get(id)?.conversation ?? core.children.get(id));
    if (open) await open.setPinned(pinned);
    else await this.deps.store.setPinned(id, pinned);
    core.set({
      conversations: core.state.conversations.map((c) => {
        if (c.id !== id) return c;
        const { pinned: _old, ...rest } = c;
        return pinned ? { ...rest, pinned: true } : rest;
      }),
    });
    core.announceList();
  }

  /**
   * Sets a conversation's tags (trimmed, unique whatever the case; an empty list removes them),
   * through the instance open in this page when there is one, as a pin is.
   * @param {string} id @param {string[]} tags
   */
  async setTags(id, tags) {
    const checked = normalizeTags(tags);
    if (!checked.ok) throw new TagsError(checked.problem);
    const { core } = this;
    const open = core.conversation?.id === id ? core.conversation : (core.runs.get(id)?.conversation ?? core.children.get(id));
    if (open) await open.setTags(checked.tags);
    else await this.deps.store.setTags(id, checked.tags);
    core.set({
      conversations: core.state.conversations.map((c) => {
        if (c.id !== id) return c;
        const { tags: _old, ...rest } = c;
        return checked.tags.length ? { ...rest, tags: checked.tags } : rest;
      }),
    });
    core.announceList();
  }

  /** @param {string} id @param {string} title */
  async rename(id, title) {
    const t = title.replace(/\s+/g, ' ').trim().slice(0, 120);
    if (!t) return;
    const { core } = this;
    if (core.conversation?.id === id) await core.conversation.rename(t);
    else await this.deps.store.rename(id, t);
    core.set({ conversations: core.state.conversations.map((c) => (c.id === id ? { ...c, title: t, titleSet: true } : c)) });
    core.announceList();
  }

  /**
   * A conversation as a file to download: Markdown, the JSONL event log, or a self-contained
   * HTML page (messages through the sanitizing Markdown renderer).
   * @param {string} id @param {'markdown' | 'jsonl' | 'html'} format
   * @returns {Promise<{name: string, type: string, text: string}>}
   */
  async export(id, format) {
    const meta = this.core.state.conversations.find((c) => c.id === id) ?? { title: 'Conversation' };
    const events = await this.deps.store.allEvents(id);
    const base =
      meta.title
        .replace(/[^\p{L}\p{N}]+/gu, '-')
        .replace(/^-+|-+$/g, '')
        .slice(0, 60) || 'conversation';
    if (format === 'jsonl') return { name: `${base}.jsonl`, type: 'application/x-ndjson', text: toJsonl(events) };
    // A page shows the version on screen; the JSONL log above keeps every version.
    const shown = activePath(events);
    if (format === 'markdown') return { name: `${base}.md`, type: 'text/markdown', text: toMarkdown(meta, shown) };
    const { renderMarkdown } = await import('../../safety/markdown.js');
    return { name: `${base}.html`, type: 'text/html', text: toHtml(meta, shown, renderMarkdown) };
  }

  /**
   * Imports a conversation exported as JSONL: validated whole first (a bad file changes
   * nothing), then added as a new conversation and opened.
   * @param {string} fileName @param {string} text
   */
  async import(fileName, text) {
    const parsed = parseImport(text);
    if (!parsed.ok) throw new ChatError('invalid', `Not imported: ${parsed.error}`);
    const first = parsed.events.find((e) => e.type === 'user_message');
    const title =
      plainTitle(fileName.replace(/\.jsonl?$/i, '').replace(/[-_]+/g, ' ')) ||
      plainTitle(String(first?.data.text ?? '')) ||
      'Imported conversation';
    const meta = await this.deps.store.createFrom(title, markImported(parsed.events, fileName));
    this.core.listed(meta);
    await this.select(meta.id);
    return meta;
  }

  /**
   * A new conversation holding `conversationId`'s events up to `eventId` (its version of the
   * conversation, the event included): the Events panel's "Fork here".
   * @param {string} conversationId @param {string} eventId
   */
  async forkAt(conversationId, eventId) {
    const { store } = this.deps;
    const tree = new BranchTree(await store.allEvents(conversationId));
    if (!tree.has(eventId)) throw new ChatError('not_found', 'That event is not in this conversation (it may have been deleted).');
    const source = this.core.state.conversations.find((c) => c.id === conversationId)?.title ?? 'Conversation';
    // The title stays the source's: that it is a fork, and of what, is said beside it (forkOf), never cut off with the title.
    const meta = await store.createFrom(source.slice(0, 120), withoutOpenToolRound(tree.pathTo(eventId)), {
      imagesFrom: conversationId,
      forkOf: { conversationId, title: source },
    });
    this.core.listed(meta);
    return meta;
  }

  /**
   * Deletes a conversation. A turn running in it is stopped and its end awaited first, and the
   * conversation then refuses appends: deleting under a running turn would leave an
   * `events.jsonl` without `meta.json` behind. Then its other copies are deleted (checkpoints).
   * @param {string} id
   */
  async remove(id) {
    const { core } = this;
    const run = core.runs.get(id);
    run?.abort.abort();
    const open = run?.conversation ?? (core.conversation?.id === id ? core.conversation : null);
    if (core.state.activeId === id) {
      core.conversation = null;
      core.set({ activeId: null, events: [], versions: new Map(), hasEarlier: false, failure: null, streaming: null });
    }
    this.deps.interrupted.forget(id);
    if (run) await run.done;
    await open?.markDeleted();
    await this.deps.store.delete(id);
    await this.deps.search.forget(id).catch(() => {}); // the index file is rewritten without it (a failure leaves it for the next update)
    core.set({ conversations: core.state.conversations.filter((c) => c.id !== id) });
    core.announceList();
    await this.deps.removed(id);
  }

  /**
   * A sub-agent's conversation (agent_delegate): listed at once, titled by the task, linked to
   * the conversation that delegated. The sub-agent is its only writer.
   * @param {string} title @param {{conversationId: string, toolCallId: string, agent: string}} parent
   */
  async createChild(title, parent) {
    const meta = await this.deps.store.create(title.slice(0, 120), { parent });
    this.core.listed(meta);
    const conv = await this.deps.store.open(meta.id);
    this.core.children.set(meta.id, conv);
    return conv;
  }

  /**
   * The one open instance of a conversation for work in the background (a scheduled job's),
   * created when absent or deleted (marked as the job's, so the list shows it apart).
   * @param {string | undefined} id @param {string} title @param {{id: string, name: string, viaChannel?: boolean}} [job]
   */
  async openForBackground(id, title, job) {
    const { core } = this;
    if (id && core.conversation?.id === id) return core.conversation;
    const running = id ? core.runs.get(id)?.conversation : undefined;
    if (running) return running;
    if (id && (await this.deps.store.list()).some((c) => c.id === id)) return this.deps.store.open(id);
    const meta = await this.deps.store.create(title.slice(0, 120), job ? { job } : {});
    core.listed(meta);
    return this.deps.store.open(meta.id);
  }

  /**
   * Appends an event to a conversation (e.g. a scheduled tool job's result) through its one open
   * instance, and shows it when the conversation is on screen.
   * @param {string | undefined} conversationId @param {string} title for a new conversation
   * @template {EventType} T
   * @param {T} type @param {EventData<T>} data
   * @param {{id: string, name: string, viaChannel?: boolean}} [job] the scheduled job (or channel) it comes from
   */
  async record(conversationId, title, type, data, job) {
    const { core } = this;
    const conv = await this.openForBackground(conversationId, title, job);
    await conv.append(type, data, 'system');
    this.deps.search.touch(conv.id);
    if (core.state.activeId === conv.id) {
      core.show(conv);
      await this.deps.takeBack.refresh(conv).catch(() => {});
    } else core.set({ conversations: core.withMeta(conv.meta) });
    return conv.id;
  }

  /**
   * An attached image of the conversation on screen, as a blob: URL for its thumbnail (the caller revokes it).
   * @param {ImageRef} ref
   */
  async imageUrl(ref) {
    const conv = this.core.conversation;
    if (!conv) throw new Error('No conversation is open.');
    const bytes = await conv.readImage(ref);
    return URL.createObjectURL(new Blob([/** @type {Uint8Array<ArrayBuffer>} */ (bytes)], { type: ref.mediaType }));
  }
}
