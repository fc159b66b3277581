import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { startGitServer } from '../fixtures/git-http-server.mjs';

/** A temp dir removed after the test. @param {import('node:test').TestContext} t */
async function tempDir(t) {
  const dir = await mkdtemp(join(tmpdir(), 'clawser-git-client-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Runs the real git CLI as a client, isolated from the developer's config and never
 * prompting for credentials. Rejects with stderr in the message.
 * @param {string} cwd
 * @param {string[]} args
 * @returns {Promise<string>}
 */
function git(cwd, ...args) {
  /** @type {NodeJS.ProcessEnv} */
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_')) env[k] = v;
  Object.assign(env, { HOME: cwd, XDG_CONFIG_HOME: cwd, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' });
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, env }, (err, stdout, stderr) => {
      if (err) reject(new Error(`git ${args.join(' ')}: ${stderr || err.message}`));
      else resolve(stdout.trim());
    });
  });
}

/** Puts Basic credentials into a URL, as a user would for git. @param {string} url */
function withCreds(url, user = 'x', pass = 'sekret') {
  const u = new URL(url);
  u.username = user;
  u.password = pass;
  return u.href;
}

test('clone, commit, push over smart HTTP; the bare repo has both commits and passes fsck', async (t) => {
  const server = await startGitServer();
  t.after(() => server.close());
  const url = await server.createRepo('demo', { 'a.txt': 'A\n' });
  assert.equal(url, `${server.url}/demo.git`);

  const dir = await tempDir(t);
  await git(dir, 'clone', '-q', url, 'demo');
  const work = join(dir, 'demo');
  assert.equal(await readFile(join(work, 'a.txt'), 'utf8'), 'A\n');

  await writeFile(join(work, 'b.txt'), 'B\n');
  await git(work, 'add', 'b.txt');
  await git(work, '-c', 'user.name=Dev', '-c', 'user.email=dev@example.com', 'commit', '-q', '-m', 'second');
  await git(work, 'push', '-q', 'origin', 'main');

  assert.equal(await server.git('demo', 'log', '--format=%s', 'main'), 'second\ninitial');
  assert.equal(await server.git('demo', 'show', 'main:b.txt'), 'B');
  await server.git('demo', 'fsck', '--full');

  const push = server.requests.find((r) => r.method === 'POST' && r.path === '/demo.git/git-receive-pack');
  assert.equal(push?.status, 200);
  assert.ok(server.requests.some((r) => r.path === '/demo.git/info/refs' && r.query === 'service=git-upload-pack' && r.status === 200));
});

test('a large push goes out chunked (no Content-Length) and still lands', async (t) => {
  const server = await startGitServer({ token: 'sekret' });
  t.after(() => server.close());
  const url = await server.createRepo('demo', { 'a.txt': 'A\n' });
  const dir = await tempDir(t);
  await git(dir, 'clone', '-q', withCreds(url), 'demo');
  const work = join(dir, 'demo');
  await writeFile(join(work, 'big.bin'), randomBytes(256 * 1024)); // incompressible
  await git(work, 'add', 'big.bin');
  await git(work, '-c', 'user.name=Dev', '-c', 'user.email=dev@example.com', 'commit', '-q', '-m', 'big');
  // A tiny postBuffer makes git stream the pack with Transfer-Encoding: chunked.
  await git(work, '-c', 'http.postBuffer=1024', 'push', '-q', 'origin', 'main');
  assert.equal(await server.git('demo', 'log', '--format=%s', 'main'), 'big\ninitial');
  assert.equal(await server.git('demo', 'cat-file', '-s', 'main:big.bin'), String(256 * 1024));
  await server.git('demo', 'fsck', '--full');
});

test('createRepo defaults to a README commit; with no files the repo stays empty', async (t) => {
  const server = await startGitServer();
  t.after(() => server.close());
  await server.createRepo('dflt');
  assert.equal(await server.git('dflt', 'show', 'main:README.md'), '# hello');
  await server.createRepo('empty', {});
  await assert.rejects(server.git('empty', 'rev-parse', '--verify', 'main'));
  assert.equal(await server.git('empty', 'config', 'http.receivepack'), 'true');
});

test('Git-Protocol header selects protocol v2; the real git clones over v2', async (t) => {
  const server = await startGitServer();
  t.after(() => server.close());
  const url = await server.createRepo('demo', { 'a.txt': 'A\n' });

  const v2 = await fetch(`${url}/info/refs?service=git-upload-pack`, { headers: { 'git-protocol': 'version=2' } });
  assert.equal(v2.headers.get('content-type'), 'application/x-git-upload-pack-advertisement');
  assert.match(await v2.text(), /version 2/);
  const v0 = await (await fetch(`${url}/info/refs?service=git-upload-pack`)).text();
  assert.match(v0, /# service=git-upload-pack/);
  assert.doesNotMatch(v0, /version 2/);

  const dir = await tempDir(t);
  await git(dir, '-c', 'protocol.version=2', 'clone', '-q', url, 'demo');
  assert.equal(await readFile(join(dir, 'demo', 'a.txt'), 'utf8'), 'A\n');
});

test('a gzip-encoded upload-pack request body is inflated by http-backend', async (t) => {
  const server = await startGitServer();
  t.after(() => server.close());
  const url = await server.createRepo('demo', { 'a.txt': 'A\n' });
  const head = await server.git('demo', 'rev-parse', 'main');

  // pkt-lines: "want <oid>\n", flush, "done\n" (protocol v0, no capabilities).
  const want = `want ${head}\n`;
  const body = `${(want.length + 4).toString(16).padStart(4, '0')}${want}00000009done\n`;
  const res = await fetch(`${url}/git-upload-pack`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-git-upload-pack-request', 'content-encoding': 'gzip' },
    body: gzipSync(body),
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/x-git-upload-pack-result');
  const bytes = Buffer.from(await res.arrayBuffer());
  assert.ok(bytes.includes('PACK'), 'the response carries a packfile');
});

test('token auth: no credentials → 401 (git fails), Basic with the token as password works', async (t) => {
  const server = await startGitServer({ token: 'sekret' });
  t.after(() => server.close());
  const url = await server.createRepo('demo', { 'a.txt': 'A\n' });
  const dir = await tempDir(t);

  await assert.rejects(git(dir, 'clone', '-q', url, 'nocreds'));
  assert.ok(server.requests.some((r) => r.status === 401));
  await assert.rejects(git(dir, 'clone', '-q', withCreds(url, 'x', 'wrong'), 'wrongcreds'));

  await git(dir, 'clone', '-q', withCreds(url), 'demo');
  assert.equal(await readFile(join(dir, 'demo', 'a.txt'), 'utf8'), 'A\n');

  const denied = await fetch(`${url}/info/refs?service=git-upload-pack`, { headers: { origin: 'http://app.test' } });
  assert.equal(denied.status, 401);
  assert.equal(denied.headers.get('www-authenticate'), 'Basic realm="test"');
  assert.equal(denied.headers.get('access-control-allow-origin'), 'http://app.test');
  assert.match(denied.headers.get('access-control-expose-headers') ?? '', /www-authenticate/);
  await denied.text();

  const ok = await fetch(`${url}/info/refs?service=git-receive-pack`, {
    headers: { authorization: `Basic ${Buffer.from('anyone:sekret').toString('base64')}` },
  });
  assert.equal(ok.status, 200);
  assert.match(await ok.text(), /# service=git-receive-pack/);
});

test('OPTIONS preflight answers 204 with CORS headers and needs no auth', async (t) => {
  const server = await startGitServer({ token: 'sekret' });
  t.after(() => server.close());
  const url = await server.createRepo('demo');
  const res = await fetch(`${url}/git-upload-pack`, {
    method: 'OPTIONS',
    headers: {
      origin: 'http://app.test',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    },
  });
  assert.equal(res.status, 204);
  assert.equal(res.headers.get('access-control-allow-origin'), 'http://app.test');
  const allowHeaders = res.headers.get('access-control-allow-headers') ?? '';
  for (const h of ['authorization', 'content-type', 'git-protocol', 'user-agent', 'x-authorization'])
    assert.match(allowHeaders, new RegExp(`\\b${h}\\b`));
  assert.match(res.headers.get('access-control-allow-methods') ?? '', /GET, POST, OPTIONS/);
  assert.match(res.headers.get('access-control-expose-headers') ?? '', /content-type/);
  assert.deepEqual(server.requests.at(-1), { method: 'OPTIONS', path: '/demo.git/git-upload-pack', query: '', status: 204 });

  // Without an Origin (not a browser) the wildcard is sent.
  const plain = await fetch(`${url}/info/refs?service=git-upload-pack`, { method: 'OPTIONS' });
  assert.equal(plain.headers.get('access-control-allow-origin'), '*');
});

test('cors: false sends no CORS headers at all', async (t) => {
  const server = await startGitServer({ cors: false });
  t.after(() => server.close());
  const url = await server.createRepo('demo');
  const pre = await fetch(`${url}/git-upload-pack`, { method: 'OPTIONS', headers: { origin: 'http://app.test' } });
  assert.equal(pre.status, 204);
  assert.equal(pre.headers.get('access-control-allow-origin'), null);
  const get = await fetch(`${url}/info/refs?service=git-upload-pack`, { headers: { origin: 'http://app.test' } });
  assert.equal(get.status, 200);
  await get.text();
  for (const name of get.headers.keys()) assert.ok(!name.startsWith('access-control-'), name);
});

test('unknown repos get the backend error status; close() removes the temp root', async (t) => {
  const server = await startGitServer();
  let closed = false;
  t.after(() => (closed ? undefined : server.close()));
  const res = await fetch(`${server.url}/missing.git/info/refs?service=git-upload-pack`);
  assert.equal(res.status, 404);
  await res.text();
  assert.ok(existsSync(server.root));
  await server.close();
  closed = true;
  assert.equal(existsSync(server.root), false);
  await server.close(); // idempotent
});
