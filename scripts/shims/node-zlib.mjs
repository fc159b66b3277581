// just-bash's browser build imports gzip from node:zlib (its own docs say gzip then fails in
// browsers): the same three calls are served by fflate, so gzip/gunzip/zcat work offline.
import { gunzipSync as gunzip, gzipSync as gzip } from 'fflate';

export const constants = { Z_BEST_SPEED: 1, Z_BEST_COMPRESSION: 9, Z_DEFAULT_COMPRESSION: -1 };

/** @param {number | undefined} limit @param {Uint8Array} out */
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

/** @param {Uint8Array} data @param {{maxOutputLength?: number}} [options] */
export function gunzipSync(data, options = {}) {
  return capped(options.maxOutputLength, gunzip(data));
}

export default { constants, gzipSync, gunzipSync };
