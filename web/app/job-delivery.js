import { jobApprover } from '../agent/scheduling/job-approval.js';
import { shouldDeliver } from '../stores/scheduler.js';
import { approvalDialog } from '../ui/approval-dialog.js';

/**
 * Runs a scheduled job's occurrence and delivers what came of it: a notification when the
 * user allowed them, a banner that opens the job's conversation when it is not on screen, and
 * always a word when a run was refused because nobody answered its approval.
 */
export class JobDelivery {
  /**
   * @param {{agentSettings: import('./agent-settings.js').AgentSettingsStore,
   *   workspaceName: (workspaceId: string) => string,
   *   controller: (workspaceId: string) => import('./chat-controller.js').ChatController,
   *   tools: (workspaceId: string, conversationId: string, approve: import('../agent/scheduling/job-approval.js').JobApprover['approve'])
   *   => Promise<import('../agent/runtime/tool-runner.js').ToolRunner>,
   *   notify: (workspaceId: string, title: string, body: string) => Promise<unknown>,
   *   banners: {show: (id: string, text: string, options?: any) => void},
   *   open: (route: import('./router.js').Route) => void,
   *   onScreen: (workspaceId: string, conversationId: string) => boolean,
   *   guard: (p: Promise<unknown>) => void, heartbeat?: (workspaceId: string) => Promise<string | null>}} deps
   *   heartbeat: the workspace's heartbeat checklist
   *   open: go to a route (a banner's action); onScreen: is this conversation in view right now
   */
  constructor(deps) {
    this.deps = deps;
  }

  /**
   * @param {string} workspaceId @param {import('../stores/scheduler.js').Job} job
   * @param {{scheduledFor: number, missed: number, manual: boolean}} run
   */
  async run(workspaceId, job, run) {
    const d = this.deps;
    const settings = d.agentSettings.load(workspaceId).scheduler;
    const workspace = { id: workspaceId, name: d.workspaceName(workspaceId) };
    // Nobody may be watching: the dialog names the job and workspace, and an unanswered one is refused.
    const approver = jobApprover({ approve: approvalDialog, job, workspace, timeoutMs: settings.approvalTimeoutMinutes * 60_000 });
    // Loaded when a job first runs (it brings the input sanitizer's model), not at start-up.
    const { runJob } = await import('./job-runner.js');
    const result = await runJob({
      job,
      run,
      approver,
      controller: d.controller(workspaceId),
      tools: () => d.tools(workspaceId, job.conversationId ?? `job-${job.id}`, approver.approve),
      checklist: () => d.heartbeat?.(workspaceId) ?? Promise.resolve(null),
    });
    if (result.needsApproval) this.#needsApproval(workspace, job.name, result);
    else if (!result.quiet && shouldDeliver(job.delivery, result.ok)) this.#deliver(workspaceId, job.name, result);
    return result;
  }

  /**
   * A run refused because nobody answered its approval: always told (whatever the delivery
   * setting), as a notification when allowed and a banner that opens the schedule.
   * @param {{id: string, name: string}} workspace @param {string} name @param {{summary: string}} result
   */
  #needsApproval(workspace, name, result) {
    const d = this.deps;
    const headline = `Scheduled job “${name}” in workspace “${workspace.name}” needs approval`;
    if (notificationsAllowed()) d.guard(d.notify(workspace.id, headline, result.summary.slice(0, 240)));
    d.banners.show(`job-approval-${workspace.id}`, `${headline}: ${result.summary}`, {
      kind: 'warn',
      action: { label: 'Open schedule', run: () => d.open({ name: 'workspace', workspaceId: workspace.id, panel: 'schedule' }) },
    });
  }

  /**
   * A finished job's result: a notification when allowed, and a banner when its conversation is not on screen.
   * @param {string} workspaceId
   * @param {string} name
   * @param {{ok: boolean, summary: string, conversationId?: string}} result
   */
  #deliver(workspaceId, name, result) {
    const d = this.deps;
    const headline = `Scheduled job “${name}” ${result.ok ? 'finished' : 'failed'}`;
    const body = result.summary.replace(/\s+/g, ' ').trim().slice(0, 240);
    if (notificationsAllowed()) d.guard(d.notify(workspaceId, headline, body || headline));
    const conversationId = result.conversationId;
    if (conversationId && !d.onScreen(workspaceId, conversationId)) {
      d.banners.show('job', `${headline}.`, {
        kind: result.ok ? 'info' : 'warn',
        action: { label: 'Open', run: () => d.open({ name: 'workspace', workspaceId, panel: 'chat', conversationId }) },
      });
    }
  }
}

const notificationsAllowed = () => typeof Notification !== 'undefined' && Notification.permission === 'granted';
