// The storage layer on the real OPFS (through its worker), secrets with real WebCrypto and
// IndexedDB, and conversations on OPFS: incremental appends, torn-line recovery after a tab
// is killed mid-write, and a tab closed mid-stream losing no earlier event.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitInPage, openWorkspace, openHome } from './helpers.mjs';
import { useFixture } from './fixture.mjs';
import { waitUntil } from '../fixtures/wait.mjs';

const fx = await useFixture({ llm: {} });
const { app, llm, browser } = fx;

const blankPage = () => openHome(browser.context, app.url);

test('OPFS file system: atomic replace, append, ranges, truncate, list, move, delete, errors', async () => {
  const page = await blankPage();
  const result = await page.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const fs = new OpfsFileSystem();
    const dec = new TextDecoder();
    const out = /** @type {Record<string, unknown>} */ ({});
    await fs.delete('t');
    await fs.write('t/a/file.txt', 'first');
    await fs.write('t/a/file.txt', 'replaced');
    out.replaced = await fs.readText('t/a/file.txt');
    await fs.append('t/a/log.jsonl', 'one\n');
    await fs.append('t/a/log.jsonl', new TextEncoder().encode('twö\n'));
    out.appended = await fs.readText('t/a/log.jsonl');
    out.range = dec.decode(await fs.readBytes('t/a/log.jsonl', { start: 4 }));
    const st = await fs.stat('t/a/log.jsonl');
    out.stat = { kind: st?.kind, size: st?.size, hasTime: typeof st?.mtimeMs === 'number' };
    await fs.truncate('t/a/log.jsonl', 4);
    out.truncated = await fs.readText('t/a/log.jsonl');
    out.list = await fs.list('t/a');
    await fs.move('t/a/file.txt', 't/b/moved.txt');
    out.moved = [await fs.stat('t/a/file.txt'), await fs.readText('t/b/moved.txt')];
    await fs.write('t/b/other.txt', 'other');
    await fs.move('t/b/other.txt', 't/b/moved.txt');
    out.movedOver = await fs.readText('t/b/moved.txt');
    await fs.move('t/b', 't/c');
    out.dirMoved = await fs.list('t/c');
    out.missing = await fs.readText('t/nope').catch((/** @type {any} */ e) => e.code);
    out.bad = await fs.write('t/../x', 'x').catch((/** @type {any} */ e) => e.code);
    await fs.delete('t');
    out.deleted = await fs.stat('t');
    return out;
  });
  assert.deepEqual(result, {
    replaced: 'replaced',
    appended: 'one\ntwö\n',
    range: 'twö\n',
    stat: { kind: 'file', size: 9, hasTime: true },
    truncated: 'one\n',
    list: [
      { name: 'file.txt', kind: 'file' },
      { name: 'log.jsonl', kind: 'file' },
    ],
    moved: [null, 'replaced'],
    movedOver: 'other',
    dirMoved: [{ name: 'moved.txt', kind: 'file' }],
    missing: 'not_found',
    bad: 'invalid_path',
    deleted: null,
  });
  await page.close();
});

test("OPFS: a folder's move copies a file bigger than one copy slice in slices, every byte in place (a model's file over 2 GB \
cannot be read whole); control: a small file beside it", async () => {
  const page = await blankPage();
  const result = await page.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const fs = new OpfsFileSystem();
    // 70 MB: three slices of 32 MB, the last one short; each byte depends on its position, so a slice out of place shows.
    const big = new Uint8Array(70 * 1024 * 1024 + 123);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7 + (i >>> 16)) & 255;
    const digest = async (/** @type {Uint8Array} */ b) =>
      [...new Uint8Array(await crypto.subtle.digest('SHA-256', /** @type {BufferSource} */ (b)))].join(',');
    await fs.delete('mv');
    await fs.write('mv/from/model.gguf', big);
    await fs.write('mv/from/meta.json', '{"small": true}');
    await fs.move('mv/from', 'mv/to');
    const moved = await fs.readBytes('mv/to/model.gguf');
    const out = {
      size: moved.length === big.length,
      same: (await digest(moved)) === (await digest(big)),
      small: await fs.readText('mv/to/meta.json'),
      source: await fs.stat('mv/from'),
    };
    await fs.delete('mv');
    return out;
  });
  assert.deepEqual(result, { size: true, same: true, small: '{"small": true}', source: null });
  await page.close();
});

