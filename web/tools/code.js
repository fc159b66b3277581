/** @import { ToolDefinition, ToolContext, ToolFamily } from './types.d.ts' */
import { z } from 'zod';
import { PROTECTED_SEGMENTS } from '../storage/workspace-folders.js';

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

/** What a Python run gets of the workspace: files up to these sizes (larger ones are left out, and it says so). */
export const PYTHON_MOUNT = { maxFileBytes: 8 * 2 ** 20, maxTotalBytes: 64 * 2 ** 20, maxFiles: 5000 };

/**
 * The workspace's files for a Python run: everything but Clawser's own folders and `.git`, within
 * PYTHON_MOUNT's limits.
 * @param {ToolContext['fs']} fs
 * @returns {Promise<{files: {path: string, data: Uint8Array}[], skipped: string[]}>}
 */
export async function workspaceFiles(fs, limits = PYTHON_MOUNT) {
  /** @type {{path: string, data: Uint8Array}[]} */
  const files = [];
  /** @type {string[]} */
  const skipped = [];
  let total = 0;
  /** @param {string} dir @param {string} prefix */
  const walk = async (dir, prefix) => {
    for (const e of await fs.list(dir)) {
      const lower = e.name.toLowerCase();
      if (PROTECTED_SEGMENTS.includes(lower) || lower === '.git') continue;
      const rel = `${prefix}${e.name}`;
      const path = `${dir.replace(/\/+$/, '')}/${e.name}`;
      if (e.kind === 'directory') {
        await walk(path, `${rel}/`);
        continue;
      }
      const size = (await fs.stat(path))?.size ?? 0;
      if (files.length >= limits.maxFiles || size > limits.maxFileBytes || total + size > limits.maxTotalBytes) {
        skipped.push(rel);
        continue;
      }
      total += size;
      files.push({ path: rel, data: await fs.readBytes(path) });
    }
  };
  await walk('/', '');
  return { files, skipped };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** @type {ToolDefinition} */
export const runPython = {
  name: 'run_python',
  description:
    'Run Python 3 (Pyodide) in an isolated sandbox: no network, no access to the page or its data, the standard library ' +
    'only (numpy, pandas, matplotlib and other packages are not available, and nothing can be installed). The workspace ' +
    'files are in the current folder (/workspace), read-only; with write: true, the files the code creates, changes or ' +
    'removes there are saved back through fs_write / fs_delete (each asks like any write). print() output streams; the ' +
    'value of a final expression is shown. Variables persist between runs of a conversation.',
  permission: 'write',
  runsCode: 'sandbox',
  schema: z.object({
    code: z.string().min(1).max(200_000),
    write: z.boolean().optional().describe('Save the files the code writes under /workspace back to the workspace'),
    timeoutSeconds: z.number().int().min(1).max(300).optional().describe('Stop the run after this many seconds (300 by default)'),
  }),
  async run({ code, write = false, timeoutSeconds }, /** @type {ToolContext} */ ctx) {
    if (!ctx.runPython) return { ok: false, output: 'Python is not available here.' };
    const { files, skipped } = await workspaceFiles(ctx.fs);
    let r;
    try {
      r = await ctx.runPython(code, {
        files,
        writable: write,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        ...(timeoutSeconds ? { timeoutMs: timeoutSeconds * 1000 } : {}),
        onOutput: (_stream, text) => ctx.progress?.(text),
      });
    } catch (err) {
      return { ok: false, output: `Python did not run: ${/** @type {Error} */ (err)?.message ?? String(err)}` };
    }
    const parts = [];
    if (skipped.length)
      parts.push(`(not in /workspace, too large or too many: ${skipped.slice(0, 10).join(', ')}${skipped.length > 10 ? ', …' : ''})`);
    if (r.logs.length) parts.push(r.logs.join('\n'));
    if (r.error) parts.push(r.error.message.startsWith('Traceback') ? r.error.message : `${r.error.name}: ${r.error.message}`);
    else if (r.value !== undefined) parts.push(`=> ${typeof r.value === 'string' ? r.value : String(r.value)}`);
    let ok = r.ok;
    // A writable run's files go back through the gates, one call each, like any other write; a run
    // that failed saves nothing (its files may be half written).
    const save = write && r.ok;
    if (write && !r.ok && (r.written.length || r.deleted.length)) parts.push('(the code failed: none of its file changes were saved)');
    for (const f of save ? r.written : []) {
      let content;
      try {
        content = utf8.decode(f.data);
      } catch {
        parts.push(`${f.path}: not saved (a binary file; fs_write saves text)`);
        continue;
      }
      const saved = ctx.callTool
        ? await ctx.callTool('fs_write', { path: f.path, content }, ctx.signal)
        : { ok: false, output: 'writes cannot be saved here' };
      parts.push(saved.ok ? `${f.path}: saved` : `${f.path}: not saved — ${saved.output}`);
      if (!saved.ok) ok = false;
    }
    for (const path of save ? r.deleted : []) {
      const gone = ctx.callTool ? await ctx.callTool('fs_delete', { path }, ctx.signal) : { ok: false, output: 'not possible here' };
      parts.push(gone.ok ? `${path}: deleted` : `${path}: not deleted — ${gone.output}`);
      if (!gone.ok) ok = false;
    }
    const untrusted = files.length ? ((await ctx.contentOrigin?.()) ?? undefined) : undefined;
    return { ok, output: parts.join('\n') || '(no output)', ...(untrusted ? { untrusted } : {}) };
  },
};

export const CODE_TOOLS = [runJs, runPython];

/** @type {ToolFamily} */
export const family = { id: 'code', tools: CODE_TOOLS };
