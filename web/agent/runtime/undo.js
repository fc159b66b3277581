/** @import { FileSystem, DirEntry, FileStat, WriteOptions } from '../../storage/types.d.ts' */
import { z } from 'zod';
import { toBase64 } from '../../storage/base64.js';
import { readTextIfExists } from '../../storage/index.js';
import { readJson, setAsideFile } from '../../storage/damage.js';
import { protectedFolderOf } from '../../storage/protected-fs.js';

/** The largest file undo keeps a copy of; a bigger one is reported, not restored. */
export const UNDO_MAX_FILE_BYTES = 16 * 1024 * 1024;
/** What one turn's copies may add up to (a deleted tree of files); beyond it, files are reported, not restored. */
export const UNDO_TURN_BUDGET_BYTES = 64 * 1024 * 1024;

/**
 * Per-turn undo and redo. While a turn runs, a TurnRecorder notes the state before each thing
 * the turn's tools change — files, memories, goals, scheduled jobs — and when the turn ends the
 * state after. Undo puts the "before" back, redo the "after"; a thing someone else changed since
 * (the user edited the file, another tab changed the goal) is a conflict, never overwritten
 * without the user's yes. The turn's messages leave the model's context through the branch
 * machinery (a `branch` back to where the turn started, then `turn_undone`), so the log keeps
 * them. Records live with the conversation (`undo/`), the newest 20 kept.
 */

export const UNDO_KEEP = 20;
export const UNDO_KINDS = /** @type {const} */ (['file', 'memory', 'goal', 'job']);
/** @typedef {typeof UNDO_KINDS[number]} UndoKind */

/**
 * How undo reads and writes one kind of thing: `get` its state now (null: absent), `set` a
 * state (null: remove it), `same` whether two states are the same for conflict checks.
 * `snapshot` (when given) is what the recorder keeps before a change (it may keep less than `get`, a size budget).
 * `paths` (when given): the workspace files a state of the thing is kept in (the commit after an undo holds them).
 * @typedef {{get: (key: string) => Promise<unknown>, set: (key: string, value: unknown) => Promise<void>, same?: (a: unknown, b: unknown)
 *   => boolean, describe?: (key: string) => string,
 *   snapshot?: (key: string) => Promise<unknown>, paths?: (key: string, value: unknown) => string[]}} UndoDomain
 */
/** @typedef {Partial<Record<UndoKind, UndoDomain>>} UndoDomains */

const ChangeSchema = z.object({ kind: z.enum(UNDO_KINDS), key: z.string(), before: z.unknown(), after: z.unknown() });
/** @typedef {{kind: UndoKind, key: string, before: unknown, after: unknown}} UndoChange */

export const TurnRecordSchema = z.object({
  version: z.literal(1),
  /** The turn's first event. */
  id: z.string(),
  conversationId: z.string(),
  /**
   * Where the conversation stood before the turn (null: empty); after an edit or a regeneration, the version shown before it. Undo goes
   * back there.
   */
  head: z.string().nullable(),
  /** Its last event. */
  last: z.string(),
  at: z.number(),
  state: z.enum(['done', 'undone']),
  undoneAt: z.number().optional(),
  /** The turn's messages (said when it is undone). */
  messages: z.number().int().nonnegative(),
  changes: z.array(ChangeSchema),
});
/** @typedef {z.infer<typeof TurnRecordSchema>} TurnRecord */

const json = (/** @type {unknown} */ v) => JSON.stringify(v ?? null);

/** Notes the state of each thing a turn changes, before the first change and at the end. */
export class TurnRecorder {
  /** @type {Map<string, {kind: UndoKind, key: string, before: unknown, ready: Promise<void>}>} */
  #touched = new Map();

  /** @param {UndoDomains} domains */
  constructor(domains) {
    this.domains = domains;
  }

