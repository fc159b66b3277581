/** @import { ChatState } from './types.d.ts' */
import { h, clear, formatTime } from './dom.js';
import { icon } from './icon.js';
import { groupConversations, workspaceTags, withTag } from './conversation-groups.js';

/** @typedef {ChatState['conversations'][number]} ConversationMeta */

/** Rows drawn at first; more as the end of the list scrolls into view. */
const PAGE = 100;

/**
 * The workspace's conversation list: in groups (Pinned, Today, Yesterday, Previous 7 days,
 * Older, then sub-agents' and scheduled jobs' conversations apart), each group folded or unfolded
 * by its heading. A row is its title (wrapping to three lines, never cut by buttons) and a "More"
 * button, shown on hover and focus (always on touch screens), whose menu pins, renames, tags,
 * exports and deletes it. Its tags show as chips under the title; once the workspace has tags, a
 * filter above the groups shows only the conversations with the tag chosen.
 * @param {{workspaceId: string, onSelect: (id: string) => void, onPin: (id: string, pinned: boolean) => void,
 *   onRename: (id: string, title: string) => void, onExport: (id: string, title: string) => void,
 *   onDelete: (id: string, title: string) => void, beforeSelect?: () => void,
 *   onTags?: (id: string, title: string) => void, tagFilter?: string | null, onTagFilter?: (tag: string | null) => void}} props
 *   beforeSelect: run before a conversation is opened (the phone drawer closes); tagFilter: the tag chosen
 *   when the list is made (remembered by the caller, told of each choice through onTagFilter)
 */
