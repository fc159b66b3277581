// A panel is one file plus one line (issue 33): its entry file, web/app/panels/<name>.js, declares
// how it shows in the navigation (name, label, icon, shortcut, split) and a lazy open(context);
// one line in web/app/panels.js registers it (loaded when the panel first opens). These tests list what an entry must declare, keep
// the entry files light (the first view and the app's start load no view), keep each view behind
// its entry alone and keep the first view's copy of the navigation (panel-nav.js) current.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { WEB, webModules } from '../fixtures/web-modules.mjs';
import { checkPanelEntry, PanelError, PanelRegistry, builtinPanels, loadBuiltinPanels } from '../../web/app/panels.js';
import { PANEL_NAV } from '../../web/app/panel-nav.js';
import { renderPanelNav } from '../../scripts/panel-nav.mjs';

/** The built-in panels' entries, loaded. */
const BUILTIN_PANELS = await loadBuiltinPanels();

const PANELS_DIR = join(WEB, 'app/panels');

/** What a complete entry declares (the control of every test below). */
const complete = () => ({
  name: 'probe',
  label: 'Probe',
  icon: 'search',
  shortcut: 'Alt+Q',
  split: false,
  open: () => ({ root: /** @type {any} */ ({}) }), // any: a stand-in element, never rendered here
});

/** @param {unknown} entry @param {RegExp} names what the message must name */
const refused = (entry, names) =>
  assert.throws(
    () => checkPanelEntry(/** @type {any} */ (entry)), // any: deliberately wrong entries
    (err) => err instanceof PanelError && err.code === 'invalid' && names.test(err.message),
  );

test('a panel entry declares name, label, icon, shortcut, split and open: one lacking any of them is refused, naming it', () => {
  // Control: a complete entry passes, and so does one without a keyboard shortcut ('').
  assert.equal(checkPanelEntry(complete()).name, 'probe');
  assert.equal(checkPanelEntry({ ...complete(), shortcut: '' }).shortcut, '');
  assert.equal(checkPanelEntry({ ...complete(), split: true }).split, true);
  for (const field of ['name', 'label', 'icon', 'shortcut', 'split', 'open']) {
    const entry = /** @type {Record<string, unknown>} */ (complete());
    delete entry[field];
    refused(entry, new RegExp(`\\b${field}\\b`));
  }
  refused(null, /panel entry/);
});

test("an entry's fields have their form: a route name, words, Alt+digit or Alt+letter (not the app's), a boolean, a function", () => {
  for (const name of ['Probe', 'chat', 'settings', 'two words', '', '9lives', 'x'.repeat(33)]) refused({ ...complete(), name }, /name/);
  refused({ ...complete(), label: '' }, /label/);
  refused({ ...complete(), label: 42 }, /label/);
  refused({ ...complete(), icon: '' }, /icon/);
  // An icon is named, never a character (an emoji is an empty box without a colour emoji font).
  for (const icon of ['🔎', '📁', '⚙', 'Search', 'two words', 'x-']) refused({ ...complete(), icon }, /icon/);
  // Alt+0 is the chat; Alt+Z undoes a turn; Alt+B and Alt+F move by words in the Terminal.
  for (const shortcut of ['Ctrl+Q', 'alt+q', 'Alt+q', 'Alt+QQ', 'Alt+0', 'Alt+Z', 'Alt+B', 'Alt+F', 'Alt+Shift+Q', 'Q']) {
    refused({ ...complete(), shortcut }, /shortcut/);
  }
  refused({ ...complete(), split: 'yes' }, /split/);
  refused({ ...complete(), split: undefined }, /split/);
  refused({ ...complete(), open: 'open' }, /open/);
  // Control: every digit 1–9 and every other letter is a shortcut's form.
  for (const key of [...'123456789', ...'ACDEGHIJKLMNOPQRSTUVWXY']) {
    assert.equal(checkPanelEntry({ ...complete(), shortcut: `Alt+${key}` }).shortcut, `Alt+${key}`);
  }
});

