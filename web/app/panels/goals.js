// The Goals panel: the workspace's goals and their sub-goals.
/** @import { PanelEntry } from '../panels.js' */

/** @type {PanelEntry} */
const panel = {
  name: 'goals',
  label: 'Goals',
  icon: 'target',
  shortcut: 'Alt+4',
  split: false,
  async open(ctx) {
    const { GoalsPanel } = await import('../../ui/goals-panel.js');
    return GoalsPanel({ goals: ctx.services.goals, onError: ctx.showError, onBack: ctx.back });
  },
};
export default panel;
