/** @import { FileSystem } from '../storage/types.d.ts' */
/** @import { ConfigStore, SecretSealer, BackupContents, RecoveryOutcome } from './types.d.ts' */
import { z } from 'zod';
import { STAGING, PREVIOUS, STATE, RESERVED, BackupError, listIfExists, join, errorText, parseJson } from './common.js';

/** Restoring a checked backup: staged, moved into place, recoverable after a crash. */

/*
 * A restore moves through phases, each recorded first in the marker file `.restore-state.json`
 * (written atomically) at the storage root:
 *   staging   — the backup's files are written into .restore-staging/. Nothing current touched.
 *   aside     — every current top-level entry is moved into .restore-previous/.
 *   placing   — the staged entries are moved to the root.
 *   committed — all files are in place; the marker holds the final config (API keys already
 *               re-sealed by SecretBox), which is now applied (and stored: flush) before
 *   cleanup   — the config is applied and stored; .restore-previous/ and the marker are deleted.
 * Moves go file by file (FileSystem.move of a file is atomic; OPFS copies whole folders), so
 * at any moment each file is in exactly one of its two places and a move run again finishes.
 *
 * Recovery rule (recoverInterruptedRestore, at app start): staging, aside and placing roll
 * back — delete what was placed at the root (placing), move .restore-previous/ back, delete
 * the staging folder: the config was not touched yet. committed and cleanup roll forward —
 * (re)apply the config from the marker (idempotent), then delete the leftovers.
 */

/**
 * The file system a restore works through: an operation refused because another tab still
 * holds the file open (`busy` — OPFS access handles are exclusive, and tabs let go of idle ones
 * within a second, later on a busy machine) is tried again for up to about 25 s before the restore
 * gives up and rolls back.
 * @param {FileSystem} fs
 * @returns {FileSystem}
 */
