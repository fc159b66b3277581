// Why this file is long: the orchestrator: it wires every store, controller, view and the daemon
//  for a workspace and keeps the router's state; the panels, chat, services, settings and daemon
//  are their own modules, and what is left is start-up and the wiring between them, which reads
//  best in one place.
/** @import { Route } from './router.js' */
/** @import { FirstView, HomeActions } from './first-view.js' */
/** @import { WorkspaceFirstView } from './workspace-first-view.js' */
/** @import { FileSystem } from '../storage/types.d.ts' */
/** @import { ChatController } from './chat-controller.js' */
/** @import { ViewActions } from './palette.js' */
/** @import { DurableConfig } from '../storage/durable-config.js' */
/** @import { WorkspaceServices } from './workspace-services.js' */
/** @import { SettingsFlow } from './settings-flow.js' */
/** @import { JobDelivery } from './job-delivery.js' */
/** @typedef {typeof import('./workspace-machinery.js')} Machinery */
import { OpfsFileSystem } from '../storage/opfs-fs.js';
import { SecretBox } from '../storage/secrets.js';
import { Router } from './router.js';
import { WorkspaceStore, FIRST_WORKSPACE_NAME } from './workspaces.js';
import { SettingsStore, providerLabel } from './settings.js';
import { homeListing, markInteractive, APP_READY_MARK } from './first-view.js';
import { AgentSettingsStore } from './agent-settings.js';
import { HookPipeline } from '../agent/runtime/hooks.js';
import { TabCoordinator } from '../agent/coordination/tabs.js';
import { RestoreGate, gatedCoordination } from '../agent/coordination/restore-gate.js';
import { DelegationBoard } from '../agent/coordination/delegation-board.js';
import { SemanticSearch } from './semantic.js';
import { IsolationSetting } from './isolation.js';
import { RAIL_COLLAPSED_KEY, listHiddenKey, tagFilterKey, tagFilterOf } from './flags.js';
import { MountStore } from '../storage/mounts.js';
import { h, clear, pickFile } from '../ui/dom.js';
import { HomeView, BACKUP_FILE_TYPES } from '../ui/home-view.js';
import { shortcutsDialog } from '../ui/dialogs.js';
import { BannerArea } from '../ui/banners.js';
import { PanelRegistry, builtinPanels } from './panels.js';
import { PANEL_NAV } from './panel-nav.js';
import { listenForShortcuts, shortcutList, hasCommandKey, paletteKeys } from './shortcuts.js';
import {
  noticeInsecureContext,
  noticeStorageStall,
  noticeUpdates,
  noticeConnectivity,
  noticeUnlistedWorkspaces,
  noticeUnsaved,
} from './page-notices.js';
import { DamageReport } from './damage-report.js';
import { recoverRestore, restoreMarker, takeRestoreDone } from './restore-recovery.js';
import { openConfig, reportConfigDamage, STATE_CHECKED_MARK, WORKSPACES_FILE } from './config-files.js';
import { createWorkspace, renameWorkspace, deleteWorkspace } from './workspace-actions.js';
import {
  renameConversation,
  editTags,
  exportConversation,
  importConversation,
  deleteConversation,
  pickConversationFile,
  saveCodeToWorkspace,
} from './conversation-actions.js';

/** How long after a workspace opens its conversations' files start being checked (in idle time). */
const CONVERSATION_CHECK_DELAY_MS = 2000;

/** A workspace route's panel: 'chat' or a name of the panel registry. @typedef {string} PanelName */

/**
 * The orchestrator: builds the services once, maps routes to views (home, a workspace's chat,
 * its panels), switches and tears down views, and wires UI events to the modules that act on
 * them, passing each what it needs. What an action does lives in those modules (settings-flow,
 * terminal-actions, chat-assembly, mount-controls, conversation- and workspace-actions,
 * palette, ...), not here.
 */
export class ClawserApp {
  /**
   * The workspace on screen; `palette`: what its views do that the command palette runs too.
   * `showName`: the workspace's new name on screen (after a rename).
   * @type {{workspaceId: string, panel: string, controller: ChatController, destroy: () => void, palette?: ViewActions,
   *   showName?: (name: string) => void} | null}
   */
  #view = null;
  /** @type {Map<string, ChatController>} */
  #controllers = new Map();
  /** Lifecycle hooks shared by every agent run; plugins and skills register here. */
  hooks = new HookPipeline();
  mounts = new MountStore();
  /** The per-workspace services (made with the workspace machinery, see #machinery). @type {WorkspaceServices | undefined} */
  services;
  /** The provider card and the settings dialog (made with the workspace machinery). @type {SettingsFlow | undefined} */
  #settingsFlow;
  /** The page's secrets (made at start). @type {SecretBox | undefined} */
  #secrets;

  /** The home screen painted before the app loaded, until the first render adopts it. @type {FirstView | null} */
  #firstView = null;

  /** A workspace's chat painted before the app loaded, until the first render takes its place. @type {WorkspaceFirstView | null} */
  #workspaceView = null;

  /** The storage started by the page before the app loaded (see main.js). @type {OpfsFileSystem | null} */
  #startedFs = null;

  /** Settings and the workspace list, in storage (made at start). @type {DurableConfig | undefined} */
  config;
  /** Cross-origin isolation in this browser (made at start). @type {IsolationSetting | undefined} */
  isolation;

  /**
   * @param {HTMLElement} root
   * @param {{firstView?: FirstView | null, workspaceView?: WorkspaceFirstView | null, fs?: OpfsFileSystem | null}} [options]
   *   firstView: the home screen painted by the page (first-view.js); workspaceView: a workspace's chat (workspace-first-view.js)
   */
  constructor(root, options = {}) {
    this.root = root;
    this.#startedFs = options.fs ?? null;
    this.banners = BannerArea();
    this.#firstView = options.firstView ?? null;
    this.#workspaceView = this.#firstView ? null : (options.workspaceView ?? null);
    this.main = this.#firstView?.view ?? this.#workspaceView?.view ?? h('div', { class: 'view' });
    /** The workspace panels besides the chat. */
    this.panels = new PanelRegistry();
    for (const p of builtinPanels(PANEL_NAV)) this.panels.register(p);
    this.router = new Router({ panels: () => this.panels.list().map((p) => p.name) });
  }

