// `list.json`: the saved copy of every conversation's meta.json in a workspace, read at start
// instead of one file per conversation. Its own module so the first view reads it without the
// conversation store.
/** @import { ConversationMeta } from '../types.d.ts' */
import { z } from 'zod';
import { readJson, jsonProblem } from '../../storage/damage.js';

/** Version of `list.json`. */
export const LIST_VERSION = 1;
/** Its name in a workspace's conversations folder. */
export const LIST_FILE = 'list.json';

/** Tags a conversation holds at most, and the characters of each. */
export const MAX_TAGS = 8;
export const MAX_TAG_LENGTH = 32;

/** A list of tags refused (too many, too long, not a list): says which bound, with a stable code. */
export class TagsError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'TagsError';
    this.code = 'invalid_tags';
  }
}

/** A conversation's tags as saved: trimmed, not empty, bounded; zod for the saved files, normalizeTags for what the person typed. */
const TagsSchema = z.array(z.string().min(1).max(MAX_TAG_LENGTH)).max(MAX_TAGS);

/**
 * The tags the person gave, as they are kept: each trimmed (inner spaces made one), empty ones
 * dropped, once whatever its case (the first spelling kept); refused when more than MAX_TAGS or
 * one is longer than MAX_TAG_LENGTH.
 * @param {unknown} tags @returns {{ok: true, tags: string[]} | {ok: false, problem: string}}
 */
export function normalizeTags(tags) {
  if (!Array.isArray(tags) || tags.some((t) => typeof t !== 'string')) return { ok: false, problem: 'Tags are a list of words.' };
  /** @type {Map<string, string>} */
  const seen = new Map();
  for (const raw of tags) {
    const tag = String(raw).replace(/\s+/g, ' ').trim();
    if (!tag) continue;
    if (tag.length > MAX_TAG_LENGTH)
      return { ok: false, problem: `A tag has at most ${MAX_TAG_LENGTH} characters (“${tag.slice(0, 40)}…”).` };
    if (!seen.has(tag.toLowerCase())) seen.set(tag.toLowerCase(), tag);
  }
  if (seen.size > MAX_TAGS) return { ok: false, problem: `A conversation has at most ${MAX_TAGS} tags (${seen.size} given).` };
  return { ok: true, tags: [...seen.values()] };
}

/**
 * A conversation's `meta.json` (and its copy in `list.json`), checked before use: a damaged one
 * costs that conversation's details, never the list or the app. Fields of a newer version are kept.
 */
export const ConversationMetaSchema = z.looseObject({
  id: z.string().min(1).max(200),
  title: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
  titleSet: z.boolean().optional(),
  titleGenerated: z.boolean().optional(),
  branched: z.boolean().optional(),
  parent: z.looseObject({ conversationId: z.string(), toolCallId: z.string(), agent: z.string() }).optional(),
  forkOf: z.looseObject({ conversationId: z.string(), title: z.string() }).optional(),
  route: z.enum(['fast', 'smart', 'code', 'vision']).optional(),
  pinned: z.boolean().optional(),
  job: z.looseObject({ id: z.string(), name: z.string(), viaChannel: z.boolean().optional() }).optional(),
  tags: TagsSchema.optional(),
});

const ROUTES = new Set(['fast', 'smart', 'code', 'vision']);
/** @param {unknown} v */
const optionalFlag = (v) => v === undefined || typeof v === 'boolean';

/**
 * The same check as ConversationMetaSchema, by hand: the saved list holds every conversation's
 * details and is read on the way to the first screen, where zod (without code generation,
 * which the page's CSP forbids) costs 10–40 ms for a thousand entries on first use; this costs
 * well under one. tests/unit/conversation-list.test.mjs holds the two to the same verdicts.
 * @param {unknown} value @returns {value is ConversationMeta}
 */
export function isConversationMeta(value) {
  const m = /** @type {Record<string, any>} */ (value); // any: the fields are checked one by one below
  if (!m || typeof m !== 'object' || Array.isArray(m)) return false;
  if (typeof m.id !== 'string' || !m.id || m.id.length > 200 || typeof m.title !== 'string') return false;
  if (!Number.isFinite(m.createdAt) || !Number.isFinite(m.updatedAt)) return false;
  if (!optionalFlag(m.titleSet) || !optionalFlag(m.titleGenerated) || !optionalFlag(m.branched) || !optionalFlag(m.pinned)) return false;
  if (m.route !== undefined && !ROUTES.has(m.route)) return false;
  const p = m.parent;
  if (
    p !== undefined &&
    (!p || typeof p !== 'object' || typeof p.conversationId !== 'string' || typeof p.toolCallId !== 'string' || typeof p.agent !== 'string')
  )
    return false;
  const f = m.forkOf;
  if (f !== undefined && (!f || typeof f !== 'object' || typeof f.conversationId !== 'string' || typeof f.title !== 'string')) return false;
  const t = m.tags;
  if (
    t !== undefined &&
    !(Array.isArray(t) && t.length <= MAX_TAGS && t.every((x) => typeof x === 'string' && x && x.length <= MAX_TAG_LENGTH))
  )
    return false;
  const j = m.job;
  if (j !== undefined && (!j || typeof j !== 'object' || typeof j.id !== 'string' || typeof j.name !== 'string')) return false;
  return true;
}

