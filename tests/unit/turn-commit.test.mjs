// Issue 32 §6: the agent's commit holds only the agent's changes. A turn is built the way the app
// builds it (the real AgentFactory: recording file system, sub-agents through delegation, the
// shell, git tools, code run in a sandbox), driven by the scripted provider through a real
// ClawserAgent, then committed by the same function the app calls after a turn. The user's own
// work (a file, a goal's mirror) stays uncommitted; undo commits its own changes or none;
// restoring to before the agent's commit keeps the user's uncommitted work.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ScriptedProvider } from '../fixtures/scripted-provider.mjs';
import { fakeSandbox } from '../fixtures/fake-sandbox.mjs';
import { memoryStorage } from '../fixtures/stand-ins.mjs';
import { AgentFactory } from '../../web/app/agent-factory.js';
import { AgentSettingsStore } from '../../web/app/agent-settings.js';
import * as turnCommit from '../../web/app/turn-commit.js';
import { undoDomains } from '../../web/app/turn-undo.js';
import { HookPipeline } from '../../web/agent/runtime/hooks.js';
import { Codex } from '../../web/agent/runtime/codex.js';
import { ConversationStore } from '../../web/agent/conversation/conversation-store.js';
import { GoalStore } from '../../web/stores/goals.js';
import { Scheduler } from '../../web/stores/scheduler.js';
import { UsageLedger } from '../../web/stores/usage-ledger.js';
import { MemoryStore } from '../../web/memory/store.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { ScopedFileSystem } from '../../web/storage/scoped-fs.js';
import { ProtectedFileSystem } from '../../web/storage/protected-fs.js';
import { LocalConfig } from '../../web/storage/local-config.js';
import { WorkspaceGit } from '../../web/git/git.js';
import { createBuiltinRegistry } from '../../web/tools/index.js';
import { loose } from '../fixtures/loose-events.mjs';

const AUTHOR = { name: 'Clawser', email: 'clawser@localhost' };
const { commitTurn } = turnCommit;
// any: its arguments are the controller's
/** The commit after an undo or redo (absent before the fix: no commit is made). @type {(args: any) => Promise<string | null>} */
const commitTakeBack = /** @type {any} */ (turnCommit).commitTakeBack ?? (async () => null);

/**
 * A workspace with one committed file (README.md), its stores, and `turn(script, text)`: one
 * agent turn built by the app's AgentFactory, then the app's commit after a turn.
 */
async function workspace() {
  const root = new MemoryFileSystem();
  const fs = new ScopedFileSystem(root, 'clawser_workspaces/ws');
  const repo = new WorkspaceGit(fs);
  await fs.write('README.md', '# Project\n');
  await repo.commitAll({ message: 'Start', author: AUTHOR });
  const config = new LocalConfig(memoryStorage());
  const agentSettings = new AgentSettingsStore({ config, secrets: /** @type {any} */ ({}) }); // any: no secret is read by these turns
  const registry = createBuiltinRegistry({ config, workspaceId: 'ws' });
  const goals = new GoalStore({ fs });
  const memory = new MemoryStore({ fs });
  const scheduler = new Scheduler({ fs, timezone: 'UTC', execute: async () => ({ ok: true, summary: '' }) });
  const conversations = new ConversationStore(root, 'ws');
  const services = /** @type {any} */ ({
    // any: the parts of a workspace's services a turn uses
    registry,
    goals,
    scheduler,
    git: async () => repo,
    memory: async () => memory,
    skills: async () => undefined,
    mcp: async () => {
      throw new Error('no MCP servers here');
    },
    agents: async () => ({ get: async () => null, identity: async () => null }),
    toolUi: {},
    usage: new UsageLedger({ fs }),
  });
  const factory = new AgentFactory({
    agentSettings,
    hooks: new HookPipeline(),
    services: () => services,
    workspaceFs: () => fs,
    mountedFolder: () => null,
    createChildConversation: async (_ws, title, parent) => conversations.open((await conversations.create(title, { parent })).id),
  });
  const conversation = await conversations.open((await conversations.create()).id);
  /**
   * One turn: the scripted replies (a sub-agent's included, in order), then the commit after it.
   * @param {import('../fixtures/scripted-provider.mjs').ScriptedTurn[]} script @param {string} text
   */
  async function turn(script, text) {
    const provider = /** @type {any} */ (new ScriptedProvider(script)); // any: the scripted provider stands in for a Provider
    const { agent } = await factory.agent('ws', provider, conversation, [], { approve: async () => 'once' });
    const tools = /** @type {import('../../web/agent/runtime/tool-runner.js').ToolRunner} */ (agent.tools);
    // Code runs in a stand-in sandbox (Node has no andbox), through the turn's own runner as in the app.
    tools.context.runCode = (code, signal, o) =>
      new Codex({ getSandbox: async () => fakeSandbox() }).run(code, { tools, signal, ...(o?.only ? { only: o.only } : {}) });
    await agent.run(text);
    const notice = await commitTurn({ repo, tools, turn: { title: 'Chat', text }, author: AUTHOR, mounted: false });
    return { agent, notice };
  }
  /** The paths the newest commit changed. */
  const lastCommit = async () => {
    const [head] = await repo.log({ depth: 1 });
    return { message: head.message, paths: (await repo.diffCommit(head.oid)).map((d) => d.path) };
  };
  /** Files with changes not committed (as the Git panel lists them). */
  const uncommitted = async () =>
    (await repo.status())
      .filter((s) => s.state !== 'unchanged' || s.staged || s.unstaged)
      .map((s) => s.path)
      .sort();
  return { root, fs, repo, goals, memory, scheduler, conversation, factory, turn, lastCommit, uncommitted };
}

