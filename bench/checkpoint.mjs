#!/usr/bin/env node
// Checkpoint benchmark in a real Chromium on OPFS (web/agent/coordination/checkpoint.js): saving the
// checkpoint of a turn in a 50-message session and restoring it. Since issue 11 a checkpoint
// holds ids and log offsets only, no copy of the messages, so the size no longer depends on the
// conversation (the metric names keep "50" for comparison with earlier runs). Restoring it
// (latest(): list, read, parse, validate) with the storage worker running, as at app start, and
// after a reload (storage worker started cold). Medians of several runs. Run directly (`node
// bench/checkpoint.mjs`) it prints one JSON object; bench/run.mjs imports checkpointBench() instead.
import { pathToFileURL } from 'node:url';
import { launchBrowser, startApp } from '../tests/browser/helpers.mjs';
import { rng } from './rng.mjs';
import { forwardProgress, openHome } from './page.mjs';

const round = (/** @type {number} */ x) => Math.round(x * 100) / 100;

/** A realistic 50-message session: prose of 300–2,000 chars, every few turns a tool call and its result. */
export function benchSession(count = 50) {
  const random = rng(7);
  const words = [
    'the',
    'report',
    'quarter',
    'revenue',
    'function',
    'const',
    'error',
    'file',
    'because',
    'änderung',
    'résumé',
    'data',
    'agent',
    'chart',
    'should',
    'we',
    'numbers',
    '`code`',
    '**bold**',
    '\n\n',
  ];
  const text = () => {
    const target = 300 + Math.floor(random() * 1700);
    let s = '';
    while (s.length < target) s += `${words[Math.floor(random() * words.length)]} `;
    return s.slice(0, target);
  };
  /** @type {import('../web/providers/types.d.ts').Message[]} */
  const messages = [];
  for (let i = 0; messages.length < count; i++) {
    messages.push({ role: 'user', content: text() });
    if (random() < 0.4) {
      const id = `call_${i}`;
      messages.push({
        role: 'assistant',
        content: 'Let me look at that.',
        toolCalls: [
          { id, name: random() < 0.5 ? 'fs_read' : 'web_fetch', arguments: { path: `docs/${i}.md`, options: { maxBytes: 65536 } } },
        ],
      });
      messages.push({ role: 'tool', content: text(), toolCallId: id });
    }
    messages.push({ role: 'assistant', content: text() });
  }
  return { messages: messages.slice(0, count) };
}

export async function checkpointBench() {
  const app = await startApp();
  const browser = await launchBrowser();
  try {
    const page = await browser.context.newPage();
    forwardProgress(page);
    // The app's page, for its import map (zod).
    await openHome(page, app.url);
    const input = {
      workspaceId: 'benchckpt',
      conversationId: 'c1',
      turn: { status: /** @type {const} */ ('running'), startedAt: 1, bytes: 50 * 1200 },
    };
    const warm = await page.evaluate(async (input) => {
      const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
      const { ScopedFileSystem } = await import('/web/storage/scoped-fs.js');
      const { CheckpointManager } = await import('/web/agent/coordination/checkpoint.js');
      const median = (/** @type {number[]} */ xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
      const opfs = new OpfsFileSystem();
      await opfs.delete('clawser_workspaces/benchckpt');
      const fs = new ScopedFileSystem(opfs, 'clawser_workspaces/benchckpt');
      const cm = new CheckpointManager({ fs });
      console.log('bench: checkpoint save');
      // Warm-up, and more than `keep` saves so the measured ones also prune, as in steady use.
      let bytes = 0;
      for (let i = 0; i < 12; i++) bytes = (await cm.save(input)).bytes;
      const saves = [];
      const withHousekeeping = [];
      for (let i = 0; i < 21; i++) {
        await cm.idle();
        const t = performance.now();
        await cm.save(input);
        saves.push(performance.now() - t);
        await cm.idle();
        withHousekeeping.push(performance.now() - t);
      }
      console.log('bench: checkpoint restore');
      const restores = [];
      for (let i = 0; i < 21; i++) {
        const t = performance.now();
        // A fresh manager each time: nothing cached from the saves above.
        const { checkpoint } = await new CheckpointManager({ fs }).latest();
        restores.push(performance.now() - t);
        if (checkpoint?.state.turn?.bytes !== 50 * 1200) throw new Error('bench: restore returned the wrong state');
      }
      return { save: median(saves), withHousekeeping: median(withHousekeeping), restore: median(restores), bytes };
    }, input);
    console.error('bench: checkpoint restore after reload');
    const cold = [];
    for (let r = 0; r < 5; r++) {
      await page.reload();
      await page.getByRole('heading', { name: 'Workspaces' }).waitFor({ timeout: 60_000 });
      cold.push(
        await page.evaluate(async () => {
          const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
          const { ScopedFileSystem } = await import('/web/storage/scoped-fs.js');
          const { CheckpointManager } = await import('/web/agent/coordination/checkpoint.js');
          const t = performance.now();
          // Includes starting a new storage worker, which the app pays once per page anyway.
          const opfs = new OpfsFileSystem();
          await new CheckpointManager({ fs: new ScopedFileSystem(opfs, 'clawser_workspaces/benchckpt') }).latest();
          const ms = performance.now() - t;
          opfs.terminate();
          return ms;
        }),
      );
    }
    await page.evaluate(async () => {
      const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
      await new OpfsFileSystem().delete('clawser_workspaces/benchckpt');
    });
    cold.sort((a, b) => a - b);
    return {
      checkpointSave50Ms: round(warm.save),
      checkpointSave50WithPruneMs: round(warm.withHousekeeping),
      checkpointRestore50Ms: round(warm.restore),
      checkpointRestore50AfterReloadMs: round(cold[2]),
      checkpoint50KB: round(warm.bytes / 1024),
    };
  } finally {
    await browser.close();
    await app.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await checkpointBench();
  process.stdout.write(`${JSON.stringify({ ...result, targets: { checkpointSave50Ms: 20, checkpointRestore50Ms: 40 } })}\n`);
}
