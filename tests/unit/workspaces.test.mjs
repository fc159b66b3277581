import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WorkspaceStore } from '../../web/app/workspaces.js';
import { LocalConfig } from '../../web/storage/local-config.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { memoryStorage } from '../fixtures/stand-ins.mjs';

/** What a workspace's tools keep in config, by workspace id. @param {string} id */
const toolKeys = (id) => [
  `clawser_tool_perms_${id}`,
  `clawser_tool_rules_${id}`,
  `clawser_skills_enabled_${id}`,
  `clawser_built_tools_${id}`,
  `clawser_ui_tag_filter_${id}`,
  `clawser_ui_list_hidden_${id}`,
  `clawser_mcp_servers_${id}`,
  `clawser_mcp_tool_lists_${id}`,
  `clawser_mcp_secret_${id}_abcd1234`,
  `clawser_mcp_oauth_${id}_abcd1234`,
];

test('deleting a workspace removes what its tools kept in config, and only its own', async () => {
  const config = new LocalConfig(memoryStorage());
  /** @type {string[]} */
  const deleted = [];
  const store = new WorkspaceStore({ config, fs: new MemoryFileSystem(), onDelete: (id) => deleted.push(id) });
  const gone = await store.create('Gone');
  const kept = await store.create('Kept');
  for (const id of [gone.id, kept.id]) for (const k of toolKeys(id)) config.set(k, { planted: true });

  await store.delete(gone.id);

  assert.deepEqual(
    store.list().map((w) => w.name),
    ['Kept'],
  );
  assert.deepEqual(deleted, [gone.id]);
  for (const k of toolKeys(gone.id)) assert.equal(config.get(k, null), null, `${k} is removed`);
  // Control: the other workspace's keys are still there.
  for (const k of toolKeys(kept.id)) assert.deepEqual(config.get(k, null), { planted: true }, `${k} is kept`);
});

// ---------------------------------------------------------------------------------------------
// The list in durable storage: a crash mid-delete, a lost or damaged list

/** A restartable app's stores over one storage: `start()` is a page load (settings read from the files). */
async function durable(fs = new MemoryFileSystem()) {
  const { DurableConfig } = await import('../../web/storage/durable-config.js');
  const { configFileOf } = await import('../../web/app/config-files.js');
  const start = async () => {
    const config = new DurableConfig({ fs, files: ['workspaces.json', 'settings.json'], fileOf: configFileOf, lock: (_n, fn) => fn() });
    await config.load();
    return { config, store: new WorkspaceStore({ config, fs }) };
  };
  return { fs, start };
}

/**
 * A file system whose folder deletes die half way, as a killed browser leaves them: one of the
 * folder's files is gone, then the call never returns. `crashed` resolves then.
 * @param {MemoryFileSystem} fs
 */