/** A scripted reply that calls one tool. @param {string} name @param {Record<string, unknown>} args */
const call = (name, args) => ({ toolCalls: [{ id: `${name}-${Math.random().toString(36).slice(2, 8)}`, name, arguments: args }] });

test("the agent's commit holds only agent.txt: the user's a.txt and goal file stay uncommitted (control: \
a turn writing two files commits both)", async () => {
  const w = await workspace();
  // The user, before the turn: a file from the Terminal, a goal from the Goals panel (its mirror is a workspace file).
  await w.fs.write('a.txt', 'mine\n');
  const goal = await w.goals.add({ description: 'Write the report' });
  const goalFile = w.goals.mirrorPathOf(goal);
  const { notice } = await w.turn(
    [call('fs_write', { path: 'agent.txt', content: 'from the agent\n' }), { text: 'Wrote agent.txt.' }],
    'write agent.txt',
  );
  assert.match(String(notice), /committed \([0-9a-f]{7}\)/);
  const commit = await w.lastCommit();
  assert.match(commit.message, /^Agent: write agent\.txt/);
  assert.deepEqual(commit.paths, ['agent.txt']);
  assert.deepEqual(await w.uncommitted(), ['a.txt', goalFile].sort(), "the user's work is still shown as changes");
  // Control: a turn that writes two files commits both, and still nothing of the user's.
  await w.turn(
    [
      {
        toolCalls: [
          { id: 'x', name: 'fs_write', arguments: { path: 'notes/x.md', content: 'x' } },
          { id: 'y', name: 'fs_write', arguments: { path: 'y.txt', content: 'y' } },
        ],
      },
      { text: 'Two.' },
    ],
    'write two files',
  );
  assert.deepEqual((await w.lastCommit()).paths, ['notes/x.md', 'y.txt']);
  assert.deepEqual(await w.uncommitted(), ['a.txt', goalFile].sort());
});

test("deletions, renames, shell writes, sandbox code and a sub-agent's files are the turn's commit; nothing of the user's is (control: \
the same paths all committed)", async () => {
  const w = await workspace();
  await w.fs.write('old.txt', 'old\n');
  await w.fs.write('gone.txt', 'bye\n');
  await w.fs.write('dir/one.txt', '1\n');
  await w.repo.commitAll({ message: 'More', author: AUTHOR });
  await w.fs.write('user-notes.md', "the user's notes\n");
  await w.fs.write('README.md', '# Project\nEdited by the user.\n');
  await w.turn(
    [
      call('fs_delete', { path: 'gone.txt' }),
      call('shell', { command: 'mv old.txt new.txt && echo from-shell > shell.txt' }),
      call('shell', { command: 'rm -r dir' }),
      call('run_js', { code: 'await fs_write({ path: "code.txt", content: "from code" }); return "ok";' }),
      // The sub-agent's own turn (its replies come from the same script, in order).
      call('agent_delegate', { task: 'write sub.txt' }),
      call('fs_write', { path: 'sub.txt', content: 'from the sub-agent' }),
      { text: 'The sub-agent wrote sub.txt.' },
      { text: 'All done.' },
    ],
    'tidy up',
  );
  assert.deepEqual(
    loose(w.conversation.events)
      .filter((e) => e.type === 'tool_result' && !e.data.ok)
      .map((e) => e.data.result),
    [],
    'every call ran',
  );
  assert.equal(await w.fs.readText('sub.txt'), 'from the sub-agent', 'the sub-agent ran');
  assert.equal(await w.fs.readText('code.txt'), 'from code', 'the sandbox code ran');
  const commit = await w.lastCommit();
  assert.deepEqual(commit.paths, ['code.txt', 'dir/one.txt', 'gone.txt', 'new.txt', 'old.txt', 'shell.txt', 'sub.txt']);
  assert.deepEqual(await w.uncommitted(), ['README.md', 'user-notes.md'], "the user's edit and new file stay uncommitted");
  assert.equal(
    await w.repo.readFileAt('HEAD', 'README.md').then((b) => b && new TextDecoder().decode(b)),
    '# Project\n',
    "the committed README is the one before the user's edit",
  );
});

