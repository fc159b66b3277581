/** @import { Conversation } from '../conversation/conversation.js' */
/** @import { ClawserAgent } from '../runtime/agent.js' */
/** @import { AgentDefinition } from '../runtime/agent-definitions.js' */
import { allowedTools, lowerAutonomy } from '../runtime/agent-definitions.js';
/** @import { DelegationBoard } from './delegation-board.js' */

/**
 * Sub-agents: `agent_delegate` hands a task to a named agent, or to a restricted copy of the
 * caller, in a child conversation of its own. A child never gains a tool or autonomy its
 * caller lacks; several run at once up to a cap; a depth limit stops recursion; cancelling the
 * caller cancels the children; their model calls and actions count toward the workspace's
 * limits (their autonomy controllers share its usage). Pure orchestration: the app supplies how
 * to make a conversation and an agent.
 */

/** The workspace's delegation limits (stored with its agent settings, web/app/agent-settings.js). */
export const DEFAULT_DELEGATION = { maxParallel: 3, maxDepth: 2 };

export class DelegationError extends Error {
  /** @param {'depth' | 'unknown_agent' | 'no_tools' | 'cancelled'} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.name = 'DelegationError';
    this.code = code;
  }
}

/** At most `n` holders at once; waiters are served in order and leave when their signal aborts. */
export class Semaphore {
  /** @param {number} n */
  constructor(n) {
    this.free = n;
    /** @type {(() => void)[]} */
    this.waiting = [];
  }

