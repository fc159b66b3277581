// Issue 32 §3, the lists that outlive a turn: a named agent's tools, a skill's allowed-tools and
// a scheduled job's tool name MCP tools by the name the model sees (mcp__{server}__{tool}). They
// are bound to the server they named when saved; a server removed and another added under the
// same name (at another address) is not reached through them, and the user is told, naming the
// list's owner and the tool. An older version's flat name (mcp_{server}_{tool}) reaches the one
// server saved before bindings that alone can have made it, else it is reported. Every probe
// has its control: the same list with the same server still there reaches it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { McpManager } from '../../web/mcp/manager.js';
import { LocalConfig } from '../../web/storage/local-config.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { createBuiltinRegistry, toolSettings } from '../../web/tools/index.js';
import { ToolSubset } from '../../web/tools/tool-subset.js';
import { ToolRunner } from '../../web/agent/runtime/tool-runner.js';
import { AutonomyController } from '../../web/agent/runtime/autonomy.js';
import { AgentStore } from '../../web/agent/runtime/agent-store.js';
import { allowedTools } from '../../web/agent/runtime/agent-definitions.js';
import { SkillStore } from '../../web/skills/store.js';
import { Scheduler, JobSchema } from '../../web/stores/scheduler.js';
import { runJob } from '../../web/app/job-runner.js';
import { memoryStorage } from '../fixtures/stand-ins.mjs';
import { startScriptedMcpServers } from '../fixtures/mcp-scripted.mjs';
import { shellWorkspace } from '../fixtures/shell-workspace.mjs';

/** @type {Awaited<ReturnType<typeof startScriptedMcpServers>>} */
let scripted;
before(async () => {
  scripted = await startScriptedMcpServers({
    '/github': [{ name: 'create_issue' }],
    '/elsewhere': [{ name: 'create_issue' }],
    '/github-create': [{ name: 'issue' }],
  });
});
after(async () => {
  await scripted?.close();
});

// the two methods the manager uses
const secrets = /** @type {any} */ ({ encrypt: async (/** @type {string} */ s) => s, decrypt: async (/** @type {string} */ s) => s });
const NAME = 'mcp__github__create_issue';

/**
 * A workspace's registry and MCP manager over one config; `older`: servers saved by a version
 * before bindings (written as it wrote them) — {id, name, path}.
 * @param {{older?: {id: string, name: string, path: string}[], config?: LocalConfig,
 *   registry?: import('../../web/tools/registry.js').BrowserToolRegistry}} [opts]
 */
function workspace(opts = {}) {
  const config = opts.config ?? new LocalConfig(memoryStorage());
  if (opts.older)
    config.set(
      'clawser_mcp_servers_ws',
      opts.older.map((s) => ({ id: s.id, name: s.name, url: scripted.url(s.path), auth: 'none' })),
    );
  const registry = opts.registry ?? createBuiltinRegistry({ config, workspaceId: 'ws' });
  const manager = new McpManager({ config, secrets, registry, workspaceId: 'ws' });
  /** @type {import('../../web/mcp/tool-lists.js').ToolListBinder} */
  const toolLists = {
    bind: async (owner, names) => manager.bindToolList(owner, names),
    forget: async (owner) => manager.forgetToolList(owner),
    resolve: async (owner, names) => manager.toolListFor(owner, names),
  };
  const agents = new AgentStore({ fs: new MemoryFileSystem(), globalFs: new MemoryFileSystem(), toolLists });
  /** Adds and connects a server. @param {string} name @param {string} path */
  const connect = async (name, path) => {
    const s = await manager.add({ name, url: scripted.url(path) });
    await manager.connect(s.id);
    return s;
  };
  /**
   * A runner over `tools` (a registry or an agent's subset), at full autonomy: the call is asked
   * (MCP tools need approval by default) and allowed once.
   * @param {import('../../web/tools/registry.js').BrowserToolRegistry} tools
   */
  const runner = (tools) =>
    new ToolRunner({
      registry: tools,
      context: { workspaceId: 'ws', fs: new MemoryFileSystem(), settings: toolSettings(), fetch, mcp: manager },
      autonomy: new AutonomyController({ config: { level: 'full' } }),
      approve: async () => 'once',
    });
  /** An agent's turn as the app builds it: its list as it reaches tools now, its subset of the registry. @param {string} name */
  const agentTurn = async (name) => {
    const found = await agents.get(name);
    assert.ok(found);
    // As the chat does: a store without forUse (before bindings) offered the list as saved.
    const forUse = /** @type {AgentStore['forUse'] | undefined} */ (/** @type {any} */ (agents).forUse); // any: probes for the method
    const { agent, leftOut } = forUse ? await forUse.call(agents, found) : { agent: found, leftOut: /** @type {string[]} */ ([]) };
    const subset = new ToolSubset(
      registry,
      allowedTools(
        registry.list().map((t) => t.name),
        agent.tools,
      ),
    );
    return { subset, leftOut, offered: subset.list().map((t) => t.name), runner: runner(subset) };
  };
  return { config, registry, manager, agents, connect, runner, agentTurn };
}

