// Where the app keeps its settings and workspace list: DurableConfig (web/storage) over two
// files of the browser's file storage, with localStorage as the first view's cache.
/** @import { FileSystem } from '../storage/types.d.ts' */
/** @import { TabCoordinator } from '../agent/tabs.js' */
/** @import { RestoreGate } from '../agent/restore-gate.js' */
import { DurableConfig } from '../storage/durable-config.js';
import { LocalConfig } from '../storage/local-config.js';
import { RestoreInProgressError } from '../agent/restore-gate.js';
import { WORKSPACES_KEY } from './workspaces.js';
import { RAIL_COLLAPSED_KEY, RESTORE_FLAG } from './flags.js';

/** The workspace list, and the deletes still under way (changed together, in one write). */
export const WORKSPACES_FILE = 'workspaces.json';
/** Every other setting, global and per workspace (sealed keys included). */
export const SETTINGS_FILE = 'settings.json';

/** @param {string} key */
export const configFileOf = (key) => (key === WORKSPACES_KEY || key.startsWith(`${WORKSPACES_KEY}_`) ? WORKSPACES_FILE : SETTINGS_FILE);

/** What the first views read from localStorage (first-view.js, workspace-first-view.js): the list, each workspace's provider, the rail. @param {string} key */
export const firstViewKey = (key) => key === WORKSPACES_KEY || key.startsWith('clawser_config_') || key === RAIL_COLLAPSED_KEY;

/** localStorage, or null where the page has none (the settings work without it). */
function localStorageCache() {
  try {
    return new LocalConfig();
  } catch {
    return null;
  }
}

/**
 * The app's settings, read from storage (moved there from localStorage on the first start after
 * an update). Changes are shared with the other tabs under the cross-tab lock `config`, and none
 * is written while another tab restores a backup.
 * @param {{fs: FileSystem, tabs: TabCoordinator, gate: RestoreGate, onError: (err: unknown) => void}} deps
 */
export async function openConfig({ fs, tabs, gate, onError }) {
  const config = new DurableConfig({
    fs,
    files: [WORKSPACES_FILE, SETTINGS_FILE],
    fileOf: configFileOf,
    lock: (name, fn) => tabs.withLock(name, fn),
    channel: tabs,
    cache: localStorageCache(),
    cached: firstViewKey,
    // A hint for the first view only; the restore's own marker file is what recovery reads.
    ignoreLegacy: (key) => key === RESTORE_FLAG,
    writable: () => {
      if (gate.restoring === 'elsewhere') throw new RestoreInProgressError(false);
    },
    onError,
  });
  await config.load();
  return config;
}
