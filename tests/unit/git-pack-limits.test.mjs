// Issue 32 §5: archives have the same limits everywhere — git's fetch too. A clone or a pull
// receives a pack (a compressed archive of objects) and expands it; a repository holding 40 MB of
// zeros arrives as ~40 KB, as a ZIP of the same bytes does, and the ZIP is refused. The pack is
// read as it arrives (web/git/pack-limits.js) and counted into the shared ExpansionBudget, and
// refused with the shared message before isomorphic-git writes or indexes anything: a refused
// clone leaves nothing in the workspace, a refused pull leaves the repository as it was. Controls:
// an ordinary repository clones and pulls; a moderately large one (many files of ordinary text,
// with history) clones whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { zipSync, zlibSync } from 'fflate';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { cloneInto } from '../../web/git/git.js';
import { ArchiveLimitError, ExpansionBudget, expandZip } from '../../web/files/archive-limits.js';
import { startGitServer } from '../fixtures/git-http-server.mjs';

const MB = 1024 * 1024;
const zeros = (/** @type {number} */ mb) => new Uint8Array(mb * MB);
/** The shared refusal of an archive that expands like a zip bomb (sizes vary with the archive). */
const RATIO_MESSAGE =
  /^The archive expands to more than 100 times its size \(\d+ KB to more than \d+ MB\), as zip bombs do; nothing was extracted\.$/;

/** @param {unknown} err */
const isRatioRefusal = (err) =>
  err instanceof ArchiveLimitError && err.code === 'too_large' && err.limit === 'ratio' && RATIO_MESSAGE.test(err.message);

/** Every file under `dir` of a file system, with its bytes' hash. @param {import('../../web/storage/types.d.ts').FileSystem} fs */
async function snapshot(fs, dir = '') {
  /** @type {Record<string, string>} */
  const out = {};
  for (const e of await fs.list(dir)) {
    const path = dir ? `${dir}/${e.name}` : e.name;
    if (e.kind === 'directory') Object.assign(out, await snapshot(fs, path));
    else
      out[path] = createHash('sha1')
        .update(await fs.readBytes(path))
        .digest('hex');
  }
  return out;
}

/** The real git CLI, isolated from the developer's config. @param {string} cwd @param {...string} args @returns {Promise<string>} */
function git(cwd, ...args) {
  /** @type {NodeJS.ProcessEnv} */
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_')) env[k] = v;
  Object.assign(env, { HOME: cwd, XDG_CONFIG_HOME: cwd, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' });
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      ['-c', 'user.name=Other', '-c', 'user.email=other@example.com', ...args],
      { cwd, env, maxBuffer: 64 * MB },
      (err, stdout, stderr) => (err ? reject(new Error(`git ${args.join(' ')}: ${stderr}`)) : resolve(stdout.trim())),
    );
  });
}

/**
 * Commits `files` on top of the remote's main, as someone else would, and pushes.
 * @param {string} url
 * @param {Record<string, string | Uint8Array>} files
 * @param {string} message
 */
async function pushCommit(url, files, message) {
  const work = await mkdtemp(join(tmpdir(), 'clawser-pack-'));
  try {
    await git(work, 'clone', '-q', url, 'w');
    const dir = join(work, 'w');
    for (const [path, data] of Object.entries(files)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), data);
    }
    await git(dir, 'add', '-A');
    await git(dir, 'commit', '-q', '-m', message);
    await git(dir, 'push', '-q', 'origin', 'main');
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * Ordinary prose-like text from a fixed word list, `bytes` long, seeded (compresses ~3×, like code and notes).
 * @param {number} seed
 * @param {number} bytes
 */
function prose(seed, bytes) {
  const words = (
    'the of and to in is for that with as on be this are by it from or at an which not can will file value function return ' +
    'data user when each should if one more new use then time all also into only list name need what where how make after ' +
    'first before their there these other used line page point under while state change order number'
  ).split(' ');
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  let out = '';
  while (out.length < bytes) {
    const n = 6 + (next() % 14);
    const line = [];
    for (let i = 0; i < n; i++) line.push(words[next() % words.length]);
    out += `${line.join(' ')}${next() % 7 === 0 ? ` ${next()}` : ''}.\n`;
  }
  return out.slice(0, bytes);
}

test('the bomb is what the review found: 40 MB of zeros, refused as a ZIP by the shared limits', () => {
  const zip = zipSync({ 'big.bin': zeros(40) }, { level: 9 });
  assert.throws(() => expandZip(zip), isRatioRefusal);
});