/** The paths the scripted servers' tool calls reached since the last reset. */
const reached = () => scripted.calls.map((c) => c.path);

test('an agent\'s tools name mcp__github__create_issue: github (/github) removed and another "github" added at /elsewhere, \
the agent is not offered it, its call reaches nothing, and the user is told naming the agent and the tool; control: \
the same server still there is offered and reached', async () => {
  const w = workspace();
  const github = await w.connect('github', '/github');
  await w.agents.save({ name: 'triage', description: 'files issues', tools: [NAME, 'fs_read'] }, 'workspace');

  // Control: the server it was saved with.
  let turn = await w.agentTurn('triage');
  assert.deepEqual(turn.leftOut, []);
  assert.deepEqual(turn.offered.sort(), ['fs_read', NAME]);
  scripted.calls.length = 0;
  assert.equal((await turn.runner.run({ id: 'c1', name: NAME, arguments: {} })).ok, true);
  assert.deepEqual(reached(), ['/github']);
  // Disconnected and connected again (the same server): still its tool.
  await w.manager.disconnect(github.id);
  await w.manager.connect(github.id);
  turn = await w.agentTurn('triage');
  assert.deepEqual(turn.leftOut, []);
  assert.ok(turn.offered.includes(NAME));

  // The probe: removed, another server of the same name at another address.
  await w.manager.remove(github.id);
  await w.connect('github', '/elsewhere');
  assert.ok(w.registry.get(NAME), "the new server's tool has the name");
  turn = await w.agentTurn('triage');
  assert.deepEqual(turn.offered, ['fs_read'], "the new server's tool is not offered");
  assert.equal(turn.leftOut.length, 1);
  assert.match(
    turn.leftOut[0],
    /^@triage: mcp__github__create_issue is left out — it was chosen for an MCP server that is no longer set up/,
  );
  assert.match(turn.leftOut[0], /“github” \(http:\/\/127\.0\.0\.1:\d+\/elsewhere\)/, 'it names the server that has the name now');
  scripted.calls.length = 0;
  const call = await turn.runner.run({ id: 'c2', name: NAME, arguments: {} });
  assert.equal(call.ok, false);
  assert.equal(call.blocked?.kind, 'unknown');
  assert.deepEqual(reached(), [], 'nothing reached /elsewhere');

  // Saved again (the user's yes to the tool as it is now): the new server's tool.
  await w.agents.save({ name: 'triage', description: 'files issues', tools: [NAME, 'fs_read'] }, 'workspace');
  turn = await w.agentTurn('triage');
  assert.deepEqual(turn.leftOut, []);
  scripted.calls.length = 0;
  await turn.runner.run({ id: 'c3', name: NAME, arguments: {} });
  assert.deepEqual(reached(), ['/elsewhere']);
  await w.manager.closeAll();
});

test('an agent saved while its MCP server is disconnected is bound to that server: it reaches its tool once connected, \
never a server added later under the name (control: the same server)', async () => {
  const w = workspace();
  const github = await w.connect('github', '/github');
  await w.manager.disconnect(github.id);
  await w.agents.save({ name: 'triage', tools: [NAME] }, 'workspace');
  assert.deepEqual(w.agents.lastSaveProblems, []);
  let turn = await w.agentTurn('triage');
  assert.deepEqual(turn.leftOut, [], 'not connected: nothing to tell');
  assert.deepEqual(turn.offered, []);
  await w.manager.connect(github.id);
  turn = await w.agentTurn('triage');
  assert.deepEqual(turn.offered, [NAME], 'control: its server, connected');
  await w.manager.remove(github.id);
  await w.connect('github', '/github');
  turn = await w.agentTurn('triage');
  assert.deepEqual(turn.offered, [], 'a server added again (same name, same address) is another server');
  assert.match(turn.leftOut[0] ?? '', /@triage: mcp__github__create_issue is left out/);
  await w.manager.closeAll();
});

