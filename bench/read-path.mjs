// The storage read path against the platform's floor (issue 36), in one page of Chromium over the
// same 1,000 small OPFS files (a workspace's src/, as the shell's `grep -r` reads them):
// - opfsRawRead1000FilesMs: the fastest raw OPFS read the platform offers, the best of
//   getFile() in parallel batches of several sizes in the page and synchronous access handles
//   in a dedicated worker (one at a time, 64 at a time, and 64 at a time closed only after the
//   answer is sent), each walking from the root with fresh handles;
// - opfsRead1000FilesColdMs: Clawser's read path (web/storage/opfs-fs.js) on a fresh
//   OpfsFileSystem: a new storage worker, nothing cached, every file read at once;
// - opfsRead1000FilesWarmMs: the same reads again on that file system (its read cache);
// - opfsReadOverheadRatio: cold ÷ raw.
// Medians of five rounds, the methods taking turns within a round.
//   node bench/read-path.mjs
import { pathToFileURL } from 'node:url';
import { launchBrowser, startApp } from '../tests/browser/helpers.mjs';
import { forwardProgress, openHome } from './page.mjs';
import { rng } from './rng.mjs';

const round = (/** @type {number} */ x) => Math.round(x * 1000) / 1000;

/** The files: 1,000 of 20 lines of 8 words each, in 20 folders, as bench/shell.mjs makes them. */
export function readPathFiles() {
  const words = ['alpha', 'beta', 'gamma', 'delta', 'Epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa', 'TODO', 'note', 'grep'];
  const rand = rng(36);
  const line = () => Array.from({ length: 8 }, () => words[Math.floor(rand() * words.length)]).join(' ');
  /** @type {Record<string, string>} */
  const files = {};
  for (let i = 0; i < 1000; i++) files[`src/mod${i % 20}/file${i}.txt`] = `${Array.from({ length: 20 }, line).join('\n')}\n`;
  return files;
}

/**
 * Runs the measurements in `page`, which must be on the app.
 * @param {import('playwright-core').Page} page
 * @returns {Promise<Record<string, number>>}
 */
