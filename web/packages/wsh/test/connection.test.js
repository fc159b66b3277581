// The connection itself: malformed frames and version mismatch get an error frame and a closed
// connection while the server goes on; Origin and Host (DNS rebinding) are checked before the
// upgrade; idle connections close; a dropped connection fails what ran on it, stops its
// processes on the server, and the client reconnects by itself.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WshClient } from '../node.js';
import { PROTOCOL_VERSION, encodeFrame } from '../protocol.js';
import { makeKey, processGone, rawSocket, startServer, statusBecomes } from './helpers.js';

const key = await makeKey();
const { server, logs } = await startServer([key.entry]);
const port = new URL(server.url).port;

/** A raw socket signed in with the listed key. */
async function signedIn() {
  const client = await WshClient.connect(server.url, { key: key.pair, reconnect: false });
  return client;
}

test('malformed frames and a version mismatch: an error frame with its code, the connection closed, the server fine', async () => {
  const versionTwo = encodeFrame('ping', 0, { id: 1 });
  versionTwo[1] = PROTOCOL_VERSION + 1;
  const cases = [
    { name: 'garbage', data: new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]), code: 'malformed_frame' },
    { name: 'text message', data: 'hello', code: 'malformed_frame' },
    { name: 'version 2', data: versionTwo, code: 'version_mismatch' },
  ];
  for (const c of cases) {
    const raw = rawSocket(server.url);
    await raw.next('hello');
    raw.ws.send(c.data);
    const error = await raw.next('error');
    assert.equal(/** @type {{code: string}} */ (error.header).code, c.code, c.name);
    assert.equal((await raw.closed).code, 1002, c.name);
  }
  // After signing in too: a bad header on an exec, an unknown type.
  const client = await signedIn();
  assert.equal((await client.exec('echo control')).stdout, 'control\n', 'control: a well-formed exec runs');
  client.close();
  const json = new TextEncoder().encode('{"t":"exec","cmd":5}');
  const bad = new Uint8Array(10 + json.byteLength);
  bad.set([0x57, PROTOCOL_VERSION, 0, 0, 0, 1]);
  new DataView(bad.buffer).setUint32(6, json.byteLength);
  bad.set(json, 10);
  const raw = rawSocket(server.url);
  await raw.next('hello');
  raw.ws.send(bad);
  assert.equal(/** @type {{code: string}} */ ((await raw.next('error')).header).code, 'malformed_frame');
  await raw.closed;
  const after = await signedIn();
  assert.equal((await after.exec('echo still serving')).stdout, 'still serving\n', 'the server goes on');
  after.close();
  assert.ok(logs.some((l) => /malformed_frame \(closed\)/.test(l)));
});

test('a frame for a channel never opened closes the connection with unknown_channel; one reused, channel_in_use', async () => {
  const client = await signedIn();
  client.close();
  const { sign, toBase64 } = await import('../keys.js');
  const { authMessage } = await import('../protocol.js');
  const { publicKeyBlob } = await import('../node.js');
  for (const [frames, code] of /** @type {const} */ ([
    [[encodeFrame('stdin', 9, {}, new Uint8Array([1]))], 'unknown_channel'],
    [[encodeFrame('exec', 3, { cmd: 'true' }), encodeFrame('exec', 3, { cmd: 'true' })], 'channel_in_use'],
  ])) {
    const raw = rawSocket(server.url);
    const hello = await raw.next('hello');
    const host = `127.0.0.1:${port}`;
    const signature = await sign(key.pair, authMessage(/** @type {{nonce: string}} */ (hello.header).nonce, host));
    raw.ws.send(
      encodeFrame('auth', 0, { version: PROTOCOL_VERSION, publicKey: await publicKeyBlob(key.pair), signature: toBase64(signature), host }),
    );
    await raw.next('welcome');
    for (const f of frames) raw.ws.send(f);
    const error = raw.frames.find((f) => f.t === 'error' && f.channel === 0) ?? (await raw.next('error'));
    await raw.closed;
    const last = raw.frames.filter((f) => f.t === 'error').at(-1);
    assert.equal(/** @type {{code: string}} */ ((last ?? error).header).code, code);
  }
});

test('Origin: a page from another origin is refused before the upgrade (control: a loopback page origin is accepted)', async () => {
  const evil = rawSocket(server.url, { headers: { Origin: 'https://evil.example' } });
  assert.equal(await evil.outcome, 403);
  const local = rawSocket(server.url, { headers: { Origin: 'http://127.0.0.1:8080' } });
  assert.equal((await local.next('hello')).t, 'hello', 'control');
  local.ws.close();
  const listed = await startServer([key.entry], { origins: ['https://app.example'] });
  const ok = rawSocket(listed.server.url, { headers: { Origin: 'https://app.example' } });
  assert.equal((await ok.next('hello')).t, 'hello', 'control: an origin on --origins');
  ok.ws.close();
  const notListed = rawSocket(listed.server.url, { headers: { Origin: 'http://127.0.0.1:8080' } });
  assert.equal(await notListed.outcome, 403, 'with --origins, only those');
});

test('Host: a request naming another host (DNS rebinding) is refused (control: 127.0.0.1 and localhost)', async () => {
  const rebound = rawSocket(server.url, { headers: { Host: `attacker.example:${port}` } });
  assert.equal(await rebound.outcome, 403);
  for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
    const ok = rawSocket(server.url, { headers: { Host: host } });
    assert.equal((await ok.next('hello')).t, 'hello', `control: ${host}`);
    ok.ws.close();
  }
  const res = await fetch(`http://127.0.0.1:${port}/wsh`, { headers: { Origin: 'https://evil.example' } });
  assert.equal(res.status, 403);
  assert.match(await res.text(), /Origin "https:\/\/evil.example" is not allowed/);
});

test('idle: a connection with nothing open is closed with idle_timeout; the next call reconnects (control)', async () => {
  const idle = await startServer([key.entry], { idleTimeoutMs: 30 });
  const client = await WshClient.connect(idle.server.url, { key: key.pair });
  const event = await statusBecomes(client, 'idle');
  assert.equal(/** @type {{code: string}} */ (event.error).code, 'idle_timeout');
  assert.equal((await client.exec('echo back')).stdout, 'back\n', 'control: used again, it reconnects');
  client.close();
});

test('disconnect: running work fails with disconnected, its process is stopped, and the client reconnects by itself', async () => {
  const client = await WshClient.connect(server.url, { key: key.pair, reconnect: { minDelayMs: 1, maxDelayMs: 20 } });
  const proc = await client.spawn('exec sleep 1000');
  assert.ok(proc.pid);
  const reconnecting = statusBecomes(client, 'reconnecting');
  const reopened = statusBecomes(client, 'open');
  server.disconnectAll();
  await assert.rejects(proc.exited, { code: 'disconnected' });
  await reconnecting;
  await processGone(/** @type {number} */ (proc.pid));
  await reopened;
  assert.equal((await client.exec('echo reconnected')).stdout, 'reconnected\n');
  client.close();
  assert.equal(client.status, 'closed');
  await assert.rejects(client.exec('echo x'), { code: 'closed' });
});

test('a call made while reconnecting waits for the connection instead of failing', async () => {
  const client = await WshClient.connect(server.url, { key: key.pair, reconnect: { minDelayMs: 1, maxDelayMs: 20 } });
  const reconnecting = statusBecomes(client, 'reconnecting');
  server.disconnectAll();
  await reconnecting;
  assert.equal((await client.exec('echo waited')).stdout, 'waited\n');
  client.close();
});
