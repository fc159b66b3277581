/** @import { PanelNavEntry } from './panel-nav.js' */
/** @import { ChatController } from './chat-controller.js' */
/** @import { Services } from './workspace-services.js' */
/** @import { AgentSettingsStore } from './agent-settings.js' */
/** @import { SettingsStore } from './settings.js' */

/**
 * The workspace panels besides the chat. A panel is one file, web/app/panels/<name>.js, whose
 * default export declares it (a PanelEntry: how it shows in the navigation and a lazy `open`),
 * and one line of BUILTIN_PANELS below (CONTRIBUTING.md, "A panel"). The orchestrator lists the
 * registry in the navigation, routes `#workspace/{id}/{name}` to it, answers its shortcut and
 * opens it with a PanelContext — the same for every panel, so none needs a line of its own there.
 */

/**
 * What every panel's `open` gets: its workspace, the workspace's services and settings, and the
 * app's ways out. General on purpose: a panel that needs something new gets it from `services`
 * (web/app/workspace-services.js), never from a field added here for one panel.
 * @typedef {object} PanelContext
 * @property {string} workspaceId
 * @property {Services} services the workspace's services: its tool registry, stores (goals, jobs, usage, memory, skills,
 *   agents), files and repository, MCP servers and their sign-in, its terminal, the folder opened from the computer,
 *   search by meaning, the tabs of this browser, the size of a workspace's folder
 * @property {AgentSettingsStore} agentSettings
 * @property {SettingsStore} providerSettings the workspace's provider and model (keys sealed)
 * @property {ChatController} chat the workspace's conversations
 * @property {() => {id: string, name: string}[]} workspaces every workspace of this browser
 * @property {Preferences} preferences small per-browser choices of the panels
 * @property {() => void} back to the chat
 * @property {(panel: string) => void} openPanel another panel of this workspace
 * @property {(conversationId: string) => void} openConversation
 * @property {() => Promise<void>} refresh shows the workspace again on this panel (its files or provider changed)
 * @property {(err: unknown) => void} showError
 */

/**
 * @typedef {{get: (key: string) => unknown, set: (key: string, value: unknown) => void, flush: () => Promise<void>}} Preferences
 *   flush: resolves once every setting changed so far is stored (what a panel waits for before it says "saved")
 */

/** @typedef {{root: HTMLElement, destroy?: () => void}} PanelView */

/**
 * A panel, as its file declares it. `name`: its route (`#workspace/{id}/{name}`); `label` and
 * `icon`: its button in the navigation; `shortcut`: `Alt+<digit or letter>` ('' for none);
 * `split`: it can show beside the chat on a wide screen; `open`: loads its view (never at start-up)
 * and builds it from the context.
 * @typedef {{name: string, label: string, icon: string, shortcut: string, split: boolean,
 *   open: (ctx: PanelContext) => Promise<PanelView> | PanelView}} PanelEntry
 */

/** A panel entry refused (code `invalid`: a field missing or of the wrong form; `taken`: its name or shortcut is another panel's). */
export class PanelError extends Error {
  /** @param {'invalid' | 'taken'} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.name = 'PanelError';
    this.code = code;
  }
}

/** A route name: lower case, digits and dashes, starting with a letter. */
const NAME = /^[a-z][a-z0-9-]{0,31}$/;
/**
 * An icon's name (a Lucide icon, drawn as SVG: web/ui/icon.js), never a character: an emoji is an
 * empty box on a machine without a colour emoji font.
 */
const ICON_NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
/** The workspace's routes that are not panels. */
const RESERVED_NAMES = ['chat', 'settings'];
/**
 * Alt and one digit 1–9 or capital letter (by the key's position, see panelOfShortcut). Alt+0 is
 * the chat, Alt+Z undoes a turn, Alt+B and Alt+F move by words in the Terminal.
 */
const SHORTCUT = /^Alt\+([1-9]|[AC-EG-Y])$/;

/**
 * What a panel entry declares, each checked in its form by checkPanelEntry: CONTRIBUTING.md,
 * "A panel", lists the same (tests/unit/contributing.test.mjs).
 */
export const PANEL_ENTRY_FIELDS = Object.freeze(['name', 'label', 'icon', 'shortcut', 'split', 'open']);

/**
 * Checks that a panel entry declares all it must, in its form; returns it, or throws a
 * PanelError (code `invalid`) naming each field that is missing or wrong.
 * @param {PanelEntry} entry
 * @returns {PanelEntry}
 */
export function checkPanelEntry(entry) {
  if (!entry || typeof entry !== 'object') {
    throw new PanelError('invalid', `A panel entry is an object: ${PANEL_ENTRY_FIELDS.join(', ')}.`);
  }
  const e = /** @type {Record<string, unknown>} */ (entry);
  /** @type {string[]} */
  const problems = [];
  if (typeof e.name !== 'string' || !NAME.test(e.name) || RESERVED_NAMES.includes(e.name)) {
    problems.push(`name: "${String(e.name)}" is not a route name (1–32 lower-case letters, digits and dashes, not "chat" or "settings")`);
  }
  if (typeof e.label !== 'string' || !e.label.trim()) problems.push('label: the words on its button');
  if (typeof e.icon !== 'string' || !ICON_NAME.test(e.icon)) {
    problems.push(
      `icon: "${String(e.icon)}" is not an icon name: a Lucide icon's name, as 'folder' (web/ui/icon-names.js), not a character`,
    );
  }
  if (typeof e.shortcut !== 'string' || (e.shortcut !== '' && !SHORTCUT.test(e.shortcut))) {
    problems.push(`shortcut: "${String(e.shortcut)}" is not Alt+1…9 or Alt+<letter> (not B, F or Z), or '' for none`);
  }
  if (typeof e.split !== 'boolean') problems.push('split: true or false (whether it can show beside the chat)');
  if (typeof e.open !== 'function') problems.push('open: a function of the panel context that builds its view');
  const which = typeof e.name === 'string' && e.name ? ` "${e.name}"` : '';
  if (problems.length) throw new PanelError('invalid', `Invalid panel entry${which}: ${problems.join('; ')}.`);
  return entry;
}

export class PanelRegistry {
  /** @type {Map<string, PanelEntry>} */
  #panels = new Map();

