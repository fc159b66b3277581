/**
 * Clawser's own folders of a workspace, declared once: what each holds and how each part of
 * Clawser treats it. Every list of them (where a mounted workspace keeps them, what the
 * protected view refuses, what tools may not touch, what the terminal may not read) follows
 * from these properties, so a new store's folder is one entry here and reaches every part.
 *
 * The properties nest, and the lists with them: a folder kept in the browser is written only by
 * its owner, and a folder written only by its owner is off-limits to tools (a store that the
 * agent could write would let outside content plant standing state: jobs, goals, memories).
 */

/**
 * @typedef {object} WorkspaceFolder
 * @property {string} name the folder at the workspace's root (lower case: compared without case)
 * @property {string} holds what is in it
 * @property {boolean} inBrowser Clawser's store: kept in the browser's storage (OPFS) even when
 *   the workspace is a folder on the computer (`MountedFileSystem` sends it there)
 * @property {boolean} ownerOnly only its owner writes it: the protected view (tools, git's
 *   checkouts, the Files panel, imports, both shells) refuses every change inside it, and the
 *   agent's shell cannot read it
 * @property {boolean} offLimits tools refuse a path through it at any depth (reading too); the
 *   Files panel, `fs_list` and ZIP export leave it out; git never stages or checks it out
 * @property {boolean} secret holds secrets: even the user's own terminal cannot read it
 */

/**
 * A store's folder: every protection.
 * @param {string} name
 * @param {string} holds
 * @param {{secret?: boolean}} [o]
 * @returns {WorkspaceFolder}
 */
const store = (name, holds, o = {}) => ({ name, holds, inBrowser: true, ownerOnly: true, offLimits: true, secret: !!o.secret });

/** @type {readonly Readonly<WorkspaceFolder>[]} */
export const WORKSPACE_FOLDERS = Object.freeze(
  [
    store('.conversations', 'the conversations: event logs, their list, the search index'),
    store('.checkpoints', "checkpoints of the agent's state"),
    store('.memory', 'long-term memories and their embeddings'),
    store('.goals', 'goals'),
    store('.scheduler', 'scheduled jobs'),
    store('.vault', 'reserved for encrypted secrets', { secret: true }),
    store('.secrets', 'reserved for secrets', { secret: true }),
    store('.skills', "the workspace's own skills"),
    store('.usage', 'the usage ledger (tokens and cost)'),
    store('.agents', "named agents, the workspace's identity and heartbeat"),
    // The repository stays with the user's files (an opened folder's existing repository is used as is); only git writes it.
    {
      name: '.git',
      holds: "the repository: git's objects, refs and index",
      inBrowser: false,
      ownerOnly: true,
      offLimits: true,
      secret: false,
    },
    // Not a folder Clawser makes: the name of the IndexedDB that holds the key of the secrets, kept from tools' paths.
    {
      name: 'clawser_keys',
      holds: "nothing (a reserved name: the secrets' key store is an IndexedDB of this name)",
      inBrowser: false,
      ownerOnly: false,
      offLimits: true,
      secret: false,
    },
  ].map((f) => Object.freeze(f)),
);

/** @param {keyof WorkspaceFolder} property @returns {readonly string[]} the names of the folders that have it */
const namesWith = (property) => Object.freeze(WORKSPACE_FOLDERS.filter((f) => f[property] === true).map((f) => f.name));

/** Folders a mounted workspace keeps in the browser: Clawser's stores. */
export const INTERNAL_FOLDERS = namesWith('inBrowser');
/** Folders only their owners write (the stores and `.git`): what `ProtectedFileSystem` refuses and the agent's shell cannot read. */
export const PROTECTED_FOLDERS = namesWith('ownerOnly');
/**
 * Folder names no tool path may pass through, at any depth; hidden from the Files panel, `fs_list` and ZIP export; never tracked by git.
 */
export const PROTECTED_SEGMENTS = namesWith('offLimits');
/** Folders of secrets that even the user's terminal cannot read. */
export const SECRET_FOLDERS = namesWith('secret');
