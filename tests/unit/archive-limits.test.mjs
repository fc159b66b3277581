// Issue 32 §5: archives have the same limits everywhere. Every place Clawser expands an archive
// — the Files panel's ZIP import, skills from a ZIP, a backup restore, the embedding model's
// ZIP, and the shell's unzip, tar -x (gzip or not) and gunzip/zcat/gzip -d — refuses the same
// zip bomb with the same message (web/files/archive-limits.js), writes nothing, and still expands
// a normal archive (the controls). The bomb of the issue: ~150 KB of ZIP expanding to 150 MB of
// zeros; and its sibling that passes every size limit (two entries of 75 MB) and is refused by
// the ratio alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync, strToU8, zipSync } from 'fflate';
import { packTar } from 'modern-tar';
import { createHash } from 'node:crypto';
import { ARCHIVE_LIMITS, ArchiveLimitError, ExpansionBudget, expandGzip, expandZip } from '../../web/files/archive-limits.js';
import { ZipError, readZip } from '../../web/files/zip.js';
import { FilesController } from '../../web/app/files-controller.js';
import { skillsFromZip } from '../../web/skills/sources.js';
import { BackupError, createBackup, localStorageConfig, readBackup } from '../../web/backup/backup.js';
import { ModelInstaller, ModelInstallError } from '../../web/memory/model-install.js';
import { createShell } from '../../web/shell/shell.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { MemoryCacheStorage, tinyModelFiles } from '../fixtures/tiny-model.mjs';

const MB = 1024 * 1024;
const zeros = (/** @type {number} */ mb) => new Uint8Array(mb * MB);

/** The message every path gives for a limit, from the shared module. @param {number} archiveBytes @param {number} expanded */
function expectedMessage(archiveBytes, expanded, limits = {}) {
  try {
    new ExpansionBudget(archiveBytes, limits).add(expanded);
  } catch (err) {
    return /** @type {Error} */ (err).message;
  }
  throw new Error('no limit passed');
}
/** @param {number} archiveBytes */
const ratioMessage = (archiveBytes) =>
  expectedMessage(archiveBytes, Math.max(ARCHIVE_LIMITS.ratioFreeBytes, ARCHIVE_LIMITS.maxRatio * archiveBytes) + 1);

// The bomb (one entry of 150 MB) and one that passes every size limit (2 × 75 MB).
const BOMB_ONE = zipSync({ 'zeros.bin': zeros(150) }, { level: 9 });
const BOMB_TWO = zipSync({ 'a.bin': zeros(75), 'b.bin': zeros(75) }, { level: 9 });
const BOMB_TGZ = gzipSync(
  await packTar([
    { header: { name: 'a.bin', size: 75 * MB, type: 'file' }, body: zeros(75) },
    { header: { name: 'b.bin', size: 75 * MB, type: 'file' }, body: zeros(75) },
  ]),
  { level: 9 },
);
const BOMB_GZ = gzipSync(zeros(90), { level: 9 });
/** Normal content: a few files and 5 MB of very repetitive text (over 100×, under the free allowance). */
const NORMAL = {
  'notes/a.md': strToU8('# A\n'),
  'notes/b.txt': strToU8('b\n'),
  'log.txt': strToU8('the same line again\n'.repeat(262_144)),
};

/** Pseudo-random printable text (compresses ~1.5×), `mb` megabytes. @param {number} mb */
function noisyText(mb) {
  const out = new Uint8Array(mb * MB);
  let a = 7;
  for (let i = 0; i < out.length; i++) {
    // mulberry32
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[i] = i % 64 === 63 ? 10 : 33 + (((t ^ (t >>> 14)) >>> 0) % 90);
  }
  return out;
}

test('the bombs are what the issue describes: ~150 KB expanding to 150 MB (~1,000×), \
each entry within the size limits in the second', () => {
  for (const b of [BOMB_ONE, BOMB_TWO, BOMB_TGZ]) assert.ok(b.length < 160 * 1024 && b.length > 140 * 1024, `${b.length} bytes`);
});

