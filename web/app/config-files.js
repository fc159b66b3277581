// Where the app keeps its settings and workspace list: DurableConfig (web/storage) over two
// files of the browser's file storage, with localStorage as the first view's cache.
/** @import { FileSystem } from '../storage/types.d.ts' */
/** @import { TabCoordinator } from '../agent/coordination/tabs.js' */
/** @import { RestoreGate } from '../agent/coordination/restore-gate.js' */
import { DurableConfig } from '../storage/durable-config.js';
import { LocalConfig } from '../storage/local-config.js';
import { RestoreInProgressError } from '../agent/coordination/restore-gate.js';
import { WORKSPACES_KEY, DELETING_KEY, WORKSPACE_LIST_SCHEMAS } from './workspaces.js';
import { readJson } from '../storage/damage.js';
import { LIST_HIDDEN_KEY_PREFIX, RAIL_COLLAPSED_KEY, RESTORE_DONE_FLAG, RESTORE_FLAG, TAG_FILTER_KEY_PREFIX } from './flags.js';

/** Where each page keeps, in localStorage, the settings changes it has not written yet (followed by the page's own id). */
export const UNSAVED_CHANGES_PREFIX = 'clawser_unsaved_changes.';

/** The workspace list, and the deletes still under way (changed together, in one write). */
export const WORKSPACES_FILE = 'workspaces.json';
/** Every other setting, global and per workspace (sealed keys included). */
export const SETTINGS_FILE = 'settings.json';

/** @param {string} key */
export const configFileOf = (key) => (key === WORKSPACES_KEY || key.startsWith(`${WORKSPACES_KEY}_`) ? WORKSPACES_FILE : SETTINGS_FILE);

/**
 * What the first views read from localStorage (first-view.js, workspace-first-view.js): the list, each workspace's provider, the rail,
 * each workspace's tag filter and whether its conversation list is hidden.
 * @param {string} key
 */
export const firstViewKey = (key) =>
  key === WORKSPACES_KEY ||
  key.startsWith('clawser_config_') ||
  key === RAIL_COLLAPSED_KEY ||
  key.startsWith(TAG_FILTER_KEY_PREFIX) ||
  key.startsWith(LIST_HIDDEN_KEY_PREFIX);

/**
 * What is wrong with the stored list and deletes (raw JSON, as DurableConfig keeps them), or
 * null: a list of the wrong shape is damage (kept, never written over), not an empty list.
 * @param {Record<string, string>} entries
 */
export function workspaceListProblem(entries) {
  /** @type {Array<[string, import('zod').ZodType<unknown>]>} */
  const checks = [
    [WORKSPACES_KEY, WORKSPACE_LIST_SCHEMAS.list],
    [DELETING_KEY, WORKSPACE_LIST_SCHEMAS.deleting],
  ];
  for (const [key, schema] of checks) {
    const raw = entries[key];
    if (raw === undefined) continue;
    const read = readJson(raw, schema);
    if (!read.ok) return `${key}: ${read.problem}`;
  }
  return null;
}

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
    // Hints for the next page only (a restore running, one that finished); the restore's own marker
    // file is what recovery reads.
    ignoreLegacy: (key) => key === RESTORE_FLAG || key === RESTORE_DONE_FLAG,
    // A change made just before the page is reloaded, closed or killed is made again by the next page.
    journal: UNSAVED_CHANGES_PREFIX,
    writable: () => {
      if (gate.restoring === 'elsewhere') throw new RestoreInProgressError(false);
    },
    onError,
    check: (file, entries) => (file === WORKSPACES_FILE ? workspaceListProblem(entries) : null),
  });
  await config.load();
  return config;
}

/** Set once the stored state was checked after start (deletes finished, unlisted folders offered); tests wait for it. */
export const STATE_CHECKED_MARK = 'clawser-state-checked';

/**
 * A damaged settings or workspace-list file, reported to the page's notice of damaged files
 * (web/app/damage-report.js) like every other file Clawser keeps: what it is, what is wrong, its
 * raw bytes to download and "Set aside" (kept under another name; a new file is started).
 * Nothing of it is overwritten until then. For the list, the workspace folders still in storage
 * are named, so the person knows nothing is lost.
 * @param {{config: import('../storage/durable-config.js').DurableConfig, damage: import('./damage-report.js').DamageReport,
 *   unlisted: () => Promise<import('./workspaces.js').UnlistedWorkspace[]>, afterSetAside: (file: string) => Promise<void>}} deps
 */
export async function reportConfigDamage({ config, damage, unlisted, afterSetAside }) {
  for (const p of config.problems()) {
    let problem;
    if (p.file === WORKSPACES_FILE) {
      const found = await unlisted().catch(() => []);
      const names = found.map((f) => (f.name ? `“${f.name}”` : `one without a name (${f.id})`)).join(', ');
      problem = `${p.reason}. Until it is set aside, no workspace is listed and none can be added or renamed; ${
        found.length
          ? `the ` +
            `folders of ${found.length === 1 ? 'one workspace are' : `${found.length} workspaces are`} still in the browser's storage ` +
            `(${names}), and are offered back once it is set aside`
          : "no workspace folder was found in the browser's storage"
      }`;
    } else {
      problem =
        `${p.reason}. Until it is set aside, every workspace uses the default settings (no provider chosen, no saved keys, tool ` +
        `rules or servers), and a changed setting is not saved`;
    }
    damage.add({
      what: p.file === WORKSPACES_FILE ? `The workspace list (${p.file})` : `Your settings, every workspace's (${p.file})`,
      where: 'Every workspace',
      problem,
      rawPath: config.pathOf(p.file),
      setAside: async () => {
        const to = await config.setAside(p.file);
        await afterSetAside(p.file);
        return to;
      },
    });
  }
}
