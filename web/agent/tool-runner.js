/** @import { ToolCall } from '../providers/types.d.ts' */
/** @import { ToolContext, ToolResult } from '../tools/types.d.ts' */
/** @import { BrowserToolRegistry } from '../tools/registry.js' */
/** @import { HookPipeline } from './hooks.js' */
/** @import { AutonomyController } from './autonomy.js' */
/** @import { SafetyPipeline } from '../safety/pipeline.js' */

/** @typedef {'once' | 'always' | 'deny'} ApprovalAnswer */
/**
 * job/workspace/timeoutMs/signal are set when a scheduled job asks (see job-approval.js): the
 * dialog names them, and closes itself when `signal` aborts (the time-out passed).
 * @typedef {{tool: string, description: string, permission: string, args: Record<string, unknown>, reason: string, preview?: string,
 *   job?: {id: string, name: string}, workspace?: {id: string, name: string}, timeoutMs?: number, signal?: AbortSignal}} ApprovalRequest
 */
/** @typedef {(request: ApprovalRequest) => Promise<ApprovalAnswer>} ApproveFn */

/**
 * @typedef {object} ToolOutcome
 * @property {boolean} ok
 * @property {string} output what the model is told
 * @property {number} durationMs
 * @property {Record<string, unknown>} args the arguments as run (after hooks)
 * @property {{kind: 'unknown' | 'validation' | 'hook' | 'safety' | 'autonomy' | 'denied' | 'cancelled', reason: string}} [blocked]
 * @property {{originalChars: number, keptChars: number}} [truncated]
 * @property {import('../safety/input-sanitizer.js').InputFlag[]} [flags] injection-like text found in the result
 * @property {ToolResult['image']} [image]
 * @property {boolean} [stopRun] autonomy limit: the run must end
 * @property {ToolResult['events']} [events] events the tool asks to record (after its result)
 */

export const DEFAULT_MAX_RESULT_CHARS = 50_000;

/**
 * Every tool call goes through the same gates, in this order: the tool exists and its
 * arguments validate (zod) → beforeToolCall hooks (may block or rewrite) → the safety
 * validator → autonomy level and limits → the workspace policy, asking the user when it
 * says so → run → the result is sanitised, scanned for secrets and capped.
 */
export class ToolRunner {
  /**
   * @param {{registry: BrowserToolRegistry, context: ToolContext, hooks?: HookPipeline, autonomy?: AutonomyController, safety?: SafetyPipeline, approve?: ApproveFn, maxResultChars?: number}} deps
   */
  constructor(deps) {
    this.registry = deps.registry;
    this.context = deps.context;
    this.hooks = deps.hooks;
    this.autonomy = deps.autonomy;
    this.safety = deps.safety;
    this.approve = deps.approve;
    this.maxResultChars = deps.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS;
    /** Names of the write-permission tools that ran successfully (e.g. to auto-commit after a turn). @type {string[]} */
    this.writes = [];
  }

