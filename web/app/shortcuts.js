/**
 * The app's keyboard shortcuts: "?" lists them all, Ctrl/Cmd+K opens the command palette from
 * anywhere, Alt+0…9 and Alt+letter open a panel of the open workspace (panel-nav.js). The list
 * shown is built from the panels registered now.
 */
import { panelOfShortcut } from './panel-nav.js';

// The keyboard's words for the keys live with the navigation, which the first view loads anyway.
export { hasCommandKey, paletteKeys } from './panel-nav.js';

/**
 * Every shortcut with what it does, for the "?" dialog (⌘ for Ctrl where the keyboard has it).
 * @param {readonly {label: string, shortcut?: string}[]} panels @param {{command?: boolean}} [keyboard]
 * @returns {{keys: string, action: string}[]}
 */
export function shortcutList(panels, { command = false } = {}) {
  const mod = command ? '⌘' : 'Ctrl+';
  return [
    { keys: '?', action: 'Show this list' },
    { keys: `${mod}K`, action: 'Command palette: every action, panel, conversation and workspace' },
    { keys: 'Enter', action: 'Send the message' },
    { keys: 'Shift+Enter', action: 'New line in the message' },
    { keys: 'Esc', action: 'Stop the reply being written; close a dialog' },
    { keys: 'Alt+Z', action: 'Undo the latest turn (its files, memories, goals and jobs)' },
    { keys: 'Alt+Shift+Z', action: 'Redo the turn undone last' },
    { keys: 'Alt+0', action: 'Open Chat' },
    ...panels.filter((p) => p.shortcut).map((p) => ({ keys: /** @type {string} */ (p.shortcut), action: `Open ${p.label}` })),
    { keys: '← / →, Home, End', action: 'Resize the chat beside a panel (on the focused divider)' },
    { keys: `${mod}S`, action: 'In the file editor: save the file' },
    { keys: 'Tab', action: 'In the Terminal: complete the command or path' },
    { keys: 'Esc, then Tab', action: 'Leave the Terminal (Shift+Tab too)' },
    { keys: '↑ / ↓, Ctrl+R', action: 'In the Terminal: earlier lines, search the history' },
    { keys: 'Ctrl+C / Ctrl+L', action: 'In the Terminal: stop the command / clear the screen' },
    { keys: 'Ctrl+Shift+C / Ctrl+Shift+V', action: 'In the Terminal: copy / paste' },
  ];
}

/**
 * Listens for the shortcuts on the window (for the page's lifetime).
 * @param {object} deps
 * @param {() => void} deps.showList the "?" dialog
 * @param {() => void} deps.openPalette
 * @param {() => readonly {name: string, shortcut: string}[]} deps.panels
 * @param {() => string | null} deps.workspaceId the open workspace (null on the home screen)
 * @param {(workspaceId: string, panel: string) => void} deps.openPanel
 */
export function listenForShortcuts({ showList, openPalette, panels, workspaceId, openPanel }) {
  // "?" lists every keyboard shortcut (not while typing, not over another dialog).
  window.addEventListener('keydown', (e) => {
    if (e.key !== '?' || e.ctrlKey || e.metaKey || e.altKey || document.querySelector('dialog[open]')) return;
    const target = /** @type {HTMLElement | null} */ (e.target);
    if (target?.closest('input, textarea, select, [contenteditable]:not([contenteditable="false"])')) return;
    e.preventDefault();
    showList();
  });
  // Ctrl/Cmd+K: the command palette, from anywhere (also while typing).
  window.addEventListener('keydown', (e) => {
    if (e.key.toLowerCase() !== 'k' || !(e.ctrlKey || e.metaKey) || e.altKey || e.shiftKey) return;
    e.preventDefault();
    openPalette();
  });
  // Each panel's keyboard shortcut (Alt+1…), in the open workspace.
  window.addEventListener('keydown', (e) => {
    const open = workspaceId();
    if (!open) return;
    const panel = panelOfShortcut(e, panels());
    if (!panel) return;
    e.preventDefault();
    openPanel(open, panel);
  });
}
