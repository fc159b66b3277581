/** @import { LocalFinding } from '../providers/types.d.ts' */
/** @import { SettingsStore } from './settings.js' */
/** @import { AgentSettingsStore } from './agent-settings.js' */
/** @import { WorkspaceStore } from './workspaces.js' */
/** @import { TabCoordinator } from '../agent/coordination/tabs.js' */
/** @import { IsolationSetting } from './isolation.js' */
import { CATALOG, catalogEntry, loadWire } from '../providers/catalog.js';
import { discoverLocalProviders } from '../providers/discovery.js';
import { parseLimitFields } from './agent-settings.js';
import { keyProviderNames, setupChoices } from './settings.js';
import { h } from '../ui/dom.js';
import { FirstRunCard } from '../ui/first-run.js';

/**
 * What the provider card's buttons do.
 * @typedef {{onChoose: (choice: {provider: string, model?: string}) => void, onAddKey: () => void,
 *   onSetUp: (provider: string) => void}} SetupActions
 */

/**
 * Choosing a workspace's provider: the first-run card (the no-key options found on this
 * device, or adding a key) and the settings dialog (provider, model, keys, agent settings),
 * what they offer and what saving them writes. The app shows the workspace again afterwards.
 */
export class SettingsFlow {
  /** The no-key options of this device, looked for once per page. @type {Promise<LocalFinding[]> | null} */
  #discovery = null;
  #open = false;

  /**
   * @param {object} deps
   * @param {SettingsStore} deps.settings
   * @param {AgentSettingsStore} deps.agentSettings
   * @param {WorkspaceStore} deps.workspaces
   * @param {TabCoordinator} deps.tabs
   * @param {(workspaceId: string) => void} deps.goSettings the route of the workspace's settings
   * @param {(workspaceId: string) => Promise<void>} deps.showWorkspace after a provider was chosen on the card
   * @param {(p: Promise<unknown>) => void} deps.guard
   * @param {IsolationSetting} [deps.isolation] cross-origin isolation in this browser
   * @param {(on: boolean) => void} [deps.onIsolationChanged] after the setting changed (it shows from the next load)
   * @param {() => Promise<import('../stores/remote-machines.js').RemoteMachines>} [deps.remote] the user's machines ("through my relay")
   */
  constructor(deps) {
    this.deps = deps;
  }

  /** The first-run cards drawn (each looks again when the models on this computer change). @type {Set<() => void>} */
  #cards = new Set();

  /** The provider the next Settings dialog opens at (the first-run card's set-up button), once. @type {string | null} */
  #setUp = null;

  /** The first-run card of a workspace with no provider yet. @param {string} workspaceId */
  setupCard(workspaceId) {
    const holder = h('div', null);
    /** @param {LocalFinding[] | null} findings */
    const draw = (findings) =>
      holder.replaceChildren(
        FirstRunCard({
          choices: setupChoices(findings),
          checking: !findings,
          keyProviders: keyProviderNames(),
          ...this.setupActions(workspaceId),
        }),
      );
    const look = () => {
      this.#discovery ??= discoverLocalProviders();
      this.#discovery.then(draw, () => draw([]));
    };
    const redraw = () => {
      if (holder.isConnected) look();
      else this.#cards.delete(redraw);
    };
    this.#cards.add(redraw);
    draw(null);
    look();
    return holder;
  }

  /** @param {string} workspaceId @returns {SetupActions} */
  setupActions(workspaceId) {
    return {
      onChoose: (choice) => this.deps.guard(this.#applyChoice(workspaceId, choice)),
      onAddKey: () => this.deps.goSettings(workspaceId),
      // A provider not found yet: Settings, opened where it is set up (the models on this computer).
      onSetUp: (provider) => {
        this.#setUp = provider;
        this.deps.goSettings(workspaceId);
      },
    };
  }

  /** @param {string} workspaceId @param {{provider: string, model?: string}} choice */
  async #applyChoice(workspaceId, choice) {
    const entry = catalogEntry(choice.provider);
    await this.deps.settings.save(workspaceId, {
      provider: choice.provider,
      model: choice.model ?? entry?.defaultModel ?? '',
      baseUrl: '',
    });
    await this.deps.showWorkspace(workspaceId);
  }

  /**
   * The models on this computer, made when the dialog first opens.
   * @type {Promise<import('./model-library.js').ModelLibrary> | null}
   */
  #library = null;