function crashingDeletes(fs) {
  /** @type {() => void} */
  let crash = () => {};
  const crashed = new Promise((resolve) => (crash = () => resolve(undefined)));
  const view = new Proxy(fs, {
    get(target, prop) {
      if (prop === 'delete') {
        return async (/** @type {string} */ path) => {
          const entries = await target.list(path).catch(() => []);
          if (entries[0]) await target.delete(`${path}/${entries[0].name}`);
          crash();
          return new Promise(() => {}); // the process is gone
        };
      }
      const v = /** @type {any} */ (target)[prop]; // any: forwarding every other member as it is
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { view, crashed };
}

test('a delete cut short by a crash leaves the workspace off the list, and the next start finishes it (control: \
a delete that runs to the end)', async () => {
  const { fs, start } = await durable();
  const first = await start();
  const gone = await first.store.create('Gone');
  const kept = await first.store.create('Kept');
  for (const w of [gone, kept]) for (let i = 0; i < 5; i++) await fs.write(`clawser_workspaces/${w.id}/${i}.md`, 'x');
  // The crash: the files only partly deleted.
  const { view, crashed } = crashingDeletes(fs);
  void new WorkspaceStore({ config: first.config, fs: view }).delete(gone.id);
  await crashed;
  assert.equal((await fs.list(`clawser_workspaces/${gone.id}`)).length, 4, 'its files are still partly there');
  const next = await start();
  assert.deepEqual(
    next.store.list().map((w) => w.name),
    ['Kept'],
    'not listed as a normal workspace',
  );
  assert.deepEqual(next.store.deleting(), [gone.id]);
  assert.deepEqual(await next.store.unlisted(), [], 'not offered back either');
  assert.equal(await next.store.finishDeletes(), 1);
  assert.equal(await fs.stat(`clawser_workspaces/${gone.id}`), null, 'its files are gone');
  assert.deepEqual(next.store.deleting(), []);
  // Control: an ordinary delete leaves nothing to finish.
  await next.store.delete(kept.id);
  assert.equal(await fs.stat(`clawser_workspaces/${kept.id}`), null);
  assert.deepEqual((await start()).store.deleting(), []);
});

test('workspace folders the list does not name are found, with the name their record knows, and can be added back (control: \
a listed one is not offered)', async () => {
  const { fs, start } = await durable();
  const { config, store } = await start();
  const alpha = await store.create('Alpha');
  const beta = await store.create('Beta');
  await fs.mkdir('clawser_workspaces/wnorecord');
  // The list loses Beta (a crash of an earlier version lost localStorage's copy, say).
  config.set(
    'clawser_workspaces',
    store.list().filter((w) => w.id !== beta.id),
  );
  await config.flush();
  const found = await store.unlisted();
  assert.deepEqual(found.map((f) => [f.id, f.name]).sort(), [
    [beta.id, 'Beta'],
    ['wnorecord', null],
  ]);
  const added = await store.addBack(found);
  assert.deepEqual(added.map((w) => w.name).sort(), ['Beta', 'Recovered workspace 2'].sort());
  assert.deepEqual(
    (await start()).store
      .list()
      .map((w) => w.id)
      .sort(),
    [alpha.id, beta.id, 'wnorecord'].sort(),
  );
  assert.deepEqual(await store.unlisted(), []);
});

test("the records of workspaces whose folder is gone (replaced by a restore) are removed; \
a listed workspace's record and an unlisted folder's stay (control)", async () => {
  const { fs, start } = await durable();
  const { store } = await start();
  const kept = await store.create('Kept');
  const gone = await store.create('Gone');
  const found = await store.create('Found');
  // A restore replaced the workspaces: Gone's folder went and the list no longer names it; Found's
  // folder stayed but the list lost it.
  await fs.delete(`clawser_workspaces/${gone.id}`);
  const next = await start();
  next.config.set(
    'clawser_workspaces',
    next.store.list().filter((w) => w.id === kept.id),
  );
  await next.config.flush();
  await next.store.ensureRecords();
  const records = (await fs.list('clawser_state/workspaces')).map((e) => e.name).sort();
  assert.deepEqual(records, [`${found.id}.json`, `${kept.id}.json`].sort());
  assert.deepEqual(
    (await next.store.unlisted()).map((f) => f.name),
    ['Found'],
    'the unlisted folder keeps its name',
  );
});

test('a damaged list is never written over: nothing is listed or created, the folders are found, and after setting it aside they come back \
(control: an intact list)', async () => {
  const { fs, start } = await durable();
  const { store } = await start();
  const alpha = await store.create('Alpha');
  await store.rename(alpha.id, 'Alpha renamed');
  const damaged = (await fs.readText('clawser_state/workspaces.json')).slice(0, 40);
  await fs.write('clawser_state/workspaces.json', damaged);
  const next = await start();
  assert.match(next.store.damage()?.reason ?? '', /^cut short/);
  assert.deepEqual(next.store.list(), []);
  await assert.rejects(next.store.create('New'), { code: 'damaged' });
  await assert.rejects(next.store.rename(alpha.id, 'x'), { code: 'damaged' });
  next.store.touch(alpha.id);
  await next.config.flush().catch(() => {});
  assert.equal(await fs.readText('clawser_state/workspaces.json'), damaged, 'not written over');
  assert.deepEqual(
    (await next.store.unlisted()).map((f) => f.name),
    ['Alpha renamed'],
    'found, with its latest name',
  );
  await next.config.setAside('workspaces.json');
  await next.store.addBack(await next.store.unlisted());
  assert.deepEqual(
    (await start()).store.list().map((w) => [w.id, w.name]),
    [[alpha.id, 'Alpha renamed']],
  );
  // Control: intact, it reports nothing.
  assert.equal((await start()).store.damage(), null);
});

test('the first workspace the first view offered is made with its id and time', async () => {
  const { start } = await durable();
  const { store } = await start();
  const entry = { id: 'wfirst', name: 'My workspace', createdAt: 123 };
  assert.deepEqual(await store.create('ignored', { entry }), entry);
  assert.deepEqual((await start()).store.list(), [entry]);
});

/** Two tabs of the app over one storage: each its own config (shared lock and messages) and store. */
async function twoTabs() {
  const { DurableConfig } = await import('../../web/storage/durable-config.js');
  const { configFileOf, workspaceListProblem } = await import('../../web/app/config-files.js');
  const { inProcessTabs } = await import('../fixtures/stand-ins.mjs');
  const fs = new MemoryFileSystem();
  const tabs = inProcessTabs();
  const open = async (/** @type {string} */ name) => {
    const tab = tabs.tab(name);
    const config = new DurableConfig({
      fs,
      files: ['workspaces.json', 'settings.json'],
      fileOf: configFileOf,
      lock: (n, fn) => tab.withLock(n, fn),
      channel: tab,
      check: (file, entries) => (file === 'workspaces.json' ? workspaceListProblem(entries) : null),
    });
    await config.load();
    return { config, store: new WorkspaceStore({ config, fs, lock: (n, fn) => tab.withLock(n, fn) }) };
  };
  return { fs, open };
}

test("two tabs changing the list at the same moment keep each other's change: both new workspaces listed, \
the rename and the delete both kept (control: one tab alone)", async () => {
  const { open } = await twoTabs();
  const a = await open('a');
  const b = await open('b');
  const first = await a.store.create('First');
  // Neither tab has heard of the other's change yet when it makes its own.
  const [alpha, beta] = await Promise.all([a.store.create('Alpha'), b.store.create('Beta')]);
  const names = async () =>
    (await open('c')).store
      .list()
      .map((w) => w.name)
      .sort();
  assert.deepEqual(await names(), ['Alpha', 'Beta', 'First']);
  await Promise.all([a.store.rename(first.id, 'First renamed'), b.store.delete(alpha.id)]);
  assert.deepEqual(await names(), ['Beta', 'First renamed']);
  // Each tab's own view agrees once the other's message is in.
  for (let i = 0; i < 100 && a.store.list().length !== 2; i++) await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(
    a.store
      .list()
      .map((w) => w.name)
      .sort(),
    ['Beta', 'First renamed'],
  );
  // Control: one tab alone, the same changes in turn.
  const solo = await (await twoTabs()).open('solo');
  const s1 = await solo.store.create('First');
  const s2 = await solo.store.create('Alpha');
  await solo.store.create('Beta');
  await solo.store.rename(s1.id, 'First renamed');
  await solo.store.delete(s2.id);
  assert.deepEqual(
    solo.store
      .list()
      .map((w) => w.name)
      .sort(),
    ['Beta', 'First renamed'],
  );
  assert.ok(beta);
});

test('a stored list of the wrong shape is damage, not an empty list: nothing listed, nothing written over, its folders found (control: \
a list of the right shape)', async () => {
  const { fs, open } = await twoTabs();
  const { store } = await open('a');
  const alpha = await store.create('Alpha');
  const text = await fs.readText('clawser_state/workspaces.json');
  const wrong = JSON.stringify({ ...JSON.parse(text), entries: { clawser_workspaces: JSON.stringify({ not: 'a list' }) } });
  await fs.write('clawser_state/workspaces.json', wrong);
  const next = await open('b');
  assert.match(next.store.damage()?.reason ?? '', /^clawser_workspaces: not in the expected shape/);
  assert.deepEqual(next.store.list(), []);
  await assert.rejects(next.store.create('New'), { code: 'damaged' });
  await next.config.flush().catch(() => {});
  assert.equal(await fs.readText('clawser_state/workspaces.json'), wrong, 'not written over');
  assert.deepEqual(
    (await next.store.unlisted()).map((f) => f.name),
    ['Alpha'],
  );
  // Control: the right shape is read as it is.
  await fs.write('clawser_state/workspaces.json', text);
  const intact = await open('c');
  assert.equal(intact.store.damage(), null);
  assert.deepEqual(
    intact.store.list().map((w) => w.id),
    [alpha.id],
  );
});