/**
 * The marks titles were once written with (a job's alarm clock, a sub-agent's arrow, a channel's
 * envelope, the heartbeat's heart) and a space: the list now draws an icon from the details.
 */
const OLD_TITLE_MARK = /^(?:\u23F0|\u21B3|\u2709|\u{1F493})\uFE0F?\s+(?=\S)/u;

/**
 * A title as shown: without a mark of old in front (see OLD_TITLE_MARK; a channel's envelope becomes
 * "Channel: "); a new one is written without.
 * @template {{title: string}} M @param {M} meta @returns {M}
 */
export function withoutOldMark(meta) {
  const mark = OLD_TITLE_MARK.exec(meta.title);
  if (!mark) return meta;
  // An old channel conversation says so in words (it has no viaChannel mark for the list to group and draw it by).
  const rest = meta.title.slice(mark[0].length);
  return { ...meta, title: mark[0].startsWith('\u2709') ? `Channel: ${rest}` : rest };
}

/**
 * Reads a conversation's meta.json (a title's mark of old left out).
 * @param {string} text @returns {import('../../storage/damage.js').Checked<ConversationMeta>}
 */
export function parseMeta(text) {
  // The fast check first (the same verdict: it is read on the way to the first screen); the
  // schema says what is wrong.
  try {
    const value = JSON.parse(text);
    if (isConversationMeta(value)) return { ok: true, value: withoutOldMark(value) };
  } catch {
    // said below
  }
  const checked = /** @type {import('../../storage/damage.js').Checked<ConversationMeta>} */ (readJson(text, ConversationMetaSchema));
  return checked.ok ? { ok: true, value: withoutOldMark(checked.value) } : checked;
}

/**
 * The conversations a saved list holds, by id. Of another version: none (the store then rebuilds
 * it from the meta.json files). Damaged (cut short, garbage, an entry of the wrong shape): none,
 * and `problem` says what is wrong — the store then reads every meta.json and leaves the file as
 * it is until the person sets it aside.
 * @param {string | null} text
 * @returns {{conversations: Record<string, ConversationMeta>, problem: string | null}}
 */
export function parseConversationList(text) {
  if (text === null) return { conversations: {}, problem: null };
  /** @type {any} */ // any: checked field by field below
  let saved;
  try {
    saved = JSON.parse(text);
  } catch (err) {
    return { conversations: {}, problem: jsonProblem(text, err) };
  }
  if (!saved || typeof saved !== 'object' || Array.isArray(saved) || typeof saved.version !== 'number')
    return { conversations: {}, problem: 'not in the expected shape (version: a number is expected)' };
  if (saved.version !== LIST_VERSION) return { conversations: {}, problem: null };
  if (!saved.conversations || typeof saved.conversations !== 'object' || Array.isArray(saved.conversations))
    return { conversations: {}, problem: 'not in the expected shape (conversations: an object is expected)' };
  /** @type {Record<string, ConversationMeta>} */
  const conversations = {};
  for (const [id, value] of Object.entries(saved.conversations)) {
    if (!isConversationMeta(value) || value.id !== id) {
      const why = isConversationMeta(value)
        ? 'its id differs'
        : ConversationMetaSchema.safeParse(value).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`)[0];
      return { conversations: {}, problem: `not in the expected shape (conversation ${JSON.stringify(id).slice(0, 80)}: ${why})` };
    }
    conversations[id] = withoutOldMark(value);
  }
  return { conversations, problem: null };
}

/** The text of a saved list. @param {Record<string, ConversationMeta>} conversations */
export function conversationListText(conversations) {
  return JSON.stringify({ version: LIST_VERSION, conversations });
}

/** Newest activity first (the order of the conversation list). @param {ConversationMeta[]} metas */
export function byActivity(metas) {
  return metas.sort((a, b) => b.updatedAt - a.updatedAt);
}
