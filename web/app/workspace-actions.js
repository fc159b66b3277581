/**
 * What the user does to a workspace from the home screen and the command palette, with the
 * dialogs that ask for a name or a confirmation: create, rename, delete.
 */
/** @import { WorkspaceStore, Workspace } from './workspaces.js' */
import { confirmDialog, promptDialog } from '../ui/dialogs.js';

/** Asks for a name; resolves to the new workspace, or null when cancelled. @param {WorkspaceStore} workspaces */
export async function createWorkspace(workspaces) {
  const name = await promptDialog({ title: 'New workspace', label: 'Workspace name', submitLabel: 'Create' });
  if (!name) return null;
  return workspaces.create(name);
}

/** Asks for the new name; resolves to true when it was renamed. @param {WorkspaceStore} workspaces @param {Workspace} w */
export async function renameWorkspace(workspaces, w) {
  const name = await promptDialog({ title: 'Rename workspace', label: 'Workspace name', value: w.name, submitLabel: 'Rename' });
  if (!name) return false;
  await workspaces.rename(w.id, name);
  return true;
}

/**
 * Asks to confirm; resolves to true when it was deleted.
 * @param {WorkspaceStore} workspaces @param {Workspace} w
 * @param {() => Promise<void> | void} [leave] runs once confirmed, before anything is deleted: closes the workspace when it is on screen
 */
export async function deleteWorkspace(workspaces, w, leave) {
  const ok = await confirmDialog({
    title: `Delete “${w.name}”?`,
    message: 'Its conversations, files and settings are removed from this browser. This cannot be undone.',
    confirmLabel: 'Delete workspace',
  });
  if (!ok) return false;
  await leave?.();
  await workspaces.delete(w.id);
  return true;
}
