import { z } from 'zod';
import { AgentSettingsSchema, HOST_RE } from './agent-settings.js';
import { catalogEntry } from '../providers/catalog.js';
import { RelaySchema } from '../net/relay.js';
import { ApprovalRuleSchema, describeRule } from '../tools/approval-rules.js';
import { ToolChoiceError } from '../tools/registry.js';
import { McpServerSettingSchema } from '../mcp/manager.js';
import { serverSlug, mcpToolKey, parseMcpToolKey, isKeyOfServer } from '../mcp/tools.js';

/**
 * A workspace's whole configuration as one JSON document (the Config panel's editor, its export
 * and import): the provider and model, the agent settings (autonomy, limits, safety, tools,
 * memory, scheduler, git), the tools' policies, the narrowed "Always allow" rules, which
 * skills are turned on or off, and the MCP servers (name, address, kind of sign-in). A choice
 * for an MCP server's tool names the server and the tool (`{server, tool}`), never a tool name
 * alone, and is stored under that server's identity. Secrets (API keys, tokens) are never part
 * of it: they stay sealed in their stores, are not exported, and a document carrying one is
 * refused. Validation is all-or-nothing and names the field of every problem.
 */

export const CONFIG_VERSION = 1;
const POLICY = z.enum(['auto', 'approve', 'denied']);

const ProviderSchema = z.object({
  id: z.string().refine((id) => !!catalogEntry(id), { error: 'not a provider this version knows (see the list in Settings)' }),
  model: z.string().max(300).default(''),
  baseUrl: z
    .string()
    .max(2000)
    .refine((u) => u === '' || /^https?:\/\/[^\s]+$/i.test(u), {
      error: "must be an http:// or https:// address, or empty for the provider's own",
    })
    .refine((u) => !hasCredentials(u), { error: 'must not carry a user name, password or key: set keys in Settings' })
    .default(''),
  /** "Through my relay": one of the user's machines (the Remote panel); absent: direct. */
  relay: RelaySchema.optional(),
});

const GIB = 1024 * 1024 * 1024;
/**
 * The agent settings with the limits the Settings dialog enforces (a stored value outside them
 * would make that dialog unsavable); checked here, not in the stored schema, so settings saved
 * by an older version still load.
 */
const AgentConfigSchema = AgentSettingsSchema.superRefine((a, ctx) => {
  if (a.allowedPrivateHosts.length > 50) ctx.addIssue({ code: 'custom', path: ['allowedPrivateHosts'], message: 'at most 50 hosts' });
  a.allowedPrivateHosts.forEach((host, i) => {
    if (!HOST_RE.test(host))
      ctx.addIssue({
        code: 'custom',
        path: ['allowedPrivateHosts', i],
        message: 'write a host or host:port (e.g. 127.0.0.1:11434), without http:// or a path',
      });
  });
  for (const key of /** @type {const} */ (['maxReadBytes', 'maxWriteBytes'])) {
    if (a.tools[key] > GIB) ctx.addIssue({ code: 'custom', path: ['tools', key], message: `at most ${GIB} (1 GiB)` });
  }
  if (a.tools.maxFetchChars > 10_000_000) ctx.addIssue({ code: 'custom', path: ['tools', 'maxFetchChars'], message: 'at most 10000000' });
  /** @type {[(string | number)[], {provider: string, baseUrl: string}][]} */
  const entries = [
    ...a.providers.fallbacks.map(
      (f, i) => /** @type {[(string | number)[], {provider: string, baseUrl: string}]} */ ([['providers', 'fallbacks', i], f]),
    ),
    ...Object.entries(a.providers.routes).flatMap(([hint, r]) =>
      r ? [/** @type {[(string | number)[], {provider: string, baseUrl: string}]} */ ([['providers', 'routes', hint], r])] : [],
    ),
  ];
  for (const [path, f] of entries) {
    if (!catalogEntry(f.provider) || catalogEntry(f.provider)?.capabilities.test) {
      const message = 'not a provider this version knows (see the list in Settings)';
      ctx.addIssue({ code: 'custom', path: [...path, 'provider'], message });
    }
    if (f.baseUrl && !/^https?:\/\/[^\s]+$/i.test(f.baseUrl))
      ctx.addIssue({
        code: 'custom',
        path: [...path, 'baseUrl'],
        message: "must be an http:// or https:// address, or empty for the provider's own",
      });
    if (f.baseUrl && hasCredentials(f.baseUrl))
      ctx.addIssue({
        code: 'custom',
        path: [...path, 'baseUrl'],
        message: 'must not carry a user name, password or key: set keys in Settings',
      });
  }
  for (const [path, value] of /** @type {const} */ ([
    [['tools', 'searchEndpoint'], a.tools.searchEndpoint],
    [['git', 'corsProxy'], a.git.corsProxy],
  ])) {
    if (value && !/^https?:\/\/[^\s]+$/i.test(value))
      ctx.addIssue({ code: 'custom', path: [...path], message: 'must be an http:// or https:// address, or empty' });
    if (value && hasCredentials(value))
      ctx.addIssue({
        code: 'custom',
        path: [...path],
        message: 'must not carry a user name, password or key: secrets are never part of the configuration',
      });
  }
});