  async start() {
    if (this.#firstView || this.#workspaceView) {
      // The painted view stays in place (moving it would lose focus): only the banners join it.
      for (const child of [...this.root.children]) if (child !== this.main) child.remove();
      this.root.prepend(this.banners.root);
    } else {
      clear(this.root).append(this.banners.root, this.main);
    }
    noticeInsecureContext(this.banners);
    /** @type {FileSystem} */
    let fs;
    try {
      fs = this.#startedFs ?? new OpfsFileSystem();
    } catch (err) {
      clear(this.main).append(
        h(
          'main',
          { class: 'home', id: 'main' },
          h('h1', null, 'Clawser cannot start here'),
          h('p', { role: 'alert' }, /** @type {Error} */ (err).message),
        ),
      );
      return;
    }
    this.fs = fs;
    // Opened on a workspace (or a panel): its machinery loads (main.js preloaded it) while the settings are read.
    if (this.router.current.name !== 'home') this.#machineryModule().catch(() => {});
    const storageAnswered = noticeStorageStall(this.banners);
    // Damaged files found anywhere (a conversation's details, the goals, …): one notice, wherever the person is.
    this.damage = new DamageReport({ fs, banners: this.banners, onError: (err) => this.#showError(err) });
    // One tab of the origin leads (runs scheduled jobs); all share locks and live updates.
    this.tabs = new TabCoordinator({ label: document.title });
    // A backup restore is exclusive across tabs: every store write of this tab goes through
    // the gate (shared), the restore holds it exclusively, and other tabs stand still meanwhile.
    this.restoreGate = new RestoreGate({ channel: this.tabs });
    this.coordination = gatedCoordination(this.tabs, this.restoreGate);
    this.restoreGate.subscribe((notice) => this.#onRestoreElsewhere(notice));
    const secrets = new SecretBox();
    this.#secrets = secrets;
    const tabs = this.tabs;
    const gate = this.restoreGate;
    // A restore running in another tab finishes before this one reads anything. The settings
    // and the restore's marker are read together; a restore a crash interrupted is finished or
    // undone by its marker alone.
    const config = await gate.quietly(async () => {
      const [opened, marker] = await Promise.all([
        openConfig({ fs, tabs, gate, onError: (err) => noticeUnsaved(this.banners, err) }),
        restoreMarker(fs),
      ]);
      const outcome = await recoverRestore({ fs, config: opened, marker });
      if (outcome) this.banners.show('restore', outcome.text, { kind: outcome.kind });
      // A restore that finished just before the reload that opened this page says so.
      const restored = takeRestoreDone();
      if (restored && !outcome) this.banners.show('restore', restored);
      return opened;
    });
    this.config = config;
    this.semantic = new SemanticSearch({ config, whenIdle: (fn) => this.#whenIdle(fn) });
    this.settings = new SettingsStore({ config, secrets });
    this.isolation = new IsolationSetting({ config });
    this.agentSettings = new AgentSettingsStore({ config, secrets });
    const agentSettings = this.agentSettings;
    // Turn assembly (the agent, its tools, the sandbox) is loaded on first use: the first view
    // shows without it, which keeps the start-up path short.
    /** @type {Promise<import('./agent-factory.js').AgentFactory> | null} */
    let agents = null;
    this.agents = () =>
      (agents ??= import('./agent-factory.js').then(
        ({ AgentFactory }) =>
          new AgentFactory({
            agentSettings,
            hooks: this.hooks,
            services: (workspaceId) => this.#servicesOf(workspaceId),
            workspaceFs: (workspaceId) => this.workspaceFs(workspaceId),
            mountedFolder: (workspaceId) => this.services?.mountOf(workspaceId)?.handle.name ?? null,
            providerSettings: /** @type {SettingsStore} */ (this.settings),
            createChildConversation: (workspaceId, title, parent) => this.#controller(workspaceId).createChild(title, parent),
            delegationBoard: (workspaceId) => this.#delegationBoard(workspaceId),
          }),
      ));
    this.workspaces = new WorkspaceStore({
      config,
      fs,
      lock: (name, fn) => tabs.withLock(name, fn),
      onDelete: (id) => {
        this.settings?.forget(id);
        this.agentSettings?.forget(id);
        this.#controllers.delete(id);
        this.services?.forget(id);
      },
    });
    // Clone, backup and restore are loaded when first used (not on the start-up path).
    /** @type {Promise<import('./data-actions.js').DataActions> | null} */
    let data = null;
    this.data = () =>
      (data ??= import('./data-actions.js').then(
        ({ DataActions }) =>
          new DataActions({
            fs,
            config,
            secrets,
            workspaces: /** @type {WorkspaceStore} */ (this.workspaces),
            agentSettings: /** @type {AgentSettingsStore} */ (this.agentSettings),
            status: (text) => (text ? this.banners.show('progress', text, { dismissible: false }) : this.banners.hide('progress')),
            notify: (text) => this.banners.show('clone-skipped', text),
            exclusive: (fn) => /** @type {RestoreGate} */ (this.restoreGate).exclusive(fn),
          }),
      ));
    // Said before anything is drawn (only when there is damage: a normal start reads nothing more).
    if (config.problems().length) await this.#reportConfigDamage();
    await this.#firstWorkspace();
    navigator.storage?.persist?.().catch(() => {});
    this.router.onChange((route) => this.#guard(this.render(route)));
    await this.render(this.router.current).catch((err) => {
      // A workspace that cannot be shown must not keep Clawser from starting: the home screen
      // lists the others, and the banner says what went wrong.
      this.#showError(err);
      if (this.router.current.name === 'home') throw err;
      this.router.go({ name: 'home' }, { replace: true });
    });
    storageAnswered();
    markInteractive();
    // Whatever the first view, load the sandbox frame once while idle: the browser keeps it, so
    // code runs offline later (its navigation never reaches the service worker).
    this.#prewarmSandbox();
    // Only the leader tab runs scheduled jobs; when it closes, the next tab takes over.
    this.tabs.onLeaderChange((leader) => (leader ? this.#whenIdle(() => this.#startSchedulers()) : this.#stopSchedulers()));
    if (this.tabs.isLeader) this.#whenIdle(() => this.#startSchedulers());
    this.#guard(noticeUpdates(this.banners));
    // The service worker puts the isolation header on the pages it serves as the setting says.
    navigator.serviceWorker?.ready.then(() => this.isolation?.tellServiceWorker()).catch(() => {});
    this.#whenIdle(() => this.#guard(this.#checkStoredState()));
    addEventListener('unhandledrejection', (e) => this.#showError(e.reason));
    // Usage statistics are written a second after each call: what is left goes as the page does.
    addEventListener('pagehide', () => this.services?.flushUsage());
    // Hidden is the last moment a page is sure to run (a phone may discard it afterwards).
    // Visible again (the tab was in the background, the computer slept): jobs missed meanwhile
    // are found and run by their policy; so when the service worker woke and asks (sw.js).
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'hidden') this.services?.flushUsage();
      else this.services?.catchUpSchedulers('hidden');
    });
    // A job notification's "Open" (sw.js): the route it names, in this tab.
    navigator.serviceWorker?.addEventListener('message', (e) => {
      if (e.data?.type === 'clawser-jobs-check') this.services?.catchUpSchedulers('hidden');
      if (e.data?.type === 'clawser-open' && typeof e.data.hash === 'string' && /^#workspace\/[^/]+(\/[^/]+){0,2}$/.test(e.data.hash))
        location.hash = e.data.hash;
      // A notification snoozed: this tab keeps the time and asks the service worker to show it again then.
      if (e.data?.type === 'clawser-snoozed' && typeof e.data.until === 'number')
        setTimeout(
          () => navigator.serviceWorker.controller?.postMessage({ type: 'clawser-snooze-check' }),
          Math.max(0, e.data.until - Date.now()),
        );
    });
    noticeConnectivity(this.banners);
    listenForShortcuts({
      showList: () => this.#showShortcuts(),
      openPalette: () => this.#guard(this.#openPalette()),
      panels: () => this.panels.list(),
      workspaceId: () => (this.router.current.name === 'workspace' ? this.router.current.workspaceId : null),
      openPanel: (workspaceId, panel) => this.router.go({ name: 'workspace', workspaceId, panel }),
    });
    performance.mark(APP_READY_MARK);
  }

  /**
   * A first visit starts with one workspace (the one the first view showed, if it did). Not when
   * the stored list is damaged or lost entries: a new empty list would hide the workspaces whose
   * folders are still there (those are offered back instead, see #checkStoredState).
   */
  async #firstWorkspace() {
    const stores = /** @type {WorkspaceStore} */ (this.workspaces);
    if (stores.damage() || stores.list().length > 0) return;
    if ((await stores.unlisted()).length > 0) return;
    await stores.create(FIRST_WORKSPACE_NAME, this.#firstView?.created ? { entry: this.#firstView.created } : {});
  }

  /** A damaged settings or list file: in the notice of damaged files, with its download and "Set aside". */
  async #reportConfigDamage() {
    const stores = /** @type {WorkspaceStore} */ (this.workspaces);
    await reportConfigDamage({
      config: /** @type {DurableConfig} */ (this.config),
      damage: /** @type {DamageReport} */ (this.damage),
      unlisted: () => stores.unlisted(),
      afterSetAside: async (file) => {
        if (this.router.current.name === 'home') this.#renderHome();
        // A new list: the workspaces the damaged one named are offered back.
        if (file === WORKSPACES_FILE) await this.#offerUnlisted();
      },
    });
  }

  /** Workspace folders the list does not name (a list lost or set aside): offered back, with their names. */
  async #offerUnlisted() {
    const stores = /** @type {WorkspaceStore} */ (this.workspaces);
    if (stores.damage()) return;
    const found = await stores.unlisted();
    noticeUnlistedWorkspaces(this.banners, found, async () => {
      await stores.addBack(found);
      if (this.router.current.name === 'home') this.#renderHome();
    });
  }

  /**
   * After the first view, what the stored state needs from this tab: deletes a crash
   * interrupted (finished), workspace folders the list does not name (offered back), and each
   * listed workspace's record (written where missing). Nothing of it while the list is damaged:
   * it cannot be written, and the notice of damaged files says so.
   */
  async #checkStoredState() {
    const stores = /** @type {WorkspaceStore} */ (this.workspaces);
    try {
      if (stores.damage()) return;
      await stores.finishDeletes();
      await this.#offerUnlisted();
      await stores.ensureRecords();
    } finally {
      performance.mark(STATE_CHECKED_MARK);
    }
  }

  /**
   * Another tab began or ended a backup restore: stop every writer here (schedulers, the
   * daemon's checkpoints, turns — their next store write is refused) and say so in a banner
   * that cannot be dismissed; reload when the restore succeeded, resume when it failed.
   * @param {import('../agent/coordination/restore-gate.js').RestoreNotice} notice
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
      this.banners.show(
        'restore-elsewhere',
        'A backup is being restored in another tab. Nothing is saved here until it has finished; this tab reloads then.',
        { kind: 'warn', dismissible: false },
      );
      return;
    }
    if (notice.ok) {
      location.reload();
      return;
    }
    this.#quiet = false;
    this.main.inert = false;
    this.banners.show('restore-elsewhere', 'The restore in another tab failed and changed nothing; this tab works again.', {
      kind: 'warn',
    });
    if (this.tabs?.isLeader) this.#whenIdle(() => this.#startSchedulers());
  }

  /**
   * The agent factory once loaded (for synchronous questions: which providers are paused).
   * @type {import('./agent-factory.js').AgentFactory | null}
   */
  #loadedFactory = null;

  /** The agent factory, loaded on first use. */
  #agentFactory() {
    if (!this.agents) throw new Error('Clawser has not started.');
    return this.agents().then((f) => (this.#loadedFactory = f));
  }

  /** The workspace machinery's module, once loaded (see #machinery). @type {Machinery | null} */
  #loadedMachinery = null;
  /** @type {Promise<Machinery> | null} */
  #machineryImport = null;

  /** The workspace machinery's module (its services are not made yet); a module that failed to load is asked for again. */
  #machineryModule() {
    const loading = (this.#machineryImport ??= import('./workspace-machinery.js'));
    loading.catch(() => {
      if (this.#machineryImport === loading) this.#machineryImport = null;
    });
    return loading;
  }

  /**
   * What a workspace needs (its services and tools, its chat, its views, the daemon, job delivery,
   * the settings flow: web/app/workspace-machinery.js), loaded when first needed (a workspace
   * opens, the schedulers start): the home screen reaches app-ready without it. Makes the
   * services and the settings flow once it is in; a module that failed to load is asked for again.
   * @returns {Promise<Machinery>}
   */
  #machinery() {
    if (this.#loadedMachinery) return Promise.resolve(this.#loadedMachinery);
    return this.#machineryModule().then((m) => {
      if (!this.#loadedMachinery) this.#makeMachinery(m);
      return /** @type {Machinery} */ (this.#loadedMachinery);
    });
  }

  /** The workspace services, which the caller knows are made (a workspace is open, a job runs). */
  #loadedServices() {
    if (!this.services) throw new Error('Clawser has not loaded the workspace yet.');
    return this.services;
  }

  /** The workspace machinery, which the caller knows is loaded (a workspace is open, a job runs). */
  #m() {
    if (!this.#loadedMachinery) throw new Error('Clawser has not loaded the workspace yet.');
    return this.#loadedMachinery;
  }

  /** Makes the services and the settings flow from the loaded machinery. @param {Machinery} m */
  #makeMachinery(m) {
    const fs = /** @type {FileSystem} */ (this.fs);
    const config = /** @type {DurableConfig} */ (this.config);
    const agentSettings = /** @type {AgentSettingsStore} */ (this.agentSettings);
    this.services = new m.WorkspaceServices({
      fs,
      config,
      coordination: /** @type {import('../agent/types.d.ts').Coordination} */ (this.coordination),
      tabs: /** @type {TabCoordinator} */ (this.tabs),
      restoreGate: /** @type {RestoreGate} */ (this.restoreGate),
      agentSettings,
      semantic: /** @type {SemanticSearch} */ (this.semantic),
      mounts: this.mounts,
      screenshotTarget: () => this.root,
      runJob: (workspaceId, job, run) => this.#jobs().run(workspaceId, job, run),
      summaryModel: (workspaceId) => this.#agentFactory().then((f) => f.summaryModel(workspaceId)),
      secrets: /** @type {SecretBox} */ (this.#secrets),
      toolContext: async (workspaceId) => (await this.#agentFactory()).toolContext(workspaceId, undefined),
      chat: (workspaceId) => this.#controller(workspaceId),
      // MCP calls from outside run as a turn's calls do: the factory's gated runner of the workspace.
      mcpRunner: async (workspaceId, o) => (await (await this.#agentFactory()).parts(workspaceId, 'mcp-serve', o)).tools,
      workspaceName: (id) => this.workspaces?.list().find((w) => w.id === id)?.name ?? id,
      whenIdle: (fn) => this.#whenIdle(fn),
      quiet: () => this.#quiet,
      guard: (p) => this.#guard(p),
      damage: (workspaceId, place) =>
        place.global
          ? (notice) => this.damage?.sink({ where: 'Every workspace', fs: place.fs, prefix: place.prefix })(notice)
          : this.damageSink(workspaceId, place.fs, place.prefix),
    });
    this.#settingsFlow = new m.SettingsFlow({
      settings: /** @type {SettingsStore} */ (this.settings),
      agentSettings,
      workspaces: /** @type {WorkspaceStore} */ (this.workspaces),
      tabs: /** @type {TabCoordinator} */ (this.tabs),
      goSettings: (workspaceId) => this.#goSettings(workspaceId),
      showWorkspace: (workspaceId) => this.#renderWorkspace(workspaceId),
      guard: (p) => this.#guard(p),
      remote: () => this.#loadedServices().remote(),
      isolation: this.isolation,
      onIsolationChanged: (on) =>
        this.banners.show('isolation', `Cross-origin isolation turns ${on ? 'on' : 'off'} when Clawser is next loaded.`, {
          action: { label: 'Reload', run: () => location.reload() },
        }),
    });
    this.#loadedMachinery = m;
  }

  /**
   * When the page is idle, keeps one sandbox frame ready (and cached by the browser for offline
   * use), and loads the artifact frame once (cached the same way).
   */
  #prewarmSandbox() {
    if (this.#sandboxWarmed) return;
    this.#sandboxWarmed = true;
    const warm = () => {
      import('../packages/andbox/index.js').then((m) => m.prewarmSandbox()).catch(() => {});
      // The artifact frame too: cached by the browser, so an artifact opens offline.
      import('../ui/artifacts-pane.js').then((m) => m.prewarmArtifactFrame()).catch(() => {});
    };
    if ('requestIdleCallback' in globalThis) requestIdleCallback(warm, { timeout: 5000 });
    else setTimeout(warm, 1000);
  }

  #sandboxWarmed = false;

  /**
   * A search hit chosen: the message to show once its conversation is on screen.
   * @type {{workspaceId: string, conversationId: string, eventId: string | null} | null}
   */
  #pendingReveal = null;

  async #revealPending() {
    const hit = this.#pendingReveal;
    const view = this.#view;
    if (!hit || !view || view.workspaceId !== hit.workspaceId || view.panel !== 'chat') return;
    this.#pendingReveal = null;
    await view.controller.reveal(hit.conversationId, hit.eventId);
  }

  #showShortcuts() {
    shortcutsDialog(shortcutList(this.panels.list(), { command: hasCommandKey() }));
  }

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
    // Only the first render can adopt what the page painted (the home screen or a workspace's chat).
    const firstView = this.#firstView;
    const workspaceView = this.#workspaceView;
    this.#firstView = null;
    this.#workspaceView = null;
    const ws = route.name === 'workspace' ? this.workspaces?.get(route.workspaceId) : undefined;
    const panel = route.name === 'workspace' && this.panels.get(route.panel) ? route.panel : 'chat';
    // The painted chat of this workspace is replaced by the app's (anything else simply replaces it).
    const painted = ws && workspaceView?.workspaceId === ws.id && panel === 'chat' ? workspaceView : null;
    if (workspaceView && !painted) workspaceView.discard();
    if (route.name === 'home') return this.#renderHome(firstView);
    if (!ws) {
      this.banners.show('missing', 'That workspace does not exist (it may have been deleted).', { kind: 'warn' });
      return this.router.go({ name: 'home' }, { replace: true });
    }
    if (this.#view?.workspaceId !== ws.id || this.#view.panel !== panel)
      await this.#renderWorkspace(ws.id, route.conversationId, panel, painted);
    else if (route.conversationId) await this.#view.controller.select(route.conversationId);
    await this.#revealPending();
    if (route.panel === 'settings') await this.#openSettings(ws.id);
  }

  /** "OpenAI · gpt-4o-mini", "No provider yet". @param {string} workspaceId */
  #providerLabel(workspaceId) {
    return providerLabel(this.settings?.load(workspaceId) ?? null);
  }

  /** Clones a repository into a new workspace and opens its files (the home screen's button, the palette). */
  async #cloneRepository() {
    const id = await (await this.data?.())?.cloneRepository();
    if (id) this.router.go({ name: 'workspace', workspaceId: id, panel: 'files' });
  }

  async #exportEverything() {
    await (await this.data?.())?.exportEverything();
  }

  /** Restores a backup file and reloads (the home screen's button, the palette there). @param {File} file */
  async #restoreBackup(file) {
    // Background writers (git auto-init, jobs) stand still while a restore may replace everything.
    this.#quiet = true;
    this.#stopSchedulers();
    try {
      if (await (await this.data?.())?.restore(file)) return location.reload();
    } finally {
      this.#quiet = false;
    }
  }

