// The Schedule panel: the workspace's scheduled jobs, what happens to missed runs, and which tab runs them.
/** @import { PanelEntry } from '../panels.js' */

/** @type {PanelEntry} */
const panel = {
  name: 'schedule',
  label: 'Schedule',
  icon: 'alarm-clock',
  shortcut: 'Alt+5',
  split: false,
  async open(ctx) {
    const { workspaceId, agentSettings } = ctx;
    const { scheduler, registry, tabs } = ctx.services;
    const [{ SchedulePanel }, { backgroundMode }, channels] = await Promise.all([
      import('../../ui/schedule-panel.js'),
      import('../background.js'),
      // The channels a job's result can go out through (the form leaves the choice out without them).
      ctx.services
        .channels()
        .then((c) => c.list().map(({ id, name }) => ({ id, name })))
        .catch(() => []),
    ]);
    const settings = agentSettings.load(workspaceId).scheduler;
    return SchedulePanel({
      scheduler,
      conversations: ctx.chat.state.conversations,
      toolNames: registry.list().map((t) => t.name),
      timezone: scheduler.timezone,
      missedPolicy: settings.missedPolicy,
      onMissedPolicy: (missedPolicy) => agentSettings.saveSection(workspaceId, 'scheduler', { missedPolicy }),
      approvalTimeoutMinutes: settings.approvalTimeoutMinutes,
      onApprovalTimeout: (approvalTimeoutMinutes) => agentSettings.saveSection(workspaceId, 'scheduler', { approvalTimeoutMinutes }),
      background: await backgroundMode({ leader: tabs.isLeader, tabs: tabs.peers().length + 1 }),
      // Which tab runs the jobs changes as tabs open and close: the panel's line follows.
      watchBackground: (fn) => {
        const update = () => {
          backgroundMode({ leader: tabs.isLeader, tabs: tabs.peers().length + 1 }).then(fn, () => {});
        };
        const offs = [tabs.onLeaderChange(update), tabs.onPeersChange(update)];
        return () => offs.forEach((off) => off());
      },
      notifications: typeof Notification === 'undefined' ? 'unsupported' : Notification.permission,
      onAllowNotifications: async () => (typeof Notification === 'undefined' ? 'unsupported' : Notification.requestPermission()),
      channels,
      onOpenConversation: ctx.openConversation,
      onError: ctx.showError,
      onBack: ctx.back,
    });
  },
};
export default panel;