/** A URL with a user name, password or key-like query parameter in it. @param {string} url */
function hasCredentials(url) {
  try {
    const u = new URL(url);
    return !!(u.username || u.password || [...u.searchParams.keys()].some((k) => /key|token|secret|password|auth/i.test(k)));
  } catch {
    return false;
  }
}

export const WorkspaceConfigSchema = z.object({
  version: z.literal(CONFIG_VERSION, { error: `must be ${CONFIG_VERSION}` }),
  /** null: no provider chosen yet. */
  provider: ProviderSchema.nullable().default(null),
  agent: AgentConfigSchema,
  /** The user's choice per tool; a tool not listed follows its default. */
  toolPolicies: z.record(z.string(), POLICY).default({}),
  /**
   * "Always allow" narrowed to a command prefix, a domain or a path glob (the approval dialog's); `server`: the tool is that MCP server's.
   */
  approvalRules: z
    .array(ApprovalRuleSchema.extend({ server: z.string().min(1).max(40).optional() }))
    .max(500)
    .default([]),
  /** The user's choice per tool of an MCP server (listed in mcpServers), by the tool's own name. */
  mcpToolPolicies: z
    .array(z.object({ server: z.string().min(1).max(40), tool: z.string().min(1).max(256), policy: POLICY }))
    .max(2000)
    .default([]),
  /** Skills turned off (false) or back on (true) in this workspace; a skill not listed is on. */
  skills: z.record(z.string().min(1).max(64), z.boolean()).default({}),
  /** The MCP servers set up in the Servers panel; their tokens stay sealed apart, never here. */
  mcpServers: z
    .array(McpServerSettingSchema)
    .max(100)
    .default([])
    .superRefine((list, ctx) => {
      list.forEach((server, i) => {
        // The manager's rule: tool names are made of the server's name.
        const first = list.findIndex((o) => serverSlug(o.name) === serverSlug(server.name));
        if (first !== i)
          ctx.addIssue({
            code: 'custom',
            path: [i, 'name'],
            message:
              `“${server.name}” reads the same as “${list[first].name}” (server ${first}) in tool names ` +
              `(mcp__${serverSlug(server.name)}__…): choose another name`,
          });
        if (server.auth === 'header' && !server.headerName)
          ctx.addIssue({ code: 'custom', path: [i, 'headerName'], message: 'the header\'s name is needed with "auth": "header"' });
        if (hasCredentials(server.url))
          ctx.addIssue({
            code: 'custom',
            path: [i, 'url'],
            message: 'must not carry a user name, password or key: set the token in the Servers panel',
          });
      });
    }),
});
/** @typedef {z.infer<typeof WorkspaceConfigSchema>} WorkspaceConfig */
/** @typedef {{path: string, message: string}} ConfigProblem */

/** Field names that hold a secret, wherever they appear. */
const SECRET_FIELD = /^(api[_-]?key|apikey|token|access[_-]?token|secret|password|searchApiKey|gitToken)$/i;

