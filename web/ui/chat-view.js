/** @import { ClawserEvent, EventOf } from '../agent/types.d.ts' */
/** @import { ChatState, ChatViewController } from './types.d.ts' */
/** @import { TurnActions } from './chat/turn-actions.js' */
/** @import { DelegationCards } from './chat/delegation-cards.js' */
/** @import { MessageEditor } from './chat/message-editor.js' */
/** @import { FailureDisplay } from './chat/failure.js' */
import { h, clear } from './dom.js';
import { Composer } from './chat/composer.js';
import { MeterBar } from './chat/meter.js';
import { MessageItems, bubble } from './chat/message-items.js';
import { ReadingPlace } from './chat/reading-place.js';

/**
 * The chat panel, assembled from its parts (web/ui/chat/): the meter above, the message list (each
 * event drawn by message-items.js, the reader's place kept by reading-place.js, the reply streaming
 * drawn here), the composer below. What the first paint never needs loads when first used: the
 * message editor, a failure's alert, the Undo row and the sub-agents' cards (the first view, which
 * paints the chat before the app has loaded, keeps its list of modules short).
 * @param {{controller: ChatViewController, needsSetup: boolean, setupCard: () => HTMLElement, onOpenSettings: () => void,
 *   onConversationChange: (id: string | null) => void, onSaveCode?: (code: string, ext: string) => Promise<string | null>}} props
 *   onSaveCode: saves a code block as a workspace file; resolves to its path, or null when cancelled
 */
