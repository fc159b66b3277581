/** @import { ToolDefinition, ToolContext, ToolFamily } from './types.d.ts' */
import { z } from 'zod';
import { GOAL_STATUSES } from '../stores/goals.js';

const Status = z.enum(GOAL_STATUSES);

/** @param {ToolContext} ctx */
function goalsOf(ctx) {
  if (!ctx.goals) throw new Error('Goals are not available in this workspace.');
  return ctx.goals;
}

/** @type {ToolDefinition} */
export const goalAdd = {
  name: 'goal_add',
  description:
    'Add a goal (or a sub-goal with parentId) for this workspace. Goals persist across ' +
    'conversations and are shown to you in every turn until completed.',
  permission: 'internal',
  standing: true,
  schema: z.object({ description: z.string().min(1).max(2000), parentId: z.string().max(64).optional() }),
  async run({ description, parentId }, /** @type {ToolContext} */ ctx) {
    const g = await goalsOf(ctx).add({ description, parentId });
    return {
      ok: true,
      output: `Added goal ${g.id}: ${g.description}`,
      events: [{ type: 'goal_added', data: { id: g.id, description: g.description, parentId: g.parentId } }],
    };
  },
  preview({ description, parentId }) {
    return `Add the goal${parentId ? ` (under ${parentId})` : ''}, shown to the agent in every turn until it is done: ${description}`;
  },
};

/** @type {ToolDefinition} */
export const goalUpdate = {
  name: 'goal_update',
  description: `Update a goal: change its status (${GOAL_STATUSES.join(', ')}), add a progress note, link files it produced.`,
  permission: 'internal',
  standing: true,
  schema: z.object({
    id: z.string().min(1).max(64),
    status: Status.optional(),
    progress: z.string().max(4000).optional(),
    artifacts: z.array(z.string().max(1024)).max(50).optional(),
  }),
  async run({ id, status, progress, artifacts }, /** @type {ToolContext} */ ctx) {
    const g = await goalsOf(ctx).update(id, { status, progress, artifacts });
    return {
      ok: true,
      output: `Goal ${g.id} is ${g.status}${progress ? `; noted: ${progress}` : ''}.`,
      events: [{ type: 'goal_updated', data: { id: g.id, status: g.status, progress } }],
    };
  },
};

/** @type {ToolDefinition} */
export const goalList = {
  name: 'goal_list',
  description: 'List the goals of this workspace with their status, sub-goals and latest progress.',
  permission: 'read',
  readOnly: true,
  schema: z.object({ status: Status.optional() }),
  async run({ status }, /** @type {ToolContext} */ ctx) {
    const goals = await goalsOf(ctx).list({ status });
    if (!goals.length) return { ok: true, output: status ? `No ${status} goals.` : 'No goals yet.' };
    return {
      ok: true,
      output: goals
        .map(
          (g) =>
            `- [${g.id}] (${g.status}) ${g.parentId ? `↳ ` : ''}${g.description}${
              g.progress.length ? ` ` + `— ${g.progress.at(-1)?.note}` : ''
            }`,
        )
        .join('\n'),
    };
  },
};

export const GOAL_TOOLS = [goalAdd, goalUpdate, goalList];

/** @type {ToolFamily} */
export const family = {
  id: 'goals',
  tools: GOAL_TOOLS,
  cli: [
    { verb: 'goal list', tool: 'goal_list', options: { status: ['--status'] }, usage: '[--status s]' },
    {
      verb: 'goal add',
      tool: 'goal_add',
      args: ['description...'],
      options: { parentId: ['--parent'] },
      usage: '<description> [--parent id]',
      usageError: '<description>',
    },
    {
      verb: 'goal update',
      tool: 'goal_update',
      args: ['id'],
      options: { status: ['--status'], progress: ['--progress'] },
      usage: '<id> [--status s] [--progress text]',
    },
    { verb: 'goal done', tool: 'goal_update', args: ['id'], fixed: { status: 'completed' }, usage: '<id>' },
  ],
};