test('OPFS concurrency: overlapping operations keep their order, others overlap; \
a folder deleted by another tab is recovered', async () => {
  const page = await blankPage();
  const other = await blankPage();
  const result = await page.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const fs = new OpfsFileSystem();
    /** @type {any} */ (window).__fs = fs;
    await fs.delete('c');
    // 200 appends issued at once land in issue order.
    await Promise.all(Array.from({ length: 200 }, (_, i) => fs.append('c/log.txt', `${i}\n`)));
    const log = (await fs.readText('c/log.txt')).trim().split('\n').map(Number);
    // Writes to 100 files in 10 new folders at once, interleaved with reads of the same files.
    const writes = Array.from({ length: 100 }, (_, i) => fs.write(`c/d${i % 10}/f${i}.txt`, `v${i}`));
    const reads = Array.from({ length: 100 }, (_, i) => fs.readText(`c/d${i % 10}/f${i}.txt`));
    await Promise.all(writes);
    const readBack = await Promise.all(reads);
    // A write then a move then a read of the same path, issued together, run in that order.
    const [, , moved] = await Promise.all([fs.write('c/a.txt', 'A'), fs.move('c/a.txt', 'c/b.txt'), fs.readText('c/b.txt')]);
    // Non-atomic write (content-addressed data) and replacing it.
    await fs.write('c/obj', 'first', { atomic: false });
    await fs.write('c/obj', 'xy', { atomic: false });
    return { inOrder: log.every((n, i) => n === i) && log.length === 200, readBack, moved, obj: await fs.readText('c/obj') };
  });
  assert.equal(result.inOrder, true);
  assert.deepEqual(
    result.readBack,
    Array.from({ length: 100 }, (_, i) => `v${i}`),
  );
  assert.equal(result.moved, 'A');
  assert.equal(result.obj, 'xy');
  // This tab's storage worker has the folder "c/d1" cached; another tab deletes and recreates it.
  await other.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const fs = new OpfsFileSystem();
    await fs.delete('c/d1');
    await fs.write('c/d1/new.txt', 'from the other tab');
  });
  const afterOther = await page.evaluate(async () => {
    const fs = /** @type {any} */ (window).__fs;
    const text = await fs.readText('c/d1/new.txt');
    await fs.write('c/d1/mine.txt', 'written through the recovered folder');
    return text + ' | ' + (await fs.list('c/d1')).map((/** @type {{name: string}} */ e) => e.name).join(',');
  });
  assert.equal(afterOther, 'from the other tab | mine.txt,new.txt');
  await page.close();
  await other.close();
});

/**
 * Whether some worker holds `path` open for writing, as an OPFS sync access handle does (a
 * storage worker's after an append, until it is idle): asked by a worker of the test's own,
 * whose read-only handle such a writer refuses.
 * @param {import('playwright-core').Page} page @param {string} path
 * @returns {Promise<boolean>}
 */
function heldOpen(page, path) {
  return page.evaluate(async (path) => {
    const probe = `onmessage = async (e) => {
      try {
        const parts = e.data.split('/');
        const name = parts.pop();
        let dir = await navigator.storage.getDirectory();
        for (const part of parts) dir = await dir.getDirectoryHandle(part);
        const handle = await (await dir.getFileHandle(name)).createSyncAccessHandle({ mode: 'read-only' });
        handle.close();
        postMessage(false);
      } catch (err) {
        postMessage(err.name === 'NoModificationAllowedError' ? true : err.name + ': ' + err.message);
      }
    };`;
    const url = URL.createObjectURL(new Blob([probe], { type: 'text/javascript' }));
    const worker = new Worker(url);
    try {
      const answer = await new Promise((resolve) => {
        worker.onmessage = (e) => resolve(e.data);
        worker.postMessage(path);
      });
      if (typeof answer !== 'boolean') throw new Error(`The probe could not open ${path}: ${answer}`);
      return answer;
    } finally {
      worker.terminate();
      URL.revokeObjectURL(url);
    }
  }, path);
}

