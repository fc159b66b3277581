// Why this file is long: the three ways to install the embedding model (download with progress, a
//  folder, a ZIP) share one validation and one write-then-manifest order, which is the file's
//  guarantee (a half install never counts).
/**
 * Installing the embedding model once, for offline use: downloaded from the Hugging Face hub
 * (byte-level progress for a progress bar), or imported from a folder or a ZIP for machines
 * without internet. Files are validated (zod) before anything is stored, then written into
 * Cache Storage under the local model URLs transformers.js looks up first (see
 * model-files.js for why Cache Storage); the install manifest is written last, so a half
 * install never counts as installed.
 */
import { z } from 'zod';
import { Unzip, UnzipInflate } from 'fflate';
import { ArchiveLimitError, ExpansionBudget } from '../files/archive-limits.js';
import {
  DEFAULT_MODEL_ID,
  INSTALL_MANIFEST,
  MODEL_CACHE_NAME,
  MODEL_DIMENSIONS,
  REQUIRED_MODEL_FILES,
  defaultModelBaseUrl,
  modelFileUrl,
} from './model-files.js';
import { offlineExplains } from '../net/offline.js';

/**
 * @typedef {'offline' | 'network' | 'http' | 'aborted' | 'missing_files' | 'invalid_file' | 'too_large' | 'zip_corrupt' | 'quota'
 *   | 'storage' | 'unavailable'} ModelInstallErrorCode
 */

/** Install failure with a stable `code` and a message a person can act on. */
export class ModelInstallError extends Error {
  /** @param {ModelInstallErrorCode} code @param {string} message @param {{cause?: unknown}} [options] */
  constructor(code, message, options) {
    super(message, options);
    this.name = 'ModelInstallError';
    this.code = code;
  }
}

/** Largest accepted size of each file (the real ones: 0.6 KB, 712 KB, 0.4 KB, 23 MB). */
export const MODEL_FILE_LIMITS = /** @type {Record<typeof REQUIRED_MODEL_FILES[number], number>} */ ({
  'config.json': 1024 * 1024,
  'tokenizer.json': 50 * 1024 * 1024,
  'tokenizer_config.json': 1024 * 1024,
  'onnx/model_quantized.onnx': 512 * 1024 * 1024,
});

export const ZIP_IMPORT_LIMITS = {
  /** Bytes of the archive itself (a whole model repository with every variant is ~400 MB). */
  maxArchiveBytes: 2 * 1024 * 1024 * 1024,
  /** Entries looked at (names only: only the four needed files are ever inflated). */
  maxEntries: 20_000,
};

const ConfigSchema = z.looseObject({
  model_type: z.string().min(1),
  hidden_size: z.number().int().positive(),
});
const TokenizerSchema = z.looseObject({
  model: z.looseObject({
    type: z.string().min(1),
    vocab: z.union([z.record(z.string(), z.number()), z.array(z.unknown())]),
  }),
});
const TokenizerConfigSchema = z.looseObject({});

const ManifestSchema = z.object({
  modelId: z.string().min(1),
  fingerprint: z.string().min(1),
  source: z.enum(['download', 'folder', 'zip']),
  installedAt: z.number(),
  files: z.array(z.object({ path: z.string(), size: z.number().int().nonnegative() })),
});
/** @typedef {z.infer<typeof ManifestSchema>} InstallManifest */

/**
 * @typedef {object} InstallProgress
 * @property {'download' | 'read' | 'verify' | 'store' | 'done'} phase
 * @property {number} loaded bytes done in this phase
 * @property {number} total best known total for this phase (grows if a server sent no length)
 * @property {string} [file] the file the last bytes belonged to
 * @property {{path: string, loaded: number, total: number | null}[]} files per-file progress
 */

/**
 * @typedef {object} ModelStatus
 * @property {boolean} installed every required file and the install manifest are present
 * @property {boolean} available Cache Storage is usable here (needs a secure context)
 * @property {string} modelId
 * @property {{path: string, size: number}[]} files the stored files
 * @property {number} totalBytes
 * @property {string[]} missing required files not stored
 * @property {InstallManifest | null} manifest
 */

/**
 * @typedef {object} InstallOptions
 * @property {(progress: InstallProgress) => void} [onProgress]
 * @property {AbortSignal} [signal]
 */