/**
 * The document of the current settings (`toolPolicies`, `approvalRules` and `mcpToolPolicies`
 * as configToolChoices gives them).
 * @param {{provider: {provider: string, model: string, baseUrl: string, relay?: string} | null,
 *   agent: import('./agent-settings.js').AgentSettings,
 *   toolPolicies: Record<string, string>,
 *   approvalRules: ConfigRule[], mcpToolPolicies?: McpToolPolicy[], skills: Record<string, boolean>, mcpServers:
 *   import('../mcp/manager.js').McpServerSetting[]}} parts
 * @returns {WorkspaceConfig}
 */
export function buildConfig(parts) {
  return WorkspaceConfigSchema.parse({
    version: CONFIG_VERSION,
    provider: parts.provider
      ? {
          id: parts.provider.provider,
          model: parts.provider.model,
          baseUrl: parts.provider.baseUrl,
          ...(parts.provider.relay ? { relay: parts.provider.relay } : {}),
        }
      : null,
    agent: parts.agent,
    toolPolicies: parts.toolPolicies,
    approvalRules: parts.approvalRules,
    mcpToolPolicies: parts.mcpToolPolicies ?? [],
    skills: parts.skills,
    mcpServers: parts.mcpServers,
  });
}

/** @typedef {import('../tools/approval-rules.js').ApprovalRule & {server?: string}} ConfigRule a rule as the document holds it */
/** @typedef {{server: string, tool: string, policy: 'auto' | 'approve' | 'denied'}} McpToolPolicy */
/** @typedef {{id: string, name: string, url: string}} ServerIdentity */

/**
 * The stored choices as the document says them: a built-in tool's by its name, an MCP server's
 * tool's by the server's name and the tool's own name. A choice of no saved server is left out.
 * @param {{overrides: Record<string, 'auto' | 'approve' | 'denied'>, rules: import('../tools/approval-rules.js').ApprovalRule[]}} stored
 * @param {ServerIdentity[]} servers
 * @returns {{toolPolicies: Record<string, 'auto' | 'approve' | 'denied'>, mcpToolPolicies: McpToolPolicy[], approvalRules: ConfigRule[]}}
 */
export function configToolChoices(stored, servers) {
  /** @param {string} key */
  const mcp = (key) => {
    const k = parseMcpToolKey(key);
    const server = k && servers.find((s) => isKeyOfServer(key, s));
    return k ? { server: server?.name ?? null, tool: k.tool } : null;
  };
  /** @type {Record<string, 'auto' | 'approve' | 'denied'>} */
  const toolPolicies = {};
  /** @type {McpToolPolicy[]} */
  const mcpToolPolicies = [];
  for (const [key, policy] of Object.entries(stored.overrides)) {
    const m = mcp(key);
    if (!m) toolPolicies[key] = policy;
    else if (m.server) mcpToolPolicies.push({ server: m.server, tool: m.tool, policy });
  }
  /** @type {ConfigRule[]} */
  const approvalRules = [];
  for (const rule of stored.rules) {
    const m = mcp(rule.tool);
    if (!m) approvalRules.push(rule);
    else if (m.server) approvalRules.push({ server: m.server, ...rule, tool: m.tool });
  }
  return { toolPolicies, mcpToolPolicies, approvalRules };
}

/**
 * The choices to store for a document: an MCP server's tool's under the identity of the server
 * of that name in `servers` — the list the document's servers make (McpManager.planServers), so
 * a server at a new address is a new server and its choices are the document's alone.
 * @param {Pick<WorkspaceConfig, 'toolPolicies' | 'approvalRules' | 'mcpToolPolicies'>} config @param {ServerIdentity[]} servers
 * @returns {{policies: Record<string, 'auto' | 'approve' | 'denied'>, rules: import('../tools/approval-rules.js').ApprovalRule[]}}
 */
export function storedToolChoices(config, servers) {
  /** @param {string} name */
  const serverNamed = (name) => {
    const s = servers.find((x) => x.name === name);
    if (!s)
      throw new ToolChoiceError(
        'unknown_server',
        `There is no MCP server named “${name}” to hold its tools' choices: add it to mcpServers.`,
      );
    return s;
  };
  /** @type {Record<string, 'auto' | 'approve' | 'denied'>} */
  const policies = { ...config.toolPolicies };
  for (const p of config.mcpToolPolicies) policies[mcpToolKey(serverNamed(p.server), p.tool)] = p.policy;
  const rules = config.approvalRules.map(({ server, ...rule }) =>
    server ? { ...rule, tool: mcpToolKey(serverNamed(server), rule.tool) } : rule,
  );
  return { policies, rules };
}

