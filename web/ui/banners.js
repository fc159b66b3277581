import { h } from './dom.js';
import { icon } from './icon.js';

/** The strip at the top of the page for app-wide messages (update ready, insecure context, storage). */
export function BannerArea() {
  const root = h('div', { class: 'banners', role: 'region', 'aria-label': 'Notifications' });
  /**
   * @param {string} id
   * @param {string} text
   * @param {{kind?: 'info' | 'warn' | 'error', action?: {label: string, run: () => void}, dismissible?: boolean}} [options]
   */
  const show = (id, text, options = {}) => {
    root.querySelector(`[data-banner="${id}"]`)?.remove();
    const el = h(
      'div',
      { class: `banner ${options.kind ?? 'info'}`, 'data-banner': id, role: options.kind === 'error' ? 'alert' : 'status' },
      h('span', null, text),
    );
    if (options.action) {
      const { label, run } = options.action;
      el.append(h('button', { type: 'button', on: { click: run } }, label));
    }
    if (options.dismissible !== false)
      el.append(h('button', { type: 'button', class: 'secondary', 'aria-label': 'Dismiss', on: { click: () => el.remove() } }, icon('x')));
    root.append(el);
  };
  /** @param {string} id */
  const hide = (id) => root.querySelector(`[data-banner="${id}"]`)?.remove();
  return { root, show, hide };
}