test('an agent file with an unbound name (written before bindings) reaches a server saved before bindings, never one set up since; \
the user is told', async () => {
  // Written by the version before: the server saved without listsBound, the agent file without bindings.
  const config = new LocalConfig(memoryStorage());
  const w = workspace({ config, older: [{ id: 'old0gh', name: 'github', path: '/github' }] });
  await new AgentStore({ fs: w.agents.fs, globalFs: w.agents.globalFs }).save({ name: 'triage', tools: [NAME] }, 'workspace');
  await w.manager.connect('old0gh');
  let turn = await w.agentTurn('triage');
  assert.deepEqual(turn.offered, [NAME], 'control: the server it was written for');
  assert.deepEqual(turn.leftOut, []);
  await w.manager.remove('old0gh');
  await w.connect('github', '/elsewhere');
  turn = await w.agentTurn('triage');
  assert.deepEqual(turn.offered, []);
  assert.match(
    turn.leftOut[0] ?? '',
    new RegExp(
      String.raw`^@triage: mcp__github__create_issue is left out — it was not chosen for the MCP server “github” \(http` +
        String.raw`:\/\/127\.0\.0\.1:\d+\/elsewhere\), which was set up after the list was saved`,
    ),
  );
  await w.manager.closeAll();
});

test("an older version's flat name mcp_github_create_issue in an agent file: \
migrated to the one server saved before bindings that can have made it; reported when two can, when none can, \
and when the server was set up since", async () => {
  const legacy = 'mcp_github_create_issue';
  const oldFile = async (/** @type {ReturnType<typeof workspace>} */ w) =>
    new AgentStore({ fs: w.agents.fs, globalFs: w.agents.globalFs }).save({ name: 'triage', tools: [legacy] }, 'workspace');

  // One server can have made it: its tool, under today's name, and the call reaches it.
  const one = workspace({ older: [{ id: 'old0gh', name: 'github', path: '/github' }] });
  await oldFile(one);
  await one.manager.connect('old0gh');
  let turn = await one.agentTurn('triage');
  assert.deepEqual(turn.leftOut, []);
  assert.deepEqual(turn.offered, [NAME]);
  scripted.calls.length = 0;
  await turn.runner.run({ id: 'c', name: NAME, arguments: {} });
  assert.deepEqual(reached(), ['/github']);
  // Saved again: bound; the server removed and another added, it is told and not offered.
  await one.agents.save({ name: 'triage', tools: [legacy] }, 'workspace');
  await one.manager.remove('old0gh');
  await one.connect('github', '/elsewhere');
  turn = await one.agentTurn('triage');
  assert.deepEqual(turn.offered, []);
  assert.match(
    turn.leftOut[0] ?? '',
    /@triage: mcp_github_create_issue is left out — it was chosen for an MCP server that is no longer set up/,
  );
  await one.manager.closeAll();

  // Two servers can have made it ("github" create_issue, "github-create" issue): neither is offered; told, naming both.
  const two = workspace({
    older: [
      { id: 'old0gh', name: 'github', path: '/github' },
      { id: 'old0gc', name: 'github-create', path: '/github-create' },
    ],
  });
  await oldFile(two);
  await two.manager.connect('old0gh');
  await two.manager.connect('old0gc');
  turn = await two.agentTurn('triage');
  assert.deepEqual(turn.offered, []);
  assert.match(
    turn.leftOut[0] ?? '',
    new RegExp(
      String.raw`@triage: mcp_github_create_issue is left out — a tool name of an older version of Clawser that more` +
        String.raw` than one MCP server set up now can have made \(“github”, “github-create”\)`,
    ),
  );
  await two.manager.closeAll();

  // No server can have made it.
  const none = workspace();
  await oldFile(none);
  turn = await none.agentTurn('triage');
  assert.match(
    turn.leftOut[0] ?? '',
    new RegExp(
      String.raw`@triage: mcp_github_create_issue is left out — a tool name of an older version o` +
        String.raw`f Clawser, and no MCP server set up now can have made it`,
    ),
  );

  // The only server that can have made it was set up after the file was written.
  const since = workspace();
  await oldFile(since);
  await since.connect('github', '/github');
  turn = await since.agentTurn('triage');
  assert.deepEqual(turn.offered, []);
  assert.match(turn.leftOut[0] ?? '', /saved before the MCP server “github” \(http:\/\/127\.0\.0\.1:\d+\/github\) was set up/);
  await since.manager.closeAll();
});

