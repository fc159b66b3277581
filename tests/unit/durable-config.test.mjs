// Clawser's settings and workspace list in the browser's file storage (DurableConfig): moved
// from localStorage once, losing nothing; written atomically, one file per group; shared by
// tabs without losing each other's changes; a damaged file never overwritten.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { LocalConfig } from '../../web/storage/local-config.js';
import { DurableConfig, STATE_FOLDER } from '../../web/storage/durable-config.js';
import { memoryStorage, inProcessTabs } from '../fixtures/stand-ins.mjs';

const FILES = ['workspaces.json', 'settings.json'];
const JOURNAL = 'clawser_unsaved_changes.';
/** @param {string} key */
const fileOf = (key) => (key === 'clawser_workspaces' || key.startsWith('clawser_workspaces_') ? 'workspaces.json' : 'settings.json');
/** @param {string} key */
const cached = (key) => key === 'clawser_workspaces' || key.startsWith('clawser_config_');

/**
 * A config as one tab of the app makes it.
 * @param {{fs?: MemoryFileSystem, storage?: Storage, tabs?: ReturnType<typeof inProcessTabs>, name?: string, errors?: unknown[],
 *   journal?: boolean, gate?: Promise<void>}} [o]
 */
function config(o = {}) {
  const fs = o.fs ?? new MemoryFileSystem();
  const storage = o.storage ?? memoryStorage();
  const tab = (o.tabs ?? inProcessTabs()).tab(o.name ?? 'a');
  const c = new DurableConfig({
    fs,
    files: FILES,
    fileOf,
    // `gate`: this tab's writes wait for it (a page whose write has not started when the next page loads)
    lock: (name, fn) => (o.gate ?? Promise.resolve()).then(() => tab.withLock(name, fn)),
    channel: tab,
    cache: new LocalConfig(storage),
    cached,
    ignoreLegacy: (key) => key === 'clawser_restore_running',
    ...(o.journal === false ? {} : { journal: JOURNAL }),
    onError: (err) => o.errors?.push(err),
  });
  return { c, fs, storage };
}

/** @param {MemoryFileSystem} fs @param {string} file */
const stored = async (fs, file) => JSON.parse(await fs.readText(`${STATE_FOLDER}/${file}`)).entries;

/** Waits until `check` holds (messages between tabs are delivered in later microtasks). @param {() => boolean} check */
async function until(check) {
  for (let i = 0; i < 1000 && !check(); i++) await new Promise((r) => setTimeout(r, 0));
  assert.ok(check(), 'condition reached');
}

test("the first start moves every clawser_ key of localStorage into the files, losing nothing; \
localStorage keeps only the first view's copy", async () => {
  const storage = memoryStorage();
  const legacy = {
    clawser_workspaces: JSON.stringify([{ id: 'w1', name: 'One', createdAt: 1 }]),
    clawser_config_w1: JSON.stringify({ provider: 'echo', model: '', baseUrl: '' }),
    clawser_secret_w1_openai: JSON.stringify('v1:sealed-ciphertext'),
    clawser_tool_rules_w1: JSON.stringify([{ tool: 'shell', pattern: 'git add' }]),
    clawser_agent_w1: JSON.stringify({ autonomy: { level: 'full' } }),
    clawser_restore_running: 'true',
  };
  for (const [k, v] of Object.entries(legacy)) storage.setItem(k, v);
  storage.setItem('someone_else', 'kept');
  const { c, fs } = config({ storage });
  assert.deepEqual(await c.load(), { migrated: 5 });
  // Every key reads as before, from the files.
  for (const [k, v] of Object.entries(legacy)) if (k !== 'clawser_restore_running') assert.equal(JSON.stringify(c.get(k, null)), v, k);
  assert.deepEqual(Object.keys(await stored(fs, 'workspaces.json')), ['clawser_workspaces']);
  assert.deepEqual(Object.keys(await stored(fs, 'settings.json')).sort(), [
    'clawser_agent_w1',
    'clawser_config_w1',
    'clawser_secret_w1_openai',
    'clawser_tool_rules_w1',
  ]);
  // localStorage: the first view's keys, the restore hint and other pages' keys; not the secrets or rules.
  assert.deepEqual(Object.keys(Object.fromEntries(new LocalConfig(storage).entries())).sort(), [
    'clawser_config_w1',
    'clawser_restore_running',
    'clawser_workspaces',
  ]);
  assert.equal(storage.getItem('someone_else'), 'kept');
  // A second start reads the files; what localStorage holds no longer matters.
  storage.setItem('clawser_config_w1', JSON.stringify({ provider: 'openai', model: 'stale', baseUrl: '' }));
  const again = config({ fs, storage }).c;
  assert.deepEqual(await again.load(), { migrated: 0 });
  assert.deepEqual(again.get('clawser_config_w1', null), { provider: 'echo', model: '', baseUrl: '' });
  assert.equal(storage.getItem('clawser_config_w1'), legacy.clawser_config_w1, 'the cache is put right');
});

