// The first view of a workspace's chat: opened on `#workspace/{id}`, the page draws the
// conversation list (from `list.json`) and the open conversation's transcript with the app's own
// views, from a read-only view of the browser's storage, instead of waiting for the app's
// hundred modules. The app then hands the screen over (`handOver`): its views, built from the same
// state, replace these ones; what was typed, the focus and the scroll positions carry over, and
// what was used meanwhile (a conversation chosen, a message sent…) runs then.
/** @import { FileSystem, FileStat, DirEntry } from '../storage/types.d.ts' */
/** @import { ChatState, ChatViewController } from '../ui/types.d.ts' */
/** @import { Route } from './router.js' */
import { DirectoryHandleFileSystem } from '../storage/handle-fs.js';
import { StorageError, splitPath, toStorageError } from '../storage/errors.js';
import { parseWorkspaceList, WORKSPACES_KEY } from './workspaces.js';
import { keyProviderNames, parseSettings, providerLabel, settingsKey, setupChoices } from './settings.js';
import { RAIL_COLLAPSED_KEY, listHiddenKey, tagFilterKey, tagFilterOf } from './flags.js';
import { PANEL_NAV, panelOfShortcut, hasCommandKey, paletteKeys } from './panel-nav.js';
import { markInteractive, savedConfig } from './first-view.js';
import * as conversationRules from './conversation-rules.js';
import { Conversation } from '../agent/conversation/conversation.js';
import { LIST_FILE, parseConversationList, byActivity } from '../agent/conversation/conversation-list.js';
import { WorkspaceView } from '../ui/workspace-view.js';
import { ChatView } from '../ui/chat-view.js';
import { h } from '../ui/dom.js';

/**
 * What the app's views act on once it has loaded: the controller and the props of its own
 * workspace and chat views (the first view's buttons call the same ones, later).
 * @typedef {object} HandOverTargets
 * @property {ChatViewController} controller
 * @property {string | null} activeId the conversation the app's view shows
 * @property {Parameters<typeof WorkspaceView>[0]} workspace
 * @property {Parameters<typeof ChatView>[0]} chat
 * @property {{onChoose: (choice: {provider: string, model?: string}) => void, onAddKey: () => void}} setup the provider card's actions
 */

/**
 * @typedef {object} WorkspaceFirstView
 * @property {HTMLElement} view the element holding the painted screen: the app's view container
 * @property {string} workspaceId
 * @property {(root: HTMLElement, targets: HandOverTargets) => void} handOver puts the app's view in
 *   place of the painted one, carrying over what the person typed, the focus and the scroll, then
 *   runs what they used meanwhile
 * @property {() => void} discard the app shows something else first: the painted views let go (what was used meanwhile is dropped)
 */

/** Files read, never written: a write before the app has loaded would race with it. */
class ReadOnlyFiles {
  #root;
  #dir;

  /** @param {FileSystemDirectoryHandle} dir */
  constructor(dir) {
    this.#root = dir;
    this.#dir = new DirectoryHandleFileSystem(dir);
  }

  /** @param {string} path */
  readText(path) {
    return this.#dir.readText(path);
  }

  /** @param {string} path @param {{start?: number, end?: number}} [range] */
  readBytes(path, range) {
    return this.#dir.readBytes(path, range);
  }

  /** The end of a file and its size, from one snapshot of it. @param {string} path @param {number} maxBytes */
  async readTail(path, maxBytes) {
    try {
      const parts = splitPath(path);
      const name = /** @type {string} */ (parts.pop());
      let dir = this.#root;
      for (const p of parts) dir = await dir.getDirectoryHandle(p);
      const file = await (await dir.getFileHandle(name)).getFile();
      return { bytes: new Uint8Array(await file.slice(Math.max(0, file.size - maxBytes)).arrayBuffer()), size: file.size };
    } catch (err) {
      throw toStorageError(err, path);
    }
  }

  /** @param {string} path @returns {Promise<DirEntry[]>} */
  list(path) {
    return this.#dir.list(path);
  }

  /** @param {string} path @returns {Promise<FileStat | null>} */
  stat(path) {
    return this.#dir.stat(path);
  }