test('the shared budget: entries, entry size, total size and ratio, each with its message; control: \
within every limit nothing is refused', () => {
  const budget = new ExpansionBudget(1 * MB);
  const e = budget.entry('x.bin');
  e.add(99 * MB);
  assert.equal(budget.total, 99 * MB, 'control: 99 MB from a 1 MB archive is within every limit');
  assert.throws(
    () => e.add(2 * MB),
    (err) =>
      err instanceof ArchiveLimitError && err.limit === 'entry' && /"x\.bin" in the archive expands to more than 100 MB/.test(err.message),
  );
  assert.throws(
    () => new ExpansionBudget(10 * MB).add(201 * MB),
    (err) => err instanceof ArchiveLimitError && err.limit === 'total' && /more than 200 MB/.test(err.message),
  );
  assert.throws(
    () => new ExpansionBudget(150 * 1024).add(16 * MB),
    (err) =>
      err instanceof ArchiveLimitError &&
      err.limit === 'ratio' &&
      /more than 100 times its size \(150 KB to more than 15 MB\)/.test(err.message),
  );
  new ExpansionBudget(1024).add(10 * MB); // control: the free allowance
  const many = new ExpansionBudget(1024);
  for (let i = 0; i < ARCHIVE_LIMITS.maxEntries; i++) many.entry(`f${i}`);
  assert.throws(
    () => many.entry('one more'),
    (err) => err instanceof ArchiveLimitError && err.code === 'too_many_entries' && /more than 10,000 entries/.test(err.message),
  );
  // expandZip and expandGzip apply it while inflating.
  assert.throws(
    () => expandZip(BOMB_TWO),
    (err) => err instanceof ArchiveLimitError && err.message === ratioMessage(BOMB_TWO.length),
  );
  assert.throws(
    () => expandGzip(BOMB_GZ, 'z'),
    (err) => err instanceof ArchiveLimitError && err.message === ratioMessage(BOMB_GZ.length),
  );
  assert.equal(expandZip(zipSync(NORMAL)).entries.length, 3, 'control');
});

test('Files panel import: the bombs are refused with the shared message, nothing written; control: a normal archive imports', async () => {
  const fs = new MemoryFileSystem();
  const files = new FilesController({ fs });
  for (const bomb of [BOMB_ONE, BOMB_TWO]) {
    await assert.rejects(
      files.importZip('', bomb),
      (err) => err instanceof ZipError && err.code === 'too_large' && err.message === ratioMessage(bomb.length),
    );
  }
  assert.deepEqual(await fs.list(''), [], 'nothing written');
  const r = await files.importZip('in', zipSync(NORMAL));
  assert.deepEqual(r.written.sort(), ['log.txt', 'notes/a.md', 'notes/b.txt']);
  assert.equal((await fs.readBytes('in/log.txt')).length, 5 * MB);
});

test('skills from a ZIP: a bomb within the skill size limits is refused by the ratio, with the shared message; control: \
a normal skill ZIP', async () => {
  // 2 × 15 MB: under the skills' own limits (20 MB a file, 50 MB in all), over 100× its size.
  const bomb = zipSync(
    { 'SKILL.md': strToU8('---\nname: big\ndescription: d\n---\nbody\n'), 'assets/a.bin': zeros(15), 'assets/b.bin': zeros(15) },
    { level: 9 },
  );
  assert.throws(
    () => skillsFromZip(bomb, 'big.zip'),
    (err) => err instanceof ZipError && err.code === 'too_large' && err.message === ratioMessage(bomb.length),
  );
  const ok = skillsFromZip(
    zipSync({
      'SKILL.md': strToU8('---\nname: ok\ndescription: d\n---\nbody\n'),
      'notes.txt': strToU8('the same line again\n'.repeat(100_000)),
    }),
    'ok.zip',
  );
  assert.equal(ok.length, 1);
  assert.equal(ok[0].files.size, 2);
});

