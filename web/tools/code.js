/** @import { ToolDefinition, ToolContext, ToolFamily } from './types.d.ts' */
import { z } from 'zod';

/** @type {ToolDefinition} */
export const runJs = {
  name: 'run_js',
  description:
    'Run JavaScript in an isolated sandbox (no network, no access to the page or its data). Top-level ' +
    'await works; print() shows output; the final expression is returned. The other tools are available ' +
    'inside as async functions, e.g. await fs_read({ path: "a.md" }).',
  permission: 'write',
  runsCode: 'sandbox',
  schema: z.object({ code: z.string().min(1).max(200_000) }),
  async run({ code }, /** @type {ToolContext} */ ctx) {
    if (!ctx.runCode) return { ok: false, output: 'The code sandbox is not available here.' };
    return ctx.runCode(code, ctx.signal);
  },
};

export const CODE_TOOLS = [runJs];

/** @type {ToolFamily} */
export const family = { id: 'code', tools: CODE_TOOLS };
