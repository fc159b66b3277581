// Checkpoints on the real OPFS (through the storage worker): a 50-message session survives a
// reload and comes back identical; a tab closed mid-turn is reported as interrupted by the
// next start; keep-10 pruning and damaged files on OPFS.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, startApp, waitInPage, openHome } from './helpers.mjs';

/** @type {Awaited<ReturnType<typeof startApp>>} */ let app;
/** @type {Awaited<ReturnType<typeof launchBrowser>>} */ let browser;

before(async () => {
  app = await startApp();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await app?.close();
});

const blankPage = () => openHome(browser.context, app.url);

/** A 50-message session with tool calls, tool results and non-ASCII text. */
function session50() {
  /** @type {import('../../web/providers/types.d.ts').Message[]} */
  const messages = [];
  for (let i = 0; messages.length < 50; i++) {
    const body = `Paragraph ${i}: the quarterly numbers — ünïcödé ✓ — ${'lorem ipsum dolor sit amet '.repeat(10 + (i * 7) % 60)}`;
    if (i % 6 === 2) {
      messages.push({ role: 'assistant', content: 'Let me read that.', toolCalls: [{ id: `call_${i}`, name: 'fs_read', arguments: { path: `reports/q${i}.md`, range: { start: 0, end: 4096 } } }] });
      messages.push({ role: 'tool', content: body, toolCallId: `call_${i}` });
    } else messages.push({ role: i % 2 ? 'assistant' : 'user', content: body });
  }
  return { messages: messages.slice(0, 50), systemPrompt: 'You are Clawser.' };
}

test('a 50-message session checkpointed on OPFS survives a reload and restores identically; a tab closed mid-turn is reported as interrupted', async () => {
  const page = await blankPage();
  const input = { workspaceId: 'ckpt', conversationId: 'conv-1', session: session50(), turn: { status: /** @type {const} */ ('idle') }, extra: { panel: 'chat' } };
  const info = await page.evaluate(async (input) => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const { ScopedFileSystem } = await import('/web/storage/scoped-fs.js');
    const { CheckpointManager } = await import('/web/agent/checkpoint.js');
    const opfs = new OpfsFileSystem();
    await opfs.delete('clawser_workspaces/ckpt');
    const cm = new CheckpointManager({ fs: new ScopedFileSystem(opfs, 'clawser_workspaces/ckpt') });
    return cm.save(input);
  }, input);
  assert.equal(info.messages, 50);
  assert.ok(info.bytes > 20_000, `a realistic size (${info.bytes} bytes)`);

  await page.reload();
  await page.getByRole('heading', { name: 'Workspaces' }).waitFor();
  const restored = await page.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const { ScopedFileSystem } = await import('/web/storage/scoped-fs.js');
    const { CheckpointManager } = await import('/web/agent/checkpoint.js');
    const { Daemon } = await import('/web/agent/daemon.js');
    const cm = new CheckpointManager({ fs: new ScopedFileSystem(new OpfsFileSystem(), 'clawser_workspaces/ckpt') });
    /** @type {unknown[]} */
    const applied = [];
    const daemon = new Daemon({ checkpoints: cm, collect: () => { throw new Error('unused'); }, restore: (state) => { applied.push(state); } });
    /** @type {string[]} */
    const path = [];
    daemon.subscribe((t) => path.push(t.to));
    const start = await daemon.start();
    return { latest: await cm.latest(), start, applied, path };
  });
  assert.deepEqual(restored.latest.skipped, []);
  assert.deepEqual(restored.latest.checkpoint?.info, info);
  assert.deepEqual(restored.latest.checkpoint?.state, { ...input, version: 1, savedAt: info.at });
  assert.deepEqual(restored.applied, [restored.latest.checkpoint?.state]);
  assert.deepEqual(restored.path, ['starting', 'recovering', 'running']);
  assert.deepEqual(restored.start, { restored: info, interrupted: null, skipped: [] });

  // A turn starts (checkpointed as running), then the tab is closed before it ends.
  await page.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const { ScopedFileSystem } = await import('/web/storage/scoped-fs.js');
    const { CheckpointManager } = await import('/web/agent/checkpoint.js');
    const { Daemon } = await import('/web/agent/daemon.js');
    const cm = new CheckpointManager({ fs: new ScopedFileSystem(new OpfsFileSystem(), 'clawser_workspaces/ckpt') });
    /** @type {any} */ // any: the restored state is only carried over to collect()
    let live = null;
    const daemon = new Daemon({ checkpoints: cm, collect: () => ({ ...live, turn: { status: 'running', userText: 'Compare Q3 with Q2', startedAt: 1234 } }), restore: (state) => { live = state; } });
    await daemon.start();
    await daemon.checkpoint({ reason: 'turn started' });
  });
  await page.close();
  const next = await blankPage();
  await waitInPage(next, async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const fs = new OpfsFileSystem();
    const names = (await fs.list('clawser_workspaces/ckpt/.checkpoints')).map((e) => e.name);
    fs.terminate();
    return names.filter((n) => n !== 'index.json').length === 2;
  }, undefined, { what: 'the second checkpoint on OPFS' });
  const afterKill = await next.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const { ScopedFileSystem } = await import('/web/storage/scoped-fs.js');
    const { CheckpointManager } = await import('/web/agent/checkpoint.js');
    const { Daemon } = await import('/web/agent/daemon.js');
    const cm = new CheckpointManager({ fs: new ScopedFileSystem(new OpfsFileSystem(), 'clawser_workspaces/ckpt') });
    /** @type {any} */ // any: only a few fields are checked
    let state = null;
    const daemon = new Daemon({ checkpoints: cm, collect: () => state, restore: (s) => { state = s; } });
    const start = await daemon.start();
    return { interrupted: start.interrupted, messages: state?.session.messages.length, list: (await cm.list()).map((c) => c.turnStatus) };
  });
  assert.deepEqual(afterKill, { interrupted: { userText: 'Compare Q3 with Q2', startedAt: 1234 }, messages: 50, list: ['running', 'idle'] });
  await next.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    await new OpfsFileSystem().delete('clawser_workspaces/ckpt');
  });
  await next.close();
});

