/** @import { ConversationMeta, Coordination, ClawserEvent } from '../types.d.ts' */
/** @import { FileSystem } from '../../storage/types.d.ts' */
import { readTextIfExists, writeJson } from '../../storage/index.js';
import { readFiles } from '../../storage/read-files.js';
import { Conversation, damagedLogLines, snapshotProblem } from './conversation.js';
import { parseEventLines } from './event-log.js';
import { toJsonl } from './conversation-export.js';
import {
  LIST_FILE,
  parseConversationList,
  conversationListText,
  byActivity,
  parseMeta,
  normalizeTags,
  TagsError,
} from './conversation-list.js';
import {
  ignoreDamage,
  setAsideFile,
  DamagedFileError,
  SET_ASIDE_HINT,
  keptLinesProblem,
  damagedLinesPath,
  keepDamagedLines,
} from '../../storage/damage.js';
import { plainTitle } from './title.js';

/** Conversations checked together, between two pauses. */
const CHECK_BATCH = 20;
/** Bytes of files read in one go by the check (a larger file alone). */
const CHECK_READ_BYTES = 4 * 1024 * 1024;
/** A conversation's files, as the check reads them. */
const CHECKED_FILES = /** @type {const} */ (['meta.json', 'snapshot.json', 'events.jsonl']);
/** What the check remembers of a file it found intact (or whose damage it kept). @typedef {{size: number, mtimeMs: number}} CheckedFile */

/** @param {number} now */
const newConversationId = (now) => `c${now.toString(36)}${Math.random().toString(36).slice(2, 8)}`;

/** Lists, creates, renames, deletes and opens the conversations of one workspace. */
export class ConversationStore {
  /** @type {FileSystem} */ #fs;
  #base;

  /** @type {Coordination | undefined} */ #coordination;
  /** @type {import('../../storage/damage.js').DamageSink} */ #onDamage;
  /** The details the last list() gave, by id (a damaged meta.json falls back on them). @type {Record<string, ConversationMeta>} */
  #known = {};
  /**
   * Told after a damaged file was set aside (the conversation's id, or null for the list): an
   * open instance of that conversation still works around the damage, so it is opened again.
   * @type {((id: string | null) => void) | null}
   */
  onSetAside = null;

  /**
   * @param {FileSystem} fs @param {string} workspaceId @param {Coordination} [coordination] shared with other tabs
   * @param {{onDamage?: import('../../storage/damage.js').DamageSink}} [options] onDamage: told of every damaged
   *   file found (the list, a conversation's details, snapshot or log lines), with a way to set it aside
   */
  constructor(fs, workspaceId, coordination, options = {}) {
    this.#fs = fs;
    this.#coordination = coordination;
    this.#onDamage = options.onDamage ?? ignoreDamage;
    this.#base = `clawser_workspaces/${workspaceId}/.conversations`;
  }

  /** @param {string} id */
  dirOf(id) {
    if (!/^[A-Za-z0-9_-]+$/.test(id)) throw new Error(`Invalid conversation id "${id}".`);
    return `${this.#base}/${id}`;
  }

