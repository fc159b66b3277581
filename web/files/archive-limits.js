/**
 * One set of limits for every place Clawser expands an archive — the Files panel's ZIP import,
 * skills from a ZIP, a backup restore, the embedding model's ZIP, the shell's `unzip`,
 * `tar -x` and `gunzip`/`zcat`/`gzip -d`, and the pack a git clone or pull receives
 * (web/git/pack-limits.js) — with one message for each limit. Sizes are counted
 * while inflating (an archive's headers can lie), in small steps so a limit stops inflation
 * early, and nothing is written until the whole archive has been read within them.
 *
 * Beside the sizes, a ratio: a small archive that expands to many times its size (a "zip bomb":
 * 150 KB of ZIP expanding to 150 MB of zeros) is refused once its expansion passes a free
 * allowance, however its bytes are spread over entries.
 */
import { Gunzip, Unzip, UnzipInflate } from 'fflate';

const MB = 1024 * 1024;

/** @typedef {{maxEntries: number, maxEntryBytes: number, maxTotalBytes: number, maxRatio: number, ratioFreeBytes: number}} ArchiveLimits */

/** The limits every path uses unless it has a documented reason for larger sizes (a backup, the model). */
export const ARCHIVE_LIMITS = /** @type {Readonly<ArchiveLimits>} */ (
  Object.freeze({
    /** Entries in one archive (folders included). */
    maxEntries: 10_000,
    /** Expanded bytes of one entry. */
    maxEntryBytes: 100 * MB,
    /** Expanded bytes of the whole archive. */
    maxTotalBytes: 200 * MB,
    /** Expanded bytes per byte of archive, beyond the free allowance below. */
    maxRatio: 100,
    /** Expansion that is never judged by the ratio (small archives of very repetitive text). */
    ratioFreeBytes: 10 * MB,
  })
);

/** An archive refused by a limit: nothing was extracted. `limit` says which one. */
export class ArchiveLimitError extends Error {
  /** @param {'too_large' | 'too_many_entries'} code @param {'entries' | 'entry' | 'total' | 'ratio'} limit @param {string} message */
  constructor(code, limit, message) {
    super(message);
    this.name = 'ArchiveLimitError';
    this.code = code;
    this.limit = limit;
  }
}

/** An archive that cannot be read (damaged, not an archive, an unknown compression). */
export class ArchiveFormatError extends Error {
  /** @param {string} detail what is wrong @param {string} [entry] the entry it concerns */
  constructor(detail, entry) {
    super(entry ? `"${entry}": ${detail}` : detail);
    this.name = 'ArchiveFormatError';
    this.code = 'corrupt';
    this.detail = detail;
    this.entry = entry;
  }
}

/** @param {number} bytes */
export function formatSize(bytes) {
  if (bytes < MB) return `${Math.max(1, Math.ceil(bytes / 1024))} KB`;
  const mb = bytes / MB;
  return `${mb >= 10 || Number.isInteger(mb) ? Math.round(mb) : mb.toFixed(1)} MB`;
}

/**
 * Counts what an archive expands to, against the limits; throws ArchiveLimitError (the same
 * message on every path) the moment one is passed.
 */
export class ExpansionBudget {
  /** @param {number} archiveBytes the archive's own size (for the ratio) @param {Partial<ArchiveLimits>} [limits] */
  constructor(archiveBytes, limits = {}) {
    /** @type {ArchiveLimits} */
    this.limits = { ...ARCHIVE_LIMITS, ...limits };
    this.archiveBytes = archiveBytes;
    this.entries = 0;
    this.total = 0;
    /** The expansion the ratio allows this archive. */
    this.ratioBytes = Math.max(this.limits.ratioFreeBytes, this.limits.maxRatio * archiveBytes);
  }

  /**
   * One more entry; returns the counter of its expanded bytes.
   * @param {string} name @returns {{add: (bytes: number) => void, size: () => number}}
   */
  entry(name) {
    const { maxEntries } = this.limits;
    if (++this.entries > maxEntries)
      throw new ArchiveLimitError(
        'too_many_entries',
        'entries',
        `The archive has more than ${maxEntries.toLocaleString('en-US')} entries, more than Clawser expands from one archive; nothing ` +
          `was extracted.`,
      );
    let size = 0;
    return {
      add: (bytes) => {
        size += bytes;
        if (size > this.limits.maxEntryBytes)
          throw new ArchiveLimitError(
            'too_large',
            'entry',
            `"${name}" in the archive expands to more than ${formatSize(this.limits.maxEntryBytes)}, more than Clawser expands for one ` +
              `file; nothing was extracted.`,
          );
        this.add(bytes);
      },
      size: () => size,
    };
  }

  /**
   * More of the archive has arrived, for an archive read as it streams in (a git fetch's pack):
   * its size is not known up front, so the ratio is judged against what has arrived so far.
   * @param {number} bytes
   */
  received(bytes) {
    this.archiveBytes += bytes;
    this.ratioBytes = Math.max(this.limits.ratioFreeBytes, this.limits.maxRatio * this.archiveBytes);
  }

