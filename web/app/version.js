/** The app's version (package.json's; a unit test keeps them equal). Recorded in backups. */
export const APP_VERSION = '0.1.0';
