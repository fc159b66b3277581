import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLayout, LayoutPreference } from '../../web/app/workspace-layout.js';
import { LocalConfig } from '../../web/storage/local-config.js';
import { memoryStorage } from '../fixtures/stand-ins.mjs';

test('parseLayout: the stored layout, with defaults for what is missing, damaged or out of range', () => {
  const defaults = { split: false, ratio: 50, artifact: 45 };
  for (const raw of [null, undefined, 'text', 42, [], {}]) assert.deepEqual(parseLayout(raw), defaults, JSON.stringify(raw));
  assert.deepEqual(parseLayout({ split: true, ratio: 30, artifact: 60 }), { split: true, ratio: 30, artifact: 60 });
  // Shares stay between 20 and 80 percent; a split that is not exactly true is off.
  assert.deepEqual(parseLayout({ split: 'yes', ratio: 10, artifact: 95 }), defaults);
  assert.deepEqual(parseLayout({ ratio: 20, artifact: 80 }), { split: false, ratio: 20, artifact: 80 });
  assert.deepEqual(parseLayout({ ratio: '30' }), defaults);
});

test('LayoutPreference keeps what changed and the rest as it was', () => {
  const config = new LocalConfig(memoryStorage());
  const layout = new LayoutPreference(config);
  assert.deepEqual(layout.load(), { split: false, ratio: 50, artifact: 45 });
  layout.save({ split: true });
  layout.save({ ratio: 35 });
  assert.deepEqual(new LayoutPreference(config).load(), { split: true, ratio: 35, artifact: 45 });
});