export function readPathBench(page) {
  return page.evaluate(async (files) => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const { ScopedFileSystem } = await import('/web/storage/scoped-fs.js');
    const root = 'clawser_workspaces/benchread';
    // close(): the worker and the cache channel (terminate() alone before the read cache existed).
    const stop = (/** @type {any} */ fs) => (fs.close ? fs.close() : fs.terminate());
    const setup = new OpfsFileSystem();
    await setup.delete(root);
    await Promise.all(Object.entries(files).map(([p, c]) => setup.write(`${root}/${p}`, c)));
    stop(setup);
    const paths = Object.keys(files);
    const total = Object.values(files).reduce((n, c) => n + c.length, 0);
    const median = (/** @type {number[]} */ xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

    /** Every file read with getFile(), `batch` at a time, walking from the root with fresh handles. @param {number} batch */
    const rawGetFile = async (batch) => {
      /** @type {Map<string, Promise<FileSystemDirectoryHandle>>} */
      const dirs = new Map();
      const opfs = await navigator.storage.getDirectory();
      /** @param {string} path @returns {Promise<FileSystemDirectoryHandle>} */
      const dirOf = (path) => {
        const known = dirs.get(path);
        if (known) return known;
        const i = path.lastIndexOf('/');
        const p = (i < 0 ? Promise.resolve(opfs) : dirOf(path.slice(0, i))).then((d) => d.getDirectoryHandle(path.slice(i + 1)));
        dirs.set(path, p);
        return p;
      };
      let bytes = 0;
      const t = performance.now();
      for (let i = 0; i < paths.length; i += batch) {
        const got = await Promise.all(
          paths.slice(i, i + batch).map(async (p) => {
            const full = `${root}/${p}`;
            const at = full.lastIndexOf('/');
            const file = await (await (await dirOf(full.slice(0, at))).getFileHandle(full.slice(at + 1))).getFile();
            return (await file.arrayBuffer()).byteLength;
          }),
        );
        for (const n of got) bytes += n;
      }
      const ms = performance.now() - t;
      if (bytes !== total) throw new Error(`raw getFile read ${bytes} bytes, not ${total}`);
      return ms;
    };

    // Synchronous access handles exist only in dedicated workers: one reads every file (read-only
    // handles, opened `batch` at a time), timed from the page, messages included.
    const workerSource = `
      onmessage = async ({ data: { root, paths, batch, closeAfter } }) => {
        const later = [];
        const dirs = new Map();
        const opfs = await navigator.storage.getDirectory();
        const dirOf = (path) => {
          let p = dirs.get(path);
          if (!p) {
            const i = path.lastIndexOf('/');
            p = (i < 0 ? Promise.resolve(opfs) : dirOf(path.slice(0, i))).then((d) => d.getDirectoryHandle(path.slice(i + 1)));
            dirs.set(path, p);
          }
          return p;
        };
        let bytes = 0;
        for (let i = 0; i < paths.length; i += batch) {
          const got = await Promise.all(paths.slice(i, i + batch).map(async (p) => {
            const full = root + '/' + p;
            const at = full.lastIndexOf('/');
            const file = await (await dirOf(full.slice(0, at))).getFileHandle(full.slice(at + 1));
            const h = await file.createSyncAccessHandle({ mode: 'read-only' });
            try {
              const buf = new Uint8Array(h.getSize());
              h.read(buf, { at: 0 });
              return buf.length;
            } finally {
              if (closeAfter) later.push(h);
              else h.close();
            }
          }));
          for (const n of got) bytes += n;
        }
        postMessage(bytes);
        for (const h of later) h.close();
      };`;
    const workerUrl = URL.createObjectURL(new Blob([workerSource], { type: 'text/javascript' }));
    /** @param {number} batch @param {boolean} closeAfter close the handles after answering (each blocks the worker) */
    const rawSyncHandles = async (batch, closeAfter) => {
      const worker = new Worker(workerUrl);
      try {
        // The worker is started (and its first message answered) before the clock runs.
        await new Promise((resolve) => {
          worker.onmessage = resolve;
          worker.postMessage({ root, paths: [], batch, closeAfter });
        });
        const t = performance.now();
        const bytes = await new Promise((resolve, reject) => {
          worker.onmessage = (e) => resolve(e.data);
          worker.onerror = (e) => reject(new Error(e.message));
          worker.postMessage({ root, paths, batch, closeAfter });
        });
        const ms = performance.now() - t;
        if (bytes !== total) throw new Error(`raw sync handles read ${bytes} bytes, not ${total}`);
        return ms;
      } finally {
        worker.terminate();
      }
    };

    /** Clawser's read path on a fresh file system: cold, then warm (median of five warm reads). */
    const clawser = async () => {
      const opfs = new OpfsFileSystem();
      const fs = new ScopedFileSystem(opfs, root);
      try {
        // Started as a page starts it: the worker up and the other tabs met before the clock runs.
        await opfs.stat('');
        await opfs.cacheReady?.();
        let t = performance.now();
        const cold = await Promise.all(paths.map((p) => fs.readBytes(p)));
        const coldMs = performance.now() - t;
        if (cold.reduce((n, b) => n + b.length, 0) !== total) throw new Error('the cold read is short');
        const warm = [];
        for (let i = 0; i < 5; i++) {
          t = performance.now();
          const again = await Promise.all(paths.map((p) => fs.readBytes(p)));
          warm.push(performance.now() - t);
          if (again.reduce((n, b) => n + b.length, 0) !== total) throw new Error('the warm read is short');
        }
        return { coldMs, warmMs: median(warm) };
      } finally {
        stop(opfs);
      }
    };

    const BATCHES = [50, 1000];
    /** @type {Record<string, number[]>} */
    const runs = {};
    const add = (/** @type {string} */ k, /** @type {number} */ v) => {
      (runs[k] ??= []).push(v);
    };
    // A first pass that is not counted: the browser's first opens of these files.
    await rawGetFile(1000);
    for (let r = 0; r < 5; r++) {
      console.log(`bench: read path round ${r}`);
      for (const b of BATCHES) add(`getFile${b}`, await rawGetFile(b));
      for (const b of [1, 64]) add(`syncHandles${b}`, await rawSyncHandles(b, false));
      add('syncHandles64CloseAfter', await rawSyncHandles(64, true));
      const c = await clawser();
      add('cold', c.coldMs);
      add('warm', c.warmMs);
    }
    URL.revokeObjectURL(workerUrl);
    const cleanup = new OpfsFileSystem();
    // A stopped worker's handles are let go a moment later: "busy" until then.
    for (let attempt = 0; ; attempt++) {
      try {
        await cleanup.delete(root);
        break;
      } catch (err) {
        if (/** @type {{code?: string}} */ (err).code !== 'busy' || attempt > 50) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    stop(cleanup);
    /** @type {Record<string, number>} */
    const medians = Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, median(v)]));
    const raw = Math.min(
      ...Object.entries(medians)
        .filter(([k]) => k !== 'cold' && k !== 'warm')
        .map(([, v]) => v),
    );
    const best = Object.entries(medians).find(([k, v]) => v === raw && k !== 'cold' && k !== 'warm')?.[0] ?? '';
    const shown = Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, v.map((x) => Math.round(x))]));
    console.log(`bench: read path runs ${JSON.stringify(shown)} (best raw: ${best})`);
    return {
      opfsRawRead1000FilesMs: raw,
      opfsRead1000FilesColdMs: medians.cold,
      opfsRead1000FilesWarmMs: medians.warm,
      opfsReadOverheadRatio: medians.cold / raw,
    };
  }, readPathFiles());
}

/** Starts the app and a browser, and measures (`npm run bench` calls this). */
export async function readPathBenchAlone() {
  const app = await startApp();
  const browser = await launchBrowser();
  try {
    const page = await browser.context.newPage();
    forwardProgress(page);
    await openHome(page, app.url);
    const out = await readPathBench(page);
    return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, round(v)]));
  } finally {
    await browser.close();
    await app.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await readPathBenchAlone(), null, 2));
}
