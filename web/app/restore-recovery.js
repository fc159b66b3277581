/** @import { FileSystem } from '../storage/types.d.ts' */
/** @import { LocalConfig } from '../storage/local-config.js' */
import { RESTORE_FLAG } from './flags.js';

/**
 * Finishes or rolls back a backup restore that a closed tab interrupted; run before anything
 * reads storage. The backup module is loaded only when the restore's flag and marker exist,
 * so a normal start costs one config read. Resolves to what to tell the user, or null.
 * @param {{fs: FileSystem, config: LocalConfig}} deps
 * @returns {Promise<string | null>}
 */
export async function recoverRestore({ fs, config }) {
  // The flag (set while a restore runs) spares every normal start a storage round trip.
  if (!config.get(RESTORE_FLAG, false)) return null;
  if (!(await fs.stat('.restore-state.json').catch(() => null))) {
    config.remove(RESTORE_FLAG);
    return null;
  }
  const { recoverInterruptedRestore, localStorageConfig } = await import('../backup/backup.js');
  const outcome = await recoverInterruptedRestore({ fs, config: localStorageConfig() });
  config.remove(RESTORE_FLAG);
  if (outcome === 'rolled_back') return 'A restore was interrupted (the tab closed); your previous data was kept.';
  if (outcome === 'completed') return 'An interrupted restore was completed.';
  return null;
}
