/** @import { FileSystem } from '../storage/types.d.ts' */
/** @import { AgentSettingsStore } from './agent-settings.js' */
/** @import { HookPipeline } from '../agent/runtime/hooks.js' */
/** @import { Provider } from '../providers/types.d.ts' */
/** @import { Conversation } from '../agent/conversation/conversation.js' */
/** @import { ClawserAgent as ClawserAgentType } from '../agent/runtime/agent.js' */
import { ClawserAgent, DEFAULT_SYSTEM_PROMPT } from '../agent/runtime/agent.js';
import { AutonomyController } from '../agent/runtime/autonomy.js';
import { catalogEntry } from '../providers/catalog.js';
import { ToolRunner } from '../agent/runtime/tool-runner.js';
import { Codex } from '../agent/runtime/codex.js';
import { PythonSandboxes } from './python-sandboxes.js';
import { SafetyPipeline } from '../safety/pipeline.js';
import { ProtectedFileSystem } from '../storage/protected-fs.js';
import { toolSettings } from '../tools/tool-settings.js';
import { approvalDialog } from '../ui/approval-dialog.js';
import { recallForTurn } from '../memory/recall.js';
import { skillsPrompt } from '../tools/skills.js';
import { ToolSubset } from '../tools/tool-subset.js';
import { agentSystemPrompt, allowedTools, lowerAutonomy, DEFAULT_AGENT_NAME } from '../agent/runtime/agent-definitions.js';
import { Semaphore, runDelegation } from '../agent/coordination/delegation.js';
import { recordingContext, TurnPaths } from './turn-undo.js';

/**
 * Who answers a turn: a named agent's definition (its prompt or identity, tools, autonomy,
 * steps), or for a sub-agent a restricted copy of its caller. Tools and autonomy only narrow
 * what the workspace allows. Absent: the workspace's own agent.
 * @typedef {{name: string, systemPrompt?: string, identity?: import('../agent/runtime/identity.js').IdentitySource, tools?: string[],
 *   autonomy?: 'readonly' | 'supervised' | 'full', maxIterations?: number}} AgentProfile
 */

/**
 * Turn assembly: what an agent run of a workspace is made of, from its current settings —
 * safety, autonomy, the gated tool runner (one per turn), the Codex with the conversation's
 * warm sandbox (a pool of the three most recent), the system prompt with the active goals, and
 * memory recall. The orchestrator asks it for a turn's agent, a job's tools and "Run again".
 */

/**
 * What the factory needs of the app.
 * @typedef {object} AgentFactoryDeps
 * @property {AgentSettingsStore} agentSettings
 * @property {HookPipeline} hooks
 * @property {(workspaceId: string) => import('./workspace-services.js').Services} services the workspace's services (tools get
 *   them whole, as panels do)
 * @property {(workspaceId: string) => FileSystem} workspaceFs the workspace's files
 * @property {(workspaceId: string) => string | null} mountedFolder the name of the folder opened from the computer, if any
 * @property {import('./settings.js').SettingsStore} [providerSettings] the saved provider keys (for the fallback chain)
 * @property {(workspaceId: string, title: string, parent: {conversationId: string, toolCallId: string, agent: string}) =>
 *   Promise<Conversation>} [createChildConversation]
 *   a sub-agent's conversation, made where the chat lists it
 * @property {(workspaceId: string) => import('../agent/coordination/delegation-board.js').DelegationBoard} [delegationBoard] the live
 *   sub-agents the chat shows
 */

export class AgentFactory {
  /** @type {AgentFactoryDeps} */
  #deps;

  /** @param {AgentFactoryDeps} deps */
  constructor(deps) {
    this.#deps = deps;
  }

