/** @import { McpServerConfig } from './manager.js' */
/** @import { ToolDefinition } from '../tools/types.d.ts' */
import { legacyMcpToolName, mcpServerKeyPrefix, serverSlug, slug } from './tools.js';

/**
 * Lists of tools that outlive a turn — a named agent's tools, a skill's allowed-tools, a
 * scheduled job's tool — name an MCP tool by the name the model sees, `mcp__{server}__{tool}`,
 * which a server added later under the same name has too. So when such a list is saved or
 * approved, each MCP name in it is bound to the identity of the tool it named then (its
 * `policyKey`: the server's id and address and the tool) or, while that server is not
 * connected, to the server (`mcp:{id}:{address digest}:`). At use, a name reaches a tool only
 * if it is the bound one; a name left out for that reason is told to the user.
 *
 * A name no binding was recorded for (a list written before bindings, or an older version's
 * flat `mcp_{server}_{tool}`) reaches only a server saved before bindings existed (one without
 * `listsBound`) that alone can have made it — the rule the stored choices were migrated by —
 * never a server added since.
 */

/**
 * A name left out of a list, and why (in words that end a sentence naming the list's owner).
 * @typedef {{tool: string, reason: string}} ToolListProblem
 */
/**
 * A list as it can be used now: the names of the tools it reaches (an MCP tool under its name
 * now), the identities of those that are MCP tools, and what was left out.
 * @typedef {{names: string[], keys: string[], problems: ToolListProblem[]}} ResolvedToolList
 */
/**
 * What a store of lists (agents, skills) is given to bind them: the workspace's MCP manager's
 * bindToolList / forgetToolList / toolListFor, loaded when first needed.
 * @typedef {{bind: (owner: string, names: string[]) => Promise<ToolListProblem[]>, forget: (owner: string) => Promise<void>,
 *   resolve: (owner: string | null, names: string[]) => Promise<ResolvedToolList>}} ToolListBinder
 */
/**
 * What a binding is checked against: the registry's tools, the saved servers, and the tools
 * (exact and Clawser names) of each connected server.
 * @typedef {{tool: (name: string) => ToolDefinition | undefined, toolOfKey: (key: string) => ToolDefinition | undefined,
 *   servers: McpServerConfig[], live: (id: string) => {name: string, tool: {name: string}}[]}} ToolListEnv
 */

/** Whether a name in a list is an MCP tool's (today's `mcp__…` or an older version's `mcp_…`). @param {string} name */
export const isMcpName = (name) => /^mcp_[a-z0-9_]/.test(name);

/** The owner of a named agent's list (per scope: a global agent is bound per workspace). @param {string} scope @param {string} name */
export const agentOwner = (scope, name) => `agent:${scope}:${name}`;
/** The owner of a skill's allowed-tools. @param {string} scope @param {string} name */
export const skillOwner = (scope, name) => `skill:${scope}:${name}`;

/** The server part of a name `mcp__{server}__…` (it holds no "__"), or null. @param {string} name */
const serverPartOf = (name) => /^mcp__(.+?)__/.exec(name)?.[1] ?? null;

/** A saved server in words. @param {McpServerConfig} s */
const describeServer = (s) => `the MCP server “${s.name}” (${s.url})`;

/** The saved server a key or binding belongs to. @param {string} key @param {McpServerConfig[]} servers */
const serverOfKey = (key, servers) => servers.find((s) => key.startsWith(mcpServerKeyPrefix(s)));

/**
 * What an older version's flat name reaches now: the tool of the one server saved before
 * bindings that alone can have made it, while connected — else why not (`null`: that server is
 * not connected; nothing to tell).
 * @param {string} name @param {ToolListEnv} env
 * @returns {{tool: ToolDefinition} | {reason: string} | null}
 */
function legacyTarget(name, env) {
  const candidates = env.servers.filter((s) => name.startsWith(`mcp_${slug(s.name)}_`));
  const older = 'a tool name of an older version of Clawser';
  if (!candidates.length) return { reason: `${older}, and no MCP server set up now can have made it` };
  if (candidates.length > 1)
    return {
      reason: `${older} that more than one MCP server set up now can have made (${candidates.map((s) => `“${s.name}”`).join(', ')})`,
    };
  const server = candidates[0];
  if (server.listsBound) return { reason: `${older}, saved before ${describeServer(server)} was set up` };
  const matches = env.live(server.id).filter((t) => legacyMcpToolName(server.name, t.tool.name) === name);
  if (!matches.length)
    return env.live(server.id).length ? { reason: `${older}; ${describeServer(server)} has no tool of that name now` } : null;
  if (matches.length > 1)
    return { reason: `${older} that several tools of ${describeServer(server)} had (${matches.map((m) => m.name).join(', ')})` };
  const tool = env.tool(matches[0].name);
  return tool ? { tool } : null;
}

