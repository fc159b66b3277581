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
import { OpfsFileSystem } from '../storage/opfs-fs.js';

export const MODELS_FOLDER = 'clawser_models';
const STAGING = `${MODELS_FOLDER}/.incoming`;
/** Written in slices so a multi-gigabyte file never sits in memory whole. */
const SLICE_BYTES = 8 * 1024 * 1024;
/** Room left free beside a model (the browser's own bookkeeping, the conversations). */
const SPARE_BYTES = 64 * 1024 * 1024;

/** A model import or lookup that failed, with a message the user can act on. */
export class LocalModelError extends Error {
  /**
   * @param {'not_gguf' | 'quota' | 'not_found' | 'invalid' | 'aborted'} code
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

/** @param {number} bytes */
const size = (bytes) => (bytes >= 1e9 ? `${(bytes / 1e9).toFixed(1)} GB` : `${Math.max(1, Math.round(bytes / 1e6))} MB`);

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
   * Imports a GGUF model (its parts in order, for a split model), checked first.
   * @param {Blob[]} parts one Blob, or a split model's parts in order
   * @param {{name?: string, signal?: AbortSignal, onProgress?: (written: number, total: number) => void}} [options]
   * @returns {Promise<LocalModel>}
   */
  async import(parts, options = {}) {
    if (!parts.length) throw new LocalModelError('invalid', 'Choose a .gguf model file to import.');
    /** @type {GgufInfo} */
    let info;
    try {
      info = await readGgufInfo(parts[0]);
    } catch (err) {
      if (err instanceof GgufError) throw new LocalModelError('not_gguf', err.message, { cause: err });
      throw err;
    }
    if (info.split && info.split.count !== parts.length) {
      throw new LocalModelError(
        'invalid',
        `This model is split into ${info.split.count} files: choose all of them (${parts.length} chosen).`,
      );
    }
    const total = parts.reduce((n, p) => n + p.size, 0);
    const { quota, usage } = await this.estimate();
    if (typeof quota === 'number' && typeof usage === 'number' && total + SPARE_BYTES > quota - usage) {
      throw new LocalModelError(
        'quota',
        `This model needs ${size(total)} and the browser lets Clawser use ${size(Math.max(0, quota - usage))} more. ` +
          'Free space on this computer, or delete models or workspaces you no longer need, then import again.',
      );
    }
    const name = (options.name ?? info.name ?? 'Local model').trim().slice(0, 200) || 'Local model';
    const id = newModelId(name);
    const staging = `${STAGING}/${id}`;
    const files = parts.map((_, i) => `part-${String(i + 1).padStart(5, '0')}.gguf`);
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
      /** @type {LocalModel} */
      const meta = ModelMetaSchema.parse({
        id,
        name,
        files,
        bytes: total,
        importedAt: Date.now(),
        architecture: info.architecture,
        quantisation: info.fileType,
        contextLength: info.contextLength && info.contextLength > 0 ? info.contextLength : null,
        kvBytesPerToken: info.kvBytesPerToken && info.kvBytesPerToken > 0 ? Math.round(info.kvBytesPerToken) : null,
        parameters: info.parameters,
        callsTools: info.callsTools,
        chatTemplate: info.chatTemplate,
      });
      await this.fs.write(`${staging}/meta.json`, JSON.stringify(meta, null, 1));
      await this.fs.move(staging, `${MODELS_FOLDER}/${id}`);
      return meta;
    } catch (err) {
      await this.fs.delete(staging).catch(() => {});
      throw err;
    }
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
      throw new LocalModelError('not_found', `No local model is named "${id}": import it in Settings.`, { cause: err });
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