/**
 * A backup-shaped archive holding `files` (the manifest lists them with their sizes and hashes).
 * @param {Record<string, Uint8Array>} files
 */
function backupOf(files) {
  const list = Object.entries(files).map(([path, data]) => ({
    path,
    size: data.length,
    sha256: createHash('sha256').update(data).digest('hex'),
  }));
  const manifest = {
    format: 'clawser-backup',
    version: 1,
    createdAt: new Date(0).toISOString(),
    appVersion: 'test',
    files: list,
    dirs: [],
    config: 0,
    secrets: 'none',
  };
  /** @type {Record<string, Uint8Array>} */
  const zip = { 'manifest.json': strToU8(JSON.stringify(manifest)), 'config.json': strToU8('{}') };
  for (const [path, data] of Object.entries(files)) zip[`files/${path}`] = data;
  return zipSync(zip, { level: 9 });
}

/** @returns {import('../../web/backup/types.d.ts').ConfigStore} */
const emptyConfig = () =>
  localStorageConfig(
    /** @type {Storage} */ (/** @type {unknown} */ ({ length: 0, key: () => null, getItem: () => null, setItem() {}, removeItem() {} })),
  );
const noSecrets = /** @type {any} */ ({ decrypt: async () => '' }); // any: a stand-in sealer, never called without a passphrase

test('backup restore: a backup-shaped bomb is refused by the ratio with the shared message before anything is restored; controls: \
real backups read back, one of very repetitive files included', async () => {
  const bomb = backupOf({ 'clawser_workspaces/w/a.bin': zeros(75), 'clawser_workspaces/w/b.bin': zeros(75) });
  await assert.rejects(
    readBackup(bomb),
    (err) => err instanceof BackupError && err.code === 'too_large' && err.message === ratioMessage(bomb.length),
  );
  // Control: a backup Clawser made reads back.
  const fs = new MemoryFileSystem();
  await fs.write('clawser_workspaces/w/notes.md', '# notes');
  const normal = await readBackup(await createBackup({ fs, config: emptyConfig(), secrets: noSecrets, appVersion: 'test' }));
  assert.equal(normal.files.size, 1);
  // Control: a workspace of zeros (as dense as the bomb) still makes a backup that restores.
  await fs.write('clawser_workspaces/w/disk.img', zeros(40));
  const dense = await createBackup({ fs, config: emptyConfig(), secrets: noSecrets, appVersion: 'test' });
  const back = await readBackup(dense);
  assert.equal(back.files.get('clawser_workspaces/w/disk.img')?.length, 40 * MB);
});

test("the embedding model's ZIP: a model padded with zeros is refused by the ratio with the shared message; control: \
the real files install", async () => {
  const files = tinyModelFiles();
  const onnx = files['onnx/model_quantized.onnx'];
  const padded = new Uint8Array(onnx.length + 60 * MB);
  padded.set(onnx);
  const bomb = zipSync({ ...files, 'onnx/model_quantized.onnx': padded }, { level: 9 });
  const installer = new ModelInstaller({ caches: new MemoryCacheStorage(), modelBaseUrl: 'http://app.test/models/' });
  await assert.rejects(
    installer.importZip(new Blob([bomb])),
    (err) => err instanceof ModelInstallError && err.code === 'too_large' && err.message === ratioMessage(bomb.length),
  );
  assert.equal(await installer.isInstalled(), false);
  await installer.importZip(new Blob([zipSync(files)]));
  assert.equal(await installer.isInstalled(), true);
});

/** A shell over a workspace holding `files`. @param {Record<string, Uint8Array>} files */
async function shellWith(files) {
  const fs = new MemoryFileSystem();
  for (const [p, data] of Object.entries(files)) await fs.write(p, data);
  return { fs, shell: createShell({ fs }) };
}

