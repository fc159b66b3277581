/** @import { Workspace } from '../app/workspaces.js' */
import { h, formatTime } from './dom.js';

/**
 * The home screen: the list of workspaces.
 * @param {{workspaces: Workspace[], onOpen: (id: string) => void, onCreate: () => void, onRename: (w: Workspace) => void, onDelete: (w: Workspace) => void}} props
 */
export function HomeView({ workspaces, onOpen, onCreate, onRename, onDelete }) {
  return h('main', { class: 'home', id: 'main' },
    h('header', { class: 'home-header' },
      h('img', { src: './icons/icon-192.png', alt: '', width: 48, height: 48 }),
      h('div', null,
        h('h1', null, 'Clawser'),
        h('p', { class: 'muted' }, 'Your AI agent workspace — everything stays in this browser.'),
      ),
    ),
    h('section', { 'aria-labelledby': 'ws-heading', class: 'card' },
      h('div', { class: 'row spread' },
        h('h2', { id: 'ws-heading' }, 'Workspaces'),
        h('button', { type: 'button', on: { click: onCreate } }, 'New workspace'),
      ),
      workspaces.length === 0
        ? h('p', { class: 'muted' }, 'No workspaces yet.')
        : h('ul', { class: 'ws-list' },
            workspaces.map((w) =>
              h('li', { class: 'ws-item' },
                h('a', { href: `#workspace/${encodeURIComponent(w.id)}`, class: 'ws-open', on: { click: (/** @type {MouseEvent} */ e) => { e.preventDefault(); onOpen(w.id); } } },
                  h('span', { class: 'ws-name' }, w.name),
                  h('span', { class: 'muted small' }, `Created ${formatTime(w.createdAt)}`),
                ),
                h('button', { type: 'button', class: 'secondary', 'aria-label': `Rename workspace ${w.name}`, on: { click: () => onRename(w) } }, 'Rename'),
                h('button', { type: 'button', class: 'secondary danger-text', 'aria-label': `Delete workspace ${w.name}`, on: { click: () => onDelete(w) } }, 'Delete'),
              ),
            ),
          ),
    ),
  );
}
