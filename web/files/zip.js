/** @import { FileSystem } from '../storage/types.d.ts' */
/** @import { ArchiveLimits } from './archive-limits.js' */
import { zipSync } from 'fflate';
import { ARCHIVE_LIMITS, ArchiveFormatError, ArchiveLimitError, expandZip } from './archive-limits.js';
import { checkPath } from '../safety/tool-call-validator.js';
import { PROTECTED_SEGMENTS } from '../storage/workspace-folders.js';

/** ZIP failure with a stable code and a message a person can act on. */
export class ZipError extends Error {
  /** @param {'too_large' | 'too_many_entries' | 'corrupt'} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.name = 'ZipError';
    this.code = code;
  }
}

/** The limits of a ZIP import: the shared archive limits (entries, sizes, ratio). */
export const ZIP_LIMITS = ARCHIVE_LIMITS;

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
 * Reads an archive within the shared archive limits (web/files/archive-limits.js), without
 * writing anything: the safe entries with their bytes, and the refused ones with the reason.
 * Throws ZipError when a limit is passed (the message every archive path gives) or the archive
 * cannot be read.
 * @param {Uint8Array} bytes
 * @param {Partial<ArchiveLimits>} [limits]
 */
export function readZip(bytes, limits = {}) {
  /** @type {{name: string, reason: string}[]} */
  const refused = [];
  /** @type {ReturnType<typeof expandZip>} */
  let expanded;
  try {
    expanded = expandZip(bytes, {
      limits,
      select: (name) => {
        const reason = unsafeEntryReason(name);
        if (reason) refused.push({ name, reason });
        return !reason;
      },
    });
  } catch (err) {
    if (err instanceof ArchiveLimitError) throw new ZipError(err.code, err.message);
    if (err instanceof ArchiveFormatError)
      throw new ZipError(
        'corrupt',
        err.entry
          ? `The archive is damaged ("${err.entry}": ${err.detail}); nothing was imported.`
          : `This is not a readable ZIP archive (${err.detail}).`,
      );
    throw err;
  }
  if (expanded.count === 0 && bytes.length > 0 && !(bytes[0] === 0x50 && bytes[1] === 0x4b))
    throw new ZipError('corrupt', 'This is not a ZIP archive.');
  const entries = expanded.entries
    .filter((e) => !e.name.endsWith('/'))
    .map((e) => ({ path: e.name.split('/').filter(Boolean).join('/'), data: e.data }));
  return { entries, refused: [...refused, ...expanded.unsupported] };
}

/**
 * Imports an archive into a folder: everything is read and checked first, then the safe
 * entries are written; refused entries are reported, never written.
 * @param {FileSystem} fs
 * @param {string} targetDir
 * @param {Uint8Array} bytes
 * @param {Partial<ArchiveLimits>} [limits]
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
