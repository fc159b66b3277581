// Python in the sandbox (issue 39 §4): Pyodide started in andbox's frame in Chromium, with its
// runtime already cached (a first start fetched it and made the interpreter's memory snapshot, as
// in the app), and a print(1) in a started interpreter. Also reported, without a target: the first
// start (files fetched, Python initialised from scratch) and a start without the snapshot.
// Control: each run's output must really be "1" (else the bench fails, not a fast wrong number).
import { pathToFileURL } from 'node:url';
import { launchBrowser, startApp } from '../tests/browser/helpers.mjs';
import { forwardProgress, openHome } from './page.mjs';

/**
 * @returns {Promise<{pythonColdStartMs: number, pythonWarmRunMs: number, pythonFirstStartMs: number,
 *   pythonStartWithoutSnapshotMs: number}>}
 */
export async function pythonBench() {
  const app = await startApp();
  const browser = await launchBrowser();
  try {
    const page = await browser.context.newPage();
    forwardProgress(page);
    await openHome(page, app.url);
    return await page.evaluate(async () => {
      const { createPythonSandbox, pyodideSnapshotUrl } = await import('/web/packages/andbox/python.js');
      const { RuntimeCache } = await import('/web/storage/runtime-cache.js');
      // As the app does: the interpreter's memory snapshot kept in Cache Storage (made by the first start).
      const snapshots = new RuntimeCache(pyodideSnapshotUrl());
      /** @param {{ok: boolean, logs: string[], error: unknown}} r */
      const check = (r) => {
        if (!r.ok || r.logs.join('\n') !== '1') throw new Error(`bench: print(1) did not print 1: ${JSON.stringify(r).slice(0, 500)}`);
      };
      const median = (/** @type {number[]} */ xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
      console.log('bench: python — first start (fills the caches)');
      let t = performance.now();
      const first = await createPythonSandbox({ snapshots });
      check(await first.run('print(1)'));
      const firstStart = performance.now() - t;
      first.dispose();
      // Informative: a start with the runtime cached but no snapshot (Python initialised from scratch).
      t = performance.now();
      const bare = await createPythonSandbox();
      check(await bare.run('print(1)'));
      const withoutSnapshot = performance.now() - t;
      bare.dispose();
      /** @type {number[]} */
      const colds = [];
      for (let i = 0; i < 5; i++) {
        t = performance.now();
        const py = await createPythonSandbox({ snapshots });
        check(await py.run('print(1)'));
        colds.push(performance.now() - t);
        py.dispose();
      }
      console.log('bench: python — warm runs');
      const py = await createPythonSandbox({ snapshots });
      check(await py.run('print(1)'));
      /** @type {number[]} */
      const warm = [];
      for (let i = 0; i < 30; i++) {
        t = performance.now();
        check(await py.run('print(1)'));
        warm.push(performance.now() - t);
      }
      py.dispose();
      return {
        pythonColdStartMs: Math.round(median(colds)),
        pythonWarmRunMs: Math.round(median(warm) * 100) / 100,
        pythonFirstStartMs: Math.round(firstStart),
        pythonStartWithoutSnapshotMs: Math.round(withoutSnapshot),
      };
    });
  } finally {
    await browser.close();
    await app.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) console.log(JSON.stringify(await pythonBench(), null, 2));
