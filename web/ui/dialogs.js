import { h } from './dom.js';

/**
 * A modal <dialog> asking to confirm a destructive action.
 * @param {{title: string, message: string, confirmLabel: string, items?: string[]}} options items: listed under the message
 * @returns {Promise<boolean>}
 */
export function confirmDialog({ title, message, confirmLabel, items }) {
  return choiceDialog({
    title,
    message,
    ...(items ? { items } : {}),
    choices: [{ value: 'confirm', label: confirmLabel, danger: true }],
  }).then((v) => v === 'confirm');
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
    const dialog = h(
      'dialog',
      { class: 'dialog', 'aria-labelledby': titleId },
      h(
        'form',
        { method: 'dialog' },
        h('h2', { id: titleId }, title),
        h('label', { for: inputId }, label),
        input,
        h(
          'div',
          { class: 'dialog-actions' },
          // Not a submit button: Enter in a field submits with the first submit button, which must be OK.
          h(
            'button',
            {
              type: 'button',
              class: 'secondary',
              on: { click: (/** @type {Event} */ e) => /** @type {HTMLElement} */ (e.currentTarget).closest('dialog')?.close('cancel') },
            },
            'Cancel',
          ),
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

/**
 * @typedef {{name: string, label: string, type?: 'text' | 'url' | 'password' | 'checkbox', value?: string, checked?: boolean,
 *   required?: boolean, placeholder?: string, hint?: string, multiline?: boolean, options?: string[]}} FormField
 */

/**
 * A modal <dialog> with several labelled fields.
 * @param {{title: string, description?: string, fields: FormField[], submitLabel: string}} options
 * @returns {Promise<Record<string, string | boolean> | null>} values by field name (checkboxes as booleans), or null when cancelled
 */
export function formDialog({ title, description, fields, submitLabel }) {
  return new Promise((resolve) => {
    const titleId = `dlg-${Math.random().toString(36).slice(2)}`;
    const inputs = fields.map((f, i) => {
      const id = `${titleId}-${i}`;
      const common = {
        id,
        name: f.name,
        required: f.required,
        placeholder: f.placeholder,
        'aria-describedby': f.hint ? `${id}-hint` : undefined,
      };
      const input = f.options
        ? h('select', common, ...f.options.map((o) => h('option', { value: o, selected: o === f.value }, o)))
        : f.multiline
          ? h('textarea', { ...common, rows: 4, value: f.value ?? '' })
          : h('input', {
              ...common,
              type: f.type ?? 'text',
              value: f.type === 'checkbox' ? undefined : (f.value ?? ''),
              checked: f.checked,
              autocomplete: 'off',
            });
      const hint = f.hint ? h('p', { id: `${id}-hint`, class: 'small muted' }, f.hint) : null;
      const row =
        f.type === 'checkbox'
          ? h('div', { class: 'row' }, input, h('label', { for: id }, f.label))
          : h('div', { class: 'field' }, h('label', { for: id }, f.label), input);
      return { f, input, el: h('div', null, row, hint) };
    });
    const dialog = h(
      'dialog',
      { class: 'dialog', 'aria-labelledby': titleId },
      h(
        'form',
        { method: 'dialog' },
        h('h2', { id: titleId }, title),
        description ? h('p', null, description) : null,
        ...inputs.map((x) => x.el),
        h(
          'div',
          { class: 'dialog-actions' },
          // Not a submit button: Enter in a field submits with the first submit button, which must be OK.
          h(
            'button',
            {
              type: 'button',
              class: 'secondary',
              on: { click: (/** @type {Event} */ e) => /** @type {HTMLElement} */ (e.currentTarget).closest('dialog')?.close('cancel') },
            },
            'Cancel',
          ),
          h('button', { type: 'submit', value: 'ok' }, submitLabel),
        ),
      ),
    );
    dialog.addEventListener('close', () => {
      resolve(
        dialog.returnValue === 'ok'
          ? Object.fromEntries(
              inputs.map(({ f, input }) => [
                f.name,
                f.type === 'checkbox' && input instanceof HTMLInputElement ? input.checked : input.value.trim(),
              ]),
            )
          : null,
      );
      dialog.remove();
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

/**
 * The list of keyboard shortcuts, as a modal dialog (opened with "?").
 * @param {{keys: string, action: string}[]} rows
 * @returns {Promise<void>} when closed
 */
export function shortcutsDialog(rows) {
  return new Promise((resolve) => {
    const titleId = `dlg-${Math.random().toString(36).slice(2)}`;
    const dialog = h(
      'dialog',
      { class: 'dialog', 'aria-labelledby': titleId },
      h(
        'form',
        { method: 'dialog' },
        h('h2', { id: titleId }, 'Keyboard shortcuts'),
        h(
          'table',
          { class: 'shortcuts' },
          h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Keys'), h('th', { scope: 'col' }, 'Action'))),
          h(
            'tbody',
            null,
            ...rows.map((r) =>
              h(
                'tr',
                null,
                h('td', null, ...r.keys.split('+').flatMap((k, i) => (i ? ['+', h('kbd', null, k)] : [h('kbd', null, k)]))),
                h('td', null, r.action),
              ),
            ),
          ),
        ),
        h('div', { class: 'dialog-actions' }, h('button', { type: 'submit', value: 'ok' }, 'Close')),
      ),
    );
    dialog.addEventListener('close', () => {
      dialog.remove();
      resolve();
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

/**
 * A modal <dialog> offering a choice between actions (Cancel, Esc: null).
 * @template {string} V
 * @param {{title: string, message: string, items?: string[], choices: {value: V, label: string, danger?: boolean}[]}} options
 * @returns {Promise<V | null>}
 */
export function choiceDialog({ title, message, items, choices }) {
  return new Promise((resolve) => {
    const titleId = `dlg-${Math.random().toString(36).slice(2)}`;
    const dialog = h(
      'dialog',
      { class: 'dialog', 'aria-labelledby': titleId },
      h(
        'form',
        { method: 'dialog' },
        h('h2', { id: titleId }, title),
        h('p', null, message),
        items?.length ? h('ul', null, ...items.map((i) => h('li', null, i))) : null,
        h(
          'div',
          { class: 'dialog-actions' },
          h('button', { type: 'submit', value: '', class: 'secondary' }, 'Cancel'),
          ...choices.map((c) => h('button', { type: 'submit', value: c.value, class: c.danger ? 'danger' : '' }, c.label)),
        ),
      ),
    );
    dialog.addEventListener('close', () => {
      const picked = choices.find((c) => c.value === dialog.returnValue);
      resolve(picked ? picked.value : null);
      dialog.remove();
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}