test('a migration that cannot be written leaves localStorage as it was and works from its values (control: one that can, \
moves them)', async () => {
  const storage = memoryStorage();
  storage.setItem('clawser_agent_w1', JSON.stringify({ a: 1 }));
  const fs = new MemoryFileSystem();
  fs.failNextWrite = Object.assign(new Error('full'), { name: 'QuotaExceededError' });
  /** @type {unknown[]} */
  const errors = [];
  const { c } = config({ fs, storage, errors });
  await c.load();
  assert.equal(errors.length, 1);
  assert.deepEqual(c.get('clawser_agent_w1', null), { a: 1 });
  assert.equal(storage.getItem('clawser_agent_w1'), JSON.stringify({ a: 1 }), 'still in localStorage');
  // Control: the next write stores it.
  await c.flush();
  assert.deepEqual(await stored(fs, 'settings.json'), { clawser_agent_w1: JSON.stringify({ a: 1 }) });
});

test("changes read back at once, are on storage once flush resolves, and a new page reads them; \
the first view's cache follows", async () => {
  const { c, fs, storage } = config();
  await c.load();
  c.set('clawser_workspaces', [{ id: 'w1', name: 'One', createdAt: 1 }]);
  c.set('clawser_config_w1', { provider: 'echo' });
  c.set('clawser_agent_w1', { x: 1 });
  assert.deepEqual(c.get('clawser_agent_w1', null), { x: 1 }, 'read back before it is written');
  await c.flush();
  assert.deepEqual(await stored(fs, 'settings.json'), { clawser_config_w1: '{"provider":"echo"}', clawser_agent_w1: '{"x":1}' });
  assert.equal(storage.getItem('clawser_config_w1'), '{"provider":"echo"}');
  assert.equal(storage.getItem('clawser_agent_w1'), null, "only the first view's keys are cached");
  c.remove('clawser_agent_w1');
  assert.deepEqual(c.keys('clawser_agent_'), []);
  await c.flush();
  const next = config({ fs, storage }).c;
  await next.load();
  assert.deepEqual(next.entries().sort(), [
    ['clawser_config_w1', '{"provider":"echo"}'],
    ['clawser_workspaces', '[{"id":"w1","name":"One","createdAt":1}]'],
  ]);
  assert.throws(() => c.set('other', 1), { code: 'invalid_key' });
});

/** A file system whose writes never finish once `stalled` (a page reloaded or closed while its write is under way). */
class StallingFileSystem extends MemoryFileSystem {
  stalled = false;
  /** @override @param {string} path @param {string | Uint8Array} data */
  async write(path, data) {
    if (this.stalled) return new Promise(() => {});
    return super.write(path, data);
  }
}

/** The journals pages left in localStorage. @param {Storage} storage */
const journals = (storage) => Object.keys(Object.fromEntries(new LocalConfig(storage).entries())).filter((k) => k.startsWith(JOURNAL));
/** @param {MemoryFileSystem} fs @param {string} file */
const seqOf = async (fs, file) => JSON.parse(await fs.readText(`${STATE_FOLDER}/${file}`)).seq;
/** @param {DurableConfig} c */
const ids = (c) => /** @type {Array<{id: string}>} */ (c.get('clawser_workspaces', [])).map((w) => w.id);

