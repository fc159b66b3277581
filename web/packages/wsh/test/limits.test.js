// Per-key limits, enforced on the server: directories (for the working directory and for
// put/get; `..` and symlinks cannot lead out), commands (run without a shell), environment,
// sessions and output. Each refusal has its control: the allowed case works.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, symlink, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { toBase64, sign } from '../keys.js';
import { WshClient, publicKeyBlob } from '../node.js';
import { PROTOCOL_VERSION, authMessage, encodeFrame } from '../protocol.js';
import { makeKey, rawSocket, startServer, tempDir } from './helpers.js';

const root = await tempDir();
const inside = join(root, 'allowed');
const outside = join(root, 'other');
await mkdir(join(inside, 'sub'), { recursive: true });
await mkdir(outside);
await writeFile(join(outside, 'secret.txt'), 'not yours');
await writeFile(join(inside, 'mine.txt'), 'yours');
await symlink(outside, join(inside, 'escape'));
await symlink(join(outside, 'secret.txt'), join(inside, 'secret-link.txt'));
await symlink(join(outside, 'nowhere'), join(inside, 'dangling'));

const dirsKey = await makeKey(`dirs=${inside}`);
const cmdKey = await makeKey(`commands=echo,printf,sleep dirs=${inside} env=LANG`);
const fewKey = await makeKey('sessions=1 output=1K');
const { server } = await startServer([dirsKey.entry, cmdKey.entry, fewKey.entry]);

/** @param {{pair: CryptoKeyPair}} key */
async function connect(key) {
  const client = await WshClient.connect(server.url, { key: key.pair });
  test.after(() => client.close());
  return client;
}
const dirs = await connect(dirsKey);
const cmds = await connect(cmdKey);
const few = await connect(fewKey);

test('working directory: inside the allowed directory works; outside, through .. or a symlink is refused', async () => {
  assert.equal((await dirs.exec('pwd', { cwd: inside })).stdout, `${inside}\n`, 'control');
  assert.equal((await dirs.exec('pwd', { cwd: 'sub' })).stdout, `${join(inside, 'sub')}\n`, 'control: relative to the first directory');
  assert.equal((await dirs.exec('pwd')).stdout, `${inside}\n`, 'control: the default is the first directory');
  for (const cwd of [outside, `${inside}/../other`, join(inside, 'escape'), '/', '~']) {
    await assert.rejects(dirs.exec('pwd', { cwd }), { code: 'dir_not_allowed' }, cwd);
  }
});

test('put and get: inside works; outside, .., a symlink out or a dangling link is refused and nothing is written', async () => {
  assert.deepEqual(await dirs.put('sub/new.txt', 'hello'), {
    size: 5,
    sha256: '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824',
  });
  assert.equal(await readFile(join(inside, 'sub/new.txt'), 'utf8'), 'hello', 'control: written inside');
  assert.equal(await (await dirs.get('mine.txt')).text(), 'yours', 'control: read inside');
  for (const path of [join(outside, 'x.txt'), '../other/x.txt', 'escape/x.txt', 'dangling']) {
    await assert.rejects(dirs.put(path, 'evil'), { code: 'dir_not_allowed' }, path);
  }
  assert.equal(existsSync(join(outside, 'x.txt')), false);
  assert.equal(existsSync(join(outside, 'nowhere')), false);
  for (const path of [join(outside, 'secret.txt'), '../other/secret.txt', 'escape/secret.txt', 'secret-link.txt']) {
    await assert.rejects(dirs.get(path), { code: 'dir_not_allowed' }, path);
  }
  await assert.rejects(dirs.get('missing.txt'), { code: 'not_found' });
  await assert.rejects(dirs.get('sub'), { code: 'not_a_file' });
});

