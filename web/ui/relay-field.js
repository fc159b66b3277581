// "Through my relay": which of the user's machines (the Remote panel's) makes a provider's or an
// MCP server's requests through its wsh relay — for a server that sends no CORS headers — or
// Direct. One field for the Settings dialog's provider, fallbacks and hints and the Servers panel.
import { h } from './dom.js';

/**
 * @param {{id: string, label: string, machines: string[], value?: string, note?: boolean}} props
 *   machines: the names of the user's machines; value: the saved choice (kept even if that machine is gone); note: say what it does
 * @returns {{select: HTMLSelectElement, label: HTMLLabelElement, field: HTMLElement, read: () => string | undefined}}
 */
export function relayField({ id, label, machines, value, note = true }) {
  const gone = value && !machines.includes(value) ? [value] : [];
  const select = /** @type {HTMLSelectElement} */ (
    h(
      'select',
      { id },
      h('option', { value: '' }, 'Direct'),
      ...machines.map((n) => h('option', { value: n }, n)),
      ...gone.map((n) => h('option', { value: n }, `${n} (not in the Remote panel)`)),
    )
  );
  select.value = value ?? '';
  const said = machines.length
    ? "For a server that does not allow this page (CORS): that machine's wsh relay makes the requests " +
      '(start its wsh-server with --relay-allow and this host). It sees each request as sent, its key included.'
    : 'Add a machine in the Remote panel to send requests through its wsh relay (for a server that does not allow this page).';
  const text = note ? h('p', { class: 'muted small', id: `${id}-note` }, said) : null;
  if (text) select.setAttribute('aria-describedby', text.id);
  const labelEl = /** @type {HTMLLabelElement} */ (h('label', { for: id }, label));
  const field = h('div', { class: 'field' }, labelEl, select, text);
  return { select, label: labelEl, field, read: () => select.value || undefined };
}
