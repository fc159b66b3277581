// `list.json`: the saved copy of every conversation's meta.json in a workspace, read at start
// instead of one file per conversation. Its own module so the first view reads it without the
// conversation store.
/** @import { ConversationMeta } from './types.d.ts' */

/** Version of `list.json`. */
export const LIST_VERSION = 1;
/** Its name in a workspace's conversations folder. */
export const LIST_FILE = 'list.json';

/**
 * The conversations a saved list holds, by id; empty when it is unreadable or of another version
 * (the store then rebuilds it from the meta.json files).
 * @param {string | null} text @returns {Record<string, ConversationMeta>}
 */
export function parseConversationList(text) {
  try {
    const saved = text ? JSON.parse(text) : null;
    return saved?.version === LIST_VERSION && saved.conversations && typeof saved.conversations === 'object' ? saved.conversations : {};
  } catch {
    return {};
  }
}

/** The text of a saved list. @param {Record<string, ConversationMeta>} conversations */
export function conversationListText(conversations) {
  return JSON.stringify({ version: LIST_VERSION, conversations });
}

/** Newest activity first (the order of the conversation list). @param {ConversationMeta[]} metas */
export function byActivity(metas) {
  return metas.sort((a, b) => b.updatedAt - a.updatedAt);
}
