// Downloading a model from an address (issue 34 §2), against a real HTTP server on 127.0.0.1
// (tests/fixtures/model-server.mjs) into a MemoryFileSystem store: a whole download; a transfer
// cut off mid-body resumed with a Range request (only the rest is fetched); a server that ignores
// Range; a file replaced on the server between attempts; a server that refuses other origins
// (CORS, emulated below as a browser enforces it); 404; not a GGUF; too big for the quota;
// offline; a split model. Each refusal leaves nothing among the models, with a control.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { makeTestGguf } from '../../scripts/make-test-gguf.mjs';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { LocalModelError, LocalModelStore, MODELS_FOLDER } from '../../web/providers/local-models.js';
import { DOWNLOADS_FOLDER, ModelDownloads, modelUrls } from '../../web/providers/local-model-download.js';
import { startModelServer, ggufHeaderOnly } from '../fixtures/model-server.mjs';
import { waitUntil } from '../fixtures/wait.mjs';

const model = makeTestGguf({ seed: 3 });
const other = makeTestGguf({ seed: 4 });
const roomy = { estimate: async () => ({ quota: 10e9, usage: 1e6 }) };
const server = await startModelServer();
after(() => server.close());
server.serve('/tiny.gguf', model);

/** @param {LocalModelStore} store @param {import('../../web/providers/local-model-download.js').DownloadDeps} [deps] */
const downloadsOf = (store, deps = {}) => new ModelDownloads(store, { online: () => true, ...deps });

/** Every path under the models folder but the downloads' empty folder. @param {MemoryFileSystem} fs */
async function tree(fs, dir = MODELS_FOLDER) {
  /** @type {string[]} */
  const out = [];
  for (const e of await fs.list(dir).catch(() => [])) {
    const path = `${dir}/${e.name}`;
    if (e.kind === 'directory') {
      const inside = await tree(fs, path);
      if (inside.length || path !== DOWNLOADS_FOLDER) out.push(path, ...inside);
    } else out.push(path);
  }
  return out;
}

/** @param {LocalModelStore} store @param {import('../../web/providers/local-models.js').LocalModel} m */
const storedBytes = (store, m) => store.fs.readBytes(`${MODELS_FOLDER}/${m.id}/${m.files[0]}`);

/** @param {string} code */
const refusedWith = (code) => (/** @type {unknown} */ err) => {
  assert.ok(err instanceof LocalModelError, String(err));
  assert.equal(err.code, code, err.message);
  assert.ok(err.message.length > 30, err.message);
  return true;
};

/**
 * fetch as a page of `origin` sees a server of another origin: without its permission
 * (Access-Control-Allow-Origin) the response is refused ("Failed to fetch"); a header pages may
 * not send freely (If-Range) is asked for first (a preflight); only the safelisted response
 * headers and those the server exposes are readable; a no-cors request reaches the server but
 * reads nothing.
 * @param {string} origin
 * @returns {typeof fetch}
 */
function pageFetch(origin) {
  const SAFELISTED = ['cache-control', 'content-language', 'content-length', 'content-type', 'expires', 'last-modified', 'pragma'];
  return /** @type {typeof fetch} */ (
    async (/** @type {string} */ url, /** @type {RequestInit} */ init = {}) => {
      if (new URL(url).origin === origin) return fetch(url, init);
      if (init.mode === 'no-cors') {
        const r = await fetch(url, { method: init.method, signal: init.signal });
        await r.body?.cancel();
        return new Response(null, { status: 200 });
      }
      const headers = /** @type {Record<string, string>} */ (init.headers ?? {});
      const unsafe = Object.keys(headers).filter((h) => h.toLowerCase() !== 'range');
      if (unsafe.length) {
        const pre = await fetch(url, {
          method: 'OPTIONS',
          headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': unsafe.join(',').toLowerCase() },
        });
        const allowed = (pre.headers.get('access-control-allow-headers') ?? '').toLowerCase();
        if (!pre.headers.get('access-control-allow-origin') || unsafe.some((h) => !allowed.includes(h.toLowerCase())))
          throw new TypeError('Failed to fetch');
      }
      const res = await fetch(url, { ...init, headers: { ...headers, origin } });
      if (res.headers.get('access-control-allow-origin') !== '*') {
        await res.body?.cancel();
        throw new TypeError('Failed to fetch');
      }
      const exposed = (res.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/\s*,\s*/);
      const visible = new Headers();
      for (const [k, v] of res.headers) if (SAFELISTED.includes(k) || exposed.includes(k)) visible.set(k, v);
      return new Response(res.body, { status: res.status, statusText: res.statusText, headers: visible });
    }
  );
}

