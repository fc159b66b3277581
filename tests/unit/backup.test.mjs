import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import {
  BackupError,
  createBackup,
  localStorageConfig,
  readBackup,
  recoverInterruptedRestore,
  restoreBackup,
} from '../../web/backup/backup.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { QUOTA_MESSAGE, StorageError } from '../../web/storage/errors.js';

/** @import { ConfigStore } from '../../web/backup/types.d.ts' */

const NOW = new Date('2025-06-01T12:00:00.000Z');
const PASS = 'correct horse battery staple';

/**
 * MemoryFileSystem with fault injection: `fault(op, path)` may answer 'fail' (a quota error,
 * through failNextWrite for writes), 'hang' (never settles: the tab closed before the call) or
 * 'hang-after' (the call completes, then never settles: the tab closed right after it).
 */
class FaultyFs extends MemoryFileSystem {
  /** @type {((op: string, path: string) => 'fail' | 'busy' | 'hang' | 'hang-after' | undefined) | null} */
  fault = null;

  /** @type {() => void} */
  #hung = () => {};
  /** Resolves when a call hangs: the tab is gone, nothing of it runs any more. */
  tabClosed = new Promise((resolve) => {
    this.#hung = () => resolve(undefined);
  });

  /** @param {string} op @param {string} path @param {() => Promise<void>} run */
  async #gated(op, path, run) {
    const what = this.fault?.(op, path);
    if (what === 'hang') return this.#hang();
    if (what === 'busy') throw new StorageError('busy', `"${path}" is in use by another Clawser tab; try again in a moment.`);
    if (what === 'fail') {
      if (op !== 'write') throw new StorageError('io', `Injected failure on ${op} "${path}".`);
      this.failNextWrite = new StorageError('quota', QUOTA_MESSAGE);
    }
    await run();
    if (what === 'hang-after') return this.#hang();
  }

  /** Never settles (the tab closed); says so through `tabClosed`. @returns {Promise<never>} */
  #hang() {
    this.#hung();
    return new Promise(() => {});
  }

  /** @override @param {string} path @param {string | Uint8Array} data */
  write(path, data) {
    return this.#gated('write', path, () => super.write(path, data));
  }

  /** @override @param {string} from @param {string} to */
  move(from, to) {
    return this.#gated('move', from, () => super.move(from, to));
  }

  /** @override @param {string} path */
  delete(path) {
    return this.#gated('delete', path, () => super.delete(path));
  }
}

/** A Storage in memory; `failSet(key)` true makes setItem throw a quota error. */
function fakeStorage(/** @type {Record<string, string>} */ initial = {}) {
  const map = new Map(Object.entries(initial));
  const storage = {
    /** @type {(key: string) => boolean} */
    failSet: () => false,
    get length() {
      return map.size;
    },
    key: (/** @type {number} */ i) => [...map.keys()][i] ?? null,
    getItem: (/** @type {string} */ k) => map.get(k) ?? null,
    setItem: (/** @type {string} */ k, /** @type {string} */ v) => {
      if (storage.failSet(k)) throw Object.assign(new Error('full'), { name: 'QuotaExceededError' });
      map.set(k, String(v));
    },
    removeItem: (/** @type {string} */ k) => void map.delete(k),
    clear: () => map.clear(),
    dump: () => Object.fromEntries([...map].sort(([a], [b]) => a.localeCompare(b))),
  };
  return storage;
}

/** A SecretBox stand-in; boxes with different tags cannot open each other's values. @param {string} tag */
function fakeBox(tag) {
  return {
    encrypt: async (/** @type {string} */ s) => `v1:${tag}:${Buffer.from(s).toString('base64')}`,
    decrypt: async (/** @type {string} */ s) => {
      if (!s.startsWith(`v1:${tag}:`)) throw new Error('sealed by another box');
      return Buffer.from(s.slice(tag.length + 4), 'base64').toString();
    },
  };
}

