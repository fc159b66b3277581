// Issue 11 §1: Clawser's own folders (.scheduler, .goals, .memory, .conversations, .checkpoints,
// .skills, .vault, .secrets, .git) are written only by their owners. The storage layer's
// protected view refuses every other writer; git never checks them out of, nor commits them
// into, a repository — tested with a real repository built by the git CLI and served by git's
// own HTTP backend.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { zipSync, strToU8 } from 'fflate';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { ScopedFileSystem } from '../../web/storage/scoped-fs.js';
import { ProtectedFileSystem, gitFileSystem } from '../../web/storage/protected-fs.js';
import { PROTECTED_FOLDERS } from '../../web/storage/workspace-folders.js';
import { cloneInto } from '../../web/git/git.js';
import { Scheduler } from '../../web/stores/scheduler.js';
import { GoalStore } from '../../web/stores/goals.js';
import { MemoryStore } from '../../web/memory/store.js';
import { ConversationStore } from '../../web/agent/conversation/conversation-store.js';
import { CheckpointManager } from '../../web/agent/coordination/checkpoint.js';
import { FilesController } from '../../web/app/files-controller.js';
import { startGitServer } from '../fixtures/git-http-server.mjs';
import { internalStateFiles, PLANTED } from '../fixtures/internal-state.mjs';

const isProtected = (/** @type {any} */ e) => e.code === 'protected' && /Clawser's own folders/.test(e.message);

test("the protected view refuses every change inside Clawser's own folders, whatever the case; reads and other paths work", async () => {
  const mem = new MemoryFileSystem();
  await mem.write('.scheduler/jobs.json', '{"version":1,"jobs":[]}');
  await mem.write('notes/a.md', 'a');
  const fs = new ProtectedFileSystem(mem);
  for (const folder of PROTECTED_FOLDERS) {
    for (const path of [`${folder}/x.json`, `/${folder.toUpperCase()}//deep/x.json`]) {
      await assert.rejects(fs.write(path, 'x'), isProtected, path);
      await assert.rejects(fs.append(path, 'x'), isProtected, path);
      await assert.rejects(fs.truncate(path, 0), isProtected, path);
      await assert.rejects(fs.mkdir(path), isProtected, path);
      await assert.rejects(fs.delete(path), isProtected, path);
      await assert.rejects(fs.move('notes/a.md', path), isProtected, path);
      await assert.rejects(fs.move(path, 'notes/b.md'), isProtected, path);
    }
    await assert.rejects(fs.delete(folder), isProtected);
  }
  await assert.rejects(fs.delete(''), (/** @type {any} */ e) => e.code === 'protected', 'the root holds the internal folders');
  assert.equal(await mem.readText('.scheduler/jobs.json'), '{"version":1,"jobs":[]}', 'nothing changed');
  // Reads pass; everything outside the folders is writable (the control).
  assert.equal(await fs.readText('.scheduler/jobs.json'), '{"version":1,"jobs":[]}');
  await fs.write('notes/b.md', 'b');
  await fs.append('notes/b.md', 'c');
  await fs.move('notes/b.md', 'scheduler/jobs.json'); // no leading dot: a user folder
  await fs.mkdir('.schedulers'); // a look-alike name is the user's
  await fs.delete('notes');
  assert.equal(await mem.readText('scheduler/jobs.json'), 'bc');
  // Git's view may change .git, and nothing else of Clawser's.
  const g = gitFileSystem(mem);
  await g.write('.git/HEAD', 'ref: refs/heads/main\n');
  await assert.rejects(g.write('.memory/entries.jsonl', '{}'), isProtected);
});

