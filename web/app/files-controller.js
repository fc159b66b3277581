/** @import { FileSystem, DirEntry } from '../storage/types.d.ts' */
/** @import { FilesPanelController } from '../ui/types.d.ts' */
import { checkPath } from '../safety/tool-call-validator.js';
import { PROTECTED_SEGMENTS } from '../storage/workspace-folders.js';
import { splitPath } from '../storage/errors.js';
import { zipFolder, importZip } from '../files/zip.js';

/** A files-panel action refused for a reason the user can fix. */
export class FilesError extends Error {
  /** @param {'invalid_path' | 'exists' | 'not_found' | 'too_large'} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.name = 'FilesError';
    this.code = code;
  }
}

/** Text files above this are shown read-only with a download link instead of the editor. */
export const MAX_EDIT_BYTES = 5 * 1024 * 1024;

const IMAGE_TYPES = /** @type {Record<string, string>} */ ({
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  bmp: 'image/bmp',
  ico: 'image/x-icon',
  avif: 'image/avif',
});

/** @param {string} path */
export const extensionOf = (path) =>
  (
    path
      .split('/')
      .pop()
      ?.match(/\.([^.]+)$/)?.[1] ?? ''
  ).toLowerCase();

/** @param {string} a @param {string} b */
const join = (a, b) => (a ? `${a}/${b}` : b);

/**
 * What the files panel does, without DOM: listing the workspace (internal folders hidden),
 * reading files for the editor or a preview, and every change — each path checked by the
 * same rules as the agent's tools, so neither can reach Clawser's own folders.
 * @implements {FilesPanelController}
 */
export class FilesController {
  /** @type {Set<() => void>} */
  #listeners = new Set();

  /** A path's extension, lowercase ("md"), or "". @param {string} path */
  extensionOf(path) {
    return extensionOf(path);
  }

  /** @param {{fs: FileSystem}} deps the workspace file system */
  constructor(deps) {
    this.fs = deps.fs;
  }

  /** Called after every change made here (the panel and git status refresh). @param {() => void} fn */
  subscribe(fn) {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  #changed() {
    for (const fn of this.#listeners) fn();
  }

  /** Normalized path, or a FilesError. @param {string} path */
  check(path) {
    const reason = checkPath(path);
    if (reason) throw new FilesError('invalid_path', reason);
    const parts = splitPath(path);
    if (!parts.length) throw new FilesError('invalid_path', 'Give a name.');
    if (parts.some((p) => p.length > 255)) throw new FilesError('invalid_path', 'A name is longer than 255 characters.');
    return parts.join('/');
  }

  /**
   * Folders first, then files, by name; internal folders hidden.
   * @param {string} dir
   * @returns {Promise<(DirEntry & {path: string, size?: number})[]>}
   */
  async list(dir = '') {
    const entries = await this.fs.list(dir);
    const visible = entries.filter((e) => !PROTECTED_SEGMENTS.includes(e.name.toLowerCase()));
    const withSize = await Promise.all(
      visible.map(async (e) => ({
        ...e,
        path: join(dir, e.name),
        size: e.kind === 'file' ? (await this.fs.stat(join(dir, e.name)))?.size : undefined,
      })),
    );
    return withSize.sort((a, b) => (a.kind === b.kind ? a.name.localeCompare(b.name) : a.kind === 'directory' ? -1 : 1));
  }

  /**
   * A file for viewing: text (editable when not too big), an image, or binary.
   * @param {string} path
   * @returns {Promise<{path: string, size: number, kind: 'text', text: string, editable: boolean} | {path: string, size: number,
   *   kind: 'image', mediaType: string, bytes: Uint8Array} | {path: string, size: number, kind: 'binary'}>}
   */
  async open(path) {
    const p = this.check(path);
    const stat = await this.fs.stat(p);
    if (!stat || stat.kind !== 'file') throw new FilesError('not_found', `"${p}" no longer exists.`);
    const type = IMAGE_TYPES[extensionOf(p)];
    if (type) return { path: p, size: stat.size, kind: 'image', mediaType: type, bytes: await this.fs.readBytes(p) };
    const head = await this.fs.readBytes(p, { end: Math.min(stat.size, MAX_EDIT_BYTES) });
    if (head.subarray(0, 8000).includes(0)) return { path: p, size: stat.size, kind: 'binary' };
    return { path: p, size: stat.size, kind: 'text', text: new TextDecoder().decode(head), editable: stat.size <= MAX_EDIT_BYTES };
  }

  /** @param {string} path */
  async readBytes(path) {
    return this.fs.readBytes(this.check(path));
  }

  /** Whether something exists at `path`. @param {string} path */
  async exists(path) {
    return (await this.fs.stat(this.check(path))) !== null;
  }

  /** Saves text (atomic replace); resolves to the size saved, in bytes. @param {string} path @param {string} text */
  async save(path, text) {
    const p = this.check(path);
    await this.fs.write(p, text);
    this.#changed();
    return (await this.fs.stat(p))?.size ?? new TextEncoder().encode(text).length;
  }

  /** @param {string} path @param {'file' | 'directory'} kind */
  async create(path, kind) {
    const p = this.check(path);
    if (await this.fs.stat(p)) throw new FilesError('exists', `"${p}" already exists.`);
    if (kind === 'directory') await this.fs.mkdir(p);
    else await this.fs.write(p, '');
    this.#changed();
    return p;
  }

  /** Renames or moves; never replaces something that exists. @param {string} from @param {string} to */
  async move(from, to) {
    const a = this.check(from);
    const b = this.check(to);
    if (a === b) return b;
    if (b.startsWith(`${a}/`)) throw new FilesError('invalid_path', 'A folder cannot be moved into itself.');
    if (!(await this.fs.stat(a))) throw new FilesError('not_found', `"${a}" no longer exists.`);
    if (await this.fs.stat(b)) throw new FilesError('exists', `"${b}" already exists; choose another name.`);
    await this.fs.move(a, b);
    this.#changed();
    return b;
  }

  /** @param {string} path */
  async remove(path) {
    await this.fs.delete(this.check(path));
    this.#changed();
  }

  /**
   * Writes picked or dropped files into a folder. Existing files are replaced only with
   * `replace`; otherwise they are reported as skipped.
   * @param {string} dir @param {{name: string, bytes: () => Promise<Uint8Array>}[]} files
   * @param {{replace?: boolean}} [options]
   */
  async upload(dir, files, options = {}) {
    /** @type {string[]} */ const written = [];
    /** @type {{name: string, reason: string}[]} */ const skipped = [];
    for (const f of files) {
      let path;
      try {
        path = this.check(join(dir, f.name));
      } catch (err) {
        skipped.push({ name: f.name, reason: /** @type {Error} */ (err).message });
        continue;
      }
      if (!options.replace && (await this.fs.stat(path))) {
        skipped.push({ name: f.name, reason: 'a file with this name exists' });
        continue;
      }
      await this.fs.write(path, await f.bytes());
      written.push(path);
    }
    if (written.length) this.#changed();
    return { written, skipped };
  }

  /** ZIP of a folder ('' = the whole workspace), internal folders left out. @param {string} dir */
  async exportZip(dir = '') {
    return zipFolder(this.fs, dir ? this.check(dir) : '');
  }

  /** @param {string} dir @param {Uint8Array} bytes */
  async importZip(dir, bytes) {
    const result = await importZip(this.fs, dir ? this.check(dir) : '', bytes);
    if (result.written.length) this.#changed();
    return result;
  }
}
