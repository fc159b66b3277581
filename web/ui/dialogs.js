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
    const error = h('p', { id: `${inputId}-error`, class: 'field-error', role: 'alert' });
    const input = h('input', {
      id: inputId,
      type: 'text',
      value,
      required: true,
      maxLength: 120,
      autocomplete: 'off',
      'aria-describedby': error.id,
    });
    // Spaces pass `required`: a blank name is refused here, in words, with the dialog kept open.
    input.addEventListener('input', () => {
      error.textContent = '';
      input.removeAttribute('aria-invalid');
    });
    const dialog = h(
      'dialog',
      { class: 'dialog', 'aria-labelledby': titleId },
      h(
        'form',
        { method: 'dialog' },
        h('h2', { id: titleId }, title),
        h('label', { for: inputId }, label),
        input,
        error,
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
    dialog.querySelector('form')?.addEventListener('submit', (e) => {
      if (input.value.trim()) return;
      e.preventDefault();
      error.textContent = `${label} cannot be only spaces: type at least one other character.`;
      input.setAttribute('aria-invalid', 'true');
      input.focus();
    });
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

/** @typedef {Record<string, string | boolean>} FormValues values by field name (text trimmed, checkboxes as booleans) */

/**
 * A modal <dialog> with several labelled fields.
 * `submit`, when given, runs with the dialog still open (its button says `busyLabel`, Cancel and
 * Escape wait): a failure it reports is shown in the dialog, which keeps what was typed and
 * focuses the field named, so the person can correct it and try again; the dialog closes once it succeeds.
 * @param {{title: string, description?: string, fields: FormField[], submitLabel: string, busyLabel?: string,
 *   submit?: (values: FormValues) => Promise<{error: string, field?: string} | null>}} options
 * @returns {Promise<FormValues | null>} the values (those `submit` accepted), or null when cancelled
 */
export function formDialog({ title, description, fields, submitLabel, busyLabel, submit }) {
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
    const failure = h('p', { id: `${titleId}-error`, class: 'field-error', role: 'alert' });
    const cancel = h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        on: { click: (/** @type {Event} */ e) => /** @type {HTMLElement} */ (e.currentTarget).closest('dialog')?.close('cancel') },
      },
      'Cancel',
    );
    const ok = h('button', { type: 'submit', value: 'ok' }, submitLabel);
    const form = h(
      'form',
      { method: 'dialog', 'aria-describedby': failure.id },
      h('h2', { id: titleId }, title),
      description ? h('p', null, description) : null,
      ...inputs.map((x) => x.el),
      failure,
      // Cancel is not a submit button: Enter in a field submits with the first submit button, which must be OK.
      h('div', { class: 'dialog-actions' }, cancel, ok),
    );
    const dialog = h('dialog', { class: 'dialog', 'aria-labelledby': titleId }, form);
    /** @returns {FormValues} */
    const values = () =>
      Object.fromEntries(
        inputs.map(({ f, input }) => [
          f.name,
          f.type === 'checkbox' && input instanceof HTMLInputElement ? input.checked : input.value.trim(),
        ]),
      );
    let busy = false;
    /** @type {FormValues | null} */
    let accepted = null;
    if (submit) {
      form.addEventListener('submit', async (e) => {
        e.preventDefault();
        if (busy) return;
        busy = true;
        failure.textContent = '';
        for (const { input } of inputs) input.removeAttribute('aria-invalid');
        Object.assign(ok, { disabled: true, textContent: busyLabel ?? submitLabel });
        cancel.disabled = true;
        form.setAttribute('aria-busy', 'true');
        const v = values();
        /** @type {{error: string, field?: string} | null} */
        let outcome;
        try {
          outcome = await submit(v);
        } catch (err) {
          outcome = { error: /** @type {Error} */ (err)?.message ?? String(err) };
        }
        busy = false;
        Object.assign(ok, { disabled: false, textContent: submitLabel });
        cancel.disabled = false;
        form.removeAttribute('aria-busy');
        if (!outcome) {
          accepted = v;
          dialog.close('ok');
          return;
        }
        failure.textContent = outcome.error;
        const at = inputs.find((x) => x.f.name === outcome.field)?.input;
        at?.setAttribute('aria-invalid', 'true');
        (at ?? ok).focus();
      });
      // Escape waits while it runs (what it does cannot be taken back half-way).
      dialog.addEventListener('cancel', (e) => {
        if (busy) e.preventDefault();
      });
    }
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue !== 'ok' ? null : submit ? accepted : values());
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
