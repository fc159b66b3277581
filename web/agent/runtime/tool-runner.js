/** @import { ToolCall } from '../../providers/types.d.ts' */
/** @import { ToolContext, ToolResult } from '../../tools/types.d.ts' */
/** @import { BrowserToolRegistry } from '../../tools/registry.js' */
/** @import { HookPipeline } from './hooks.js' */
/** @import { AutonomyController } from './autonomy.js' */
/** @import { SafetyPipeline } from '../../safety/pipeline.js' */
import { scopeOf, suggestRule, describeRule } from '../../tools/approval-rules.js';

/**
 * 'rule': "Always allow" narrowed to the request's `rule` (a command prefix, a domain, a path glob).
 * @typedef {'once' | 'always' | 'rule' | 'deny'} ApprovalAnswer
 */
/**
 * Untrusted content the conversation took in: which tool brought it, what it is in words, and
 * a detail (the URL, path or query); `earlier` when it came in a previous turn and is still in
 * the model's context.
 * @typedef {{tool: string, what: string, detail?: string, earlier?: boolean}} TaintSource
 */
/**
 * job/workspace/timeoutMs/signal are set when a scheduled job asks (see job-approval.js): the
 * dialog names them, and closes itself when `signal` aborts (the time-out passed). `taint` is
 * set when a standing-state tool asks because the conversation took in untrusted content: the
 * dialog says so, and `allowAlways` is false (the answer counts once, whatever it is).
 * @typedef {{tool: string, description: string, permission: string, args: Record<string, unknown>, reason: string, preview?: string,
 *   job?: {id: string, name: string, viaChannel?: boolean}, workspace?: {id: string, name: string}, timeoutMs?: number,
 *   signal?: AbortSignal,
 *   taint?: TaintSource[], allowAlways?: boolean, rule?: import('../../tools/approval-rules.js').ApprovalRule, ruleText?: string, agent?:
 *   string}} ApprovalRequest
 *   agent: the named agent or sub-agent asking (the dialog names it); job.viaChannel: a channel's turn asks (a message from
 *   outside), not a job
 *   rule: the narrow "Always allow" the dialog offers for this call (absent when it has nothing to narrow to), ruleText: it in words
 */
/** @typedef {(request: ApprovalRequest) => Promise<ApprovalAnswer>} ApproveFn */
/**
 * @typedef {object} RunOptions
 * @property {AbortSignal} [signal]
 * @property {Partial<ToolContext>} [context] added to the tool's context for this call only (e.g. the Codex's runCode for a code block)
 * @property {string[]} [only] the tools this call may be (a skill script's allowed-tools), bounding
 *   every call it makes in turn (its shell's `clawser` and `curl` included): names, and for an
 *   MCP tool also its identity (`policyKey`) — its name alone does not let it in
 * @property {string} [callId] (internal) names the nested calls' ids
 */

/**
 * @typedef {object} ToolOutcome
 * @property {boolean} ok
 * @property {string} output what the model is told
 * @property {number} durationMs the call's own time (checks and the tool's run), without the wait for approval
 * @property {number} [approvalMs] how long the approval dialog waited for the user, when one was shown
 * @property {Record<string, unknown>} args the arguments as run (after hooks)
 * @property {{kind: 'unknown' | 'validation' | 'hook' | 'safety' | 'autonomy' | 'denied' | 'cancelled', reason: string}} [blocked]
 * @property {{originalChars: number, keptChars: number}} [truncated]
 * @property {import('../../safety/input-sanitizer.js').InputFlag[]} [flags] injection-like text found in the result
 * @property {ToolResult['image']} [image]
 * @property {boolean} [stopRun] autonomy limit: the run must end
 * @property {ToolResult['events']} [events] events the tool asks to record (after its result)
 * @property {number} [costCents] what the call spent on the turn's behalf (a sub-agent's model calls): part of the turn's cost
 * @property {TaintSource} [untrusted] the result is untrusted content from outside: the conversation is now tainted
 */

export const DEFAULT_MAX_RESULT_CHARS = 50_000;

/** Signals an abort raced past a tool's run (see untilAborted). */
const ABORTED = Symbol('aborted');

/**
 * The tool's run, or ABORTED as soon as `signal` aborts: a tool that ignores its signal cannot
 * hold up Stop. Its later result or failure is dropped.
 * @template T @param {Promise<T>} running @param {AbortSignal | undefined} signal
 * @returns {Promise<T | typeof ABORTED>}
 */
