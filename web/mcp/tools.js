/** @import { ToolDefinition, ToolResult } from '../tools/types.d.ts' */
/** @import { McpClient, McpTool, McpContent } from './client.js' */
import { z } from 'zod';
import { stripInvisible } from '../safety/invisible.js';

/**
 * An MCP server's tools as Clawser tools: `mcp__{server}__{tool}`, permission `network` unless
 * the server marks the tool read-only (`read`), always asked for when it marks it destructive;
 * results mapped to text (images for models that see them), errors as failed results, and
 * every result untrusted content from outside. A tool's name is what the model calls; its
 * identity — the server's id and address plus the tool's own name — is what the user's choices
 * for it ("Always allow", narrowed rules, Off) are stored under (`policyKey`).
 */

/** A name part for tool names: lowercase letters, digits and single underscores. @param {string} s */
export const slug = (s) => plainSlug(s) || 'x';

/** @param {string} s */
const plainSlug = (s) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');

/**
 * A short, stable digest of a string: 8 characters of [0-9a-z] (41 bits, FNV-1a in two lanes
 * with a final mix). Not a secret: it keeps apart names that read the same once shortened.
 * @param {string} s
 */
export function shortTag(s) {
  let a = 0x811c9dc5;
  let b = 0x27d4eb2f;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  a ^= b;
  a = Math.imul(a ^ (a >>> 16), 0x85ebca6b);
  a = Math.imul(a ^ (a >>> 13), 0xc2b2ae35);
  a ^= a >>> 16;
  b = Math.imul(b ^ (b >>> 16), 0x7feb352d);
  return ((a >>> 0) * 512 + ((b >>> 0) & 511)).toString(36).padStart(8, '0');
}

/**
 * A server's part of its tools' names: its name in lowercase letters, digits and single
 * underscores (at most 40 characters); a name with no Latin letter or digit ("日本語") gets
 * "u" and a digest of it. Two servers of a workspace never share it: adding, importing or
 * saving one that would is refused, naming both.
 * @param {string} name
 */
export function serverSlug(name) {
  return plainSlug(name).slice(0, 40).replace(/_+$/, '') || `u${shortTag(name).slice(0, 7)}`;
}

/** A tool's own name as a name part: word boundaries of camelCase kept ("createIssue" → create_issue). @param {string} s */
const toolSlug = (s) => plainSlug(s.replace(/([a-z0-9])([A-Z])/g, '$1_$2'));

/**
 * The Clawser names of a server's tools, in order: `mcp__{server}__{tool}`. The server part and
 * the tool part hold no "__" and neither starts nor ends with "_", so a name says which server
 * it belongs to: two servers never share a name. Within a server, a tool whose part would be
 * shared with another of its tools ("create-issue" and "create_issue"), would be empty
 * ("日本語") or would make the name longer than 64 characters gets a third part, a digest of its
 * exact name (`mcp__{server}__{start of tool}__{digest}`), which a plain tool part cannot look
 * like. Every name matches ^[a-z][a-z0-9_]{0,63}$: what every provider accepts, and a
 * JavaScript identifier for code mode.
 * @param {string} server the server's name @param {string[]} tools the exact names of its tools
 * @returns {string[]}
 */
export function mcpToolNames(server, tools) {
  const s = serverSlug(server);
  const parts = tools.map(toolSlug);
  /** @type {Map<string, number>} */
  const uses = new Map();
  for (const p of parts) uses.set(p, (uses.get(p) ?? 0) + 1);
  return tools.map((tool, i) => {
    const p = parts[i];
    if (p && uses.get(p) === 1 && 7 + s.length + p.length <= 64) return `mcp__${s}__${p}`;
    const room = 64 - 7 - s.length - 2 - 8;
    return `mcp__${s}__${p.slice(0, room).replace(/_+$/, '') || 't'}__${shortTag(tool)}`;
  });
}

/**
 * The Clawser name of one MCP tool (see mcpToolNames; `siblings`: every tool of its server,
 * when known, so that two of them reading the same are kept apart).
 * @param {string} server @param {string} tool @param {string[]} [siblings]
 */
export function mcpToolName(server, tool, siblings = [tool]) {
  const list = siblings.includes(tool) ? siblings : [...siblings, tool];
  return mcpToolNames(server, list)[list.indexOf(tool)];
}

/**
 * The identity a server's tool's policy and rules are stored under: the server's id and a digest
 * of its address, then the tool's exact name. A server added again (a new id) or moved to
 * another address never finds the choices made for the old one.
 * @param {{id: string, url: string}} server @param {string} tool
 */
export const mcpToolKey = (server, tool) => `${mcpServerKeyPrefix(server)}${tool}`;

/** What every key of a server's tools starts with. @param {{id: string, url: string}} server */
export const mcpServerKeyPrefix = (server) => `mcp:${server.id}:${shortTag(server.url)}:`;

