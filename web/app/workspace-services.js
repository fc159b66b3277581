/** @import { FileSystem } from '../storage/types.d.ts' */
/** @import { ClawserAgent } from '../agent/runtime/agent.js' */
/** @import { Coordination } from '../agent/types.d.ts' */
import { ArtifactDocument } from './artifact.js';
import { ArtifactShelf } from './artifacts.js';
import { AppToolUi } from './tool-ui.js';
import { GoalStore } from '../stores/goals.js';
import { Scheduler, shouldDeliver } from '../stores/scheduler.js';
import { UsageLedger } from '../stores/usage-ledger.js';
import { createBuiltinRegistry } from '../tools/index.js';
import { ScopedFileSystem } from '../storage/scoped-fs.js';
import { MountStore } from '../storage/mounts.js';
import { MountedFileSystem } from '../storage/mounted-fs.js';
import { ProtectedFileSystem } from '../storage/protected-fs.js';
import { askUserDialog, pickDeviceDialog } from '../ui/approval-dialog.js';
import { commitTurn, commitTakeBack } from './turn-commit.js';
import { madeOnFirstUse } from './made-on-first-use.js';

/** @typedef {import('./services.d.ts').Services} Services */
/** @typedef {import('./services.d.ts').WorkspaceMount} WorkspaceMount */
/** @typedef {import('./services.d.ts').Mount} Mount */
/** @typedef {import('../storage/damage.js').DamageSink} DamageSink */

/** Set once this tab's schedulers have read every workspace's jobs (tests wait for it). */
export const SCHEDULERS_STARTED_MARK = 'clawser-schedulers-started';
/**
 * Set each time a workspace's scheduler found missed times (detail: the workspace and what it
 * found), before they run; the bench times the first after launch (jobCatchUpFoundMs).
 */
export const MISSED_JOBS_FOUND_MARK = 'clawser-missed-jobs-found';

/** A global folder's sink, as the stores name it. @param {{onDamage?: DamageSink}} damage @returns {{onGlobalDamage?: DamageSink}} */
const renameSink = (damage) => (damage.onDamage ? { onGlobalDamage: damage.onDamage } : {});

/**
 * The per-workspace services: the tool registry, stores (memory, goals, scheduled jobs), the
 * files controller and repository over the workspace's files (its OPFS folder or a folder
 * opened from the computer), git's automatic init and commit, and the schedulers of every
 * workspace. No UI: the orchestrator shows what these do.
 */
export class WorkspaceServices {
  /** @type {Map<string, Services>} */
  #services = new Map();
  /** Folders opened from the computer, by workspace (loaded when the workspace is first shown). @type {Map<string, Mount | null>} */
  #mounted = new Map();
  /**
   * The folder-handle FileSystem class, loaded only when a folder is opened.
   * @type {typeof import('../storage/handle-fs.js').DirectoryHandleFileSystem | null}
   */
  #HandleFs = null;
  /** Workspaces whose repository was ensured on this page (once is enough). */
  #gitChecked = new Set();
  /** Stops the memory summaries of a workspace (when its memory was loaded). @type {Map<string, () => void>} */
  #stopMemory = new Map();
  /** Disconnects the MCP servers of a workspace (when its manager was made). @type {Map<string, () => void>} */
  #stopMcp = new Map();
  /** Workspaces whose saved MCP servers were connected on this page. */
  #mcpStarted = new Set();
  /** True once this tab runs the workspaces' scheduled jobs. */
  #schedulersOn = false;