test("OPFS reads: a log's tail with its size (closed, held open by this tab, held by another tab), \
and reads after another tab replaced or deleted a file", async () => {
  const page = await blankPage();
  const other = await blankPage();
  const result = await page.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const fs = new OpfsFileSystem();
    /** @type {any} */ (window).__fs = fs;
    const dec = new TextDecoder();
    const out = /** @type {Record<string, unknown>} */ ({});
    await fs.delete('rt');
    await fs.write('rt/log.jsonl', 'one\ntwo\nthree\n');
    const tail = async (/** @type {number} */ n) => {
      const { bytes, size } = await /** @type {any} */ (fs).readTail('rt/log.jsonl', n);
      return [dec.decode(bytes), size];
    };
    out.closed = await tail(6);
    out.whole = await tail(1000);
    await fs.append('rt/log.jsonl', 'four\n'); // this tab's worker now holds the file open
    out.open = await tail(5);
    out.missing = await /** @type {any} */ (fs).readTail('rt/nope', 10).catch((/** @type {any} */ e) => e.code);
    await fs.write('rt/meta.json', '{"v":1}');
    out.before = [await fs.readText('rt/meta.json'), (await fs.stat('rt/meta.json'))?.size];
    return out;
  });
  assert.deepEqual(result, {
    closed: ['three\n', 14],
    whole: ['one\ntwo\nthree\n', 14],
    open: ['four\n', 19],
    missing: 'not_found',
    before: ['{"v":1}', 7],
  });
  // Another tab replaces the file this tab just read, appends to the log (its worker then holds
  // the log open for a moment) and deletes a file.
  await other.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const fs = new OpfsFileSystem();
    await fs.write('rt/meta.json', '{"v":2,"longer":true}');
    await fs.write('rt/gone.txt', 'x');
    await fs.delete('rt/gone.txt');
    /** @type {any} */ (window).__otherFs = fs;
  });
  // This tab's worker lets go of the log once idle (so the other tab can append to it).
  await waitUntil(async () => !(await heldOpen(page, 'rt/log.jsonl')), "this tab's handle on the log released");
  const seen = await page.evaluate(async () => {
    const fs = /** @type {any} */ (window).__fs;
    const dec = new TextDecoder();
    return {
      meta: [await fs.readText('rt/meta.json'), (await fs.stat('rt/meta.json'))?.size],
      gone: [await fs.stat('rt/gone.txt'), await fs.readText('rt/gone.txt').catch((/** @type {any} */ e) => e.code)],
      tail: dec.decode((await fs.readTail('rt/log.jsonl', 5)).bytes),
    };
  });
  await other.evaluate(async () => {
    await /** @type {any} */ (window).__otherFs.append('rt/log.jsonl', 'five\n');
  });
  const whileHeld = await page.evaluate(async () => {
    const { bytes, size } = await /** @type {any} */ (window).__fs.readTail('rt/log.jsonl', 5);
    return [new TextDecoder().decode(bytes), size];
  });
  assert.deepEqual(seen, { meta: ['{"v":2,"longer":true}', 21], gone: [null, 'not_found'], tail: 'four\n' });
  assert.deepEqual(whileHeld, ['five\n', 24]);
  await other.evaluate(() => /** @type {any} */ (window).__otherFs.terminate()); // releases its handle on the log
  // The browser lets go of a terminated worker's handles a moment later: the clean-up waits for it.
  await waitUntil(
    () =>
      page.evaluate(() =>
        /** @type {any} */ (window).__fs.delete('rt').then(
          () => true,
          (/** @type {any} */ e) => (e.code === 'busy' ? false : Promise.reject(e)),
        ),
      ),
    "the other tab's handle on the log released",
  );
  await page.close();
  await other.close();
});

test('OPFS readFiles: whole files and tails in one call (a missing file null, a file held by another tab read too); \
an atomic write waits for a file another tab holds a moment', async () => {
  const page = await blankPage();
  const other = await blankPage();
  await page.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const fs = new OpfsFileSystem();
    /** @type {any} */ (window).__fs = fs;
    await fs.delete('rf');
    await fs.write('rf/meta.json', '{"id":"x"}');
    await fs.write('rf/log.jsonl', 'one\ntwo\nthree\n');
  });
  const read = () =>
    page.evaluate(async () => {
      const dec = new TextDecoder();
      const got = await /** @type {any} */ (window).__fs.readFiles([
        { path: 'rf/log.jsonl', tail: 5 },
        { path: 'rf/meta.json' },
        { path: 'rf/none.json' },
        { path: 'rf/log.jsonl' },
        { path: 'rf/nodir/x', tail: 3 },
      ]);
      return got.map((/** @type {any} */ r) => (r ? [dec.decode(r.bytes), r.size] : r));
    });
  assert.deepEqual(await read(), [['hree\n', 14], ['{"id":"x"}', 10], null, ['one\ntwo\nthree\n', 14], null]);
  // Another tab appends to the log (its worker then holds it open for a moment): still read, and
  // an atomic write of a file held that way waits for it instead of failing as busy.
  await other.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const fs = new OpfsFileSystem();
    await fs.append('rf/log.jsonl', 'four\n');
    await fs.append('rf/held.txt', 'held');
  });
  assert.deepEqual((await read())[0], ['four\n', 19]);
  const written = await page.evaluate(async () => {
    const fs = /** @type {any} */ (window).__fs;
    await fs.write('rf/held.txt', 'replaced');
    return fs.readText('rf/held.txt');
  });
  assert.equal(written, 'replaced');
  await page.evaluate(() => /** @type {any} */ (window).__fs.delete('rf'));
  await page.close();
  await other.close();
});