/** The real git CLI, isolated from the developer's config. @param {string} cwd @param {...string} args @returns {Promise<string>} */
function git(cwd, ...args) {
  /** @type {NodeJS.ProcessEnv} */
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_')) env[k] = v;
  Object.assign(env, { HOME: cwd, XDG_CONFIG_HOME: cwd, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' });
  return new Promise((resolve, reject) => {
    execFile('git', ['-c', 'user.name=Other', '-c', 'user.email=other@example.com', ...args], { cwd, env }, (err, stdout, stderr) =>
      err ? reject(new Error(`git ${args.join(' ')}: ${stderr}`)) : resolve(stdout.trim()),
    );
  });
}

/** @param {string} dir @param {Record<string, string>} files */
async function writeTree(dir, files) {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
}

/**
 * What the workspace's own stores hold: only what the user made may be there.
 * @param {MemoryFileSystem} root @param {import('../../web/storage/types.d.ts').FileSystem} ws
 */
async function storesOf(root, ws) {
  const memory = new MemoryStore({ fs: ws });
  return {
    jobs: (await new Scheduler({ fs: ws, execute: async () => ({ ok: true, summary: '' }) }).list()).map((j) => j.name),
    goals: (await new GoalStore({ fs: ws }).list()).map((g) => g.description),
    memories: (await memory.list()).map((m) => m.key),
    pinned: (await memory.pinned()).map((m) => m.key),
    conversations: (await new ConversationStore(root, 'w').list()).map((c) => c.title),
    checkpoints: (await new CheckpointManager({ fs: ws }).list()).length,
    skills: await ws.stat('.skills'),
    vault: await ws.stat('.vault'),
  };
}

test("a repository carrying every internal folder: clone, pull, branch switch and restore never write them; \
commits keep the repository's copies", async (t) => {
  const server = await startGitServer();
  t.after(() => server.close());
  const work = await mkdtemp(join(tmpdir(), 'clawser-internal-'));
  t.after(() => rm(work, { recursive: true, force: true }));
  const planted = await internalStateFiles('v1');
  const internalCount = Object.keys(planted).length;
  const url = await server.createRepo('planted', { 'README.md': '# Planted\n', 'docs/guide.md': 'Guide v1\n', ...planted });
  assert.ok(
    (await server.git('planted', 'ls-tree', '-r', '--name-only', 'main')).includes('.scheduler/jobs.json'),
    'the real git committed the internal folders',
  );

  const root = new MemoryFileSystem();
  const ws = new ScopedFileSystem(root, 'clawser_workspaces/w');
  // The user's own goal, made by the owning store before the clone.
  await new GoalStore({ fs: ws }).add({ description: 'My own goal' });
  const mine = await ws.readText('.goals/goals.json');
  const expected = {
    jobs: [],
    goals: ['My own goal'],
    memories: [],
    pinned: [],
    conversations: [],
    checkpoints: 0,
    skills: null,
    vault: null,
  };

  // Clone.
  const { repo, skipped } = await cloneInto(ws, url);
  assert.equal(skipped, internalCount, 'the clone reports every internal file it left out');
  assert.equal(await ws.readText('docs/guide.md'), 'Guide v1\n');
  assert.deepEqual(await storesOf(root, ws), expected);
  assert.equal(await ws.readText('.goals/goals.json'), mine);
  // Only the user's own goal's Markdown mirror (goals/, a normal folder) is new; nothing else changed.
  assert.deepEqual(
    (await repo.status()).filter((s) => s.state !== 'unchanged' || s.staged || s.unstaged).map((s) => s.path.split('/')[0]),
    ['goals'],
  );
  const first = (await repo.log())[0].oid;
  // Below git itself: its file system adapter cannot write there either.
  await assert.rejects(repo.fs.promises.writeFile('/.scheduler/jobs.json', '{}'), { code: 'EPERM' });
  await repo.fs.promises.writeFile('/.git/clawser-probe', 'x'); // the control: .git is git's own
  await repo.fs.promises.unlink('/.git/clawser-probe');

  // Someone changes every internal file and a normal one; pull.
  const other = join(work, 'other');
  await git(work, 'clone', '-q', url, other);
  const plantedV2 = await internalStateFiles('v2');
  const onMain = new Set([...Object.keys(planted), ...Object.keys(plantedV2)]);
  await writeTree(other, { ...plantedV2, 'docs/guide.md': 'Guide v2\n' });
  await git(other, 'add', '-A');
  await git(other, 'commit', '-q', '-m', 'Change everything');
  await git(other, 'push', '-q', 'origin', 'main');
  const pulled = await repo.pull();
  assert.equal(pulled.skipped, onMain.size, 'pull reports the internal files it left out');
  assert.equal(await ws.readText('docs/guide.md'), 'Guide v2\n');
  assert.deepEqual(await storesOf(root, ws), expected);

  // A branch from the first commit: switching writes the older internal files nowhere.
  const switched = await repo.createBranch('old', { from: first, checkout: true });
  assert.equal(switched.skipped, internalCount);
  assert.equal(await ws.readText('docs/guide.md'), 'Guide v1\n');
  assert.deepEqual(await storesOf(root, ws), expected);
  const back = await repo.switchBranch('main');
  assert.equal(back.skipped, onMain.size);
  assert.equal(await ws.readText('docs/guide.md'), 'Guide v2\n');
  assert.deepEqual(await storesOf(root, ws), expected);

  // Restore the first commit: its normal files come back, its internal ones do not.
  const restored = await repo.restore(first);
  // (A whole-tree restore also removes files the commit did not have, here the goal's Markdown mirror.)
  assert.deepEqual(
    restored.changed.filter((p) => !p.startsWith('goals/')),
    ['docs/guide.md'],
  );
  assert.equal(restored.skipped, internalCount);
  assert.deepEqual(await storesOf(root, ws), expected);
  await assert.rejects(repo.restore(first, { filepath: '.scheduler/jobs.json' }), { code: 'protected' });
  assert.deepEqual(await storesOf(root, ws), expected);

  // The other side: the workspace's own folders are never staged or committed, and a commit
  // neither deletes nor replaces the repository's copies.
  await assert.rejects(repo.stage(['.goals/goals.json']), { code: 'protected' });
  await assert.rejects(repo.stage(['.scheduler/jobs.json']), { code: 'protected' });
  await assert.rejects(repo.stage(['./.Memory/entries.jsonl']), { code: 'protected' });
  await repo.commitAll({ message: 'Back to guide v1' });
  await repo.push();
  const tree = (await server.git('planted', 'ls-tree', '-r', '--name-only', 'main')).split('\n');
  assert.deepEqual(tree.filter((p) => p.startsWith('.')).sort(), [...onMain].sort(), "the repository's internal files are all still there");
  assert.equal(await server.git('planted', 'show', 'main:docs/guide.md'), 'Guide v1');
  assert.doesNotMatch(await server.git('planted', 'show', 'main:.goals/goals.json'), /My own goal/);
  assert.match(await server.git('planted', 'show', 'main:.goals/goals.json'), new RegExp(`${PLANTED} goal v2`));
  await server.git('planted', 'fsck', '--full');
});

test("ZIP import into the Files panel skips and reports entries of Clawser's own folders; the rest is imported", async () => {
  const root = new MemoryFileSystem();
  const ws = new ScopedFileSystem(root, 'clawser_workspaces/w');
  const files = new FilesController({ fs: new ProtectedFileSystem(ws) });
  const planted = await internalStateFiles('zip');
  const zip = zipSync({
    'notes/a.md': strToU8('a'),
    ...Object.fromEntries(Object.entries(planted).map(([p, text]) => [p, strToU8(text)])),
  });
  const r = await files.importZip('', zip);
  assert.deepEqual(r.written, ['notes/a.md']);
  assert.deepEqual(r.refused.map((x) => x.name).sort(), Object.keys(planted).sort());
  assert.deepEqual(await storesOf(root, ws), {
    jobs: [],
    goals: [],
    memories: [],
    pinned: [],
    conversations: [],
    checkpoints: 0,
    skills: null,
    vault: null,
  });
});
