// The Files panel: the workspace's files (browse, edit, upload, ZIP), and the folder opened from the computer.
/** @import { PanelEntry } from '../panels.js' */

/** @type {PanelEntry} */
const panel = {
  name: 'files',
  label: 'Files',
  icon: 'folder',
  shortcut: 'Alt+1',
  split: true,
  async open(ctx) {
    const [{ FilesPanel }, { mountControls }, { confirmDialog }, files] = await Promise.all([
      import('../../ui/files-panel.js'),
      import('../mount-controls.js'),
      import('../../ui/dialogs.js'),
      ctx.services.files(),
    ]);
    // A folder opened or let go: the workspace is shown again over its new files.
    const mount = mountControls({ mount: ctx.services.mount, confirm: confirmDialog, changed: ctx.refresh });
    return FilesPanel({ files, mount, onError: ctx.showError, onBack: ctx.back });
  },
};
export default panel;
