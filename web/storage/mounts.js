import { createStore, get, set, del } from 'idb-keyval';

/**
 * Folders opened from the user's computer, one per workspace: the FileSystemDirectoryHandle
 * is kept in IndexedDB (handles are structured-cloneable), so the folder is found again in
 * the next session; the browser then asks for permission again.
 */
export class MountStore {
  #store;

  /** @param {{dbName?: string}} [options] */
  constructor(options = {}) {
    this.#store = createStore(options.dbName ?? 'clawser_mounts', 'handles');
  }

  /** Whether this browser can open folders, and why not. */
  static support() {
    // not in TypeScript's DOM lib yet
    if (typeof (/** @type {any} */ (globalThis).showDirectoryPicker) === 'function') return { supported: true };
    return {
      supported: false,
      reason: 'this browser has no File System Access API (it is in Chrome and Edge on desktop, not in Firefox, Safari or on phones)',
    };
  }

  /** @param {string} workspaceId @returns {Promise<FileSystemDirectoryHandle | null>} */
  async get(workspaceId) {
    return /** @type {FileSystemDirectoryHandle | undefined} */ (await get(workspaceId, this.#store)) ?? null;
  }

  /** @param {string} workspaceId @param {FileSystemDirectoryHandle} handle */
  set(workspaceId, handle) {
    return set(workspaceId, handle, this.#store);
  }

  /** @param {string} workspaceId */
  remove(workspaceId) {
    return del(workspaceId, this.#store);
  }

  /**
   * Read-write permission for a handle: 'granted', or 'prompt' / 'denied'. With `request`
   * (must run in a user gesture) the browser asks the user.
   * @param {FileSystemDirectoryHandle} handle @param {boolean} [request]
   * @returns {Promise<PermissionState>}
   */
  static async permission(handle, request = false) {
    const h = /** @type {any} */ (handle); // queryPermission/requestPermission are not in TypeScript's DOM lib
    if (typeof h.queryPermission !== 'function') return 'granted';
    const now = await h.queryPermission({ mode: 'readwrite' });
    if (now === 'granted' || !request) return now;
    return h.requestPermission({ mode: 'readwrite' });
  }
}
