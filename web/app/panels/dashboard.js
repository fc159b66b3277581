// The Dashboard: the workspace's usage and cost over time, its scheduled jobs, and the storage
// every workspace of this browser takes.
/** @import { PanelEntry } from '../panels.js' */

/** @type {PanelEntry} */
const panel = {
  name: 'dashboard',
  label: 'Dashboard',
  icon: 'chart-column',
  shortcut: 'Alt+8',
  split: false,
  async open(ctx) {
    const [{ DashboardPanel }, { summarizeLedger }, { storageState, requestPersistence }] = await Promise.all([
      import('../../ui/dashboard-panel.js'),
      import('../../stores/usage-ledger.js'),
      import('../../storage/quota.js'),
    ]);
    const { usage, scheduler, measureWorkspace } = ctx.services;
    return DashboardPanel({
      usage: async (days) => summarizeLedger(await usage.read(), { now: Date.now(), days }),
      watchUsage: (fn) => usage.onChange(fn),
      jobs: async () =>
        (await scheduler.list()).map((j) => ({
          id: j.id,
          name: j.name,
          paused: j.paused,
          done: j.done,
          nextRun: scheduler.nextRunOf(j),
          runs: j.runs,
        })),
      watchJobs: (fn) => scheduler.subscribe(fn),
      storage: storageState,
      requestPersistence,
      workspaces: ctx.workspaces().map((w) => ({ id: w.id, name: w.name, current: w.id === ctx.workspaceId })),
      measure: measureWorkspace,
      onOpenSchedule: () => ctx.openPanel('schedule'),
      onError: ctx.showError,
      onBack: ctx.back,
    });
  },
};
export default panel;
