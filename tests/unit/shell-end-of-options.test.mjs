// `--` for the interpreter's commands that refuse it (web/shell/commands/end-of-options.js); the
// shell compatibility corpus compares the same lines with real bash (end-of-options-operands).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { endOptions, restoreNames } from '../../web/shell/commands/end-of-options.js';

test('the first -- is dropped; an operand after it that starts with - is read as a file, named back as written', () => {
  const { args, renamed } = endOptions('md5sum', ['-b', '--', '-x.txt', 'a.txt', '-']);
  assert.deepEqual(args, ['-b', './-x.txt', 'a.txt', '-']);
  assert.equal(restoreNames('0cc1  ./-x.txt\n0cc2 *a.txt\n', renamed), '0cc1  -x.txt\n0cc2 *a.txt\n');
  assert.equal(restoreNames('==> ./-x.txt <==\nline ./-x.txt\n', renamed), '==> -x.txt <==\nline ./-x.txt\n', 'content is left alone');
});

test("jq's first operand is its filter, even after --; without -- nothing changes (control)", () => {
  assert.deepEqual(endOptions('jq', ['-r', '--', '-1', '-f.json']).args, ['-r', '-1', './-f.json']);
  assert.deepEqual(endOptions('jq', ['.a', '--', '-f.json']).args, ['.a', './-f.json']);
  const same = ['-n', '2', '-x'];
  assert.equal(endOptions('head', same).args, same);
});
