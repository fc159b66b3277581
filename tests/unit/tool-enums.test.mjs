// A tool's schema takes the values a store defines from the store (goal statuses, job delivery,
// memory categories), so a value added to the store reaches the tool: no tool spells the list out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WEB } from '../fixtures/web-modules.mjs';
import { GOAL_STATUSES } from '../../web/stores/goals.js';
import { DELIVERY } from '../../web/stores/scheduler.js';
import { CATEGORIES } from '../../web/memory/store.js';
import { goalUpdate, goalList } from '../../web/tools/goals.js';
import { scheduleAdd } from '../../web/tools/scheduler.js';
import { memoryStore } from '../../web/tools/memory.js';

const ENUMS = { GOAL_STATUSES, DELIVERY, CATEGORIES };

/**
 * The store enums whose values a source writes out as a list of string literals (in any order).
 * @param {string} source
 */
export function redeclared(source) {
  const lists = [...source.matchAll(/\[\s*((?:'[^']*'\s*,\s*)+'[^']*')\s*,?\s*\]/g)].map((m) =>
    [...m[1].matchAll(/'([^']*)'/g)]
      .map((v) => v[1])
      .sort()
      .join(','),
  );
  return Object.entries(ENUMS)
    .filter(([, values]) => lists.includes([...values].sort().join(',')))
    .map(([name]) => name);
}

test('the check finds a store enum written out in a tool, in any order (control: the enum imported)', () => {
  assert.deepEqual(redeclared("const Status = z.enum(['paused', 'active', 'completed', 'failed']);"), ['GOAL_STATUSES']);
  assert.deepEqual(redeclared("delivery: z.enum(['always', 'success', 'error', 'never']).optional()"), ['DELIVERY']);
  assert.deepEqual(redeclared("z.enum(['core', 'learned', 'user', 'context'])"), ['CATEGORIES']);
  assert.deepEqual(redeclared("import { GOAL_STATUSES } from '../stores/goals.js';\nconst Status = z.enum(GOAL_STATUSES);"), []);
  assert.deepEqual(redeclared("z.enum(['active', 'paused'])"), [], 'a different list is not the enum');
});

test("no tool of web/tools/ re-declares a store's goal statuses, job delivery or memory categories", () => {
  const tools = readdirSync(join(WEB, 'tools')).filter((f) => f.endsWith('.js'));
  assert.ok(tools.includes('goals.js') && tools.includes('scheduler.js') && tools.includes('memory.js'), 'the tool files were found');
  const found = tools.flatMap((f) => redeclared(readFileSync(join(WEB, 'tools', f), 'utf8')).map((name) => `tools/${f}: ${name}`));
  assert.deepEqual(found, []);
});

test("the tools accept exactly the stores' values", () => {
  for (const status of GOAL_STATUSES) {
    assert.ok(goalUpdate.schema.safeParse({ id: 'g1', status }).success, status);
    assert.ok(goalList.schema.safeParse({ status }).success, status);
  }
  assert.equal(goalUpdate.schema.safeParse({ id: 'g1', status: 'done' }).success, false);
  for (const delivery of DELIVERY)
    assert.ok(scheduleAdd.schema.safeParse({ when: 'every day at 9am', prompt: 'p', delivery }).success, delivery);
  assert.equal(scheduleAdd.schema.safeParse({ when: 'every day at 9am', prompt: 'p', delivery: 'sometimes' }).success, false);
  for (const category of CATEGORIES) assert.ok(memoryStore.schema.safeParse({ key: 'k', content: 'c', category }).success, category);
  assert.equal(memoryStore.schema.safeParse({ key: 'k', content: 'c', category: 'other' }).success, false);
});