test('a whole download: checked, stored byte for byte, described by its header, with its progress and source', async () => {
  const fs = new MemoryFileSystem();
  const store = new LocalModelStore(fs, roomy);
  /** @type {import('../../web/providers/local-model-download.js').DownloadProgress[]} */
  const progress = [];
  const m = await downloadsOf(store).start(`${server.url}/tiny.gguf?download=true`, { onProgress: (p) => progress.push(p) });
  assert.deepEqual(await storedBytes(store, m), model);
  assert.equal(m.bytes, model.length);
  assert.equal(m.name, 'clawser-test-tiny');
  assert.equal(m.callsTools, true);
  assert.equal(m.source, `${server.url}/tiny.gguf`, 'the query string is not kept');
  assert.equal(progress.at(-1)?.received, model.length);
  assert.equal(progress.at(-1)?.total, model.length);
  assert.deepEqual(await store.list(), [m]);
  assert.deepEqual(await downloadsOf(store).list(), [], 'no download left over');
  assert.deepEqual(await tree(fs), [
    `${MODELS_FOLDER}/${m.id}`,
    `${MODELS_FOLDER}/${m.id}/meta.json`,
    `${MODELS_FOLDER}/${m.id}/part-00001.gguf`,
  ]);
});

test('a transfer cut off mid-body keeps what came; the next run asks only for the rest (Range, If-Range) and the model is \
whole', async () => {
  const fs = new MemoryFileSystem();
  const store = new LocalModelStore(fs, roomy);
  server.serve('/resume.gguf', model);
  server.state.cutAfter = 300_000;
  const downloads = downloadsOf(store);
  await assert.rejects(downloads.start(`${server.url}/resume.gguf`), refusedWith('network'));
  const [pending] = await downloads.list();
  assert.ok(pending.received > 0 && pending.received <= 300_000, `kept ${pending.received}`);
  assert.equal(pending.total, model.length);
  assert.deepEqual(await store.list(), [], 'not a model until whole');
  // A reload: a new downloader over the same storage.
  const m = await downloadsOf(store).run(pending.id);
  const last = server.requests('/resume.gguf').at(-1);
  assert.equal(last?.range, `bytes=${pending.received}-`);
  assert.match(String(last?.ifRange), /^"v\d+-\d+"$/, 'validated by the ETag');
  assert.equal(last?.status, 206);
  assert.equal(last?.sent, model.length - pending.received, 'only the rest was sent');
  assert.deepEqual(await storedBytes(store, m), model, 'byte for byte');
  assert.deepEqual(await downloads.list(), []);
});

test('Stop keeps what arrived; Resume goes on from there', async () => {
  const fs = new MemoryFileSystem();
  const store = new LocalModelStore(fs, roomy);
  server.serve('/stop.gguf', model);
  server.state.holdAfter = 200_000;
  const downloads = downloadsOf(store);
  const stop = new AbortController();
  const running = downloads.start(`${server.url}/stop.gguf`, {
    signal: stop.signal,
    onProgress: (p) => {
      if (p.received >= 200_000) stop.abort();
    },
  });
  await assert.rejects(running, refusedWith('aborted'));
  server.release();
  const [pending] = await downloads.list();
  assert.equal(pending.received, 200_000);
  const m = await downloads.run(pending.id);
  assert.equal(server.requests('/stop.gguf').at(-1)?.range, 'bytes=200000-');
  assert.deepEqual(await storedBytes(store, m), model);
});