function untilAborted(running, signal) {
  if (!signal) return running;
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      running.catch(() => {});
      resolve(ABORTED);
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    running.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * Whether a tool is within a bound (`only`): its name is listed and, for a tool with an identity
 * of its own (an MCP server's), that identity too — the one it had when the bound was made.
 * @param {string[]} only @param {{name: string, policyKey?: string}} tool
 */
export const withinBound = (only, tool) => only.includes(tool.name) && (!tool.policyKey || only.includes(tool.policyKey));

/** The tool names of a bound (without the identities it pins them to). @param {string[]} only */
export const boundNames = (only) => only.filter((n) => !n.includes(':'));

/** The argument that says best where a tool's content came from (for the approval dialog). @param {Record<string, unknown>} args */
function detailOf(args) {
  const v = args.url ?? args.path ?? args.query;
  return typeof v === 'string' && v ? v.slice(0, 200) : undefined;
}

/** "a web page (https://…)" @param {TaintSource} t */
export function describeTaint(t) {
  return `${t.what}${t.detail ? ` (${t.detail})` : ''}`;
}

/**
 * Why a standing-state or outbound call needs the user now, in words the dialog shows.
 * @param {TaintSource[]} taint @param {{name: string, outbound?: string}} tool
 */
function taintReason(taint, tool) {
  const toolName = tool.name;
  const now = taint.filter((t) => !t.earlier);
  const list =
    (now.length ? now : taint).slice(0, 3).map(describeTaint).join(', ') + (taint.length > 3 ? ` and ${taint.length - 3} more` : '');
  const when = now.length ? 'This turn read' : 'This conversation read earlier';
  const does = tool.outbound
    ? tool.outbound
    : /^memory/.test(toolName)
      ? 'remember something for later conversations'
      : /^goal/.test(toolName)
        ? 'set or change a goal that rides along with every turn'
        : /^schedule/.test(toolName)
          ? 'schedule a job that runs later without you'
          : 'change what later turns are told or do';
  return (
    `${when} ${list}. Text from outside can try to plant instructions, so the agent may not ${does} unless you approve it — allow ` +
    `it only if it is what you asked for.`
  );
}

/**
 * Every tool call goes through the same gates, in this order: the tool exists and its
 * arguments validate (zod) → beforeToolCall hooks (may block or rewrite) → the safety
 * validator → autonomy level and limits → the workspace policy, asking the user when it
 * says so → run → the result is sanitised, scanned for secrets and capped.
 *
 * Taint: one runner serves one turn (the agent seeds it with what earlier turns left in the
 * context). Once a result brings in untrusted content (a tool marked `untrusted`, a result
 * the tool marks so, or one the InputSanitizer flags), every later call of a `standing` or an
 * `outbound` tool asks the user — over "Always allow", full autonomy and a default "auto" policy.
 */
export class ToolRunner {
  /**
   * @param {{registry: BrowserToolRegistry, context: ToolContext, hooks?: HookPipeline, autonomy?: AutonomyController, safety?:
   *   SafetyPipeline, approve?: ApproveFn, maxResultChars?: number,
   *   ledger?: {recordTool: (t: import('../../stores/usage-ledger.js').ToolUse) => void}}} deps
   *   ledger: counts every call and how it ended (the Dashboard's tool statistics)
   */
  constructor(deps) {
    this.registry = deps.registry;
    this.context = deps.context;
    this.hooks = deps.hooks;
    this.autonomy = deps.autonomy;
    this.safety = deps.safety;
    this.approve = deps.approve;
    this.maxResultChars = deps.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS;
    this.ledger = deps.ledger;
    /** Names of the write-permission tools that ran successfully (e.g. to auto-commit after a turn). @type {string[]} */
    this.writes = [];
    /** Untrusted content the conversation has taken in so far. @type {TaintSource[]} */
    this.taint = [];
    /**
     * Notes what this turn's tools change, for undo (set by the app; absent: no undo).
     * @type {import('./undo.js').TurnRecorder | undefined}
     */
    this.recorder = undefined;
    /** The paths this runner's tools changed, whatever tool (the shell too), when the app tracks them. @type {Set<string> | undefined} */
    this.writtenPaths = undefined;
  }

  /** Marks the conversation as having taken in untrusted content. @param {TaintSource} source */
  addTaint(source) {
    if (
      !this.taint.some(
        (t) => t.tool === source.tool && t.what === source.what && t.detail === source.detail && !!t.earlier === !!source.earlier,
      )
    )
      this.taint.push(source);
  }

  /**
   * @param {ToolCall} call
   * @param {RunOptions} [options]
   * @returns {Promise<ToolOutcome>}
   */
  async run(call, options = {}) {
    const outcome = await this.#run(call, options);
    try {
      this.ledger?.recordTool({
        name: this.registry.get(call.name) ? call.name : '(unknown tool)',
        ok: outcome.ok,
        blocked: !!outcome.blocked,
        durationMs: outcome.durationMs,
      });
    } catch {
      // Statistics never fail a call.
    }
    return outcome;
  }

  /**
   * Passes a call through every gate without running it (the shell's `curl` is checked as a
   * web_fetch of its URL): null when it may run, else why not. Counts as an action.
   * @param {ToolCall} call @param {{signal?: AbortSignal, only?: string[]}} [options] only: as for run
   * @returns {Promise<string | null>}
   */
  async authorize(call, options = {}) {
    const gate = await this.#gate(call, options, performance.now());
    if ('refused' in gate) return gate.refused.output;
    this.autonomy?.recordAction();
    return null;
  }

  /**
   * Every gate before a call runs: the tool exists, its arguments validate, hooks, safety,
   * autonomy, policy and the user's approval.
   * @param {ToolCall} call @param {{signal?: AbortSignal, only?: string[]}} options @param {number} started
   * @returns {Promise<{refused: ToolOutcome} | {tool: import('../../tools/types.d.ts').ToolDefinition, args: Record<string, unknown>,
   *   approvalMs: number}>}
   */
  async #gate(call, options, started) {
    /** Time spent waiting for the user's answer: not the tool's time. */
    let approvalMs = 0;
    const ranFor = () => performance.now() - started - approvalMs;
    const signal = options.signal;
    /** @param {NonNullable<ToolOutcome['blocked']>} blocked @param {Record<string, unknown>} args @param {boolean} [stopRun] */
    const refuse = (blocked, args, stopRun = false) => ({
      refused: { ok: false, output: blocked.reason, blocked, args, durationMs: ranFor(), ...(approvalMs ? { approvalMs } : {}), stopRun },
    });
    const tool = this.registry.get(call.name);
    const firstArgs = call.arguments;
    if (!tool)
      return refuse(
        {
          kind: 'unknown',
          reason: `There is no tool named "${call.name}". Available tools: ${this.registry
            .list()
            .map((t) => t.name)
            .join(', ')}.`,
        },
        firstArgs,
      );
    // A skill script's allowed-tools: whatever path the call took (its shell, that shell's clawser).
    // An MCP tool is in them only with its identity: another server's tool of the same name is not.
    if (options.only && !withinBound(options.only, tool))
      return refuse(
        {
          kind: 'denied',
          reason: `${tool.name} is not among the tools this script may use (${boundNames(options.only).join(', ') || 'none'}).`,
        },
        firstArgs,
      );
    let checked = this.registry.validate(call.name, firstArgs);
    if (!checked.ok) return refuse({ kind: 'validation', reason: checked.error }, firstArgs);
    let args = checked.value;
    if (this.hooks) {
      const hooked = await this.hooks.run('beforeToolCall', { name: call.name, args });
      if (hooked.blocked) return refuse({ kind: 'hook', reason: `Blocked by ${hooked.blocked.by}: ${hooked.blocked.reason}` }, args);
      if (hooked.ctx.args !== args) {
        checked = this.registry.validate(call.name, hooked.ctx.args);
        if (!checked.ok)
          return refuse(
            { kind: 'validation', reason: `A hook rewrote the arguments into invalid ones: ${checked.error}` },
            hooked.ctx.args,
          );
        args = checked.value;
      }
    }
    const verdict = this.safety?.checkToolCall(call.name, args, { shell: tool.runsCode === 'bash' });
    if (verdict && !verdict.ok) return refuse({ kind: 'safety', reason: `Blocked by the safety check: ${verdict.reason}` }, args);
    // The shell's permission depends on its line: read-only commands are a read. A bounded
    // call is judged in its own context (the shell: its own session).
    await tool.ready?.();
    const judged = options.only ? { ...this.context, only: options.only } : this.context;
    const permission = tool.permissionFor?.(args, judged) ?? tool.permission;
    // The user's narrowed "Always allow" (a command prefix, a domain, a path glob) covers this call.
    const ruled = this.registry.ruleCovers(tool.name, args, judged);
    let forceApproval = false;
    if (this.autonomy) {
      const a = this.autonomy.checkTool({ permission, standing: tool.standing });
      if (!a.allowed) return refuse({ kind: 'autonomy', reason: a.reason }, args, /^The limit|^Today's cost/.test(a.reason));
      // Supervised asks for every change, but "Always allow" is the user's word for this tool.
      forceApproval = a.forceApproval && this.registry.userPolicyOf(tool.name) !== 'auto' && !ruled;
    }
    const policy = this.registry.policyOf(tool.name, permission);
    if (policy === 'denied')
      return refuse({ kind: 'denied', reason: `The user has turned the tool "${tool.name}" off for this workspace.` }, args);
    // Outside content in the turn: a standing change, or a send out of Clawser (exfiltration), is the user's to allow, once.
    const tainted = (!!tool.standing || !!tool.outbound) && this.taint.length > 0;
    if ((policy === 'approve' && !ruled) || forceApproval || tainted || tool.alwaysAsk) {
      if (!this.approve)
        return refuse({ kind: 'denied', reason: `"${tool.name}" needs the user's approval, and no one is there to approve it.` }, args);
      /** @type {string | undefined} */
      let preview;
      if (tool.preview) {
        try {
          preview = await tool.preview(args, judged);
        } catch (err) {
          preview = `(${/** @type {Error} */ (err)?.message ?? String(err)})`;
        }
      }
      const reason = tainted
        ? taintReason(this.taint, tool)
        : tool.alwaysAsk
          ? tool.alwaysAsk
          : policy === 'approve'
            ? 'This tool needs approval in this workspace.'
            : 'Supervised autonomy: actions that change something need approval.';
      /** @type {ApprovalRequest} */
      const request = { tool: tool.name, description: tool.description, permission, args, preview, reason };
      if (tainted) Object.assign(request, { taint: this.taint.map((t) => ({ ...t })), allowAlways: false });
      else if (tool.alwaysAsk) request.allowAlways = false;
      else {
        const rule = suggestRule(tool.name, scopeOf(tool, args, judged));
        if (rule) Object.assign(request, { rule, ruleText: describeRule(rule) });
      }
      const asked = performance.now();
      const answer = await this.approve(request);
      approvalMs = performance.now() - asked;
      if (signal?.aborted) return refuse({ kind: 'cancelled', reason: 'Cancelled by the user before it ran.' }, args);
      if (answer === 'deny')
        return refuse(
          {
            kind: 'denied',
            reason: `The user denied this call to ${tool.name}. Do not retry it; ask the user or choose another approach.`,
          },
          args,
        );
      // A tainted request counts once: "always" must not turn into a standing yes. The answer is
      // for the tool that was asked about (its identity), even if another now holds its name.
      const key = tool.policyKey ?? tool.name;
      if (answer === 'always' && !tainted && !tool.alwaysAsk) this.registry.setPolicy(key, 'auto');
      if (answer === 'rule' && request.rule) this.registry.addRule({ ...request.rule, tool: key });
    }
    if (signal?.aborted) return refuse({ kind: 'cancelled', reason: 'Cancelled by the user before it ran.' }, args);
    return { tool, args, approvalMs };
  }

  /**
   * The context a tool runs with: the runner's, this call's additions, its signal, `taint` for
   * outside content it takes in, and `callTool`/`authorizeTool` that come back through this
   * runner within the call's bound (`only`). A bounded call (a skill script's) sees only its
   * tools in `toolNames`, and has no `delegate`, `runCode` or `runPython`: what it starts stays in bounds.
   * @param {string} toolName @param {RunOptions} options
   * @returns {ToolContext}
   */
  #contextFor(toolName, options) {
    const only = options.only;
    /** @type {ToolContext} */
    const ctx = { ...this.context, ...options.context, signal: options.signal };
    ctx.taint = (what, detail) => this.addTaint({ tool: toolName, what, ...(detail ? { detail } : {}) });
    ctx.toolNames ??= this.registry.list().map((t) => t.name);
    /** @param {string[] | undefined} more */
    const within = (more) => (only && more ? only.filter((n) => more.includes(n)) : (only ?? more));
    let nested = 0;
    const id = () => `${options.callId ?? toolName}_nested_${nested++}`;
    if (this.context.callTool) {
      ctx.callTool = async (name, args, signal, o) => {
        const outcome = await this.run(
          { id: id(), name, arguments: args },
          { signal, ...(within(o?.only) ? { only: within(o?.only) } : {}) },
        );
        return { ok: outcome.ok, output: outcome.output };
      };
    }
    if (this.context.authorizeTool)
      ctx.authorizeTool = (name, args, signal, o) =>
        this.authorize({ id: id(), name, arguments: args }, { signal, ...(within(o?.only) ? { only: within(o?.only) } : {}) });
    if (only) {
      ctx.only = only;
      ctx.toolNames = ctx.toolNames.filter((n) => only.includes(n));
      delete ctx.delegate;
      delete ctx.runCode;
      delete ctx.runPython;
    }
    return ctx;
  }

  /** @param {ToolCall} call @param {RunOptions} options @returns {Promise<ToolOutcome>} */
  async #run(call, options) {
    const started = performance.now();
    const gate = await this.#gate(call, options, started);
    if ('refused' in gate) return gate.refused;
    const { tool, args, approvalMs } = gate;
    const signal = options.signal;
    const ranFor = () => performance.now() - started - approvalMs;
    /**
     * @param {NonNullable<ToolOutcome['blocked']>} blocked
     * @param {Record<string, unknown>} args
     * @param {boolean} [stopRun]
     * @returns {ToolOutcome}
     */
    const refuse = (blocked, args, stopRun = false) => ({
      ok: false,
      output: blocked.reason,
      blocked,
      args,
      durationMs: ranFor(),
      ...(approvalMs ? { approvalMs } : {}),
      stopRun,
    });
    // Outside code (a skill's script) taints the conversation before it runs: its own tool calls are checked as such.
    if (tool.taintsBeforeRun && tool.untrusted) this.addTaint({ tool: tool.name, what: tool.untrusted, detail: detailOf(args) });
    this.autonomy?.recordAction();
    /** @type {ToolResult} */
    let result;
    const cancelled = () => refuse({ kind: 'cancelled', reason: 'Cancelled by the user while it was running.' }, args);
    try {
      const settled = await untilAborted(
        Promise.resolve(tool.run(args, this.#contextFor(tool.name, { ...options, callId: call.id }))),
        signal,
      );
      if (settled === ABORTED) return cancelled();
      result = settled;
    } catch (err) {
      const e = /** @type {Error} */ (err);
      if (signal?.aborted) return cancelled();
      result = { ok: false, output: `${tool.name} failed: ${e?.message ?? String(err)}` };
    }
    if (tool.permission === 'write' && result.ok) this.writes.push(tool.name);
    let output = String(result.output ?? '');
    // What the model is told may be rewritten by a hook; it is sanitised and capped after, as the tool's own.
    if (this.hooks) output = String((await this.hooks.run('afterToolCall', { name: tool.name, args, ok: result.ok, output })).ctx.output);
    /** @type {ToolOutcome['flags']} */
    let flags = [];
    if (this.safety) {
      const checkedOut = this.safety.checkToolResult(output, tool.name);
      output = checkedOut.text;
      flags = checkedOut.flags;
    }
    /** @type {TaintSource | undefined} */
    let untrusted;
    const what =
      result.untrusted ??
      tool.untrusted ??
      (flags.length ? `${tool.name} output that looks like instructions (${flags.map((f) => f.rule).join(', ')})` : undefined);
    if (what) {
      untrusted = { tool: tool.name, what, detail: detailOf(args) };
      this.addTaint(untrusted);
    }
    /** @type {ToolOutcome['truncated']} */
    let truncated;
    if (output.length > this.maxResultChars) {
      truncated = { originalChars: output.length, keptChars: this.maxResultChars };
      output = `${output.slice(0, this.maxResultChars)}\n…[truncated: ${output.length - this.maxResultChars} more characters not shown]`;
    }
    return {
      ok: result.ok,
      output,
      args,
      durationMs: ranFor(),
      ...(approvalMs ? { approvalMs } : {}),
      truncated,
      flags,
      image: result.image,
      events: result.events,
      untrusted,
      ...(typeof result.costCents === 'number' ? { costCents: result.costCents } : {}),
    };
  }
}
