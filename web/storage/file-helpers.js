// Small helpers over any FileSystem, apart from index.js so a module needing only them does not
// load every storage implementation.
/** @import { FileSystem } from './types.d.ts' */

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