  /**
   * Adds a panel at the end of the navigation; returns what removes it. A panel added at run time
   * (a plugin) may leave `split` out: it does not show beside the chat.
   * @param {Omit<PanelEntry, 'split'> & {split?: boolean}} entry
   */
  register(entry) {
    if (typeof entry?.name !== 'string' || !NAME.test(entry.name) || RESERVED_NAMES.includes(entry.name)) {
      throw new PanelError('invalid', `Invalid panel name "${entry?.name}".`);
    }
    if (this.#panels.has(entry.name)) throw new PanelError('taken', `A panel named "${entry.name}" is already registered.`);
    const checked = checkPanelEntry({ ...entry, split: entry.split ?? false });
    const holder = checked.shortcut ? this.list().find((p) => p.shortcut === checked.shortcut) : undefined;
    if (holder) {
      throw new PanelError('taken', `The shortcut ${checked.shortcut} already opens ${holder.label}: give "${checked.name}" another one.`);
    }
    this.#panels.set(checked.name, checked);
    return () => {
      this.#panels.delete(checked.name);
    };
  }

  /** @param {string} name */
  get(name) {
    return this.#panels.get(name);
  }

  /** In the order of the navigation. */
  list() {
    return [...this.#panels.values()];
  }
}

/**
 * The built-in panels, in the navigation's order: one line each, loading the panel's entry file.
 * The app does not load them at start-up: it registers each from its navigation facts in
 * panel-nav.js (which `node scripts/index-html.mjs` writes from these entries) and loads the entry
 * when the panel first opens (builtinPanels below).
 * @type {(() => Promise<{default: PanelEntry}>)[]}
 */
export const BUILTIN_PANELS = [
  () => import('./panels/files.js'),
  () => import('./panels/git.js'),
  () => import('./panels/memory.js'),
  () => import('./panels/goals.js'),
  () => import('./panels/schedule.js'),
  () => import('./panels/tools.js'),
  () => import('./panels/events.js'),
  () => import('./panels/dashboard.js'),
  () => import('./panels/skills.js'),
  () => import('./panels/servers.js'),
  () => import('./panels/remote.js'),
  () => import('./panels/channels.js'),
  () => import('./panels/terminal.js'),
  () => import('./panels/agents.js'),
  () => import('./panels/config.js'),
];

/** Every built-in panel's entry, loaded (the navigation's generator and the tests). @returns {Promise<PanelEntry[]>} */
export async function loadBuiltinPanels() {
  return (await Promise.all(BUILTIN_PANELS.map((load) => load()))).map((m) => m.default);
}

/**
 * The built-in panels as the app registers them at start-up, without loading their files: each
 * entry's navigation facts from `nav` (panel-nav.js's PANEL_NAV, the same order), and an `open`
 * that loads the entry file first. A copy that does not match the registry (a line added without
 * running the scripts) is refused with what to run: the navigation is never wrong.
 * @param {readonly PanelNavEntry[]} nav
 * @returns {PanelEntry[]}
 */
export function builtinPanels(nav) {
  if (nav.length !== BUILTIN_PANELS.length) {
    throw new PanelError(
      'invalid',
      `The navigation's copy (web/app/panel-nav.js) lists ${nav.length} panels and the registry ` +
        `${BUILTIN_PANELS.length}: run node scripts/index-html.mjs.`,
    );
  }
  return nav.map((facts, i) => ({
    ...facts,
    open: async (ctx) => {
      const entry = checkPanelEntry((await BUILTIN_PANELS[i]()).default);
      if (entry.name !== facts.name) {
        throw new PanelError(
          'invalid',
          `The navigation's copy is stale ("${facts.name}" opened "${entry.name}"): run node scripts/index-html.mjs.`,
        );
      }
      return entry.open(ctx);
    },
  }));
}