test('bytes that came are on disk while the server pauses (a reload then loses none of them)', async () => {
  const fs = new MemoryFileSystem();
  const store = new LocalModelStore(fs, roomy);
  server.serve('/pause.gguf', model);
  server.state.holdAfter = 150_000;
  const downloads = downloadsOf(store);
  const running = downloads.start(`${server.url}/pause.gguf`);
  const [pending] = await waitUntil(async () => {
    const list = await downloads.list();
    return list[0]?.received === 150_000 ? list : null;
  }, 'the first 150,000 bytes written while the server pauses');
  assert.equal(pending.total, model.length);
  server.release();
  assert.deepEqual(await storedBytes(store, await running), model);
});

test('a server that ignores Range sends the whole file again, which replaces the part kept (not appended to it)', async () => {
  const fs = new MemoryFileSystem();
  const store = new LocalModelStore(fs, roomy);
  server.serve('/norange.gguf', model);
  server.state.cutAfter = 250_000;
  const downloads = downloadsOf(store);
  await assert.rejects(downloads.start(`${server.url}/norange.gguf`), refusedWith('network'));
  const [pending] = await downloads.list();
  server.state.ignoreRange = true;
  /** @type {(string | undefined)[]} */
  const notes = [];
  const before = server.requests('/norange.gguf').length;
  try {
    const m = await downloads.run(pending.id, { onProgress: (p) => notes.push(p.note) });
    assert.deepEqual(
      server
        .requests('/norange.gguf')
        .slice(before)
        .map((r) => [r.range, r.status, r.sent]),
      [[`bytes=${pending.received}-`, 200, model.length]],
      'one request, answered with the whole file',
    );
    assert.ok(notes.includes('no_range'), 'said once that it starts again');
    assert.deepEqual(await storedBytes(store, m), model, 'the whole file, once');
  } finally {
    server.state.ignoreRange = false;
  }
});

test('a file replaced on the server between attempts starts again (If-Range, and the ETag compared where If-Range cannot be \
sent)', async () => {
  for (const preflight of [true, false]) {
    const fs = new MemoryFileSystem();
    const store = new LocalModelStore(fs, roomy);
    const path = `/changed-${preflight}.gguf`;
    server.serve(path, model);
    server.state.cutAfter = 250_000;
    server.state.preflight = preflight;
    // A page of another origin: without the preflight, If-Range cannot be sent.
    const downloads = downloadsOf(store, { fetch: pageFetch('http://app.example') });
    try {
      await assert.rejects(downloads.start(`${server.url}${path}`), refusedWith('network'));
      const [pending] = await downloads.list();
      server.serve(path, other);
      /** @type {(string | undefined)[]} */
      const notes = [];
      const m = await downloads.run(pending.id, { onProgress: (p) => notes.push(p.note) });
      assert.ok(notes.includes('changed'), `said that the file changed (preflight ${preflight})`);
      assert.deepEqual(await storedBytes(store, m), other, 'the new file, not a mix of both');
      const asked = server.requests(path).filter((r) => r.method === 'GET');
      assert.equal(asked.at(-1)?.status, 200, 'the new file came whole, from its start');
      assert.equal(asked.at(-1)?.sent, other.length);
      assert.equal(
        asked.some((r) => r.ifRange),
        preflight,
        'If-Range only where the server allows it',
      );
    } finally {
      server.state.preflight = true;
    }
  }
  // Control: the same file unchanged resumes without starting again, from the other origin too.
  const fs = new MemoryFileSystem();
  const store = new LocalModelStore(fs, roomy);
  server.serve('/unchanged.gguf', model);
  server.state.cutAfter = 250_000;
  const downloads = downloadsOf(store, { fetch: pageFetch('http://app.example') });
  await assert.rejects(downloads.start(`${server.url}/unchanged.gguf`), refusedWith('network'));
  /** @type {(string | undefined)[]} */
  const notes = [];
  const m = await downloads.run((await downloads.list())[0].id, { onProgress: (p) => notes.push(p.note) });
  assert.ok(!notes.includes('changed'));
  assert.equal(server.requests('/unchanged.gguf').at(-1)?.status, 206);
  assert.deepEqual(await storedBytes(store, m), model);
});

