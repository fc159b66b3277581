// Issue 35 §3: the remote tool family's pure parts (the output cap and what the model reads of
// it) and the machines store (validation, one key per machine, removal with its key), then the
// tools' run against the real wsh server in-process: a listed key runs, an unlisted one is
// refused before anything runs (the browser journey is tests/browser/remote.test.mjs).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { family, formatExec, MAX_TRANSFER_BYTES, REMOTE_OUTPUT_CAP, sizeText } from '../../web/tools/remote.js';
import { familyProblems, onlyReads } from '../../web/tools/families.js';
import { scopeOf, suggestRule } from '../../web/tools/approval-rules.js';
import { RemoteMachines, RemoteError, MACHINES_KEY, keyNameOf } from '../../web/stores/remote-machines.js';
import { LocalConfig } from '../../web/storage/local-config.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { MemoryKeyStore } from '../../web/packages/wsh/index.js';
import { createWshServer } from '../../web/packages/wsh/server/index.js';
import { parseKeyLine } from '../../web/packages/wsh/server/keys-file.js';
import { memoryStorage } from '../fixtures/stand-ins.mjs';
import { shellWorkspace } from '../fixtures/shell-workspace.mjs';

const wsh = () => import('../../web/packages/wsh/node.js');
const tool = (/** @type {string} */ name) => {
  const t = family.tools?.find((x) => x.name === name);
  if (!t) throw new Error(`no tool ${name}`);
  return t;
};

test('the family declares what it must; every tool writes (asked by default), and every result taints the turn', () => {
  assert.deepEqual(familyProblems(family), []);
  assert.deepEqual(
    family.tools?.map((t) => [t.name, t.permission, Boolean(t.untrusted), onlyReads(t)]),
    [
      ['remote_exec', 'write', true, false],
      ['remote_put', 'write', true, false],
      ['remote_get', 'write', true, false],
    ],
  );
});

test('no approval rule narrower than the tool is offered for a remote call (a prefix rule cannot see into the remote line)', () => {
  for (const [name, args] of /** @type {const} */ ([
    ['remote_exec', { machine: 'm', command: 'ls; rm -rf ~' }],
    ['remote_put', { machine: 'm', from: 'a', to: 'b' }],
    ['remote_get', { machine: 'm', from: 'a', to: 'b' }],
  ])) {
    assert.equal(scopeOf(tool(name), args), null, name);
    assert.equal(suggestRule(name, scopeOf(tool(name), args)), null, name);
  }
  // Control: a tool with a path argument gets a narrowed rule offered.
  assert.deepEqual(suggestRule('fs_write', scopeOf(/** @type {any} */ ({}), { path: 'notes/a.md' })), {
    tool: 'fs_write',
    kind: 'path',
    pattern: 'notes/**',
  });
});

