// Why this file is long: the memory index's packed layout (typed-array slots, one postings pool,
//  sweeping) is read and written by every operation; split, the layout's invariants would be spread
//  over several files.
/**
 * Search core of the agent's long-term memory: BM25 over an inverted index, plus exact
 * cosine similarity when embeddings exist, merged into one hybrid score. Pure: no DOM,
 * no storage; the store above owns the entries and feeds id + text + category (+ vector).
 *
 * Layout, chosen for the 100K-entry targets (recall ≤ 30 ms, heap ≤ 200 MB):
 * - Entries live in numeric slots (id → slot map, free list). Per-slot data sits in typed
 *   arrays: state, token count, unique-term count, category code, vector flag and scale.
 * - Postings of all terms share one Int32Array pool, one chunk per term, each posting packed
 *   as (slot << 8 | min(tf, 255)). A typed array per term would cost ~200 bytes of object
 *   overhead each, which adds up with the long tail of rare words. tf saturates in BM25,
 *   so clamping it at 255 changes scores by < 0.1%.
 * - Removal marks the slot dead; its postings are skipped at query time and swept out (and
 *   the slot freed for reuse) once they are a quarter of all postings: removing them eagerly
 *   would mean scanning the whole lists of common terms on every removal.
 * - Vectors are normalized, then quantized to int8 with one scale per vector (cosine error
 *   ~1e-3), so 100K × 384 take 38 MB instead of 154 MB. The scan stays brute force and exact
 *   on those values: a WebAssembly SIMD kernel does 100K × 384 in ~2.5 ms, where the best
 *   plain-JS loop needs ~40 ms (too slow for the 30 ms budget, and no pre-filter keeps
 *   results exact). Without WebAssembly (e.g. a CSP lacking 'wasm-unsafe-eval') the same
 *   numbers are computed by that JS loop.
 */

import { tokenize } from './tokenize.js';
import { VectorRows, loadDotsModule, quantize } from './vector-kernel.js';

export { tokenize };

const FREE = 0,
  LIVE = 1,
  DEAD = 2;
const MAX_SLOTS = 1 << 24; // postings pack the slot into 24 bits
const MAX_CATEGORIES = 256;

/**
 * @typedef {object} MemoryIndexOptions
 * @property {number} [dimensions] embedding size, default 384
 * @property {{vector?: number, keyword?: number}} [weights] hybrid weights, default 0.7 / 0.3
 * @property {number} [k1] BM25 term-frequency saturation, default 1.2
 * @property {number} [b] BM25 length normalization, default 0.75
 * @property {boolean} [wasm] false forces the plain-JS vector scan (tests, comparisons)
 */

/**
 * @typedef {object} SearchOptions
 * @property {number} [limit] default 10
 * @property {ArrayLike<number>} [queryVector] embedding of the query (`dimensions` long)
 * @property {string[]} [categories] only entries in these categories
 * @property {number} [minScore] drop hits scoring below
 * @property {{cosine: number, keyword: number}} [relevance] a floor in absolute terms (scores are
 *   relative to the best candidate, so the best always scores high): keep a hit only if its
 *   cosine similarity reaches `cosine` or its keyword `coverage` reaches `keyword`
 */

/**
 * @typedef {object} SearchHit
 * @property {string} id
 * @property {number} score weights.vector·vector + weights.keyword·keyword, or keyword alone
 *   when the query or the entry has no vector
 * @property {number} keyword BM25 divided by the best BM25 among this query's candidates, [0, 1]
 * @property {number} coverage how much of the query's keyword weight the entry matches, in
 *   absolute terms: its BM25 over the sum of the query terms' IDF (a term no entry has counts like
 *   one only a single entry has), capped at 1 — about the IDF-weighted share of the query's words it contains
 * @property {number | undefined} vector cosine in [-1, 1] when both vectors exist
 */

export class MemoryIndex {
  #dims;
  #stride;
  #wVector;
  #wKeyword;
  #k1;
  #b;
  #useWasm;