/** Every file (hex) and folder of a FileSystem. @param {MemoryFileSystem} fs */
async function snapshot(fs, dir = '') {
  /** @type {Record<string, string>} */
  const out = {};
  for (const e of await fs.list(dir)) {
    const path = dir ? `${dir}/${e.name}` : e.name;
    if (e.kind === 'directory') Object.assign(out, { [`${path}/`]: 'dir' }, await snapshot(fs, path));
    else out[path] = Buffer.from(await fs.readBytes(path)).toString('hex');
  }
  return out;
}

const boxA = fakeBox('A');
const API_KEY = 'sk-live-1234567890';
const SEALED = await boxA.encrypt(API_KEY);

/** The app's data: workspaces with dot folders, binary and empty files, an empty workspace, another top-level folder. */
async function source() {
  const fs = new FaultyFs();
  await fs.write('clawser_workspaces/w1/notes/a.md', '# A');
  await fs.write(
    'clawser_workspaces/w1/data.bin',
    Uint8Array.from({ length: 300 }, (_, i) => (i * 7) % 256),
  );
  await fs.write('clawser_workspaces/w1/empty.txt', '');
  await fs.write('clawser_workspaces/w1/.conversations/c1/events.jsonl', '{"type":"user","text":"hi"}\n');
  await fs.write('clawser_workspaces/w1/.git/HEAD', 'ref: refs/heads/main\n');
  await fs.write('clawser_workspaces/w1/notes/.a.md.tmp-k2j4', 'leftover of an interrupted write');
  await fs.mkdir('clawser_workspaces/w2');
  await fs.write('future_feature/state.json', '{"on":true}');
  await fs.write('top.txt', 'a file at the root');
  const storage = fakeStorage({
    clawser_workspaces: JSON.stringify([
      { id: 'w1', name: 'Work', createdAt: 1 },
      { id: 'w2', name: 'Empty', createdAt: 2 },
    ]),
    clawser_config_w1: JSON.stringify({ provider: 'openai', model: 'gpt-x', baseUrl: '' }),
    clawser_secret_w1_openai: JSON.stringify(SEALED),
    clawser_not_json: '{oops',
    other_site_key: 'not ours',
  });
  return { fs, storage, config: localStorageConfig(/** @type {Storage} */ (/** @type {unknown} */ (storage))) };
}

/** A device that already has other data, to be replaced. */
async function target() {
  const fs = new FaultyFs();
  await fs.write('clawser_workspaces/old/notes.md', 'old notes');
  await fs.write('clawser_workspaces/old/.conversations/x/events.jsonl', 'old log\n');
  await fs.write('leftover_folder/thing.txt', 'old');
  const storage = fakeStorage({
    clawser_workspaces: JSON.stringify([{ id: 'old', name: 'Old', createdAt: 0 }]),
    clawser_stale: '1',
    clawser_device_only: '"keep me"',
    other_site_key: 'untouched',
  });
  return { fs, storage, config: localStorageConfig(/** @type {Storage} */ (/** @type {unknown} */ (storage))) };
}

/** @param {string} code */
const isCode = (code) => (/** @type {unknown} */ err) => {
  assert.ok(err instanceof BackupError, `expected a BackupError, got ${err}`);
  assert.equal(err.code, code, err.message);
  return true;
};

/** Every entry of a ZIP, inflated, as text. @param {Uint8Array} zip */
const inflatedText = (zip) =>
  Object.entries(unzipSync(zip))
    .map(([name, data]) => `${name}\n${strFromU8(data)}`)
    .join('\n');

/** @param {Uint8Array} data */
const sha = (data) => createHash('sha256').update(data).digest('hex');

/**
 * A hand-made archive (for refusals): the manifest lists `files` with correct sizes and hashes.
 * @param {Record<string, Uint8Array>} files @param {Record<string, unknown>} [patch] manifest fields
 * @param {Record<string, Uint8Array>} [extra] more entries
 */