  /**
   * Before a change: the thing's state now, the first time this turn touches it (a second
   * change waits for that first read, so parallel calls never note a state already changed).
   * @param {UndoKind} kind @param {string} key
   */
  async touch(kind, key) {
    const id = `${kind}\u0000${key}`;
    const known = this.#touched.get(id);
    if (known) return known.ready;
    const domain = this.domains[kind];
    if (!domain) return;
    /** @type {{kind: UndoKind, key: string, before: unknown, ready: Promise<void>}} */
    const entry = { kind, key, before: null, ready: Promise.resolve() };
    entry.ready = (domain.snapshot ?? domain.get)(key).then(
      (v) => {
        entry.before = v;
      },
      () => {
        entry.before = null;
      },
    );
    this.#touched.set(id, entry);
    return entry.ready;
  }

  /** Something the turn created (it did not exist before). @param {UndoKind} kind @param {string} key */
  created(kind, key) {
    const id = `${kind}\u0000${key}`;
    if (!this.#touched.has(id)) this.#touched.set(id, { kind, key, before: null, ready: Promise.resolve() });
  }

  /** The turn ended: every touched thing's state now; unchanged ones are left out. @returns {Promise<UndoChange[]>} */
  async finish() {
    /** @type {UndoChange[]} */
    const out = [];
    for (const t of this.#touched.values()) {
      await t.ready;
      const domain = /** @type {UndoDomain} */ (this.domains[t.kind]);
      const after = await (domain.snapshot ?? domain.get)(t.key).catch(() => null);
      if (!(domain.same ?? sameJson)(t.before, after)) out.push({ kind: t.kind, key: t.key, before: t.before, after });
    }
    return out;
  }
}

/** @param {unknown} v */
const isTooLarge = (v) => !!v && typeof v === 'object' && 'tooLarge' in v;

/** @param {unknown} a @param {unknown} b */
function sameJson(a, b) {
  return json(a) === json(b);
}

/**
 * A file system that tells the recorder before it changes a file (what the turn's tools get).
 * A deleted or moved folder's files are each noted.
 * @implements {FileSystem}
 */
export class RecordingFileSystem {
  /**
   * @param {FileSystem} inner
   * @param {TurnRecorder} recorder
   * @param {Set<string>} [written] collects the paths changed through this view (a sub-agent's "files it changed")
   */
  constructor(inner, recorder, written) {
    this.inner = inner;
    this.recorder = recorder;
    this.written = written;
  }

  /** @param {string} path */
  #wrote(path) {
    this.written?.add(normalize(path));
  }