test("a path both the user and the agent changed: the agent's resulting content is committed (control: \
a path only the user changed stays uncommitted)", async () => {
  const w = await workspace();
  await w.fs.write('shared.md', 'the user started this\n');
  await w.fs.write('mine.md', 'only mine\n');
  await w.turn([call('shell', { command: 'echo "the agent added this" >> shared.md' }), { text: 'Appended.' }], 'add a line to shared.md');
  assert.deepEqual((await w.lastCommit()).paths, ['shared.md']);
  assert.equal(
    new TextDecoder().decode(/** @type {Uint8Array} */ (await w.repo.readFileAt('HEAD', 'shared.md'))),
    'the user started this\nthe agent added this\n',
  );
  assert.deepEqual(await w.uncommitted(), ['mine.md']);
});

test("a file the user staged stays staged, untouched by the agent's commit (control: the agent's file is committed)", async () => {
  const w = await workspace();
  await w.fs.write('staged.txt', 'staged by the user\n');
  await w.repo.stage(['staged.txt']);
  await w.turn([call('fs_write', { path: 'agent.txt', content: 'A' }), { text: 'ok' }], 'write agent.txt');
  assert.deepEqual((await w.lastCommit()).paths, ['agent.txt']);
  const staged = (await w.repo.status()).find((s) => s.path === 'staged.txt');
  assert.deepEqual([staged?.state, staged?.staged], ['new', true]);
});

test("the agent's goal is its own: its mirror file is in the agent's commit, the user's goal is not (control)", async () => {
  const w = await workspace();
  const mine = await w.goals.add({ description: 'My own goal' });
  await w.turn([call('goal_add', { description: 'Agent goal' }), { text: 'Added.' }], 'add a goal');
  const agentGoal = (await w.goals.list()).find((g) => g.description === 'Agent goal');
  assert.ok(agentGoal);
  assert.deepEqual((await w.lastCommit()).paths, [w.goals.mirrorPathOf(agentGoal)]);
  assert.deepEqual(await w.uncommitted(), [w.goals.mirrorPathOf(mine)]);
});

test("git restore run by the agent is the turn's change and is committed (control: the user's file is not)", async () => {
  const w = await workspace();
  await w.fs.write('README.md', '# Broken\n');
  await w.repo.commitAll({ message: 'Break it', author: AUTHOR });
  const [, start] = await w.repo.log();
  await w.fs.write('mine.txt', 'mine\n');
  await w.turn([call('shell', { command: `git restore --source=${start.oid} README.md` }), { text: 'Restored.' }], 'restore the readme');
  assert.equal(await w.fs.readText('README.md'), '# Project\n');
  assert.deepEqual((await w.lastCommit()).paths, ['README.md']);
  assert.deepEqual(await w.uncommitted(), ['mine.txt']);
});

test("restoring the workspace to before the agent's commit keeps the user's uncommitted work (control: \
the agent's file is removed)", async () => {
  const w = await workspace();
  await w.fs.write('a.txt', 'mine\n');
  await w.fs.write('README.md', "# Project\nThe user's edit, not committed.\n");
  await w.turn([call('fs_write', { path: 'agent.txt', content: 'A' }), { text: 'ok' }], 'write agent.txt');
  const [, before] = await w.repo.log();
  const result = await w.repo.restore(before.oid);
  assert.equal(await w.fs.stat('agent.txt'), null, "the agent's file is gone");
  assert.equal(await w.fs.readText('a.txt'), 'mine\n', "the user's new file is kept");
  assert.equal(await w.fs.readText('README.md'), "# Project\nThe user's edit, not committed.\n", "the user's edit is kept");
  assert.deepEqual(result.changed, ['agent.txt']);
  assert.deepEqual(result.kept, ['README.md', 'a.txt']);
  // Restoring the later commit again brings the agent's file back (what a restore wrote is in the repository).
  const [latest] = await w.repo.log();
  assert.deepEqual((await w.repo.restore(latest.oid)).changed, ['agent.txt']);
  assert.equal(await w.fs.readText('agent.txt'), 'A');
});

