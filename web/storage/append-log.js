/** @import { FileSystem } from './types.d.ts' */
/**
 * Reading an append-only log (one record per line) that other tabs also append to: what was
 * added since this tab last read or wrote it, as complete lines with their byte offsets. The
 * conversation event log and the memory log both catch up this way before appending, so byte
 * offsets (which snapshots and checkpoints keep) stay exact. Works on bytes because "\n" never
 * occurs inside a multi-byte UTF-8 character.
 */

const NEWLINE = 0x0a;
const decoder = new TextDecoder();

/**
 * Splits bytes into complete lines with their byte offsets, plus the unterminated tail.
 * @param {Uint8Array} bytes
 * @param {number} baseOffset file offset of bytes[0]
 */
export function splitLines(bytes, baseOffset) {
  /** @type {{offset: number, text: string}[]} */
  const lines = [];
  let start = 0;
  for (let i = bytes.indexOf(NEWLINE); i !== -1; i = bytes.indexOf(NEWLINE, start)) {
    lines.push({ offset: baseOffset + start, text: decoder.decode(bytes.subarray(start, i)) });
    start = i + 1;
  }
  return { lines, tail: bytes.subarray(start), tailOffset: baseOffset + start };
}

/**
 * The last `maxBytes` bytes of `path` and the file's size (a missing file is empty): one
 * storage call where the file system offers `readTail`, else a stat and a read.
 * @param {FileSystem} fs @param {string} path @param {number} maxBytes
 * @returns {Promise<{bytes: Uint8Array, size: number}>}
 */
export async function readTail(fs, path, maxBytes) {
  if (fs.readTail) {
    try {
      return await fs.readTail(path, maxBytes);
    } catch (err) {
      const code = /** @type {{code?: string}} */ (err).code;
      if (code === 'not_found' || code === 'not_a_directory') return { bytes: new Uint8Array(0), size: 0 };
      throw err;
    }
  }
  const stat = await fs.stat(path);
  const size = stat?.kind === 'file' ? stat.size : 0;
  return { bytes: size > 0 ? await fs.readBytes(path, { start: Math.max(0, size - maxBytes), end: size }) : new Uint8Array(0), size };
}

/**
 * What was appended to `path` after byte `from`: the complete lines (a line still being
 * written by another tab stays for next time) and the offset to read from next.
 * `shrunk`: the file is now shorter than `from` — it was rewritten (compacted or replaced),
 * and the caller must read it whole.
 * @param {FileSystem} fs
 * @param {string} path
 * @param {number} from
 * @returns {Promise<{lines: {offset: number, text: string}[], next: number, size: number, shrunk: boolean}>}
 */
export async function readAppended(fs, path, from) {
  const stat = await fs.stat(path);
  const size = stat?.kind === 'file' ? stat.size : 0;
  if (size < from) return { lines: [], next: from, size, shrunk: true };
  if (size === from) return { lines: [], next: from, size, shrunk: false };
  const bytes = await fs.readBytes(path, { start: from, end: size });
  const { lines, tailOffset } = splitLines(bytes, from);
  return { lines, next: tailOffset, size, shrunk: false };
}