  /**
   * @param {{fs: FileSystem, config: import('../storage/types.d.ts').ConfigStore, coordination: Coordination,
   *   tabs: import('../agent/coordination/tabs.js').TabCoordinator, restoreGate:
   *   import('../agent/coordination/restore-gate.js').RestoreGate,
   *   agentSettings: import('./agent-settings.js').AgentSettingsStore, semantic: import('./semantic.js').SemanticSearch,
   *   mounts: MountStore, screenshotTarget: () => HTMLElement,
   *   runJob: (workspaceId: string, job: import('../stores/scheduler.js').Job, run: import('../stores/scheduler.js').JobRunInfo)
   *   => Promise<any>,
   *   summaryModel: (workspaceId: string) => Promise<import('../memory/summaries.js').ModelSummarizer | null>, whenIdle: (fn: () => void)
   *   => void,
   *   secrets: import('../storage/secrets.js').SecretBox,
   *   toolContext: (workspaceId: string) => Promise<import('../tools/types.d.ts').ToolContext>,
   *   chat: (workspaceId: string) => import('./chat-controller.js').ChatController,
   *   mcpRunner?: (workspaceId: string, o: {profile: {name: string, tools: string[]}, approve?:
   *   import('../agent/runtime/tool-runner.js').ApproveFn}) => Promise<import('../agent/runtime/tool-runner.js').ToolRunner>,
   *   workspaceName?: (workspaceId: string) => string,
   *   quiet: () => boolean, guard: (p: Promise<unknown>) => void,
   *   damage?: (workspaceId: string, place: {fs: FileSystem, prefix: string, global?: boolean}) =>
   *   import('../storage/damage.js').DamageSink}} deps
   *   runJob: runs one occurrence of a scheduled job (job delivery); summaryModel: the chat model that summarizes long
   *   memories when the device cannot; toolContext: what the terminal's `clawser` command's tools get; chat: the
   *   workspace's conversations; mcpRunner: a gated ToolRunner of the workspace as a turn gets one (for MCP calls);
   *   workspaceName: a workspace's name as the user sees it; quiet: a restore runs, background writers must not start;
   *   damage: where the stores of a workspace report damaged files (`prefix`: where `fs` is in the page's storage;
   *   `global`: files every workspace shares)
   */
  constructor(deps) {
    this.deps = deps;
  }

