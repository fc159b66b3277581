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
import { h, clear } from '../ui/dom.js';
import { HomeView } from '../ui/home-view.js';
import { WorkspaceView } from '../ui/workspace-view.js';
import { ChatView } from '../ui/chat-view.js';
import { FirstRunCard } from '../ui/first-run.js';
import { openSettingsDialog } from '../ui/settings-dialog.js';
import { confirmDialog, promptDialog } from '../ui/dialogs.js';
import { BannerArea } from '../ui/banners.js';

/**
 * The orchestrator: builds the services once, maps routes to views, and wires UI events to
 * the stores and controllers. Holds no business rules of its own.
 */
export class ClawserApp {
  /** @type {{workspaceId: string, controller: ChatController, destroy: () => void} | null} */
  #view = null;
  /** @type {Map<string, ChatController>} */
  #controllers = new Map();
  /** @type {Promise<NoKeyOptions> | null} */
  #discovery = null;
  #settingsOpen = false;

  /** @param {HTMLElement} root */
  constructor(root) {
    this.root = root;
    this.banners = BannerArea();
    this.main = h('div', { class: 'view' });
    this.router = new Router();
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
    this.settings = new SettingsStore({ config: this.config, secrets: new SecretBox() });
    this.workspaces = new WorkspaceStore({ config: this.config, fs, onDelete: (id) => { this.settings?.forget(id); this.#controllers.delete(id); } });
    if (this.workspaces.list().length === 0) await this.workspaces.create('My workspace');
    navigator.storage?.persist?.().catch(() => {});
    this.router.onChange((route) => this.#guard(this.render(route)));
    await this.render(this.router.current);
    // Benchmarks read this: the first view is on screen and usable.
    performance.mark('clawser-interactive');
    this.#guard(
      registerServiceWorker({
        onUpdateReady: (apply) => this.banners.show('update', 'A new version of Clawser is available.', { action: { label: 'Reload', run: apply } }),
      }),
    );
    addEventListener('unhandledrejection', (e) => this.#showError(e.reason));
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
    if (route.name === 'home') return this.#renderHome();
    const ws = this.workspaces?.get(route.workspaceId);
    if (!ws) {
      this.banners.show('missing', 'That workspace does not exist (it may have been deleted).', { kind: 'warn' });
      return this.router.go({ name: 'home' }, { replace: true });
    }
    if (this.#view?.workspaceId !== ws.id) await this.#renderWorkspace(ws.id, route.conversationId);
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

  /** @param {string} workspaceId */
  #controller(workspaceId) {
    let c = this.#controllers.get(workspaceId);
    if (!c) {
      c = new ChatController({ fs: /** @type {FileSystem} */ (this.fs), workspaceId, settings: /** @type {SettingsStore} */ (this.settings) });
      this.#controllers.set(workspaceId, c);
    }
    return c;
  }

  /** @param {string} workspaceId @param {string} [conversationId] */
  async #renderWorkspace(workspaceId, conversationId) {
    this.#view?.destroy();
    const ws = /** @type {import('./workspaces.js').Workspace} */ (this.workspaces?.get(workspaceId));
    const settings = /** @type {SettingsStore} */ (this.settings);
    const controller = this.#controller(workspaceId);
    await controller.init(conversationId ?? controller.state.activeId ?? undefined);
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
    const view = WorkspaceView({
      workspace: ws,
      controller,
      chat: chat.root,
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
    this.#view = { workspaceId, controller, destroy: () => { view.destroy(); chat.destroy(); } };
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
        workspaceName: ws?.name ?? '',
        catalog: CATALOG,
        current: settings.load(workspaceId),
        hasKey: (provider) => settings.hasKey(workspaceId, provider),
        describeAvailability: async (provider) => (provider === 'chrome-ai' ? `On this browser: ${CHROME_AI_STATES[await chromeAIAvailability()]}` : null),
        onTest: async ({ useSavedKey, ...config }) => {
          const apiKey = config.apiKey ?? (useSavedKey ? await settings.apiKey(workspaceId, config.provider).catch(() => undefined) : undefined);
          return testConnection({ ...config, apiKey });
        },
        onSave: (next) => settings.save(workspaceId, next),
      });
    } finally {
      this.#settingsOpen = false;
    }
    const convId = this.#view?.controller.state.activeId ?? undefined;
    if (saved) await this.#renderWorkspace(workspaceId, convId);
    this.router.go({ name: 'workspace', workspaceId, panel: 'chat', conversationId: convId }, { replace: true });
  }
}