test("undo and redo record their own commits, and the next turn's commit has only its own paths (control: \
undoing a turn that changed no file makes no commit)", async () => {
  const w = await workspace();
  const { ChatController } = await import('../../web/app/chat-controller.js');
  /** @type {import('../fixtures/scripted-provider.mjs').ScriptedTurn[]} */
  let script = [];
  const chat = new ChatController({
    fs: w.root,
    workspaceId: 'ws',
    // any: only providerConfig is used
    settings: /** @type {any} */ ({ providerConfig: async () => ({ provider: 'echo', model: 'echo' }) }),
    // any: the scripted provider stands in for a Provider
    providerFactory: () => /** @type {any} */ (new ScriptedProvider(script.splice(0))),
    buildAgent: async (provider, conversation) =>
      (await w.factory.agent('ws', provider, conversation, [], { approve: async () => 'once' })).agent,
    // As the app wires them (web/app/chat-assembly.js): a commit after each turn, and after each undo or redo.
    afterTurn: (agent, turn) => commitTurn({ repo: w.repo, tools: agent.tools, turn, author: AUTHOR, mounted: false }),
    afterTakeBack: (change) => commitTakeBack({ repo: w.repo, ...change, author: AUTHOR }),
    undoDomains: async () => undoDomains({ fs: new ProtectedFileSystem(w.fs), memory: w.memory, goals: w.goals, scheduler: w.scheduler }),
  });
  await chat.init();
  await chat.newConversation();
  await w.fs.write('a.txt', 'mine\n');
  script = [call('fs_write', { path: 'agent.txt', content: 'A' }), { text: 'ok' }];
  await chat.send('write agent.txt');
  assert.deepEqual((await w.lastCommit()).paths, ['agent.txt']);
  const undone = await chat.undoTurn();
  assert.equal(undone.ok, true, undone.message);
  assert.equal(await w.fs.stat('agent.txt'), null);
  const undo = await w.lastCommit();
  assert.match(undo.message, /^Undo turn: write agent\.txt/);
  assert.deepEqual(undo.paths, ['agent.txt']);
  assert.match(undone.message, /The undo was committed \([0-9a-f]{7}\)/);
  assert.equal(await w.repo.readFileAt('HEAD', 'agent.txt'), null, 'the undo commit removed it');
  // Redo is its own commit too.
  const redone = await chat.redoTurn();
  assert.match(redone.message, /committed \([0-9a-f]{7}\)/);
  const redo = await w.lastCommit();
  assert.match(redo.message, /^Redo turn: write agent\.txt/);
  assert.deepEqual(redo.paths, ['agent.txt']);
  assert.equal((await chat.undoTurn()).ok, true);
  script = [call('fs_write', { path: 'later.txt', content: 'L' }), { text: 'ok' }];
  await chat.send('write later.txt');
  const later = await w.lastCommit();
  assert.match(later.message, /^Agent: write later\.txt/);
  assert.deepEqual(later.paths, ['later.txt'], "the undo's deletion is not swept into a later turn");
  assert.deepEqual(await w.uncommitted(), ['a.txt']);
  assert.deepEqual(
    (await w.repo.log({ depth: 10 })).map((c) => c.message.split('\n')[0]),
    [
      'Agent: write later.txt',
      'Undo turn: write agent.txt',
      'Redo turn: write agent.txt',
      'Undo turn: write agent.txt',
      'Agent: write agent.txt',
      'Start',
    ],
  );
  // Control: undoing a turn that changed no file (a memory) makes no commit.
  script = [call('memory_store', { key: 'sea', content: 'Baltic', category: 'user' }), { text: 'remembered' }];
  await chat.send('remember the sea');
  const commits = (await w.repo.log({ depth: 10 })).length;
  const plain = await chat.undoTurn();
  assert.equal(plain.ok, true);
  assert.doesNotMatch(plain.message, /committed/);
  assert.equal((await w.repo.log({ depth: 10 })).length, commits);
});
