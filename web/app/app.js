/** @import { Route } from './router.js' */
/** @import { FileSystem } from '../storage/types.d.ts' */
/** @import { NoKeyOptions } from '../providers/discovery.js' */
import { OpfsFileSystem } from '../storage/opfs-fs.js';
import { LocalConfig } from '../storage/local-config.js';
import { SecretBox } from '../storage/secrets.js';
import { CATALOG, catalogEntry } from '../providers/catalog.js';
import { chromeAIAvailability, CHROME_AI_STATES } from '../providers/chrome-ai.js';
import { testConnection } from '../providers/connection.js';
import { discoverNoKeyOptions } from '../providers/discovery.js';
import { Router } from './router.js';
import { WorkspaceStore } from './workspaces.js';
import { SettingsStore } from './settings.js';
import { ChatController } from './chat-controller.js';
import { registerServiceWorker } from './sw-client.js';
import { AgentSettingsStore, parseLimitFields } from './agent-settings.js';
import { ArtifactDocument } from './artifact.js';
import { AppToolUi } from './tool-ui.js';
/** @import { ClawserAgent } from '../agent/agent.js' */
import { HookPipeline } from '../agent/hooks.js';
import { jobApprover } from '../agent/job-approval.js';
import { GoalStore } from '../agent/goals.js';
import { Scheduler, shouldDeliver } from '../agent/scheduler.js';
import { TabCoordinator } from '../agent/tabs.js';
import { RestoreGate, gatedCoordination } from '../agent/restore-gate.js';
import { startWorkspaceDaemon } from './daemon-wiring.js';
import { SemanticSearch } from './semantic.js';
import { runJob } from './job-runner.js';
import { LeakDetector } from '../safety/leak-detector.js';
import { ScopedFileSystem } from '../storage/scoped-fs.js';
import { createBuiltinRegistry } from '../tools/index.js';
import { RESTORE_FLAG } from './flags.js';
import { MountStore } from '../storage/mounts.js';
import { MountedFileSystem } from '../storage/mounted-fs.js';
import { ProtectedFileSystem } from '../storage/protected-fs.js';
import { ArtifactView } from '../ui/artifact-view.js';
import { approvalDialog, askUserDialog } from '../ui/approval-dialog.js';
import { h, clear } from '../ui/dom.js';
import { HomeView } from '../ui/home-view.js';
import { WorkspaceView } from '../ui/workspace-view.js';
import { ChatView } from '../ui/chat-view.js';
import { FirstRunCard } from '../ui/first-run.js';
import { openSettingsDialog } from '../ui/settings-dialog.js';
import { confirmDialog, promptDialog } from '../ui/dialogs.js';
import { BannerArea } from '../ui/banners.js';
import { PanelRegistry, BUILTIN_PANELS } from './panels.js';

/** A workspace route's panel: 'chat' or a name of the panel registry. @typedef {string} PanelName */

/**
 * The orchestrator: builds the services once, maps routes to views, and wires UI events to
 * the stores and controllers. Holds no business rules of its own.
 */
export class ClawserApp {
  /** @type {{workspaceId: string, panel: string, controller: ChatController, destroy: () => void} | null} */
  #view = null;
  /** @type {Map<string, ChatController>} */
  #controllers = new Map();
  /** @type {Map<string, {registry: ReturnType<typeof createBuiltinRegistry>, artifact: ArtifactDocument, toolUi: AppToolUi, files: () => Promise<import('./files-controller.js').FilesController>, git: () => Promise<import('../git/git.js').WorkspaceGit>, memory: () => Promise<import('../memory/store.js').MemoryStore>, goals: GoalStore, scheduler: Scheduler}>} */
  #services = new Map();
  /** Lifecycle hooks shared by every agent run; plugins and skills register here. */
  hooks = new HookPipeline();
  mounts = new MountStore();
  /** Folders opened from the computer, by workspace (loaded when the workspace is first shown). @type {Map<string, {handle: FileSystemDirectoryHandle, granted: boolean} | null>} */
  #mounted = new Map();
  /** @type {Promise<NoKeyOptions> | null} */
  #discovery = null;
  #settingsOpen = false;

  /** @param {HTMLElement} root */
  constructor(root) {
    this.root = root;
    this.banners = BannerArea();
    this.main = h('div', { class: 'view' });
    /** The workspace panels besides the chat. */
    this.panels = new PanelRegistry();
    for (const p of BUILTIN_PANELS) this.panels.register(p);
    this.router = new Router({ panels: () => this.panels.list().map((p) => p.name) });
  }

