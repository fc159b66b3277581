// The Config panel: the workspace's whole configuration as one JSON document, checked before it is
// saved (all or nothing), with what it would loosen said first.
/** @import { PanelEntry } from '../panels.js' */

/** @type {PanelEntry} */
const panel = {
  name: 'config',
  label: 'Config',
  icon: 'braces',
  shortcut: 'Alt+9',
  split: false,
  async open(ctx) {
    const [{ ConfigPanel }, config, { DEFAULT_POLICY }] = await Promise.all([
      import('../../ui/config-panel.js'),
      import('../workspace-config.js'),
      import('../../tools/index.js'),
    ]);
    const { buildConfig, parseConfig, loosenedProtections, configToolChoices, storedToolChoices } = config;
    const { registry } = ctx.services;
    const { agentSettings, providerSettings, workspaceId: ws } = ctx;
    const [skills, mcp] = await Promise.all([ctx.services.skills(), ctx.services.mcp()]);
    const current = () =>
      buildConfig({
        provider: providerSettings.load(ws),
        agent: agentSettings.load(ws),
        ...configToolChoices({ overrides: registry.overrides(), rules: registry.rules() }, mcp.servers()),
        skills: skills.choices(),
        mcpServers: mcp.settings(),
      });
    // An MCP server's tool is named in the document with its server (mcpToolPolicies), never by its tool name alone.
    const toolNames = registry
      .list()
      .filter((t) => !t.policyKey)
      .map((t) => t.name);
    const name = ctx.workspaces().find((w) => w.id === ws)?.name ?? 'workspace';
    /** A tool's default policy (what the document loosens from). @param {string} tool */
    const defaultOf = (tool) => DEFAULT_POLICY[registry.get(tool)?.permission ?? 'write'] ?? 'approve';
    return ConfigPanel({
      load: current,
      check: (text) => parseConfig(text, { toolNames }),
      loosened: (next) =>
        loosenedProtections(current(), next, defaultOf, {
          hasKey: (provider) => providerSettings.hasKey(ws, provider),
          hasSearchKey: agentSettings.hasSearchApiKey(ws),
          hasGitToken: agentSettings.hasGitToken(ws),
        }),
      // All or nothing: what was there comes back if any part fails to save (e.g. storage full).
      save: async (next) => {
        const before = {
          provider: providerSettings.load(ws),
          agent: agentSettings.load(ws),
          policies: registry.overrides(),
          rules: registry.rules(),
          skills: skills.choices(),
        };
        const was = before.provider && {
          id: before.provider.provider,
          model: before.provider.model,
          baseUrl: before.provider.baseUrl,
          ...(before.provider.relay ? { relay: before.provider.relay } : {}),
        };
        const providerChanged = !!next.provider && JSON.stringify(next.provider) !== JSON.stringify(was);
        // Each server's tool choices go under the identity it will have (a server at a new address is a new one).
        const servers = mcp.planServers(next.mcpServers);
        const stored = storedToolChoices(next, servers);
        try {
          agentSettings.save(ws, next.agent);
          registry.replacePolicies(stored.policies);
          registry.replaceRules(stored.rules);
          skills.replaceChoices(next.skills);
          // The key stays where it is (sealed, per provider); null keeps the current provider.
          if (next.provider && providerChanged) {
            const { id, model, baseUrl, relay } = next.provider;
            await providerSettings.save(ws, { provider: id, model, baseUrl, ...(relay ? { relay } : {}) });
          }
          // Last: a server it forgets takes its sealed token along, which no rollback could bring back.
          await mcp.replaceServers(servers);
          await ctx.preferences.flush();
        } catch (err) {
          agentSettings.save(ws, before.agent);
          registry.replacePolicies(before.policies);
          registry.replaceRules(before.rules);
          skills.replaceChoices(before.skills);
          if (before.provider) await providerSettings.save(ws, before.provider).catch(() => {});
          throw err;
        }
        // The workspace is shown again with its new provider.
        if (providerChanged) await ctx.refresh();
      },
      fileName: `clawser-config-${name.replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-+|-+$/g, '') || 'workspace'}.json`,
      onError: ctx.showError,
      onBack: ctx.back,
    });
  },
};
export default panel;
