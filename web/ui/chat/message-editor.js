/** @import { EventOf } from '../../agent/types.d.ts' */
/** @import { ChatState, ChatViewController } from '../types.d.ts' */
import { h } from '../dom.js';

// Why a module of its own: editing a sent message is a small flow of its own (a draft that must
// survive the transcript being drawn again, Cancel and Esc back to the Edit button, sending makes
// a new version), and the chat loads it with the first Edit: the first paint never needs it.

/**
 * The editor of a sent message: its bubble becomes a form; sending the edit makes a new version
 * (the conversation continues from it), Cancel or Esc puts the message back. The message being
 * edited and its draft are kept when the transcript is drawn again meanwhile.
 * @param {{controller: Pick<ChatViewController, 'edit'>, list: HTMLElement, redraw: () => void}} props
 *   list: the message list; redraw: draws the transcript again (Cancel puts the message back)
 */
export function MessageEditor({ controller, list, redraw }) {
  /**
   * The message being edited and its draft.
   * @type {{eventId: string, draft: string} | null}
   */
  let editing = null;

  /**
   * Turns a sent message's bubble into the editor.
   * @param {EventOf<'user_message'>} e @param {HTMLElement} li @param {boolean} [focus] false: drawn again, the focus was elsewhere
   */
  const start = (e, li, focus = true) => {
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
      redraw();
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

  return {
    start,
    /** Whether a message is being edited. */
    get active() {
      return editing !== null;
    },
    /** Before the transcript is drawn again: whether the editor's field has the focus. */
    hasFocus: () => {
      const focused = document.activeElement;
      return focused?.getAttribute('aria-label') === 'Edit message' && list.contains(focused);
    },
    /** Another conversation is shown: its draft goes. */
    drop: () => {
      editing = null;
    },
    /**
     * After the transcript is drawn again: the editor is back on its message, with its draft (not
     * while a reply streams); it goes when the message is no longer shown.
     * @param {ChatState} s @param {boolean} focus whether the editor had the focus before
     */
    redrawn: (s, focus) => {
      if (!editing) return;
      const { eventId } = editing;
      const li = /** @type {HTMLElement | null} */ (list.querySelector(`li[data-event-id="${CSS.escape(eventId)}"]`));
      const ev = s.events.find((x) => x.id === eventId);
      if (li && ev?.type === 'user_message' && !s.streaming) start(ev, li, focus);
      else if (!li || !ev) editing = null;
    },
  };
}
