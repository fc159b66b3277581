// The Servers panel: the workspace's MCP servers (add, connect, sign in, their tools and resources).
/** @import { PanelEntry } from '../panels.js' */

/** @type {PanelEntry} */
const panel = {
  name: 'servers',
  label: 'Servers',
  icon: 'plug',
  shortcut: 'Alt+M',
  split: false,
  async open(ctx) {
    // The sign-in helper is loaded now: a click must open its window without waiting.
    const [{ ServersPanel }, mcp, auth, remote] = await Promise.all([
      import('../../ui/servers-panel.js'),
      ctx.services.mcp(),
      ctx.services.mcpAuth(),
      // The user's machines, for "through my relay" (the panel opens without them if they cannot load).
      ctx.services.remote().catch(() => undefined),
    ]);
    return ServersPanel({
      mcp,
      machines: remote?.list().map((m) => m.name) ?? [],
      signIn: (server, authenticate) => auth.signIn(ctx.workspaceId, server, authenticate),
      attach: (a) => ctx.chat.attach(a),
      onError: ctx.showError,
      onBack: ctx.back,
    });
  },
};
export default panel;
