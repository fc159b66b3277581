/** @import { FileSystem } from '../../storage/types.d.ts' */
import { z } from 'zod';
import { isQuotaError } from '../../storage/errors.js';

/**
 * Checkpoints of the agent's state in a workspace's `.checkpoints/` folder: one JSON file per
 * checkpoint (`{id}.json`, a new file written in place; see save()) plus
 * `index.json`, a small summary used by `list()` and rewritten after each save together with
 * the pruning. The files are the truth and the index only a cache: a tab killed between the
 * two loses nothing, and `latest()` never reads the index. Damaged files go to `damaged/`.
 */

/**
 * What a checkpoint holds: which conversation a turn was running in and where that
 * conversation's log stood when the turn started (a byte offset of its `events.jsonl`), never a
 * copy of a conversation's messages. The event logs are the truth; the offset lets a restore
 * find the cut-off turn's request in the log (web/app/daemon-wiring.js). Strict: anything
 * else (such as a copy of the history) is refused, so no write-only data creeps in.
 */
export const CheckpointStateSchema = z.strictObject({
  version: z.literal(2),
  workspaceId: z.string().min(1),
  conversationId: z.string().optional(),
  savedAt: z.number(),
  // A turn still 'running' in the newest checkpoint was interrupted (tab killed mid-turn).
  turn: z
    .strictObject({
      status: z.enum(['running', 'idle']),
      startedAt: z.number().optional(),
      // Length of the conversation's events.jsonl when the turn started.
      bytes: z.number().int().nonnegative().optional(),
    })
    .optional(),
});
/** @typedef {z.infer<typeof CheckpointStateSchema>} CheckpointState */
/**
 * What `save()` takes: the state without `version` and `savedAt`, which it fills in.
 * @typedef {Omit<CheckpointState, 'version' | 'savedAt'>} CheckpointInput
 */

/**
 * Format 1 (before issue 11) kept a copy of the conversation's history in `session`. Such a
 * file is still read — only its ids and turn status, the copy is dropped — until pruning or a
 * conversation delete (`forget`) removes it.
 */
const LegacyStateSchema = z.looseObject({
  version: z.literal(1),
  workspaceId: z.string().min(1),
  conversationId: z.string().optional(),
  savedAt: z.number(),
  turn: z.looseObject({ status: z.enum(['running', 'idle']), startedAt: z.number().optional() }).optional(),
});

const FileSchema = z.object({ id: z.string(), at: z.number(), state: CheckpointStateSchema });
const LegacyFileSchema = z.object({ id: z.string(), at: z.number(), state: LegacyStateSchema });

const InfoSchema = z.object({
  id: z.string(),
  at: z.number(),
  bytes: z.number(),
  conversationId: z.string().optional(),
  turnStatus: z.enum(['running', 'idle']).optional(),
});
/** @typedef {z.infer<typeof InfoSchema>} CheckpointInfo */
const IndexSchema = z.object({ version: z.literal(1), checkpoints: z.array(InfoSchema) });

/** @typedef {{info: CheckpointInfo, state: CheckpointState}} Checkpoint */
/**
 * A checkpoint file that could not be read; it was moved to `damaged/`.
 * @typedef {{id: string, path: string, reason: string}} SkippedCheckpoint
 */

/** @typedef {'quota' | 'io' | 'invalid_state' | 'too_large' | 'not_found' | 'corrupt'} CheckpointErrorCode */

export class CheckpointError extends Error {
  /** @param {CheckpointErrorCode} code @param {string} message @param {{cause?: unknown}} [options] */
  constructor(code, message, options) {
    super(message, options);
    this.name = 'CheckpointError';
    this.code = code;
  }
}

// Ids sort by time as plain strings: 9 base-36 digits of ms (enough until the year 5188) and
// a random suffix so two tabs saving in the same millisecond do not collide.
const ID_RE = /^[0-9a-z]{9}-[0-9a-z]{4}$/;
const INDEX = 'index.json';
const DAMAGED = 'damaged';
const encoder = new TextEncoder();
/** @type {import('../../storage/types.d.ts').WriteOptions} */
const CHECKPOINT_WRITE = { atomic: false };

/** @param {number} at */
const newId = (at) => `${at.toString(36).padStart(9, '0')}-${Math.random().toString(36).slice(2, 6).padEnd(4, '0')}`;
/** @param {string} id */
const timeOfId = (id) => parseInt(id.slice(0, 9), 36);
/**
 * A checkpoint this recent that is empty or cut off may be one another tab is writing (they are
 * written in place, and a reader in another tab is not locked out): passed over, not set aside.
 */
const WRITING_GRACE_MS = 10_000;
/** @param {unknown} err */
const messageOf = (err) => /** @type {Error} */ (err)?.message ?? String(err);
/** @param {z.ZodError} err */
const describeIssue = (err) => {
  const issue = err.issues[0];
  return issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : err.message;
};

