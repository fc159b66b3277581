// Issue 35: "a person runs `npx wsh-server` on their machine" without a clone. The install step
// packs web/packages/wsh into web/vendor/wsh-server.tgz (scripts/pack-wsh.mjs), the app serves it,
// and the precache list leaves it out. The tarball holds what the server needs and no tests, and
// declares node-pty an optional dependency (a real terminal where it builds); run
// from an unpacked copy (its dependencies beside it, as npx installs them) with --key and no keys
// file, it signs in the given key and refuses another. The registry step of npx itself is not
// run here (a fresh clone's tests stay offline); it was run by hand (see the commit message).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, symlink, writeFile, mkdir, copyFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { packWsh, WSH_TGZ_NAME } from '../../scripts/pack-wsh.mjs';
import { buildPrecacheManifest } from '../../scripts/build-manifest.mjs';
import { startServer } from '../../scripts/static-server.mjs';
import { WshClient, generateKey, publicKeyLine } from '../../web/packages/wsh/node.js';

const run = promisify(execFile);
const dir = await mkdtemp(join(tmpdir(), 'clawser-wsh-pack-'));
after(() => rm(dir, { recursive: true, force: true }));
const tgz = await packWsh(dir);

test('the tarball holds the bin, the server and the client modules, and no tests', async () => {
  assert.equal(tgz, join(dir, WSH_TGZ_NAME));
  const files = (await run('tar', ['tzf', tgz])).stdout.trim().split('\n').sort();
  for (const f of [
    'package/package.json',
    'package/bin/wsh-server.js',
    'package/server/index.js',
    'package/node.js',
    'package/README.md',
  ]) {
    assert.ok(files.includes(f), f);
  }
  assert.deepEqual(
    files.filter((f) => f.startsWith('package/test/')),
    [],
  );
});

test('the packed package.json declares node-pty optional: npx installs it where it builds (a real PTY), pipes otherwise', async () => {
  const manifest = JSON.parse((await run('tar', ['xzOf', tgz, 'package/package.json'])).stdout);
  assert.deepEqual(Object.keys(manifest.optionalDependencies ?? {}), ['node-pty']);
  assert.match(manifest.optionalDependencies['node-pty'], /^\^1\.1\./);
  // Control: not a required dependency, so a machine where it cannot build still installs the server.
  assert.equal(manifest.dependencies['node-pty'], undefined);
  assert.deepEqual(Object.keys(manifest.dependencies).sort(), ['ws', 'zod']);
});

test('unpacked beside its dependencies, `wsh-server --key LINE` runs with no keys file: that key signs in, another is \
refused', async () => {
  const app = join(dir, 'run');
  await mkdir(app);
  await run('tar', ['xzf', tgz, '-C', app]);
  // What npx puts beside it: its dependencies (ws, zod), here the repository's own copies.
  await symlink(join(process.cwd(), 'node_modules'), join(app, 'package', 'node_modules'));
  const mine = await generateKey();
  const other = await generateKey();
  const child = spawn(
    process.execPath,
    [join(app, 'package', 'bin', 'wsh-server.js'), '--port', '0', '--no-pty', '--key', await publicKeyLine(mine, 'laptop')],
    { cwd: app, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  after(() => child.kill('SIGKILL'));
  let stderr = '';
  child.stderr.on('data', (b) => {
    stderr += b;
  });
  const url = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', () => reject(new Error(`exited: ${stderr}`)));
  });
  const client = await WshClient.connect(url, { key: mine, reconnect: false });
  assert.equal((await client.exec('echo from the tarball')).stdout, 'from the tarball\n');
  client.close();
  await assert.rejects(WshClient.connect(url, { key: other, reconnect: false }), { code: 'auth_failed' });
  child.kill('SIGTERM');
  assert.equal((await once(child, 'exit'))[0], 0);
});

test('the app serves web/vendor/wsh-server.tgz; the precache list leaves it out (control: it lists the vendor modules)', async () => {
  const root = join(dir, 'app');
  await mkdir(join(root, 'web', 'vendor'), { recursive: true });
  await copyFile(tgz, join(root, 'web', 'vendor', WSH_TGZ_NAME));
  await writeFile(join(root, 'web', 'vendor', 'lib.js'), 'export {};\n');
  await writeFile(join(root, 'index.html'), '<!doctype html>');
  await writeFile(join(root, 'manifest.webmanifest'), '{}');
  const { files } = await buildPrecacheManifest(root);
  assert.ok(files.includes('./web/vendor/lib.js'), 'control');
  assert.deepEqual(
    files.filter((f) => f.endsWith('.tgz')),
    [],
  );
  const server = await startServer({ root, port: 0 });
  after(() => server.close());
  const port = /** @type {import('node:net').AddressInfo} */ (server.address()).port;
  const res = await fetch(`http://127.0.0.1:${port}/web/vendor/${WSH_TGZ_NAME}`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/gzip');
  const body = new Uint8Array(await res.arrayBuffer());
  assert.deepEqual([...body.slice(0, 2)], [0x1f, 0x8b], 'a gzip file');
});
