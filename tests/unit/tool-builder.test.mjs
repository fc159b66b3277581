// The tool builder (issue 39 §2), its pure parts and its store in Node: definitions checked with
// zod (the parameters' JSON Schema too), names that cannot take or shadow a built-in or an MCP
// tool, arguments checked against the definition, versions kept in the tool's workspace skill,
// identity bound to the approved definition, removal, and tool_define under the taint rule. The
// sandbox here is a stand-in; tests/browser/tool-builder.test.mjs runs the real one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  parseSpec,
  nameProblem,
  argumentsSchema,
  specDigest,
  policyKeyOf,
  skillFiles,
  readSkillVersions,
  skillNameOf,
  nextVersion,
  permissionOf,
} from '../../web/tools/builder/spec.js';
import { BuiltToolStore } from '../../web/tools/builder/store.js';
import { capabilitiesFor } from '../../web/tools/builder/sandboxed.js';
import { validateSkill } from '../../web/skills/format.js';
import { SkillStore } from '../../web/skills/store.js';
import { skillsPrompt } from '../../web/tools/skills.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { ScopedFileSystem } from '../../web/storage/scoped-fs.js';
import { LocalConfig } from '../../web/storage/local-config.js';
import { createBuiltinRegistry, toolSettings } from '../../web/tools/index.js';
import { ToolRunner } from '../../web/agent/runtime/tool-runner.js';
import { AutonomyController } from '../../web/agent/runtime/autonomy.js';
import { memoryStorage } from '../fixtures/stand-ins.mjs';
import { fakeSandbox } from '../fixtures/fake-sandbox.mjs';

const ADD = {
  name: 'add_numbers',
  description: 'Adds two numbers.',
  parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  code: 'return args.a + args.b;',
};

/** @param {unknown} input */
const problemOf = (input) => {
  const r = parseSpec(input);
  return r.ok ? null : r.error;
};

test('a definition is checked with zod: defaults filled in, the JSON Schema of its parameters checked too', () => {
  const r = parseSpec({ name: 'hello', description: 'Says hello.', code: 'return "hi"' });
  assert.ok(r.ok);
  assert.deepEqual(r.spec.parameters, { type: 'object', properties: {} });
  assert.deepEqual(r.spec.capabilities, { fetch: [], readFiles: false, writeFiles: false });
  assert.equal(r.spec.timeoutSeconds, 30);
  assert.ok(parseSpec(ADD).ok, 'control: a valid definition passes');
  // An unknown JSON Schema keyword, a required name that is no property, a type that is none: refused.
  assert.match(String(problemOf({ ...ADD, parameters: { type: 'object', properties: { a: { type: 'number', format: 'x' } } } })), /format/);
  assert.match(String(problemOf({ ...ADD, parameters: { type: 'object', properties: {}, required: ['a'] } })), /"a" is required/);
  assert.match(String(problemOf({ ...ADD, parameters: { type: 'object', properties: { a: { type: 'date' } } } })), /parameters/);
  assert.match(String(problemOf({ ...ADD, parameters: { type: 'string' } })), /parameters/);
  // Nesting deeper than five levels.
  /** @type {any} */ let deep = { type: 'string' };
  for (let i = 0; i < 6; i++) deep = { type: 'object', properties: { x: deep } };
  assert.match(String(problemOf({ ...ADD, parameters: deep })), /nest more than 5/);
  // Hosts are host names, not addresses with a scheme; an unknown capability is refused.
  assert.match(String(problemOf({ ...ADD, capabilities: { fetch: ['https://api.example.com/'] } })), /capabilities\.fetch/);
  assert.ok(parseSpec({ ...ADD, capabilities: { fetch: ['API.example.com', '*.example.org'] } }).ok);
  assert.match(String(problemOf({ ...ADD, capabilities: { storage: true } })), /capabilities/);
  assert.match(String(problemOf({ ...ADD, code: '' })), /code/);
  assert.match(String(problemOf({ ...ADD, timeoutSeconds: 301 })), /timeoutSeconds/);
});

