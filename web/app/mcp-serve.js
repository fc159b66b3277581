/** @import { ConfigStore } from '../storage/types.d.ts' */
/** @import { BrowserToolRegistry } from '../tools/registry.js' */
/** @import { ToolRunner, ApproveFn } from '../agent/runtime/tool-runner.js' */
/** @import { RemoteMachines } from '../stores/remote-machines.js' */
// Clawser as an MCP server (issue 35 §4): this tab exposes one workspace's chosen tools to
// outside MCP clients through the user's wsh server (its /mcp endpoint). The tab signs in to the
// machine as the Remote panel does and registers as the exposer (the package's `expose`); each
// forwarded tools/call runs through the workspace's ToolRunner exactly as the agent's own calls
// do — hooks, safety, autonomy, the workspace's policies, approvals shown in this tab — as a
// named agent ("MCP client") limited to the exposed tools, with the call's arguments counted as
// untrusted content (the taint that makes standing-state tools ask). Tokens are made here and
// shown once; only their SHA-256 is kept (here and on the server). Exposure is live only while
// this tab keeps it on: a reload or "Stop exposing" ends it, and the server says so to clients.
import { z } from 'zod';
import { toJsonSchema } from '../tools/registry.js';

export const EXPOSURE_KEY = 'clawser_mcp_exposure';
/** The named agent MCP calls run as: approvals ask “Allow … for @mcp-client?”. */
export const MCP_AGENT = 'mcp-client';
/** The conversation id MCP calls run under (their shell session and sandbox are their own, apart from every chat's). */
export const MCP_CONVERSATION = 'mcp-serve';
const TOKEN_PREFIX = 'clawser_mcp_';
/** The `_meta` key of a tools/call result that says how long the call took in the tab (ms). */
export const TOOL_MS_META = 'dev.clawser/toolMs';

const TokenSchema = z.object({
  id: z.string().min(1).max(64),
  label: z.string().max(64),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  createdAt: z.number(),
});
const SettingsSchema = z.object({
  machine: z.string().max(32).nullable().default(null),
  tools: z.array(z.string().max(128)).max(500).default([]),
  tokens: z.array(TokenSchema).max(32).default([]),
});
/** @typedef {z.infer<typeof SettingsSchema>} ExposureSettings */
const AllSchema = z.record(z.string(), SettingsSchema);

/** What an outside client's `tools/call` must carry. */
const CallSchema = z.object({ name: z.string().min(1).max(128), arguments: z.record(z.string(), z.unknown()).optional() });

/** A refusal the outside MCP client reads as a JSON-RPC error (`rpcCode`). */
export class McpServeError extends Error {
  /**
   * @param {'invalid' | 'no_machine' | 'no_token' | 'unknown_tool' | 'bad_params'} code @param {string} message
   * @param {number} [rpcCode] the JSON-RPC error code the outside client gets (invalid params by default)
   */
  constructor(code, message, rpcCode = -32602) {
    super(message);
    this.name = 'McpServeError';
    this.code = code;
    this.rpcCode = rpcCode;
  }
}

