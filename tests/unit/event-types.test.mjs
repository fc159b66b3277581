// The event log is a union discriminated by `type` (web/agent/events.d.ts): a writer that hands
// an event the wrong data, or a reader that reads data before narrowing by type, does not
// type-check. Checked by running tsc on tests/fixtures/event-types/: wrong-shapes.js must fail on
// exactly its lines marked "wrong", right-shapes.js (the same calls, right) must not fail at all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const FIXTURES = join(ROOT, 'tests', 'fixtures', 'event-types');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

/** The lines of a fixture file marked as wrong (1-based). @param {string} file */
function markedLines(file) {
  return readFileSync(join(FIXTURES, file), 'utf8')
    .split('\n')
    .flatMap((line, i) => (/\/\/ wrong:/.test(line) ? [i + 1] : []));
}

/**
 * The lines tsc reports an error on, by fixture file.
 * @param {string} output tsc's report
 * @returns {Map<string, number[]>}
 */
export function errorLines(output) {
  /** @type {Map<string, number[]>} */
  const byFile = new Map();
  for (const m of output.matchAll(/^(?:.*[\\/])?([\w.-]+\.(?:js|mjs|ts))\((\d+),\d+\): error TS\d+/gm)) {
    const lines = byFile.get(m[1]) ?? [];
    if (!lines.includes(Number(m[2]))) lines.push(Number(m[2]));
    byFile.set(m[1], lines);
  }
  return byFile;
}

test('the report reader finds the lines tsc names, per file (control: a clean report names none)', () => {
  const report =
    "tests/fixtures/event-types/wrong-shapes.js(6,64): error TS2322: Type 'string' is not assignable to type 'boolean'.\n" +
    "tests/fixtures/event-types/wrong-shapes.js(14,55): error TS2322: Type …\n  Types of property 'data' are incompatible.\n" +
    'tests/fixtures/event-types/right-shapes.js(3,1): error TS2307: Cannot find module.\n';
  assert.deepEqual(
    [...errorLines(report)],
    [
      ['wrong-shapes.js', [6, 14]],
      ['right-shapes.js', [3]],
    ],
  );
  assert.deepEqual([...errorLines('')], []);
});

test("a writer or reader that gets an event's data wrong fails to type-check, each on its own line; control: the same calls, right, \
type-check", () => {
  const marked = markedLines('wrong-shapes.js');
  assert.ok(marked.length >= 9, 'the fixture marks its wrong lines');
  const run = spawnSync(process.execPath, [TSC, '-p', FIXTURES], { encoding: 'utf8' });
  const found = errorLines(`${run.stdout}${run.stderr}`);
  assert.deepEqual(found.get('wrong-shapes.js') ?? [], marked, `tsc said:\n${run.stdout}${run.stderr}`);
  assert.deepEqual(found.get('right-shapes.js') ?? [], [], `tsc said:\n${run.stdout}${run.stderr}`);
  assert.deepEqual(
    [...found.keys()].filter((f) => f !== 'wrong-shapes.js'),
    [],
    'no error anywhere else (the web/ modules it imports included)',
  );
});