/**
 * The bindings of the MCP names of a list as it is saved now: each to its tool's identity when
 * its server is connected, else to its server (by the name's server part); an older version's
 * name to the tool it reaches (see legacyTarget). Names that bind to nothing are returned as
 * problems (the list keeps them; they reach nothing).
 * @param {string[]} names @param {ToolListEnv} env
 * @returns {{bound: Record<string, string>, problems: ToolListProblem[]}}
 */
export function bindNames(names, env) {
  /** @type {Record<string, string>} */
  const bound = {};
  /** @type {ToolListProblem[]} */
  const problems = [];
  for (const name of new Set(names)) {
    if (!isMcpName(name)) continue;
    const tool = env.tool(name);
    if (tool?.policyKey) {
      bound[name] = tool.policyKey;
      continue;
    }
    if (name.startsWith('mcp__')) {
      const part = serverPartOf(name);
      const server = env.servers.find((s) => serverSlug(s.name) === part);
      if (server) bound[name] = mcpServerKeyPrefix(server);
      else problems.push({ tool: name, reason: 'no MCP server set up in this workspace has that name' });
      continue;
    }
    const target = legacyTarget(name, env);
    if (target && 'tool' in target && target.tool.policyKey) bound[name] = target.tool.policyKey;
    else
      problems.push({
        tool: name,
        reason:
          target && 'reason' in target
            ? target.reason
            : 'a tool name of an older version of Clawser, whose server is not connected: connect it and save again',
      });
  }
  return { bound, problems };
}

/**
 * A list as it can be used now, given the bindings recorded when it was saved (`bound`; null:
 * no list was saved — the caller's tools as they are now, each pinned to its identity).
 * Left out and told: a name whose tool is another server's than the bound one (a server
 * removed, replaced or moved), a name bound to a server no longer set up, an unbound name of a
 * server set up since, an older version's name that no single server can have made. Left out
 * silently: a tool whose server is set up but not connected (as any such tool).
 * @param {string[]} names @param {Record<string, string> | null} bound @param {ToolListEnv} env
 * @returns {ResolvedToolList}
 */
export function resolveNames(names, bound, env) {
  /** @type {ResolvedToolList} */
  const out = { names: [], keys: [], problems: [] };
  /** @param {ToolDefinition} tool */
  const take = (tool) => {
    if (out.names.includes(tool.name)) return;
    out.names.push(tool.name);
    if (tool.policyKey) out.keys.push(tool.policyKey);
  };
  for (const name of names) {
    if (!isMcpName(name)) {
      if (!out.names.includes(name)) out.names.push(name);
      continue;
    }
    const holder = env.tool(name);
    if (!bound) {
      if (holder) take(holder);
      continue;
    }
    const key = bound[name];
    if (key) {
      // Bound to a server (it was not connected then): its tool of this name; else exactly that tool.
      const tool = key.endsWith(':') ? (holder?.policyKey?.startsWith(key) ? holder : undefined) : env.toolOfKey(key);
      if (tool) {
        take(tool);
        continue;
      }
      // Its server is set up still: not connected now (or no longer lists the tool), like any such tool.
      if (serverOfKey(key, env.servers)) continue;
      const now = holder?.policyKey ? serverOfKey(holder.policyKey, env.servers) : undefined;
      out.problems.push({
        tool: name,
        reason: `it was chosen for an MCP server that is no longer set up (removed, or moved to another address)${
          now ? `; the tool of ` + `that name now belongs to ${describeServer(now)}, which was not chosen for it` : ''
        }`,
      });
      continue;
    }
    if (name.startsWith('mcp__')) {
      const server = env.servers.find((s) => serverSlug(s.name) === serverPartOf(name));
      // No server of that name: the name reaches nothing (as any unknown tool).
      if (!server) continue;
      if (server.listsBound) {
        out.problems.push({
          tool: name,
          reason:
            `it was not chosen for ${describeServer(server)}, which was set up after the list was saved (or the list was saved in ` +
            `another workspace)`,
        });
        continue;
      }
      if (holder?.policyKey?.startsWith(mcpServerKeyPrefix(server))) take(holder);
      continue;
    }
    const target = legacyTarget(name, env);
    if (target && 'tool' in target) take(target.tool);
    else if (target) out.problems.push({ tool: name, reason: target.reason });
  }
  return out;
}

/** A problem as a sentence about its list's owner ("@triage", "The skill “pdf”"). @param {string} who @param {ToolListProblem} p */
export const describeProblem = (who, p) => `${who}: ${p.tool} is left out — ${p.reason}.`;
