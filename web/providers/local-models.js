/** @import { FileSystem } from '../storage/types.d.ts' */
/** @import { GgufInfo } from './gguf-info.js' */
// The models the user brings for the local provider (issue 34 §2): GGUF files kept in the
// browser's storage under clawser_models/, one folder per model with its file(s) and what its
// header says. Outside every workspace, so no workspace's tools or shell can reach them. An
// import checks the file (a GGUF header) and the free space before writing anything, writes into
// a staging folder, and moves it into place only when the whole file is written: a failed or
// stopped import leaves nothing behind.
import { z } from 'zod';
import { GgufError, readGgufInfo } from './gguf-info.js';

// What the Models list says of a stored model's template (the store keeps the template itself).
export { chatTemplateFamily } from './gguf-info.js';
import { OpfsFileSystem } from '../storage/opfs-fs.js';

export const MODELS_FOLDER = 'clawser_models';
const STAGING = `${MODELS_FOLDER}/.incoming`;
/** Written in slices so a multi-gigabyte file never sits in memory whole. */
const SLICE_BYTES = 8 * 1024 * 1024;
/** Room left free beside a model (the browser's own bookkeeping, the conversations). */
const SPARE_BYTES = 64 * 1024 * 1024;

/**
 * `not_gguf`, `quota`, `not_found`, `invalid`, `aborted` (stopped by the user); a download's too:
 * `offline`, `cors` (the server does not let pages read the file), `network` (unreachable, or the
 * connection dropped: what was downloaded is kept), `http` (the server answered with an error),
 * `busy` (running in another tab).
 * @typedef {'not_gguf' | 'quota' | 'not_found' | 'invalid' | 'aborted' | 'offline' | 'cors' | 'network' | 'http' | 'busy'}
 *   LocalModelErrorCode
 */

/** A model import, download or lookup that failed, with a message the user can act on. */
export class LocalModelError extends Error {
  /**
   * @param {LocalModelErrorCode} code
   * @param {string} message @param {{cause?: unknown}} [options]
   */
  constructor(code, message, options) {
    super(message, options);
    this.name = 'LocalModelError';
    this.code = code;
  }
}

const ModelMetaSchema = z.object({
  id: z.string().regex(/^[a-z0-9-]{1,64}$/),
  name: z.string().min(1).max(200),
  files: z.array(z.string().regex(/^part-\d{5}\.gguf$/)).min(1),
  bytes: z.number().int().nonnegative(),
  importedAt: z.number().int(),
  architecture: z.string(),
  quantisation: z.string().nullable(),
  contextLength: z.number().int().positive().nullable(),
  /** Memory one token of context takes (null: the file does not say): bounds the context loaded. */
  kvBytesPerToken: z.number().int().positive().nullable(),
  parameters: z.number().int().nonnegative(),
  callsTools: z.boolean(),
  chatTemplate: z.string().nullable(),
  /** Where it was downloaded from (no query string), for a downloaded model. */
  source: z.string().max(2000).optional(),
});
/** @typedef {z.infer<typeof ModelMetaSchema>} LocalModel */

/** A folder name for a model: its name's words, then a short random tail (two imports never collide). @param {string} name */
function newModelId(name) {
  const words = name
    .toLowerCase()
    .replace(/\.gguf$/, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48);
  return `${words || 'model'}-${Math.random().toString(36).slice(2, 8)}`;
}

/** "1.2 GB", "350 MB": a size as the messages say it. @param {number} bytes */
export const modelSize = (bytes) => (bytes >= 1e9 ? `${(bytes / 1e9).toFixed(1)} GB` : `${Math.max(1, Math.round(bytes / 1e6))} MB`);

/** The name of a model's nth file (1-based) in its folder. @param {number} n */
export const partFile = (n) => `part-${String(n).padStart(5, '0')}.gguf`;

/** Reads a GGUF header, a file that is not one refused as `not_gguf`. @param {Blob} blob @returns {Promise<GgufInfo>} */
async function headerOf(blob) {
  try {
    return await readGgufInfo(blob);
  } catch (err) {
    if (err instanceof GgufError) throw new LocalModelError('not_gguf', err.message, { cause: err });
    throw err;
  }
}

/**
 * A stored file as much of a Blob as the header reader uses (its size and slices read on demand),
 * so a multi-gigabyte download is checked without being read into memory.
 * @param {FileSystem} fs @param {string} path @param {number} size
 * @returns {Blob}
 */
function storedBlob(fs, path, size) {
  /** @param {number} start @param {number} end */
  const slice = (start, end) => ({ arrayBuffer: async () => (await fs.readBytes(path, { start, end })).slice().buffer });
  // The reader needs only `size` and `slice(start, end).arrayBuffer()`: the cast names the rest of Blob, which is never used.
  return /** @type {Blob} */ (/** @type {unknown} */ ({ size, slice }));
}

