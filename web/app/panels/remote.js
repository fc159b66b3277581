// The Remote panel: the user's own machines reached through wsh (add, key line, test, remove), and
// this workspace exposed to outside MCP clients through one of them.
/** @import { PanelEntry } from '../panels.js' */

/** @type {PanelEntry} */
const panel = {
  name: 'remote',
  label: 'Remote',
  icon: 'monitor',
  shortcut: 'Alt+R',
  split: false,
  async open(ctx) {
    const [{ RemotePanel }, machines, exposure] = await Promise.all([
      import('../../ui/remote-panel.js'),
      ctx.services.remote(),
      // Exposing this workspace over MCP; the panel opens without that part if it cannot load.
      ctx.services.mcpServe().catch(() => undefined),
    ]);
    return RemotePanel({ machines, exposure, onError: ctx.showError, onBack: ctx.back });
  },
};
export default panel;
