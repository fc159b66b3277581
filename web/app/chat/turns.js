/** @import { Conversation } from '../../agent/conversation/conversation.js' */
/** @import { ClawserAgent, AgentStreamEvent } from '../../agent/runtime/agent.js' */
/** @import { ConversationSearch } from '../../agent/conversation/conversation-search.js' */
/** @import { ScopedAgent } from '../../agent/runtime/agent-definitions.js' */
/** @import { ApproveFn } from '../../agent/runtime/tool-runner.js' */
/** @import { Provider } from '../../providers/types.d.ts' */
/** @import { AttachedImage, AttachmentChip, ChatState } from '../../ui/types.d.ts' */
/** @import { ChatCore } from './core.js' */
/** @import { Conversations } from './conversations.js' */
/** @import { TakeBack } from './take-back.js' */
/** @import { InterruptedTurns } from './interrupted.js' */
/** @import { Titles } from './titles.js' */
/** @import { ModelSources } from './model-choice.js' */
/** @import { ChatDeps, AgentBuilder, TurnRun, TurnStart, TurnTarget, TurnResult } from './types.d.ts' */
import { chooseModel } from './model-choice.js';

/** What "Continue" sends after the user stopped a reply (recorded as such, shown as a note). */
export const CONTINUE_TEXT = 'Continue your previous reply from exactly where it stopped, without repeating what you already wrote.';

/**
 * A turn's failure as the chat offers it: after tool results the turn continues from where it
 * failed; otherwise the message is re-sent (null: it did not fail).
 * @param {Conversation} conv @param {string | null} storageError what could not be recorded
 * @param {string} message @param {ScopedAgent | null} profile the named agent that answered
 * @returns {ChatState['failure']}
 */
function turnFailure(conv, storageError, message, profile) {
  const last = conv.events.at(-1);
  const agent = profile ? { agent: profile.name } : {};
  if (storageError) return { code: 'client', retryable: true, message: storageError, text: message, resume: false };
  if (last && (last.type === 'provider_error' || last.type === 'stream_error')) {
    const resume = conv.deriveSessionHistory().messages.at(-1)?.role === 'tool';
    return {
      code: last.data.code,
      retryable: !!last.data.retryable,
      message: String(last.data.message ?? 'The reply failed.'),
      text: message,
      resume,
      ...agent,
    };
  }
  if (last?.type === 'self_repair' && last.data.action === 'stopped') {
    return {
      code: 'client',
      retryable: true,
      message: String(last.data.message ?? 'Stopped: the run looked stuck.'),
      text: message,
      resume: true,
      selfRepair: true,
      ...agent,
    };
  }
  return null;
}

/**
 * Running turns: a message sent (with images and attached texts), an edit, another answer, a
 * continuation, a retry, a scheduled prompt. Each turn chooses its model, streams into the
 * chat's state while its conversation is on screen, then is kept for undo, titled, and handed
 * to what runs after it (the commit).
 */
export class Turns {
  /** Texts waiting to go with the next message. @type {{label: string, text: string, untrusted?: string}[]} */
  #attachments = [];
  /** How the composer shows each of them (a document's name, kind, pages and size). @type {AttachmentChip[]} */
  #chips = [];
  /** The last message sent with images, so a Retry re-sends them too. @type {{text: string, images: AttachedImage[]} | null} */
  #lastImages = null;

  /**
   * @param {ChatCore} core
   * @param {{sources: ModelSources, providerFactory: NonNullable<ChatDeps['providerFactory']>, buildAgent: AgentBuilder,
   *   redact: (text: string) => string, afterTurn?: ChatDeps['afterTurn'], search: ConversationSearch, conversations: Conversations,
   *   takeBack: TakeBack, interrupted: InterruptedTurns, titles: Titles, busy: () => boolean,
   *   onTurn: (phase: 'start' | 'end', turn: {conversationId: string, text: string, scheduled: boolean}) => void}} deps
   */
  constructor(core, deps) {
    this.core = core;
    this.deps = deps;
  }

  /**
   * Sends a message and streams the whole turn. Resolves when the turn ends.
   * @param {string} text @param {AttachedImage[]} [images]
   */
  send(text, images = []) {
    const message = text.trim();
    const attachments = this.#attachments.splice(0);
    const chips = this.#chips.splice(0);
    if ((!message && !images.length && !attachments.length) || this.deps.busy()) {
      this.#attachments.unshift(...attachments);
      this.#chips.unshift(...chips);
      return Promise.resolve();
    }
    if (attachments.length) this.core.set({ attachments: [] });
    this.#lastImages = images.length ? { text: message, images } : null;
    return this.run(
      message,
      (agent, signal) =>
        agent.runStream(message, { signal, ...(images.length ? { images } : {}), ...(attachments.length ? { attachments } : {}) }),
      images.length ? { needsVision: true } : {},
    );
  }