  /**
   * The provider a named agent asks for (a model of its own, or a routing hint), or null for the caller's.
   * @param {string} workspaceId @param {import('../agent/runtime/agent-definitions.js').AgentDefinition} definition
   */
  async #providerFor(workspaceId, definition) {
    const settings = this.#deps.providerSettings;
    const own = definition.model;
    const route = definition.route ? this.#deps.agentSettings.load(workspaceId).providers.routes[definition.route] : undefined;
    if (!own && !route) return null;
    const provider = /** @type {string} */ (own?.provider ?? route?.provider);
    const apiKey = await settings?.apiKey(workspaceId, provider).catch(() => undefined);
    // A routing hint has the user's own base URL; a definition has none: the workspace's for that provider, else the catalog's.
    const workspace = await settings?.providerConfig(workspaceId).catch(() => null);
    const baseUrl = route ? route.baseUrl || undefined : workspace?.provider === provider ? workspace.baseUrl : undefined;
    const relay = route ? route.relay : workspace?.provider === provider ? workspace.relay : undefined;
    const model = (own?.model ?? route?.model) || undefined;
    return {
      provider: await this.provider(workspaceId, { provider, model, baseUrl, apiKey, ...(relay ? { relay } : {}) }),
      apiKey,
    };
  }

  /**
   * A circuit breaker per workspace: a provider that keeps failing is skipped by every turn and job of it.
   * @type {Map<string, import('../providers/reliability.js').CircuitBreaker>}
   */
  #breakers = new Map();
  /** The response cache per workspace (in memory: a page's). @type {Map<string, import('../providers/cache.js').ResponseCache>} */
  #caches = new Map();

  /**
   * The provider a turn talks to: the workspace's provider behind the reliability layer, with
   * its fallback chain (each with its saved key), retries and stream time-outs from the settings.
   * A fallback that cannot be made (its key is not saved) is left out.
   * @param {string} workspaceId @param {import('../providers/types.d.ts').ProviderConfig} primary
   */
  async provider(workspaceId, primary) {
    const [{ createProvider, catalogEntry }, { ReliableProvider, CircuitBreaker }, { ResponseCache }] = await Promise.all([
      import('../providers/index.js'),
      import('../providers/reliability.js'),
      import('../providers/cache.js'),
    ]);
    const s = this.#deps.agentSettings.load(workspaceId).providers;
    // "Through my relay": that machine's wsh relay makes the requests (the machines are loaded only then).
    const remote = primary.relay || s.fallbacks.some((f) => f.relay) ? await this.#deps.services(workspaceId).remote() : null;
    const viaRelay = (/** @type {string | undefined} */ relay) => (relay && remote ? { fetchImpl: remote.relayFetch(relay) } : {});
    const first = createProvider(primary, viaRelay(primary.relay));
    const chain = [first];
    const labels = new Map([[first, catalogEntry(primary.provider)?.label ?? primary.provider]]);
    const secrets = primary.apiKey ? [primary.apiKey] : [];
    for (const f of s.fallbacks) {
      const apiKey = await this.#deps.providerSettings?.apiKey(workspaceId, f.provider).catch(() => undefined);
      try {
        const p = createProvider(
          { provider: f.provider, model: f.model || undefined, baseUrl: f.baseUrl || undefined, apiKey },
          viaRelay(f.relay),
        );
        chain.push(p);
        labels.set(p, catalogEntry(f.provider)?.label ?? f.provider);
        if (apiKey) secrets.push(apiKey);
      } catch {
        // Not usable (no key saved for it): the Settings dialog says so next to the entry.
      }
    }
    let breaker = this.#breakers.get(workspaceId);
    if (!breaker) this.#breakers.set(workspaceId, (breaker = new CircuitBreaker()));
    let cache = this.#caches.get(workspaceId);
    if (!cache) this.#caches.set(workspaceId, (cache = new ResponseCache()));
    return new ReliableProvider({
      chain,
      breaker,
      labels,
      secrets,
      cache,
      cachePolicy: s.cache,
      retry: { retries: s.retries },
      timeouts: {
        connectMs: s.timeouts.connectSeconds * 1000,
        firstByteMs: s.timeouts.firstByteSeconds * 1000,
        gapMs: s.timeouts.gapSeconds * 1000,
      },
    });
  }

  /**
   * A turn's agent: its parts, the system prompt with the active goals (framed as data), and
   * automatic recall when on.
   * @param {string} workspaceId @param {Provider} provider @param {Conversation} conversation @param {string[]} secrets
   * @param {{approve?: import('../agent/runtime/tool-runner.js').ApproveFn, profile?: AgentProfile, depth?: number,
   *   recorder?: import('../agent/runtime/undo.js').TurnRecorder, callerPaths?: Set<string>,
   *   limits?: import('./chat/types.d.ts').TurnLimits}} [options] profile: a named agent answers; limits: a channel's tools and autonomy;
   *   depth: how deep a sub-agent is (0: the user's agent); recorder: the undo recorder of the turn this one belongs to (a sub-agent's
   *   caller);
   *   callerPaths: the paths the caller's turn changed (a sub-agent's are added to them)
   */
  async agent(workspaceId, provider, conversation, secrets, options = {}) {
    const parts = await this.parts(workspaceId, conversation.id, options);
    const profile = options.profile;
    // The workspace's own agent is shaped by the workspace's identity; a named one by its own.
    const identity = profile
      ? undefined
      : await this.#deps
          .services(workspaceId)
          .agents()
          .then((a) => a.identity())
          .catch(() => null);
    const base = agentSystemPrompt(profile ?? (identity ? { identity } : {}), DEFAULT_SYSTEM_PROMPT);
    // MCP servers' tokens are redacted like API keys.
    const mcpSecrets = await this.#deps
      .services(workspaceId)
      .mcp()
      .then((m) => m.secretValues())
      .catch(() => []);
    // Active goals ride along in the system prompt so the agent keeps pursuing them.
    const goals = await this.#deps
      .services(workspaceId)
      .goals.summary(2000, parts.safety.enabled ? parts.safety.sanitizer : null)
      .catch(() => '');
    const memory = parts.tools.context.memory;
    // Enabled skills are offered by name and description; their instructions load on activation.
    const skills = (await parts.tools.context.skills?.active().catch(() => [])) ?? [];
    // The fallback chain's keys are redacted like the primary's.
    const chainSecrets =
      'secrets' in provider && Array.isArray(provider.secrets) ? provider.secrets.filter((k) => typeof k === 'string') : [];
    const agent = new ClawserAgent({
      provider,
      conversation,
      secrets: [...new Set([...secrets, ...chainSecrets, ...mcpSecrets])],
      tools: parts.tools,
      codex: parts.codex,
      hooks: this.#deps.hooks,
      autonomy: parts.autonomy,
      safety: parts.safety,
      systemPrompt: `${base}${skillsPrompt(skills)}${goals}`,
      maxIterations: profile?.maxIterations ?? parts.settings.maxIterations,
      ...(profile ? { label: profile.name } : {}),
      selfRepair: parts.settings.selfRepair,
      compaction: { thresholdTokens: compactAt(parts.settings.compactionThresholdTokens, await contextOf(provider)), keepRecent: 10 },
      recall:
        parts.settings.memory.autoRecall && memory ? (text) => recallForTurn(memory, text, parts.settings.memory.recallLimit) : undefined,
      ledger: this.#deps.services(workspaceId).usage,
      // Compaction summaries on the device when Chrome has its summarizer (no key, no cost).
      onDeviceSummarizer: async () => (await import('../providers/on-device-summarizer.js')).onDeviceSummarizer(),
    });
    // A sub-agent without a definition is a copy of this agent: its prompt and identity.
    const self = profile ? { systemPrompt: profile.systemPrompt, identity: profile.identity } : { identity: identity ?? undefined };
    this.#enableDelegation(workspaceId, agent, parts, { provider, secrets, approve: options.approve, depth: options.depth ?? 0, self });
    return { agent, settings: parts.settings };
  }

  /**
   * Gives an agent's tools `agent_delegate`: sub-agents in child conversations, with at most this
   * agent's tools and autonomy, a slot each (the turn's cap), one level deeper.
   * @param {string} workspaceId @param {ClawserAgentType} agent @param {Awaited<ReturnType<AgentFactory['parts']>>} parts
   * @param {{provider: Provider, secrets: string[], approve?: import('../agent/runtime/tool-runner.js').ApproveFn, depth: number,
   *   self: {systemPrompt?: string, identity?: import('../agent/runtime/identity.js').IdentitySource}}} caller
   */
  #enableDelegation(workspaceId, agent, parts, caller) {
    const create = this.#deps.createChildConversation;
    if (!create) return;
    const settings = parts.settings.delegation;
    const slots = new Semaphore(settings.maxParallel);
    const registry = parts.tools.registry;
    const conversationId = agent.conversation.id;
    parts.tools.context.delegate = (args, call) =>
      runDelegation(args, call, {
        depth: caller.depth,
        settings,
        slots,
        callerTools: registry.list().map((t) => t.name),
        callerAutonomy: parts.autonomy.config.level,
        callerName: agent.label ?? DEFAULT_AGENT_NAME,
        callerTaint: parts.tools.taint,
        callerPrompt: caller.self,
        parentConversationId: conversationId,
        // Its MCP tools are the ones its list was saved for (see AgentStore.forUse).
        resolve: async (name) => {
          const store = await this.#deps.services(workspaceId).agents();
          const found = await store.get(name);
          if (!found) return null;
          const { agent, leftOut } = await store.forUse(found);
          return { ...agent, leftOut };
        },
        createConversation: (title, parent) => create(workspaceId, title, parent),
        buildAgent: async (conversation, profile, definition, depth) => {
          const own = definition ? await this.#providerFor(workspaceId, definition) : null;
          const secrets = own?.apiKey ? [...caller.secrets, own.apiKey] : caller.secrets;
          // Its changes belong to the caller's turn: one undo takes them back too, and the commit
          // after the turn holds its paths (and the names of its write tools).
          const child = (
            await this.agent(workspaceId, own?.provider ?? caller.provider, conversation, secrets, {
              ...(caller.approve ? { approve: caller.approve } : {}),
              profile,
              depth,
              ...(parts.tools.recorder ? { recorder: parts.tools.recorder } : {}),
              ...(parts.tools.writtenPaths ? { callerPaths: parts.tools.writtenPaths } : {}),
            })
          ).agent;
          if (child.tools) child.tools.writes = parts.tools.writes;
          return child;
        },
        changesFiles: (name) => registry.get(name)?.permission === 'write',
        board: this.#deps.delegationBoard?.(workspaceId),
      });
  }

  /**
   * A provider call made outside a turn (a conversation's title): its tokens go to the usage
   * ledger and its cost to the workspace's daily limit, like a turn's.
   * @param {string} workspaceId @param {Provider} provider @param {{inputTokens: number, outputTokens: number}} usage
   */
  async recordSideUsage(workspaceId, provider, usage) {
    const pricing = await import('../providers/pricing.js');
    const cents = pricing.costCents(provider.id, provider.model, usage);
    const costCents = cents ?? 0;
    const s = this.#deps.agentSettings.load(workspaceId);
    new AutonomyController({ config: s.autonomy, ...this.#deps.agentSettings.usageStore(workspaceId) }).recordCost(costCents);
    this.#deps.services(workspaceId).usage.recordTurn({
      provider: provider.id,
      model: provider.model,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      costCents,
      unpriced: cents === null,
    });
  }

  /**
   * The workspace's providers the circuit breaker skips now (for the chat's notice).
   * @param {string} workspaceId
   * @returns {{provider: string, failures: number, retryAt: number}[]}
   */
  pausedProviders(workspaceId) {
    // Only a chain skips a provider: the only one is still asked, so nothing is "paused".
    if (!this.#deps.agentSettings.load(workspaceId).providers.fallbacks.length) return [];
    return (this.#breakers.get(workspaceId)?.openKeys() ?? []).map((o) => ({ provider: o.key, failures: o.failures, retryAt: o.retryAt }));
  }

  /**
   * The chat model that summarizes long memories when the device cannot (see
   * web/memory/summaries.js): the Fast routing hint's model when one is set, else the
   * workspace's; none for Echo (no AI), without a provider, or once a cost limit is reached.
   * Nor the workspace's model when it takes no background work (one run by this computer's CPU
   * in the page): only a Fast hint, the user's own choice, sends summaries there.
   * Its tokens count like a title's.
   * @param {string} workspaceId
   * @returns {Promise<import('../memory/summaries.js').ModelSummarizer | null>}
   */
  async summaryModel(workspaceId) {
    const s = this.#deps.agentSettings.load(workspaceId);
    if (new AutonomyController({ config: s.autonomy, ...this.#deps.agentSettings.usageStore(workspaceId) }).checkCost()) return null;
    const settings = this.#deps.providerSettings;
    if (!settings) return null;
    const fast = s.providers.routes.fast;
    const config = fast
      ? {
          provider: fast.provider,
          model: fast.model || undefined,
          baseUrl: fast.baseUrl || undefined,
          apiKey: await settings.apiKey(workspaceId, fast.provider).catch(() => undefined),
        }
      : await settings.providerConfig(workspaceId);
    const caps = config ? catalogEntry(config.provider)?.capabilities : undefined;
    if (!config || caps?.test || (!fast && caps?.background === false)) return null;
    const provider = await this.provider(workspaceId, config);
    return {
      // Read after the call: the chain's entry that answered (a fallback, maybe) names the summary.
      by: () => `${provider.id}/${provider.model}`,
      chat: (request, options) => provider.chat(request, options),
      record: (usage) => this.recordSideUsage(workspaceId, provider, usage).catch(() => {}),
    };
  }

  /**
   * Code that must not share a sandbox with other code (a skill's script: what it leaves behind,
   * a timer, could otherwise call tools a later run is granted): a sandbox of its own, started
   * for it and disposed after.
   * @param {string} code @param {ToolRunner} tools @param {AbortSignal | undefined} signal @param {{only?: string[], adapt?: boolean}} o
   */
  async #runIsolated(code, tools, signal, o) {
    const sandbox = import('../packages/andbox/index.js').then(({ createSandbox }) =>
      createSandbox({ timeoutMs: 300_000, imports: { fflate: new URL('../vendor/fflate.js', import.meta.url).href } }),
    );
    try {
      return await new Codex({ getSandbox: () => sandbox }).run(code, {
        tools,
        signal,
        ...(o.only ? { only: o.only } : {}),
        ...(o.adapt === false ? { adapt: false } : {}),
      });
    } finally {
      sandbox.then(
        (sb) => sb.dispose(),
        () => {},
      );
    }
  }

  /**
   * "Run again" of a code card: its own runner and abort signal, and a sandbox of its own
   * (created for this run, disposed after) — never the warm one a turn may be using.
   * Its runner starts with the conversation's taint (`taint`), as a turn's does.
   * @param {string} workspaceId @param {string} conversationId @param {string} code @param {AbortSignal | undefined} signal
   * @param {import('../agent/runtime/tool-runner.js').TaintSource[]} taint
   */
  async runAgain(workspaceId, conversationId, code, signal, taint) {
    const parts = await this.parts(workspaceId, conversationId);
    for (const t of taint) parts.tools.addTaint(t);
    return this.#runIsolated(code, parts.tools, signal, {});
  }

  /**
   * The pieces of an agent run for a workspace, built from its current settings: safety,
   * autonomy, the gated tool runner and the Codex with the conversation's warm sandbox.
   * @param {string} workspaceId
   * @param {string} conversationId
   * @param {{approve?: import('../agent/runtime/tool-runner.js').ApproveFn, profile?: AgentProfile,
   *   recorder?: import('../agent/runtime/undo.js').TurnRecorder, callerPaths?: Set<string>,
   *   limits?: import('./chat/types.d.ts').TurnLimits}} [options] limits: a channel's tools and autonomy; approve: a scheduled job's (names
   *   the job, times out);
   *   profile: a named agent or sub-agent (its tools and autonomy narrow the workspace's); recorder: the turn's undo recorder when it has
   *   one already;
   *   callerPaths: a sub-agent's caller's changed paths (its own are added to them)
   */
  async parts(workspaceId, conversationId, options = {}) {
    const agentSettings = this.#deps.agentSettings;
    const services = this.#deps.services(workspaceId);
    const s = agentSettings.load(workspaceId);
    // The MCP servers of the workspace exist (their tools are in the registry while connected).
    const mcp = await services.mcp().catch(() => undefined);
    // The approved built tools are in the registry before its tools are listed (a named agent's subset too).
    await services.builtTools?.().catch(() => undefined);
    const safety = new SafetyPipeline({ leakAction: s.leakAction, allowedPrivateHosts: s.allowedPrivateHosts });
    if (!s.safetyEnabled) {
      // The user confirmed this in the Settings dialog; the pipeline still needs both steps.
      safety.confirmDisable();
      safety.setEnabled(false);
    }
    const profile = options.profile;
    // A channel's turn: its own tools and autonomy narrow the agent's (never widen them).
    const limits = options.limits;
    // Usage is the workspace's: a named agent's or sub-agent's actions and cost count toward its limits.
    const autonomy = new AutonomyController({
      config: { ...s.autonomy, level: lowerAutonomy(lowerAutonomy(s.autonomy.level, profile?.autonomy), limits?.autonomy) },
      ...agentSettings.usageStore(workspaceId),
    });
    const subset = profile?.tools || limits;
    const registry = subset
      ? new ToolSubset(
          services.registry,
          allowedTools(
            allowedTools(
              services.registry.list().map((t) => t.name),
              profile?.tools,
            ),
            limits?.tools,
          ),
        )
      : services.registry;
    const context = await this.toolContext(workspaceId, conversationId, mcp);
    if (subset) context.toolNames = registry.list().map((t) => t.name);
    if (profile) context.agentName = profile.name;
    // What the turn's tools change is noted for undo: before the first change, and at the end.
    // The paths they change — through files, the shell, code, goals' mirrors, a git restore —
    // are the commit after the turn (and a sub-agent's report).
    const written = new TurnPaths(options.callerPaths);
    const recording = recordingContext(
      { fs: context.fs, memory: context.memory, goals: context.goals, scheduler: context.scheduler, git: context.git },
      options.recorder,
      written,
    );
    Object.assign(context, {
      fs: recording.fs,
      memory: recording.memory,
      goals: recording.goals,
      scheduler: recording.scheduler,
      git: recording.git,
    });
    const tools = new ToolRunner({
      registry,
      context,
      hooks: this.#deps.hooks,
      autonomy,
      safety,
      // A named agent's or sub-agent's request says who asks.
      approve: profile
        ? (req) => (options.approve ?? approvalDialog)({ ...req, agent: profile.name })
        : (options.approve ?? approvalDialog),
      maxResultChars: s.maxToolResultChars,
      ledger: services.usage,
    });
    tools.recorder = recording.recorder;
    tools.writtenPaths = written;
    // Connected MCP servers' tool descriptions are in every request: text from outside, so the
    // conversation counts as having read outside content (standing-state tools ask).
    for (const server of mcp?.servers() ?? []) {
      if (mcp?.state(server.id).tools.length)
        tools.addTaint({ tool: 'mcp', what: `tool descriptions written by the MCP server “${server.name}”` });
    }
    // The shell's `clawser` and `curl` act through this same runner: one path through the gates.
    let nested = 0;
    tools.context.callTool = async (name, args, signal) => {
      const outcome = await tools.run({ id: `shell_${Date.now().toString(36)}_${nested++}`, name, arguments: args }, { signal });
      return { ok: outcome.ok, output: outcome.output };
    };
    tools.context.authorizeTool = (name, args, signal) =>
      tools.authorize({ id: `shell_${Date.now().toString(36)}_${nested++}`, name, arguments: args }, { signal });
    const codex = new Codex({ getSandbox: () => this.#sandboxFor(conversationId) });
    tools.context.runCode = (code, signal, o) =>
      o?.isolated
        ? this.#runIsolated(code, tools, signal, o)
        : codex.run(code, { tools, signal, ...(o?.only ? { only: o.only } : {}), ...(o?.adapt === false ? { adapt: false } : {}) });
    // Python (run_python and ```python blocks): the conversation's own Python sandbox.
    tools.context.runPython = async (code, o) => (await this.#pythons.for(conversationId, o.signal)).run(code, o);
    return { settings: s, safety, autonomy, tools, codex };
  }

  /**
   * What a workspace's tools get: its files (Clawser's own folders read-only), stores, settings.
   * The agent's runner and the terminal's `clawser` command use it.
   * @param {string} workspaceId @param {string | undefined} conversationId
   * @param {import('../mcp/manager.js').McpManager} [mcp]
   * @returns {Promise<import('../tools/types.d.ts').ToolContext>}
   */
  async toolContext(workspaceId, conversationId, mcp) {
    const agentSettings = this.#deps.agentSettings;
    const services = this.#deps.services(workspaceId);
    const s = agentSettings.load(workspaceId);
    return {
      workspaceId,
      // Tools change files, never Clawser's own folders — enforced in storage, so the safety switch cannot lift it.
      fs: new ProtectedFileSystem(this.#deps.workspaceFs(workspaceId)),
      git: await services.git(),
      memory: await services.memory(),
      skills: await services.skills(),
      // Loaded before the tools are listed: the approved built tools are registered by then.
      builtTools: await services.builtTools?.().catch(() => undefined),
      mcp: mcp ?? (await services.mcp().catch(() => undefined)),
      remote: services.remote,
      companion: await services.companion?.().catch(() => undefined),
      goals: services.goals,
      scheduler: services.scheduler,
      conversationId,
      contentOrigin: this.contentOrigin(workspaceId),
      toolNames: services.registry.list().map((t) => t.name),
      settings: toolSettings({
        ...s.tools,
        allowedPrivateHosts: s.allowedPrivateHosts,
        searchApiKey: await agentSettings.searchApiKey(workspaceId),
      }),
      fetch: globalThis.fetch.bind(globalThis),
      ui: services.toolUi,
      // Every service of the workspace, as panels get them: a tool's new service needs no line here.
      services,
    };
  }

  /**
   * Where the workspace's files come from when it is outside content (the taint of issue 11):
   * a folder opened from the computer, or a repository with a remote (cloned, or pulled from).
   * Conservative: every file of such a workspace counts, the user's own edits included.
   * @param {string} workspaceId
   * @returns {(path?: string) => Promise<string | null>}
   */
  contentOrigin(workspaceId) {
    return async (path) => {
      const folder = this.#deps.mountedFolder(workspaceId);
      if (folder) return `${path === undefined ? 'content' : 'a file'} of the folder “${folder}” opened from the computer`;
      const remotes = await (await this.#deps.services(workspaceId).git()).remotes().catch(() => []);
      if (!remotes.length) return null;
      let url = remotes[0].url;
      try {
        const u = new URL(url);
        u.username = '';
        u.password = '';
        url = u.href;
      } catch {
        url = 'elsewhere';
      }
      return `${path === undefined ? 'the history' : 'a file'} of the repository cloned from ${url}`;
    };
  }

  /** @type {Map<string, Promise<import('../packages/andbox/index.js').Sandbox>>} */
  #sandboxes = new Map();

  /**
   * One warm sandbox per conversation (reused between its runs); the three most recent stay.
   * @param {string} conversationId
   */
  #sandboxFor(conversationId) {
    let sb = this.#sandboxes.get(conversationId);
    if (sb) {
      this.#sandboxes.delete(conversationId);
      this.#sandboxes.set(conversationId, sb);
      return sb;
    }
    // Loaded on first use: most turns never run code.
    sb = import('../packages/andbox/index.js').then(({ createSandbox }) =>
      createSandbox({ timeoutMs: 300_000, imports: { fflate: new URL('../vendor/fflate.js', import.meta.url).href } }),
    );
    sb.catch(() => this.#sandboxes.delete(conversationId));
    this.#sandboxes.set(conversationId, sb);
    while (this.#sandboxes.size > 3) {
      const [oldest, p] = /** @type {[string, Promise<import('../packages/andbox/index.js').Sandbox>]} */ (
        this.#sandboxes.entries().next().value
      );
      this.#sandboxes.delete(oldest);
      p.then(
        (x) => x.dispose(),
        () => {},
      );
    }
    return sb;
  }

  /** The conversations' Python sandboxes (run_python). */
  #pythons = new PythonSandboxes();
}

/** A provider's own context, where it sets one (never fails a turn). @param {Provider} provider */
async function contextOf(provider) {
  return (await provider.contextWindow?.().catch(() => null)) ?? null;
}

/**
 * When a conversation is compacted: the workspace's setting, or sooner when the model's own
 * context is smaller (a local model's): at 60% of it, leaving room for the tools, the reply and
 * the estimate's error.
 * @param {number} setting @param {number | null} window
 */
export function compactAt(setting, window) {
  return window ? Math.max(1000, Math.min(setting, Math.floor(window * 0.6))) : setting;
}
