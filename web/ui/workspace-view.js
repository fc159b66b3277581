/** @import { ChatStateSource, WorkspaceSummary } from './types.d.ts' */
/** @import { SearchHit } from '../agent/conversation/conversation-search.js' */
import { h, clear, formatTime } from './dom.js';
import { ConversationList } from './conversation-list-view.js';
import { icon } from './icon.js';

/**
 * The workspace screen: a compact top bar, the panel navigation (a labelled icon rail on wide
 * screens, collapsible and remembered; a drawer behind the Menu button on phones), the
 * conversation list (hidden and shown whole by the top bar's "Conversation list" toggle on wide
 * screens, remembered by the caller; a drawer on phones) and the panel passed in.
 * @param {{workspace: WorkspaceSummary, controller: ChatStateSource, chat: HTMLElement, side?: HTMLElement, providerLabel: string, onHome:
 *   () => void, onSettings: () => void, onPalette: () => void, paletteKeys: string,
 *   split?: {on: boolean, onToggle: () => void},
 *   panels: {label: string, icon: string, shortcut?: string, current: boolean, onOpen: () => void}[], railCollapsed: boolean, onRailToggle:
 *   (collapsed: boolean) => void, listHidden?: boolean, onListToggle?: (hidden: boolean) => void,
 *   onSearch: (query: string) => Promise<SearchHit[]>, onOpenHit: (hit: SearchHit) => void,
 *   onSelect: (id: string) => void, onNew: () => void, onRename: (id: string, title: string) => void,
 *   onPin: (id: string, pinned: boolean) => void, onDelete: (id: string, title: string)
 *   => void, onExport: (id: string, title: string) => void, onImport: (file: File) => void,
 *   onTags?: (id: string, title: string) => void, tagFilter?: string | null, onTagFilter?: (tag: string | null) => void}} props
 *   panels: Chat first, in the navigation's order; split: the panel on screen can show beside the chat (wide screens);
 *   paletteKeys: the command palette's keys as this keyboard writes them (⌘K, Ctrl+K); listHidden: the conversation list is hidden on
 *   wide screens (the workspace's choice, told of each change through onListToggle)
 */
export function WorkspaceView(props) {
  const { workspace, controller } = props;
  const conversations = ConversationList({
    workspaceId: workspace.id,
    onSelect: props.onSelect,
    onPin: props.onPin,
    onRename: props.onRename,
    onExport: props.onExport,
    onDelete: props.onDelete,
    onTags: props.onTags,
    tagFilter: props.tagFilter ?? null,
    onTagFilter: props.onTagFilter,
    beforeSelect: () => closeDrawer(),
  });
  const convList = conversations.root;
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
  let listHidden = props.listHidden === true;
  const listToggle = h('button', {
    type: 'button',
    class: 'secondary icon-only conv-list-toggle wide-only',
    'aria-expanded': String(!listHidden),
    'aria-controls': 'conv-drawer',
    title: 'Show or hide the conversation list',
  });
  const drawListToggle = () =>
    listToggle.replaceChildren(
      icon(listHidden ? 'panel-left-open' : 'panel-left-close'),
      h('span', { class: 'sr-only' }, 'Conversation list'),
    );
  drawListToggle();
  const root = h('div', { class: `workspace${collapsed ? ' rail-collapsed' : ''}${listHidden ? ' list-hidden' : ''}` });
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
  /**
   * Hides or shows the whole conversation list on wide screens (its toggle, the command palette);
   * a phone keeps its drawer. The focus never stays in the hidden list: it goes to the toggle.
   * @param {boolean} [hide] the other way from now when left out
   */
  const toggleList = (hide = !listHidden) => {
    if (hide === listHidden) return;
    listHidden = hide;
    const focusInside = sidebar.contains(document.activeElement);
    root.classList.toggle('list-hidden', hide);
    listToggle.setAttribute('aria-expanded', String(!hide));
    drawListToggle();
    if (hide && focusInside) listToggle.focus();
    props.onListToggle?.(hide);
  };
  listToggle.addEventListener('click', () => toggleList());
  drawerToggle.addEventListener('click', () => {
    const open = !sidebar.classList.contains('open');
    setDrawer(sidebar, drawerToggle, open);
    if (open) closeMenu();
  });

  let providerShown = props.providerLabel;
  const unsubscribe = controller.subscribe((s) => {
    conversations.render(s);
    // The chat header's model menu changed the workspace's model: the badges say so.
    const label = s.meter?.models?.label;
    if (!label || label === providerShown) return;
    providerShown = label;
    for (const b of root.querySelectorAll('.provider-badge'))
      if (b.hasAttribute('data-provider')) b.setAttribute('data-provider', label);
      else b.textContent = label;
  });

  // Two lines of it at most on a narrow screen (styles.css): the title attribute shows the rest.
  const title = h('h1', { class: 'ws-title', title: workspace.name }, workspace.name);
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
      listToggle,
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
      conversations.destroy();
      unsubscribe();
    },
    toggleRail,
    /** Shows the workspace's new name (after a rename). @param {string} name */
    showName: (name) => {
      title.textContent = name;
      title.title = name;
    },
    /** Whether the rail shows icons only. */
    railCollapsed: () => collapsed,
    toggleList,
    /** Whether the conversation list is hidden on wide screens. */
    listHidden: () => listHidden,
    /** Puts the focus in the search box (showing the list, or opening the drawer on phones). */
    focusSearch: () => {
      toggleList(false);
      setDrawer(sidebar, drawerToggle, true);
      searchBox.focus();
      searchBox.select();
    },
  };
}
