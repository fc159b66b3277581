/**
 * Every action of the app as one list, for the command palette (Ctrl/Cmd+K): built fresh each
 * time it opens from what exists now (workspaces, conversations, panels). No DOM; the app
 * passes the ways to act.
 */
/** @import { Command } from '../ui/command-palette.js' */

const LEVELS = /** @type {const} */ ([
  ['readonly', 'read-only'],
  ['supervised', 'supervised'],
  ['full', 'full'],
]);

/**
 * @param {object} ctx
 * @param {{id: string, name: string}[]} ctx.workspaces
 * @param {{id: string, name: string} | null} ctx.workspace the open one
 * @param {{id: string, title: string, tags?: string[]}[]} ctx.conversations of the open workspace
 * @param {string | null} ctx.conversationId the one on screen
 * @param {{name: string, label: string, shortcut?: string}[]} ctx.panels besides the chat
 * @param {string} ctx.panel the one on screen
 * @param {'readonly' | 'supervised' | 'full' | null} ctx.autonomy the open workspace's level
 * @param {boolean} ctx.streaming a reply is being written
 * @param {{undo: boolean, redo: boolean, regenerate: string | null, continue?: boolean, edit?: string | null} | null} [ctx.turn] the chat
 *   on screen:
 *   whether a turn can be undone or redone, the reply that can be regenerated, whether the last reply was stopped (and can be
 *   continued), the last message the user sent (that can be edited) (null: the chat is not on screen)
 * @param {{on: boolean} | null} [ctx.split] the panel on screen can show beside the chat (null: it cannot, or the window is too narrow)
 * @param {boolean | null} [ctx.railCollapsed] the panel rail shows icons only (null: no rail to fold, e.g. on a phone)
 * @param {boolean | null} [ctx.listHidden] the conversation list is hidden (null: no list to hide, e.g. on a phone, where it is a drawer)
 * @param {boolean} [ctx.canRestore] a backup can be restored from here (the home screen: nothing is open that it would replace)
 * @param {object} ctx.act
 * @param {() => void} ctx.act.home
 * @param {(workspaceId: string) => void} ctx.act.openWorkspace
 * @param {() => void} ctx.act.newWorkspace
 * @param {() => void} ctx.act.newConversation
 * @param {(conversationId: string) => void} ctx.act.openConversation
 * @param {(panel: string) => void} ctx.act.openPanel 'chat', 'settings' or a registered panel
 * @param {(level: 'readonly' | 'supervised' | 'full') => void} ctx.act.setAutonomy
 * @param {(conversationId: string) => void} ctx.act.exportConversation
 * @param {() => void} ctx.act.importConversation
 * @param {(conversationId: string) => void} ctx.act.renameConversation
 * @param {(conversationId: string) => void} ctx.act.editTags
 * @param {(conversationId: string) => void} ctx.act.deleteConversation asks for confirmation first
 * @param {() => void} ctx.act.undoTurn
 * @param {() => void} ctx.act.redoTurn
 * @param {(eventId: string) => void} ctx.act.regenerate
 * @param {() => void} ctx.act.continueReply the stopped reply's Continue button
 * @param {(eventId: string) => void} ctx.act.editMessage the message's Edit button
 * @param {(workspaceId: string) => void} ctx.act.renameWorkspace
 * @param {(workspaceId: string) => void} ctx.act.deleteWorkspace asks for confirmation first
 * @param {() => void} ctx.act.cloneRepository into a new workspace
 * @param {() => void} ctx.act.exportEverything the backup of all workspaces
 * @param {() => void} ctx.act.restoreBackup asks for the backup file
 * @param {() => void} ctx.act.toggleSplit
 * @param {() => void} ctx.act.toggleRail
 * @param {() => void} ctx.act.toggleList hides or shows the conversation list
 * @param {() => void} ctx.act.stop
 * @param {() => void} ctx.act.search puts the focus in the conversation search
 * @param {() => void} ctx.act.shortcuts
 * @returns {Command[]}
 */
