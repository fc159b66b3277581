// The design tokens (issue 37, docs/design.md): web/ui/styles.css defines spacing, a type scale,
// radii, colours and elevation once, as custom properties of :root with a light and a dark value,
// and every other rule — every panel's — takes them from there. These tests fail on a literal
// value where a token belongs, and on a colour the dark theme forgets. The views' scripts too: the
// Terminal's xterm theme and the Dashboard's chart colours are tokens (`--terminal-*`, `--chart-*`)
// read at run time, and no script under web/ui/ writes a colour of its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';

const CSS = readFileSync(new URL('../../web/ui/styles.css', import.meta.url), 'utf8');

/** A colour written out (#hex, rgb(), hsl()) rather than taken from a token. */
const COLOUR = /#[0-9a-f]{3,8}\b|\b(?:rgba?|hsla?)\(/i;
/** A length in rem or px other than a hairline (1px), which a token should give. */
const LENGTH = /(?<![\w-])-?(?:\d*\.)?\d+(?:rem|px)\b/g;
const hairline = (/** @type {string} */ len) => /^-?1px$/.test(len);

/**
 * The declarations of a stylesheet outside the token definitions (the :root rules), with the
 * property, value and line; comments dropped.
 * @param {string} css
 */
export function declarations(css) {
  const text = css.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '));
  /** @type {{prop: string, value: string, line: number}[]} */
  const out = [];
  for (const rule of text.matchAll(/([^{}]*)\{([^{}]*)\}/g)) {
    if (/(^|[\s,]):root\s*$/.test(rule[1].trim()) || rule[1].trim() === ':root') continue;
    const start = (rule.index ?? 0) + rule[1].length + 1;
    for (const d of rule[2].matchAll(/([\w-]+)\s*:\s*([^;]+)/g)) {
      const line = text.slice(0, start + (d.index ?? 0)).split('\n').length;
      out.push({ prop: d[1], value: d[2].trim(), line });
    }
  }
  return out;
}

/**
 * The literal values where a token belongs: "line: prop: value".
 * @param {string} css
 */
export function literals(css) {
  /** @type {string[]} */
  const bad = [];
  for (const { prop, value, line } of declarations(css)) {
    if (prop.startsWith('--')) continue;
    const where = `${line}: ${prop}: ${value}`;
    if (COLOUR.test(value)) bad.push(`${where} (a colour token)`);
    const spacing = /^(?:padding|margin)(?:-[a-z-]+)?$|^(?:row-|column-)?gap$/.test(prop);
    if ((spacing || prop === 'font-size' || prop === 'border-radius') && (value.match(LENGTH) ?? []).some((l) => !hairline(l)))
      bad.push(`${where} (a ${spacing ? 'spacing' : prop === 'font-size' ? 'type scale' : 'radius'} token)`);
    if (prop === 'box-shadow' && !/^(?:none|var\(--shadow-[\w-]+\))$/.test(value)) bad.push(`${where} (an elevation token)`);
  }
  return bad;
}

test('every rule takes its spacing, type size, radius, colour and elevation from a token (control: literals are caught)', () => {
  assert.ok(declarations(CSS).length > 500, 'control: the rules were read');
  assert.deepEqual(literals(CSS), []);
  const sample = [
    ':root { --space-4: .5rem; --accent: #4f46e5; }',
    '.x { padding: .5rem var(--space-4); color: #fff; }',
    '.y { font-size: 14px; border-radius: 8px; box-shadow: 0 1px 2px rgb(0 0 0 / .2); }',
    '.z { margin: 0 auto; border: 1px solid var(--border); gap: var(--space-2); margin-top: -1px; font-size: .9em; }',
  ].join('\n');
  assert.deepEqual(literals(sample), [
    '2: padding: .5rem var(--space-4) (a spacing token)',
    '2: color: #fff (a colour token)',
    '3: font-size: 14px (a type scale token)',
    '3: border-radius: 8px (a radius token)',
    '3: box-shadow: 0 1px 2px rgb(0 0 0 / .2) (a colour token)',
    '3: box-shadow: 0 1px 2px rgb(0 0 0 / .2) (an elevation token)',
  ]);
});

