/**
 * The command palette (Ctrl/Cmd+K) opened where the user is: the commands of commands.js for
 * what exists now, each doing its action (routes through `go`, dialogs for rename and export,
 * the autonomy level saved in the workspace's agent settings).
 */
/** @import { Route } from './router.js' */
/** @import { ChatController } from './chat-controller.js' */
/** @import { AgentSettingsStore } from './agent-settings.js' */
/** @import { WorkspaceStore } from './workspaces.js' */
import { renameConversation, exportConversation, editTags } from './conversation-actions.js';
import { lastRegenerableReply, stoppedLastReply, lastOwnMessage } from './conversation-rules.js';

/**
 * The actions of the views on screen that have a button or a shortcut, for the command palette
 * (the same functions, not copies).
 * @typedef {object} ViewActions
 * @property {() => void} focusSearch
 * @property {() => void} toggleRail
 * @property {() => boolean} railCollapsed
 * @property {(hide?: boolean) => void} toggleList hides or shows the conversation list (wide screens)
 * @property {() => boolean} listHidden
 * @property {() => Promise<void>} undoTurn Alt+Z
 * @property {() => Promise<void>} redoTurn Alt+Shift+Z
 * @property {(eventId: string) => void} editMessage a sent message's Edit button
 * @property {() => boolean} chatShown the chat is on screen (alone, or beside the panel)
 * @property {{on: boolean, toggle: () => void} | null} split the panel on screen can show beside the chat
 */

/**
 * Opens the palette (not over another dialog); resolves when it closed.
 * @param {object} deps
 * @param {{workspaceId: string, panel: string, controller: ChatController, palette?: ViewActions} | null} deps.view the open workspace's
 *   view (null on the home screen)
 * @param {WorkspaceStore} deps.workspaces
 * @param {{name: string, label: string, shortcut?: string}[]} deps.panels besides the chat
 * @param {AgentSettingsStore} deps.agentSettings
 * @param {(route: Route) => void} deps.go
 * @param {(text: string) => void} deps.inform says what changed (a banner)
 * @param {(p: Promise<unknown>) => void} deps.guard
 * @param {() => Promise<void>} deps.newWorkspace
 * @param {(workspaceId: string) => void} deps.pickImport
 * @param {() => void} deps.showShortcuts
 * @param {(workspaceId: string, controller: ChatController, id: string, title: string) => Promise<void>} deps.deleteConversation asks, then
 *   deletes (the list's × does the same)
 * @param {(workspaceId: string) => Promise<void>} deps.renameWorkspace the open workspace's (asks for the name, as the home screen's
 *   Rename)
 * @param {(workspaceId: string) => Promise<void>} deps.deleteWorkspace the open workspace's (asks, as the home screen's Delete)
 * @param {() => Promise<void>} deps.cloneRepository the home screen's "Clone a git repository"
 * @param {() => Promise<void>} deps.exportEverything the home screen's "Export everything"
 * @param {(() => void) | null} deps.pickBackup asks for a backup file and restores it (null: no restore starts from here)
 */