function craft(files, patch = {}, extra = {}) {
  const list = Object.entries(files).map(([path, data]) => ({ path, size: data.length, sha256: sha(data) }));
  const manifest = {
    format: 'clawser-backup',
    version: 1,
    createdAt: NOW.toISOString(),
    appVersion: 'test',
    files: list,
    dirs: [],
    config: 0,
    secrets: 'none',
    ...patch,
  };
  /** @type {Record<string, Uint8Array>} */
  const zip = { 'manifest.json': strToU8(JSON.stringify(manifest)), 'config.json': strToU8('{}'), ...extra };
  for (const [path, data] of Object.entries(files)) zip[`files/${path}`] = data;
  return zipSync(zip);
}

/** Source files as they should come back: everything but the temp leftover. @param {MemoryFileSystem} fs */
async function expectedFiles(fs) {
  const snap = await snapshot(fs);
  delete snap['clawser_workspaces/w1/notes/.a.md.tmp-k2j4'];
  return snap;
}

test('everything round-trips byte for byte; secrets and unreadable config stay out by default', async () => {
  const src = await source();
  const zip = await createBackup({ fs: src.fs, config: src.config, secrets: boxA, appVersion: '0.1.0', now: NOW });
  const contents = await readBackup(zip);
  assert.equal(contents.manifest.format, 'clawser-backup');
  assert.equal(contents.manifest.version, 1);
  assert.equal(contents.manifest.createdAt, NOW.toISOString());
  assert.equal(contents.manifest.secrets, 'none');
  assert.deepEqual(contents.manifest.dirs, ['clawser_workspaces/w2']);
  assert.ok(!contents.files.has('clawser_workspaces/w1/notes/.a.md.tmp-k2j4'), 'temp leftovers are not backed up');
  assert.deepEqual(contents.summary, {
    createdAt: NOW.toISOString(),
    appVersion: '0.1.0',
    workspaces: [
      { id: 'w1', name: 'Work' },
      { id: 'w2', name: 'Empty' },
    ],
    files: 7,
    bytes: [...contents.files.values()].reduce((n, d) => n + d.length, 0),
    config: 2,
    secretsIncluded: false,
    secretCount: 0,
  });

  const dst = await target();
  await restoreBackup(contents, { fs: dst.fs, config: dst.config, secrets: fakeBox('B'), keepConfigKeys: ['clawser_device_only'] });
  assert.deepEqual(await snapshot(dst.fs), await expectedFiles(src.fs));
  assert.deepEqual(dst.storage.dump(), {
    clawser_config_w1: src.storage.getItem('clawser_config_w1'),
    clawser_device_only: '"keep me"',
    clawser_workspaces: src.storage.getItem('clawser_workspaces'),
    other_site_key: 'untouched',
  });

  const text = inflatedText(zip);
  for (const secret of [API_KEY, SEALED, SEALED.slice(3)]) {
    assert.ok(!text.includes(secret), 'no secret in any entry');
    assert.ok(!Buffer.from(zip).includes(secret), 'no secret in the archive bytes');
  }
  assert.ok(!('secrets.json' in unzipSync(zip)));
});