/** @param {Uint8Array} bytes */
const base64url = (bytes) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
/** @param {string} text */
async function sha256Hex(text) {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return [...digest].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * The MCP endpoint of the wsh server at this WebSocket address (same host and port, /mcp).
 * @param {string} wsUrl
 */
export function mcpUrlOf(wsUrl) {
  const u = new URL(wsUrl);
  u.protocol = u.protocol === 'wss:' ? 'https:' : 'http:';
  u.pathname = '/mcp';
  u.search = '';
  return u.href;
}

/**
 * @typedef {{state: 'off' | 'starting' | 'on' | 'error', message: string, url: string | null}} ExposureStatus
 * @typedef {{name: string, description: string, permission: string}} ExposableTool
 */

/** One workspace's exposure over MCP: its settings (machine, tools, token hashes) and the live registration. */
export class McpServe {
  /** @type {ExposureStatus} */
  #status = { state: 'off', message: 'Not exposed.', url: null };
  /** @type {import('../packages/wsh/client.js').McpExposure | null} */
  #live = null;
  /** Whether the user wants it exposed (a dropped connection is then tried again). */
  #wanted = false;
  /** @type {Set<() => void>} */
  #listeners = new Set();
  /** Aborted when the exposure stops: approvals still open close, calls still running end. */
  #stopped = new AbortController();
  #nextCall = 0;

  /**
   * @param {{workspaceId: string, config: ConfigStore, registry: BrowserToolRegistry, remote: () => Promise<RemoteMachines>,
   *   name: () => string, runner: (o: {profile: {name: string, tools: string[]}, approve?: ApproveFn}) => Promise<ToolRunner>,
   *   approve: ApproveFn}} deps
   *   runner: a gated ToolRunner of the workspace as the agent's turn gets one (app: AgentFactory.parts), for a named agent
   *   limited to `profile.tools`; approve: how the user is asked (the approval dialog of this tab)
   */
  constructor(deps) {
    this.deps = deps;
  }

  /** @returns {ExposureSettings} */
  settings() {
    const all = AllSchema.safeParse(this.deps.config.get(EXPOSURE_KEY, {}));
    return SettingsSchema.parse((all.success ? all.data : {})[this.deps.workspaceId] ?? {});
  }

  /** @param {(s: ExposureSettings) => ExposureSettings} change */
  #save(change) {
    const all = AllSchema.safeParse(this.deps.config.get(EXPOSURE_KEY, {}));
    const next = { ...(all.success ? all.data : {}), [this.deps.workspaceId]: SettingsSchema.parse(change(this.settings())) };
    this.deps.config.set(EXPOSURE_KEY, next);
    this.#changed();
  }

  #changed() {
    for (const fn of this.#listeners) fn();
  }

  /** Called after every change of settings or status. @param {() => void} fn @returns {() => void} stops it */
  onChange(fn) {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /** @returns {ExposureStatus} */
  status() {
    return this.#status;
  }

  /** @param {ExposureStatus['state']} state @param {string} message @param {string | null} [url] */
  #set(state, message, url = this.#status.url) {
    this.#status = { state, message, url };
    this.#changed();
  }

  /** The workspace's tools the user may expose (not those turned off). @returns {ExposableTool[]} */
  availableTools() {
    const { registry } = this.deps;
    return registry
      .list()
      .filter((t) => registry.policyOf(t.name) !== 'denied')
      .map((t) => ({ name: t.name, description: t.description, permission: t.permission }));
  }

  /** @param {string | null} machine */
  setMachine(machine) {
    this.#save((s) => ({ ...s, machine }));
  }

  /** Which tools outside clients see and may call (takes effect at once, also while exposed). @param {string[]} tools */
  setTools(tools) {
    this.#save((s) => ({ ...s, tools: [...new Set(tools)] }));
  }

  /**
   * Makes a token for outside clients: returned once, kept only as its SHA-256. While exposed,
   * the server is told at once.
   * @param {string} label @returns {Promise<string>}
   */
  async createToken(label) {
    if (this.settings().tokens.length >= 32) throw new McpServeError('invalid', 'A workspace has at most 32 tokens: revoke one first.');
    const token = `${TOKEN_PREFIX}${base64url(crypto.getRandomValues(new Uint8Array(32)))}`;
    const record = {
      id: crypto.randomUUID(),
      label: label.trim().slice(0, 64) || 'token',
      sha256: await sha256Hex(token),
      createdAt: Date.now(),
    };
    this.#save((s) => ({ ...s, tokens: [...s.tokens, record] }));
    if (this.#wanted) await this.#restart();
    return token;
  }

  /** Revokes a token: the server forgets it at once while exposed (with no token left, exposing stops). @param {string} id */
  async revokeToken(id) {
    this.#save((s) => ({ ...s, tokens: s.tokens.filter((t) => t.id !== id) }));
    if (!this.#wanted) return;
    if (this.settings().tokens.length) await this.#restart();
    else await this.stop('Stopped: the last token was revoked.');
  }

  /** Starts exposing (the machine and a token must be set). */
  async start() {
    if (this.#live) return; // exposed already
    const s = this.settings();
    if (!s.machine) throw new McpServeError('no_machine', 'Choose the machine whose wsh server serves MCP first (add one above).');
    if (!s.tokens.length) throw new McpServeError('no_token', 'Create a token first: outside MCP clients sign in with it.');
    this.#wanted = true;
    this.#stopped = new AbortController();
    await this.#expose();
  }

  async #restart() {
    const live = this.#live;
    this.#live = null;
    await live?.stop();
    await this.#expose();
  }

  async #expose() {
    const s = this.settings();
    const remote = await this.deps.remote();
    const machine = remote.get(/** @type {string} */ (s.machine));
    const url = mcpUrlOf(machine.url);
    this.#set('starting', `Connecting to “${machine.name}”…`, url);
    try {
      const client = await remote.client(machine.name);
      const live = await client.expose({
        name: this.deps.name(),
        tokens: s.tokens.map((t) => t.sha256),
        onCall: (method, params, signal) => this.#call(method, params, signal),
      });
      this.#live = live;
      this.#set('on', `Exposed through “${machine.name}”: outside MCP clients reach the chosen tools at ${url} with a token.`, url);
      void live.ended.then(({ stopped, error }) => {
        if (this.#live !== live || stopped) return;
        this.#live = null;
        const why = /** @type {Error} */ (error)?.message ?? 'the connection dropped';
        this.#set('starting', `The connection to “${machine.name}” dropped (${why}): exposing again when it is back…`);
        if (this.#wanted)
          this.#expose().catch((err) => {
            this.#wanted = false;
            this.#set('error', `Not exposed: ${/** @type {Error} */ (err).message}`);
          });
      });
    } catch (err) {
      this.#wanted = false;
      this.#set('error', `Not exposed: ${/** @type {Error} */ (err).message}`);
      throw err;
    }
  }

  /** Stops exposing: the server answers this workspace's tokens with a clear error from now on. @param {string} [message] */
  async stop(message = 'Not exposed: stopped.') {
    this.#wanted = false;
    this.#stopped.abort();
    const live = this.#live;
    this.#live = null;
    await live?.stop();
    this.#set('off', message);
  }

  /**
   * One forwarded MCP request.
   * @param {'tools/list' | 'tools/call'} method @param {Record<string, unknown>} params @param {AbortSignal} signal
   * @returns {Promise<object>}
   */
  async #call(method, params, signal) {
    const exposed = this.settings().tools;
    const { registry } = this.deps;
    if (method === 'tools/list') {
      const tools = exposed.flatMap((name) => {
        const t = registry.get(name);
        if (!t || registry.policyOf(t.name) === 'denied') return [];
        return [{ name: t.name, description: t.description, inputSchema: t.jsonSchema ?? toJsonSchema(t.schema) }];
      });
      return { tools };
    }
    const parsed = CallSchema.safeParse(params);
    if (!parsed.success) throw new McpServeError('bad_params', 'tools/call needs a tool "name" and an "arguments" object.');
    const { name } = parsed.data;
    if (!exposed.includes(name) || !registry.get(name))
      throw new McpServeError('unknown_tool', `Unknown tool: “${name}” is not among the tools this workspace exposes.`);
    const stopped = this.#stopped.signal;
    const both = AbortSignal.any([signal, stopped]);
    // The same path as the agent's calls: a turn's runner of this workspace, as a named agent bounded to the exposed tools.
    const runner = await this.deps.runner({
      profile: { name: MCP_AGENT, tools: exposed },
      approve: (request) => this.deps.approve({ ...request, signal: both }),
    });
    // What an outside client sends is untrusted: standing-state tools ask the user whatever their policy.
    runner.addTaint({ tool: 'mcp-client', what: 'arguments sent by an outside MCP client' });
    const outcome = await runner.run(
      { id: `mcp_${Date.now().toString(36)}_${this.#nextCall++}`, name, arguments: parsed.data.arguments ?? {} },
      {
        signal: both,
      },
    );
    // The call's own time (its checks and the tool's run, not the wait for approval): what the overhead is measured above.
    return { content: [{ type: 'text', text: outcome.output }], isError: !outcome.ok, _meta: { [TOOL_MS_META]: outcome.durationMs } };
  }
}
