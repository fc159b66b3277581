import { test } from 'node:test';
import assert from 'node:assert/strict';
import { locateField, lineAt } from '../../web/ui/config-panel.js';

const text = '{\n  "rules": [\n    { "kind": "a" },\n    { "kind": "b" }\n  ],\n  "agent": {\n    "kind": "c"\n  }\n}';

test('a path is found on its line, an index counted on the key after it', () => {
  const at = (/** @type {string} */ path) => {
    const where = locateField(text, path);
    return where ? [lineAt(text, where.start), text.slice(where.start, where.end)] : null;
  };
  assert.deepEqual(at('rules[0].kind'), [3, '"kind"']);
  assert.deepEqual(at('rules[1].kind'), [4, '"kind"']);
  assert.deepEqual(at('agent.kind'), [7, '"kind"']);
  assert.deepEqual(at('agent.missing'), [6, '"agent"'], 'a missing field: its parent');
  assert.deepEqual(at('line 4, column 5'), [4, '{']);
  assert.equal(lineAt(text, 0), 1);
  assert.equal(lineAt(text, text.length), 9);
});
