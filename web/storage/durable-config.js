// Why this file is long: the durable configuration: one file in the state folder, each page's
//  localStorage journal of changes not yet written, their replay by the next page, damage set
//  aside, and the other tabs told; every operation has to keep the file and the journals
//  consistent.
/** @import { FileSystem, ConfigStore } from './types.d.ts' */
/** @import { LocalConfig } from './local-config.js' */
import { z } from 'zod';
import { readFiles } from './read-files.js';
import { readTextIfExists } from './file-helpers.js';
import { readJson, asidePath, DamagedFileError, SET_ASIDE_HINT } from './damage.js';
import { StorageError } from './errors.js';
import { STATE_FOLDER } from './state-folder.js';

export { STATE_FOLDER };

const PREFIX = 'clawser_';
const FORMAT = 'clawser-config';
const TOPIC = 'config';

const FileSchema = z.object({
  format: z.literal(FORMAT),
  version: z.literal(1),
  seq: z.number().int().nonnegative(),
  entries: z.record(z.string().startsWith(PREFIX), z.string()),
  // Which change last wrote each key (its id): a change another page wrote for this one (made
  // again from its journal) is never made twice.
  written: z.record(z.string().startsWith(PREFIX), z.string()).optional(),
});
/** @typedef {z.infer<typeof FileSchema>} ConfigFile */
/**
 * A change not yet written: the value this tab sees now (`raw`; null: removed), made from `from`
 * (a value set here; undefined: what is stored) by the `steps` of `update` calls since. `id`
 * names it in the journal and, once written, in the file. A change made again from a journal
 * is written only if its file is still at `onlyAt` (nothing written over it since).
 * @typedef {{raw: string | null, from?: string | null, steps: Array<(raw: string | undefined) => string | null>, id: string,
 *   onlyAt?: number}} PendingOp
 */

/**
 * A page's journal of the changes it has not written yet (one localStorage key per page, written
 * at once with each change, synchronously): a page reloaded, closed or killed before its
 * background write finishes loses nothing — the next page makes those changes again. Change id
 * → its key, the value it gives (null: removed) and the file's `seq` it was made on.
 */
const JournalSchema = z.object({
  v: z.literal(1),
  changes: z.record(z.string(), z.object({ key: z.string().startsWith(PREFIX), raw: z.string().nullable(), seq: z.number().int() })),
});
/** @typedef {z.infer<typeof JournalSchema>} Journal */

/** A new change's id: sortable by time, unique across pages. */
const newChangeId = () => `${Date.now().toString(36).padStart(9, '0')}-${Math.random().toString(36).slice(2, 10)}`;

/** The value a change gives, made on `stored` (what the file holds now). @param {PendingOp} op @param {string | undefined} stored */
function changedValue(op, stored) {
  /** @type {string | null | undefined} */
  let raw = op.from === undefined ? stored : op.from;
  for (const step of op.steps) raw = step(raw ?? undefined);
  return raw ?? null;
}

const MessageSchema = z.union([
  z.object({
    file: z.string(),
    seq: z.number().int().positive(),
    changes: z.array(z.tuple([z.string().startsWith(PREFIX), z.string().nullable()])),
    ids: z.array(z.string()).optional(),
  }),
  z.object({ file: z.string(), reload: z.literal(true) }),
]);

/**
 * What is wrong with one of the files, as found (nothing of it is overwritten until the user
 * chooses): `reason` in the words of web/storage/damage.js ("cut short: …", "not in the expected shape …").
 * @typedef {{file: string, path: string, reason: string, size: number}} ConfigProblem
 */

/**
 * A key that is not Clawser's (`invalid_key`), or a file set aside that is not damaged
 * (`not_damaged`). A change not saved because its file is damaged is a DamagedFileError (code `damaged`).
 */
