// The Channels panel: the workspace's agent reachable from outside — Telegram bots, outgoing
// and incoming webhooks (add, test, pause, remove, status and recent traffic).
/** @import { PanelEntry } from '../panels.js' */

/** @type {PanelEntry} */
const panel = {
  name: 'channels',
  label: 'Channels',
  icon: 'send',
  shortcut: 'Alt+C',
  split: false,
  async open(ctx) {
    const { registry } = ctx.services;
    const [{ ChannelsPanel }, channels, named, machines] = await Promise.all([
      import('../../ui/channels-panel.js'),
      ctx.services.channels(),
      // The named agents a channel can be answered by (the workspace's own when they cannot be read).
      ctx.services
        .agents()
        .then((store) => store.list())
        .then((list) => list.filter((a) => a.scope !== 'builtin').map((a) => a.name))
        .catch(() => []),
      // The user's wsh machines, where an incoming webhook is taken.
      ctx.services
        .remote()
        .then((r) => r.list().map((m) => m.name))
        .catch(() => []),
    ]);
    return ChannelsPanel({
      channels,
      agents: named,
      toolNames: registry.list().map((t) => t.name),
      machines,
      onError: ctx.showError,
      onBack: ctx.back,
    });
  },
};
export default panel;