test('the registry refuses a second panel with the same name or shortcut; one added at run time may leave split out', () => {
  const registry = new PanelRegistry();
  for (const p of BUILTIN_PANELS) registry.register(p);
  /** @param {unknown} err */
  const taken = (err) => err instanceof PanelError && err.code === 'taken';
  const again = () => registry.register({ ...complete(), shortcut: 'Alt+1' });
  assert.throws(again, (err) => taken(err) && /Alt\+1 already opens Files/.test(`${err}`));
  assert.throws(() => registry.register({ ...complete(), name: 'files', shortcut: '' }), taken);
  assert.throws(
    () => registry.register({ ...complete(), label: '' }),
    (err) => err instanceof PanelError && err.code === 'invalid',
  );
  // Control: a free shortcut, no shortcut, split left out.
  const { split: _, ...noSplit } = complete();
  const off = registry.register(noSplit);
  assert.equal(registry.get('probe')?.split, false);
  off();
  registry.register({ ...complete(), shortcut: '' });
  registry.register({ ...complete(), name: 'probe-two' });
  assert.deepEqual(
    registry
      .list()
      .slice(-2)
      .map((p) => p.name),
    ['probe', 'probe-two'],
  );
});

/** The entry files: web/app/panels/<name>.js. */
const entryFiles = () =>
  readdirSync(PANELS_DIR)
    .filter((f) => f.endsWith('.js'))
    .map((f) => join(PANELS_DIR, f));

test('each file of web/app/panels/ is a complete entry named after its file, registered by one line of web/app/panels.js', async () => {
  const files = entryFiles();
  assert.ok(files.length >= 13, `the entry files were found: ${files.length}`);
  const registry = readFileSync(join(WEB, 'app/panels.js'), 'utf8').split('\n');
  for (const file of files) {
    const name = basename(file, '.js');
    const entry = (await import(file)).default;
    assert.equal(checkPanelEntry(entry).name, name, `${name}.js declares the panel "${name}"`);
    assert.equal(typeof entry.split, 'boolean', `${name}.js says whether it shows beside the chat`);
    const lines = registry.filter((l) => l.includes(`'./panels/${name}.js'`));
    assert.equal(lines.length, 1, `one line of panels.js registers ${name}`);
  }
  // The registry is exactly those files, each once, in the navigation's order.
  assert.deepEqual(BUILTIN_PANELS.map((p) => p.name).sort(), files.map((f) => basename(f, '.js')).sort());
  assert.equal(new Set(BUILTIN_PANELS.map((p) => p.name)).size, BUILTIN_PANELS.length);
  assert.equal(new Set(BUILTIN_PANELS.map((p) => p.shortcut)).size, BUILTIN_PANELS.length, 'no two share a shortcut');
});

