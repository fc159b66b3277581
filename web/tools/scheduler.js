/** @import { ToolDefinition, ToolContext, ToolFamily } from './types.d.ts' */
import { z } from 'zod';
import { LeakDetector } from '../safety/leak-detector.js';
import { DELIVERY } from '../stores/scheduler.js';

const detector = new LeakDetector();

/** @param {ToolContext} ctx */
function schedulerOf(ctx) {
  if (!ctx.scheduler) throw new Error('Scheduling is not available in this workspace.');
  return ctx.scheduler;
}

/** @param {number} t */
const when = (t) => new Date(t).toISOString().replace(/:\d\d\.\d+Z$/, 'Z');

/** @type {ToolDefinition} */
export const scheduleAdd = {
  name: 'schedule_add',
  description:
    'Schedule a job for this workspace: a prompt you will run as a new turn at the time (in this conversation), or a ' +
    'direct tool call. `when` is a phrase ("every weekday at 9am", "every 2 hours", "in 3 days", "tomorrow at 8:30") ' +
    'or a 5-field cron expression ("0 9 * * 1-5"). The user is asked to approve it.',
  // A job acts later without the user present: creating one is a change that needs approval.
  permission: 'write',
  standing: true,
  schema: z
    .object({
      when: z.string().min(1).max(200),
      prompt: z.string().min(1).max(20_000).optional().describe('What to do when it runs (a prompt to yourself)'),
      tool: z.string().min(1).max(100).optional().describe('Or: a tool to call directly'),
      args: z.record(z.string(), z.unknown()).optional(),
      name: z.string().max(200).optional(),
      delivery: z.enum(DELIVERY).optional().describe('When to notify the user of the result (default always)'),
      timezone: z.string().max(100).optional(),
    })
    .refine((a) => !!a.prompt !== !!a.tool, { message: 'Give either `prompt` or `tool` (not both).' }),
  // The confirmation: what the phrase means and its next five runs, in the user's local time.
  preview(args, /** @type {ToolContext} */ ctx) {
    const p = schedulerOf(ctx).preview(args.when, { timezone: args.timezone });
    const fmt = (/** @type {number} */ t) =>
      new Date(t).toLocaleString(undefined, {
        weekday: 'short',
        year: 'numeric',
        month: 'short',
        day: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
      });
    return `Means: ${p.description}. Next ${p.next.length === 1 ? 'run' : `${p.next.length} runs`}:\n${p.next
      .map((t) => `• ` + `${fmt(t)}`)
      .join('\n')}`;
  },
  async run(args, /** @type {ToolContext} */ ctx) {
    const scheduler = schedulerOf(ctx);
    const action = args.prompt
      ? { kind: /** @type {const} */ ('prompt'), prompt: args.prompt }
      : { kind: /** @type {const} */ ('tool'), tool: args.tool, args: args.args ?? {} };
    if (action.kind === 'tool' && ctx.toolNames && !ctx.toolNames.includes(action.tool))
      return { ok: false, output: `There is no tool named "${action.tool}".` };
    // A scheduled prompt runs later as the workspace's own agent (every tool, its autonomy): a named
    // agent or sub-agent with less must not hand its task to it.
    if (action.kind === 'prompt' && ctx.agentName)
      return {
        ok: false,
        output:
          `@${ctx.agentName} cannot schedule a prompt: it would run later as the workspace's agent, with more than ` +
          `@${ctx.agentName} may do. Ask the user to schedule it, or schedule a tool call.`,
      };
    // A job is stored as written and runs later: a key in it would sit in storage in plain text.
    const kinds = detector.scan(JSON.stringify(action)).findings.map((f) => f.type);
    if (kinds.length)
      return {
        ok: false,
        output:
          `Not scheduled: the job contains what looks like a secret (${[...new Set(kinds)].join(', ')}), and jobs are stored ` +
          `unencrypted. Leave the secret out of the job.`,
      };
    const job = await scheduler.add({
      when: args.when,
      action,
      name: args.name,
      delivery: args.delivery,
      timezone: args.timezone,
      conversationId: ctx.conversationId,
      createdBy: 'agent',
    });
    const next = (await scheduler.get(job.id))?.nextRunAt;
    return {
      ok: true,
      output: `Scheduled job ${job.id} "${job.name}" (${scheduler.describe(job.trigger)}); next run ${next ? when(next) : 'none'}.`,
      events: [{ type: 'scheduler_added', data: { jobId: job.id, name: job.name, trigger: job.trigger, createdBy: 'agent' } }],
    };
  },
};

/** @type {ToolDefinition} */
export const scheduleList = {
  name: 'schedule_list',
  description: 'List the scheduled jobs of this workspace with their next run and last result.',
  permission: 'read',
  readOnly: true,
  schema: z.object({}),
  async run(_args, /** @type {ToolContext} */ ctx) {
    const scheduler = schedulerOf(ctx);
    const jobs = await scheduler.list();
    if (!jobs.length) return { ok: true, output: 'No scheduled jobs.' };
    return {
      ok: true,
      output: jobs
        .map((j) => {
          const last = j.runs.at(-1);
          const state = j.done ? 'done' : j.paused ? 'paused' : `next ${j.nextRunAt ? when(j.nextRunAt) : 'none'}`;
          return `- [${j.id}] ${j.name} — ${scheduler.describe(j.trigger)}; ${state}${
            last ? `; last ` + `run ${when(last.at)}: ${last.status}` : ''
          }`;
        })
        .join('\n'),
    };
  },
};

/** @type {ToolDefinition} */
export const scheduleRemove = {
  name: 'schedule_remove',
  description: 'Delete a scheduled job by its id (schedule_list shows ids).',
  permission: 'write',
  schema: z.object({ id: z.string().min(1).max(64) }),
  async run({ id }, /** @type {ToolContext} */ ctx) {
    const job = await schedulerOf(ctx).remove(id);
    return {
      ok: true,
      output: `Deleted the scheduled job "${job.name}".`,
      events: [{ type: 'scheduler_removed', data: { jobId: job.id, name: job.name } }],
    };
  },
};

export const SCHEDULER_TOOLS = [scheduleAdd, scheduleList, scheduleRemove];

/**
 * `clawser job list|add|remove` call these tools; `pause`, `resume` and `run` are the user's own
 * (web/shell/commands/clawser.js).
 * @type {ToolFamily}
 */
export const family = {
  id: 'scheduler',
  tools: SCHEDULER_TOOLS,
  cli: [
    { verb: 'job list', tool: 'schedule_list', usage: '' },
    {
      verb: 'job add',
      tool: 'schedule_add',
      args: ['when', 'prompt...'],
      options: { name: ['--name'] },
      usage: '<when> <prompt> [--name n]',
      usageError: '<when> <prompt>   (e.g. clawser job add "every day at 9am" "summarize the news")',
    },
    { verb: 'job remove', tool: 'schedule_remove', args: ['id'], usage: '<id>' },
  ],
};
