// Icons are a vendored SVG set (Lucide, issue 37), never emoji: on a machine without a colour
// emoji font every emoji is an empty box, and the folded rail was fourteen identical boxes. These
// tests keep it so: no emoji anywhere in the app's sources (web/, the shell, the extension), every icon named
// is on the list that scripts/vendor.mjs vendors, and every name on it is a Lucide icon.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync, readdirSync, statSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join, relative } from 'node:path';
import { WEB, webModules } from '../fixtures/web-modules.mjs';
import { ICON_NAMES } from '../../web/ui/icon-names.js';
import { loadBuiltinPanels } from '../../web/app/panels.js';
import { PANEL_NAV } from '../../web/app/panel-nav.js';
import { iconsModule } from '../../scripts/vendor.mjs';

/** A pictograph (what a colour emoji font draws) or the selector that asks for the emoji form. */
const PICTOGRAPH = /\p{Extended_Pictographic}|\u{FE0F}/u;

/**
 * Where a source uses an emoji pictograph: "file:line: the character".
 * @param {{path: string, source: string}[]} files
 */
export function emojiUses(files) {
  return files.flatMap(({ path, source }) =>
    source.split('\n').flatMap((line, i) => {
      const m = PICTOGRAPH.exec(line);
      return m ? [`${path}:${i + 1}: ${m[0]}`] : [];
    }),
  );
}

/**
 * The icon names a source draws: the string literals of each `icon(…)` call and each `icon: '…'`
 * property (a panel entry, a navigation item).
 * @param {string} source
 */
export function iconNamesIn(source) {
  /** @type {string[]} */
  const names = [];
  for (const m of source.matchAll(/\bicon\(([^()]*(?:\([^()]*\))?[^()]*)\)/g)) {
    for (const s of m[1].matchAll(/'([^']*)'/g)) if (!/^(?:icon|rail-icon|settings-icon|file-icon)$/.test(s[1])) names.push(s[1]);
  }
  for (const m of source.matchAll(/\bicon: '([^']*)'/g)) names.push(m[1]);
  return names;
}

/** The UI's modules and stylesheet, the panel registry and its entry files, the first view's navigation. */
const sources = () =>
  webModules()
    .filter((p) => {
      const rel = relative(WEB, p);
      return rel.startsWith('ui/') || rel.startsWith('app/panels') || rel === 'app/panel-nav.js';
    })
    .concat(join(WEB, 'ui/styles.css'))
    .map((path) => ({ path: relative(WEB, path), source: readFileSync(path, 'utf8') }));

test('no emoji pictograph is used in the UI or the panel registry (control: the check catches one)', () => {
  const files = sources();
  assert.ok(files.some((f) => f.path === 'ui/workspace-view.js') && files.some((f) => f.path === 'app/panels/files.js'), 'control: read');
  assert.deepEqual(emojiUses(files), []);
  // Control: an emoji drawn as a rail icon, a button's glyph or a badge, each is caught; a text mark (✓) is not.
  const bad = emojiUses([
    { path: 'ui/x-panel.js', source: "h('span', { 'aria-hidden': 'true' }, '📁'),\nh('button', null, '⚙')\nconst ok = '✓';" },
    { path: 'app/panels/x.js', source: "  icon: '🖥️',\n" },
  ]);
  assert.deepEqual(bad, ['ui/x-panel.js:1: 📁', 'ui/x-panel.js:2: ⚙', 'app/panels/x.js:1: 🖥']);
});

/** The repository's root: the shell, the service worker and the extension sit beside web/. */
const ROOT = join(WEB, '..');

/**
 * What the whole-app scan leaves out, each with its reason. Nothing else under web/ is exempt.
 * @type {Record<string, string>}
 */
export const EMOJI_EXEMPT = {
  'web/vendor': 'generated copies of third-party packages, not our UI (their own glyphs are theirs)',
  'web/safety/injection-weights.json': "the learned injection detector's weights: emoji are features of attacks, data not icons",
  'web/safety/disguises.js': 'documents the emoji legends ("🤫 = ignore") and letter swaps (a↔z) that disguised injections use',
};

/** Text sources (binary files such as the extension's icon.png are not read). */
const TEXT = new Set(['.js', '.mjs', '.css', '.html', '.json', '.md', '.txt', '.ts', '.webmanifest']);

/** @param {string} dir a path from the root @returns {string[]} */
function textFiles(dir) {
  if (dir in EMOJI_EXEMPT) return [];
  const abs = join(ROOT, dir);
  if (!statSync(abs).isDirectory()) return TEXT.has(extname(dir)) ? [dir] : [];
  return readdirSync(abs).flatMap((name) => textFiles(`${dir}/${name}`));
}

/** Every text file of web/ (but the exemptions), the shell, the service worker, the manifest and the extension. */
const everySource = () =>
  ['web', 'index.html', 'sw.js', 'manifest.webmanifest', 'extension']
    .flatMap(textFiles)
    .map((path) => ({ path, source: readFileSync(join(ROOT, path), 'utf8') }));

