// Why this file is long: one conversation's life over its append-only log (open with catch-up
//  across tabs, damage kept aside, snapshot, branches, images, title and meta); each step reads and
//  writes the same private state, so split they would have to expose it.
/** @import { ClawserEvent, EventType, EventData, EventOf, EventSource } from '../types.d.ts' */
/** @import { ConversationMeta, HistorySnapshot, LoadReport, SessionHistory, Coordination } from '../types.d.ts' */
/** @import { FileSystem, FileRead, ReadRequest } from '../../storage/types.d.ts' */
/** @import { Message } from '../../providers/types.d.ts' */
import { readTextIfExists, writeJson } from '../../storage/file-helpers.js';
import { readAppended, splitLines } from '../../storage/append-log.js';
import { readFiles } from '../../storage/read-files.js';
import { EventLog, addSpend, applyEventToHistory, emptySpend, isEvent, trimHistory } from './event-log.js';
import { plainTitle } from './title.js';
import { BranchTree } from './branches.js';
import { parseMeta } from './conversation-list.js';
import {
  readJson,
  keepDamagedLines,
  lineProblem,
  setAsideFile,
  damagedLinesPath,
  DamagedFileError,
  SET_ASIDE_HINT,
} from '../../storage/damage.js';
import { z } from 'zod';

/** A snapshot every this many events bounds the work of opening a conversation. */
export const SNAPSHOT_EVERY = 500;
/** The image types a user may attach, with their file extensions. @type {Record<string, string>} */
export const IMAGE_TYPES = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp', 'image/gif': 'gif' };
/** How much of the end of the log is read for the transcript when opening. */
export const DISPLAY_TAIL_BYTES = 256 * 1024;
/**
 * meta.json is rewritten (an atomic write, a few ms) when the title changes, otherwise at
 * most this often: the list's "last active" order is exact within the session and within
 * this margin after a reload.
 */
export const META_TOUCH_INTERVAL_MS = 10_000;
const NEWLINE = 0x0a;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** @param {FileRead | null} read */
const decodeOrNull = (read) => (read ? decoder.decode(read.bytes) : null);

/** @param {string} text @returns {ClawserEvent | null} */
function parseLine(text) {
  if (!text.trim()) return null;
  try {
    const e = JSON.parse(text);
    return isEvent(e) ? e : null;
  } catch {
    return null;
  }
}

/** Why a line that is not an event is damaged. @param {string} text */
function whyNotEvent(text) {
  try {
    JSON.parse(text);
    return lineProblem(text, true);
  } catch {
    return lineProblem(text, false);
  }
}

/**
 * The damaged lines among `lines` (complete lines of `bytes`, which starts at file offset
 * `base`; `end`: the offset just after the last one's newline), with their raw bytes.
 * @param {{offset: number, text: string}[]} lines @param {Uint8Array} bytes @param {number} base @param {number} end
 * @returns {import('../../storage/damage.js').DamagedLine[]}
 */
function damagedAmong(lines, bytes, base, end) {
  /** @type {import('../../storage/damage.js').DamagedLine[]} */
  const out = [];
  lines.forEach((line, k) => {
    if (!line.text.trim() || parseLine(line.text)) return;
    const stop = (k + 1 < lines.length ? lines[k + 1].offset : end) - 1;
    out.push({ offset: line.offset, bytes: bytes.slice(line.offset - base, stop - base), problem: whyNotEvent(line.text) });
  });
  return out;
}

/**
 * A snapshot as it must be to be used: a damaged one (valid JSON of another shape included) is
 * ignored and the log replayed instead — it is only a speed-up.
 */
const MessageSchema = z.looseObject({
  role: z.enum(['user', 'assistant', 'tool']),
  content: z.string(),
  toolCalls: z.array(z.looseObject({ id: z.string(), name: z.string(), arguments: z.record(z.string(), z.unknown()) })).optional(),
  toolCallId: z.string().optional(),
  imageRefs: z.array(z.looseObject({ path: z.string(), mediaType: z.string() })).optional(),
  untrusted: z.string().optional(),
});
const count = z.number().nonnegative();
const SnapshotSchema = z.looseObject({
  version: z.literal(1),
  eventCount: count.int(),
  byteLength: count.int(),
  history: z.array(MessageSchema),
  spend: z
    .looseObject({
      calls: count,
      inputTokens: count,
      outputTokens: count,
      costCents: count,
      unpricedCalls: count,
      contextTokens: count,
      partial: z.boolean().optional(),
    })
    .optional(),
});

