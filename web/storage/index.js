/** @import { FileSystem } from './types.d.ts' */
export { StorageError, isQuotaError, QUOTA_MESSAGE } from './errors.js';
export { MemoryFileSystem } from './memory-fs.js';
export { OpfsFileSystem } from './opfs-fs.js';
export { LocalConfig } from './local-config.js';
export { SecretBox } from './secrets.js';

/**
 * Reads a whole text file, or returns null when it does not exist.
 * @param {FileSystem} fs
 * @param {string} path
 */
export async function readTextIfExists(fs, path) {
  try {
    return await fs.readText(path);
  } catch (err) {
    if (/** @type {{code?: string}} */ (err).code === 'not_found') return null;
    throw err;
  }
}

/**
 * Writes JSON atomically.
 * @param {FileSystem} fs
 * @param {string} path
 * @param {unknown} value
 */
export async function writeJson(fs, path, value) {
  await fs.write(path, JSON.stringify(value, null, 2)); // write() creates missing parent folders
}
