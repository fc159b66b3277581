/** @import { ApproveFn } from '../runtime/tool-runner.js' */

/** How long a scheduled job waits for an approval before the call is refused (10 minutes). */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 10 * 60_000;

/**
 * The approval function of one scheduled job run. Nobody may be watching when a job runs, so
 * each request names the job and its workspace (the dialog says who is asking) and carries a
 * signal that closes the dialog when the time-out passes; an unanswered request is refused
 * ('deny') and `timedOut` tells the caller to mark the run "needs approval". A channel's turn
 * (`job.viaChannel`: a message from outside, web/app/channels.js) asks the same way, named as the channel.
 * @param {{approve?: ApproveFn, job: {id: string, name: string, viaChannel?: boolean}, workspace: {id: string, name: string},
 *   timeoutMs?: number,
 *   timers?: {set: (fn: () => void, ms: number) => ReturnType<typeof setTimeout>, clear: (t: ReturnType<typeof setTimeout>) => void}}} deps
 */
export function jobApprover(deps) {
  const timeoutMs = deps.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
  const timers = deps.timers ?? { set: (fn, ms) => setTimeout(fn, ms), clear: (t) => clearTimeout(t) };
  const state = { timedOut: false, tool: '' };
  /** @type {ApproveFn | undefined} */
  const approve =
    deps.approve &&
    (async (request) => {
      const closer = new AbortController();
      /** @type {ReturnType<typeof setTimeout> | undefined} */
      let timer;
      /** @type {Promise<'deny'>} */
      const expired = new Promise((resolve) => {
        timer = timers.set(() => {
          state.timedOut = true;
          state.tool = request.tool;
          closer.abort();
          resolve('deny');
        }, timeoutMs);
      });
      try {
        const asked = /** @type {ApproveFn} */ (deps.approve)({
          ...request,
          job: { id: deps.job.id, name: deps.job.name, ...(deps.job.viaChannel ? { viaChannel: true } : {}) },
          workspace: { ...deps.workspace },
          timeoutMs,
          signal: closer.signal,
        });
        return await Promise.race([asked, expired]);
      } finally {
        if (timer !== undefined) timers.clear(timer);
      }
    });
  return {
    approve,
    timeoutMs,
    /** True once a request of this run went unanswered. */
    get timedOut() {
      return state.timedOut;
    },
    /** What the run's history and the notification say about it. */
    get summary() {
      const mins = Math.round(timeoutMs / 60_000);
      return (
        `Nobody answered the approval for "${state.tool}" within ${mins} minute${mins === 1 ? '' : 's'}, so the call was refused. ` +
        `Run the job again when you are there to approve it, or allow the tool for this workspace.`
      );
    },
  };
}
/** @typedef {ReturnType<typeof jobApprover>} JobApprover */