/**
 * A file picked by the user: a File from `<input webkitdirectory>` (its webkitRelativePath
 * is used) or an explicit {path, file}.
 * @typedef {File | {path: string, file: Blob}} PickedFile
 */

/** @param {string} name */
function safeRelativePath(name) {
  const parts = name
    .replace(/\\/g, '/')
    .split('/')
    .filter((p) => p && p !== '.');
  if (name.startsWith('/') || /^[a-zA-Z]:/.test(name) || parts.some((p) => p === '..' || /[\0-\x1f]/.test(p))) return null;
  return parts;
}

/**
 * Which required file an archive or folder path stands for: the required path itself at
 * any depth (…/onnx/model_quantized.onnx), or the ONNX file without its onnx/ folder.
 * Returns the required path and a rank (lower is better: fewer leading folders).
 * @param {string} name
 * @returns {{required: typeof REQUIRED_MODEL_FILES[number], rank: number} | null}
 */
export function matchModelFile(name) {
  const parts = safeRelativePath(name);
  if (!parts || parts.length === 0) return null;
  for (const required of REQUIRED_MODEL_FILES) {
    const want = required.split('/');
    if (parts.length >= want.length && want.every((w, i) => parts[parts.length - want.length + i] === w)) {
      return { required, rank: (parts.length - want.length) * 2 };
    }
  }
  if (parts.at(-1) === 'model_quantized.onnx') return { required: 'onnx/model_quantized.onnx', rank: parts.length * 2 + 1 };
  return null;
}

/**
 * Checks the four files; throws ModelInstallError naming the first problem.
 * @param {Map<string, Uint8Array>} files
 * @param {number} [dimensions]
 */
export function validateModelFiles(files, dimensions = MODEL_DIMENSIONS) {
  const missing = REQUIRED_MODEL_FILES.filter((f) => !files.has(f));
  if (missing.length) {
    throw new ModelInstallError(
      'missing_files',
      `The model is incomplete: ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing. Pick the model folder (or a ZIP ` +
        `of it) holding config.json, tokenizer.json, tokenizer_config.json and onnx/model_quantized.onnx.`,
    );
  }
  /** @param {string} path @param {z.ZodType} schema */
  const json = (path, schema) => {
    const bytes = /** @type {Uint8Array} */ (files.get(path));
    /** @type {unknown} */
    let value;
    try {
      value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    } catch {
      throw new ModelInstallError('invalid_file', `${path} is not valid JSON. Get a fresh copy of the model files.`);
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success)
      throw new ModelInstallError(
        'invalid_file',
        `${path} does not look like a transformers model file (${parsed.error.issues[0]?.path.join('.') || 'root'}: ` +
          `${parsed.error.issues[0]?.message}). Get a fresh copy of the model files.`,
      );
    return /** @type {Record<string, unknown>} */ (parsed.data);
  };
  const config = json('config.json', ConfigSchema);
  if (config.hidden_size !== dimensions) {
    throw new ModelInstallError(
      'invalid_file',
      `This model makes ${config.hidden_size}-dimensional vectors; memory search needs ${dimensions} (Xenova/all-MiniLM-L6-v2). Install ` +
        `that model.`,
    );
  }
  json('tokenizer.json', TokenizerSchema);
  json('tokenizer_config.json', TokenizerConfigSchema);
  const onnx = /** @type {Uint8Array} */ (files.get('onnx/model_quantized.onnx'));
  const head = new TextDecoder().decode(onnx.subarray(0, 40));
  if (head.startsWith('version https://git-lfs')) {
    throw new ModelInstallError(
      'invalid_file',
      'onnx/model_quantized.onnx is a Git LFS pointer, not the model. Fetch the real file (git lfs pull) or download the model instead.',
    );
  }
  // An ONNX ModelProto starts with field 1 (ir_version, varint): byte 0x08.
  if (onnx.length < 16 || onnx[0] !== 0x08) {
    throw new ModelInstallError('invalid_file', 'onnx/model_quantized.onnx is not an ONNX model. Get a fresh copy of the model files.');
  }
}

/** @param {unknown} err */
function isQuota(err) {
  const e = /** @type {{name?: string}} */ (err);
  return !!e && e.name === 'QuotaExceededError';
}

/** @param {Uint8Array[]} chunks @param {number} size */
function join(chunks, size) {
  const out = new Uint8Array(size);
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}

/** @param {AbortSignal | undefined} signal */
function throwIfAborted(signal) {
  if (signal?.aborted) throw new ModelInstallError('aborted', 'The model installation was cancelled; nothing was installed.');
}

