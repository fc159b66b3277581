// A git index (`.git/index`) checked without git: its header, every entry within bounds and its
// checksum — what isomorphic-git refuses to read. Small, so the app checks a workspace's index
// when it opens the workspace without loading isomorphic-git.

/** Where a damaged index is, for people. */
export const INDEX_PATH = '.git/index';

/**
 * What is wrong with a git index, or null when it reads. Versions 2 and 3 (what isomorphic-git
 * reads); a truncated, altered or foreign file is caught by its SHA-1 checksum.
 * @param {Uint8Array} bytes
 * @returns {Promise<string | null>}
 */
export async function gitIndexProblem(bytes) {
  if (!bytes.length) return 'empty: the file holds nothing';
  if (bytes.length < 12 + 20) return 'cut short: the file ends in the middle of its data';
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = String.fromCharCode(bytes[0], bytes[1], bytes[2], bytes[3]);
  if (magic !== 'DIRC') return 'garbage: this is not a git index (it does not start with "DIRC")';
  const version = view.getUint32(4);
  if (version !== 2 && version !== 3) return `not in the expected shape (index version ${version}; versions 2 and 3 are read)`;
  const body = bytes.subarray(0, bytes.length - 20);
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-1', /** @type {Uint8Array<ArrayBuffer>} */ (body.slice())));
  const stored = bytes.subarray(bytes.length - 20);
  if (digest.some((b, i) => b !== stored[i])) return 'cut short or altered: its checksum does not match its content';
  // Every entry fits in the file (a valid checksum over entries that do not parse: the wrong shape).
  const count = view.getUint32(8);
  let at = 12;
  for (let i = 0; i < count; i++) {
    const start = at;
    if (at + 62 > body.length) return `not in the expected shape (entry ${i + 1} of ${count} is missing)`;
    const flags = view.getUint16(at + 60);
    at += 62;
    if (flags & 0x4000) {
      if (version < 3) return `not in the expected shape (entry ${i + 1} has extended flags in a version ${version} index)`;
      at += 2;
    }
    const end = body.indexOf(0, at);
    if (end === -1) return `not in the expected shape (entry ${i + 1} of ${count} has no end)`;
    at = end + 1;
    // Padded with NULs to a multiple of 8 bytes from the entry's start.
    while ((at - start) % 8 !== 0) at++;
    if (at > body.length) return `not in the expected shape (entry ${i + 1} of ${count} runs past the end)`;
  }
  return null;
}