test('clone: a repository whose pack expands like a zip bomb (40 MB of zeros) is refused with the shared message; \
nothing is left in the workspace. Control: an ordinary repository clones', async (t) => {
  const server = await startGitServer();
  t.after(() => server.close());
  const bomb = await server.createRepo('bomb', { 'big.bin': zeros(40), 'README.md': 'hi\n' });
  const ws = new MemoryFileSystem();
  await assert.rejects(cloneInto(ws, bomb), isRatioRefusal);
  assert.deepEqual(await ws.list(''), [], 'the refused clone left nothing behind');
  const packRequests = server.requests.filter((r) => r.path.endsWith('/git-upload-pack'));
  assert.equal(packRequests.length, 1, 'the pack was asked for (the refusal is of what arrived, not of the URL)');

  // Control: the same server, an ordinary repository.
  const url = await server.createRepo('ordinary', {
    'README.md': '# Ordinary\n',
    'src/main.js': 'console.log("hi");\n',
    'notes/log.txt': 'the same line again\n'.repeat(50_000),
  });
  const ok = new MemoryFileSystem();
  const { repo } = await cloneInto(ok, url);
  assert.equal(await ok.readText('README.md'), '# Ordinary\n');
  assert.equal((await ok.readBytes('notes/log.txt')).length, 1_000_000);
  assert.equal((await repo.log()).length, 1);
});

test('pull: a commit whose pack expands like a zip bomb is refused with the shared message; \
the repository and the working copy are as they were. Control: an ordinary commit pulls', async (t) => {
  const server = await startGitServer();
  t.after(() => server.close());
  const url = await server.createRepo('pulled', { 'README.md': '# Pulled\n' });
  const ws = new MemoryFileSystem();
  const { repo } = await cloneInto(ws, url);
  await repo.status(); // git refreshes its index on the first status: the snapshot is taken after
  const before = await snapshot(ws);

  await pushCommit(url, { 'big.bin': zeros(40) }, 'Add 40 MB of zeros');
  await assert.rejects(repo.pull(), isRatioRefusal);
  assert.deepEqual(await snapshot(ws), before, 'no ref, pack, shallow file or working file changed');
  assert.equal((await repo.log()).length, 1);

  // Control: an ordinary commit on top (the bomb's commit is its parent: replace big.bin by a small file).
  await pushCommit(url, { 'big.bin': 'small now\n', 'docs/guide.md': '# Guide\n' }, 'Shrink');
  await assert.rejects(repo.pull(), isRatioRefusal, 'the history still holds the bomb: a pull brings it along, and is refused');
  assert.deepEqual(await snapshot(ws), before);
  const other = await server.createRepo('other', { 'README.md': '# Other\n' });
  const ws2 = new MemoryFileSystem();
  const { repo: repo2 } = await cloneInto(ws2, other);
  await pushCommit(other, { 'docs/guide.md': '# Guide\n' }, 'Add a guide');
  await repo2.pull();
  assert.equal(await ws2.readText('docs/guide.md'), '# Guide\n');
  assert.equal((await repo2.log()).length, 2);
});

test('control: a moderately large repository (300 files of ordinary text, ~3 MB, \
and three commits of edits) clones and pulls whole', async (t) => {
  const server = await startGitServer();
  t.after(() => server.close());
  /** @type {Record<string, string>} */
  const files = {};
  for (let i = 0; i < 300; i++) files[`src/part${Math.floor(i / 30)}/file${i}.md`] = prose(i + 1, 6_000 + ((i * 97) % 8_000));
  const url = await server.createRepo('large', files);
  for (let c = 0; c < 3; c++) {
    /** @type {Record<string, string>} */
    const edits = {};
    for (let i = c; i < 300; i += 7)
      edits[`src/part${Math.floor(i / 30)}/file${i}.md`] =
        `${files[`src/part${Math.floor(i / 30)}/file${i}.md`]}\n${prose(1000 + c * 300 + i, 400)}`;
    Object.assign(files, edits);
    await pushCommit(url, edits, `Edit ${c + 1}`);
  }
  const total = Object.values(files).reduce((n, s) => n + s.length, 0);
  assert.ok(total > 2.5 * MB && total < 4 * MB, `${total} bytes of text`);
  const ws = new MemoryFileSystem();
  const { repo } = await cloneInto(ws, url);
  assert.equal((await repo.log()).length, 4);
  for (const [path, text] of Object.entries(files)) assert.equal(await ws.readText(path), text, path);

  await pushCommit(url, { 'src/part0/file0.md': `${files['src/part0/file0.md']}\nOne more line.\n` }, 'One more');
  await repo.pull();
  assert.match(await ws.readText('src/part0/file0.md'), /One more line\.\n$/);
});