/**
 * What is wrong with a snapshot, as it must be to be used (null: nothing): the check of a
 * conversation not open reads it as opening it would.
 * @param {string} text
 */
export function snapshotProblem(text) {
  const checked = readJson(text, SnapshotSchema);
  return checked.ok ? null : checked.problem;
}

/**
 * The damaged lines of a whole log, each line read as a record and nothing replayed: complete
 * lines that are not events, and an unterminated last line that is not one (torn: `last`). The
 * offsets and bytes are those opening gives, so a line kept by either is kept once.
 * @param {Uint8Array} bytes
 * @returns {import('../../storage/damage.js').DamagedLine[]}
 */
export function damagedLogLines(bytes) {
  const { lines, tail, tailOffset } = splitLines(bytes, 0);
  const damaged = lines.some((l) => l.text.trim() && !parseLine(l.text)) ? damagedAmong(lines, bytes, 0, tailOffset) : [];
  if (tail.length) {
    const text = decoder.decode(tail);
    if (!parseLine(text)) damaged.push({ offset: tailOffset, bytes: tail.slice(), problem: whyNotEvent(text), last: true });
  }
  return damaged;
}

/** An append to a conversation that was deleted (e.g. in another tab); code `conversation_deleted`. */
export class ConversationDeletedError extends Error {
  constructor() {
    super('This conversation was deleted, so nothing more is saved to it. Start a new conversation to continue.');
    this.name = 'ConversationDeletedError';
    this.code = 'conversation_deleted';
  }
}

/**
 * One persisted conversation: `events.jsonl` (append-only, one event per line),
 * `meta.json` and a periodic `snapshot.json` of the history window.
 */
export class Conversation {
  /** @type {FileSystem} */ #fs;
  #dir;
  /** @type {ConversationMeta} */ #meta;
  /** @type {Message[]} */ #history;
  /** @type {import('./event-log.js').ConversationSpend} */ #spend;
  #eventCount;
  #byteLength;
  #sinceSnapshot;
  /** Events read so far for the transcript (a tail of the log plus what was appended). */
  #log;
  #displayStart;
  /** @type {Promise<unknown>} */ #queue = Promise.resolve();
  #metaWrittenAt = 0;
  /** @type {Coordination | undefined} */ #coordination;
  /**
   * The branches, once the log holds a `branch` event (then the whole log is loaded); null for
   * a conversation that was never edited or regenerated, which keeps the tail-only fast path.
   * @type {BranchTree | null}
   */
  #tree = null;
  /** The active path when branched. @type {ClawserEvent[]} */
  #path = [];

  /**
   * @param {{fs: FileSystem, dir: string, meta: ConversationMeta, history: Message[], spend?: import('./event-log.js').ConversationSpend,
   *   eventCount: number, byteLength: number, sinceSnapshot: number, events: ClawserEvent[], displayStart: number, report: LoadReport,
   *   coordination?: Coordination, branched?: boolean}} state
   */
  constructor(state) {
    this.#coordination = state.coordination;
    this.#fs = state.fs;
    this.#dir = state.dir;
    this.#meta = state.meta;
    this.#history = state.history;
    this.#spend = state.spend ?? emptySpend();
    this.#eventCount = state.eventCount;
    this.#byteLength = state.byteLength;
    this.#sinceSnapshot = state.sinceSnapshot;
    this.#log = new EventLog(state.events);
    this.#displayStart = state.displayStart;
    /** What loading found and repaired. */
    this.report = state.report;
    if (state.branched) this.#useBranches();
  }