test('get with maxSize: a bigger file is refused with file_too_large before any byte is sent; control: at the size it \
arrives', async () => {
  const big = join(inside, 'big.bin');
  await writeFile(big, '');
  await truncate(big, 3 * 1024 * 1024); // sparse: 3 MB of zeros that cost nothing
  const raw = rawSocket(server.url);
  const hello = await raw.next('hello');
  const host = new URL(server.url).host;
  const signature = await sign(dirsKey.pair, authMessage(/** @type {{nonce: string}} */ (hello.header).nonce, host));
  raw.ws.send(
    encodeFrame('auth', 0, {
      version: PROTOCOL_VERSION,
      publicKey: await publicKeyBlob(dirsKey.pair),
      signature: toBase64(signature),
      host,
    }),
  );
  await raw.next('welcome');
  raw.ws.send(encodeFrame('get', 1, { path: 'big.bin', maxSize: 1024 * 1024 }));
  const refused = await raw.next('error');
  assert.equal(refused.channel, 1);
  assert.equal(/** @type {{code: string}} */ (refused.header).code, 'file_too_large');
  assert.match(
    /** @type {{message: string}} */ (refused.header).message,
    /3145728 bytes, over the 1048576 asked for at most; nothing was sent/,
  );
  // Control, on the same connection: the same file with a cap it fits arrives, and only now do chunks come.
  assert.deepEqual(
    raw.frames.filter((f) => f.t === 'open' || f.t === 'chunk'),
    [],
    'nothing of the refused file was sent',
  );
  raw.ws.send(encodeFrame('get', 3, { path: 'big.bin', maxSize: 3 * 1024 * 1024 }));
  assert.equal(/** @type {{size: number}} */ ((await raw.next('end')).header).size, 3 * 1024 * 1024);
  assert.ok(raw.frames.some((f) => f.t === 'chunk' && f.channel === 3));
  raw.ws.close();
  // Through the client: refused with the code, and the file fits a cap of its size.
  await assert.rejects(dirs.get('big.bin', { maxSize: 1024 }), { code: 'file_too_large' });
  assert.equal((await dirs.get('mine.txt', { maxSize: 5 })).size, 5, 'control: a file at the cap arrives');
});

test('put replaces a file only once all of it arrived and checked; a binary file round-trips', async () => {
  const bytes = new Uint8Array(300 * 1024).map((_, i) => (i * 7) % 256);
  const written = await dirs.put('blob.bin', new Blob([bytes]));
  assert.equal(written.size, bytes.byteLength);
  const back = new Uint8Array(await (await dirs.get('blob.bin')).arrayBuffer());
  assert.deepEqual(back, bytes);
});

/** A raw socket signed in with the directories key: for frames the client never sends. */
async function rawSignedIn() {
  const raw = rawSocket(server.url);
  const hello = await raw.next('hello');
  const host = new URL(server.url).host;
  const signature = await sign(dirsKey.pair, authMessage(/** @type {{nonce: string}} */ (hello.header).nonce, host));
  raw.ws.send(
    encodeFrame('auth', 0, {
      version: PROTOCOL_VERSION,
      publicKey: await publicKeyBlob(dirsKey.pair),
      signature: toBase64(signature),
      host,
    }),
  );
  await raw.next('welcome');
  return raw;
}

/**
 * The frames of one put on a raw socket, answered by `done` or `error` on its channel.
 * @param {ReturnType<typeof rawSocket>} raw @param {number} channel @param {string} path @param {Uint8Array} bytes @param {string} sha256
 */
async function rawPut(raw, channel, path, bytes, sha256) {
  raw.ws.send(encodeFrame('put', channel, { path, size: bytes.byteLength }));
  raw.ws.send(encodeFrame('chunk', channel, {}, bytes));
  raw.ws.send(encodeFrame('end', channel, { sha256, size: bytes.byteLength }));
  /** @type {(f: import('../protocol.js').Frame) => boolean} */
  const answer = (f) => f.channel === channel && (f.t === 'done' || f.t === 'error');
  await waitFrame(raw, answer);
  return /** @type {import('../protocol.js').Frame} */ (raw.frames.find(answer));
}

/** Waits for a frame matching `match` (kept frames count). @param {ReturnType<typeof rawSocket>} raw */
function waitFrame(raw, /** @type {(f: import('../protocol.js').Frame) => boolean} */ match) {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (raw.frames.some(match)) resolve(undefined);
    };
    raw.ws.on('message', check);
    raw.closed.then(() => reject(new Error('closed before the answer')));
    check();
  });
}