function patientFs(fs) {
  /** @template T @param {() => Promise<T>} op @returns {Promise<T>} */
  const patiently = async (op) => {
    for (let wait = 50; ; wait *= 2) {
      try {
        return await op();
      } catch (err) {
        if (/** @type {{code?: string}} */ (err)?.code !== 'busy' || wait > 12_800) throw err;
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  };
  return {
    readText: (p) => patiently(() => fs.readText(p)),
    readBytes: (p, r) => patiently(() => fs.readBytes(p, r)),
    write: (p, d, o) => patiently(() => fs.write(p, d, o)),
    append: (p, d) => patiently(() => fs.append(p, d)),
    truncate: (p, n) => patiently(() => fs.truncate(p, n)),
    list: (p) => patiently(() => fs.list(p)),
    stat: (p) => patiently(() => fs.stat(p)),
    mkdir: (p) => patiently(() => fs.mkdir(p)),
    delete: (p) => patiently(() => fs.delete(p)),
    move: (a, b) => patiently(() => fs.move(a, b)),
  };
}

/** @typedef {'staging' | 'aside' | 'placing' | 'committed' | 'cleanup'} Phase */
const StateSchema = z.union([
  z.object({ phase: z.enum(['staging', 'aside', 'placing', 'cleanup']) }),
  z.object({ phase: z.literal('committed'), config: z.record(z.string(), z.string()), keep: z.array(z.string()) }),
]);
/** @typedef {z.infer<typeof StateSchema>} RestoreState */

/**
 * Replaces all files and `clawser_*` config with the backup's, all or nothing. Needs free
 * space for a second copy of the backup's files while staging. Other tabs must not write
 * meanwhile (the caller should make the restore exclusive).
 * @param {BackupContents} contents from readBackup
 * @param {{fs: FileSystem, config: ConfigStore, secrets: SecretSealer, keepConfigKeys?: string[]}} deps
 *   keepConfigKeys: current keys not removed even though the backup lacks them (a backup value
 *   for such a key is still applied).
 */
export async function restoreBackup(contents, { fs: storage, config, secrets, keepConfigKeys = [] }) {
  const fs = patientFs(storage);
  await recoverInterruptedRestore({ fs, config });
  /** @type {Record<string, string>} */
  const finalConfig = { ...contents.config };
  try {
    // Sealed before anything is touched, so a SecretBox failure changes nothing.
    for (const [key, value] of Object.entries(contents.secrets ?? {})) finalConfig[key] = JSON.stringify(await secrets.encrypt(value));
  } catch (err) {
    throw new BackupError('restore_failed', `The API keys could not be stored securely (${errorText(err)}); nothing was changed.`, {
      cause: err,
    });
  }

  /** @type {Phase | null} */
  let phase = null;
  const enter = async (/** @type {RestoreState} */ state) => {
    await fs.write(STATE, JSON.stringify(state));
    phase = state.phase;
  };
  try {
    await fs.delete(STAGING);
    await enter({ phase: 'staging' });
    // Atomic writes also flush, so the files are durable before the old ones are let go.
    for (const [path, data] of contents.files) await fs.write(`${STAGING}/${path}`, data);
    for (const dir of contents.manifest.dirs) await fs.mkdir(`${STAGING}/${dir}`);
    await enter({ phase: 'aside' });
    await moveTree(fs, '', PREVIOUS);
    await enter({ phase: 'placing' });
    await moveTree(fs, STAGING, '');
    await enter({ phase: 'committed', config: finalConfig, keep: keepConfigKeys });
    await applyConfig(config, finalConfig, keepConfigKeys); // puts the old config back if it throws
  } catch (err) {
    /** @type {Phase | null} */
    const reached = phase;
    let undone = reached === null;
    try {
      if (reached === 'committed') await enter({ phase: 'placing' }); // so a crash while undoing rolls back, not forward
      if (reached !== null) await rollBack(fs, reached === 'committed' ? 'placing' : reached);
      undone = true;
    } catch {
      // Left to recoverInterruptedRestore at the next start; the marker says what to do.
    }
    throw new BackupError(
      'restore_failed',
      undone
        ? `Restoring the backup failed (${errorText(err)}); everything was left as it was.`
        : `Restoring the backup failed (${errorText(err)}) and could not be undone right now. Reload Clawser: it will put everything ` +
            `back as it was.`,
      { cause: err },
    );
  }
  try {
    await enter({ phase: 'cleanup' });
    await cleanUp(fs);
  } catch {
    // The restore is complete; leftovers are deleted by recoverInterruptedRestore at the next start.
  }
}

/**
 * Finishes or undoes a restore interrupted by a closed tab (see the recovery rule above). Call
 * at app start before anything reads the storage or config.
 * @param {{fs: FileSystem, config: ConfigStore}} deps config: needed to finish a committed restore
 * @returns {Promise<RecoveryOutcome>}
 */
export async function recoverInterruptedRestore({ fs, config }) {
  const state = await readState(fs);
  if (!state) return 'none';
  if (state.phase === 'committed') {
    try {
      await applyConfig(config, state.config, state.keep);
    } catch {
      await fs.write(STATE, JSON.stringify({ phase: 'placing' })); // config unchanged: undo the files too
      await rollBack(fs, 'placing');
      return 'rolled_back';
    }
    await fs.write(STATE, JSON.stringify({ phase: 'cleanup' }));
  }
  if (state.phase === 'committed' || state.phase === 'cleanup') {
    await cleanUp(fs);
    return 'completed';
  }
  await rollBack(fs, state.phase);
  return 'rolled_back';
}

/** @param {FileSystem} fs @returns {Promise<RestoreState | null>} */
async function readState(fs) {
  let text;
  try {
    text = await fs.readText(STATE);
  } catch (err) {
    if (/** @type {{code?: string}} */ (err).code === 'not_found') return null;
    throw err;
  }
  const parsed = StateSchema.safeParse(parseJson(text));
  if (!parsed.success)
    throw new BackupError(
      'restore_failed',
      `An interrupted restore left a state file Clawser cannot read (${STATE}); the storage may be mixed. Restore the backup again.`,
    );
  return parsed.data;
}

/** Undoes an unfinished restore from any phase before committed. @param {FileSystem} fs @param {'staging' | 'aside' | 'placing'} phase */
async function rollBack(fs, phase) {
  if (phase === 'placing') {
    // Everything current was moved aside before placing began, so what is at the root is staged.
    for (const e of await listIfExists(fs, '')) if (!RESERVED.includes(e.name)) await fs.delete(e.name);
  }
  if (phase !== 'staging') await moveTree(fs, PREVIOUS, '');
  await cleanUp(fs);
}

/** @param {FileSystem} fs */
async function cleanUp(fs) {
  await fs.delete(PREVIOUS);
  await fs.delete(STAGING);
  await fs.delete(STATE);
}

/**
 * Moves every entry of `from` into `to` (the root's own restore entries excepted), file by
 * file: an interrupted run leaves each file in one place, and running it again finishes.
 * @param {FileSystem} fs @param {string} from @param {string} to
 */
async function moveTree(fs, from, to) {
  for (const e of await listIfExists(fs, from)) {
    if (!from && RESERVED.includes(e.name)) continue;
    const src = join(from, e.name);
    const dst = join(to, e.name);
    if (e.kind === 'file') {
      await fs.move(src, dst);
      continue;
    }
    await fs.mkdir(dst);
    await moveTree(fs, src, dst);
    await fs.delete(src);
  }
}

/**
 * Replaces the `clawser_*` config in one synchronous run (a closing tab cannot split it) and
 * waits until it is stored (the marker, which can apply it again, stays until then); on a
 * failure (quota) it puts back exactly what was there and rethrows.
 * @param {ConfigStore} store @param {Record<string, string>} entries @param {string[]} keep
 */
async function applyConfig(store, entries, keep) {
  const before = store.entries();
  try {
    for (const [key] of before) if (!Object.hasOwn(entries, key) && !keep.includes(key)) store.remove(key);
    for (const [key, raw] of Object.entries(entries)) store.setRaw(key, raw);
    await store.flush?.();
  } catch (err) {
    for (const [key] of store.entries()) store.remove(key); // first free the space the new values took
    for (const [key, raw] of before) store.setRaw(key, raw);
    await store.flush?.().catch(() => {}); // what is stored was not changed if the write failed
    throw err;
  }
}
