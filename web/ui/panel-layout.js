import { h } from './dom.js';

/**
 * The one layout of every workspace panel (docs/design.md): a section with the page's padding
 * (`--panel-pad`) that scrolls within itself, a header — "Back to chat", the panel's title as its
 * heading, the panel's own header actions —, an optional toolbar (the panel's main actions), then
 * its content. A panel builds its root with this, so it cannot forget its padding or its way back;
 * tests/browser/panel-layout.test.mjs opens every registered panel and checks the structure.
 *
 * @param {{name: string, title: string, onBack: () => void, actions?: (Node | string | null | false | undefined)[],
 *   toolbar?: (Node | string | null | false | undefined)[], class?: string}} props
 *   name: the panel's route name (its root's class is `<name>-panel`); actions: beside the title;
 *   toolbar: a row of the panel's main actions under the header; class: more classes of the root
 * @param {...(Node | string | null | false | undefined | (Node | string | null | false | undefined)[])} content
 * @returns {HTMLElement}
 */
export function panelLayout(props, ...content) {
  const titleId = `${props.name}-panel-title`;
  const header = h(
    'header',
    { class: 'panel-header' },
    h('button', { type: 'button', class: 'secondary panel-back', on: { click: props.onBack } }, 'Back to chat'),
    h('h2', { id: titleId, class: 'panel-title' }, props.title),
    props.actions?.some(Boolean) ? h('div', { class: 'panel-actions' }, ...(props.actions ?? [])) : null,
  );
  const toolbar = props.toolbar?.some(Boolean) ? h('div', { class: 'panel-toolbar' }, ...(props.toolbar ?? [])) : null;
  return h(
    'section',
    {
      class: `panel-layout ${props.name}-panel${props.class ? ` ${props.class}` : ''}`,
      'aria-labelledby': titleId,
      'data-panel': props.name,
    },
    header,
    toolbar,
    ...content,
  );
}

/**
 * What a panel shows when it has nothing yet: one sentence saying what would be here and how to
 * add it, and optionally the action that does. A list item when it stands in a list.
 * @param {string} text
 * @param {{tag?: 'p' | 'li' | 'div', action?: Node | null}} [options]
 */
export function emptyState(text, options = {}) {
  return h(options.tag ?? 'p', { class: 'empty-state' }, text, options.action ?? null);
}
