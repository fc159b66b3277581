/** @import { FileSystem, ConfigStore } from '../storage/types.d.ts' */
import { LocalConfig } from '../storage/local-config.js';
import { RESTORE_DONE_FLAG, RESTORE_FLAG } from './flags.js';

/** The restore's marker file at the storage root (web/backup/restore.js writes it atomically before each phase). */
const MARKER = '.restore-state.json';

/**
 * Tells the first view of the next page that a restore is running (it then paints nothing: the
 * app finishes or undoes the restore first). Only a hint, kept in localStorage, which a crash
 * may lose: recovery goes by the marker file alone.
 * @param {boolean} running
 */
export function markRestoreRunning(running) {
  try {
    const hint = new LocalConfig();
    if (running) hint.setRaw(RESTORE_FLAG, 'true');
    else hint.remove(RESTORE_FLAG);
  } catch {
    // No localStorage: the first view paints from nothing anyway.
  }
}

/**
 * Leaves the next page the message that the restore succeeded (the page reloads right after it).
 * @param {string} text
 */
export function markRestoreDone(text) {
  try {
    new LocalConfig().setRaw(RESTORE_DONE_FLAG, JSON.stringify(text));
  } catch {
    // No localStorage: the restored data shows, without the message.
  }
}

/** The message a restore left for this page (once: it is removed), or null. @returns {string | null} */
export function takeRestoreDone() {
  try {
    const hint = new LocalConfig();
    const raw = hint.getRaw(RESTORE_DONE_FLAG);
    if (raw === null || raw === undefined) return null;
    hint.remove(RESTORE_DONE_FLAG);
    const text = JSON.parse(raw);
    return typeof text === 'string' && text ? text : null;
  } catch {
    return null;
  }
}

/**
 * Whether a restore left its marker (one stat at start, made alongside reading the settings).
 * @param {FileSystem} fs
 */
export function restoreMarker(fs) {
  return fs.stat(MARKER).then(
    (s) => s !== null,
    () => false,
  );
}

/**
 * Finishes or rolls back a backup restore that a closed tab or a crash interrupted, as its marker
 * says (before the config was applied: rolled back; after: completed); run before anything
 * reads the workspaces. The backup module is loaded only when the marker exists. Resolves to
 * what to tell the user, or null.
 * @param {{fs: FileSystem, config: ConfigStore, marker: boolean}} deps marker: from restoreMarker
 * @returns {Promise<{text: string, kind: 'warn' | 'error'} | null>}
 */
export async function recoverRestore({ fs, config, marker }) {
  if (!marker) {
    markRestoreRunning(false);
    return null;
  }
  try {
    const { recoverInterruptedRestore } = await import('../backup/backup.js');
    const outcome = await recoverInterruptedRestore({ fs, config });
    markRestoreRunning(false);
    if (outcome === 'rolled_back')
      return {
        kind: 'warn',
        text:
          'A backup restore was interrupted (the browser or the tab closed before it finished). Your ' +
          'previous data was kept as it was; restore the backup again if you still want it.',
      };
    if (outcome === 'completed')
      return { kind: 'warn', text: 'A backup restore was interrupted just before it finished; it has now been completed.' };
    return null;
  } catch (err) {
    // The app still opens: what could be read is shown, and the marker stays for the next try.
    return {
      kind: 'error',
      text:
        `A backup restore was interrupted and could not be finished or undone ` +
        `(${/** @type {Error} */ (err)?.message ?? String(err)}). Some files may be missing or mixed: restore the backup again, or ` +
        `reload to retry.`,
    };
  }
}
