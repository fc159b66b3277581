/**
 * The vector kernel of the memory search: int8 rows of normalized, quantized vectors and their
 * exact dot products with a query — a WebAssembly SIMD kernel, or the same numbers from a plain
 * JS loop where WebAssembly is unavailable (e.g. a CSP lacking 'wasm-unsafe-eval'). See
 * search.js for why the scan stays brute force. Pure: no DOM, no storage.
 */

/*
 * dots(q, v, stride, n, out): for each of n int8 rows at v (stride bytes apart), the int32
 * dot product with the int16 query at q, written to out. stride is a multiple of 16.
 * Assembled with wabt from:
 *
 * (module
 *   (import "m" "mem" (memory 1))
 *   (func (export "dots") (param $q i32) (param $v i32) (param $stride i32) (param $n i32) (param $out i32)
 *     (local $j i32) (local $acc v128) (local $x v128)
 *     (block $done
 *       (loop $rows
 *         (br_if $done (i32.eqz (local.get $n)))
 *         (local.set $acc (v128.const i32x4 0 0 0 0))
 *         (local.set $j (i32.const 0))
 *         (loop $cols
 *           (local.set $x (v128.load (i32.add (local.get $v) (local.get $j))))
 *           (local.set $acc (i32x4.add (local.get $acc)
 *             (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $x))
 *               (v128.load (i32.add (local.get $q) (i32.shl (local.get $j) (i32.const 1)))))))
 *           (local.set $acc (i32x4.add (local.get $acc)
 *             (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $x))
 *               (v128.load offset=16 (i32.add (local.get $q) (i32.shl (local.get $j) (i32.const 1)))))))
 *           (br_if $cols (i32.lt_u (local.tee $j (i32.add (local.get $j) (i32.const 16))) (local.get $stride))))
 *         (i32.store (local.get $out)
 *           (i32.add
 *             (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
 *             (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
 *         (local.set $v (i32.add (local.get $v) (local.get $stride)))
 *         (local.set $out (i32.add (local.get $out) (i32.const 4)))
 *         (local.set $n (i32.sub (local.get $n) (i32.const 1)))
 *         (br $rows)))))
 */
const DOTS_WASM =
  'AGFzbQEAAAABCQFgBX9/f39/AAIKAQFtA21lbQIAAQMCAQAHCAEEZG90cwAACq8BAawBAgF/' +
  'AnsCQANAIANFDQH9DAAAAAAAAAAAAAAAAAAAAAAhBkEAIQUDQCABIAVq/QAEACEHIAYgB/2HASAAIAVBAXRq/QAEAP26Af2uASEGIAYgB/' +
  '2IASAAIAVBAXRq/QAEEP26Af2uASEGIAVBEGoiBSACSQ0ACyAEIAb9GwAgBv0bAWogBv0bAiAG/' +
  'RsDamo2AgAgASACaiEBIARBBGohBCADQQFrIQMMAAsLCw==';

/** @type {WebAssembly.Module | null | undefined} undefined: not tried yet; null: unavailable */
let dotsModule;

export function loadDotsModule() {
  if (dotsModule === undefined) {
    try {
      dotsModule = new WebAssembly.Module(Uint8Array.from(atob(DOTS_WASM), (c) => c.charCodeAt(0)));
    } catch {
      dotsModule = null; // no WebAssembly, no SIMD, or a CSP without 'wasm-unsafe-eval'
    }
  }
  return dotsModule;
}

const WASM_PAGE = 65536;

/** int8 rows, one per slot, with a batch dot product against an int16 query. */
export class VectorRows {
  /** @type {WebAssembly.Memory | null} */
  #memory = null;
  /** @type {((q: number, v: number, stride: number, n: number, out: number) => void) | null} */
  #dots = null;
  /** @type {ArrayBuffer} */
  #buffer;
  #stride;
  #capacity = 0;
  /** @type {Int8Array} */
  rows;
  /** JS fallback: query as doubles (measured faster than reading an Int16Array), results */
  #qf = new Float64Array(0);
  #out = new Int32Array(0);

