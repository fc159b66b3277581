/**
 * The binary file of memory embeddings, `.memory/vectors.bin`: a header, then append-only
 * records, one per computed embedding. JSON would triple the size (100K × 384 numbers) and
 * cost seconds to parse; this is ~0.4 KB per vector and decodes in one pass.
 *
 * Header: "CLWVEC" u8 version u8 0, u16 dimensions, u16 model-tag length, model tag (UTF-8).
 *   The tag names the model that made the vectors: a different model means they are all
 *   stale (vectors of two models are not comparable).
 * Record: u8 0xA5, u16 id length, id (UTF-8), u32 text length, u32 text hash (FNV-1a),
 *   f32 scale, int8[dimensions], u32 FNV-1a checksum of the record's previous bytes.
 *   The text length + hash tie a vector to the exact text it was computed from, so a vector
 *   of an entry whose content changed since is recognised as stale on load.
 *   Vectors are stored normalized and quantized to int8 with one scale (the same scheme as
 *   MemoryIndex, so loading them back is lossless for the index).
 * A tab killed mid-append leaves a torn last record: decoding stops at the first record that
 * is incomplete or fails its checksum and reports the valid length, so the caller can cut
 * the tail off before appending again (records must stay aligned).
 * All numbers little-endian.
 */

const MAGIC = [0x43, 0x4c, 0x57, 0x56, 0x45, 0x43]; // "CLWVEC"
export const VECTOR_FORMAT = 1;
const RECORD_MARK = 0xa5;
const MAX_TAG_BYTES = 1024;
const MAX_ID_BYTES = 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * FNV-1a over the UTF-16 code units of a string (fast, no encoding step).
 * @param {string} text
 * @returns {number} uint32
 */
export function textHash(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** @param {Uint8Array} bytes @param {number} start @param {number} end */
function checksum(bytes, start, end) {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) {
    h ^= bytes[i];
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * @param {number} dimensions
 * @param {string} modelTag
 * @returns {Uint8Array}
 */
export function encodeVectorHeader(dimensions, modelTag) {
  const tag = encoder.encode(modelTag);
  if (tag.length > MAX_TAG_BYTES) throw new RangeError('Model tag too long');
  const out = new Uint8Array(12 + tag.length);
  out.set(MAGIC, 0);
  out[6] = VECTOR_FORMAT;
  const view = new DataView(out.buffer);
  view.setUint16(8, dimensions, true);
  view.setUint16(10, tag.length, true);
  out.set(tag, 12);
  return out;
}

/**
 * One record; the vector is normalized and quantized here.
 * @param {string} id
 * @param {string} text the exact text the vector was computed from
 * @param {ArrayLike<number>} vector `dimensions` finite numbers, not all zero
 * @param {number} dimensions
 * @returns {Uint8Array}
 */
export function encodeVectorRecord(id, text, vector, dimensions) {
  if (!vector || vector.length !== dimensions) throw new RangeError(`Expected a vector of ${dimensions} dimensions, got ${vector?.length}`);
  const idBytes = encoder.encode(id);
  if (idBytes.length === 0 || idBytes.length > MAX_ID_BYTES) throw new RangeError('Invalid id for a vector record');
  let sum = 0,
    maxAbs = 0;
  for (let i = 0; i < dimensions; i++) {
    const x = vector[i];
    if (!Number.isFinite(x)) throw new RangeError('Vector has a non-finite component');
    sum += x * x;
    if (Math.abs(x) > maxAbs) maxAbs = Math.abs(x);
  }
  if (sum === 0) throw new RangeError('Cannot store a zero vector');
  const norm = Math.sqrt(sum);
  const scale = maxAbs / norm / 127;
  const k = 1 / (norm * scale);
  const size = 1 + 2 + idBytes.length + 4 + 4 + 4 + dimensions + 4;
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  let o = 0;
  out[o++] = RECORD_MARK;
  view.setUint16(o, idBytes.length, true);
  o += 2;
  out.set(idBytes, o);
  o += idBytes.length;
  view.setUint32(o, text.length, true);
  o += 4;
  view.setUint32(o, textHash(text), true);
  o += 4;
  view.setFloat32(o, scale, true);
  o += 4;
  const int8 = new Int8Array(out.buffer, o, dimensions);
  for (let i = 0; i < dimensions; i++) int8[i] = Math.round(vector[i] * k);
  o += dimensions;
  view.setUint32(o, checksum(out, 0, o), true);
  return out;
}

/**
 * @typedef {object} VectorRecord
 * @property {string} id
 * @property {number} textLength
 * @property {number} textHash
 * @property {Float32Array} vector dequantized; a scratch array reused between callbacks: copy to keep
 * @property {number} start byte offset of the record in the file
 * @property {number} end byte offset just after it
 */

/**
 * Decodes a vector file, calling `onRecord` for each complete, intact record in file order.
 * @param {Uint8Array} bytes
 * @param {(record: VectorRecord) => void} onRecord
 * @returns {{header: {dimensions: number, modelTag: string, size: number} | null, records: number, validBytes: number, torn: boolean}}
 *   header null: not a vector file (or an unknown version); validBytes: the length up to the
 *   last good record (cut the file there before appending); torn: bytes after it were dropped
 */
export function decodeVectorFile(bytes, onRecord) {
  const none = { header: null, records: 0, validBytes: 0, torn: bytes.length > 0 };
  if (bytes.length < 12 || MAGIC.some((b, i) => bytes[i] !== b) || bytes[6] !== VECTOR_FORMAT) return none;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dimensions = view.getUint16(8, true);
  const tagLen = view.getUint16(10, true);
  if (dimensions === 0 || tagLen > MAX_TAG_BYTES || 12 + tagLen > bytes.length) return none;
  const header = { dimensions, modelTag: decoder.decode(bytes.subarray(12, 12 + tagLen)), size: 12 + tagLen };
  const vector = new Float32Array(dimensions);
  const int8 = new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let o = header.size;
  let records = 0;
  while (o < bytes.length) {
    const start = o;
    if (bytes[o] !== RECORD_MARK || o + 3 > bytes.length) break;
    const idLen = view.getUint16(o + 1, true);
    const end = o + 3 + idLen + 12 + dimensions + 4;
    if (idLen === 0 || idLen > MAX_ID_BYTES || end > bytes.length) break;
    const sumAt = end - 4;
    if (view.getUint32(sumAt, true) !== checksum(bytes, start, sumAt)) break;
    o += 3;
    const id = decoder.decode(bytes.subarray(o, o + idLen));
    o += idLen;
    const textLength = view.getUint32(o, true);
    o += 4;
    const hash = view.getUint32(o, true);
    o += 4;
    const scale = view.getFloat32(o, true);
    o += 4;
    for (let i = 0; i < dimensions; i++) vector[i] = int8[o + i] * scale;
    o = end;
    records++;
    onRecord({ id, textLength, textHash: hash, vector, start, end });
  }
  return { header, records, validBytes: o, torn: o < bytes.length };
}

/**
 * Joins byte arrays.
 * @param {Uint8Array[]} parts
 */
export function concatBytes(parts) {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
