// The Remote panel: the user's own machines reached through wsh (add, key line, test, remove).
/** @import { PanelEntry } from '../panels.js' */

/** @type {PanelEntry} */
const panel = {
  name: 'remote',
  label: 'Remote',
  icon: 'monitor',
  shortcut: 'Alt+R',
  split: false,
  async open(ctx) {
    const [{ RemotePanel }, machines] = await Promise.all([import('../../ui/remote-panel.js'), ctx.services.remote()]);
    return RemotePanel({ machines, onError: ctx.showError, onBack: ctx.back });
  },
};
export default panel;