test('a page reloaded before its background write finishes loses nothing: the next page makes its changes again from its journal, once \
(control: changes written in time leave no journal and are not written again)', async () => {
  const fs = new StallingFileSystem();
  const storage = memoryStorage();
  const before = config({ fs, storage }).c;
  await before.load();
  before.set('clawser_workspaces', [{ id: 'w1', name: 'One', createdAt: 1 }]);
  before.set('clawser_agent_w1', { keep: 'me' });
  before.set('clawser_gone', 1);
  await before.flush();
  assert.deepEqual(journals(storage), [], 'control: written in time, no journal is left');
  const seq = await seqOf(fs, 'settings.json');
  const again = config({ fs, storage, tabs: inProcessTabs() }).c;
  await again.load();
  await again.flush();
  assert.equal(await seqOf(fs, 'settings.json'), seq, 'control: nothing made again');

  fs.stalled = true;
  const page = config({ fs, storage }).c;
  await page.load();
  page.set('clawser_policy_w1', { web_fetch: 'denied' });
  page.update('clawser_workspaces', (list) => [.../** @type {object[]} */ (list), { id: 'w2', name: 'Two', createdAt: 2 }]);
  page.remove('clawser_gone');
  assert.equal(journals(storage).length, 1, 'journalled at once, with the change');
  assert.deepEqual(
    await stored(fs, 'settings.json'),
    { clawser_agent_w1: '{"keep":"me"}', clawser_gone: '1' },
    'not written: the write never finished',
  );

  // Reloaded: a new page (its own tabs: the old page's lock went with it), the same storage.
  fs.stalled = false;
  const next = config({ fs, storage, tabs: inProcessTabs() }).c;
  await next.load();
  assert.deepEqual(next.get('clawser_policy_w1', null), { web_fetch: 'denied' });
  assert.deepEqual(ids(next), ['w1', 'w2']);
  assert.equal(next.get('clawser_gone', null), null);
  await next.flush();
  assert.deepEqual(await stored(fs, 'settings.json'), { clawser_agent_w1: '{"keep":"me"}', clawser_policy_w1: '{"web_fetch":"denied"}' });
  assert.deepEqual(
    JSON.parse((await stored(fs, 'workspaces.json')).clawser_workspaces).map((/** @type {{id: string}} */ w) => w.id),
    ['w1', 'w2'],
    'the update made once',
  );
  await until(() => journals(storage).length === 0);

  // A journal that is not readable is ignored and removed.
  storage.setItem(`${JOURNAL}x`, '{not json');
  const third = config({ fs, storage, tabs: inProcessTabs() }).c;
  await third.load();
  assert.deepEqual(third.get('clawser_agent_w1', null), { keep: 'me' });
  assert.deepEqual(journals(storage), []);
});

test('a journalled change is not made again once its file was written since — by its page or over it (control: \
the same journal with nothing written since is made again)', async () => {
  for (const since of ['nothing', 'written by its page', 'another write']) {
    const fs = new StallingFileSystem();
    const storage = memoryStorage();
    const first = config({ fs, storage }).c;
    await first.load();
    first.set('clawser_workspaces', [{ id: 'w1', name: 'One', createdAt: 1 }]);
    await first.flush();
    // The page adds a workspace; its write does not finish (or finishes, its journal left behind).
    if (since !== 'written by its page') fs.stalled = true;
    const page = config({ fs, storage }).c;
    await page.load();
    page.update('clawser_workspaces', (list) => [.../** @type {object[]} */ (list), { id: 'w2', name: 'Two', createdAt: 2 }]);
    const journal = /** @type {string} */ (storage.getItem(journals(storage)[0]));
    if (since === 'written by its page') {
      await page.flush();
      assert.deepEqual(journals(storage), []);
      storage.setItem(`${JOURNAL}left`, journal); // as if the page died between its write and emptying its journal
      // Then the list loses an entry by other means, its file's seq unchanged (a repair by hand).
      const text = JSON.parse(await fs.readText(`${STATE_FOLDER}/workspaces.json`));
      text.entries.clawser_workspaces = JSON.stringify([{ id: 'w1', name: 'One', createdAt: 1 }]);
      await fs.write(`${STATE_FOLDER}/workspaces.json`, JSON.stringify(text));
    }
    fs.stalled = false;
    if (since === 'another write') {
      const other = config({ fs, storage, tabs: inProcessTabs(), journal: false }).c;
      await other.load();
      other.set('clawser_workspaces', [{ id: 'w3', name: 'Three', createdAt: 3 }]);
      await other.flush();
    }
    const next = config({ fs, storage, tabs: inProcessTabs() }).c;
    await next.load();
    await next.flush();
    const expected = { nothing: ['w1', 'w2'], 'written by its page': ['w1'], 'another write': ['w3'] }[since];
    assert.deepEqual(ids(next), expected, since);
    assert.deepEqual(
      JSON.parse((await stored(fs, 'workspaces.json')).clawser_workspaces).map((/** @type {{id: string}} */ w) => w.id),
      expected,
      `${since}: stored`,
    );
    await until(() => journals(storage).length === 0);
  }
});