// The inspector on packs made by hand: what git's own pack-objects never makes, a delta whose
// result is huge, and the refusal as soon as an object's header says it is too large.

/** A pack's object header (type, size). @param {number} type @param {number} size */
function objectHeader(type, size) {
  const out = [(type << 4) | (size & 15)];
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    out[out.length - 1] |= 0x80;
    out.push(rest & 127);
    rest = Math.floor(rest / 128);
  }
  return out;
}

/** Git's offset encoding of an ofs-delta's base. @param {number} n */
function ofsBytes(n) {
  const out = [n & 127];
  n = Math.floor(n / 128);
  while (n > 0) {
    n -= 1;
    out.unshift(128 | (n & 127));
    n = Math.floor(n / 128);
  }
  return out;
}

/** @param {number} n */
function varint(n) {
  const out = [];
  do {
    let b = n & 127;
    n = Math.floor(n / 128);
    if (n > 0) b |= 128;
    out.push(b);
  } while (n > 0);
  return out;
}

/**
 * A version-2 pack of `objects` (data given already inflated; ofs-deltas name their base by index).
 * @param {{type: number, data: Uint8Array, base?: number}[]} objects
 */
function pack(objects) {
  const head = new Uint8Array(12);
  head.set([0x50, 0x41, 0x43, 0x4b, 0, 0, 0, 2]);
  new DataView(head.buffer).setUint32(8, objects.length);
  /** @type {Uint8Array[]} */
  const out = [head];
  let offset = 12;
  /** @type {number[]} */
  const offsets = [];
  for (const o of objects) {
    offsets.push(offset);
    const header = [
      ...objectHeader(o.type, o.data.length),
      ...(o.type === 6 ? ofsBytes(offset - offsets[/** @type {number} */ (o.base)]) : []),
    ];
    const body = zlibSync(o.data, { level: 9 });
    out.push(Uint8Array.from(header), body);
    offset += header.length + body.length;
  }
  const joined = Buffer.concat(out);
  return new Uint8Array(Buffer.concat([joined, createHash('sha1').update(joined).digest()]));
}

/** An upload-pack response carrying `packBytes` in side-band-64k lines, as git http-backend sends it. @param {Uint8Array} packBytes */
function response(packBytes) {
  /** @param {Uint8Array} data */
  const line = (data) => Buffer.concat([Buffer.from((data.length + 4).toString(16).padStart(4, '0')), data]);
  /** @type {Buffer[]} */
  const parts = [line(Buffer.from('NAK\n')), line(Buffer.from('\x02Enumerating objects: done.\n'))];
  for (let i = 0; i < packBytes.length; i += 65515) parts.push(line(Buffer.concat([Buffer.from([1]), packBytes.subarray(i, i + 65515)])));
  parts.push(Buffer.from('0000'));
  return new Uint8Array(Buffer.concat(parts));
}

const { PackResponseInspector } = await import('../../web/git/pack-limits.js').catch(() => ({ PackResponseInspector: null }));

/** Feeds `bytes` to an inspector in network-sized chunks. @param {Uint8Array} bytes @param {number} [chunk] */
function inspect(bytes, chunk = 16_384) {
  assert.ok(PackResponseInspector, 'web/git/pack-limits.js exports PackResponseInspector');
  const inspector = new PackResponseInspector();
  for (let i = 0; i < bytes.length; i += chunk) inspector.push(bytes.subarray(i, i + chunk));
  inspector.end();
  return inspector;
}

test('inspector: a delta whose result is 40 MB (a 64 KB base copied 640 times: ~1 KB of delta) is refused by the ratio; control: \
the same pack with an ordinary delta passes, counted', () => {
  const base = new Uint8Array(64 * 1024);
  const copies = 640;
  const bombDelta = Uint8Array.from([...varint(base.length), ...varint(copies * 64 * 1024), ...new Array(copies).fill(0x80)]);
  const bomb = pack([
    { type: 3, data: base },
    { type: 6, data: bombDelta, base: 0 },
  ]);
  assert.ok(bomb.length < 2048, `${bomb.length} bytes of pack`);
  assert.throws(() => inspect(response(bomb)), isRatioRefusal);

  // Control: a delta that copies the base once and inserts a line.
  const text = new TextEncoder().encode(prose(7, 64 * 1024));
  const insert = new TextEncoder().encode('one more line\n');
  const delta = Uint8Array.from([...varint(text.length), ...varint(text.length + insert.length), 0x80, insert.length, ...insert]);
  const ok = inspect(
    response(
      pack([
        { type: 3, data: text },
        { type: 6, data: delta, base: 0 },
      ]),
    ),
    1000,
  );
  assert.equal(ok.objects, 2);
  assert.equal(
    ok.budget.total,
    text.length + delta.length + text.length + insert.length,
    'each object counted at what it becomes (the delta: its instructions and its result)',
  );
});