export function ChatView({ controller, needsSetup, setupCard, onOpenSettings, onConversationChange, onSaveCode }) {
  // The live region wraps the list, so the list keeps its list semantics (a role on the <ol> would drop them).
  const list = h('ol', { class: 'messages', 'aria-label': 'Messages' });
  const log = h('div', { role: 'log', 'aria-label': 'Conversation', 'aria-live': 'polite' }, list);
  const scroller = h('div', { class: 'scroller' }, log);
  const items = MessageItems({ controller, list, onSaveCode, onEdit: (e) => startEdit(e) });
  const composer = Composer({ controller, needsSetup, onDraft: () => meter.draftChanged() });
  const meter = MeterBar({ controller, draft: () => composer.input.value });
  // One-off notices (storage repaired, changes committed) live outside the transcript, so one
  // arriving late never rebuilds the messages (and loses e.g. a "Run again" output).
  const noticeBar = h('p', { class: 'notice chat-notice', role: 'status', hidden: true });
  const root = h('section', { class: 'chat', 'aria-label': 'Chat' }, meter.bar, ...meter.notices, scroller, noticeBar, composer.form);

  /** @type {HTMLElement | null} */ let streamBody = null;
  /** @type {HTMLElement | null} */ let streamStatus = null;
  /**
   * The stopped reply a continuation streams into, with its text so far.
   * @type {{li: HTMLElement, body: HTMLElement, parts: string[]} | null}
   */
  let joining = null;
  let renderQueued = false;
  /** @type {ChatState | null} */ let last = null;
  let lastEvents = /** @type {readonly ClawserEvent[] | null} */ (null);
  const place = ReadingPlace({ list, scroller });

  /** The message editor, loaded with the first Edit. @type {ReturnType<typeof MessageEditor> | null} */
  let editor = null;
  /** @type {Promise<ReturnType<typeof MessageEditor>> | null} */
  let editorLoaded = null;
  const loadEditor = () =>
    (editorLoaded ??= import('./chat/message-editor.js').then(
      ({ MessageEditor }) =>
        (editor = MessageEditor({ controller, list, redraw: () => renderTranscript(/** @type {ChatState} */ (last)) })),
      (err) => {
        editorLoaded = null; // asked for again with the next Edit
        throw err;
      },
    ));
  /** Turns a sent message's bubble into the editor, focused (not while a reply is written). @param {EventOf<'user_message'>} e */
  const startEdit = (e) =>
    loadEditor().then(
      (ed) => {
        const li = /** @type {HTMLElement | null} */ (list.querySelector(`li[data-event-id="${CSS.escape(e.id)}"]`));
        if (li && !last?.streaming) ed.start(e, li);
      },
      () => {},
    );

  const renderTranscript = (/** @type {ChatState} */ s) => {
    // A conversation opened (or reloaded) shows its latest message; one being read stays put.
    const stick = place.nearBottom() || lastEvents === null || s.activeId !== last?.activeId;
    // The focus was on a control of a message (Regenerate, ‹ ›, Copy…): it comes back to the
    // same control of that message (or of the message now in its place), not to the page's top.
    const wasEditing = editor?.hasFocus() ?? false;
    place.rememberFocus();
    if (s.activeId !== last?.activeId) editor?.drop();
    clear(list);
    if (needsSetup) list.append(h('li', { class: 'setup' }, setupCard()));
    list.append(...items.opening(s));
    const { rules } = controller;
    const retried = rules.retriedAttempts(s.events);
    // A stopped reply and its continuations are one message (Continue extends it).
    const joins = rules.continuedReplies(s.events);
    const stopped = rules.stoppedLastReply(s.events);
    const continuable = rules.joinedInto(joins.joined, stopped) ?? stopped;
    const tries = rules.providerAttemptRuns(s.events);
    for (const e of s.events) {
      if (retried.has(e.id)) continue;
      if (joins.hidden.has(e.id)) {
        const versions = s.versions.get(e.id);
        if (versions) list.append(items.versionsRow(e.id, versions));
        continue;
      }
      const el = items.item(e, s, { continuable: e.id === continuable, tries, joined: joins.joined.get(e.id) });
      if (el) list.append(el);
    }
    // A continuation being written streams into the reply it joins.
    const open = s.streaming && joins.open ? s.events.find((x) => x.id === joins.open) : undefined;
    const into = open ? list.querySelector(`li[data-event-id="${CSS.escape(open.id)}"]`) : null;
    const intoBody = into?.querySelector('.msg-body');
    joining =
      open?.type === 'agent_message' && into instanceof HTMLElement && intoBody instanceof HTMLElement
        ? { li: into, body: intoBody, parts: [open, ...(joins.joined.get(open.id) ?? [])].map((p) => String(p.data.text ?? '')) }
        : null;
    into?.querySelector('.stopped-note')?.remove(); // it is being continued
    // Cards whose call never got a result (the tab closed mid-tool) must not spin forever.
    for (const st of list.querySelectorAll('.tool-state'))
      if (st.textContent === 'running…' && !s.streaming) st.textContent = 'no result recorded';
    if (!needsSetup && s.events.length === 0 && !s.streaming) {
      list.append(h('li', { class: 'empty muted' }, 'Start the conversation: type a message below.'));
    }
    if (editor?.active) editor.redrawn(s, wasEditing);
    else if (!s.streaming) place.restoreFocus();
    place.place(s.focus, stick);
  };

  const renderStreaming = (/** @type {ChatState} */ s) => {
    if (s.streaming && joining?.li.isConnected) {
      const stick = place.nearBottom();
      items.setMarkdown(joining.body, controller.rules.joinReplyText([...joining.parts, s.streaming.text || '']), false);
      let status = joining.li.querySelector('p.status');
      if (!status) joining.li.append((status = h('p', { class: 'small muted status' })));
      status.textContent = s.streaming.status || (s.streaming.text ? '' : 'Thinking…');
      if (stick) place.toBottom();
      return;
    }
    if (!s.streaming) {
      streamBody?.closest('li')?.remove();
      streamBody = null;
      streamStatus = null;
      return;
    }
    const stick = place.nearBottom();
    if (!streamBody || !streamBody.isConnected) {
      const { li, body } = bubble('assistant', 'Assistant', null);
      li.classList.add('streaming');
      streamStatus = h('p', { class: 'small muted status' });
      li.append(streamStatus);
      list.append(li);
      streamBody = body;
    }
    items.setMarkdown(streamBody, s.streaming.text || '', false);
    if (streamStatus) streamStatus.textContent = s.streaming.status || (s.streaming.text ? '' : 'Thinking…');
    if (stick) place.toBottom();
  };

  /** The failure display, loaded with the first failure. @type {ReturnType<typeof FailureDisplay> | null} */
  let failure = null;
  let failureLoading = false;
  let failureNew = false;
  /** @param {ChatState} s @param {boolean} isNew */
  const drawFailure = (s, isNew) => {
    if (failure) return failure.draw(s, isNew);
    failureNew ||= isNew;
    if (!s.failure || failureLoading) return; // none drawn yet, none to draw (or drawn once loaded)
    failureLoading = true;
    import('./chat/failure.js').then(
      ({ FailureDisplay }) => {
        failure = FailureDisplay({ controller, list, input: composer.input, onOpenSettings, toBottom: place.toBottom });
        if (last) failure.draw(last, failureNew);
      },
      () => {
        failureLoading = false;
      },
    );
  };

  /** The sub-agents' live cards, once this conversation has had one. @type {ReturnType<typeof DelegationCards> | null} */
  let cards = null;
  /** @param {ChatState | null} s */
  const drawDelegations = (s) => {
    const board = controller.delegations;
    if (!board || !s) return;
    if (cards) return cards.draw(s);
    if (!board.list().some((d) => d.parentConversationId === s.activeId)) return; // no card drawn yet, none to draw
    import('./chat/delegation-cards.js').then(
      ({ DelegationCards }) => {
        cards ??= DelegationCards({ board, controller, list });
        if (last) cards.draw(last);
      },
      () => {},
    );
  };
  const offDelegations = controller.delegations?.subscribe(() => drawDelegations(last)) ?? (() => {});

  /** Undo and redo of turns (the Undo row, Redo, the conflict dialog), once first needed. @type {ReturnType<typeof TurnActions> | null} */
  let turnActions = null;
  /** @type {Promise<ReturnType<typeof TurnActions>> | null} */
  let turnActionsLoaded = null;
  const loadTurnActions = () =>
    (turnActionsLoaded ??= import('./chat/turn-actions.js').then(({ TurnActions }) => (turnActions = TurnActions({ controller, list }))));
  /** @param {ChatState} s */
  const drawTurnActions = (s) => {
    if (turnActions) return turnActions.draw(s);
    if (!s.undo && !s.redo) return; // no row drawn yet, none to draw
    loadTurnActions().then(
      (t) => {
        if (last) t.draw(last);
      },
      () => {},
    );
  };
  /** Undo a turn, or redo it (the button's, Alt+Z's and the palette's). @param {'undo' | 'redo'} direction */
  const takeBack = (direction) => loadTurnActions().then((t) => t.takeBack(direction));

  const render = (/** @type {ChatState} */ s) => {
    const busy = !!s.streaming;
    log.setAttribute('aria-busy', busy ? 'true' : 'false');
    composer.setBusy(busy);
    let rerendered = false;
    if (s.notice !== last?.notice) {
      noticeBar.textContent = s.notice ?? '';
      noticeBar.hidden = !s.notice;
    }
    if (s.events !== lastEvents || s.hasEarlier !== last?.hasEarlier || !!last?.streaming !== !!s.streaming) {
      lastEvents = s.events;
      streamBody = null;
      renderTranscript(s);
      rerendered = true;
    }
    if (!renderQueued) {
      renderQueued = true;
      requestAnimationFrame(() => {
        renderQueued = false;
        if (last) renderStreaming(last);
      });
    }
    if (rerendered || s.failure !== last?.failure) drawFailure(s, s.failure !== last?.failure);
    if (rerendered) drawDelegations(s);
    if (rerendered || s.undo !== last?.undo || s.redo !== last?.redo || !!s.streaming !== !!last?.streaming) drawTurnActions(s);
    if (s.activeId !== last?.activeId) onConversationChange(s.activeId);
    const meterChanged = s.meter !== last?.meter;
    if (s.attachments !== last?.attachments) composer.showTexts(s.attachments ?? []);
    last = s;
    if (meterChanged) meter.show(s.meter);
  };

  // Alt+Z undoes the latest turn, Alt+Shift+Z redoes it (when no dialog is open).
  /** @param {KeyboardEvent} e */
  const onUndoKey = (e) => {
    if (!e.altKey || e.ctrlKey || e.metaKey || e.code !== 'KeyZ' || !root.isConnected || document.querySelector('dialog[open]')) return;
    e.preventDefault();
    takeBack(e.shiftKey ? 'redo' : 'undo').catch(() => {}); // the controller turns failures into its notice
  };
  document.addEventListener('keydown', onUndoKey);
  // Esc stops a streaming reply, wherever the focus is in the chat — unless a dialog is open (Esc closes that).
  /** @param {KeyboardEvent} e */
  const onKey = (e) => {
    if (e.key !== 'Escape' || e.defaultPrevented || !last?.streaming || !root.isConnected || document.querySelector('dialog[open]')) return;
    // Beside a panel, Esc in the panel (e.g. its editor) is the panel's.
    if (/** @type {HTMLElement | null} */ (e.target)?.closest?.('.split-panel')) return;
    e.preventDefault();
    controller.stop();
  };
  document.addEventListener('keydown', onKey);

  const unsubscribe = controller.subscribe(render);
  if (!needsSetup) queueMicrotask(() => composer.input.focus());
  const destroy = () => {
    unsubscribe();
    offDelegations();
    document.removeEventListener('keydown', onUndoKey);
    place.destroy();
    document.removeEventListener('keydown', onKey);
    composer.destroy();
    meter.destroy();
    items.destroy();
  };
  return {
    root,
    destroy,
    focusComposer: () => composer.input.focus(),
    /** What Alt+Z and Alt+Shift+Z do (for the command palette): conflicts are asked about the same way. */
    undoTurn: () => takeBack('undo'),
    redoTurn: () => takeBack('redo'),
    /**
     * What a sent message's Edit button does (for the command palette): its bubble becomes the
     * editor, focused. Nothing while a reply is written (the button is not there then).
     * @param {string} eventId
     */
    editMessage: (eventId) => {
      const e = last?.events.find((x) => x.id === eventId);
      if (e?.type === 'user_message' && list.querySelector(`li[data-event-id="${CSS.escape(eventId)}"]`) && !last?.streaming) startEdit(e);
    },
  };
}