export async function openPalette({
  view,
  workspaces,
  panels,
  agentSettings,
  go,
  inform,
  guard,
  newWorkspace,
  pickImport,
  showShortcuts,
  deleteConversation,
  renameWorkspace,
  deleteWorkspace,
  cloneRepository,
  exportEverything,
  pickBackup,
}) {
  if (document.querySelector('dialog[open]')) return;
  const workspaceId = view?.workspaceId ?? null;
  const controller = view?.controller ?? null;
  const ws = workspaceId ? (workspaces.get(workspaceId) ?? null) : null;
  const actions = view?.palette;
  const wide = matchMedia('(min-width: 721px)').matches;
  // The split view needs more room than the rail: it and its button show from 901 px (styles.css).
  const splitWide = matchMedia('(min-width: 901px)').matches;
  const { buildCommands } = await import('./commands.js');
  const [{ openCommandPalette }, { fuzzyRank }] = await Promise.all([import('../ui/command-palette.js'), import('./fuzzy.js')]);
  const commands = buildCommands({
    workspaces: workspaces.list(),
    workspace: ws ? { id: ws.id, name: ws.name } : null,
    conversations: controller?.state.conversations ?? [],
    conversationId: controller?.state.activeId ?? null,
    panels,
    panel: view?.panel ?? 'chat',
    autonomy: workspaceId ? agentSettings.load(workspaceId).autonomy.level : null,
    streaming: !!controller?.state.streaming,
    turn:
      controller && actions?.chatShown()
        ? {
            undo: !!controller.state.undo,
            redo: !!controller.state.redo,
            regenerate: controller.busy ? null : lastRegenerableReply(controller.state.events),
            continue: !controller.busy && !!stoppedLastReply(controller.state.events),
            edit: controller.busy ? null : lastOwnMessage(controller.state.events),
          }
        : null,
    // The rail's button is hidden on a phone's width (CSS: max-width 720px), the split's up to 900 px.
    split: actions?.split && splitWide ? { on: actions.split.on } : null,
    railCollapsed: actions && wide ? actions.railCollapsed() : null,
    // Its toggle is hidden on a phone's width too, where the list is a drawer.
    listHidden: actions && wide ? actions.listHidden() : null,
    canRestore: !!pickBackup,
    act: {
      home: () => go({ name: 'home' }),
      openWorkspace: (id) => go({ name: 'workspace', workspaceId: id, panel: 'chat' }),
      newWorkspace: () => guard(newWorkspace()),
      newConversation: () =>
        guard(
          (async () => {
            if (!controller || !workspaceId) return;
            const meta = await controller.newConversation();
            go({ name: 'workspace', workspaceId, panel: 'chat', conversationId: meta.id });
          })(),
        ),
      openConversation: (id) => workspaceId && go({ name: 'workspace', workspaceId, panel: 'chat', conversationId: id }),
      openPanel: (panel) => workspaceId && go({ name: 'workspace', workspaceId, panel }),
      setAutonomy: (level) => {
        if (!workspaceId) return;
        const cur = agentSettings.load(workspaceId);
        agentSettings.save(workspaceId, { ...cur, autonomy: { ...cur.autonomy, level } });
        inform(`Autonomy is now ${level === 'readonly' ? 'read-only' : level} in this workspace (from the next step of the agent).`);
      },
      exportConversation: (id) => controller && guard(exportConversation(controller, id)),
      renameConversation: (id) => controller && guard(renameConversation(controller, id)),
      editTags: (id) => controller && guard(editTags(controller, id)),
      importConversation: () => workspaceId && pickImport(workspaceId),
      stop: () => controller?.stop(),
      deleteConversation: (id) => {
        const title = controller?.state.conversations.find((c) => c.id === id)?.title ?? 'this conversation';
        if (controller && workspaceId) guard(deleteConversation(workspaceId, controller, id, title));
      },
      undoTurn: () => actions && guard(actions.undoTurn()),
      redoTurn: () => actions && guard(actions.redoTurn()),
      regenerate: (eventId) => controller && guard(controller.regenerate(eventId)),
      continueReply: () => controller && guard(controller.continueReply()),
      editMessage: (eventId) => actions?.editMessage(eventId),
      renameWorkspace: (id) => guard(renameWorkspace(id)),
      deleteWorkspace: (id) => guard(deleteWorkspace(id)),
      cloneRepository: () => guard(cloneRepository()),
      exportEverything: () => guard(exportEverything()),
      restoreBackup: () => pickBackup?.(),
      toggleSplit: () => actions?.split?.toggle(),
      toggleRail: () => actions?.toggleRail(),
      toggleList: () => actions?.toggleList(),
      search: () => actions?.focusSearch(),
      shortcuts: showShortcuts,
    },
  });
  await openCommandPalette(commands, fuzzyRank);
}
