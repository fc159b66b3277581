/** @import { ChatState, ChatStateSource, WorkspaceSummary } from './types.d.ts' */
/** @import { SearchHit } from '../agent/conversation/conversation-search.js' */
import { h, clear, formatTime } from './dom.js';
import { icon } from './icon.js';

/**
 * The workspace screen: a compact top bar, the panel navigation (a labelled icon rail on wide
 * screens, collapsible and remembered; a drawer behind the Menu button on phones), the
 * conversation list (a drawer on phones) and the panel passed in.
 * @param {{workspace: WorkspaceSummary, controller: ChatStateSource, chat: HTMLElement, side?: HTMLElement, providerLabel: string, onHome:
 *   () => void, onSettings: () => void, onPalette: () => void, paletteKeys: string,
 *   split?: {on: boolean, onToggle: () => void},
 *   panels: {label: string, icon: string, shortcut?: string, current: boolean, onOpen: () => void}[], railCollapsed: boolean, onRailToggle:
 *   (collapsed: boolean) => void,
 *   onSearch: (query: string) => Promise<SearchHit[]>, onOpenHit: (hit: SearchHit) => void,
 *   onSelect: (id: string) => void, onNew: () => void, onRename: (id: string, title: string) => void, onDelete: (id: string, title: string)
 *   => void, onExport: (id: string, title: string) => void, onImport: (file: File) => void}} props
 *   panels: Chat first, in the navigation's order; split: the panel on screen can show beside the chat (wide screens);
 *   paletteKeys: the command palette's keys as this keyboard writes them (⌘K, Ctrl+K)
 */