test('formatExec: output under the cap is whole and says nothing of a cap; above it, cut to the cap, saying the cap and what was \
left out', () => {
  const small = formatExec({ stdout: 'hi\n', stderr: 'warn\n', exitCode: 0 });
  assert.equal(small, 'exit code 0\n--- stdout ---\nhi\n\n--- stderr ---\nwarn\n');
  assert.doesNotMatch(small, /capped/, 'control: nothing cut, nothing said');

  const big = formatExec({ stdout: 'a'.repeat(30), stderr: 'b'.repeat(10), exitCode: 1 }, 25);
  assert.equal(big, `exit code 1\n--- stdout ---\n${'a'.repeat(25)}\n[Output capped at 25 characters: 15 more characters not shown.]`);
  // stderr shares the cap with stdout
  assert.match(formatExec({ stdout: 'a'.repeat(20), stderr: 'b'.repeat(10), exitCode: 0 }, 25), /b{5}\n\[Output capped at 25 .* 5 more/);
  assert.equal(formatExec({ stdout: '', stderr: '', exitCode: 130, signal: 'SIGINT' }), 'exit code 130 (stopped by SIGINT)\n(no output)');
  assert.equal(REMOTE_OUTPUT_CAP, 20_000);
  assert.match(tool('remote_exec').description, /at most 20000 characters/);
  assert.equal(sizeText(70_000), '68.4 KB');
});

test('machines: names and addresses are validated, each machine has a key of its own, and removing one removes its key', async () => {
  const config = new LocalConfig(memoryStorage());
  const keys = new MemoryKeyStore();
  const machines = new RemoteMachines({ config, keys, wsh });
  await assert.rejects(machines.add({ name: 'bad name!', url: 'ws://127.0.0.1:1/wsh' }), { name: 'RemoteError', code: 'invalid' });
  await assert.rejects(machines.add({ name: 'laptop', url: 'https://127.0.0.1:1/wsh' }), /starts with ws:\/\/ or wss:\/\//);
  assert.deepEqual(await keys.list(), [], 'a refused machine makes no key');

  const laptop = await machines.add({ name: 'laptop', url: 'ws://127.0.0.1:1/wsh' });
  const desk = await machines.add({ name: 'desk', url: 'wss://desk.example/wsh' });
  await assert.rejects(machines.add({ name: 'laptop', url: 'ws://127.0.0.1:2/wsh' }), { code: 'taken' });
  assert.deepEqual((await keys.list()).sort(), [keyNameOf(laptop.id), keyNameOf(desk.id)].sort());
  const [a, b] = await Promise.all([machines.publicKeyLine('laptop'), machines.publicKeyLine('desk')]);
  assert.match(a, /^ssh-ed25519 \S+ clawser-laptop$/);
  assert.notEqual(a.split(' ')[1], b.split(' ')[1]);
  assert.equal((await keys.get(keyNameOf(laptop.id)))?.privateKey.extractable, false);

  // Stored through the ConfigStore, read back validated.
  assert.deepEqual(
    new RemoteMachines({ config, keys, wsh }).list().map((m) => m.name),
    ['laptop', 'desk'],
  );
  await machines.remove('laptop');
  assert.deepEqual(await keys.list(), [keyNameOf(desk.id)]);
  assert.throws(
    () => machines.get('laptop'),
    (err) => err instanceof RemoteError && err.code === 'not_found' && /desk/.test(err.message),
  );

  config.set(MACHINES_KEY, [{ id: 'x', name: 'ok', url: 'javascript:alert(1)', createdAt: 1 }]);
  assert.deepEqual(machines.list(), [], 'a stored list that does not validate is not used');
});

test('the tools against the real server: a listed key runs and copies; an unlisted key is refused before anything runs', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'clawser-remote-unit-'));
  after(() => rm(dir, { recursive: true, force: true }));
  const config = new LocalConfig(memoryStorage());
  const keys = new MemoryKeyStore();
  const machines = new RemoteMachines({ config, keys, wsh, reconnect: { minDelayMs: 10, maxAttempts: 2 } });
  /** @type {import('../../web/packages/wsh/server/keys-file.js').KeyEntry[]} */
  const listed = [];
  const server = await createWshServer({ keys: listed, pty: null, log: () => {} });
  after(() => server.close());
  await machines.add({ name: 'mine', url: server.url });
  await machines.add({ name: 'other', url: server.url });
  listed.push(await parseKeyLine(await machines.publicKeyLine('mine')));

  const fs = new MemoryFileSystem();
  const ctx = /** @type {import('../../web/tools/types.d.ts').ToolContext} */ (
    /** @type {unknown} */ ({ workspaceId: 'w', fs, remote: async () => machines })
  );
  const ran = await tool('remote_exec').run({ machine: 'mine', command: 'echo out; echo err >&2; exit 3' }, ctx);
  assert.deepEqual(ran, { ok: false, output: 'exit code 3\n--- stdout ---\nout\n\n--- stderr ---\nerr\n' });
  assert.notEqual(machines.get('mine').lastUsed, null, 'using a machine marks it used');

  const bytes = new Uint8Array(5000).map((_, i) => (i * 31) & 0xff);
  await fs.write('data.bin', bytes);
  const put = await tool('remote_put').run({ machine: 'mine', from: 'data.bin', to: join(dir, 'up.bin') }, ctx);
  assert.equal(put.ok, true, put.output);
  const got = await tool('remote_get').run({ machine: 'mine', from: join(dir, 'up.bin'), to: 'back.bin' }, ctx);
  assert.equal(got.ok, true, got.output);
  assert.deepEqual(await fs.readBytes('back.bin'), bytes);

  const marker = join(dir, 'marker');
  const refused = await tool('remote_exec').run({ machine: 'other', command: `touch ${marker}` }, ctx);
  assert.equal(refused.ok, false);
  assert.match(refused.output, /^Running the command on “other” failed \(auth_failed\): /);
  assert.equal(existsSync(marker), false, 'nothing ran for the unlisted key');

  // The server goes: a call fails after the client's few tries (it does not wait for ever), saying where the server was.
  await server.close();
  const gone = await tool('remote_exec').run({ machine: 'mine', command: 'true' }, ctx);
  assert.equal(gone.ok, false);
  assert.match(
    gone.output,
    new RegExp(
      `^Running the command on “mine” failed \\((connect_failed|disconnected|closed)\\): .* Is wsh-server running at ${server.url}\\?$`,
    ),
  );
  machines.closeAll();
});