test("a page that starts while another is still writing makes that page's change once: a list update is never applied twice (control: \
the page alone)", async () => {
  for (const alone of [true, false]) {
    const fs = new MemoryFileSystem();
    const storage = memoryStorage();
    const tabs = inProcessTabs();
    /** @type {() => void} */
    let release = () => {};
    const gate = new Promise((resolve) => {
      release = () => resolve(undefined);
    });
    const first = config({ fs, storage, tabs }).c;
    await first.load();
    first.set('clawser_workspaces', [{ id: 'w1', name: 'One', createdAt: 1 }]);
    await first.flush();
    first.close();
    // Tab B adds a workspace; its write waits (it has not taken the lock yet).
    const b = config({ fs, storage, tabs, name: 'b', gate }).c;
    await b.load();
    b.update('clawser_workspaces', (list) => [.../** @type {object[]} */ (list), { id: 'w2', name: 'Two', createdAt: 2 }]);
    if (!alone) {
      // Tab A starts meanwhile: it sees B's change and writes it.
      const a = config({ fs, storage, tabs, name: 'a' }).c;
      await a.load();
      assert.deepEqual(ids(a), ['w1', 'w2']);
      await a.flush();
    }
    release();
    await b.flush();
    assert.deepEqual(
      JSON.parse((await stored(fs, 'workspaces.json')).clawser_workspaces).map((/** @type {{id: string}} */ w) => w.id),
      ['w1', 'w2'],
      alone ? 'control' : 'once',
    );
    assert.deepEqual(ids(b), ['w1', 'w2']);
    await until(() => journals(storage).length === 0);
  }
});

test("two tabs: each sees the other's changes, and changes made at the same time are all kept (control: one tab alone)", async () => {
  const fs = new MemoryFileSystem();
  const tabs = inProcessTabs();
  const a = config({ fs, tabs, name: 'a' }).c;
  const b = config({ fs, tabs, name: 'b' }).c;
  await Promise.all([a.load(), b.load()]);
  for (let i = 0; i < 20; i++) {
    a.set(`clawser_a_${i}`, i);
    b.set(`clawser_b_${i}`, i);
  }
  await Promise.all([a.flush(), b.flush()]);
  const keys = Object.keys(await stored(fs, 'settings.json'));
  assert.equal(keys.length, 40, "no tab overwrote the other's changes");
  await until(() => a.keys('clawser_').length === 40 && b.keys('clawser_').length === 40);
  // The same key from both: the later write wins everywhere (memory of both tabs and the file).
  a.set('clawser_same', 'from a');
  await a.flush();
  b.set('clawser_same', 'from b');
  await b.flush();
  await until(() => a.get('clawser_same', null) === 'from b');
  assert.equal(JSON.parse((await stored(fs, 'settings.json')).clawser_same), 'from b');
  // Control: a page loaded now reads the same.
  const c = config({ fs, tabs, name: 'c' }).c;
  await c.load();
  assert.equal(c.keys('clawser_').length, 41);
});

test('a damaged file is never overwritten: its keys read as missing, changes stay in memory and flush says why; set aside, \
it is kept and a new one written (control: an intact file)', async () => {
  const fs = new MemoryFileSystem();
  const tabs = inProcessTabs();
  const damaged = '{"format":"clawser-config","version":1,"seq":3,"entries":{"clawser_workspaces":"[{\\"id\\":\\"w1\\"';
  await fs.write(`${STATE_FOLDER}/workspaces.json`, damaged);
  await fs.write(
    `${STATE_FOLDER}/settings.json`,
    JSON.stringify({ format: 'clawser-config', version: 1, seq: 1, entries: { clawser_config_w1: '{"provider":"echo"}' } }),
  );
  const { c, storage } = config({ fs, tabs });
  storage.setItem('clawser_workspaces', '[{"id":"w1","name":"Cached","createdAt":1}]');
  await c.load();
  assert.deepEqual(
    c.problems().map((p) => [p.file, p.size]),
    [['workspaces.json', damaged.length]],
  );
  assert.match(c.problems()[0].reason, /^cut short/);
  assert.equal(c.damageOf('clawser_workspaces')?.file, 'workspaces.json');
  assert.equal(c.damageOf('clawser_config_w1'), null, 'control: the intact file is fine');
  assert.deepEqual(c.get('clawser_config_w1', null), { provider: 'echo' });
  assert.equal(c.get('clawser_workspaces', 'none'), 'none');
  assert.equal(
    storage.getItem('clawser_workspaces'),
    '[{"id":"w1","name":"Cached","createdAt":1}]',
    'the cache of a damaged file is left as it was',
  );
  c.set('clawser_workspaces', [{ id: 'w2', name: 'New', createdAt: 2 }]);
  c.set('clawser_config_w2', { provider: 'echo' });
  await assert.rejects(
    c.flush(),
    (err) => /** @type {any} */ (err).code === 'damaged' && /workspaces\.json.*damaged/.test(/** @type {Error} */ (err).message),
  );
  assert.equal(await fs.readText(`${STATE_FOLDER}/workspaces.json`), damaged, 'not overwritten');
  assert.ok((await stored(fs, 'settings.json')).clawser_config_w2, 'control: the other file was written');
  assert.equal(new TextDecoder().decode(await c.damagedBytes('workspaces.json')), damaged);
  // Another tab learns of the new file when it is set aside.
  const other = config({ fs, tabs, name: 'b' }).c;
  await other.load();
  assert.equal(other.problems().length, 1);
  const aside = await c.setAside('workspaces.json');
  assert.equal(await fs.readText(aside), damaged, 'the damaged bytes are kept');
  assert.deepEqual(c.problems(), []);
  assert.deepEqual(JSON.parse((await stored(fs, 'workspaces.json')).clawser_workspaces), [{ id: 'w2', name: 'New', createdAt: 2 }]);
  await until(() => other.problems().length === 0 && Array.isArray(other.get('clawser_workspaces', null)));
  await assert.rejects(c.setAside('workspaces.json'), { code: 'not_damaged' });
});

