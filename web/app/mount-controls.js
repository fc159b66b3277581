/** @import { WorkspaceMount } from './workspace-services.js' */
import { MountStore } from '../storage/mounts.js';

/**
 * The Files panel's "open a folder" controls for a workspace: picking a folder on the computer
 * (and asking for permission to change it), asking again after the browser forgot the
 * permission, and going back to the workspace's own files. The folder is remembered by
 * the workspace's services (`mount`); `changed` shows the workspace over its new files.
 * @param {object} deps
 * @param {WorkspaceMount} deps.mount the workspace's folder from the computer (its services' `mount`)
 * @param {(options: {title: string, message: string, confirmLabel: string}) => Promise<boolean>} deps.confirm
 * @param {() => Promise<void>} deps.changed after the workspace's folder changed
 */
export function mountControls({ mount: folder, confirm, changed }) {
  const { workspaceId } = folder;
  const mount = folder.current();
  return {
    ...MountStore.support(),
    mounted: mount ? mount.handle.name : null,
    needsPermission: !!mount && !mount.granted,
    onMount: async () => {
      const picker = /** @type {any} */ (globalThis).showDirectoryPicker; // not in TypeScript's DOM lib yet
      let handle;
      try {
        handle = /** @type {FileSystemDirectoryHandle} */ (await picker({ mode: 'readwrite', id: `clawser-${workspaceId}`.slice(0, 32) }));
      } catch (err) {
        if (/** @type {Error} */ (err).name === 'AbortError') return;
        throw err;
      }
      const granted = (await MountStore.permission(handle, true)) === 'granted';
      if (!granted) throw new Error(`Clawser needs permission to read and change “${handle.name}” to use it as the workspace.`);
      await folder.set({ handle, granted });
      await changed();
    },
    onReconnect: async () => {
      if (!mount) return;
      mount.granted = (await MountStore.permission(mount.handle, true)) === 'granted';
      if (!mount.granted)
        throw new Error(`Access to “${mount.handle.name}” was not allowed; the workspace cannot show its files until it is.`);
      folder.permissionChanged();
      await changed();
    },
    onUnmount: async () => {
      const ok = await confirm({
        title: `Stop using “${mount?.handle.name}”?`,
        message: 'The folder on your computer is not changed. The workspace shows its own browser-stored files again.',
        confirmLabel: 'Stop using the folder',
      });
      if (!ok) return;
      await folder.set(null);
      await changed();
    },
  };
}
