#!/usr/bin/env node
// Writes docs/screenshots.md, the whole gallery of docs/screenshots/ (what scripts/screenshots.mjs
// shoots): one table per view, light and dark, at 360, 1280 and 1920 px. Run after the shots, or
// alone: node scripts/screenshots-gallery.mjs.
import { readdir, writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { PANEL_NAV } from '../web/app/panel-nav.js';

export const THEMES = /** @type {const} */ (['light', 'dark']);
export const WIDTHS = [360, 1280, 1920];

/** The views shot at every size, in the gallery's order, each with its title. */
export const VIEWS = [
  { name: 'chat', title: 'Chat: a reply with code, a tool turn' },
  ...PANEL_NAV.map((p) => ({ name: p.name, title: `${p.label} panel` })),
  { name: 'attach', title: 'Documents attached in the composer' },
  { name: 'artifact', title: 'An artifact (a CSV table and its chart) beside the chat' },
  { name: 'settings', title: 'Settings' },
  { name: 'palette', title: 'Command palette (Ctrl+K)' },
  { name: 'split', title: 'The chat beside Files' },
];

/** @param {string} name @param {string} theme @param {number} width */
export const shotPath = (name, theme, width) => `screenshots/${name}-${theme}-${width}.png`;

/** The gallery's Markdown, for the shots in `files` (names in docs/screenshots/). @param {Set<string>} files */
export function galleryMarkdown(files) {
  const lines = [
    '# Screenshots',
    '',
    'Every view of Clawser in the light and dark themes at 360 px (a phone), 1280 px and 1920 px, shot from the',
    'real app chatting with the scripted test server: `node scripts/screenshots.mjs` regenerates them and this page.',
    'The README shows a few of them.',
    '',
  ];
  for (const { name, title } of VIEWS) {
    const cells = THEMES.flatMap((theme) => WIDTHS.filter((w) => files.has(`${name}-${theme}-${w}.png`)).map((w) => ({ theme, w })));
    if (!cells.length) continue;
    lines.push(`## ${title}`, '', `| ${cells.map((c) => `${c.theme}, ${c.w} px`).join(' | ')} |`, `|${' --- |'.repeat(cells.length)}`);
    lines.push(`| ${cells.map((c) => `![${title}, ${c.theme}, ${c.w} px](${shotPath(name, c.theme, c.w)})`).join(' | ')} |`, '');
  }
  const once = [
    ['first-run-light-1280.png', 'The first run: a new workspace, no provider chosen yet'],
    ['approval-light-1280.png', 'Approving a tool call: what will run first'],
  ].filter(([f]) => files.has(f));
  if (once.length) {
    lines.push('## First run and approval', '', `| ${once.map(([, t]) => t).join(' | ')} |`, `|${' --- |'.repeat(once.length)}`);
    lines.push(`| ${once.map(([f, t]) => `![${t}](screenshots/${f})`).join(' | ')} |`, '');
  }
  return lines.join('\n');
}

/** Writes docs/screenshots.md from the shots in docs/screenshots/. */
export async function writeGallery() {
  const files = new Set((await readdir('docs/screenshots')).filter((f) => f.endsWith('.png')));
  await writeFile('docs/screenshots.md', galleryMarkdown(files));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await writeGallery();