  /**
   * @param {ToolCall} call
   * @param {{signal?: AbortSignal, context?: Partial<ToolContext>}} [options]
   *   context: added to the tool's context for this call only (e.g. the Codex's runCode for a code block)
   * @returns {Promise<ToolOutcome>}
   */
  async run(call, options = {}) {
    const started = performance.now();
    const signal = options.signal;
    /** @param {NonNullable<ToolOutcome['blocked']>} blocked @param {Record<string, unknown>} args @param {boolean} [stopRun] */
    const refuse = (blocked, args, stopRun = false) => ({ ok: false, output: blocked.reason, blocked, args, durationMs: performance.now() - started, stopRun });
    const tool = this.registry.get(call.name);
    const firstArgs = call.arguments;
    if (!tool) return refuse({ kind: 'unknown', reason: `There is no tool named "${call.name}". Available tools: ${this.registry.list().map((t) => t.name).join(', ')}.` }, firstArgs);
    let checked = this.registry.validate(call.name, firstArgs);
    if (!checked.ok) return refuse({ kind: 'validation', reason: checked.error }, firstArgs);
    let args = checked.value;
    if (this.hooks) {
      const hooked = await this.hooks.run('beforeToolCall', { name: call.name, args });
      if (hooked.blocked) return refuse({ kind: 'hook', reason: `Blocked by ${hooked.blocked.by}: ${hooked.blocked.reason}` }, args);
      if (hooked.ctx.args !== args) {
        checked = this.registry.validate(call.name, hooked.ctx.args);
        if (!checked.ok) return refuse({ kind: 'validation', reason: `A hook rewrote the arguments into invalid ones: ${checked.error}` }, hooked.ctx.args);
        args = checked.value;
      }
    }
    const verdict = this.safety?.checkToolCall(call.name, args);
    if (verdict && !verdict.ok) return refuse({ kind: 'safety', reason: `Blocked by the safety check: ${verdict.reason}` }, args);
    let forceApproval = false;
    if (this.autonomy) {
      const a = this.autonomy.checkTool(tool.permission);
      if (!a.allowed) return refuse({ kind: 'autonomy', reason: a.reason }, args, /^The limit|^Today's cost/.test(a.reason));
      forceApproval = a.forceApproval;
    }
    const policy = this.registry.policyOf(tool.name);
    if (policy === 'denied') return refuse({ kind: 'denied', reason: `The user has turned the tool "${tool.name}" off for this workspace.` }, args);
    if (policy === 'approve' || forceApproval) {
      if (!this.approve) return refuse({ kind: 'denied', reason: `"${tool.name}" needs the user's approval, and no one is there to approve it.` }, args);
      /** @type {string | undefined} */
      let preview;
      if (tool.preview) {
        try {
          preview = await tool.preview(args, this.context);
        } catch (err) {
          preview = `(${/** @type {Error} */ (err)?.message ?? String(err)})`;
        }
      }
      const answer = await this.approve({ tool: tool.name, description: tool.description, permission: tool.permission, args, preview, reason: policy === 'approve' ? 'This tool needs approval in this workspace.' : 'Supervised autonomy: actions that change something need approval.' });
      if (signal?.aborted) return refuse({ kind: 'cancelled', reason: 'Cancelled by the user before it ran.' }, args);
      if (answer === 'deny') return refuse({ kind: 'denied', reason: `The user denied this call to ${tool.name}. Do not retry it; ask the user or choose another approach.` }, args);
      if (answer === 'always') this.registry.setPolicy(tool.name, 'auto');
    }
    if (signal?.aborted) return refuse({ kind: 'cancelled', reason: 'Cancelled by the user before it ran.' }, args);
    this.autonomy?.recordAction();
    /** @type {ToolResult} */
    let result;
    try {
      result = await tool.run(args, { ...this.context, ...options.context, signal });
    } catch (err) {
      const e = /** @type {Error} */ (err);
      if (signal?.aborted) return refuse({ kind: 'cancelled', reason: 'Cancelled by the user while it was running.' }, args);
      result = { ok: false, output: `${tool.name} failed: ${e?.message ?? String(err)}` };
    }
    if (tool.permission === 'write' && result.ok) this.writes.push(tool.name);
    let output = String(result.output ?? '');
    /** @type {ToolOutcome['flags']} */
    let flags = [];
    if (this.safety) {
      const checkedOut = this.safety.checkToolResult(output, tool.name);
      output = checkedOut.text;
      flags = checkedOut.flags;
    }
    /** @type {ToolOutcome['truncated']} */
    let truncated;
    if (output.length > this.maxResultChars) {
      truncated = { originalChars: output.length, keptChars: this.maxResultChars };
      output = `${output.slice(0, this.maxResultChars)}\n…[truncated: ${output.length - this.maxResultChars} more characters not shown]`;
    }
    return { ok: result.ok, output, args, durationMs: performance.now() - started, truncated, flags, image: result.image, events: result.ok ? result.events : undefined };
  }
}
