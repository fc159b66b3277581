/** @import { FileSystem, DirEntry } from '../storage/types.d.ts' */
/** @import { BackupErrorCode, BackupLimits } from './types.d.ts' */
import { STATE_FOLDER } from '../storage/state-folder.js';

/** What the backup modules share: the format's constants, its error, small helpers. */

export const BACKUP_FORMAT = 'clawser-backup';
export const BACKUP_VERSION = 1;

/** @type {BackupLimits} */
export const BACKUP_LIMITS = { maxEntries: 20_000, maxTotalBytes: 2 * 1024 * 1024 * 1024 };

export const PREFIX = 'clawser_';
export const FILES = 'files/';
// The restore's own entries at the storage root: never backed up, never restored over. The
// settings folder neither: a backup carries the settings as config entries (config.json), which
// the restore applies through the config store.
export const STAGING = '.restore-staging';
export const PREVIOUS = '.restore-previous';
export const STATE = '.restore-state.json';
/**
 * The models the user brought for the local provider (web/providers/local-models.js
 * MODELS_FOLDER): gigabytes the user has as files, imported again from them. Never backed up
 * and left where they are by a restore (and its roll-back).
 */
export const MODELS_FOLDER = 'clawser_models';
export const RESERVED = [STAGING, PREVIOUS, STATE, STATE_FOLDER, MODELS_FOLDER];

/** Backup/restore failure with a stable `code` and a message a person can act on. */
export class BackupError extends Error {
  /** @param {BackupErrorCode} code @param {string} message @param {{cause?: unknown}} [options] */
  constructor(code, message, options) {
    super(message, options);
    this.name = 'BackupError';
    this.code = code;
  }
}

// ---------------------------------------------------------------------------------------
// Small helpers

/** @param {FileSystem} fs @param {string} path @returns {Promise<DirEntry[]>} */
export async function listIfExists(fs, path) {
  try {
    return await fs.list(path);
  } catch (err) {
    if (/** @type {{code?: string}} */ (err).code === 'not_found') return [];
    throw err;
  }
}

/** @param {string} dir @param {string} name */
export const join = (dir, name) => (dir ? `${dir}/${name}` : name);

/** @param {string} what */
export const corrupt = (what) =>
  new BackupError('corrupt', `This backup is damaged or was altered: ${what}. Nothing was restored; use another copy of the backup.`);

/** @param {unknown} value @returns {value is string} a SecretBox-sealed API key */
export const isSealed = (value) => typeof value === 'string' && value.startsWith('v1:');

/** @param {number} bytes */
export const mb = (bytes) => Math.round(bytes / 1024 / 1024);

/** @param {unknown} err */
export const errorText = (err) => /** @type {Error} */ (err)?.message ?? String(err);

/** @param {string} raw @returns {unknown} undefined when not JSON */
export function parseJson(raw) {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

/** @param {Uint8Array} data */
export async function sha256(data) {
  // digest() wants an ArrayBuffer-backed view; the storage returns plain Uint8Arrays.
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', /** @type {Uint8Array<ArrayBuffer>} */ (data)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** @param {Uint8Array[]} chunks @param {number} size */
export function concat(chunks, size) {
  const out = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.length;
  }
  return out;
}

/** The first problem zod found, in words. @param {import('zod').ZodError} error */
export function issueText(error) {
  const issue = error.issues[0];
  return issue ? `${issue.path.join('.') || 'value'}: ${issue.message}` : 'unknown problem';
}