export class LocalModelStore {
  /**
   * @param {FileSystem} fs the browser storage's root (not a workspace's)
   * @param {{estimate?: () => Promise<{quota?: number, usage?: number}>}} [deps] free space (navigator.storage.estimate)
   */
  constructor(fs, deps = {}) {
    this.fs = fs;
    this.estimate = deps.estimate ?? (() => globalThis.navigator?.storage?.estimate?.() ?? Promise.resolve({}));
  }

  /**
   * Refuses (code `quota`) when `bytes` more would not fit in what the browser lets Clawser use;
   * a browser that does not say lets it through.
   * @param {number} bytes @param {string} [again] what to do once there is room ("import again")
   */
  async checkRoom(bytes, again = 'import again') {
    const { quota, usage } = await this.estimate();
    if (typeof quota === 'number' && typeof usage === 'number' && bytes + SPARE_BYTES > quota - usage) {
      throw new LocalModelError(
        'quota',
        `This model needs ${modelSize(bytes)} and the browser lets Clawser use ${modelSize(Math.max(0, quota - usage))} more. ` +
          `Free space on this computer, or delete models or workspaces you no longer need, then ${again}.`,
      );
    }
  }

  /**
   * Imports a GGUF model (its parts in order, for a split model), checked first.
   * @param {Blob[]} parts one Blob, or a split model's parts in order
   * @param {{name?: string, signal?: AbortSignal, onProgress?: (written: number, total: number) => void}} [options]
   * @returns {Promise<LocalModel>}
   */
  async import(parts, options = {}) {
    if (!parts.length) throw new LocalModelError('invalid', 'Choose a .gguf model file to import.');
    const info = await headerOf(parts[0]);
    if (info.split && info.split.count !== parts.length) {
      throw new LocalModelError(
        'invalid',
        `This model is split into ${info.split.count} files: choose all of them (${parts.length} chosen).`,
      );
    }
    // Every part is whole (its header read, its tensors' data all there), not only the first.
    for (const part of parts.slice(1)) await headerOf(part);
    const total = parts.reduce((n, p) => n + p.size, 0);
    await this.checkRoom(total);
    const name = (options.name ?? info.name ?? 'Local model').trim().slice(0, 200) || 'Local model';
    const id = newModelId(name);
    const staging = `${STAGING}/${id}`;
    const files = parts.map((_, i) => partFile(i + 1));
    let written = 0;
    try {
      await this.fs.mkdir(staging);
      for (let i = 0; i < parts.length; i++) {
        const part = parts[i];
        const path = `${staging}/${files[i]}`;
        await this.fs.write(path, new Uint8Array(0));
        for (let at = 0; at < part.size; at += SLICE_BYTES) {
          if (options.signal?.aborted) throw new LocalModelError('aborted', 'The import was stopped; nothing was kept.');
          const bytes = new Uint8Array(await part.slice(at, Math.min(part.size, at + SLICE_BYTES)).arrayBuffer());
          await this.fs.append(path, bytes);
          written += bytes.length;
          options.onProgress?.(written, total);
        }
      }
      return await this.#place(staging, { id, name, files, bytes: total, info });
    } catch (err) {
      await this.fs.delete(staging).catch(() => {});
      throw err;
    }
  }

