/** @import { FileSystem } from '../storage/types.d.ts' */
import { concatBytes, decodeVectorFile, encodeVectorHeader } from './vectors.js';

/** @typedef {{id: string, textLength: number, textHash: number, vector: Float32Array, start: number, end: number}} VectorRecord */

/**
 * `.memory/vectors.bin`: the memories' embeddings, appended in records after a header that
 * names the model (format in vectors.js). Writes are queued one after another; a failed
 * append marks the file for repair (the tail is checked before the next one); a file that
 * cannot be read is never overwritten. What a record belongs to is the caller's business:
 * `load` and `compact` ask it per record.
 */
export class VectorFile {
  /**
   * valid — its header is usable and appends can follow; model — the tag in (or for) its
   * header; records — records in it; repair — an append failed, so the tail must be checked
   * before the next one; disabled — unreadable: never overwritten.
   */
  #state = { valid: false, model: /** @type {string | null} */ (null), records: 0, repair: false, disabled: false };
  #chain = Promise.resolve();

  /**
   * @param {{fs: FileSystem, path: string, dimensions: number, modelTag?: () => string | undefined}} deps modelTag: the model for a new
   *   header when none was adopted
   */
  constructor(deps) {
    this.fs = deps.fs;
    this.path = deps.path;
    this.dimensions = deps.dimensions;
    this.modelTag = deps.modelTag ?? (() => undefined);
  }

  /** The model whose vectors the file holds (or will hold). */
  get model() {
    return this.#state.model;
  }

  /** Vectors of another model follow: the next write starts a new file with its header. @param {string} tag */
  adopt(tag) {
    this.#state.model = tag;
    this.#state.valid = false;
  }

  /** Resolves when every write queued so far is done. */
  settled() {
    return this.#chain;
  }

  /**
   * Reads the file: each record is offered to `take` (which keeps the vectors it wants). A
   * torn end (a tab closed mid-append) is cut off; a file of another size or format is
   * replaced by the next write.
   * @param {(record: VectorRecord) => void} take
   * @returns {Promise<{records: number, torn: boolean}>}
   */
  async load(take) {
    /** @type {Uint8Array} */
    let bytes;
    try {
      bytes = await this.fs.readBytes(this.path);
    } catch (err) {
      if (/** @type {{code?: string}} */ (err)?.code !== 'not_found') {
        // Memory still works (keywords, and vectors computed again); the file is left alone.
        console.warn('Memory vectors could not be read; they are recomputed this session', err);
        this.#state.disabled = true;
      }
      return { records: 0, torn: false };
    }
    const result = decodeVectorFile(bytes, (r) => {
      if (r.vector.length === this.dimensions) take(r);
    });
    if (!result.header || result.header.dimensions !== this.dimensions) {
      this.#state = { valid: false, model: null, records: 0, repair: false, disabled: false };
      return { records: 0, torn: bytes.length > 0 };
    }
    this.#state = { valid: true, model: result.header.modelTag, records: result.records, repair: false, disabled: false };
    if (result.torn) {
      try {
        await this.fs.truncate(this.path, result.validBytes);
      } catch {
        this.#state.repair = true;
      }
    }
    return { records: result.records, torn: result.torn };
  }

  /** Most records are superseded (a later vector of the same memory, or a memory gone). @param {number} live vectors in use */
  isStale(live) {
    return this.#state.records >= 1000 && this.#state.records > live * 2;
  }

  /**
   * Appends records (after any earlier write). Failures are logged, not thrown: the vectors
   * are in the index already and are computed again after a reload if they were not saved.
   * @param {Uint8Array[]} records
   * @param {{live: () => number, keep: (record: VectorRecord) => boolean}} compaction when the file grew stale: which records stay
   */
  append(records, compaction) {
    this.#chain = this.#chain
      .then(async () => {
        const s = this.#state;
        if (s.disabled) return;
        if (!s.valid) return this.#writeNew(records);
        if (s.repair) {
          // An earlier append may have left a partial record: cut back to the last whole one.
          const result = decodeVectorFile(await this.fs.readBytes(this.path), () => {});
          s.repair = false;
          if (!result.header) return this.#writeNew(records);
          if (result.torn) await this.fs.truncate(this.path, result.validBytes);
          s.records = result.records;
        }
        try {
          await this.fs.append(this.path, concatBytes(records));
        } catch (err) {
          s.repair = true;
          throw err;
        }
        s.records += records.length;
        if (this.isStale(compaction.live())) await this.#compact(compaction.keep);
      })
      .catch((err) => console.warn('Memory vectors could not be saved; they are recomputed after a reload', err));
  }

  /** Queues a rewrite keeping one record per memory whose text it matches. @param {(record: VectorRecord) => boolean} keep */
  compact(keep) {
    this.#chain = this.#chain.then(() => this.#compact(keep)).catch((err) => console.warn('Memory vectors compaction failed', err));
    return this.#chain;
  }

  /** A new file with these records (the old one is absent, of another model, or unusable). @param {Uint8Array[]} records */
  async #writeNew(records) {
    const header = encodeVectorHeader(this.dimensions, this.#state.model ?? this.modelTag() ?? 'unknown');
    await this.fs.write(this.path, concatBytes([header, ...records]));
    Object.assign(this.#state, { valid: true, repair: false, records: records.length });
  }

  /** Rewrites the file (atomically) with the last kept record of each memory. @param {(record: VectorRecord) => boolean} keep */
  async #compact(keep) {
    if (this.#state.disabled || !this.#state.valid) return;
    const bytes = await this.fs.readBytes(this.path);
    /** @type {Map<string, [number, number]>} */
    const latest = new Map();
    const result = decodeVectorFile(bytes, (r) => {
      if (keep(r)) latest.set(r.id, [r.start, r.end]);
    });
    if (!result.header) return;
    const parts = [bytes.subarray(0, result.header.size)];
    for (const [start, end] of latest.values()) parts.push(bytes.subarray(start, end));
    await this.fs.write(this.path, concatBytes(parts));
    this.#state.records = latest.size;
    this.#state.repair = false;
  }
}