export class ModelInstaller {
  /**
   * @param {{
   *   modelId?: string,
   *   cacheName?: string,
   *   modelBaseUrl?: string,
   *   hubUrl?: string,
   *   revision?: string,
   *   fetch?: typeof fetch,
   *   caches?: CacheStorage | null,
   *   dimensions?: number,
   * }} [options]
   *   hubUrl: where downloads come from (tests: a server on 127.0.0.1), default https://huggingface.co
   */
  constructor(options = {}) {
    this.modelId = options.modelId ?? DEFAULT_MODEL_ID;
    this.cacheName = options.cacheName ?? MODEL_CACHE_NAME;
    this.modelBaseUrl = options.modelBaseUrl ?? defaultModelBaseUrl();
    this.hubUrl = (options.hubUrl ?? 'https://huggingface.co').replace(/\/+$/, '');
    this.revision = options.revision ?? 'main';
    this.dimensions = options.dimensions ?? MODEL_DIMENSIONS;
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.caches = options.caches === undefined ? (typeof caches === 'undefined' ? null : caches) : options.caches;
  }

  /** @param {string} path */
  hubFileUrl(path) {
    return `${this.hubUrl}/${this.modelId}/resolve/${encodeURIComponent(this.revision)}/${path}`;
  }

  /** @param {string} path */
  #key(path) {
    return modelFileUrl(this.modelBaseUrl, this.modelId, path);
  }

  #cacheStorage() {
    if (!this.caches)
      throw new ModelInstallError(
        'unavailable',
        'Browser storage for the model (Cache Storage) is not available here. Open Clawser over https or http://localhost.',
      );
    return this.caches;
  }

  /** @returns {Promise<ModelStatus>} */
  async status() {
    const base = { modelId: this.modelId, files: [], totalBytes: 0, missing: [...REQUIRED_MODEL_FILES], manifest: null };
    if (!this.caches) return { installed: false, available: false, ...base };
    if (!(await this.caches.has(this.cacheName))) return { installed: false, available: true, ...base };
    const cache = await this.caches.open(this.cacheName);
    /** @type {InstallManifest | null} */
    let manifest = null;
    const m = await cache.match(this.#key(INSTALL_MANIFEST));
    if (m) {
      try {
        const parsed = ManifestSchema.safeParse(await m.json());
        if (parsed.success && parsed.data.modelId === this.modelId) manifest = parsed.data;
      } catch {
        manifest = null;
      }
    }
    /** @type {{path: string, size: number}[]} */
    const files = [];
    /** @type {string[]} */
    const missing = [];
    for (const path of REQUIRED_MODEL_FILES) {
      const r = await cache.match(this.#key(path));
      if (!r) {
        missing.push(path);
        continue;
      }
      // Sizes from the header written at install (reading 23 MB to count it would be wasteful).
      const size = Number(r.headers.get('content-length') ?? manifest?.files.find((f) => f.path === path)?.size ?? 0);
      files.push({ path, size });
      r.body?.cancel().catch(() => {});
    }
    return {
      installed: !!manifest && missing.length === 0,
      available: true,
      modelId: this.modelId,
      files,
      totalBytes: files.reduce((s, f) => s + f.size, 0),
      missing,
      manifest,
    };
  }

  async isInstalled() {
    return (await this.status()).installed;
  }

  /** The stored files with their sizes. */
  async listFiles() {
    return (await this.status()).files;
  }

  /** Deletes the model (manifest first, so a half removal never looks installed). */
  async remove() {
    const storage = this.#cacheStorage();
    if (!(await storage.has(this.cacheName))) return;
    const cache = await storage.open(this.cacheName);
    await cache.delete(this.#key(INSTALL_MANIFEST));
    for (const path of REQUIRED_MODEL_FILES) await cache.delete(this.#key(path));
    if ((await cache.keys()).length === 0) await storage.delete(this.cacheName);
  }

  /**
   * Downloads the four files from the hub (concurrently), validates and stores them.
   * @param {InstallOptions} [options]
   */
  async download(options = {}) {
    this.#cacheStorage();
    const { onProgress, signal } = options;
    throwIfAborted(signal);
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const state = REQUIRED_MODEL_FILES.map((path) => ({ path, loaded: 0, total: /** @type {number | null} */ (null) }));
    /** @param {string} file */
    const report = (file) => {
      const loaded = state.reduce((s, f) => s + f.loaded, 0);
      const total = state.reduce((s, f) => s + Math.max(f.total ?? 0, f.loaded), 0);
      onProgress?.({ phase: 'download', loaded, total, file, files: state.map((f) => ({ ...f })) });
    };
    try {
      const results = await Promise.all(
        REQUIRED_MODEL_FILES.map(async (path, i) => {
          const url = this.hubFileUrl(path);
          /** @type {Response} */
          let res;
          try {
            res = await this.fetch(url, { signal: controller.signal, credentials: 'omit' });
          } catch (err) {
            if (signal?.aborted) throw new ModelInstallError('aborted', 'The model download was cancelled; nothing was installed.');
            const offline = offlineExplains(url);
            throw new ModelInstallError(
              offline ? 'offline' : 'network',
              offline
                ? 'You are offline, so the model cannot be downloaded. Connect and try again, or import the model folder or ZIP instead.'
                : `Could not reach ${new URL(url).host} to download the model (${err instanceof Error ? err.message : String(err)}). ` +
                    `Check the connection, or import the model folder or ZIP instead.`,
              { cause: err },
            );
          }
          if (!res.ok)
            throw new ModelInstallError(
              'http',
              `Downloading ${path} failed: HTTP ${res.status} from ${new URL(url).host}. Try again later, or import the model folder or ` +
                `ZIP instead.`,
            );
          const limit = MODEL_FILE_LIMITS[path];
          const length = Number(res.headers.get('content-length'));
          if (length > 0) state[i].total = length;
          if (length > limit)
            throw new ModelInstallError(
              'too_large',
              `${path} is ${length} bytes, more than the ${limit} allowed; this is not the expected model.`,
            );
          report(path);
          if (!res.body) {
            const bytes = new Uint8Array(await res.arrayBuffer());
            state[i].loaded = bytes.length;
            report(path);
            return bytes;
          }
          const reader = res.body.getReader();
          /** @type {Uint8Array[]} */
          const chunks = [];
          let size = 0;
          for (;;) {
            /** @type {ReadableStreamReadResult<Uint8Array>} */
            let step;
            try {
              step = await reader.read();
            } catch (err) {
              if (signal?.aborted) throw new ModelInstallError('aborted', 'The model download was cancelled; nothing was installed.');
              throw new ModelInstallError(
                'network',
                `The download of ${path} broke off (${err instanceof Error ? err.message : String(err)}). Try again.`,
                { cause: err },
              );
            }
            if (step.done) break;
            size += step.value.length;
            if (size > limit) {
              void reader.cancel();
              throw new ModelInstallError(
                'too_large',
                `${path} is larger than the ${limit} bytes allowed; this is not the expected model.`,
              );
            }
            chunks.push(step.value);
            state[i].loaded = size;
            report(path);
          }
          return join(chunks, size);
        }),
      );
      const files = new Map(REQUIRED_MODEL_FILES.map((p, i) => [p, results[i]]));
      return await this.#install(files, 'download', options);
    } catch (err) {
      controller.abort(); // stop the other downloads
      throw err;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Imports the model from files picked in a folder (`<input type="file" webkitdirectory>`),
   * matched by their relative paths; other files are ignored.
   * @param {PickedFile[] | FileList} picked
   * @param {InstallOptions} [options]
   */
  async importFiles(picked, options = {}) {
    this.#cacheStorage();
    /** @type {Map<string, {rank: number, blob: Blob, name: string}>} */
    const chosen = new Map();
    for (const item of Array.from(picked)) {
      const isFile = typeof File !== 'undefined' && item instanceof File;
      const name = isFile
        ? /** @type {File} */ (item).webkitRelativePath || /** @type {File} */ (item).name
        : /** @type {{path: string}} */ (item).path;
      const blob = isFile ? /** @type {File} */ (item) : /** @type {{file: Blob}} */ (item).file;
      if (typeof name !== 'string' || !(blob instanceof Blob)) continue;
      const match = matchModelFile(name);
      if (!match) continue;
      const prev = chosen.get(match.required);
      if (!prev || match.rank < prev.rank) chosen.set(match.required, { rank: match.rank, blob, name });
    }
    for (const [required, c] of chosen) {
      const limit = MODEL_FILE_LIMITS[/** @type {typeof REQUIRED_MODEL_FILES[number]} */ (required)];
      if (c.blob.size > limit)
        throw new ModelInstallError(
          'too_large',
          `${c.name} is ${c.blob.size} bytes, more than the ${limit} allowed; this is not the expected model.`,
        );
    }
    const total = [...chosen.values()].reduce((s, c) => s + c.blob.size, 0);
    const state = [...chosen].map(([path, c]) => ({ path, loaded: 0, total: /** @type {number | null} */ (c.blob.size) }));
    /** @type {Map<string, Uint8Array>} */
    const files = new Map();
    let loaded = 0;
    for (const [i, [path, c]] of [...chosen].entries()) {
      throwIfAborted(options.signal);
      /** @type {Uint8Array} */
      let bytes;
      try {
        bytes = new Uint8Array(await c.blob.arrayBuffer());
      } catch (err) {
        throw new ModelInstallError(
          'invalid_file',
          `Could not read ${c.name} (${err instanceof Error ? err.message : String(err)}). Pick the folder again.`,
          { cause: err },
        );
      }
      files.set(path, bytes);
      loaded += bytes.length;
      state[i].loaded = bytes.length;
      options.onProgress?.({ phase: 'read', loaded, total, file: path, files: state.map((f) => ({ ...f })) });
    }
    return this.#install(files, 'folder', options);
  }

  /**
   * Imports the model from a ZIP (of the model folder, at any depth). Only the four needed
   * entries are inflated, each within its size limit counted while inflating (headers can
   * lie), so a zip bomb stops early; names with "..", absolute paths or drive letters are
   * ignored, and nothing is written anywhere but the model cache.
   * @param {Blob} zip
   * @param {InstallOptions} [options]
   */
  async importZip(zip, options = {}) {
    this.#cacheStorage();
    const { signal, onProgress } = options;
    if (zip.size > ZIP_IMPORT_LIMITS.maxArchiveBytes)
      throw new ModelInstallError(
        'too_large',
        `The archive is larger than ${Math.round(ZIP_IMPORT_LIMITS.maxArchiveBytes / 1024 / 1024)} MB; ZIP only the model folder.`,
      );
    /** @type {Map<string, {rank: number, chunks: Uint8Array[], size: number, done: boolean}>} */
    const found = new Map();
    /** @type {ModelInstallError | null} */
    let failure = null;
    let entries = 0;
    // The shared archive limits (entries, the ratio, their messages); the model's files may be
    // larger than other archives' (each has its own limit below).
    const sizes = Object.values(MODEL_FILE_LIMITS);
    const budget = new ExpansionBudget(zip.size, {
      maxEntries: ZIP_IMPORT_LIMITS.maxEntries,
      maxEntryBytes: Math.max(...sizes),
      maxTotalBytes: sizes.reduce((a, b) => a + b, 0),
    });
    /** @param {unknown} err */
    const limited = (err) => {
      if (!(err instanceof ArchiveLimitError)) throw err;
      failure = new ModelInstallError('too_large', err.message);
    };
    const unzip = new Unzip((file) => {
      if (failure) return;
      entries++;
      /** @type {ReturnType<ExpansionBudget['entry']>} */
      let counter;
      try {
        counter = budget.entry(file.name);
      } catch (err) {
        limited(err);
        return;
      }
      const match = matchModelFile(file.name);
      if (!match) return; // never started: not inflated
      const prev = found.get(match.required);
      if (prev && prev.rank <= match.rank) return;
      const limit = MODEL_FILE_LIMITS[match.required];
      const slot = { rank: match.rank, chunks: /** @type {Uint8Array[]} */ ([]), size: 0, done: false };
      found.set(match.required, slot);
      file.ondata = (err, chunk, final) => {
        if (failure || found.get(match.required) !== slot) return;
        if (err) {
          failure = new ModelInstallError('zip_corrupt', `The archive is damaged ("${file.name}": ${err.message}). Create the ZIP again.`);
          return;
        }
        slot.size += chunk.length;
        try {
          counter.add(chunk.length);
        } catch (e) {
          limited(e);
          file.terminate();
          return;
        }
        if (slot.size > limit) {
          failure = new ModelInstallError(
            'too_large',
            `"${file.name}" expands to more than ${limit} bytes; this is not the expected model.`,
          );
          file.terminate();
          return;
        }
        slot.chunks.push(chunk);
        if (final) slot.done = true;
      };
      try {
        file.start();
      } catch (err) {
        failure = new ModelInstallError(
          'zip_corrupt',
          `"${file.name}" uses a compression this importer cannot read (${err instanceof Error ? err.message : String(err)}). Create ` +
            `the ZIP with standard (deflate) compression.`,
        );
      }
    });
    unzip.register(UnzipInflate);
    const reader = zip.stream().getReader();
    let read = 0;
    try {
      for (;;) {
        throwIfAborted(signal);
        const step = await reader.read();
        if (step.done) break;
        read += step.value.length;
        // Pushed in 16 KB slices so a limit stops inflation early inside a big chunk.
        for (let i = 0; i < step.value.length && !failure; i += 16384) unzip.push(step.value.subarray(i, i + 16384), false);
        if (failure) break;
        onProgress?.({ phase: 'read', loaded: read, total: zip.size, files: [] });
      }
      if (!failure) unzip.push(new Uint8Array(0), true);
    } catch (err) {
      if (err instanceof ModelInstallError) throw err;
      failure ??= new ModelInstallError(
        'zip_corrupt',
        `This is not a readable ZIP archive (${err instanceof Error ? err.message : String(err)}).`,
        { cause: err },
      );
    } finally {
      void reader.cancel().catch(() => {});
    }
    if (failure) throw failure;
    if (entries === 0) throw new ModelInstallError('zip_corrupt', 'This is not a ZIP archive, or it is empty.');
    /** @type {Map<string, Uint8Array>} */
    const files = new Map();
    for (const [path, slot] of found) {
      if (!slot.done)
        throw new ModelInstallError(
          'zip_corrupt',
          `The archive ends in the middle of ${path}: it is incomplete. Download or create the ZIP again.`,
        );
      files.set(path, join(slot.chunks, slot.size));
    }
    return this.#install(files, 'zip', options);
  }

  /**
   * Validates, then stores: files first, manifest last.
   * @param {Map<string, Uint8Array>} files
   * @param {InstallManifest['source']} source
   * @param {InstallOptions} options
   */
  async #install(files, source, options) {
    const { onProgress, signal } = options;
    const total = [...files.values()].reduce((s, b) => s + b.length, 0);
    onProgress?.({ phase: 'verify', loaded: 0, total, files: [] });
    validateModelFiles(files, this.dimensions);
    throwIfAborted(signal);
    const onnx = /** @type {Uint8Array} */ (files.get('onnx/model_quantized.onnx'));
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', /** @type {Uint8Array<ArrayBuffer>} */ (onnx)));
    const fingerprint = `${this.modelId}@sha256:${[...digest.subarray(0, 12)].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
    const storage = this.#cacheStorage();
    try {
      await this.remove(); // an older install (or a half one) must not mix with these files
      const cache = await storage.open(this.cacheName);
      let stored = 0;
      for (const path of REQUIRED_MODEL_FILES) {
        const bytes = /** @type {Uint8Array<ArrayBuffer>} */ (files.get(path));
        const type = path.endsWith('.json') ? 'application/json' : 'application/octet-stream';
        await cache.put(
          this.#key(path),
          new Response(bytes, { headers: { 'content-type': type, 'content-length': String(bytes.length) } }),
        );
        stored += bytes.length;
        onProgress?.({ phase: 'store', loaded: stored, total, file: path, files: [] });
      }
      /** @type {InstallManifest} */
      const manifest = {
        modelId: this.modelId,
        fingerprint,
        source,
        installedAt: Date.now(),
        files: REQUIRED_MODEL_FILES.map((path) => ({ path, size: /** @type {Uint8Array} */ (files.get(path)).length })),
      };
      await cache.put(
        this.#key(INSTALL_MANIFEST),
        new Response(JSON.stringify(manifest), { headers: { 'content-type': 'application/json' } }),
      );
      onProgress?.({ phase: 'done', loaded: total, total, files: [] });
      return { manifest, totalBytes: total };
    } catch (err) {
      await this.remove().catch(() => {});
      if (isQuota(err))
        throw new ModelInstallError(
          'quota',
          `Browser storage is full: the model needs ${Math.ceil(total / 1024 / 1024)} MB. Free space (delete old workspaces or ` +
            `conversations) and try again.`,
          { cause: err },
        );
      throw new ModelInstallError(
        'storage',
        `The model could not be stored (${err instanceof Error ? err.message : String(err)}). Try again.`,
        { cause: err },
      );
    }
  }
}