test('with a passphrase the API keys travel encrypted and are re-sealed on restore', async () => {
  const src = await source();
  const zip = await createBackup({ fs: src.fs, config: src.config, secrets: boxA, passphrase: PASS, appVersion: '0.1.0', now: NOW });
  const entries = unzipSync(zip);
  const sealed = JSON.parse(strFromU8(entries['secrets.json']));
  assert.deepEqual(sealed.kdf.name, 'PBKDF2');
  assert.equal(sealed.kdf.hash, 'SHA-256');
  assert.equal(sealed.kdf.iterations, 600_000);
  assert.equal(Buffer.from(sealed.kdf.salt, 'base64').length, 16);
  assert.equal(Buffer.from(sealed.iv, 'base64').length, 12);
  const text = inflatedText(zip);
  for (const secret of [API_KEY, SEALED, SEALED.slice(3)]) assert.ok(!text.includes(secret) && !Buffer.from(zip).includes(secret));

  await assert.rejects(readBackup(zip), isCode('wrong_passphrase'), 'a passphrase is asked for');
  await assert.rejects(readBackup(zip, { passphrase: 'wrong' }), isCode('wrong_passphrase'));
  const without = await readBackup(zip, { ignoreSecrets: true });
  assert.equal(without.secrets, null);

  const contents = await readBackup(zip, { passphrase: PASS });
  assert.deepEqual(contents.secrets, { clawser_secret_w1_openai: API_KEY });
  assert.equal(contents.summary.secretsIncluded, true);
  assert.equal(contents.summary.secretCount, 1);

  const dst = await target();
  const boxB = fakeBox('B');
  await restoreBackup(contents, { fs: dst.fs, config: dst.config, secrets: boxB });
  const stored = JSON.parse(/** @type {string} */ (dst.storage.getItem('clawser_secret_w1_openai')));
  assert.ok(stored.startsWith('v1:B:'), 'sealed by the restoring device');
  assert.equal(await boxB.decrypt(stored), API_KEY);
  assert.equal(dst.storage.getItem('clawser_device_only'), null, 'not kept unless asked');
});

test('a tampered, incomplete or padded archive is refused', async () => {
  const src = await source();
  const zip = await createBackup({ fs: src.fs, config: src.config, secrets: boxA, appVersion: '0.1.0', now: NOW });
  const entries = unzipSync(zip);
  const name = 'files/clawser_workspaces/w1/notes/a.md';

  const tampered = { ...entries, [name]: strToU8('# B') }; // same size, other bytes
  await assert.rejects(readBackup(zipSync(tampered)), (err) => isCode('corrupt')(err) && /a\.md/.test(/** @type {Error} */ (err).message));
  const missing = { ...entries };
  delete missing[name];
  await assert.rejects(readBackup(zipSync(missing)), isCode('corrupt'));
  await assert.rejects(readBackup(zipSync({ ...entries, 'files/unlisted.txt': strToU8('x') })), isCode('corrupt'));
  await assert.rejects(readBackup(zipSync({ ...entries, 'config.json': strToU8('{"clawser_a":"{oops"}') })), isCode('corrupt'));
  await assert.rejects(readBackup(zipSync({ ...entries, 'config.json': strToU8('{"other":"1","clawser_a":"1"}') })), isCode('corrupt'));
  const directory = Buffer.from(zip).indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])); // the file data ends here
  for (const cut of [directory - 10, Math.round(directory / 2)])
    await assert.rejects(readBackup(zip.subarray(0, cut)), isCode('corrupt'), `truncated at ${cut}`);
});

test('unsafe paths are refused', async () => {
  const x = strToU8('x');
  for (const bad of [
    '../evil.txt',
    'a/../../evil.txt',
    '/etc/passwd',
    'a\\..\\b.txt',
    'C:/Windows/evil.txt',
    'a/./b.txt',
    '\uFF0E\uFF0E/fullwidth.txt',
    '.restore-previous/x.txt',
    'a//b.txt',
  ]) {
    await assert.rejects(readBackup(craft({ [bad]: x })), isCode('unsafe_path'), bad);
  }
  await assert.rejects(readBackup(craft({ 'ok.txt': x }, { dirs: ['../up'] })), isCode('unsafe_path'));
  await assert.rejects(readBackup(craft({ 'ok.txt': x }, {}, { '../outside.json': x })), isCode('unsafe_path'));
  await readBackup(craft({ 'clawser_workspaces/w/.git/objects/ab/cd': x, 'a b/ü.txt': x })); // dot folders and Unicode are fine
});

