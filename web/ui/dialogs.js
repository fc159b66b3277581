import { h } from './dom.js';

/**
 * A modal <dialog> asking to confirm a destructive action.
 * @param {{title: string, message: string, confirmLabel: string}} options
 * @returns {Promise<boolean>}
 */
export function confirmDialog({ title, message, confirmLabel }) {
  return new Promise((resolve) => {
    const titleId = `dlg-${Math.random().toString(36).slice(2)}`;
    const dialog = h('dialog', { class: 'dialog', 'aria-labelledby': titleId },
      h('form', { method: 'dialog' },
        h('h2', { id: titleId }, title),
        h('p', null, message),
        h('div', { class: 'dialog-actions' },
          h('button', { type: 'submit', value: 'cancel', class: 'secondary' }, 'Cancel'),
          h('button', { type: 'submit', value: 'confirm', class: 'danger' }, confirmLabel),
        ),
      ),
    );
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'confirm');
      dialog.remove();
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

/**
 * A modal <dialog> with one labelled text field.
 * @param {{title: string, label: string, value?: string, submitLabel: string}} options
 * @returns {Promise<string | null>} the trimmed value, or null when cancelled
 */
export function promptDialog({ title, label, value = '', submitLabel }) {
  return new Promise((resolve) => {
    const titleId = `dlg-${Math.random().toString(36).slice(2)}`;
    const inputId = `${titleId}-input`;
    const input = h('input', { id: inputId, type: 'text', value, required: true, maxLength: 120, autocomplete: 'off' });
    const dialog = h('dialog', { class: 'dialog', 'aria-labelledby': titleId },
      h('form', { method: 'dialog' },
        h('h2', { id: titleId }, title),
        h('label', { for: inputId }, label),
        input,
        h('div', { class: 'dialog-actions' },
          h('button', { type: 'submit', value: 'cancel', class: 'secondary', formNoValidate: true }, 'Cancel'),
          h('button', { type: 'submit', value: 'ok' }, submitLabel),
        ),
      ),
    );
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'ok' && input.value.trim() ? input.value.trim() : null);
      dialog.remove();
    });
    document.body.append(dialog);
    dialog.showModal();
    input.select();
  });
}
