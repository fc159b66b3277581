// Keeps the generated parts of index.html current: the import map (with its CSP hash),
// modulepreload links for the first view's static import graph, the list of the app's other
// modules (main.js preloads them after painting the first view) and the list of what the app
// loads with import() once a workspace opens (main.js preloads it after the home screen is
// ready, or at once on a workspace's route), so the browser fetches them in parallel instead
// of discovering them level by level.
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const indexPath = join(root, 'index.html');

/**
 * Files reachable from the entry through static imports (dynamic import() is left out:
 * those load on demand). Bare specifiers resolve through the import map.
 * @param {Record<string, string>} imports
 * @param {string} entry
 */
export async function staticGraph(imports, entry = 'web/app/main.js') {
  /** @type {Set<string>} */
  const seen = new Set();
  /** @param {string} rel */
  const visit = async (rel) => {
    if (seen.has(rel)) return;
    seen.add(rel);
    const src = await readFile(join(root, rel), 'utf8');
    const specifiers = [...src.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]/gm)].map(
      (m) => m[1] ?? m[2],
    );
    for (const spec of specifiers) {
      let target;
      if (spec.startsWith('.'))
        target = relative(root, resolve(dirname(join(root, rel)), spec))
          .split(sep)
          .join('/');
      else if (imports[spec]) target = imports[spec].replace(/^\.\//, '');
      else continue;
      if (target.startsWith('web/vendor/')) seen.add(target);
      else await visit(target);
    }
  };
  await visit(entry);
  return [...seen].sort();
}

/**
 * What app.js loads with import() when first needed, not on the home screen's path to app-ready:
 * the workspace's machinery (web/app/workspace-machinery.js) and the settings dialog (settings-flow.js).
 */
export const LAZY_ENTRIES = ['web/app/workspace-machinery.js', 'web/ui/settings-dialog.js'];

/** @param {Record<string, string>} imports */
export async function renderIndexHtml(imports) {
  const html = await readFile(indexPath, 'utf8');
  const json = JSON.stringify({ imports }, null, 2);
  const hash = createHash('sha256').update(json).digest('base64');
  const mapBlock = `<script type="importmap">${json}</script>`;
  // The first view's modules are preloaded by the page; the app's are listed for main.js, which
  // preloads them once the first view is painted (asked for together, they slowed it twofold).
  const first = await staticGraph(imports);
  const rest = (await staticGraph(imports, 'web/app/app.js')).filter((f) => !first.includes(f));
  /** @type {Set<string>} */
  const lazy = new Set();
  for (const entry of LAZY_ENTRIES) for (const f of await staticGraph(imports, entry)) lazy.add(f);
  const later = [...lazy].filter((f) => !first.includes(f) && !rest.includes(f)).sort();
  // Opened on a workspace's chat, route-preload.js preloads these and paints it (web/app/workspace-first-view.js).
  const workspace = (await staticGraph(imports, 'web/app/workspace-first-view.js')).filter((f) => !first.includes(f));
  const preloads = first.map((f) => `  <link rel="modulepreload" href="./${f}">`).join('\n');
  /** @param {string} id @param {string[]} files */
  const block = (id, files) =>
    `<script type="application/json" id="${id}">${JSON.stringify(
      files.map((f) => `./${f}`),
      null,
      2,
    )}</script>`;
  const appModules = [block('workspace-view-modules', workspace), block('app-modules', rest), block('workspace-modules', later)].join(
    '\n  ',
  );
  let next = html.replace(/<script type="importmap">[\s\S]*?<\/script>/, mapBlock);
  next = next.replace(/'sha256-[A-Za-z0-9+/=]+'/, `'sha256-${hash}'`);
  next = next.replace(
    /<!-- modulepreload:start -->[\s\S]*?<!-- modulepreload:end -->/,
    `<!-- modulepreload:start -->\n${preloads}\n  ${appModules}\n  <!-- modulepreload:end -->`,
  );
  if (!next.includes(mapBlock) || !next.includes(`'sha256-${hash}'`) || !next.includes(appModules)) {
    throw new Error('index.html lacks the import map, its CSP hash placeholder or the modulepreload markers');
  }
  return next;
}

/** The import map currently in index.html. */
export async function currentImports() {
  const html = await readFile(indexPath, 'utf8');
  return JSON.parse(/<script type="importmap">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '{}').imports ?? {};
}

/** @param {Record<string, string>} [imports] */
export async function writeIndexHtml(imports) {
  const next = await renderIndexHtml(imports ?? (await currentImports()));
  if (next !== (await readFile(indexPath, 'utf8'))) await writeFile(indexPath, next);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  // The first view's copy of the panel navigation too (a panel added or changed: scripts/panel-nav.mjs).
  await (await import('./panel-nav.mjs')).writePanelNav();
  await writeIndexHtml();
}
