/** @import { ConversationMeta, Coordination, ClawserEvent } from './types.d.ts' */
/** @import { FileSystem } from '../storage/types.d.ts' */
import { readTextIfExists, writeJson } from '../storage/index.js';
import { Conversation } from './conversation.js';
import { parseEventLines } from './event-log.js';
import { toJsonl } from './conversation-export.js';
import { LIST_FILE, parseConversationList, conversationListText, byActivity, parseMeta } from './conversation-list.js';
import { ignoreDamage, setAsideFile, DamagedFileError, SET_ASIDE_HINT, keptLinesProblem, damagedLinesPath } from '../storage/damage.js';
import { plainTitle } from './title.js';


/** @param {number} now */
const newConversationId = (now) => `c${now.toString(36)}${Math.random().toString(36).slice(2, 8)}`;

/** Lists, creates, renames, deletes and opens the conversations of one workspace. */
export class ConversationStore {
  /** @type {FileSystem} */ #fs;
  #base;

  /** @type {Coordination | undefined} */ #coordination;
  /** @type {import('../storage/damage.js').DamageSink} */ #onDamage;
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
   * @param {{onDamage?: import('../storage/damage.js').DamageSink}} [options] onDamage: told of every damaged
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
    await this.#changeList((list) => { list[meta.id] = meta; }).catch(() => this.#fs.delete(this.#listFile).catch(() => {}));
  }

  /**
   * @param {string} [title] @param {{parent?: ConversationMeta['parent']}} [options] parent: a sub-agent's conversation names its caller's (and keeps its title)
   * @returns {Promise<ConversationMeta>}
   */
  async create(title = 'New conversation', options = {}) {
    const now = Date.now();
    const id = newConversationId(now);
    /** @type {ConversationMeta} */
    const meta = { id, title, createdAt: now, updatedAt: now, ...(options.parent ? { parent: options.parent, titleSet: true } : {}) };
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
    const conv = await (c ? c.withLock(Conversation.topic(dir), () => Conversation.open(this.#fs, dir, undefined, c, false, options)) : Conversation.open(this.#fs, dir, undefined, undefined, false, options));
    conv.onMetaWritten = (meta) => this.#listed(meta);
    const title = conv.meta.title;
    for (const d of conv.report.damaged ?? []) {
      if (d.file === 'meta.json') this.#reportMeta(id, title, d.problem);
      else {
        this.#onDamage({
          what: `Conversation “${title}”: its snapshot (snapshot.json, a copy that makes opening faster)`,
          problem: `${d.problem}. It is not used: the conversation is read from its log`,
          path: `${dir}/snapshot.json`,
          setAside: () => this.#afterwards(id, conv.setAsideSnapshot()),
        });
      }
    }
    const reportLines = (/** @type {import('../storage/damage.js').DamagedLine[]} */ lines) => {
      if (!lines.length) return;
      this.#onDamage({
        what: `Conversation “${conv.meta.title}”: its log (events.jsonl)`,
        problem: keptLinesProblem(lines, damagedLinesPath('events.jsonl'), 'everything else is intact'),
        path: `${dir}/events.jsonl`,
        keptAt: conv.damagedLinesPath,
      });
    };
    reportLines(conv.report.keptLines ?? []);
    conv.onDamagedLines = reportLines;
    return conv;
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
    const meta = known && !('damaged' in known)
      ? { ...known }
      : { id, title: (firstAsk && plainTitle(String(firstAsk.data.text ?? ''))) || 'Recovered conversation', createdAt: events[0]?.timestamp ?? Date.now(), updatedAt: events.at(-1)?.timestamp ?? Date.now() };
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
   * @param {{imagesFrom?: string}} [options] imagesFrom: the conversation whose attached images the events show (a fork)
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
    await writeJson(this.#fs, `${this.dirOf(id)}/meta.json`, meta);
    await this.#listed(meta);
    return meta;
  }

  /** @param {string} id @param {string} title */
  async rename(id, title) {
    const path = `${this.dirOf(id)}/meta.json`;
    const checked = parseMeta(await this.#fs.readText(path));
    if (!checked.ok) throw new DamagedFileError(`This conversation was not renamed: its details (meta.json) are damaged (${checked.problem}). ${SET_ASIDE_HINT}`);
    const meta = { ...checked.value, title, titleSet: true };
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
    await this.#changeList((list) => { delete list[id]; }).catch(() => {}); // the folder is gone: list() drops it anyway
  }
}
