/**
 * Walks DEFLATE data (RFC 1951) as it arrives without keeping what it expands to: how many bytes
 * it expands to, its first bytes, and where it ends. A git pack says how large each object is but
 * not how many bytes its compressed data takes, so finding the next object means reading this
 * one to its end; counting, not inflating, costs no memory however far the data expands (40 MB
 * of zeros is ~160,000 copy instructions) and keeps a pack of 50,000 small objects quick.
 * Invalid data throws, as zlib would refuse it.
 */

/** How many of the first expanded bytes are kept (a delta's two sizes fit in 20). */
const HEAD_BYTES = 20;

// RFC 1951 §3.2.5: the base and the extra bits of each length and distance symbol.
const LENGTH_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DIST_BASE = [
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385,
  24577,
];
const DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
/** The order the code length code's lengths are sent in. */
const CL_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

/** A table for reading one Huffman code: entry = symbol << 4 | code length (0: no such code). */
class Huffman {
  /** @param {ArrayLike<number>} lengths code length of each symbol (0: unused) */
  constructor(lengths) {
    let max = 0;
    for (let i = 0; i < lengths.length; i++) max = Math.max(max, lengths[i]);
    this.bits = max;
    this.table = new Uint16Array(1 << max);
    if (!max) return;
    const count = new Uint16Array(16);
    for (let i = 0; i < lengths.length; i++) count[lengths[i]]++;
    count[0] = 0;
    // Canonical codes (§3.2.2), refusing an over-subscribed set of lengths.
    const next = new Uint16Array(16);
    let code = 0;
    let left = 1;
    for (let len = 1; len <= 15; len++) {
      left = left * 2 - count[len];
      if (left < 0) throw new Error('invalid Huffman code lengths');
      code = (code + count[len - 1]) << 1;
      next[len] = code;
    }
    for (let sym = 0; sym < lengths.length; sym++) {
      const len = lengths[sym];
      if (!len) continue;
      // Codes are sent most significant bit first, read here least significant first: reversed.
      let c = next[len]++;
      let rev = 0;
      for (let i = 0; i < len; i++) {
        rev = (rev << 1) | (c & 1);
        c >>= 1;
      }
      for (let i = rev; i < this.table.length; i += 1 << len) this.table[i] = (sym << 4) | len;
    }
  }
}

/** @type {Huffman | null} */
let fixedLit = null;
/** @type {Huffman | null} */
let fixedDist = null;
function fixedTables() {
  if (!fixedLit || !fixedDist) {
    const lit = new Uint8Array(288);
    lit.fill(8, 0, 144);
    lit.fill(9, 144, 256);
    lit.fill(7, 256, 280);
    lit.fill(8, 280, 288);
    fixedLit = new Huffman(lit);
    fixedDist = new Huffman(new Uint8Array(30).fill(5));
  }
  return { lit: fixedLit, dist: fixedDist };
}

/** Thrown inside a step when the input runs out; the step starts again when more arrives. */
const MORE = Symbol('more input');

export class DeflateScanner {
  /** Bytes the data has expanded to so far. */
  produced = 0;
  /** The first expanded bytes (up to 20). @type {number[]} */
  head = [];
  /** Whether the data has ended (its final block has). */
  done = false;

  /** @type {Uint8Array} */
  #buf = new Uint8Array(0);
  /** Bits of #buf already read. */
  #bit = 0;
  /** @type {'block' | 'stored' | 'codes'} */
  #state = 'block';
  #final = false;
  #storedLeft = 0;
  /** @type {Huffman | null} */
  #lit = null;
  /** @type {Huffman | null} */
  #dist = null;