export class ConfigError extends Error {
  /** @param {'invalid_key' | 'not_damaged'} code @param {string} message @param {{cause?: unknown}} [options] */
  constructor(code, message, options) {
    super(message, options);
    this.name = 'ConfigError';
    this.code = code;
  }
}

/**
 * Reads one config file's text: its entries, or what is wrong with it.
 * @param {string} text
 * @returns {{ok: true, doc: ConfigFile} | {ok: false, reason: string}}
 */
export function parseConfigFile(text) {
  const read = readJson(text, FileSchema);
  return read.ok ? { ok: true, doc: read.value } : { ok: false, reason: read.problem };
}

/** @template T @param {string} raw @param {T} fallback @returns {unknown | T} */
function parseOr(raw, fallback) {
  try {
    return JSON.parse(raw);
  } catch {
    return fallback;
  }
}

/** @param {number} seq @param {Record<string, string>} entries @param {Record<string, string>} [written] @returns {string} */
const serialize = (seq, entries, written) =>
  JSON.stringify({ format: FORMAT, version: 1, seq, entries, ...(written && Object.keys(written).length ? { written } : {}) }, null, 1);

/**
 * @typedef {object} DurableConfigOptions
 * @property {FileSystem} fs the storage root
 * @property {string[]} files the files' names in STATE_FOLDER, e.g. ['workspaces.json', 'settings.json']
 * @property {(key: string) => string} fileOf which file a key lives in (one of `files`)
 * @property {(name: string, fn: () => Promise<any>) => Promise<any>} lock a cross-tab lock (Web Locks); any: the result is the callback's
 * @property {{publish: (topic: string, data: unknown) => void, subscribe: (topic: string, fn: (data: unknown) => void) => () => void}
 *   | null} [channel]
 *   tells the other tabs what changed (BroadcastChannel); without it there are no other tabs
 * @property {LocalConfig | null} [cache] localStorage: where earlier versions kept everything (migrated from on the
 *   first start) and, for the keys `cached` names, a copy the page paints its first view from
 * @property {(key: string) => boolean} [cached] the keys copied into `cache` (only what a first view shows)
 * @property {(key: string) => boolean} [ignoreLegacy] keys of `cache` that are neither migrated nor removed (hints of their own)
 * @property {string} [journal] the prefix of the keys of `cache` where each page keeps its journal of changes not
 *   yet written (a page reloaded or closed right after a change loses nothing); without it such changes are lost
 * @property {() => void} [writable] throws when nothing may be written now (a backup is being restored in another tab)
 * @property {(err: unknown) => void} [onError] a change that could not be saved in the background
 * @property {(file: string, entries: Record<string, string>) => string | null} [check] what is wrong with a file's
 *   values (e.g. a workspace list of the wrong shape), or null: such a file counts as damaged, like one that is not JSON
 */

/**
 * Clawser's settings and workspace list (`clawser_*` keys → JSON), kept in the browser's file
 * storage (OPFS) where a crash cannot lose what was written: each group of keys is one file,
 * replaced atomically (written whole to a temporary file, then moved over the old one).
 *
 * Reads are synchronous, from memory: the files are read once (`load`), then every change made
 * here applies at once and is written in the background — `flush()` resolves once everything
 * changed before it is on storage (a dialog that says "saved" waits for it). Other tabs: every
 * write re-reads the file under a cross-tab lock and applies this tab's changes to what is
 * stored now (so tabs never undo each other's changes), then tells the other tabs, which apply
 * the same changes to their memory. A file that is damaged is never overwritten: its keys read
 * as missing, changes to them stay in memory (flush rejects, naming the file) until the user
 * sets the file aside (`setAside`, which keeps its bytes under another name) or exports it.
 *
 * localStorage is at most a cache: the keys `cached` names are copied there after each write
 * so the next page paints its first view at once; the app validates that view against these
 * files. On the first start after an update, every `clawser_*` key of localStorage is moved here.
 * It also keeps each page's journal (`journal`): the changes not written yet, which a page that
 * starts makes again when the page that made them is gone before writing them — written only
 * if nothing was written over them since, and never twice (the file names the change that
 * last wrote each key).
 * @implements {ConfigStore}
 */