  /** @param {string} path */
  async #note(path) {
    // Clawser's own folders are refused below (the write fails): nothing to keep a copy of.
    if (protectedFolderOf(path)) return;
    const stat = await this.inner.stat(path).catch(() => null);
    if (stat?.kind === 'directory') {
      for (const e of await this.inner.list(path).catch(() => /** @type {DirEntry[]} */ ([])))
        await this.#note(`${path.replace(/\/+$/, '')}/${e.name}`);
      return;
    }
    await this.recorder.touch('file', normalize(path));
  }

  /** @param {string} p */ async readText(p) {
    return this.inner.readText(p);
  }
  /** @param {string} p @param {{start?: number, end?: number}} [r] */ async readBytes(p, r) {
    return this.inner.readBytes(p, r);
  }
  /** @param {string} p @returns {Promise<DirEntry[]>} */ async list(p) {
    return this.inner.list(p);
  }
  /** @param {string} p @returns {Promise<FileStat | null>} */ async stat(p) {
    return this.inner.stat(p);
  }
  /** @param {string} p @param {string | Uint8Array} d @param {WriteOptions} [o] */ async write(p, d, o) {
    await this.#note(p);
    await this.inner.write(p, d, o);
    this.#wrote(p);
  }
  /** @param {string} p @param {string | Uint8Array} d */ async append(p, d) {
    await this.#note(p);
    await this.inner.append(p, d);
    this.#wrote(p);
  }
  /** @param {string} p @param {number} n */ async truncate(p, n) {
    await this.#note(p);
    await this.inner.truncate(p, n);
    this.#wrote(p);
  }
  /** @param {string} p */ async mkdir(p) {
    return this.inner.mkdir(p);
  }
  /** @param {string} p */ async delete(p) {
    await this.#note(p);
    await this.inner.delete(p);
    this.#wrote(p);
  }
  /** @param {string} a @param {string} b */
  async move(a, b) {
    await this.#note(a);
    const target = await this.inner.stat(b).catch(() => null);
    if (target?.kind === 'directory') {
      const stat = await this.inner.stat(a).catch(() => null);
      if (stat?.kind === 'file')
        await this.recorder.touch('file', normalize(`${b.replace(/\/+$/, '')}/${a.split('/').filter(Boolean).at(-1)}`));
    } else if (!target) {
      const stat = await this.inner.stat(a).catch(() => null);
      if (stat?.kind === 'directory') {
        // Each file lands under the new name.
        const walk = async (/** @type {string} */ from, /** @type {string} */ to) => {
          for (const e of await this.inner.list(from).catch(() => /** @type {DirEntry[]} */ ([]))) {
            if (e.kind === 'directory') await walk(`${from}/${e.name}`, `${to}/${e.name}`);
            else await this.recorder.touch('file', normalize(`${to}/${e.name}`));
          }
        };
        await walk(a.replace(/\/+$/, ''), b.replace(/\/+$/, ''));
      } else await this.recorder.touch('file', normalize(b));
    } else await this.recorder.touch('file', normalize(b));
    await this.inner.move(a, b);
    this.#wrote(a);
    this.#wrote(b);
  }
}

/** @param {string} path */
function normalize(path) {
  return path.split('/').filter(Boolean).join('/');
}

/**
 * The undo domain of files: a file's content (base64), or null when it does not exist.
 * @param {FileSystem} fs the workspace's files as the tools see them (Clawser's own folders read-only)
 * @param {{budgetBytes?: number}} [options] budgetBytes: what the copies of one turn may add up to
 * @returns {UndoDomain}
 */
export function fileDomain(fs, options = {}) {
  let left = options.budgetBytes ?? UNDO_TURN_BUDGET_BYTES;
  return {
    async snapshot(path) {
      const stat = await fs.stat(path).catch(() => null);
      if (!stat || stat.kind !== 'file') return null;
      if (stat.size > Math.min(UNDO_MAX_FILE_BYTES, left)) return { tooLarge: stat.size, modified: stat.mtimeMs ?? null };
      left -= stat.size;
      return toBase64(await fs.readBytes(path));
    },
    async get(path) {
      const stat = await fs.stat(path).catch(() => null);
      if (!stat || stat.kind !== 'file') return null;
      // Too big to keep a copy of: its size and time stand in (undo says it cannot put it back).
      if (stat.size > UNDO_MAX_FILE_BYTES) return { tooLarge: stat.size, modified: stat.mtimeMs ?? null };
      return toBase64(await fs.readBytes(path));
    },
    async set(path, value) {
      if (value === null || value === undefined) {
        if (await fs.stat(path).catch(() => null)) await fs.delete(path);
        return;
      }
      if (typeof value === 'object')
        throw new Error(
          `no copy was kept (${Math.round(Number(/** @type {{tooLarge: number}} */ (value).tooLarge) / 1048576)} MB; copies are kept up ` +
            `to ${UNDO_MAX_FILE_BYTES / 1048576} MB)`,
        );
      const bin = atob(String(value));
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      await fs.write(path, bytes);
    },
    describe: (path) => `the file ${path}`,
    paths: (path) => [path],
  };
}

