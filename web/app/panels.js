/** @import { BrowserToolRegistry } from '../tools/registry.js' */
/** @import { ToolDefinition } from '../tools/types.d.ts' */
/** @import { AgentSettingsStore } from './agent-settings.js' */
/** @import { GoalStore } from '../stores/goals.js' */
/** @import { Scheduler } from '../stores/scheduler.js' */
/** @import { TabCoordinator } from '../agent/coordination/tabs.js' */
/** @import { ConversationMeta } from '../agent/types.d.ts' */
/** @import { SemanticSearch } from './semantic.js' */
import { DEFAULT_POLICY } from '../tools/index.js';
import { panelNav } from './panel-nav.js';
import { LeakDetector } from '../safety/leak-detector.js';
import { describeRule } from '../tools/approval-rules.js';

/**
 * The workspace panels besides the chat. A panel is one entry — name (its route:
 * `#workspace/{id}/{name}`), label, icon, keyboard shortcut and a view factory — so a new panel
 * is registered here (or by `PanelRegistry.register`) without touching the orchestrator, which
 * only looks entries up and gives them a `PanelContext`.
 */

/**
 * What a panel's view gets: its workspace's services and settings, and the app's ways back.
 * @typedef {object} PanelContext
 * @property {string} workspaceId
 * @property {{agents: () => Promise<import('../agent/runtime/agent-store.js').AgentStore>, registry: BrowserToolRegistry, files: () => Promise<import('./files-controller.js').FilesController>, git: () => Promise<import('../git/git.js').WorkspaceGit>, memory: () => Promise<import('../memory/store.js').MemoryStore>, summaries: () => Promise<import('../memory/summaries.js').MemorySummaries>, skills: () => Promise<import('../skills/store.js').SkillStore>, mcp: () => Promise<import('../mcp/manager.js').McpManager>, goals: GoalStore, scheduler: Scheduler, usage: import('../stores/usage-ledger.js').UsageLedger}} services
 * @property {AgentSettingsStore} agentSettings
 * @property {import('./settings.js').SettingsStore} providerSettings the workspace's provider and model (keys sealed)
 * @property {() => Promise<void>} refreshWorkspace redraws the workspace (e.g. its provider changed)
 * @property {SemanticSearch} semantic
 * @property {TabCoordinator | undefined} tabs
 * @property {boolean} mounted the workspace is a folder opened from the computer
 * @property {NonNullable<Parameters<typeof import('../ui/files-panel.js').FilesPanel>[0]['mount']>} mount the open-folder controls
 * @property {() => ConversationMeta[]} conversations the workspace's conversations
 * @property {(conversationId: string) => void} openConversation
 * @property {() => void} back to the chat
 * @property {import('./chat-controller.js').ChatController} chat the workspace's conversations
 * @property {(conversationId: string) => void} exportConversation asks for a format and downloads
 * @property {() => void} importConversation asks for a JSONL file and imports it
 * @property {() => {id: string, name: string}[]} workspaces every workspace of this browser
 * @property {(workspaceId: string, signal: AbortSignal) => Promise<{bytes: number, files: number}>} measureWorkspace the bytes its folder holds
 * @property {(panel: string) => void} openPanel another panel of this workspace
 * @property {(err: unknown) => void} showError
 * @property {() => Promise<import('./mcp-auth.js').McpAuth>} mcpAuth OAuth sign-in for MCP servers
 * @property {() => Promise<import('./terminal-host.js').TerminalHost>} terminal the workspace's shell sessions and history (loads the shell)
 * @property {{get: (key: string) => unknown, set: (key: string, value: unknown) => void, flush: () => Promise<void>}} preferences small per-browser
 *   choices of the panels; flush: resolves once every setting changed so far is stored (what a panel waits for before it says "saved")
 */

/** @typedef {{root: HTMLElement, destroy?: () => void}} PanelView */
/**
 * A panel: its route name, label, icon, shortcut and view factory; `split`: it can show beside
 * the chat on a wide screen (the split view's ◫ button).
 * @typedef {{name: string, label: string, icon: string, shortcut: string, split?: boolean, open: (ctx: PanelContext) => Promise<PanelView> | PanelView}} PanelEntry
 */

export class PanelRegistry {
  /** @type {Map<string, PanelEntry>} */
  #panels = new Map();

