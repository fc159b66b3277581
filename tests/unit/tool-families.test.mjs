// Issue 33 §1: tool families are an open registry. A family is one module of web/tools/ exporting
// `family` (its tools and the `clawser` verbs bound to them) and one entry in
// web/tools/families.js; the registry's tools, the `clawser` command's verbs, help and usage errors
// and the shell's read-only `clawser` verbs all derive from what the families declare.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { z } from 'zod';
import { WEB, webModules } from '../fixtures/web-modules.mjs';
import { MUST_DECLARE, TOOL_FAMILIES, familyProblems, onlyReads, readOnlyTools } from '../../web/tools/families.js';
import { builtinTools } from '../../web/tools/index.js';
import { BrowserToolRegistry } from '../../web/tools/registry.js';
import { clawserCli, clawserCommand, CLAWSER_SUBCOMMANDS } from '../../web/shell/commands/clawser.js';
import { READ_ONLY_COMMANDS, readOnlyVerdict } from '../../web/shell/read-only.js';
import { createShell } from '../../web/shell/shell.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { shellWorkspace } from '../fixtures/shell-workspace.mjs';

/**
 * The `clawser` verbs a read-only line may run: the set before the families declared them. It
 * grows only on purpose, here (CONTRIBUTING.md), never because a family says so.
 */
const READ_ONLY_VERBS = ['memory list', 'memory recall', 'goal list', 'job list', 'skill list', 'mcp list', 'tool list'];
/** The tools a read-only line's `clawser` may call: the set before (web/tools/shell.js's list); it grows only here. */
const READ_ONLY_TOOLS = [
  'memory_recall',
  'goal_list',
  'schedule_list',
  'fs_read',
  'fs_list',
  'git_status',
  'git_log',
  'git_diff',
  'skill_read_file',
  'storage_get',
  'storage_list',
];

/** A complete family, as a new web/tools/notes.js would export it. */
function notesFamily() {
  return {
    id: 'notes',
    tools: [
      {
        name: 'notes_list',
        description: 'List the notes.',
        permission: /** @type {const} */ ('read'),
        readOnly: true,
        schema: z.object({ tag: z.string().optional() }),
        run: async () => ({ ok: true, output: 'no notes' }),
      },
      {
        name: 'notes_add',
        description: 'Add a note.',
        permission: /** @type {const} */ ('write'),
        schema: z.object({ title: z.string().min(1), text: z.string() }),
        run: async () => ({ ok: true, output: 'added' }),
      },
    ],
    cli: [
      { verb: 'note list', tool: 'notes_list', options: { tag: ['--tag', '-t'] }, usage: '[--tag t]' },
      { verb: 'note add', tool: 'notes_add', args: ['title', 'text...'], usage: '<title> <text>' },
    ],
  };
}

/** Whether a problem says that `field` is missing. @param {string} problem @param {string} field */
const declaresNo = (problem, field) => new RegExp(`declares no ${field}\\b`).test(problem);

/** @param {string} line @param {Record<string, unknown>} [host] */
async function runClawser(line, host = {}) {
  /** @type {[string, Record<string, unknown>][]} */
  const calls = [];
  /** @type {import('../../web/shell/commands/clawser.js').ClawserHost['callTool']} */
  const callTool = async (name, args) => {
    calls.push([name, args]);
    return { ok: true, output: `${name} done` };
  };
  const shell = createShell({ fs: new MemoryFileSystem(), commands: [clawserCommand({ callTool, tools: () => [], ...host })] });
  return { ...(await shell.run(line)), calls };
}

/**
 * A new family spoilt by `spoil`: any, because a spoilt family is on purpose not a ToolFamily.
 * @param {(family: any) => void} spoil @returns {any}
 */
function spoilt(spoil) {
  const family = notesFamily();
  spoil(family);
  return family;
}

