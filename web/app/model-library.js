/** @import { CatalogEntry } from '../providers/types.d.ts' */
/** @import { LocalModel } from '../providers/local-models.js' */
/** @import { DownloadProgress } from '../providers/local-model-download.js' */
/** @import { LocalModelsController, LocalModelsState, ModelTransfer } from '../ui/types.d.ts' */
/** @import { LocalModelStore } from '../providers/local-models.js' */
import { LocalModelError, chatTemplateFamily } from '../providers/local-models.js';
import { backendOf, chooseBackend, loadedLocalModel, localContextTokens, unloadLocalModel } from '../providers/local-engine.js';
import { ModelDownloads } from '../providers/local-model-download.js';

// The models the user brings, as the settings dialog's "Models on this computer" shows them
// (issue 34 §2): the store's models with which workspaces use them; imports from files, a folder
// or a drop; downloads from an address in this page (resumable) or handed to the browser's
// Background Fetch where it has one (the service worker, sw.js, writes the parts, this takes the
// model in); stop, resume, discard; delete. One per page: a download goes on while the dialog is
// closed and shows again when it opens.

/** The Background Fetch id of a download (sw.js reads the same prefix). */
export const BACKGROUND_PREFIX = 'clawser-model-';
/** What sw.js posts to the pages once it has written a background download's parts. */
export const FETCHED_MESSAGE = 'clawser-model-fetched';
/** Progress is shown at most this often (a download reports every few kilobytes). */
const SHOW_EVERY_MS = 250;

/**
 * The parts of the Background Fetch API used here (not in TypeScript's DOM library yet).
 * @typedef {EventTarget & {id: string, downloaded: number, downloadTotal: number, result: '' | 'success' | 'failure',
 *   failureReason: string, abort(): Promise<boolean>}} BackgroundFetch
 * @typedef {{fetch(id: string, requests: string[], options?: {title?: string, downloadTotal?: number,
 *   icons?: {src: string, sizes?: string, type?: string}[]}): Promise<BackgroundFetch>,
 *   get(id: string): Promise<BackgroundFetch | undefined>}} BackgroundFetchManager
 */

/** What each failure reason of a Background Fetch means. */
const BACKGROUND_FAILURES = /** @type {Record<string, string>} */ ({
  aborted: 'It was stopped.',
  'bad-status': 'The server answered with an error.',
  'fetch-error': 'The connection failed.',
  'quota-exceeded': 'The browser has no room left for it.',
  'download-total-exceeded': 'The file was bigger than the server said.',
});

/**
 * The provider that runs a model file the user brought in the page: the one that declares it
 * (`modelFiles`; another provider running in the page brings models of its own). Null when the
 * catalog has none.
 * @param {readonly CatalogEntry[]} catalog
 */
export function localModelProvider(catalog) {
  return catalog.find((e) => e.capabilities.modelFiles)?.id ?? null;
}

/**
 * Files picked or dropped, as the models they make: a split model's parts (`…-00001-of-00003.gguf`)
 * together and in order, every other .gguf file alone; other files are left out. A split model
 * with parts missing is named, with the parts it lacks.
 * @template {{name: string}} F
 * @param {F[]} files
 * @returns {{models: F[][], incomplete: string[]}}
 */
export function groupModelFiles(files) {
  const gguf = files.filter((f) => /\.gguf$/i.test(f.name));
  /** @type {Map<string, {count: number, parts: Map<number, F>}>} */
  const splits = new Map();
  /** @type {F[][]} */
  const models = [];
  for (const f of gguf) {
    const m = /^(.*)-(\d{5})-of-(\d{5})\.gguf$/i.exec(f.name);
    if (!m) {
      models.push([f]);
      continue;
    }
    const key = `${m[1]}|${m[3]}`;
    const set = splits.get(key) ?? { count: Number(m[3]), parts: new Map() };
    set.parts.set(Number(m[2]), f);
    splits.set(key, set);
  }
  /** @type {string[]} */
  const incomplete = [];
  for (const [key, set] of splits) {
    const missing = Array.from({ length: set.count }, (_, i) => i + 1).filter((n) => !set.parts.has(n));
    if (missing.length) {
      incomplete.push(`${key.split('|')[0]}: part${missing.length === 1 ? '' : 's'} ${missing.join(', ')} of ${set.count} missing`);
    } else models.push(Array.from({ length: set.count }, (_, i) => /** @type {F} */ (set.parts.get(i + 1))));
  }
  return { models, incomplete };
}

