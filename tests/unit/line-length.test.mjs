// No line of a hand-written file is longer than 140 characters (CONTRIBUTING.md): Biome's
// formatter keeps code within 140, but it leaves comments, strings, template text and regular
// expressions as written, so this test reads every line, whatever it holds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GENERATED, ROOT, handWrittenFiles } from '../fixtures/hand-written.mjs';

export const MAX_LINE = 140;

/**
 * The lines of `text` longer than `max` characters (Unicode code points, so "é" and "回" are one).
 * @param {string} text @param {number} [max]
 * @returns {{line: number, length: number}[]}
 */
export function longLines(text, max = MAX_LINE) {
  return text.split('\n').flatMap((l, i) => {
    const length = [...l.replace(/\r$/, '')].length;
    return length > max ? [{ line: i + 1, length }] : [];
  });
}

test('longLines finds a line of 141 characters and passes one of 140 (control), counting characters, not bytes', () => {
  const ok = 'x'.repeat(140);
  assert.deepEqual(longLines(`${ok}\n${ok}\r\n`), [], 'control: 140 characters is within the limit');
  assert.deepEqual(longLines(`a\n${'x'.repeat(141)}\nb`), [{ line: 2, length: 141 }]);
  assert.deepEqual(longLines('回'.repeat(140)), [], 'control: a character outside ASCII counts once');
  assert.deepEqual(longLines(`// ${'é'.repeat(138)}`), [{ line: 1, length: 141 }]);
});

test('the hand-written files are found: web/, tests/, bench/, scripts/ and sw.js, without web/vendor or generated files', () => {
  const files = handWrittenFiles();
  for (const known of [
    'sw.js',
    'web/app/app.js',
    'web/ui/styles.css',
    'tests/unit/line-length.test.mjs',
    'bench/run.mjs',
    'scripts/vendor.mjs',
  ]) {
    assert.ok(files.includes(known), `${known} is hand-written and must be checked`);
  }
  assert.ok(files.length > 400, `only ${files.length} files found`);
  assert.equal(files.filter((f) => f.startsWith('web/vendor/') || f.startsWith('node_modules/')).length, 0);
  for (const generated of GENERATED.keys()) assert.ok(!files.includes(generated), `${generated} is generated`);
});

test('every file listed as generated exists (or is written by a build step), so the list does not outlive its files', () => {
  const builtOnDemand = new Set(['web/vendor/', 'precache-manifest.js']); // npm install and the browser tests write these
  const missing = [...GENERATED.keys()].filter((g) => !builtOnDemand.has(g) && !existsSync(join(ROOT, g)));
  assert.deepEqual(missing, []);
});

/**
 * Lines that cannot be wrapped, by file, each with why: the companion extension's public key is
 * one base64 string that Chrome reads whole (JSON has no concatenation).
 * @type {Map<string, RegExp>}
 */
export const UNWRAPPABLE = new Map([['extension/manifest.json', /^ {2}"key": "[A-Za-z0-9+/=]+",$/]]);

test('no line of a hand-written file is longer than 140 characters', () => {
  const found = handWrittenFiles().flatMap((file) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const lines = text.split('\n');
    return longLines(text)
      .filter((l) => !UNWRAPPABLE.get(file)?.test(lines[l.line - 1]))
      .map((l) => `${file}:${l.line} (${l.length} characters)`);
  });
  assert.equal(
    found.length,
    0,
    `${found.length} lines are longer than ${MAX_LINE} characters (run \`npm run format\`, then wrap what is left):\n${found.join('\n')}`,
  );
});