  // Slots
  #capacity = 0;
  #highWater = 0;
  /** @type {number[]} */
  #free = [];
  /** @type {Map<string, number>} */
  #slotOf = new Map();
  /** @type {(string | undefined)[]} */
  #ids = [];
  #state = new Uint8Array(0);
  #docLen = new Uint32Array(0);
  #uniq = new Uint32Array(0);
  #cat = new Uint8Array(0);
  #hasVec = new Uint8Array(0);
  #vecScale = new Float64Array(0);
  #acc = new Float64Array(0); // BM25 accumulators, all zero between searches
  #touched = new Int32Array(0);
  #live = 0;
  #totalLen = 0;
  #deadDocs = 0;
  #deadPostings = 0;
  #vectorCount = 0;

  // Categories
  /** @type {Map<string, number>} */
  #catCode = new Map();

  // Terms and postings
  /** @type {Map<string, number>} */
  #termId = new Map();
  /** @type {string[]} */
  #termWord = [];
  /** @type {number[]} */
  #freeTerms = [];
  #termCount = 0;
  #pOff = new Int32Array(0);
  #pLen = new Int32Array(0);
  #pCap = new Int32Array(0);
  #pool = new Int32Array(1024);
  #poolUsed = 0;
  #poolWaste = 0;
  #postings = 0; // live + dead postings in the pool
  #tfScratch = new Int32Array(0);

  /** @type {VectorRows | null} created with the first vector */
  #vectors = null;

  /** @param {MemoryIndexOptions} [options] */
  constructor(options = {}) {
    const dims = options.dimensions ?? 384;
    if (!Number.isInteger(dims) || dims <= 0) throw new RangeError('dimensions must be a positive integer');
    this.#dims = dims;
    this.#stride = Math.ceil(dims / 16) * 16; // the SIMD kernel reads 16 bytes at a time
    this.#wVector = options.weights?.vector ?? 0.7;
    this.#wKeyword = options.weights?.keyword ?? 0.3;
    this.#k1 = options.k1 ?? 1.2;
    this.#b = options.b ?? 0.75;
    this.#useWasm = options.wasm ?? true;
    this.#growSlots(1024);
  }

  get size() {
    return this.#live;
  }
  get vectorCount() {
    return this.#vectorCount;
  }
  get dimensions() {
    return this.#dims;
  }

  /** @param {string} id */
  has(id) {
    return this.#slotOf.has(id);
  }

