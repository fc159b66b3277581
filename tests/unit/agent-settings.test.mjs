import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AgentSettingsSchema, withSetting } from '../../web/app/agent-settings.js';

const defaults = () => AgentSettingsSchema.parse({});

test('withSetting changes one setting by its dotted path, reading the text as JSON when it parses', () => {
  const before = defaults();
  const number = withSetting(before, 'memory.recallLimit', '7');
  assert.equal(number.parsed, 7);
  assert.equal(number.next.memory.recallLimit, 7);
  assert.equal(before.memory.recallLimit, 5, 'the settings given are left unchanged');
  assert.deepEqual({ ...number.next, memory: before.memory }, before, 'nothing else changes');

  assert.equal(withSetting(before, 'safetyEnabled', 'false').next.safetyEnabled, false);
  assert.deepEqual(withSetting(before, 'tools.fetchAllowlist', '["example.com"]').next.tools.fetchAllowlist, ['example.com']);
  // Text that is not JSON stays a string (the store's schema judges it).
  const text = withSetting(before, 'leakAction', 'warn');
  assert.equal(text.parsed, 'warn');
  assert.equal(text.next.leakAction, 'warn');
});

test('withSetting refuses a path that is not a setting, naming it', () => {
  const before = defaults();
  assert.throws(() => withSetting(before, 'memory.nope', '1'), /"memory\.nope" is not a setting/);
  assert.throws(() => withSetting(before, 'nope.recallLimit', '1'), /"nope\.recallLimit" is not a setting/);
  // A leaf is not an object to walk into.
  assert.throws(() => withSetting(before, 'maxIterations.x', '1'), /"maxIterations\.x" is not a setting/);
  // Control: the same shape of path that names a setting is accepted.
  assert.equal(withSetting(before, 'memory.autoRecall', 'false').next.memory.autoRecall, false);
});
