// The dialog that adds and removes a conversation's tags (the row's More menu, "Tags…"). Loaded
// when first opened: the first view of a workspace never needs it.
import { h } from './dom.js';
import { icon } from './icon.js';

/**
 * A modal <dialog>: the tags as chips, each with a Remove button, and a field (suggesting the
 * workspace's other tags) whose Enter or "Add tag" adds what was typed. `check` says whether a
 * list is acceptable (too many, too long): its problem is shown in the dialog, which stays open.
 * @param {{title: string, tags: string[], suggestions: string[],
 *   check: (tags: string[]) => {ok: true, tags: string[]} | {ok: false, problem: string}}} options
 * @returns {Promise<string[] | null>} the tags to save, or null when cancelled
 */
export function tagsDialog({ title, tags, suggestions, check }) {
  return new Promise((resolve) => {
    let current = [...tags];
    const id = `dlg-${Math.random().toString(36).slice(2)}`;
    const error = h('p', { id: `${id}-error`, class: 'field-error', role: 'alert' });
    const datalist = h('datalist', { id: `${id}-suggestions` });
    const input = h('input', {
      id: `${id}-input`,
      type: 'text',
      list: datalist.id,
      autocomplete: 'off',
      maxLength: 64,
      'aria-describedby': error.id,
    });
    const chips = h('ul', { class: 'tag-chips', 'aria-label': 'Tags' });
    const draw = () => {
      const taken = new Set(current.map((t) => t.toLowerCase()));
      datalist.replaceChildren(...suggestions.filter((s) => !taken.has(s.toLowerCase())).map((s) => h('option', { value: s })));
      chips.replaceChildren(
        ...current.map((tag) =>
          h(
            'li',
            { class: 'tag-chip' },
            h('span', null, tag),
            h(
              'button',
              {
                type: 'button',
                class: 'icon-btn',
                'aria-label': `Remove tag ${tag}`,
                title: 'Remove',
                on: {
                  click: () => {
                    current = current.filter((t) => t !== tag);
                    draw();
                    input.focus();
                  },
                },
              },
              icon('x'),
            ),
          ),
        ),
      );
      if (current.length === 0) chips.append(h('li', { class: 'muted small' }, 'No tags yet.'));
    };
    /** @param {string} problem */
    const refuse = (problem) => {
      error.textContent = problem;
      input.setAttribute('aria-invalid', 'true');
      input.focus();
    };
    const add = () => {
      if (!input.value.trim()) return;
      const next = check([...current, input.value]);
      if (!next.ok) return refuse(next.problem);
      current = next.tags;
      input.value = '';
      draw();
      input.focus();
    };
    input.addEventListener('input', () => {
      error.textContent = '';
      input.removeAttribute('aria-invalid');
    });
    input.addEventListener('keydown', (e) => {
      if (e.key !== 'Enter' || e.isComposing) return;
      // Enter adds what was typed; with the field empty it saves.
      if (!input.value.trim()) return;
      e.preventDefault();
      add();
    });
    const dialog = h(
      'dialog',
      { class: 'dialog tags-dialog', 'aria-labelledby': `${id}-title` },
      h(
        'form',
        { method: 'dialog' },
        h('h2', { id: `${id}-title` }, title),
        chips,
        h('label', { for: input.id }, 'Add a tag'),
        h('div', { class: 'tag-add' }, input, h('button', { type: 'button', class: 'secondary', on: { click: add } }, 'Add tag')),
        datalist,
        error,
        h(
          'div',
          { class: 'dialog-actions' },
          h(
            'button',
            {
              type: 'button',
              class: 'secondary',
              on: { click: () => dialog.close('cancel') },
            },
            'Cancel',
          ),
          h('button', { type: 'submit', value: 'ok' }, 'Save tags'),
        ),
      ),
    );
    dialog.querySelector('form')?.addEventListener('submit', (e) => {
      // What is still typed in the field is added too.
      if (!input.value.trim()) return;
      const next = check([...current, input.value]);
      if (next.ok) {
        current = next.tags;
        return;
      }
      e.preventDefault();
      refuse(next.problem);
    });
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'ok' ? current : null);
      dialog.remove();
    });
    draw();
    document.body.append(dialog);
    dialog.showModal();
    input.focus();
  });
}
