// The two shared storage helpers (issue 12 §3): a JSON file changed under a cross-tab lock
// (goals, scheduled jobs) and catching up on an append-only log another tab appended to
// (conversation events, memory log).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { LockedJsonFile } from '../../web/storage/locked-json.js';
import { readAppended, readTail, splitLines } from '../../web/storage/append-log.js';
import { LocalLocks } from '../../web/storage/local-locks.js';

/** Two "tabs": two LockedJsonFile instances on one file system, sharing one lock. */
function twoTabs() {
  const fs = new MemoryFileSystem();
  const locks = new LocalLocks();
  /** @type {string[]} */
  const told = [];
  const make = (/** @type {string} */ tab) =>
    new LockedJsonFile({
      fs,
      path: 'state/list.json',
      name: 'list',
      lock: (name, fn) => locks.request(name, {}, fn),
      empty: () => ({ items: /** @type {string[]} */ ([]) }),
      parse: (text) => {
        const v = JSON.parse(text);
        if (!Array.isArray(v.items)) throw new Error('list.json is damaged: "items" is not a list');
        return /** @type {{items: string[]}} */ (v);
      },
      onWritten: () => told.push(tab),
    });
  return { fs, a: make('a'), b: make('b'), told };
}

test('LockedJsonFile: concurrent changes from two tabs are both kept (each re-reads under the lock)', async () => {
  const { fs, a, b, told } = twoTabs();
  await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      (i % 2 ? a : b).update((v) => {
        v.items.push(`item ${i}`);
        return { result: v.items.length, changed: true };
      }),
    ),
  );
  const stored = JSON.parse(await fs.readText('state/list.json'));
  assert.equal(stored.items.length, 20);
  assert.equal(new Set(stored.items).size, 20);
  assert.equal(told.length, 20, 'the other tabs are told after every write');
  // Control: without the lock, the same read-change-write loses updates.
  const racy = async (/** @type {number} */ i) => {
    const v = JSON.parse(await fs.readText('state/list.json'));
    await null;
    v.items.push(`racy ${i}`);
    await fs.write('state/list.json', JSON.stringify(v));
  };
  await Promise.all(Array.from({ length: 10 }, (_, i) => racy(i)));
  assert.ok(JSON.parse(await fs.readText('state/list.json')).items.length < 30, 'unlocked writers overwrite each other');
});

test('LockedJsonFile: a change that throws or says "unchanged" writes nothing and tells no one', async () => {
  const { fs, a, told } = twoTabs();
  await a.update((v) => {
    v.items.push('kept');
    return { result: null, changed: true };
  });
  const before = await fs.readText('state/list.json');
  await assert.rejects(
    a.update((v) => {
      v.items.push('lost');
      throw new Error('refused');
    }),
    /refused/,
  );
  const r = await a.update((v) => ({ result: v.items.length, changed: false }));
  assert.equal(r.result, 1);
  assert.equal(await fs.readText('state/list.json'), before);
  assert.deepEqual(told, ['a']);
});

test('LockedJsonFile: a damaged file is reported and left as it was', async () => {
  const { fs, a } = twoTabs();
  await fs.write('state/list.json', '{"items": 5}');
  await assert.rejects(
    a.update((v) => {
      v.items.push('x');
      return { result: null, changed: true };
    }),
    /damaged/,
  );
  assert.equal(await fs.readText('state/list.json'), '{"items": 5}');
});

test('LockedJsonFile: files derived from the value are written under the same lock, after it', async () => {
  const { fs, a, b } = twoTabs();
  /** @type {string[]} */
  const order = [];
  await Promise.all([
    a.update((v) => ({
      result: null,
      changed: true,
      value: { items: ['a'] },
      afterWrite: async () => {
        order.push('a: mirror start');
        await fs.write('state/mirror.txt', 'a');
        await null;
        order.push('a: mirror end');
      },
    })),
    b.update((v) => ({
      result: null,
      changed: true,
      value: { items: [...v.items, 'b'] },
      afterWrite: async () => {
        order.push('b: mirror');
        await fs.write('state/mirror.txt', v.items.join(','));
      },
    })),
  ]);
  assert.deepEqual(order, ['a: mirror start', 'a: mirror end', 'b: mirror']);
  assert.deepEqual(JSON.parse(await fs.readText('state/list.json')).items, ['a', 'b']);
});

