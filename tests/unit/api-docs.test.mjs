// docs/api.md is the reference of the public API, web/clawser.js: every name the module exports
// is in it, and every name it presents as the API's is still exported.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The names a module exports: values (`export { a, b as c } from '…'`) and types (its
 * `@typedef {…} Name`, which TypeScript exports with the module).
 * @param {string} source
 * @returns {{values: string[], types: string[]}}
 */
export function exportedNames(source) {
  const values = [...source.matchAll(/^export\s*\{([^}]*)\}\s*from\s/gm)].flatMap((m) =>
    m[1]
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean)
      .map((part) => /** @type {string} */ (part.split(/\s+as\s+/).at(-1))),
  );
  const types = [...source.matchAll(/@typedef\s+\{[^}]*\}\s+([\w$]+)/g)].map((m) => m[1]);
  return { values, types };
}

/** The Markdown text without its fenced code blocks (an example is not a reference). @param {string} markdown */
const prose = (markdown) => markdown.replace(/^```[\s\S]*?^```/gm, '');

/** The inline code spans of a Markdown text (a span may go over a line break). @param {string} markdown */
const codeSpans = (markdown) => [...prose(markdown).matchAll(/`([^`]+)`/g)].map((m) => m[1]);

/** Whether `name` is a whole identifier in `text`. @param {string} text @param {string} name */
const namesIt = (text, name) => new RegExp(`(?<![\\w$])${name.replace(/\$/g, '\\$')}(?![\\w$])`).test(text);

/** The names not in any code span of the doc. @param {string[]} names @param {string} markdown */
export function undocumented(names, markdown) {
  const spans = codeSpans(markdown);
  return names.filter((name) => !spans.some((span) => namesIt(span, name)));
}

/**
 * The names the doc presents as the API's that are not exported: the subject of each list item
 * (its first code span's leading name: `name(…)`, `new Name(…)`, `Name.method`, `Name`) and
 * every error class it names (`…Error`), unless the item says which module it comes from
 * (`web/….js`, `agent/….js`): those are documented as internal modules' own.
 * @param {string[]} names @param {string} markdown
 * @returns {string[]}
 */
export function staleNames(names, markdown) {
  /** @type {Set<string>} */
  const stale = new Set();
  for (const item of prose(markdown)
    .split(/\n(?=\S)/)
    .filter((block) => block.startsWith('- '))) {
    if (/\b(?:web|agent|app|tools|storage|mcp|git|files)\/[\w/.-]+\.(?:js|ts)\b/.test(item)) continue;
    const named = [
      ...codeSpans(item)
        .join(' ')
        .matchAll(/\b[A-Z][\w$]*Error\b/g),
    ].map((m) => m[0]);
    const subject = item.match(/^- `(?:new\s+)?([A-Za-z_$][\w$]*)(?=[(.`])/)?.[1];
    for (const name of subject ? [subject, ...named] : named) if (!names.includes(name)) stale.add(name);
  }
  return [...stale];
}

test("the checks find an export left out of the doc and a documented name that is no export, \
and pass a methods list and an internal module's item", () => {
  const source =
    "/** @typedef {import('./x.d.ts').Thing} Thing */\nexport { alpha, beta as gamma } from " +
    "'./a.js';\nexport {\n  Delta,\n  DeltaError,\n} from './d.js';\n";
  assert.deepEqual(exportedNames(source), { values: ['alpha', 'gamma', 'Delta', 'DeltaError'], types: ['Thing'] });
  const doc =
    '# API\n\n```js\nimport { gamma } from "x";\n```\n\n- `alpha(x)` → a `Thing`.\n- ' +
    '`new Delta({a})` — `run()`, `stop()`;\n  errors: `DeltaError`.\n';
  assert.deepEqual(
    undocumented(['alpha', 'gamma', 'Delta', 'DeltaError', 'Thing'], doc),
    ['gamma'],
    'a name only in an example is not documented',
  );
  assert.deepEqual(staleNames(['alpha', 'Delta', 'DeltaError'], doc), [], 'control: methods and codes are not API names');
  assert.deepEqual(staleNames(['alpha', 'DeltaError'], doc), ['Delta'], 'an item whose subject is no export');
  assert.deepEqual(staleNames(['alpha', 'Delta'], doc), ['DeltaError'], 'an error class that is no export');
  assert.deepEqual(
    staleNames(['alpha'], '- `Hidden(x)` (`web/hidden.js`) throws `HiddenError`.\n'),
    [],
    "control: an internal module's item names its module",
  );
});

test("docs/api.md documents every export of web/clawser.js, and names as the API's nothing it does not export", async () => {
  const { values, types } = exportedNames(readFileSync(resolve(ROOT, 'web/clawser.js'), 'utf8'));
  // The module's real exports, so the parsing above is checked too.
  assert.deepEqual([...values].sort(), Object.keys(await import('../../web/clawser.js')).sort());
  const doc = readFileSync(resolve(ROOT, 'docs/api.md'), 'utf8');
  assert.deepEqual(undocumented([...values, ...types], doc), [], 'exports of web/clawser.js that docs/api.md does not name in a code span');
  assert.deepEqual(
    staleNames([...values, ...types], doc),
    [],
    "names docs/api.md presents as the API's that web/clawser.js does not export (say which module an internal one comes from)",
  );
});
