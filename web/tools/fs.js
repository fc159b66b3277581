/** @import { ToolDefinition, ToolContext, ToolFamily } from './types.d.ts' */
import { z } from 'zod';
import { PROTECTED_SEGMENTS } from '../storage/workspace-folders.js';

const Path = z.string().min(1).max(1024).describe('Path inside the workspace, e.g. "notes/todo.md"');
const decoder = new TextDecoder('utf-8', { fatal: false });

/** @param {number} n */
export function formatBytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** @param {string} name */
const isInternal = (name) => PROTECTED_SEGMENTS.includes(name.toLowerCase());

/** @type {ToolDefinition} */
export const fsRead = {
  name: 'fs_read',
  description: 'Read a text file from the workspace. Returns its content (or a part of it with offset/maxBytes).',
  permission: 'read',
  readOnly: true,
  schema: z.object({
    path: Path,
    offset: z.number().int().min(0).optional().describe('Byte offset to start at'),
    maxBytes: z.number().int().min(1).optional().describe('Read at most this many bytes'),
  }),
  async run({ path, offset = 0, maxBytes }, /** @type {ToolContext} */ ctx) {
    const stat = await ctx.fs.stat(path);
    if (!stat) return { ok: false, output: `No file at "${path}". Use fs_list to see what exists.` };
    if (stat.kind !== 'file') return { ok: false, output: `"${path}" is a folder; use fs_list to see inside it.` };
    const limit = ctx.settings.maxReadBytes;
    const end = Math.min(stat.size, offset + (maxBytes ?? limit));
    if (end - offset > limit)
      return {
        ok: false,
        output:
          `"${path}" is ${formatBytes(stat.size)}; reads are limited to ${formatBytes(limit)}. Use offset and maxBytes to read a ` +
          `part.`,
      };
    const bytes = await ctx.fs.readBytes(path, { start: offset, end });
    if (bytes.subarray(0, 8192).includes(0))
      return { ok: true, output: `"${path}" is a binary file (${formatBytes(stat.size)}); its content is not shown as text.` };
    const more = end < stat.size ? `\n…[${formatBytes(stat.size - end)} more; read on with offset ${end}]` : '';
    const untrusted = (await ctx.contentOrigin?.(path)) ?? undefined;
    return { ok: true, output: decoder.decode(bytes) + more, untrusted };
  },
};

/** @type {ToolDefinition} */
export const fsWrite = {
  name: 'fs_write',
  description:
    'Write a text file in the workspace (creating folders as needed). mode "overwrite" ' +
    '(default) replaces it atomically; "append" adds to the end.',
  permission: 'write',
  schema: z.object({ path: Path, content: z.string(), mode: z.enum(['overwrite', 'append']).optional() }),
  async run({ path, content, mode = 'overwrite' }, /** @type {ToolContext} */ ctx) {
    const bytes = new TextEncoder().encode(content);
    if (bytes.length > ctx.settings.maxWriteBytes)
      return {
        ok: false,
        output: `The content is ${formatBytes(bytes.length)}; writes are limited to ${formatBytes(ctx.settings.maxWriteBytes)}.`,
      };
    const existing = await ctx.fs.stat(path);
    if (existing?.kind === 'directory') return { ok: false, output: `"${path}" is a folder; choose a file name.` };
    if (mode === 'append') await ctx.fs.append(path, bytes);
    else await ctx.fs.write(path, bytes);
    return {
      ok: true,
      output: `${mode === 'append' ? 'Appended' : existing ? 'Replaced' : 'Created'} "${path}" (${formatBytes(bytes.length)}).`,
    };
  },
};

/** @type {ToolDefinition} */
export const fsList = {
  name: 'fs_list',
  description: 'List files and folders of the workspace (or of a folder in it), with sizes.',
  permission: 'read',
  readOnly: true,
  schema: z.object({
    path: z.string().max(1024).optional().describe('Folder to list; the workspace root by default'),
    recursive: z.boolean().optional(),
  }),
  async run({ path = '/', recursive = false }, /** @type {ToolContext} */ ctx) {
    const stat = await ctx.fs.stat(path);
    if (!stat) return { ok: false, output: `No folder at "${path}".` };
    if (stat.kind === 'file') return { ok: true, output: `${path} (file, ${formatBytes(stat.size)})` };
    /** @type {string[]} */
    const lines = [];
    const MAX = 2000;
    /** @param {string} dir @param {string} prefix */
    const walk = async (dir, prefix) => {
      for (const e of await ctx.fs.list(dir)) {
        if (lines.length >= MAX) return;
        if (isInternal(e.name)) continue;
        const child = `${dir.replace(/\/+$/, '')}/${e.name}`;
        if (e.kind === 'directory') {
          lines.push(`${prefix}${e.name}/`);
          if (recursive) await walk(child, `${prefix}${e.name}/`);
        } else {
          const s = await ctx.fs.stat(child);
          lines.push(`${prefix}${e.name} (${formatBytes(s?.size ?? 0)})`);
        }
      }
    };
    await walk(path, '');
    if (lines.length === 0) return { ok: true, output: `"${path}" is empty.` };
    return { ok: true, output: lines.join('\n') + (lines.length >= MAX ? `\n…[stopped after ${MAX} entries]` : '') };
  },
};

/** @type {ToolDefinition} */
export const fsDelete = {
  name: 'fs_delete',
  description: 'Delete a file or a folder (with everything in it) from the workspace.',
  permission: 'write',
  schema: z.object({ path: Path }),
  async run({ path }, /** @type {ToolContext} */ ctx) {
    if (!path.split('/').some(Boolean)) return { ok: false, output: 'Refusing to delete the whole workspace.' };
    const stat = await ctx.fs.stat(path);
    if (!stat) return { ok: false, output: `Nothing at "${path}" to delete.` };
    await ctx.fs.delete(path);
    return { ok: true, output: `Deleted ${stat.kind === 'directory' ? 'folder' : 'file'} "${path}".` };
  },
};

export const FS_TOOLS = [fsRead, fsWrite, fsList, fsDelete];

/** @type {ToolFamily} */
export const family = { id: 'fs', tools: FS_TOOLS };