/** The file name at the end of an address. @param {string} url */
function fileName(url) {
  try {
    return decodeURIComponent(new URL(url).pathname.split('/').pop() || url);
  } catch {
    return url;
  }
}

/** @param {DownloadProgress['note']} note */
const progressNote = (note) =>
  note === 'changed'
    ? 'The file changed on the server since the download began: it starts again from the beginning.'
    : note === 'no_range'
      ? 'The server cannot go on from where the download stopped: it starts again from the beginning.'
      : null;

/**
 * @typedef {object} ModelLibraryDeps
 * @property {LocalModelStore} store the page's store of models (the one the provider loads from)
 * @property {readonly CatalogEntry[]} catalog
 * @property {() => {id: string, name: string}[]} workspaces
 * @property {(workspaceId: string) => {provider: string, model: string} | null} settingsOf a workspace's saved provider and model
 * @property {(workspaceId: string) => WorkspaceProviders | null} [providersOf] its fallbacks and routing hints (agent settings)
 * @property {() => Promise<BackgroundFetchManager | null>} [backgroundFetch] the service worker's Background Fetch, where there is one
 *   (may wait until the service worker is active)
 * @property {() => Promise<boolean>} [hasBackgroundFetch] whether there is one (at once)
 * @property {<T>(id: string, fn: () => Promise<T>) => Promise<T>} [exclusive] a download's cross-tab lock (Web Locks)
 * @property {typeof fetch} [fetch]
 */

/**
 * The other providers a workspace may ask: its fallback chain and its routing hints (Fast, Smart…).
 * @typedef {{fallbacks: {provider: string, model: string}[], routes: Record<string, {provider: string, model: string} | undefined>}}
 *   WorkspaceProviders
 */

/**
 * How a workspace uses the model `model` of the provider `providerId`: as its provider, a fallback,
 * a routing hint ('fast route'); empty when it does not. Pure.
 * @param {{provider: string, model: string} | null} main @param {WorkspaceProviders | null} others
 * @param {string} providerId @param {string} model
 * @returns {string[]}
 */
export function usesOfModel(main, others, providerId, model) {
  const runs = (/** @type {{provider: string, model: string} | null | undefined} */ p) => p?.provider === providerId && p.model === model;
  return [
    ...(runs(main) ? ['provider'] : []),
    ...((others?.fallbacks ?? []).some(runs) ? ['fallback'] : []),
    ...Object.entries(others?.routes ?? {}).flatMap(([hint, r]) => (runs(r) ? [`${hint} route`] : [])),
  ];
}

/** @implements {LocalModelsController} */
export class ModelLibrary {
  /** @type {LocalModel[]} */
  #models = [];
  /** The model loaded in this page now and the backend it runs on. @type {{id: string, label: string} | null} */
  #runsOn = null;
  /** What a load would run on in this page, chosen as a load chooses (shown before any load). @type {string | null} */
  #willRunOn = null;
  /** Downloads and imports, in the order they began. @type {Map<string, ModelTransfer & {stop?: () => void}>} */
  #transfers = new Map();
  #error = /** @type {string | null} */ (null);
  #notice = /** @type {string | null} */ (null);
  #loaded = false;
  #background = false;
  /** @type {Set<() => void>} */
  #listeners = new Set();
  /** @type {ReturnType<typeof setTimeout> | null} */
  #pending = null;
  /** Background Fetches followed by this page. @type {Set<string>} */
  #watched = new Set();

