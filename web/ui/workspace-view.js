/** @import { ChatController, ChatState } from '../app/chat-controller.js' */
/** @import { Workspace } from '../app/workspaces.js' */
import { h, clear, formatTime } from './dom.js';

/**
 * The workspace screen: header, conversation list (a drawer on narrow screens) and the
 * chat panel passed in.
 * @param {{workspace: Workspace, controller: ChatController, chat: HTMLElement, side?: HTMLElement, providerLabel: string, onHome: () => void, onSettings: () => void, panels: {label: string, shortcut?: string, current: boolean, onOpen: () => void}[], onSelect: (id: string) => void, onNew: () => void, onRename: (id: string, title: string) => void, onDelete: (id: string, title: string) => void, onExport: (id: string, title: string) => void, onImport: (file: File) => void}} props
 */
export function WorkspaceView(props) {
  const { workspace, controller } = props;
  const convList = h('ul', { class: 'conv-list' });
  const drawerToggle = h('button', { type: 'button', class: 'secondary drawer-toggle', 'aria-expanded': 'false', 'aria-controls': 'conv-drawer' }, 'Conversations');
  const importPicker = /** @type {HTMLInputElement} */ (h('input', { type: 'file', accept: '.jsonl,.json,application/x-ndjson', hidden: true, 'aria-label': 'Choose a conversation file (JSONL) to import' }));
  importPicker.addEventListener('change', () => {
    const file = importPicker.files?.[0];
    importPicker.value = '';
    if (file) props.onImport(file);
  });
  const sidebar = h('nav', { class: 'sidebar', id: 'conv-drawer', 'aria-label': 'Conversations' },
    h('div', { class: 'row' },
      h('button', { type: 'button', class: 'new-conv', on: { click: () => { closeDrawer(); props.onNew(); } } }, 'New conversation'),
      h('button', { type: 'button', class: 'secondary', title: 'Import a conversation exported as JSONL', on: { click: () => importPicker.click() } }, 'Import'),
      importPicker,
    ),
    convList,
  );
  const closeDrawer = () => {
    sidebar.classList.remove('open');
    drawerToggle.setAttribute('aria-expanded', 'false');
  };
  drawerToggle.addEventListener('click', () => {
    const open = !sidebar.classList.contains('open');
    sidebar.classList.toggle('open', open);
    drawerToggle.setAttribute('aria-expanded', String(open));
  });

  const renderList = (/** @type {ChatState} */ s) => {
    clear(convList);
    if (s.conversations.length === 0) convList.append(h('li', { class: 'muted small empty' }, 'No conversations yet.'));
    for (const c of s.conversations) {
      const active = c.id === s.activeId;
      convList.append(
        h('li', { class: `conv-item${active ? ' active' : ''}` },
          h('a', { href: `#workspace/${encodeURIComponent(workspace.id)}/conversation/${encodeURIComponent(c.id)}`, 'aria-current': active ? 'page' : undefined, class: 'conv-open', on: { click: (/** @type {MouseEvent} */ e) => { e.preventDefault(); closeDrawer(); props.onSelect(c.id); } } },
            h('span', { class: 'conv-title' }, c.title),
            h('span', { class: 'small muted' }, formatTime(c.updatedAt)),
          ),
          h('div', { class: 'conv-actions' },
            h('button', { type: 'button', class: 'icon-btn', 'aria-label': `Rename conversation ${c.title}`, title: 'Rename', on: { click: () => props.onRename(c.id, c.title) } }, '✎'),
            h('button', { type: 'button', class: 'icon-btn', 'aria-label': `Export conversation ${c.title}`, title: 'Export', on: { click: () => props.onExport(c.id, c.title) } }, '⤓'),
            h('button', { type: 'button', class: 'icon-btn', 'aria-label': `Delete conversation ${c.title}`, title: 'Delete', on: { click: () => props.onDelete(c.id, c.title) } }, '×'),
          ),
        ),
      );
    }
  };
  const unsubscribe = controller.subscribe(renderList);

  const root = h('div', { class: 'workspace' },
    h('header', { class: 'topbar' },
      h('a', { href: '#home', class: 'home-link', on: { click: (/** @type {MouseEvent} */ e) => { e.preventDefault(); props.onHome(); } } }, h('span', { 'aria-hidden': 'true' }, '‹ '), 'Workspaces'),
      h('h1', { class: 'ws-title' }, workspace.name),
      h('span', { class: 'provider-badge small', title: 'Current provider' }, props.providerLabel),
      drawerToggle,
      h('nav', { class: 'ws-nav', 'aria-label': 'Workspace panels' },
        ...props.panels.map((p) => h('button', { type: 'button', class: 'secondary', 'aria-current': p.current ? 'page' : undefined, 'aria-keyshortcuts': p.shortcut, title: p.shortcut ? `${p.label} (${p.shortcut})` : undefined, on: { click: p.onOpen } }, p.label)),
      ),
      h('button', { type: 'button', class: 'secondary', on: { click: props.onSettings } }, 'Settings'),
    ),
    h('div', { class: 'workspace-body' }, sidebar, h('main', { class: 'panel', id: 'main' }, props.chat), props.side ?? null),
  );
  return { root, destroy: unsubscribe };
}