test('not a backup, a newer format, and oversized archives are refused with their codes', async () => {
  const x = strToU8('x');
  await assert.rejects(readBackup(strToU8('just text')), isCode('not_a_backup'));
  await assert.rejects(readBackup(zipSync({ 'readme.txt': x })), isCode('not_a_backup'));
  await assert.rejects(readBackup(zipSync({ 'manifest.json': strToU8('{"manifest_version":3}') })), isCode('not_a_backup'));
  await assert.rejects(
    readBackup(craft({}, { version: 2 })),
    (err) => isCode('unsupported_version')(err) && /newer version of Clawser/.test(/** @type {Error} */ (err).message),
  );
  await assert.rejects(readBackup(craft({}, { files: 'nope' })), isCode('corrupt'));
  await assert.rejects(readBackup(craft({ a: x, 'a/b': x })), isCode('corrupt'), 'a file and a folder at once');
  const big = craft({ 'zeros.bin': new Uint8Array(5 * 1024 * 1024) });
  await assert.rejects(readBackup(big, { limits: { maxTotalBytes: 1024 * 1024 } }), isCode('too_large'));
  await assert.rejects(readBackup(craft({ a: x, b: x, c: x }), { limits: { maxEntries: 3 } }), isCode('too_large'));
  const src = await source();
  await assert.rejects(
    createBackup({ fs: src.fs, config: src.config, secrets: boxA, appVersion: '0', limits: { maxTotalBytes: 100 } }),
    isCode('too_large'),
  );
});

/** Source archive contents plus a target device, with the target's state before the restore. */
async function prepared() {
  const src = await source();
  const contents = await readBackup(
    await createBackup({ fs: src.fs, config: src.config, secrets: boxA, passphrase: PASS, appVersion: '0.1.0', now: NOW }),
    { passphrase: PASS },
  );
  const dst = await target();
  return { src, contents, dst, before: { files: await snapshot(dst.fs), config: dst.storage.dump() } };
}

/** @param {Awaited<ReturnType<typeof prepared>>} p */
async function assertUnchanged(p) {
  assert.deepEqual(await snapshot(p.dst.fs), p.before.files);
  assert.deepEqual(p.dst.storage.dump(), p.before.config);
}

/** @param {Awaited<ReturnType<typeof prepared>>} p */
async function assertRestored(p) {
  assert.deepEqual(await snapshot(p.dst.fs), await expectedFiles(p.src.fs));
  const config = p.dst.storage.dump();
  assert.ok(config.clawser_secret_w1_openai.startsWith('"v1:B:'));
  delete config.clawser_secret_w1_openai;
  assert.deepEqual(config, {
    clawser_config_w1: p.src.storage.getItem('clawser_config_w1'),
    clawser_workspaces: p.src.storage.getItem('clawser_workspaces'),
    other_site_key: 'untouched',
  });
}

/** @param {Awaited<ReturnType<typeof prepared>>} p */
const restore = (p) => restoreBackup(p.contents, { fs: p.dst.fs, config: p.dst.config, secrets: fakeBox('B') });

/**
 * Fails (or hangs) the `n`th call matching op and path prefix.
 * @param {string} op
 * @param {string} prefix
 * @param {number} n
 * @param {'fail' | 'hang' | 'hang-after'} what
 */
function nth(op, prefix, n, what) {
  let seen = 0;
  return (/** @type {string} */ o, /** @type {string} */ path) => (o === op && path.startsWith(prefix) && ++seen === n ? what : undefined);
}

test('a failure while staging leaves files and config exactly as they were', async () => {
  const p = await prepared();
  p.dst.fs.fault = nth('write', '.restore-staging/', 3, 'fail');
  await assert.rejects(restore(p), (err) => isCode('restore_failed')(err) && /left as it was/.test(/** @type {Error} */ (err).message));
  await assertUnchanged(p);
});

test('a file another tab still holds open (busy) is tried again until it is let go; the restore completes', async () => {
  const p = await prepared();
  let busy = 0;
  // The first three moves of the current data find it still open in another tab.
  p.dst.fs.fault = (op, path) => (op === 'move' && path.startsWith('clawser_workspaces') && busy < 3 ? (busy++, 'busy') : undefined);
  await restore(p);
  assert.equal(busy, 3);
  // Everything of the backup is in place (leftovers of interrupted writes are never backed up).
  const expected = Object.fromEntries(Object.entries(await snapshot(p.src.fs)).filter(([k]) => !k.includes('.tmp-')));
  assert.deepEqual(await snapshot(p.dst.fs), expected);
});

