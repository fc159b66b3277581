// The Tools panel: every tool with its policy, the approval rules, choices kept for MCP servers not
// connected, the tools' settings (fetch allowlist, search endpoint and key), the companion extension's and the
// devices picked for the hardware tools (revocable).
/** @import { PanelEntry } from '../panels.js' */
/** @import { ToolDefinition } from '../../tools/types.d.ts' */

/**
 * What a tool does by default at an autonomy level, in words (the panel's "Default" option).
 * @param {ToolDefinition | undefined} tool
 * @param {'readonly' | 'supervised' | 'full'} level
 * @param {Record<string, string>} policies the default policy of each permission (DEFAULT_POLICY)
 */
function defaultBehaviour(tool, level, policies) {
  if (!tool) return 'never run';
  const changes = !!tool.standing || !(tool.permission === 'read' || tool.permission === 'internal');
  if (level === 'readonly' && changes) return 'refused (read-only autonomy)';
  if (level === 'supervised' && changes) return 'ask each time (supervised autonomy)';
  return policies[tool.permission] === 'auto' ? 'run without asking' : 'ask each time';
}

/** @type {PanelEntry} */
const panel = {
  name: 'tools',
  label: 'Tools',
  icon: 'wrench',
  shortcut: 'Alt+6',
  split: false,
  async open(ctx) {
    const [{ ToolsPanel }, { DEFAULT_POLICY }, { describeRule, deviceRuleIds }, { serialDevices, setKnownDeviceIds }] = await Promise.all([
      import('../../ui/tools-panel.js'),
      import('../../tools/index.js'),
      import('../../tools/approval-rules.js'),
      import('../../hardware/devices.js'),
    ]);
    const [{ hidDevices }, { usbDevices }, { bluetoothDevices }, { bluetoothServices }] = await Promise.all([
      import('../../hardware/hid.js'),
      import('../../hardware/usb.js'),
      import('../../hardware/bluetooth.js'),
      import('../../tools/hardware.js'),
    ]);
    const serial = serialDevices();
    const hid = hidDevices();
    const usb = usbDevices();
    const bluetooth = bluetoothDevices();
    /** The registry a device id belongs to, by its prefix. @param {string} id */
    const registryOf = (id) =>
      id.startsWith('hid:') ? hid : id.startsWith('usb:') ? usb : id.startsWith('bluetooth:') ? bluetooth : serial;
    const { registry } = ctx.services;
    // A device re-found after a reload takes back the id a rule names (devices.js, deviceId).
    setKnownDeviceIds(() => deviceRuleIds(registry.rules()));
    const { agentSettings, workspaceId } = ctx;
    // A choice for an MCP server's tool is kept under the server's identity: named by the manager when its server is not connected.
    const mcpChoices =
      registry.rules().some((r) => r.tool.startsWith('mcp:')) || Object.keys(registry.overrides()).some((k) => k.startsWith('mcp:'));
    const mcp = mcpChoices ? await ctx.services.mcp() : null;
    // The built tools are loaded (and the approved ones registered) before the table is drawn.
    const built = await ctx.services.builtTools().catch(() => null);
    const tools = registry.list();
    // Each row's choice goes to the tool it shows (its identity as the panel opened), even if its
    // MCP server disconnects, or another server's tool takes its name, while the panel is open.
    const keys = new Map(tools.map((t) => [t.name, t.policyKey ?? t.name]));
    /** @param {string} name */
    const keyOf = (name) => keys.get(name) ?? name;
    const root = ToolsPanel({
      tools,
      toolLabel: (key) => registry.toolOfKey(key)?.name ?? mcp?.describeKey(key) ?? key,
      userPolicyOf: (name) => registry.userPolicyOf(keyOf(name)),
      defaultOf: (name) => defaultBehaviour(registry.get(name), agentSettings.load(workspaceId).autonomy.level, DEFAULT_POLICY),
      onPolicy: (name, policy) => registry.setPolicy(keyOf(name), policy),
      rules: () => registry.rules(),
      describeRule,
      onRemoveRule: (rule) => registry.removeRule(rule),
      onAddRule: (rule) => registry.addRule({ ...rule, tool: keyOf(rule.tool) }),
      // The choices of tools not in the table (an MCP server not connected): seen and forgettable all the same.
      storedChoices: () =>
        Object.entries(registry.overrides())
          .filter(([key]) => key.startsWith('mcp:') && !tools.some((t) => t.policyKey === key))
          .map(([key, policy]) => ({ key, policy, label: mcp?.describeKey(key) ?? key })),
      onForget: (key) => registry.setPolicy(key, null),
      settings: agentSettings.load(workspaceId),
      hasSearchKey: agentSettings.hasSearchApiKey(workspaceId),
      onSaveSettings: async ({ fetchAllowlist, searchEndpoint, searchApiKey }) => {
        const s = agentSettings.load(workspaceId);
        agentSettings.save(workspaceId, { ...s, tools: { ...s.tools, fetchAllowlist, searchEndpoint } });
        if (searchApiKey !== undefined) await agentSettings.setSearchApiKey(workspaceId, searchApiKey);
      },
      companion: {
        status: async () => (await ctx.services.companion()).status(),
        lists: (({ tabSitesAllow, tabSitesDeny, companionId }) => ({ tabSitesAllow, tabSitesDeny, companionId }))(
          agentSettings.load(workspaceId).tools,
        ),
        onSave: async (lists) => {
          const s = agentSettings.load(workspaceId);
          agentSettings.save(workspaceId, { ...s, tools: { ...s.tools, ...lists } });
        },
      },
      devices: {
        supported: serial.supported || hid.supported || usb.supported || bluetooth.supported,
        list: async () => (await Promise.all([serial, hid, usb, bluetooth].map((r) => r.list()))).flat(),
        forget: (id) => registryOf(id).forget(id),
        kinds: /** @type {const} */ (['serial', 'hid', 'usb', 'bluetooth']).filter((k) => ({ serial, hid, usb, bluetooth })[k].supported),
        // From the person's click: the browser's chooser, without the agent asking first.
        pick: async (kind, services = '') => {
          try {
            if (kind === 'bluetooth') return await bluetooth.request(bluetoothServices(services));
            return await { serial, hid, usb }[kind].request();
          } catch (err) {
            if (/** @type {{code?: string}} */ (err)?.code === 'cancelled') return null;
            throw err;
          }
        },
      },
      onBack: ctx.back,
      ...(built
        ? {
            builder: {
              rows: () =>
                built.entries().map((e) => ({
                  name: e.name,
                  state: e.state,
                  versions: e.versions,
                  ...(e.problem ? { problem: e.problem } : {}),
                  ...(e.reaches ? { reaches: e.reaches, permission: e.permission } : {}),
                  ...(e.current ? { description: e.current.spec.description, version: e.current.version, code: e.current.spec.code } : {}),
                })),
              define: (input) => built.define(input, 'user'),
              approve: (name) => built.approve(name),
              restore: (name, version) => built.restore(name, version),
              remove: (name) => built.remove(name),
            },
            // The table lists the registry's tools: drawn anew with the change.
            onBuilderChanged: () => void ctx.refresh(),
          }
        : {}),
    });
    return { root };
  },
};
export default panel;