test(
  'a registry entry must declare its parts: familyProblems names each one missing ' +
    '(control: every built-in family and a complete new one have none)',
  () => {
    assert.deepEqual(TOOL_FAMILIES.flatMap(familyProblems), [], 'the built-in families are complete');
    assert.deepEqual(familyProblems(notesFamily()), [], 'a complete new family');
    for (const field of MUST_DECLARE.family) {
      assert.ok(
        familyProblems(spoilt((f) => delete f[field])).some((p) => declaresNo(p, field)),
        `a family without ${field}`,
      );
    }
    for (const field of MUST_DECLARE.tool) {
      assert.ok(
        familyProblems(spoilt((f) => delete f.tools[1][field])).some((p) => declaresNo(p, field)),
        `a tool without ${field}`,
      );
    }
    for (const field of MUST_DECLARE.verb) {
      assert.ok(
        familyProblems(spoilt((f) => delete f.cli[1][field])).some((p) => declaresNo(p, field)),
        `a verb without ${field}`,
      );
    }
    // Declared, but wrong: each is a problem too.
    /** @type {Record<string, (family: any) => void>} any: see spoilt */
    const wrong = {
      'an unknown permission': (f) => {
        f.tools[1].permission = 'admin';
      },
      'a tool that changes things declared read-only': (f) => {
        f.tools[1].readOnly = true;
      },
      'a verb bound to a tool of another family': (f) => {
        f.cli[1].tool = 'fs_write';
      },
      'a verb taking an argument its tool does not have': (f) => {
        f.cli[1].args = ['title', 'body...'];
      },
      'an option its tool does not have': (f) => {
        f.cli[0].options = { colour: ['--colour'] };
      },
      'a verb that is not "area action"': (f) => {
        f.cli[1].verb = 'note';
      },
      'a family id that is not a word': (f) => {
        f.id = 'My Notes';
      },
      'both tools and create': (f) => {
        f.create = () => [];
      },
    };
    for (const [what, spoil] of Object.entries(wrong)) assert.notDeepEqual(familyProblems(spoilt(spoil)), [], what);
  },
);

test(
  "the read-only `clawser` verbs derive from the tools' permission and are exactly the set before; " +
    "a verb of a write tool never is (control: a reading tool's verb is)",
  () => {
    assert.deepEqual(clawserCli().readOnly, READ_ONLY_VERBS);
    assert.deepEqual(
      READ_ONLY_COMMANDS.filter((c) => c.startsWith('clawser ')),
      READ_ONLY_VERBS.map((v) => `clawser ${v}`),
    );
    assert.deepEqual([...readOnlyTools()].sort(), [...READ_ONLY_TOOLS].sort());
    assert.deepEqual([...clawserCli().readOnlyTools].sort(), [...READ_ONLY_TOOLS].sort(), "what the agent's shell lets such a line call");
    // Every read-only verb bound to a tool is bound to one whose permission is "read".
    const tools = new Map(builtinTools().map((t) => [t.name, t]));
    for (const verb of clawserCli().verbs.filter((v) => v.readOnly && v.tool)) {
      assert.equal(tools.get(/** @type {string} */ (verb.tool))?.permission, 'read', verb.verb);
    }
    // A "read" tool that does more than read the workspace (it loads a skill into the turn) is not.
    assert.equal(tools.get('skill_activate')?.permission, 'read');
    assert.ok(!clawserCli().readOnly.includes('skill activate'));

    const notes = notesFamily();
    const cli = clawserCli([...TOOL_FAMILIES, notes]);
    assert.ok(cli.readOnly.includes('note list'), 'control: the verb of a tool that only reads');
    assert.ok(!cli.readOnly.includes('note add'), 'the verb of a write tool');
    // A write tool that claims to be read-only is refused, and its verb is not read-only either way.
    const claiming = spoilt((f) => {
      f.tools[1].readOnly = true;
    });
    assert.ok(familyProblems(claiming).some((p) => /notes_add.*read-only/.test(p)));
    assert.throws(() => clawserCli([...TOOL_FAMILIES, claiming]), /notes_add/);
    assert.throws(() => builtinTools([...TOOL_FAMILIES, claiming]), /notes_add/);
    assert.equal(onlyReads({ ...claiming.tools[1], readOnly: true }), false, 'were the check bypassed, the permission still decides');
    assert.equal(onlyReads(notesFamily().tools[0]), true, 'control');
    // A family may not take a verb of the command's own (a listing, a user-only action) or another family's.
    for (const verb of ['memory list', 'memory pin', 'tool policy', 'goal add']) {
      const taking = notesFamily();
      taking.cli[1].verb = verb;
      assert.throws(() => clawserCli([...TOOL_FAMILIES, taking]), new RegExp(verb), verb);
    }
    // The shell's verdict follows the same set: read-only verbs pass, the others do not.
    const shell = createShell({ fs: new MemoryFileSystem() });
    for (const verb of READ_ONLY_VERBS) assert.equal(readOnlyVerdict(shell.parse(`clawser ${verb} x`)).readOnly, true, verb);
    const others = ['skill activate', 'memory add', 'memory forget', 'goal add', 'goal done', 'job add', 'job remove', 'skill install'];
    for (const verb of [...others, 'tool call', 'config list', 'conversation list', 'memory pin']) {
      assert.equal(readOnlyVerdict(shell.parse(`clawser ${verb} x`)).readOnly, false, verb);
    }
  },
);

