/** @import { ToolDefinition, ToolContext, ToolFamily } from './types.d.ts' */
import { z } from 'zod';

/** @type {ToolDefinition} */
export const agentDelegate = {
  name: 'agent_delegate',
  description:
    'Hand a self-contained task to a sub-agent, which works in a conversation of its ' +
    'own and returns its final answer and the files it changed. ' +
    '"agent" names one of the workspace\'s agents (see the Agents panel); leave it out for a copy ' +
    'of yourself. "tools" narrows the tools it gets (never more than yours). ' +
    'Several agent_delegate calls in one reply run at the same time. Give the task ' +
    'everything it needs: the sub-agent does not see this conversation.',
  // What the sub-agent does passes its own gates (its tools, autonomy and approvals).
  permission: 'read',
  parallel: true,
  // The sub-agents watch their own time; the caller's run only waits for them.
  waitsOnOthers: true,
  schema: z.object({
    agent: z
      .string()
      .regex(/^[a-z][a-z0-9_-]{0,31}$/)
      .optional(),
    task: z.string().min(1).max(20_000),
    context: z.string().max(50_000).optional(),
    tools: z.array(z.string().max(64)).max(200).optional(),
  }),
  async run(args, /** @type {ToolContext} */ ctx) {
    if (!ctx.delegate) return { ok: false, output: 'Delegation is not available here: do the task yourself.' };
    return ctx.delegate(args, { callId: ctx.callId ?? `delegate_${Date.now().toString(36)}`, signal: ctx.signal });
  },
  preview({ agent, task }) {
    return `Start ${agent ? `the agent @${agent}` : 'a sub-agent'} on: ${task.slice(0, 300)}`;
  },
};

export const AGENT_TOOLS = [agentDelegate];

/** @type {ToolFamily} */
export const family = { id: 'agents', tools: AGENT_TOOLS };