/**
 * A format-1 state without its copy of the history (and without the turn's request text: the
 * log has it).
 * @param {z.infer<typeof LegacyStateSchema>} old @returns {CheckpointState}
 */
function fromLegacy(old) {
  /** @type {CheckpointState} */
  const state = { version: 2, workspaceId: old.workspaceId, savedAt: old.savedAt };
  if (old.conversationId !== undefined) state.conversationId = old.conversationId;
  if (old.turn)
    state.turn =
      old.turn.startedAt === undefined ? { status: old.turn.status } : { status: old.turn.status, startedAt: old.turn.startedAt };
  return state;
}

export class CheckpointManager {
  /**
   * Housekeeping (index + pruning) runs after a save has returned, one run at a time, so
   * index writes never race and a save costs one atomic write (see the bench).
   * @type {Promise<unknown>}
   */
  #housekeeping = Promise.resolve();
  #housekeepingQueued = false;
  /** Damaged files were moved aside since the last prune: prune them too. */
  #damagedToPrune = true;
  /** Summaries by id, from index.json and this manager's saves. @type {Map<string, CheckpointInfo> | null} */
  #index = null;
  /** Saved, not yet in the index. @type {CheckpointInfo[]} */
  #newInfos = [];
  #lastAt = 0;

  /**
   * @param {{fs: FileSystem, dir?: string, keep?: number, maxBytes?: number, now?: () => number}} options
   *   fs: the workspace's file system; dir: folder inside it (default `.checkpoints`);
   *   keep: checkpoints kept by `prune()` after every save (default 10);
   *   maxBytes: largest checkpoint accepted (default 32 MiB)
   */
  constructor(options) {
    this.fs = options.fs;
    this.dir = options.dir ?? '.checkpoints';
    this.keep = Math.max(1, options.keep ?? 10);
    this.maxBytes = options.maxBytes ?? 32 * 1024 * 1024;
    this.now = options.now ?? Date.now;
  }

  /** @param {string} id */
  pathOf(id) {
    return `${this.dir}/${id}.json`;
  }

