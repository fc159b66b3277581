// Keys: Ed25519 through WebCrypto, the private key not extractable, public keys as OpenSSH
// lines; and the server's keys file syntax.
import assert from 'node:assert/strict';
import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { MemoryKeyStore, generateKey, loadKey, parsePublicKeyLine, publicKeyLine, rawPublicKey } from '../node.js';
import { parseKeyLine, parseKeysFile, parseSize } from '../server/keys-file.js';
import { tempDir } from './helpers.js';

test('generateKey makes an Ed25519 pair whose private key cannot be exported (control: the public key can)', async () => {
  const pair = await generateKey();
  assert.equal(pair.privateKey.algorithm.name, 'Ed25519');
  assert.equal(pair.privateKey.extractable, false);
  await assert.rejects(crypto.subtle.exportKey('pkcs8', pair.privateKey));
  await assert.rejects(crypto.subtle.exportKey('jwk', pair.privateKey));
  assert.equal((await rawPublicKey(pair)).byteLength, 32, 'control: the public key exports');
});

test('publicKeyLine is an OpenSSH ssh-ed25519 line that parses back to the same key', async () => {
  const pair = await generateKey();
  const line = await publicKeyLine(pair, 'my laptop');
  assert.match(line, /^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI[A-Za-z0-9+/]{43} my laptop$/);
  const parsed = parsePublicKeyLine(line);
  assert.deepEqual([...parsed.raw], [...(await rawPublicKey(pair))]);
  assert.equal(parsed.comment, 'my laptop');
  assert.throws(() => parsePublicKeyLine('ssh-rsa AAAAB3NzaC1yc2E= x'), { code: 'auth_failed' });
});

test('a key stored under a name loads back and still signs; MemoryKeyStore lists and deletes', async () => {
  const store = new MemoryKeyStore();
  const pair = await generateKey({ name: 'laptop', store });
  const loaded = await loadKey('laptop', { store });
  assert.equal(loaded, pair);
  assert.deepEqual(await store.list(), ['laptop']);
  await store.delete('laptop');
  assert.equal(await loadKey('laptop', { store }), undefined);
  await assert.rejects(generateKey({ name: 'x', store: null }), { code: 'io_error' });
});

test('keys file: options before the key, defaults, quoted values, sizes; bad lines reported and skipped', async () => {
  const dir = await tempDir();
  const line = await publicKeyLine(await generateKey(), 'k1');
  const open = await parseKeyLine(line);
  assert.equal(open.commands, '*');
  assert.equal(open.dirs, '*');
  assert.equal(open.env, '*');
  assert.equal(open.sessions, 8);
  assert.equal(open.relay, true);
  const limited = await parseKeyLine(`commands=git,/usr/bin/ls dirs="${dir}" sessions=2 output=10M relay=no ${line}`);
  assert.deepEqual(limited.commands, ['git', '/usr/bin/ls']);
  assert.deepEqual(limited.dirs, [dir]);
  assert.deepEqual(limited.env, [], 'a limited key sets no variables unless env= says');
  assert.equal(limited.outputBytes, 10 * 1024 * 1024);
  assert.equal(limited.relay, false);
  assert.equal(parseSize('1K'), 1024);
  const { keys, problems } = await parseKeysFile(
    [
      `# comment`,
      '',
      line,
      `nope=1 ${line}`,
      'ssh-rsa AAAA',
      `dirs=relative ${line}`,
      `dirs=${dir}/missing ${line}`,
      `commands=a;b ${line}`,
    ].join('\n'),
  );
  assert.equal(keys.length, 1, 'control: the good line loads');
  assert.deepEqual(
    problems.map((p) => p.line),
    [4, 5, 6, 7, 8],
  );
  assert.match(problems[0].message, /unknown option "nope"/);
});

test('keys file: a directory given through a symlink is stored as its real path', async () => {
  const dir = await tempDir();
  await mkdir(join(dir, 'real'));
  await symlink(join(dir, 'real'), join(dir, 'link'));
  const entry = await parseKeyLine(`dirs=${join(dir, 'link')} ${await publicKeyLine(await generateKey())}`);
  assert.deepEqual(entry.dirs, [join(dir, 'real')]);
});
