// Sign-in against the real server on 127.0.0.1: the listed key works; a wrong or unlisted key is
// refused before any command runs — even one sent right behind the auth frame (the control:
// the listed key, sending exactly the same frames, runs it).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { WshClient, generateKey, publicKeyBlob } from '../node.js';
import { toBase64, sign } from '../keys.js';
import { PROTOCOL_VERSION, authMessage, encodeFrame } from '../protocol.js';
import { makeKey, rawSocket, startServer, tempDir } from './helpers.js';

const listed = await makeKey();
const { server, logs } = await startServer([listed.entry]);
const host = new URL(server.url).host;

test('the listed key signs in and runs a command', async () => {
  const client = await WshClient.connect(server.url, { key: listed.pair });
  try {
    assert.equal(client.status, 'open');
    assert.equal(client.transport, 'websocket');
    assert.equal(client.server?.pty, false);
    const result = await client.exec('echo hello');
    assert.deepEqual(result, { stdout: 'hello\n', stderr: '', exitCode: 0, signal: null });
  } finally {
    client.close();
  }
});

test('an unlisted key is refused with auth_failed (control: the listed key connects)', async () => {
  const stranger = await generateKey();
  await assert.rejects(WshClient.connect(server.url, { key: stranger }), {
    name: 'WshRefusedError',
    code: 'auth_failed',
    message: /not in the server's keys file/,
  });
  const control = await WshClient.connect(server.url, { key: listed.pair });
  control.close();
});

/**
 * Signs in over a raw socket with `publicKey` and a signature made by `signer` for `signedHost`,
 * and sends `touch MARKER` right behind the auth frame. Resolves with the frames received.
 * @param {{publicKey: CryptoKeyPair, signer: CryptoKeyPair, signedHost?: string, marker: string}} o
 */
async function pipelinedTouch({ publicKey, signer, signedHost = host, marker }) {
  const raw = rawSocket(server.url);
  const hello = await raw.next('hello');
  const signature = await sign(signer, authMessage(/** @type {{nonce: string}} */ (hello.header).nonce, signedHost));
  raw.ws.send(
    encodeFrame('auth', 0, {
      version: PROTOCOL_VERSION,
      publicKey: await publicKeyBlob(publicKey),
      signature: toBase64(signature),
      host: signedHost,
    }),
  );
  raw.ws.send(encodeFrame('exec', 1, { cmd: ['touch', marker] }));
  const outcome = await Promise.race([raw.next('exit'), raw.next('error')]);
  raw.ws.close();
  return outcome;
}

test('a wrong or unlisted key is refused before any command runs, even one sent right behind the auth frame', async () => {
  const dir = await tempDir();
  const other = await generateKey();
  const cases = [
    { name: 'unlisted key', publicKey: other, signer: other },
    { name: "listed public key, another key's signature", publicKey: listed.pair, signer: other },
    { name: 'listed key, signed for another host', publicKey: listed.pair, signer: listed.pair, signedHost: 'evil.example:80' },
  ];
  for (const c of cases) {
    const marker = join(dir, c.name.replace(/\W+/g, '-'));
    const outcome = await pipelinedTouch({ ...c, marker });
    assert.equal(outcome.t, 'error', c.name);
    assert.equal(/** @type {{code: string}} */ (outcome.header).code, 'auth_failed', c.name);
    assert.equal(existsSync(marker), false, `${c.name}: the command did not run`);
  }
  // Control: the same frames from the listed key run the command.
  const marker = join(dir, 'control');
  const outcome = await pipelinedTouch({ publicKey: listed.pair, signer: listed.pair, marker });
  assert.equal(outcome.t, 'exit');
  assert.equal(existsSync(marker), true, 'control: the listed key ran it');
  assert.ok(logs.some((l) => /authentication refused \(key not listed\)/.test(l)));
  assert.ok(logs.some((l) => /authentication refused \(bad signature\)/.test(l)));
});

test('a command before signing in is refused and the connection closed', async () => {
  const raw = rawSocket(server.url);
  await raw.next('hello');
  raw.ws.send(encodeFrame('exec', 1, { cmd: 'echo hi' }));
  const error = await raw.next('error');
  assert.equal(/** @type {{code: string}} */ (error.header).code, 'auth_failed');
  await raw.closed;
});

test('a connection that never signs in is closed with auth_timeout', async () => {
  const short = await startServer([listed.entry], { authTimeoutMs: 20 });
  const raw = rawSocket(short.server.url);
  const error = await raw.next('error');
  assert.equal(/** @type {{code: string}} */ (error.header).code, 'auth_timeout');
  await raw.closed;
});
