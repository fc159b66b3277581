/**
 * The command palette (Ctrl/Cmd+K) opened where the user is: the commands of commands.js for
 * what exists now, each doing its action (routes through `go`, dialogs for rename and export,
 * the autonomy level saved in the workspace's agent settings).
 */
/** @import { Route } from './router.js' */
/** @import { ChatController } from './chat-controller.js' */
/** @import { AgentSettingsStore } from './agent-settings.js' */
/** @import { WorkspaceStore } from './workspaces.js' */
import { renameConversation, exportConversation } from './conversation-actions.js';

/**
 * Opens the palette (not over another dialog); resolves when it closed.
 * @param {object} deps
 * @param {{workspaceId: string, panel: string, controller: ChatController, focusSearch?: () => void} | null} deps.view the open workspace's view (null on the home screen)
 * @param {WorkspaceStore} deps.workspaces
 * @param {{name: string, label: string, shortcut?: string}[]} deps.panels besides the chat
 * @param {AgentSettingsStore} deps.agentSettings
 * @param {(route: Route) => void} deps.go
 * @param {(text: string) => void} deps.inform says what changed (a banner)
 * @param {(p: Promise<unknown>) => void} deps.guard
 * @param {() => Promise<void>} deps.newWorkspace
 * @param {(workspaceId: string) => void} deps.pickImport
 * @param {() => void} deps.showShortcuts
 */
export async function openPalette({ view, workspaces, panels, agentSettings, go, inform, guard, newWorkspace, pickImport, showShortcuts }) {
  if (document.querySelector('dialog[open]')) return;
  const workspaceId = view?.workspaceId ?? null;
  const controller = view?.controller ?? null;
  const ws = workspaceId ? workspaces.get(workspaceId) ?? null : null;
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
    act: {
      home: () => go({ name: 'home' }),
      openWorkspace: (id) => go({ name: 'workspace', workspaceId: id, panel: 'chat' }),
      newWorkspace: () => guard(newWorkspace()),
      newConversation: () => guard((async () => {
        if (!controller || !workspaceId) return;
        const meta = await controller.newConversation();
        go({ name: 'workspace', workspaceId, panel: 'chat', conversationId: meta.id });
      })()),
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
      importConversation: () => workspaceId && pickImport(workspaceId),
      stop: () => controller?.stop(),
      search: () => view?.focusSearch?.(),
      shortcuts: showShortcuts,
    },
  });
  await openCommandPalette(commands, fuzzyRank);
}