  /** Builds the branch tree from the (whole) log and takes its path and history. */
  #useBranches() {
    this.#tree = new BranchTree(this.#log.events);
    this.#followPath();
  }

  /** The path changed: what is shown and what the model gets follow the tree's head. */
  #followPath() {
    const tree = /** @type {BranchTree} */ (this.#tree);
    this.#path = tree.path();
    /** @type {Message[]} */
    const history = [];
    for (const e of this.#path) applyEventToHistory(history, e);
    this.#history = trimHistory(history);
  }

  get id() {
    return this.#meta.id;
  }
  get meta() {
    return { ...this.#meta };
  }
  /**
   * Keeps an image the user attached, as a file in the conversation's `images/` folder.
   * @param {Uint8Array} bytes @param {string} mediaType
   * @returns {Promise<import('../../providers/types.d.ts').ImageRef>}
   */
  async saveImage(bytes, mediaType) {
    const ext = IMAGE_TYPES[mediaType];
    if (!ext) throw new TypeError(`Images must be PNG, JPEG, WebP or GIF (got ${mediaType || 'an unknown type'}).`);
    const rand = Array.from(crypto.getRandomValues(new Uint8Array(4)), (b) => b.toString(16).padStart(2, '0')).join('');
    const path = `images/${Date.now().toString(36)}-${rand}.${ext}`;
    await this.#fs.write(`${this.#dir}/${path}`, bytes);
    return { path, mediaType };
  }

  /** The bytes of an image kept with the conversation. @param {import('../../providers/types.d.ts').ImageRef} ref */
  async readImage(ref) {
    if (!/^images\/[\w.-]+$/.test(ref.path)) throw new TypeError('Not an image of this conversation.');
    return this.#fs.readBytes(`${this.#dir}/${ref.path}`);
  }

  /** What this conversation's model calls cost, all versions included. */
  get spend() {
    return { ...this.#spend };
  }
  get eventCount() {
    return this.#eventCount;
  }
  /** Events loaded for display, oldest first: the active path when the conversation has branches. */
  get events() {
    return this.#tree ? this.#path : this.#log.events;
  }
  /** True once a message was edited or a reply regenerated (the log holds several versions). */
  get branched() {
    return !!this.#tree;
  }
  /** True when older events exist before the loaded ones. */
  get hasEarlier() {
    return this.#displayStart > 0;
  }
  get #eventsPath() {
    return `${this.#dir}/events.jsonl`;
  }
  /** Length of `events.jsonl` as far as this instance has read or written it (an offset for checkpoints). */
  get byteLength() {
    return this.#byteLength;
  }

  /**
   * Opens a conversation: snapshot + tail only, so the cost does not grow with its length.
   * Damage costs only what is damaged, and nothing is overwritten: a damaged meta.json is
   * replaced in memory by `fallbackMeta` (the list's copy) or a stand-in and not written until
   * it is set aside; a damaged snapshot is ignored (the log is replayed) and not rewritten until
   * then; damaged lines of the log are kept in `events.damaged.jsonl` (once) and skipped; a
   * torn last line (a tab killed mid-write) is kept there too, then cut off. `report` says what
   * was found.
   * @param {FileSystem} fs
   * @param {string} dir
   * @param {ConversationMeta} [knownMeta]
   * @param {Coordination} [coordination] other tabs may write the same conversation: appends are
   *   serialized with them and they are told (topic `Conversation.topic(dir)`)
   * @param {boolean} [whole] read the whole log, ignoring the snapshot (a branched conversation:
   *   its active path may leave the tail)
   * @param {{fallbackMeta?: ConversationMeta}} [options] fallbackMeta: the details to use when
   *   meta.json is damaged (the saved list's copy)
   * @returns {Promise<Conversation>}
   */
  static async open(fs, dir, knownMeta, coordination, whole = false, options = {}) {
    const eventsPath = `${dir}/events.jsonl`;
    // The three reads at once, in one storage call (OPFS: one round trip to its worker, which
    // reads each file through a read-only handle held for that read: briefly locked against
    // writers, which wait for it). The log's end is read with its size (a tail that covers the
    // transcript, one byte more for the line check); the snapshot like the log's end where the
    // file system offers that (a folder in its place reads as no snapshot, as before).
    const metaPath = `${dir}/meta.json`;
    const snapPath = `${dir}/snapshot.json`;
    /** @type {ReadRequest[]} */
    const reads = [{ path: eventsPath, tail: whole ? Number.MAX_SAFE_INTEGER : DISPLAY_TAIL_BYTES + 1 }];
    if (!knownMeta) reads.push({ path: metaPath });
    if (!whole) reads.push(fs.readTail ? { path: snapPath, tail: Number.MAX_SAFE_INTEGER } : { path: snapPath });
    const results = await readFiles(fs, reads);
    const got = (/** @type {string} */ path) => results[reads.findIndex((r) => r.path === path)] ?? null;
    const end = got(eventsPath) ?? { bytes: new Uint8Array(0), size: 0 };
    const metaText = knownMeta ? null : decodeOrNull(got(metaPath));
    const snapText = whole ? null : decodeOrNull(got(snapPath));
    const id = dir.split('/').pop() ?? 'conversation';
    /** @type {Required<LoadReport>} */
    const report = { tornBytes: 0, skippedLines: 0, damaged: [], keptLines: [] };
    /** @type {ConversationMeta} */
    let meta;
    if (knownMeta) meta = knownMeta;
    else if (metaText === null) meta = { id, title: 'Recovered conversation', createdAt: Date.now(), updatedAt: Date.now() };
    else {
      const checked = parseMeta(metaText);
      if (checked.ok) meta = checked.value;
      else {
        report.damaged.push({ file: 'meta.json', problem: checked.problem });
        const { branched: _unknown, ...known } = options.fallbackMeta ?? {
          id,
          title: 'Conversation with damaged details',
          createdAt: 0,
          updatedAt: 0,
        };
        meta = { ...known, id };
        // Whether it has versions is not known: read whole, the log says.
        whole = true;
      }
    }
    let size = end.size;
    /** @type {HistorySnapshot | null} */
    let snapshot = null;
    if (snapText !== null && !whole) {
      const checked = readJson(snapText, SnapshotSchema);
      if (!checked.ok) report.damaged.push({ file: 'snapshot.json', problem: checked.problem });
      else if (checked.value.byteLength <= size) snapshot = /** @type {HistorySnapshot} */ (checked.value);
    }
    const historyStart = snapshot?.byteLength ?? 0;
    const readStart = whole ? 0 : Math.min(historyStart, Math.max(0, size - DISPLAY_TAIL_BYTES));
    // Read one byte earlier to learn whether readStart is on a line boundary.
    const from = Math.max(0, readStart - 1);
    const tailStart = size - end.bytes.length;
    // The history starts before the tail read (a snapshot far back, or none): read from there,
    // up to the same end (one buffer, rather than joining two: this may be the whole log).
    const bytes = from < tailStart ? await fs.readBytes(eventsPath, { start: from, end: size }) : end.bytes.subarray(from - tailStart);
    let body = bytes;
    let bodyOffset = from;
    if (readStart > 0) {
      const firstNl = bytes.indexOf(NEWLINE);
      body = firstNl === -1 ? new Uint8Array(0) : bytes.subarray(firstNl + 1);
      bodyOffset = from + (firstNl === -1 ? bytes.length : firstNl + 1);
    }
    const { lines, tail, tailOffset } = splitLines(body, bodyOffset);
    /** @type {Message[]} */
    const history = snapshot ? snapshot.history.slice() : [];
    const spend = snapshot ? (snapshot.spend ? { ...snapshot.spend } : { ...emptySpend(), partial: true }) : emptySpend();
    /** @type {ClawserEvent[]} */
    const events = [];
    let afterSnapshot = 0;
    const take = (/** @type {ClawserEvent} */ e, /** @type {number} */ offset) => {
      events.push(e);
      if (offset >= historyStart) {
        applyEventToHistory(history, e);
        addSpend(spend, e);
        afterSnapshot++;
      }
    };
    let damagedLines = false;
    for (const line of lines) {
      const e = parseLine(line.text);
      if (e) take(e, line.offset);
      else if (line.text.trim()) {
        report.skippedLines++;
        damagedLines = true;
      }
    }
    const damaged = damagedLines ? damagedAmong(lines, body, bodyOffset, tailOffset) : [];
    /** @type {ClawserEvent | null} */
    let unterminated = null;
    if (tail.length > 0) {
      const text = decoder.decode(tail);
      unterminated = parseLine(text);
      // Not a complete event: torn (a tab killed mid-write) or garbage. Kept, then cut off below.
      if (!unterminated) damaged.push({ offset: tailOffset, bytes: tail.slice(), problem: whyNotEvent(text), last: true });
    }
    // Kept before anything drops them (a line seen before is not kept or reported again).
    if (damaged.length) report.keptLines = await keepDamagedLines(fs, eventsPath, damaged);
    if (tail.length > 0) {
      if (unterminated) {
        // Complete event whose newline never made it to disk: finish the line.
        take(unterminated, tailOffset);
        await fs.append(eventsPath, '\n');
        size += 1;
      } else {
        report.tornBytes = tail.length;
        await fs.truncate(eventsPath, tailOffset);
        size = tailOffset;
      }
    }
    if (report.damaged.some((d) => d.file === 'meta.json') && !options.fallbackMeta) {
      // A stand-in: its dates from the log.
      meta.createdAt = events[0]?.timestamp ?? 0;
      meta.updatedAt = events.at(-1)?.timestamp ?? 0;
    }
    const branched = !!meta.branched || events.some((e) => e.type === 'branch');
    if (branched && !whole && (readStart > 0 || snapshot)) {
      const again = await Conversation.open(fs, dir, meta, coordination, true);
      again.report = {
        ...again.report,
        damaged: [...report.damaged, ...(again.report.damaged ?? [])],
        keptLines: [...report.keptLines, ...(again.report.keptLines ?? [])],
        tornBytes: report.tornBytes || again.report.tornBytes,
      };
      again.#snapshotDamaged = report.damaged.some((d) => d.file === 'snapshot.json');
      return again;
    }
    trimHistory(history);
    const conv = new Conversation({
      branched,
      fs,
      dir,
      meta,
      history,
      spend,
      eventCount: (snapshot?.eventCount ?? 0) + afterSnapshot,
      byteLength: size,
      sinceSnapshot: afterSnapshot,
      events,
      displayStart: bodyOffset,
      report,
      coordination,
    });
    conv.#metaDamaged = report.damaged.some((d) => d.file === 'meta.json');
    conv.#snapshotDamaged = report.damaged.some((d) => d.file === 'snapshot.json');
    return conv;
  }

  /** meta.json is damaged: the details live in memory until it is set aside (never overwritten before). */
  #metaDamaged = false;
  /** snapshot.json is damaged: not rewritten until it is set aside. */
  #snapshotDamaged = false;

  /** True while this conversation's meta.json is damaged and kept as it is. */
  get metaDamaged() {
    return this.#metaDamaged;
  }

  /**
   * Told when damaged lines of the log were kept aside after opening (older events loaded,
   * another tab's lines); the lines are in `events.damaged.jsonl`.
   * @type {((lines: import('../../storage/damage.js').DamagedLine[]) => void) | null}
   */
  onDamagedLines = null;

  /**
   * Keeps damaged lines found after opening and says so.
   * @param {{offset: number, text: string}[]} lines complete lines read from `bytes` (at offset `base`) @param {Uint8Array} bytes @param
   *   {number} base @param {number} end
   */
  async #keepDamaged(lines, bytes, base, end) {
    const damaged = damagedAmong(lines, bytes, base, end);
    if (!damaged.length) return;
    const kept = await keepDamagedLines(this.#fs, this.#eventsPath, damaged).catch(() => []);
    if (kept.length) this.onDamagedLines?.(kept);
  }

  /** Where this conversation's damaged log lines are kept. */
  get damagedLinesPath() {
    return damagedLinesPath(this.#eventsPath);
  }

  /** Sets the damaged snapshot.json aside (kept); a new one is written at the next interval. Resolves to where it went. */
  setAsideSnapshot() {
    return this.#enqueue(async () => {
      const to = await setAsideFile(this.#fs, `${this.#dir}/snapshot.json`);
      this.#snapshotDamaged = false;
      return to;
    });
  }

  /** The cross-tab message topic announcing appends to the conversation in `dir`. @param {string} dir */
  static topic(dir) {
    return `conv:${dir}`;
  }

  /**
   * Appends one event: written as a single line at the end of the file (never a rewrite)
   * and only then applied in memory, so a failed write (quota) changes nothing.
   * @template {EventType} T
   * @param {T} type
   * @param {EventData<T>} data payload; per-type shapes in events.d.ts
   * @param {EventSource} [source]
   * @returns {Promise<EventOf<T>>}
   */
  append(type, data, source = 'system') {
    const created = EventLog.createEvent(type, data, source);
    const event = /** @type {ClawserEvent} */ (created); // EventOf<T> is one member of the union
    const line = encoder.encode(JSON.stringify(event) + '\n');
    const write = async () => {
      // Deleted (here or in another tab): appending would leave an events.jsonl without its
      // meta.json behind. Checked under the conversation's lock, which the delete takes too.
      if (this.#deleted || (this.#coordination && !(await this.#fs.stat(`${this.#dir}/meta.json`)))) throw new ConversationDeletedError();
      // Another tab may have appended since: take its events first, so history and byte
      // offsets stay exact, then append after them.
      if (this.#coordination) await this.#catchUp();
      if (type === 'branch') await this.#prepareBranches();
      await this.#fs.append(this.#eventsPath, line);
      this.#byteLength += line.length;
      this.#eventCount++;
      this.#sinceSnapshot++;
      this.#log.push(event);
      addSpend(this.#spend, event);
      if (this.#tree) {
        this.#tree.add(event);
        if (type === 'branch') this.#followPath();
        else {
          this.#path.push(event);
          applyEventToHistory(this.#history, event);
          trimHistory(this.#history);
        }
      } else {
        applyEventToHistory(this.#history, event);
        trimHistory(this.#history);
      }
      if (event.type === 'user_message') await this.#touch(String(event.data.text ?? ''));
      // A snapshot holds one path's history: a branched conversation is read whole instead.
      if (!this.#tree && this.#sinceSnapshot >= SNAPSHOT_EVERY) await this.#writeSnapshot();
      return created;
    };
    const coordination = this.#coordination;
    if (!coordination) return this.#enqueue(write);
    return this.#enqueue(async () => {
      const e = await coordination.withLock(Conversation.topic(this.#dir), write);
      coordination.publish(Conversation.topic(this.#dir), { bytes: this.#byteLength });
      return e;
    });
  }

  /**
   * Reads events other tabs appended (complete lines only) into the transcript and history.
   * @returns {Promise<ClawserEvent[]>} the new events
   */
  async #catchUp() {
    // The event log is never rewritten in place, so a shorter file has nothing new for us.
    const { lines, next, bytes } = await readAppended(this.#fs, this.#eventsPath, this.#byteLength);
    /** @type {ClawserEvent[]} */
    const added = [];
    let damaged = false;
    for (const l of lines) {
      const e = parseLine(l.text);
      if (!e) {
        damaged ||= !!l.text.trim();
        continue;
      }
      added.push(e);
      this.#log.push(e);
      addSpend(this.#spend, e);
      if (!this.#tree) applyEventToHistory(this.#history, e);
      this.#eventCount++;
      this.#sinceSnapshot++;
    }
    trimHistory(this.#history);
    if (damaged) await this.#keepDamaged(lines, bytes, this.#byteLength, next);
    this.#byteLength = next;
    if (this.#tree && added.length) {
      for (const e of added) this.#tree.add(e);
      this.#followPath();
    } else if (added.some((e) => e.type === 'branch')) {
      // Another tab branched this conversation: from now on it is read whole.
      this.#meta = { ...this.#meta, branched: true };
      await this.#loadAllEarlier();
      this.#useBranches();
    }
    return added;
  }

  /** Before the first `branch` event: the whole log in memory, and meta.json saying so (written first, so a reload never misses it). */
  async #prepareBranches() {
    if (this.#tree) return;
    await this.#loadAllEarlier();
    if (!this.#meta.branched) {
      this.#meta = { ...this.#meta, branched: true };
      await this.#writeMeta();
    }
    this.#useBranches();
  }

  async #loadAllEarlier() {
    if (this.#displayStart > 0) await this.loadEarlier(this.#displayStart);
  }

  /**
   * The version of the conversation that continues from another point: the next event follows
   * the one before `eventId` (`'replace'`: an edited message, a whole turn again) or `eventId`
   * itself (`'after'`: another reply to that message). Nothing is deleted: what followed stays
   * as an alternative version.
   * @param {string} eventId @param {'replace' | 'after'} where
   */
  async fork(eventId, where) {
    await this.#enqueue(() => this.#prepareBranches());
    const tree = /** @type {BranchTree} */ (this.#tree);
    if (!tree.has(eventId)) throw new Error('That message is not in this conversation.');
    const head = where === 'after' ? eventId : (tree.parentOf(eventId) ?? null);
    return this.append('branch', { head }, 'user');
  }

  /**
   * Moves the head to `head` (null: before the first event): what came after it leaves the
   * active path (the model's context) and stays in the log. Undo of a turn uses it.
   * @param {string | null} head
   */
  async moveHead(head) {
    await this.#enqueue(() => this.#prepareBranches());
    if (head !== null && !(/** @type {BranchTree} */ (this.#tree).has(head))) throw new Error('That event is not in this conversation.');
    return this.append('branch', { head }, 'user');
  }

  /** The event the next one follows (the last of the active path), or null for an empty conversation. */
  get head() {
    return this.events.at(-1)?.id ?? null;
  }

  /**
   * Shows the alternative version `eventId` (one of the siblings `alternatives()` lists) as it was
   * last continued.
   * @param {string} eventId
   */
  async switchTo(eventId) {
    await this.#enqueue(() => this.#prepareBranches());
    const head = /** @type {BranchTree} */ (this.#tree).latestIn(eventId);
    if (!head) throw new Error('That version is not in this conversation.');
    return this.append('branch', { head }, 'user');
  }

  /**
   * Events of the active path that have other versions: which one is shown and the siblings'
   * ids, oldest first (for the ‹ 1/2 › switcher).
   * @returns {Map<string, {index: number, count: number, siblings: string[]}>}
   */
  alternatives() {
    return this.#tree ? this.#tree.alternativesOnPath() : new Map();
  }

  #deleted = false;

  /** This conversation is being deleted: every later append is refused. Resolves when the writes queued before it are done. */
  markDeleted() {
    this.#deleted = true;
    return this.flush();
  }

  /**
   * The request of a turn that started when the log was `bytes` long: the first user message
   * after that offset, and whether a reply followed it. Null when the log is shorter than that
   * (it is not the log the offset was taken from) or holds no request there.
   * @param {number} bytes
   * @returns {Promise<{text: string, answered: boolean} | null>}
   */
  async requestAfter(bytes) {
    const stat = await this.#fs.stat(this.#eventsPath);
    const size = stat?.kind === 'file' ? stat.size : 0;
    if (bytes > size) return null;
    const { lines } = splitLines(await this.#fs.readBytes(this.#eventsPath, { start: bytes, end: size }), bytes);
    const events = /** @type {ClawserEvent[]} */ (lines.map((l) => parseLine(l.text)).filter(Boolean));
    const asked = events.find((e) => e.type === 'user_message');
    if (!asked) {
      // A regenerated reply starts with a branch to the message it answers again.
      const head = events.find((e) => e.type === 'branch')?.data.head;
      const ask = typeof head === 'string' ? this.#log.events.find((e) => e.id === head) : undefined;
      return ask?.type === 'user_message'
        ? { text: String(ask.data.text ?? ''), answered: events.some((e) => e.type === 'agent_message') }
        : null;
    }
    return {
      text: String(asked.data.text ?? ''),
      answered: events.slice(events.indexOf(asked) + 1).some((e) => e.type === 'agent_message'),
    };
  }

  /** After another tab appended: reads its events. Resolves to the new events (maybe none). */
  refresh() {
    return this.#enqueue(() => this.#catchUp());
  }

  /**
   * @template T
   * @param {() => Promise<T>} task
   * @returns {Promise<T>}
   */
  #enqueue(task) {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => {});
    return run;
  }

  async #writeSnapshot() {
    // A damaged one stays as it is until set aside (the log is complete without it).
    if (this.#snapshotDamaged) return;
    /** @type {HistorySnapshot} */
    const snap = { version: 1, eventCount: this.#eventCount, byteLength: this.#byteLength, history: this.#history, spend: this.#spend };
    try {
      await this.#fs.write(`${this.#dir}/snapshot.json`, JSON.stringify(snap));
      this.#sinceSnapshot = 0;
    } catch {
      // A snapshot is only a speed-up: the log itself is complete; try again at the next event.
    }
  }

  /** @param {string} userText */
  async #touch(userText) {
    const now = Date.now();
    this.#meta.updatedAt = now;
    let titleChanged = false;
    if (!this.#meta.titleSet && (this.#meta.title === 'New conversation' || !this.#meta.title)) {
      const t = plainTitle(userText);
      if (t) {
        this.#meta.title = t;
        titleChanged = true;
      }
    }
    if (!titleChanged && now - this.#metaWrittenAt < META_TOUCH_INTERVAL_MS) return;
    this.#metaWrittenAt = now;
    await this.#writeMeta();
  }

  /**
   * The model's title after the first exchange; ignored once the user named the conversation
   * (a rename always wins, also one made while the title was being written).
   * @param {string} title
   */
  async setGeneratedTitle(title) {
    await this.#enqueue(async () => {
      if (this.#deleted || !title) return;
      // meta.json as it is now: a rename through the store or another tab may have come since.
      const text = await readTextIfExists(this.#fs, `${this.#dir}/meta.json`);
      if (!text) return; // deleted: never bring it back
      const checked = parseMeta(text);
      if (!checked.ok) return; // damaged: kept as it is until set aside
      const onDisk = checked.value;
      if (onDisk.titleSet) {
        this.#meta = { ...this.#meta, title: onDisk.title, titleSet: true };
        return;
      }
      this.#meta = { ...this.#meta, title, titleGenerated: true };
      await this.#writeMeta();
    });
  }

  /**
   * Told after meta.json was written (the store keeps its list of conversations in step).
   * @type {((meta: ConversationMeta) => Promise<void> | void) | null}
   */
  onMetaWritten = null;

  async #writeMeta() {
    // A damaged meta.json is not overwritten until it is set aside: the details stay in memory.
    if (this.#metaDamaged) return;
    await writeJson(this.#fs, `${this.#dir}/meta.json`, this.#meta);
    // The list is a copy for speed; meta.json is the record, so a failed update is not the write's failure.
    await Promise.resolve(this.onMetaWritten?.({ ...this.#meta })).catch(() => {});
  }

  /** Refuses a change the person asked for that only meta.json would keep, while it is damaged. @param {string} what */
  #refuseWhileMetaDamaged(what) {
    if (this.#metaDamaged) throw new DamagedFileError(`${what}: this conversation's details (meta.json) are damaged. ${SET_ASIDE_HINT}`);
  }

  /** @param {string} title */
  async rename(title) {
    this.#refuseWhileMetaDamaged('The conversation was not renamed');
    await this.#enqueue(async () => {
      this.#meta = { ...this.#meta, title, titleSet: true, updatedAt: Date.now() };
      await this.#writeMeta();
    });
  }

  /**
   * Pins the conversation to a routing hint (its turns use that hint's model), or unpins it.
   * @param {import('../types.d.ts').RouteHint | null} route
   */
  async setRoute(route) {
    this.#refuseWhileMetaDamaged('The model choice was not saved');
    await this.#enqueue(async () => {
      const { route: _old, ...rest } = this.#meta;
      this.#meta = route ? { ...rest, route } : rest;
      await this.#writeMeta();
    });
  }

  /** Pins the conversation to the top of the list, or unpins it (its activity time unchanged). @param {boolean} pinned */
  async setPinned(pinned) {
    this.#refuseWhileMetaDamaged('The conversation was not pinned');
    await this.#enqueue(async () => {
      const { pinned: _old, ...rest } = this.#meta;
      this.#meta = pinned ? { ...rest, pinned: true } : rest;
      await this.#writeMeta();
    });
  }

  /**
   * Sets the conversation's tags (an empty list removes them); its activity time unchanged.
   * @param {string[]} tags already checked (normalizeTags)
   */
  async setTags(tags) {
    this.#refuseWhileMetaDamaged("The conversation's tags were not changed");
    await this.#enqueue(async () => {
      const { tags: _old, ...rest } = this.#meta;
      this.#meta = tags.length ? { ...rest, tags: [...tags] } : rest;
      await this.#writeMeta();
    });
  }

  /** Waits until every queued write has reached storage. */
  async flush() {
    await this.#queue;
  }

  /**
   * The outside content the model's context still holds, as taint for a tool runner: whatever
   * acts for this conversation (a turn, "Run again" of a code card) knows what it read.
   * @returns {import('../runtime/tool-runner.js').TaintSource[]}
   */
  earlierTaint() {
    return this.deriveSessionHistory().messages.flatMap((m) =>
      m.untrusted ? [{ tool: 'conversation', what: m.untrusted, earlier: true }] : [],
    );
  }

  /**
   * The history ready for the next provider call.
   * @param {string} [systemPrompt]
   * @returns {SessionHistory}
   */
  deriveSessionHistory(systemPrompt) {
    const messages = this.#history.map((m) => ({ ...m }));
    return systemPrompt ? { system: systemPrompt, messages } : { messages };
  }

  /**
   * Loads older events for the transcript ("show earlier"), returning them oldest first.
   * @param {number} [chunkBytes]
   */
  async loadEarlier(chunkBytes = DISPLAY_TAIL_BYTES) {
    if (this.#displayStart <= 0) return [];
    const start = Math.max(0, this.#displayStart - chunkBytes);
    const from = Math.max(0, start - 1);
    const bytes = await this.#fs.readBytes(this.#eventsPath, { start: from, end: this.#displayStart });
    let body = bytes;
    if (start > 0) {
      const nl = bytes.indexOf(NEWLINE);
      body = nl === -1 ? new Uint8Array(0) : bytes.subarray(nl + 1);
    }
    const consumed = bytes.length - body.length;
    const { lines, tailOffset } = splitLines(body, from + consumed);
    const older = /** @type {ClawserEvent[]} */ (lines.map((l) => parseLine(l.text)).filter(Boolean));
    if (older.length < lines.filter((l) => l.text.trim()).length) await this.#keepDamaged(lines, body, from + consumed, tailOffset);
    this.#displayStart = lines.length ? lines[0].offset : start;
    if (start === 0) this.#displayStart = 0;
    this.#log = new EventLog([...older, ...this.#log.events]);
    return older;
  }
}