test('on OPFS: the newest 10 are kept, concurrent saves all land with ordered ids, a damaged newest file is skipped and moved aside', async () => {
  const page = await blankPage();
  const result = await page.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const { ScopedFileSystem } = await import('/web/storage/scoped-fs.js');
    const { CheckpointManager } = await import('/web/agent/checkpoint.js');
    const opfs = new OpfsFileSystem();
    await opfs.delete('clawser_workspaces/prune');
    const cm = new CheckpointManager({ fs: new ScopedFileSystem(opfs, 'clawser_workspaces/prune') });
    /** @param {number} i */
    const input = (i) => ({ workspaceId: 'prune', session: { messages: [{ role: /** @type {const} */ ('user'), content: `message ${i}` }] } });
    const ids = [];
    for (let i = 0; i < 8; i++) ids.push((await cm.save(input(i))).id);
    // Issued at once (e.g. a timer and a turn end): all written, distinct ids in call order.
    const burst = await Promise.all(Array.from({ length: 5 }, (_, i) => cm.save(input(8 + i))));
    ids.push(...burst.map((b) => b.id));
    await cm.idle(); // pruning and the index follow each save in the background
    const files = (await opfs.list('clawser_workspaces/prune/.checkpoints')).map((e) => e.name);
    const listed = (await cm.list()).map((c) => c.id);
    const oldest = await cm.load(ids[0]).catch((/** @type {any} */ e) => e.code);
    const latest = await cm.latest();
    // A newer file cut off mid-write (e.g. copied in by a backup tool): skipped, reported, moved.
    const text = await opfs.readText(`clawser_workspaces/prune/.checkpoints/${ids[12]}.json`);
    await opfs.write('clawser_workspaces/prune/.checkpoints/zzzzzzzzz-0000.json', text.slice(0, 100));
    const withDamaged = await cm.latest();
    const damaged = (await opfs.list('clawser_workspaces/prune/.checkpoints/damaged')).map((e) => e.name);
    const index = JSON.parse(await opfs.readText('clawser_workspaces/prune/.checkpoints/index.json')).checkpoints.map((/** @type {{id: string}} */ c) => c.id);
    await opfs.delete('clawser_workspaces/prune');
    return { ids, files, listed, oldest, latestContent: latest.checkpoint?.state.session.messages[0].content, withDamaged: { id: withDamaged.checkpoint?.info.id, skipped: withDamaged.skipped }, damaged, index };
  });
  assert.equal(new Set(result.ids).size, 13);
  assert.deepEqual([...result.ids].sort(), result.ids, 'ids sort in save order');
  const kept = result.ids.slice(3).reverse();
  assert.deepEqual(result.listed, kept);
  assert.deepEqual(result.index, kept);
  assert.deepEqual(result.files.sort(), [...kept.map((id) => `${id}.json`), 'index.json'].sort());
  assert.equal(result.oldest, 'not_found');
  assert.equal(result.latestContent, 'message 12');
  assert.equal(result.withDamaged.id, result.ids[12]);
  assert.equal(result.withDamaged.skipped.length, 1);
  assert.match(result.withDamaged.skipped[0].reason, /not valid JSON/);
  assert.deepEqual(result.damaged, ['zzzzzzzzz-0000.json']);
  await page.close();
});
