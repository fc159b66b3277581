/**
 * Set in localStorage while a restore runs: a hint for the next page's first view to paint nothing (recovery goes by the restore's marker
 * file alone).
 */
export const RESTORE_FLAG = 'clawser_restore_running';
/** Whether the panel rail shows icons only (remembered across visits). */
export const RAIL_COLLAPSED_KEY = 'clawser_ui_rail_collapsed';
