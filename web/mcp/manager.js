// Why this file is long: the MCP servers of a workspace: their validated configuration,
//  connections, sign-in, tool lists, per-tool policy and the registry's bindings change together
//  whenever a server connects, reconnects or is removed.
/** @import { ConfigStore } from '../storage/types.d.ts' */
/** @import { SecretBox } from '../storage/secrets.js' */
/** @import { BrowserToolRegistry } from '../tools/registry.js' */
/** @import { McpTool } from './client.js' */
import { z } from 'zod';
import { McpClient, McpError } from './client.js';
import { mcpToolDefinition, mcpToolKey, parseMcpToolKey, isKeyOfServer, legacyMcpToolName, serverSlug, slug } from './tools.js';
import { oauthKey } from './oauth.js';
import { bindNames, resolveNames } from './tool-lists.js';
import { RelaySchema, RelayError } from '../net/relay.js';

const POLICY = z.enum(['auto', 'approve', 'denied']);

/**
 * A choice an older version stored under a flat tool name (`mcp_{server}_{tool}`, which two
 * servers' tools could share), waiting for this server to list the tool it can belong to. `sole`:
 * this server alone can have made the name, so the choice moves to the tool when exactly one of
 * its tools has that name; otherwise only an Off or Ask each time is kept, for each such tool.
 */
const LegacyChoiceSchema = z.object({
  name: z.string().min(1).max(200),
  policy: POLICY.optional(),
  rules: z
    .array(
      z.object({
        kind: z.enum(['command', 'domain', 'path', 'device']),
        pattern: z.string().min(1).max(500),
        createdAt: z.number().optional(),
      }),
    )
    .max(500)
    .default([]),
  sole: z.boolean(),
});

