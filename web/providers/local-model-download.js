/** @import { FileSystem } from '../storage/types.d.ts' */
/** @import { LocalModel, LocalModelStore } from './local-models.js' */
// Downloading a GGUF model from an address the user pastes (issue 34 §2), into the store of
// local-models.js. Before any byte of the model is written, every part is asked for its first
// bytes: a page, a 404, a server that refuses pages (CORS) or this computer being offline stops
// it there, with what to do; the sizes are checked against the browser's quota. The parts are
// then streamed into clawser_models/.downloads/<id>/ beside a note of the download (addresses,
// sizes, ETag and Last-Modified), so a reload resumes each part from its last byte with an HTTP
// Range request; the validators tell a file that changed on the server (it starts again), and a
// server that ignores Range sends the whole file, which replaces what was there. Only a whole,
// checked model is moved among the models (LocalModelStore.adopt). The browser's Background
// Fetch, where the app uses it, writes the same folder from the service worker (sw.js); `finish`
// takes it in from there.
import { z } from 'zod';
import { LocalModelError, MODELS_FOLDER, modelSize, partFile } from './local-models.js';
import {
  KEPT,
  aborted,
  checkStart,
  concat,
  contentLength,
  contentRange,
  differs,
  firstBytes,
  header,
  hostOf,
  httpError,
  modelUrls,
  stemOf,
  validatorsOf,
} from './local-model-http.js';

export { modelUrls };

export const DOWNLOADS_FOLDER = `${MODELS_FOLDER}/.downloads`;
/** The note of a download in its folder (read by the service worker too). */
export const DOWNLOAD_NOTE = 'download.json';
/** Arriving bytes are written in slices of this size (and on a pause, so a resume loses little). */
const WRITE_BYTES = 4 * 1024 * 1024;
/** Bytes that came are written after this long without more (so a reload mid-way loses little). */
const IDLE_WRITE_MS = 1000;
/** What is asked of each part before the download starts: enough to see what it is. */
const PROBE_BYTES = 64 * 1024;
/** Attempts at one part in one run (a file changed on the server starts it again). */
const ATTEMPTS = 3;

const PartSchema = z.object({
  url: z.string().url(),
  file: z.string().regex(/^part-\d{5}\.gguf$/),
  size: z.number().int().nonnegative().nullable(),
  etag: z.string().max(512).nullable(),
  lastModified: z.string().max(128).nullable(),
  done: z.boolean(),
});

const DownloadSchema = z.object({
  version: z.literal(1),
  id: z.string().regex(/^dl-[a-z0-9]{1,32}$/),
  url: z.string().url(),
  name: z.string().max(200).nullable(),
  createdAt: z.number().int(),
  /** Handed to the browser's Background Fetch (its service worker writes the parts). */
  background: z.boolean(),
  parts: z.array(PartSchema).min(1).max(512),
});
/** @typedef {z.infer<typeof DownloadSchema>} DownloadNote */

/**
 * A download that has not finished, as the Models list shows it. A note that cannot be read is
 * `damaged` (only Discard is offered).
 * @typedef {{id: string, url: string, name: string | null, received: number, total: number | null, parts: number,
 *   background: boolean, damaged: boolean}} PendingDownload
 */

/**
 * How a download is going. `note`: said once when the download starts a part again (`changed`:
 * the file changed on the server; `no_range`: the server cannot resume).
 * @typedef {{id: string, received: number, total: number | null, part: number, parts: number,
 *   note?: 'changed' | 'no_range'}} DownloadProgress
 */

/**
 * @typedef {object} DownloadDeps
 * @property {typeof fetch} [fetch]
 * @property {() => boolean} [online] false when the browser knows it is offline
 * @property {string} [pageProtocol] the page's (`https:` refuses `http:` addresses)
 * @property {<T>(id: string, fn: () => Promise<T>) => Promise<T>} [exclusive] runs `fn` as the only
 *   writer of this download across tabs (throws `busy` when another tab has it)
 */

/** Downloads of models, resumable across reloads; see the top of this file. */
export class ModelDownloads {
  /** Downloads running in this tab. @type {Set<string>} */
  #running = new Set();

  /** @param {LocalModelStore} store @param {DownloadDeps} [deps] */
  constructor(store, deps = {}) {
    this.store = store;
    /** @type {FileSystem} */
    this.fs = store.fs;
    this.fetch = deps.fetch ?? ((/** @type {RequestInfo | URL} */ u, /** @type {RequestInit} */ i) => globalThis.fetch(u, i));
    this.online = deps.online ?? (() => globalThis.navigator?.onLine !== false);
    this.pageProtocol = deps.pageProtocol ?? globalThis.location?.protocol;
    /** @type {<T>(id: string, fn: () => Promise<T>) => Promise<T>} */
    this.exclusive = deps.exclusive ?? ((_id, fn) => fn());
  }

