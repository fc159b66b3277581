import { jobApprover } from '../agent/scheduling/job-approval.js';
import { shouldDeliver } from '../stores/scheduler.js';
import { approvalDialog } from '../ui/approval-dialog.js';
import { approveWithNotification, showResultNotification } from './job-notifications.js';

/**
 * Runs a scheduled job's occurrence and delivers what came of it: a notification when the
 * user allowed them, a banner that opens the job's conversation when it is not on screen, and
 * always a word when a run was refused because nobody answered its approval. While the tab is
 * not visible, the notifications are the service worker's, with actions (job-notifications.js):
 * a result opens its conversation or snoozes; an approval is answered with Allow once / Deny.
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
   *   guard: (p: Promise<unknown>) => void, heartbeat?: (workspaceId: string) => Promise<string | null>, visible?: () => boolean}} deps
   *   heartbeat: the workspace's heartbeat checklist; visible: whether this tab is on screen (default: the document's visibility)
   *   open: go to a route (a banner's action); onScreen: is this conversation in view right now
   */
  constructor(deps) {
    this.deps = deps;
    this.visible = deps.visible ?? (() => document.visibilityState === 'visible');
  }

  /**
   * @param {string} workspaceId @param {import('../stores/scheduler.js').Job} job
   * @param {import('../stores/scheduler.js').JobRunInfo} run
   */
  async run(workspaceId, job, run) {
    const d = this.deps;
    const settings = d.agentSettings.load(workspaceId).scheduler;
    const workspace = { id: workspaceId, name: d.workspaceName(workspaceId) };
    // Nobody may be watching: the dialog names the job and workspace, and an unanswered one is refused.
    const approver = jobApprover({
      approve: approveWithNotification(approvalDialog, { visible: this.visible }),
      job,
      workspace,
      timeoutMs: settings.approvalTimeoutMinutes * 60_000,
    });
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
    if (result.needsApproval) this.#needsApproval(workspace, job, result);
    else if (!result.quiet && shouldDeliver(job.delivery, result.ok)) this.#deliver(workspaceId, job, result);
    return result;
  }

  /**
   * A run refused because nobody answered its approval: always told (whatever the delivery
   * setting), as a notification when allowed and a banner that opens the schedule.
   * @param {{id: string, name: string}} workspace @param {{id: string, name: string}} job @param {{summary: string}} result
   */
  #needsApproval(workspace, job, result) {
    const d = this.deps;
    const headline = `Scheduled job “${job.name}” in workspace “${workspace.name}” needs approval`;
    const body = result.summary.slice(0, 240);
    if (notificationsAllowed()) d.guard(this.#notify({ workspaceId: workspace.id, jobId: job.id, title: headline, body }));
    d.banners.show(`job-approval-${workspace.id}`, `${headline}: ${result.summary}`, {
      kind: 'warn',
      action: { label: 'Open schedule', run: () => d.open({ name: 'workspace', workspaceId: workspace.id, panel: 'schedule' }) },
    });
  }

  /**
   * A finished job's result: a notification when allowed, and a banner when its conversation is not on screen.
   * @param {string} workspaceId
   * @param {{id: string, name: string}} job
   * @param {{ok: boolean, summary: string, conversationId?: string}} result
   */
  #deliver(workspaceId, job, result) {
    const d = this.deps;
    const headline = `Scheduled job “${job.name}” ${result.ok ? 'finished' : 'failed'}`;
    const body = result.summary.replace(/\s+/g, ' ').trim().slice(0, 240);
    const conversationId = result.conversationId;
    if (notificationsAllowed())
      d.guard(
        this.#notify({
          workspaceId,
          jobId: job.id,
          title: headline,
          body: body || headline,
          ...(conversationId ? { conversationId } : {}),
        }),
      );
    if (conversationId && !d.onScreen(workspaceId, conversationId)) {
      d.banners.show('job', `${headline}.`, {
        kind: result.ok ? 'info' : 'warn',
        action: { label: 'Open', run: () => d.open({ name: 'workspace', workspaceId, panel: 'chat', conversationId }) },
      });
    }
  }

  /**
   * On screen: the page's notification. Not visible: the service worker's, with actions (the page's when that cannot be shown).
   * @param {{workspaceId: string, jobId: string, title: string, body: string, conversationId?: string}} n
   */
  async #notify(n) {
    if (!this.visible() && (await showResultNotification(n))) return 'shown';
    return this.deps.notify(n.workspaceId, n.title, n.body);
  }
}

const notificationsAllowed = () => typeof Notification !== 'undefined' && Notification.permission === 'granted';
