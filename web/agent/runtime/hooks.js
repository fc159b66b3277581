/**
 * Lifecycle interception points of the agent, in the order a turn meets them:
 * beforeInbound (user text) → beforeOutbound (each provider request) → [LLM call] →
 * transformResponse (each reply's text) → beforeToolCall (each tool call) → afterToolCall (each
 * call that ran, before its result is sanitised and capped);
 * plus onSessionStart / onSessionEnd around a run. Each hook is isolated: one that throws
 * is reported and skipped, never breaking the turn.
 */

/**
 * @typedef {object} HookContexts
 * @property {{text: string}} beforeInbound return {text} to rewrite, {block: reason} to refuse
 * @property {{request: import('../../providers/types.d.ts').ChatRequest, iteration: number}} beforeOutbound return {request} to rewrite
 * @property {{text: string}} transformResponse return {text} to rewrite
 * @property {{name: string, args: Record<string, unknown>}} beforeToolCall return {args} to rewrite, {block: reason} to refuse
 * @property {{name: string, args: Record<string, unknown>, ok: boolean, output: string}} afterToolCall return {output} to rewrite what
 *   the model is told (still sanitised, scanned and capped after); every call that ran sees it, however it came (a native call,
 *   a Codex block, the tools its code calls, the shell's `clawser`)
 * @property {{conversationId: string}} onSessionStart
 * @property {{conversationId: string, reason: string}} onSessionEnd
 */
/** @typedef {keyof HookContexts} HookPoint */
/**
 * @typedef {{text?: string, request?: import('../../providers/types.d.ts').ChatRequest, args?: Record<string, unknown>, output?: string,
 *   block?: string} | void | undefined} HookResult
 */
/**
 * @template {HookPoint} P
 * @typedef {(ctx: HookContexts[P]) => HookResult | Promise<HookResult>} HookFn
 */

export const HOOK_POINTS = /** @type {const} */ ([
  'beforeInbound',
  'beforeOutbound',
  'transformResponse',
  'beforeToolCall',
  'afterToolCall',
  'onSessionStart',
  'onSessionEnd',
]);

export class HookPipeline {
  /** @type {Map<HookPoint, {name: string, priority: number, fn: Function}[]>} */ // fn is HookFn<P> for the point it is stored under
  #hooks = new Map();

  /** @param {{onError?: (info: {point: HookPoint, name: string, error: unknown}) => void}} [options] */
  constructor(options = {}) {
    this.onError = options.onError ?? ((info) => console.warn(`Hook "${info.name}" (${info.point}) failed and was skipped:`, info.error));
  }

  /**
   * Registers a hook; lower priority runs first. Returns an unregister function.
   * @template {HookPoint} P
   * @param {P} point
   * @param {HookFn<P>} fn
   * @param {{name?: string, priority?: number}} [options]
   */
  register(point, fn, options = {}) {
    if (!HOOK_POINTS.includes(point)) throw new Error(`Unknown hook point "${point}". Use one of: ${HOOK_POINTS.join(', ')}.`);
    const list = this.#hooks.get(point) ?? [];
    const entry = { name: options.name ?? (fn.name || 'anonymous'), priority: options.priority ?? 100, fn };
    list.push(entry);
    list.sort((a, b) => a.priority - b.priority);
    this.#hooks.set(point, list);
    return () => {
      const l = this.#hooks.get(point) ?? [];
      const i = l.indexOf(entry);
      if (i >= 0) l.splice(i, 1);
    };
  }

  /** @param {HookPoint} point */
  count(point) {
    return this.#hooks.get(point)?.length ?? 0;
  }

  /**
   * Runs the hooks of a point in order. Each sees the context as rewritten by the ones
   * before it; the first `block` stops the chain.
   * @template {HookPoint} P
   * @param {P} point
   * @param {HookContexts[P]} ctx
   * @returns {Promise<{ctx: HookContexts[P], blocked?: {by: string, reason: string}}>}
   */
  async run(point, ctx) {
    let current = ctx;
    for (const hook of this.#hooks.get(point) ?? []) {
      let result;
      try {
        result = await /** @type {HookFn<P>} */ (hook.fn)(current);
      } catch (error) {
        this.onError({ point, name: hook.name, error });
        continue;
      }
      if (!result) continue;
      if (typeof result.block === 'string') return { ctx: current, blocked: { by: hook.name, reason: result.block } };
      const { block: _b, ...patch } = result;
      void _b;
      current = { ...current, ...patch };
    }
    return { ctx: current };
  }
}
