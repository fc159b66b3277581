/** Set in localStorage while a restore runs, so the next start knows to check for an interrupted one. */
export const RESTORE_FLAG = 'clawser_restore_running';