  /**
   * Takes in a model whose files were written into the store's storage some other way (a
   * download): the whole header of its first file is checked, and a split model must have every
   * part; then it is described and its folder moved into place. Anything else in the folder (the
   * download's own notes) is removed. A file that is not a model is refused (`not_gguf`) and the
   * folder left as it is, for the caller to discard.
   * @param {string} folder under the store's folder, holding `files`
   * @param {string[]} files in order
   * @param {{name?: string, fallbackName?: string, source?: string}} [options] fallbackName: when neither `name` nor the header
   *   names it; source: where it came from (its query string is dropped)
   * @returns {Promise<LocalModel>}
   */
  async adopt(folder, files, options = {}) {
    if (!folder.startsWith(`${MODELS_FOLDER}/.`))
      throw new LocalModelError('invalid', `"${folder}" is not a staging folder of the models.`);
    let bytes = 0;
    /** @type {number[]} */
    const sizes = [];
    for (const f of files) {
      const stat = await this.fs.stat(`${folder}/${f}`);
      if (stat?.kind !== 'file') throw new LocalModelError('invalid', `A file of this model is missing (${f}): download it again.`);
      sizes.push(stat.size);
      bytes += stat.size;
    }
    const info = await headerOf(storedBlob(this.fs, `${folder}/${files[0]}`, sizes[0] ?? 0));
    for (let i = 1; i < files.length; i++) await headerOf(storedBlob(this.fs, `${folder}/${files[i]}`, sizes[i] ?? 0));
    if ((info.split?.count ?? 1) !== files.length) {
      throw new LocalModelError(
        'invalid',
        `This model is split into ${info.split?.count ?? 1} files and ${files.length} were downloaded: ` +
          'download it again from its first part.',
      );
    }
    for (const e of await this.fs.list(folder)) if (!files.includes(e.name)) await this.fs.delete(`${folder}/${e.name}`);
    const name = (options.name ?? info.name ?? options.fallbackName ?? 'Local model').trim().slice(0, 200) || 'Local model';
    const source = options.source ? options.source.replace(/[?#].*$/, '').slice(0, 2000) : undefined;
    return this.#place(folder, { id: newModelId(name), name, files, bytes, info, source });
  }

  /**
   * Describes a whole model in its folder and moves the folder into place.
   * @param {string} folder
   * @param {{id: string, name: string, files: string[], bytes: number, info: GgufInfo, source?: string}} m
   */
  async #place(folder, { id, name, files, bytes, info, source }) {
    /** @type {LocalModel} */
    const meta = ModelMetaSchema.parse({
      id,
      name,
      files,
      bytes,
      importedAt: Date.now(),
      architecture: info.architecture,
      quantisation: info.fileType,
      contextLength: info.contextLength && info.contextLength > 0 ? info.contextLength : null,
      kvBytesPerToken: info.kvBytesPerToken && info.kvBytesPerToken > 0 ? Math.round(info.kvBytesPerToken) : null,
      parameters: info.parameters,
      callsTools: info.callsTools,
      chatTemplate: info.chatTemplate,
      ...(source ? { source } : {}),
    });
    await this.fs.write(`${folder}/meta.json`, JSON.stringify(meta, null, 1));
    await this.fs.move(folder, `${MODELS_FOLDER}/${id}`);
    return meta;
  }

  /** The imported models, newest first; a folder whose description is damaged is left out. @returns {Promise<LocalModel[]>} */
  async list() {
    const entries = await this.fs.list(MODELS_FOLDER).catch(() => []);
    /** @type {LocalModel[]} */
    const models = [];
    for (const e of entries) {
      if (e.kind !== 'directory' || e.name.startsWith('.')) continue;
      const meta = await this.get(e.name).catch(() => null);
      if (meta) models.push(meta);
    }
    return models.sort((a, b) => b.importedAt - a.importedAt);
  }

  /** @param {string} id @returns {Promise<LocalModel>} */
  async get(id) {
    if (!/^[a-z0-9-]{1,64}$/.test(id)) throw new LocalModelError('not_found', `No local model is named "${id}".`);
    let text;
    try {
      text = await this.fs.readText(`${MODELS_FOLDER}/${id}/meta.json`);
    } catch (err) {
      throw new LocalModelError(
        'not_found',
        `The local model “${id}” is not in this browser (deleted?). Choose one in Settings → Models on this computer ` +
          '(“Use in this workspace”), importing its file again if needed.',
        { cause: err },
      );
    }
    /** @type {unknown} */
    let json = null;
    try {
      json = JSON.parse(text);
    } catch {
      // Damaged: said below.
    }
    const parsed = ModelMetaSchema.safeParse(json);
    if (!parsed.success || parsed.data.id !== id) {
      throw new LocalModelError('invalid', `The description of the local model "${id}" is damaged: delete it and import the file again.`);
    }
    return parsed.data;
  }

  /**
   * A model's files as Blobs for the runtime, in order: read from disk as the runtime reads them
   * (the file system's openFile), never all copied into memory first where the storage can say so.
   * @param {string} id @returns {Promise<{model: LocalModel, parts: Blob[]}>}
   */
  async open(id) {
    const model = await this.get(id);
    const fs = this.fs;
    const parts = await Promise.all(
      model.files.map(async (f) => {
        const path = `${MODELS_FOLDER}/${id}/${f}`;
        try {
          return fs.openFile ? await fs.openFile(path) : new Blob([/** @type {BlobPart} */ (await fs.readBytes(path))]);
        } catch (err) {
          throw new LocalModelError('invalid', `The file of the local model “${model.name}” is missing: delete it and import it again.`, {
            cause: err,
          });
        }
      }),
    );
    const bytes = parts.reduce((n, p) => n + p.size, 0);
    if (bytes !== model.bytes) {
      throw new LocalModelError(
        'invalid',
        `The local model “${model.name}” is damaged (${bytes} of ${model.bytes} bytes on disk): delete it and import it again.`,
      );
    }
    return { model, parts };
  }

  /** Deletes a model and its files. @param {string} id */
  async delete(id) {
    await this.get(id);
    await this.fs.delete(`${MODELS_FOLDER}/${id}`);
  }

  /** Removes what an import cut short left in the staging folder (a tab closed mid-import). */
  async clearStaging() {
    await this.fs.delete(STAGING).catch(() => {});
  }
}

/** @type {LocalModelStore | null} */
let shared = null;

/**
 * The page's one store of local models, in the browser's storage (OPFS): what the provider
 * loads, the Models list shows and the public API imports into.
 */
export function sharedLocalModelStore() {
  shared ??= new LocalModelStore(new OpfsFileSystem());
  return shared;
}
