// Keeps web/app/panel-nav.js's PANEL_NAV current: the navigation facts (name, label, icon,
// shortcut, split) of the panels registered in web/app/panels.js, in their order, copied so the first
// view draws the navigation without loading the registry and its entry files. Run by
// `node scripts/index-html.mjs`; tests/unit/panels.test.mjs fails when the copy is stale.
/** @import { PanelNavEntry } from '../web/app/panel-nav.js' */
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const NAV_FILE = 'web/app/panel-nav.js';
const BLOCK = /( *\/\/ panel-nav:start[^\n]*\n)[\s\S]*?( *\/\/ panel-nav:end)/;

/** A string as the project writes it: single-quoted. @param {string} text */
const quoted = (text) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/**
 * panel-nav.js with PANEL_NAV written from the registry.
 * @param {string} [appRoot] the folder holding web/ (tests change copies of the app)
 * @param {readonly PanelNavEntry[]} [panels] the registry's panels (by default web/app/panels.js's, loaded)
 */
export async function renderPanelNav(appRoot = root, panels) {
  /** @type {readonly PanelNavEntry[]} */
  const registered = panels ?? (await (await import(pathToFileURL(join(appRoot, 'web/app/panels.js')).href)).loadBuiltinPanels());
  const source = await readFile(join(appRoot, NAV_FILE), 'utf8');
  if (!BLOCK.test(source)) throw new Error(`${NAV_FILE} lacks the panel-nav:start and panel-nav:end markers`);
  const lines = registered.map(
    (p) =>
      `  { name: ${quoted(p.name)}, label: ${quoted(p.label)}, icon: ${quoted(p.icon)}, ` +
      `shortcut: ${quoted(p.shortcut)}, split: ${p.split === true} },\n`,
  );
  return source.replace(BLOCK, (_, start, end) => `${start}${lines.join('')}${end}`);
}

/** @param {string} [appRoot] */
export async function writePanelNav(appRoot = root) {
  const next = await renderPanelNav(appRoot);
  if (next !== (await readFile(join(appRoot, NAV_FILE), 'utf8'))) await writeFile(join(appRoot, NAV_FILE), next);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await writePanelNav();