  /**
   * @param {{label: string, text: string, untrusted?: string}} attachment
   * @param {AttachmentChip} [chip] how the composer shows it (default: its label)
   */
  attach(attachment, chip) {
    this.#attachments.push(attachment);
    this.#chips.push(chip ? { label: chip.label, ...(chip.detail ? { detail: chip.detail } : {}) } : { label: attachment.label });
    this.core.set({ attachments: [...this.#chips] });
  }

  /** @param {number} index */
  detach(index) {
    this.#attachments.splice(index, 1);
    this.#chips.splice(index, 1);
    this.core.set({ attachments: [...this.#chips] });
  }

  /** @param {string} eventId @param {string} text */
  edit(eventId, text) {
    const message = text.trim();
    const conv = this.core.conversation;
    // The edited message keeps the images of the original (the same files of the conversation).
    const original = conv?.events.find((e) => e.id === eventId);
    const imageRefs = original?.type === 'user_message' && Array.isArray(original.data.images) ? original.data.images : [];
    if ((!message && !imageRefs.length) || !conv || this.deps.busy()) return Promise.resolve();
    // The conversation is fixed now: switching away while the turn starts must not move it.
    return this.run(
      message,
      (agent, signal) =>
        this.#afterFork(conv, eventId, 'replace', () => agent.runStream(message, { signal, ...(imageRefs.length ? { imageRefs } : {}) })),
      { conversation: conv, ...(imageRefs.length ? { needsVision: true } : {}) },
    );
  }

  /** @param {string} eventId a reply, or the user message its turn started with */
  regenerate(eventId) {
    const conv = this.core.conversation;
    if (!conv || this.deps.busy()) return Promise.resolve();
    const events = conv.events;
    const at = events.findIndex((e) => e.id === eventId);
    const ask = events.slice(0, at + 1).findLast((e) => e.type === 'user_message');
    if (at === -1 || !ask) return Promise.resolve();
    const text = String(ask.data.text ?? '');
    return this.run(text, (agent, signal) => this.#afterFork(conv, ask.id, 'after', () => agent.regenerateStream(text, { signal })), {
      conversation: conv,
    });
  }

  continueReply() {
    const conv = this.core.conversation;
    if (!conv || this.deps.busy()) return Promise.resolve();
    // The reply is continued by the agent that wrote it (a named agent keeps its tools and autonomy).
    const by = conv.events.findLast((e) => e.type === 'agent_message')?.data.agent;
    return this.run(
      CONTINUE_TEXT,
      (agent, signal) => agent.runStream(CONTINUE_TEXT, { signal, continues: true }),
      typeof by === 'string' ? { agent: by } : {},
    );
  }

  retry() {
    const f = this.core.state.failure;
    if (!f || this.deps.busy()) return Promise.resolve();
    const as = f.agent ? { agent: f.agent } : {};
    if (f.resume) return this.run(f.text, (agent, signal) => agent.resumeStream(f.text, { signal }), as);
    if (f.text === CONTINUE_TEXT)
      return this.run(CONTINUE_TEXT, (agent, signal) => agent.runStream(CONTINUE_TEXT, { signal, continues: true }), as);
    return this.send(f.text, this.#lastImages?.text === f.text ? this.#lastImages.images : []);
  }

  /**
   * @param {{conversationId?: string, title: string, text: string, before?: (conversation: Conversation) => Promise<unknown>,
   *   approve?: ApproveFn, job?: {id: string, name: string, viaChannel?: boolean}, untrusted?: string, agent?: string,
   *   limits?: import('./types.d.ts').TurnLimits}} job job: the scheduled job (a new conversation is marked as its);
   *   untrusted: the text came from outside (a channel's message: it taints the turn); agent: the named agent that answers;
   *   limits: the tools and autonomy the turn may use at most
   * @returns {Promise<{ok: boolean, summary: string, conversationId: string, acted?: boolean}>}
   */
  async runScheduled(job) {
    const { runs } = this.core;
    const conv = await this.deps.conversations.openForBackground(job.conversationId, job.title, job.job);
    // An undo being applied there finishes first (it moves the conversation's head).
    if (this.deps.takeBack.taking) await this.deps.takeBack.taking.catch(() => {});
    while (runs.has(conv.id)) await runs.get(conv.id)?.done;
    if (job.before) await job.before(conv);
    const untrusted = job.untrusted;
    const r = await this.run(job.text, (agent, signal) => agent.runStream(job.text, untrusted ? { signal, untrusted } : { signal }), {
      conversation: conv,
      scheduled: true,
      approve: job.approve,
      ...(job.agent ? { agent: job.agent } : {}),
      ...(job.limits ? { limits: job.limits } : {}),
    });
    return { ...r, conversationId: conv.id };
  }

  /**
   * Moves the conversation's head, shows that at once, then streams the turn `start` gives.
   * @param {Conversation} conv @param {string} eventId @param {'replace' | 'after'} where
   * @param {() => AsyncIterable<AgentStreamEvent>} start
   * @returns {AsyncGenerator<AgentStreamEvent>}
   */
  async *#afterFork(conv, eventId, where, start) {
    const e = await conv.fork(eventId, where);
    yield { type: 'saved', eventId: e.id, eventType: e.type };
    yield* start();
  }

  /**
   * Runs one turn. A message "@name …" is answered by that named agent (its model, prompt,
   * tools and autonomy).
   * @param {string} message the user text (for a retry that re-sends it)
   * @param {TurnStart} start @param {TurnTarget} [target]
   * @returns {Promise<TurnResult>}
   */
  async run(message, start, target = {}) {
    const { core, deps } = this;
    if (!target.conversation && deps.conversations.opening) await deps.conversations.opening;
    /** @type {Provider} */
    let provider;
    /** @type {string | undefined} */
    let apiKey;
    /** @type {ScopedAgent | null} */
    let profile = null;
    /** @type {string[]} */
    let leftOut = [];
    try {
      // A model chosen for the conversation just before sending is still being saved: it applies.
      await (target.conversation ?? core.conversation)?.flush();
      const pinned = () => (target.conversation ?? core.conversation)?.meta.route;
      const chosen = await chooseModel(deps.sources, { message, pinned, agent: target.agent, needsVision: target.needsVision });
      ({ profile, leftOut } = chosen);
      apiKey = chosen.config.apiKey;
      provider = await deps.providerFactory(chosen.config);
    } catch (err) {
      const e = /** @type {{code?: string, message: string}} */ (err);
      if (!target.scheduled)
        core.set({
          failure: { code: /** @type {any} */ (e.code ?? 'client'), retryable: false, message: e.message, text: message, resume: false },
        }); // code comes from ProviderError/StorageError/ChatError
      return { ok: false, summary: e.message };
    }
    if (!target.conversation && !core.conversation) await deps.conversations.newConversation();
    const conv = /** @type {Conversation} */ (target.conversation ?? core.conversation);
    const streaming = { text: '', thinking: '', status: '' };
    /** @type {() => void} */
    let finished = () => {};
    /** @type {TurnRun} */
    const run = {
      abort: new AbortController(),
      scheduled: !!target.scheduled,
      conversation: conv,
      streaming,
      done: new Promise((r) => {
        finished = () => r(undefined);
      }),
      finishing: false,
    };
    core.runs.set(conv.id, run);
    deps.interrupted.forget(conv.id);
    const turnInfo = { conversationId: conv.id, text: message, scheduled: !!target.scheduled };
    /** Where the conversation stood before (for an edit: the version shown then): where undo goes back to. */
    const headBefore = deps.takeBack.end(conv);
    deps.onTurn('start', turnInfo);
    const visible = () => core.state.activeId === conv.id;
    if (visible()) core.set({ failure: null, notice: leftOut.length ? leftOut.join(' ') : null, streaming: { ...streaming } });
    /** @type {ClawserAgent} */
    let agent;
    try {
      agent = await deps.buildAgent(
        provider,
        conv,
        apiKey ? [apiKey] : [],
        target.approve || profile || target.limits
          ? {
              ...(target.approve ? { approve: target.approve } : {}),
              ...(profile ? { profile } : {}),
              ...(target.limits ? { limits: target.limits } : {}),
            }
          : undefined,
      );
    } catch (err) {
      core.runs.delete(conv.id);
      finished();
      deps.onTurn('end', turnInfo);
      if (visible()) core.set({ streaming: null });
      throw err;
    }
    const { firstSaved, storageError } = await this.#stream(agent, start, run, visible, leftOut);
    // What the turn changed, as it left it — taken before the conversation is free again, so the
    // next turn cannot change things first (the stream's catch takes every failure).
    const changes = (await agent.tools?.recorder?.finish().catch(() => null)) ?? [];
    /** The turn changed something (a heartbeat that did is never silent, whatever it answers). */
    const acted = changes.length > 0 || !!agent.tools?.writes.length;
    // Free for the next message while the undo record is written; a delete still waits for it.
    run.finishing = true;
    const failure = turnFailure(conv, storageError, message, profile);
    if (visible()) core.show(conv, { streaming: null, failure });
    // Kept for undo (a failure here costs the user only the undo); a delete of the conversation
    // waits for it (`done`).
    await deps.takeBack.record(conv, firstSaved, headBefore, changes).catch(() => {});
    if (core.runs.get(conv.id) === run) core.runs.delete(conv.id);
    finished();
    deps.onTurn('end', turnInfo);
    await deps.takeBack.refresh(conv).catch(() => {});
    if (!failure && !target.scheduled) deps.titles.afterFirstExchange(conv, provider);
    if (deps.afterTurn) {
      let notice = null;
      const afterTurn = deps.afterTurn;
      const made = Promise.resolve().then(() => afterTurn(agent, { conversationId: conv.id, title: conv.meta.title, text: message }));
      deps.takeBack.committing = made.catch(() => null);
      try {
        notice = await made;
      } catch (err) {
        notice = `After the turn: ${/** @type {Error} */ (err).message}`;
      }
      // What the named agent was left without stays said.
      if (notice && visible()) core.set({ notice: [...leftOut, notice].join(' ') });
    }
    if (failure) return { ok: false, summary: failure.message, acted };
    const reply = conv.events.findLast((e) => e.type === 'agent_message' || e.type === 'user_message');
    return {
      ok: reply?.type === 'agent_message' && !reply.data.stopped,
      summary: reply?.type === 'agent_message' ? String(reply.data.text ?? '') : 'No reply.',
      acted,
    };
  }

  /**
   * Streams a turn into the chat's state while its conversation is on screen (redacted as it
   * streams). firstSaved: the turn's first event (after an edit's or a regeneration's branch);
   * storageError: what could not be recorded (a full storage ends the stream here). A provider's
   * warning (a setting it left unapplied) joins `leftOut`, the turn's notice.
   * @param {ClawserAgent} agent @param {TurnStart} start @param {TurnRun} run @param {() => boolean} visible
   * @param {string[]} leftOut
   * @returns {Promise<{firstSaved: string | null, storageError: string | null}>}
   */
  async #stream(agent, start, run, visible, leftOut) {
    const { core, deps } = this;
    const { conversation: conv, streaming } = run;
    /** @type {string | null} */
    let firstSaved = null;
    agent.onToolProgress = (tool, text) => {
      streaming.status = `${tool}: ${text}`;
      if (visible()) core.set({ streaming: { ...streaming } });
    };
    try {
      for await (const ev of start(agent, run.abort.signal)) {
        if (ev.type === 'text') streaming.text += ev.text;
        else if (ev.type === 'reasoning') streaming.thinking += ev.text;
        else if (ev.type === 'status') streaming.status = ev.text;
        else if (ev.type === 'tool_start') streaming.status = `Running ${ev.name}…`;
        else if (ev.type === 'warning') {
          // A setting the provider left unapplied is said, with what the turn was left without.
          if (!leftOut.includes(ev.message)) leftOut.push(ev.message);
          if (visible()) core.set({ notice: leftOut.join(' ') });
        } else if (ev.type === 'compacting')
          streaming.status = "Summarizing earlier messages to keep the conversation within the model's context…";
        else if (ev.type === 'saved') {
          if (ev.eventType !== 'branch') firstSaved ??= ev.eventId;
          deps.search.touch(conv.id);
          if (ev.eventType === 'agent_message' || ev.eventType === 'tool_result') {
            streaming.text = '';
            streaming.thinking = '';
            streaming.status = ev.eventType === 'tool_result' ? 'Thinking…' : '';
          }
          if (visible()) core.show(conv);
        }
        if (visible()) core.set({ streaming: { ...streaming, text: deps.redact(streaming.text) } });
      }
    } catch (err) {
      // Storage failures (quota) end up here: what failed was not recorded.
      return { firstSaved, storageError: /** @type {Error} */ (err).message };
    }
    return { firstSaved, storageError: null };
  }
}