  /** @param {AbortSignal} [signal] @returns {Promise<() => void>} the release */
  async acquire(signal) {
    if (this.free > 0) this.free--;
    else {
      await new Promise((resolve, reject) => {
        const go = () => {
          signal?.removeEventListener('abort', quit);
          resolve(undefined);
        };
        const quit = () => {
          this.waiting = this.waiting.filter((w) => w !== go);
          reject(new DelegationError('cancelled', 'Cancelled before it started.'));
        };
        if (signal?.aborted) return quit();
        signal?.addEventListener('abort', quit, { once: true });
        this.waiting.push(go);
      });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    };
  }
}

/**
 * What a delegation needs from the app.
 * @typedef {object} DelegationDeps
 * @property {number} depth the caller's depth (0: the user's agent)
 * @property {{maxParallel: number, maxDepth: number}} settings
 * @property {Semaphore} slots shared by the caller's turn
 * @property {string[]} callerTools the tools the caller has
 * @property {'readonly' | 'supervised' | 'full'} callerAutonomy
 * @property {string} callerName the caller's name (for the child's title)
 * @property {import('../runtime/tool-runner.js').TaintSource[]} [callerTaint] the outside content the caller took in (the child starts with
 *   it)
 * @property {{systemPrompt?: string, identity?: import('../runtime/identity.js').IdentitySource}} [callerPrompt] who the caller is (a copy
 *   of it is the same)
 * @property {string} parentConversationId
 * @property {(name: string) => Promise<(AgentDefinition & {leftOut?: string[]}) | null>} resolve a named agent, its tools as
 *   it reaches them now (leftOut: what its list names that it does not reach, in words: the answer says so)
 * @property {(title: string, parent: {conversationId: string, toolCallId: string, agent: string}) => Promise<Conversation>}
 *   createConversation
 * @property {(conversation: Conversation, profile: import('../../app/agent-factory.js').AgentProfile, definition: AgentDefinition | null,
 *   depth: number) => Promise<ClawserAgent>} buildAgent
 * @property {(toolName: string) => boolean} changesFiles a tool whose `path` argument names a file it changes
 * @property {DelegationBoard} [board]
 */

/**
 * Runs one `agent_delegate` call to the end: the child's final answer and the files it changed.
 * @param {{agent?: string, task: string, context?: string, tools?: string[]}} args
 * @param {{callId: string, signal?: AbortSignal}} call
 * @param {DelegationDeps} deps
 * @returns {Promise<import('../../tools/types.d.ts').ToolResult>}
 */
export async function runDelegation(args, call, deps) {
  if (deps.depth >= deps.settings.maxDepth) {
    return {
      ok: false,
      output:
        `Not delegated: sub-agents may nest ${deps.settings.maxDepth} level${deps.settings.maxDepth === 1 ? '' : 's'} deep, and ` +
        `this one is at the limit. Do the task yourself.`,
    };
  }
  const definition = args.agent ? await deps.resolve(args.agent) : null;
  if (args.agent && !definition)
    return {
      ok: false,
      output: `Not delegated: there is no agent named “${args.agent}”. Leave “agent” out to delegate to a copy of yourself.`,
    };
  // At most the caller's tools, then the definition's, then what the call asks for.
  let tools = allowedTools(allowedTools(deps.callerTools, definition?.tools), args.tools);
  // At the last level, a child cannot delegate further.
  if (deps.depth + 1 >= deps.settings.maxDepth) tools = tools.filter((t) => t !== 'agent_delegate');
  const autonomy = lowerAutonomy(deps.callerAutonomy, definition?.autonomy);
  const name = definition?.name ?? `${deps.callerName}-sub`;
  const own = new AbortController();
  const signal = call.signal ? AbortSignal.any([call.signal, own.signal]) : own.signal;
  // Tool call ids are unique within a conversation only (a provider may number them call_0, call_1…).
  const key = `${deps.parentConversationId}:${call.callId}`;
  deps.board?.add(
    {
      id: key,
      callId: call.callId,
      parentConversationId: deps.parentConversationId,
      agent: name,
      task: args.task.slice(0, 200),
      status: 'waiting',
      step: 'Waiting for a free slot…',
      costCents: 0,
      steps: 0,
    },
    own,
  );
  /** @type {(() => void) | null} */
  let release = null;
  try {
    release = await deps.slots.acquire(signal);
  } catch {
    deps.board?.remove(key);
    return { ok: false, output: 'Cancelled before it started.' };
  }
  try {
    // No mark in front: the list draws the sub-agent's icon from `parent`.
    const title = `@${name}: ${args.task.replace(/\s+/g, ' ').slice(0, 60)}`;
    const conversation = await deps.createConversation(title, {
      conversationId: deps.parentConversationId,
      toolCallId: call.callId,
      agent: name,
    });
    deps.board?.update(key, { conversationId: conversation.id, status: 'running', step: 'Starting…' });
    /** @type {import('../../app/agent-factory.js').AgentProfile} */
    const profile = {
      name,
      tools,
      autonomy,
      ...(definition
        ? {
            systemPrompt: definition.systemPrompt,
            ...(definition.identity ? { identity: definition.identity } : {}),
            ...(definition.maxIterations ? { maxIterations: definition.maxIterations } : {}),
          }
        : {
            ...(deps.callerPrompt?.systemPrompt ? { systemPrompt: deps.callerPrompt.systemPrompt } : {}),
            ...(deps.callerPrompt?.identity ? { identity: deps.callerPrompt.identity } : {}),
          }),
    };
    const agent = await deps.buildAgent(conversation, profile, definition, deps.depth + 1);
    // The task was written by a caller that may have read outside content: the child starts as
    // tainted as its caller, so its standing-state calls ask the user as the caller's would.
    for (const t of deps.callerTaint ?? []) agent.tools?.addTaint({ ...t, what: `${t.what} (read by the agent that delegated this task)` });
    const message = args.context ? `${args.task}\n\nContext from the agent that delegated this task:\n${args.context}` : args.task;
    let answer = '';
    /** @type {string | null} */
    let failure = null;
    let costCents = 0;
    let steps = 0;
    // A tainted caller's task is outside content in the child's log too: every later turn there
    // (the user going on in it, a retry) starts tainted.
    const inherited = deps.callerTaint?.length
      ? `a task from @${deps.callerName}, written after it read ${deps.callerTaint
          .slice(0, 3)
          .map((t) => t.what)
          .join(', ')}`
      : undefined;
    for await (const ev of agent.runStream(message, { signal, from: 'agent', ...(inherited ? { untrusted: inherited } : {}) })) {
      if (ev.type === 'text') answer += ev.text;
      else if (ev.type === 'tool_start') {
        answer = '';
        steps++;
        deps.board?.update(key, { step: `Running ${ev.name}…`, steps });
      } else if (ev.type === 'error') failure = ev.error.message;
      else if (ev.type === 'saved' && ev.eventType === 'agent_message') {
        const last = conversation.events.at(-1);
        const reply = last?.type === 'agent_message' ? last.data : undefined;
        if (typeof reply?.costCents === 'number') costCents += reply.costCents;
        deps.board?.update(key, { costCents, step: reply?.toolCalls?.length ? 'Calling tools…' : 'Answering…' });
      } else if (ev.type === 'saved' && ev.eventType === 'agent_delegated') {
        // Its own sub-agents' spend is its spend.
        const last = conversation.events.findLast((e) => e.id === ev.eventId);
        if (last?.type === 'agent_delegated' && typeof last.data.costCents === 'number') costCents += last.data.costCents;
        deps.board?.update(key, { costCents });
      }
    }
    // The answer as recorded (after the response hooks and the leak check), not as streamed.
    const recorded = conversation.events.findLast((e) => e.type === 'agent_message');
    if (recorded && !recorded.data.toolCalls?.length) answer = String(recorded.data.text ?? '');
    // Every path its tools changed (the shell's too) when tracked, else what its file tools' calls named.
    const files = [...new Set([...(agent.tools?.writtenPaths ?? []), ...changedFiles(conversation, deps.changesFiles)])];
    const taint = agent.tools?.taint.filter((t) => !t.earlier) ?? [];
    const cancelled = signal.aborted;
    const ok = !failure && !cancelled && !!answer.trim();
    deps.board?.update(key, {
      status: cancelled ? 'cancelled' : ok ? 'done' : 'failed',
      step: cancelled ? 'Cancelled.' : ok ? 'Done.' : (failure ?? 'No answer.'),
      costCents,
    });
    const head =
      `Sub-agent @${name} ${cancelled ? 'was cancelled' : ok ? 'finished' : 'failed'} (its conversation: ` +
      `“${title}”, ${steps} tool call${steps === 1 ? '' : 's'}${costCents ? `, ${costCents.toFixed(2)}¢` : ''}).`;
    const output = [
      head,
      ...(definition?.leftOut ?? []),
      `Files it changed: ${files.length ? files.join(', ') : 'none'}.`,
      cancelled
        ? 'It was stopped before it finished; what it did so far is kept in its conversation.'
        : failure
          ? `What failed: ${failure}`
          : '',
      answer.trim() ? `Its final answer:\n${answer.trim()}` : '',
    ]
      .filter(Boolean)
      .join('\n');
    return {
      ok,
      output,
      // Its answer carries what it read: outside content read by the child taints the caller too.
      ...(taint.length
        ? {
            untrusted: `the answer of sub-agent @${name}, which read ${taint
              .slice(0, 3)
              .map((t) => t.what)
              .join(', ')}`,
          }
        : {}),
      // The child's spend is part of the caller's turn.
      costCents,
      events: [
        {
          type: 'agent_delegated',
          data: {
            toolCallId: call.callId,
            agent: name,
            conversationId: conversation.id,
            title,
            status: cancelled ? 'cancelled' : ok ? 'done' : 'failed',
            costCents,
            files,
          },
        },
      ],
    };
  } finally {
    release();
    // The result (and its agent_delegated record) takes over from the live card.
    deps.board?.remove(key);
  }
}

/**
 * The files a conversation's successful tool calls changed, from its log.
 * @param {Conversation} conversation @param {(toolName: string) => boolean} changesFiles
 */
function changedFiles(conversation, changesFiles) {
  const ok = new Set(
    conversation.events
      .filter((e) => e.type === 'tool_result')
      .filter((e) => e.data.ok)
      .map((e) => e.data.toolCallId),
  );
  const files = new Set();
  for (const e of conversation.events) {
    if (e.type !== 'tool_call' || !ok.has(e.data.id) || !changesFiles(String(e.data.name))) continue;
    const a = e.data.arguments ?? {};
    for (const p of [a.path, a.from, a.to, a.destination]) if (typeof p === 'string' && p) files.add(p);
  }
  return [...files];
}