  /**
   * Indexes an entry, replacing any entry with this id (its vector too: pass `vector` again,
   * or call setVector later, since a new text needs a new embedding).
   * @param {string} id
   * @param {{text: string, category: string, vector?: ArrayLike<number> | null}} entry
   */
  upsert(id, { text, category, vector }) {
    // Validate first, so a bad call leaves the index unchanged.
    const q = vector ? this.#quantizeEntry(vector) : null;
    const code = this.#categoryCode(category);
    const old = this.#slotOf.get(id);
    if (old !== undefined) {
      this.#kill(old);
      this.#maybeSweep();
    }
    const slot = this.#allocSlot();
    const tokens = tokenize(text);
    const termIds = tokens.map((token) => this.#internTerm(token));
    this.#state[slot] = LIVE;
    this.#docLen[slot] = tokens.length;
    this.#cat[slot] = code;
    this.#ids[slot] = id;
    this.#slotOf.set(id, slot);
    this.#live++;
    this.#totalLen += tokens.length;
    const tf = this.#tfScratch;
    /** @type {number[]} */
    const unique = [];
    for (const t of termIds) if (tf[t]++ === 0) unique.push(t);
    for (const t of unique) {
      this.#append(t, (slot << 8) | Math.min(tf[t], 255));
      tf[t] = 0;
    }
    this.#uniq[slot] = unique.length;
    if (q) this.#storeVector(slot, q);
  }

  /**
   * Sets (or replaces) the embedding of an existing entry.
   * @param {string} id
   * @param {ArrayLike<number>} vector `dimensions` numbers, any magnitude (normalized here)
   * @returns {boolean} false when no entry has this id
   */
  setVector(id, vector) {
    const slot = this.#slotOf.get(id);
    if (slot === undefined) return false;
    this.#storeVector(slot, this.#quantizeEntry(vector));
    return true;
  }

  /** @param {string} id @returns {boolean} whether an entry was removed */
  remove(id) {
    const slot = this.#slotOf.get(id);
    if (slot === undefined) return false;
    this.#kill(slot);
    this.#maybeSweep();
    return true;
  }

  /**
   * Ranks entries for a query. Keyword scores come from BM25 over the query's terms; with a
   * `queryVector`, every entry that has a vector is scored by cosine too (exact scan).
   * @param {string} query
   * @param {SearchOptions} [options]
   * @returns {SearchHit[]} best first
   */
  search(query, options = {}) {
    const limit = options.limit ?? 10;
    const minScore = options.minScore ?? -Infinity;
    if (!(limit > 0) || this.#live === 0) return [];
    const mask = this.#categoryMask(options.categories);
    const useVectors = options.queryVector != null && this.#vectorCount > 0;
    // Validate before the accumulators are dirtied.
    const qVec = useVectors ? this.#quantizeQuery(/** @type {ArrayLike<number>} */ (options.queryVector)) : null;

    const acc = this.#acc,
      touched = this.#touched;
    const nTouched = this.#accumulateBM25(query, mask);
    const idfSum = this.#queryIdf;
    const floor = options.relevance;
    const coverageOf = (/** @type {number} */ s) => (idfSum > 0 ? Math.min(1, acc[s] / idfSum) : 0);
    let maxBM25 = 0;
    for (let i = 0; i < nTouched; i++) if (acc[touched[i]] > maxBM25) maxBM25 = acc[touched[i]];
    const kwNorm = maxBM25 > 0 ? 1 / maxBM25 : 0;

    const top = new TopK(Math.min(limit, this.#highWater));
    /** @type {Int32Array | null} */
    let dots = null;
    let qScale = 0;
    if (qVec) {
      dots = /** @type {VectorRows} */ (this.#vectors).scan(qVec.row, this.#highWater);
      qScale = qVec.scale;
      const state = this.#state,
        cat = this.#cat,
        hasVec = this.#hasVec,
        vecScale = this.#vecScale;
      const wv = this.#wVector,
        wk = this.#wKeyword;
      for (let s = 0, n = this.#highWater; s < n; s++) {
        if (state[s] !== LIVE || (mask && !mask[cat[s]])) continue;
        let score;
        let cos = -1;
        if (hasVec[s]) {
          cos = dots[s] * qScale * vecScale[s];
          cos = cos > 1 ? 1 : cos < -1 ? -1 : cos; // quantization can overshoot by ~1e-3
          score = wv * cos + wk * acc[s] * kwNorm;
        } else if (acc[s] > 0) score = acc[s] * kwNorm;
        else continue;
        if (floor && cos < floor.cosine && coverageOf(s) < floor.keyword) continue;
        if (score >= minScore) top.push(s, score);
      }
    } else {
      for (let i = 0; i < nTouched; i++) {
        const s = touched[i];
        const score = acc[s] * kwNorm;
        if (floor && coverageOf(s) < floor.keyword) continue;
        if (score >= minScore) top.push(s, score);
      }
    }

    /** @type {SearchHit[]} */
    const hits = [];
    for (const { slot, score } of top.sorted()) {
      hits.push({
        id: /** @type {string} */ (this.#ids[slot]),
        score,
        keyword: acc[slot] * kwNorm,
        coverage: coverageOf(slot),
        vector: dots && this.#hasVec[slot] ? Math.max(-1, Math.min(1, dots[slot] * qScale * this.#vecScale[slot])) : undefined,
      });
    }
    for (let i = 0; i < nTouched; i++) acc[touched[i]] = 0;
    return hits;
  }

  /** Sizes and internals, for benchmarks and diagnostics. */
  stats() {
    return {
      size: this.#live,
      vectorCount: this.#vectorCount,
      terms: this.#termId.size,
      postings: this.#postings - this.#deadPostings,
      deadPostings: this.#deadPostings,
      slots: this.#capacity,
      poolBytes: this.#pool.byteLength,
      vectorBytes: this.#vectors?.bytes ?? 0,
      vectorKernel: this.#vectors?.kernel ?? (this.#useWasm && loadDotsModule() ? 'wasm-simd' : 'js'),
    };
  }

  // --- BM25

  /**
   * Adds each query term's BM25 contribution to #acc for the live entries (in `mask`) that
   * contain it; lists those entries in #touched. Touches only the query terms' postings.
   * @param {string} query
   * @param {Uint8Array | null} mask
   * @returns {number} how many entries were touched
   */
  #accumulateBM25(query, mask) {
    const acc = this.#acc,
      touched = this.#touched,
      state = this.#state,
      cat = this.#cat,
      docLen = this.#docLen;
    const pool = this.#pool;
    const n = this.#live;
    const k1 = this.#k1;
    const normA = k1 * (1 - this.#b);
    const normB = (k1 * this.#b) / (this.#totalLen / n || 1);
    let nTouched = 0;
    // A word no entry has weighs like the rarest word an entry can have (df = 1).
    const idfMax = Math.log(1 + (n - 0.5) / 1.5);
    let idfSum = 0;
    for (const token of new Set(tokenize(query))) {
      const t = this.#termId.get(token);
      if (t === undefined) {
        idfSum += idfMax;
        continue;
      }
      const start = this.#pOff[t],
        end = start + this.#pLen[t];
      let df = end - start;
      if (this.#deadDocs > 0) {
        df = 0;
        for (let i = start; i < end; i++) if (state[pool[i] >>> 8] === LIVE) df++;
      }
      if (df === 0) {
        idfSum += idfMax;
        continue;
      }
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      idfSum += idf;
      const idfK = idf * (k1 + 1);
      for (let i = start; i < end; i++) {
        const p = pool[i];
        const s = p >>> 8;
        if (state[s] !== LIVE || (mask && !mask[cat[s]])) continue;
        const tf = p & 255;
        if (acc[s] === 0) touched[nTouched++] = s;
        acc[s] += (idfK * tf) / (tf + normA + normB * docLen[s]);
      }
    }
    this.#queryIdf = idfSum;
    return nTouched;
  }

  /** The sum of the last query's term IDFs (see SearchHit.coverage). */
  #queryIdf = 0;

  // --- Slots

  #allocSlot() {
    if (this.#free.length === 0 && this.#highWater === this.#capacity) {
      // Reclaim dead slots rather than grow when enough are waiting.
      if (this.#deadDocs * 8 >= this.#capacity) this.#sweep();
      else this.#growSlots(Math.min(this.#capacity * 2, MAX_SLOTS));
    }
    const slot = this.#free.length > 0 ? /** @type {number} */ (this.#free.pop()) : this.#highWater++;
    if (slot >= MAX_SLOTS) throw new RangeError(`MemoryIndex holds at most ${MAX_SLOTS} entries`);
    return slot;
  }

  /** @param {number} capacity */
  #growSlots(capacity) {
    if (capacity <= this.#capacity) throw new RangeError(`MemoryIndex holds at most ${MAX_SLOTS} entries`);
    this.#state = grow(this.#state, capacity);
    this.#docLen = grow(this.#docLen, capacity);
    this.#uniq = grow(this.#uniq, capacity);
    this.#cat = grow(this.#cat, capacity);
    this.#hasVec = grow(this.#hasVec, capacity);
    this.#vecScale = grow(this.#vecScale, capacity);
    this.#acc = new Float64Array(capacity);
    this.#touched = new Int32Array(capacity);
    this.#vectors?.grow(capacity);
    this.#capacity = capacity;
  }

  /** Marks a slot dead: out of every result now, postings swept later. @param {number} slot */
  #kill(slot) {
    this.#slotOf.delete(/** @type {string} */ (this.#ids[slot]));
    this.#ids[slot] = undefined;
    this.#state[slot] = DEAD;
    this.#live--;
    this.#totalLen -= this.#docLen[slot];
    this.#deadDocs++;
    this.#deadPostings += this.#uniq[slot];
    if (this.#hasVec[slot]) {
      this.#hasVec[slot] = 0;
      this.#vectorCount--;
    }
  }

  #maybeSweep() {
    if (this.#deadPostings * 4 > this.#postings || (this.#live === 0 && this.#deadDocs > 0)) this.#sweep();
  }

  /** Drops dead postings from the pool, frees dead slots and terms left without postings. */
  #sweep() {
    this.#rebuildPool(0, true);
    for (let s = 0; s < this.#highWater; s++) {
      if (this.#state[s] === DEAD) {
        this.#state[s] = FREE;
        this.#free.push(s);
      }
    }
    // Lowest slots first keeps the scanned range [0, highWater) dense.
    this.#free.sort((a, b) => b - a);
    while (this.#highWater > 0 && this.#state[this.#highWater - 1] === FREE) this.#highWater--;
    this.#free = this.#free.filter((s) => s < this.#highWater);
    this.#deadDocs = 0;
    this.#deadPostings = 0;
  }

  // --- Terms and postings

  /** @param {string} word */
  #internTerm(word) {
    let t = this.#termId.get(word);
    if (t !== undefined) return t;
    t = this.#freeTerms.length > 0 ? /** @type {number} */ (this.#freeTerms.pop()) : this.#termCount++;
    if (t >= this.#pOff.length) {
      const cap = Math.max(1024, this.#pOff.length * 2);
      this.#pOff = grow(this.#pOff, cap);
      this.#pLen = grow(this.#pLen, cap);
      this.#pCap = grow(this.#pCap, cap);
      this.#tfScratch = grow(this.#tfScratch, cap);
    }
    this.#termId.set(word, t);
    this.#termWord[t] = word;
    this.#pOff[t] = this.#pLen[t] = this.#pCap[t] = 0;
    return t;
  }

  /** @param {number} t @param {number} posting */
  #append(t, posting) {
    if (this.#pLen[t] === this.#pCap[t]) this.#relocate(t);
    this.#pool[this.#pOff[t] + this.#pLen[t]++] = posting;
    this.#postings++;
  }

  /** Gives term t a chunk twice as large, at the end of the pool. @param {number} t */
  #relocate(t) {
    const cap = this.#pCap[t],
      len = this.#pLen[t];
    const newCap = Math.max(4, cap * 2);
    if (cap > 0 && this.#pOff[t] + cap === this.#poolUsed && this.#poolUsed + newCap - cap <= this.#pool.length) {
      this.#poolUsed += newCap - cap; // last chunk: extend in place
      this.#pCap[t] = newCap;
      return;
    }
    if (this.#poolUsed + newCap > this.#pool.length) {
      // Reclaim relocation waste before growing once it is a third of the pool.
      if (this.#poolWaste * 3 > this.#pool.length) this.#rebuildPool(newCap, false);
      else this.#pool = grow(this.#pool, Math.max(Math.ceil(this.#pool.length * 1.5), this.#poolUsed + newCap));
      if (this.#pLen[t] < this.#pCap[t]) return; // the rebuild left room
    }
    const off = this.#poolUsed;
    this.#pool.copyWithin(off, this.#pOff[t], this.#pOff[t] + len);
    this.#poolWaste += cap;
    this.#pOff[t] = off;
    this.#pCap[t] = newCap;
    this.#poolUsed += newCap;
  }

  /**
   * Copies every term's postings into a fresh pool, each chunk with 25% headroom, which
   * drops the waste left by relocations. With `dropDead` (sweeps only, never while a
   * document is being appended) it also drops dead postings and forgets emptied terms.
   * @param {number} extra free room to leave at the end
   * @param {boolean} dropDead
   */
  #rebuildPool(extra, dropDead) {
    const state = this.#state,
      old = this.#pool,
      pOff = this.#pOff,
      pLen = this.#pLen,
      pCap = this.#pCap;
    let need = extra;
    for (let t = 0; t < this.#termCount; t++) if (pLen[t] > 0) need += pLen[t] + (pLen[t] >> 2) + 1;
    const pool = new Int32Array(Math.max(1024, need));
    let used = 0,
      postings = 0;
    for (let t = 0; t < this.#termCount; t++) {
      const start = pOff[t],
        end = start + pLen[t];
      let len = 0;
      for (let i = start; i < end; i++) {
        const p = old[i];
        if (!dropDead || state[p >>> 8] === LIVE) pool[used + len++] = p;
      }
      if (len === 0) {
        if (dropDead && this.#termWord[t]) {
          this.#termId.delete(this.#termWord[t]);
          this.#termWord[t] = '';
          this.#freeTerms.push(t);
        }
        pOff[t] = pLen[t] = pCap[t] = 0;
        continue;
      }
      pOff[t] = used;
      pLen[t] = len;
      pCap[t] = len + (len >> 2) + 1;
      used += pCap[t];
      postings += len;
    }
    this.#pool = pool;
    this.#poolUsed = used;
    this.#poolWaste = 0;
    this.#postings = postings;
  }

  // --- Categories

  /** @param {string} category */
  #categoryCode(category) {
    const name = String(category ?? '');
    let code = this.#catCode.get(name);
    if (code === undefined) {
      if (this.#catCode.size >= MAX_CATEGORIES) throw new RangeError(`MemoryIndex supports at most ${MAX_CATEGORIES} categories`);
      code = this.#catCode.size;
      this.#catCode.set(name, code);
    }
    return code;
  }

  /** @param {string[] | undefined} categories */
  #categoryMask(categories) {
    if (!categories) return null;
    const mask = new Uint8Array(MAX_CATEGORIES);
    for (const c of categories) {
      const code = this.#catCode.get(c);
      if (code !== undefined) mask[code] = 1;
    }
    return mask;
  }

  // --- Vectors

  /** @param {ArrayLike<number>} vector */
  #quantizeEntry(vector) {
    const row = new Int8Array(this.#stride);
    return { row, scale: quantize(vector, this.#dims, row, 127) };
  }

  /** @param {ArrayLike<number>} vector */
  #quantizeQuery(vector) {
    // int16 query × int8 rows summed in int32: keep stride · maxInt · 127 below 2^31.
    const maxInt = Math.min(32767, Math.floor(0x7fffffff / (127 * this.#stride)));
    const row = new Int16Array(this.#stride);
    return { row, scale: quantize(vector, this.#dims, row, maxInt) };
  }

  /** @param {number} slot @param {{row: Int8Array, scale: number}} q */
  #storeVector(slot, q) {
    this.#vectors ??= new VectorRows(this.#stride, this.#capacity, this.#useWasm);
    this.#vectors.rows.set(q.row, slot * this.#stride);
    this.#vecScale[slot] = q.scale;
    if (!this.#hasVec[slot]) {
      this.#hasVec[slot] = 1;
      this.#vectorCount++;
    }
  }
}

/**
 * A copy of `a` with room for `length` elements.
 * @template {Int32Array | Uint32Array | Uint8Array | Float64Array} T
 * @param {T} a
 * @param {number} length
 * @returns {T}
 */
function grow(a, length) {
  const b = /** @type {T} */ (new /** @type {any} */ (a.constructor)(length)); // any: the constructor of a typed-array union
  b.set(/** @type {any} */ (a)); // any: TS cannot relate T's set() parameter to T itself
  return b;
}

/** The k best (slot, score) pairs seen, via a min-heap on score: O(n log k), no full sort. */
class TopK {
  /** @param {number} k */
  constructor(k) {
    this.k = Math.max(0, Math.floor(k));
    this.slots = new Int32Array(this.k);
    this.scores = new Float64Array(this.k);
    this.n = 0;
  }

  /** @param {number} slot @param {number} score */
  push(slot, score) {
    const slots = this.slots,
      scores = this.scores;
    if (this.n < this.k) {
      let i = this.n++;
      while (i > 0) {
        // sift up
        const p = (i - 1) >> 1;
        if (scores[p] <= score) break;
        slots[i] = slots[p];
        scores[i] = scores[p];
        i = p;
      }
      slots[i] = slot;
      scores[i] = score;
    } else if (this.k > 0 && score > scores[0]) {
      let i = 0; // replace the minimum, sift down
      const n = this.n;
      for (;;) {
        let c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && scores[c + 1] < scores[c]) c++;
        if (scores[c] >= score) break;
        slots[i] = slots[c];
        scores[i] = scores[c];
        i = c;
      }
      slots[i] = slot;
      scores[i] = score;
    }
  }

  /** Best first; ties by slot, so results are deterministic. */
  sorted() {
    const out = [];
    for (let i = 0; i < this.n; i++) out.push({ slot: this.slots[i], score: this.scores[i] });
    return out.sort((a, b) => b.score - a.score || a.slot - b.slot);
  }
}
