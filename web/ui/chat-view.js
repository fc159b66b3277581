/** @import { ClawserEvent, EventOf } from '../agent/types.d.ts' */
/** @import { ChatState, ChatViewController } from './types.d.ts' */
/** @import { TurnActions } from './chat/turn-actions.js' */
/** @import { DelegationCards } from './chat/delegation-cards.js' */
import { h, clear } from './dom.js';
import { Composer } from './chat/composer.js';
import { MeterBar } from './chat/meter.js';
import { MessageItems, bubble } from './chat/message-items.js';

/**
 * The chat panel: the message list (the transcript, the reply streaming, a failure with Retry,
 * the message editor), with the meter above it and the composer below (web/ui/chat/). The Undo
 * row and the sub-agents' cards load when a conversation first has them: the first view, which
 * paints the chat before the app has loaded, never does (its list of modules stays short).
 * @param {{controller: ChatViewController, needsSetup: boolean, setupCard: () => HTMLElement, onOpenSettings: () => void,
 *   onConversationChange: (id: string | null) => void, onSaveCode?: (code: string, ext: string) => Promise<string | null>}} props
 *   onSaveCode: saves a code block as a workspace file; resolves to its path, or null when cancelled
 */
export function ChatView({ controller, needsSetup, setupCard, onOpenSettings, onConversationChange, onSaveCode }) {
  // The live region wraps the list, so the list keeps its list semantics (a role on the <ol> would drop them).
  const list = h('ol', { class: 'messages', 'aria-label': 'Messages' });
  const log = h('div', { role: 'log', 'aria-label': 'Conversation', 'aria-live': 'polite' }, list);
  const scroller = h('div', { class: 'scroller' }, log);
  const items = MessageItems({ controller, list, onSaveCode, onEdit: (e, li) => startEdit(e, li) });
  const composer = Composer({ controller, needsSetup, onDraft: () => meter.draftChanged() });
  const meter = MeterBar({ controller, draft: () => composer.input.value });
  // One-off notices (storage repaired, changes committed) live outside the transcript, so one
  // arriving late never rebuilds the messages (and loses e.g. a "Run again" output).
  const noticeBar = h('p', { class: 'notice chat-notice', role: 'status', hidden: true });
  const root = h('section', { class: 'chat', 'aria-label': 'Chat' }, meter.bar, ...meter.notices, scroller, noticeBar, composer.form);

  /** @type {HTMLElement | null} */ let streamBody = null;
  /** @type {HTMLElement | null} */ let streamStatus = null;
  let renderQueued = false;
  /** @type {ChatState | null} */ let last = null;
  let lastEvents = /** @type {readonly ClawserEvent[] | null} */ (null);

  const nearBottom = () => scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 80;
  // Again after layout: the view may not be in the document yet, or images and code still settling.
  const toBottom = () => {
    if (pinned) return;
    scroller.scrollTop = scroller.scrollHeight;
    requestAnimationFrame(() => {
      if (!pinned) scroller.scrollTop = scroller.scrollHeight;
    });
  };
  /** A message brought into view (a search hit) stays there until the transcript changes. @type {HTMLElement | null} */
  let pinned = null;
  // Content that grows after it is drawn (highlighted code, images, a narrow split pane) keeps
  // the latest message in view while the reader is at the bottom.
  let atBottom = true;
  scroller.addEventListener(
    'scroll',
    () => {
      atBottom = nearBottom();
    },
    { passive: true },
  );
  const grown = new ResizeObserver(() => {
    if (atBottom && !pinned) scroller.scrollTop = scroller.scrollHeight;
  });
  grown.observe(list);

  /**
   * The message being edited and its draft: kept when the transcript is drawn again meanwhile.
   * @type {{eventId: string, draft: string} | null}
   */
  let editing = null;
  /**
   * A message control that had the focus when the transcript was drawn again.
   * @type {{eventId: string | null, index: number, label: string} | null}
   */
  let refocus = null;
  /**
   * Turns a sent message's bubble into an editor; sending the edit makes a new version.
   * @param {EventOf<'user_message'>} e @param {HTMLElement} li @param {boolean} [focus] false: drawn again, the focus was elsewhere
   */
  const startEdit = (e, li, focus = true) => {
    const original = String(e.data.text ?? '');
    const field = /** @type {HTMLTextAreaElement} */ (h('textarea', { class: 'composer-input', 'aria-label': 'Edit message', rows: 3 }));
    const draft = editing?.eventId === e.id ? editing.draft : original;
    field.value = draft;
    const mine = { eventId: e.id, draft };
    editing = mine;
    field.addEventListener('input', () => {
      mine.draft = field.value;
    });
    const restore = () => {
      editing = null;
      renderTranscript(/** @type {ChatState} */ (last));
      // Back on the message's Edit button, not lost at the top of the page.
      /** @type {HTMLElement | null} */ (
        list.querySelector(`li[data-event-id="${CSS.escape(e.id)}"] button[aria-label="Edit this message"]`)
      )?.focus();
    };
    const submitEdit = () => {
      // A message of images alone may be sent again without text (its images stay).
      if (!field.value.trim() && !(Array.isArray(e.data.images) && e.data.images.length)) return;
      editing = null;
      controller.edit(e.id, field.value);
    };
    const editor = h(
      'form',
      { class: 'edit-form', 'aria-label': 'Edit message' },
      field,
      h(
        'div',
        { class: 'row' },
        h('button', { type: 'submit' }, 'Send edited message'),
        h('button', { type: 'button', class: 'secondary', on: { click: restore } }, 'Cancel'),
      ),
      h('p', { class: 'small muted' }, 'The conversation continues from the edited message; the earlier version is kept (‹ › switches).'),
    );
    editor.addEventListener('submit', (ev) => {
      ev.preventDefault();
      submitEdit();
    });
    field.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) {
        ev.preventDefault();
        submitEdit();
      } else if (ev.key === 'Escape') {
        ev.preventDefault();
        ev.stopPropagation();
        restore();
      }
    });
    li.querySelector('.msg-body')?.replaceChildren(editor);
    li.querySelector('.msg-actions')?.remove();
    if (focus) {
      field.focus();
      field.setSelectionRange(field.value.length, field.value.length);
    }
  };

  /**
   * The focus goes back to the control it was on (or its sibling, or the message now in its place).
   * @param {NonNullable<typeof refocus>} want
   */
  const restoreFocus = (want) => {
    // The same message, or for a reply that was regenerated the reply now last in the list.
    const candidates = /** @type {HTMLElement[]} */ (
      [
        want.eventId ? list.querySelector(`li[data-event-id="${CSS.escape(want.eventId)}"]`) : null,
        list.children[want.index],
        [...list.querySelectorAll('li.msg.assistant')].at(-1),
      ].filter(Boolean)
    );
    /** @param {HTMLElement} li */
    const enabled = (li) => /** @type {HTMLElement[]} */ ([...li.querySelectorAll('button')]).filter((b) => !b.hasAttribute('disabled'));
    const same = (/** @type {HTMLElement} */ b) => (b.getAttribute('aria-label') ?? b.textContent ?? '') === want.label;
    const sibling = (/** @type {HTMLElement} */ b) =>
      /^(Previous|Next) version/.test(want.label) && /^(Previous|Next) version/.test(b.getAttribute('aria-label') ?? '');
    const again =
      candidates.map((li) => enabled(li).find(same)).find(Boolean) ??
      candidates.map((li) => enabled(li).find(sibling)).find(Boolean) ??
      (candidates[0] ? enabled(candidates[0])[0] : null) ??
      null;
    if (again) {
      again.focus({ preventScroll: true });
      refocus = null;
    }
  };

  const renderTranscript = (/** @type {ChatState} */ s) => {
    // A conversation opened (or reloaded) shows its latest message; one being read stays put.
    const stick = nearBottom() || lastEvents === null || s.activeId !== last?.activeId;
    // The focus was on a control of a message (Regenerate, ‹ ›, Copy…): it comes back to the
    // same control of that message (or of the message now in its place), not to the page's top.
    const focused = /** @type {HTMLElement | null} */ (document.activeElement);
    const focusedLi = focused && list.contains(focused) && focused.tagName === 'BUTTON' ? focused.closest('li') : null;
    const wasEditing = focused?.getAttribute('aria-label') === 'Edit message' && list.contains(focused);
    // Kept until the control exists again (Regenerate's buttons are hidden while the reply streams).
    if (focusedLi && focused)
      refocus = {
        eventId: focusedLi.getAttribute('data-event-id'),
        index: [...list.children].indexOf(focusedLi),
        label: focused.getAttribute('aria-label') ?? focused.textContent ?? '',
      };
    else if (focused && focused !== document.body && !list.contains(focused)) refocus = null;
    if (s.activeId !== last?.activeId) editing = null;
    clear(list);
    if (needsSetup) list.append(h('li', { class: 'setup' }, setupCard()));
    // A sub-agent's conversation says whose task it is, with the way back.
    const parent = s.conversations.find((c) => c.id === s.activeId)?.parent;
    if (parent) {
      const from = s.conversations.find((c) => c.id === parent.conversationId);
      list.append(
        h(
          'li',
          { class: 'notice small muted sub-agent-of' },
          `Sub-agent @${parent.agent}'s conversation: a task delegated from “${from?.title ?? 'a deleted conversation'}”` +
            `${controller.busy ? ' — it is working here now ' + '(messages can be ' + 'sent once it is done)' : ''}. `,
          from
            ? h(
                'button',
                { type: 'button', class: 'secondary small-btn', on: { click: () => controller.select(parent.conversationId) } },
                'Open the delegating conversation',
              )
            : '',
        ),
      );
    }
    // A fork says which conversation it came from, with the way back while that one exists.
    const forkOf = s.conversations.find((c) => c.id === s.activeId)?.forkOf;
    if (forkOf) {
      const from = s.conversations.find((c) => c.id === forkOf.conversationId);
      list.append(
        h(
          'li',
          { class: 'notice small muted fork-of' },
          `A fork of “${from?.title ?? forkOf.title}”${from ? '' : ' (since deleted)'}: its messages up to the fork, continued here. `,
          from
            ? h(
                'button',
                { type: 'button', class: 'secondary small-btn', on: { click: () => controller.select(forkOf.conversationId) } },
                'Open the original conversation',
              )
            : '',
        ),
      );
    }
    if (s.hasEarlier) {
      list.append(
        h(
          'li',
          { class: 'earlier' },
          h('button', { type: 'button', class: 'secondary', on: { click: () => controller.loadEarlier() } }, 'Show earlier messages'),
        ),
      );
    }
    const { rules } = controller;
    const retried = rules.retriedAttempts(s.events);
    const continuable = rules.stoppedLastReply(s.events);
    const tries = rules.providerAttemptRuns(s.events);
    for (const e of s.events) {
      if (retried.has(e.id)) continue;
      const el = items.item(e, s, { continuable: e.id === continuable, tries });
      if (el) list.append(el);
    }
    // Cards whose call never got a result (the tab closed mid-tool) must not spin forever.
    for (const st of list.querySelectorAll('.tool-state'))
      if (st.textContent === 'running…' && !s.streaming) st.textContent = 'no result recorded';
    if (!needsSetup && s.events.length === 0 && !s.streaming) {
      list.append(h('li', { class: 'empty muted' }, 'Start the conversation: type a message below.'));
    }
    if (editing) {
      const li = /** @type {HTMLElement | null} */ (list.querySelector(`li[data-event-id="${CSS.escape(editing.eventId)}"]`));
      const ev = s.events.find((x) => x.id === editing?.eventId);
      if (li && ev?.type === 'user_message' && !s.streaming) startEdit(ev, li, wasEditing);
      else if (!li || !ev) editing = null;
    } else if (refocus && !s.streaming) restoreFocus(refocus);
    pinned = null;
    if (s.focus) {
      // A search hit: that message, centred and marked, instead of the latest one.
      const target = /** @type {HTMLElement | null} */ (list.querySelector(`li[data-event-id="${CSS.escape(s.focus)}"]`));
      if (target) {
        pinned = target;
        target.classList.add('found');
        target.tabIndex = -1;
        target.scrollIntoView({ block: 'center' });
        target.focus({ preventScroll: true });
        requestAnimationFrame(() => {
          if (pinned === target) target.scrollIntoView({ block: 'center' });
        });
        return;
      }
    }
    if (stick) toBottom();
  };

  const renderStreaming = (/** @type {ChatState} */ s) => {
    if (!s.streaming) {
      streamBody?.closest('li')?.remove();
      streamBody = null;
      streamStatus = null;
      return;
    }
    const stick = nearBottom();
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
    if (stick) toBottom();
  };

  const renderFailure = (/** @type {ChatState} */ s, /** @type {boolean} */ isNew) => {
    // One display per failure: the failed turn's error message carries the actions, or (when
    // nothing was recorded, e.g. no provider configured) a notice of its own does.
    list.querySelector('li.failure:not(.msg)')?.remove();
    for (const el of list.querySelectorAll('li.msg.failure')) {
      el.classList.remove('failure');
      el.querySelector('.msg-body')?.removeAttribute('role');
      el.querySelector('.failure-actions')?.remove();
    }
    if (!s.failure) return;
    const f = s.failure;
    const input = composer.input;
    const actions = h('div', { class: 'row failure-actions' });
    // After self-repair stopped a stuck run, going on is the user's call (the run is watched afresh).
    if (f.selfRepair) actions.append(h('button', { type: 'button', on: { click: () => controller.retry() } }, 'Continue anyway'));
    else
      actions.append(
        h(
          'button',
          {
            type: 'button',
            on: {
              click: () => {
                if (input.value.trim() === f.text.trim()) input.value = '';
                controller.retry();
              },
            },
          },
          'Retry',
        ),
      );
    if (!f.selfRepair && (f.code === 'auth' || f.code === 'client' || f.code === 'cors' || f.code === 'network')) {
      actions.append(h('button', { type: 'button', class: 'secondary', on: { click: onOpenSettings } }, 'Open settings'));
    }
    const lastEvent = s.events.at(-1);
    const recorded =
      lastEvent && (lastEvent.type === 'provider_error' || lastEvent.type === 'stream_error' || lastEvent.type === 'self_repair')
        ? list.querySelector(`li.msg.error[data-event-id="${CSS.escape(lastEvent.id)}"]`)
        : null;
    // The alert is inside the list item: a list holds only list items, for screen readers too.
    if (recorded) {
      recorded.classList.add('failure');
      const body = recorded.querySelector('.msg-body');
      body?.setAttribute('role', 'alert');
      body?.append(actions);
    } else {
      list.append(
        h(
          'li',
          { class: 'failure' },
          h('div', { role: 'alert' }, h('p', null, h('strong', null, 'The reply failed. '), f.message), actions),
        ),
      );
    }
    // The message the user wrote is kept for them to edit or resend.
    if (isNew && !f.resume && !input.value.trim()) input.value = f.text;
    toBottom();
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
    if (rerendered || s.failure !== last?.failure) renderFailure(s, s.failure !== last?.failure);
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
    grown.disconnect();
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
      const li = /** @type {HTMLElement | null} */ (list.querySelector(`li[data-event-id="${CSS.escape(eventId)}"]`));
      if (e?.type === 'user_message' && li && !last?.streaming) startEdit(e, li);
    },
  };
}
