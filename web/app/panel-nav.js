// How each built-in panel appears in the navigation (name, label, icon, shortcut, and whether it
// shows beside the chat), in its order: a copy of what the panels' entry files declare
// (web/app/panels/), so the first view draws the navigation, and the app registers the panels,
// without loading their entry files. PANEL_NAV is written by `node scripts/index-html.mjs` from
// the registry (tests/unit/panels.test.mjs says when it is stale).

/** @typedef {{name: string, label: string, icon: string, shortcut: string, split: boolean}} PanelNavEntry */

/** @type {readonly PanelNavEntry[]} */
export const PANEL_NAV = [
  // panel-nav:start (generated from web/app/panels.js)
  { name: 'files', label: 'Files', icon: 'folder', shortcut: 'Alt+1', split: true },
  { name: 'git', label: 'Git', icon: 'git-branch', shortcut: 'Alt+2', split: true },
  { name: 'memory', label: 'Memory', icon: 'brain', shortcut: 'Alt+3', split: false },
  { name: 'goals', label: 'Goals', icon: 'target', shortcut: 'Alt+4', split: false },
  { name: 'schedule', label: 'Schedule', icon: 'alarm-clock', shortcut: 'Alt+5', split: false },
  { name: 'tools', label: 'Tools', icon: 'wrench', shortcut: 'Alt+6', split: false },
  { name: 'events', label: 'Events', icon: 'scroll-text', shortcut: 'Alt+7', split: false },
  { name: 'dashboard', label: 'Dashboard', icon: 'chart-column', shortcut: 'Alt+8', split: false },
  { name: 'skills', label: 'Skills', icon: 'puzzle', shortcut: 'Alt+S', split: false },
  { name: 'servers', label: 'Servers', icon: 'plug', shortcut: 'Alt+M', split: false },
  { name: 'remote', label: 'Remote', icon: 'monitor', shortcut: 'Alt+R', split: false },
  { name: 'channels', label: 'Channels', icon: 'send', shortcut: 'Alt+C', split: false },
  { name: 'terminal', label: 'Terminal', icon: 'square-terminal', shortcut: 'Alt+T', split: false },
  { name: 'agents', label: 'Agents', icon: 'bot', shortcut: 'Alt+A', split: false },
  { name: 'config', label: 'Config', icon: 'braces', shortcut: 'Alt+9', split: false },
  // panel-nav:end
];

/** The navigation entry of a built-in panel. @param {string} name @returns {PanelNavEntry} */
export function panelNav(name) {
  const entry = PANEL_NAV.find((p) => p.name === name);
  if (!entry) throw new Error(`No built-in panel is named "${name}".`);
  return entry;
}

/**
 * The panel an Alt+key press opens ('chat' for Alt+0), by the key's position (Alt+letter types
 * another character on a Mac); null for any other key.
 * @param {{altKey: boolean, ctrlKey: boolean, metaKey: boolean, shiftKey: boolean, code: string, key: string}} e a keydown event
 * @param {readonly {name: string, shortcut: string}[]} panels
 * @returns {string | null}
 */
export function panelOfShortcut(e, panels) {
  if (!e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return null;
  const key = /^(Digit|Key)./.test(e.code) ? e.code.replace(/^(Digit|Key)/, '') : e.key;
  if (key === '0') return 'chat';
  return panels.find((p) => p.shortcut === `Alt+${key}`)?.name ?? null;
}

/**
 * Whether this computer's keyboard has a ⌘ key (a Mac, an iPad, an iPhone), from the platform
 * the browser reports (User-Agent Client Hints where there are, else navigator.platform).
 * @param {{platform?: string, userAgentData?: {platform?: string}}} [nav] the browser's navigator
 */
export function hasCommandKey(nav = globalThis.navigator) {
  const platform = nav?.userAgentData?.platform || nav?.platform || '';
  return /^(mac|iphone|ipad|ipod)/i.test(platform);
}

/** The command palette's keys as this keyboard writes them: ⌘K on a Mac, Ctrl+K on Linux and Windows. @param {boolean} command */
export const paletteKeys = (command) => (command ? '⌘K' : 'Ctrl+K');