export function WorkspaceView(props) {
  const { workspace, controller } = props;
  const convList = h('ul', { class: 'conv-list' });
  const drawerToggle = h(
    'button',
    {
      type: 'button',
      class: 'secondary drawer-toggle icon-only',
      'aria-expanded': 'false',
      'aria-controls': 'conv-drawer',
      title: 'Conversations',
    },
    icon('messages-square'),
    h('span', { class: 'sr-only' }, 'Conversations'),
  );
  const menuToggle = h(
    'button',
    {
      type: 'button',
      class: 'secondary menu-toggle icon-only',
      'aria-expanded': 'false',
      'aria-controls': 'ws-rail',
      title: 'Menu: panels and workspaces',
    },
    icon('menu'),
    h('span', { class: 'sr-only' }, 'Menu'),
  );
  let collapsed = props.railCollapsed;
  const railToggle = h(
    'button',
    {
      type: 'button',
      class: 'icon-btn rail-toggle',
      'aria-expanded': String(!collapsed),
      'aria-controls': 'ws-rail',
      'aria-label': 'Show panel names',
      title: 'Show or hide the panel names',
    },
    icon(collapsed ? 'panel-left-open' : 'panel-left-close'),
  );
  const rail = h(
    'nav',
    { class: 'ws-rail', id: 'ws-rail', 'aria-label': 'Workspace panels' },
    h(
      'a',
      {
        href: '#home',
        class: 'home-link rail-only-narrow',
        on: {
          click: (/** @type {MouseEvent} */ e) => {
            e.preventDefault();
            props.onHome();
          },
        },
      },
      icon('chevron-left'),
      'All workspaces',
    ),
    // The same badge as the top bar's (hidden on phones), drawn by CSS from the attribute so the
    // page holds the provider's name as text once.
    h('span', {
      class: 'provider-badge small rail-only-narrow provider-copy',
      title: 'Current provider',
      'data-provider': props.providerLabel,
    }),
    h(
      'ul',
      { class: 'rail-list' },
      ...props.panels.map((p) =>
        h(
          'li',
          null,
          h(
            'button',
            {
              type: 'button',
              class: 'rail-btn',
              'aria-current': p.current ? 'page' : undefined,
              'aria-keyshortcuts': p.shortcut,
              title: p.shortcut ? `${p.label} (${p.shortcut})` : p.label,
              on: {
                click: () => {
                  closeMenu();
                  p.onOpen();
                },
              },
            },
            icon(p.icon, 'rail-icon'),
            h('span', { class: 'rail-label' }, p.label),
          ),
        ),
      ),
    ),
    railToggle,
  );
  const root = h('div', { class: `workspace${collapsed ? ' rail-collapsed' : ''}` });
  /** Folds the rail to icons, or unfolds it to icons and names (its button, and the command palette). */
  const toggleRail = () => {
    collapsed = !collapsed;
    root.classList.toggle('rail-collapsed', collapsed);
    railToggle.setAttribute('aria-expanded', String(!collapsed));
    railToggle.replaceChildren(icon(collapsed ? 'panel-left-open' : 'panel-left-close'));
    props.onRailToggle(collapsed);
  };
  railToggle.addEventListener('click', toggleRail);
  /**
   * Opens or closes a phone drawer (the menu or the conversations) and says so on its button.
   * @param {HTMLElement} drawer
   * @param {HTMLElement} toggle
   * @param {boolean} open
   */
  const setDrawer = (drawer, toggle, open) => {
    drawer.classList.toggle('open', open);
    toggle.setAttribute('aria-expanded', String(open));
  };
  const closeMenu = () => setDrawer(rail, menuToggle, false);
  menuToggle.addEventListener('click', () => {
    const open = !rail.classList.contains('open');
    setDrawer(rail, menuToggle, open);
    if (open) closeDrawer();
  });
  rail.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && rail.classList.contains('open')) {
      closeMenu();
      menuToggle.focus();
    }
  });
  const importPicker = /** @type {HTMLInputElement} */ (
    h('input', {
      type: 'file',
      accept: '.jsonl,.json,application/x-ndjson',
      hidden: true,
      'aria-label': 'Choose a conversation file (JSONL) to import',
    })
  );
  importPicker.addEventListener('change', () => {
    const file = importPicker.files?.[0];
    importPicker.value = '';
    if (file) props.onImport(file);
  });
  // Search across every conversation: typing replaces the list with ranked hits.
  const searchBox = /** @type {HTMLInputElement} */ (
    h('input', {
      type: 'search',
      class: 'conv-search',
      'aria-label': 'Search conversations',
      placeholder: 'Search conversations…',
      autocomplete: 'off',
      'aria-controls': 'conv-results',
    })
  );
  const results = h('ul', { class: 'search-results', id: 'conv-results', 'aria-label': 'Search results', hidden: true });
  const searchStatus = h('p', { class: 'small muted', role: 'status', 'aria-live': 'polite' });
  let searchSeq = 0;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let searchTimer;
  /** @param {SearchHit['snippet']} snippet */
  const marked = (snippet) => {
    const out = h('span', { class: 'small' });
    let at = 0;
    for (const [a, b] of snippet.marks) {
      if (a < at) continue;
      out.append(snippet.text.slice(at, a), h('mark', null, snippet.text.slice(a, b)));
      at = b;
    }
    out.append(snippet.text.slice(at));
    return out;
  };
  const runSearch = async () => {
    const query = searchBox.value.trim();
    const seq = ++searchSeq;
    if (!query) {
      results.hidden = true;
      convList.hidden = false;
      searchStatus.textContent = '';
      return;
    }
    searchStatus.textContent = 'Searching…';
    let hits;
    try {
      hits = await props.onSearch(query);
    } catch (err) {
      if (seq === searchSeq) searchStatus.textContent = `Search failed: ${/** @type {Error} */ (err).message}`;
      return;
    }
    if (seq !== searchSeq) return; // a newer query is on its way
    clear(results);
    for (const hit of hits) {
      const who = hit.role === 'title' ? 'Title' : hit.role === 'user' ? 'You' : 'Assistant';
      results.append(
        h(
          'li',
          null,
          h(
            'button',
            {
              type: 'button',
              class: 'search-hit',
              on: {
                click: () => {
                  closeDrawer();
                  props.onOpenHit(hit);
                },
              },
            },
            h('span', { class: 'hit-title' }, hit.title),
            h('span', { class: 'small muted' }, hit.role === 'title' ? who : `${who} · ${formatTime(hit.timestamp)}`),
            marked(hit.snippet),
          ),
        ),
      );
    }
    results.hidden = false;
    convList.hidden = true;
    searchStatus.textContent = hits.length ? `${hits.length} result${hits.length === 1 ? '' : 's'}` : 'No message matches.';
  };
  searchBox.addEventListener('input', () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(runSearch, 150);
  });
  searchBox.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') {
      clearTimeout(searchTimer);
      runSearch();
    } else if (e.key === 'ArrowDown') {
      e.preventDefault();
      /** @type {HTMLElement | null} */ (results.querySelector('button'))?.focus();
    }
  });
  const sidebar = h(
    'nav',
    { class: 'sidebar', id: 'conv-drawer', 'aria-label': 'Conversations' },
    h(
      'div',
      { class: 'row' },
      h(
        'button',
        {
          type: 'button',
          class: 'new-conv',
          on: {
            click: () => {
              closeDrawer();
              props.onNew();
            },
          },
        },
        'New conversation',
      ),
      h(
        'button',
        { type: 'button', class: 'secondary', title: 'Import a conversation exported as JSONL', on: { click: () => importPicker.click() } },
        'Import',
      ),
      importPicker,
    ),
    searchBox,
    searchStatus,
    results,
    convList,
  );
  const closeDrawer = () => setDrawer(sidebar, drawerToggle, false);
  drawerToggle.addEventListener('click', () => {
    const open = !sidebar.classList.contains('open');
    setDrawer(sidebar, drawerToggle, open);
    if (open) closeMenu();
  });

  // A long list is drawn a page at a time (more as it scrolls into view): opening a workspace
  // with a thousand conversations costs what opening one with a hundred does. The palette and the
  // search reach every conversation.
  const PAGE = 100;
  let shownCount = PAGE;
  /** @type {ChatState | null} */
  let drawn = null;
  let drawnCount = 0;
  /** @type {IntersectionObserver | null} */
  let moreObserver = null;
  const showMore = () => {
    shownCount += PAGE * 2;
    if (drawn) renderList(drawn, true);
  };
  const renderList = (/** @type {ChatState} */ s, force = false) => {
    // The list changes with the conversations, not with each streamed word.
    if (!force && drawn && s.conversations === drawn.conversations && s.activeId === drawn.activeId && drawnCount === shownCount) return;
    drawn = s;
    drawnCount = shownCount;
    const activeAt = s.conversations.findIndex((c) => c.id === s.activeId);
    if (activeAt >= shownCount) shownCount = drawnCount = activeAt + 1;
    moreObserver?.disconnect();
    clear(convList);
    if (s.conversations.length === 0) convList.append(h('li', { class: 'muted small empty' }, 'No conversations yet.'));
    for (const c of s.conversations.slice(0, shownCount)) {
      const active = c.id === s.activeId;
      convList.append(
        h(
          'li',
          { class: `conv-item${active ? ' active' : ''}` },
          h(
            'a',
            {
              href: `#workspace/${encodeURIComponent(workspace.id)}/conversation/${encodeURIComponent(c.id)}`,
              'aria-current': active ? 'page' : undefined,
              class: 'conv-open',
              on: {
                click: (/** @type {MouseEvent} */ e) => {
                  e.preventDefault();
                  closeDrawer();
                  props.onSelect(c.id);
                },
              },
            },
            h('span', { class: 'conv-title', title: c.title }, c.title),
            // A fork says so, and of what, on a line of its own that wraps rather than being cut off.
            c.forkOf ? h('span', { class: 'conv-fork small' }, `Fork of “${c.forkOf.title}”`) : null,
            h('span', { class: 'small muted' }, formatTime(c.updatedAt)),
          ),
          h(
            'div',
            { class: 'conv-actions' },
            h(
              'button',
              {
                type: 'button',
                class: 'icon-btn',
                'aria-label': `Rename conversation ${c.title}`,
                title: 'Rename',
                on: { click: () => props.onRename(c.id, c.title) },
              },
              icon('pencil'),
            ),
            h(
              'button',
              {
                type: 'button',
                class: 'icon-btn',
                'aria-label': `Export conversation ${c.title}`,
                title: 'Export',
                on: { click: () => props.onExport(c.id, c.title) },
              },
              icon('download'),
            ),
            h(
              'button',
              {
                type: 'button',
                class: 'icon-btn',
                'aria-label': `Delete conversation ${c.title}`,
                title: 'Delete',
                on: { click: () => props.onDelete(c.id, c.title) },
              },
              icon('x'),
            ),
          ),
        ),
      );
    }
    const rest = s.conversations.length - shownCount;
    if (rest > 0) {
      const more = h(
        'button',
        { type: 'button', class: 'secondary', on: { click: showMore } },
        `Show ${Math.min(rest, PAGE * 2)} more of ${rest} older conversations`,
      );
      convList.append(h('li', { class: 'more' }, more));
      if (typeof IntersectionObserver !== 'undefined') {
        moreObserver = new IntersectionObserver((entries) => {
          if (entries.some((e) => e.isIntersecting)) showMore();
        });
        moreObserver.observe(more);
      }
    }
  };
  const unsubscribe = controller.subscribe((s) => renderList(s));

  const title = h('h1', { class: 'ws-title' }, workspace.name);
  root.append(
    h(
      'header',
      { class: 'topbar' },
      menuToggle,
      h(
        'a',
        {
          href: '#home',
          class: 'home-link wide-only',
          on: {
            click: (/** @type {MouseEvent} */ e) => {
              e.preventDefault();
              props.onHome();
            },
          },
        },
        icon('chevron-left'),
        'Workspaces',
      ),
      title,
      h('span', { class: 'provider-badge small wide-only', title: 'Current provider' }, props.providerLabel),
      drawerToggle,
      props.split
        ? h(
            'button',
            {
              type: 'button',
              class: 'secondary icon-only split-btn wide-only',
              'aria-pressed': String(props.split.on),
              title: 'Show the chat beside this panel',
              on: { click: props.split.onToggle },
            },
            icon('columns-2'),
            h('span', { class: 'sr-only' }, 'Chat beside this panel'),
          )
        : null,
      h(
        'button',
        {
          type: 'button',
          class: 'secondary icon-only palette-btn',
          'aria-keyshortcuts': 'Control+K Meta+K',
          title: `Command palette (${props.paletteKeys})`,
          on: { click: props.onPalette },
        },
        h('span', { 'aria-hidden': 'true' }, props.paletteKeys),
        h('span', { class: 'sr-only' }, 'Commands'),
      ),
      h(
        'button',
        { type: 'button', class: 'secondary settings-btn', title: 'Settings', on: { click: props.onSettings } },
        icon('settings', 'settings-icon'),
        h('span', { class: 'settings-label' }, 'Settings'),
      ),
    ),
    h('div', { class: 'workspace-body' }, rail, sidebar, h('main', { class: 'panel', id: 'main' }, props.chat), props.side ?? null),
  );
  return {
    root,
    destroy: () => {
      clearTimeout(searchTimer);
      moreObserver?.disconnect();
      unsubscribe();
    },
    toggleRail,
    /** Shows the workspace's new name (after a rename). @param {string} name */
    showName: (name) => {
      title.textContent = name;
    },
    /** Whether the rail shows icons only. */
    railCollapsed: () => collapsed,
    /** Puts the focus in the search box (opening the drawer on phones). */
    focusSearch: () => {
      setDrawer(sidebar, drawerToggle, true);
      searchBox.focus();
      searchBox.select();
    },
  };
}
