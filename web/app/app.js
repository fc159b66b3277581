/** @import { Route } from './router.js' */
/** @import { FirstView, HomeActions } from './first-view.js' */
/** @import { WorkspaceFirstView } from './workspace-first-view.js' */
/** @import { FileSystem } from '../storage/types.d.ts' */
/** @import { NoKeyOptions } from '../providers/discovery.js' */
import { OpfsFileSystem } from '../storage/opfs-fs.js';
import { LocalConfig } from '../storage/local-config.js';
import { SecretBox } from '../storage/secrets.js';
import { CATALOG, catalogEntry } from '../providers/catalog.js';
import { tabChromeAIAvailability, CHROME_AI_STATES } from '../providers/chrome-ai.js';
import { discoverNoKeyOptions } from '../providers/discovery.js';
import { Router } from './router.js';
import { WorkspaceStore, FIRST_WORKSPACE_NAME } from './workspaces.js';
import { SettingsStore, providerLabel } from './settings.js';
import { homeListing, markInteractive, APP_READY_MARK } from './first-view.js';
import { ChatController } from './chat-controller.js';
import { registerServiceWorker } from './sw-client.js';
import { AgentSettingsStore, parseLimitFields } from './agent-settings.js';
import { HookPipeline } from '../agent/hooks.js';
import { TabCoordinator } from '../agent/tabs.js';
import { RestoreGate, gatedCoordination } from '../agent/restore-gate.js';
import { startWorkspaceDaemon } from './daemon-wiring.js';
import { DelegationBoard } from '../agent/delegation-board.js';
import { SemanticSearch } from './semantic.js';
import { LeakDetector } from '../safety/leak-detector.js';
import { RESTORE_FLAG, RAIL_COLLAPSED_KEY } from './flags.js';
import { MountStore } from '../storage/mounts.js';
import { ArtifactView } from '../ui/artifact-view.js';
import { h, clear, downloadBlob } from '../ui/dom.js';
import { HomeView } from '../ui/home-view.js';
import { WorkspaceView } from '../ui/workspace-view.js';
import { SplitView, ResizeHandle } from '../ui/split-view.js';
import { ChatView, lastRegenerableReply } from '../ui/chat-view.js';
import { FirstRunCard } from '../ui/first-run.js';
import { openSettingsDialog } from '../ui/settings-dialog.js';
import { confirmDialog, formDialog, promptDialog, shortcutsDialog } from '../ui/dialogs.js';
import { BannerArea } from '../ui/banners.js';
import { PanelRegistry, BUILTIN_PANELS } from './panels.js';
import { panelOfShortcut } from './panel-nav.js';
import { AutonomyController } from '../agent/autonomy.js';
import { WorkspaceServices } from './workspace-services.js';
import { JobDelivery } from './job-delivery.js';

/** The split view's state: chat beside Files or Git, the chat's share, the artifact pane's share. */
const LAYOUT_KEY = 'clawser_ui_layout';
/** Panels that can show beside the chat. */
const SPLIT_PANELS = ['files', 'git'];

/** A workspace route's panel: 'chat' or a name of the panel registry. @typedef {string} PanelName */

/**
 * The actions of the views on screen that have a button or a shortcut, for the command palette
 * (the same functions, not copies).
 * @typedef {object} ViewActions
 * @property {() => void} focusSearch
 * @property {() => void} toggleRail
 * @property {() => boolean} railCollapsed
 * @property {() => Promise<void>} undoTurn Alt+Z
 * @property {() => Promise<void>} redoTurn Alt+Shift+Z
 * @property {() => boolean} chatShown the chat is on screen (alone, or beside the panel)
 * @property {{on: boolean, toggle: () => void} | null} split the panel on screen can show beside the chat
 */

/**
 * The orchestrator: builds the services once, maps routes to views, and wires UI events to
 * the stores and controllers. Holds no business rules of its own.
 */
export class ClawserApp {
  /**
   * The workspace on screen; `palette`: what its views do that the command palette runs too.
   * @type {{workspaceId: string, panel: string, controller: ChatController, destroy: () => void, palette?: ViewActions} | null}
   */
  #view = null;
  /** @type {Map<string, ChatController>} */
  #controllers = new Map();
  /** Lifecycle hooks shared by every agent run; plugins and skills register here. */
  hooks = new HookPipeline();
  mounts = new MountStore();
  /** The per-workspace services (made at start). @type {WorkspaceServices | undefined} */
  services;
  /** @type {Promise<NoKeyOptions> | null} */
  #discovery = null;
  #settingsOpen = false;

  /** The home screen painted before the app loaded, until the first render adopts it. @type {FirstView | null} */
  #firstView = null;

  /** A workspace's chat painted before the app loaded, until the first render takes its place. @type {WorkspaceFirstView | null} */
  #workspaceView = null;

