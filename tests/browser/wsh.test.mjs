// The wsh client in a real Chromium page against the real wsh server on 127.0.0.1: a key made
// with generateKey() is kept in IndexedDB with its private key non-extractable, survives a
// reload, signs in and runs a command; a key that is not in the keys file is refused (control).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createWshServer } from '../../web/packages/wsh/server/index.js';
import { useFixture } from './fixture.mjs';

const fx = await useFixture({ page: 'home' });
const { page } = fx;
const keysFile = join(await fx.tempDir('wsh-keys-'), 'keys');
await writeFile(keysFile, '# keys the browser test adds\n');
/** @type {string[]} */
const logs = [];
const server = await createWshServer({ keysFile, pty: null, log: (l) => logs.push(l) });
fx.defer(() => server.close());

/** The package's browser entry, loaded by the page (the app's import map gives it zod). */
const WSH = '/web/packages/wsh/index.js';

test('generateKey keeps a non-extractable key in IndexedDB that survives a reload, signs in and runs a command', async () => {
  const made = await page.evaluate(async (entry) => {
    const wsh = await import(entry);
    const pair = await wsh.generateKey({ name: 'laptop' });
    let exported = 'refused';
    try {
      await crypto.subtle.exportKey('pkcs8', pair.privateKey);
      exported = 'exported';
    } catch {}
    return { line: await wsh.publicKeyLine(pair, 'browser test'), extractable: pair.privateKey.extractable, exported };
  }, WSH);
  assert.match(made.line, /^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5\S+ browser test$/);
  assert.equal(made.extractable, false);
  assert.equal(made.exported, 'refused');
  await appendFile(keysFile, `commands=* ${made.line}\n`);

  await page.reload();
  const ran = await page.evaluate(
    async ({ entry, url }) => {
      const wsh = await import(entry);
      const pair = await wsh.loadKey('laptop');
      if (!pair) return { found: false };
      const line = await wsh.publicKeyLine(pair, 'browser test');
      const client = await wsh.WshClient.connect(url, { key: pair });
      const result = await client.exec('echo "hello from $0"; exit 5');
      const stored = await new wsh.IndexedDbKeyStore().list();
      const transport = client.transport;
      client.close();
      return { found: true, extractable: pair.privateKey.extractable, line, transport, result, stored };
    },
    { entry: WSH, url: server.url },
  );
  assert.equal(ran.found, true, 'the key is still there after the reload');
  assert.equal(ran.extractable, false, 'and still non-extractable');
  assert.equal(ran.line, made.line, 'the same key');
  assert.equal(ran.transport, 'websocket');
  assert.deepEqual(ran.result, { stdout: 'hello from /bin/sh\n', stderr: '', exitCode: 5, signal: null });
  assert.deepEqual(ran.stored, ['laptop']);
  assert.ok(logs.some((l) => /key "browser test" signed in/.test(l)));
});

test('control: a key that is not in the keys file is refused with auth_failed from the page', async () => {
  const refused = await page.evaluate(
    async ({ entry, url }) => {
      const wsh = await import(entry);
      const stranger = await wsh.generateKey();
      try {
        await wsh.WshClient.connect(url, { key: stranger });
        return 'connected';
      } catch (err) {
        const e = /** @type {{name: string, code: string}} */ (err);
        return `${e.name}:${e.code}`;
      }
    },
    { entry: WSH, url: server.url },
  );
  assert.equal(refused, 'WshRefusedError:auth_failed');
});