test('a file damaged after it was read is not overwritten by the next write', async () => {
  const { c, fs } = config();
  await c.load();
  c.set('clawser_x', 1);
  await c.flush();
  await fs.write(`${STATE_FOLDER}/settings.json`, '{"format":"clawser-config","version":1,"seq":2,"entries":7}');
  c.set('clawser_x', 2);
  await assert.rejects(c.flush(), { code: 'damaged' });
  assert.equal(await fs.readText(`${STATE_FOLDER}/settings.json`), '{"format":"clawser-config","version":1,"seq":2,"entries":7}');
  assert.match(c.problems()[0].reason, /^not in the expected shape/);
});

test('nothing is written while a restore runs in another tab; the change is written afterwards', async () => {
  let restoring = true;
  const fs = new MemoryFileSystem();
  const tab = inProcessTabs().tab('a');
  const c = new DurableConfig({
    fs,
    files: FILES,
    fileOf,
    lock: (name, fn) => tab.withLock(name, fn),
    channel: tab,
    writable: () => {
      if (restoring) throw Object.assign(new Error('A backup is being restored in another tab.'), { code: 'restore_in_progress' });
    },
  });
  await c.load();
  c.set('clawser_x', 1);
  await assert.rejects(c.flush(), { code: 'restore_in_progress' });
  assert.equal(await fs.stat(`${STATE_FOLDER}/settings.json`), null);
  restoring = false;
  await c.flush();
  assert.deepEqual(await stored(fs, 'settings.json'), { clawser_x: '1' });
});

test('update builds on what is stored when written: counts from two tabs, some made while a write is under way, add up exactly (control: \
the same increments in one tab, in turn)', async () => {
  const fs = new MemoryFileSystem();
  const tabs = inProcessTabs();
  const a = config({ fs, tabs, name: 'a' }).c;
  const b = config({ fs, tabs, name: 'b' }).c;
  await Promise.all([a.load(), b.load()]);
  const inc = (/** @type {unknown} */ v) => (typeof v === 'number' ? v : 0) + 1;
  a.update('clawser_n', inc);
  const writing = a.flush();
  // Made while a's first write is under way: counted once each, not again with the first.
  a.update('clawser_n', inc);
  b.update('clawser_n', inc);
  a.update('clawser_n', inc);
  b.update('clawser_n', inc);
  await Promise.all([writing, a.flush(), b.flush()]);
  assert.equal(JSON.parse((await stored(fs, 'settings.json')).clawser_n), 5);
  await until(() => a.get('clawser_n', 0) === 5 && b.get('clawser_n', 0) === 5);
  // A set after an update replaces it; an update after a set builds on the set.
  a.set('clawser_n', 10);
  a.update('clawser_n', inc);
  await a.flush();
  assert.equal(JSON.parse((await stored(fs, 'settings.json')).clawser_n), 11);
  // Control: the same five increments in one tab, each written before the next.
  const solo = config().c;
  await solo.load();
  for (let i = 0; i < 5; i++) {
    solo.update('clawser_n', inc);
    await solo.flush();
  }
  assert.equal(solo.get('clawser_n', 0), 5);
});