  /** The storage started by the page before the app loaded (see main.js). @type {OpfsFileSystem | null} */
  #startedFs = null;

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
    this.#workspaceView = this.#firstView ? null : options.workspaceView ?? null;
    this.main = this.#firstView?.view ?? this.#workspaceView?.view ?? h('div', { class: 'view' });
    /** The workspace panels besides the chat. */
    this.panels = new PanelRegistry();
    for (const p of BUILTIN_PANELS) this.panels.register(p);
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
    if (!isSecureContext) {
      this.banners.show('insecure', 'This page is not a secure context, so offline mode and storage are unavailable. Open Clawser via http://localhost / http://127.0.0.1 or over https.', { kind: 'warn', dismissible: false });
    }
    /** @type {FileSystem} */
    let fs;
    try {
      fs = this.#startedFs ?? new OpfsFileSystem();
      this.config = new LocalConfig();
    } catch (err) {
      clear(this.main).append(h('main', { class: 'home', id: 'main' }, h('h1', null, 'Clawser cannot start here'), h('p', { role: 'alert' }, /** @type {Error} */ (err).message)));
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
    this.#secrets = secrets;
    // A restore running in another tab finishes before this one reads anything.
    await this.restoreGate.quietly(() => this.#recoverRestore(fs));
    this.settings = new SettingsStore({ config: this.config, secrets });
    this.agentSettings = new AgentSettingsStore({ config: this.config, secrets });
    const agentSettings = this.agentSettings;
    this.services = new WorkspaceServices({
      fs,
      config: this.config,
      coordination: this.coordination,
      tabs: this.tabs,
      restoreGate: this.restoreGate,
      agentSettings,
      semantic: this.semantic,
      mounts: this.mounts,
      screenshotTarget: () => this.root,
      runJob: (workspaceId, job, run) => this.#jobs().run(workspaceId, job, run),
      summaryModel: (workspaceId) => this.#agentFactory().then((f) => f.summaryModel(workspaceId)),
      secrets,
      // OAuth-signed MCP servers: their access token (refreshed when it expires) on every request.
      mcpAuthHeaders: (workspaceId, server) => this.#mcpAuth().then((a) => a.oauth.headers(workspaceId, server)),
      whenIdle: (fn) => this.#whenIdle(fn),
      quiet: () => this.#quiet,
      guard: (p) => this.#guard(p),
    });
    // Turn assembly (the agent, its tools, the sandbox) is loaded on first use: the first view
    // shows without it, which keeps the start-up path short.
    /** @type {Promise<import('./agent-factory.js').AgentFactory> | null} */
    let agents = null;
    this.agents = () => (agents ??= import('./agent-factory.js').then(({ AgentFactory }) => new AgentFactory({
      agentSettings,
      hooks: this.hooks,
      services: (workspaceId) => this.#servicesOf(workspaceId),
      workspaceFs: (workspaceId) => this.workspaceFs(workspaceId),
      mountedFolder: (workspaceId) => this.services?.mountOf(workspaceId)?.handle.name ?? null,
      providerSettings: /** @type {SettingsStore} */ (this.settings),
      createChildConversation: (workspaceId, title, parent) => this.#controller(workspaceId).createChild(title, parent),
      delegationBoard: (workspaceId) => this.#delegationBoard(workspaceId),
    })));
    this.workspaces = new WorkspaceStore({
      config: this.config,
      fs,
      onDelete: (id) => {
        this.settings?.forget(id);
        this.agentSettings?.forget(id);
        this.config?.remove(`clawser_tool_perms_${id}`);
        this.config?.remove(`clawser_tool_rules_${id}`);
        // Its skills choices and MCP servers (with their sealed tokens) go with it.
        this.config?.remove(`clawser_skills_enabled_${id}`);
        if (this.config) for (const prefix of [`clawser_mcp_secret_${id}_`, `clawser_mcp_oauth_${id}_`]) for (const k of this.config.keys(prefix)) this.config.remove(k);
        this.config?.remove(`clawser_mcp_servers_${id}`);
        this.#controllers.delete(id);
        this.services?.forget(id);
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
    if (this.#firstView?.created) await this.workspaces.ensureFolder(this.#firstView.created);
    if (this.workspaces.list().length === 0) await this.workspaces.create(FIRST_WORKSPACE_NAME);
    navigator.storage?.persist?.().catch(() => {});
    this.router.onChange((route) => this.#guard(this.render(route)));
    await this.render(this.router.current);
    clearTimeout(stalled);
    this.banners.hide('storage-stalled');
    markInteractive();
    // Whatever the first view, load the sandbox frame once while idle: the browser keeps it, so
    // code runs offline later (its navigation never reaches the service worker).
    this.#prewarmSandbox();
    // Only the leader tab runs scheduled jobs; when it closes, the next tab takes over.
    this.tabs.onLeaderChange((leader) => (leader ? this.#whenIdle(() => this.#startSchedulers()) : this.#stopSchedulers()));
    if (this.tabs.isLeader) this.#whenIdle(() => this.#startSchedulers());
    this.#guard(
      registerServiceWorker({
        onUpdateReady: (apply) => this.banners.show('update', 'A new version of Clawser is available.', { action: { label: 'Reload', run: apply } }),
        onUpdatedElsewhere: (reload) => this.banners.show('update', 'Clawser was updated in another tab. Reload this tab to use the new version (your conversations are saved).', { kind: 'warn', dismissible: false, action: { label: 'Reload', run: reload } }),
      }),
    );
    addEventListener('unhandledrejection', (e) => this.#showError(e.reason));
    // Usage statistics are written a second after each call: what is left goes as the page does.
    addEventListener('pagehide', () => this.services?.flushUsage());
    // Hidden is the last moment a page is sure to run (a phone may discard it afterwards).
    document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'hidden') this.services?.flushUsage(); });
    // Offline is a normal state here (everything is stored in the browser): say so, and what still works.
    const showConnectivity = () => {
      if (navigator.onLine) this.banners.hide('offline');
      else this.banners.show('offline', 'You are offline. Your workspaces, files, memory and local models keep working; cloud providers answer again once you reconnect.', { kind: 'warn', dismissible: false });
    };
    addEventListener('online', showConnectivity);
    addEventListener('offline', showConnectivity);
    showConnectivity();
    // "?" lists every keyboard shortcut (not while typing, not over another dialog).
    window.addEventListener('keydown', (e) => {
      if (e.key !== '?' || e.ctrlKey || e.metaKey || e.altKey || document.querySelector('dialog[open]')) return;
      const target = /** @type {HTMLElement | null} */ (e.target);
      if (target?.closest('input, textarea, select, [contenteditable]:not([contenteditable="false"])')) return;
      e.preventDefault();
      this.#showShortcuts();
    });
    // Ctrl/Cmd+K: the command palette, from anywhere (also while typing).
    window.addEventListener('keydown', (e) => {
      if (e.key.toLowerCase() !== 'k' || !(e.ctrlKey || e.metaKey) || e.altKey || e.shiftKey) return;
      e.preventDefault();
      this.#guard(this.#openPalette());
    });
    // Each panel's keyboard shortcut (Alt+1…), in the open workspace.
    window.addEventListener('keydown', (e) => {
      const route = this.router.current;
      if (route.name !== 'workspace') return;
      const panel = panelOfShortcut(e, this.panels.list());
      if (!panel) return;
      e.preventDefault();
      this.router.go({ name: 'workspace', workspaceId: route.workspaceId, panel });
    });
    performance.mark(APP_READY_MARK);
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

  /** The agent factory once loaded (for synchronous questions: which providers are paused). @type {import('./agent-factory.js').AgentFactory | null} */
  #loadedFactory = null;

  /** The agent factory, loaded on first use. */
  #agentFactory() {
    if (!this.agents) throw new Error('Clawser has not started.');
    return this.agents().then((f) => (this.#loadedFactory = f));
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

  /** A search hit chosen: the message to show once its conversation is on screen. @type {{workspaceId: string, conversationId: string, eventId: string | null} | null} */
  #pendingReveal = null;

  async #revealPending() {
    const hit = this.#pendingReveal;
    const view = this.#view;
    if (!hit || !view || view.workspaceId !== hit.workspaceId || view.panel !== 'chat') return;
    this.#pendingReveal = null;
    await view.controller.reveal(hit.conversationId, hit.eventId);
  }

  #showShortcuts() {
    shortcutsDialog([
      { keys: '?', action: 'Show this list' },
      { keys: 'Ctrl+K / ⌘K', action: 'Command palette: every action, panel, conversation and workspace' },
      { keys: 'Enter', action: 'Send the message' },
      { keys: 'Shift+Enter', action: 'New line in the message' },
      { keys: 'Esc', action: 'Stop the reply being written; close a dialog' },
      { keys: 'Alt+Z', action: 'Undo the latest turn (its files, memories, goals and jobs)' },
      { keys: 'Alt+Shift+Z', action: 'Redo the turn undone last' },
      { keys: 'Alt+0', action: 'Open Chat' },
      ...this.panels.list().filter((p) => p.shortcut).map((p) => ({ keys: /** @type {string} */ (p.shortcut), action: `Open ${p.label}` })),
    ]);
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
    if (this.#view?.workspaceId !== ws.id || this.#view.panel !== panel) await this.#renderWorkspace(ws.id, route.conversationId, panel, painted);
    else if (route.conversationId) await this.#view.controller.select(route.conversationId);
    await this.#revealPending();
    if (route.panel === 'settings') await this.#openSettings(ws.id);
  }

  /**
   * Saves a code block from the chat as a workspace file, asking for its path (and before
   * replacing a file). Resolves to the path, or null when the user cancelled.
   * @param {string} workspaceId @param {string} code @param {string} ext
   */
  async #saveCode(workspaceId, code, ext) {
    const path = await promptDialog({ title: 'Save code to the workspace', label: 'File path', value: `snippet.${ext}`, submitLabel: 'Save' });
    if (!path) return null;
    const files = await this.#servicesOf(workspaceId).files();
    if (await files.exists(path) && !(await confirmDialog({ title: 'Replace the file?', message: `"${path}" exists. Replace its content with this code?`, confirmLabel: 'Replace' }))) return null;
    await files.save(path, code.endsWith('\n') ? code : `${code}\n`);
    return files.check(path);
  }

  /** "OpenAI · gpt-4o-mini", "No provider yet". @param {string} workspaceId */
  #providerLabel(workspaceId) {
    return providerLabel(this.settings?.load(workspaceId) ?? null);
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
    };
    const draw = () => clear(this.main).append(HomeView({ workspaces: stores.list(), providerOf, ...actions }));
    // The painted view stays when it is current (another tab may have changed the list meanwhile);
    // either way, what was used on it runs now.
    if (!firstView || firstView.listing !== homeListing(stores.list(), providerOf)) draw();
    firstView?.adopt(actions);
    document.title = 'Clawser';
  }

  /** The services of a workspace, made once. @param {string} workspaceId @returns {import('./workspace-services.js').Services} */
  #servicesOf(workspaceId) {
    return /** @type {WorkspaceServices} */ (this.services).of(workspaceId);
  }

  /**
   * A workspace's files (its OPFS folder, or the folder opened from the computer).
   * @param {string} workspaceId
   * @returns {FileSystem}
   */
  workspaceFs(workspaceId) {
    return /** @type {WorkspaceServices} */ (this.services).workspaceFs(workspaceId);
  }

  /** Running and delivering scheduled jobs, made on first use. @type {JobDelivery | null} */
  #jobDelivery = null;
  /** @returns {JobDelivery} */
  #jobs() {
    return (this.#jobDelivery ??= new JobDelivery({
      agentSettings: /** @type {AgentSettingsStore} */ (this.agentSettings),
      workspaceName: (id) => /** @type {WorkspaceStore} */ (this.workspaces).list().find((w) => w.id === id)?.name ?? id,
      controller: (id) => this.#controller(id),
      tools: async (id, conversationId, approve) => (await (await this.#agentFactory()).parts(id, conversationId, { approve })).tools,
      notify: (id, title, body) => this.#servicesOf(id).toolUi.notify(title, body),
      banners: this.banners,
      open: (route) => this.router.go(route),
      onScreen: (id, conversationId) => this.#view?.workspaceId === id && this.#view.panel === 'chat' && this.#view.controller.state.activeId === conversationId,
      guard: (p) => this.#guard(p),
      heartbeat: async (id) => (await this.#servicesOf(id).agents()).heartbeat(),
    }));
  }

  /** After the workspace's folder changed: the view rebuilt over the new files. @param {string} workspaceId */
  async #mountChanged(workspaceId) {
    await this.#renderWorkspace(workspaceId, undefined, 'files');
  }

  /** The files panel's "open a folder" controls. @param {string} workspaceId */
  #mountProps(workspaceId) {
    const services = /** @type {WorkspaceServices} */ (this.services);
    const mount = services.mountOf(workspaceId);
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
        await services.setMount(workspaceId, { handle, granted });
        await this.#mountChanged(workspaceId);
      },
      onReconnect: async () => {
        if (!mount) return;
        mount.granted = (await MountStore.permission(mount.handle, true)) === 'granted';
        if (!mount.granted) throw new Error(`Access to “${mount.handle.name}” was not allowed; the workspace cannot show its files until it is.`);
        services.refreshFiles(workspaceId);
        await this.#mountChanged(workspaceId);
      },
      onUnmount: async () => {
        const ok = await confirmDialog({ title: `Stop using “${mount?.handle.name}”?`, message: 'The folder on your computer is not changed. The workspace shows its own browser-stored files again.', confirmLabel: 'Stop using the folder' });
        if (!ok) return;
        await services.setMount(workspaceId, null);
        await this.#mountChanged(workspaceId);
      },
    };
  }

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
        spendStatus: () => {
          const autonomy = new AutonomyController({ config: agentSettings.load(workspaceId).autonomy, ...agentSettings.usageStore(workspaceId) });
          const usage = autonomy.usage;
          return { todayCents: usage.costCents, monthCents: usage.monthCents, warning: autonomy.costWarning(), paused: this.#loadedFactory?.pausedProviders(workspaceId) ?? [] };
        },
        routes: () => agentSettings.load(workspaceId).providers.routes,
        // Every turn's provider goes through the reliability layer (retries, fallbacks, time-outs).
        providerFactory: async (config) => (await this.#agentFactory()).provider(workspaceId, config),
        buildAgent: async (provider, conversation, secrets, options) => {
          const { agent, settings } = await (await this.#agentFactory()).agent(workspaceId, provider, conversation, secrets, options);
          redactOn = settings.safetyEnabled;
          return agent;
        },
        afterTurn: (agent, turn) => /** @type {WorkspaceServices} */ (this.services).autoCommit(workspaceId, agent, turn),
        // A title request's tokens count like a turn's: in the Dashboard and toward today's cost limit.
        onSideUsage: (provider, usage) => this.#guard(this.#agentFactory().then((f) => f.recordSideUsage(workspaceId, provider, usage))),
        runCode: (conversationId, code, signal, taint) => this.#agentFactory().then((f) => f.runAgain(workspaceId, conversationId, code, signal, taint)),
        agents: () => /** @type {WorkspaceServices} */ (this.services).of(workspaceId).agents(),
        delegations: this.#delegationBoard(workspaceId),
        // Undo puts back what a turn changed, through the same protected view the tools had.
        undoDomains: async () => {
          const services = /** @type {WorkspaceServices} */ (this.services).of(workspaceId);
          const [{ undoDomains }, { ProtectedFileSystem }, memory] = await Promise.all([import('./turn-undo.js'), import('../storage/protected-fs.js'), services.memory().catch(() => undefined)]);
          return undoDomains({ fs: new ProtectedFileSystem(this.workspaceFs(workspaceId)), memory, goals: services.goals, scheduler: services.scheduler });
        },
        undoKeep: () => agentSettings.load(workspaceId).undo.turnsKept,
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
    await /** @type {WorkspaceServices} */ (this.services).loadMount(workspaceId);
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
    const current = settings.load(workspaceId);
    const needsSetup = !current;
    /** @type {Parameters<typeof ChatView>[0]} */
    const chatProps = {
      controller,
      needsSetup,
      onSaveCode: (code, ext) => this.#saveCode(workspaceId, code, ext),
      setupCard: () => this.#setupCard(workspaceId),
      onOpenSettings: () => this.#goSettings(workspaceId),
      onConversationChange: (id) => {
        const r = this.router.current;
        if (id && r.name === 'workspace' && r.workspaceId === workspaceId && r.conversationId !== id && r.panel === 'chat') {
          this.router.go({ name: 'workspace', workspaceId, panel: 'chat', conversationId: id }, { replace: true });
        }
      },
    };
    const chat = ChatView(chatProps);
    const services = this.#servicesOf(workspaceId);
    const side = h('div', { class: 'artifact-slot' });
    const layout = this.#layout();
    /** @type {{root: HTMLElement, destroy: () => void} | null} */
    let artifactView = null;
    /** @type {HTMLElement | null} */
    let artifactHandle = null;
    const showArtifact = () => {
      if (artifactView || !services.artifact.html) return;
      const pane = ArtifactView({ artifact: services.artifact, onClose: () => { pane.destroy(); pane.root.remove(); artifactHandle?.remove(); artifactView = null; } });
      artifactView = pane;
      // Resizable against the chat, the width remembered.
      artifactHandle = ResizeHandle({
        label: 'Resize the chat and the artifact', value: layout.artifact, after: true,
        container: () => /** @type {HTMLElement} */ (side.parentElement),
        onChange: (v) => pane.root.style.setProperty('width', `${v}%`),
        onCommit: (v) => this.#saveLayout({ artifact: v }),
      });
      artifactHandle.classList.add('artifact-handle');
      side.append(artifactHandle, pane.root);
    };
    const unsubscribeArtifact = services.artifact.subscribe(showArtifact);
    showArtifact();
    const panelEntry = panel === 'chat' ? undefined : this.panels.get(panel);
    /** @type {import('./panels.js').PanelView | null} */
    const sub = panelEntry ? await panelEntry.open(this.#panelContext(workspaceId)) : null;
    const splittable = !!sub && !!panelEntry && SPLIT_PANELS.includes(panel);
    const splitOn = splittable && layout.split;
    /** The chat is on screen beside the panel (not on a narrow window): choosing a conversation keeps the panel. */
    const splitShown = () => splitOn && matchMedia('(min-width: 901px)').matches;
    const content = splitOn && sub && panelEntry
      ? SplitView({ chat: chat.root, panel: sub.root, panelLabel: panelEntry.label, ratio: layout.ratio, onRatio: (ratio) => this.#saveLayout({ ratio }) })
      : sub ? sub.root : chat.root;
    const toggleSplit = splittable ? () => {
      this.#saveLayout({ split: !layout.split });
      this.#guard(this.#renderWorkspace(workspaceId, controller.state.activeId ?? undefined, panel));
    } : null;
    /** @type {Parameters<typeof WorkspaceView>[0]} */
    const workspaceProps = {
      workspace: ws,
      controller,
      chat: content,
      side,
      split: toggleSplit ? { on: layout.split, onToggle: toggleSplit } : undefined,
      panels: [
        { label: 'Chat', icon: '💬', shortcut: 'Alt+0', current: panel === 'chat', onOpen: () => this.router.go({ name: 'workspace', workspaceId, panel: 'chat' }) },
        ...this.panels.list().map((p) => ({ label: p.label, icon: p.icon, shortcut: p.shortcut, current: p.name === panel, onOpen: () => this.router.go({ name: 'workspace', workspaceId, panel: p.name }) })),
      ],
      railCollapsed: this.config?.get(RAIL_COLLAPSED_KEY, false) === true,
      onRailToggle: (collapsed) => this.#guard((async () => this.config?.set(RAIL_COLLAPSED_KEY, collapsed))()),
      onPalette: () => this.#guard(this.#openPalette()),
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
      onRename: (id) => this.#guard(this.#renameConversation(controller, id)),
      onExport: (id) => this.#guard(this.#exportConversation(controller, id)),
      onImport: (file) => this.#guard(this.#importConversation(workspaceId, file)),
      onDelete: (id, title) => this.#guard(this.#deleteConversation(workspaceId, controller, id, title)),
    };
    const view = WorkspaceView(workspaceProps);
    if (painted) painted.handOver(view.root, { controller, activeId: controller.state.activeId, workspace: workspaceProps, chat: chatProps, setup: this.#setupActions(workspaceId) });
    else clear(this.main).append(view.root);
    if (this.#view?.controller === controller) {
      this.#view.palette = {
        focusSearch: view.focusSearch, toggleRail: view.toggleRail, railCollapsed: view.railCollapsed,
        undoTurn: chat.undoTurn, redoTurn: chat.redoTurn,
        chatShown: () => panel === 'chat' || splitShown(),
        split: toggleSplit ? { on: layout.split, toggle: toggleSplit } : null,
      };
    }
    document.title = `${ws.name} — Clawser`;
    destroyView = () => { view.destroy(); chat.destroy(); sub?.destroy?.(); unsubscribeArtifact(); artifactView?.destroy(); };
    /** @type {WorkspaceServices} */ (this.services).autoInitGit(workspaceId);
    /** @type {WorkspaceServices} */ (this.services).connectMcp(workspaceId);
  }




  /** The remembered layout (defaults when unset or damaged). @returns {{split: boolean, ratio: number, artifact: number}} */
  #layout() {
    const v = /** @type {Record<string, unknown> | null} */ (this.config?.get(LAYOUT_KEY, null));
    /** @param {unknown} n @param {number} d */
    const share = (n, d) => (typeof n === 'number' && n >= 20 && n <= 80 ? n : d);
    return { split: v?.split === true, ratio: share(v?.ratio, 50), artifact: share(v?.artifact, 45) };
  }

  /** @param {Partial<{split: boolean, ratio: number, artifact: number}>} change */
  #saveLayout(change) {
    this.config?.set(LAYOUT_KEY, { ...this.#layout(), ...change });
  }

  /**
   * Deletes a conversation once the user confirmed it (its list's button, the command palette).
   * @param {string} workspaceId @param {ChatController} controller @param {string} id @param {string} title
   */
  async #deleteConversation(workspaceId, controller, id, title) {
    const ok = await confirmDialog({ title: `Delete “${title}”?`, message: 'The whole conversation is removed from this browser. This cannot be undone.', confirmLabel: 'Delete conversation' });
    if (!ok) return;
    const wasActive = controller.state.activeId === id;
    await controller.remove(id);
    if (wasActive) this.router.go({ name: 'workspace', workspaceId, panel: 'chat' }, { replace: true });
  }

  /** @param {ChatController} controller @param {string} id */
  async #renameConversation(controller, id) {
    const title = controller.state.conversations.find((c) => c.id === id)?.title ?? '';
    const next = await promptDialog({ title: 'Rename conversation', label: 'Conversation title', value: title, submitLabel: 'Rename' });
    if (next) await controller.rename(id, next);
  }

  /** @param {ChatController} controller @param {string} id */
  async #exportConversation(controller, id) {
    const title = controller.state.conversations.find((c) => c.id === id)?.title ?? 'Conversation';
    /** @type {Record<string, 'markdown' | 'jsonl' | 'html'>} */
    // Short options (a select cannot wrap on a phone); what JSONL is goes in the hint.
    const formats = { Markdown: 'markdown', 'JSONL (importable)': 'jsonl', 'HTML page': 'html' };
    const choice = await formDialog({ title: `Export “${title}”`, fields: [{ name: 'format', label: 'Format', options: Object.keys(formats), value: 'Markdown', hint: 'JSONL is the event log with every version; it can be imported back.' }], submitLabel: 'Export' });
    if (!choice) return;
    const file = await controller.exportConversation(id, formats[String(choice.format)] ?? 'markdown');
    downloadBlob(new Blob([file.text], { type: file.type }), file.name);
  }

  /** @param {string} workspaceId @param {File} file */
  async #importConversation(workspaceId, file) {
    try {
      const meta = await this.#controller(workspaceId).importConversation(file.name, await file.text());
      this.router.go({ name: 'workspace', workspaceId, panel: 'chat', conversationId: meta.id });
    } catch (err) {
      this.banners.show('import', /** @type {Error} */ (err).message, { kind: 'error' });
    }
  }

  /** Asks for a JSONL file and imports it as a conversation. @param {string} workspaceId */
  #pickImport(workspaceId) {
    const picker = /** @type {HTMLInputElement} */ (h('input', { type: 'file', accept: '.jsonl,.json,application/x-ndjson' }));
    picker.addEventListener('change', () => { if (picker.files?.[0]) this.#guard(this.#importConversation(workspaceId, picker.files[0])); });
    picker.click();
  }

  async #newWorkspace() {
    const name = await promptDialog({ title: 'New workspace', label: 'Workspace name', submitLabel: 'Create' });
    if (!name) return;
    const ws = await /** @type {WorkspaceStore} */ (this.workspaces).create(name);
    this.router.go({ name: 'workspace', workspaceId: ws.id, panel: 'chat' });
  }

  /** The command palette, with every action that applies where the user is. */
  async #openPalette() {
    if (document.querySelector('dialog[open]')) return;
    const route = this.router.current;
    const view = route.name === 'workspace' ? this.#view : null;
    const workspaceId = view?.workspaceId ?? null;
    const controller = view?.controller ?? null;
    const ws = workspaceId ? this.workspaces?.get(workspaceId) ?? null : null;
    const agentSettings = /** @type {AgentSettingsStore} */ (this.agentSettings);
    /** @param {string} panel */
    const go = (panel) => workspaceId && this.router.go({ name: 'workspace', workspaceId, panel: /** @type {PanelName} */ (panel) });
    const actions = view?.palette;
    const wide = matchMedia('(min-width: 721px)').matches;
    const { buildCommands } = await import('./commands.js');
    const [{ openCommandPalette }, { fuzzyRank }] = await Promise.all([import('../ui/command-palette.js'), import('./fuzzy.js')]);
    const commands = buildCommands({
      workspaces: this.workspaces?.list() ?? [],
      workspace: ws ? { id: ws.id, name: ws.name } : null,
      conversations: controller?.state.conversations ?? [],
      conversationId: controller?.state.activeId ?? null,
      panels: this.panels.list(),
      panel: view?.panel ?? 'chat',
      autonomy: workspaceId ? agentSettings.load(workspaceId).autonomy.level : null,
      streaming: !!controller?.state.streaming,
      turn: controller && actions?.chatShown() ? {
        undo: !!controller.state.undo,
        redo: !!controller.state.redo,
        regenerate: controller.busy ? null : lastRegenerableReply(controller.state.events),
      } : null,
      // The rail's and the split's buttons are hidden on a phone's width (CSS: max-width 720px).
      split: actions?.split && wide ? { on: actions.split.on } : null,
      railCollapsed: actions && wide ? actions.railCollapsed() : null,
      act: {
        home: () => this.router.go({ name: 'home' }),
        openWorkspace: (id) => this.router.go({ name: 'workspace', workspaceId: id, panel: 'chat' }),
        newWorkspace: () => this.#guard(this.#newWorkspace()),
        newConversation: () => this.#guard((async () => {
          if (!controller || !workspaceId) return;
          const meta = await controller.newConversation();
          this.router.go({ name: 'workspace', workspaceId, panel: 'chat', conversationId: meta.id });
        })()),
        openConversation: (id) => workspaceId && this.router.go({ name: 'workspace', workspaceId, panel: 'chat', conversationId: id }),
        openPanel: go,
        setAutonomy: (level) => {
          if (!workspaceId) return;
          const cur = agentSettings.load(workspaceId);
          agentSettings.save(workspaceId, { ...cur, autonomy: { ...cur.autonomy, level } });
          this.banners.show('autonomy', `Autonomy is now ${level === 'readonly' ? 'read-only' : level} in this workspace (from the next step of the agent).`, { kind: 'info' });
        },
        exportConversation: (id) => controller && this.#guard(this.#exportConversation(controller, id)),
        renameConversation: (id) => controller && this.#guard(this.#renameConversation(controller, id)),
        importConversation: () => workspaceId && this.#pickImport(workspaceId),
        stop: () => controller?.stop(),
        deleteConversation: (id) => {
          const title = controller?.state.conversations.find((c) => c.id === id)?.title ?? 'this conversation';
          if (controller && workspaceId) this.#guard(this.#deleteConversation(workspaceId, controller, id, title));
        },
        undoTurn: () => actions && this.#guard(actions.undoTurn()),
        redoTurn: () => actions && this.#guard(actions.redoTurn()),
        regenerate: (eventId) => controller && this.#guard(controller.regenerate(eventId)),
        toggleSplit: () => actions?.split?.toggle(),
        toggleRail: () => actions?.toggleRail(),
        search: () => actions?.focusSearch(),
        shortcuts: () => this.#showShortcuts(),
      },
    });
    await openCommandPalette(commands, fuzzyRank);
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


  /** @param {() => void} fn */
  #whenIdle(fn) {
    if ('requestIdleCallback' in globalThis) requestIdleCallback(fn, { timeout: 3000 });
    else setTimeout(fn, 500);
  }

  /** Starts every workspace's scheduler: jobs run whichever workspace is on screen. */
  #startSchedulers() {
    if (this.#quiet || !this.tabs?.isLeader) return;
    this.services?.startSchedulers((this.workspaces?.list() ?? []).map((ws) => ws.id));
  }

  #stopSchedulers() {
    this.services?.stopSchedulers();
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
      providerSettings: /** @type {SettingsStore} */ (this.settings),
      refreshWorkspace: () => this.#renderWorkspace(workspaceId, this.#view?.controller.state.activeId ?? undefined, this.router.current.name === 'workspace' ? this.router.current.panel : 'chat'),
      semantic: /** @type {SemanticSearch} */ (this.semantic),
      tabs: this.tabs,
      mounted: !!this.services?.mountOf(workspaceId),
      mount: this.#mountProps(workspaceId),
      conversations: () => this.#controller(workspaceId).state.conversations,
      openConversation: (id) => this.router.go({ name: 'workspace', workspaceId, panel: 'chat', conversationId: id }),
      back: () => this.router.go({ name: 'workspace', workspaceId, panel: 'chat' }),
      chat: this.#controller(workspaceId),
      exportConversation: (id) => this.#guard(this.#exportConversation(this.#controller(workspaceId), id)),
      importConversation: () => this.#pickImport(workspaceId),
      workspaces: () => this.workspaces?.list() ?? [],
      // Its own folder (a folder opened from the computer is not in the browser's storage).
      measureWorkspace: (id, signal) => import('../storage/quota.js').then(({ folderBytes }) => folderBytes(/** @type {FileSystem} */ (this.fs), `clawser_workspaces/${id}`, { signal })),
      openPanel: (panel) => this.router.go({ name: 'workspace', workspaceId, panel: /** @type {PanelName} */ (panel) }),
      showError: (err) => this.#showError(err),
      mcpAuth: () => this.#mcpAuth(),
      terminal: () => this.#terminalHost(workspaceId),
      preferences: { get: (key) => this.config?.get(key, null), set: (key, value) => this.config?.set(key, value) },
    };
  }

  /** Each workspace's terminal sessions (they outlive the panel's view). @type {Map<string, Promise<import('./terminal-host.js').TerminalHost>>} */
  #terminals = new Map();
  /** @param {string} workspaceId */
  #terminalHost(workspaceId) {
    let host = this.#terminals.get(workspaceId);
    if (!host) {
      host = this.#makeTerminalHost(workspaceId);
      this.#terminals.set(workspaceId, host);
      host.catch(() => this.#terminals.delete(workspaceId));
    }
    return host;
  }

  /** @param {string} workspaceId */
  async #makeTerminalHost(workspaceId) {
    const { TerminalHost } = await import('./terminal-host.js');
    const services = this.#servicesOf(workspaceId);
    const agentSettings = /** @type {AgentSettingsStore} */ (this.agentSettings);
    return new TerminalHost({
      workspaceId,
      fs: this.workspaceFs(workspaceId),
      config: /** @type {LocalConfig} */ (this.config),
      registry: services.registry,
      git: () => services.git(),
      toolContext: async () => (await this.#agentFactory()).toolContext(workspaceId, undefined),
      list: async (topic) => {
        const { listStore } = await import('../shell/commands/clawser.js');
        if (topic === 'memory') return /** @type {string} */ (await listStore(topic, { memory: await services.memory() }));
        if (topic === 'skills') return /** @type {string} */ (await listStore(topic, { skills: await services.skills() }));
        if (topic === 'mcp') return /** @type {string} */ (await listStore(topic, { mcp: await services.mcp() }, { urls: true }));
        if (topic === 'conversations') return this.#controller(workspaceId).state.conversations.map((c) => `${c.id}\t${c.title}`).join('\n') || '(no conversations)';
        return JSON.stringify(agentSettings.load(workspaceId), null, 2);
      },
      act: async (area, action, args) => {
        const [first, ...rest] = args;
        const need = (/** @type {string | undefined} */ v, /** @type {string} */ what) => {
          if (!v) throw new Error(`give ${what}`);
          return v;
        };
        switch (`${area} ${action}`) {
          case 'memory pin':
          case 'memory unpin': {
            const store = await services.memory();
            const key = need(first, 'the memory’s key');
            const entry = (await store.list()).find((m) => m.key.toLowerCase() === key.toLowerCase());
            if (!entry) throw new Error(`there is no memory "${key}"`);
            await store.store({ key: entry.key, content: entry.content, category: entry.category, pinned: action === 'pin' });
            return `${action === 'pin' ? 'Pinned' : 'Unpinned'} "${entry.key}".`;
          }
          case 'memory export': return JSON.stringify(await (await services.memory()).exportJson(), null, 2);
          case 'job pause': await services.scheduler.pause(need(first, 'a job id')); return `Paused ${first}.`;
          case 'job resume': await services.scheduler.resume(need(first, 'a job id')); return `Resumed ${first}.`;
          case 'job run': await services.scheduler.runNow(need(first, 'a job id')); return `Ran ${first}.`;
          case 'skill enable':
          case 'skill disable':
            (await services.skills()).setEnabled(need(first, 'a skill name'), action === 'enable');
            return `${action === 'enable' ? 'Enabled' : 'Disabled'} the skill "${first}" in this workspace.`;
          case 'skill remove': {
            const skills = await services.skills();
            const name = need(first, 'a skill name');
            const entry = (await skills.list()).find((x) => x.name === name && !x.shadowed);
            if (!entry) throw new Error(`there is no skill "${name}" (see clawser skill list)`);
            await skills.remove(name, entry.scope);
            return `Removed the skill "${name}".`;
          }
          case 'mcp add': {
            const server = await (await services.mcp()).add({ name: need(first, 'a name'), url: need(rest[0], 'the server\'s URL') });
            return `Added ${server.name} (${server.id}); connect it with clawser mcp connect ${server.name}.`;
          }
          case 'mcp remove':
          case 'mcp connect':
          case 'mcp disconnect': {
            const mcp = await services.mcp();
            const name = need(first, 'a server name or id');
            const server = mcp.servers().find((x) => x.id === name || x.name === name);
            if (!server) throw new Error(`there is no MCP server "${name}" (see clawser mcp list)`);
            if (action === 'connect') await mcp.connect(server.id);
            else if (action === 'remove') await mcp.remove(server.id);
            else await mcp.disconnect(server.id);
            return `${action === 'connect' ? 'Connected' : action === 'remove' ? 'Removed' : 'Disconnected'} ${server.name}.`;
          }
          case 'tool policy': {
            const name = need(first, 'a tool name');
            if (!services.registry.get(name)) throw new Error(`there is no tool "${name}" (see clawser tool list)`);
            const policy = need(rest[0], 'auto, approve, denied or default');
            if (!['auto', 'approve', 'denied', 'default'].includes(policy)) throw new Error('the policy is auto, approve, denied or default');
            services.registry.setPolicy(name, policy === 'default' ? null : /** @type {'auto' | 'approve' | 'denied'} */ (policy));
            return `${name}: ${policy}.`;
          }
          case 'tool rules':
            return services.registry.rules().map((r) => `${r.tool}\t${r.kind}\t${r.pattern}`).join('\n') || '(no rules)';
          case 'tool unrule': {
            const [tool, kind, ...pattern] = args;
            const rule = services.registry.rules().find((r) => r.tool === tool && r.kind === kind && r.pattern === pattern.join(' '));
            if (!rule) throw new Error('no such rule (see clawser tool rules)');
            services.registry.removeRule(rule);
            return 'Rule removed.';
          }
          case 'conversation new': {
            const meta = await this.#controller(workspaceId).newConversation();
            if (args.length) await this.#controller(workspaceId).rename(meta.id, args.join(' '));
            return meta.id;
          }
          case 'conversation rename':
            await this.#controller(workspaceId).rename(need(first, 'a conversation id'), need(rest.join(' '), 'a title'));
            return 'Renamed.';
          case 'conversation export': {
            const format = rest[0] ?? 'markdown';
            if (!['markdown', 'jsonl', 'html'].includes(format)) throw new Error('the format is markdown, jsonl or html');
            return (await this.#controller(workspaceId).exportConversation(need(first, 'a conversation id'), /** @type {'markdown' | 'jsonl' | 'html'} */ (format))).text;
          }
          case 'conversation delete':
            await this.#controller(workspaceId).remove(need(first, 'a conversation id'));
            return 'Deleted.';
          default:
            throw new Error(`${area} ${action} is not available`);
        }
      },
      setConfig: async (key, value) => {
        const current = /** @type {Record<string, any>} */ (structuredClone(agentSettings.load(workspaceId))); // any: a dotted path into the settings object
        const path = key.split('.');
        let at = current;
        for (const part of path.slice(0, -1)) {
          if (!at[part] || typeof at[part] !== 'object') throw new Error(`"${key}" is not a setting (see clawser config list).`);
          at = at[part];
        }
        const last = /** @type {string} */ (path.at(-1));
        if (!(last in at)) throw new Error(`"${key}" is not a setting (see clawser config list).`);
        let parsed;
        try {
          parsed = JSON.parse(value);
        } catch {
          parsed = value;
        }
        at[last] = parsed;
        try {
          agentSettings.save(workspaceId, current);
        } catch (err) {
          throw new Error(`"${value}" is not a valid value for ${key}: ${/** @type {Error} */ (err).message.slice(0, 300)}`);
        }
        return `${key} = ${JSON.stringify(parsed)}`;
      },
    });
  }

  /** The page's SecretBox (API keys, tokens). @type {SecretBox} */
  #secrets = /** @type {SecretBox} */ (/** @type {unknown} */ (null));

  /** OAuth sign-in for MCP servers, loaded with the first server that needs it. @type {Promise<import('./mcp-auth.js').McpAuth> | null} */
  #mcpAuthLoading = null;
  #mcpAuth() {
    return (this.#mcpAuthLoading ??= import('./mcp-auth.js').then(({ McpAuth }) => new McpAuth({ config: /** @type {LocalConfig} */ (this.config), secrets: this.#secrets })));
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
          ...this.#setupActions(workspaceId),
        }),
      );
    draw(null);
    this.#discovery ??= discoverNoKeyOptions();
    this.#discovery.then(draw, () => draw({ chromeAI: 'unsupported', ollama: { found: false, models: [] }, lmstudio: { found: false, models: [] } }));
    return holder;
  }

  /** What the provider card's buttons do. @param {string} workspaceId */
  #setupActions(workspaceId) {
    return {
      /** @param {{provider: string, model?: string}} choice */
      onChoose: (choice) => this.#guard(this.#applyChoice(workspaceId, choice)),
      onAddKey: () => this.#goSettings(workspaceId),
    };
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
        describeAvailability: async (provider) => (provider === 'chrome-ai' ? `On this browser: ${CHROME_AI_STATES[await tabChromeAIAvailability()]}` : null),
        listModels: async ({ useSavedKey, ...config }) => {
          const apiKey = config.apiKey ?? (useSavedKey ? await settings.apiKey(workspaceId, config.provider).catch(() => undefined) : undefined);
          const { listModelInfo, modelBadges } = await import('../providers/models.js');
          const r = await listModelInfo({ ...config, apiKey });
          return { source: r.source, models: r.models.map((m) => ({ ...m, badges: modelBadges(m) })) };
        },
        pullModel: async (config, model, onProgress) => {
          const { createProvider } = await import('../providers/index.js');
          const p = createProvider(config);
          if (!('pullModel' in p) || typeof p.pullModel !== 'function') throw new Error('Only Ollama downloads models.');
          await p.pullModel(model, { onProgress });
        },
        onTest: async ({ useSavedKey, ...config }) => {
          const apiKey = config.apiKey ?? (useSavedKey ? await settings.apiKey(workspaceId, config.provider).catch(() => undefined) : undefined);
          const { testConnection } = await import('../providers/connection.js');
          return testConnection({ ...config, apiKey });
        },
        onSave: async (next, agent, fallbackKeys) => {
          /** @type {AgentSettingsStore} */ (this.agentSettings).save(workspaceId, agent);
          await settings.save(workspaceId, next);
          for (const [provider, key] of Object.entries(fallbackKeys)) await settings.saveKey(workspaceId, provider, key);
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
