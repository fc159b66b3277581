/** @import { FileSystem } from './types.d.ts' */
/**
 * Reading an append-only log (one record per line) that other tabs also append to: what was
 * added since this tab last read or wrote it, as complete lines with their byte offsets. The
 * conversation event log and the memory log both catch up this way before appending, so byte
 * offsets (which snapshots and checkpoints keep) stay exact. Works on bytes because "\n" never
 * occurs inside a multi-byte UTF-8 character.
 */

import { readOne } from './read-files.js';

const NEWLINE = 0x0a;

/** Decodes keeping a byte-order mark (splitLines drops the one a line may start with itself). */
const keepBom = new TextDecoder('utf-8', { ignoreBOM: true });
/** Bytes decoded per call: one call per line costs more than the decoding in a browser, and one for a large buffer makes a large string. */
const CHUNK = 32 * 1024;

/**
 * Splits bytes into complete lines with their byte offsets, plus the unterminated tail. Each
 * line's text is what decoding that line alone gives (a leading byte-order mark dropped, a
 * broken sequence replaced); runs of lines are decoded together and split at "\n", which UTF-8
 * decoding never swallows.
 * @param {Uint8Array} bytes
 * @param {number} baseOffset file offset of bytes[0]
 */
export function splitLines(bytes, baseOffset) {
  /** @type {{offset: number, text: string}[]} */
  const lines = [];
  const end = bytes.lastIndexOf(NEWLINE) + 1;
  let start = 0;
  while (start < end) {
    // Up to the last line break within CHUNK bytes (a longer line: up to its own break).
    let stop = bytes.lastIndexOf(NEWLINE, Math.min(end, start + CHUNK) - 1) + 1;
    if (stop <= start) stop = bytes.indexOf(NEWLINE, start) + 1;
    const texts = keepBom.decode(bytes.subarray(start, stop)).split('\n');
    for (let k = 0; k < texts.length - 1; k++) {
      const text = texts[k];
      lines.push({ offset: baseOffset + start, text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text });
      start = bytes.indexOf(NEWLINE, start) + 1;
    }
  }
  return { lines, tail: bytes.subarray(end), tailOffset: baseOffset + end };
}

/**
 * The last `maxBytes` bytes of `path` and the file's size (a missing file is empty): one
 * storage call where the file system offers `readTail`, else a stat and a read.
 * @param {FileSystem} fs @param {string} path @param {number} maxBytes
 * @returns {Promise<{bytes: Uint8Array, size: number}>}
 */
export async function readTail(fs, path, maxBytes) {
  return (await readOne(fs, { path, tail: maxBytes })) ?? { bytes: new Uint8Array(0), size: 0 };
}

/**
 * What was appended to `path` after byte `from`: the complete lines (a line still being
 * written by another tab stays for next time) and the offset to read from next.
 * `shrunk`: the file is now shorter than `from` — it was rewritten (compacted or replaced),
 * and the caller must read it whole.
 * @param {FileSystem} fs
 * @param {string} path
 * @param {number} from
 * `bytes`: what was read (from `from`), for a caller that keeps damaged lines as they were.
 * @returns {Promise<{lines: {offset: number, text: string}[], next: number, size: number, shrunk: boolean, bytes: Uint8Array}>}
 */
export async function readAppended(fs, path, from) {
  const stat = await fs.stat(path);
  const size = stat?.kind === 'file' ? stat.size : 0;
  const none = new Uint8Array(0);
  if (size < from) return { lines: [], next: from, size, shrunk: true, bytes: none };
  if (size === from) return { lines: [], next: from, size, shrunk: false, bytes: none };
  const bytes = await fs.readBytes(path, { start: from, end: size });
  const { lines, tailOffset } = splitLines(bytes, from);
  return { lines, next: tailOffset, size, shrunk: false, bytes };
}