test('a storage worker that dies fails its waiting calls clearly, and the next call gets a fresh worker', async () => {
  const page = await blankPage();
  const result = await page.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    // A worker that crashes on its first message stands in for one killed mid-operation.
    const url = URL.createObjectURL(
      new Blob(
        [
          'let n = 0; onmessage = (e) => { if (n++ === 0 && !globalThis.__ok) throw new ' +
            'Error("boom"); postMessage({ id: e.data.id, ok: true, result: "alive" }); };',
        ],
        { type: 'text/javascript' },
      ),
    );
    const fs = new OpfsFileSystem({ workerUrl: url });
    const first = await fs.stat('x').then(
      () => 'resolved',
      (err) => err.message,
    );
    const second = await Promise.race([
      fs.stat('x').then(
        () => 'resolved',
        (err) => err.message,
      ),
      new Promise((r) => setTimeout(() => r('hung'), 10_000)),
    ]);
    return { first, second };
  });
  assert.match(result.first, /The storage worker failed/);
  // The fresh worker's first message crashes it too (same script): a clear error again, not a hang.
  assert.match(result.second, /The storage worker failed/);
  await page.close();
});

test('a file handle left unused is let go even while its worker keeps answering reads: another tab can then move the folder \
(control: while it is held, it cannot)', async () => {
  const page = await blankPage();
  const result = await page.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const here = new OpfsFileSystem();
    const other = new OpfsFileSystem(); // another tab's storage worker
    await here.write('held/read-me.txt', 'r');
    await here.append('held/log.jsonl', '{}\n'); // opens the file for appends and keeps it open
    const control = await other.move('held', 'moved-early').then(
      () => 'moved',
      (/** @type {any} */ err) => err.code,
    );
    // A view that keeps reading: the worker is never idle.
    let reading = true;
    const reads = (async () => {
      let n = 0;
      while (reading) {
        await here.readText('held/read-me.txt').catch(() => '');
        n++;
      }
      return n;
    })();
    let moved = false;
    /** @type {string[]} */
    const refusals = [];
    // Tried again at once until it is let go (each try is a round trip to the other worker).
    const until = Date.now() + 20_000;
    while (!moved && Date.now() < until) {
      await other.move('held', 'moved').then(
        () => (moved = true),
        (/** @type {any} */ err) => refusals.push(err.code),
      );
    }
    reading = false;
    const readCount = await reads;
    const log = await other.readText('moved/log.jsonl').catch(() => null);
    here.terminate();
    other.terminate();
    return { control, moved, readCount, log, refusals: [...new Set(refusals)] };
  });
  assert.notEqual(result.control, 'moved', 'control: the held file keeps the folder in place');
  assert.equal(result.moved, true, JSON.stringify(result));
  assert.ok(result.readCount > 10, 'the worker kept answering reads meanwhile');
  assert.equal(result.log, '{}\n', 'nothing appended was lost');
  await page.close();
});

test('secrets: AES-GCM under a non-extractable key kept in IndexedDB', async () => {
  const page = await blankPage();
  const r = await page.evaluate(async () => {
    const { SecretBox } = await import('/web/storage/secrets.js');
    const box = new SecretBox({ dbName: 'clawser_keys_test' });
    const sealed = await box.encrypt('sk-browser-secret');
    const back = await new SecretBox({ dbName: 'clawser_keys_test' }).decrypt(sealed);
    const { get, createStore } = await import('idb-keyval');
    const key = /** @type {CryptoKey} */ (await get('master', createStore('clawser_keys_test', 'keys')));
    const exported = await crypto.subtle.exportKey('raw', key).then(
      () => 'exported',
      () => 'refused',
    );
    return { leaks: sealed.includes('sk-browser-secret'), back, extractable: key.extractable, exported };
  });
  assert.deepEqual(r, { leaks: false, back: 'sk-browser-secret', extractable: false, exported: 'refused' });
  await page.close();
});

