import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GoalStore, goalFileName } from '../../web/stores/goals.js';
import { goalAdd, goalUpdate, goalList } from '../../web/tools/goals.js';
import { toolSettings } from '../../web/tools/index.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { checkPath } from '../../web/safety/tool-call-validator.js';

test('goals: one store, Markdown mirrors moved from goals/active/ to goals/completed/, sub-goals, summary', async () => {
  const fs = new MemoryFileSystem();
  let clock = Date.UTC(2026, 10, 21, 9, 0);
  const store = new GoalStore({ fs, now: () => (clock += 60_000) });
  const g = await store.add({ description: 'Ship the quarterly report' });
  const sub = await store.add({ description: 'Collect the sales numbers', parentId: g.id });
  await assert.rejects(store.add({ description: 'orphan', parentId: 'nope' }), /no goal with the id "nope"/);
  const parentFile = `goals/active/${goalFileName(g)}`;
  assert.match(
    await fs.readText(parentFile),
    /^# Ship the quarterly report\n\n- Status: active[\s\S]*## Sub-goals\n\n- \[ \] Collect the sales numbers \(active\)/,
  );
  await store.update(sub.id, { progress: 'Asked finance for Q3 data', artifacts: ['data/q3.csv'] });
  assert.match(
    await fs.readText(`goals/active/${goalFileName(sub)}`),
    /## Files\n\n- data\/q3\.csv[\s\S]*## Progress\n\n- 2026-11-21 09:0\d — Asked finance for Q3 data/,
  );
  await store.update(sub.id, { status: 'completed', progress: 'Numbers in data/q3.csv' });
  assert.equal(await fs.stat(`goals/active/${goalFileName(sub)}`), null, 'moved out of active');
  assert.match(await fs.readText(`goals/completed/${goalFileName(sub)}`), /- Status: completed/);
  assert.match(
    await fs.readText(parentFile),
    /- \[x\] Collect the sales numbers \(completed\)/,
    'the parent mirror shows the sub-goal done',
  );
  const summary = await store.summary();
  assert.match(summary, /Active goals of this workspace[\s\S]*\[g[0-9a-z]+\] Ship the quarterly report/);
  assert.doesNotMatch(summary, /Collect the sales numbers/);
  // A second store over the same files (e.g. the panel after a reload) sees the same goals.
  const again = new GoalStore({ fs });
  assert.deepEqual(
    (await again.list()).map((x) => [x.description, x.status]),
    [
      ['Ship the quarterly report', 'active'],
      ['Collect the sales numbers', 'completed'],
    ],
  );
  // The store itself is internal: tools cannot write it directly.
  assert.match(checkPath('.goals/goals.json') ?? '', /protected folder/);
});

test('goal tools: add, update, list through the tool interface; the summary stays bounded', async () => {
  const goals = new GoalStore({ fs: new MemoryFileSystem() });
  const ctx = { workspaceId: 'w', fs: new MemoryFileSystem(), settings: toolSettings(), fetch: globalThis.fetch, goals };
  const added = await goalAdd.run({ description: 'Learn Rust' }, ctx);
  const id = /** @type {string} */ (added.output.match(/Added goal (g[0-9a-z]+)/)?.[1]);
  assert.ok(id);
  assert.match((await goalUpdate.run({ id, progress: 'Read chapter 1' }, ctx)).output, /is active; noted: Read chapter 1/);
  assert.match((await goalList.run({}, ctx)).output, /\(active\) Learn Rust — Read chapter 1/);
  assert.equal((await goalList.run({ status: 'completed' }, ctx)).output, 'No completed goals.');
  for (let i = 0; i < 100; i++) await goals.add({ description: `Goal number ${i} with a fairly long description to fill the prompt` });
  const summary = await goals.summary(1000);
  assert.ok(summary.length < 1100);
  assert.match(summary, /…and \d+ more \(goal_list shows all\)/);
});

test('goals can be deleted: the goal and its sub-goals go, with their Markdown mirrors; the parent mirror drops it', async () => {
  const fs = new MemoryFileSystem();
  let clock = Date.UTC(2026, 10, 21, 9, 0);
  const store = new GoalStore({ fs, now: () => (clock += 60_000) });
  const top = await store.add({ description: 'Plan the offsite' });
  const mid = await store.add({ description: 'Book the venue', parentId: top.id });
  const leaf = await store.add({ description: 'Compare three quotes', parentId: mid.id });
  const other = await store.add({ description: 'Renew the domain' });
  let told = 0;
  store.subscribe(() => told++);
  assert.match(await fs.readText(`goals/active/${goalFileName(top)}`), /Book the venue/);
  const deleted = await store.delete(mid.id);
  assert.deepEqual(
    deleted.map((g) => g.description),
    ['Book the venue', 'Compare three quotes'],
  );
  assert.deepEqual(
    (await store.list()).map((g) => g.description),
    ['Plan the offsite', 'Renew the domain'],
  );
  assert.equal(await fs.stat(`goals/active/${goalFileName(mid)}`), null);
  assert.equal(await fs.stat(`goals/active/${goalFileName(leaf)}`), null);
  assert.doesNotMatch(await fs.readText(`goals/active/${goalFileName(top)}`), /Book the venue/, 'the parent mirror drops it');
  assert.ok(await fs.stat(`goals/active/${goalFileName(other)}`), 'control: another goal is untouched');
  assert.equal(told, 1, 'the panel is told');
  // Stored: a store reading the same files again sees the same.
  assert.deepEqual(
    (await new GoalStore({ fs }).list()).map((g) => g.id),
    [top.id, other.id],
  );
  await assert.rejects(store.delete('nope'), /no goal with the id "nope"/);
});
