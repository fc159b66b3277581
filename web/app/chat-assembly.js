/** @import { FileSystem } from '../storage/types.d.ts' */
/** @import { Coordination } from '../agent/types.d.ts' */
/** @import { SettingsStore } from './settings.js' */
/** @import { AgentSettingsStore } from './agent-settings.js' */
/** @import { WorkspaceServices } from './workspace-services.js' */
/** @import { AgentFactory } from './agent-factory.js' */
/** @import { DelegationBoard } from '../agent/coordination/delegation-board.js' */
import { ChatController } from './chat-controller.js';
import { LeakDetector } from '../safety/leak-detector.js';
import { AutonomyController } from '../agent/runtime/autonomy.js';

/**
 * A workspace's ChatController, joined to the rest: turns built by the agent factory (loaded on
 * first use), streamed text redacted while safety is on, today's and this month's spend, undo
 * over the workspace's files and stores, and an automatic commit after a turn that wrote files
 * (its paths only) and after an undo or redo.
 * @param {object} deps
 * @param {string} deps.workspaceId
 * @param {FileSystem} deps.fs the page's storage (conversations live in the workspace's folder)
 * @param {Coordination} deps.coordination
 * @param {SettingsStore} deps.settings
 * @param {AgentSettingsStore} deps.agentSettings
 * @param {WorkspaceServices} deps.services
 * @param {() => Promise<AgentFactory>} deps.agents the agent factory, loaded on first use
 * @param {() => AgentFactory | null} deps.loadedAgents the factory when already loaded (spend is shown synchronously)
 * @param {DelegationBoard} deps.delegations the workspace's live sub-agents
 * @param {(p: Promise<unknown>) => void} deps.guard
 * @param {import('../storage/damage.js').DamageSink} [deps.onDamage] the page's notice of damaged files, for this workspace's conversations
 * @returns {ChatController}
 */
export function createChatController({
  workspaceId,
  fs,
  coordination,
  settings,
  agentSettings,
  services,
  agents,
  loadedAgents,
  delegations,
  guard,
  onDamage,
}) {
  const detector = new LeakDetector();
  // Read once per turn (in buildAgent), not on every streamed chunk.
  let redactOn = agentSettings.load(workspaceId).safetyEnabled;
  return new ChatController({
    fs,
    workspaceId,
    coordination,
    ...(onDamage ? { onDamage } : {}),
    settings,
    redact: (text) => (redactOn ? detector.scan(text).redacted : text),
    spendStatus: () => {
      const autonomy = new AutonomyController({
        config: agentSettings.load(workspaceId).autonomy,
        ...agentSettings.usageStore(workspaceId),
      });
      const usage = autonomy.usage;
      return {
        todayCents: usage.costCents,
        monthCents: usage.monthCents,
        warning: autonomy.costWarning(),
        paused: loadedAgents()?.pausedProviders(workspaceId) ?? [],
      };
    },
    routes: () => agentSettings.load(workspaceId).providers.routes,
    fallbacks: () => agentSettings.load(workspaceId).providers.fallbacks,
    saveFallbacks: (fallbacks) => {
      const a = agentSettings.load(workspaceId);
      agentSettings.save(workspaceId, { ...a, providers: { ...a.providers, fallbacks } });
    },
    // Every turn's provider goes through the reliability layer (retries, fallbacks, time-outs).
    providerFactory: async (config) => (await agents()).provider(workspaceId, config),
    buildAgent: async (provider, conversation, secrets, options) => {
      const { agent, settings: turnSettings } = await (await agents()).agent(workspaceId, provider, conversation, secrets, options);
      redactOn = turnSettings.safetyEnabled;
      return agent;
    },
    afterTurn: async (agent, turn) => {
      // What the reply made (its HTML, SVG, Mermaid and CSV blocks) is kept under artifacts/ and shown beside the chat.
      const events = agent.conversation.events;
      const reply = events.findLast((e) => e.type === 'agent_message' || e.type === 'user_message');
      if (reply?.type === 'agent_message' && typeof reply.data.text === 'string')
        await services
          .of(workspaceId)
          .artifacts.fromReply(turn.conversationId, reply.data.text)
          .catch(() => {});
      return services.autoCommit(workspaceId, agent, turn);
    },
    // An undo or redo of a turn is its own commit (none when the turn was not committed).
    afterTakeBack: (change) => services.commitTakeBack(workspaceId, change),
    // A title request's tokens count like a turn's: in the Dashboard and toward today's cost limit.
    onSideUsage: (provider, usage) => guard(agents().then((f) => f.recordSideUsage(workspaceId, provider, usage))),
    runCode: (conversationId, code, signal, taint) => agents().then((f) => f.runAgain(workspaceId, conversationId, code, signal, taint)),
    agents: () => services.of(workspaceId).agents(),
    // What "/" completes to in the composer: the skills the agent is offered, the prompts of the connected MCP servers.
    slashCommands: async () => {
      const s = services.of(workspaceId);
      const [skills, mcp] = await Promise.all([
        s
          .skills()
          .then((k) => k.active())
          .catch(() => []),
        s.mcp().catch(() => null),
      ]);
      /** @type {import('../ui/types.d.ts').SlashCompletion[]} */
      const out = skills.map((k) => ({ command: `/${k.name}`, description: k.description, kind: 'skill' }));
      for (const server of mcp?.servers() ?? []) {
        const st = /** @type {import('../mcp/manager.js').McpManager} */ (mcp).state(server.id);
        if (st.status !== 'connected') continue;
        for (const p of st.prompts) {
          const args = (p.arguments ?? []).map((a) => (a.required ? a.name : `[${a.name}]`)).join(' ');
          out.push({
            command: /** @type {import('../mcp/manager.js').McpManager} */ (mcp).promptCommand(server.name, p.name),
            description: p.description ?? p.title ?? `A prompt of the MCP server “${server.name}”`,
            kind: 'prompt',
            ...(args ? { args } : {}),
          });
        }
      }
      return out;
    },
    delegations,
    // Undo puts back what a turn changed, through the same protected view the tools had.
    undoDomains: async () => {
      const s = services.of(workspaceId);
      const [{ undoDomains }, { ProtectedFileSystem }, memory] = await Promise.all([
        import('./turn-undo.js'),
        import('../storage/protected-fs.js'),
        s.memory().catch(() => undefined),
      ]);
      return undoDomains({
        fs: new ProtectedFileSystem(services.workspaceFs(workspaceId)),
        memory,
        goals: s.goals,
        scheduler: s.scheduler,
      });
    },
    undoKeep: () => agentSettings.load(workspaceId).undo.turnsKept,
  });
}
