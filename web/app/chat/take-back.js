/** @import { ClawserEvent } from '../../agent/types.d.ts' */
/** @import { Conversation } from '../../agent/conversation/conversation.js' */
/** @import { ConversationStore } from '../../agent/conversation/conversation-store.js' */
/** @import { ConversationSearch } from '../../agent/conversation/conversation-search.js' */
/** @import { UndoChange } from '../../agent/runtime/undo.js' */
/** @import { FileSystem } from '../../storage/types.d.ts' */
/** @import { ConflictChoice, TakeBackResult } from '../../ui/types.d.ts' */
/** @import { ChatCore } from './core.js' */
/** @import { ChatDeps, TakeBackOutcome } from './types.d.ts' */
import { UndoStore, UNDO_KEEP, planUndo, applyUndo, describeChanges, undoPaths } from '../../agent/runtime/undo.js';

/**
 * Undo and redo of a conversation's turns. A finished turn's record keeps its events and what
 * its tools changed; undo puts back the files, memories, goals and jobs it changed and takes its
 * messages out of the model's context (kept in the log, recorded as `turn_undone`); redo
 * re-applies it while nothing happened since. Something changed by someone else since is a
 * conflict: nothing is done until the caller says whether to overwrite it or keep it.
 */
export class TakeBack {
  /** An undo or redo in progress (a second Alt+Z waits its turn instead of racing it). @type {Promise<unknown> | null} */
  #taking = null;

  /**
   * The commit after the last turn or undo, while it is being made: an undo or redo waits for
   * it before reading the files, so each commit holds what its own turn or undo left.
   * @type {Promise<unknown>}
   */
  committing = Promise.resolve();

  /**
   * @param {ChatCore} core
   * @param {{fs: FileSystem, store: ConversationStore, search: ConversationSearch, busy: () => boolean,
   *   undoDomains?: ChatDeps['undoDomains'], undoKeep?: ChatDeps['undoKeep'], afterTakeBack?: ChatDeps['afterTakeBack'],
   *   onDamage?: ChatDeps['onDamage']}} deps
   *   busy: a turn runs in the conversation on screen
   */
  constructor(core, deps) {
    this.core = core;
    this.deps = deps;
    this.keep = deps.undoKeep ?? (() => UNDO_KEEP);
  }

  /** An undo or redo is under way (turns wait for it: it moves the conversation's head). */
  get taking() {
    return this.#taking;
  }

