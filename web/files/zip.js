/** @import { FileSystem } from '../storage/types.d.ts' */
import { Unzip, UnzipInflate, zipSync } from 'fflate';
import { checkPath } from '../safety/tool-call-validator.js';
import { PROTECTED_SEGMENTS } from '../safety/tool-call-validator.js';

/** ZIP failure with a stable code and a message a person can act on. */
export class ZipError extends Error {
  /** @param {'too_large' | 'too_many_entries' | 'corrupt'} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.name = 'ZipError';
    this.code = code;
  }
}

export const ZIP_LIMITS = {
  /** Entries in one archive. */
  maxEntries: 10_000,
  /** Uncompressed bytes of all entries together, counted while inflating (headers can lie). */
  maxTotalBytes: 200 * 1024 * 1024,
  /** Uncompressed bytes of one entry. */
  maxEntryBytes: 100 * 1024 * 1024,
};

/**
 * Why an entry name may not be extracted, or null when it is safe: absolute paths, drive
 * letters, backslashes, "..", control characters and Clawser's internal folders are refused.
 * @param {string} name
 */
export function unsafeEntryReason(name) {
  if (!name || !name.replace(/\/+$/, '')) return 'empty name';
  if (name.startsWith('/') || name.startsWith('\\')) return 'absolute path';
  if (/^[a-zA-Z]:/.test(name)) return 'drive-letter path';
  return checkPath(name);
}

/**
 * Zips a folder of a FileSystem (internal folders left out).
 * @param {FileSystem} fs
 * @param {string} dir
 * @returns {Promise<Uint8Array>}
 */
export async function zipFolder(fs, dir) {
  /** @type {Record<string, Uint8Array>} */
  const files = {};
  /** @param {string} path @param {string} prefix */
  const walk = async (path, prefix) => {
    for (const e of await fs.list(path)) {
      if (PROTECTED_SEGMENTS.includes(e.name.toLowerCase())) continue;
      const child = path ? `${path}/${e.name}` : e.name;
      if (e.kind === 'directory') await walk(child, `${prefix}${e.name}/`);
      else files[`${prefix}${e.name}`] = await fs.readBytes(child);
    }
  };
  await walk(dir.replace(/\/+$/, ''), '');
  return zipSync(files, { level: 6 });
}

/**
 * Reads an archive within limits, without writing anything: the safe entries with their
 * bytes, and the refused ones with the reason. Throws ZipError when a limit is exceeded.
 * @param {Uint8Array} bytes
 * @param {Partial<typeof ZIP_LIMITS>} [limits]
 */
export function readZip(bytes, limits = {}) {
  const { maxEntries, maxTotalBytes, maxEntryBytes } = { ...ZIP_LIMITS, ...limits };
  /** @type {{path: string, data: Uint8Array}[]} */
  const entries = [];
  /** @type {{name: string, reason: string}[]} */
  const refused = [];
  let count = 0;
  let total = 0;
  /** @type {ZipError | null} */
  let failure = null;
  const unzip = new Unzip((file) => {
    if (failure) return;
    if (++count > maxEntries) {
      failure = new ZipError('too_many_entries', `The archive has more than ${maxEntries} entries; nothing was imported.`);
      return;
    }
    if (file.name.endsWith('/')) return; // folders are created with their files
    const reason = unsafeEntryReason(file.name);
    if (reason) {
      refused.push({ name: file.name, reason });
      return;
    }
    /** @type {Uint8Array[]} */
    const chunks = [];
    let size = 0;
    file.ondata = (err, chunk, final) => {
      if (failure) return;
      if (err) {
        failure = new ZipError('corrupt', `The archive is damaged ("${file.name}": ${err.message}); nothing was imported.`);
        return;
      }
      size += chunk.length;
      total += chunk.length;
      if (size > maxEntryBytes || total > maxTotalBytes) {
        failure = new ZipError('too_large', `The archive expands to more than ${Math.round((size > maxEntryBytes ? maxEntryBytes : maxTotalBytes) / 1024 / 1024)} MB${size > maxEntryBytes ? ` in "${file.name}"` : ''}; nothing was imported.`);
        file.terminate();
        return;
      }
      chunks.push(chunk);
      if (final) {
        const data = new Uint8Array(size);
        let o = 0;
        for (const c of chunks) {
          data.set(c, o);
          o += c.length;
        }
        entries.push({ path: file.name.split('/').filter(Boolean).join('/'), data });
      }
    };
    try {
      file.start();
    } catch (err) {
      refused.push({ name: file.name, reason: `unsupported compression (${/** @type {Error} */ (err).message})` });
    }
  });
  unzip.register(UnzipInflate);
  try {
    // Feed in pieces so limits stop inflation early.
    const step = 64 * 1024;
    for (let i = 0; i < bytes.length && !failure; i += step) unzip.push(bytes.subarray(i, i + step), i + step >= bytes.length);
  } catch (err) {
    if (!failure) failure = new ZipError('corrupt', `This is not a readable ZIP archive (${/** @type {Error} */ (err).message}).`);
  }
  if (failure) throw failure;
  if (count === 0 && bytes.length > 0 && !(bytes[0] === 0x50 && bytes[1] === 0x4b)) throw new ZipError('corrupt', 'This is not a ZIP archive.');
  return { entries, refused };
}

/**
 * Imports an archive into a folder: everything is read and checked first, then the safe
 * entries are written; refused entries are reported, never written.
 * @param {FileSystem} fs
 * @param {string} targetDir
 * @param {Uint8Array} bytes
 * @param {Partial<typeof ZIP_LIMITS>} [limits]
 */
export async function importZip(fs, targetDir, bytes, limits) {
  const { entries, refused } = readZip(bytes, limits);
  const base = targetDir.replace(/\/+$/, '');
  /** @type {string[]} */
  const written = [];
  for (const e of entries) {
    const path = base ? `${base}/${e.path}` : e.path;
    await fs.write(path, e.data);
    written.push(e.path);
  }
  return { written, refused };
}
