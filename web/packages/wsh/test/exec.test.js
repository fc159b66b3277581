// Running commands on the real server: exit codes, output that streams before the command ends,
// 10 MB intact, stdin, Ctrl-C (a signal to the process group), cancel.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { WshClient } from '../node.js';
import { makeKey, processExists, processGone, startServer, tempDir } from './helpers.js';

const key = await makeKey();
const { server } = await startServer([key.entry]);
const client = await WshClient.connect(server.url, { key: key.pair });
test.after(() => client.close());

test('exit codes, stderr, cwd and env come back as the command gave them', async () => {
  assert.equal((await client.exec('exit 0')).exitCode, 0);
  assert.equal((await client.exec('exit 42')).exitCode, 42);
  assert.equal((await client.exec('false')).exitCode, 1);
  const r = await client.exec('echo out; echo err >&2; exit 3');
  assert.deepEqual([r.stdout, r.stderr, r.exitCode], ['out\n', 'err\n', 3]);
  const dir = await tempDir();
  assert.equal((await client.exec('pwd', { cwd: dir })).stdout, `${dir}\n`);
  assert.equal((await client.exec('printf %s "$GREETING"', { env: { GREETING: 'hi there' } })).stdout, 'hi there');
  assert.equal((await client.exec(['printf', '%s|', 'a b', '$HOME'])).stdout, 'a b|$HOME|', 'argv runs without a shell');
  const missing = await client.exec('definitely-not-a-command-wsh');
  assert.equal(missing.exitCode, 127);
  await assert.rejects(client.exec(['definitely-not-a-command-wsh']), { code: 'spawn_failed' });
});

test('output streams: the first line arrives while the command is still waiting for input', async () => {
  const proc = await client.spawn('echo first; read line; echo "second:$line"');
  assert.equal(proc.mode, 'pipe');
  const parts = proc[Symbol.asyncIterator]();
  const first = await parts.next();
  // The command cannot have ended: it waits for the line only sent now.
  assert.equal(new TextDecoder().decode(/** @type {{data: Uint8Array}} */ (first.value).data), 'first\n');
  await proc.write('go\n');
  let rest = '';
  for (let p = await parts.next(); !p.done; p = await parts.next()) rest += new TextDecoder().decode(p.value.data);
  assert.equal(rest, 'second:go\n');
  assert.deepEqual(await proc.exited, { exitCode: 0, signal: null });
});

test('10 MB of output arrives intact (SHA-256 of the bytes on both sides)', async () => {
  const dir = await tempDir();
  const file = join(dir, 'big.bin');
  const bytes = randomBytes(10 * 1024 * 1024);
  await writeFile(file, bytes);
  const result = await client.exec(['cat', file], { encoding: 'binary' });
  assert.equal(result.exitCode, 0);
  assert.equal(result.stdout.byteLength, bytes.byteLength);
  assert.equal(createHash('sha256').update(result.stdout).digest('hex'), createHash('sha256').update(bytes).digest('hex'));
});

test('stdin: bytes in, the same bytes out; an exec without stdin gets end of file at once', async () => {
  const input = randomBytes(3 * 1024 * 1024 + 17);
  const result = await client.exec('cat', { stdin: input, encoding: 'binary' });
  assert.equal(Buffer.compare(Buffer.from(result.stdout), input), 0);
  assert.equal((await client.exec('wc -c', { stdin: 'hello' })).stdout.trim(), '5');
  assert.equal((await client.exec('cat')).stdout, '', 'cat ends: its input was closed');
  assert.equal((await client.exec('cat', { stdin: new Blob(['from a blob']) })).stdout, 'from a blob');
});

test('Ctrl-C: SIGINT reaches the process group; a trap sees it (control: without the signal the command keeps running)', async () => {
  const proc = await client.spawn(`trap 'echo interrupted; exit 7' INT; echo ready; while :; do sleep 0.05; done`);
  const parts = proc[Symbol.asyncIterator]();
  const ready = await parts.next();
  assert.equal(new TextDecoder().decode(/** @type {{data: Uint8Array}} */ (ready.value).data), 'ready\n');
  // Control: it is still running before the signal (it answers more input by staying alive).
  assert.ok(proc.pid !== undefined && processExists(proc.pid));
  await proc.kill('SIGINT');
  let rest = '';
  for (let p = await parts.next(); !p.done; p = await parts.next()) rest += new TextDecoder().decode(p.value.data);
  assert.equal(rest, 'interrupted\n');
  assert.deepEqual(await proc.exited, { exitCode: 7, signal: null });

  const plain = await client.spawn('echo $$; exec sleep 1000');
  const pid = Number(new TextDecoder().decode(/** @type {{data: Uint8Array}} */ ((await plain[Symbol.asyncIterator]().next()).value).data));
  await plain.kill('SIGINT');
  assert.deepEqual(await plain.exited, { exitCode: 130, signal: 'SIGINT' });
  await processGone(pid);
});

test('an aborted exec stops the command and rejects with aborted', async () => {
  const controller = new AbortController();
  const proc = client.exec('echo $$; exec sleep 1000', { signal: controller.signal });
  controller.abort();
  await assert.rejects(proc, { code: 'aborted' });
  assert.equal((await client.exec('echo still fine')).stdout, 'still fine\n', 'control: the connection is still usable');
});
