/** @import { ToolDefinition, ToolResult } from '../tools/types.d.ts' */
/** @import { McpClient, McpTool, McpContent } from './client.js' */
import { z } from 'zod';
import { stripInvisible } from '../safety/invisible.js';

/**
 * An MCP server's tools as Clawser tools: `mcp_{server}_{tool}`, permission `network` unless the
 * server marks the tool read-only (`read`), always asked for when it marks it destructive;
 * results mapped to text (images for models that see them), errors as failed results, and
 * every result untrusted content from outside.
 */

/** A name part for tool names: lowercase letters, digits and underscores. @param {string} s */
export const slug = (s) => s.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '') || 'x';

/**
 * The Clawser name of an MCP tool (at most 64 characters; a hash keeps long names apart).
 * @param {string} server @param {string} tool
 */
export function mcpToolName(server, tool) {
  const name = `mcp_${slug(server)}_${slug(tool)}`;
  if (name.length <= 64) return name;
  let h = 0;
  for (const c of `${server}\u0000${tool}`) h = (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0;
  return `${name.slice(0, 56)}_${h.toString(36).slice(0, 7)}`;
}

/** The permission an MCP tool gets from its annotations. @param {McpTool} tool @returns {'read' | 'network'} */
export const mcpPermission = (tool) => (tool.annotations?.readOnlyHint === true && tool.annotations?.destructiveHint !== true ? 'read' : 'network');

/**
 * A tool result from MCP content: text parts joined, images (the first as the result's image),
 * embedded resources' text, links named.
 * @param {{content: McpContent[], isError: boolean, structuredContent?: unknown}} r @param {number} [maxChars]
 * @returns {Omit<ToolResult, 'untrusted'>}
 */
export function mcpResult(r, maxChars = 100_000) {
  /** @type {string[]} */
  const parts = [];
  /** @type {ToolResult['image']} */
  let image;
  for (const c of r.content) {
    if (c.type === 'text') parts.push(c.text);
    else if (c.type === 'image') {
      if (!image && /^image\/(png|jpeg|gif|webp)$/.test(c.mimeType)) image = { mediaType: c.mimeType, dataUrl: `data:${c.mimeType};base64,${c.data}` };
      parts.push(`[image: ${c.mimeType}, ${Math.round((c.data.length * 3) / 4)} bytes]`);
    } else if (c.type === 'audio') parts.push(`[audio: ${c.mimeType}]`);
    else if (c.type === 'resource') {
      const res = c.resource;
      parts.push(typeof res.text === 'string' ? `[resource ${res.uri}${res.mimeType ? ` (${res.mimeType})` : ''}]\n${res.text}` : `[resource ${res.uri}: binary${res.mimeType ? `, ${res.mimeType}` : ''}]`);
    } else if (c.type === 'resource_link') parts.push(`[link: ${c.name ?? c.uri} — ${c.uri}${c.description ? ` — ${c.description}` : ''}]`);
  }
  if (!parts.length && r.structuredContent !== undefined) parts.push(JSON.stringify(r.structuredContent, null, 2));
  let output = parts.join('\n') || (r.isError ? 'The tool failed without a message.' : '(no output)');
  if (output.length > maxChars) output = `${output.slice(0, maxChars)}\n…[cut at ${maxChars} characters]`;
  return { ok: !r.isError, output, ...(image ? { image } : {}) };
}

/**
 * One MCP tool as a Clawser tool; calls go to `client()` (the server's current connection).
 * @param {{id: string, name: string}} server @param {McpTool} tool @param {() => McpClient | null} client
 * @param {{onProgress?: (tool: string, p: import('./client.js').McpProgress) => void, onError?: (err: import('./client.js').McpError) => void}} [options]
 * @returns {ToolDefinition}
 */
export function mcpToolDefinition(server, tool, client, options = {}) {
  const name = mcpToolName(server.name, tool.name);
  const schema = tool.inputSchema && typeof tool.inputSchema === 'object' ? tool.inputSchema : { type: 'object', properties: {} };
  // Annotations are the server's hints: read-only lowers the permission, destructive asks every time.
  const destructive = tool.annotations?.destructiveHint === true && tool.annotations?.readOnlyHint !== true;
  // Written by the server: invisible and control characters removed, one paragraph, bounded.
  const clean = (/** @type {string} */ s) => stripInvisible(s).replace(/[\u0000-\u001F\u007F]/g, ' ').replace(/\s+/g, ' ').trim();
  return {
    name,
    description: clean(`[MCP server “${server.name}”] ${tool.title && tool.title !== tool.name ? `${tool.title}: ` : ''}${tool.description ?? tool.name}`).slice(0, 1024),
    permission: mcpPermission(tool),
    untrusted: `the MCP server “${server.name}”`,
    // The server checks the arguments against its own schema; here only their shape as an object.
    schema: z.looseObject({}),
    jsonSchema: { ...schema, type: 'object' },
    ...(destructive ? { alwaysAsk: `The MCP server “${server.name}” marks ${tool.name} as destructive: it is asked for every time.` } : {}),
    async run(args, ctx) {
      const c = client();
      if (!c) return { ok: false, output: `The MCP server “${server.name}” is not connected. Connect it in the Servers panel.` };
      let r;
      try {
        r = await c.callTool(tool.name, args, {
          signal: ctx.signal,
          // The server's progress reports reach the chat (and any listener of the manager).
          onProgress: (p) => {
            options.onProgress?.(name, p);
            ctx.progress?.(`${p.progress}${p.total !== undefined ? `/${p.total}` : ''}${p.message ? ` — ${p.message}` : ''}`);
          },
        });
      } catch (err) {
        options.onError?.(/** @type {import('./client.js').McpError} */ (err));
        throw err;
      }
      return mcpResult(r);
    },
    preview(args) {
      return `Call ${tool.name} on the MCP server “${server.name}”${tool.annotations?.readOnlyHint ? ' (it says it only reads)' : ''}${destructive ? ' — the server marks it destructive' : ''} with ${JSON.stringify(args).slice(0, 500)}.`;
    },
  };
}