test('the tokens are defined, the dark theme gives every colour its own value, and the focus ring is not an error colour', () => {
  const roots = [...CSS.matchAll(/:root\s*\{([^}]*)\}/g)].map((m) => m[1]);
  const light = Object.fromEntries([...roots[0].matchAll(/(--[\w-]+)\s*:\s*([^;]+);/g)].map((m) => [m[1], m[2].trim()]));
  const darkBlock = /@media \(prefers-color-scheme: dark\) \{\s*:root \{([^}]*)\}/.exec(CSS)?.[1] ?? '';
  const dark = Object.fromEntries([...darkBlock.matchAll(/(--[\w-]+)\s*:\s*([^;]+);/g)].map((m) => [m[1], m[2].trim()]));
  for (const family of ['--space-', '--text-', '--radius', '--shadow-'])
    assert.ok(
      Object.keys(light).some((k) => k.startsWith(family)),
      family,
    );
  const colours = Object.keys(light).filter((k) => /^#/.test(light[k]));
  assert.ok(colours.length > 10 && colours.includes('--focus'), `control: colours ${colours}`);
  assert.deepEqual(
    colours.filter((k) => !(k in dark)),
    [],
    'a colour without a dark value',
  );
  // Every token used is defined.
  const used = new Set([...CSS.matchAll(/var\((--[\w-]+)/g)].map((m) => m[1]));
  const defined = new Set([...CSS.matchAll(/(--[\w-]+)\s*:/g)].map((m) => m[1]));
  assert.deepEqual(
    [...used].filter((t) => !defined.has(t) && t !== '--split'),
    [],
  );
  // The focus ring is blue in both themes (hue 190–260°), not the red or orange that says "error".
  for (const hex of [light['--focus'], dark['--focus']]) {
    const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16) / 255);
    const max = Math.max(r, g, b);
    const min = Math.min(r, g, b);
    const hue =
      max === b ? 60 * ((r - g) / (max - min)) + 240 : max === g ? 60 * ((b - r) / (max - min)) + 120 : 60 * (((g - b) / (max - min)) % 6);
    assert.ok(hue >= 190 && hue <= 260, `${hex}: hue ${hue}`);
  }
});

const UI = new URL('../../web/ui/', import.meta.url);
/** Every script of the views (web/ui/, its folders included), by path. */
const UI_SCRIPTS = readdirSync(UI, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.js'))
  .map((f) => ({ file: f, text: readFileSync(new URL(f, UI), 'utf8') }));

/**
 * The colours a script writes out (#hex, rgb(), hsl()) in its strings: "file:line: literal". Comments are skipped.
 * @param {string} file @param {string} text
 */
export function scriptColours(file, text) {
  /** @type {string[]} */
  const bad = [];
  text.split('\n').forEach((line, i) => {
    const code = line.replace(/^\s*(?:\/\/|\*|\/\*).*$/, '');
    for (const m of code.matchAll(/['"`][^'"`]*?(#[0-9a-f]{3,8}\b|\b(?:rgba?|hsla?)\()[^'"`]*['"`]/gi))
      bad.push(`${file}:${i + 1}: ${m[1]}`);
  });
  return bad;
}

test('no script of the views writes a colour: the Terminal and the Dashboard take theirs from tokens (control: literals caught)', () => {
  assert.ok(UI_SCRIPTS.length > 30 && UI_SCRIPTS.some((s) => s.file === 'terminal-panel.js'), 'control: the scripts were read');
  assert.deepEqual(
    UI_SCRIPTS.flatMap((s) => scriptColours(s.file, s.text)),
    [],
  );
  assert.deepEqual(scriptColours('x.js', "const a = { background: '#ffffff' };\n// #fff in a comment\nconst b = `rgb(1 2 3)`;"), [
    'x.js:1: #ffffff',
    'x.js:3: rgb(',
  ]);
});

test('the tokens the Terminal and the Dashboard read are defined, with a light and a dark value', () => {
  const darkBlock = /@media \(prefers-color-scheme: dark\) \{\s*:root \{([^}]*)\}/.exec(CSS)?.[1] ?? '';
  const lightBlock = /:root\s*\{([^}]*)\}/.exec(CSS)?.[1] ?? '';
  const named = (/** @type {string} */ file) =>
    [...(UI_SCRIPTS.find((s) => s.file === file)?.text ?? '').matchAll(/'(--(?:terminal|chart)-[\w-]+)'/g)].map((m) => m[1]);
  const terminal = named('terminal-panel.js');
  assert.equal(terminal.length, 21, `xterm's theme: background, text, cursor and its text, selection, 16 colours (${terminal})`);
  const chart = [...named('dashboard-panel.js'), ...Array.from({ length: 8 }, (_, i) => `--chart-${i + 1}`)];
  for (const token of [...terminal, ...chart]) {
    assert.match(lightBlock, new RegExp(`${token}:`), `${token} is defined`);
    if (/#/.test(new RegExp(`${token}:\\s*([^;]+);`).exec(lightBlock)?.[1] ?? ''))
      assert.match(darkBlock, new RegExp(`${token}:`), `${token} has a dark value`);
  }
  // Every token a view reads at run time is defined.
  const read = UI_SCRIPTS.flatMap((s) => [...s.text.matchAll(/getPropertyValue\('(--[\w-]+)'\)/g)].map((m) => m[1]));
  assert.ok(read.includes('--chart-grid'), `control: ${read}`);
  assert.deepEqual(
    read.filter((t) => !new RegExp(`${t}:`).test(lightBlock)),
    [],
  );
});
