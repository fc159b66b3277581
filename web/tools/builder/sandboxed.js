/** @import { ToolDefinition, ToolContext, ToolResult } from '../types.d.ts' */
/** @import { ToolVersion } from './spec.js' */
import { argumentsSchema, describeCapabilities, permissionOf, policyKeyOf } from './spec.js';
import { hostAllowed, ruleFetch } from '../web.js';

/**
 * A built tool as the registry holds it: each call runs its code in a sandbox of its own (andbox:
 * an opaque-origin frame's worker whose CSP allows no network), given `args` and only the
 * capabilities it declares — `fetch` to its hosts (the host makes the request, under web_fetch's
 * address rules), `readFile`/`listFiles`, `writeFile` (each through fs_read / fs_list /
 * fs_write and their gates). Anything else it calls is refused by the sandbox (`not_granted`),
 * and its own `fetch`, without the capability, reaches nothing.
 */

/**
 * What a built tool's call needs of a sandbox: andbox's, or a stand-in in unit tests.
 * @typedef {{evaluate(code: string, o?: {timeoutMs?: number, signal?: AbortSignal}): Promise<{value: unknown, logs: string[],
 *   error: {name: string, message: string, stack: string} | null}>, dispose(): void}} BuiltSandbox
 * @typedef {(options: {capabilities: Record<string, (args: any) => unknown>, timeoutMs: number}) => Promise<BuiltSandbox>}
 *   SandboxFactory capability arguments come from sandboxed code (structured clones), hence any
 */

/** The most bytes one fetch of a built tool takes in. */
const MAX_FETCH_BYTES = 5 * 1024 * 1024;

/** @param {unknown} v */
function show(v) {
  if (typeof v === 'string') return v;
  try {
    return JSON.stringify(v, null, 2) ?? String(v);
  } catch {
    return String(v);
  }
}

/**
 * The capabilities a call's sandbox is given: only those the definition declares.
 * @param {ToolVersion['spec']} spec @param {ToolContext} ctx @param {{fetched: string[]}} seen
 * @returns {Record<string, (args: any) => unknown>} args: structured clones from the sandboxed code
 */
export function capabilitiesFor(spec, ctx, seen) {
  /** @type {Record<string, (args: any) => unknown>} */
  const caps = {};
  const c = spec.capabilities;
  if (c.fetch.length) {
    const fetcher = ruleFetch({
      fetch: ctx.fetch,
      // The declared hosts are its allowlist; private addresses still need the workspace's own permission.
      settings: { allowedPrivateHosts: ctx.settings.allowedPrivateHosts, fetchAllowlist: c.fetch },
      maxBytes: MAX_FETCH_BYTES,
    });
    caps.fetch = async (/** @type {{url: unknown, init?: any}} */ a) => {
      const url = String(a?.url ?? '');
      let u;
      try {
        u = new URL(url);
      } catch {
        throw new Error(`fetch: "${url.slice(0, 200)}" is not an absolute http(s) address.`);
      }
      // The workspace's own allowlist, when it has one, bounds every tool.
      if (ctx.settings.fetchAllowlist.length && !hostAllowed(u.hostname, ctx.settings.fetchAllowlist))
        throw new Error(`fetch: ${u.hostname} is not in this workspace's fetch allowlist.`);
      const init = a?.init ?? {};
      let r;
      try {
        r = await fetcher(u.href, {
          method: typeof init.method === 'string' ? init.method : 'GET',
          headers: init.headers && typeof init.headers === 'object' ? init.headers : undefined,
          body: typeof init.body === 'string' ? init.body : undefined,
          signal: ctx.signal,
        });
      } catch (err) {
        throw new Error(String(/** @type {Error} */ (err)?.message ?? err).replace(/^curl: /, 'fetch: '));
      }
      // What came back is outside content: the turn is tainted from now on, while the tool still runs.
      seen.fetched.push(r.url);
      ctx.taint?.(`a response fetched by the built tool ${spec.name}`, r.url);
      return { status: r.status, statusText: r.statusText, headers: r.headers, body: new TextDecoder().decode(r.body) };
    };
  }
  /** @param {string} tool @param {Record<string, unknown>} args */
  const through = async (tool, args) => {
    if (!ctx.callTool) throw new Error(`${tool} is not available to built tools here.`);
    const r = await ctx.callTool(tool, args, ctx.signal, { only: [tool] });
    if (!r.ok) throw new Error(r.output);
    return r.output;
  };
  /** @param {any} a @param {string} key */
  const text = (a, key) => (a && typeof a[key] === 'string' ? a[key] : '');
  if (c.readFiles) {
    caps.readFile = (/** @type {any} */ a) => through('fs_read', { path: text(a, 'path') });
    caps.listFiles = (/** @type {any} */ a) => through('fs_list', a && typeof a.path === 'string' ? { path: a.path } : {});
  }
  if (c.writeFiles) caps.writeFile = (/** @type {any} */ a) => through('fs_write', { path: text(a, 'path'), content: text(a, 'content') });
  return caps;
}

/**
 * The registry's definition of one approved version of a built tool.
 * @param {ToolVersion} version @param {string} digest the approved definition's identity
 * @param {{createSandbox: SandboxFactory}} deps
 * @returns {ToolDefinition}
 */
export function builtToolDefinition(version, digest, deps) {
  const { spec } = version;
  return {
    name: spec.name,
    // Its choices ("Always allow", rules) are kept for this definition only: a new version asks anew.
    policyKey: policyKeyOf(spec.name, digest),
    description: spec.description,
    permission: permissionOf(spec.capabilities),
    schema: argumentsSchema(spec.parameters),
    jsonSchema: structuredClone(spec.parameters),
    preview: () =>
      `Runs the built tool ${spec.name} (version ${version.version}) in a sandbox ` +
      `that may reach: ${describeCapabilities(spec.capabilities)}.`,
    /** @returns {Promise<ToolResult>} */
    async run(args, /** @type {ToolContext} */ ctx) {
      const seen = { fetched: /** @type {string[]} */ ([]) };
      const sandbox = await deps.createSandbox({ capabilities: capabilitiesFor(spec, ctx, seen), timeoutMs: spec.timeoutSeconds * 1000 });
      try {
        // `args` is a global, so code that declares its own `args` still runs (as a skill script's).
        const r = await sandbox.evaluate(`globalThis.args = ${JSON.stringify(args ?? {})};\n${spec.code}`, {
          timeoutMs: spec.timeoutSeconds * 1000,
          signal: ctx.signal,
        });
        const parts = [];
        if (r.logs.length) parts.push(r.logs.join('\n'));
        if (r.error) parts.push(`${r.error.name}: ${r.error.message}${r.error.stack ? `\n${r.error.stack}` : ''}`);
        else if (r.value !== undefined) parts.push(show(r.value));
        const untrusted = seen.fetched.length ? `a response fetched by the built tool ${spec.name}` : undefined;
        return { ok: !r.error, output: parts.join('\n') || '(no output)', ...(untrusted ? { untrusted } : {}) };
      } finally {
        sandbox.dispose();
      }
    },
  };
}
