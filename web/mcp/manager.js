/** @import { ConfigStore } from '../storage/types.d.ts' */
/** @import { SecretBox } from '../storage/secrets.js' */
/** @import { BrowserToolRegistry } from '../tools/registry.js' */
/** @import { McpTool } from './client.js' */
import { z } from 'zod';
import { McpClient, McpError } from './client.js';
import { mcpToolDefinition, slug } from './tools.js';
import { oauthKey } from './oauth.js';

/** A server of a workspace, as saved (its token or header value is sealed apart). */
export const McpServerSchema = z.object({
  id: z.string().regex(/^[a-z0-9]{4,24}$/),
  name: z.string().trim().min(1).max(40),
  url: z.string().url().max(2000).refine((u) => /^https?:\/\//i.test(u), { message: 'The address must start with http:// or https://.' }),
  auth: z.enum(['none', 'bearer', 'header', 'oauth']).default('none'),
  /** For `header`: the header's name (e.g. X-API-Key). */
  headerName: z.string().regex(/^[A-Za-z0-9-]{1,100}$/, { message: 'A header name is letters, digits and hyphens.' }).optional(),
  /** Connected when the workspace opens (it was connected when the page closed). */
  autoConnect: z.boolean().default(false),
});
/** @typedef {z.infer<typeof McpServerSchema>} McpServerConfig */
/** A server as the workspace's configuration document holds it: what the user chose (no id, no secret, no session state). */
export const McpServerSettingSchema = McpServerSchema.pick({ name: true, url: true, auth: true, headerName: true });
/** @typedef {z.infer<typeof McpServerSettingSchema>} McpServerSetting */

const newServerId = () => Math.random().toString(36).slice(2, 12).padEnd(8, '0');

/**
 * @typedef {object} McpServerState
 * @property {'disconnected' | 'connecting' | 'connected' | 'error'} status
 * @property {string | null} error the last error, for people
 * @property {{name: string, version?: string, title?: string} | null} serverInfo
 * @property {string | null} protocolVersion
 * @property {string | null} instructions
 * @property {{tool: McpTool, name: string}[]} tools each with its Clawser name
 * @property {{uri: string, name: string, title?: string, description?: string, mimeType?: string}[]} resources
 * @property {{name: string, title?: string, description?: string, arguments?: {name: string, description?: string, required?: boolean}[]}[]} prompts
 * @property {{at: number, level: string, text: string}[]} logs the server's log messages (newest last, at most 200)
 * @property {boolean} needsSignIn the server asked to sign in (OAuth) or refused its token
 * @property {string | null} authenticate its WWW-Authenticate header then (where OAuth discovery starts)
 */

/** @returns {McpServerState} */
const fresh = () => ({ status: 'disconnected', error: null, serverInfo: null, protocolVersion: null, instructions: null, tools: [], resources: [], prompts: [], logs: [], needsSignIn: false, authenticate: null });

/**
 * A workspace's MCP servers: saved (the settings store, secrets sealed), connected on demand or when
 * the workspace opens, their tools registered in the workspace's tool registry (so every call
 * goes through the ToolRunner's gates) and taken out on disconnect.
 */
export class McpManager {
  /** @type {Map<string, {client: McpClient | null, state: McpServerState, unregister: (() => void)[]}>} */
  #live = new Map();
  /** @type {Set<() => void>} */
  #listeners = new Set();

  /**
   * @param {{config: ConfigStore, secrets: SecretBox, registry: BrowserToolRegistry, workspaceId: string, fetch?: typeof fetch,
   *   authHeaders?: (server: McpServerConfig) => Promise<Record<string, string>>}} deps
   *   authHeaders: OAuth's access token for a server (see oauth.js)
   */
  constructor(deps) {
    this.deps = deps;
  }

  get #key() {
    return `clawser_mcp_servers_${this.deps.workspaceId}`;
  }

  /** @param {string} id */
  #secretKey(id) {
    return `clawser_mcp_secret_${this.deps.workspaceId}_${id}`;
  }

  /** The saved servers (invalid entries left out). @returns {McpServerConfig[]} */
  servers() {
    const raw = this.deps.config.get(this.#key, []);
    if (!Array.isArray(raw)) return [];
    return raw.flatMap((s) => {
      const r = McpServerSchema.safeParse(s);
      return r.success ? [r.data] : [];
    });
  }

  /** @param {McpServerConfig[]} list */
  #save(list) {
    this.deps.config.set(this.#key, list);
  }

  /** Calls back when a server or its state changed. @param {() => void} fn */
  subscribe(fn) {
    this.#listeners.add(fn);
    return () => { this.#listeners.delete(fn); };
  }

  #changed() {
    for (const fn of this.#listeners) fn();
  }

  /** @param {string} id @returns {McpServerState} */
  state(id) {
    return this.#live.get(id)?.state ?? fresh();
  }

  /**
   * Adds a server (validated; its name unique in the workspace); the secret is sealed.
   * @param {{name: string, url: string, auth?: McpServerConfig['auth'], headerName?: string, secret?: string}} input
   */
  async add(input) {
    const list = this.servers();
    const server = McpServerSchema.parse({ id: newServerId(), name: input.name, url: input.url.trim(), auth: input.auth ?? 'none', headerName: input.auth === 'header' ? input.headerName : undefined });
    // Tool names are made of the server's name: two names that read the same there would clash.
    const clash = list.find((s) => slug(s.name) === slug(server.name));
    if (clash) throw new McpError('protocol', `A server named “${clash.name}” is already set up in this workspace (its tools would have the same names); choose another name.`);
    if ((server.auth === 'bearer' || server.auth === 'header') && !input.secret) throw new McpError('auth', server.auth === 'bearer' ? 'Enter the bearer token.' : `Enter the value of the ${server.headerName ?? ''} header.`);
    if (server.auth === 'header' && !server.headerName) throw new McpError('auth', 'Enter the header\'s name.');
    if (input.secret) this.deps.config.set(this.#secretKey(server.id), await this.deps.secrets.encrypt(input.secret));
    this.#save([...list, server]);
    this.#changed();
    return server;
  }

  /**
   * Seals a new token or header value for a server (one imported with the configuration comes
   * without it); the next connection uses it.
   * @param {string} id @param {string} secret
   */
  async setSecret(id, secret) {
    const server = this.servers().find((s) => s.id === id);
    if (!server) throw new McpError('protocol', 'This server is not set up in this workspace.');
    if (server.auth !== 'bearer' && server.auth !== 'header') throw new McpError('auth', `“${server.name}” signs in ${server.auth === 'oauth' ? 'with OAuth (Sign in)' : 'with nothing'}: it takes no token.`);
    if (!secret) throw new McpError('auth', server.auth === 'bearer' ? 'Enter the bearer token.' : `Enter the value of the ${server.headerName ?? ''} header.`);
    this.deps.config.set(this.#secretKey(id), await this.deps.secrets.encrypt(secret));
    this.#changed();
  }

  /** Whether a bearer or header server has its token or header value saved. @param {string} id */
  hasSecret(id) {
    return this.deps.config.get(this.#secretKey(id), null) !== null;
  }

  /**
   * Makes the saved servers `settings` (the Config panel's save). A server with the same name,
   * address and kind of sign-in keeps its id, sealed secret and connection; one whose address or
   * sign-in changed starts afresh (its secret never goes to another address), without a secret;
   * the others are disconnected and forgotten. The list is written first, in one write: if that
   * fails, nothing changed.
   * @param {McpServerSetting[]} settings
   */
  async replaceServers(settings) {
    const old = this.servers();
    const next = settings.map((s) => old.find((o) => o.name === s.name && o.url === s.url && o.auth === s.auth && o.headerName === s.headerName)
      ?? McpServerSchema.parse({ ...s, id: newServerId() }));
    this.#save(next);
    for (const o of old) {
      if (next.includes(o)) continue;
      // A server that cannot be told goodbye is forgotten all the same (its token first of all).
      await this.disconnect(o.id).catch(() => {});
      await this.remove(o.id);
    }
    this.#changed();
  }

  /** The servers as the configuration document holds them. @returns {McpServerSetting[]} */
  settings() {
    return this.servers().map((s) => McpServerSettingSchema.parse(s));
  }

  /** Disconnects and forgets a server, its secret and its tools. @param {string} id */
  async remove(id) {
    await this.disconnect(id);
    for (const off of this.#live.get(id)?.unregister ?? []) off();
    this.#save(this.servers().filter((s) => s.id !== id));
    this.deps.config.remove(this.#secretKey(id));
    this.deps.config.remove(oauthKey(this.deps.workspaceId, id));
    this.#live.delete(id);
    this.#changed();
  }

  /** The headers a server's requests carry (its sealed secret opened). @param {McpServerConfig} server */
  async #headers(server) {
    if (server.auth !== 'bearer' && server.auth !== 'header') return {};
    const sealed = this.deps.config.get(this.#secretKey(server.id), null);
    const secret = typeof sealed === 'string' ? await this.deps.secrets.decrypt(sealed).catch(() => '') : '';
    if (!secret) return {};
    return server.auth === 'bearer' ? { authorization: `Bearer ${secret}` } : { [/** @type {string} */ (server.headerName)]: secret };
  }

  /** The secret values of every server — tokens, header values, OAuth tokens (redacted from logs and model-visible output). */
  async secretValues() {
    /** @type {string[]} */
    const out = [];
    for (const s of this.servers()) {
      for (const key of [this.#secretKey(s.id), oauthKey(this.deps.workspaceId, s.id)]) {
        const sealed = this.deps.config.get(key, null);
        if (typeof sealed !== 'string') continue;
        const v = await this.deps.secrets.decrypt(sealed).catch(() => '');
        if (!v) continue;
        if (key === this.#secretKey(s.id)) out.push(v);
        else {
          try {
            const t = JSON.parse(v);
            for (const x of [t.accessToken, t.refreshToken]) if (typeof x === 'string' && x) out.push(x);
          } catch {
            // unreadable: nothing to redact
          }
        }
      }
    }
    return out;
  }

  /** @param {string} id @param {Partial<McpServerState>} change */
  #set(id, change) {
    const live = this.#live.get(id) ?? { client: null, state: fresh(), unregister: [] };
    live.state = { ...live.state, ...change };
    this.#live.set(id, live);
    this.#changed();
    return live;
  }

  /**
   * Connects a server: the handshake, then its tools (registered), resources and prompts.
   * @param {string} id
   */
  async connect(id) {
    const server = this.servers().find((s) => s.id === id);
    if (!server) throw new McpError('protocol', 'This server is not set up in this workspace.');
    await this.disconnect(id, { keepAuto: true });
    this.#set(id, { ...fresh(), status: 'connecting' });
    const fixed = await this.#headers(server);
    const client = new McpClient({
      url: server.url,
      headers: fixed,
      authHeaders: server.auth === 'oauth' && this.deps.authHeaders ? () => /** @type {NonNullable<typeof this.deps.authHeaders>} */ (this.deps.authHeaders)(server) : undefined,
      fetch: this.deps.fetch,
      onLog: (level, data, logger) => this.#log(id, level, `${logger ? `${logger}: ` : ''}${typeof data === 'string' ? data : JSON.stringify(data)}`),
      onToolsChanged: () => { this.#refreshTools(id).catch((err) => this.#fail(id, err)); },
    });
    const live = /** @type {{client: McpClient | null, state: McpServerState, unregister: (() => void)[]}} */ (this.#live.get(id));
    live.client = client;
    try {
      const info = await client.connect();
      this.#set(id, { serverInfo: info.serverInfo, protocolVersion: info.protocolVersion, instructions: info.instructions ?? null });
      await this.#refreshTools(id);
      const caps = info.capabilities;
      const [resources, prompts] = await Promise.all([
        caps.resources ? client.listResources().catch(() => []) : [],
        caps.prompts ? client.listPrompts().catch(() => []) : [],
      ]);
      // Every level: the Servers panel shows the newest 200 messages.
      if (caps.logging) await client.setLogLevel('debug').catch(() => {});
      client.listen();
      this.#set(id, { status: 'connected', error: null, resources, prompts });
      this.#setAuto(id, true);
    } catch (err) {
      await client.close().catch(() => {});
      live.client = null;
      this.#fail(id, err);
      throw err;
    }
  }

  /** @param {string} id @param {unknown} err */
  #fail(id, err) {
    const live = this.#live.get(id);
    for (const off of live?.unregister ?? []) off();
    if (live) live.unregister = [];
    const e = /** @type {McpError} */ (err);
    this.#set(id, { status: 'error', error: e?.message ?? String(err), tools: [], needsSignIn: e?.code === 'auth' && e.status === 401, authenticate: e?.authenticate ?? null });
  }

  /** @param {string} id @param {boolean} on */
  #setAuto(id, on) {
    const list = this.servers();
    if (list.find((s) => s.id === id)?.autoConnect === on) return;
    this.#save(list.map((s) => (s.id === id ? { ...s, autoConnect: on } : s)));
  }

  /** Lists the server's tools again and registers them (after connecting, or when they changed). @param {string} id */
  async #refreshTools(id) {
    const live = this.#live.get(id);
    const server = this.servers().find((s) => s.id === id);
    if (!live?.client || !server) return;
    const client = live.client;
    const tools = await client.listTools();
    // Disconnected or removed while the list came: its tools must not come back.
    if (live.client !== client || this.#live.get(id) !== live || !this.servers().some((s) => s.id === id)) return;
    for (const off of live.unregister) off();
    live.unregister = [];
    /** @type {{tool: McpTool, name: string}[]} */
    const listed = [];
    for (const tool of tools) {
      const def = mcpToolDefinition(server, tool, () => this.#live.get(id)?.client ?? null, {
        // A token refused mid-session: the panel offers to sign in again.
        onError: (err) => { try { this.#authFailure(id, err); } catch { /* the tool reports it */ } },
      });
      if (this.deps.registry.get(def.name)) {
        // Two tools with one Clawser name (another server's, or a built-in): the first keeps it, and the user is told.
        this.#log(id, 'warning', `Tool ${tool.name} was left out: its name ${def.name} is already taken by another tool. Rename one of the servers to use both.`);
        continue;
      }
      live.unregister.push(this.deps.registry.register(def));
      listed.push({ tool, name: def.name });
    }
    this.#set(id, { tools: listed });
  }

  /** @param {string} id @param {string} level @param {string} text */
  #log(id, level, text) {
    const logs = [...this.state(id).logs, { at: Date.now(), level, text: text.slice(0, 2000) }].slice(-200);
    this.#set(id, { logs });
  }

  /**
   * Disconnects (the session ends with DELETE) and takes its tools out.
   * @param {string} id @param {{keepAuto?: boolean}} [options] keepAuto: not the user's choice (a reconnect)
   */
  async disconnect(id, options = {}) {
    const live = this.#live.get(id);
    if (!options.keepAuto) this.#setAuto(id, false);
    if (!live) return;
    for (const off of live.unregister) off();
    live.unregister = [];
    const client = live.client;
    live.client = null;
    this.#set(id, { status: 'disconnected', tools: [] });
    await client?.close();
  }

  /** Connects, in the background, the servers that were connected when the page closed. */
  connectSaved() {
    for (const s of this.servers()) if (s.autoConnect && this.state(s.id).status === 'disconnected') this.connect(s.id).catch(() => {});
  }

  /**
   * A resource of a connected server, as text for a message (binary contents named, not shown).
   * @param {string} id @param {string} uri
   */
  async readResource(id, uri) {
    const client = this.client(id);
    const server = this.servers().find((s) => s.id === id);
    if (!client || !server) throw new McpError('protocol', 'Connect the server first.');
    const r = await client.readResource(uri).catch((err) => this.#authFailure(id, err));
    const text = r.contents.map((c) => (typeof c.text === 'string' ? c.text : `[binary ${c.mimeType ?? 'data'}: ${c.uri}]`)).join('\n\n');
    return { server: server.name, uri, text };
  }

  /**
   * The composer command that runs a server's prompt, "/mcp__{server}__{prompt}" (what findPrompt reads back).
   * @param {string} serverName @param {string} promptName
   */
  promptCommand(serverName, promptName) {
    return `/mcp__${slug(serverName)}__${slug(promptName)}`;
  }

  /**
   * The prompt "/mcp__{server}__{prompt}" names, among connected servers (names compared as slugs).
   * @param {string} serverSlug @param {string} promptSlug
   */
  findPrompt(serverSlug, promptSlug) {
    for (const s of this.servers()) {
      if (slug(s.name) !== serverSlug) continue;
      const st = this.state(s.id);
      const prompt = st.status === 'connected' ? st.prompts.find((p) => slug(p.name) === promptSlug) : undefined;
      if (prompt) return { server: s, prompt };
    }
    return null;
  }

  /**
   * A prompt's messages as the text of a user message.
   * @param {string} id @param {string} name @param {Record<string, string>} args
   */
  async promptText(id, name, args) {
    const client = this.client(id);
    if (!client) throw new McpError('protocol', 'Connect the server first.');
    const r = await client.getPrompt(name, args).catch((err) => this.#authFailure(id, err));
    return r.messages.map((m) => {
      const c = m.content;
      const body = c.type === 'text' ? c.text : c.type === 'resource' ? (c.resource.text ?? `[resource ${c.resource.uri}]`) : `[${c.type}]`;
      return r.messages.length > 1 ? `${m.role}: ${body}` : body;
    }).join('\n\n');
  }

  /**
   * A call refused with the server's 401 mid-session: the panel offers to sign in again. Rethrows.
   * @param {string} id @param {unknown} err @returns {never}
   */
  #authFailure(id, err) {
    const e = /** @type {McpError} */ (err);
    if (e?.code === 'auth') this.#set(id, { needsSignIn: e.status === 401, authenticate: e.authenticate, error: e.message });
    throw err;
  }

  /** A server's connection (for resources and prompts). @param {string} id */
  client(id) {
    return this.#live.get(id)?.client ?? null;
  }

  /** Disconnects every server (the workspace goes). */
  async closeAll() {
    for (const id of [...this.#live.keys()]) await this.disconnect(id, { keepAuto: true }).catch(() => {});
  }
}