test('a server that does not let other sites read it (no CORS) is named, with what to do; nothing is stored', async () => {
  const closed = await startModelServer({ cors: false });
  const open = await startModelServer();
  try {
    closed.serve('/m.gguf', model);
    open.serve('/m.gguf', model);
    const fs = new MemoryFileSystem();
    const store = new LocalModelStore(fs, roomy);
    const downloads = downloadsOf(store, { fetch: pageFetch('http://app.example') });
    await assert.rejects(downloads.start(`${closed.url}/m.gguf`), (err) => {
      refusedWith('cors')(err);
      assert.match(/** @type {Error} */ (err).message, /Access-Control-Allow-Origin/);
      assert.match(/** @type {Error} */ (err).message, /import it/);
      return true;
    });
    assert.deepEqual(await tree(fs), []);
    // Control: the same file from a server that allows it.
    const m = await downloads.start(`${open.url}/m.gguf`);
    assert.deepEqual(await storedBytes(store, m), model);
  } finally {
    await closed.close();
    await open.close();
  }
});

test('404, a web page, a file that is not a GGUF model: refused after its first bytes, nothing stored', async () => {
  const fs = new MemoryFileSystem();
  const store = new LocalModelStore(fs, roomy);
  const downloads = downloadsOf(store);
  await assert.rejects(downloads.start(`${server.url}/missing.gguf`), (err) => {
    refusedWith('http')(err);
    assert.match(/** @type {Error} */ (err).message, /404/);
    return true;
  });
  server.serve('/page.gguf', new TextEncoder().encode(`<!doctype html><html>${'x'.repeat(200_000)}</html>`), { type: 'text/html' });
  await assert.rejects(downloads.start(`${server.url}/page.gguf`), (err) => {
    refusedWith('not_gguf')(err);
    assert.match(/** @type {Error} */ (err).message, /web page/);
    return true;
  });
  const zip = new Uint8Array(300_000);
  zip.set([0x50, 0x4b, 3, 4]);
  server.serve('/zip.gguf', zip);
  await assert.rejects(downloads.start(`${server.url}/zip.gguf`), refusedWith('not_gguf'));
  // Stopped at the first bytes: one small request each, not the whole file.
  for (const path of ['/page.gguf', '/zip.gguf']) {
    assert.deepEqual(
      server.requests(path).map((r) => r.range),
      ['bytes=0-65535'],
    );
  }
  // A file that starts like a model but is not one further in (a damaged header): refused when whole, then discarded.
  const damaged = model.slice();
  damaged.fill(0xff, 24, 40);
  server.serve('/damaged.gguf', damaged);
  await assert.rejects(downloads.start(`${server.url}/damaged.gguf`), refusedWith('not_gguf'));
  assert.deepEqual(await tree(fs), []);
  assert.deepEqual(await downloads.list(), []);
  // Control: the good file from the same server.
  assert.equal((await downloads.start(`${server.url}/tiny.gguf`)).architecture, 'llama');
});

test('a model bigger than the space left is refused before any of it is written, with both sizes', async () => {
  const fs = new MemoryFileSystem();
  const full = new LocalModelStore(fs, { estimate: async () => ({ quota: 100e6, usage: 99e6 }) });
  const seen = server.state.log.length;
  await assert.rejects(downloadsOf(full).start(`${server.url}/tiny.gguf`), (err) => {
    refusedWith('quota')(err);
    assert.match(/** @type {Error} */ (err).message, /needs 1 MB and the browser lets Clawser use 1 MB more/);
    return true;
  });
  assert.deepEqual(await tree(fs), []);
  assert.deepEqual(
    server.state.log.slice(seen).map((r) => r.range),
    ['bytes=0-65535'],
    'only its first bytes were asked for',
  );
  // Control: the same download with room.
  assert.equal((await downloadsOf(new LocalModelStore(fs, roomy)).start(`${server.url}/tiny.gguf`)).bytes, model.length);
});

test('offline, and a server that cannot be reached, say so', async () => {
  const store = new LocalModelStore(new MemoryFileSystem(), roomy);
  await assert.rejects(downloadsOf(store, { online: () => false }).start(`${server.url}/tiny.gguf`), refusedWith('offline'));
  const gone = await startModelServer();
  const url = `${gone.url}/tiny.gguf`;
  await gone.close();
  await assert.rejects(downloadsOf(store).start(url), refusedWith('network'));
});