test('remote_get refuses a file over the 100 MB cap before downloading it: the cap goes with the request and the machine sends \
nothing (control: a file at the cap is asked the same way and copied)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'clawser-remote-cap-'));
  after(() => rm(dir, { recursive: true, force: true }));
  const machines = new RemoteMachines({ config: new LocalConfig(memoryStorage()), keys: new MemoryKeyStore(), wsh });
  /** @type {import('../../web/packages/wsh/server/keys-file.js').KeyEntry[]} */
  const listed = [];
  const server = await createWshServer({ keys: listed, pty: null, log: () => {} });
  after(() => server.close());
  await machines.add({ name: 'mine', url: server.url });
  listed.push(await parseKeyLine(await machines.publicKeyLine('mine')));
  // What the machine's client was asked and what it handed back.
  /** @type {{path: string, maxSize?: number, bytes?: number, code?: string}[]} */
  const asked = [];
  const client = await machines.client('mine');
  const realGet = client.get.bind(client);
  client.get = async (path, options = {}) => {
    const entry = { path, maxSize: options.maxSize };
    asked.push(entry);
    try {
      const blob = await realGet(path, options);
      Object.assign(entry, { bytes: blob.size });
      return blob;
    } catch (err) {
      Object.assign(entry, { code: /** @type {{code: string}} */ (err).code });
      throw err;
    }
  };
  const fs = new MemoryFileSystem();
  const ctx = /** @type {import('../../web/tools/types.d.ts').ToolContext} */ (
    /** @type {unknown} */ ({ workspaceId: 'w', fs, remote: async () => machines })
  );
  const over = join(dir, 'over.bin');
  await writeFile(over, '');
  await truncate(over, MAX_TRANSFER_BYTES + 1); // sparse: the disk holds none of it
  const refused = await tool('remote_get').run({ machine: 'mine', from: over, to: 'over.bin' }, ctx);
  assert.deepEqual(refused, {
    ok: false,
    output: `${over} on “mine” is over the 100.0 MB a copy moves; nothing was copied.`,
  });
  assert.deepEqual(asked, [{ path: over, maxSize: MAX_TRANSFER_BYTES, code: 'file_too_large' }], 'refused before any byte arrived');
  assert.equal(await fs.stat('over.bin').catch(() => null), null, 'nothing was written');
  // Control: a small file, asked with the same cap, is copied.
  await writeFile(join(dir, 'small.txt'), 'fits');
  const ok = await tool('remote_get').run({ machine: 'mine', from: join(dir, 'small.txt'), to: 'small.txt' }, ctx);
  assert.equal(ok.ok, true, ok.output);
  assert.deepEqual(asked[1], { path: join(dir, 'small.txt'), maxSize: MAX_TRANSFER_BYTES, bytes: 4 });
  assert.equal(await fs.readText('small.txt'), 'fits');
  machines.closeAll();
});

test('the agent’s shell has no wsh command (only the Terminal’s sessions): the agent reaches a machine through remote_exec \
only', async () => {
  const w = await shellWorkspace({ level: 'full' });
  w.registry.setPolicy('shell', 'auto');
  const { results } = await w.turn(['wsh connect laptop; echo control-ran']);
  assert.match(results[0], /wsh: command not found/);
  assert.match(results[0], /control-ran/, 'control: the same line runs its other command');
});
