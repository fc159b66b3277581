/** @import { ChatController } from './chat-controller.js' */
/** @import { ToolRunner } from '../agent/tool-runner.js' */
/** @import { Job } from '../agent/scheduler.js' */
import { shouldDeliver } from '../agent/scheduler.js';

/**
 * Runs one occurrence of a scheduled job: a prompt becomes a turn in the job's conversation
 * (through the one agent loop, with every gate); a tool call goes through the same ToolRunner
 * gates as any other call, and its result is posted to the job's conversation when the job's
 * delivery setting says so. The conversation is created on the first run when the job has none.
 * @param {{job: Job, run: {scheduledFor: number, missed: number, manual: boolean}, controller: ChatController, tools: () => Promise<ToolRunner>}} deps
 *   controller: the chat of the job's workspace; tools: the workspace's gated tool runner
 * @returns {Promise<{ok: boolean, summary: string, conversationId?: string}>}
 */
export async function runJob({ job, run, controller, tools }) {
  const title = `⏰ ${job.name}`;
  const fired = { jobId: job.id, name: job.name, kind: job.action.kind, scheduledFor: run.scheduledFor, missed: run.missed, manual: run.manual || undefined };
  if (job.action.kind === 'prompt') {
    return controller.runScheduled({ conversationId: job.conversationId, title, text: job.action.prompt, before: (conv) => conv.append('scheduler_fired', fired, 'system') });
  }
  const outcome = await (await tools()).run({ id: `job_${job.id}_${run.scheduledFor.toString(36)}`, name: job.action.tool, arguments: job.action.args });
  /** @type {{ok: boolean, summary: string, conversationId?: string}} */
  const result = { ok: outcome.ok, summary: outcome.output };
  if (shouldDeliver(job.delivery, outcome.ok)) {
    result.conversationId = await controller.record(job.conversationId, title, 'scheduler_fired', { ...fired, ok: outcome.ok, summary: outcome.output.slice(0, 4000) });
  }
  return result;
}
