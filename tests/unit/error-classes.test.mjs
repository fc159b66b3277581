// Errors are Error subclasses with a stable `code` (CONTRIBUTING.md): a plain Error with a code
// or a name stuck on afterwards is nothing a caller can test with `instanceof`, and no type says
// which codes it has. These are the places that did so, each now throwing its class with the same
// code (or name) and message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { WEB, webModules } from '../fixtures/web-modules.mjs';
import { ChatController, ChatError } from '../../web/app/chat-controller.js';
import { createGitFs, GitFsError } from '../../web/git/git-fs.js';
import { Codex, ToolCallError } from '../../web/agent/runtime/codex.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { EchoProvider } from '../../web/providers/echo.js';
import { fakeSandbox } from '../fixtures/fake-sandbox.mjs';

/** The lines of a source that make an Error and stick a code or name on it. @param {string} source */
export function patchedErrors(source) {
  return source.split('\n').flatMap((line, i) => (/Object\.assign\(\s*new\s+\w*Error\s*\(/.test(line) ? [`${i + 1}: ${line.trim()}`] : []));
}

/** Every app module (vendor excluded). */
const modules = webModules;

test('no module under web/ makes an Error and assigns it a code or name (vendor excluded)', () => {
  const files = modules();
  assert.ok(files.length > 100, 'the modules were found');
  const found = files.flatMap((path) => patchedErrors(readFileSync(path, 'utf8')).map((hit) => `${relative(WEB, path)}:${hit}`));
  assert.deepEqual(found, [], 'throw an Error subclass with a stable code instead');
  // Control: the pattern is found where it is.
  assert.deepEqual(patchedErrors("ok();\nthrow Object.assign(new Error('x'), { code: 'y' });"), [
    "2: throw Object.assign(new Error('x'), { code: 'y' });",
  ]);
  assert.equal(patchedErrors("throw Object.assign( new TypeError('x'), { name: 'Z' });").length, 1);
  assert.deepEqual(patchedErrors("throw new StorageError('busy', 'x');\nObject.assign(target, { code: 'y' });"), []);
});

/** A chat controller on a memory file system; `config` is what its settings answer for the provider. @param {unknown} config */
async function chat(config = { provider: 'echo', model: 'echo' }) {
  const settings = /** @type {any} */ ({ providerConfig: async () => config }); // any: only providerConfig is used
  const controller = new ChatController({
    fs: new MemoryFileSystem(),
    workspaceId: 'w',
    settings,
    providerFactory: () => new EchoProvider({ delayMs: 0 }),
    agents: async () => /** @type {any} */ ({ get: async () => null }),
  }); // any: an agent store that knows no agent
  await controller.init();
  return controller;
}

test('the chat controller refuses with ChatErrors: an import that is not a conversation (invalid), a fork at an event not in it \
(not_found)', async () => {
  const c = await chat();
  await assert.rejects(
    c.importConversation('notes.jsonl', 'not json'),
    (err) => err instanceof ChatError && err.code === 'invalid' && /^Not imported: /.test(err.message),
  );
  const meta = await c.newConversation();
  await c.send('hello');
  await assert.rejects(
    c.forkAt(meta.id, 'no-such-event'),
    (err) =>
      err instanceof ChatError &&
      err.code === 'not_found' &&
      err.message === 'That event is not in this conversation (it may have been deleted).',
  );
  // Control: the event that is there forks.
  const first = /** @type {{id: string}} */ (c.state.events[0]);
  assert.notEqual((await c.forkAt(meta.id, first.id)).id, meta.id);
});

test('a turn that cannot be asked fails with code client: no provider set up, or an @agent that does not exist', async () => {
  const none = await chat(null);
  await none.newConversation();
  await none.send('hello');
  assert.deepEqual(none.state.failure && { code: none.state.failure.code, message: none.state.failure.message }, {
    code: 'client',
    message: 'Choose a provider in Settings first.',
  });
  const c = await chat();
  await c.newConversation();
  await c.send('@nobody hello');
  assert.equal(c.state.failure?.code, 'client');
  assert.match(String(c.state.failure?.message), /^There is no agent named @nobody\. /);
  // Control: the same message to the workspace's agent is answered.
  await c.send('hello');
  assert.equal(c.state.failure, null);
});

test('the isomorphic-git adapter refuses with GitFsErrors carrying the Node codes isomorphic-git reads', async () => {
  const fs = new MemoryFileSystem();
  await fs.write('a.txt', 'x');
  const { promises } = createGitFs(fs);
  await assert.rejects(promises.readFile('/missing.txt', {}), (err) => err instanceof GitFsError && err.code === 'ENOENT');
  await assert.rejects(
    promises.readdir('/a.txt'),
    (err) => err instanceof GitFsError && err.code === 'ENOTDIR' && err.message === 'ENOTDIR: /a.txt',
  );
  await assert.rejects(promises.mkdir('/a.txt'), (err) => err instanceof GitFsError && err.code === 'EEXIST');
  // Control: what is there is read.
  assert.equal(await promises.readFile('/a.txt', 'utf8'), 'x');
});

test('a tool refused inside code reaches the code as a ToolCallError named ToolBlocked (a failed one: ToolFailed)', async () => {
  const sandbox = fakeSandbox();
  const codex = new Codex({ getSandbox: async () => sandbox });
  /** @type {unknown[]} */
  const caught = [];
  const tools = /** @type {any} */ ({
    // any: the two members of ToolRunner the Codex uses
    registry: { list: () => [{ name: 'blocked' }, { name: 'failing' }, { name: 'fine' }] },
    run: async (/** @type {{name: string}} */ call) =>
      call.name === 'blocked'
        ? { ok: false, blocked: true, output: 'Blocked by the safety check.' }
        : call.name === 'failing'
          ? { ok: false, output: 'It failed.' }
          : { ok: true, output: 'done' },
  });
  const globals = /** @type {any} */ (globalThis); // any: the code reports what it caught through a global of this test
  globals.__caught = caught;
  try {
    const r = await codex.run(
      'for (const f of [blocked, failing]) { try { await f({}); } catch (e) { globalThis.__caught.push(e); } }\nreturn await fine({});',
      { tools },
    );
    assert.equal(r.value, 'done', 'control: a tool that runs returns its output');
  } finally {
    delete globals.__caught;
  }
  assert.deepEqual(
    caught.map((e) => e instanceof ToolCallError && [e.name, e.code, e.message]),
    [
      ['ToolBlocked', 'tool_blocked', 'Blocked by the safety check.'],
      ['ToolFailed', 'tool_failed', 'It failed.'],
    ],
  );
});
