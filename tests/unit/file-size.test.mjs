// No hand-written code file (web/, tests/, bench/, scripts/) is longer than 600 lines unless its
// first comment says why (CONTRIBUTING.md): a long file is usually several modules that grew
// together. The reason is a line of the file's opening comment that starts with the marker, e.g.
//   // Why this file is long: one state machine; split, its transitions would be read in 4 files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, handWrittenFiles } from '../fixtures/hand-written.mjs';

export const MAX_LINES = 600;
export const REASON_MARKER = 'Why this file is long:';

/** @param {string} text @returns {number} its lines (a final newline does not start another) */
export const lineCount = (text) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/**
 * The reason `text` states for its length: the words after the marker on a line of its opening
 * comment (the `//` lines or the `/* … *\/` block it starts with, after a `#!` line), or null.
 * @param {string} text
 * @returns {string | null}
 */
export function statedReason(text) {
  const body = text.replace(/^#![^\n]*\n/, '');
  const opening = /^(?:\s*(?:\/\/[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/))+/.exec(body)?.[0] ?? '';
  for (const line of opening.split('\n')) {
    const words = line.replace(/^\s*(?:\/\/+|\/\*+|\*+)?\s*/, '');
    if (words.startsWith(REASON_MARKER)) {
      const reason = words
        .slice(REASON_MARKER.length)
        .replace(/\*\/\s*$/, '')
        .trim();
      if (/\w/.test(reason)) return reason;
    }
  }
  return null;
}

test("statedReason reads the marker in a file's opening comment only, and only with a reason after it", () => {
  const reason = 'one state machine; split, its transitions would be read in 4 files.';
  assert.equal(statedReason(`// The scheduler.\n// ${REASON_MARKER} ${reason}\nexport {};\n`), reason, 'control: an opening // comment');
  assert.equal(
    statedReason(`#!/usr/bin/env node\n/**\n * The scheduler.\n * ${REASON_MARKER} ${reason}\n */\n`),
    reason,
    'control: a block',
  );
  assert.equal(statedReason(`/* ${REASON_MARKER} ${reason} */\n.a { color: red; }\n`), reason, 'control: CSS');
  assert.equal(statedReason(`// The scheduler.\n// ${REASON_MARKER}\nexport {};\n`), null, 'the marker with no reason');
  assert.equal(statedReason(`// The scheduler.\nexport {};\n// ${REASON_MARKER} ${reason}\n`), null, 'a comment further down');
  assert.equal(statedReason(`// The scheduler: ${REASON_MARKER} ${reason}\n`), null, 'the marker inside a sentence');
});

test('lineCount counts lines, not newlines', () => {
  assert.equal(lineCount('a\nb\n'), 2);
  assert.equal(lineCount('a\nb'), 2);
  assert.equal(lineCount(`${'x\n'.repeat(MAX_LINES)}`), MAX_LINES);
});

test(`no hand-written code file is over ${MAX_LINES} lines without a reason at its top`, () => {
  // Code: a data file with no comments (the shell corpus's cases, Markdown) is as long as its data.
  const files = handWrittenFiles().filter((f) => /\.(?:m?js|ts)$/.test(f));
  for (const known of ['web/app/app.js', 'tests/unit/mcp.test.mjs', 'scripts/vendor.mjs', 'bench/run.mjs']) {
    assert.ok(files.includes(known), `control: the walk finds ${known}`);
  }
  const found = files.flatMap((file) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const lines = lineCount(text);
    return lines > MAX_LINES && statedReason(text) === null ? [`${file}:1 (${lines} lines)`] : [];
  });
  assert.equal(
    found.length,
    0,
    `${found.length} hand-written code files are over ${MAX_LINES} lines: split them, or state why at the top ` +
      `(a line of the opening comment starting "${REASON_MARKER}"):\n${found.join('\n')}`,
  );
});
