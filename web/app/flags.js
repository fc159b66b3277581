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
