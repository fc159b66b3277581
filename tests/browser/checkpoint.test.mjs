// Checkpoints on the real OPFS (through the storage worker): a checkpoint survives a reload
// and comes back identical; a tab closed mid-turn is reported as interrupted by the
// next start; keep-10 pruning and damaged files on OPFS.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitInPage, openHome } from './helpers.mjs';
import { useFixture } from './fixture.mjs';

const { app, browser } = await useFixture();

const blankPage = () => openHome(browser.context, app.url);

test('a checkpoint on OPFS survives a reload and restores identically; a tab closed mid-turn is reported as interrupted', async () => {
  const page = await blankPage();
  const input = { workspaceId: 'ckpt', conversationId: 'conv-1', turn: { status: /** @type {const} */ ('idle') } };
  const info = await page.evaluate(async (input) => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const { ScopedFileSystem } = await import('/web/storage/scoped-fs.js');
    const { CheckpointManager } = await import('/web/agent/coordination/checkpoint.js');
    const opfs = new OpfsFileSystem();
    await opfs.delete('clawser_workspaces/ckpt');
    const cm = new CheckpointManager({ fs: new ScopedFileSystem(opfs, 'clawser_workspaces/ckpt') });
    return cm.save(input);
  }, input);
  assert.equal(info.conversationId, 'conv-1');

  await page.reload();
  await page.getByRole('heading', { name: 'Workspaces' }).waitFor();
  const restored = await page.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const { ScopedFileSystem } = await import('/web/storage/scoped-fs.js');
    const { CheckpointManager } = await import('/web/agent/coordination/checkpoint.js');
    const { Daemon } = await import('/web/agent/coordination/daemon.js');
    const cm = new CheckpointManager({ fs: new ScopedFileSystem(new OpfsFileSystem(), 'clawser_workspaces/ckpt') });
    /** @type {unknown[]} */
    const applied = [];
    const daemon = new Daemon({
      checkpoints: cm,
      collect: () => {
        throw new Error('unused');
      },
      restore: (state) => {
        applied.push(state);
      },
    });
    /** @type {string[]} */
    const path = [];
    daemon.subscribe((t) => path.push(t.to));
    const start = await daemon.start();
    return { latest: await cm.latest(), start, applied, path };
  });
  assert.deepEqual(restored.latest.skipped, []);
  assert.deepEqual(restored.latest.checkpoint?.info, info);
  assert.deepEqual(restored.latest.checkpoint?.state, { ...input, version: 2, savedAt: info.at });
  assert.deepEqual(restored.applied, [restored.latest.checkpoint?.state]);
  assert.deepEqual(restored.path, ['starting', 'recovering', 'running']);
  assert.deepEqual(restored.start, { restored: info, interrupted: null, skipped: [] });

  // A turn starts (checkpointed as running), then the tab is closed before it ends.
  await page.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const { ScopedFileSystem } = await import('/web/storage/scoped-fs.js');
    const { CheckpointManager } = await import('/web/agent/coordination/checkpoint.js');
    const { Daemon } = await import('/web/agent/coordination/daemon.js');
    const cm = new CheckpointManager({ fs: new ScopedFileSystem(new OpfsFileSystem(), 'clawser_workspaces/ckpt') });
    /** @type {any} */ // any: the restored state is only carried over to collect()
    let live = null;
    const daemon = new Daemon({
      checkpoints: cm,
      collect: () => ({
        workspaceId: live.workspaceId,
        conversationId: live.conversationId,
        turn: { status: 'running', startedAt: 1234, bytes: 4096 },
      }),
      restore: (state) => {
        live = state;
      },
    });
    await daemon.start();
    await daemon.checkpoint({ reason: 'turn started' });
  });
  await page.close();
  const next = await blankPage();
  await waitInPage(
    next,
    async () => {
      const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
      const fs = new OpfsFileSystem();
      const names = (await fs.list('clawser_workspaces/ckpt/.checkpoints')).map((e) => e.name);
      fs.terminate();
      return names.filter((n) => n !== 'index.json').length === 2;
    },
    undefined,
    { what: 'the second checkpoint on OPFS' },
  );
  const afterKill = await next.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const { ScopedFileSystem } = await import('/web/storage/scoped-fs.js');
    const { CheckpointManager } = await import('/web/agent/coordination/checkpoint.js');
    const { Daemon } = await import('/web/agent/coordination/daemon.js');
    const cm = new CheckpointManager({ fs: new ScopedFileSystem(new OpfsFileSystem(), 'clawser_workspaces/ckpt') });
    /** @type {any} */ // any: only a few fields are checked
    let state = null;
    const daemon = new Daemon({
      checkpoints: cm,
      collect: () => state,
      restore: (s) => {
        state = s;
      },
    });
    const start = await daemon.start();
    return { interrupted: start.interrupted, conversationId: state?.conversationId, list: (await cm.list()).map((c) => c.turnStatus) };
  });
  assert.deepEqual(afterKill, { interrupted: { startedAt: 1234, bytes: 4096 }, conversationId: 'conv-1', list: ['running', 'idle'] });
  await next.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    await new OpfsFileSystem().delete('clawser_workspaces/ckpt');
  });
  await next.close();
});

test('on OPFS: the newest 10 are kept, concurrent saves all land with ordered ids, \
a damaged newest file is skipped and moved aside', async () => {
  const page = await blankPage();
  const result = await page.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const { ScopedFileSystem } = await import('/web/storage/scoped-fs.js');
    const { CheckpointManager } = await import('/web/agent/coordination/checkpoint.js');
    const opfs = new OpfsFileSystem();
    await opfs.delete('clawser_workspaces/prune');
    const cm = new CheckpointManager({ fs: new ScopedFileSystem(opfs, 'clawser_workspaces/prune') });
    /** @param {number} i */
    const input = (i) => ({ workspaceId: 'prune', turn: { status: /** @type {const} */ ('idle'), bytes: i } });
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
    const index = JSON.parse(await opfs.readText('clawser_workspaces/prune/.checkpoints/index.json')).checkpoints.map(
      (/** @type {{id: string}} */ c) => c.id,
    );
    await opfs.delete('clawser_workspaces/prune');
    return {
      ids,
      files,
      listed,
      oldest,
      latestBytes: latest.checkpoint?.state.turn?.bytes,
      withDamaged: { id: withDamaged.checkpoint?.info.id, skipped: withDamaged.skipped },
      damaged,
      index,
    };
  });
  assert.equal(new Set(result.ids).size, 13);
  assert.deepEqual([...result.ids].sort(), result.ids, 'ids sort in save order');
  const kept = result.ids.slice(3).reverse();
  assert.deepEqual(result.listed, kept);
  assert.deepEqual(result.index, kept);
  assert.deepEqual(result.files.sort(), [...kept.map((id) => `${id}.json`), 'index.json'].sort());
  assert.equal(result.oldest, 'not_found');
  assert.equal(result.latestBytes, 12);
  assert.equal(result.withDamaged.id, result.ids[12]);
  assert.equal(result.withDamaged.skipped.length, 1);
  assert.match(result.withDamaged.skipped[0].reason, /not valid JSON/);
  assert.deepEqual(result.damaged, ['zzzzzzzzz-0000.json']);
  await page.close();
});