test('shell unzip: the bombs are refused with the shared message (exit 1), nothing written; controls: \
a normal ZIP and a large one of ordinary density extract', async () => {
  const { fs, shell } = await shellWith({
    'one.zip': BOMB_ONE,
    'two.zip': BOMB_TWO,
    'normal.zip': zipSync(NORMAL),
    'big.zip': zipSync({ 'noise.txt': noisyText(12) }),
  });
  for (const [name, bomb] of /** @type {const} */ ([
    ['one.zip', BOMB_ONE],
    ['two.zip', BOMB_TWO],
  ])) {
    const r = await shell.run(`unzip -q ${name} -d out`);
    assert.equal(r.exitCode, 1, r.stderr);
    assert.equal(r.stderr, `unzip: ${name}: ${ratioMessage(bomb.length)}\n`);
    assert.equal(await fs.stat('out'), null, 'nothing written');
  }
  const ok = await shell.run('unzip -q normal.zip -d out && unzip -q big.zip -d out && wc -c out/log.txt out/noise.txt');
  assert.equal(ok.exitCode, 0, ok.stderr);
  assert.match(ok.stdout, /5242880 out\/log\.txt\n12582912 out\/noise\.txt/);
  // Listing reads only the headers (-l, -Z1): no expansion, no refusal.
  assert.equal((await shell.run('unzip -Z1 two.zip')).stdout, 'a.bin\nb.bin\n');
});

test('shell tar -x: a .tgz bomb is refused with the shared message (exit 2), from a file or a pipe; \
an archive of more than 10,000 entries too; controls: normal archives extract', async () => {
  const many = await packTar(
    Array.from({ length: ARCHIVE_LIMITS.maxEntries + 1 }, (_, i) => ({
      header: { name: `f/${i}`, size: 0, type: /** @type {const} */ ('file') },
      body: new Uint8Array(0),
    })),
  );
  const normalTar = await packTar(
    Object.entries(NORMAL).map(([name, body]) => ({ header: { name, size: body.length, type: /** @type {const} */ ('file') }, body })),
  );
  const { fs, shell } = await shellWith({
    'bomb.tgz': BOMB_TGZ,
    'many.tar': many,
    'normal.tgz': gzipSync(normalTar),
    'normal.tar': normalTar,
  });
  for (const line of ['tar -xzf bomb.tgz', 'tar -xf bomb.tgz', 'cat bomb.tgz | tar -xz']) {
    const r = await shell.run(`mkdir -p out && ${line} -C out`);
    assert.equal(r.exitCode, 2, `${line}: ${r.stderr}`);
    assert.equal(r.stderr, `tar: ${ratioMessage(BOMB_TGZ.length)}\n`, line);
  }
  const r = await shell.run('tar -xf many.tar -C out');
  assert.equal(r.exitCode, 2);
  assert.equal(
    r.stderr,
    `tar: The archive has more than 10,000 entries, more than Clawser expands from one archive; nothing was extracted.\n`,
  );
  assert.deepEqual(await fs.list('out'), [], 'nothing written');
  const ok = await shell.run(
    'tar -xzf normal.tgz -C out && mkdir plain && tar -xf normal.tar -C plain && wc -c out/log.txt plain/notes/a.md',
  );
  assert.equal(ok.exitCode, 0, ok.stderr);
  assert.match(ok.stdout, /5242880 out\/log\.txt\n +4 plain\/notes\/a\.md/);
  // Listing a compressed tar expands it too (its names are inside the gzip stream): refused alike.
  assert.equal((await shell.run('tar -tzf bomb.tgz')).stderr, `tar: ${ratioMessage(BOMB_TGZ.length)}\n`);
  assert.equal((await shell.run('tar -tf normal.tgz')).stdout, 'notes/a.md\nnotes/b.txt\nlog.txt\n', 'control');
});