test("an agent's subset pins each name to the tool it named when made: the server replaced mid-turn, its tool is gone from the subset \
(control: the same server reconnected stays)", async () => {
  const w = workspace();
  const github = await w.connect('github', '/github');
  const subset = new ToolSubset(w.registry, [NAME, 'fs_read']);
  await w.manager.disconnect(github.id);
  await w.manager.connect(github.id);
  assert.ok(subset.get(NAME), "control: the same server's tool");
  await w.manager.remove(github.id);
  await w.connect('github', '/elsewhere');
  assert.equal(subset.get(NAME), undefined);
  assert.deepEqual(
    subset.list().map((t) => t.name),
    ['fs_read'],
  );
  assert.equal(subset.policyOf(NAME), 'denied');
  scripted.calls.length = 0;
  const r = await w.runner(subset).run({ id: 'x', name: NAME, arguments: {} });
  assert.equal(r.ok, false);
  assert.deepEqual(reached(), []);
  await w.manager.closeAll();
});

test("a bound (a skill script's allowed-tools) admits an MCP tool only with the identity it was made with: \
another server's tool of the same name is refused (control: the same server's runs)", async () => {
  const w = workspace();
  const github = await w.connect('github', '/github');
  const key = /** @type {string} */ (w.registry.get(NAME)?.policyKey);
  const runner = w.runner(w.registry);
  scripted.calls.length = 0;
  assert.equal((await runner.run({ id: 'a', name: NAME, arguments: {} }, { only: [NAME, key] })).ok, true, 'control');
  assert.deepEqual(reached(), ['/github']);
  const nameOnly = await runner.run({ id: 'b', name: NAME, arguments: {} }, { only: [NAME] });
  assert.equal(nameOnly.blocked?.kind, 'denied', 'a name alone does not admit an MCP tool');
  assert.match(nameOnly.output, /is not among the tools this script may use \(mcp__github__create_issue\)/);
  await w.manager.remove(github.id);
  await w.connect('github', '/elsewhere');
  scripted.calls.length = 0;
  const other = await runner.run({ id: 'c', name: NAME, arguments: {} }, { only: [NAME, key] });
  assert.equal(other.blocked?.kind, 'denied');
  assert.deepEqual(reached(), []);
  await w.manager.closeAll();
});

test("a skill's allowed-tools name mcp__github__create_issue: bound when installed; the server replaced, \
its shell script's call is refused and the result says the tool was left out (control: the same server is reached)", async () => {
  const sh = await shellWorkspace({ level: 'full' });
  const w = workspace({ config: sh.config, registry: sh.registry });
  await w.connect('github', '/github');
  const skills = new SkillStore({
    globalFs: new MemoryFileSystem(),
    workspaceFs: new MemoryFileSystem(),
    config: sh.config,
    workspaceId: 'ws',
    toolLists: { bind: async (o, n) => w.manager.bindToolList(o, n), forget: async (o) => w.manager.forgetToolList(o) },
  });
  await skills.install(
    'filer',
    new Map(
      Object.entries({
        'SKILL.md': `---\nname: filer\ndescription: Files issues.\nallowed-tools: ${NAME}\n---\n# Steps\n`,
        'scripts/file.sh': `clawser tool call ${NAME} '{"text":"x"}'`,
      }),
    ),
  );
  for (const name of ['skill_run_script', NAME]) sh.registry.setPolicy(name, 'auto');
  /** @param {import('../../web/agent/runtime/tool-runner.js').ToolRunner} r */
  const run = (r) => {
    Object.assign(r.context, { skills, mcp: w.manager });
    return r.run({ id: 's', name: 'skill_run_script', arguments: { name: 'filer', script: 'file.sh' } });
  };
  scripted.calls.length = 0;
  const ok = await run(sh.runner());
  assert.match(ok.output, /exit code: 0/, ok.output);
  assert.deepEqual(reached(), ['/github'], 'control');

  const github = w.manager.servers()[0];
  await w.manager.remove(github.id);
  await w.connect('github', '/elsewhere');
  sh.registry.setPolicy(NAME, 'auto');
  scripted.calls.length = 0;
  const out = await run(sh.runner());
  assert.deepEqual(reached(), [], 'the new server was not reached');
  assert.match(
    out.output,
    /^The skill “filer”: mcp__github__create_issue is left out — it was chosen for an MCP server that is no longer set up/,
  );
  assert.match(out.output, /mcp__github__create_issue is not among the tools this script may use/);
  await w.manager.closeAll();
});