  #refuse() {
    return Promise.reject(new StorageError('io', 'The first view does not write.'));
  }

  write() {
    return this.#refuse();
  }
  append() {
    return this.#refuse();
  }
  truncate() {
    return this.#refuse();
  }
  mkdir() {
    return this.#refuse();
  }
  delete() {
    return this.#refuse();
  }
  move() {
    return this.#refuse();
  }
}

/** @param {HTMLElement} root @param {string} selector */
const find = (root, selector) => /** @type {HTMLElement | null} */ (root.querySelector(selector));

/** What the person changed on the painted screen that the app's view keeps. */
const CARRIED_FIELDS = ['textarea.composer-input', 'input.conv-search'];
const CARRIED_SCROLL = ['.sidebar', '.conv-list'];
/** The phone drawers and the buttons that open them. */
const DRAWERS = [
  ['.sidebar', '.drawer-toggle'],
  ['.ws-rail', '.menu-toggle'],
];

/**
 * Paints the chat of the workspace in `route`, when the page opens on it with a saved
 * conversation list. Null (nothing painted) on another panel, for a workspace not in the saved
 * list, after an interrupted restore, without a saved list (the app makes it) or when the
 * browser's storage cannot be read from the page (the app then shows its own view).
 * @param {HTMLElement} root
 * @param {Route} route
 * @param {Promise<FileSystemDirectoryHandle>} folder the folder of that workspace's conversations (looked up while the modules load)
 * @param {AbortSignal} [signal] the app went on without it (storage answered too late): nothing is painted
 * @returns {Promise<WorkspaceFirstView | null>}
 */
