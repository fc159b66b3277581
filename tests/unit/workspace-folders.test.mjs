// Issue 33 §2: Clawser's own folders of a workspace. The lists every part keeps of them are
// pinned here as they were before they had one home, both as lists and by what each part does
// with each folder (observed, not read: tests/fixtures/workspace-folder-verdicts.mjs).
// Then each list follows from the layout's properties (web/storage/workspace-folders.js), and a
// folder added to the layout reaches every part its properties say, and no other.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  WORKSPACE_FOLDERS,
  INTERNAL_FOLDERS,
  PROTECTED_FOLDERS,
  PROTECTED_SEGMENTS,
  SECRET_FOLDERS,
} from '../../web/storage/workspace-folders.js';
import { verdictsOf } from '../fixtures/workspace-folder-verdicts.mjs';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { ScopedFileSystem } from '../../web/storage/scoped-fs.js';
import { LocalConfig } from '../../web/storage/local-config.js';
import { Scheduler } from '../../web/stores/scheduler.js';
import { GoalStore } from '../../web/stores/goals.js';
import { MemoryStore } from '../../web/memory/store.js';
import { ConversationStore } from '../../web/agent/conversation/conversation-store.js';
import { CheckpointManager } from '../../web/agent/coordination/checkpoint.js';
import { UsageLedger } from '../../web/stores/usage-ledger.js';
import { AgentStore } from '../../web/agent/runtime/agent-store.js';
import { SkillStore } from '../../web/skills/store.js';
import { memoryStorage } from '../fixtures/stand-ins.mjs';

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

test("the lists of Clawser's own folders are what they were, and every part treats each folder as before (control: \
user folders and look-alikes)", async () => {
  assert.deepEqual(INTERNAL_FOLDERS, BEFORE.internal);
  assert.deepEqual(PROTECTED_FOLDERS, BEFORE.protectedFolders);
  assert.deepEqual(PROTECTED_SEGMENTS, BEFORE.protectedSegments);
  assert.deepEqual(SECRET_FOLDERS, BEFORE.terminalUnreadable);
  const names = [...BEFORE.protectedSegments, ...USER_FOLDERS];
  const seen = await verdictsOf(names);
  for (const name of names) assert.deepEqual(seen[name], expectedVerdict(name, BEFORE), name);
  // The control is not vacuous: a user folder is open to every part.
  assert.ok(Object.values(seen.notes).every((v) => v === false));
});

/** @typedef {import('../../web/storage/workspace-folders.js').WorkspaceFolder} WorkspaceFolder */

/**
 * What each part does with a folder of the layout, by its properties: the one statement of which
 * property reaches which part. @param {WorkspaceFolder} f
 * @returns {import('../fixtures/workspace-folder-verdicts.mjs').FolderVerdict}
 */
const verdictByProperties = (f) => ({
  mountedToBrowser: f.inBrowser,
  protectedView: f.ownerOnly,
  gitView: f.ownerOnly && f.name !== '.git',
  agentShellUnreadable: f.ownerOnly,
  terminalUnreadable: f.secret,
  toolPathRefused: f.offLimits,
  filesPanelHidden: f.offLimits,
  fsListHidden: f.offLimits,
  zipLeftOut: f.offLimits,
  gitUntracked: f.offLimits,
});

test('the layout declares each folder once, its properties nest, every list is the folders with its property, \
and nothing changes them', async () => {
  const names = WORKSPACE_FOLDERS.map((f) => f.name);
  assert.equal(new Set(names).size, names.length, 'each folder once');
  for (const f of WORKSPACE_FOLDERS) {
    assert.equal(f.name, f.name.toLowerCase(), `${f.name}: the parts compare lower-cased names`);
    assert.ok(f.holds, `${f.name} says what it holds`);
    // A store the agent could write, or read through its shell, would let outside content plant standing state.
    if (f.inBrowser) assert.ok(f.ownerOnly, `${f.name}: a store is written only by its owner`);
    if (f.secret) assert.ok(f.ownerOnly, `${f.name}: secrets are written only by their owner`);
    if (f.ownerOnly) assert.ok(f.offLimits, `${f.name}: what only its owner writes is off-limits to tools`);
  }
  const withProperty = (/** @type {'inBrowser' | 'ownerOnly' | 'offLimits' | 'secret'} */ p) =>
    WORKSPACE_FOLDERS.filter((f) => f[p]).map((f) => f.name);
  assert.deepEqual(INTERNAL_FOLDERS, withProperty('inBrowser'));
  assert.deepEqual(PROTECTED_FOLDERS, withProperty('ownerOnly'));
  assert.deepEqual(PROTECTED_SEGMENTS, withProperty('offLimits'));
  assert.deepEqual(SECRET_FOLDERS, withProperty('secret'));
  for (const list of [WORKSPACE_FOLDERS, INTERNAL_FOLDERS, PROTECTED_FOLDERS, PROTECTED_SEGMENTS, SECRET_FOLDERS])
    assert.throws(() => /** @type {unknown[]} */ (list).push('notes'), TypeError);
  assert.throws(() => {
    /** @type {WorkspaceFolder} */ (WORKSPACE_FOLDERS[0]).ownerOnly = false;
  }, TypeError);
  const seen = await verdictsOf(names);
  for (const f of WORKSPACE_FOLDERS) assert.deepEqual(seen[f.name], verdictByProperties(f), f.name);
});