test('inspector: an object whose header says it is larger than one file may be is refused at its header, before its data arrives; control: \
a small object passes', () => {
  assert.ok(PackResponseInspector, 'web/git/pack-limits.js exports PackResponseInspector');
  const header = Uint8Array.from([0x50, 0x41, 0x43, 0x4b, 0, 0, 0, 2, 0, 0, 0, 1, ...objectHeader(3, 150 * MB)]);
  const inspector = new PackResponseInspector();
  assert.throws(
    () => inspector.push(response(header).subarray(0, -4)), // the header alone: its data has not arrived
    (err) =>
      err instanceof ArchiveLimitError &&
      err.limit === 'entry' &&
      err.message ===
        '"object 1 of 1 (a blob)" in the archive expands to more than 100 MB, more ' +
          'than Clawser expands for one file; nothing was extracted.',
  );
  const ok = inspect(response(pack([{ type: 3, data: new TextEncoder().encode('small') }])));
  assert.equal(ok.objects, 1);
  assert.equal(ok.budget.total, 5);
});

test('inspector: a pack cut short or not a pack is refused before git sees it; control: an empty pack (nothing new) passes', () => {
  const whole = response(pack([{ type: 3, data: new TextEncoder().encode(prose(3, 20_000)) }]));
  assert.throws(
    () => inspect(whole.subarray(0, whole.length - 200)),
    (err) => /** @type {any} */ (err).code === 'network',
  );
  const notPack = response(Uint8Array.from([...Buffer.from('JUNK'), 0, 0, 0, 2, 0, 0, 0, 1, ...Buffer.from('x'.repeat(40))]));
  assert.throws(
    () => inspect(notPack),
    (err) => /** @type {any} */ (err).code === 'git',
  );
  assert.equal(inspect(response(pack([]))).objects, 0);
});

test('the shared budget grows with an archive read as it arrives', () => {
  const budget = new ExpansionBudget(0);
  assert.throws(
    () => new ExpansionBudget(0).add(11 * MB),
    (err) => err instanceof ArchiveLimitError && err.limit === 'ratio',
  );
  budget.received(200 * 1024);
  budget.add(19 * MB); // control: 100 × 200 KB
  assert.throws(
    () => budget.add(2 * MB),
    (err) => err instanceof ArchiveLimitError && err.limit === 'ratio' && /\(200 KB to more than 20 MB\)/.test(err.message),
  );
});

test('the deflate walker agrees with zlib: every length, its first bytes and where the data ends, over every level, block kind and split; \
invalid data throws', async () => {
  const { deflateRawSync } = await import('node:zlib');
  const { DeflateScanner } = await import('../../web/git/deflate-scan.js');
  const random = new Uint8Array(200_000).map((_, i) => (Math.imul(i + 1, 2654435761) >>> 13) & 255);
  const inputs = [
    new Uint8Array(0),
    Buffer.from('a'),
    Buffer.from(prose(11, 100_000)),
    zeros(1),
    random,
    Buffer.concat([random.subarray(0, 70_000), zeros(1), Buffer.from(prose(5, 30_000))]),
  ];
  const after = Buffer.from('NEXT OBJECT');
  let cases = 0;
  for (const input of inputs) {
    for (const level of [0, 1, 6, 9]) {
      const data = deflateRawSync(input, { level });
      for (const split of [1, 7, 4096, data.length + after.length]) {
        const stream = Buffer.concat([data, after]);
        const scanner = new DeflateScanner();
        let at = 0;
        let left = -1;
        while (left < 0 && at < stream.length) {
          const piece = stream.subarray(at, at + split);
          at += piece.length;
          left = scanner.push(piece);
        }
        assert.equal(at - left, data.length, `ends where zlib's data ends (${input.length} bytes, level ${level}, pieces of ${split})`);
        assert.equal(scanner.produced, input.length);
        assert.deepEqual(scanner.head, [...input.subarray(0, 20)]);
        cases++;
      }
    }
  }
  assert.equal(cases, 96);
  const bad = Buffer.from(deflateRawSync(Buffer.from(prose(2, 5000))));
  bad[0] |= 6; // block type 3: reserved
  assert.throws(() => new DeflateScanner().push(bad), /invalid block type/);
});