export async function paintWorkspaceFirstView(root, route, folder, signal) {
  if (route.name !== 'workspace' || route.panel !== 'chat') return null;
  const config = savedConfig();
  if (!config) return null;
  const workspace = parseWorkspaceList(config.get(WORKSPACES_KEY, [])).find((w) => w.id === route.workspaceId);
  if (!workspace) return null;
  /** @type {ChatState} */
  let state;
  /** @type {Conversation | null} */
  let conversation = null;
  try {
    const files = new ReadOnlyFiles(await folder);
    const listed = await files.readText(LIST_FILE).catch(() => null);
    if (listed === null) return null;
    const saved = parseConversationList(listed);
    // A damaged list is the app's to report (it lists every conversation from its own details).
    if (saved.problem) return null;
    const conversations = byActivity(Object.values(saved.conversations));
    const target =
      route.conversationId && conversations.some((c) => c.id === route.conversationId) ? route.conversationId : conversations[0]?.id;
    // Its meta.json, as the app reads it (the list's copy may lag behind it, e.g. on `branched`;
    // it stands in for a damaged one). Damage that needs a write (a torn last line to set
    // aside) makes the read-only view refuse, and the app paints instead.
    if (target)
      conversation = await Conversation.open(/** @type {FileSystem} */ (files), target, undefined, undefined, false, {
        fallbackMeta: saved.conversations[target],
      });
    state = {
      conversations,
      activeId: conversation?.id ?? null,
      events: conversation?.events.slice() ?? [],
      versions: conversation?.alternatives() ?? new Map(),
      hasEarlier: conversation?.hasEarlier ?? false,
      streaming: null,
      failure: null,
      notice: null,
    };
  } catch {
    return null; // e.g. a file another tab holds open: the app reads it through its storage worker
  }
  if (root.isConnected === false || signal?.aborted) return null;

  /** @type {HandOverTargets | null} */
  let targets = null;
  /** What was used meanwhile; `bound`: acts on the conversation on screen. @type {{run: (t: HandOverTargets) => void, bound: boolean}[]} */
  const waiting = [];
  /** Runs `run` with the app's targets, now or once handed over. @param {(t: HandOverTargets) => void} run @param {boolean} [bound] */
  const call = (run, bound = false) => (targets ? run(targets) : waiting.push({ run, bound }));
  /** The same, for a call whose answer is awaited. @template T @param {(t: HandOverTargets) => T} run @returns {Promise<Awaited<T>>} */
  const later = (run, bound = false) =>
    new Promise((resolve, reject) =>
      call((t) => {
        try {
          Promise.resolve(run(t)).then(resolve, reject);
        } catch (err) {
          reject(err);
        }
      }, bound),
    );
  /**
   * The first action that starts a turn (send, retry, edit…) waits for the app; the view is busy
   * from then on, so a second one is not taken (two turns would start at once).
   * @template T @param {(t: HandOverTargets) => T} run @returns {Promise<Awaited<T> | undefined>}
   */
  const turn = (run) => {
    if (turnQueued) return Promise.resolve(undefined);
    turnQueued = true;
    return later(run, true);
  };
  let turnQueued = false;
  /** A message sent meanwhile, put back in the composer if the app opens another conversation. */
  let sentText = '';

  /** @type {ChatViewController} */
  const controller = {
    subscribe: (fn) => {
      fn(state);
      return () => true;
    },
    get busy() {
      return turnQueued;
    },
    delegations: undefined,
    rules: conversationRules,
    imageLimits: () => ({ accepts: false, maxEdge: 0, maxBytes: 0, why: 'Clawser is still starting: attach the image again in a moment.' }),
    imageUrl: async (ref) => {
      const bytes = await /** @type {Conversation} */ (conversation).readImage(ref);
      return URL.createObjectURL(new Blob([/** @type {Uint8Array<ArrayBuffer>} */ (bytes)], { type: ref.mediaType }));
    },
    estimateTokens: () => 0,
    mentionCompletions: (text) => later((t) => t.controller.mentionCompletions(text)),
    slashCompletions: (text) => later((t) => t.controller.slashCompletions(text)),
    send: (text, images) => {
      if (!turnQueued) sentText = text;
      return /** @type {ReturnType<ChatViewController['send']>} */ (turn((t) => t.controller.send(text, images)));
    },
    stop: () => call((t) => t.controller.stop()),
    select: (id) => later((t) => t.controller.select(id)),
    retry: () => /** @type {ReturnType<ChatViewController['retry']>} */ (turn((t) => t.controller.retry())),
    edit: (eventId, text) => /** @type {ReturnType<ChatViewController['edit']>} */ (turn((t) => t.controller.edit(eventId, text))),
    regenerate: (eventId) => /** @type {ReturnType<ChatViewController['regenerate']>} */ (turn((t) => t.controller.regenerate(eventId))),
    continueReply: () => /** @type {ReturnType<ChatViewController['continueReply']>} */ (turn((t) => t.controller.continueReply())),
    loadEarlier: () => later((t) => t.controller.loadEarlier(), true),
    switchVersion: (eventId, step) => later((t) => t.controller.switchVersion(eventId, step), true),
    undoTurn: (options) => /** @type {ReturnType<ChatViewController['undoTurn']>} */ (turn((t) => t.controller.undoTurn(options))),
    redoTurn: (options) => /** @type {ReturnType<ChatViewController['redoTurn']>} */ (turn((t) => t.controller.redoTurn(options))),
    // Its output would go to this view's card, which the app's replaces.
    runAgain: () => Promise.reject(new Error('Clawser is still starting: run it again in a moment.')),
    pinRoute: (hint) => later((t) => t.controller.pinRoute(hint)),
    setModel: (id) => later((t) => t.controller.setModel(id)),
    cancelDelegation: (id) => call((t) => t.controller.cancelDelegation(id)),
    detach: (index) => call((t) => t.controller.detach(index)),
    attachDocument: () => Promise.reject(new Error('Clawser is still starting: attach the file again in a moment')),
  };
  const needsSetup = !parseSettings(config.get(settingsKey(workspace.id), null));
  // The provider card shows only in a workspace without a provider: loaded then, not with every chat.
  const { FirstRunCard } = needsSetup ? await import('../ui/first-run.js') : { FirstRunCard: null };
  if (!root.isConnected || signal?.aborted) return null;
  const chat = ChatView({
    controller,
    needsSetup,
    // Still "checking" what this machine offers: the app's card finds out.
    setupCard: () =>
      /** @type {NonNullable<typeof FirstRunCard>} */ (FirstRunCard)({
        choices: setupChoices(null),
        checking: true,
        keyProviders: keyProviderNames(),
        onChoose: (choice) => call((t) => t.setup.onChoose(choice)),
        onAddKey: () => call((t) => t.setup.onAddKey()),
      }),
    onOpenSettings: () => call((t) => t.chat.onOpenSettings()),
    onConversationChange: () => {}, // the app's view puts it in the address
    onSaveCode: (code, ext) => later((t) => t.chat.onSaveCode?.(code, ext) ?? null),
  });
  const nav = [{ name: 'chat', label: 'Chat', icon: 'messages-square', shortcut: 'Alt+0' }, ...PANEL_NAV];
  const screen = WorkspaceView({
    workspace,
    controller,
    chat: chat.root,
    side: h('div', { class: 'artifact-slot' }),
    panels: nav.map((p, i) => ({
      label: p.label,
      icon: p.icon,
      shortcut: p.shortcut,
      current: i === 0,
      onOpen: () => call((t) => t.workspace.panels.find((q) => q.label === p.label)?.onOpen()),
    })),
    railCollapsed: config.get(RAIL_COLLAPSED_KEY, false) === true,
    onRailToggle: (collapsed) => {
      try {
        config.set(RAIL_COLLAPSED_KEY, collapsed);
      } catch {
        /* a preference only */
      }
    },
    listHidden: config.get(listHiddenKey(workspace.id), false) === true,
    onListToggle: (hidden) => {
      try {
        config.set(listHiddenKey(workspace.id), hidden);
      } catch {
        /* a preference only */
      }
    },
    onPalette: () => call((t) => t.workspace.onPalette()),
    paletteKeys: paletteKeys(hasCommandKey()),
    // The app's view searches what was typed in the box when it takes over.
    onSearch: () => new Promise(() => {}),
    onOpenHit: (hit) => call((t) => t.workspace.onOpenHit(hit)),
    providerLabel: providerLabel(parseSettings(config.get(settingsKey(workspace.id), null))),
    onHome: () => call((t) => t.workspace.onHome()),
    onSettings: () => call((t) => t.workspace.onSettings()),
    onSelect: (id) => call((t) => t.workspace.onSelect(id)),
    onNew: () => call((t) => t.workspace.onNew()),
    onRename: (id, title) => call((t) => t.workspace.onRename(id, title)),
    onPin: (id, pinned) => call((t) => t.workspace.onPin(id, pinned)),
    onTags: (id, title) => call((t) => t.workspace.onTags?.(id, title)),
    tagFilter: tagFilterOf(config.get(tagFilterKey(workspace.id), null)),
    onTagFilter: (tag) => {
      try {
        config.set(tagFilterKey(workspace.id), tag);
      } catch {
        /* a preference only */
      }
    },
    onDelete: (id, title) => call((t) => t.workspace.onDelete(id, title)),
    onExport: (id, title) => call((t) => t.workspace.onExport(id, title)),
    onImport: (file) => call((t) => t.workspace.onImport(file)),
  });
  // The app's keyboard shortcuts to open a panel or the command palette, pressed meanwhile.
  /** @param {KeyboardEvent} e */
  const onKey = (e) => {
    const panel = panelOfShortcut(e, PANEL_NAV);
    const palette = e.key.toLowerCase() === 'k' && (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey;
    if (!panel && !palette) return;
    e.preventDefault();
    const label = nav.find((p) => p.name === panel)?.label;
    call((t) => (palette ? t.workspace.onPalette() : t.workspace.panels.find((q) => q.label === label)?.onOpen()));
  };
  addEventListener('keydown', onKey);
  // Until the app's view takes its place (tests wait for that).
  screen.root.dataset.firstView = '';
  const view = h('div', { class: 'view' }, screen.root);
  root.replaceChildren(view);
  document.title = `${workspace.name} — Clawser`;
  markInteractive();
  return {
    view,
    workspaceId: workspace.id,
    discard() {
      removeEventListener('keydown', onKey);
      screen.destroy();
      chat.destroy();
      waiting.length = 0;
    },
    handOver(next, appTargets) {
      const painted = screen.root;
      const focused =
        document.activeElement instanceof HTMLElement && painted.contains(document.activeElement) ? document.activeElement : null;
      const fields = CARRIED_FIELDS.map((selector) => {
        const el = /** @type {HTMLInputElement | HTMLTextAreaElement | null} */ (find(painted, selector));
        return {
          selector,
          value: el?.value ?? '',
          focused: !!el && el === focused,
          start: el?.selectionStart ?? null,
          end: el?.selectionEnd ?? null,
        };
      });
      const scrolls = CARRIED_SCROLL.map((selector) => ({ selector, top: find(painted, selector)?.scrollTop ?? 0 }));
      const messages = find(painted, '.scroller');
      const readingEarlier = !!messages && messages.scrollHeight - messages.scrollTop - messages.clientHeight >= 80;
      const messagesTop = messages?.scrollTop ?? 0;
      // A conversation's row menu open on the painted list stays open, its focused item focused.
      const openMenu = find(painted, '.conv-more[aria-expanded="true"]');
      const menuId = openMenu?.getAttribute('aria-controls') ?? '';
      const menuItems = (/** @type {ParentNode} */ at) => [...at.querySelectorAll(`#${CSS.escape(menuId)} button`)];
      const menuAt = openMenu && focused ? menuItems(painted).indexOf(focused) : -1;
      removeEventListener('keydown', onKey);
      screen.destroy();
      chat.destroy();
      view.replaceChildren(next);
      for (const f of fields) {
        const el = /** @type {HTMLInputElement | HTMLTextAreaElement | null} */ (find(next, f.selector));
        if (!el || !f.value || el.value) continue;
        el.value = f.value;
        el.dispatchEvent(new Event('input', { bubbles: true }));
      }
      // An open drawer (phones) stays open: through the new view's own toggle.
      for (const [drawer, toggle] of DRAWERS) {
        if (find(painted, drawer)?.classList.contains('open')) find(next, toggle)?.click();
      }
      for (const s of scrolls) {
        const el = find(next, s.selector);
        if (el && s.top) el.scrollTop = s.top;
      }
      // After the app's view has focused its composer and scrolled to the latest message.
      queueMicrotask(() => {
        const f = fields.find((x) => x.focused);
        const el = f ? /** @type {HTMLInputElement | HTMLTextAreaElement | null} */ (find(next, f.selector)) : null;
        if (el && !el.disabled) {
          el.focus();
          if (f && f.start !== null) el.setSelectionRange(f.start, f.end);
        }
        const more = menuId ? find(next, `.conv-more[aria-controls="${CSS.escape(menuId)}"]`) : null;
        if (more instanceof HTMLElement && more.getAttribute('aria-expanded') !== 'true') {
          more.click();
          const item = menuItems(next)[menuAt];
          if (item instanceof HTMLElement) item.focus();
        }
      });
      if (readingEarlier) {
        requestAnimationFrame(() => {
          const el = find(next, '.scroller');
          if (!el) return;
          el.scrollTop = messagesTop;
          el.dispatchEvent(new Event('scroll')); // now, so the view knows before it keeps the latest message in view
        });
      }
      targets = appTargets;
      const queued = waiting.splice(0);
      // Another conversation is on screen now (the address changed meanwhile): what acted on the
      // painted one is dropped, and a message sent meanwhile goes back into the composer.
      const moved = appTargets.activeId !== state.activeId;
      if (moved && sentText) {
        const composer = /** @type {HTMLTextAreaElement | null} */ (find(next, 'textarea.composer-input'));
        if (composer && !composer.value) {
          composer.value = sentText;
          composer.dispatchEvent(new Event('input', { bubbles: true }));
        }
      }
      // After the app's render has finished (a failing action must not break it), in order.
      queueMicrotask(() => {
        for (const { run, bound } of queued) {
          if (moved && bound) continue;
          try {
            run(appTargets);
          } catch (err) {
            reportError(err);
          }
        }
      });
    },
  };
}