test('put with a wrong checksum: checksum_mismatch, the target unchanged or not created, no temp file left; control: \
the right checksum replaces it', async () => {
  const sha = (/** @type {Uint8Array} */ b) => createHash('sha256').update(b).digest('hex');
  const bytes = new TextEncoder().encode('damaged on the way');
  const wrong = sha(new TextEncoder().encode('something else'));
  await writeFile(join(inside, 'keep.txt'), 'original');
  const raw = await rawSignedIn();
  const replaced = await rawPut(raw, 1, 'keep.txt', bytes, wrong);
  assert.equal(replaced.t, 'error');
  assert.equal(/** @type {{code: string}} */ (replaced.header).code, 'checksum_mismatch');
  assert.equal(await readFile(join(inside, 'keep.txt'), 'utf8'), 'original', 'the existing file is unchanged');
  const created = await rawPut(raw, 3, 'fresh.txt', bytes, wrong);
  assert.equal(/** @type {{code: string}} */ (created.header).code, 'checksum_mismatch');
  assert.equal(existsSync(join(inside, 'fresh.txt')), false, 'a new file is not created');
  assert.deepEqual(
    (await readdir(inside)).filter((n) => n.includes('.wsh-')),
    [],
    'no temp file left',
  );
  const good = await rawPut(raw, 5, 'keep.txt', bytes, sha(bytes));
  assert.equal(good.t, 'done', 'control: the right checksum');
  assert.equal(await readFile(join(inside, 'keep.txt'), 'utf8'), 'damaged on the way', 'control: replaced');
  assert.deepEqual(
    (await readdir(inside)).filter((n) => n.includes('.wsh-')),
    [],
    'control: no temp file left',
  );
  raw.ws.close();
});

test('commands: a listed program runs without a shell; others, shell syntax and another PATH are refused', async () => {
  assert.equal((await cmds.exec('echo "a b" c')).stdout, 'a b c\n', 'control: a listed command, quotes honoured');
  assert.equal((await cmds.exec(['printf', '%s', '$(id)'])).stdout, '$(id)', 'control: argv, no expansion');
  await assert.rejects(cmds.exec('ls'), { code: 'command_not_allowed' });
  await assert.rejects(cmds.exec('/bin/echo hi'), { code: 'command_not_allowed' });
  await assert.rejects(cmds.exec('./echo hi'), { code: 'command_not_allowed' });
  for (const line of ['echo hi; ls', 'echo $(ls)', 'echo `ls`', 'echo hi | cat', 'echo hi > x', 'echo *', 'echo "$HOME"']) {
    await assert.rejects(cmds.exec(line), { code: 'shell_syntax_not_allowed' }, line);
  }
  await assert.rejects(cmds.spawn('', { pty: true }), { code: 'malformed_frame' });
  await assert.rejects(cmds.spawn(undefined, { pty: true }), { code: 'command_not_allowed' }, 'no login shell for a limited key');
  await assert.rejects(cmds.exec('echo hi', { env: { PATH: '/tmp' } }), { code: 'env_not_allowed' });
  assert.equal((await cmds.exec(['printf', 'ok'], { env: { LANG: 'C' } })).stdout, 'ok', 'control: a listed variable');
  await assert.rejects(cmds.exec('echo hi', { cwd: outside }), { code: 'dir_not_allowed' });
});

test('sessions: a second process over the limit is refused; once the first ends, it runs (control)', async () => {
  const first = await few.spawn('read x; echo done');
  await assert.rejects(few.exec('echo second'), { code: 'too_many_sessions' });
  await first.write('go\n');
  assert.deepEqual(await first.exited, { exitCode: 0, signal: null });
  assert.equal((await few.exec('echo second')).stdout, 'second\n', 'control');
});

test('output: a process writing past the key output cap is stopped with output_limit (control: under the cap)', async () => {
  assert.equal((await few.exec('head -c 500 /dev/zero', { encoding: 'binary' })).stdout.byteLength, 500, 'control');
  await assert.rejects(few.exec('head -c 100000 /dev/zero'), { code: 'output_limit' });
  assert.equal((await few.exec('echo after')).stdout, 'after\n', 'the session was given back');
});