  /** @param {FirstView | null} [firstView] the home screen painted before the app loaded, adopted when still current */
  #renderHome(firstView = null) {
    this.#view?.destroy();
    this.#view = null;
    const stores = /** @type {WorkspaceStore} */ (this.workspaces);
    const providerOf = (/** @type {string} */ id) => this.#providerLabel(id);
    /** @type {HomeActions} */
    const actions = {
      onOpen: (id) => this.router.go({ name: 'workspace', workspaceId: id, panel: 'chat' }),
      onCreate: () => this.#guard(this.#newWorkspace()),
      onClone: () => this.#guard(this.#cloneRepository()),
      onBackup: () => this.#guard(this.#exportEverything()),
      onRestore: (file) => this.#guard(this.#restoreBackup(file)),
      onRename: async (w) => {
        if (await renameWorkspace(stores, w)) draw();
      },
      onDelete: async (w) => {
        if (await deleteWorkspace(stores, w)) draw();
      },
    };
    const draw = () => clear(this.main).append(HomeView({ workspaces: stores.list(), providerOf, ...actions }));
    // The painted view stays when it is current (another tab may have changed the list meanwhile);
    // either way, what was used on it runs now.
    if (!firstView || firstView.listing !== homeListing(stores.list(), providerOf)) draw();
    // The workspace a first view offered on an empty cache, when the stored list had others: not made, so not opened.
    const offered = firstView?.created && !stores.get(firstView.created.id) ? firstView.created.id : null;
    firstView?.adopt(
      offered
        ? {
            ...actions,
            onOpen: (id) => {
              if (id !== offered) actions.onOpen(id);
            },
          }
        : actions,
    );
    document.title = 'Clawser';
  }

  /**
   * Where a workspace's stores report damaged files: `fs` is the store's file system, `prefix`
   * the path of its root in the page's storage.
   * @param {string} workspaceId @param {FileSystem} fs @param {string} prefix
   * @returns {import('../storage/damage.js').DamageSink}
   */
  damageSink(workspaceId, fs, prefix) {
    const name = () => this.workspaces?.get(workspaceId)?.name;
    return (notice) => this.damage?.sink({ where: name() ? `Workspace “${name()}”` : 'A workspace', fs, prefix })(notice);
  }

  /** The services of a workspace, made once. @param {string} workspaceId @returns {import('./workspace-services.js').Services} */
  #servicesOf(workspaceId) {
    return this.#loadedServices().of(workspaceId);
  }

  /**
   * A workspace's files (its OPFS folder, or the folder opened from the computer).
   * @param {string} workspaceId
   * @returns {FileSystem}
   */
  workspaceFs(workspaceId) {
    return this.#loadedServices().workspaceFs(workspaceId);
  }

  /** Running and delivering scheduled jobs, made on first use. @type {JobDelivery | null} */
  #jobDelivery = null;
  /** @returns {JobDelivery} */
  #jobs() {
    const { JobDelivery } = this.#m();
    return (this.#jobDelivery ??= new JobDelivery({
      agentSettings: /** @type {AgentSettingsStore} */ (this.agentSettings),
      workspaceName: (id) => /** @type {WorkspaceStore} */ (this.workspaces).list().find((w) => w.id === id)?.name ?? id,
      controller: (id) => this.#controller(id),
      tools: async (id, conversationId, approve) => (await (await this.#agentFactory()).parts(id, conversationId, { approve })).tools,
      notify: (id, title, body) => this.#servicesOf(id).toolUi.notify(title, body),
      banners: this.banners,
      open: (route) => this.router.go(route),
      onScreen: (id, conversationId) =>
        this.#view?.workspaceId === id && this.#view.panel === 'chat' && this.#view.controller.state.activeId === conversationId,
      guard: (p) => this.#guard(p),
      heartbeat: async (id) => (await this.#servicesOf(id).agents()).heartbeat(),
    }));
  }

  /** True while a restore runs: background tasks that write must not start. */
  #quiet = false;

  /** @param {string} workspaceId */
  #controller(workspaceId) {
    let c = this.#controllers.get(workspaceId);
    if (!c) {
      c = this.#m().createChatController({
        workspaceId,
        fs: /** @type {FileSystem} */ (this.fs),
        coordination: /** @type {import('../agent/types.d.ts').Coordination} */ (this.coordination),
        settings: /** @type {SettingsStore} */ (this.settings),
        agentSettings: /** @type {AgentSettingsStore} */ (this.agentSettings),
        services: this.#loadedServices(),
        agents: () => this.#agentFactory(),
        loadedAgents: () => this.#loadedFactory,
        delegations: this.#delegationBoard(workspaceId),
        guard: (p) => this.#guard(p),
        onDamage: this.damageSink(workspaceId, /** @type {FileSystem} */ (this.fs), ''),
      });
      this.#controllers.set(workspaceId, c);
    }
    return c;
  }

  /** The live sub-agents of each workspace (the factory runs them, the chat shows them). @type {Map<string, DelegationBoard>} */
  #delegationBoards = new Map();

  /** @param {string} workspaceId */
  #delegationBoard(workspaceId) {
    let board = this.#delegationBoards.get(workspaceId);
    if (!board) this.#delegationBoards.set(workspaceId, (board = new DelegationBoard()));
    return board;
  }

  /**
   * @param {string} workspaceId @param {string} [conversationId] @param {PanelName} [panel]
   * @param {WorkspaceFirstView | null} [painted] the same chat painted before the app loaded: this view takes its place
   */
  async #renderWorkspace(workspaceId, conversationId, panel = 'chat', painted = null) {
    const { ChatView, LayoutPreference, artifactSlot, SplitView, WorkspaceView } = await this.#machinery();
    await this.#loadedServices().loadMount(workspaceId);
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
    this.workspaces?.touch(workspaceId);
    const services = this.#servicesOf(workspaceId);
    const current = settings.load(workspaceId);
    const needsSetup = !current;
    /** @type {Parameters<typeof ChatView>[0]} */
    const chatProps = {
      controller,
      needsSetup,
      onSaveCode: (code, ext) => saveCodeToWorkspace(() => services.files(), code, ext),
      setupCard: () => /** @type {SettingsFlow} */ (this.#settingsFlow).setupCard(workspaceId),
      onOpenSettings: () => this.#goSettings(workspaceId),
      onConversationChange: (id) => {
        const r = this.router.current;
        if (id && r.name === 'workspace' && r.workspaceId === workspaceId && r.conversationId !== id && r.panel === 'chat') {
          this.router.go({ name: 'workspace', workspaceId, panel: 'chat', conversationId: id }, { replace: true });
        }
      },
    };
    const chat = ChatView(chatProps);
    const layouts = new LayoutPreference(/** @type {DurableConfig} */ (this.config));
    const layout = layouts.load();
    const side = artifactSlot({
      artifact: services.artifact,
      shelf: services.artifacts,
      share: layout.artifact,
      onShare: (v) => layouts.save({ artifact: v }),
    });
    const panelEntry = panel === 'chat' ? undefined : this.panels.get(panel);
    /** @type {import('./panels.js').PanelView | null} */
    const sub = panelEntry ? await panelEntry.open(this.#panelContext(workspaceId)) : null;
    const splittable = !!sub && !!panelEntry?.split;
    const splitOn = splittable && layout.split;
    /** The chat is on screen beside the panel (not on a narrow window): choosing a conversation keeps the panel. */
    const splitShown = () => splitOn && matchMedia('(min-width: 901px)').matches;
    const content =
      splitOn && sub && panelEntry
        ? SplitView({
            chat: chat.root,
            panel: sub.root,
            panelLabel: panelEntry.label,
            ratio: layout.ratio,
            onRatio: (ratio) => layouts.save({ ratio }),
          })
        : sub
          ? sub.root
          : chat.root;
    const toggleSplit = splittable
      ? () => {
          layouts.save({ split: !layout.split });
          this.#guard(this.#renderWorkspace(workspaceId, controller.state.activeId ?? undefined, panel));
        }
      : null;
    /** @type {Parameters<typeof WorkspaceView>[0]} */
    const workspaceProps = {
      workspace: ws,
      controller,
      chat: content,
      side: side.root,
      split: toggleSplit ? { on: layout.split, onToggle: toggleSplit } : undefined,
      panels: [
        {
          label: 'Chat',
          icon: 'messages-square',
          shortcut: 'Alt+0',
          current: panel === 'chat',
          onOpen: () => this.router.go({ name: 'workspace', workspaceId, panel: 'chat' }),
        },
        ...this.panels.list().map((p) => ({
          label: p.label,
          icon: p.icon,
          shortcut: p.shortcut,
          current: p.name === panel,
          onOpen: () => this.router.go({ name: 'workspace', workspaceId, panel: p.name }),
        })),
      ],
      railCollapsed: this.config?.get(RAIL_COLLAPSED_KEY, false) === true,
      onRailToggle: (collapsed) => this.#guard((async () => this.config?.set(RAIL_COLLAPSED_KEY, collapsed))()),
      listHidden: this.config?.get(listHiddenKey(workspaceId), false) === true,
      onListToggle: (hidden) => this.#guard((async () => this.config?.set(listHiddenKey(workspaceId), hidden))()),
      onPalette: () => this.#guard(this.#openPalette()),
      paletteKeys: paletteKeys(hasCommandKey()),
      onSearch: (query) => controller.searchConversations(query),
      onOpenHit: (hit) => {
        // Beside a panel, the chat half shows the hit and the panel stays.
        if (splitShown()) {
          this.#guard(controller.reveal(hit.conversationId, hit.eventId));
          return;
        }
        this.#pendingReveal = { workspaceId, conversationId: hit.conversationId, eventId: hit.eventId };
        if (panel === 'chat' && controller.state.activeId === hit.conversationId) this.#guard(this.#revealPending());
        else this.router.go({ name: 'workspace', workspaceId, panel: 'chat', conversationId: hit.conversationId });
      },
      providerLabel: this.#providerLabel(workspaceId),
      onHome: () => this.router.go({ name: 'home' }),
      onSettings: () => this.#goSettings(workspaceId),
      onSelect: (id) => {
        if (splitShown()) this.#guard(controller.select(id));
        else this.router.go({ name: 'workspace', workspaceId, panel: 'chat', conversationId: id });
      },
      onNew: async () => {
        const meta = await controller.newConversation();
        if (!splitShown()) this.router.go({ name: 'workspace', workspaceId, panel: 'chat', conversationId: meta.id });
        chat.focusComposer();
      },
      onRename: (id) => this.#guard(renameConversation(controller, id)),
      onPin: (id, pinned) => this.#guard(controller.setPinned(id, pinned)),
      onTags: (id) => this.#guard(editTags(controller, id)),
      tagFilter: tagFilterOf(this.config?.get(tagFilterKey(workspaceId), null)),
      onTagFilter: (tag) => this.#guard((async () => this.config?.set(tagFilterKey(workspaceId), tag))()),
      onExport: (id) => this.#guard(exportConversation(controller, id)),
      onImport: (file) => this.#guard(this.#importConversation(workspaceId, file)),
      onDelete: (id, title) => this.#guard(this.#deleteConversation(workspaceId, controller, id, title)),
    };
    const view = WorkspaceView(workspaceProps);
    if (painted)
      painted.handOver(view.root, {
        controller,
        activeId: controller.state.activeId,
        workspace: workspaceProps,
        chat: chatProps,
        setup: /** @type {SettingsFlow} */ (this.#settingsFlow).setupActions(workspaceId),
      });
    else clear(this.main).append(view.root);
    if (this.#view?.controller === controller) {
      this.#view.palette = {
        focusSearch: view.focusSearch,
        toggleRail: view.toggleRail,
        railCollapsed: view.railCollapsed,
        toggleList: view.toggleList,
        listHidden: view.listHidden,
        undoTurn: chat.undoTurn,
        redoTurn: chat.redoTurn,
        editMessage: chat.editMessage,
        chatShown: () => panel === 'chat' || splitShown(),
        split: toggleSplit ? { on: layout.split, toggle: toggleSplit } : null,
      };
      this.#view.showName = (name) => {
        view.showName(name);
        document.title = `${name} — Clawser`;
      };
    }
    document.title = `${ws.name} — Clawser`;
    destroyView = () => {
      view.destroy();
      chat.destroy();
      sub?.destroy?.();
      side.destroy();
    };
    this.#loadedServices().autoInitGit(workspaceId);
    this.#loadedServices().connectMcp(workspaceId);
    this.#checkOnce(workspaceId);
  }

  /** Workspaces whose files were checked for damage on this page. */
  #checked = new Set();

  /** Reads the workspace's other files once, when the page is idle: damage shows while the person is here. @param {string} workspaceId */
  #checkOnce(workspaceId) {
    if (this.#checked.has(workspaceId)) return;
    this.#checked.add(workspaceId);
    this.#whenIdle(() => {
      if (this.#quiet || !this.workspaces?.get(workspaceId)) return;
      const fs = this.workspaceFs(workspaceId);
      let settled = false;
      this.#guard(
        this.#m().checkWorkspace({
          workspaceId,
          services: this.#servicesOf(workspaceId),
          fs,
          onDamage: this.damageSink(workspaceId, fs, `clawser_workspaces/${workspaceId}/`),
          // Every conversation's files, a batch at a time while the page is idle, once start-up
          // has settled: reads queued then would hold up the first ones of the person's own.
          conversations: this.#controller(workspaceId).store,
          pause: () =>
            new Promise((resolve) => {
              const idle = () => this.#whenIdle(() => resolve(undefined));
              if (settled) return idle();
              settled = true;
              setTimeout(idle, CONVERSATION_CHECK_DELAY_MS);
            }),
        }),
      );
    });
  }

  /**
   * Deletes a conversation once the user confirmed it (its list's button, the command palette);
   * the route stops naming it when it was the one on screen.
   * @param {string} workspaceId @param {ChatController} controller @param {string} id @param {string} title
   */
  async #deleteConversation(workspaceId, controller, id, title) {
    if ((await deleteConversation(controller, id, title)) === 'active')
      this.router.go({ name: 'workspace', workspaceId, panel: 'chat' }, { replace: true });
  }

  /** @param {string} workspaceId @param {File} file */
  async #importConversation(workspaceId, file) {
    try {
      await this.#machinery();
      const meta = await importConversation(this.#controller(workspaceId), file);
      this.router.go({ name: 'workspace', workspaceId, panel: 'chat', conversationId: meta.id });
    } catch (err) {
      this.banners.show('import', /** @type {Error} */ (err).message, { kind: 'error' });
    }
  }

  /** Asks for a JSONL file and imports it as a conversation. @param {string} workspaceId */
  #pickImport(workspaceId) {
    pickConversationFile((file) => this.#guard(this.#importConversation(workspaceId, file)));
  }

  async #newWorkspace() {
    const ws = await createWorkspace(/** @type {WorkspaceStore} */ (this.workspaces));
    if (ws) this.router.go({ name: 'workspace', workspaceId: ws.id, panel: 'chat' });
  }

  /** Renames the workspace on screen (the palette; the home screen's rows rename theirs). @param {string} workspaceId */
  async #renameOpenWorkspace(workspaceId) {
    const stores = /** @type {WorkspaceStore} */ (this.workspaces);
    const w = stores.get(workspaceId);
    if (!w || !(await renameWorkspace(stores, w))) return;
    if (this.#view?.workspaceId === workspaceId) this.#view.showName?.(stores.get(workspaceId)?.name ?? w.name);
  }

  /**
   * Deletes the workspace on screen once confirmed (the palette): the home screen replaces it
   * first, so nothing of it is open while its data is removed, and lists the rest afterwards.
   * @param {string} workspaceId
   */
  async #deleteOpenWorkspace(workspaceId) {
    const stores = /** @type {WorkspaceStore} */ (this.workspaces);
    const w = stores.get(workspaceId);
    if (!w) return;
    const home = () => this.router.go({ name: 'home' }, { replace: true });
    if ((await deleteWorkspace(stores, w, home)) && this.router.current.name === 'home') this.#renderHome();
  }

  /** The command palette, with every action that applies where the user is (loaded on first use). */
  async #openPalette() {
    const view = this.router.current.name === 'workspace' ? this.#view : null;
    const { openPalette } = await import('./palette.js');
    return openPalette({
      view,
      workspaces: /** @type {WorkspaceStore} */ (this.workspaces),
      panels: this.panels.list(),
      agentSettings: /** @type {AgentSettingsStore} */ (this.agentSettings),
      go: (route) => this.router.go(route),
      inform: (text) => this.banners.show('autonomy', text, { kind: 'info' }),
      guard: (p) => this.#guard(p),
      newWorkspace: () => this.#newWorkspace(),
      pickImport: (workspaceId) => this.#pickImport(workspaceId),
      showShortcuts: () => this.#showShortcuts(),
      deleteConversation: (workspaceId, controller, id, title) => this.#deleteConversation(workspaceId, controller, id, title),
      renameWorkspace: (workspaceId) => this.#renameOpenWorkspace(workspaceId),
      deleteWorkspace: (workspaceId) => this.#deleteOpenWorkspace(workspaceId),
      cloneRepository: () => this.#cloneRepository(),
      exportEverything: () => this.#exportEverything(),
      // A restore replaces everything: it starts from the home screen, where no workspace is open.
      pickBackup:
        this.router.current.name === 'home' ? () => pickFile(BACKUP_FILE_TYPES, (file) => this.#guard(this.#restoreBackup(file))) : null,
    });
  }

  /** Workspaces whose daemon started on this page. @type {Set<string>} */
  #daemons = new Set();

  /** @param {string} workspaceId @param {ChatController} controller */
  async #startDaemon(workspaceId, controller) {
    if (this.#daemons.has(workspaceId)) return;
    this.#daemons.add(workspaceId);
    const gate = /** @type {RestoreGate} */ (this.restoreGate);
    const fs = this.workspaceFs(workspaceId);
    await this.#m().startWorkspaceDaemon({
      workspaceId,
      fs,
      controller,
      warn: (message) => this.banners.show(`daemon-${workspaceId}`, message, { kind: 'warn' }),
      write: (fn) => gate.write(fn),
      onDamage: this.damageSink(workspaceId, fs, `clawser_workspaces/${workspaceId}/`),
    });
  }

  /** @param {() => void} fn */
  #whenIdle(fn) {
    if ('requestIdleCallback' in globalThis) requestIdleCallback(fn, { timeout: 3000 });
    else setTimeout(fn, 500);
  }

  /** Starts every workspace's scheduler: jobs run whichever workspace is on screen. */
  #startSchedulers() {
    if (this.#quiet || !this.tabs?.isLeader) return;
    // The jobs run with the workspace machinery (tools, chat): loaded now if the home screen did without it.
    this.#guard(
      this.#machinery().then(() => {
        if (this.#quiet || !this.tabs?.isLeader) return;
        this.services?.startSchedulers((this.workspaces?.list() ?? []).map((ws) => ws.id));
      }),
    );
  }

  #stopSchedulers() {
    this.services?.stopSchedulers();
  }

  /**
   * What every panel of the registry gets for a workspace: the same for all of them (a panel that
   * needs more gets it from the workspace's services, not from a line here).
   * @param {string} workspaceId
   * @returns {import('./panels.js').PanelContext}
   */
  #panelContext(workspaceId) {
    return {
      workspaceId,
      services: this.#servicesOf(workspaceId),
      agentSettings: /** @type {AgentSettingsStore} */ (this.agentSettings),
      providerSettings: /** @type {SettingsStore} */ (this.settings),
      chat: this.#controller(workspaceId),
      workspaces: () => this.workspaces?.list() ?? [],
      preferences: {
        get: (key) => this.config?.get(key, null),
        set: (key, value) => this.config?.set(key, value),
        flush: () => this.config?.flush() ?? Promise.resolve(),
      },
      back: () => this.router.go({ name: 'workspace', workspaceId, panel: 'chat' }),
      openPanel: (panel) => this.router.go({ name: 'workspace', workspaceId, panel }),
      openConversation: (id) => this.router.go({ name: 'workspace', workspaceId, panel: 'chat', conversationId: id }),
      refresh: () => {
        const r = this.router.current;
        const activeId = this.#view?.controller.state.activeId ?? undefined;
        return this.#renderWorkspace(workspaceId, activeId, r.name === 'workspace' ? r.panel : 'chat');
      },
      showError: (err) => this.#showError(err),
    };
  }

  /** @param {string} workspaceId */
  #goSettings(workspaceId) {
    this.router.go({ name: 'workspace', workspaceId, panel: 'settings' });
  }

  /**
   * The settings dialog over the workspace; afterwards its chat again (shown anew when something was saved).
   * @param {string} workspaceId
   */
  async #openSettings(workspaceId) {
    await this.#machinery();
    const saved = await /** @type {SettingsFlow} */ (this.#settingsFlow).open(workspaceId);
    if (saved === null) return;
    // A panel chosen as the dialog closed (Alt+5 at once) stands: its route draws the workspace anew.
    const now = this.router.current;
    if (now.name !== 'workspace' || now.workspaceId !== workspaceId || now.panel !== 'settings') return;
    const convId = this.#view?.controller.state.activeId ?? undefined;
    if (saved) await this.#renderWorkspace(workspaceId, convId);
    this.router.go({ name: 'workspace', workspaceId, panel: 'chat', conversationId: convId }, { replace: true });
  }
}