/**
 * Wraps a store so that its changing methods tell the recorder first. `before` names the keys
 * a call is about to change (from its arguments); `after` names keys the call created (from its
 * result).
 * @template {object} T
 * @param {T} store @param {TurnRecorder} recorder @param {UndoKind} kind
 * @param {Record<string, {before?: (args: any[]) => string | null | Promise<string | null>, after?: (result: any) => string | null}>}
 *   methods
 * @returns {T}
 */
export function recordingStore(store, recorder, kind, methods) {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      const spec = typeof prop === 'string' ? methods[prop] : undefined;
      if (!spec) return value === undefined ? value : value.bind(target);
      return async (/** @type {any[]} */ ...args) => {
        const key = spec.before ? await spec.before(args) : null;
        if (key) await recorder.touch(kind, key);
        const result = await value.apply(target, args);
        const made = spec.after?.(result);
        if (made) recorder.created(kind, made);
        return result;
      };
    },
  });
}

/**
 * What undoing (or redoing) a record would do now: the changes that can be applied, and the
 * conflicts (the thing is no longer as the turn left it, or, for redo, as undo left it).
 * @param {TurnRecord} record @param {UndoDomains} domains @param {'undo' | 'redo'} direction
 */
export async function planUndo(record, domains, direction) {
  /** @type {{change: UndoChange, target: unknown}[]} */
  const apply = [];
  /** @type {{change: UndoChange, target: unknown, what: string}[]} */
  const conflicts = [];
  for (const change of /** @type {UndoChange[]} */ (record.changes)) {
    const domain = domains[change.kind];
    if (!domain) continue;
    const expected = direction === 'undo' ? change.after : change.before;
    const target = direction === 'undo' ? change.before : change.after;
    // No copy was kept (too large): said, never guessed.
    if (isTooLarge(target) || isTooLarge(expected)) {
      conflicts.push({
        change,
        target,
        what: `${domain.describe?.(change.key) ?? change.key} (too large to keep a copy of: left as it is)`,
      });
      continue;
    }
    const now = await domain.get(change.key).catch(() => null);
    const same = domain.same ?? sameJson;
    if (same(now, target)) continue; // already as wanted
    if (same(now, expected)) apply.push({ change, target });
    else conflicts.push({ change, target, what: domain.describe?.(change.key) ?? `${change.kind} ${change.key}` });
  }
  return { apply, conflicts };
}

/**
 * Applies a plan (the conflicts too when the user said so). Returns what could not be applied.
 * @param {Awaited<ReturnType<typeof planUndo>>} plan @param {UndoDomains} domains @param {{overwrite?: boolean}} [options]
 */
export async function applyUndo(plan, domains, options = {}) {
  const todo = options.overwrite ? [...plan.apply, ...plan.conflicts] : plan.apply;
  /** @type {string[]} */
  const failed = [];
  for (const { change, target } of todo) {
    const domain = /** @type {UndoDomain} */ (domains[change.kind]);
    try {
      await domain.set(change.key, target);
    } catch (err) {
      failed.push(`${domain.describe?.(change.key) ?? change.key}: ${/** @type {Error} */ (err).message}`);
    }
  }
  return failed;
}

/**
 * The workspace files an applied plan changed (a file, a goal's mirror): what the commit after
 * an undo or redo holds.
 * @param {Awaited<ReturnType<typeof planUndo>>} plan @param {UndoDomains} domains @param {{overwrite?: boolean}} [options] as given to
 *   applyUndo
 */
export function undoPaths(plan, domains, options = {}) {
  const done = options.overwrite ? [...plan.apply, ...plan.conflicts] : plan.apply;
  /** @type {Set<string>} */
  const out = new Set();
  for (const { change } of done) {
    const paths = domains[change.kind]?.paths;
    if (!paths) continue;
    for (const p of [...paths(change.key, change.before), ...paths(change.key, change.after)]) out.add(p);
  }
  return [...out].sort();
}

