// The command palette's list (web/app/commands.js): which actions it offers where the user is,
// with their shortcuts, and that each one runs the action the app passed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildCommands } from '../../web/app/commands.js';

/** The app's actions, each recording its call. */
const recorder = () => {
  /** @type {string[]} */
  const calls = [];
  const act = new Proxy(
    {},
    {
      get:
        (_, name) =>
        (/** @type {unknown[]} */ ...args) => {
          calls.push([String(name), ...args].join(':'));
        },
    },
  );
  return { calls, act: /** @type {any} */ (act) }; // any: a Proxy stands in for every action of the context's type
};

/** @param {Partial<Parameters<typeof buildCommands>[0]>} over */
const context = (over = {}) => {
  const { calls, act } = recorder();
  const commands = buildCommands({
    workspaces: [
      { id: 'w1', name: 'Home' },
      { id: 'w2', name: 'Work' },
    ],
    workspace: { id: 'w1', name: 'Home' },
    conversations: [
      { id: 'c1', title: 'Garden' },
      { id: 'c2', title: 'Taxes' },
    ],
    conversationId: 'c1',
    panels: [{ name: 'files', label: 'Files', shortcut: 'Alt+1' }],
    panel: 'chat',
    autonomy: 'supervised',
    streaming: false,
    turn: { undo: true, redo: true, regenerate: 'e9' },
    split: null,
    railCollapsed: false,
    listHidden: false,
    ...over,
    act,
  });
  /** @param {string} id */
  const run = (id) => {
    const c = commands.find((x) => x.id === id);
    assert.ok(c, `the command ${id} is offered`);
    c.run();
    return calls.at(-1);
  };
  return { commands, ids: commands.map((c) => c.id), run };
};

test('commands: the conversation on screen can be deleted, renamed, regenerated, undone and redone, each with its shortcut', () => {
  const { commands, run } = context();
  assert.equal(run('delete'), 'deleteConversation:c1');
  assert.equal(run('rename'), 'renameConversation:c1');
  assert.equal(run('regenerate'), 'regenerate:e9');
  assert.equal(run('undo'), 'undoTurn');
  assert.equal(run('redo'), 'redoTurn');
  assert.equal(run('rail'), 'toggleRail');
  assert.equal(run('conversation-list'), 'toggleList');
  assert.equal(run('new-workspace'), 'newWorkspace');
  assert.equal(run('import'), 'importConversation');
  const shortcut = (/** @type {string} */ id) => commands.find((c) => c.id === id)?.shortcut;
  assert.equal(shortcut('undo'), 'Alt+Z');
  assert.equal(shortcut('redo'), 'Alt+Shift+Z');
  assert.equal(shortcut('shortcuts'), '?');
  assert.equal(shortcut('panel:files'), 'Alt+1');
});

test('commands: only what applies is offered', () => {
  // Control: all of them are there when they apply.
  assert.ok(['undo', 'redo', 'regenerate', 'delete', 'rail'].every((id) => context().ids.includes(id)));
  const streaming = context({ streaming: true }).ids;
  assert.ok(streaming.includes('stop'));
  for (const id of ['undo', 'redo', 'regenerate']) assert.ok(!streaming.includes(id), `${id} waits for the reply to end`);
  const hidden = context({ turn: null }).ids; // the chat is not on screen
  for (const id of ['undo', 'redo', 'regenerate']) assert.ok(!hidden.includes(id), `${id} needs the chat on screen`);
  const nothing = context({ turn: { undo: false, redo: false, regenerate: null } }).ids;
  for (const id of ['undo', 'redo', 'regenerate']) assert.ok(!nothing.includes(id), `${id}: nothing to act on`);
  const none = context({ conversationId: null }).ids;
  assert.ok(!none.includes('delete') && !none.includes('rename'), 'no conversation on screen');
  assert.ok(!context({ railCollapsed: null }).ids.includes('rail'), 'no rail to fold on a phone');
  assert.ok(context().ids.includes('conversation-list'), 'control: the list can be hidden on a wide screen');
  assert.ok(!context({ listHidden: null }).ids.includes('conversation-list'), 'a phone keeps its drawer');
  assert.ok(!context().ids.includes('split'), 'the chat panel has no split');
});

test('commands: the rail, the conversation list and the split say which way they toggle', () => {
  const label = (/** @type {ReturnType<typeof context>} */ c, /** @type {string} */ id) => c.commands.find((x) => x.id === id)?.label;
  assert.match(String(label(context({ railCollapsed: false }), 'rail')), /^Fold/);
  assert.match(String(label(context({ railCollapsed: true }), 'rail')), /^Unfold/);
  assert.equal(label(context({ listHidden: false }), 'conversation-list'), 'Hide the conversation list');
  assert.equal(label(context({ listHidden: true }), 'conversation-list'), 'Show the conversation list');
  const off = context({ panel: 'files', split: { on: false } });
  assert.match(String(label(off, 'split')), /^Show the chat beside/);
  assert.equal(off.run('split'), 'toggleSplit');
  assert.match(String(label(context({ panel: 'files', split: { on: true } }), 'split')), /^Hide the chat beside/);
});