test('a scheduled job calling mcp__github__create_issue is bound when scheduled: the server replaced, \
the run does not call the new one and says why, naming the job and the tool (control: the same server is called)', async () => {
  const w = workspace();
  await w.connect('github', '/github');
  const scheduler = new Scheduler({
    fs: new MemoryFileSystem(),
    execute: async () => ({ ok: true, summary: '' }),
    bindTool: async (name) => w.manager.bindingsOf([name]).bound[name],
  });
  // A key given with the action is never taken: the binding is made when it is scheduled.
  const job = await scheduler.add({
    name: 'file daily',
    when: 'every day at 9am',
    action: { kind: 'tool', tool: NAME, args: {}, key: 'mcp:zzzz:00000000:create_issue' },
  });
  assert.equal(job.action.kind === 'tool' && job.action.key, w.registry.get(NAME)?.policyKey);
  const controller = /** @type {any} */ ({ record: async () => 'c-job' });
  const run = { scheduledFor: 1, missed: 0, manual: true };
  const tools = async () => w.runner(w.registry);
  scripted.calls.length = 0;
  const ok = await runJob({ job: JobSchema.parse(job), run, controller, tools });
  assert.equal(ok.ok, true, ok.summary);
  assert.deepEqual(reached(), ['/github'], 'control');

  await w.manager.remove(w.manager.servers()[0].id);
  await w.connect('github', '/elsewhere');
  scripted.calls.length = 0;
  const refused = await runJob({ job: JobSchema.parse(job), run, controller, tools });
  assert.equal(refused.ok, false);
  assert.match(
    refused.summary,
    new RegExp(
      String.raw`^The job “file daily”: mcp__github__create_issue is left out — it was chosen for` +
        String.raw` an MCP server that is no longer set up.*It did not run`,
    ),
  );
  assert.deepEqual(reached(), []);
  await w.manager.closeAll();
});

test('the Terminal names a stored choice by its server and tool whether or not it is connected: \
clawser tool choices and tool rules show "github/create_issue" and what it is (never the raw key), \
and tool policy / unrule remove it by that name; control: a connected tool is named and changed as before', async () => {
  const { terminalActions } = await import('../../web/app/terminal-actions.js');
  const w = workspace();
  const github = await w.connect('github', '/github');
  const services = /** @type {any} */ ({ registry: w.registry, mcp: async () => w.manager }); // any: the two services these actions use
  const act = terminalActions({
    workspaceId: 'ws',
    services,
    agentSettings: /** @type {any} */ ({}),
    chat: /** @type {any} */ (() => ({})),
  }).act;
  assert.ok(act);
  const key = /** @type {string} */ (w.registry.get(NAME)?.policyKey);

  // Control: connected, by its name.
  assert.equal(await act('tool', 'policy', [NAME, 'auto']), `${NAME}: auto.`);
  w.registry.addRule({ tool: NAME, kind: 'domain', pattern: 'example.com' });
  assert.match(await act('tool', 'choices', []), new RegExp(`^${NAME}\\tauto$`, 'm'));
  assert.match(await act('tool', 'rules', []), new RegExp(`^${NAME}\\tdomain\\texample\\.com$`, 'm'));

  await w.manager.disconnect(github.id);
  const choices = await act('tool', 'choices', []);
  assert.match(
    choices,
    /^github\/create_issue\tauto\tcreate_issue \(MCP server “github”, http:\/\/127\.0\.0\.1:\d+\/github, not connected\)$/m,
  );
  const rules = await act('tool', 'rules', []);
  assert.match(
    rules,
    /^github\/create_issue\tdomain\texample\.com\tcreate_issue \(MCP server “github”, http:\/\/127\.0\.0\.1:\d+\/github, not connected\)$/m,
  );
  assert.doesNotMatch(`${choices}\n${rules}`, /mcp:/, 'no raw key');
  // Its model name names nothing while it is not connected; <server>/<tool> does.
  await assert.rejects(act('tool', 'policy', [NAME, 'default']), /there is no tool "mcp__github__create_issue".*<server>\/<tool>/);
  assert.equal(await act('tool', 'unrule', ['github/create_issue', 'domain', 'example.com']), 'Rule removed.');
  assert.equal(await act('tool', 'policy', ['github/create_issue', 'default']), 'github/create_issue: default.');
  assert.equal(w.registry.overrides()[key], undefined, 'the "Always allow" is gone');
  assert.deepEqual(w.registry.rules(), []);
  assert.equal(await act('tool', 'choices', []), '(no choices: every tool follows its default)');
  await assert.rejects(act('tool', 'policy', ['gitlab/create_issue', 'default']), /there is no tool "gitlab\/create_issue"/);

  // Connected again: its tool follows the default.
  await w.manager.connect(github.id);
  assert.equal(w.registry.userPolicyOf(NAME), null);
  await w.manager.closeAll();
});