test('a failure while swapping folders rolls back', async () => {
  for (const [prefix, n] of /** @type {const} */ ([
    ['clawser_workspaces/', 2],
    ['.restore-staging/', 1],
    ['.restore-staging/', 4],
  ])) {
    const p = await prepared();
    p.dst.fs.fault = nth('move', prefix, n, 'fail');
    await assert.rejects(restore(p), isCode('restore_failed'), `${prefix} ${n}`);
    await assertUnchanged(p);
  }
});

test('a full config store rolls back files and config', async () => {
  const p = await prepared();
  let failures = 1; // full once: putting the old config back (it fit before) works
  p.dst.storage.failSet = (key) => key === 'clawser_workspaces' && failures-- > 0;
  await assert.rejects(restore(p), isCode('restore_failed'));
  await assertUnchanged(p);
});

test('recoverInterruptedRestore rolls back or finishes a restore cut short in each phase', async () => {
  /** @type {Array<[string, string, string, number, 'hang' | 'hang-after', 'rolled_back' | 'completed']>} */
  const cases = [
    ['staging', 'write', '.restore-staging/', 2, 'hang', 'rolled_back'],
    ['aside', 'move', 'clawser_workspaces/', 2, 'hang', 'rolled_back'],
    ['placing', 'move', '.restore-staging/', 3, 'hang', 'rolled_back'],
    ['committed (config not yet applied)', 'write', '.restore-state.json', 4, 'hang-after', 'completed'],
    ['cleanup', 'delete', '.restore-previous', 1, 'hang', 'completed'],
  ];
  for (const [phase, op, prefix, n, what, outcome] of cases) {
    const p = await prepared();
    p.dst.fs.fault = nth(op, prefix, n, what);
    void restore(p).catch(() => {}); // never settles: the tab is gone
    await p.dst.fs.tabClosed; // at the call it hung on (after it, for 'hang-after')
    p.dst.fs.fault = null;
    if (phase.startsWith('committed')) assert.deepEqual(p.dst.storage.dump(), p.before.config, 'config untouched so far');
    assert.equal(await recoverInterruptedRestore({ fs: p.dst.fs, config: p.dst.config }), outcome, phase);
    if (outcome === 'rolled_back') await assertUnchanged(p);
    else await assertRestored(p);
    assert.equal(await recoverInterruptedRestore({ fs: p.dst.fs, config: p.dst.config }), 'none', 'nothing left to do');
  }
});

test('a new restore first recovers an interrupted one', async () => {
  const p = await prepared();
  p.dst.fs.fault = nth('move', '.restore-staging/', 2, 'hang');
  void restore(p).catch(() => {});
  await p.dst.fs.tabClosed;
  p.dst.fs.fault = null;
  await restore(p);
  await assertRestored(p);
});

test('localStorageConfig sees and changes only clawser_ keys', () => {
  const storage = fakeStorage({ clawser_a: '1', other: '2' });
  /** @type {ConfigStore} */
  const config = localStorageConfig(/** @type {Storage} */ (/** @type {unknown} */ (storage)));
  assert.deepEqual(config.entries(), [['clawser_a', '1']]);
  config.setRaw('clawser_b', '"x"');
  config.remove('clawser_a');
  assert.throws(() => config.setRaw('other', '1'), /clawser_/);
  assert.throws(() => config.remove('other'), /clawser_/);
  storage.failSet = () => true;
  assert.throws(
    () => config.setRaw('clawser_c', '1'),
    (err) => err instanceof StorageError && err.code === 'quota',
  );
  assert.deepEqual(storage.dump(), { clawser_b: '"x"', other: '2' });
});

