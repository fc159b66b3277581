/** @import { CompanionControl, CompanionStatusView } from './types.d.ts' */
import { h } from './dom.js';

/** What the tab tools may do, in words, once the extension answers. */
const MAY =
  'When you allow each call (or choose “Always allow” for a tool above), the agent may list your tabs, read their pages, take ' +
  'their screenshots, load an address in a tab, click and type in pages (never into password fields), open tabs and close the ' +
  'ones it opened — on http and https pages only, never on Clawser itself, and never on the sites you deny below. What it reads ' +
  'there is treated as untrusted content.';

/** A list field's words as a list: split at commas, spaces and new lines. @param {string} text */
const listOf = (text) =>
  text
    .split(/[\s,]+/)
    .map((d) => d.trim())
    .filter(Boolean);

/**
 * The Tools panel's section for the companion extension (the browser's other tabs): whether it is
 * installed and connected and what it may do, "Check again", and the sites the tab tools may and
 * may not use, with the extension's id for a copy published under another.
 * @param {CompanionControl} props
 */
export function CompanionSection(props) {
  const state = h('p', { id: 'companion-state', role: 'status' }, 'Checking for the companion extension…');
  const detail = h('p', { id: 'companion-detail', class: 'small muted' });
  /** @param {CompanionStatusView} s */
  const show = (s) => {
    if (s.state === 'connected') {
      state.textContent = `Connected: the Clawser companion extension ${s.version} is installed and answers.`;
      detail.textContent = `${MAY} Extension id ${s.id}; it answers Clawser at ${s.clawserOrigins.join(', ')}.`;
    } else if (s.state === 'missing') {
      state.textContent = 'Not installed: the tab tools cannot reach your other tabs.';
      detail.textContent = s.message;
    } else {
      state.textContent = 'Installed, but it did not answer as expected.';
      detail.textContent = `${s.message} (extension id ${s.id})`;
    }
  };
  const check = () => {
    state.textContent = 'Checking for the companion extension…';
    detail.textContent = '';
    props.status().then(show, (err) => show({ state: 'error', id: '', message: String(/** @type {Error} */ (err)?.message ?? err) }));
  };
  const again = h('button', { type: 'button', class: 'secondary', on: { click: check } }, 'Check again');
  const allow = /** @type {HTMLInputElement} */ (
    h('input', {
      id: 'tab-sites-allow',
      type: 'text',
      value: props.lists.tabSitesAllow.join(', '),
      placeholder: 'empty: any site not denied · e.g. wikipedia.org, news.example.com',
      'aria-describedby': 'tab-sites-note',
    })
  );
  const deny = /** @type {HTMLInputElement} */ (
    h('input', {
      id: 'tab-sites-deny',
      type: 'text',
      value: props.lists.tabSitesDeny.join(', '),
      placeholder: 'e.g. mybank.com, mail.example.com',
      'aria-describedby': 'tab-sites-note',
    })
  );
  const id = /** @type {HTMLInputElement} */ (
    h('input', {
      id: 'companion-id',
      type: 'text',
      value: props.lists.companionId,
      placeholder: 'empty: the id of the repository’s extension',
      autocomplete: 'off',
      spellcheck: false,
      pattern: '[a-p]{32}',
    })
  );
  const saved = h('p', { role: 'status', class: 'small' });
  const form = h(
    'form',
    null,
    h('div', { class: 'field' }, h('label', { for: 'tab-sites-allow' }, 'Sites the agent may use in other tabs'), allow),
    h('div', { class: 'field' }, h('label', { for: 'tab-sites-deny' }, 'Sites the agent may never read or act on'), deny),
    h(
      'p',
      { id: 'tab-sites-note', class: 'small muted' },
      'Each site covers its subdomains. A denied site wins over the allowed ones; its tabs are not even listed to the agent.',
    ),
    h('div', { class: 'field' }, h('label', { for: 'companion-id' }, 'Extension id (only for a copy published under its own id)'), id),
    h('div', { class: 'row' }, h('button', { type: 'submit' }, 'Save tab settings')),
    saved,
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!id.checkValidity()) {
      saved.textContent = 'An extension id is 32 letters from a to p (chrome://extensions shows it).';
      id.focus();
      return;
    }
    try {
      await props.onSave({ tabSitesAllow: listOf(allow.value), tabSitesDeny: listOf(deny.value), companionId: id.value.trim() });
      saved.textContent = 'Saved.';
    } catch (err) {
      saved.textContent = `Could not save: ${/** @type {Error} */ (err).message}`;
    }
  });
  check();
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'companion-title' },
    h('h3', { id: 'companion-title' }, 'Other tabs (companion extension)'),
    h('div', { class: 'row spread' }, state, again),
    detail,
    form,
  );
}