export function buildCommands(ctx) {
  const { act } = ctx;
  /** @type {Command[]} */
  const out = [];
  const ws = ctx.workspace;
  if (ws) {
    if (ctx.streaming) out.push({ id: 'stop', label: 'Stop the reply', shortcut: 'Esc', run: act.stop });
    out.push({ id: 'new-conversation', label: 'New conversation', keywords: 'chat start', run: act.newConversation });
    out.push({ id: 'search', label: 'Search conversations…', keywords: 'find messages full text', run: act.search });
    if (ctx.panel !== 'chat')
      out.push({
        id: 'panel:chat',
        label: 'Open Chat',
        group: 'Panel',
        shortcut: 'Alt+0',
        keywords: 'back conversation messages',
        run: () => act.openPanel('chat'),
      });
    for (const p of ctx.panels) {
      if (p.name !== ctx.panel)
        out.push({
          id: `panel:${p.name}`,
          label: `Open ${p.label}`,
          group: 'Panel',
          shortcut: p.shortcut,
          run: () => act.openPanel(p.name),
        });
    }
    out.push({
      id: 'settings',
      label: 'Change provider or model…',
      group: 'Settings',
      keywords: 'settings api key model provider',
      run: () => act.openPanel('settings'),
    });
    for (const [level, word] of LEVELS) {
      if (level !== ctx.autonomy)
        out.push({
          id: `autonomy:${level}`,
          label: `Set autonomy to ${word}`,
          group: 'Settings',
          keywords: 'permissions approval',
          run: () => act.setAutonomy(level),
        });
    }
    const current = ctx.conversationId;
    if (current) {
      out.push({
        id: 'export',
        label: 'Export this conversation…',
        keywords: 'download markdown jsonl html save',
        run: () => act.exportConversation(current),
      });
      out.push({ id: 'rename', label: 'Rename this conversation…', keywords: 'title', run: () => act.renameConversation(current) });
      out.push({ id: 'tags', label: 'Tags of this conversation…', keywords: 'tag label folder', run: () => act.editTags(current) });
      out.push({ id: 'delete', label: 'Delete this conversation…', keywords: 'remove trash', run: () => act.deleteConversation(current) });
    }
    const turn = ctx.turn;
    if (turn && !ctx.streaming) {
      const reply = turn.regenerate;
      if (reply)
        out.push({
          id: 'regenerate',
          label: 'Regenerate the last reply',
          keywords: 'retry again answer version',
          run: () => act.regenerate(reply),
        });
      if (turn.undo)
        out.push({ id: 'undo', label: 'Undo the latest turn', shortcut: 'Alt+Z', keywords: 'revert files memories', run: act.undoTurn });
      if (turn.redo)
        out.push({ id: 'redo', label: 'Redo the turn undone last', shortcut: 'Alt+Shift+Z', keywords: 'reapply', run: act.redoTurn });
      if (turn.continue)
        out.push({
          id: 'continue',
          label: 'Continue the stopped reply',
          keywords: 'resume go on stopped incomplete',
          run: act.continueReply,
        });
      const mine = turn.edit;
      if (mine)
        out.push({ id: 'edit', label: 'Edit your last message', keywords: 'change fix resend version', run: () => act.editMessage(mine) });
    }
    if (ctx.split)
      out.push({
        id: 'split',
        label: ctx.split.on ? 'Hide the chat beside this panel' : 'Show the chat beside this panel',
        group: 'View',
        keywords: 'split side by side layout',
        run: act.toggleSplit,
      });
    if (ctx.railCollapsed != null)
      out.push({
        id: 'rail',
        label: ctx.railCollapsed ? 'Unfold the panel rail (show panel names)' : 'Fold the panel rail (icons only)',
        group: 'View',
        keywords: 'collapse expand sidebar navigation labels',
        run: act.toggleRail,
      });
    if (ctx.listHidden != null)
      out.push({
        id: 'conversation-list',
        label: ctx.listHidden ? 'Show the conversation list' : 'Hide the conversation list',
        group: 'View',
        keywords: 'sidebar conversations collapse expand fold',
        run: act.toggleList,
      });
    out.push({ id: 'import', label: 'Import a conversation (JSONL)…', keywords: 'upload open file', run: act.importConversation });
    for (const c of ctx.conversations) {
      if (c.id !== current)
        out.push({
          id: `conversation:${c.id}`,
          label: c.title,
          group: 'Conversation',
          // Found by its tags too.
          keywords: c.tags?.length ? `switch open ${c.tags.join(' ')}` : 'switch open',
          run: () => act.openConversation(c.id),
        });
    }
  }
  for (const w of ctx.workspaces) {
    if (w.id !== ws?.id)
      out.push({ id: `workspace:${w.id}`, label: w.name, group: 'Workspace', keywords: 'switch open', run: () => act.openWorkspace(w.id) });
  }
  out.push({ id: 'new-workspace', label: 'New workspace…', group: 'Workspace', run: act.newWorkspace });
  if (ws) {
    out.push({
      id: 'rename-workspace',
      label: `Rename workspace “${ws.name}”…`,
      group: 'Workspace',
      keywords: 'name title',
      run: () => act.renameWorkspace(ws.id),
    });
    out.push({
      id: 'delete-workspace',
      label: `Delete workspace “${ws.name}”…`,
      group: 'Workspace',
      keywords: 'remove trash',
      run: () => act.deleteWorkspace(ws.id),
    });
  }
  out.push({
    id: 'clone',
    label: 'Clone a git repository…',
    group: 'Workspace',
    keywords: 'new workspace github repo url download',
    run: act.cloneRepository,
  });
  out.push({
    id: 'export-all',
    label: 'Export everything…',
    group: 'Backup',
    keywords: 'backup download zip all workspaces save',
    run: act.exportEverything,
  });
  if (ctx.canRestore)
    out.push({
      id: 'restore',
      label: 'Restore from a backup…',
      group: 'Backup',
      keywords: 'import upload zip replace',
      run: act.restoreBackup,
    });
  out.push({ id: 'home', label: 'All workspaces', group: 'Workspace', keywords: 'home list', run: act.home });
  out.push({ id: 'shortcuts', label: 'Keyboard shortcuts', shortcut: '?', keywords: 'help keys', run: act.shortcuts });
  return out;
}