/** How many of each kind a record changed, in words ("2 files, 1 memory"). @param {TurnRecord} record */
export function describeChanges(record) {
  /** @type {Record<string, number>} */
  const n = {};
  for (const c of record.changes) n[c.kind] = (n[c.kind] ?? 0) + 1;
  const words = {
    file: ['file', 'files'],
    memory: ['memory', 'memories'],
    goal: ['goal', 'goals'],
    job: ['scheduled job', 'scheduled jobs'],
  };
  const parts = UNDO_KINDS.filter((k) => n[k]).map((k) => `${n[k]} ${words[k][n[k] === 1 ? 0 : 1]}`);
  return parts.length ? parts.join(', ') : 'no files, memories, goals or jobs';
}

/** The undo records of one conversation, in its folder (`undo/{turn id}.json`), the newest kept. */
export class UndoStore {
  /**
   * @param {FileSystem} fs @param {string} dir the conversation's folder
   * @param {{keep?: number, onDamage?: import('../../storage/damage.js').DamageSink, title?: string}} [options]
   *   onDamage: told of a damaged record (not offered, kept as it is until set aside); title: the conversation's, for that report
   */
  constructor(fs, dir, options = {}) {
    this.fs = fs;
    this.dir = `${dir}/undo`;
    this.keep = options.keep ?? UNDO_KEEP;
    this.onDamage = options.onDamage;
    this.title = options.title ?? '';
  }

  /**
   * Every record, oldest first (damaged files are skipped and reported; set-aside ones are not records).
   * @returns {Promise<TurnRecord[]>}
   */
  async list() {
    const entries = await this.fs.list(this.dir).catch(() => []);
    /** @type {TurnRecord[]} */
    const out = [];
    for (const e of entries) {
      if (e.kind !== 'file' || !e.name.endsWith('.json') || e.name.includes('.damaged-')) continue;
      const path = `${this.dir}/${e.name}`;
      const text = await readTextIfExists(this.fs, path).catch(() => null);
      if (text === null) continue;
      const r = readJson(text, TurnRecordSchema);
      if (r.ok) out.push(r.value);
      else {
        // Not offered (that turn cannot be undone); kept as it is.
        this.onDamage?.({
          what: `Conversation “${this.title}”: the undo record of a turn (${e.name})`,
          problem: `${r.problem}. That turn cannot be undone`,
          path,
          setAside: () => setAsideFile(this.fs, path),
        });
      }
    }
    return out.sort((a, b) => a.at - b.at);
  }

  /** @param {TurnRecord} record */
  async save(record) {
    await this.fs.write(`${this.dir}/${record.id}.json`, JSON.stringify(TurnRecordSchema.parse(record)));
  }

  /**
   * Keeps a new turn's record: redo is no longer possible for turns undone before it, and only
   * the newest `keep` records stay.
   * @param {TurnRecord} record
   */
  async add(record) {
    await this.save(record);
    const all = await this.list();
    for (const r of all) if (r.state === 'undone') await this.fs.delete(`${this.dir}/${r.id}.json`).catch(() => {});
    const done = all.filter((r) => r.state === 'done');
    for (const r of done.slice(0, Math.max(0, done.length - this.keep))) await this.fs.delete(`${this.dir}/${r.id}.json`).catch(() => {});
  }

  /**
   * The turn undo would revert: the newest one not undone that ends where the conversation now
   * ends (`end`: its last event that is not an undo or redo record).
   * @param {string | null} end
   */
  async undoable(end) {
    return (await this.list()).filter((r) => r.state === 'done' && r.last === end).at(-1) ?? null;
  }

  /**
   * The turn redo would re-apply: the one undone last among those that start where the
   * conversation now ends.
   * @param {string | null} end
   */
  async redoable(end) {
    return (
      (await this.list())
        .filter((r) => r.state === 'undone' && r.head === end)
        .sort((a, b) => (a.undoneAt ?? 0) - (b.undoneAt ?? 0))
        .at(-1) ?? null
    );
  }
}