test('a split model downloads every part, whichever part’s address was pasted', async () => {
  const parts = [1, 2, 3].map((n) =>
    ggufHeaderOnly(
      {
        'general.architecture': 'llama',
        'general.name': 'split-test',
        'split.no': { u16: n - 1 },
        'split.count': { u16: 3 },
        'split.tensors.count': { u32: 0 },
      },
      50_000 * n,
    ),
  );
  parts.forEach((bytes, i) => server.serve(`/split/m-0000${i + 1}-of-00003.gguf`, bytes));
  const fs = new MemoryFileSystem();
  const store = new LocalModelStore(fs, roomy);
  const m = await downloadsOf(store).start(`${server.url}/split/m-00002-of-00003.gguf`);
  assert.deepEqual(m.files, ['part-00001.gguf', 'part-00002.gguf', 'part-00003.gguf']);
  for (let i = 0; i < 3; i++) assert.deepEqual(await fs.readBytes(`${MODELS_FOLDER}/${m.id}/${m.files[i]}`), parts[i]);
  assert.equal(
    m.bytes,
    parts.reduce((n, p) => n + p.length, 0),
  );
  // Control: a part missing on the server stops it before anything is written.
  server.serve('/split2/m-00001-of-00002.gguf', parts[0]);
  const fs2 = new MemoryFileSystem();
  await assert.rejects(
    downloadsOf(new LocalModelStore(fs2, roomy)).start(`${server.url}/split2/m-00001-of-00002.gguf`),
    refusedWith('http'),
  );
  assert.deepEqual(await tree(fs2), []);
});

test('parts written by someone else (the service worker of a Background Fetch) are taken in only when whole', async () => {
  const fs = new MemoryFileSystem();
  const store = new LocalModelStore(fs, roomy);
  const downloads = downloadsOf(store);
  const note = await downloads.prepare(`${server.url}/tiny.gguf`);
  await downloads.setBackground(note.id, true);
  const path = `${DOWNLOADS_FOLDER}/${note.id}/part-00001.gguf`;
  await fs.write(path, model.subarray(0, 1000));
  await assert.rejects(downloads.finish(note.id), refusedWith('network'));
  assert.deepEqual(await store.list(), []);
  // Control: whole.
  await fs.write(path, model);
  const m = await downloads.finish(note.id);
  assert.deepEqual(await storedBytes(store, m), model);
  assert.deepEqual(await downloads.list(), []);
});

test('addresses: a Hugging Face file page becomes its file, split parts are listed, plain http is refused on an https page', () => {
  assert.equal(
    modelUrls('https://huggingface.co/Qwen/Qwen2.5-0.5B-Instruct-GGUF/blob/main/qwen2.5-0.5b-instruct-q4_k_m.gguf').url,
    'https://huggingface.co/Qwen/Qwen2.5-0.5B-Instruct-GGUF/resolve/main/qwen2.5-0.5b-instruct-q4_k_m.gguf',
  );
  // Control: a resolve link and other hosts are left as they are.
  assert.equal(modelUrls('https://huggingface.co/a/b/resolve/main/x.gguf').url, 'https://huggingface.co/a/b/resolve/main/x.gguf');
  assert.equal(modelUrls('https://example.com/a/blob/x.gguf').url, 'https://example.com/a/blob/x.gguf');
  assert.deepEqual(modelUrls('https://h.test/m-00003-of-00003.gguf?download=true').parts, [
    'https://h.test/m-00001-of-00003.gguf?download=true',
    'https://h.test/m-00002-of-00003.gguf?download=true',
    'https://h.test/m-00003-of-00003.gguf?download=true',
  ]);
  assert.throws(() => modelUrls('http://models.example/x.gguf', 'https:'), refusedWith('invalid'));
  assert.equal(modelUrls('http://models.example/x.gguf', 'http:').url, 'http://models.example/x.gguf', 'control: from an http page');
  assert.equal(modelUrls('http://127.0.0.1:8080/x.gguf', 'https:').url, 'http://127.0.0.1:8080/x.gguf', 'control: this computer');
  assert.throws(() => modelUrls('qwen.gguf'), refusedWith('invalid'));
  assert.throws(() => modelUrls('ftp://h.test/x.gguf'), refusedWith('invalid'));
});
