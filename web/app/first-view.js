// The first view, painted before the app's modules have loaded. Opened on the home route, the
// page shows the workspace list from a handful of modules (from localStorage: the settings
// store's copy of the list and providers, kept for this), instead of waiting for the hundred
// modules of the app. It never writes: the app checks the copy against the stored list. The app adopts this
// view once loaded (ClawserApp.start): the same elements stay, so focus and scroll stay too,
// and what the person did meanwhile (open a workspace, create one…) runs then.
/** @import { Workspace } from './workspaces.js' */
import { LocalConfig } from '../storage/local-config.js';
import { parseRoute } from './router.js';
import { parseWorkspaceList, newWorkspace, FIRST_WORKSPACE_NAME, WORKSPACES_KEY } from './workspaces.js';
import { parseSettings, providerLabel, settingsKey } from './settings.js';
import { RESTORE_FLAG } from './flags.js';
import { HomeView } from '../ui/home-view.js';
import { h } from '../ui/dom.js';

/**
 * The home screen's actions (what the app does when a button is used).
 * @typedef {Omit<Parameters<typeof HomeView>[0], 'workspaces' | 'providerOf'>} HomeActions
 */

/** Benchmarks read this performance mark: the first view is on screen and usable. */
export const INTERACTIVE_MARK = 'clawser-interactive';

/**
 * Benchmarks read this performance mark too: the app has taken over (its view rendered, its
 * keyboard shortcuts listening); a click on the first view before it was queued, not lost.
 */
export const APP_READY_MARK = 'clawser-app-ready';

/** Marks the first view as on screen, once (whichever of the first view and the app shows it). */
export function markInteractive() {
  if (performance.getEntriesByName(INTERACTIVE_MARK).length === 0) performance.mark(INTERACTIVE_MARK);
}

/**
 * The copy of the settings a first view is painted from (localStorage, a cache of the stored
 * ones); null without localStorage, or while a restore runs (the app finishes or undoes it
 * before anything is shown).
 * @returns {LocalConfig | null}
 */
export function savedConfig() {
  /** @type {LocalConfig} */
  let config;
  try {
    config = new LocalConfig();
  } catch {
    return null;
  }
  return config.get(RESTORE_FLAG, false) ? null : config;
}

/**
 * What a home screen shows, to tell whether the painted one is still current.
 * @param {Workspace[]} workspaces @param {(id: string) => string} providerOf
 */
export function homeListing(workspaces, providerOf) {
  return JSON.stringify(workspaces.map((w) => [w, providerOf(w.id)]));
}

/**
 * @typedef {object} FirstView
 * @property {HTMLElement} view the element holding the home screen: the app's view container
 * @property {string} listing what it shows (homeListing)
 * @property {Workspace | null} created the workspace it offered on a first visit (nothing cached): the app makes it
 *   when the stored list is empty too
 * @property {(actions: HomeActions) => void} adopt gives it the app's actions; those used meanwhile run now
 */

/**
 * Paints the home screen into `root` when the page opens on it; on a first visit, with the
 * first workspace offered. Not painted (null) on another route, after an interrupted restore (the
 * app finishes or undoes it before anything is shown) or without localStorage.
 * @param {HTMLElement} root
 * @returns {FirstView | null}
 */
export function paintFirstView(root) {
  if (parseRoute(location.hash).name !== 'home') return null;
  const config = savedConfig();
  if (!config) return null;
  let workspaces = parseWorkspaceList(config.get(WORKSPACES_KEY, []));
  /** @type {Workspace | null} */
  let created = null;
  if (workspaces.length === 0) {
    // A first visit starts with one workspace: shown now, made by the app (only if the stored
    // list is empty too: a lost cache must not become a new list).
    created = newWorkspace(FIRST_WORKSPACE_NAME);
    workspaces = [created];
  }
  const providerOf = (/** @type {string} */ id) => providerLabel(parseSettings(config.get(settingsKey(id), null)));
  /** @type {HomeActions | null} */
  let target = null;
  /** @type {((actions: HomeActions) => void)[]} */
  const waiting = [];
  const call = (/** @type {(actions: HomeActions) => void} */ run) => (target ? run(target) : waiting.push(run));
  /** @type {HomeActions} */
  const actions = {
    onOpen: (id) => call((a) => a.onOpen(id)),
    onCreate: () => call((a) => a.onCreate()),
    onClone: () => call((a) => a.onClone()),
    onRename: (w) => call((a) => a.onRename(w)),
    onDelete: (w) => call((a) => a.onDelete(w)),
    onBackup: () => call((a) => a.onBackup()),
    onRestore: (file) => call((a) => a.onRestore(file)),
  };
  const view = h('div', { class: 'view' }, HomeView({ workspaces, providerOf, ...actions }));
  root.replaceChildren(view);
  markInteractive();
  return {
    view,
    listing: homeListing(workspaces, providerOf),
    created,
    adopt(appActions) {
      target = appActions;
      for (const run of waiting.splice(0)) run(appActions);
    },
  };
}