/** Folders added to the layout in the child process, one of each kind the properties allow. @type {WorkspaceFolder[]} */
const PROBES = [
  { name: '.probe-store', holds: 'a new store', inBrowser: true, ownerOnly: true, offLimits: true, secret: false },
  { name: '.probe-secret', holds: 'a new store of secrets', inBrowser: true, ownerOnly: true, offLimits: true, secret: true },
  {
    name: '.probe-owned',
    holds: "a new owner-written folder that stays with the user's files, like .git",
    inBrowser: false,
    ownerOnly: true,
    offLimits: true,
    secret: false,
  },
  {
    name: 'probe-reserved',
    holds: 'a new reserved name, like clawser_keys',
    inBrowser: false,
    ownerOnly: false,
    offLimits: true,
    secret: false,
  },
];

/** The verdicts of `names` in a child process whose layout has `probes` too. @param {WorkspaceFolder[]} probes @param {string[]} names */
function verdictsWithProbes(probes, names) {
  const hooks = new URL('../fixtures/workspace-folders-probe-hooks.mjs', import.meta.url).href;
  const register = `data:text/javascript,${encodeURIComponent(
    `import { register } from 'node:module'; ` + `register(${JSON.stringify(hooks)});`,
  )}`;
  const script = fileURLToPath(new URL('../fixtures/workspace-folder-verdicts.mjs', import.meta.url));
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', register, script, ...names],
      { env: { ...process.env, CLAWSER_PROBE_FOLDERS: JSON.stringify(probes) } },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`${err.message}\n${stderr}`));
        else resolve(/** @type {Record<string, import('../fixtures/workspace-folder-verdicts.mjs').FolderVerdict>} */ (JSON.parse(stdout)));
      },
    );
  });
}

test('a folder added to the layout reaches every part its properties say and no other (control: a user folder, \
and the same run without the probes)', async () => {
  const names = [...PROBES.map((p) => p.name), 'probe-user', '.memory', '.git', 'clawser_keys', 'notes'];
  const seen = await verdictsWithProbes(PROBES, names);
  for (const probe of PROBES) assert.deepEqual(seen[probe.name], verdictByProperties(probe), probe.name);
  const user = {
    mountedToBrowser: false,
    protectedView: false,
    gitView: false,
    agentShellUnreadable: false,
    terminalUnreadable: false,
    toolPathRefused: false,
    filesPanelHidden: false,
    fsListHidden: false,
    zipLeftOut: false,
    gitUntracked: false,
  };
  assert.deepEqual(seen['probe-user'], user, "a folder not in the layout is the user's");
  // The folders already there keep their treatment.
  for (const f of WORKSPACE_FOLDERS.filter((w) => names.includes(w.name))) assert.deepEqual(seen[f.name], verdictByProperties(f), f.name);
  // The control: without the probes the same names are the user's folders, so the child really loaded them.
  const without = await verdictsWithProbes(
    [],
    PROBES.map((p) => p.name),
  );
  for (const probe of PROBES) assert.deepEqual(without[probe.name], user, probe.name);
});

test("every folder the stores write at the workspace's root is a store of the layout (control: \
the goals' Markdown mirror is the user's goals/)", async () => {
  const root = new MemoryFileSystem();
  const fs = new ScopedFileSystem(root, 'clawser_workspaces/w');
  await new Scheduler({ fs, execute: async () => ({ ok: true, summary: '' }) }).add({
    name: 'job',
    trigger: { kind: 'interval', everyMs: 60_000, startAt: Date.now() },
    action: { kind: 'prompt', prompt: 'hello' },
  });
  await new GoalStore({ fs }).add({ description: 'a goal' });
  const memory = new MemoryStore({ fs });
  await memory.store({ key: 'k', content: 'a memory', category: 'core' });
  await memory.flush();
  await new ConversationStore(root, 'w').create('a conversation');
  const checkpoints = new CheckpointManager({ fs });
  await checkpoints.save({ workspaceId: 'w', conversationId: 'c', turn: { status: 'running', startedAt: Date.now(), bytes: 0 } });
  await checkpoints.idle();
  const ledger = new UsageLedger({ fs });
  ledger.recordTurn({ provider: 'p', model: 'm', inputTokens: 1, outputTokens: 1, costCents: 1 });
  await ledger.flush();
  await new AgentStore({ fs, globalFs: new ScopedFileSystem(root, 'clawser_agents') }).save(
    { name: 'writer', description: 'w' },
    'workspace',
  );
  const skill = new TextEncoder().encode('---\nname: notes\ndescription: Notes.\n---\nTake notes.\n');
  await new SkillStore({
    globalFs: new ScopedFileSystem(root, 'clawser_skills'),
    workspaceFs: fs,
    config: new LocalConfig(memoryStorage()),
    workspaceId: 'w',
  }).install('notes', new Map([['SKILL.md', skill]]));
  const written = (await fs.list('')).map((e) => e.name).sort();
  assert.deepEqual(
    written.filter((n) => !INTERNAL_FOLDERS.includes(n)),
    ['goals'],
    "only the goals' mirror is outside the stores' folders",
  );
  assert.deepEqual(
    written.filter((n) => n !== 'goals'),
    ['.agents', '.checkpoints', '.conversations', '.goals', '.memory', '.scheduler', '.skills', '.usage'],
    'every store wrote',
  );
});