  /** @param {string} id */
  #folder(id) {
    return `${DOWNLOADS_FOLDER}/${id}`;
  }

  /**
   * Looks at a model before downloading it: every part's first bytes (a GGUF file, reachable,
   * allowed to this page), its size and validators; refuses when it would not fit. Writes only the
   * download's note, nothing of the model.
   * @param {string} input the address pasted
   * @param {{name?: string, signal?: AbortSignal}} [options]
   * @returns {Promise<DownloadNote>}
   */
  async prepare(input, options = {}) {
    const { url, parts } = modelUrls(input, this.pageProtocol);
    /** @type {DownloadNote['parts']} */
    const described = [];
    for (let i = 0; i < parts.length; i++) {
      const res = await this.#request(parts[i], { headers: { Range: `bytes=0-${PROBE_BYTES - 1}` }, signal: options.signal });
      const start = await firstBytes(res, 8);
      checkStart(start, parts[i], header(res, 'content-type'));
      const size = res.status === 206 ? (contentRange(res)?.total ?? null) : contentLength(res);
      described.push({ url: parts[i], file: partFile(i + 1), size, ...validatorsOf(res), done: false });
    }
    const known = described.reduce((n, p) => n + (p.size ?? 0), 0);
    await this.store.checkRoom(known, 'download again');
    /** @type {DownloadNote} */
    const note = {
      version: 1,
      id: `dl-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`,
      url,
      name: options.name?.trim().slice(0, 200) || null,
      createdAt: Date.now(),
      background: false,
      parts: described,
    };
    await this.#save(note);
    return note;
  }

  /**
   * Downloads a model in this page: prepare, then run.
   * @param {string} input
   * @param {{name?: string, signal?: AbortSignal, onProgress?: (p: DownloadProgress) => void}} [options]
   * @returns {Promise<LocalModel>}
   */
  async start(input, options = {}) {
    const note = await this.prepare(input, options);
    return this.run(note.id, options);
  }

  /**
   * Downloads what is missing of a prepared or interrupted download in this page, each part from
   * its last byte, then takes the model in. Stopped (`aborted`) or cut off (`network`), what
   * arrived is kept; a file that turns out not to be a model is discarded.
   * @param {string} id
   * @param {{signal?: AbortSignal, onProgress?: (p: DownloadProgress) => void}} [options]
   * @returns {Promise<LocalModel>}
   */
  async run(id, options = {}) {
    if (this.#running.has(id)) throw new LocalModelError('busy', 'This download is already running.');
    this.#running.add(id);
    try {
      return await this.exclusive(id, async () => {
        const note = await this.get(id);
        if (note.background) {
          note.background = false;
          await this.#save(note);
        }
        const sizes = await this.#onDisk(note);
        const missing = note.parts.reduce((n, p, i) => n + (p.size === null ? 0 : Math.max(0, p.size - sizes[i])), 0);
        await this.store.checkRoom(missing, 'resume the download');
        try {
          for (let i = 0; i < note.parts.length; i++) {
            if (!note.parts[i].done) await this.#downloadPart(note, i, options);
          }
        } catch (err) {
          // Not a model after all: nothing of it is worth keeping.
          if (/** @type {LocalModelError} */ (err).code === 'not_gguf') await this.fs.delete(this.#folder(id)).catch(() => {});
          throw err;
        }
        return await this.#adopt(note);
      });
    } finally {
      this.#running.delete(id);
    }
  }

  /**
   * Takes in a download whose parts were written by someone else (the service worker, for a
   * Background Fetch): every part must be whole.
   * @param {string} id @returns {Promise<LocalModel>}
   */
  async finish(id) {
    if (this.#running.has(id)) throw new LocalModelError('busy', 'This download is already being taken in.');
    this.#running.add(id);
    try {
      const note = await this.get(id);
      const sizes = await this.#onDisk(note);
      const short = note.parts.findIndex((p, i) => sizes[i] === 0 || (p.size !== null && sizes[i] !== p.size));
      if (short >= 0) {
        throw new LocalModelError('network', `The download did not finish (part ${short + 1} of ${note.parts.length}). ${KEPT}`);
      }
      return await this.#adopt(note);
    } finally {
      this.#running.delete(id);
    }
  }

  /** Marks a download as handed to the browser's Background Fetch, or back to this page. @param {string} id @param {boolean} on */
  async setBackground(id, on) {
    const note = await this.get(id);
    note.background = on;
    await this.#save(note);
    return note;
  }

  /** @param {string} id @returns {Promise<DownloadNote>} */
  async get(id) {
    if (!/^dl-[a-z0-9]{1,32}$/.test(id)) throw new LocalModelError('not_found', 'No such download.');
    let text;
    try {
      text = await this.fs.readText(`${this.#folder(id)}/${DOWNLOAD_NOTE}`);
    } catch (err) {
      throw new LocalModelError('not_found', 'This download is no longer there (finished or discarded).', { cause: err });
    }
    /** @type {unknown} */
    let json = null;
    try {
      json = JSON.parse(text);
    } catch {
      // Damaged: said below.
    }
    const parsed = DownloadSchema.safeParse(json);
    if (!parsed.success || parsed.data.id !== id) {
      throw new LocalModelError('invalid', 'The note of this download is damaged: discard it and download the model again.');
    }
    return parsed.data;
  }

  /** The downloads that have not finished, oldest first. @returns {Promise<PendingDownload[]>} */
  async list() {
    const entries = await this.fs.list(DOWNLOADS_FOLDER).catch(() => []);
    /** @type {PendingDownload[]} */
    const out = [];
    for (const e of entries) {
      if (e.kind !== 'directory') continue;
      const note = await this.get(e.name).catch(() => null);
      if (!note) {
        out.push({ id: e.name, url: '', name: null, received: 0, total: null, parts: 0, background: false, damaged: true });
        continue;
      }
      const sizes = await this.#onDisk(note);
      const total = note.parts.every((p) => p.size !== null) ? note.parts.reduce((n, p) => n + (p.size ?? 0), 0) : null;
      out.push({
        id: note.id,
        url: note.url,
        name: note.name,
        received: sizes.reduce((n, s) => n + s, 0),
        total,
        parts: note.parts.length,
        background: note.background,
        damaged: false,
      });
    }
    return out;
  }

  /** Deletes a download and what it received. @param {string} id */
  async discard(id) {
    if (this.#running.has(id)) throw new LocalModelError('busy', 'Stop this download before discarding it.');
    if (!/^dl-[a-z0-9]{1,32}$/.test(id)) throw new LocalModelError('not_found', 'No such download.');
    await this.fs.delete(this.#folder(id));
  }

  /** @param {DownloadNote} note */
  async #save(note) {
    await this.fs.write(`${this.#folder(note.id)}/${DOWNLOAD_NOTE}`, JSON.stringify(DownloadSchema.parse(note), null, 1));
  }

  /** The bytes on disk of each part. @param {DownloadNote} note */
  async #onDisk(note) {
    return Promise.all(note.parts.map(async (p) => (await this.fs.stat(`${this.#folder(note.id)}/${p.file}`))?.size ?? 0));
  }

  /** @param {DownloadNote} note */
  async #adopt(note) {
    try {
      return await this.store.adopt(
        this.#folder(note.id),
        note.parts.map((p) => p.file),
        { name: note.name ?? undefined, fallbackName: stemOf(note.url) ?? undefined, source: note.url },
      );
    } catch (err) {
      // Not a model after all (or parts that do not belong together): nothing of it is worth keeping.
      const code = /** @type {LocalModelError} */ (err).code;
      if (code === 'not_gguf' || code === 'invalid') await this.fs.delete(this.#folder(note.id)).catch(() => {});
      throw err;
    }
  }

  /**
   * A request, its failure said in words: offline, a server that does not let pages read its
   * files (CORS), one that cannot be reached, an error status. 416 (nothing left in that range)
   * is the caller's to read.
   * @param {string} url @param {{headers?: Record<string, string>, signal?: AbortSignal}} init
   * @returns {Promise<Response>}
   */
  async #request(url, init) {
    if (!this.online()) throw this.#offline();
    /** @type {Response} */
    let res;
    try {
      // no-store: the browser's HTTP cache would keep a second copy of gigabytes.
      res = await this.fetch(url, { headers: init.headers, signal: init.signal, cache: 'no-store', credentials: 'omit' });
    } catch (err) {
      if (init.signal?.aborted) throw aborted();
      throw await this.#explain(url, err, init.signal);
    }
    if (!res.ok && res.status !== 416) {
      res.body?.cancel().catch(() => {});
      throw httpError(res, url);
    }
    return res;
  }

  #offline() {
    return new LocalModelError(
      'offline',
      'This computer is offline. Connect to the internet and try again, or import a model file you already have.',
    );
  }

  /**
   * Why a request failed: the browser says only "failed to fetch". A request the page does not
   * ask to read (no-cors) reaches a server that refuses pages: then it is CORS.
   * @param {string} url @param {unknown} err @param {AbortSignal} [signal]
   */
  async #explain(url, err, signal) {
    if (!this.online()) return this.#offline();
    const host = hostOf(url);
    let reachable = false;
    try {
      await this.fetch(url, { method: 'HEAD', mode: 'no-cors', signal, cache: 'no-store', credentials: 'omit' });
      reachable = true;
    } catch {
      // Not reachable at all: said below.
    }
    if (signal?.aborted) return aborted();
    if (reachable) {
      return new LocalModelError(
        'cors',
        `${host} does not let web pages download this file: it sends no permission for other sites (CORS, ` +
          'Access-Control-Allow-Origin). Download the file with your browser (open the address in a new tab), then import it ' +
          'here with “Import a file”. Hugging Face’s …/resolve/… links allow it.',
        { cause: err },
      );
    }
    return new LocalModelError('network', `Could not reach ${host}. Check the address and your connection, then try again.`, {
      cause: err,
    });
  }

  /**
   * Downloads one part from where it stopped, until it is whole.
   * @param {DownloadNote} note @param {number} index
   * @param {{signal?: AbortSignal, onProgress?: (p: DownloadProgress) => void}} options
   */
  async #downloadPart(note, index, options) {
    const part = note.parts[index];
    const path = `${this.#folder(note.id)}/${part.file}`;
    const before = (await this.#onDisk(note)).reduce((n, s, i) => (i < index ? n + s : n), 0);
    const total = note.parts.every((p) => p.size !== null) ? note.parts.reduce((n, p) => n + (p.size ?? 0), 0) : null;
    /** @type {DownloadProgress['note']} */
    let said;
    /** @param {number} written */
    const progress = (written) => {
      options.onProgress?.({ id: note.id, received: before + written, total, part: index + 1, parts: note.parts.length, note: said });
      said = undefined;
    };
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      let have = (await this.fs.stat(path))?.size ?? 0;
      if (part.size !== null && have > part.size) {
        await this.fs.truncate(path, 0);
        have = 0;
      }
      if (part.size !== null && have === part.size && have > 0) break;
      const res = await this.#fetchFrom(part, have, options.signal);
      if (res.status === 416) {
        // Nothing after `have`: whole if it is the size the file has; else start over.
        res.body?.cancel().catch(() => {});
        const total416 = Number(/\/(\d+)$/.exec(header(res, 'content-range') ?? '')?.[1] ?? Number.NaN);
        if (have > 0 && (part.size === have || total416 === have)) {
          part.size = have;
          break;
        }
        await this.fs.truncate(path, 0);
        continue;
      }
      const fresh = validatorsOf(res);
      let start = 0;
      if (res.status === 206) {
        const range = contentRange(res);
        const length = contentLength(res);
        const changed =
          (range && range.start !== have) ||
          (range?.total != null && part.size !== null && range.total !== part.size) ||
          differs(part.etag, fresh.etag) ||
          differs(part.lastModified, fresh.lastModified) ||
          (!range && part.size !== null && length !== null && length !== part.size - have);
        if (changed) {
          // Another file than the one begun (or bytes from elsewhere in it): start this part again.
          res.body?.cancel().catch(() => {});
          await this.fs.truncate(path, 0);
          said = 'changed';
          Object.assign(part, fresh);
          part.size = null;
          continue;
        }
        start = have;
        if (range?.total != null) part.size = range.total;
      } else {
        // The whole file: the server ignored Range, or the file changed (If-Range); it replaces what was there.
        if (have > 0) said = differs(part.etag, fresh.etag) || differs(part.lastModified, fresh.lastModified) ? 'changed' : 'no_range';
        part.size = contentLength(res);
        await this.fs.write(path, new Uint8Array(0));
        if (part.size !== null) {
          const others = note.parts.reduce((n, p, i) => (i === index || p.done || p.size === null ? n : n + p.size), 0);
          await this.store.checkRoom(part.size + others, 'resume the download').catch((err) => {
            res.body?.cancel().catch(() => {});
            throw err;
          });
        }
      }
      Object.assign(part, { etag: fresh.etag ?? part.etag, lastModified: fresh.lastModified ?? part.lastModified });
      await this.#save(note);
      progress(start);
      await this.#stream(res, part.url, path, start, options.signal, progress);
      const size = (await this.fs.stat(path))?.size ?? 0;
      if (part.size === null || size === part.size) {
        part.size = size;
        part.done = true;
        await this.#save(note);
        return;
      }
      if (size < part.size) {
        throw new LocalModelError('network', `The connection to ${hostOf(part.url)} ended before the whole file came. ${KEPT}`);
      }
      await this.fs.truncate(path, 0); // more than the file holds: not the bytes expected
      said = 'changed';
    }
    if (!part.done && part.size !== null && (await this.fs.stat(path))?.size === part.size) {
      part.done = true;
      await this.#save(note);
      return;
    }
    if (!part.done) {
      throw new LocalModelError(
        'network',
        `${hostOf(part.url)} kept sending a different file than the one begun. Discard this download and start it again.`,
      );
    }
  }

  /**
   * The rest of a part from byte `have`: a Range request, validated by If-Range where the part
   * has a strong ETag or a date. A cross-origin server may refuse If-Range (it is not a header
   * pages may send freely): then Range alone, the response's validators compared afterwards.
   * @param {DownloadNote['parts'][number]} part @param {number} have @param {AbortSignal} [signal]
   */
  async #fetchFrom(part, have, signal) {
    if (have === 0) return this.#request(part.url, { signal });
    const strong = part.etag && !part.etag.startsWith('W/') ? part.etag : null;
    const validator = strong ?? part.lastModified;
    const range = { Range: `bytes=${have}-` };
    if (!validator) return this.#request(part.url, { headers: range, signal });
    try {
      return await this.#request(part.url, { headers: { ...range, 'If-Range': validator }, signal });
    } catch (err) {
      if (/** @type {LocalModelError} */ (err).code !== 'cors') throw err;
      return this.#request(part.url, { headers: range, signal });
    }
  }

  /**
   * Appends a response's body to a file from byte `start`, checking a part's first bytes as they
   * come. Stopped or cut off, what arrived is written first (a resume goes on after it).
   * @param {Response} res @param {string} url @param {string} path @param {number} start
   * @param {AbortSignal | undefined} signal @param {(written: number) => void} progress
   */
  async #stream(res, url, path, start, signal, progress) {
    if (!res.body) throw new LocalModelError('network', `${hostOf(url)} sent no file. ${KEPT}`);
    const reader = res.body.getReader();
    /** @type {Uint8Array[]} */
    let pending = [];
    let pendingBytes = 0;
    let written = start;
    let checked = start > 0;
    const flush = async () => {
      if (!pendingBytes) return;
      const chunk = concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      await this.fs.append(path, chunk);
      written += chunk.length;
    };
    const stop = () => reader.cancel().catch(() => {});
    signal?.addEventListener('abort', stop, { once: true });
    try {
      for (;;) {
        if (signal?.aborted) throw aborted();
        const next = reader.read();
        /** @type {ReadableStreamReadResult<Uint8Array> | null} */
        let result = null;
        if (checked && pendingBytes) {
          // A pause in what arrives writes what came so far.
          /** @type {ReturnType<typeof setTimeout> | undefined} */
          let timer;
          const idle = new Promise((resolve) => {
            timer = setTimeout(() => resolve(null), IDLE_WRITE_MS);
          });
          result = /** @type {ReadableStreamReadResult<Uint8Array> | null} */ (await Promise.race([next, idle]));
          clearTimeout(timer);
          if (!result) await flush();
        }
        const { done, value } = result ?? (await next);
        if (done) break;
        pending.push(value);
        pendingBytes += value.length;
        if (!checked && pendingBytes >= 8) {
          checkStart(concat(pending, pendingBytes), url, header(res, 'content-type'));
          checked = true;
        }
        if (pendingBytes >= WRITE_BYTES) await flush();
        progress(written + pendingBytes);
      }
      if (signal?.aborted) throw aborted();
      if (!checked) checkStart(concat(pending, pendingBytes), url, header(res, 'content-type'));
      await flush();
    } catch (err) {
      stop();
      if (err instanceof LocalModelError && err.code === 'not_gguf') throw err;
      if (checked) await flush().catch(() => {});
      if (signal?.aborted) throw aborted();
      if (err instanceof LocalModelError) throw err;
      throw new LocalModelError('network', `The connection to ${hostOf(url)} dropped after ${modelSize(written)}. ${KEPT}`, { cause: err });
    } finally {
      signal?.removeEventListener('abort', stop);
    }
  }
}