/** A server of a workspace, as saved (its token or header value is sealed apart). */
export const McpServerSchema = z.object({
  id: z.string().regex(/^[a-z0-9]{4,24}$/),
  name: z.string().trim().min(1).max(40),
  url: z
    .string()
    .url()
    .max(2000)
    .refine((u) => /^https?:\/\//i.test(u), { message: 'The address must start with http:// or https://.' }),
  auth: z.enum(['none', 'bearer', 'header', 'oauth']).default('none'),
  /** For `header`: the header's name (e.g. X-API-Key). */
  headerName: z
    .string()
    .regex(/^[A-Za-z0-9-]{1,100}$/, { message: 'A header name is letters, digits and hyphens.' })
    .optional(),
  /** "Through my relay": the user's machine whose wsh relay its requests go through; absent: direct. */
  relay: RelaySchema.optional(),
  /** Connected when the workspace opens (it was connected when the page closed). */
  autoConnect: z.boolean().default(false),
  /** Choices an older version stored under flat tool names that this server's tools can have had (see LegacyChoiceSchema). */
  legacyChoices: z.array(LegacyChoiceSchema).max(500).optional(),
  /**
   * Set up by a version that binds lists of tools (agents', skills', jobs') to their server when
   * they are saved: a name in a list that was not bound to it never reaches it (see tool-lists.js).
   * Absent: saved before, so lists written then can name it.
   */
  listsBound: z.literal(true).optional(),
});
/** @typedef {z.infer<typeof McpServerSchema>} McpServerConfig */
/** A server as the workspace's configuration document holds it: what the user chose (no id, no secret, no session state). */
export const McpServerSettingSchema = McpServerSchema.pick({ name: true, url: true, auth: true, headerName: true, relay: true });
/** @typedef {z.infer<typeof McpServerSettingSchema>} McpServerSetting */

/**
 * A server reached through `relay`'s machine, or direct when it is absent.
 * @param {McpServerConfig} server @param {string | undefined} relay @returns {McpServerConfig}
 */
function withRelay(server, relay) {
  const copy = { ...server };
  delete copy.relay;
  return relay ? { ...copy, relay } : copy;
}

/** A server id no saved server has. @param {{id: string}[]} taken */
function newServerId(taken) {
  for (;;) {
    const bytes = crypto.getRandomValues(new Uint8Array(8));
    const id = [...bytes]
      .map((b) => (b % 36).toString(36))
      .join('')
      .padEnd(8, '0');
    if (!taken.some((s) => s.id === id)) return id;
  }
}

/** An older version's flat MCP tool name (`mcp_x…`; today's names start with `mcp__`, keys with `mcp:`). @param {string} key */
const isLegacyKey = (key) => /^mcp_[a-z0-9]/.test(key);

/** Bindings of lists of tools: by owner ("agent:workspace:triage"), each MCP name to a tool's identity or a server's key prefix. */
const ToolListsSchema = z.record(z.string().max(200), z.record(z.string().max(200), z.string().max(600)));

/**
 * The Config document's part of a server that makes it the same server: how two lists of
 * servers are compared (the way it is reached, direct or through a relay, is not part of it).
 * @param {McpServerSetting} a
 * @param {McpServerSetting} b
 */
const sameSetting = (a, b) => a.name === b.name && a.url === b.url && a.auth === b.auth && a.headerName === b.headerName;

/**
 * @typedef {object} McpServerState
 * @property {'disconnected' | 'connecting' | 'connected' | 'error'} status
 * @property {string | null} error the last error, for people
 * @property {{name: string, version?: string, title?: string} | null} serverInfo
 * @property {string | null} protocolVersion
 * @property {string | null} instructions
 * @property {{tool: McpTool, name: string}[]} tools each with its Clawser name
 * @property {{uri: string, name: string, title?: string, description?: string, mimeType?: string}[]} resources
 * @property {{name: string, title?: string, description?: string, arguments?: {name: string, description?: string,
 *   required?: boolean}[]}[]} prompts
 * @property {{at: number, level: string, text: string}[]} logs the server's log messages (newest last, at most 200)
 * @property {boolean} needsSignIn the server asked to sign in (OAuth) or refused its token
 * @property {string | null} authenticate its WWW-Authenticate header then (where OAuth discovery starts)
 */

/** @returns {McpServerState} */
const fresh = () => ({
  status: 'disconnected',
  error: null,
  serverInfo: null,
  protocolVersion: null,
  instructions: null,
  tools: [],
  resources: [],
  prompts: [],
  logs: [],
  needsSignIn: false,
  authenticate: null,
});

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
   *   relayFetch?: (machine: string) => typeof fetch, authHeaders?: (server: McpServerConfig) => Promise<Record<string, string>>}} deps
   *   authHeaders: OAuth's access token for a server (see oauth.js); relayFetch: the fetch through a machine's wsh relay (a
   *   server marked "through my relay")
   */
  constructor(deps) {
    this.deps = deps;
    this.#settleStoredChoices();
  }

  /**
   * Brings the stored tool choices in line with the saved servers: a choice keyed by a server
   * that is no longer saved as it is (removed, or at another address) or by a bare tool name is
   * forgotten; one an older version stored under a flat name is handed to the servers that can
   * have made that name (see LegacyChoiceSchema), never to a server added later.
   */
  #settleStoredChoices() {
    const { registry } = this.deps;
    const servers = this.servers();
    const orphan = (/** @type {string} */ key) =>
      key.startsWith('mcp__') || (!!parseMcpToolKey(key) && !servers.some((s) => isKeyOfServer(key, s)));
    const policies = registry.overrides();
    const rules = registry.rules();
    const legacy = [...new Set([...Object.keys(policies), ...rules.map((r) => r.tool)])].filter(isLegacyKey);
    if (legacy.length) {
      /** @type {Map<string, z.infer<typeof LegacyChoiceSchema>[]>} */
      const handed = new Map();
      for (const name of legacy) {
        const candidates = servers.filter((s) => name.startsWith(`mcp_${slug(s.name)}_`));
        const sole = candidates.length === 1;
        const policy = policies[name];
        // An "Always allow" or a rule that more than one server can have been given would loosen another server's tool: dropped.
        const entry = {
          name,
          ...(policy && (sole || policy !== 'auto') ? { policy } : {}),
          rules: sole
            ? rules
                .filter((r) => r.tool === name)
                .map(({ kind, pattern, createdAt }) => ({ kind, pattern, ...(createdAt ? { createdAt } : {}) }))
            : [],
          sole,
        };
        if (!entry.policy && !entry.rules.length) continue;
        for (const c of candidates) handed.set(c.id, [...(handed.get(c.id) ?? []), entry]);
      }
      // The servers first: if the rest fails, the flat names are read again next time (kept once per name).
      if (handed.size) {
        this.#save(
          servers.map((s) => {
            const add = handed.get(s.id);
            if (!add) return s;
            const have = s.legacyChoices ?? [];
            return { ...s, legacyChoices: [...have, ...add.filter((e) => !have.some((h) => h.name === e.name))] };
          }),
        );
      }
    }
    registry.forgetChoices((key) => isLegacyKey(key) || orphan(key));
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
    return () => {
      this.#listeners.delete(fn);
    };
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
   * @param {{name: string, url: string, auth?: McpServerConfig['auth'], headerName?: string, secret?: string, relay?: string}} input
   *   relay: the machine whose wsh relay its requests go through (absent: direct)
   */
  async add(input) {
    const list = this.servers();
    const server = McpServerSchema.parse({
      id: newServerId(list),
      name: input.name,
      url: input.url.trim(),
      ...(input.relay ? { relay: input.relay } : {}),
      auth: input.auth ?? 'none',
      headerName: input.auth === 'header' ? input.headerName : undefined,
      listsBound: true,
    });
    // Tool names are made of the server's name: two names that read the same there would clash.
    const clash = list.find((s) => serverSlug(s.name) === serverSlug(server.name));
    if (clash)
      throw new McpError(
        'protocol',
        `“${server.name}” reads the same as “${clash.name}”, a server already set up in this workspace, in tool names ` +
          `(mcp__${serverSlug(server.name)}__…): its tools would have the same names. Choose another name.`,
      );
    if ((server.auth === 'bearer' || server.auth === 'header') && !input.secret)
      throw new McpError(
        'auth',
        server.auth === 'bearer' ? 'Enter the bearer token.' : `Enter the value of the ${server.headerName ?? ''} header.`,
      );
    if (server.auth === 'header' && !server.headerName) throw new McpError('auth', "Enter the header's name.");
    // A new server starts with no choices, whatever an earlier one with this id left (lists bound to it included).
    this.deps.registry.forgetChoices((key) => parseMcpToolKey(key)?.id === server.id);
    this.#forgetBindings((key) => parseMcpToolKey(key)?.id === server.id);
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
    if (server.auth !== 'bearer' && server.auth !== 'header')
      throw new McpError(
        'auth',
        `“${server.name}” signs in ${server.auth === 'oauth' ? 'with OAuth (Sign in)' : 'with nothing'}: it takes no token.`,
      );
    if (!secret)
      throw new McpError(
        'auth',
        server.auth === 'bearer' ? 'Enter the bearer token.' : `Enter the value of the ${server.headerName ?? ''} header.`,
      );
    this.deps.config.set(this.#secretKey(id), await this.deps.secrets.encrypt(secret));
    this.#changed();
  }

  /** Whether a bearer or header server has its token or header value saved. @param {string} id */
  hasSecret(id) {
    return this.deps.config.get(this.#secretKey(id), null) !== null;
  }

  /**
   * The saved servers `settings` would make (see replaceServers), without saving anything: the
   * Config panel stores each server's tool choices under the ids it will have.
   * @param {McpServerSetting[]} settings @returns {McpServerConfig[]}
   */
  planServers(settings) {
    const old = this.servers();
    /** @type {McpServerConfig[]} */
    const next = [];
    for (const s of settings) {
      const found = old.find((o) => sameSetting(o, s) && !next.some((n) => n.id === o.id));
      // Reached as the document says (direct or through a relay): the same server all the same.
      const same = found && withRelay(found, s.relay);
      // The document is the whole of the user's choices: an "Always allow" of an older version
      // still waiting for its tool goes; an Off stays.
      if (same)
        next.push(
          same.legacyChoices
            ? {
                ...same,
                legacyChoices: same.legacyChoices.filter((c) => c.policy && c.policy !== 'auto').map((c) => ({ ...c, rules: [] })),
              }
            : same,
        );
      else next.push(McpServerSchema.parse({ ...McpServerSettingSchema.parse(s), id: newServerId([...old, ...next]), listsBound: true }));
    }
    return next;
  }

  /**
   * Makes the saved servers `settings` (the Config panel's save), or the list planServers made of
   * them. A server with the same name, address and kind of sign-in keeps its id, sealed secret,
   * connection and tool choices; one whose address or sign-in changed starts afresh (its secret
   * never goes to another address, nor its "Always allow"), without a secret; the others are
   * disconnected and forgotten with their choices. The list is written first, in one write: if
   * that fails, nothing changed.
   * @param {(McpServerSetting | McpServerConfig)[]} settings
   */
  async replaceServers(settings) {
    const old = this.servers();
    const planned = settings.every((s) => 'id' in s && typeof s.id === 'string');
    const next = planned ? settings.map((s) => McpServerSchema.parse(s)) : this.planServers(settings);
    // A planned server keeps an id only as it was (the same address and sign-in).
    for (const n of next) {
      const o = old.find((x) => x.id === n.id);
      if (o && !sameSetting(o, n))
        throw new McpError('protocol', `The server “${n.name}” changed since its list was planned: plan it again.`);
    }
    this.#save(next);
    for (const o of old) {
      if (next.some((n) => n.id === o.id)) continue;
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

  /** Disconnects and forgets a server, its secret, its tools and the user's choices for them. @param {string} id */
  async remove(id) {
    await this.disconnect(id);
    for (const off of this.#live.get(id)?.unregister ?? []) off();
    // The choices first: a server added later (even with this name and address) finds none.
    this.deps.registry.forgetChoices((key) => parseMcpToolKey(key)?.id === id);
    this.#save(this.servers().filter((s) => s.id !== id));
    this.deps.config.remove(this.#secretKey(id));
    this.deps.config.remove(oauthKey(this.deps.workspaceId, id));
    this.#live.delete(id);
    this.#changed();
  }

  /**
   * How a server's requests go: through its machine's relay when it is marked so, else the page's fetch.
   * @param {McpServerConfig} server @returns {typeof fetch | undefined}
   */
  #fetchFor(server) {
    if (!server.relay) return this.deps.fetch;
    if (this.deps.relayFetch) return this.deps.relayFetch(server.relay);
    const machine = server.relay;
    return async () => {
      throw new RelayError(`“${server.name}” goes through the relay on “${machine}”, which this page cannot reach.`);
    };
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
      authHeaders:
        server.auth === 'oauth' && this.deps.authHeaders
          ? () => /** @type {NonNullable<typeof this.deps.authHeaders>} */ (this.deps.authHeaders)(server)
          : undefined,
      fetch: this.#fetchFor(server),
      onLog: (level, data, logger) =>
        this.#log(id, level, `${logger ? `${logger}: ` : ''}${typeof data === 'string' ? data : JSON.stringify(data)}`),
      onToolsChanged: () => {
        this.#refreshTools(id).catch((err) => this.#fail(id, err));
      },
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
    this.#set(id, {
      status: 'error',
      error: e?.message ?? String(err),
      tools: [],
      needsSignIn: e?.code === 'auth' && e.status === 401,
      authenticate: e?.authenticate ?? null,
    });
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
    // A name this long is no tool's (the protocol says 128 at most); its identity would not fit where choices are kept.
    const usable = tools.filter((t) => {
      // What the server sent is checked here: a tool without a name is no tool.
      if (typeof t?.name !== 'string' || !t.name) {
        this.#log(id, 'warning', 'A tool without a name was left out.');
        return false;
      }
      if (t.name.length <= 256) return true;
      this.#log(
        id,
        'warning',
        `A tool whose name is ${t.name.length} characters long (“${t.name.slice(0, 60)}…”) was left out: names longer than 256 ` +
          `characters are not taken.`,
      );
      return false;
    });
    const siblings = usable.map((t) => t.name);
    for (const tool of usable) {
      const def = mcpToolDefinition(server, tool, () => this.#live.get(id)?.client ?? null, {
        siblings,
        // A token refused mid-session: the panel offers to sign in again.
        onError: (err) => {
          try {
            this.#authFailure(id, err);
          } catch {
            /* the tool reports it */
          }
        },
      });
      const holder = this.deps.registry.get(def.name);
      if (holder) {
        // The name is taken (the server listed one tool twice, or another tool holds it): the first
        // keeps it and the user is told; no choice passes between them.
        this.#log(
          id,
          'warning',
          `Tool ${tool.name} was left out: its name ${def.name} is already taken by ${this.#describeHolder(holder)}.`,
        );
        continue;
      }
      live.unregister.push(this.deps.registry.register(def));
      listed.push({ tool, name: def.name });
    }
    this.#set(id, { tools: listed });
    this.#settleLegacyChoices(server, usable);
  }

  /** Who holds a tool name, in words. @param {import('../tools/types.d.ts').ToolDefinition} holder */
  #describeHolder(holder) {
    for (const [sid, live] of this.#live) {
      const t = live.state.tools.find((x) => x.name === holder.name);
      if (t) return `${t.tool.name} of the server “${this.servers().find((s) => s.id === sid)?.name ?? sid}”`;
    }
    return 'another tool';
  }

  /**
   * Gives a server's tools the choices an older version stored under the flat name they had then
   * (see LegacyChoiceSchema); an entry no tool of the list matches waits for a later list.
   * @param {McpServerConfig} server @param {McpTool[]} tools
   */
  #settleLegacyChoices(server, tools) {
    const pending = server.legacyChoices ?? [];
    if (!pending.length) return;
    const { registry } = this.deps;
    const left = pending.filter((entry) => {
      const matches = tools.filter((t) => legacyMcpToolName(server.name, t.name) === entry.name);
      if (!matches.length) return true;
      const exact = entry.sole && matches.length === 1;
      for (const t of matches) {
        const key = mcpToolKey(server, t.name);
        // A choice made since for the tool itself stands.
        if (entry.policy && (exact || entry.policy !== 'auto') && registry.userPolicyOf(key) === null)
          registry.setPolicy(key, entry.policy);
        if (exact) for (const r of entry.rules) registry.addRule({ tool: key, ...r });
      }
      return false;
    });
    if (left.length !== pending.length)
      this.#save(this.servers().map((s) => (s.id === server.id ? { ...s, legacyChoices: left.length ? left : undefined } : s)));
  }

  /**
   * A stored choice's tool in words (the Tools panel's rules): the Clawser name of a connected
   * server's tool, else the tool and its server; null for a key that is no MCP tool's.
   * @param {string} key
   */
  describeKey(key) {
    const k = parseMcpToolKey(key);
    if (!k) return null;
    const server = this.servers().find((s) => isKeyOfServer(key, s));
    if (!server) return `${k.tool} (an MCP server no longer set up)`;
    const st = this.state(server.id);
    const live = st.tools.find((t) => t.tool.name === k.tool);
    return live
      ? live.name
      : `${k.tool} (MCP server ` +
          `“${server.name}”, ${server.url}, ${st.status === 'connected' ? 'which does not list it now' : 'not connected'})`;
  }

  /**
   * How the Terminal names a stored choice's tool whatever its server's state: "{server}/{tool}"
   * (the server's name, the tool's exact name); null for a key that is no saved server's tool's.
   * @param {string} key
   */
  choiceName(key) {
    const k = parseMcpToolKey(key);
    const server = k ? this.servers().find((s) => isKeyOfServer(key, s)) : undefined;
    return k && server ? `${server.name}/${k.tool}` : null;
  }

  /**
   * The key a "{server}/{tool}" names (see choiceName): that saved server's tool, connected or
   * not; null when no saved server has that name.
   * @param {string} text
   */
  keyOfChoiceName(text) {
    // The longest server name that starts it: a server's name may hold "/".
    const server = this.servers()
      .filter((s) => text.startsWith(`${s.name}/`) && text.length > s.name.length + 1)
      .sort((a, b) => b.name.length - a.name.length)[0];
    return server ? mcpToolKey(server, text.slice(server.name.length + 1)) : null;
  }

  get #listsKey() {
    return `clawser_mcp_tool_lists_${this.deps.workspaceId}`;
  }

  /** @returns {Record<string, Record<string, string>>} */
  #bindings() {
    const parsed = ToolListsSchema.safeParse(this.deps.config.get(this.#listsKey, {}));
    return parsed.success ? parsed.data : {};
  }

  /** @param {Record<string, Record<string, string>>} all */
  #saveBindings(all) {
    if (Object.keys(all).length) this.deps.config.set(this.#listsKey, all);
    else this.deps.config.remove(this.#listsKey);
  }

  /** Forgets every binding `drop` picks (a new server with an id an old one had). @param {(key: string) => boolean} drop */
  #forgetBindings(drop) {
    const all = this.#bindings();
    let changed = false;
    for (const owner of Object.keys(all)) {
      for (const [name, key] of Object.entries(all[owner])) {
        if (!drop(key)) continue;
        delete all[owner][name];
        changed = true;
      }
      if (!Object.keys(all[owner]).length) delete all[owner];
    }
    if (changed) this.#saveBindings(all);
  }

  /** What bindings are checked against now (see tool-lists.js). @returns {import('./tool-lists.js').ToolListEnv} */
  #listEnv() {
    const { registry } = this.deps;
    return {
      tool: (name) => registry.get(name),
      toolOfKey: (key) => registry.toolOfKey(key),
      servers: this.servers(),
      live: (id) => this.state(id).tools,
    };
  }

  /**
   * Binds the MCP names of a list being saved or approved (an agent's tools, a skill's
   * allowed-tools) to the tools they name now, under `owner` (replacing what it had); the
   * names that bind to nothing are returned (the list reaches nothing by them).
   * @param {string} owner @param {string[]} names
   */
  bindToolList(owner, names) {
    const { bound, problems } = bindNames(names, this.#listEnv());
    const all = this.#bindings();
    if (Object.keys(bound).length) all[owner] = bound;
    else delete all[owner];
    this.#saveBindings(all);
    return problems;
  }

  /** Forgets a list's bindings (its agent or skill was deleted). @param {string} owner */
  forgetToolList(owner) {
    const all = this.#bindings();
    if (!(owner in all)) return;
    delete all[owner];
    this.#saveBindings(all);
  }

  /**
   * The tools a saved list reaches now (see resolveNames): `owner` null for no saved list (the
   * caller's tools now, pinned to who they are).
   * @param {string | null} owner @param {string[]} names
   */
  toolListFor(owner, names) {
    return resolveNames(names, owner === null ? null : (this.#bindings()[owner] ?? {}), this.#listEnv());
  }

  /** The bindings of names as they are now, without storing them (a scheduled job keeps its own). @param {string[]} names */
  bindingsOf(names) {
    return bindNames(names, this.#listEnv());
  }

  /** The tools names reach now given bindings kept elsewhere (a job's). @param {string[]} names @param {Record<string, string>} bound */
  resolveToolList(names, bound) {
    return resolveNames(names, bound, this.#listEnv());
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
    return `/mcp__${serverSlug(serverName)}__${slug(promptName)}`;
  }

  /**
   * The prompt "/mcp__{server}__{prompt}" names, among connected servers (names compared as slugs).
   * @param {string} wanted the server's part @param {string} promptSlug
   */
  findPrompt(wanted, promptSlug) {
    for (const s of this.servers()) {
      if (serverSlug(s.name) !== wanted) continue;
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
    return r.messages
      .map((m) => {
        const c = m.content;
        const body =
          c.type === 'text' ? c.text : c.type === 'resource' ? (c.resource.text ?? `[resource ${c.resource.uri}]`) : `[${c.type}]`;
        return r.messages.length > 1 ? `${m.role}: ${body}` : body;
      })
      .join('\n\n');
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