  /** @param {ModelLibraryDeps} deps */
  constructor(deps) {
    this.deps = deps;
    this.store = deps.store;
    this.downloads = new ModelDownloads(this.store, {
      ...(deps.fetch ? { fetch: deps.fetch } : {}),
      ...(deps.exclusive ? { exclusive: deps.exclusive } : {}),
    });
    this.providerId = localModelProvider(deps.catalog);
  }

  /** @returns {LocalModelsState} */
  state() {
    const names = new Map(this.deps.workspaces().map((w) => [w.id, w.name]));
    const uses = [...names.keys()].map((id) => ({ id, main: this.deps.settingsOf(id), others: this.deps.providersOf?.(id) ?? null }));
    const { providerId } = this;
    return {
      loaded: this.#loaded,
      models: this.#models.map((m) => ({
        id: m.id,
        name: m.name,
        bytes: m.bytes,
        architecture: m.architecture,
        parameters: m.parameters,
        quantisation: m.quantisation,
        contextLength: m.contextLength,
        loadedContext: localContextTokens(m),
        runsOn: this.#runsOn?.id === m.id ? this.#runsOn.label : null,
        willRunOn: this.#willRunOn,
        chatTemplate: m.chatTemplate === null ? null : chatTemplateFamily(m.chatTemplate),
        callsTools: m.callsTools,
        source: m.source ?? null,
        usedBy: providerId
          ? uses.flatMap((u) => {
              const as = usesOfModel(u.main, u.others, providerId, m.id);
              return as.length ? [{ id: u.id, name: names.get(u.id) ?? u.id, as }] : [];
            })
          : [],
      })),
      transfers: [...this.#transfers.values()].map(({ stop: _stop, ...t }) => ({ ...t })),
      error: this.#error,
      notice: this.#notice,
      backgroundFetch: this.#background,
    };
  }

  /** @param {() => void} fn @returns {() => void} */
  subscribe(fn) {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  #emit() {
    if (this.#pending) clearTimeout(this.#pending);
    this.#pending = null;
    for (const fn of this.#listeners) fn();
  }

  /** Progress: shown at most every SHOW_EVERY_MS. */
  #emitSoon() {
    this.#pending ??= setTimeout(() => this.#emit(), SHOW_EVERY_MS);
  }

  /** @param {unknown} err */
  #fail(err) {
    this.#error = /** @type {Error} */ (err)?.message ?? String(err);
    this.#notice = null;
    this.#emit();
  }

  /** @param {string} text */
  #say(text) {
    this.#notice = text;
    this.#error = null;
    this.#emit();
  }

  /** Reads the models and the unfinished downloads again; a Background Fetch that ended is taken in. */
  async refresh() {
    const [models, pending, background] = await Promise.all([
      this.store.list(),
      this.downloads.list(),
      this.deps.hasBackgroundFetch ? this.deps.hasBackgroundFetch().catch(() => false) : false,
    ]);
    this.#models = models;
    this.#background = background;
    const running = await loadedLocalModel();
    const choice = await chooseBackend().catch(() => null);
    this.#willRunOn = choice ? backendOf(choice, choice.gpu, choice.threads).label : null;
    this.#runsOn = running ? { id: running.id, label: running.backend.label } : null;
    this.#loaded = true;
    const ids = new Set(pending.map((p) => p.id));
    for (const [id, t] of this.#transfers) if (t.kind === 'download' && !ids.has(id) && t.state !== 'checking') this.#transfers.delete(id);
    for (const p of pending) {
      const known = this.#transfers.get(p.id);
      if (known && known.state !== 'stopped') continue;
      this.#transfers.set(p.id, {
        id: p.id,
        kind: 'download',
        label: p.name ?? fileName(p.url),
        received: p.received,
        total: p.total,
        state: p.damaged ? 'failed' : p.background ? 'background' : 'stopped',
        message: p.damaged
          ? 'The note of this download is damaged: discard it and download the model again.'
          : (known?.message ?? 'Interrupted. Resume goes on from where it stopped.'),
        canResume: !p.damaged,
      });
      if (p.background && !p.damaged) this.#watchBackground(p.id);
    }
    this.#emit();
  }

  /**
   * Imports picked or dropped files: each model they make (a split model's parts together).
   * @param {File[]} files
   */
  async importFiles(files) {
    const { models, incomplete } = groupModelFiles(files);
    if (!models.length) {
      this.#fail(
        incomplete.length
          ? `A split model needs all its parts: ${incomplete.join('; ')}.`
          : 'Choose a .gguf model file (or a folder holding one).',
      );
      return;
    }
    /** @type {string[]} */
    const done = [];
    for (const parts of models) {
      const id = `import-${Math.random().toString(36).slice(2, 10)}`;
      const stop = new AbortController();
      const total = parts.reduce((n, p) => n + p.size, 0);
      this.#transfers.set(id, {
        id,
        kind: 'import',
        label: parts[0].name,
        received: 0,
        total,
        state: 'running',
        message: null,
        canResume: false,
        stop: () => stop.abort(),
      });
      this.#emit();
      try {
        const m = await this.store.import(parts, {
          signal: stop.signal,
          onProgress: (written) => {
            const t = this.#transfers.get(id);
            if (t) t.received = written;
            this.#emitSoon();
          },
        });
        done.push(m.name);
      } catch (err) {
        this.#transfers.delete(id);
        this.#models = await this.store.list();
        return this.#fail(/** @type {LocalModelError} */ (err).code === 'aborted' ? 'The import was stopped; nothing was kept.' : err);
      }
      this.#transfers.delete(id);
    }
    this.#models = await this.store.list();
    const also = incomplete.length ? ` Not imported: ${incomplete.join('; ')}.` : '';
    this.#say(`Imported ${done.map((n) => `“${n}”`).join(', ')}.${also}`);
  }

  /**
   * Downloads a model from an address: checked first (its first bytes, the space), then in this
   * page or, when asked and the browser has it, by the browser's Background Fetch.
   * @param {string} url @param {{background: boolean}} options
   */
  async download(url, options) {
    const checking = `check-${Math.random().toString(36).slice(2, 10)}`;
    const stop = new AbortController();
    this.#transfers.set(checking, {
      id: checking,
      kind: 'download',
      label: fileName(url.trim()),
      received: 0,
      total: null,
      state: 'checking',
      message: 'Checking the address…',
      canResume: false,
      stop: () => stop.abort(),
    });
    this.#error = null;
    this.#notice = null;
    this.#emit();
    let note;
    try {
      note = await this.downloads.prepare(url, { signal: stop.signal });
    } catch (err) {
      this.#transfers.delete(checking);
      return this.#fail(/** @type {LocalModelError} */ (err).code === 'aborted' ? 'The download was stopped before it began.' : err);
    }
    this.#transfers.delete(checking);
    const total = note.parts.every((p) => p.size !== null) ? note.parts.reduce((n, p) => n + (p.size ?? 0), 0) : null;
    this.#transfers.set(note.id, {
      id: note.id,
      kind: 'download',
      label: fileName(note.url),
      received: 0,
      total,
      state: 'running',
      message: null,
      canResume: true,
    });
    if (options.background) {
      // The browser keeps its own copy of a Background Fetch until the service worker has written ours.
      const room =
        total === null ||
        (await this.store.checkRoom(2 * total).then(
          () => true,
          () => false,
        ));
      const bg = room ? await this.#backgroundFetch() : null;
      if (!room) {
        this.#notice =
          'There is room for the model but not for the browser’s background download too (it keeps a copy of its own ' +
          'until the end): it downloads in this page.';
      }
      if (bg) {
        try {
          await this.downloads.setBackground(note.id, true);
          await bg.fetch(
            `${BACKGROUND_PREFIX}${note.id}`,
            note.parts.map((p) => p.url),
            { title: `Clawser: downloading ${fileName(note.url)}`, ...(total ? { downloadTotal: total } : {}) },
          );
          this.#watchBackground(note.id);
          return;
        } catch (err) {
          await this.downloads.setBackground(note.id, false).catch(() => {});
          const why = /** @type {Error} */ (err).message;
          this.#notice = `The browser did not take the download in the background (${why}): it runs in this page.`;
        }
      }
    }
    await this.#runHere(note.id);
  }

  /** Downloads (the rest of) a download in this page. @param {string} id */
  async #runHere(id) {
    const t = this.#transfers.get(id);
    if (!t) return;
    const stop = new AbortController();
    Object.assign(t, { state: 'running', message: null, stop: () => stop.abort() });
    this.#emit();
    try {
      const m = await this.downloads.run(id, {
        signal: stop.signal,
        onProgress: (p) => {
          t.received = p.received;
          t.total = p.total;
          t.message = progressNote(p.note) ?? t.message;
          if (p.note) this.#emit();
          else this.#emitSoon();
        },
      });
      this.#transfers.delete(id);
      this.#models = await this.store.list();
      this.#say(`Downloaded “${m.name}”.`);
    } catch (err) {
      const code = /** @type {LocalModelError} */ (err).code;
      if (code === 'aborted' || code === 'network' || code === 'offline' || code === 'busy' || code === 'quota') {
        Object.assign(t, { state: 'stopped', message: /** @type {Error} */ (err).message, stop: undefined });
        this.#emit();
        if (code !== 'aborted') this.#fail(err);
        return;
      }
      // Refused for good (not a model, the server's answer): the download is gone.
      this.#transfers.delete(id);
      await this.refresh().catch(() => {});
      this.#fail(err);
    }
  }

  /**
   * Follows a Background Fetch: its progress, its end. A fetch that ended while the page was
   * closed (or the service worker's message came first) is taken in from the parts it wrote.
   * @param {string} id
   */
  async #watchBackground(id) {
    if (this.#watched.has(id)) return;
    this.#watched.add(id);
    const t = this.#transfers.get(id);
    try {
      const reg = await (await this.#backgroundFetch())?.get(`${BACKGROUND_PREFIX}${id}`);
      if (reg && t && reg.result === '') {
        Object.assign(t, {
          state: 'background',
          message: 'Downloading in the background: it goes on if you close Clawser.',
          stop: () => void reg.abort(),
        });
        const show = () => {
          t.received = reg.downloaded;
          if (reg.downloadTotal) t.total = reg.downloadTotal;
          if (reg.result === 'failure') {
            Object.assign(t, {
              state: 'stopped',
              message:
                `The background download failed: ${BACKGROUND_FAILURES[reg.failureReason] ?? reg.failureReason}` +
                ' Resume downloads the rest in this page.',
              stop: undefined,
            });
            this.#watched.delete(id);
            this.#emit();
          } else this.#emitSoon();
        };
        reg.addEventListener('progress', show);
        show();
        this.#emit();
        return; // the service worker's message (see listenToServiceWorker) says when the parts are written
      }
      this.#watched.delete(id);
      await this.#finishBackground(id);
    } catch (err) {
      this.#watched.delete(id);
      this.#fail(err);
    }
  }

  /** Takes in a background download whose parts the service worker wrote. @param {string} id */
  async #finishBackground(id) {
    const t = this.#transfers.get(id);
    try {
      const m = await this.downloads.finish(id);
      this.#transfers.delete(id);
      this.#models = await this.store.list();
      this.#say(`Downloaded “${m.name}”.`);
    } catch (err) {
      const code = /** @type {LocalModelError} */ (err).code;
      if (code === 'busy') return; // already being taken in (the service worker's message and a refresh together)
      if (code === 'not_found') {
        // Taken in meanwhile (or discarded): nothing to say.
        this.#transfers.delete(id);
        await this.refresh().catch(() => {});
        return;
      }
      if (code === 'network' && t) {
        // Not (all) written: the fetch failed or was stopped.
        await this.downloads.setBackground(id, false).catch(() => {});
        Object.assign(t, {
          state: 'stopped',
          message: 'The background download did not finish. Resume downloads the rest in this page.',
          stop: undefined,
        });
        this.#emit();
        return;
      }
      this.#transfers.delete(id);
      await this.refresh().catch(() => {});
      this.#fail(err);
    }
  }

  /**
   * The service worker wrote a background download's parts (its message): take the model in.
   * @param {unknown} data a message from the service worker
   */
  onServiceWorkerMessage(data) {
    const d = /** @type {{type?: unknown, id?: unknown}} */ (data);
    if (d?.type !== FETCHED_MESSAGE || typeof d.id !== 'string') return;
    const id = d.id.startsWith(BACKGROUND_PREFIX) ? d.id.slice(BACKGROUND_PREFIX.length) : d.id;
    this.#watched.delete(id);
    this.#finishBackground(id).catch((err) => this.#fail(err));
  }

  /** Stops a download or an import (a download keeps what came). @param {string} id */
  stop(id) {
    this.#transfers.get(id)?.stop?.();
  }

  /** Goes on with a stopped download, in this page. @param {string} id */
  async resume(id) {
    this.#error = null;
    await this.#runHere(id);
  }

  /** @param {string} id */
  async discard(id) {
    const t = this.#transfers.get(id);
    if (t?.state === 'background') {
      await (await (await this.#backgroundFetch())?.get(`${BACKGROUND_PREFIX}${id}`))?.abort();
    }
    await this.downloads.discard(id);
    this.#transfers.delete(id);
    this.#say('The download was discarded.');
  }

  /** Deletes a model and its files. @param {string} id */
  async remove(id) {
    const m = this.#models.find((x) => x.id === id);
    // Loaded, it holds its memory until unloaded: a deleted model must not.
    await unloadLocalModel(id);
    await this.store.delete(id);
    this.#models = await this.store.list();
    this.#say(`Deleted “${m?.name ?? id}”.`);
  }

  async #backgroundFetch() {
    return this.deps.backgroundFetch ? this.deps.backgroundFetch().catch(() => null) : null;
  }
}