test('no emoji anywhere in the app: all of web/ (each exemption with its reason), the shell, the service worker, the manifest and \
the extension (control: every place is read, and an emoji in web/tools is caught)', () => {
  const files = everySource();
  for (const must of ['web/tools/registry.js', 'web/ui/artifact-frame.html', 'index.html', 'sw.js', 'manifest.webmanifest']) {
    assert.ok(
      files.some((f) => f.path === must),
      `control: ${must} is read`,
    );
  }
  assert.ok(
    files.some((f) => f.path.startsWith('extension/') && f.path.endsWith('.js')),
    'control: the extension is read',
  );
  assert.ok(files.some((f) => f.path.startsWith('web/packages/')) && !files.some((f) => f.path.startsWith('web/vendor/')));
  for (const exempt of Object.keys(EMOJI_EXEMPT)) {
    assert.ok(existsSync(join(ROOT, exempt)), `the exemption ${exempt} still exists (drop it if not)`);
    assert.ok(!files.some((f) => f.path === exempt || f.path.startsWith(`${exempt}/`)), `${exempt} is left out`);
  }
  assert.deepEqual(emojiUses(files), []);
  // Control: an emoji in a tool's output is caught like one in the UI.
  assert.deepEqual(emojiUses([{ path: 'web/tools/x.js', source: "return { output: '✅ done' };" }]), ['web/tools/x.js:1: ✅']);
});

test('every icon the UI and the navigation name is on the vendored list; every name on it is a Lucide icon', async () => {
  const lucide = JSON.parse(readFileSync(new URL('../../node_modules/lucide-static/icon-nodes.json', import.meta.url), 'utf8'));
  assert.deepEqual(
    ICON_NAMES.filter((n) => !lucide[n]),
    [],
  );
  assert.equal(new Set(ICON_NAMES).size, ICON_NAMES.length, 'no name twice');
  const used = new Set([
    ...(await loadBuiltinPanels()).map((p) => p.icon),
    ...PANEL_NAV.map((p) => p.icon),
    ...sources().flatMap((f) => iconNamesIn(f.source)),
    ...['app/app.js', 'app/workspace-first-view.js'].flatMap((f) => iconNamesIn(readFileSync(join(WEB, f), 'utf8'))),
  ]);
  assert.ok(used.has('folder') && used.has('messages-square') && used.has('panel-left-open'), `control: found ${[...used]}`);
  assert.deepEqual(
    [...used].filter((n) => !ICON_NAMES.includes(n)),
    [],
    'add the icon to web/ui/icon-names.js (and run node scripts/vendor.mjs)',
  );
  // Control of the extraction: a name off the list is found.
  assert.deepEqual(iconNamesIn("icon(open ? 'chevron-down' : 'nope', 'file-icon')\n  icon: 'rocket',"), ['chevron-down', 'nope', 'rocket']);
});

test('the vendored icon module holds exactly the listed icons, as Lucide draws them', async () => {
  const source = await iconsModule();
  const json = /export const ICONS = Object\.freeze\((.*)\);/.exec(source)?.[1];
  const icons = JSON.parse(json ?? '{}');
  assert.deepEqual(Object.keys(icons), [...ICON_NAMES]);
  assert.ok(icons.folder.every((/** @type {[string, object]} */ [tag]) => ['path', 'circle', 'rect', 'line', 'polyline'].includes(tag)));
  assert.match(source, /ISC/, 'the licence is named');
  // The copy in web/vendor/ (when vendored) is current.
  const vendored = join(WEB, 'vendor/icons.js');
  if (existsSync(vendored)) {
    const { ICONS } = await import(String(new URL('../../web/vendor/icons.js', import.meta.url)));
    assert.deepEqual(Object.keys(ICONS), [...ICON_NAMES], 'run node scripts/vendor.mjs');
  }
  // A name Lucide lacks (renamed in an update) fails the vendoring loudly, naming it.
  const dir = await mkdtemp(join(tmpdir(), 'icons-'));
  try {
    const { folder } = icons;
    await writeFile(join(dir, 'icon-nodes.json'), JSON.stringify({ folder }));
    await assert.rejects(iconsModule(join(dir, 'icon-nodes.json')), /no icon named messages-square/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/** The app's and the agent's modules and the Markdown renderer: where conversation titles and placeholders are written. */
const titleSources = () =>
  webModules()
    .filter((p) => {
      const rel = relative(WEB, p);
      return rel.startsWith('app/') || rel.startsWith('agent/') || rel === 'safety/markdown.js';
    })
    .map((path) => ({ path: relative(WEB, path), source: readFileSync(path, 'utf8') }));

/** A title written with a mark in front: an emoji, or the "↳" arrow once used for sub-agents. */
const MARKED_TITLE = /\btitle\b\s*[:=]\s*[`'"](?:\p{Extended_Pictographic}|↳)/u;

test('no emoji in the app, the agent or the Markdown renderer (conversation titles, placeholders); no arrow mark in a title \
(control: the checks catch one)', () => {
  const files = titleSources();
  assert.ok(files.some((f) => f.path === 'app/job-runner.js') && files.some((f) => f.path === 'agent/coordination/delegation.js'), 'read');
  assert.deepEqual(emojiUses(files), []);
  const marked = files.flatMap(({ path, source }) =>
    source.split('\n').flatMap((line, i) => (MARKED_TITLE.test(line) ? [`${path}:${i + 1}`] : [])),
  );
  assert.deepEqual(marked, []);
  // Control: a job's title of old and a sub-agent's are caught; a title without a mark is not.
  assert.ok(MARKED_TITLE.test('  const title = `⏰ ${job.name}`;'));
  assert.ok(MARKED_TITLE.test('    const title = `↳ @${name}: task`;'));
  assert.ok(MARKED_TITLE.test("      title: '💓 Heartbeat',"));
  assert.ok(!MARKED_TITLE.test('  const title = job.name;'));
  assert.deepEqual(emojiUses([{ path: 'safety/markdown.js', source: '(_m, alt, url) => `[🖼 ${alt}](${url})`,' }]), [
    'safety/markdown.js:1: 🖼',
  ]);
});