export class DurableConfig {
  /** @type {Map<string, string>} what the files held when last read or written (key → raw JSON) */
  #base = new Map();
  /** Changes not yet written, by key. @type {Map<string, PendingOp>} */
  #pending = new Map();
  /** @type {Map<string, number>} each file's sequence number, as last read or written */
  #seq = new Map();
  /** @type {Map<string, ConfigProblem>} */
  #damage = new Map();
  /** Each file's record of which change last wrote each key, as last read or written. @type {Map<string, Record<string, string>>} */
  #written = new Map();
  /** This page's journal key in `cache` (null: no journal), and what it last wrote there. */
  #journalKey = /** @type {string | null} */ (null);
  #journalText = '';
  /** The flush that will take the changes pending now (not started yet). @type {Promise<void> | null} */
  #next = null;
  /** @type {Promise<void>} */
  #chain = Promise.resolve();
  /** Messages from other tabs that arrived while loading. @type {unknown[] | null} */
  #early = [];
  #unsubscribe = () => {};

  /** @param {DurableConfigOptions} options */
  constructor(options) {
    this.options = options;
    this.fs = options.fs;
    if (options.cache && options.journal) this.#journalKey = `${options.journal}${newChangeId()}`;
  }

  /** @param {string} file */
  pathOf(file) {
    return `${STATE_FOLDER}/${file}`;
  }