/**
 * The service worker's Background Fetch, where the browser has one and the app's service worker
 * is in charge of the page.
 * @returns {Promise<BackgroundFetchManager | null>}
 */
export async function pageBackgroundFetch() {
  const sw = globalThis.navigator?.serviceWorker;
  const reg = await sw?.getRegistration?.();
  if (!sw || !reg || !('backgroundFetch' in reg)) return null;
  // Only an active worker takes a Background Fetch: a first visit's is still caching the app.
  const ready = reg.active ? reg : await sw.ready;
  return /** @type {{backgroundFetch: BackgroundFetchManager}} */ (/** @type {unknown} */ (ready)).backgroundFetch;
}

/** Whether this browser can download in the background for Clawser (its service worker has Background Fetch). */
export async function pageHasBackgroundFetch() {
  const reg = await globalThis.navigator?.serviceWorker?.getRegistration?.();
  return !!reg && 'backgroundFetch' in reg;
}

/**
 * A download's lock across this browser's tabs (Web Locks): another tab running it refuses
 * (`busy`) instead of writing the same files.
 * @template T @param {string} id @param {() => Promise<T>} fn @returns {Promise<T>}
 */
export async function downloadLock(id, fn) {
  const locks = globalThis.navigator?.locks;
  if (!locks) return fn();
  return locks.request(`clawser-model-download:${id}`, { ifAvailable: true }, (lock) => {
    if (!lock) throw new LocalModelError('busy', 'This download is running in another Clawser tab.');
    return fn();
  });
}