  /** @param {PanelEntry} entry */
  register(entry) {
    if (!/^[a-z][a-z0-9-]{0,31}$/.test(entry.name) || entry.name === 'chat' || entry.name === 'settings') throw new Error(`Invalid panel name "${entry.name}".`);
    if (this.#panels.has(entry.name)) throw new Error(`A panel named "${entry.name}" is already registered.`);
    this.#panels.set(entry.name, entry);
    return () => { this.#panels.delete(entry.name); };
  }

  /** @param {string} name */
  get(name) {
    return this.#panels.get(name);
  }

  /** In the order of the navigation. */
  list() {
    return [...this.#panels.values()];
  }
}

/**
 * What a tool does by default at an autonomy level, in words (the Tools panel's "Default" option).
 * @param {ToolDefinition | undefined} tool
 * @param {'readonly' | 'supervised' | 'full'} level
 */
export function defaultBehaviour(tool, level) {
  if (!tool) return 'never run';
  const changes = !!tool.standing || !(tool.permission === 'read' || tool.permission === 'internal');
  if (level === 'readonly' && changes) return 'refused (read-only autonomy)';
  if (level === 'supervised' && changes) return 'ask each time (supervised autonomy)';
  return DEFAULT_POLICY[tool.permission] === 'auto' ? 'run without asking' : 'ask each time';
}

/** Changes one section of a workspace's agent settings. @template {'git' | 'memory' | 'scheduler'} K @param {PanelContext} ctx @param {K} section @param {Partial<import('./agent-settings.js').AgentSettings[K]>} change */
function saveSection(ctx, section, change) {
  const cur = ctx.agentSettings.load(ctx.workspaceId);
  ctx.agentSettings.save(ctx.workspaceId, { ...cur, [section]: { ...cur[section], ...change } });
}

/** @type {PanelEntry[]} */
export const BUILTIN_PANELS = [
  {
    ...panelNav('files'),
    split: true,
    async open(ctx) {
      const [{ FilesPanel }, files] = await Promise.all([import('../ui/files-panel.js'), ctx.services.files()]);
      return FilesPanel({ files, mount: ctx.mount, onError: ctx.showError, onBack: ctx.back });
    },
  },
  {
    ...panelNav('git'),
    split: true,
    async open(ctx) {
      const repo = await ctx.services.git();
      const s = ctx.agentSettings.load(ctx.workspaceId);
      if (s.git.autoInit && !ctx.mounted) await repo.ensureRepo();
      const [{ GitPanel }, { GitController }] = await Promise.all([import('../ui/git-panel.js'), import('./git-controller.js')]);
      return GitPanel({
        git: new GitController({ repo, settings: ctx.agentSettings, workspaceId: ctx.workspaceId }),
        hasToken: ctx.agentSettings.hasGitToken(ctx.workspaceId),
        corsProxy: s.git.corsProxy,
        autoCommit: s.git.autoCommit,
        onAutoCommit: (on) => saveSection(ctx, 'git', { autoCommit: on }),
        autoInit: s.git.autoInit,
        onAutoInit: (on) => saveSection(ctx, 'git', { autoInit: on }),
        onError: ctx.showError,
        onBack: ctx.back,
      });
    },
  },
  {
    ...panelNav('memory'),
    async open(ctx) {
      const [{ MemoryPanel }, { SemanticSection }, { SUMMARIZE_OVER, currentSummary }, memory, maker] = await Promise.all([
        import('../ui/memory-panel.js'), import('../ui/semantic-section.js'), import('../memory/summaries.js'), ctx.services.memory(), ctx.services.summaries(),
      ]);
      const semantic = SemanticSection(await ctx.semantic.sectionProps(memory, ctx.showError));
      const settings = ctx.agentSettings.load(ctx.workspaceId).memory;
      return MemoryPanel({
        memory,
        semantic,
        recall: settings,
        onRecall: (r) => saveSection(ctx, 'memory', r),
        summaries: { maker, mode: settings.summaries, onMode: (mode) => saveSection(ctx, 'memory', { summaries: mode }), over: SUMMARIZE_OVER, current: currentSummary },
        onError: ctx.showError,
        onBack: ctx.back,
      });
    },
  },
  {
    ...panelNav('goals'),
    async open(ctx) {
      const { GoalsPanel } = await import('../ui/goals-panel.js');
      return GoalsPanel({ goals: ctx.services.goals, onError: ctx.showError, onBack: ctx.back });
    },
  },
  {
    ...panelNav('schedule'),
    async open(ctx) {
      const [{ SchedulePanel }, { backgroundMode }] = await Promise.all([import('../ui/schedule-panel.js'), import('./background.js')]);
      const settings = ctx.agentSettings.load(ctx.workspaceId).scheduler;
      const tabs = ctx.tabs;
      return SchedulePanel({
        scheduler: ctx.services.scheduler,
        conversations: ctx.conversations(),
        toolNames: ctx.services.registry.list().map((t) => t.name),
        timezone: ctx.services.scheduler.timezone,
        missedPolicy: settings.missedPolicy,
        onMissedPolicy: (missedPolicy) => saveSection(ctx, 'scheduler', { missedPolicy }),
        approvalTimeoutMinutes: settings.approvalTimeoutMinutes,
        onApprovalTimeout: (approvalTimeoutMinutes) => saveSection(ctx, 'scheduler', { approvalTimeoutMinutes }),
        background: await backgroundMode({ leader: !!tabs?.isLeader, tabs: (tabs?.peers().length ?? 0) + 1 }),
        // Which tab runs the jobs changes as tabs open and close: the panel's line follows.
        watchBackground: (fn) => {
          if (!tabs) return () => {};
          const update = () => { backgroundMode({ leader: tabs.isLeader, tabs: tabs.peers().length + 1 }).then(fn, () => {}); };
          const offs = [tabs.onLeaderChange(update), tabs.onPeersChange(update)];
          return () => offs.forEach((off) => off());
        },
        notifications: typeof Notification === 'undefined' ? 'unsupported' : Notification.permission,
        onAllowNotifications: async () => (typeof Notification === 'undefined' ? 'unsupported' : Notification.requestPermission()),
        onOpenConversation: ctx.openConversation,
        onError: ctx.showError,
        onBack: ctx.back,
      });
    },
  },
  {
    ...panelNav('tools'),
    async open(ctx) {
      const { ToolsPanel } = await import('../ui/tools-panel.js');
      const { registry } = ctx.services;
      const { agentSettings, workspaceId } = ctx;
      // A choice for an MCP server's tool is kept under the server's identity: named by the manager when its server is not connected.
      const mcp = registry.rules().some((r) => r.tool.startsWith('mcp:')) || Object.keys(registry.overrides()).some((k) => k.startsWith('mcp:')) ? await ctx.services.mcp() : null;
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
        defaultOf: (name) => defaultBehaviour(registry.get(name), agentSettings.load(workspaceId).autonomy.level),
        onPolicy: (name, policy) => registry.setPolicy(keyOf(name), policy),
        rules: () => registry.rules(),
        describeRule,
        onRemoveRule: (rule) => registry.removeRule(rule),
        onAddRule: (rule) => registry.addRule({ ...rule, tool: keyOf(rule.tool) }),
        // The choices of tools not in the table (an MCP server not connected): seen and forgettable all the same.
        storedChoices: () => Object.entries(registry.overrides())
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
        onBack: ctx.back,
      });
      return { root };
    },
  },
  {
    ...panelNav('events'),
    async open(ctx) {
      const { EventsPanel } = await import('../ui/events-panel.js');
      const detector = new LeakDetector();
      return EventsPanel({
        conversations: ctx.conversations(),
        conversationId: ctx.chat.state.activeId,
        load: (id) => ctx.chat.store.allEvents(id),
        // The log is redacted when written; this catches anything older rules missed.
        redact: (text) => detector.scan(text).redacted,
        onFork: async (conversationId, eventId) => {
          const meta = await ctx.chat.forkAt(conversationId, eventId);
          ctx.openConversation(meta.id);
        },
        onExport: ctx.exportConversation,
        onImport: ctx.importConversation,
        onOpenConversation: ctx.openConversation,
        onError: ctx.showError,
        onBack: ctx.back,
      });
    },
  },
  {
    ...panelNav('dashboard'),
    async open(ctx) {
      const [{ DashboardPanel }, { summarizeLedger }, { storageState, requestPersistence }] = await Promise.all([
        import('../ui/dashboard-panel.js'), import('../stores/usage-ledger.js'), import('../storage/quota.js'),
      ]);
      const { usage, scheduler } = ctx.services;
      return DashboardPanel({
        usage: async (days) => summarizeLedger(await usage.read(), { now: Date.now(), days }),
        watchUsage: (fn) => usage.onChange(fn),
        jobs: async () => (await scheduler.list()).map((j) => ({ id: j.id, name: j.name, paused: j.paused, done: j.done, nextRun: scheduler.nextRunOf(j), runs: j.runs })),
        watchJobs: (fn) => scheduler.subscribe(fn),
        storage: storageState,
        requestPersistence,
        workspaces: ctx.workspaces().map((w) => ({ id: w.id, name: w.name, current: w.id === ctx.workspaceId })),
        measure: ctx.measureWorkspace,
        onOpenSchedule: () => ctx.openPanel('schedule'),
        onError: ctx.showError,
        onBack: ctx.back,
      });
    },
  },
  {
    ...panelNav('skills'),
    async open(ctx) {
      const [{ SkillsPanel }, sources, registry, skills] = await Promise.all([import('../ui/skills-panel.js'), import('../skills/sources.js'), import('../skills/registry.js'), ctx.services.skills()]);
      return SkillsPanel({ skills, sources, registry, onError: ctx.showError, onBack: ctx.back });
    },
  },
  {
    ...panelNav('servers'),
    async open(ctx) {
      // The sign-in helper is loaded now: a click must open its window without waiting.
      const [{ ServersPanel }, mcp, auth] = await Promise.all([import('../ui/servers-panel.js'), ctx.services.mcp(), ctx.mcpAuth()]);
      return ServersPanel({
        mcp,
        signIn: (server, authenticate) => auth.signIn(ctx.workspaceId, server, authenticate),
        attach: (a) => ctx.chat.attach(a),
        onError: ctx.showError,
        onBack: ctx.back,
      });
    },
  },
  {
    ...panelNav('terminal'),
    async open(ctx) {
      const [{ TerminalPanel }, { complete }, { LineEditor }, host] = await Promise.all([
        import('../ui/terminal-panel.js'), import('../shell/completion.js'), import('../shell/line-editor.js'), ctx.terminal(),
      ]);
      const screenReader = ctx.preferences.get('clawser_terminal_screen_reader') === true;
      return TerminalPanel({
        sessions: host.sessions,
        newSession: () => host.newSession(),
        closeSession: (id) => host.closeSession(id),
        history: () => host.history(),
        remember: (line) => host.remember(line),
        clearHistory: () => host.clearHistory(),
        completionSource: (shell) => host.completionSource(shell),
        complete,
        lineEditor: (options) => new LineEditor(options),
        preferences: { screenReader },
        onPreferences: (p) => ctx.preferences.set('clawser_terminal_screen_reader', p.screenReader),
        onBack: ctx.back,
      });
    },
  },
  {
    ...panelNav('agents'),
    async open(ctx) {
      const [{ AgentsPanel }, defs, identity, agentModule, store] = await Promise.all([
        import('../ui/agents-panel.js'), import('../agent/runtime/agent-definitions.js'), import('../agent/runtime/identity.js'), import('../agent/runtime/agent.js'), ctx.services.agents(),
      ]);
      return AgentsPanel({
        agents: store,
        format: {
          toJson: defs.agentToJson,
          toMarkdown: defs.agentToMarkdown,
          parseFile: defs.parseAgentFile,
          validate: defs.validateAgent,
          checkIdentity: identity.parseIdentity,
          preview: (a) => defs.agentSystemPrompt(a, agentModule.DEFAULT_SYSTEM_PROMPT),
          identityTemplate: identity.IDENTITY_TEMPLATE,
        },
        heartbeat: {
          async load() {
            const job = (await ctx.services.scheduler.list()).find((j) => j.action.kind === 'heartbeat');
            const when = ctx.agentSettings.load(ctx.workspaceId).heartbeat.when;
            return { enabled: !!job && !job.paused, when, checklist: (await store.heartbeat()) ?? '', next: job?.nextRunAt ? new Date(job.nextRunAt).toLocaleString() : null };
          },
          async save(hb) {
            const scheduler = ctx.services.scheduler;
            // The schedule is checked first: a phrase it cannot read changes nothing.
            if (hb.enabled) scheduler.preview(hb.when);
            await store.setHeartbeat(hb.checklist);
            for (const j of (await scheduler.list()).filter((x) => x.action.kind === 'heartbeat')) await scheduler.remove(j.id);
            const s = ctx.agentSettings.load(ctx.workspaceId);
            ctx.agentSettings.save(ctx.workspaceId, { ...s, heartbeat: { when: hb.when || s.heartbeat.when } });
            if (!hb.enabled) return 'Heartbeat off. The checklist is kept.';
            const job = await scheduler.add({ when: hb.when, action: { kind: 'heartbeat' }, name: 'Heartbeat', delivery: 'always', createdBy: 'user' });
            const next = (await scheduler.get(job.id))?.nextRunAt;
            return `Heartbeat on: ${scheduler.describe(job.trigger)}${next ? `; next review ${new Date(next).toLocaleString()}` : ''}.${hb.checklist.trim() ? '' : ' The checklist is empty: nothing will be reviewed until you write one.'}`;
          },
        },
        toolNames: ctx.services.registry.list().map((t) => t.name),
        routes: ['fast', 'smart', 'code', 'vision'],
        defaultName: defs.DEFAULT_AGENT_NAME,
        onError: ctx.showError,
        onBack: ctx.back,
      });
    },
  },
  {
    ...panelNav('config'),
    async open(ctx) {
      const [{ ConfigPanel }, { buildConfig, parseConfig, loosenedProtections, configToolChoices, storedToolChoices }] = await Promise.all([import('../ui/config-panel.js'), import('./workspace-config.js')]);
      const { registry } = ctx.services;
      const [skills, mcp] = await Promise.all([ctx.services.skills(), ctx.services.mcp()]);
      const ws = ctx.workspaceId;
      const current = () => buildConfig({ provider: ctx.providerSettings.load(ws), agent: ctx.agentSettings.load(ws), ...configToolChoices({ overrides: registry.overrides(), rules: registry.rules() }, mcp.servers()), skills: skills.choices(), mcpServers: mcp.settings() });
      // An MCP server's tool is named in the document with its server (mcpToolPolicies), never by its tool name alone.
      const toolNames = registry.list().filter((t) => !t.policyKey).map((t) => t.name);
      return ConfigPanel({
        load: current,
        check: (text) => parseConfig(text, { toolNames }),
        loosened: (next) => loosenedProtections(current(), next, (name) => DEFAULT_POLICY[registry.get(name)?.permission ?? 'write'] ?? 'approve', {
          hasKey: (provider) => ctx.providerSettings.hasKey(ws, provider),
          hasSearchKey: ctx.agentSettings.hasSearchApiKey(ws),
          hasGitToken: ctx.agentSettings.hasGitToken(ws),
        }),
        // All or nothing: what was there comes back if any part fails to save (e.g. storage full).
        save: async (next) => {
          const before = { provider: ctx.providerSettings.load(ws), agent: ctx.agentSettings.load(ws), policies: registry.overrides(), rules: registry.rules(), skills: skills.choices() };
          const providerChanged = !!next.provider && JSON.stringify(next.provider) !== JSON.stringify(before.provider && { id: before.provider.provider, model: before.provider.model, baseUrl: before.provider.baseUrl });
          // Each server's tool choices go under the identity it will have (a server at a new address is a new one).
          const servers = mcp.planServers(next.mcpServers);
          const stored = storedToolChoices(next, servers);
          try {
            ctx.agentSettings.save(ws, next.agent);
            registry.replacePolicies(stored.policies);
            registry.replaceRules(stored.rules);
            skills.replaceChoices(next.skills);
            // The key stays where it is (sealed, per provider); null keeps the current provider.
            if (next.provider && providerChanged) await ctx.providerSettings.save(ws, { provider: next.provider.id, model: next.provider.model, baseUrl: next.provider.baseUrl });
            // Last: a server it forgets takes its sealed token along, which no rollback could bring back.
            await mcp.replaceServers(servers);
            await ctx.preferences.flush();
          } catch (err) {
            ctx.agentSettings.save(ws, before.agent);
            registry.replacePolicies(before.policies);
            registry.replaceRules(before.rules);
            skills.replaceChoices(before.skills);
            if (before.provider) await ctx.providerSettings.save(ws, before.provider).catch(() => {});
            throw err;
          }
          if (providerChanged) await ctx.refreshWorkspace();
        },
        fileName: `clawser-config-${(ctx.workspaces().find((w) => w.id === ws)?.name ?? 'workspace').replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-+|-+$/g, '') || 'workspace'}.json`,
        onError: ctx.showError,
        onBack: ctx.back,
      });
    },
  },
];