export function ConversationList(props) {
  const root = h('div', { class: 'conv-list' });
  /** The tag whose conversations are shown (null: all). */
  let tagFilter = props.tagFilter || null;
  /** Groups the person folded (kept while the workspace is open). @type {Set<string>} */
  const folded = new Set();
  // A long list is drawn a page at a time (more as it scrolls into view): opening a workspace
  // with a thousand conversations costs what opening one with a hundred does. The palette and the
  // search reach every conversation.
  let shownCount = PAGE;
  /** @type {ChatState | null} */
  let drawn = null;
  let drawnCount = 0;
  /** @type {IntersectionObserver | null} */
  let moreObserver = null;
  /** The open row menu's closer. @type {(() => void) | null} */
  let closeOpenMenu = null;
  /**
   * The row whose menu is open, and the place of the item that has the focus: a redraw (a title
   * changed, the app taking over from the first view) opens it again, so it never closes under the person.
   * @type {{id: string, at: number} | null}
   */
  let openMenu = null;
  /** Reopens a row's menu after a redraw, with the focus on the item at `at`. @type {Map<string, (at: number) => void>} */
  let reopeners = new Map();

  const showMore = () => {
    shownCount += PAGE * 2;
    if (drawn) render(drawn, true);
  };

  /** @param {ConversationMeta} c @param {boolean} active */
  const row = (c, active) => {
    const menuId = `conv-menu-${c.id}`;
    const more = h(
      'button',
      {
        type: 'button',
        class: 'icon-btn conv-more',
        'aria-label': `More actions for ${c.title}`,
        'aria-expanded': 'false',
        'aria-controls': menuId,
        title: 'More actions',
      },
      icon('ellipsis'),
    );
    /** @param {string} label @param {string} name @param {() => void} run */
    const item = (label, name, run) =>
      h(
        'button',
        {
          type: 'button',
          class: 'conv-menu-item',
          'aria-label': `${name} ${c.title}`,
          on: {
            click: () => {
              close(false);
              run();
            },
          },
        },
        label,
      );
    const menu = h(
      'div',
      { class: 'conv-menu', id: menuId, hidden: true },
      item(c.pinned ? 'Unpin' : 'Pin', c.pinned ? 'Unpin conversation' : 'Pin conversation', () => props.onPin(c.id, !c.pinned)),
      item('Rename…', 'Rename conversation', () => props.onRename(c.id, c.title)),
      props.onTags ? item('Tags…', 'Tags of conversation', () => props.onTags?.(c.id, c.title)) : null,
      item('Export…', 'Export conversation', () => props.onExport(c.id, c.title)),
      item('Delete…', 'Delete conversation', () => props.onDelete(c.id, c.title)),
    );
    const li = h(
      'li',
      { class: `conv-item${active ? ' active' : ''}${c.pinned ? ' pinned' : ''}` },
      h(
        'a',
        {
          href: `#workspace/${encodeURIComponent(props.workspaceId)}/conversation/${encodeURIComponent(c.id)}`,
          'aria-current': active ? 'page' : undefined,
          class: 'conv-open',
          on: {
            click: (/** @type {MouseEvent} */ e) => {
              e.preventDefault();
              props.beforeSelect?.();
              props.onSelect(c.id);
            },
          },
        },
        h(
          'span',
          { class: 'conv-title', title: c.title },
          // Icons, never emoji in the title: pinned, a sub-agent's, a scheduled job's.
          c.pinned ? icon('pin') : null,
          c.parent ? icon('corner-down-right') : c.job ? icon(c.job.viaChannel ? 'send' : 'alarm-clock') : null,
          c.title,
        ),
        // A fork says so, and of what, on a line of its own that wraps rather than being cut off.
        c.forkOf ? h('span', { class: 'conv-fork small' }, `Fork of “${c.forkOf.title}”`) : null,
        // Tags on a line of their own, under the title (never taking its width).
        c.tags?.length ? h('span', { class: 'conv-tags' }, ...c.tags.map((t) => h('span', { class: 'conv-tag small' }, t))) : null,
        h('span', { class: 'small muted' }, formatTime(c.updatedAt)),
      ),
      more,
      menu,
    );
    const items = () => /** @type {HTMLElement[]} */ ([...menu.querySelectorAll('button')]);
    /** @param {boolean} refocus */
    const close = (refocus) => {
      if (menu.hidden) return;
      menu.hidden = true;
      more.setAttribute('aria-expanded', 'false');
      li.classList.remove('menu-open');
      if (closeOpenMenu === closer) closeOpenMenu = null;
      if (openMenu?.id === c.id) openMenu = null;
      if (refocus) more.focus();
    };
    const closer = () => close(false);
    const open = (at = 0) => {
      closeOpenMenu?.();
      menu.hidden = false;
      more.setAttribute('aria-expanded', 'true');
      li.classList.add('menu-open');
      closeOpenMenu = closer;
      openMenu = { id: c.id, at };
      (items()[at] ?? items()[0])?.focus();
    };
    reopeners.set(c.id, (at) => {
      if (!li.closest('[hidden]')) open(at);
    });
    more.addEventListener('click', () => (menu.hidden ? open() : close(true)));
    menu.addEventListener('keydown', (e) => {
      const list = items();
      const at = list.indexOf(/** @type {HTMLElement} */ (document.activeElement));
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopPropagation();
        close(true);
      } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        const step = e.key === 'ArrowDown' ? 1 : -1;
        list[(at + step + list.length) % list.length]?.focus();
      } else if (e.key === 'Home' || e.key === 'End') {
        e.preventDefault();
        (e.key === 'Home' ? list[0] : list.at(-1))?.focus();
      }
    });
    menu.addEventListener('focusin', () => {
      if (openMenu?.id === c.id) openMenu.at = Math.max(0, items().indexOf(/** @type {HTMLElement} */ (document.activeElement)));
    });
    // Focus or a click elsewhere closes it.
    li.addEventListener('focusout', (e) => {
      if (!li.contains(/** @type {Node | null} */ (e.relatedTarget))) close(false);
    });
    return li;
  };

  /**
   * The tag filter (once the workspace has tags, or one is chosen): a select of the tags, "All
   * conversations" first. @param {ChatState} s
   */
  const tagFilterBar = (s) => {
    const tags = workspaceTags(s.conversations);
    if (tagFilter && !tags.some((t) => t.toLowerCase() === tagFilter?.toLowerCase())) tags.push(tagFilter);
    if (tags.length === 0) return null;
    const id = `conv-tag-filter-${props.workspaceId}`;
    const select = h(
      'select',
      {
        id,
        class: 'conv-tag-filter',
        on: {
          change: () => {
            tagFilter = select.value || null;
            props.onTagFilter?.(tagFilter);
            if (drawn) render(drawn, true);
            /** @type {HTMLElement | null} */ (root.querySelector('select.conv-tag-filter'))?.focus();
          },
        },
      },
      h('option', { value: '', selected: !tagFilter }, 'All conversations'),
      ...tags.map((t) => h('option', { value: t, selected: t.toLowerCase() === tagFilter?.toLowerCase() }, t)),
    );
    return h('div', { class: 'conv-filter' }, icon('tag'), h('label', { for: id, class: 'sr-only' }, 'Show conversations tagged'), select);
  };

  /** @param {ChatState} s @param {boolean} [force] */
  const render = (s, force = false) => {
    // The list changes with the conversations, not with each streamed word.
    if (!force && drawn && s.conversations === drawn.conversations && s.activeId === drawn.activeId && drawnCount === shownCount) return;
    drawn = s;
    const groups = groupConversations(withTag(s.conversations, tagFilter));
    const order = groups.flatMap((g) => g.conversations);
    const activeAt = order.findIndex((c) => c.id === s.activeId);
    if (activeAt >= shownCount) shownCount = activeAt + 1;
    drawnCount = shownCount;
    moreObserver?.disconnect();
    closeOpenMenu = null;
    const keep = openMenu;
    openMenu = null;
    reopeners = new Map();
    clear(root);
    const filterBar = tagFilterBar(s);
    if (filterBar) root.append(filterBar);
    if (s.conversations.length === 0) root.append(h('p', { class: 'muted small empty' }, 'No conversations yet.'));
    else if (groups.length === 0) root.append(h('p', { class: 'muted small empty' }, `No conversation is tagged “${tagFilter}”.`));
    let budget = shownCount;
    for (const g of groups) {
      if (budget <= 0) break;
      const shown = g.conversations.slice(0, budget);
      budget -= shown.length;
      const listId = `conv-group-${g.key}`;
      const isFolded = folded.has(g.key);
      const list = h('ul', { class: 'conv-group-list', id: listId, hidden: isFolded });
      for (const c of shown) list.append(row(c, c.id === s.activeId));
      const toggle = h('button', {
        type: 'button',
        class: 'conv-group-toggle',
        'aria-expanded': String(!isFolded),
        'aria-controls': listId,
        on: {
          click: () => {
            const fold = !folded.has(g.key);
            if (fold) folded.add(g.key);
            else folded.delete(g.key);
            list.hidden = fold;
            toggle.setAttribute('aria-expanded', String(!fold));
            toggle.replaceChildren(...toggleContent(fold));
          },
        },
      });
      /** @param {boolean} f */
      const toggleContent = (f) => [
        icon(f ? 'chevron-right' : 'chevron-down'),
        h('span', null, g.label),
        h('span', { class: 'conv-group-count small muted' }, String(g.conversations.length)),
      ];
      toggle.append(...toggleContent(isFolded));
      root.append(h('section', { class: `conv-group conv-group-${g.key}` }, h('h2', { class: 'conv-group-head' }, toggle), list));
    }
    const rest = order.length - shownCount;
    if (rest > 0) {
      const more = h(
        'button',
        { type: 'button', class: 'secondary', on: { click: showMore } },
        `Show ${Math.min(rest, PAGE * 2)} more of ${rest} older conversations`,
      );
      root.append(h('div', { class: 'more' }, more));
      if (typeof IntersectionObserver !== 'undefined') {
        moreObserver = new IntersectionObserver((entries) => {
          if (entries.some((e) => e.isIntersecting)) showMore();
        });
        moreObserver.observe(more);
      }
    }
    if (keep) reopeners.get(keep.id)?.(keep.at);
  };

  return {
    root,
    render,
    destroy: () => moreObserver?.disconnect(),
  };
}