test('shell gunzip, zcat and gzip -d: a .gz bomb is refused with the shared message (exit 1), nothing written; controls: \
a normal .gz and one over the old 16 MB output cap expand', async () => {
  const { fs, shell } = await shellWith({
    'z.gz': BOMB_GZ,
    'small.txt.gz': gzipSync(strToU8('hello\n')),
    'noise.txt.gz': gzipSync(noisyText(20)),
  });
  const message = ratioMessage(BOMB_GZ.length);
  // GNU's gunzip and zcat are gzip: their messages say "gzip:".
  for (const [line, prefix] of [
    ['gunzip -k z.gz', 'gzip: z.gz: '],
    ['gzip -dk z.gz', 'gzip: z.gz: '],
    ['zcat z.gz > out', 'gzip: z.gz: '],
    ['gunzip -c < z.gz > out', 'gzip: stdin: '],
    ['gzip -dc z.gz > out', 'gzip: z.gz: '],
    ['gzip -t z.gz', 'gzip: z.gz: '],
  ]) {
    const r = await shell.run(line);
    assert.equal(r.exitCode, 1, `${line}: ${r.stderr}`);
    assert.equal(r.stderr, `${prefix}${message}\n`, line);
    assert.equal(await fs.stat('z'), null, `${line}: nothing written`);
    assert.equal((await fs.stat('out'))?.size ?? 0, 0, `${line}: nothing written to stdout`);
  }
  const ok = await shell.run(
    'zcat small.txt.gz && gunzip small.txt.gz && cat small.txt && ls small.txt.gz; gunzip -k noise.txt.gz && wc -c noise.txt',
  );
  assert.equal(ok.stdout, 'hello\nhello\n20971520 noise.txt\n', ok.stderr);
  assert.equal(await fs.stat('small.txt.gz'), null, 'gunzip removes the .gz without -k');
});

test('the same bomb gets the same message on every path', async () => {
  /** @type {string[]} */
  const messages = [];
  const catchMessage = async (/** @type {() => unknown} */ f) => {
    try {
      await f();
    } catch (err) {
      messages.push(/** @type {Error} */ (err).message);
      return;
    }
    messages.push('(accepted)');
  };
  await catchMessage(() => readZip(BOMB_TWO));
  await catchMessage(() => new FilesController({ fs: new MemoryFileSystem() }).importZip('', BOMB_TWO));
  const { shell } = await shellWith({ 'b.zip': BOMB_TWO });
  messages.push((await shell.run('unzip b.zip')).stderr.replace(/^unzip: b\.zip: /, '').trimEnd());
  assert.deepEqual(messages, [ratioMessage(BOMB_TWO.length), ratioMessage(BOMB_TWO.length), ratioMessage(BOMB_TWO.length)]);
});

test("the page's zlib stand-in (scripts/shims/node-zlib.mjs, what just-bash's own gzip and rg -z use there) stops inflating at \
maxOutputLength and at the archive limits; control: data within them expands", async () => {
  const { gunzipSync } = await import('../../scripts/shims/node-zlib.mjs');
  // Cut short: inflating all of it first would meet the damaged end (an Error); stopping at a
  // limit never gets there: the RangeError Node's zlib throws, or the shared archive limit.
  const cut = BOMB_GZ.subarray(0, BOMB_GZ.length - 64);
  assert.throws(
    () => gunzipSync(cut, { maxOutputLength: 16 * MB }),
    (err) => err instanceof ArchiveLimitError && err.message === ratioMessage(cut.length),
  );
  const noise = gzipSync(noisyText(3));
  assert.throws(() => gunzipSync(noise.subarray(0, noise.length - 64), { maxOutputLength: 1 * MB }), RangeError);
  assert.equal(new TextDecoder().decode(gunzipSync(gzipSync(strToU8('hello')), { maxOutputLength: 5 })), 'hello');
});
