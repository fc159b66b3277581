/** @import { ApprovalAnswer, ApprovalRequest, ApproveFn } from '../agent/runtime/tool-runner.js' */
/** @import { Route } from './router.js' */
import { formatRoute } from './router.js';

/**
 * Scheduled jobs' notifications shown through the service worker, with actions (sw.js handles
 * the clicks: `jobNotificationClick`). While this tab is not visible, a job's result comes as a
 * notification that opens its conversation or snoozes for an hour; an approval a job waits for
 * comes as one with "Allow once" and "Deny" where the platform shows actions. Its answer comes
 * back here as a message and answers the same request the approval dialog shows, through the
 * same gate (the ToolRunner's approve function): a notification never runs anything itself.
 * Each approval has a random id; an answer naming another id, or coming after the request was
 * answered, does nothing.
 */

/** What sw.js knows a job notification by (data.kind), and the messages between it and the page. */
export const JOB_NOTIFICATION = {
  result: 'clawser-job-result',
  approval: 'clawser-job-approval',
  /** sw.js → page: an approval answered from its notification ({id, answer: 'once' | 'deny'}). */
  answer: 'clawser-approval-answer',
  /** sw.js → page: show this route ({hash}), the notification's "Open". */
  open: 'clawser-open',
};

const granted = () => typeof Notification !== 'undefined' && Notification.permission === 'granted';

/** The service worker's registration, when there is one. @returns {Promise<ServiceWorkerRegistration | null>} */
async function registration() {
  if (typeof navigator === 'undefined' || !navigator.serviceWorker) return null;
  return (await navigator.serviceWorker.getRegistration().catch(() => undefined)) ?? null;
}

/**
 * A notification of the service worker's; its options as the platform takes them (`actions` is
 * not in TypeScript's NotificationOptions).
 * @param {ServiceWorkerRegistration} reg @param {string} title
 * @param {NotificationOptions & {actions?: {action: string, title: string}[]}} options
 */
function show(reg, title, options) {
  return reg.showNotification(title, /** @type {NotificationOptions} */ ({ icon: './icons/icon-192.png', ...options }));
}

/**
 * A job's result as the service worker's notification with "Open the conversation" and
 * "Snooze 1 hour". False when it could not be shown that way (no service worker, notifications
 * not allowed): the caller falls back to a page notification.
 * @param {{workspaceId: string, jobId: string, title: string, body: string, conversationId?: string}} result
 */
export async function showResultNotification(result) {
  const reg = await registration();
  if (!reg || !granted()) return false;
  /** @type {Route} */
  const route = result.conversationId
    ? { name: 'workspace', workspaceId: result.workspaceId, panel: 'chat', conversationId: result.conversationId }
    : { name: 'workspace', workspaceId: result.workspaceId, panel: 'schedule' };
  try {
    await show(reg, result.title, {
      body: result.body,
      tag: `clawser-job-${result.jobId}`,
      data: { kind: JOB_NOTIFICATION.result, hash: formatRoute(route), title: result.title, body: result.body },
      actions: [
        { action: 'open', title: result.conversationId ? 'Open the conversation' : 'Open the schedule' },
        { action: 'snooze', title: 'Snooze 1 hour' },
      ],
    });
    return true;
  } catch {
    return false;
  }
}

/** Approvals waiting for an answer from a notification, by id. @type {Map<string, (answer: ApprovalAnswer) => void>} */
const waiting = new Map();
let listening = false;

/** Answers from sw.js reach the request they name, once. */
function listen() {
  if (listening || typeof navigator === 'undefined' || !navigator.serviceWorker) return;
  listening = true;
  navigator.serviceWorker.addEventListener('message', (e) => {
    const data = e.data;
    if (!data || data.type !== JOB_NOTIFICATION.answer || typeof data.id !== 'string') return;
    const answer = data.answer === 'once' ? 'once' : 'deny';
    waiting.get(data.id)?.(answer);
  });
}

/**
 * An approve function for a scheduled job's run: the dialog (`dialog`) as always, and, while the
 * tab is not visible, also a notification with "Allow once" and "Deny". Whichever is answered
 * first answers the request; the other is closed. Never 'always' or a rule from a notification:
 * those are chosen in the dialog.
 * @param {ApproveFn} dialog @param {{visible?: () => boolean}} [options]
 * @returns {ApproveFn}
 */
export function approveWithNotification(dialog, options = {}) {
  const visible = options.visible ?? (() => document.visibilityState === 'visible');
  return async (request) => {
    const reg = visible() ? null : await registration();
    if (!reg || !granted() || !request.job) return dialog(request);
    listen();
    const id = crypto.randomUUID();
    const tag = `clawser-approval-${id}`;
    const closer = new AbortController();
    request.signal?.addEventListener('abort', () => closer.abort(), { once: true });
    /** @type {Promise<ApprovalAnswer>} */
    const fromNotification = new Promise((resolve) => waiting.set(id, resolve));
    /** @type {ApprovalRequest} */
    const asked = { ...request, signal: closer.signal };
    try {
      await show(reg, `Allow “${request.tool}” for job “${request.job.name}”?`, {
        body:
          `Scheduled job “${request.job.name}” in workspace “${request.workspace?.name ?? ''}” wants to run ${request.tool}.` +
          (request.timeoutMs ? ` Unanswered within ${Math.round(request.timeoutMs / 60_000)} minutes, it is refused.` : ''),
        tag,
        requireInteraction: true,
        data: { kind: JOB_NOTIFICATION.approval, id },
        actions: [
          { action: 'approve', title: 'Allow once' },
          { action: 'deny', title: 'Deny' },
        ],
      });
    } catch {
      waiting.delete(id);
      return dialog(request);
    }
    try {
      return await Promise.race([dialog(asked), fromNotification]);
    } finally {
      waiting.delete(id);
      closer.abort(); // the dialog, if the notification answered
      for (const n of await reg.getNotifications({ tag }).catch(() => [])) n.close();
    }
  };
}

/** The ids of approvals waiting for a notification's answer (tests and the panel's status). */
export function waitingApprovals() {
  return [...waiting.keys()];
}