test('damage to the config or the sealed API keys is reported as damage, before any passphrase is asked', async () => {
  const { createBackup, readBackup } = await import('../../web/backup/backup.js');
  const { MemoryFileSystem } = await import('../../web/storage/memory-fs.js');
  const { unzipSync, zipSync, strToU8 } = await import('fflate');
  const fs = new MemoryFileSystem();
  await fs.write('clawser_workspaces/w/a.txt', 'a');
  /** @type {Map<string, string>} */
  const store = new Map([
    ['clawser_workspaces', '[]'],
    ['clawser_secret_w_openai', JSON.stringify('v1:sealed')],
  ]);
  const config = {
    entries: () => [...store.entries()],
    setRaw: (/** @type {string} */ k, /** @type {string} */ v) => void store.set(k, v),
    remove: (/** @type {string} */ k) => void store.delete(k),
  };
  const secrets = { encrypt: async (/** @type {string} */ s) => `v1:${s}`, decrypt: async (/** @type {string} */ s) => s.slice(3) };
  const bytes = await createBackup({ fs, config, secrets, passphrase: 'correct horse', appVersion: 'test' });
  for (const name of ['secrets.json', 'config.json']) {
    const entries = unzipSync(bytes);
    const text = new TextDecoder().decode(entries[name]);
    entries[name] = strToU8(text.replace(/"[A-Za-z0-9+/]{8}/, (m) => m.slice(0, 4) + 'AAAA' + m.slice(8)).replace('"[]"', '"[ ]"'));
    await assert.rejects(
      readBackup(zipSync(entries)),
      (/** @type {any} */ err) => err.code === 'corrupt' && new RegExp(`${name} was changed or damaged`).test(err.message),
      name,
    );
  }
});

test('the local models (gigabytes the user has as files) are never backed up, and a restore or its roll-back leaves them', async () => {
  const { MODELS_FOLDER } = await import('../../web/providers/local-models.js');
  const { MODELS_FOLDER: reserved } = await import('../../web/backup/common.js');
  assert.equal(reserved, MODELS_FOLDER, 'the backup knows the models folder by its name');
  const src = await source();
  await src.fs.write(`${MODELS_FOLDER}/tiny-abc123/part-00001.gguf`, 'GGUF model bytes');
  const contents = await readBackup(await createBackup({ fs: src.fs, config: src.config, secrets: boxA, appVersion: '0.1.0', now: NOW }));
  assert.deepEqual(
    [...contents.files.keys()].filter((p) => p.startsWith(MODELS_FOLDER)),
    [],
  );
  assert.ok(contents.files.has('clawser_workspaces/w1/notes/a.md'), 'control: the workspaces are in it');
  const dst = await target();
  await dst.fs.write(`${MODELS_FOLDER}/kept-def456/part-00001.gguf`, 'the model of this computer');
  await restoreBackup(contents, { fs: dst.fs, config: dst.config, secrets: fakeBox('B') });
  assert.equal(await dst.fs.readText(`${MODELS_FOLDER}/kept-def456/part-00001.gguf`), 'the model of this computer');
  assert.equal(await dst.fs.stat('clawser_workspaces/old/notes.md'), null, 'control: what the backup lacks is replaced');
  // A restore that fails while placing rolls back: the models are still there.
  const again = await target();
  await again.fs.write(`${MODELS_FOLDER}/kept-def456/part-00001.gguf`, 'the model of this computer');
  again.fs.fault = (op, path) => (op === 'move' && path.startsWith('.restore-staging/clawser_workspaces/w1/notes') ? 'fail' : undefined);
  await assert.rejects(restoreBackup(contents, { fs: again.fs, config: again.config, secrets: fakeBox('B') }));
  assert.equal(await again.fs.readText(`${MODELS_FOLDER}/kept-def456/part-00001.gguf`), 'the model of this computer');
  assert.equal(await again.fs.readText('clawser_workspaces/old/notes.md'), 'old notes', 'control: rolled back');
});
