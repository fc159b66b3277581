/** Set in localStorage while a restore runs, so the next start knows to check for an interrupted one. */
export const RESTORE_FLAG = 'clawser_restore_running';
/** Whether the panel rail shows icons only (remembered across visits). */
export const RAIL_COLLAPSED_KEY = 'clawser_ui_rail_collapsed';
