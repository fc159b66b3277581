import { h, clear } from './dom.js';

/**
 * One action of the palette.
 * @typedef {object} Command
 * @property {string} id stable, unique
 * @property {string} label what the list shows ("Open Schedule")
 * @property {string} [group] a heading-like hint shown beside it ("Panel", "Conversation")
 * @property {string} [keywords] other words it is found by
 * @property {string} [shortcut] its keyboard shortcut, shown
 * @property {() => unknown} run
 */

/**
 * The command palette (Ctrl/Cmd+K): a modal dialog with a combobox and the matching actions;
 * arrows move, Enter runs, Escape closes. Resolves once it closed (after the chosen action
 * started).
 * @param {Command[]} commands
 * @param {(query: string, commands: Command[], text: (c: Command) => string) => Command[]} rank the
 *   matching commands, best first (the app's fuzzy ranking: what matches is the app's rule, not the view's)
 * @returns {Promise<void>}
 */
export function openCommandPalette(commands, rank) {
  return new Promise((resolve) => {
    const listId = `palette-${Math.random().toString(36).slice(2)}`;
    const input = /** @type {HTMLInputElement} */ (
      h('input', {
        type: 'text',
        role: 'combobox',
        'aria-label': 'Search actions',
        'aria-expanded': 'true',
        'aria-controls': listId,
        'aria-autocomplete': 'list',
        autocomplete: 'off',
        spellcheck: false,
        placeholder: 'Type an action, a panel or a conversation…',
      })
    );
    const list = h('ul', { id: listId, role: 'listbox', class: 'palette-list', 'aria-label': 'Actions' });
    const status = h('p', { class: 'small muted palette-status', role: 'status' });
    const dialog = h(
      'dialog',
      { class: 'dialog palette', 'aria-label': 'Command palette' },
      input,
      list,
      status,
      h(
        'p',
        { class: 'small muted' },
        h('kbd', null, '↑'),
        ' ',
        h('kbd', null, '↓'),
        ' to move, ',
        h('kbd', null, 'Enter'),
        ' to run, ',
        h('kbd', null, 'Esc'),
        ' to close',
      ),
    );
    /** @type {Command[]} */
    let shown = [];
    let active = 0;
    /** @type {Command | null} */
    let chosen = null;

    const draw = () => {
      shown = rank(input.value, commands, (c) => `${c.label} ${c.group ?? ''} ${c.keywords ?? ''}`);
      active = Math.min(active, Math.max(0, shown.length - 1));
      clear(list);
      shown.forEach((c, i) => {
        const option = h(
          'li',
          {
            id: `${listId}-${i}`,
            role: 'option',
            class: 'palette-option',
            'aria-selected': i === active ? 'true' : 'false',
            on: {
              click: () => choose(c),
              mousemove: () => {
                if (active !== i) {
                  active = i;
                  mark();
                }
              },
            },
          },
          h('span', { class: 'palette-label' }, c.label),
          c.group ? h('span', { class: 'small muted' }, c.group) : null,
          c.shortcut ? h('kbd', null, c.shortcut) : null,
        );
        list.append(option);
      });
      status.textContent = shown.length ? `${shown.length} action${shown.length === 1 ? '' : 's'}` : 'No action matches.';
      mark();
    };
    const mark = () => {
      list.querySelectorAll('[role="option"]').forEach((el, i) => el.setAttribute('aria-selected', i === active ? 'true' : 'false'));
      if (shown.length) {
        input.setAttribute('aria-activedescendant', `${listId}-${active}`);
        list.children[active]?.scrollIntoView({ block: 'nearest' });
      } else input.removeAttribute('aria-activedescendant');
    };
    /** @param {Command} c */
    const choose = (c) => {
      chosen = c;
      dialog.close();
    };
    input.addEventListener('input', () => {
      active = 0;
      draw();
    });
    input.addEventListener('keydown', (e) => {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        if (!shown.length) return;
        active = (active + (e.key === 'ArrowDown' ? 1 : shown.length - 1)) % shown.length;
        mark();
      } else if (e.key === 'Enter' && !e.isComposing) {
        e.preventDefault();
        if (shown[active]) choose(shown[active]);
      }
    });
    dialog.addEventListener('close', () => {
      dialog.remove();
      // After the dialog is gone, so an action that opens a dialog of its own can.
      if (chosen) queueMicrotask(() => chosen?.run());
      resolve();
    });
    document.body.append(dialog);
    draw();
    dialog.showModal();
    input.focus();
  });
}