test('names: a lowercase identifier, never a built-in or MCP tool, never shaped like an MCP tool', () => {
  const registry = createBuiltinRegistry();
  /** @param {string} n */
  const holder = (n) => (registry.get(n) ? 'builtin' : n === 'taken_by_mcp' ? 'mcp' : n === 'mine' ? 'built' : null);
  assert.equal(nameProblem('word_count', holder), null, 'control: a free name');
  assert.equal(nameProblem('mine', holder), null, 'a built tool of its own (a new version)');
  assert.match(String(nameProblem('fs_read', holder)), /built-in tool/);
  assert.match(String(nameProblem('shell', holder)), /built-in tool/);
  assert.match(String(nameProblem('taken_by_mcp', holder)), /MCP server's tool/);
  for (const bad of ['mcp__srv__x', 'a__b', 'ends_', 'Word', '1st', 'a-b', 'x'.repeat(65), ''])
    assert.notEqual(nameProblem(bad, holder), null, bad);
  assert.match(String(nameProblem('mcpish', holder)), /MCP/);
  assert.equal(skillNameOf('word_count'), 'tool-word-count');
});

test('arguments are checked against the definition: required, types, enums, integers, closed objects', () => {
  const s = argumentsSchema({
    type: 'object',
    properties: {
      text: { type: 'string', maxLength: 5 },
      mode: { type: 'string', enum: ['a', 'b'] },
      n: { type: 'integer', minimum: 1 },
      tags: { type: 'array', items: { type: 'string' }, maxItems: 2 },
    },
    required: ['text'],
    additionalProperties: false,
  });
  assert.ok(s.safeParse({ text: 'hi' }).success, 'control');
  assert.ok(s.safeParse({ text: 'hi', mode: 'a', n: 2, tags: ['x'] }).success);
  assert.equal(s.safeParse({}).success, false);
  assert.equal(s.safeParse({ text: 'toolong' }).success, false);
  assert.equal(s.safeParse({ text: 'hi', mode: 'c' }).success, false);
  assert.equal(s.safeParse({ text: 'hi', n: 1.5 }).success, false);
  assert.equal(s.safeParse({ text: 'hi', tags: ['a', 'b', 'c'] }).success, false);
  assert.equal(s.safeParse({ text: 'hi', other: 1 }).success, false);
});

test('identity: the digest does not depend on key order, and each definition has its own key', async () => {
  const a = /** @type {any} */ (parseSpec(ADD)).spec;
  const b = /** @type {any} */ (parseSpec({ code: ADD.code, parameters: ADD.parameters, description: ADD.description, name: ADD.name }))
    .spec;
  assert.equal(await specDigest(a), await specDigest(b));
  const c = /** @type {any} */ (parseSpec({ ...ADD, code: 'return args.a - args.b;' })).spec;
  assert.notEqual(await specDigest(a), await specDigest(c));
  assert.notEqual(policyKeyOf('add_numbers', await specDigest(a)), policyKeyOf('add_numbers', await specDigest(c)));
  assert.match(policyKeyOf('add_numbers', await specDigest(a)), /^built:add_numbers:[0-9a-f]{16}$/);
  assert.equal(permissionOf({ fetch: [], readFiles: true, writeFiles: false }), 'read');
  assert.equal(permissionOf({ fetch: ['a.example'], readFiles: false, writeFiles: false }), 'network');
  assert.equal(permissionOf({ fetch: ['a.example'], readFiles: false, writeFiles: true }), 'write');
});

test('versions: a valid Agent Skill holds the current definition and every version, read back in order', () => {
  const spec = /** @type {any} */ (parseSpec(ADD)).spec;
  const v1 = { version: 1, createdAt: 1, by: /** @type {const} */ ('agent'), spec };
  const v2 = { version: 2, createdAt: 2, by: /** @type {const} */ ('user'), spec: { ...spec, code: 'return 0;' } };
  const files = skillFiles(v2, [v1]);
  const v = validateSkill(skillNameOf(spec.name), files);
  assert.ok(v.ok, JSON.stringify(v.errors));
  assert.equal(v.skill?.metadata['clawser-tool'], 'add_numbers');
  assert.equal(v.skill?.allowedToolsGiven, true);
  assert.deepEqual(v.skill?.allowedTools, []);
  const read = readSkillVersions(new Map(files));
  assert.equal(read.current?.version, 2);
  assert.deepEqual(
    read.versions.map((x) => x.version),
    [1, 2],
  );
  assert.equal(read.versions[0].spec.code, ADD.code);
  assert.equal(nextVersion(read.versions, read.current), 3);
  // A damaged version file is left out with a problem; the others stay.
  const damaged = new Map(files);
  damaged.set('versions/1.json', '{not json');
  const r2 = readSkillVersions(damaged);
  assert.deepEqual(
    r2.versions.map((x) => x.version),
    [2],
  );
  assert.match(r2.problems[0], /versions\/1\.json/);
  // A built tool's skill is not offered as instructions in the system prompt.
  assert.equal(skillsPrompt([/** @type {any} */ (v.skill)]), '');
});

/** A workspace: its skills, registry and built tools (a stand-in sandbox). */
function workspace() {
  const fs = new MemoryFileSystem();
  const config = new LocalConfig(memoryStorage());
  const skills = new SkillStore({
    globalFs: new ScopedFileSystem(fs, 'clawser_skills'),
    workspaceFs: new ScopedFileSystem(fs, 'clawser_workspaces/ws'),
    config,
    workspaceId: 'ws',
  });
  const registry = createBuiltinRegistry({ config, workspaceId: 'ws' });
  /** @type {Record<string, unknown>[]} */
  const sandboxes = [];
  const built = new BuiltToolStore({
    registry,
    skills: async () => skills,
    config,
    workspaceId: 'ws',
    createSandbox: async (o) => {
      const sb = fakeSandbox();
      sb.capabilities = o.capabilities;
      sandboxes.push(o.capabilities);
      return { evaluate: (code) => sb.evaluate(code), dispose: () => {} };
    },
  });
  return { skills, registry, built, config, sandboxes };
}

test('the store: define registers it, a new version replaces it (earlier kept, choices not carried), restore, remove', async () => {
  const { skills, registry, built, sandboxes } = workspace();
  const r = await built.define(ADD, 'agent');
  assert.deepEqual(r, { name: 'add_numbers', version: 1, created: true });
  const tool = registry.get('add_numbers');
  assert.ok(tool);
  assert.equal(tool.permission, 'read');
  assert.match(String(tool.policyKey), /^built:add_numbers:/);
  assert.deepEqual(registry.validate('add_numbers', { a: 1 }).ok, false);
  const ran = await tool.run({ a: 2, b: 3 }, /** @type {any} */ ({ settings: toolSettings(), fetch }));
  assert.deepEqual(ran, { ok: true, output: '5' });
  assert.deepEqual(Object.keys(sandboxes[0]), [], 'no capability declared, none given');
  assert.equal((await skills.get('tool-add-numbers'))?.scope, 'workspace');
  // The user always allows version 1; version 2 is another definition: its choice starts from the default.
  registry.setPolicy('add_numbers', 'auto');
  assert.equal(registry.userPolicyOf('add_numbers'), 'auto');
  const again = await built.define({ ...ADD, code: 'return args.a * args.b;' }, 'agent');
  assert.equal(again.version, 2);
  assert.equal(registry.userPolicyOf('add_numbers'), null);
  assert.equal((await registry.get('add_numbers')?.run({ a: 2, b: 3 }, /** @type {any} */ ({})))?.output, '6');
  // The same definition again is no new version.
  assert.deepEqual(await built.define({ ...ADD, code: 'return args.a * args.b;' }, 'agent'), {
    name: 'add_numbers',
    version: 2,
    created: false,
  });
  assert.deepEqual(
    (await built.versions('add_numbers')).map((v) => [v.version, v.by]),
    [
      [1, 'agent'],
      [2, 'agent'],
    ],
  );
  // An earlier version is reachable: restored, it is version 3 with version 1's code.
  assert.equal((await built.restore('add_numbers', 1)).version, 3);
  assert.equal((await registry.get('add_numbers')?.run({ a: 2, b: 3 }, /** @type {any} */ ({})))?.output, '5');
  // Removal: unregistered, its skill gone, its choices forgotten.
  registry.setPolicy('add_numbers', 'auto');
  await built.remove('add_numbers');
  assert.equal(registry.get('add_numbers'), undefined);
  assert.equal(await skills.get('tool-add-numbers'), null);
  assert.deepEqual(
    Object.keys(registry.overrides()).filter((k) => k.startsWith('built:')),
    [],
  );
  assert.deepEqual(built.entries(), []);
});

test('the store: a built-in name is refused; a definition not approved here (an import, a change on disk) waits for approval', async () => {
  const { skills, registry, built } = workspace();
  await assert.rejects(built.define({ ...ADD, name: 'fs_read' }, 'agent'), { name: 'ToolDefinitionError', code: 'name_taken' });
  await assert.rejects(built.define({ ...ADD, name: 'web_fetch' }, 'user'), /built-in tool/);
  assert.equal(registry.get('fs_read')?.policyKey, undefined, 'the built-in is untouched');
  await assert.rejects(built.define({ ...ADD, parameters: { type: 'object', properties: { a: { type: 'nope' } } } }, 'agent'), {
    code: 'invalid',
  });
  // A skill with a tool in it, installed as a skill (from a ZIP, say): listed, not registered, until approved.
  const spec = /** @type {any} */ (parseSpec({ ...ADD, name: 'shared_tool' })).spec;
  await skills.install('tool-shared-tool', skillFiles({ version: 1, createdAt: 1, by: 'user', spec }, []), {
    scope: 'workspace',
    origin: 'installed from the ZIP file “shared.zip”',
  });
  let entry = (await built.sync()).find((e) => e.name === 'shared_tool');
  assert.equal(entry?.state, 'pending');
  assert.equal(registry.get('shared_tool'), undefined);
  await built.approve('shared_tool');
  entry = built.entries().find((e) => e.name === 'shared_tool');
  assert.equal(entry?.state, 'registered');
  assert.ok(registry.get('shared_tool'));
  // Its definition changed on disk: it leaves the registry until approved again.
  const changed = { version: 2, createdAt: 2, by: /** @type {const} */ ('user'), spec: { ...spec, code: 'return 42;' } };
  await skills.install('tool-shared-tool', skillFiles(changed, [{ version: 1, createdAt: 1, by: 'user', spec }]), { scope: 'workspace' });
  await built.sync();
  assert.equal(registry.get('shared_tool'), undefined);
  assert.equal(built.entries().find((e) => e.name === 'shared_tool')?.state, 'pending');
  // Its skill turned off: not registered either.
  await built.approve('shared_tool');
  assert.ok(registry.get('shared_tool'));
  skills.setEnabled('tool-shared-tool', false);
  await built.sync();
  assert.equal(registry.get('shared_tool'), undefined);
  assert.equal(built.entries().find((e) => e.name === 'shared_tool')?.state, 'off');
});

test('capabilities: only the declared ones are given; fetch reaches only the listed hosts; files go through the gated tools', async () => {
  /** @type {string[]} */
  const fetched = [];
  /** @type {[string, Record<string, unknown>, {only?: string[]} | undefined][]} */
  const calls = [];
  /** @type {string[]} */
  const tainted = [];
  const ctx = /** @type {any} */ ({
    settings: toolSettings(),
    fetch: async (/** @type {string} */ url) => {
      fetched.push(url);
      return new Response('pong', { status: 200 });
    },
    callTool: async (/** @type {string} */ name, /** @type {any} */ args, /** @type {any} */ _signal, /** @type {any} */ o) => {
      calls.push([name, args, o]);
      return { ok: true, output: 'file text' };
    },
    taint: (/** @type {string} */ what) => tainted.push(what),
  });
  const base = /** @type {any} */ (parseSpec(ADD)).spec;
  assert.deepEqual(Object.keys(capabilitiesFor(base, ctx, { fetched: [] })), []);
  const net = capabilitiesFor({ ...base, capabilities: { fetch: ['api.example.com'], readFiles: false, writeFiles: false } }, ctx, {
    fetched: [],
  });
  assert.deepEqual(Object.keys(net), ['fetch']);
  const ok = /** @type {any} */ (await net.fetch({ url: 'https://api.example.com/ping' }));
  assert.equal(ok.body, 'pong');
  assert.deepEqual(fetched, ['https://api.example.com/ping']);
  assert.equal(tainted.length, 1, 'a response is outside content');
  await assert.rejects(Promise.resolve(net.fetch({ url: 'https://evil.example/x' })), /allowlist/);
  await assert.rejects(Promise.resolve(net.fetch({ url: 'http://127.0.0.1/x' })), /private/);
  assert.equal(fetched.length, 1, 'the refused hosts were not contacted');
  const files = capabilitiesFor({ ...base, capabilities: { fetch: [], readFiles: true, writeFiles: true } }, ctx, { fetched: [] });
  assert.deepEqual(Object.keys(files).sort(), ['listFiles', 'readFile', 'writeFile']);
  assert.equal(await files.readFile({ path: 'a.md' }), 'file text');
  await files.writeFile({ path: 'b.md', content: 'x' });
  assert.deepEqual(calls, [
    ['fs_read', { path: 'a.md' }, { only: ['fs_read'] }],
    ['fs_write', { path: 'b.md', content: 'x' }, { only: ['fs_write'] }],
  ]);
});

test('tool_define is standing: always allowed at full autonomy it runs without asking; after untrusted content it asks', async () => {
  const { registry, built } = workspace();
  registry.setPolicy('tool_define', 'auto');
  /** @type {import('../../web/agent/runtime/tool-runner.js').ApprovalRequest[]} */
  const asked = [];
  const runner = () =>
    new ToolRunner({
      registry,
      context: /** @type {any} */ ({ workspaceId: 'ws', settings: toolSettings(), builtTools: built, fetch }),
      autonomy: new AutonomyController({ config: { level: 'full' } }),
      approve: async (req) => {
        asked.push(req);
        return 'deny';
      },
    });
  // Control: a clean turn.
  const clean = await runner().run({ id: 'd1', name: 'tool_define', arguments: ADD });
  assert.equal(clean.ok, true, clean.output);
  assert.equal(asked.length, 0);
  assert.ok(registry.get('add_numbers'));
  // The same call after a web page was read: the user is asked, with no "Always allow", and the denial holds.
  const tainted = runner();
  tainted.addTaint({ tool: 'web_fetch', what: 'a web page', detail: 'https://example.com/' });
  const later = await tainted.run({ id: 'd2', name: 'tool_define', arguments: { ...ADD, name: 'other_tool' } });
  assert.equal(later.ok, false);
  assert.equal(asked.length, 1);
  assert.equal(asked[0].allowAlways, false);
  assert.match(String(asked[0].preview), /Register the tool other_tool[\s\S]*It may reach: nothing outside its sandbox/);
  assert.match(String(asked[0].preview), /Its code:\nreturn args\.a \+ args\.b;/);
  assert.equal(registry.get('other_tool'), undefined);
  // A built-in's name is refused before anyone is asked to approve it.
  const taken = await runner().run({ id: 'd3', name: 'tool_define', arguments: { ...ADD, name: 'fs_write' } });
  assert.equal(taken.ok, false);
  assert.match(taken.output, /built-in tool/);
});