test('readAppended: complete lines with exact byte offsets; a half-written line waits; a rewrite is reported', async () => {
  const fs = new MemoryFileSystem();
  const enc = new TextEncoder();
  await fs.append('log.jsonl', enc.encode('{"n":1,"t":"é"}\n{"n":2}\n'));
  let r = await readAppended(fs, 'log.jsonl', 0);
  assert.deepEqual(
    r.lines.map((l) => l.text),
    ['{"n":1,"t":"é"}', '{"n":2}'],
  );
  assert.equal(r.lines[1].offset, enc.encode('{"n":1,"t":"é"}\n').length, 'offsets count bytes, not characters');
  const from = r.next;
  await fs.append('log.jsonl', enc.encode('{"n":3}\n{"n":'));
  r = await readAppended(fs, 'log.jsonl', from);
  assert.deepEqual(
    r.lines.map((l) => l.text),
    ['{"n":3}'],
  );
  const afterThree = r.next;
  assert.equal(afterThree, from + enc.encode('{"n":3}\n').length, 'the unfinished line is left for next time');
  await fs.append('log.jsonl', enc.encode('4}\n'));
  r = await readAppended(fs, 'log.jsonl', afterThree);
  assert.deepEqual(
    r.lines.map((l) => l.text),
    ['{"n":4}'],
  );
  assert.equal((await readAppended(fs, 'log.jsonl', r.next)).lines.length, 0);
  await fs.write('log.jsonl', '{"n":9}\n');
  assert.equal((await readAppended(fs, 'log.jsonl', r.next)).shrunk, true);
  assert.equal((await readAppended(fs, 'missing.jsonl', 0)).lines.length, 0);
  assert.deepEqual(splitLines(enc.encode('a\nb'), 10), { lines: [{ offset: 10, text: 'a' }], tail: enc.encode('b'), tailOffset: 12 });
});

test('splitLines gives each line as decoding it alone would: byte-order marks, broken sequences, long lines, chunk edges', () => {
  // The reference: one decode per line.
  const decoder = new TextDecoder();
  /** @param {Uint8Array} bytes @param {number} base */
  const reference = (bytes, base) => {
    const lines = [];
    let start = 0;
    for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, start)) {
      lines.push({ offset: base + start, text: decoder.decode(bytes.subarray(start, i)) });
      start = i + 1;
    }
    return { lines, tail: bytes.subarray(start), tailOffset: base + start };
  };
  let seed = 5;
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const pieces = [
    [0x0a],
    [0x0a, 0x0a],
    [0xef, 0xbb, 0xbf],
    [0xe2, 0x82],
    [0xe2, 0x82, 0xac],
    [0x82],
    [0xf0, 0x9f, 0x98, 0x80],
    [0xff],
    [0x0d, 0x0a],
    [...new TextEncoder().encode('{"a":"é"}')],
  ];
  for (let round = 0; round < 300; round++) {
    /** @type {number[]} */
    const bytes = [];
    const n = round < 280 ? Math.floor(random() * 60) : 20_000 + Math.floor(random() * 60_000);
    while (bytes.length < n) {
      if (random() < 0.3) bytes.push(...pieces[Math.floor(random() * pieces.length)]);
      else bytes.push(0x20 + Math.floor(random() * 90));
      // Long stretches without a line break (longer than a decoded chunk) in the large rounds.
      if (round >= 280 && random() < 0.0001) for (let k = 0; k < 40_000; k++) bytes.push(0x61);
    }
    const input = Uint8Array.from(bytes);
    assert.deepEqual(splitLines(input, 7), reference(input, 7), `round ${round}`);
  }
});

test('readTail: the last bytes of a file with its size, through readTail where offered, else stat + readBytes; \
a missing file is empty', async () => {
  const fs = new MemoryFileSystem();
  await fs.write('log.jsonl', 'one\ntwo\n');
  const text = (/** @type {{bytes: Uint8Array, size: number}} */ r) => [new TextDecoder().decode(r.bytes), r.size];
  assert.deepEqual(text(await readTail(fs, 'log.jsonl', 4)), ['two\n', 8]);
  assert.deepEqual(text(await readTail(fs, 'log.jsonl', 100)), ['one\ntwo\n', 8]);
  assert.deepEqual(text(await readTail(fs, 'missing.jsonl', 4)), ['', 0]);
  // A file system with its own readTail (OPFS) is asked once; its not_found means empty.
  /** @type {string[]} */
  const asked = [];
  const withTail = Object.assign(Object.create(fs), {
    /** @param {string} path @param {number} n */
    async readTail(path, n) {
      asked.push(`${path}:${n}`);
      if (path === 'missing.jsonl') throw Object.assign(new Error('missing'), { code: 'not_found' });
      return { bytes: new TextEncoder().encode('x'), size: 42 };
    },
  });
  assert.deepEqual(text(await readTail(withTail, 'log.jsonl', 4)), ['x', 42]);
  assert.deepEqual(text(await readTail(withTail, 'missing.jsonl', 4)), ['', 0]);
  assert.deepEqual(asked, ['log.jsonl:4', 'missing.jsonl:4']);
});
