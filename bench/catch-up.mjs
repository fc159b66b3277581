#!/usr/bin/env node
// Catch-up of scheduled jobs at launch (issue 38 §2), in a real Chromium: how long from opening
// Clawser (the page's navigation) until the jobs missed while it was closed are found
// (`jobCatchUpFoundMs`: the first MISSED_JOBS_FOUND_MARK of web/app/workspace-services.js).
// Set-up of each run, in a fresh profile: a page of the origin that is not Clawser (an icon,
// before the service worker is installed) holds the leader lock, so the Clawser tab that makes
// the workspace and writes a job missed overnight into its jobs.json runs no jobs; both close;
// then Clawser opens on the workspace. Control: the mark names that workspace and a late run,
// and the job's run is recorded as missed while Clawser was closed, or the bench fails.
// Median of three launches. Run directly (`node bench/catch-up.mjs`) it prints one JSON object;
// bench/run.mjs imports catchUpBench() instead.
import { pathToFileURL } from 'node:url';
import { launchBrowser, startApp, showWorkspace } from '../tests/browser/helpers.mjs';
import { forwardProgress } from './page.mjs';

const HOUR = 3_600_000;
const round = (/** @type {number} */ x) => Math.round(x * 100) / 100;
/** @param {number[]} xs */
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const MARK = 'clawser-missed-jobs-found'; // MISSED_JOBS_FOUND_MARK

/** One launch: the milliseconds from navigation to the missed job found. @param {string} url */
async function oneLaunch(url) {
  const browser = await launchBrowser();
  try {
    const { context } = browser;
    const holder = await context.newPage();
    await holder.goto(`${url}icons/icon-192.png`);
    await holder.evaluate(
      () =>
        new Promise((granted) => {
          navigator.locks.request('clawser-leader', () => {
            granted(undefined);
            return new Promise(() => {}); // held until the page closes
          });
        }),
    );
    const setup = await context.newPage();
    await showWorkspace(setup, url);
    const workspaceId = decodeURIComponent(new URL(setup.url()).hash.split('/')[1]);
    await setup.evaluate(
      async ({ workspaceId, HOUR }) => {
        const now = Date.now();
        const job = {
          id: 'jbenchcatchup',
          name: 'Bench catch-up',
          trigger: { kind: 'interval', everyMs: HOUR, startAt: now - 12.5 * HOUR },
          action: { kind: 'tool', tool: 'fs_list', args: {} },
          delivery: 'never',
          catchUp: { policy: 'once' },
          paused: false,
          done: false,
          createdAt: now - 13 * HOUR,
          createdBy: 'user',
          lastCheckedAt: now - 13 * HOUR,
          runs: [],
          nextDueAt: now - 12.5 * HOUR,
        };
        let dir = await navigator.storage.getDirectory();
        for (const name of ['clawser_workspaces', workspaceId, '.scheduler']) dir = await dir.getDirectoryHandle(name, { create: true });
        const w = await (await dir.getFileHandle('jobs.json', { create: true })).createWritable();
        await w.write(JSON.stringify({ version: 1, jobs: [job] }));
        await w.close();
      },
      { workspaceId, HOUR },
    );
    await setup.close();
    await holder.close();

    const page = await context.newPage();
    forwardProgress(page);
    await page.goto(`${url}#workspace/${encodeURIComponent(workspaceId)}`);
    const found = /** @type {{at: number, detail: any}} */ (
      await (
        await page.waitForFunction(
          (mark) => {
            const entry = /** @type {PerformanceMark | undefined} */ (performance.getEntriesByName(mark)[0]);
            return entry ? { at: entry.startTime, detail: entry.detail } : null;
          },
          MARK,
          { timeout: 60_000 },
        )
      ).jsonValue()
    ); // any: the mark's detail, checked below
    if (found.detail?.workspaceId !== workspaceId || !(found.detail?.runs >= 1) || !(found.detail?.late >= 1))
      throw new Error(`bench: the missed job was not what was found: ${JSON.stringify(found.detail)}`);
    // Control: the job really ran late, for the reason the panel shows.
    await page.waitForFunction(
      async (workspaceId) => {
        const root = await navigator.storage.getDirectory();
        const ws = await (await root.getDirectoryHandle('clawser_workspaces')).getDirectoryHandle(workspaceId);
        const file = await (await (await ws.getDirectoryHandle('.scheduler')).getFileHandle('jobs.json')).getFile();
        const run = JSON.parse(await file.text()).jobs[0]?.runs[0];
        return run && run.status !== 'running' && run.late === 'closed' && run.missed === 12;
      },
      workspaceId,
      { timeout: 60_000, polling: 100 },
    );
    return found.at;
  } finally {
    await browser.close();
  }
}

export async function catchUpBench() {
  const app = await startApp();
  try {
    /** @type {number[]} */
    const runs = [];
    for (let i = 0; i < 3; i++) {
      process.stderr.write(`bench: job catch-up at launch ${i + 1}/3\n`);
      runs.push(await oneLaunch(app.url));
    }
    return { jobCatchUpFoundMs: round(median(runs)) };
  } finally {
    await app.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) console.log(JSON.stringify(await catchUpBench(), null, 2));