/** @param {(string | number)[]} path @returns {string} */
export const formatPath = (path) =>
  path.reduce((/** @type {string} */ s, p) => (typeof p === 'number' ? `${s}[${p}]` : s ? `${s}.${p}` : p), '') || '(the document)';

/** Line and column (1-based) of a character offset. @param {string} text @param {number} offset */
function lineColumn(text, offset) {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before[before.length - 1].length + 1 };
}

/**
 * Fields of `input` that the schema does not know (it would drop them silently): each is a
 * problem, so a typo never passes for a setting.
 * @param {unknown} input @param {unknown} parsed @param {(string | number)[]} path @param {ConfigProblem[]} out
 */
function unknownFields(input, parsed, path, out) {
  if (!input || typeof input !== 'object' || !parsed || typeof parsed !== 'object') return;
  if (Array.isArray(input)) {
    if (Array.isArray(parsed)) input.forEach((v, i) => unknownFields(v, parsed[i], [...path, i], out));
    return;
  }
  // Tool and skill names are free keys (the tool list is checked separately).
  if (path.length === 1 && (path[0] === 'toolPolicies' || path[0] === 'skills')) return;
  for (const [k, v] of Object.entries(input)) {
    if (!(k in parsed))
      out.push({ path: formatPath([...path, k]), message: 'not a setting here (check the spelling; unknown fields are not kept)' });
    else unknownFields(v, /** @type {Record<string, unknown>} */ (parsed)[k], [...path, k], out);
  }
}

/** @param {unknown} value @param {(string | number)[]} path @param {ConfigProblem[]} out */
function secretFields(value, path, out) {
  if (!value || typeof value !== 'object') return;
  for (const [k, v] of Object.entries(value)) {
    const at = [...path, Array.isArray(value) ? Number(k) : k];
    if (SECRET_FIELD.test(k))
      out.push({
        path: formatPath(at),
        message:
          `secrets are never imported or exported: remove this field and enter the key ` +
          `in ${path[0] === 'mcpServers' ? 'the Servers panel' : 'Settings'}`,
      });
    else secretFields(v, at, out);
  }
}

/**
 * Reads a configuration document. Every problem is listed with its field (or line and column
 * for broken JSON); nothing is applied unless there are none.
 * @param {string} text @param {{toolNames: string[]}} known
 * @returns {{ok: true, value: WorkspaceConfig} | {ok: false, problems: ConfigProblem[]}}
 */
export function parseConfig(text, known) {
  /** @type {unknown} */
  let raw;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    const msg = /** @type {Error} */ (err).message;
    const at = /position (\d+)/.exec(msg);
    const where = at ? lineColumn(text, Number(at[1])) : null;
    return {
      ok: false,
      problems: [
        {
          path: where ? `line ${where.line}, column ${where.column}` : '(the document)',
          message: `not valid JSON: ${msg.replace(/^JSON\.parse: /, '').replace(/ in JSON at position \d+.*$/, '')}`,
        },
      ],
    };
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw))
    return { ok: false, problems: [{ path: '(the document)', message: 'must be a JSON object like the one exported here' }] };
  /** @type {ConfigProblem[]} */
  const problems = [];
  secretFields(raw, [], problems);
  const parsed = WorkspaceConfigSchema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues)
      problems.push({ path: formatPath(/** @type {(string | number)[]} */ (issue.path)), message: issue.message });
  } else {
    unknownFields(raw, parsed.data, [], problems);
    // An MCP server's tool is named with its server: a name alone could be another server's tool.
    /** @param {string} name */
    const unknownTool = (name) =>
      /^mcp_/.test(name)
        ? 'an MCP server\'s tool is named with its server: {"server": …, "tool": …} (its own name, as the Servers panel lists it)'
        : 'there is no tool with this name';
    for (const name of Object.keys(parsed.data.toolPolicies)) {
      if (!known.toolNames.includes(name)) problems.push({ path: formatPath(['toolPolicies', name]), message: unknownTool(name) });
    }
    const serverNames = parsed.data.mcpServers.map((s) => s.name);
    parsed.data.approvalRules.forEach((rule, i) => {
      if (rule.server !== undefined && !serverNames.includes(rule.server))
        problems.push({ path: formatPath(['approvalRules', i, 'server']), message: 'there is no server with this name in mcpServers' });
      else if (rule.server === undefined && !known.toolNames.includes(rule.tool))
        problems.push({ path: formatPath(['approvalRules', i, 'tool']), message: unknownTool(rule.tool) });
    });
    parsed.data.mcpToolPolicies.forEach((p, i) => {
      if (!serverNames.includes(p.server))
        problems.push({ path: formatPath(['mcpToolPolicies', i, 'server']), message: 'there is no server with this name in mcpServers' });
      const first = parsed.data.mcpToolPolicies.findIndex((o) => o.server === p.server && o.tool === p.tool);
      if (first !== i)
        problems.push({ path: formatPath(['mcpToolPolicies', i]), message: `the same tool as mcpToolPolicies[${first}]: keep one` });
    });
  }
  return problems.length || !parsed.success ? { ok: false, problems } : { ok: true, value: parsed.data };
}

