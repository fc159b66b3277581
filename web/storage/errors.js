/** @import { StorageErrorCode } from './types.d.ts' */

/** Storage failure with a stable `code` and a message a person can act on. */
export class StorageError extends Error {
  /**
   * @param {StorageErrorCode} code
   * @param {string} message
   * @param {{cause?: unknown}} [options]
   */
  constructor(code, message, options) {
    super(message, options);
    this.name = 'StorageError';
    this.code = code;
  }
}

export const QUOTA_MESSAGE =
  'Browser storage is full, so this was not saved. Free space by deleting conversations or workspaces ' +
  'you no longer need, or export them first; nothing already saved was changed.';

/** True for the DOMException (or wrapped error) a browser throws when storage is full. */
export function isQuotaError(/** @type {unknown} */ err) {
  if (err instanceof StorageError) return err.code === 'quota';
  const e = /** @type {{name?: string, code?: number}} */ (err);
  return !!e && (e.name === 'QuotaExceededError' || e.code === 22 || e.name === 'NS_ERROR_DOM_QUOTA_REACHED');
}

/**
 * Splits and checks a storage path.
 * @param {string} path
 * @returns {string[]}
 */
export function splitPath(path) {
  if (typeof path !== 'string') throw new StorageError('invalid_path', 'A storage path must be a string.');
  const parts = path.split('/').filter((p) => p !== '');
  for (const p of parts) {
    if (p === '.' || p === '..' || p.includes('\\') || p.includes('\0')) {
      throw new StorageError('invalid_path', `The path "${path}" is not allowed (no ".", ".." or backslashes).`);
    }
  }
  return parts;
}

/** Converts a DOMException from the File System API into a StorageError. */
export function toStorageError(/** @type {unknown} */ err, /** @type {string} */ path) {
  if (err instanceof StorageError) return err;
  const name = /** @type {{name?: string}} */ (err)?.name;
  if (isQuotaError(err)) return new StorageError('quota', QUOTA_MESSAGE, { cause: err });
  if (name === 'NotFoundError') return new StorageError('not_found', `"${path}" does not exist.`, { cause: err });
  if (name === 'TypeMismatchError')
    return new StorageError('not_a_directory', `"${path}" is not the kind of entry expected.`, { cause: err });
  if (name === 'NoModificationAllowedError' || name === 'InvalidStateError') {
    return new StorageError('busy', `"${path}" is in use by another Clawser tab; try again in a moment.`, { cause: err });
  }
  if (name === 'SecurityError') {
    return new StorageError(
      'unavailable',
      'Browser storage is not available here. Clawser needs a secure context (https or ' +
        'http://localhost) and storage not blocked by the browser.',
      { cause: err },
    );
  }
  return new StorageError('io', `Storage failed for "${path}": ${/** @type {Error} */ (err)?.message ?? String(err)}`, { cause: err });
}