  /** @param {number} stride @param {number} capacity @param {boolean} useWasm */
  constructor(stride, capacity, useWasm) {
    this.#stride = stride;
    const module = useWasm ? loadDotsModule() : null;
    if (module) {
      this.#memory = new WebAssembly.Memory({ initial: 1 });
      const instance = new WebAssembly.Instance(module, { m: { mem: this.#memory } });
      this.#dots = /** @type {(q: number, v: number, stride: number, n: number, out: number) => void} */ (instance.exports.dots);
      this.#buffer = this.#memory.buffer;
    } else {
      this.#buffer = new ArrayBuffer(0);
    }
    this.rows = new Int8Array(0);
    this.grow(capacity);
  }

  get kernel() {
    return this.#memory ? 'wasm-simd' : 'js';
  }
  get bytes() {
    return this.#buffer.byteLength;
  }

  /** @param {number} capacity */
  grow(capacity) {
    if (capacity <= this.#capacity) return;
    const stride = this.#stride;
    if (this.#memory) {
      // Rows first, then scratch (query, results), which moves as the rows grow.
      const need = capacity * stride + stride * 2 + capacity * 4;
      const have = this.#memory.buffer.byteLength;
      if (need > have) this.#memory.grow(Math.ceil((need - have) / WASM_PAGE));
      this.#buffer = this.#memory.buffer;
    } else {
      const buffer = new ArrayBuffer(capacity * stride);
      new Int8Array(buffer).set(this.rows);
      this.#buffer = buffer;
      this.#out = new Int32Array(capacity);
      this.#qf = new Float64Array(stride);
    }
    this.#capacity = capacity;
    this.rows = new Int8Array(this.#buffer, 0, capacity * stride);
  }

  /**
   * Dot products of the query with rows [0, n).
   * @param {Int16Array} q `stride` values
   * @param {number} n
   * @returns {Int32Array}
   */
  scan(q, n) {
    const stride = this.#stride;
    if (this.#dots) {
      const qOff = this.#capacity * stride;
      const outOff = qOff + stride * 2;
      new Int16Array(this.#buffer, qOff, stride).set(q);
      this.#dots(qOff, 0, stride, n, outOff);
      return new Int32Array(this.#buffer, outOff, n);
    }
    const rows = this.rows,
      qf = this.#qf,
      out = this.#out;
    qf.set(q);
    for (let s = 0, o = 0; s < n; s++, o += stride) {
      let a0 = 0,
        a1 = 0,
        a2 = 0,
        a3 = 0;
      for (let j = 0; j < stride; j += 4) {
        a0 += qf[j] * rows[o + j];
        a1 += qf[j + 1] * rows[o + j + 1];
        a2 += qf[j + 2] * rows[o + j + 2];
        a3 += qf[j + 3] * rows[o + j + 3];
      }
      out[s] = a0 + a1 + a2 + a3;
    }
    return out;
  }
}

/**
 * Normalizes `vector` and quantizes it into `out` (zero-padded to its length) as integers in
 * [-maxInt, maxInt]. Returns the scale: component ≈ out[i] * scale.
 * @param {ArrayLike<number>} vector
 * @param {number} dims
 * @param {Int8Array | Int16Array} out
 * @param {number} maxInt
 */
export function quantize(vector, dims, out, maxInt) {
  if (!vector || vector.length !== dims) throw new RangeError(`Expected a vector of ${dims} dimensions, got ${vector?.length}`);
  let sum = 0,
    maxAbs = 0;
  for (let i = 0; i < dims; i++) {
    const x = vector[i];
    if (!Number.isFinite(x)) throw new RangeError('Vector has a non-finite component');
    sum += x * x;
    if (Math.abs(x) > maxAbs) maxAbs = Math.abs(x);
  }
  if (sum === 0) throw new RangeError('Cannot normalize a zero vector');
  const norm = Math.sqrt(sum);
  const scale = maxAbs / norm / maxInt;
  const k = 1 / (norm * scale);
  out.fill(0);
  for (let i = 0; i < dims; i++) out[i] = Math.round(vector[i] * k);
  return scale;
}
