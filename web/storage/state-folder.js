/**
 * The folder at the storage root that holds Clawser's own small state: the workspace list and
 * every setting (`clawser_*` keys, see durable-config.js) and each workspace's record. A backup
 * carries the settings as its config entries, not as files: it never copies or restores this
 * folder. (A module of its own: the first view needs the name, not the store.)
 */
export const STATE_FOLDER = 'clawser_state';
