/** @import { FileSystem, FileRead, ReadRequest } from './types.d.ts' */

/**
 * Reads several files at once (a conversation's meta, snapshot and log tail when it opens): in
 * one storage call where the file system offers `readFiles` (OPFS: one round trip to its worker,
 * not one per file), else one call each. Each answer is as `readBytes` (whole file) or `readTail`
 * (`tail`) would give it; a missing file is null.
 * @param {FileSystem} fs @param {ReadRequest[]} requests
 * @returns {Promise<(FileRead | null)[]>}
 */
export function readFiles(fs, requests) {
  if (fs.readFiles) return fs.readFiles(requests);
  return Promise.all(requests.map((r) => readOne(fs, r)));
}

/**
 * One read of `readFiles` through the plain FileSystem calls.
 * @param {FileSystem} fs @param {ReadRequest} request
 * @returns {Promise<FileRead | null>}
 */
export async function readOne(fs, { path, tail }) {
  try {
    if (tail === undefined) {
      const bytes = await fs.readBytes(path);
      return { bytes, size: bytes.length };
    }
    if (fs.readTail) return await fs.readTail(path, tail);
    const stat = await fs.stat(path);
    if (stat?.kind !== 'file') return null;
    return {
      bytes: stat.size > 0 ? await fs.readBytes(path, { start: Math.max(0, stat.size - tail), end: stat.size }) : new Uint8Array(0),
      size: stat.size,
    };
  } catch (err) {
    if (isMissing(err, tail !== undefined)) return null;
    throw err;
  }
}

/**
 * Whether a read's error means there is no such file: `not_found`, and for a tail also
 * `not_a_directory` (a log's folder replaced by a file reads as an empty log, as before).
 * @param {unknown} err @param {boolean} isTail
 */
export function isMissing(err, isTail) {
  const code = /** @type {{code?: string}} */ (err)?.code;
  return code === 'not_found' || (isTail && code === 'not_a_directory');
}