  /** @template T @param {() => Promise<T>} fn @returns {Promise<T>} */
  #afterHousekeeping(fn) {
    const run = this.#housekeeping.then(fn);
    this.#housekeeping = run.catch(() => {});
    return run;
  }

  /** Resolves when the index and pruning after this manager's saves are done. */
  async idle() {
    for (let p = this.#housekeeping; ; p = this.#housekeeping) {
      await p;
      if (p === this.#housekeeping) return;
    }
  }

  /** Checkpoint ids on disk, newest first. */
  async #ids() {
    let entries;
    try {
      entries = await this.fs.list(this.dir);
    } catch (err) {
      if (/** @type {{code?: string}} */ (err).code === 'not_found') return [];
      throw new CheckpointError('io', `The checkpoints could not be listed: ${messageOf(err)}`, { cause: err });
    }
    const ids = [];
    for (const e of entries) {
      const id = e.name.endsWith('.json') ? e.name.slice(0, -5) : '';
      if (e.kind === 'file' && ID_RE.test(id)) ids.push(id);
    }
    ids.sort();
    ids.reverse();
    if (ids.length) this.#lastAt = Math.max(this.#lastAt, timeOfId(ids[0]));
    return ids;
  }

  async #readIndex() {
    if (this.#index) return this.#index;
    /** @type {Map<string, CheckpointInfo>} */
    const map = new Map();
    try {
      const parsed = IndexSchema.safeParse(JSON.parse(await this.fs.readText(`${this.dir}/${INDEX}`)));
      if (parsed.success) for (const info of parsed.data.checkpoints) map.set(info.id, info);
    } catch {
      // Missing or damaged index: it is only a cache of the files' summaries.
    }
    this.#index = map;
    return map;
  }

  /**
   * Saves a checkpoint; resolves once its file is completely written (a new file). Nothing
   * older is touched before that: on failure (storage full: code `quota`) every earlier
   * checkpoint and the index are as they were. Pruning to `keep` and the index update follow
   * in the background (`idle()` waits for them).
   * @param {CheckpointInput} input
   * @returns {Promise<CheckpointInfo>}
   */
  async save(input) {
    const at = Math.max(this.now(), this.#lastAt + 1); // monotonic, so ids keep their order
    const parsed = CheckpointStateSchema.safeParse({ ...input, version: 2, savedAt: at });
    if (!parsed.success)
      throw new CheckpointError('invalid_state', `The agent state cannot be checkpointed: ${describeIssue(parsed.error)}`, {
        cause: parsed.error,
      });
    const state = parsed.data;
    const id = newId(at);
    const bytes = encoder.encode(JSON.stringify({ id, at, state }));
    if (bytes.length > this.maxBytes) {
      throw new CheckpointError(
        'too_large',
        `The agent state is ${(bytes.length / 1048576).toFixed(1)} MB, more than the ${(this.maxBytes / 1048576).toFixed(0)} MB a ` +
          `checkpoint may take; it was not saved.`,
      );
    }
    this.#lastAt = at; // before the write, so saves issued meanwhile get later ids
    const path = this.pathOf(id);
    try {
      // A new file of its own name, written in place (no temp file, move or fsync: most of a
      // save's time while the disk is busy). Another tab's latest() may read it before it is
      // complete: it passes over a recent file that is empty or cut off (WRITING_GRACE_MS). A
      // power cut right after may leave it so for good; latest() then sets it aside as damaged
      // and uses the one before. A checkpoint is no more durable than the log offsets it names,
      // whose appends are forced to disk when idle.
      await this.fs.write(path, bytes, CHECKPOINT_WRITE);
    } catch (err) {
      // A failed write may leave part of the file behind.
      await this.fs.delete(path).catch(() => {});
      if (isQuotaError(err)) {
        throw new CheckpointError(
          'quota',
          'The checkpoint was not saved: browser storage is full. Earlier checkpoints were kept. ' +
            'Free space by deleting conversations or workspaces you no longer need.',
          { cause: err },
        );
      }
      throw new CheckpointError('io', `The checkpoint was not saved: ${messageOf(err)}. Earlier checkpoints were kept.`, { cause: err });
    }
    /** @type {CheckpointInfo} */
    const info = { id, at, bytes: bytes.length };
    if (state.conversationId !== undefined) info.conversationId = state.conversationId;
    if (state.turn) info.turnStatus = state.turn.status;
    this.#newInfos.push(info);
    // Saves that finish while a run is queued share it. A failed run is retried after the
    // next save; the checkpoint itself is safe on disk already.
    if (!this.#housekeepingQueued) {
      this.#housekeepingQueued = true;
      this.#afterHousekeeping(() => {
        this.#housekeepingQueued = false;
        return this.#prune(this.keep);
      }).catch(() => {});
    }
    return info;
  }

  /**
   * Deletes all but the newest `keep` checkpoints (and damaged files beyond that many) and
   * rewrites the index. Returns the deleted ids.
   * @param {{keep?: number}} [options]
   */
  prune(options = {}) {
    this.#damagedToPrune = true;
    return this.#afterHousekeeping(() => this.#prune(Math.max(1, options.keep ?? this.keep)));
  }

  /** @param {number} keep */
  async #prune(keep) {
    const ids = await this.#ids();
    const index = await this.#readIndex();
    for (const info of this.#newInfos.splice(0)) index.set(info.id, info);
    const kept = ids.slice(0, keep);
    const dropped = ids.slice(keep);
    /** @type {CheckpointInfo[]} */
    const checkpoints = [];
    for (const id of kept) {
      // A file the index does not know (another tab's, or the index was lost): rebuild its
      // summary from the file, so the index heals itself. Rare, so the extra read is fine.
      const info =
        index.get(id) ??
        (await this.load(id).then(
          (c) => c.info,
          () => null,
        ));
      if (!info) continue;
      index.set(id, info);
      checkpoints.push(info);
    }
    for (const id of [...index.keys()]) if (!kept.includes(id)) index.delete(id);
    // Different paths: the storage worker runs these concurrently. The index is written in
    // place (cheaper than the atomic temp-and-move): it is a cache, validated when read and
    // rebuilt from the files when damaged.
    await Promise.all([
      this.fs.write(`${this.dir}/${INDEX}`, JSON.stringify({ version: 1, checkpoints }), { atomic: false }),
      ...dropped.map((id) => this.fs.delete(this.pathOf(id))),
      this.#damagedToPrune ? this.#pruneDamaged(keep) : null,
    ]);
    return dropped;
  }

  /** @param {number} keep */
  async #pruneDamaged(keep) {
    const entries = await this.fs.list(`${this.dir}/${DAMAGED}`).catch(() => []);
    const names = entries
      .filter((e) => e.kind === 'file')
      .map((e) => e.name)
      .sort()
      .reverse();
    await Promise.all(names.slice(keep).map((n) => this.fs.delete(`${this.dir}/${DAMAGED}/${n}`)));
    this.#damagedToPrune = false;
  }

  /**
   * Deletes every checkpoint file that mentions a conversation, because it was deleted: no
   * trace of it may stay, also not in a backup taken afterwards. Checkpoints are small, so each
   * file of the folder (damaged ones and leftovers of cut-off writes too, whose shape cannot
   * be trusted) is read and searched for the id; the index is rewritten without them.
   * @param {string} conversationId
   * @returns {Promise<number>} how many files were deleted
   */
  forget(conversationId) {
    if (!conversationId) return Promise.resolve(0);
    return this.#afterHousekeeping(async () => {
      /** @type {string[]} */
      const paths = [];
      for (const dir of [this.dir, `${this.dir}/${DAMAGED}`]) {
        const entries = await this.fs.list(dir).catch(() => []);
        for (const e of entries) if (e.kind === 'file' && e.name !== INDEX) paths.push(`${dir}/${e.name}`);
      }
      let deleted = 0;
      for (const path of paths) {
        const text = await this.fs.readText(path).catch(() => '');
        if (!text.includes(conversationId)) continue;
        await this.fs.delete(path);
        deleted++;
      }
      if (deleted) await this.#prune(this.keep);
      return deleted;
    });
  }

  /**
   * Summaries of the checkpoints on disk, newest first, from the index. A file the index does
   * not know — another tab's, or a tab closed before its index update — is read for its
   * summary (a damaged one is listed from its name and size).
   * @returns {Promise<CheckpointInfo[]>}
   */
  async list() {
    await this.idle();
    const ids = await this.#ids();
    const index = await this.#readIndex();
    return Promise.all(
      ids.map(async (id) => {
        const known = index.get(id);
        if (known) return known;
        try {
          const { info } = await this.load(id);
          index.set(id, info);
          return info;
        } catch {
          return { id, at: timeOfId(id), bytes: (await this.fs.stat(this.pathOf(id)).catch(() => null))?.size ?? 0 };
        }
      }),
    );
  }

  /**
   * Reads and validates one checkpoint.
   * @param {string} id
   * @returns {Promise<Checkpoint>} rejects with code `not_found` or `corrupt`
   */
  async load(id) {
    if (!ID_RE.test(id)) throw new CheckpointError('not_found', `"${id}" is not a checkpoint id.`);
    let text;
    try {
      text = await this.fs.readText(this.pathOf(id));
    } catch (err) {
      if (/** @type {{code?: string}} */ (err).code === 'not_found')
        throw new CheckpointError('not_found', `There is no checkpoint "${id}".`, { cause: err });
      throw new CheckpointError('io', `Checkpoint "${id}" could not be read: ${messageOf(err)}`, { cause: err });
    }
    let json;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw new CheckpointError('corrupt', `Checkpoint "${id}" is not valid JSON (${text.length ? 'cut off or damaged' : 'empty'}).`, {
        cause: err,
      });
    }
    const version = json?.state?.version;
    if (version !== undefined && version !== 1 && version !== 2) {
      throw new CheckpointError('corrupt', `Checkpoint "${id}" was written by a newer version of Clawser (format ${String(version)}).`);
    }
    const parsed = version === 1 ? LegacyFileSchema.safeParse(json) : FileSchema.safeParse(json);
    if (!parsed.success)
      throw new CheckpointError('corrupt', `Checkpoint "${id}" does not have the expected shape (${describeIssue(parsed.error)}).`, {
        cause: parsed.error,
      });
    if (parsed.data.id !== id) throw new CheckpointError('corrupt', `Checkpoint file "${id}" holds checkpoint "${parsed.data.id}".`);
    const { at } = parsed.data;
    const state = parsed.data.state.version === 1 ? fromLegacy(parsed.data.state) : parsed.data.state;
    /** @type {CheckpointInfo} */
    const info = { id, at, bytes: encoder.encode(text).length };
    if (state.conversationId !== undefined) info.conversationId = state.conversationId;
    if (state.turn) info.turnStatus = state.turn.status;
    return { info, state };
  }

  /**
   * The newest checkpoint that can be read. Damaged files are skipped — reported once and
   * moved to `damaged/` — never thrown: a bad file must not stop the app from starting.
   * Rejects only when storage itself fails.
   * @returns {Promise<{checkpoint: Checkpoint | null, skipped: SkippedCheckpoint[]}>}
   */
  async latest() {
    /** @type {SkippedCheckpoint[]} */
    const skipped = [];
    await this.idle();
    for (const id of await this.#ids()) {
      try {
        return { checkpoint: await this.load(id), skipped };
      } catch (err) {
        const code = /** @type {CheckpointError} */ (err).code;
        if (code === 'not_found') continue; // pruned by another tab meanwhile
        if (code !== 'corrupt') throw err;
        const age = this.now() - timeOfId(id);
        if (/** @type {Error} */ (err).cause instanceof SyntaxError && age >= 0 && age < WRITING_GRACE_MS) continue; // being written
        const path = this.pathOf(id);
        skipped.push({ id, path, reason: messageOf(err) });
        await this.fs.move(path, `${this.dir}/${DAMAGED}/${id}.json`).catch(() => {});
        this.#index?.delete(id);
        this.#damagedToPrune = true;
      }
    }
    return { checkpoint: null, skipped };
  }
}
