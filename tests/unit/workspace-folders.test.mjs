// Issue 33 §2: Clawser's own folders of a workspace. The lists every part keeps of them are
// pinned here as they were before they had one home, both as lists and by what each part does
// with each folder (observed, not read: tests/fixtures/workspace-folder-verdicts.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { INTERNAL_FOLDERS } from '../../web/storage/mounted-fs.js';
import { PROTECTED_FOLDERS } from '../../web/storage/protected-fs.js';
import { PROTECTED_SEGMENTS } from '../../web/safety/tool-call-validator.js';
import { verdictsOf } from '../fixtures/workspace-folder-verdicts.mjs';

/** The lists as they were (issue 32's main), before the layout had one home. */
const STORES = ['.conversations', '.checkpoints', '.memory', '.goals', '.scheduler', '.vault', '.secrets', '.skills', '.usage', '.agents'];
const BEFORE = {
  internal: STORES,
  protectedFolders: [...STORES, '.git'],
  protectedSegments: [...STORES, '.git', 'clawser_keys'],
  // The user's terminal (web/app/terminal-host.js) kept its own: secrets stay out of its reach.
  terminalUnreadable: ['.vault', '.secrets'],
};
/** Names no list holds, some of them look-alikes: every part treats them as the user's. */
const USER_FOLDERS = ['notes', 'memory', '.schedulers', 'git', '.github', 'clawser_workspaces'];

/**
 * What each part does with a folder, given the lists.
 * @param {string} name @param {typeof BEFORE} lists
 * @returns {import('../fixtures/workspace-folder-verdicts.mjs').FolderVerdict}
 */
function expectedVerdict(name, lists) {
  const owned = lists.protectedFolders.includes(name);
  const offLimits = lists.protectedSegments.includes(name);
  return {
    mountedToBrowser: lists.internal.includes(name),
    protectedView: owned,
    gitView: owned && name !== '.git', // git's own view keeps .git writable
    agentShellUnreadable: owned,
    terminalUnreadable: lists.terminalUnreadable.includes(name),
    toolPathRefused: offLimits,
    filesPanelHidden: offLimits,
    fsListHidden: offLimits,
    zipLeftOut: offLimits,
    gitUntracked: offLimits,
  };
}

test('the lists of Clawser\'s own folders are what they were, and every part treats each folder as before (control: user folders and look-alikes)', async () => {
  assert.deepEqual(INTERNAL_FOLDERS, BEFORE.internal);
  assert.deepEqual(PROTECTED_FOLDERS, BEFORE.protectedFolders);
  assert.deepEqual(PROTECTED_SEGMENTS, BEFORE.protectedSegments);
  const names = [...BEFORE.protectedSegments, ...USER_FOLDERS];
  const seen = await verdictsOf(names);
  for (const name of names) assert.deepEqual(seen[name], expectedVerdict(name, BEFORE), name);
  // The control is not vacuous: a user folder is open to every part.
  assert.ok(Object.values(seen.notes).every((v) => v === false));
});
