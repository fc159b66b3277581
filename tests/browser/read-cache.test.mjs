// The storage read path's cache (issue 36 §2) never serves what a finished write replaced:
// another tab's write, a worker's, git's. Each case has its control: a file system that does not
// hear the others (its cache channel closed) goes on serving the old content from memory — the
// cache is really in use, and the channel is what keeps it right.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useFixture } from './fixture.mjs';

const fx = await useFixture({ page: 'home' });
const { app, browser, page: tabA } = fx;
const tabB = await browser.context.newPage();
await tabB.goto(`${app.url}#home`);

const DIR = 'clawser_workspaces/readcache';

/**
 * Opens (once per page) file systems of the storage layer by name in `page`, each with its own
 * storage worker and cache, waiting until each keeps what it reads.
 * @param {import('playwright-core').Page} page @param {string[]} names
 */
function openFs(page, names) {
  return page.evaluate(async (names) => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const w = /** @type {any} */ (window); // the test's own handles on the page
    w.rc ??= {};
    for (const n of names) {
      w.rc[n] ??= new OpfsFileSystem();
      await w.rc[n].cacheReady();
    }
  }, names);
}

/**
 * Runs one call of a named file system in `page`: read (text, or null when missing), stat size,
 * write, delete, list (names), or the cache's size; `deaf` closes its channel to other members (the control).
 * @param {import('playwright-core').Page} page @param {string} name
 * @param {'read' | 'size' | 'write' | 'delete' | 'kept' | 'deaf' | 'list'} op @param {string} [path] @param {string} [text]
 */
function call(page, name, op, path = '', text = '') {
  return page.evaluate(
    async ({ name, op, path, text }) => {
      const fs = /** @type {any} */ (window).rc[name]; // the test's own handles on the page
      if (op === 'read')
        return fs.readText(path).catch((/** @type {{code?: string}} */ e) => (e.code === 'not_found' ? null : Promise.reject(e)));
      if (op === 'size') return (await fs.stat(path))?.size ?? null;
      if (op === 'write') return fs.write(path, text);
      if (op === 'delete') return fs.delete(path);
      if (op === 'kept') return fs.cacheInfo().entries;
      if (op === 'list') return (await fs.list(path)).map((/** @type {{name: string}} */ e) => e.name);
      // Leaves the channel but keeps reading through its cache: it no longer hears of others' writes.
      fs.close();
      return null;
    },
    { name, op, path, text },
  );
}

test("tab A reads, tab B writes, tab A reads B's content: contents, sizes, listings and deletes, never the kept copy", async () => {
  await openFs(tabA, ['a', 'deaf']);
  await openFs(tabB, ['b']);
  const file = `${DIR}/tabs/notes.txt`;
  await call(tabA, 'a', 'write', file, 'one');
  assert.equal(await call(tabA, 'a', 'read', file), 'one');
  assert.equal(await call(tabA, 'a', 'size', file), 3);
  assert.ok((await call(tabA, 'a', 'kept')) >= 1, 'tab A keeps what it read');
  // The control reads the same file, keeps it, and stops hearing the others.
  assert.equal(await call(tabA, 'deaf', 'read', file), 'one');
  await call(tabA, 'deaf', 'deaf');
  assert.equal(await call(tabA, 'deaf', 'read', file), 'one');
  assert.deepEqual(await call(tabA, 'a', 'list', `${DIR}/tabs`), ['notes.txt']);
  assert.deepEqual(await call(tabA, 'deaf', 'list', `${DIR}/tabs`), ['notes.txt']);
  // A new file in the folder, from tab B: A's listing has it.
  await call(tabB, 'b', 'write', `${DIR}/tabs/second.txt`, '2');
  assert.deepEqual(await call(tabA, 'a', 'list', `${DIR}/tabs`), ['notes.txt', 'second.txt']);
  assert.deepEqual(await call(tabA, 'deaf', 'list', `${DIR}/tabs`), ['notes.txt'], 'control: the deaf one kept its listing');

  await call(tabB, 'b', 'write', file, 'two, longer');
  assert.equal(await call(tabA, 'a', 'read', file), 'two, longer');
  assert.equal(await call(tabA, 'a', 'size', file), 11);
  // Control: the file system that did not hear B still serves its copy — the cache is what A read from.
  assert.equal(await call(tabA, 'deaf', 'read', file), 'one');

  // Again, now that A keeps "two, longer": B's next write and then B's delete of the folder.
  assert.equal(await call(tabA, 'a', 'read', file), 'two, longer');
  await call(tabB, 'b', 'write', file, 'three');
  assert.equal(await call(tabA, 'a', 'read', file), 'three');
  await call(tabB, 'b', 'delete', `${DIR}/tabs`);
  assert.equal(await call(tabA, 'a', 'read', file), null);
  assert.equal(await call(tabA, 'a', 'size', file), null);
});

test('a write from a worker reaches the page’s cache before the worker’s write resolves', async () => {
  await openFs(tabA, ['a']);
  const file = `${DIR}/worker/data.txt`;
  await call(tabA, 'a', 'write', file, 'from the page');
  assert.equal(await call(tabA, 'a', 'read', file), 'from the page');
  const answer = await tabA.evaluate(async (file) => {
    // A module worker with its own OpfsFileSystem (its own storage worker inside it).
    const source = `
      const { OpfsFileSystem } = await import('${location.origin}/web/storage/opfs-fs.js');
      const fs = new OpfsFileSystem();
      await fs.cacheReady();
      await fs.write(${JSON.stringify(file)}, 'from the worker');
      postMessage('written');`;
    const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
    const worker = new Worker(url, { type: 'module' });
    try {
      return await new Promise((resolve, reject) => {
        worker.onmessage = (e) => resolve(e.data);
        worker.onerror = (e) => reject(new Error(e.message));
      });
    } finally {
      worker.terminate();
      URL.revokeObjectURL(url);
    }
  }, file);
  assert.equal(answer, 'written');
  assert.equal(await call(tabA, 'a', 'read', file), 'from the worker');
});

test("git's writes (a restore through another file system) reach a cache that had read the file", async () => {
  await openFs(tabA, ['a']);
  const out = await tabA.evaluate(async (dir) => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const { ScopedFileSystem } = await import('/web/storage/scoped-fs.js');
    const { WorkspaceGit } = await import('/web/git/git.js');
    const reader = /** @type {any} */ (window).rc.a; // the test's own handle on the page
    const gitRoot = new OpfsFileSystem();
    await gitRoot.cacheReady();
    const repo = new WorkspaceGit(new ScopedFileSystem(gitRoot, `${dir}/git`));
    const path = `${dir}/git/readme.md`;
    await reader.write(path, 'committed\n');
    await repo.commitAll({ message: 'first' });
    await reader.write(path, 'edited\n');
    const before = await reader.readText(path);
    const keptBefore = reader.cacheInfo().entries;
    await repo.restore('HEAD', { filepath: 'readme.md' });
    const after = await reader.readText(path);
    // And git's own reads after the page's write: status sees the page's change at once.
    await reader.write(path, 'edited again\n');
    const status = await repo.status();
    gitRoot.close();
    return { before, keptBefore, after, status: status.map((s) => `${s.path}:${s.state}`) };
  }, DIR);
  assert.equal(out.before, 'edited\n');
  assert.ok(out.keptBefore >= 1);
  assert.equal(out.after, 'committed\n');
  assert.deepEqual(out.status, ['readme.md:modified']);
});