test('events persist line by line on OPFS and a torn last line is recovered with a notice', async () => {
  const page = await fx.newPage(browser.context);
  await page.goto(app.url);
  await page.getByRole('link', { name: /My workspace/ }).click();
  await page.getByRole('button', { name: 'Try Echo' }).click();
  // The workspace view is rebuilt with the new provider: wait for it before typing.
  await page.getByText('Echo · test provider, no AI').waitFor();
  await page.getByRole('textbox', { name: 'Message' }).fill('keep me');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByText('Echo: keep me').waitFor();
  const where = await page.evaluate(() => {
    const [, ws, , conv] = location.hash.slice(1).split('/');
    return `clawser_workspaces/${ws}/.conversations/${conv}/events.jsonl`;
  });
  // Simulate a tab killed in the middle of writing an event.
  await page.evaluate(async (path) => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const fs = new OpfsFileSystem();
    await fs.append(path, '{"id":"torn","type":"agent_message","data":{"text":"half wri');
    fs.terminate();
  }, where);
  await page.reload();
  await page.getByRole('status').filter({ hasText: 'its last entry was incomplete' }).waitFor();
  // The notice can show a moment before the conversation is drawn: wait for its messages, then count them.
  await page.locator('.msg.assistant', { hasText: 'Echo: keep me' }).first().waitFor();
  assert.equal(await page.locator('.msg.user', { hasText: 'keep me' }).count(), 1);
  assert.equal(await page.locator('.msg.assistant', { hasText: 'Echo: keep me' }).count(), 1);
  await page.getByRole('textbox', { name: 'Message' }).fill('after repair');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByText('Echo: after repair').waitFor();
  const lines = await page.evaluate(async (path) => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const fs = new OpfsFileSystem();
    const text = await fs.readText(path);
    fs.terminate();
    return text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).type);
  }, where);
  // Each model call's try is on record too (provider_attempt), before its reply.
  assert.deepEqual(
    lines.filter((t) => t !== 'provider_attempt'),
    ['user_message', 'agent_message', 'user_message', 'agent_message'],
  );
  assert.equal(lines.at(-2), 'provider_attempt');
  await page.close();
});

test('a tab closed mid-stream loses no earlier event', async () => {
  const page = await openWorkspace(browser.context, app.url, {
    provider: 'openai-compatible',
    model: 'test-model',
    baseUrl: `${llm.url}/v1`,
  });
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  await page.getByRole('textbox', { name: 'Message' }).fill('first turn');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByText('You said: first turn').waitFor();
  llm.enqueue({ text: 'this reply never finishes because the tab goes away', dropAfter: 4, holdOpen: true });
  await page.getByRole('textbox', { name: 'Message' }).fill('second turn');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.locator('.msg.streaming .msg-body', { hasText: 'reply' }).waitFor();
  // The daemon's checkpoint of the turn in flight is on disk.
  await waitInPage(
    page,
    async () => {
      const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
      const { ScopedFileSystem } = await import('/web/storage/scoped-fs.js');
      const { CheckpointManager } = await import('/web/agent/coordination/checkpoint.js');
      const cm = new CheckpointManager({
        fs: new ScopedFileSystem(new OpfsFileSystem(), `clawser_workspaces/${location.hash.split('/')[1]}`),
      });
      const { checkpoint } = await cm.latest();
      return checkpoint?.state.turn?.status === 'running' && (checkpoint.state.turn.bytes ?? 0) > 0;
    },
    undefined,
    { what: 'a checkpoint of the running turn' },
  );
  const url = page.url();
  await page.close({ runBeforeUnload: false });
  const again = await fx.newPage(browser.context);
  await again.goto(url);
  await again.getByText('You said: first turn').waitFor();
  const users = await again.locator('.msg.user').allInnerTexts();
  assert.ok(users.some((t) => t.includes('first turn')));
  assert.ok(
    users.some((t) => t.includes('second turn')),
    'the message sent before the tab closed is kept',
  );
  // The interrupted request is offered again; Retry answers it (without sending it twice).
  await again.getByText('Your last request was interrupted: the tab closed before the reply finished.').waitFor();
  await again.getByRole('button', { name: 'Retry' }).click();
  await again.getByText('You said: second turn').waitFor();
  assert.equal((await again.locator('.msg.user').allInnerTexts()).filter((t) => t.includes('second turn')).length, 1);
  await again.close();
});
