/** @import { ChatState } from './types.d.ts' */
/** @typedef {ChatState['conversations'][number]} ConversationMeta */

/** The groups of the conversation list, in the order they are shown. */
export const GROUPS = /** @type {const} */ ([
  { key: 'pinned', label: 'Pinned' },
  { key: 'today', label: 'Today' },
  { key: 'yesterday', label: 'Yesterday' },
  { key: 'week', label: 'Previous 7 days' },
  { key: 'older', label: 'Older' },
  { key: 'agents', label: 'Sub-agents' },
  { key: 'jobs', label: 'Scheduled jobs' },
  { key: 'channels', label: 'Channels' },
]);
/** @typedef {(typeof GROUPS)[number]['key']} GroupKey */

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Where a conversation is listed: pinned first (whatever it is), then a sub-agent's or a
 * scheduled job's or a channel's apart from the person's own, which go by the local day of their last activity.
 * @param {ConversationMeta} c @param {number} startOfToday local midnight, in ms
 * @returns {GroupKey}
 */
export function groupOf(c, startOfToday) {
  if (c.pinned) return 'pinned';
  if (c.parent) return 'agents';
  if (c.job?.viaChannel) return 'channels';
  if (c.job) return 'jobs';
  if (c.updatedAt >= startOfToday) return 'today';
  if (c.updatedAt >= startOfToday - DAY_MS) return 'yesterday';
  if (c.updatedAt >= startOfToday - 7 * DAY_MS) return 'week';
  return 'older';
}

/**
 * The conversations (newest activity first, as the store lists them) in their groups, empty
 * groups left out, each keeping that order.
 * @param {ConversationMeta[]} conversations @param {Date} [now]
 * @returns {{key: GroupKey, label: string, conversations: ConversationMeta[]}[]}
 */
export function groupConversations(conversations, now = new Date()) {
  const startOfToday = new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime();
  /** @type {Map<GroupKey, ConversationMeta[]>} */
  const by = new Map();
  for (const c of conversations) {
    const key = groupOf(c, startOfToday);
    const list = by.get(key);
    if (list) list.push(c);
    else by.set(key, [c]);
  }
  return GROUPS.filter((g) => by.has(g.key)).map((g) => ({ key: g.key, label: g.label, conversations: by.get(g.key) ?? [] }));
}

/**
 * Every tag of the workspace's conversations, once whatever its case (the spelling met first),
 * sorted: the tag filter's choices and the tag dialog's suggestions.
 * @param {ConversationMeta[]} conversations @returns {string[]}
 */
export function workspaceTags(conversations) {
  /** @type {Map<string, string>} */
  const seen = new Map();
  for (const c of conversations) for (const t of c.tags ?? []) if (!seen.has(t.toLowerCase())) seen.set(t.toLowerCase(), t);
  return [...seen.values()].sort((a, b) => a.localeCompare(b, undefined, { sensitivity: 'base' }));
}

/**
 * The conversations holding `tag` (whatever its case); all of them when no tag is chosen.
 * @param {ConversationMeta[]} conversations @param {string | null} tag
 */
export function withTag(conversations, tag) {
  if (!tag) return conversations;
  const want = tag.toLowerCase();
  return conversations.filter((c) => c.tags?.some((t) => t.toLowerCase() === want));
}