  /** Expanded bytes not tied to an entry (a gzip stream holding a tar). @param {number} bytes */
  add(bytes) {
    this.total += bytes;
    const { maxTotalBytes, maxRatio } = this.limits;
    if (this.total > maxTotalBytes)
      throw new ArchiveLimitError(
        'too_large',
        'total',
        `The archive expands to more than ${formatSize(maxTotalBytes)}, more than Clawser expands from one archive; nothing was extracted.`,
      );
    if (this.total > this.ratioBytes)
      throw new ArchiveLimitError(
        'too_large',
        'ratio',
        `The archive expands to more than ${maxRatio} times its size (${formatSize(this.archiveBytes)} to more ` +
          `than ${formatSize(this.ratioBytes)}), as zip bombs do; nothing was extracted.`,
      );
  }
}

/** Input is fed in steps this small, so one step cannot expand far past a limit (deflate: ~1,000×). */
const STEP = 16 * 1024;

/**
 * The entries of a ZIP archive, expanded within the limits, in archive order (folders, whose
 * names end in '/', have no data). `select` says which files to expand (the rest are counted,
 * never inflated) and may throw to refuse the archive; entries with a compression fflate cannot
 * read are listed in `unsupported`.
 * @param {Uint8Array} bytes
 * @param {{limits?: Partial<ArchiveLimits>, select?: (name: string) => boolean}} [options]
 * @returns {{entries: {name: string, data: Uint8Array}[], unsupported: {name: string, reason: string}[], count: number}}
 * @throws {ArchiveLimitError | ArchiveFormatError | Error} (or what `select` threw)
 */
export function expandZip(bytes, { limits, select } = {}) {
  const budget = new ExpansionBudget(bytes.length, limits);
  /** @type {{name: string, data: Uint8Array}[]} */
  const entries = [];
  /** @type {{name: string, reason: string}[]} */
  const unsupported = [];
  /** @type {unknown} */
  let failure = null;
  const unzip = new Unzip((file) => {
    if (failure) return;
    try {
      const counter = budget.entry(file.name);
      if (file.name.endsWith('/')) {
        entries.push({ name: file.name, data: new Uint8Array(0) });
        return;
      }
      if (select && !select(file.name)) return;
      /** @type {Uint8Array[]} */
      const chunks = [];
      file.ondata = (err, chunk, final) => {
        if (failure) return;
        try {
          if (err) throw new ArchiveFormatError(err.message, file.name);
          counter.add(chunk.length);
          chunks.push(chunk);
          if (final) entries.push({ name: file.name, data: concat(chunks, counter.size()) });
        } catch (e) {
          failure = e;
          file.terminate();
        }
      };
      try {
        file.start();
      } catch (err) {
        unsupported.push({ name: file.name, reason: `unsupported compression (${err instanceof Error ? err.message : String(err)})` });
      }
    } catch (e) {
      failure = e;
    }
  });
  unzip.register(UnzipInflate);
  try {
    for (let i = 0; i < bytes.length && !failure; i += STEP) unzip.push(bytes.subarray(i, i + STEP), i + STEP >= bytes.length);
  } catch (err) {
    failure ??= new ArchiveFormatError(`not a readable ZIP archive (${err instanceof Error ? err.message : String(err)})`);
  }
  if (failure) throw failure;
  return { entries, unsupported, count: budget.entries };
}

/**
 * gzip data expanded within the limits (as one entry named `name`; concatenated members are
 * expanded one after the other, as gzip does).
 * @param {Uint8Array} bytes @param {string} name
 * @param {{limits?: Partial<ArchiveLimits>, budget?: ExpansionBudget}} [options] a budget to count into (a tar inside)
 * @returns {Uint8Array}
 * @throws {ArchiveLimitError | ArchiveFormatError}
 */
export function expandGzip(bytes, name, { limits, budget } = {}) {
  const counter = budget ? { add: (/** @type {number} */ n) => budget.add(n) } : new ExpansionBudget(bytes.length, limits).entry(name);
  /** @type {Uint8Array[]} */
  const chunks = [];
  let size = 0;
  /** @type {unknown} */
  let failure = null;
  const gunzip = new Gunzip((chunk) => {
    if (failure) return;
    try {
      counter.add(chunk.length);
      size += chunk.length;
      chunks.push(chunk);
    } catch (e) {
      failure = e;
    }
  });
  try {
    for (let i = 0; i < bytes.length && !failure; i += STEP) gunzip.push(bytes.subarray(i, i + STEP), i + STEP >= bytes.length);
  } catch (err) {
    failure ??= new ArchiveFormatError(`not valid gzip data (${err instanceof Error ? err.message : String(err)})`);
  }
  if (failure) throw failure;
  return concat(chunks, size);
}

/** @param {Uint8Array[]} chunks @param {number} size */
function concat(chunks, size) {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
