// just-bash's browser build imports gzip from node:zlib (its own docs say gzip then fails in
// browsers): the same three calls are served by fflate, so gzip/gunzip/zcat work offline.
import { Gunzip, gunzipSync as gunzip, gzipSync as gzip } from 'fflate';
import { ExpansionBudget } from '../../web/files/archive-limits.js';

export const constants = { Z_BEST_SPEED: 1, Z_BEST_COMPRESSION: 9, Z_DEFAULT_COMPRESSION: -1 };

/** @template {{length: number}} T @param {number | undefined} limit @param {T} out @returns {T} */
function capped(limit, out) {
  if (limit !== undefined && out.length > limit) throw new RangeError('Cannot create a Buffer larger than the allowed output size');
  return out;
}

/** @param {Uint8Array} data @param {{level?: number, maxOutputLength?: number}} [options] */
export function gzipSync(data, options = {}) {
  const level = options.level === undefined || options.level < 0 ? 6 : options.level;
  // mtime 0 like Node's zlib, so the same input gives the same bytes.
  return capped(options.maxOutputLength, gzip(data, { level: /** @type {0|1|2|3|4|5|6|7|8|9} */ (level), mtime: 0 }));
}

/**
 * Stops inflating as soon as the output passes maxOutputLength (as Node's zlib does) or an
 * archive limit (web/files/archive-limits.js: the ratio, the size; its ArchiveLimitError and
 * message, as gunzip and zcat give), fed in 16 KB steps: inflating everything first and
 * checking after would let a zip bomb fill memory (`rg -z` over a bomb). just-bash calls it
 * with maxOutputLength (rg -z, its gzip); the shell's gunzip, zcat and tar are Clawser's own.
 * @param {Uint8Array} data @param {{maxOutputLength?: number}} [options]
 */
export function gunzipSync(data, options = {}) {
  const limit = options.maxOutputLength;
  if (limit === undefined) return gunzip(data);
  const budget = new ExpansionBudget(data.length);
  /** @type {Uint8Array[]} */
  const chunks = [];
  let size = 0;
  const stream = new Gunzip((chunk) => {
    size += chunk.length;
    budget.add(chunk.length);
    capped(limit, { length: size });
    chunks.push(chunk);
  });
  for (let i = 0; i < data.length; i += 16384) stream.push(data.subarray(i, i + 16384), i + 16384 >= data.length);
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

export default { constants, gzipSync, gunzipSync };