  /** The page's one ModelLibrary, over the store the local provider loads from (null without the browser's storage). */
  localModels() {
    this.#library ??= Promise.all([import('./model-library.js'), import('../providers/local-models.js')]).then(
      ([{ ModelLibrary, pageBackgroundFetch, pageHasBackgroundFetch, downloadLock }, { sharedLocalModelStore }]) => {
        const library = new ModelLibrary({
          store: sharedLocalModelStore(),
          catalog: CATALOG,
          workspaces: () => this.deps.workspaces.list(),
          settingsOf: (id) => this.deps.settings.load(id),
          providersOf: (id) => this.deps.agentSettings.load(id).providers,
          backgroundFetch: pageBackgroundFetch,
          hasBackgroundFetch: pageHasBackgroundFetch,
          exclusive: downloadLock,
        });
        // What this machine offers changes with the list of models: the first-run cards look again.
        let ids = '';
        library.subscribe(() => {
          const now = library
            .state()
            .models.map((m) => m.id)
            .join();
          if (now === ids) return;
          ids = now;
          this.#discovery = null;
          for (const redraw of this.#cards) redraw();
        });
        // The service worker says when it has written a background download's parts.
        globalThis.navigator?.serviceWorker?.addEventListener('message', (e) => library.onServiceWorkerMessage(e.data));
        return library;
      },
    );
    return this.#library;
  }

  /**
   * The settings dialog (one at a time). Resolves when it closed: true when it saved, false
   * when it was cancelled, null when another one was already open.
   * @param {string} workspaceId @returns {Promise<boolean | null>}
   */
  async open(workspaceId) {
    if (this.#open) return null;
    this.#open = true;
    const { settings, agentSettings, tabs } = this.deps;
    const ws = this.deps.workspaces.get(workspaceId);
    const isolation = this.deps.isolation;
    const setUp = this.#setUp;
    this.#setUp = null;
    try {
      // The dialog (every provider's fields, the models on this computer) loads when first opened, not with the workspace.
      const [library, { openSettingsDialog }] = await Promise.all([
        this.localModels().catch(() => null),
        import('../ui/settings-dialog.js'),
      ]);
      const providerId = library?.providerId ?? null;
      const remote = await this.deps.remote?.().catch(() => undefined);
      /** A provider marked "through my relay" is tested and listed through it too. @param {string | undefined} relay */
      const via = (relay) => (relay && remote ? { fetchImpl: remote.relayFetch(relay) } : {});
      return await openSettingsDialog({
        machines: remote?.list().map((m) => m.name) ?? [],
        ...(library
          ? {
              localModels: {
                controller: library,
                providerId,
                openFirst: !!providerId && setUp === providerId,
                // The same save as the dialog's and the first-run card's: provider and model, no base URL.
                onUse: async (id) => {
                  if (providerId) await settings.save(workspaceId, { provider: providerId, model: id, baseUrl: '' });
                },
              },
            }
          : {}),
        parseLimits: parseLimitFields,
        workspaceName: ws?.name ?? '',
        catalog: CATALOG,
        current: settings.load(workspaceId),
        agent: agentSettings.load(workspaceId),
        describeBackground: async () =>
          (
            await (
              await import('./background.js')
            ).backgroundMode({
              leader: !!tabs.isLeader,
              tabs: tabs.peers().length + 1,
              where: 'settings',
            })
          ).text,
        hasKey: (provider) => settings.hasKey(workspaceId, provider),
        isolation: isolation && {
          on: isolation.wanted(),
          text: isolation.state().text,
          save: async (on) => {
            await isolation.set(on);
            this.deps.onIsolationChanged?.(on);
          },
        },
        describeAvailability: async (provider) => {
          const entry = catalogEntry(provider);
          if (!entry?.capabilities.availability) return null;
          const { availability } = await loadWire(entry.wire);
          return availability ? `On this browser: ${(await availability({ perTab: true })).text}` : null;
        },
        listModels: async ({ useSavedKey, ...config }) => {
          const apiKey =
            config.apiKey ?? (useSavedKey ? await settings.apiKey(workspaceId, config.provider).catch(() => undefined) : undefined);
          const { listModelInfo, modelBadges } = await import('../providers/models.js');
          const r = await listModelInfo({ ...config, apiKey }, via(config.relay));
          return { source: r.source, models: r.models.map((m) => ({ ...m, badges: modelBadges(m) })) };
        },
        pullModel: async (config, model, onProgress) => {
          const { createProvider } = await import('../providers/index.js');
          const p = createProvider(config, { forModels: true });
          if (!('pullModel' in p) || typeof p.pullModel !== 'function') {
            throw new Error(`${catalogEntry(config.provider)?.label ?? config.provider} does not download models.`);
          }
          await p.pullModel(model, { onProgress });
        },
        onTest: async ({ useSavedKey, ...config }) => {
          const apiKey =
            config.apiKey ?? (useSavedKey ? await settings.apiKey(workspaceId, config.provider).catch(() => undefined) : undefined);
          const { testConnection } = await import('../providers/connection.js');
          return testConnection({ ...config, apiKey }, via(config.relay));
        },
        onSave: async (next, agent, fallbackKeys) => {
          agentSettings.save(workspaceId, agent);
          await settings.save(workspaceId, next);
          for (const [provider, key] of Object.entries(fallbackKeys)) await settings.saveKey(workspaceId, provider, key);
        },
      });
    } finally {
      this.#open = false;
    }
  }
}