test("through the agent at read-only autonomy: a read-only verb runs unasked (control), a write tool's verb is refused", async () => {
  const w = await shellWorkspace({ level: 'readonly' });
  await w.memory.store({ key: 'colour', content: 'blue', source: 'user' });
  const { results } = await w.turn(['clawser memory recall colour', 'clawser memory forget colour']);
  assert.match(results[0], /^exit code: 0\nstdout:\n- \[\w+\] colour: blue/);
  assert.doesNotMatch(results[1], /^exit code: 0/);
  assert.deepEqual(w.asked, []);
  assert.equal((await w.memory.list()).length, 1, 'the memory is still there');
});

test(
  'a tool family added by one file and one line: its tools reach the registry, its verbs `clawser` ' +
    '(help, usage errors, calls), its reading verb the read-only set',
  async () => {
    const families = [...TOOL_FAMILIES, notesFamily()];
    const registry = new BrowserToolRegistry();
    for (const tool of builtinTools(families)) registry.register(tool);
    assert.ok(registry.get('notes_list') && registry.get('notes_add'));
    assert.equal(registry.policyOf('notes_add'), 'approve', 'its permission sets its default policy');
    const names = (/** @type {import('../../web/tools/types.d.ts').ToolDefinition[]} */ tools) => tools.map((t) => t.name);
    assert.deepEqual(names(builtinTools()), names(builtinTools(families)).slice(0, -2), 'the built-in tools come first, in their order');

    const help = await runClawser('clawser help', { families });
    assert.match(help.stdout, /^ {2}note list \[--tag t\] \| add <title> <text>$/m);
    const usage = await runClawser('clawser note add onlytitle', { families });
    assert.deepEqual([usage.exitCode, usage.stderr, usage.calls], [2, 'clawser note add <title> <text>\n', []]);
    const added = await runClawser('clawser note add Shopping eggs and milk', { families });
    assert.equal(added.stdout, 'notes_add done\n');
    assert.deepEqual(added.calls, [['notes_add', { title: 'Shopping', text: 'eggs and milk' }]]);
    const listed = await runClawser('clawser note list -t home', { families });
    assert.deepEqual(listed.calls, [['notes_list', { tag: 'home' }]]);
    assert.deepEqual(clawserCli(families).subcommands.note, ['list', 'add']);
    // Control: without the family, `clawser` has no such area.
    assert.equal((await runClawser('clawser note list')).exitCode, 2);
    assert.equal(CLAWSER_SUBCOMMANDS.note, undefined);
  },
);

test(
  'web/tools/families.js is the one list: every module of web/tools/ exporting a family is in it once, ' +
    'and nothing else lists families',
  async () => {
    const dir = join(WEB, 'tools');
    const exporting = [];
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.js'))) {
      const module = await import(join(dir, file));
      if ('family' in module) exporting.push({ file, family: module.family });
    }
    assert.ok(exporting.length >= 12, 'the family modules were found');
    assert.deepEqual(
      exporting.filter((e) => !TOOL_FAMILIES.includes(e.family)).map((e) => e.file),
      [],
      'each family module is listed',
    );
    assert.equal(new Set(TOOL_FAMILIES).size, TOOL_FAMILIES.length, 'each once');
    assert.equal(TOOL_FAMILIES.length, exporting.length, 'the list holds nothing else');
    // One line per family: an import of `family` from its module.
    const source = readFileSync(join(dir, 'families.js'), 'utf8');
    for (const { file } of exporting) {
      const line = new RegExp(`^import \\{ family as \\w+ \\} from '\\./${file.replace('.', '\\.')}';$`, 'gm');
      assert.equal(source.match(line)?.length, 1, file);
    }
    // No other module names the families' tool lists: the registry's tools come from TOOL_FAMILIES.
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.js') && f !== 'families.js')) {
      const source = readFileSync(join(dir, file), 'utf8');
      assert.doesNotMatch(source, /\.\.\.[A-Z]+_TOOLS\b/, `${file} spreads a family's tool list`);
    }
  },
);

test('docs/shell.md shows `clawser help` and the read-only `clawser` verbs as the metadata makes them', async () => {
  const docs = readFileSync(join(WEB, '../docs/shell.md'), 'utf8');
  const help = (await runClawser('clawser help')).stdout;
  const block = `\`\`\`text\n$ clawser help\n${help}\`\`\``;
  assert.ok(docs.includes(block), "docs/shell.md's help block is `clawser help` (copy it from the command)");
  const paragraph = docs.slice(docs.indexOf('The read-only list ('), docs.indexOf('## Approval rules'));
  const documented = [...paragraph.matchAll(/`clawser (\w+ \w+)`/g)].map((m) => m[1]);
  assert.deepEqual(documented, clawserCli().readOnly);
});

