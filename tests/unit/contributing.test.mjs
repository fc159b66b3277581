// CONTRIBUTING.md says what a registry entry must declare (a provider, a panel, a tool family);
// the code checks entries against its own lists. This holds the two to each other, so neither
// drifts: each list in CONTRIBUTING.md is read and compared with the code's (the provider's
// capabilities also with WireCapabilities of web/providers/types.d.ts), and each field of the
// code's lists is shown to be checked (an entry without it is refused).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { appRoot } from '../../scripts/static-server.mjs';
import { CAPABILITIES, HOST_FIELDS } from '../fixtures/provider-declaration.mjs';
import { PANEL_ENTRY_FIELDS, checkPanelEntry } from '../../web/app/panels.js';
import { MUST_DECLARE } from '../../web/tools/families.js';

const CONTRIBUTING = readFileSync(join(appRoot, 'CONTRIBUTING.md'), 'utf8');

/**
 * The text of a `### ` section of CONTRIBUTING.md, by the start of its title.
 * @param {string} title @param {string} [doc]
 */
export function section(title, doc = CONTRIBUTING) {
  const start = doc.indexOf(`\n### ${title}`);
  assert.ok(start >= 0, `CONTRIBUTING.md has a section "${title}"`);
  const end = doc.indexOf('\n### ', start + 1);
  return doc.slice(start, end < 0 ? undefined : end);
}

/**
 * The names a list in prose gives: the `code` words after `lead` up to the first `until`, leaving
 * out what is in parentheses (values, examples) and a call's arguments (`open(ctx)` is `open`).
 * @param {string} prose @param {string} lead @param {string} until
 */
export function namesAfter(prose, lead, until) {
  const text = prose.replace(/\s+/g, ' ');
  const at = text.indexOf(lead);
  assert.ok(at >= 0, `"${lead}" is in the text`);
  const end = text.indexOf(until, at + lead.length);
  let list = text.slice(at + lead.length, end < 0 ? undefined : end);
  // Parentheses (one level of nesting at most: `run(args, ctx)` inside "(…)").
  for (let i = 0; i < 2; i++) list = list.replace(/\s*\([^()]*\)/g, (m) => (/^\s/.test(m) ? '' : '()'));
  return [...list.matchAll(/`([A-Za-z][\w]*)(?:\(\))?`/g)].map((m) => m[1]);
}

/** The bullets of a panel entry's step 2: the `names` before each bullet's colon. @param {string} text */
function bulletNames(text) {
  return [...text.matchAll(/^ {3}- (.*?):/gm)].flatMap((m) => [...m[1].matchAll(/`([a-zA-Z]+)(?:\([^)]*\))?`/g)].map((n) => n[1]));
}

test('the list reader takes the code words, leaving out values in parentheses and arguments', () => {
  const text = 'declares `tools` (`native` | `codex`), `run(args, ctx)`, a zod `schema` and `key` (`a` (`b`)). Then `other`.';
  assert.deepEqual(namesAfter(text, 'declares', '.'), ['tools', 'run', 'schema', 'key']);
  assert.deepEqual(bulletNames('   - `label` and `icon`: its button\n   - `open(ctx)`: loads\n- `x`: not a step bullet'), [
    'label',
    'icon',
    'open',
  ]);
});

test("A provider: CONTRIBUTING.md's capabilities and provider fields are the registry test's, and WireCapabilities'", () => {
  const text = section('A provider');
  const caps = namesAfter(text, 'declares every field of `WireCapabilities`:', 'The registry test');
  assert.deepEqual(caps, Object.keys(CAPABILITIES));
  const types = readFileSync(join(appRoot, 'web/providers/types.d.ts'), 'utf8');
  const body = /export interface WireCapabilities \{([\s\S]*?)\n\}/.exec(types)?.[1] ?? '';
  const declared = [...body.matchAll(/^ {2}(\w+)\??:/gm)].map((m) => m[1]);
  assert.deepEqual(declared, Object.keys(CAPABILITIES), 'types.d.ts WireCapabilities, in the same order');
  assert.deepEqual(namesAfter(text, 'Every provider must declare', '.'), Object.keys(HOST_FIELDS));
});

test("A panel: CONTRIBUTING.md's entry fields are checkPanelEntry's, each refused when missing", () => {
  assert.deepEqual(bulletNames(section('A panel')), [...PANEL_ENTRY_FIELDS]);
  const complete = {
    name: 'probe',
    label: 'Probe',
    icon: 'search',
    shortcut: '',
    split: false,
    open: () => ({ root: /** @type {any} */ ({}) }),
  }; // any: a stand-in element
  assert.equal(checkPanelEntry(complete).name, 'probe', 'control: a complete entry passes');
  for (const field of PANEL_ENTRY_FIELDS) {
    const { [field]: _dropped, ...rest } = /** @type {Record<string, unknown>} */ (complete);
    assert.throws(
      () => checkPanelEntry(/** @type {any} */ (rest)), // any: an entry lacking a field on purpose
      (/** @type {Error} */ err) => err.message.includes(`${field}:`),
      field,
    );
  }
});

test("A tool family: CONTRIBUTING.md's family, tool and verb fields are MUST_DECLARE's", () => {
  const text = section('A tool family');
  assert.deepEqual(namesAfter(text, 'The module exports its family, which declares', ':'), [...MUST_DECLARE.family]);
  assert.deepEqual(namesAfter(text, '`ToolDefinition` (`web/tools/types.d.ts`) that declares', ' using only what'), [...MUST_DECLARE.tool]);
  assert.deepEqual(namesAfter(text, 'A verb declares', ';'), [...MUST_DECLARE.verb]);
});

test('A shell command: CONTRIBUTING.md names the places a command goes, and they are there', () => {
  const text = section('A shell command');
  for (const path of [
    'web/shell/commands/<name>.js',
    'web/shell/shell.js',
    'web/shell/read-only.js',
    'tests/unit/shell-read-only.test.mjs',
  ])
    assert.ok(text.includes(`\`${path}\``), path);
  const shell = readFileSync(join(appRoot, 'web/shell/shell.js'), 'utf8');
  assert.ok(shell.includes('wcCommand(),'), 'the example line is in shell.js');
  const readOnly = readFileSync(join(appRoot, 'web/shell/read-only.js'), 'utf8');
  assert.match(readOnly, /export const READ_ONLY_COMMANDS = /);
});
