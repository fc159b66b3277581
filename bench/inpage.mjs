// In-page measurements on the real OPFS in Chromium, shared by `npm run bench` (run.mjs) and
// `node bench/inpage.mjs` (some parts alone, for working on them without the whole bench):
//   node bench/inpage.mjs [appends] [open] [git] [andbox] [checkpoint] [--repeat N]
// (no part named: all of them; --repeat: that many runs in one browser, medians printed too).
import { pathToFileURL } from 'node:url';
import { launchBrowser, startApp } from '../tests/browser/helpers.mjs';
import { checkpointBench } from './checkpoint.mjs';
import { forwardProgress, openHome } from './page.mjs';

/** @typedef {'appends' | 'open' | 'git' | 'andbox'} InPagePart */
export const IN_PAGE_PARTS = /** @type {InPagePart[]} */ (['appends', 'open', 'git', 'andbox']);

/**
 * Runs the chosen parts in `page`, which must be on the app (its import map resolves the
 * vendored packages). Returns raw milliseconds (and sizes) by metric name.
 * @param {import('playwright-core').Page} page
 * @param {InPagePart[]} [parts]
 * @returns {Promise<Record<string, number>>}
 */
export function inPageBench(page, parts = IN_PAGE_PARTS) {
  return page.evaluate(async (parts) => {
    const { OpfsFileSystem, MemoryFileSystem, ConversationStore, Conversation } = await import('/web/clawser.js');
    const opfs = new OpfsFileSystem();
    /** @param {number} i */
    const text = (i) => `message ${i} ` + 'lorem ipsum dolor sit amet '.repeat(8 + (i % 20));
    const out = /** @type {Record<string, number>} */ ({});
    let t = 0;

    if (parts.includes('appends')) {
      console.log('bench: appends');
      // 10,000 appends, each written as one line to OPFS and awaited.
      const store = new ConversationStore(opfs, 'bench');
      const conv = await store.open((await store.create()).id);
      t = performance.now();
      for (let i = 0; i < 10_000; i++)
        await conv.append(i % 2 ? 'agent_message' : 'user_message', { text: text(i) }, i % 2 ? 'agent' : 'user');
      out.eventLogAppend10kMs = performance.now() - t;
      out.eventLogAppendPerEventMs = out.eventLogAppend10kMs / 10_000;
    }

    if (parts.includes('open')) {
      /** Builds a conversation of n events with the real code in memory, then copies its files to OPFS. @param {number} n */
      const prepare = async (n) => {
        const mem = new MemoryFileSystem();
        const mstore = new ConversationStore(mem, 'src');
        const meta = await mstore.create();
        const c = await mstore.open(meta.id);
        for (let i = 0; i < n; i++) await c.append(i % 2 ? 'agent_message' : 'user_message', { text: text(i) }, i % 2 ? 'agent' : 'user');
        const dir = `clawser_workspaces/bench/.conversations/open${n}`;
        for (const f of ['meta.json', 'events.jsonl', 'snapshot.json']) {
          const bytes = await mem.readBytes(`${mstore.dirOf(meta.id)}/${f}`);
          await opfs.write(`${dir}/${f}`, bytes);
        }
        return { dir, bytes: (await mem.stat(`${mstore.dirOf(meta.id)}/events.jsonl`))?.size ?? 0 };
      };
      for (const n of [10_000, 100_000]) {
        console.log(`bench: open ${n}`);
        const { dir, bytes } = await prepare(n);
        const times = [];
        let messages = 0;
        for (let r = 0; r < 5; r++) {
          t = performance.now();
          const c = await Conversation.open(opfs, dir);
          messages = c.deriveSessionHistory('system').messages.length;
          times.push(performance.now() - t);
        }
        times.sort((a, b) => a - b);
        out[`openConversation${n / 1000}kMs`] = times[2];
        out[`openConversation${n / 1000}kLogMB`] = bytes / 1024 / 1024;
        out[`openConversation${n / 1000}kHistoryMessages`] = messages;
        // Without the snapshot: full replay, for comparison.
        await opfs.delete(`${dir}/snapshot.json`);
        t = performance.now();
        await Conversation.open(opfs, dir);
        out[`openConversation${n / 1000}kWithoutSnapshotMs`] = performance.now() - t;
      }
    }
    await opfs.delete('clawser_workspaces/bench');

    if (parts.includes('git')) {
      console.log('bench: git');
      // git on OPFS: init + add 100 files + commit; status of a 1,000-file tree.
      const { ScopedFileSystem } = await import('/web/storage/scoped-fs.js');
      const { WorkspaceGit } = await import('/web/git/git.js');
      // Median of three fresh repositories: OPFS timings on a shared machine vary a lot.
      const commits = [];
      const statuses = [];
      for (let run = 0; run < 3; run++) {
        const gws = new ScopedFileSystem(opfs, 'clawser_workspaces/benchgit');
        await opfs.delete('clawser_workspaces/benchgit');
        await Promise.all(Array.from({ length: 100 }, (_, i) => gws.write(`f/${i}.txt`, `file ${i}\n`)));
        const repo = new WorkspaceGit(gws);
        console.log(`bench: git commit ${run}`);
        t = performance.now();
        await repo.commitAll({ message: 'bench' });
        commits.push(performance.now() - t);
        if (run === 0) {
          await Promise.all(Array.from({ length: 900 }, (_, i) => gws.write(`f/${i + 100}.txt`, `file ${i + 100}\n`)));
          await repo.commitAll({ message: 'bench 1000' });
          console.log('bench: git status');
          for (let k = 0; k < 3; k++) {
            t = performance.now();
            await repo.status();
            statuses.push(performance.now() - t);
          }
        }
      }
      out.gitInitAdd100CommitMs = commits.sort((a, b) => a - b)[1];
      out.gitStatus1000FilesMs = statuses.sort((a, b) => a - b)[1];
      await opfs.delete('clawser_workspaces/benchgit');
    }

    if (parts.includes('andbox')) {
      console.log('bench: andbox');
      // andbox: cold start, warm evaluate, host-call round trip.
      const { createSandbox, prewarmSandbox, discardSpareSandbox } = await import('/web/packages/andbox/index.js');
      const coldsNoSpare = [];
      for (let i = 0; i < 5; i++) {
        t = performance.now();
        const sb = await createSandbox({ capabilities: { ping: () => 1 } });
        await sb.evaluate('1+1');
        coldsNoSpare.push(performance.now() - t);
        sb.dispose();
      }
      coldsNoSpare.sort((a, b) => a - b);
      out.andboxColdStartNoSpareFrameMs = coldsNoSpare[2];
      // As the app does: a spare frame is pre-warmed while idle, so a new conversation's
      // sandbox (first evaluation included) starts from it.
      const colds = [];
      for (let i = 0; i < 5; i++) {
        await prewarmSandbox();
        t = performance.now();
        const sb = await createSandbox({ capabilities: { ping: () => 1 } });
        await sb.evaluate('1+1');
        colds.push(performance.now() - t);
        if (i < 4) sb.dispose();
        else {
          for (let w = 0; w < 20; w++) await sb.evaluate('1+1');
          const warm = [];
          for (let w = 0; w < 200; w++) {
            const t0 = performance.now();
            await sb.evaluate('1+1');
            warm.push(performance.now() - t0);
          }
          warm.sort((a, b) => a - b);
          out.andboxWarmEvaluateMs = warm[100];
          const r = await sb.evaluate(
            'const t0 = performance.now(); for (let k = 0; k < 1000; k++) await ping(); (performance.now() - t0) / 1000',
          );
          out.andboxHostCallRoundTripMs = /** @type {number} */ (r.value);
          sb.dispose();
        }
      }
      colds.sort((a, b) => a - b);
      out.andboxColdStartMs = colds[2];
      await discardSpareSandbox();
    }
    opfs.terminate();
    return out;
  }, parts);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--repeat');
  const repeat = at === -1 ? 1 : Number(args.splice(at, 2)[1]);
  const named = new Set(args);
  const parts = IN_PAGE_PARTS.filter((p) => !named.size || named.has(p));
  /** @type {Record<string, number[]>} */
  const runs = {};
  const record = (/** @type {Record<string, number>} */ r) => {
    for (const [k, v] of Object.entries(r)) (runs[k] ??= []).push(Math.round(v * 100) / 100);
  };
  if (parts.length) {
    const app = await startApp();
    const browser = await launchBrowser();
    try {
      const page = await browser.context.newPage();
      forwardProgress(page);
      await openHome(page, app.url);
      for (let i = 0; i < repeat; i++) record(await inPageBench(page, parts));
    } finally {
      await browser.close();
      await app.close();
    }
  }
  if (!named.size || named.has('checkpoint')) for (let i = 0; i < repeat; i++) record(await checkpointBench());
  const median = (/** @type {number[]} */ xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const figures = Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, repeat > 1 ? { median: median(v), runs: v } : v[0]]));
  process.stdout.write(`${JSON.stringify(figures, null, 1)}\n`);
}