test('the tools that run code declare it (runsCode): shell, run_js, run_python, skill_run_script; a new one is held off by it', () => {
  const declared = Object.fromEntries(builtinTools().flatMap((t) => (t.runsCode ? [[t.name, t.runsCode]] : [])));
  assert.deepEqual(declared, { run_js: 'sandbox', run_python: 'sandbox', skill_run_script: 'sandbox', shell: 'bash' });
  assert.deepEqual(clawserCli().runsCode.toSorted(), ['run_js', 'run_python', 'shell', 'skill_run_script']);
  // A family's new code runner is refused by the shell's clawser because it says so, not by its name.
  const family = notesFamily();
  const runner = { ...family.tools[1], name: 'notes_run', runsCode: /** @type {const} */ ('sandbox') };
  const cli = clawserCli([...TOOL_FAMILIES, { ...family, tools: [...family.tools, runner] }]);
  assert.ok(cli.runsCode.includes('notes_run'));
  assert.ok(!cli.runsCode.includes('notes_add'), 'control: a tool that runs no code');
});

/**
 * Where a web module names a tool of another file: a string literal equal to a tool's name, in
 * code (not comments), outside the file declaring that tool. Each exception says why.
 * @type {Record<string, string[]>}
 */
const TOOL_NAME_ALLOWED = {
  // The Codex's code blocks are run_js / run_python calls: the wire of code a model writes (CODE_TOOL, PYTHON_TOOL).
  'agent/runtime/codex.js': ['run_js', 'run_python'],
  // The Terminal's `python` command is a run_python call (the user's Python through the tool's sandbox and gates).
  'shell/commands/python.js': ['run_python'],
  // A built tool's capabilities are these tools' calls, through their gates (readFiles, writeFiles).
  'tools/builder/sandboxed.js': ['fs_read', 'fs_list', 'fs_write'],
  // What a Python run wrote is saved as these tools' calls, through their gates.
  'tools/code.js': ['fs_write', 'fs_delete'],
  // Sub-agents: a child at the depth limit loses agent_delegate (its own logic, by the tool it runs).
  'agent/coordination/delegation.js': ['agent_delegate'],
  // A skill's script never delegates (a bound it keeps whatever its allowed-tools say).
  'tools/skills.js': ['agent_delegate', 'shell'],
  // The shell's commands are checked as the tools they stand for (git as git_*, files as fs_*, curl
  // as web_fetch, clawser's calls), for a skill script's bound and the read-only gate.
  'tools/shell.js': [
    'fs_read',
    'fs_list',
    'fs_write',
    'fs_delete',
    'git_status',
    'git_log',
    'git_diff',
    'git_commit',
    'git_branch',
    'git_checkout',
    'web_fetch',
    'memory_recall',
    'skill_activate',
  ],
  // 'shell' there is a script's language (a .sh file), not the tool.
  'skills/format.js': ['shell'],
  'ui/skills-panel.js': ['shell'],
  // Not yet declared: the chat draws a run_js call as code (the first view draws stored
  // transcripts before any tool is loaded, and calls recorded before carry no declaration).
  'ui/chat/message-items.js': ['run_js', 'run_python'],
};

test('no module names a tool declared in another file, but the exceptions listed with their reasons', () => {
  const names = builtinTools().map((t) => t.name);
  /** @type {Record<string, string[]>} */
  const found = {};
  for (const path of webModules()) {
    const source = readFileSync(path, 'utf8');
    const own = [...source.matchAll(/\bname: '([a-z][a-z0-9_]*)'/g)].map((m) => m[1]);
    const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
    for (const m of code.matchAll(/(['"`])([a-z][a-z0-9_]*)\1/g)) {
      if (names.includes(m[2]) && !own.includes(m[2])) (found[relative(WEB, path)] ??= []).push(m[2]);
    }
  }
  const unexpected = Object.entries(found).flatMap(([path, used]) =>
    [...new Set(used)].filter((n) => !(TOOL_NAME_ALLOWED[path] ?? []).includes(n)).map((n) => `${path}: ${n}`),
  );
  assert.deepEqual(unexpected, [], 'ask what the tool declares (permission, readOnly, runsCode…), not its name');
  // Every exception is still needed (one that is not is removed from the list).
  const stale = Object.entries(TOOL_NAME_ALLOWED).flatMap(([path, allowed]) =>
    allowed.filter((n) => !(found[path] ?? []).includes(n)).map((n) => `${path}: ${n}`),
  );
  assert.deepEqual(stale, []);
});