  async start() {
    clear(this.root).append(this.banners.root, this.main);
    if (!isSecureContext) {
      this.banners.show('insecure', 'This page is not a secure context, so offline mode and storage are unavailable. Open Clawser via http://localhost / http://127.0.0.1 or over https.', { kind: 'warn', dismissible: false });
    }
    /** @type {FileSystem} */
    let fs;
    try {
      fs = new OpfsFileSystem();
      this.config = new LocalConfig();
    } catch (err) {
      this.main.append(h('main', { class: 'home', id: 'main' }, h('h1', null, 'Clawser cannot start here'), h('p', { role: 'alert' }, /** @type {Error} */ (err).message)));
      return;
    }
    this.fs = fs;
    this.semantic = new SemanticSearch({ config: this.config, whenIdle: (fn) => this.#whenIdle(fn) });
    // One tab of the origin leads (runs scheduled jobs); all share locks and live updates.
    this.tabs = new TabCoordinator({ label: document.title });
    // A backup restore is exclusive across tabs: every store write of this tab goes through
    // the gate (shared), the restore holds it exclusively, and other tabs stand still meanwhile.
    this.restoreGate = new RestoreGate({ channel: this.tabs });
    this.coordination = gatedCoordination(this.tabs, this.restoreGate);
    this.restoreGate.subscribe((notice) => this.#onRestoreElsewhere(notice));
    const secrets = new SecretBox();
    // A restore running in another tab finishes before this one reads anything.
    await this.restoreGate.quietly(() => this.#recoverRestore(fs));
    this.settings = new SettingsStore({ config: this.config, secrets });
    this.agentSettings = new AgentSettingsStore({ config: this.config, secrets });
    const agentSettings = this.agentSettings;
    // Turn assembly (the agent, its tools, the sandbox) is loaded on first use: the first view
    // shows without it, which keeps the start-up path short.
    /** @type {Promise<import('./agent-factory.js').AgentFactory> | null} */
    let agents = null;
    this.agents = () => (agents ??= import('./agent-factory.js').then(({ AgentFactory }) => new AgentFactory({
      agentSettings,
      hooks: this.hooks,
      services: (workspaceId) => this.#servicesOf(workspaceId),
      workspaceFs: (workspaceId) => this.workspaceFs(workspaceId),
      mountedFolder: (workspaceId) => this.#mounted.get(workspaceId)?.handle.name ?? null,
    })));
    this.workspaces = new WorkspaceStore({
      config: this.config,
      fs,
      onDelete: (id) => {
        this.settings?.forget(id);
        this.agentSettings?.forget(id);
        this.config?.remove(`clawser_tool_perms_${id}`);
        this.#controllers.delete(id);
        this.#services.get(id)?.scheduler.stop();
        this.#services.delete(id);
      },
    });
    // Clone, backup and restore are loaded when first used (not on the start-up path).
    /** @type {Promise<import('./data-actions.js').DataActions> | null} */
    let data = null;
    this.data = () => (data ??= import('./data-actions.js').then(({ DataActions }) => new DataActions({
      fs,
      secrets,
      workspaces: /** @type {WorkspaceStore} */ (this.workspaces),
      agentSettings: /** @type {AgentSettingsStore} */ (this.agentSettings),
      status: (text) => (text ? this.banners.show('progress', text, { dismissible: false }) : this.banners.hide('progress')),
      notify: (text) => this.banners.show('clone-skipped', text),
      exclusive: (fn) => /** @type {RestoreGate} */ (this.restoreGate).exclusive(fn),
    })));
    // Browser storage that never answers (it happens, e.g. after site data was cleared while a
    // tab was closing) must not look like a blank page.
    const stalled = setTimeout(() => this.banners.show('storage-stalled', 'The browser\'s storage is not responding, so Clawser cannot open your workspaces yet. Close every Clawser tab and open it again; if that does not help, restart the browser.', { kind: 'warn', dismissible: false }), 10_000);
    if (this.workspaces.list().length === 0) await this.workspaces.create('My workspace');
    navigator.storage?.persist?.().catch(() => {});
    this.router.onChange((route) => this.#guard(this.render(route)));
    await this.render(this.router.current);
    clearTimeout(stalled);
    this.banners.hide('storage-stalled');
    // Benchmarks read this: the first view is on screen and usable.
    performance.mark('clawser-interactive');
    // Whatever the first view, load the sandbox frame once while idle: the browser keeps it, so
    // code runs offline later (its navigation never reaches the service worker).
    this.#prewarmSandbox();
    // Only the leader tab runs scheduled jobs; when it closes, the next tab takes over.
    this.tabs.onLeaderChange((leader) => (leader ? this.#whenIdle(() => this.#startSchedulers()) : this.#stopSchedulers()));
    if (this.tabs.isLeader) this.#whenIdle(() => this.#startSchedulers());
    this.#guard(
      registerServiceWorker({
        onUpdateReady: (apply) => this.banners.show('update', 'A new version of Clawser is available.', { action: { label: 'Reload', run: apply } }),
      }),
    );
    addEventListener('unhandledrejection', (e) => this.#showError(e.reason));
    // Each panel's keyboard shortcut (Alt+1…), in the open workspace.
    window.addEventListener('keydown', (e) => {
      const route = this.router.current;
      if (route.name !== 'workspace' || !e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
      const entry = this.panels.list().find((p) => p.shortcut === `Alt+${e.key}`);
      if (!entry) return;
      e.preventDefault();
      this.router.go({ name: 'workspace', workspaceId: route.workspaceId, panel: entry.name });
    });
  }

  /**
   * Finishes or rolls back a restore that a closed tab interrupted, before anything reads
   * storage. Only loads the backup module when a restore marker exists.
   * @param {FileSystem} fs
   */
  async #recoverRestore(fs) {
    // The flag (set while a restore runs) spares every normal start a storage round trip.
    if (!this.config?.get(RESTORE_FLAG, false)) return;
    if (!(await fs.stat('.restore-state.json').catch(() => null))) return this.config.remove(RESTORE_FLAG);
    const { recoverInterruptedRestore, localStorageConfig } = await import('../backup/backup.js');
    const outcome = await recoverInterruptedRestore({ fs, config: localStorageConfig() });
    if (outcome === 'rolled_back') this.banners.show('restore', 'A restore was interrupted (the tab closed); your previous data was kept.', { kind: 'warn' });
    if (outcome === 'completed') this.banners.show('restore', 'An interrupted restore was completed.', { kind: 'warn' });
    this.config?.remove(RESTORE_FLAG);
  }

  /**
   * Another tab began or ended a backup restore: stop every writer here (schedulers, the
   * daemon's checkpoints, turns — their next store write is refused) and say so in a banner
   * that cannot be dismissed; reload when the restore succeeded, resume when it failed.
   * @param {import('../agent/restore-gate.js').RestoreNotice} notice
   */
  #onRestoreElsewhere(notice) {
    if (notice.phase === 'begin') {
      this.#quiet = true;
      this.#stopSchedulers();
      for (const c of this.#controllers.values()) c.stop();
      // Let go of every file this tab holds open: the restore moves them (OPFS handles are exclusive).
      /** @type {{terminate?: () => void} | undefined} */ (this.fs)?.terminate?.();
      // Nothing here can be used meanwhile (new conversations, renames, settings would be written
      // into the data being replaced): the view is inert until the reload.
      this.main.inert = true;
      this.banners.show('restore-elsewhere', 'A backup is being restored in another tab. Nothing is saved here until it has finished; this tab reloads then.', { kind: 'warn', dismissible: false });
      return;
    }
    if (notice.ok) {
      location.reload();
      return;
    }
    this.#quiet = false;
    this.main.inert = false;
    this.banners.show('restore-elsewhere', 'The restore in another tab failed and changed nothing; this tab works again.', { kind: 'warn' });
    if (this.tabs?.isLeader) this.#whenIdle(() => this.#startSchedulers());
  }

  /** The agent factory, loaded on first use. */
  #agentFactory() {
    if (!this.agents) throw new Error('Clawser has not started.');
    return this.agents();
  }

  /** When the page is idle, keeps one sandbox frame ready (and cached by the browser for offline use). */
  #prewarmSandbox() {
    if (this.#sandboxWarmed) return;
    this.#sandboxWarmed = true;
    const warm = () => import('../packages/andbox/index.js').then((m) => m.prewarmSandbox()).catch(() => {});
    if ('requestIdleCallback' in globalThis) requestIdleCallback(warm, { timeout: 5000 });
    else setTimeout(warm, 1000);
  }

  #sandboxWarmed = false;

  /** @param {Promise<unknown>} p */
  #guard(p) {
    p.catch((err) => this.#showError(err));
  }

  /** @param {unknown} err */
  #showError(err) {
    const message = /** @type {Error} */ (err)?.message ?? String(err);
    this.banners.show('error', message, { kind: 'error' });
  }

  /** @param {Route} route */
  async render(route) {
    if (route.name === 'home') return this.#renderHome();
    const ws = this.workspaces?.get(route.workspaceId);
    if (!ws) {
      this.banners.show('missing', 'That workspace does not exist (it may have been deleted).', { kind: 'warn' });
      return this.router.go({ name: 'home' }, { replace: true });
    }
    const panel = this.panels.get(route.panel) ? route.panel : 'chat';
    if (this.#view?.workspaceId !== ws.id || this.#view.panel !== panel) await this.#renderWorkspace(ws.id, route.conversationId, panel);
    else if (route.conversationId) await this.#view.controller.select(route.conversationId);
    if (route.panel === 'settings') await this.#openSettings(ws.id);
  }

  #renderHome() {
    this.#view?.destroy();
    this.#view = null;
    const stores = /** @type {WorkspaceStore} */ (this.workspaces);
    const draw = () => {
      clear(this.main).append(
        HomeView({
          workspaces: stores.list(),
          onOpen: (id) => this.router.go({ name: 'workspace', workspaceId: id, panel: 'chat' }),
          onCreate: async () => {
            const name = await promptDialog({ title: 'New workspace', label: 'Workspace name', submitLabel: 'Create' });
            if (!name) return;
            const ws = await stores.create(name);
            this.router.go({ name: 'workspace', workspaceId: ws.id, panel: 'chat' });
          },
          onClone: () => this.#guard((async () => {
            const id = await (await this.data?.())?.cloneRepository();
            if (id) this.router.go({ name: 'workspace', workspaceId: id, panel: 'files' });
          })()),
          onBackup: () => this.#guard((async () => (await this.data?.())?.exportEverything())()),
          onRestore: (file) => this.#guard((async () => {
            // Background writers (git auto-init, jobs) stand still while a restore may replace everything.
            this.#quiet = true;
            this.#stopSchedulers();
            try {
              if (await (await this.data?.())?.restore(file)) return location.reload();
            } finally {
              this.#quiet = false;
            }
          })()),
          onRename: async (w) => {
            const name = await promptDialog({ title: 'Rename workspace', label: 'Workspace name', value: w.name, submitLabel: 'Rename' });
            if (name) {
              stores.rename(w.id, name);
              draw();
            }
          },
          onDelete: async (w) => {
            const ok = await confirmDialog({ title: `Delete “${w.name}”?`, message: 'Its conversations, files and settings are removed from this browser. This cannot be undone.', confirmLabel: 'Delete workspace' });
            if (ok) {
              await stores.delete(w.id);
              draw();
            }
          },
        }),
      );
    };
    draw();
    document.title = 'Clawser';
  }

  /** Tools, artifact and browser services of a workspace, made once. @param {string} workspaceId */
  #servicesOf(workspaceId) {
    let s = this.#services.get(workspaceId);
    if (!s) {
      const artifact = new ArtifactDocument();
      /** @type {Promise<import('../memory/store.js').MemoryStore> | null} */
      let memory = null;
      s = {
        registry: createBuiltinRegistry({ config: this.config, workspaceId }),
        artifact,
        toolUi: new AppToolUi({ artifact, askUser: askUserDialog, screenshotTarget: () => this.root }),
        ...this.#fileServices(workspaceId),
        memory: () => (memory ??= Promise.all([import('../memory/store.js'), /** @type {SemanticSearch} */ (this.semantic).embedder()]).then(([{ MemoryStore }, embedder]) => new MemoryStore({ fs: this.workspaceFs(workspaceId), embedder, coordination: this.coordination, key: workspaceId }))),
        goals: new GoalStore({ fs: this.workspaceFs(workspaceId), coordination: this.coordination, key: workspaceId }),
        scheduler: new Scheduler({
          fs: this.workspaceFs(workspaceId),
          execute: (job, run) => this.#runJob(workspaceId, job, run),
          missedPolicy: () => /** @type {AgentSettingsStore} */ (this.agentSettings).load(workspaceId).scheduler.missedPolicy,
          // Jobs are claimed under a cross-tab lock, so an occurrence runs once however many tabs are open.
          lock: this.tabs ? (name, fn) => /** @type {RestoreGate} */ (this.restoreGate).write(() => /** @type {TabCoordinator} */ (this.tabs).withLock(`sched:${workspaceId}:${name}`, fn)) : undefined,
          onChange: () => this.tabs?.publish(`scheduler:${workspaceId}`, {}),
        }),
      };
      this.#services.set(workspaceId, s);
      const scheduler = s.scheduler;
      this.tabs?.subscribe(`scheduler:${workspaceId}`, () => this.#guard(scheduler.reload()));
      if (this.#schedulersOn) this.#guard(scheduler.start());
    }
    return s;
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
      files: () => (files ??= import('./files-controller.js').then(({ FilesController }) => new FilesController({ fs: new ProtectedFileSystem(wsFs) }))),
      // isomorphic-git is large: loaded when git is first needed. One instance per workspace,
      // so the agent's git tools, auto-commit and the panel share one command queue.
      git: () => (repo ??= import('../git/git.js').then(({ WorkspaceGit }) => {
        const g = /** @type {AgentSettingsStore} */ (this.agentSettings).load(workspaceId).git;
        return new WorkspaceGit(wsFs, { author: { name: g.authorName, email: g.authorEmail } });
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
    const own = new ScopedFileSystem(/** @type {FileSystem} */ (this.fs), `clawser_workspaces/${workspaceId}`);
    const mount = this.#mounted.get(workspaceId);
    if (!mount) return own;
    return new MountedFileSystem({ internal: own, mounted: mount.granted && this.#HandleFs ? new this.#HandleFs(mount.handle) : null, folderName: mount.handle.name });
  }

  /** The folder-handle FileSystem class, loaded only when a folder is opened. @type {typeof import('../storage/handle-fs.js').DirectoryHandleFileSystem | null} */
  #HandleFs = null;

  /** Reads the workspace's remembered folder and its permission, once per page. @param {string} workspaceId */
  async #loadMount(workspaceId) {
    if (this.#mounted.has(workspaceId)) return;
    const handle = await this.mounts.get(workspaceId).catch(() => null);
    if (handle) this.#HandleFs ??= (await import('../storage/handle-fs.js')).DirectoryHandleFileSystem;
    this.#mounted.set(workspaceId, handle ? { handle, granted: (await MountStore.permission(handle).catch(() => 'denied')) === 'granted' } : null);
  }

  /** After the workspace's folder changed: new file services, and the view rebuilt. @param {string} workspaceId */
  async #mountChanged(workspaceId) {
    const s = this.#services.get(workspaceId);
    if (s) Object.assign(s, this.#fileServices(workspaceId));
    await this.#renderWorkspace(workspaceId, undefined, 'files');
  }

  /** The files panel's "open a folder" controls. @param {string} workspaceId */
  #mountProps(workspaceId) {
    const mount = this.#mounted.get(workspaceId);
    return {
      ...MountStore.support(),
      mounted: mount ? mount.handle.name : null,
      needsPermission: !!mount && !mount.granted,
      onMount: async () => {
        const picker = /** @type {any} */ (globalThis).showDirectoryPicker; // not in TypeScript's DOM lib yet
        let handle;
        try {
          handle = /** @type {FileSystemDirectoryHandle} */ (await picker({ mode: 'readwrite', id: `clawser-${workspaceId}`.slice(0, 32) }));
        } catch (err) {
          if (/** @type {Error} */ (err).name === 'AbortError') return;
          throw err;
        }
        const granted = (await MountStore.permission(handle, true)) === 'granted';
        if (!granted) throw new Error(`Clawser needs permission to read and change “${handle.name}” to use it as the workspace.`);
        this.#HandleFs ??= (await import('../storage/handle-fs.js')).DirectoryHandleFileSystem;
        await this.mounts.set(workspaceId, handle);
        this.#mounted.set(workspaceId, { handle, granted });
        await this.#mountChanged(workspaceId);
      },
      onReconnect: async () => {
        if (!mount) return;
        mount.granted = (await MountStore.permission(mount.handle, true)) === 'granted';
        if (!mount.granted) throw new Error(`Access to “${mount.handle.name}” was not allowed; the workspace cannot show its files until it is.`);
        await this.#mountChanged(workspaceId);
      },
      onUnmount: async () => {
        const ok = await confirmDialog({ title: `Stop using “${mount?.handle.name}”?`, message: 'The folder on your computer is not changed. The workspace shows its own browser-stored files again.', confirmLabel: 'Stop using the folder' });
        if (!ok) return;
        await this.mounts.remove(workspaceId);
        this.#mounted.set(workspaceId, null);
        await this.#mountChanged(workspaceId);
      },
    };
  }

  /** Workspaces whose repository was ensured on this page (once is enough; every panel switch re-renders). */
  #gitChecked = new Set();
  /** True while a restore runs: background tasks that write must not start. */
  #quiet = false;

  /** @param {string} workspaceId */
  #controller(workspaceId) {
    let c = this.#controllers.get(workspaceId);
    if (!c) {
      const fs = /** @type {FileSystem} */ (this.fs);
      const agentSettings = /** @type {AgentSettingsStore} */ (this.agentSettings);
      const detector = new LeakDetector();
      // Read once per turn (in buildAgent), not on every streamed chunk.
      let redactOn = agentSettings.load(workspaceId).safetyEnabled;
      c = new ChatController({
        fs,
        workspaceId,
        coordination: this.coordination,
        settings: /** @type {SettingsStore} */ (this.settings),
        redact: (text) => (redactOn ? detector.scan(text).redacted : text),
        buildAgent: async (provider, conversation, secrets, options) => {
          const { agent, settings } = await (await this.#agentFactory()).agent(workspaceId, provider, conversation, secrets, options);
          redactOn = settings.safetyEnabled;
          return agent;
        },
        afterTurn: (agent, turn) => this.#autoCommit(workspaceId, agent, turn),
        runCode: (conversationId, code, signal) => this.#agentFactory().then((f) => f.runAgain(workspaceId, conversationId, code, signal)),
      });
      this.#controllers.set(workspaceId, c);
    }
    return c;
  }

  /** @param {string} workspaceId @param {string} [conversationId] @param {PanelName} [panel] */
  async #renderWorkspace(workspaceId, conversationId, panel = 'chat') {
    await this.#loadMount(workspaceId);
    this.#view?.destroy();
    this.#prewarmSandbox();
    const ws = /** @type {import('./workspaces.js').Workspace} */ (this.workspaces?.get(workspaceId));
    const settings = /** @type {SettingsStore} */ (this.settings);
    const controller = this.#controller(workspaceId);
    await controller.init(conversationId ?? controller.state.activeId ?? undefined);
    await this.#startDaemon(workspaceId, controller);
    // Claim the view before building it: building it can change the route (to the active
    // conversation), and that nested render must see this view, not rebuild it again.
    /** @type {() => void} */
    let destroyView = () => {};
    this.#view = { workspaceId, panel, controller, destroy: () => destroyView() };
    const current = settings.load(workspaceId);
    const entry = current ? catalogEntry(current.provider) : undefined;
    const needsSetup = !current;
    const chat = ChatView({
      controller,
      needsSetup,
      setupCard: () => this.#setupCard(workspaceId),
      onOpenSettings: () => this.#goSettings(workspaceId),
      onConversationChange: (id) => {
        const r = this.router.current;
        if (id && r.name === 'workspace' && r.workspaceId === workspaceId && r.conversationId !== id && r.panel === 'chat') {
          this.router.go({ name: 'workspace', workspaceId, panel: 'chat', conversationId: id }, { replace: true });
        }
      },
    });
    const services = this.#servicesOf(workspaceId);
    const side = h('div', { class: 'artifact-slot' });
    /** @type {{root: HTMLElement, destroy: () => void} | null} */
    let artifactView = null;
    const showArtifact = () => {
      if (artifactView || !services.artifact.html) return;
      artifactView = ArtifactView({ artifact: services.artifact, onClose: () => { artifactView?.destroy(); artifactView?.root.remove(); artifactView = null; } });
      side.append(artifactView.root);
    };
    const unsubscribeArtifact = services.artifact.subscribe(showArtifact);
    showArtifact();
    const panelEntry = panel === 'chat' ? undefined : this.panels.get(panel);
    /** @type {import('./panels.js').PanelView | null} */
    const sub = panelEntry ? await panelEntry.open(this.#panelContext(workspaceId)) : null;
    const view = WorkspaceView({
      workspace: ws,
      controller,
      chat: sub ? sub.root : chat.root,
      side,
      panels: this.panels.list().map((p) => ({ label: p.label, shortcut: p.shortcut, current: p.name === panel, onOpen: () => this.router.go({ name: 'workspace', workspaceId, panel: p.name }) })),
      providerLabel: !entry ? 'No provider yet' : entry.wire === 'echo' ? 'Echo · test provider, no AI' : `${entry.label}${current?.model ? ` · ${current.model}` : ''}`,
      onHome: () => this.router.go({ name: 'home' }),
      onSettings: () => this.#goSettings(workspaceId),
      onSelect: (id) => this.router.go({ name: 'workspace', workspaceId, panel: 'chat', conversationId: id }),
      onNew: async () => {
        const meta = await controller.newConversation();
        this.router.go({ name: 'workspace', workspaceId, panel: 'chat', conversationId: meta.id });
        chat.focusComposer();
      },
      onRename: async (id, title) => {
        const next = await promptDialog({ title: 'Rename conversation', label: 'Conversation title', value: title, submitLabel: 'Rename' });
        if (next) await controller.rename(id, next);
      },
      onDelete: async (id, title) => {
        const ok = await confirmDialog({ title: `Delete “${title}”?`, message: 'The whole conversation is removed from this browser. This cannot be undone.', confirmLabel: 'Delete conversation' });
        if (!ok) return;
        const wasActive = controller.state.activeId === id;
        await controller.remove(id);
        if (wasActive) this.router.go({ name: 'workspace', workspaceId, panel: 'chat' }, { replace: true });
      },
    });
    clear(this.main).append(view.root);
    document.title = `${ws.name} — Clawser`;
    destroyView = () => { view.destroy(); chat.destroy(); sub?.destroy?.(); unsubscribeArtifact(); artifactView?.destroy(); };
    this.#autoInitGit(workspaceId);
  }




  /** Makes the workspace a repository in the background when the setting says so. @param {string} workspaceId */
  #autoInitGit(workspaceId) {
    // A folder opened from the computer is never turned into a repository behind the user's back.
    if (this.#gitChecked.has(workspaceId) || !(/** @type {AgentSettingsStore} */ (this.agentSettings).load(workspaceId).git.autoInit) || this.#mounted.get(workspaceId)) return;
    this.#gitChecked.add(workspaceId);
    const run = () => {
      if (!this.#quiet) this.#guard(this.#servicesOf(workspaceId).git().then((repo) => repo.ensureRepo()));
    };
    if ('requestIdleCallback' in globalThis) requestIdleCallback(run, { timeout: 5000 });
    else setTimeout(run, 1000);
  }

  /**
   * After an agent turn that changed files: one commit naming the turn, so the edit can be
   * reviewed and rolled back in the Git panel.
   * @param {string} workspaceId @param {ClawserAgent} agent @param {{title: string, text: string}} turn
   */
  async #autoCommit(workspaceId, agent, turn) {
    const writes = agent.tools?.writes ?? [];
    const s = /** @type {AgentSettingsStore} */ (this.agentSettings).load(workspaceId).git;
    if (!writes.length || !s.autoCommit) return null;
    const counts = [...new Set(writes)].map((n) => `${n}${writes.filter((w) => w === n).length > 1 ? ` ×${writes.filter((w) => w === n).length}` : ''}`);
    const firstLine = turn.text.replace(/\s+/g, ' ').trim();
    const message = `Agent: ${firstLine.length > 60 ? `${firstLine.slice(0, 57)}…` : firstLine || 'turn'}\n\nConversation: ${turn.title}\nTools: ${counts.join(', ')}`;
    const repo = await this.#servicesOf(workspaceId).git();
    if (this.#mounted.get(workspaceId) && !(await repo.isRepo())) return null;
    const oid = await repo.commitAll({ message, author: { name: s.authorName, email: s.authorEmail } });
    return oid ? `The agent's file changes were committed (${oid.slice(0, 7)}); review or undo them in the Git panel.` : null;
  }

  /** Workspaces whose daemon started on this page. @type {Set<string>} */
  #daemons = new Set();

  /** @param {string} workspaceId @param {ChatController} controller */
  async #startDaemon(workspaceId, controller) {
    if (this.#daemons.has(workspaceId)) return;
    this.#daemons.add(workspaceId);
    const gate = /** @type {RestoreGate} */ (this.restoreGate);
    await startWorkspaceDaemon({ workspaceId, fs: this.workspaceFs(workspaceId), controller, warn: (message) => this.banners.show(`daemon-${workspaceId}`, message, { kind: 'warn' }), write: (fn) => gate.write(fn) });
  }

  /** True once this tab runs the workspaces' scheduled jobs. */
  #schedulersOn = false;

  /** @param {() => void} fn */
  #whenIdle(fn) {
    if ('requestIdleCallback' in globalThis) requestIdleCallback(fn, { timeout: 3000 });
    else setTimeout(fn, 500);
  }

  /** Starts every workspace's scheduler: jobs run whichever workspace is on screen. */
  #startSchedulers() {
    if (this.#schedulersOn || this.#quiet || !this.tabs?.isLeader) return;
    this.#schedulersOn = true;
    for (const ws of this.workspaces?.list() ?? []) this.#guard(this.#servicesOf(ws.id).scheduler.start());
  }

  #stopSchedulers() {
    this.#schedulersOn = false;
    for (const s of this.#services.values()) s.scheduler.stop();
  }

  /**
   * Runs one occurrence of a job and delivers its result (notification, banner) as the job's
   * delivery setting says. @param {string} workspaceId @param {import('../agent/scheduler.js').Job} job
   * @param {{scheduledFor: number, missed: number, manual: boolean}} run
   */
  async #runJob(workspaceId, job, run) {
    const settings = /** @type {AgentSettingsStore} */ (this.agentSettings).load(workspaceId).scheduler;
    const workspace = { id: workspaceId, name: /** @type {WorkspaceStore} */ (this.workspaces).list().find((w) => w.id === workspaceId)?.name ?? workspaceId };
    // Nobody may be watching: the dialog names the job and workspace, and an unanswered one is refused.
    const approver = jobApprover({ approve: approvalDialog, job, workspace, timeoutMs: settings.approvalTimeoutMinutes * 60_000 });
    const result = await runJob({
      job,
      run,
      approver,
      controller: this.#controller(workspaceId),
      tools: async () => (await (await this.#agentFactory()).parts(workspaceId, job.conversationId ?? `job-${job.id}`, { approve: approver.approve })).tools,
    });
    if (result.needsApproval) this.#needsApproval(workspace, job.name, result);
    else if (shouldDeliver(job.delivery, result.ok)) this.#deliver(workspaceId, job.name, result);
    return result;
  }

  /**
   * A run refused because nobody answered its approval: always told (whatever the delivery
   * setting), as a notification when allowed and a banner that opens the schedule.
   * @param {{id: string, name: string}} workspace @param {string} name @param {{summary: string}} result
   */
  #needsApproval(workspace, name, result) {
    const headline = `Scheduled job “${name}” in workspace “${workspace.name}” needs approval`;
    if (typeof Notification !== 'undefined' && Notification.permission === 'granted') this.#guard(this.#servicesOf(workspace.id).toolUi.notify(headline, result.summary.slice(0, 240)));
    this.banners.show(`job-approval-${workspace.id}`, `${headline}: ${result.summary}`, { kind: 'warn', action: { label: 'Open schedule', run: () => this.router.go({ name: 'workspace', workspaceId: workspace.id, panel: 'schedule' }) } });
  }

  /** A finished job's result: a notification when allowed, and a banner when its conversation is not on screen. @param {string} workspaceId @param {string} name @param {{ok: boolean, summary: string, conversationId?: string}} result */
  #deliver(workspaceId, name, result) {
    const headline = `Scheduled job “${name}” ${result.ok ? 'finished' : 'failed'}`;
    const body = result.summary.replace(/\s+/g, ' ').trim().slice(0, 240);
    if (typeof Notification !== 'undefined' && Notification.permission === 'granted') this.#guard(this.#servicesOf(workspaceId).toolUi.notify(headline, body || headline));
    const onScreen = this.#view?.workspaceId === workspaceId && this.#view.panel === 'chat' && this.#view.controller.state.activeId === result.conversationId;
    if (!onScreen && result.conversationId) {
      const conversationId = result.conversationId;
      this.banners.show('job', `${headline}.`, { kind: result.ok ? 'info' : 'warn', action: { label: 'Open', run: () => this.router.go({ name: 'workspace', workspaceId, panel: 'chat', conversationId }) } });
    }
  }




  /**
   * What a panel of the registry gets for a workspace.
   * @param {string} workspaceId
   * @returns {import('./panels.js').PanelContext}
   */
  #panelContext(workspaceId) {
    return {
      workspaceId,
      services: this.#servicesOf(workspaceId),
      agentSettings: /** @type {AgentSettingsStore} */ (this.agentSettings),
      semantic: /** @type {SemanticSearch} */ (this.semantic),
      tabs: this.tabs,
      mounted: !!this.#mounted.get(workspaceId),
      mount: this.#mountProps(workspaceId),
      conversations: () => this.#controller(workspaceId).state.conversations,
      openConversation: (id) => this.router.go({ name: 'workspace', workspaceId, panel: 'chat', conversationId: id }),
      back: () => this.router.go({ name: 'workspace', workspaceId, panel: 'chat' }),
      showError: (err) => this.#showError(err),
    };
  }

  /** @param {string} workspaceId */
  #goSettings(workspaceId) {
    this.router.go({ name: 'workspace', workspaceId, panel: 'settings' });
  }

  /** @param {string} workspaceId */
  #setupCard(workspaceId) {
    const holder = h('div', null);
    /** @param {NoKeyOptions | null} options */
    const draw = (options) =>
      holder.replaceChildren(
        FirstRunCard({
          options,
          describeChromeAI: (state) => CHROME_AI_STATES[/** @type {keyof typeof CHROME_AI_STATES} */ (state)] ?? CHROME_AI_STATES.unsupported,
          onChoose: (choice) => this.#guard(this.#applyChoice(workspaceId, choice)),
          onAddKey: () => this.#goSettings(workspaceId),
        }),
      );
    draw(null);
    this.#discovery ??= discoverNoKeyOptions();
    this.#discovery.then(draw, () => draw({ chromeAI: 'unsupported', ollama: { found: false, models: [] }, lmstudio: { found: false, models: [] } }));
    return holder;
  }

  /** @param {string} workspaceId @param {{provider: string, model?: string}} choice */
  async #applyChoice(workspaceId, choice) {
    const entry = catalogEntry(choice.provider);
    await this.settings?.save(workspaceId, { provider: choice.provider, model: choice.model ?? entry?.defaultModel ?? '', baseUrl: '' });
    await this.#renderWorkspace(workspaceId);
  }

  /** @param {string} workspaceId */
  async #openSettings(workspaceId) {
    if (this.#settingsOpen) return;
    this.#settingsOpen = true;
    const settings = /** @type {SettingsStore} */ (this.settings);
    const ws = this.workspaces?.get(workspaceId);
    let saved = false;
    try {
      saved = await openSettingsDialog({
        parseLimits: parseLimitFields,
        workspaceName: ws?.name ?? '',
        catalog: CATALOG,
        current: settings.load(workspaceId),
        agent: /** @type {AgentSettingsStore} */ (this.agentSettings).load(workspaceId),
        describeBackground: async () => (await (await import('./background.js')).backgroundMode({ leader: !!this.tabs?.isLeader, tabs: (this.tabs?.peers().length ?? 0) + 1 })).text,
        hasKey: (provider) => settings.hasKey(workspaceId, provider),
        describeAvailability: async (provider) => (provider === 'chrome-ai' ? `On this browser: ${CHROME_AI_STATES[await chromeAIAvailability()]}` : null),
        onTest: async ({ useSavedKey, ...config }) => {
          const apiKey = config.apiKey ?? (useSavedKey ? await settings.apiKey(workspaceId, config.provider).catch(() => undefined) : undefined);
          return testConnection({ ...config, apiKey });
        },
        onSave: async (next, agent) => {
          /** @type {AgentSettingsStore} */ (this.agentSettings).save(workspaceId, agent);
          await settings.save(workspaceId, next);
        },
      });
    } finally {
      this.#settingsOpen = false;
    }
    const convId = this.#view?.controller.state.activeId ?? undefined;
    if (saved) await this.#renderWorkspace(workspaceId, convId);
    this.router.go({ name: 'workspace', workspaceId, panel: 'chat', conversationId: convId }, { replace: true });
  }
}
