/** @import { SetupChoice } from './types.d.ts' */
import { h } from './dom.js';

/**
 * Shown in a workspace with no provider yet: what this machine offers without a key,
 * and the way to add one. A newcomer never faces an empty chat that errors.
 * @param {{choices: SetupChoice[], checking: boolean, onChoose: (choice: {provider: string, model?: string}) => void,
 *   onAddKey: () => void, keyProviders: string[], onSetUp?: (provider: string) => void}} props
 *   choices: the providers that need no key, as found (each `usable` null while it is looked for);
 *   keyProviders: the names of the providers an API key opens, in the registry's order;
 *   onSetUp: opens where a provider not found yet is set up (its `setUpAction` button)
 */
export function FirstRunCard({ choices, checking, onChoose, onAddKey, keyProviders, onSetUp }) {
  const named = keyProviders.slice(0, 5);
  const more = keyProviders.length > named.length ? ' and more.' : '.';
  const choiceOf = (/** @type {SetupChoice} */ c) => ({ provider: c.provider, ...(c.model ? { model: c.model } : {}) });
  /** @param {SetupChoice} c */
  const item = (c) =>
    h(
      'li',
      { class: 'option' },
      h('span', { class: `dot ${c.usable === null ? 'pending' : c.usable ? 'yes' : 'no'}`, 'aria-hidden': 'true' }),
      h('div', null, h('strong', null, c.title), h('p', { class: 'muted small' }, c.detail)),
      c.usable
        ? h('button', { type: 'button', ...(c.test ? { class: 'secondary' } : {}), on: { click: () => onChoose(choiceOf(c)) } }, c.action)
        : c.usable === false && c.setUpAction && onSetUp
          ? h('button', { type: 'button', class: 'secondary', on: { click: () => onSetUp(c.provider) } }, c.setUpAction)
          : null,
    );
  return h(
    'section',
    { class: 'card first-run', 'aria-labelledby': 'fr-title' },
    h('h2', { id: 'fr-title' }, 'Choose how Clawser thinks'),
    h('p', null, 'Pick a model provider for this workspace. These options need no API key on this machine:'),
    h('ul', { class: 'options', 'aria-busy': checking ? 'true' : 'false' }, choices.map(item)),
    h(
      'div',
      { class: 'row' },
      h('button', { type: 'button', on: { click: onAddKey } }, 'Add an API key'),
      h('span', { class: 'muted small' }, `${named.join(', ')}${more}`),
    ),
  );
}
