// `npx wsh-server`: the real bin, spawned; its first line on stdout is the URL, which a client
// signs in to; a key added to the keys file counts at once; bad flags fail with a message.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { get } from 'node:http';
import { appendFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { WshClient } from '../node.js';
import { makeKey, rawSocket, tempDir } from './helpers.js';

const BIN = fileURLToPath(new URL('../bin/wsh-server.js', import.meta.url));

/** @param {string[]} args */
function run(args) {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  test.after(() => child.kill('SIGKILL'));
  let stderr = '';
  child.stderr.on('data', (b) => {
    stderr += b;
  });
  const lines = createInterface({ input: child.stdout });
  /** @type {Promise<string>} */
  const firstLine = new Promise((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', () => reject(new Error(`exited first: ${stderr}`)));
  });
  firstLine.catch(() => {}); // a run that is expected to fail is read through its exit
  return { child, firstLine, stderr: () => stderr };
}

test('the bin prints its URL first; the listed key runs a command there, a key added later counts at once', async () => {
  const dir = await tempDir();
  const keysFile = join(dir, 'keys');
  const first = await makeKey();
  const later = await makeKey();
  await writeFile(keysFile, `# my keys\n${first.line}\n`);
  const server = run(['--keys', keysFile, '--port', '0', '--no-pty']);
  const url = await server.firstLine;
  assert.match(url, /^ws:\/\/127\.0\.0\.1:\d+\/wsh$/);
  const client = await WshClient.connect(url, { key: first.pair });
  assert.equal((await client.exec('echo from the bin')).stdout, 'from the bin\n');
  client.close();
  await assert.rejects(WshClient.connect(url, { key: later.pair }), { code: 'auth_failed' });
  await appendFile(keysFile, `${later.line}\n`);
  const added = await WshClient.connect(url, { key: later.pair });
  assert.equal((await added.exec('echo added')).stdout, 'added\n', 'control: once listed, it signs in without a restart');
  added.close();
  assert.match(server.stderr(), /terminals: pipes/);
  server.child.kill('SIGTERM');
  const [code] = await once(server.child, 'exit');
  assert.equal(code, 0);
});

test('--key LINE: no keys file needed; the given key (with its options) signs in, another is refused; repeatable', async () => {
  const dir = await tempDir();
  const given = await makeKey();
  const limited = await makeKey();
  const stranger = await makeKey();
  const server = run(['--key', given.line, '--key', `commands=printf dirs=${dir} ${limited.line}`, '--port', '0', '--no-pty']);
  const url = await server.firstLine;
  const client = await WshClient.connect(url, { key: given.pair });
  assert.equal((await client.exec('echo inline')).stdout, 'inline\n', 'control: the given key runs a command');
  client.close();
  const second = await WshClient.connect(url, { key: limited.pair });
  assert.equal((await second.exec(['printf', 'limited'])).stdout, 'limited');
  await assert.rejects(second.exec(['ls']), { code: 'command_not_allowed' }, 'its options apply');
  second.close();
  await assert.rejects(WshClient.connect(url, { key: stranger.pair }), { code: 'auth_failed' });
  assert.match(server.stderr(), /keys: 2 given with --key;/);
  server.child.kill('SIGTERM');
  assert.equal((await once(server.child, 'exit'))[0], 0);
});

test('--host binds where asked (not 127.0.0.1); --allowed-hosts lets that Host name in and refuses another; control: \
the bound address works', async () => {
  const given = await makeKey();
  const server = run(['--key', given.line, '--port', '0', '--no-pty', '--host', '127.0.0.2', '--allowed-hosts', 'wsh.example']);
  const url = await server.firstLine;
  assert.match(url, /^ws:\/\/127\.0\.0\.2:\d+\/wsh$/);
  const port = new URL(url).port;
  const client = await WshClient.connect(url, { key: given.pair, reconnect: false });
  assert.equal((await client.exec('echo bound')).stdout, 'bound\n', 'control: the asked address serves');
  client.close();
  await assert.rejects(
    WshClient.connect(`ws://127.0.0.1:${port}/wsh`, { key: given.pair, reconnect: false }),
    { code: 'connect_failed' },
    'nothing listens on 127.0.0.1 at that port',
  );
  const allowed = rawSocket(url, { headers: { host: `wsh.example:${port}` } });
  assert.equal(await allowed.outcome, 'upgraded', 'an allowed Host name is let in');
  assert.equal((await allowed.next('hello')).t, 'hello');
  allowed.ws.close();
  const other = rawSocket(url, { headers: { host: `evil.example:${port}` } });
  assert.equal(await other.outcome, 403, 'a Host name not listed is refused (DNS rebinding)');
  const http = await new Promise((resolve) => {
    get(`http://127.0.0.2:${port}/mcp`, { headers: { host: `evil.example:${port}` } }, (res) => {
      let body = '';
      res.on('data', (b) => {
        body += b;
      });
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
  });
  assert.deepEqual(http, {
    status: 403,
    body: `Host "evil.example:${port}" is not this server's name (a DNS-rebinding defence); start it with --allowed-hosts \
evil.example:${port} to allow it.\n`,
  });
  server.child.kill('SIGTERM');
  assert.equal((await once(server.child, 'exit'))[0], 0);
});

test('bad usage fails with a message and exit code 2; --help prints the options', async () => {
  const noKeys = run([]);
  const [code] = await once(noKeys.child, 'exit');
  assert.equal(code, 2);
  assert.match(noKeys.stderr(), /needs at least one public key: pass --key "ssh-ed25519 AAAA… name" .* or --keys FILE/);
  const badKey = run(['--key', 'ssh-rsa AAAA nope']);
  assert.equal((await once(badKey.child, 'exit'))[0], 2);
  assert.match(badKey.stderr(), /--key "ssh-rsa AAAA nope": no "ssh-ed25519 <key>"/);
  const missing = run(['--keys', '/nonexistent/keys']);
  assert.equal((await once(missing.child, 'exit'))[0], 2);
  assert.match(missing.stderr(), /no such file|ENOENT/);
  const help = run(['--help']);
  assert.match(await help.firstLine, /^Usage: wsh-server/);
});