  /**
   * Where a workspace's stores report damaged files (nowhere without the app's notice).
   * @param {string} workspaceId @param {boolean} [global] the browser-wide folders (skills, agents)
   * @param {string} [folder] that folder (`clawser_skills`, `clawser_agents`)
   * @returns {{onDamage?: import('../storage/damage.js').DamageSink}}
   */
  #damage(workspaceId, global = false, folder = '') {
    const d = this.deps;
    if (!d.damage) return {};
    const place = global
      ? { fs: new ScopedFileSystem(d.fs, folder), prefix: `${folder}/`, global }
      : { fs: this.workspaceFs(workspaceId), prefix: `clawser_workspaces/${workspaceId}/` };
    return { onDamage: d.damage(workspaceId, place) };
  }

  /** @param {string} workspaceId @returns {Services} */
  of(workspaceId) {
    let s = this.#services.get(workspaceId);
    if (!s) {
      const d = this.deps;
      const artifact = new ArtifactDocument();
      /** @type {Promise<import('../skills/store.js').SkillStore> | null} */
      let skills = null;
      /** @type {Promise<import('../mcp/manager.js').McpManager> | null} */
      let mcp = null;
      /** @type {Promise<import('../agent/runtime/agent-store.js').AgentStore> | null} */
      let agents = null;
      /** @type {Promise<import('../tools/builder/store.js').BuiltToolStore> | null} */
      let built = null;
      const registry = createBuiltinRegistry({ config: d.config, workspaceId });
      // Saved lists of tools (agents', skills') bind the MCP tools they name to their servers (web/mcp/tool-lists.js).
      /** @type {import('../mcp/tool-lists.js').ToolListBinder} */
      const toolLists = {
        bind: async (owner, names) => (await this.of(workspaceId).mcp()).bindToolList(owner, names),
        forget: async (owner) => {
          (await this.of(workspaceId).mcp()).forgetToolList(owner);
        },
        resolve: async (owner, names) => (await this.of(workspaceId).mcp()).toolListFor(owner, names),
      };
      /**
       * @type {Promise<{store: import('../memory/store.js').MemoryStore, summaries: import('../memory/summaries.js').MemorySummaries}>
       *   | null}
       */
      let memory = null;
      // The store and the summaries of its long memories, made in the background (see web/memory/summaries.js).
      const memoryParts = () =>
        (memory ??= Promise.all([
          import('../memory/store.js'),
          import('../memory/summaries.js'),
          import('../providers/on-device-summarizer.js'),
          d.semantic.embedder(),
        ]).then(([{ MemoryStore }, { MemorySummaries }, { onDeviceSummarizer }, embedder]) => {
          const store = new MemoryStore({
            fs: this.workspaceFs(workspaceId),
            embedder,
            coordination: d.coordination,
            key: workspaceId,
            ...this.#damage(workspaceId),
          });
          const summaries = new MemorySummaries({
            store,
            // Summaries serve automatic recall: none are made (or paid for) while it is off.
            mode: () => {
              const m = d.agentSettings.load(workspaceId).memory;
              return m.autoRecall ? m.summaries : 'off';
            },
            onDevice: () => onDeviceSummarizer(undefined, 'memory'),
            model: () => d.summaryModel(workspaceId),
            // The tabs' lock, not the restore gate's: a restore must not wait for a model call in flight
            // (the store's own writes still go through the gate).
            lock: (fn) => d.tabs.withLock(`memory-summaries:${workspaceId}`, fn),
            whenIdle: d.whenIdle,
            // Not while a restore runs: its writes would land in the files being replaced.
            paused: d.quiet,
          }).start();
          this.#stopMemory.set(workspaceId, () => summaries.stop());
          return { store, summaries };
        }));
      s = {
        registry,
        artifact,
        // What replies made (HTML, SVG, Mermaid, CSV), versioned under the workspace's artifacts/.
        artifacts: new ArtifactShelf(this.workspaceFs(workspaceId)),
        toolUi: new AppToolUi({ artifact, askUser: askUserDialog, pickDevice: pickDeviceDialog, screenshotTarget: d.screenshotTarget }),
        ...this.#fileServices(workspaceId),
        memory: () => memoryParts().then((m) => m.store),
        summaries: () => memoryParts().then((m) => m.summaries),
        // MCP servers: their tools join this workspace's registry while connected.
        mcp: () =>
          (mcp ??= import('../mcp/manager.js').then(({ McpManager }) => {
            // OAuth-signed servers: their access token (refreshed when it expires) on every request.
            /** @param {import('../mcp/manager.js').McpServerConfig} server */
            const authHeaders = (server) => this.mcpAuth().then((a) => a.oauth.headers(workspaceId, server));
            // A server marked "through my relay": that machine's wsh relay makes its requests.
            /** @param {string} machine @returns {typeof fetch} */
            const relayFetch = (machine) => async (input, init) => (await this.remote()).relayFetch(machine)(input, init);
            const manager = new McpManager({ config: d.config, secrets: d.secrets, registry, workspaceId, authHeaders, relayFetch });
            this.#stopMcp.set(workspaceId, () => manager.closeAll());
            return manager;
          })),
        // Global skills (every workspace) and the workspace's own; this store is the only writer of both folders.
        skills: () =>
          (skills ??= import('../skills/store.js').then(
            ({ SkillStore }) =>
              new SkillStore({
                globalFs: new ScopedFileSystem(d.fs, 'clawser_skills'),
                workspaceFs: this.workspaceFs(workspaceId),
                config: d.config,
                workspaceId,
                coordination: d.coordination,
                toolLists,
                ...this.#damage(workspaceId),
                ...renameSink(this.#damage(workspaceId, true, 'clawser_skills')),
              }),
          )),
        // Tools defined with the tool builder: kept as workspace skills, registered once approved (web/tools/builder/).
        builtTools: () => {
          const made = (built ??= Promise.all([import('../tools/builder/store.js'), import('../packages/andbox/index.js')]).then(
            async ([{ BuiltToolStore }, { createSandbox }]) => {
              const store = new BuiltToolStore({
                registry,
                skills: () => this.of(workspaceId).skills(),
                config: d.config,
                workspaceId,
                // Each call a sandbox of its own, with only the tool's declared capabilities.
                createSandbox: (o) => createSandbox({ capabilities: o.capabilities, timeoutMs: o.timeoutMs }),
              });
              // A skill that cannot be read never stops the workspace: the Tools panel says what is wrong.
              await store.sync().catch(() => {});
              return store;
            },
          ));
          made.catch(() => {
            if (built === made) built = null;
          });
          return made;
        },
        // Named agents (the workspace's and the global ones) and the workspace's identity; the only writer of `.agents/`.
        agents: () =>
          (agents ??= import('../agent/runtime/agent-store.js').then(
            ({ AgentStore }) =>
              new AgentStore({
                fs: this.workspaceFs(workspaceId),
                globalFs: new ScopedFileSystem(d.fs, 'clawser_agents'),
                coordination: d.coordination,
                key: workspaceId,
                toolLists,
                ...this.#damage(workspaceId),
                ...renameSink(this.#damage(workspaceId, true, 'clawser_agents')),
              }),
          )),
        goals: new GoalStore({
          fs: this.workspaceFs(workspaceId),
          coordination: d.coordination,
          key: workspaceId,
          ...this.#damage(workspaceId),
        }),
        usage: new UsageLedger({
          fs: this.workspaceFs(workspaceId),
          coordination: d.coordination,
          key: workspaceId,
          ...this.#damage(workspaceId),
        }),
        scheduler: new Scheduler({
          fs: this.workspaceFs(workspaceId),
          execute: (job, run) => d.runJob(workspaceId, job, run).then((result) => this.#toChannel(workspaceId, job, result)),
          missedPolicy: () => d.agentSettings.load(workspaceId).scheduler.missedPolicy,
          // Jobs are claimed under a cross-tab lock, so an occurrence runs once however many tabs are open.
          lock: (name, fn) => d.restoreGate.write(() => d.tabs.withLock(`sched:${workspaceId}:${name}`, fn)),
          onChange: () => d.tabs.publish(`scheduler:${workspaceId}`, {}),
          bindTool: async (name) => (await this.of(workspaceId).mcp()).bindingsOf([name]).bound[name],
          onFound: (found) => performance.mark(MISSED_JOBS_FOUND_MARK, { detail: { workspaceId, ...found } }),
          ...this.#damage(workspaceId),
        }),
        terminal: () => this.#terminal(workspaceId),
        mcpAuth: () => this.mcpAuth(),
        remote: () => this.remote(),
        companion: () => this.#companion(workspaceId),
        mcpServe: () => this.#mcpServe(workspaceId),
        channels: () => this.#channelHost().then((host) => host.of(workspaceId)),
        mount: {
          workspaceId,
          current: () => this.mountOf(workspaceId),
          set: (mount) => this.setMount(workspaceId, mount),
          permissionChanged: () => this.refreshFiles(workspaceId),
        },
        semantic: d.semantic,
        tabs: d.tabs,
        // Its own folder (a folder opened from the computer is not in the browser's storage).
        measureWorkspace: async (id, signal) => {
          const { folderBytes } = await import('../storage/quota.js');
          return folderBytes(d.fs, `clawser_workspaces/${id}`, { signal });
        },
      };
      this.#services.set(workspaceId, s);
      const scheduler = s.scheduler;
      d.tabs.subscribe(`scheduler:${workspaceId}`, () => d.guard(scheduler.reload()));
      if (this.#schedulersOn) d.guard(scheduler.start());
    }
    return s;
  }

  /**
   * OAuth sign-in for MCP servers (the page's), loaded with the first server that needs it.
   * @type {Promise<import('./mcp-auth.js').McpAuth> | null}
   */
  #mcpAuth = null;
  mcpAuth() {
    const { config, secrets } = this.deps;
    return (this.#mcpAuth ??= import('./mcp-auth.js').then(({ McpAuth }) => new McpAuth({ config, secrets })));
  }

  /** The user's machines through wsh (the page's), loaded with the first tool call or panel that needs them. */
  #remote = madeOnFirstUse(() =>
    import('../stores/remote-machines.js').then(({ RemoteMachines }) => new RemoteMachines({ config: this.deps.config })),
  );
  remote() {
    return this.#remote('');
  }

  /** Each workspace's client of the companion extension, made on first use. */
  #companion = madeOnFirstUse((workspaceId) =>
    import('../net/companion.js').then(
      ({ CompanionClient }) =>
        new CompanionClient({
          // `chrome` is Chrome's, on a page only when an installed extension lists the page's origin: untyped here on purpose.
          runtime: () => /** @type {any} */ (globalThis).chrome?.runtime,
          extensionId: () => this.deps.agentSettings.load(workspaceId).tools.companionId,
        }),
    ),
  );

  /** Each workspace's MCP exposure, made on first use. */
  #mcpServe = madeOnFirstUse((workspaceId) =>
    Promise.all([import('./mcp-serve.js'), import('../ui/approval-dialog.js')]).then(([{ McpServe }, { approvalDialog }]) => {
      const d = this.deps;
      const runner = d.mcpRunner;
      if (!runner) throw new Error('Exposing over MCP is not available here (no tool runner).');
      return new McpServe({
        workspaceId,
        config: d.config,
        registry: this.of(workspaceId).registry,
        remote: () => this.remote(),
        name: () => d.workspaceName?.(workspaceId) ?? workspaceId,
        runner: (o) => runner(workspaceId, o),
        approve: approvalDialog,
      });
    }),
  );

  /** Every workspace's channels, made on first use (a page whose workspaces have none never loads them). */
  #channelHosts = madeOnFirstUse(() =>
    Promise.all([import('./channels.js'), import('../ui/approval-dialog.js')]).then(([{ ChannelHost }, { approvalDialog }]) => {
      const d = this.deps;
      return new ChannelHost({
        config: d.config,
        secrets: d.secrets,
        chat: d.chat,
        agentSettings: d.agentSettings,
        workspaceName: (id) => d.workspaceName?.(id) ?? id,
        approve: approvalDialog,
        // Incoming webhooks reach the page through the user's own wsh server (the Remote panel's machines).
        remote: () => this.remote(),
      });
    }),
  );
  #channelHost() {
    return this.#channelHosts('');
  }

  /**
   * A job's result also goes out through the channel it names, when its delivery setting says
   * so (a failure to send is in the channel's traffic; the job's own result is unchanged).
   * @param {string} workspaceId @param {import('../stores/scheduler.js').Job} job @param {any} result
   */
  async #toChannel(workspaceId, job, result) {
    const r = /** @type {import('../stores/scheduler.js').JobOutcome | undefined} */ (result);
    if (!job.channel || !r || r.quiet || r.needsApproval || !shouldDeliver(job.delivery, r.ok)) return result;
    const title = `Scheduled job “${job.name}” ${r.ok ? 'finished' : 'failed'}`;
    await this.#channelHost()
      .then((host) => host.of(workspaceId).deliver(/** @type {string} */ (job.channel), { title, text: r.summary.slice(0, 8000) }))
      .catch(() => {});
    return result;
  }

  /**
   * Each workspace's terminal sessions (they outlive the panel's view), made on first use.
   * @type {Promise<import('./terminal-actions.js').TerminalHosts> | null}
   */
  #terminals = null;
  /** @param {string} workspaceId */
  async #terminal(workspaceId) {
    const d = this.deps;
    const hosts = (this.#terminals ??= import('./terminal-actions.js').then(
      ({ TerminalHosts }) =>
        new TerminalHosts({
          config: d.config,
          agentSettings: d.agentSettings,
          services: (id) => this.of(id),
          workspaceFs: (id) => this.workspaceFs(id),
          toolContext: d.toolContext,
          chat: d.chat,
        }),
    ));
    // A module that failed to load is asked for again next time.
    hosts.catch(() => {
      if (this.#terminals === hosts) this.#terminals = null;
    });
    return (await hosts).of(workspaceId);
  }

  /** A workspace was deleted: its scheduler stops and its services go. @param {string} workspaceId */
  forget(workspaceId) {
    const s = this.#services.get(workspaceId);
    s?.scheduler.stop();
    this.#channelHosts
      .peek('')
      ?.then((host) => host.forget(workspaceId))
      .catch(() => {});
    this.#stopMemory.get(workspaceId)?.();
    this.#stopMemory.delete(workspaceId);
    this.#stopMcp.get(workspaceId)?.();
    this.#stopMcp.delete(workspaceId);
    this.#services.delete(workspaceId);
  }

  /** The files panel's controller and the repository, over the workspace's current files. @param {string} workspaceId */
  #fileServices(workspaceId) {
    const wsFs = this.workspaceFs(workspaceId);
    /** @type {Promise<import('../git/git.js').WorkspaceGit> | null} */
    let repo = null;
    /** @type {Promise<import('./files-controller.js').FilesController> | null} */
    let files = null;
    return {
      // Loaded with the Files panel (it brings the ZIP code), not at start-up.
      // The panel (uploads, ZIP import, edits) never changes Clawser's own folders; neither does git (WorkspaceGit guards itself).
      files: () =>
        (files ??= import('./files-controller.js').then(
          ({ FilesController }) => new FilesController({ fs: new ProtectedFileSystem(wsFs) }),
        )),
      // isomorphic-git is large: loaded when git is first needed. One instance per workspace,
      // so the agent's git tools, auto-commit and the panel share one command queue.
      git: () =>
        (repo ??= import('../git/git.js').then(({ WorkspaceGit }) => {
          const g = this.deps.agentSettings.load(workspaceId).git;
          return new WorkspaceGit(wsFs, { author: { name: g.authorName, email: g.authorEmail }, ...this.#damage(workspaceId) });
        })),
    };
  }

  /**
   * A workspace's files (what the agent, the files panel and git see): its OPFS folder, or the
   * folder opened from the computer with Clawser's internal folders kept in OPFS.
   * @param {string} workspaceId
   * @returns {FileSystem}
   */
  workspaceFs(workspaceId) {
    const own = new ScopedFileSystem(this.deps.fs, `clawser_workspaces/${workspaceId}`);
    const mount = this.#mounted.get(workspaceId);
    if (!mount) return own;
    return new MountedFileSystem({
      internal: own,
      mounted: mount.granted && this.#HandleFs ? new this.#HandleFs(mount.handle) : null,
      folderName: mount.handle.name,
    });
  }

  /** The workspace's folder from the computer (null: none; undefined: not loaded yet). @param {string} workspaceId */
  mountOf(workspaceId) {
    return this.#mounted.get(workspaceId);
  }

  /** Reads the workspace's remembered folder and its permission, once per page. @param {string} workspaceId */
  async loadMount(workspaceId) {
    if (this.#mounted.has(workspaceId)) return;
    const handle = await this.deps.mounts.get(workspaceId).catch(() => null);
    if (handle) this.#HandleFs ??= (await import('../storage/handle-fs.js')).DirectoryHandleFileSystem;
    this.#mounted.set(
      workspaceId,
      handle ? { handle, granted: (await MountStore.permission(handle).catch(() => 'denied')) === 'granted' } : null,
    );
    // Services made before the folder was known (the scheduler's, at start-up) hold a repository
    // over the workspace's own files: rebuilt, git tools and auto-commit use the folder's.
    if (handle) this.refreshFiles(workspaceId);
  }

  /**
   * The workspace now works in `mount` (or its own files again, null): remembered, and its
   * files controller and repository rebuilt over the new files.
   * @param {string} workspaceId @param {Mount | null} mount
   */
  async setMount(workspaceId, mount) {
    if (mount) {
      this.#HandleFs ??= (await import('../storage/handle-fs.js')).DirectoryHandleFileSystem;
      await this.deps.mounts.set(workspaceId, mount.handle);
    } else await this.deps.mounts.remove(workspaceId);
    this.#mounted.set(workspaceId, mount);
    this.refreshFiles(workspaceId);
  }

  /** After the folder's permission changed: its files controller and repository are rebuilt. @param {string} workspaceId */
  refreshFiles(workspaceId) {
    const s = this.#services.get(workspaceId);
    if (s) Object.assign(s, this.#fileServices(workspaceId));
  }

  /**
   * Connects, when the page is idle, the MCP servers that were connected when it last closed (once per page).
   * @param {string} workspaceId
   */
  connectMcp(workspaceId) {
    if (this.#mcpStarted.has(workspaceId)) return;
    this.#mcpStarted.add(workspaceId);
    this.deps.whenIdle(() =>
      this.deps.guard(
        this.of(workspaceId)
          .mcp()
          .then((m) => m.connectSaved()),
      ),
    );
  }

  /** Makes the workspace a repository in the background when the setting says so. @param {string} workspaceId */
  autoInitGit(workspaceId) {
    // A folder opened from the computer is never turned into a repository behind the user's back.
    if (this.#gitChecked.has(workspaceId) || !this.deps.agentSettings.load(workspaceId).git.autoInit || this.#mounted.get(workspaceId))
      return;
    this.#gitChecked.add(workspaceId);
    const run = () => {
      if (!this.deps.quiet())
        this.deps.guard(
          this.of(workspaceId)
            .git()
            .then((repo) => repo.ensureRepo()),
        );
    };
    if ('requestIdleCallback' in globalThis) requestIdleCallback(run, { timeout: 5000 });
    else setTimeout(run, 1000);
  }

  /**
   * After an agent turn that changed files: one commit naming the turn, with exactly the paths
   * the turn (and its sub-agents) changed — the user's own changes stay uncommitted — so the
   * edit can be reviewed and rolled back in the Git panel. Resolves to a sentence for the user, or null.
   * @param {string} workspaceId @param {ClawserAgent} agent @param {{title: string, text: string}} turn
   */
  async autoCommit(workspaceId, agent, turn) {
    const s = this.deps.agentSettings.load(workspaceId).git;
    if (!s.autoCommit || !agent.tools?.writtenPaths?.size) return null;
    const repo = await this.of(workspaceId).git();
    return commitTurn({
      repo,
      tools: agent.tools,
      turn,
      author: { name: s.authorName, email: s.authorEmail },
      mounted: !!this.#mounted.get(workspaceId),
    });
  }

  /**
   * After an undo or redo of a turn: its own commit of the files it changed, when commits are
   * automatic. Resolves to a sentence for the user, or null.
   * @param {string} workspaceId @param {{direction: 'undo' | 'redo', paths: string[], turn: {title: string, text: string}}} change
   */
  async commitTakeBack(workspaceId, change) {
    const s = this.deps.agentSettings.load(workspaceId).git;
    if (!s.autoCommit || !change.paths.length) return null;
    const repo = await this.of(workspaceId).git();
    return commitTakeBack({ repo, ...change, author: { name: s.authorName, email: s.authorEmail } });
  }

  /** Starts the scheduler of each workspace: jobs run whichever workspace is on screen. @param {string[]} workspaceIds */
  startSchedulers(workspaceIds) {
    if (this.#schedulersOn) return;
    this.#schedulersOn = true;
    const started = workspaceIds.map((id) => this.of(id).scheduler.start());
    for (const p of started) this.deps.guard(p);
    // Every workspace's jobs were read (a damaged file is on the notice by now).
    void Promise.allSettled(started).then(() => performance.mark(SCHEDULERS_STARTED_MARK));
    // Channels run in the same tab as the jobs; their module loads only when a workspace has one.
    const withChannels = workspaceIds.filter((id) => this.deps.config.keys(`clawser_channels_${id}`).length);
    if (withChannels.length) this.deps.guard(this.#channelHost().then((host) => this.#schedulersOn && host.start(withChannels)));
  }

  /** Writes the usage statistics gathered but not written yet (the page is going away). */
  flushUsage() {
    for (const s of this.#services.values()) s.usage.flush().catch(() => {});
  }

  /**
   * Looks for missed jobs in every workspace now (the tab became visible, the service worker woke
   * and asked): they run by each job's policy. Only where the schedulers run (the leader tab).
   * @param {import('../stores/schedule.js').LateReason} reason
   */
  catchUpSchedulers(reason) {
    if (!this.#schedulersOn) return;
    for (const s of this.#services.values()) this.deps.guard(s.scheduler.catchUp(reason));
  }

  stopSchedulers() {
    this.#schedulersOn = false;
    for (const s of this.#services.values()) s.scheduler.stop();
    this.#channelHosts
      .peek('')
      ?.then((host) => host.stop())
      .catch(() => {});
  }
}