/**
 * The parts of an MCP tool's key, or null for another tool's name.
 * @param {string} key @returns {{id: string, urlTag: string, tool: string} | null}
 */
export function parseMcpToolKey(key) {
  const m = /^mcp:([a-z0-9]+):([0-9a-z]{8}):([\s\S]+)$/.exec(key);
  return m ? { id: m[1], urlTag: m[2], tool: m[3] } : null;
}

/**
 * Whether a key belongs to this server as it is now (same id, same address).
 * @param {string} key
 * @param {{id: string, url: string}} server
 */
export const isKeyOfServer = (key, server) => key.startsWith(mcpServerKeyPrefix(server));

/**
 * The name an older version gave an MCP tool, `mcp_{server}_{tool}` (it could be the same for two
 * servers' tools): what the stored choices of that version are keyed by, read once to migrate them.
 * @param {string} server @param {string} tool
 */
export function legacyMcpToolName(server, tool) {
  const name = `mcp_${slug(server)}_${slug(tool)}`;
  if (name.length <= 64) return name;
  let h = 0;
  for (const c of `${server}\u0000${tool}`) h = (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0;
  return `${name.slice(0, 56)}_${h.toString(36).slice(0, 7)}`;
}

/** The permission an MCP tool gets from its annotations. @param {McpTool} tool @returns {'read' | 'network'} */
export const mcpPermission = (tool) =>
  tool.annotations?.readOnlyHint === true && tool.annotations?.destructiveHint !== true ? 'read' : 'network';

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
      if (!image && /^image\/(png|jpeg|gif|webp)$/.test(c.mimeType))
        image = { mediaType: c.mimeType, dataUrl: `data:${c.mimeType};base64,${c.data}` };
      parts.push(`[image: ${c.mimeType}, ${Math.round((c.data.length * 3) / 4)} bytes]`);
    } else if (c.type === 'audio') parts.push(`[audio: ${c.mimeType}]`);
    else if (c.type === 'resource') {
      const res = c.resource;
      parts.push(
        typeof res.text === 'string'
          ? `[resource ${res.uri}${res.mimeType ? ` (${res.mimeType})` : ''}]\n${res.text}`
          : `[resource ${res.uri}: binary${res.mimeType ? `, ${res.mimeType}` : ''}]`,
      );
    } else if (c.type === 'resource_link') parts.push(`[link: ${c.name ?? c.uri} — ${c.uri}${c.description ? ` — ${c.description}` : ''}]`);
  }
  if (!parts.length && r.structuredContent !== undefined) parts.push(JSON.stringify(r.structuredContent, null, 2));
  let output = parts.join('\n') || (r.isError ? 'The tool failed without a message.' : '(no output)');
  if (output.length > maxChars) output = `${output.slice(0, maxChars)}\n…[cut at ${maxChars} characters]`;
  return { ok: !r.isError, output, ...(image ? { image } : {}) };
}

/**
 * One MCP tool as a Clawser tool; calls go to `client()` (the server's current connection).
 * @param {{id: string, name: string, url: string}} server @param {McpTool} tool @param {() => McpClient | null} client
 * @param {{onProgress?: (tool: string, p: import('./client.js').McpProgress) => void, onError?: (err: import('./client.js').McpError) =>
 *   void, siblings?: string[]}} [options]
 *   siblings: the exact names of every tool of the server (see mcpToolNames)
 * @returns {ToolDefinition}
 */
export function mcpToolDefinition(server, tool, client, options = {}) {
  const name = mcpToolName(server.name, tool.name, options.siblings);
  const schema = tool.inputSchema && typeof tool.inputSchema === 'object' ? tool.inputSchema : { type: 'object', properties: {} };
  // Annotations are the server's hints: read-only lowers the permission, destructive asks every time.
  const destructive = tool.annotations?.destructiveHint === true && tool.annotations?.readOnlyHint !== true;
  // Written by the server: invisible and control characters removed, one paragraph, bounded.
  const clean = (/** @type {string} */ s) =>
    stripInvisible(s)
      .replace(/[\u0000-\u001F\u007F]/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
  return {
    name,
    policyKey: mcpToolKey(server, tool.name),
    description: clean(
      `[MCP server “${server.name}”] ${tool.title && tool.title !== tool.name ? `${tool.title}: ` : ''}${tool.description ?? tool.name}`,
    ).slice(0, 1024),
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
      return (
        `Call ${tool.name} on the MCP server “${server.name}”${tool.annotations?.readOnlyHint ? ' (it says it only reads)' : ''}` +
        `${destructive ? ' — the server marks it destructive' : ''} with ${JSON.stringify(args).slice(0, 500)}.`
      );
    },
  };
}