  get #listFile() {
    return `${this.#base}/${LIST_FILE}`;
  }

  /**
   * A conversation's meta.json, or null when there is none. A damaged one is reported and
   * stands in as `damaged` details (listed, never written to the saved list).
   * @param {string} id @returns {Promise<(ConversationMeta & {damaged?: true}) | null>}
   */
  async #readMeta(id) {
    const text = await readTextIfExists(this.#fs, `${this.#base}/${id}/meta.json`).catch(() => null);
    if (text === null) return null;
    const checked = parseMeta(text);
    if (checked.ok) return checked.value;
    this.#reportMeta(id, 'Conversation with damaged details', checked.problem);
    return { id, title: 'Conversation with damaged details', createdAt: 0, updatedAt: 0, damaged: true };
  }

  /** @param {string} id @param {string} title @param {string} problem */
  #reportMeta(id, title, problem) {
    this.#onDamage({
      what: `Conversation “${title}”: its details (meta.json)`,
      problem,
      path: `${this.dirOf(id)}/meta.json`,
      setAside: () => this.#afterwards(id, this.setAsideMeta(id)),
    });
  }

  /** @param {string | null} id @param {Promise<string>} done @returns {Promise<string>} */
  async #afterwards(id, done) {
    const to = await done;
    this.onSetAside?.(id);
    return to;
  }

  /** @returns {Promise<{conversations: Record<string, ConversationMeta>, problem: string | null}>} */
  async #readList() {
    return parseConversationList(await readTextIfExists(this.#fs, this.#listFile).catch(() => null));
  }

  /**
   * Changes the saved list (under the list's lock when other tabs share it). A damaged list is
   * left as it is (list() then reads every meta.json) until it is set aside.
   * @param {(list: Record<string, ConversationMeta>) => void} change
   */
  async #changeList(change) {
    const write = async () => {
      const { conversations: list, problem } = await this.#readList();
      if (problem) return;
      change(list);
      await this.#fs.write(this.#listFile, conversationListText(list));
    };
    const c = this.#coordination;
    await (c ? c.withLock(`convlist:${this.#base}`, write) : write());
  }

  /**
   * The workspace's conversations, newest activity first. Read from one saved list
   * (`list.json`, a copy kept in step with each meta.json) rather than a file per conversation
   * — OPFS reads cost milliseconds each — checked against the folder's entries: a conversation
   * the list does not know (imported, restored, from an older version) is read from its
   * meta.json, and one whose folder is gone leaves the list.
   * @returns {Promise<ConversationMeta[]>}
   */
  async list() {
    await this.#fs.mkdir(this.#base);
    const [entries, read] = await Promise.all([this.#fs.list(this.#base), this.#readList()]);
    const saved = read.conversations;
    if (read.problem) {
      this.#onDamage({
        what: 'The list of conversations (list.json)',
        problem: `${read.problem}. Every conversation is still listed, from its own details`,
        path: this.#listFile,
        setAside: () => this.#afterwards(null, setAsideFile(this.#fs, this.#listFile)),
      });
    }
    const dirs = new Set(entries.filter((e) => e.kind === 'directory').map((e) => e.name));
    const unknown = [...dirs].filter((id) => !saved[id]);
    const found = (await Promise.all(unknown.map((id) => this.#readMeta(id)))).filter((m) => m !== null);
    const gone = Object.keys(saved).filter((id) => !dirs.has(id));
    /** @type {Record<string, ConversationMeta>} */
    const current = {};
    for (const id of dirs) {
      const meta = saved[id] ?? found.find((m) => m.id === id);
      if (meta) current[id] = meta;
    }
    // A stand-in for damaged details is shown, never saved as the conversation's details.
    const good = found.filter((m) => !('damaged' in m));
    if (good.length || gone.length) {
      await this.#changeList((list) => {
        for (const m of good) list[m.id] = m;
        for (const id of gone) delete list[id];
      }).catch(() => {}); // only a speed-up: the next list reads the folders again
    }
    this.#known = current;
    return byActivity(Object.values(current));
  }

  /**
   * After a meta.json write: the list follows. If it cannot (a full quota), the list is dropped
   * rather than left stale: the next list() reads every meta.json again.
   * @param {ConversationMeta} meta
   */
  async #listed(meta) {
    await this.#changeList((list) => {
      list[meta.id] = meta;
    }).catch(() => this.#fs.delete(this.#listFile).catch(() => {}));
  }

  /**
   * @param {string} [title] @param {{parent?: ConversationMeta['parent'], job?: ConversationMeta['job']}} [options] parent: a sub-agent's
   *   conversation names its caller's (and keeps its title); job: a scheduled job's names the job
   * @returns {Promise<ConversationMeta>}
   */
  async create(title = 'New conversation', options = {}) {
    const now = Date.now();
    const id = newConversationId(now);
    /** @type {ConversationMeta} */
    const meta = {
      id,
      title,
      createdAt: now,
      updatedAt: now,
      ...(options.parent ? { parent: options.parent, titleSet: true } : {}),
      ...(options.job ? { job: options.job } : {}),
    };
    await writeJson(this.#fs, `${this.dirOf(id)}/meta.json`, meta);
    await this.#listed(meta);
    return meta;
  }

  /**
   * Opens a conversation. What its opening found damaged is reported (once: lines kept before
   * are not repeated), with a way to set each damaged file aside.
   * @param {string} id
   */
  async open(id) {
    const dir = this.dirOf(id);
    const c = this.#coordination;
    const known = this.#known[id];
    const options = known && !('damaged' in known) ? { fallbackMeta: known } : {};
    // Opening repairs a torn last line: under the lock, a line another tab is writing is never taken for one.
    const conv = await (c
      ? c.withLock(Conversation.topic(dir), () => Conversation.open(this.#fs, dir, undefined, c, false, options))
      : Conversation.open(this.#fs, dir, undefined, undefined, false, options));
    conv.onMetaWritten = (meta) => this.#listed(meta);
    const title = conv.meta.title;
    for (const d of conv.report.damaged ?? []) {
      if (d.file === 'meta.json') this.#reportMeta(id, title, d.problem);
      else this.#reportSnapshot(id, title, d.problem, () => conv.setAsideSnapshot());
    }
    const reportLines = (/** @type {import('../../storage/damage.js').DamagedLine[]} */ lines) =>
      this.#reportLines(id, conv.meta.title, lines);
    reportLines(conv.report.keptLines ?? []);
    conv.onDamagedLines = reportLines;
    return conv;
  }

  /** @param {string} id @param {string} title @param {string} problem @param {() => Promise<string>} setAside */
  #reportSnapshot(id, title, problem, setAside) {
    this.#onDamage({
      what: `Conversation “${title}”: its snapshot (snapshot.json, a copy that makes opening faster)`,
      problem: `${problem}. It is not used: the conversation is read from its log`,
      path: `${this.dirOf(id)}/snapshot.json`,
      setAside: () => this.#afterwards(id, setAside()),
    });
  }

  /**
   * Damaged lines of a log just kept aside.
   * @param {string} id
   * @param {string} title
   * @param {import('../../storage/damage.js').DamagedLine[]} lines
   */
  #reportLines(id, title, lines) {
    if (!lines.length) return;
    const log = `${this.dirOf(id)}/events.jsonl`;
    this.#onDamage({
      what: `Conversation “${title}”: its log (events.jsonl)`,
      problem: keptLinesProblem(lines, damagedLinesPath('events.jsonl'), 'everything else is intact'),
      path: log,
      keptAt: damagedLinesPath(log),
    });
  }

  /**
   * Runs `fn` under the conversation's lock when other tabs share it.
   * @template T
   * @param {string} id
   * @param {() => Promise<T>} fn
   * @returns {Promise<T>}
   */
  #locked(id, fn) {
    const c = this.#coordination;
    return c ? c.withLock(Conversation.topic(this.dirOf(id)), fn) : fn();
  }

  /** Where the check remembers the files it found intact. */
  get #checkedFile() {
    return `${this.#base}/checked.json`;
  }

  /**
   * Reads every conversation's files as they are — its details, its snapshot, each line of its
   * log; nothing replayed — and reports what is damaged, as opening it would: damage in a
   * conversation that is not open shows in the notice where the person is. Damaged log lines are
   * kept aside (once: a line kept before is not reported again). A file unchanged (size and
   * time) since it was found intact is not read again (`checked.json`, a speed-up: read as
   * empty when it is damaged). `pause` is awaited between batches (the app: until the page is idle).
   * @param {{pause?: () => Promise<void>}} [options]
   */
  async check({ pause } = {}) {
    const conversations = await this.list();
    const before = await this.#readChecked();
    /** @type {Record<string, CheckedFile>} */
    const after = {};
    for (let i = 0; i < conversations.length; i += CHECK_BATCH) {
      // Each batch when the page is idle, the first too: what the person does first goes first.
      await pause?.();
      await this.#checkBatch(conversations.slice(i, i + CHECK_BATCH), before, after).catch(() => {});
    }
    const same =
      Object.keys(after).length === Object.keys(before).length &&
      Object.entries(after).every(([k, v]) => before[k]?.size === v.size && before[k]?.mtimeMs === v.mtimeMs);
    if (same) return;
    const write = () => this.#fs.write(this.#checkedFile, JSON.stringify({ version: 1, files: after }));
    const c = this.#coordination;
    await (c ? c.withLock(`convcheck:${this.#base}`, write) : write()).catch(() => {});
  }

  /** @returns {Promise<Record<string, CheckedFile>>} */
  async #readChecked() {
    try {
      const raw = JSON.parse((await readTextIfExists(this.#fs, this.#checkedFile)) ?? '{}');
      /** @type {Record<string, CheckedFile>} */
      const files = {};
      for (const [k, v] of Object.entries(raw?.version === 1 && raw.files && typeof raw.files === 'object' ? raw.files : {})) {
        if (typeof v?.size === 'number' && typeof v?.mtimeMs === 'number') files[k] = { size: v.size, mtimeMs: v.mtimeMs };
      }
      return files;
    } catch {
      return {};
    }
  }

  /**
   * Some conversations: their files' sizes and times, then the files that changed since they were
   * found intact, read a few megabytes at a time (logs can be large), each checked.
   * @param {(ConversationMeta & {damaged?: true})[]} metas as listed @param {Record<string, CheckedFile>} before
   * @param {Record<string, CheckedFile>} after filled with the files found intact
   */
  async #checkBatch(metas, before, after) {
    /**
     * @type {{id: string, title: string, file: typeof CHECKED_FILES[number], path: string,
     *   stat: import('../../storage/types.d.ts').FileStat}[]}
     */
    const stale = [];
    await Promise.all(
      metas.flatMap((meta) =>
        CHECKED_FILES.map(async (file) => {
          const path = `${this.dirOf(meta.id)}/${file}`;
          const stat = await this.#fs.stat(path).catch(() => null);
          if (stat?.kind !== 'file') return;
          const key = `${meta.id}/${file}`;
          const seen = before[key];
          if (seen && seen.size === stat.size && seen.mtimeMs === stat.mtimeMs) after[key] = seen;
          else stale.push({ id: meta.id, title: meta.title, file, path, stat });
        }),
      ),
    );
    for (let i = 0; i < stale.length; ) {
      let bytes = 0;
      let j = i;
      while (j < stale.length && (j === i || bytes + stale[j].stat.size <= CHECK_READ_BYTES)) bytes += stale[j++].stat.size;
      const group = stale.slice(i, j);
      i = j;
      const reads = await readFiles(
        this.#fs,
        group.map(({ path }) => ({ path })),
      ).catch(() => group.map(() => null));
      for (const [k, { id, title, file, stat }] of group.entries()) {
        const read = reads[k];
        if (!read) continue;
        const settled = await this.#checkFile(id, title, file, read.bytes).catch(() => false);
        if (settled && stat.mtimeMs !== undefined) after[`${id}/${file}`] = { size: stat.size, mtimeMs: stat.mtimeMs };
      }
    }
  }

  /**
   * One file of a conversation: reported when damaged. True when there is nothing (more) to
   * report: intact, or its damaged lines kept.
   * @param {string} id @param {string} title @param {typeof CHECKED_FILES[number]} file @param {Uint8Array} bytes
   */
  async #checkFile(id, title, file, bytes) {
    const text = () => new TextDecoder().decode(bytes);
    if (file === 'meta.json') {
      const checked = parseMeta(text());
      if (!checked.ok) this.#reportMeta(id, title, checked.problem);
      return checked.ok;
    }
    if (file === 'snapshot.json') {
      const problem = snapshotProblem(text());
      if (problem)
        this.#reportSnapshot(id, title, problem, () => this.#locked(id, () => setAsideFile(this.#fs, `${this.dirOf(id)}/snapshot.json`)));
      return !problem;
    }
    if (damagedLogLines(bytes).length) await this.checkLog(id, title);
    return true;
  }

  /**
   * Keeps the damaged lines of a conversation's log aside and reports them (once: lines kept
   * before are not), under the conversation's lock: a line another tab is writing is never
   * taken for a torn one. Nothing is removed from the log (opening the conversation does that).
   * @param {string} id @param {string} [title] (default: as listed)
   */
  async checkLog(id, title) {
    const log = `${this.dirOf(id)}/events.jsonl`;
    const kept = await this.#locked(id, async () => {
      const bytes = await this.#fs.readBytes(log).catch(() => null);
      return bytes ? keepDamagedLines(this.#fs, log, damagedLogLines(bytes)) : [];
    });
    if (!kept.length) return;
    const known = this.#known[id] ?? (await this.#readMeta(id));
    this.#reportLines(id, title ?? known?.title ?? 'Untitled conversation', kept);
  }

  /**
   * Sets a conversation's damaged meta.json aside (kept next to it) and writes new details in its
   * place: the saved list's copy when there is one, else rebuilt from the log (its first
   * message for a title, its dates, whether it has versions). Resolves to where the old file went.
   * @param {string} id
   */
  async setAsideMeta(id) {
    const dir = this.dirOf(id);
    const events = await this.allEvents(id);
    const known = this.#known[id];
    const firstAsk = events.find((e) => e.type === 'user_message');
    /** @type {ConversationMeta} */
    const meta =
      known && !('damaged' in known)
        ? { ...known }
        : {
            id,
            title: (firstAsk && plainTitle(String(firstAsk.data.text ?? ''))) || 'Recovered conversation',
            createdAt: events[0]?.timestamp ?? Date.now(),
            updatedAt: events.at(-1)?.timestamp ?? Date.now(),
          };
    if (events.some((e) => e.type === 'branch')) meta.branched = true;
    else delete meta.branched;
    const write = async () => {
      const to = await setAsideFile(this.#fs, `${dir}/meta.json`);
      await writeJson(this.#fs, `${dir}/meta.json`, meta);
      return to;
    };
    const c = this.#coordination;
    const to = await (c ? c.withLock(Conversation.topic(dir), write) : write());
    await this.#listed(meta);
    return to;
  }

  /**
   * Every event of a conversation, from its log (an open Conversation shows only a tail).
   * @param {string} id @returns {Promise<ClawserEvent[]>}
   */
  async allEvents(id) {
    return parseEventLines((await readTextIfExists(this.#fs, `${this.dirOf(id)}/events.jsonl`)) ?? '').events;
  }

  /**
   * A new conversation holding `events` as they are (ids and times kept), e.g. from an imported
   * file the caller validated. The log is written before the conversation is listed.
   * @param {string} title @param {ClawserEvent[]} events @returns {Promise<ConversationMeta>}
   * @param {{imagesFrom?: string, forkOf?: {conversationId: string, title: string}}} [options] imagesFrom: the conversation whose
   *   attached images the events show (a fork); forkOf: the conversation this one is a fork of (kept in its details)
   */
  async createFrom(title, events, options = {}) {
    const now = Date.now();
    const id = newConversationId(now);
    // A fork keeps the images its messages show: the files are copied with the events.
    if (options.imagesFrom) {
      for (const e of events) {
        for (const ref of e.type === 'user_message' && Array.isArray(e.data.images) ? e.data.images : []) {
          if (typeof ref?.path !== 'string' || !/^images\/[\w.-]+$/.test(ref.path)) continue;
          const bytes = await this.#fs.readBytes(`${this.dirOf(options.imagesFrom)}/${ref.path}`).catch(() => null);
          if (bytes) await this.#fs.write(`${this.dirOf(id)}/${ref.path}`, bytes);
        }
      }
    }
    await this.#fs.write(`${this.dirOf(id)}/events.jsonl`, toJsonl(events));
    /** @type {ConversationMeta} */
    const meta = { id, title, createdAt: events[0]?.timestamp ?? now, updatedAt: events.at(-1)?.timestamp ?? now, titleSet: true };
    if (events.some((e) => e.type === 'branch')) meta.branched = true;
    if (options.forkOf) meta.forkOf = { conversationId: options.forkOf.conversationId, title: options.forkOf.title };
    await writeJson(this.#fs, `${this.dirOf(id)}/meta.json`, meta);
    await this.#listed(meta);
    return meta;
  }

  /** @param {string} id @param {string} title */
  async rename(id, title) {
    const path = `${this.dirOf(id)}/meta.json`;
    const checked = parseMeta(await this.#fs.readText(path));
    if (!checked.ok)
      throw new DamagedFileError(
        `This conversation was not renamed: its details (meta.json) are damaged (${checked.problem}). ${SET_ASIDE_HINT}`,
      );
    const meta = { ...checked.value, title, titleSet: true };
    await writeJson(this.#fs, path, meta);
    await this.#listed(meta);
    return /** @type {ConversationMeta} */ (meta);
  }

  /** Pins a conversation (listed above the others) or unpins it. @param {string} id @param {boolean} pinned */
  async setPinned(id, pinned) {
    const path = `${this.dirOf(id)}/meta.json`;
    const checked = parseMeta(await this.#fs.readText(path));
    if (!checked.ok)
      throw new DamagedFileError(
        `This conversation was not pinned: its details (meta.json) are damaged (${checked.problem}). ${SET_ASIDE_HINT}`,
      );
    const { pinned: _old, ...rest } = checked.value;
    const meta = pinned ? { ...rest, pinned: true } : rest;
    await writeJson(this.#fs, path, meta);
    await this.#listed(meta);
    return /** @type {ConversationMeta} */ (meta);
  }

  /**
   * Sets a conversation's tags (an empty list removes them); what the person typed is trimmed and
   * made unique (normalizeTags), too many or too long ones are refused with a TagsError.
   * @param {string} id @param {string[]} tags
   */
  async setTags(id, tags) {
    const checkedTags = normalizeTags(tags);
    if (!checkedTags.ok) throw new TagsError(checkedTags.problem);
    const path = `${this.dirOf(id)}/meta.json`;
    const checked = parseMeta(await this.#fs.readText(path));
    if (!checked.ok)
      throw new DamagedFileError(
        `This conversation's tags were not changed: its details (meta.json) are damaged (${checked.problem}). ${SET_ASIDE_HINT}`,
      );
    const { tags: _old, ...rest } = checked.value;
    const meta = checkedTags.tags.length ? { ...rest, tags: checkedTags.tags } : rest;
    await writeJson(this.#fs, path, meta);
    await this.#listed(meta);
    return /** @type {ConversationMeta} */ (meta);
  }

  /** @param {string} id */
  async delete(id) {
    const dir = this.dirOf(id);
    const c = this.#coordination;
    // Under the conversation's lock: another tab's append is complete before, or refused after
    // (meta.json is gone), so no events.jsonl is left without its meta.json.
    if (c) await c.withLock(Conversation.topic(dir), () => this.#fs.delete(dir));
    else await this.#fs.delete(dir);
    await this.#changeList((list) => {
      delete list[id];
    }).catch(() => {}); // the folder is gone: list() drops it anyway
  }
}