  /**
   * Reads the files (once, before anything reads a key). The first time (no file yet), moves
   * every `clawser_*` key of localStorage into them and checks it reads back the same. A
   * damaged file is reported by `problems()`, its bytes untouched.
   * @returns {Promise<{migrated: number}>}
   */
  async load() {
    const { channel, files } = this.options;
    this.#unsubscribe = channel?.subscribe(TOPIC, (data) => (this.#early ? this.#early.push(data) : this.#receive(data))) ?? (() => {});
    let found = await this.#readAll();
    let migrated = 0;
    let reconcile = true;
    if (found.every((f) => f === null)) {
      try {
        migrated = await this.options.lock('config', async () => {
          // Another tab may have migrated meanwhile; and a folder with set-aside files is not new.
          found = await this.#readAll();
          if (found.some((f) => f !== null) || (await this.fs.list(STATE_FOLDER).catch(() => [])).length > 0) return 0;
          return this.#migrate();
        });
        if (migrated) found = await this.#readAll();
      } catch (err) {
        // Not moved (storage full…): this page works from localStorage's values, which stay
        // there, and writes them with its next change.
        reconcile = false;
        for (const [key, raw] of this.#legacy()) this.#pending.set(key, { raw, from: raw, steps: [], id: newChangeId() });
        this.options.onError?.(err);
      }
    }
    files.forEach((file, i) => this.#adopt(file, found[i]));
    if (reconcile) this.#reconcileCache();
    const early = this.#early ?? [];
    this.#early = null;
    for (const m of early) this.#receive(m);
    this.#replayJournals();
    return { migrated };
  }

  /** @param {string} key */
  #isJournal(key) {
    const prefix = this.options.journal;
    return prefix !== undefined && key.startsWith(prefix);
  }

  /**
   * The changes pages made but did not write (they were reloaded, closed or killed first, or
   * are still writing them): each made again here, the newest per key, unless its file was
   * written since (by its page, or over it), is damaged, or already holds it. Journals left by
   * gone pages are removed once nothing in them is left to write.
   */
  #replayJournals() {
    const { cache, fileOf, files } = this.options;
    if (!cache || !this.#journalKey) return;
    /** @type {Map<string, {id: string, raw: string | null, seq: number}>} */
    const chosen = new Map();
    /** @type {Array<[string, string]>} */
    const seen = [];
    for (const [jkey, text] of cache.entries()) {
      if (!this.#isJournal(jkey) || jkey === this.#journalKey) continue;
      seen.push([jkey, text]);
      const journal = JournalSchema.safeParse(parseOr(text, null));
      if (!journal.success) continue;
      for (const [id, { key, raw, seq }] of Object.entries(journal.data.changes)) {
        const file = fileOf(key);
        if (!files.includes(file) || this.#damage.has(file)) continue;
        if (this.#written.get(file)?.[key] === id || this.#seq.get(file) !== seq) continue;
        if ((this.#base.get(key) ?? null) === raw || this.#pending.has(key)) continue;
        const other = chosen.get(key);
        if (!other || other.id < id) chosen.set(key, { id, raw, seq });
      }
    }
    for (const [key, { id, raw, seq }] of chosen) this.#pending.set(key, { raw, from: raw, steps: [], id, onlyAt: seq });
    const forget = () => {
      try {
        // A journal changed since it was read belongs to a page still at work: it stays.
        for (const [jkey, text] of seen) if (cache.getRaw(jkey) === text) cache.remove(jkey);
      } catch {
        // Only a journal: what it held is written, or still in its page.
      }
    };
    if (chosen.size === 0) {
      forget();
      return;
    }
    this.#syncJournal();
    this.#schedule().then(forget, (err) => this.options.onError?.(err));
  }

  /** Writes this page's journal: every change it has not written yet (none: the key is removed). Best effort. */
  #syncJournal() {
    const { cache, fileOf } = this.options;
    if (!cache || !this.#journalKey) return;
    /** @type {Journal['changes']} */
    const changes = {};
    for (const [key, op] of this.#pending) changes[op.id] = { key, raw: op.raw, seq: this.#seq.get(fileOf(key)) ?? 0 };
    const text = Object.keys(changes).length ? JSON.stringify({ v: 1, changes }) : '';
    if (text === this.#journalText) return;
    try {
      if (text) cache.setRaw(this.#journalKey, text);
      else cache.remove(this.#journalKey);
      this.#journalText = text;
    } catch {
      // localStorage full or gone: the change is still written in the background.
    }
  }

  /** Each file's text, or null when missing. @returns {Promise<(string | null)[]>} */
  async #readAll() {
    const reads = await readFiles(
      this.fs,
      this.options.files.map((f) => ({ path: this.pathOf(f) })),
    );
    const decoder = new TextDecoder();
    return reads.map((r) => (r ? decoder.decode(r.bytes) : null));
  }

  /**
   * Takes a file's text as what is stored now: its entries replace this tab's view of its keys
   * (changes still pending here stay on top); damaged, its keys read as missing. With
   * `ifNewer`, a text older than what this tab knows is ignored (reads may answer out of order).
   * @param {string} file @param {string | null} text @param {{ifNewer?: boolean}} [options]
   */
  #adopt(file, text, { ifNewer = false } = {}) {
    const parsed = text === null ? null : this.#parse(file, text);
    if (parsed?.ok === false) {
      this.#take(file, 0, {}, {});
      this.#damage.set(file, {
        file,
        path: this.pathOf(file),
        reason: parsed.reason,
        size: new TextEncoder().encode(/** @type {string} */ (text)).length,
      });
      return;
    }
    const seq = parsed ? parsed.doc.seq : 0;
    if (ifNewer && seq < (this.#seq.get(file) ?? 0)) return;
    this.#take(file, seq, parsed ? parsed.doc.entries : {}, parsed?.doc.written ?? {});
  }

  /** A file's text read, its values checked. @param {string} file @param {string} text @returns {ReturnType<typeof parseConfigFile>} */
  #parse(file, text) {
    const parsed = parseConfigFile(text);
    const problem = parsed.ok ? this.options.check?.(file, parsed.doc.entries) : null;
    return problem ? { ok: false, reason: problem } : parsed;
  }

  /**
   * This tab's view of a file: stored at `seq`, with these entries (`written`: which change last
   * wrote each key), not damaged.
   * @param {string} file @param {number} seq @param {Record<string, string>} entries @param {Record<string, string>} written
   */
  #take(file, seq, entries, written) {
    const { fileOf } = this.options;
    for (const key of [...this.#base.keys()]) if (fileOf(key) === file) this.#base.delete(key);
    for (const [key, raw] of Object.entries(entries)) if (fileOf(key) === file) this.#base.set(key, raw);
    this.#seq.set(file, seq);
    this.#written.set(file, written);
    this.#damage.delete(file);
  }

  /** The `clawser_*` keys of localStorage that earlier versions kept there (what a migration moves). */
  #legacy() {
    const { cache, ignoreLegacy } = this.options;
    return (cache?.entries() ?? []).filter(([key]) => !ignoreLegacy?.(key) && !this.#isJournal(key));
  }

  /**
   * Writes every `clawser_*` key of localStorage into the files (the first start after an
   * update) and reads them back: resolves to the number of keys moved, and rejects, leaving
   * localStorage as it is, unless every one of them reads back the same.
   */
  async #migrate() {
    const { fileOf, files } = this.options;
    /** @type {Map<string, Record<string, string>>} */
    const byFile = new Map(files.map((f) => [f, {}]));
    let count = 0;
    for (const [key, raw] of this.#legacy()) {
      const entries = byFile.get(fileOf(key));
      if (!entries) continue;
      entries[key] = raw;
      count++;
    }
    if (count === 0) return 0;
    for (const [file, entries] of byFile) await this.fs.write(this.pathOf(file), serialize(1, entries));
    for (const [file, entries] of byFile) {
      const back = parseConfigFile((await readTextIfExists(this.fs, this.pathOf(file))) ?? '');
      if (!back.ok || JSON.stringify(back.doc.entries) !== JSON.stringify(entries)) {
        throw new StorageError(
          'io',
          `Your settings could not be moved into the browser's file storage (${this.pathOf(file)} did not read back the same); they ` +
            `stay where they were. Reload Clawser to try again.`,
        );
      }
    }
    return count;
  }

  /**
   * localStorage after a load: the first-view keys as the files hold them, and the keys older
   * versions kept there (now in the files) removed. Keys of a damaged file are left as they are.
   */
  #reconcileCache() {
    const { cache, cached, ignoreLegacy, fileOf } = this.options;
    if (!cache) return;
    try {
      for (const [key, raw] of cache.entries()) {
        if (ignoreLegacy?.(key) || this.#isJournal(key) || this.#damage.has(fileOf(key))) continue;
        const now = this.#base.get(key);
        if (!cached?.(key) || now === undefined) cache.remove(key);
        else if (now !== raw) cache.setRaw(key, now);
      }
      for (const [key, raw] of this.#base) if (cached?.(key) && cache.get(key, undefined) === undefined) cache.setRaw(key, raw);
    } catch {
      // Only a cache: the first view paints without it.
    }
  }

  /** @param {string} key */
  #check(key) {
    if (typeof key !== 'string' || !key.startsWith(PREFIX))
      throw new ConfigError('invalid_key', `Config keys must start with "${PREFIX}" (got "${key}").`);
    return key;
  }

  /** The raw JSON of a key as this tab sees it (its own changes included), or undefined. @param {string} key */
  #raw(key) {
    const op = this.#pending.get(key);
    if (op) return op.raw ?? undefined;
    return this.#base.get(key);
  }

  /**
   * Parsed JSON value, or `fallback` when missing or unreadable.
   * @template T
   * @param {string} key
   * @param {T} fallback
   * @returns {unknown | T}
   */
  get(key, fallback) {
    const raw = this.#raw(this.#check(key));
    return raw === undefined ? fallback : parseOr(raw, fallback);
  }

  /** @param {string} key @param {unknown} value */
  set(key, value) {
    this.setRaw(key, JSON.stringify(value));
  }

  /** Stores raw JSON text as it is (a restore). @param {string} key @param {string} raw */
  setRaw(key, raw) {
    this.#change(this.#check(key), { raw, from: raw, steps: [], id: '' });
  }

  /** @param {string} key */
  remove(key) {
    if (this.#raw(this.#check(key)) === undefined && !this.#pending.has(key)) return;
    this.#change(key, { raw: null, from: null, steps: [], id: '' });
  }

  /**
   * Changes a value from what it is: `fn` gets the current value (undefined when missing or
   * unreadable) and returns the new one (undefined: remove). Applied at once to what this tab
   * sees, and again, when written, to what is stored then (under the cross-tab lock) — so a
   * change another tab made meanwhile to the same key is built on, never undone (a list of
   * workspaces two tabs add to keeps both).
   * @param {string} key @param {(value: unknown) => unknown} fn
   */
  update(key, fn) {
    this.#check(key);
    /** @param {string | undefined} raw */
    const step = (raw) => {
      const next = fn(raw === undefined ? undefined : parseOr(raw, undefined));
      return next === undefined ? null : JSON.stringify(next);
    };
    const earlier = this.#pending.get(key);
    this.#change(key, {
      raw: step(this.#raw(key)),
      ...(earlier && earlier.from !== undefined ? { from: earlier.from } : {}),
      steps: [...(earlier?.steps ?? []), step],
      id: '',
    });
  }

  /** A change made here: applied at once, journalled, written in the background. @param {string} key @param {PendingOp} op */
  #change(key, op) {
    this.#pending.set(key, { ...op, id: newChangeId() });
    this.#syncJournal();
    this.#schedule().catch((err) => this.options.onError?.(err));
  }

  /**
   * Another tab changed what is stored under these keys: this tab's updates of them are made again from it.
   * @param {Iterable<string>} keys
   */
  #rebase(keys) {
    for (const key of keys) {
      const op = this.#pending.get(key);
      if (op && op.from === undefined) this.#pending.set(key, { ...op, raw: changedValue(op, this.#base.get(key)) });
    }
  }

  /** @param {string} prefix @returns {string[]} */
  keys(prefix) {
    this.#check(prefix);
    return this.entries()
      .map(([k]) => k)
      .filter((k) => k.startsWith(prefix));
  }

  /** Every entry as [key, raw JSON text] (what a backup stores). @returns {Array<[string, string]>} */
  entries() {
    /** @type {Map<string, string>} */
    const all = new Map(this.#base);
    for (const [key, op] of this.#pending) {
      if (op.raw === null) all.delete(key);
      else all.set(key, op.raw);
    }
    return [...all];
  }

  /**
   * Resolves once every change made before the call is on storage; rejects with what stopped
   * it (a damaged file, a full disk, a restore in another tab) — those changes then stay in
   * memory and are tried again with the next write.
   * @returns {Promise<void>}
   */
  flush() {
    return this.#schedule();
  }

  /** Changes are written one batch at a time; the batch after the running one takes everything pending when it starts. */
  #schedule() {
    if (!this.#next) {
      const run = this.#chain.then(() => {
        this.#next = null;
        return this.#write();
      });
      this.#next = run;
      this.#chain = run.catch(() => {});
    }
    return this.#next;
  }

  async #write() {
    if (this.#pending.size === 0) return;
    const { fileOf, lock, channel } = this.options;
    const ops = new Map(this.#pending);
    /** @type {Map<string, Array<[string, PendingOp]>>} */
    const byFile = new Map();
    for (const [key, op] of ops) {
      const file = fileOf(key);
      byFile.set(file, [...(byFile.get(file) ?? []), [key, op]]);
    }
    /** @type {string[]} */
    const blocked = [];
    /** @type {Array<[string, PendingOp]>} */
    const written = [];
    await lock('config', async () => {
      this.options.writable?.();
      for (const [file, fileOps] of byFile) {
        if (this.#damage.has(file)) {
          blocked.push(file);
          continue;
        }
        const path = this.pathOf(file);
        const text = await readTextIfExists(this.fs, path);
        /** @type {Record<string, string>} */
        let entries;
        let seq;
        /** @type {Record<string, string>} */
        let writtenBy = {};
        if (text === null) {
          // Gone since this tab read it: written anew from what this tab knows.
          entries = Object.fromEntries([...this.#base].filter(([k]) => fileOf(k) === file));
          seq = Math.max(0, this.#seq.get(file) ?? 0);
        } else {
          const parsed = this.#parse(file, text);
          if (!parsed.ok) {
            // Damaged since it was read: kept as it is, like a file found damaged at start.
            this.#adopt(file, text);
            blocked.push(file);
            continue;
          }
          ({ entries, seq } = parsed.doc);
          writtenBy = { ...parsed.doc.written };
        }
        /** @type {Array<[string, string | null]>} */
        const changes = [];
        /** @type {string[]} */
        const ids = [];
        for (const [key, op] of fileOps) {
          // Written already (another page made it again from this page's journal), or made
          // again here from a journal and since written over: not made (again).
          if (writtenBy[key] === op.id || (op.onlyAt !== undefined && op.onlyAt !== seq)) continue;
          // An update is made on what is stored now: another tab's change to the key stays.
          const raw = changedValue(op, entries[key]);
          if (raw === null) delete entries[key];
          else entries[key] = raw;
          writtenBy[key] = op.id;
          changes.push([key, raw]);
          ids.push(op.id);
        }
        written.push(...fileOps);
        if (changes.length === 0) {
          this.#take(file, seq, entries, writtenBy);
          continue;
        }
        // Which change last wrote a key is kept while the key is stored, and for the keys just removed.
        for (const key of Object.keys(writtenBy)) if (!(key in entries) && !changes.some(([k]) => k === key)) delete writtenBy[key];
        await this.fs.write(path, serialize(seq + 1, entries, writtenBy));
        this.#take(file, seq + 1, entries, writtenBy);
        try {
          channel?.publish(TOPIC, { file, seq: seq + 1, changes, ids });
        } catch {
          // No other tab to tell (a closed channel).
        }
      }
    });
    for (const [key, op] of written) this.#settle(key, op);
    this.#rebase(written.map(([key]) => key));
    this.#syncJournal();
    this.#cacheWritten(written.map(([key]) => key));
    if (blocked.length) {
      const first = this.#damage.get(blocked[0]);
      throw new DamagedFileError(
        `${blocked.map((f) => this.#describe(f)).join(' ')} The change is kept in this tab but not saved. ${SET_ASIDE_HINT}`,
        { what: first?.path ?? blocked[0], problem: first?.reason ?? '' },
      );
    }
  }

  /**
   * `op` is stored: it leaves the pending changes — and so do its steps from a later change
   * of the same key built on it (made meanwhile), whose other steps stay, to be made on what is stored now.
   * @param {string} key @param {PendingOp} op
   */
  #settle(key, op) {
    const now = this.#pending.get(key);
    if (!now) return;
    if (now === op) {
      this.#pending.delete(key);
      return;
    }
    const builtOn = now.from === op.from && op.steps.every((step, i) => now.steps[i] === step);
    if (!builtOn) return;
    const rest = now.steps.slice(op.steps.length);
    if (rest.length === 0) this.#pending.delete(key);
    else this.#pending.set(key, { raw: now.raw, steps: rest, id: now.id });
  }

  /** @param {string} file */
  #describe(file) {
    const d = this.#damage.get(file);
    return `${this.pathOf(file)} in the browser's storage is damaged${d ? ` (${d.reason})` : ''}.`;
  }

  /** Copies the first-view keys just written into localStorage. @param {string[]} keys */
  #cacheWritten(keys) {
    const { cache, cached } = this.options;
    if (!cache || !cached) return;
    try {
      for (const key of keys) {
        if (!cached(key)) continue;
        const raw = this.#raw(key);
        if (raw === undefined) cache.remove(key);
        else cache.setRaw(key, raw);
      }
    } catch {
      // Only a cache.
    }
  }

  /** A message from another tab: the changes it wrote (in order), or that a file was replaced. @param {unknown} data */
  #receive(data) {
    const parsed = MessageSchema.safeParse(data);
    if (!parsed.success || !this.options.files.includes(parsed.data.file)) return;
    const m = parsed.data;
    if ('reload' in m) {
      // A file set aside: what this tab knew of it no longer counts.
      this.#seq.set(m.file, -1);
      void this.#reload(m.file);
      return;
    }
    const seq = this.#seq.get(m.file) ?? 0;
    if (m.seq <= seq) return;
    if (m.seq > seq + 1) {
      // A message missed (or a reload under way): read what is stored now.
      void this.#reload(m.file);
      return;
    }
    this.#seq.set(m.file, m.seq);
    const writtenBy = { ...this.#written.get(m.file) };
    m.changes.forEach(([key, raw], i) => {
      if (this.options.fileOf(key) !== m.file) return;
      if (raw === null) this.#base.delete(key);
      else this.#base.set(key, raw);
      const id = m.ids?.[i];
      if (id) writtenBy[key] = id;
      // The other tab wrote this tab's own change (made again from its journal): it is done.
      if (id && this.#pending.get(key)?.id === id) this.#pending.delete(key);
    });
    this.#written.set(m.file, writtenBy);
    this.#rebase(m.changes.map(([key]) => key));
    this.#syncJournal();
  }

  /** @param {string} file */
  async #reload(file) {
    try {
      const text = await readTextIfExists(this.fs, this.pathOf(file));
      this.#adopt(file, text, { ifNewer: true });
      const keys = [...new Set([...this.#base.keys(), ...this.#pending.keys()])].filter((k) => this.options.fileOf(k) === file);
      this.#rebase(keys);
      this.#syncJournal();
    } catch (err) {
      this.options.onError?.(err);
    }
  }

  /** The damaged files, as found. @returns {ConfigProblem[]} */
  problems() {
    return [...this.#damage.values()];
  }

  /** The damaged file a key lives in, or null. @param {string} key @returns {ConfigProblem | null} */
  damageOf(key) {
    return this.#damage.get(this.options.fileOf(key)) ?? null;
  }

  /** A damaged file's bytes as they are (to download). @param {string} file */
  damagedBytes(file) {
    return this.fs.readBytes(this.pathOf(file));
  }

  /**
   * Moves a damaged file aside (its bytes kept, as `<name>.damaged-<time>.json` beside it) and writes
   * a new one from the changes made since; other tabs read it afresh. Resolves to where the
   * damaged bytes are now.
   * @param {string} file
   * @returns {Promise<string>}
   */
  async setAside(file) {
    const aside = asidePath(this.pathOf(file));
    await this.options.lock('config', async () => {
      this.options.writable?.();
      const text = await readTextIfExists(this.fs, this.pathOf(file));
      if (text === null || this.#parse(file, text).ok) {
        // Another tab set it aside (or repaired it) meanwhile: take what is there now.
        this.#adopt(file, text);
        throw new ConfigError('not_damaged', `${this.pathOf(file)} is not damaged (any more); nothing was moved.`);
      }
      await this.fs.move(this.pathOf(file), aside);
      this.#adopt(file, null);
      try {
        this.options.channel?.publish(TOPIC, { file, reload: true });
      } catch {
        // No other tab to tell.
      }
    });
    // The changes made while it was damaged now have a file to go to.
    await this.flush();
    return aside;
  }

  /** Stops listening to the other tabs. */
  close() {
    this.#unsubscribe();
  }
}