/** A source without its comments (type-only `@import`s cost nothing at run time). @param {string} source */
const code = (source) => source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
const STATIC_IMPORT = /(?:^|[\n;])\s*(?:import|export)\s[^;'"(]*?from\s*['"]([^'"]+)['"]|(?:^|[\n;])\s*import\s*['"]([^'"]+)['"]/g;
/** The modules a source imports statically (dynamic import() excluded: those load on demand). @param {string} source */
const staticImports = (source) => [...code(source).matchAll(STATIC_IMPORT)].map((m) => m[1] ?? m[2]);
const DYNAMIC_IMPORT = /import\(\s*['"]([^'"]+)['"]\s*\)/g;
/** Every module a source imports at run time, dynamic import() included. @param {string} source */
const runtimeImports = (source) => [...staticImports(source), ...[...code(source).matchAll(DYNAMIC_IMPORT)].map((m) => m[1])];

test('an entry file imports nothing when loaded: its view and what the view needs load with open()', () => {
  // Control: the check sees a static import, a side-effect import and a re-export, not a dynamic one or a type.
  const sample = [
    "/** @import { X } from './x.js' */",
    "import { a } from '../a.js';",
    "import '../b.js';",
    "export { c } from './c.js';",
    "const d = () => import('../../ui/d.js');",
  ].join('\n');
  assert.deepEqual(staticImports(sample), ['../a.js', '../b.js', './c.js']);
  assert.deepEqual(runtimeImports(sample), ['../a.js', '../b.js', './c.js', '../../ui/d.js']);
  for (const file of entryFiles()) assert.deepEqual(staticImports(readFileSync(file, 'utf8')), [], `${basename(file)} imports at load`);
  // The registry itself only names the entry files (it is loaded with the app, never with the first view).
  assert.deepEqual(staticImports(readFileSync(join(WEB, 'app/panels.js'), 'utf8')), []);
});

test("a panel's view (web/ui/<name>-panel.js) is imported by its entry alone: no other module wires a panel", () => {
  const views = readdirSync(join(WEB, 'ui')).filter((f) => f.endsWith('-panel.js'));
  assert.ok(views.length >= 13, 'the views were found');
  /** @type {Map<string, string[]>} view → the modules importing it */
  const importers = new Map(views.map((v) => [v, []]));
  for (const path of webModules()) {
    for (const spec of runtimeImports(readFileSync(path, 'utf8'))) {
      const target = relative(join(WEB, 'ui'), resolve(dirname(path), spec));
      importers.get(target)?.push(relative(WEB, path));
    }
  }
  for (const [view, from] of importers) {
    assert.ok(from.length > 0, `${view} is opened by some panel`);
    for (const f of from) assert.match(f, /^app\/panels\/[a-z0-9-]+\.js$/, `${view} is imported by ${f}, not only by its panel's entry`);
  }
});

test("panel-nav.js (what the first view draws) is the registry's navigation: run node scripts/index-html.mjs when it is not", async () => {
  const onDisk = readFileSync(join(WEB, 'app/panel-nav.js'), 'utf8');
  assert.equal(onDisk, await renderPanelNav(), 'run: node scripts/index-html.mjs');
  // Control: a registry with one more panel renders one more line, with its facts.
  const more = await renderPanelNav(undefined, [...BUILTIN_PANELS, complete()]);
  assert.equal(more.split('\n').length, onDisk.split('\n').length + 1);
  assert.match(more, /\{ name: 'probe', label: 'Probe', icon: 'search', shortcut: 'Alt\+Q', split: false \},\n/);
});

test('the app registers the built-in panels from panel-nav.js without loading their files; opening one loads its entry', async () => {
  const lazy = builtinPanels(PANEL_NAV);
  assert.deepEqual(
    lazy.map(({ name, label, icon, shortcut, split }) => ({ name, label, icon, shortcut, split })),
    BUILTIN_PANELS.map(({ name, label, icon, shortcut, split }) => ({ name, label, icon, shortcut, split })),
  );
  const registry = new PanelRegistry();
  for (const p of lazy) registry.register(p);
  // Opening loads the entry and runs its open(): the Files entry's view needs a page (its icons come
  // through the page's import map), so its failure in Node shows the entry's own open ran, not a
  // stale-copy refusal.
  const files = /** @type {import('../../web/app/panels.js').PanelEntry} */ (registry.get('files'));
  const ctx = /** @type {any} */ ({ services: { files: async () => ({}) } }); // any: only reached as far as the entry's own open
  await assert.rejects(
    Promise.resolve().then(() => files.open(ctx)),
    (err) => !(err instanceof PanelError),
  );
  // A copy that is not the registry's is refused, with what to run.
  assert.throws(
    () => builtinPanels(PANEL_NAV.slice(1)),
    (err) => err instanceof PanelError && /node scripts\/index-html\.mjs/.test(`${err}`),
  );
  const swapped = [PANEL_NAV[1], PANEL_NAV[0], ...PANEL_NAV.slice(2)];
  await assert.rejects(
    Promise.resolve().then(() => builtinPanels(swapped)[0].open(ctx)),
    (err) => err instanceof PanelError && /stale \("git" opened "files"\)/.test(`${err}`),
  );
});