  /** @param {Conversation} conv */
  #store(conv) {
    return new UndoStore(this.deps.fs, this.deps.store.dirOf(conv.id), {
      keep: this.keep(),
      title: conv.meta.title,
      ...(this.deps.onDamage ? { onDamage: this.deps.onDamage } : {}),
    });
  }

  /**
   * Keeps a finished turn's record: its events on the active path (from its first one) and what
   * its tools changed (the recorder's before and after).
   * @param {Conversation} conv @param {string | null} first the turn's first event
   * @param {string | null} headBefore where the conversation stood before @param {UndoChange[]} changes
   */
  async record(conv, first, headBefore, changes) {
    if (!first) return;
    const events = conv.events;
    const start = events.findIndex((e) => e.id === first);
    // Not on the path, or its predecessor not loaded (a very long turn): nothing safe to cut at.
    if (start === -1 || (start === 0 && conv.hasEarlier)) return;
    const turn = events.slice(start);
    await this.#store(conv).add({
      version: 1,
      id: first,
      conversationId: conv.id,
      head: headBefore,
      last: /** @type {ClawserEvent} */ (turn.at(-1)).id,
      at: Date.now(),
      state: 'done',
      messages: turn.filter((e) => e.type === 'user_message' || e.type === 'agent_message').length,
      changes,
    });
  }

  /**
   * Where the conversation ends for undo and redo: its last event that is not itself the record
   * of an undo or a redo (null: nothing yet).
   * @param {Conversation} conv
   */
  end(conv) {
    return conv.events.findLast((e) => e.type !== 'turn_undone' && e.type !== 'turn_redone')?.id ?? null;
  }

  /** What Undo and Redo offer for the conversation on screen. @param {Conversation} conv */
  async refresh(conv) {
    const store = this.#store(conv);
    const end = this.end(conv);
    const [undo, redo] = await Promise.all([store.undoable(end), store.redoable(end)]).catch(() => [null, null]);
    if (this.core.conversation !== conv) return;
    const head = conv.head;
    this.core.set({
      undo: undo ? { turnId: undo.id, last: undo.last, summary: describeChanges(undo), changes: undo.changes.length } : null,
      // The button goes on the notice of the undo the conversation ends with.
      redo: redo && head ? { turnId: redo.id, event: head } : null,
    });
  }

  /**
   * Undoes or redoes the latest turn of the conversation on screen. A done one is said by its
   * line in the transcript (the chat's notice says only its commit); a failure or refusal is the
   * chat's notice; a conflict is the caller's question to ask.
   * @param {'undo' | 'redo'} direction @param {{conflicts?: ConflictChoice}} options
   * @returns {Promise<TakeBackResult>}
   */
  async run(direction, options) {
    if (this.#taking) return { ok: false, message: `An ${direction === 'undo' ? 'undo' : 'redo'} is already under way.` };
    if (this.deps.busy()) {
      const message = `Wait for the reply to finish (or stop it) before ${direction === 'undo' ? 'undoing' : 'redoing'} a turn.`;
      this.core.set({ notice: message });
      return { ok: false, message };
    }
    /** @type {Promise<TakeBackOutcome>} */
    const run = this.#now(direction, options).catch((err) => ({
      ok: false,
      message: `${direction === 'undo' ? 'Undo' : 'Redo'} failed: ${/** @type {Error} */ (err).message}`,
    }));
    this.#taking = run;
    /** @type {TakeBackOutcome} */
    let r;
    try {
      r = await run;
    } finally {
      this.#taking = null;
    }
    const { commit, ...outcome } = r;
    /** What the transcript's "Turn undone" / "Turn redone" line does not say (its commit); a failure is said whole. */
    let notice = outcome.ok ? '' : outcome.message;
    // Its own commit, so a later turn's commit never carries what it changed. Made once the
    // undo is done (the next Alt+Z may start meanwhile: it waits for this commit first).
    const afterTakeBack = this.deps.afterTakeBack;
    if (commit && afterTakeBack) {
      const made = Promise.resolve().then(() => afterTakeBack(commit));
      this.committing = made.catch(() => null);
      try {
        const committed = await made;
        if (committed) {
          outcome.message += ` ${committed}`;
          notice = `${notice} ${committed}`.trim();
        }
      } catch (err) {
        const failed = `It could not be committed: ${/** @type {Error} */ (err).message}`;
        outcome.message += ` ${failed}`;
        notice = `${notice} ${failed}`.trim();
      }
    }
    // A done undo or redo is said once, by its line in the transcript (which carries Redo or Undo).
    if (!outcome.conflicts) this.core.set({ notice: notice || null });
    return outcome;
  }

  /** @param {'undo' | 'redo'} direction @param {{conflicts?: ConflictChoice}} options @returns {Promise<TakeBackOutcome>} */
  async #now(direction, options) {
    // What the last turn or undo changed is committed first (its commit reads the files).
    await this.committing;
    const { core } = this;
    const conv = core.conversation;
    if (!conv) return { ok: false, message: 'Open a conversation first.' };
    if (!this.deps.undoDomains) return { ok: false, message: 'Undo is not available here.' };
    const store = this.#store(conv);
    const end = this.end(conv);
    const record = direction === 'undo' ? await store.undoable(end) : await store.redoable(end);
    if (!record) {
      const any = (await store.list()).some((r) => r.state === (direction === 'undo' ? 'done' : 'undone'));
      if (!any)
        return {
          ok: false,
          message: direction === 'undo' ? 'There is no turn to undo in this conversation.' : 'There is nothing to redo.',
        };
      return {
        ok: false,
        message:
          direction === 'undo'
            ? 'The conversation went on after its last recorded turn (a message or a result came after ' +
              'it, or another version is shown): there is nothing here to undo.'
            : 'The conversation went on after the undo: the turn cannot be redone.',
      };
    }
    const domains = await this.deps.undoDomains();
    const plan = await planUndo(record, domains, direction);
    const mode = options.conflicts ?? 'ask';
    if (plan.conflicts.length && mode === 'ask') {
      return {
        ok: false,
        conflicts: plan.conflicts.map((c) => c.what),
        message: `Changed since the turn: ${plan.conflicts.map((c) => c.what).join(', ')}.`,
      };
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
    /** @type {import('../../agent/types.d.ts').EventData<'turn_undone'>} */
    const data = {
      turnId: record.id,
      summary,
      ...(kept.length ? { kept } : {}),
      ...(mode === 'overwrite' && plan.conflicts.length ? { overwritten: plan.conflicts.map((c) => c.what) } : {}),
      ...(failed.length ? { failed } : {}),
    };
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
    this.deps.search.touch(conv.id);
    if (core.conversation === conv) core.show(conv);
    await this.refresh(conv);
    const what =
      direction === 'undo'
        ? `Undid the turn (${summary} put back; its ${record.messages} message${record.messages === 1 ? '' : 's'} are out of the ` +
          `model's context, kept in the log).`
        : `Redid the turn (${summary}).`;
    const extra = [
      kept.length ? ` Kept as they are now: ${kept.join(', ')}.` : '',
      failed.length ? ` Could not put back: ${failed.join('; ')}.` : '',
    ].join('');
    return {
      ok: !failed.length,
      message: `${what}${extra}`,
      ...(paths.length
        ? {
            commit: {
              direction,
              paths,
              turn: { conversationId: conv.id, title: conv.meta.title, text: typeof text === 'string' ? text : '' },
            },
          }
        : {}),
    };
  }
}
