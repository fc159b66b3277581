// The approval dialog shows what a call will run first (issue 37 §2): the command, URL or path
// from its arguments, as written, before all its arguments and the tool's description.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { whatWillRun } from '../../web/ui/approval-dialog.js';

test('what will run: the command, URL and path of a call, in that order, as written; nothing for other arguments', () => {
  assert.deepEqual(whatWillRun({ command: 'rm -rf build && npm test', timeoutMs: 5000 }), [
    { label: 'Command', value: 'rm -rf build && npm test' },
  ]);
  assert.deepEqual(whatWillRun({ path: 'notes/a.md', content: 'x', url: 'https://example.com/a?b=1' }), [
    { label: 'URL', value: 'https://example.com/a?b=1' },
    { label: 'Path', value: 'notes/a.md' },
  ]);
  assert.deepEqual(whatWillRun({ from: 'a.txt', to: 'b.txt' }), [
    { label: 'From', value: 'a.txt' },
    { label: 'To', value: 'b.txt' },
  ]);
  // Control: nothing to lift (no such argument, empty, not text, not an object).
  assert.deepEqual(whatWillRun({ content: 'x', key: 'k' }), []);
  assert.deepEqual(whatWillRun({ path: '  ' }), []);
  assert.deepEqual(whatWillRun({ path: 42 }), []);
  assert.deepEqual(whatWillRun(null), []);
  assert.deepEqual(whatWillRun(['rm']), []);
});