/** The host of an address, or the address itself when it does not parse. @param {string} url */
const hostOf = (url) => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

/**
 * What a new configuration loosens compared with the current one, in words: the user confirms
 * these before they apply (an imported file may come from someone else). Saved secrets that
 * would go to a new address (the provider's key, the search key, the git token through a proxy)
 * count too.
 * @param {WorkspaceConfig} before @param {WorkspaceConfig} after @param {(name: string) => string} defaultPolicyOf
 * @param {{hasKey?: (provider: string) => boolean, hasSearchKey?: boolean, hasGitToken?: boolean}} [secrets] which secrets are saved
 * @returns {string[]}
 */
export function loosenedProtections(before, after, defaultPolicyOf, secrets = {}) {
  /** @type {string[]} */
  const out = [];
  const p0 = before.provider;
  const p1 = after.provider;
  if (p1 && secrets.hasKey?.(p1.id) && (p1.id !== p0?.id || hostOf(p1.baseUrl) !== hostOf(p0?.baseUrl ?? ''))) {
    out.push(
      `sends your saved ${p1.id} API key to ${p1.baseUrl ? hostOf(p1.baseUrl) : `${p1.id}'s own address`}${
        p1.id === p0?.id ? ` ` + `(was: ${p0.baseUrl ? hostOf(p0.baseUrl) : 'its own address'})` : ''
      }`,
    );
  }
  // A fallback takes its provider's saved key wherever its base URL points.
  /** @param {WorkspaceConfig} c */
  const extra = (c) =>
    [...c.agent.providers.fallbacks, ...Object.values(c.agent.providers.routes).filter((r) => !!r)].map((r) => ({
      id: /** @type {{provider: string}} */ (r).provider,
      baseUrl: /** @type {{baseUrl: string}} */ (r).baseUrl,
    }));
  const knownRoutes = new Set([p0, ...extra(before)].filter(Boolean).map((r) => `${r?.id} ${hostOf(r?.baseUrl ?? '')}`));
  for (const f of extra(after)) {
    if (secrets.hasKey?.(f.id) && !knownRoutes.has(`${f.id} ${hostOf(f.baseUrl)}`))
      out.push(
        `sends your saved ${f.id} API key to ${f.baseUrl ? hostOf(f.baseUrl) : `${f.id}'s own address`} (a fallback or routing hint)`,
      );
  }
  if (
    after.agent.tools.searchEndpoint &&
    secrets.hasSearchKey &&
    hostOf(after.agent.tools.searchEndpoint) !== hostOf(before.agent.tools.searchEndpoint)
  ) {
    out.push(
      `sends web searches` +
        `${/^api\.search\.brave\.com$/.test(hostOf(after.agent.tools.searchEndpoint)) ? ' and your saved search key' : ''} ` +
        `to ${hostOf(after.agent.tools.searchEndpoint)}`,
    );
  } else if (after.agent.tools.searchEndpoint && hostOf(after.agent.tools.searchEndpoint) !== hostOf(before.agent.tools.searchEndpoint)) {
    out.push(`sends web searches to ${hostOf(after.agent.tools.searchEndpoint)}`);
  }
  if (after.agent.git.corsProxy && hostOf(after.agent.git.corsProxy) !== hostOf(before.agent.git.corsProxy)) {
    out.push(`routes git's requests${secrets.hasGitToken ? ', with your access token,' : ''} through ${hostOf(after.agent.git.corsProxy)}`);
  }
  const a = before.agent;
  const b = after.agent;
  if (a.safetyEnabled && !b.safetyEnabled)
    out.push('turns the safety checks off (prompt-injection scan, secret redaction, path and URL checks)');
  const rank = { readonly: 0, supervised: 1, full: 2 };
  if (rank[b.autonomy.level] > rank[a.autonomy.level]) out.push(`raises autonomy from ${a.autonomy.level} to ${b.autonomy.level}`);
  /** @param {number} x @param {number} y 0 means no limit */
  const looser = (x, y) => (x === 0 ? false : y === 0 || y > x);
  if (looser(a.autonomy.maxActionsPerHour, b.autonomy.maxActionsPerHour))
    out.push(
      `raises the actions per hour from ${a.autonomy.maxActionsPerHour || 'no limit'} to ${b.autonomy.maxActionsPerHour || 'no limit'}`,
    );
  if (looser(a.autonomy.maxCostCentsPerMonth, b.autonomy.maxCostCentsPerMonth))
    out.push(
      `raises the monthly cost limit from ${(a.autonomy.maxCostCentsPerMonth / 100).toFixed(2)} USD ` +
        `to ${b.autonomy.maxCostCentsPerMonth ? `${(b.autonomy.maxCostCentsPerMonth / 100).toFixed(2)} USD` : 'no limit'}`,
    );
  if (looser(a.autonomy.maxCostCentsPerDay, b.autonomy.maxCostCentsPerDay))
    out.push(
      `raises the daily cost limit from ${(a.autonomy.maxCostCentsPerDay / 100).toFixed(2)} USD ` +
        `to ${b.autonomy.maxCostCentsPerDay ? `${(b.autonomy.maxCostCentsPerDay / 100).toFixed(2)} USD` : 'no limit'}`,
    );
  const leak = { warn: 0, redact: 1, block: 2 };
  const leakWords = { warn: 'only warned about', redact: 'hidden', block: 'blocked' };
  if (leak[b.leakAction] < leak[a.leakAction])
    out.push(`secrets in replies are ${leakWords[b.leakAction]} instead of ${leakWords[a.leakAction]}`);
  const newHosts = b.allowedPrivateHosts.filter((h) => !a.allowedPrivateHosts.includes(h));
  if (newHosts.length) out.push(`lets tools reach these local-network hosts: ${newHosts.join(', ')}`);
  // An empty allow-list lets web_fetch reach any public host.
  if (a.tools.fetchAllowlist.length && !b.tools.fetchAllowlist.length)
    out.push('clears the web fetch allow-list (any public host becomes reachable)');
  const newFetch = a.tools.fetchAllowlist.length ? b.tools.fetchAllowlist.filter((h) => !a.tools.fetchAllowlist.includes(h)) : [];
  if (newFetch.length) out.push(`adds to the web fetch allow-list: ${newFetch.join(', ')}`);
  // The tab tools' site lists (the companion extension): a site no longer denied, an allow list cleared or widened.
  const undenied = a.tools.tabSitesDeny.filter((site) => !b.tools.tabSitesDeny.includes(site));
  if (undenied.length) out.push(`lets the agent read and act on these sites in other tabs again: ${undenied.join(', ')}`);
  if (a.tools.tabSitesAllow.length && !b.tools.tabSitesAllow.length)
    out.push('clears the list of sites the agent may use in other tabs (any site not denied becomes usable)');
  const newTabSites = a.tools.tabSitesAllow.length ? b.tools.tabSitesAllow.filter((site) => !a.tools.tabSitesAllow.includes(site)) : [];
  if (newTabSites.length) out.push(`adds sites the agent may use in other tabs: ${newTabSites.join(', ')}`);
  if (b.tools.companionId !== a.tools.companionId)
    out.push(`reaches your other tabs through another extension (id ${b.tools.companionId || 'the repository’s'})`);
  if (a.git.autoCommit && !b.git.autoCommit)
    out.push("stops committing the agent's file changes (they can no longer be rolled back in the Git panel)");
  const strict = { denied: 0, approve: 1, auto: 2 };
  for (const name of new Set([...Object.keys(before.toolPolicies), ...Object.keys(after.toolPolicies)])) {
    const was = /** @type {keyof typeof strict} */ (before.toolPolicies[name] ?? defaultPolicyOf(name));
    const p = /** @type {keyof typeof strict} */ (after.toolPolicies[name] ?? defaultPolicyOf(name));
    if (strict[p] > strict[was])
      out.push(
        `lets ${name} ${p === 'auto' ? 'run without asking' : 'run after approval'} (was: ${was === 'denied' ? 'off' : 'ask each time'})`,
      );
    // The user's own "Always allow" also lifts supervised autonomy's question (a default "auto" does not).
    else if (after.toolPolicies[name] === 'auto' && before.toolPolicies[name] !== 'auto')
      out.push(`lets ${name} run without asking, even under supervised autonomy`);
  }
  // An MCP server's tool is its server's (by name and address: a server at a new address is
  // another server, whose choices are all new) and its own name.
  /** @param {WorkspaceConfig} c @param {{server?: string, tool: string}} t */
  const mcpTool = (c, t) => `${t.server}\u0000${c.mcpServers.find((s) => s.name === t.server)?.url ?? ''}\u0000${t.tool}`;
  /** @param {{server: string, tool: string}} t */
  const toolWords = (t) => `${t.tool} of the MCP server “${t.server}”`;
  const hadMcp = new Map(before.mcpToolPolicies.map((p) => [mcpTool(before, p), p.policy]));
  const willMcp = new Map(after.mcpToolPolicies.map((p) => [mcpTool(after, p), p.policy]));
  for (const p of after.mcpToolPolicies) {
    const was = hadMcp.get(mcpTool(after, p));
    if (p.policy === 'auto' && was !== 'auto') out.push(`lets ${toolWords(p)} run without asking${was === 'denied' ? ' (was: off)' : ''}`);
    else if (p.policy === 'approve' && was === 'denied') out.push(`lets ${toolWords(p)} run after approval (was: off)`);
  }
  for (const p of before.mcpToolPolicies) {
    // Its server stays as it was, and the choice goes: the tool's default applies again.
    if (
      willMcp.has(mcpTool(before, p)) ||
      !after.mcpServers.some((s) => s.name === p.server && s.url === before.mcpServers.find((o) => o.name === p.server)?.url)
    )
      continue;
    if (p.policy === 'denied') out.push(`turns ${toolWords(p)} back on (was: off)`);
    else if (p.policy === 'approve')
      out.push(`lets ${toolWords(p)} follow its default (was: ask each time; a tool its server calls read-only runs without asking)`);
  }
  // A narrowed "Always allow" lets matching calls run without asking.
  /** @param {WorkspaceConfig} c @param {{server?: string, tool: string, kind: string, pattern: string}} r */
  const ruleKey = (c, r) => `${r.server === undefined ? r.tool : mcpTool(c, r)} ${r.kind} ${r.pattern}`;
  const hadRules = new Set(before.approvalRules.map((r) => ruleKey(before, r)));
  for (const r of after.approvalRules) {
    if (!hadRules.has(ruleKey(after, r)))
      out.push(
        `lets ${r.server === undefined ? r.tool : toolWords({ server: r.server, tool: r.tool })} run without asking for ${describeRule(r)}`,
      );
  }
  // A skill's instructions join the agent's context, and its scripts can run.
  for (const [name, on] of Object.entries(before.skills)) {
    if (on === false && after.skills[name] !== false) out.push(`turns the skill “${name}” back on`);
  }
  // A new server (or a known name at a new address) can bring tools, and sees what they are sent.
  for (const m of after.mcpServers) {
    if (!before.mcpServers.some((o) => o.name === m.name && o.url === m.url))
      out.push(`adds the MCP server “${m.name}” at ${hostOf(m.url)} (its tools reach the agent once you connect it)`);
  }
  return out;
}
