/**
 * What differs between MCP protocol revisions, for the client in client.js: the 2026-07-28
 * revision ("modern": no initialize and no session; every request carries its protocol version,
 * the client's identity and capabilities in `_meta`, and on HTTP the `Mcp-Method`, `Mcp-Name`
 * and `Mcp-Param-*` headers; `server/discover` says what a server speaks) and the 2025 revisions
 * ("legacy": the initialize handshake and a session). Pure rules, no I/O.
 */
import { z } from 'zod';

/** Revisions without a handshake, newest first. */
export const MODERN_VERSIONS = ['2026-07-28'];
/** Revisions with the initialize handshake and a session, newest first. */
export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'];

/** JSON-RPC error codes the 2026-07-28 revision defines. */
export const MODERN_ERRORS = { headerMismatch: -32020, missingCapability: -32021, unsupportedVersion: -32022 };

const META = 'io.modelcontextprotocol/';

/** What a server answers to `server/discover` (only what the client reads; the rest passes). */
export const DiscoverResultSchema = z
  .object({
    supportedVersions: z.array(z.string()),
    capabilities: z.record(z.string(), z.unknown()).default({}),
    instructions: z.string().optional(),
    _meta: z
      .object({
        [`${META}serverInfo`]: z.object({ name: z.string(), version: z.string().optional(), title: z.string().optional() }).optional(),
      })
      .passthrough()
      .optional(),
  })
  .passthrough();

/** The `data` of an UnsupportedProtocolVersion error. */
const UnsupportedDataSchema = z.object({ supported: z.array(z.string()), requested: z.string().optional() }).passthrough();

/** The revisions an unsupported-version error lists, or null when it lists none in the expected shape. @param {unknown} data */
export function supportedVersionsOf(data) {
  const parsed = UnsupportedDataSchema.safeParse(data);
  return parsed.success ? parsed.data.supported : null;
}

/**
 * The `_meta` every 2026-07-28 request carries, merged into the request's own `_meta` (a progress token).
 * @param {unknown} params @param {string} version @param {{name: string, version: string, title?: string}} clientInfo
 * @param {string | null} logLevel the level the user asked server logs from (null: no logs)
 * @returns {Record<string, unknown>}
 */
export function withEnvelope(params, version, clientInfo, logLevel) {
  const p = /** @type {Record<string, unknown>} */ (params && typeof params === 'object' ? params : {});
  return {
    ...p,
    _meta: {
      .../** @type {Record<string, unknown>} */ (p._meta ?? {}),
      [`${META}protocolVersion`]: version,
      [`${META}clientInfo`]: clientInfo,
      // Clawser offers none of the client features (roots, sampling, elicitation).
      [`${META}clientCapabilities`]: {},
      ...(logLevel ? { [`${META}logLevel`]: logLevel } : {}),
    },
  };
}

/**
 * A header value as the revision carries it: as it is when it is plain visible ASCII (inner
 * spaces allowed), else Base64 of its UTF-8 between `=?base64?` and `?=` (also when it looks
 * like that sentinel, so it cannot be misread).
 * @param {string} value
 */
export function headerValue(value) {
  const plain = /^(?:[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?)?$/.test(value);
  const sentinel = value.startsWith('=?base64?') && value.endsWith('?=');
  if (plain && !sentinel) return value;
  let binary = '';
  for (const byte of new TextEncoder().encode(value)) binary += String.fromCharCode(byte);
  return `=?base64?${btoa(binary)}?=`;
}

/** Methods whose `Mcp-Name` is the name or URI they act on. */
const NAMED = /** @type {Record<string, 'name' | 'uri'>} */ ({ 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' });

/**
 * `Mcp-Method`, and `Mcp-Name` for the methods that name what they act on.
 * @param {string} method @param {unknown} params
 * @returns {Record<string, string>}
 */
export function standardHeaders(method, params) {
  const key = NAMED[method];
  const name = key ? /** @type {Record<string, unknown>} */ (params ?? {})[key] : undefined;
  return { 'mcp-method': method, ...(typeof name === 'string' ? { 'mcp-name': headerValue(name) } : {}) };
}

/** @typedef {{header: string, path: string[]}} ParamHeader a tool argument the client mirrors into `Mcp-Param-{header}` */

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PRIMITIVE = new Set(['string', 'integer', 'boolean']);
/** Keywords whose values are data, not schemas: an `x-mcp-header` key there is not an annotation. */
const DATA_KEYWORDS = new Set(['const', 'default', 'enum', 'examples']);

/**
 * The `x-mcp-header` annotations of a tool's input schema, checked as the revision requires: a
 * token name, unique regardless of case, on a string, integer or boolean property reached from
 * the root through `properties` alone. A tool with an invalid annotation is not usable.
 * @param {unknown} schema
 * @returns {{ok: true, headers: ParamHeader[]} | {ok: false, reason: string}}
 */
export function paramHeadersOf(schema) {
  /** @type {ParamHeader[]} */
  const headers = [];
  /** @type {string | null} */
  let problem = null;
  /** @param {unknown} node @param {string[] | null} path the property path, null off a pure `properties` chain */
  const walk = (node, path) => {
    if (problem || !node || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const item of node) walk(item, null);
      return;
    }
    const n = /** @type {Record<string, unknown>} */ (node);
    if ('x-mcp-header' in n) {
      const name = n['x-mcp-header'];
      const types = Array.isArray(n.type) ? n.type.filter((t) => t !== 'null') : [n.type];
      if (!path || path.length === 0) problem = 'x-mcp-header is on a schema not reached through properties alone';
      else if (typeof name !== 'string' || !TOKEN.test(name)) problem = `x-mcp-header ${JSON.stringify(name)} is not a header name`;
      else if (!types.length || !types.every((t) => typeof t === 'string' && PRIMITIVE.has(t)))
        problem = `x-mcp-header "${name}" is on a property that is not a string, integer or boolean`;
      else if (headers.some((h) => h.header.toLowerCase() === name.toLowerCase())) problem = `x-mcp-header "${name}" is used twice`;
      else headers.push({ header: name, path });
    }
    for (const [key, value] of Object.entries(n)) {
      if (key === 'x-mcp-header' || DATA_KEYWORDS.has(key)) continue;
      if (key === 'properties' && value && typeof value === 'object' && !Array.isArray(value)) {
        for (const [prop, sub] of Object.entries(value)) walk(sub, path ? [...path, prop] : null);
      } else walk(value, null);
    }
  };
  walk(schema, []);
  return problem ? { ok: false, reason: problem } : { ok: true, headers };
}

/**
 * The `Mcp-Param-*` headers of one call: each annotated argument that has a value, encoded.
 * @param {ParamHeader[]} headers @param {Record<string, unknown>} args
 * @returns {Record<string, string>}
 */
export function paramHeaderValues(headers, args) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const { header, path } of headers) {
    /** @type {unknown} */
    let value = args;
    for (const key of path) value = value && typeof value === 'object' ? /** @type {Record<string, unknown>} */ (value)[key] : undefined;
    if (value === undefined || value === null) continue;
    const text = typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : null;
    if (text !== null) out[`mcp-param-${header.toLowerCase()}`] = headerValue(text);
  }
  return out;
}
