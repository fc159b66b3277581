/**
 * Set in localStorage while a restore runs: a hint for the next page's first view to paint nothing (recovery goes by the restore's marker
 * file alone).
 */
export const RESTORE_FLAG = 'clawser_restore_running';
/**
 * Set in localStorage by a restore that finished, just before the page reloads: what the next page
 * says it restored (a message only; a crash that loses it loses nothing else).
 */
export const RESTORE_DONE_FLAG = 'clawser_restore_done';
/** Whether the panel rail shows icons only (remembered across visits). */
export const RAIL_COLLAPSED_KEY = 'clawser_ui_rail_collapsed';
/** The tag the conversation list of a workspace is filtered by (remembered across visits), by workspace. */
export const TAG_FILTER_KEY_PREFIX = 'clawser_ui_tag_filter_';
/** @param {string} workspaceId */
export const tagFilterKey = (workspaceId) => `${TAG_FILTER_KEY_PREFIX}${workspaceId}`;
/** Whether the conversation list of a workspace is hidden on wide screens (remembered across visits), by workspace. */
export const LIST_HIDDEN_KEY_PREFIX = 'clawser_ui_list_hidden_';
/** @param {string} workspaceId */
export const listHiddenKey = (workspaceId) => `${LIST_HIDDEN_KEY_PREFIX}${workspaceId}`;
/** The saved tag filter, checked (a tag's bounds), or null. @param {unknown} value @returns {string | null} */
export const tagFilterOf = (value) => (typeof value === 'string' && value.trim() && value.length <= 32 ? value : null);