  /**
   * Reads more of the data. Returns how many bytes at the end of `bytes` come after the data's
   * end (once it has ended), or -1 while it goes on.
   * @param {Uint8Array} bytes
   */
  push(bytes) {
    if (this.done) return bytes.length;
    const used = this.#bit >> 3;
    const rest = this.#buf.subarray(used);
    if (rest.length) {
      const joined = new Uint8Array(rest.length + bytes.length);
      joined.set(rest);
      joined.set(bytes, rest.length);
      this.#buf = joined;
    } else {
      this.#buf = bytes;
    }
    this.#bit -= used * 8;
    try {
      while (!this.done) {
        if (this.#state === 'block') this.#blockHeader();
        else if (this.#state === 'stored') this.#stored();
        else this.#codes();
      }
    } catch (err) {
      if (err !== MORE) throw err;
      return -1;
    }
    // The data ends within its last byte read; what follows is the caller's.
    return Math.min(bytes.length, this.#buf.length - ((this.#bit + 7) >> 3));
  }

  /** `n` bits (n ≤ 24) at the read position, without reading them; MORE when they have not arrived. @param {number} n */
  #peek(n) {
    if (this.#bit + n > this.#buf.length * 8) throw MORE;
    return this.#look(n);
  }

  /** Up to 24 bits at the read position, missing ones as zeros. @param {number} n */
  #look(n) {
    const b = this.#buf;
    const i = this.#bit >> 3;
    const word = b[i] | 0 | ((b[i + 1] | 0) << 8) | ((b[i + 2] | 0) << 16) | ((b[i + 3] | 0) << 24);
    return (word >>> (this.#bit & 7)) & ((1 << n) - 1);
  }

  /** @param {number} n */
  #bits(n) {
    const v = this.#peek(n);
    this.#bit += n;
    return v;
  }

  /** One symbol of a Huffman code. @param {Huffman} h */
  #symbol(h) {
    const entry = h.table[this.#look(h.bits)];
    const len = entry & 15;
    if (this.#bit + (len || h.bits) > this.#buf.length * 8) throw MORE;
    if (!len) throw new Error('invalid Huffman code');
    this.#bit += len;
    return entry >> 4;
  }

  /** A block's header, whole or not at all (the read position goes back when the input runs out). */
  #blockHeader() {
    const start = this.#bit;
    try {
      this.#final = this.#bits(1) === 1;
      const type = this.#bits(2);
      if (type === 0) {
        this.#bit = (this.#bit + 7) & ~7;
        const len = this.#bits(16);
        const nlen = this.#bits(16);
        if ((len ^ 0xffff) !== nlen) throw new Error('invalid stored block lengths');
        this.#storedLeft = len;
        this.#state = 'stored';
      } else if (type === 1) {
        const { lit, dist } = fixedTables();
        this.#lit = lit;
        this.#dist = dist;
        this.#state = 'codes';
      } else if (type === 2) {
        this.#dynamicTables();
        this.#state = 'codes';
      } else {
        throw new Error('invalid block type');
      }
    } catch (err) {
      if (err === MORE) this.#bit = start;
      throw err;
    }
  }

  #dynamicTables() {
    const nlit = this.#bits(5) + 257;
    const ndist = this.#bits(5) + 1;
    const ncode = this.#bits(4) + 4;
    if (nlit > 286 || ndist > 30) throw new Error('too many length or distance symbols');
    const clLengths = new Uint8Array(19);
    for (let i = 0; i < ncode; i++) clLengths[CL_ORDER[i]] = this.#bits(3);
    const cl = new Huffman(clLengths);
    const lengths = new Uint8Array(nlit + ndist);
    for (let i = 0; i < lengths.length; ) {
      const sym = this.#symbol(cl);
      if (sym < 16) {
        lengths[i++] = sym;
        continue;
      }
      let repeat;
      let value = 0;
      if (sym === 16) {
        if (!i) throw new Error('repeat with no first length');
        value = lengths[i - 1];
        repeat = 3 + this.#bits(2);
      } else if (sym === 17) {
        repeat = 3 + this.#bits(3);
      } else {
        repeat = 11 + this.#bits(7);
      }
      if (i + repeat > lengths.length) throw new Error('too many lengths');
      lengths.fill(value, i, i + repeat);
      i += repeat;
    }
    if (!lengths[256]) throw new Error('no end-of-block code');
    this.#lit = new Huffman(lengths.subarray(0, nlit));
    this.#dist = new Huffman(lengths.subarray(nlit));
  }

  #stored() {
    const available = this.#buf.length - (this.#bit >> 3);
    const n = Math.min(available, this.#storedLeft);
    const from = this.#bit >> 3;
    for (let i = 0; i < n && this.head.length < HEAD_BYTES; i++) this.head.push(this.#buf[from + i]);
    this.produced += n;
    this.#storedLeft -= n;
    this.#bit += n * 8;
    if (this.#storedLeft) throw MORE;
    this.#endBlock();
  }

  #codes() {
    const lit = /** @type {Huffman} */ (this.#lit);
    const dist = /** @type {Huffman} */ (this.#dist);
    for (;;) {
      // Each symbol whole or not at all: the read position goes back when the input runs out.
      const start = this.#bit;
      try {
        const sym = this.#symbol(lit);
        if (sym < 256) {
          if (this.head.length < HEAD_BYTES) this.head.push(sym);
          this.produced++;
          continue;
        }
        if (sym === 256) {
          this.#endBlock();
          return;
        }
        const li = sym - 257;
        if (li >= 29) throw new Error('invalid length symbol');
        const length = LENGTH_BASE[li] + this.#bits(LENGTH_EXTRA[li]);
        const di = this.#symbol(dist);
        if (di >= 30) throw new Error('invalid distance symbol');
        const distance = DIST_BASE[di] + this.#bits(DIST_EXTRA[di]);
        if (distance > this.produced) throw new Error('distance too far back');
        for (let i = 0; i < length && this.head.length < HEAD_BYTES; i++) this.head.push(this.head[this.head.length - distance]);
        this.produced += length;
      } catch (err) {
        if (err === MORE) this.#bit = start;
        throw err;
      }
    }
  }

  #endBlock() {
    if (this.#final) this.done = true;
    else this.#state = 'block';
  }
}