test('commands: outside a workspace only workspaces, clone, backup, the list and the shortcuts', () => {
  const { ids } = context({ workspace: null, conversationId: null, conversations: [], turn: null, railCollapsed: null, autonomy: null });
  assert.deepEqual(ids, ['workspace:w1', 'workspace:w2', 'new-workspace', 'clone', 'export-all', 'home', 'shortcuts']);
  const home = context({
    workspace: null,
    conversationId: null,
    conversations: [],
    turn: null,
    railCollapsed: null,
    autonomy: null,
    canRestore: true,
  });
  assert.deepEqual(home.ids, ['workspace:w1', 'workspace:w2', 'new-workspace', 'clone', 'export-all', 'restore', 'home', 'shortcuts']);
  assert.equal(home.run('restore'), 'restoreBackup');
});

test('commands: the open workspace can be renamed and deleted; cloning and exporting everything are offered everywhere', () => {
  const open = context();
  const label = (/** @type {string} */ id) => open.commands.find((c) => c.id === id)?.label;
  assert.equal(label('rename-workspace'), 'Rename workspace “Home”…');
  assert.equal(label('delete-workspace'), 'Delete workspace “Home”…');
  assert.equal(open.run('rename-workspace'), 'renameWorkspace:w1');
  assert.equal(open.run('delete-workspace'), 'deleteWorkspace:w1');
  assert.equal(open.run('clone'), 'cloneRepository');
  assert.equal(open.run('export-all'), 'exportEverything');
  // A restore replaces what is open: it is offered only where the app says it can start (the home screen).
  assert.ok(!open.ids.includes('restore'));
  const home = context({ workspace: null, conversationId: null, conversations: [], turn: null, canRestore: true }).ids;
  assert.ok(!home.includes('rename-workspace') && !home.includes('delete-workspace'), 'no workspace open to rename or delete');
  assert.ok(home.includes('clone') && home.includes('export-all') && home.includes('restore'));
  // None of these has a keyboard shortcut, so none shows one.
  for (const id of ['rename-workspace', 'delete-workspace', 'clone', 'export-all'])
    assert.equal(open.commands.find((c) => c.id === id)?.shortcut, undefined);
});

test('commands: Continue only after a stopped reply, with nothing being written and the chat on screen', () => {
  const stopped = context({ turn: { undo: false, redo: false, regenerate: 'e9', continue: true } });
  assert.equal(stopped.run('continue'), 'continueReply');
  assert.ok(
    !context({ turn: { undo: false, redo: false, regenerate: 'e9', continue: false } }).ids.includes('continue'),
    'the last reply was not stopped',
  );
  assert.ok(
    !context({ turn: { undo: false, redo: false, regenerate: null, continue: true }, streaming: true }).ids.includes('continue'),
    'a reply is being written',
  );
  assert.ok(!context({ turn: null }).ids.includes('continue'), 'the chat is not on screen');
});

test('commands: Edit opens the last message sent, when the chat is on screen and idle', () => {
  const sent = context({ turn: { undo: false, redo: false, regenerate: null, edit: 'u7' } });
  assert.equal(sent.run('edit'), 'editMessage:u7');
  assert.ok(!context({ turn: { undo: false, redo: false, regenerate: null, edit: null } }).ids.includes('edit'), 'no message sent yet');
  assert.ok(
    !context({ turn: { undo: false, redo: false, regenerate: null, edit: 'u7' }, streaming: true }).ids.includes('edit'),
    'a reply is being written',
  );
  assert.ok(!context({ turn: null }).ids.includes('edit'), 'the chat is not on screen');
});

test("commands: the conversation on screen's tags are edited from the palette; another conversation is found by its tags", () => {
  const { run, commands } = context({
    conversations: [
      { id: 'c1', title: 'Garden' },
      { id: 'c2', title: 'Taxes', tags: ['money', 'Q3'] },
    ],
  });
  assert.equal(run('tags'), 'editTags:c1');
  assert.match(commands.find((c) => c.id === 'conversation:c2')?.keywords ?? '', /\bmoney\b.*\bQ3\b/);
  // Control: an untagged conversation has only the usual words; no conversation on screen, no tags command.
  assert.equal(context().commands.find((c) => c.id === 'conversation:c2')?.keywords, 'switch open');
  assert.ok(!context({ conversationId: null }).ids.includes('tags'));
});
