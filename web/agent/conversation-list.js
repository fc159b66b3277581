// `list.json`: the saved copy of every conversation's meta.json in a workspace, read at start
// instead of one file per conversation. Its own module so the first view reads it without the
// conversation store.
/** @import { ConversationMeta } from './types.d.ts' */
import { z } from 'zod';
import { readJson } from '../storage/damage.js';

/** Version of `list.json`. */
export const LIST_VERSION = 1;
/** Its name in a workspace's conversations folder. */
export const LIST_FILE = 'list.json';

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
  route: z.enum(['fast', 'smart', 'code', 'vision']).optional(),
});

const ListSchema = z.looseObject({ version: z.number(), conversations: z.record(z.string(), z.unknown()) });

/**
 * Reads a conversation's meta.json.
 * @param {string} text @returns {import('../storage/damage.js').Checked<ConversationMeta>}
 */
export function parseMeta(text) {
  return /** @type {import('../storage/damage.js').Checked<ConversationMeta>} */ (readJson(text, ConversationMetaSchema));
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
  const checked = readJson(text, ListSchema);
  if (!checked.ok) return { conversations: {}, problem: checked.problem };
  if (checked.value.version !== LIST_VERSION) return { conversations: {}, problem: null };
  /** @type {Record<string, ConversationMeta>} */
  const conversations = {};
  for (const [id, value] of Object.entries(checked.value.conversations)) {
    const meta = ConversationMetaSchema.safeParse(value);
    if (!meta.success || meta.data.id !== id) return { conversations: {}, problem: `not in the expected shape (conversation ${JSON.stringify(id).slice(0, 80)}: ${meta.success ? 'its id differs' : meta.error.issues[0]?.message})` };
    conversations[id] = /** @type {ConversationMeta} */ (meta.data);
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
