// The screenshots (issue 37 §4): the chat and every panel of the navigation are shot in both
// themes at 360, 1280 and 1920 px; docs/screenshots.md is the gallery of what is on disk (not a
// stale copy); every image README.md and the gallery show exists.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../fixtures/hand-written.mjs';
import { PANEL_NAV } from '../../web/app/panel-nav.js';
import { THEMES, WIDTHS, galleryMarkdown } from '../../scripts/screenshots-gallery.mjs';

const shots = new Set(readdirSync(join(ROOT, 'docs/screenshots')).filter((f) => f.endsWith('.png')));

/**
 * The images Markdown shows, as paths from the repository's root.
 * @param {string} text @param {string} dir the Markdown file's folder ('' or 'docs/')
 */
const imagesIn = (text, dir) => [...text.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map((m) => `${dir}${m[1]}`);
/** The images of the Markdown files that do not exist. @param {string[]} paths */
const missingOf = (paths) => paths.filter((p) => !existsSync(join(ROOT, p)));

test('the chat and every panel of the navigation are shot in light and dark at 360, 1280 and 1920 px', () => {
  const missing = ['chat', 'attach', 'artifact', ...PANEL_NAV.map((p) => p.name)].flatMap((name) =>
    THEMES.flatMap((theme) => WIDTHS.map((w) => `${name}-${theme}-${w}.png`)).filter((f) => !shots.has(f)),
  );
  assert.deepEqual(missing, []);
});

test('docs/screenshots.md is the gallery of the shots on disk (control: one shot fewer changes it)', () => {
  const text = readFileSync(join(ROOT, 'docs/screenshots.md'), 'utf8');
  assert.equal(text, galleryMarkdown(shots), 'stale: run node scripts/screenshots-gallery.mjs');
  const fewer = new Set([...shots].filter((f) => f !== 'git-dark-1920.png'));
  assert.notEqual(galleryMarkdown(fewer), text, 'control: the gallery follows the files');
});

test('every image README.md and docs/screenshots.md show exists (control: a made-up one is reported)', () => {
  const images = [
    ...imagesIn(readFileSync(join(ROOT, 'README.md'), 'utf8'), ''),
    ...imagesIn(readFileSync(join(ROOT, 'docs/screenshots.md'), 'utf8'), 'docs/'),
  ];
  assert.ok(images.length > 90, `only ${images.length} images found`);
  assert.deepEqual(missingOf(images), []);
  const planted = imagesIn('| ![Chat](screenshots/chat-light-1280.png) | ![Gone](screenshots/gone-light-1280.png) |', 'docs/');
  assert.deepEqual(missingOf(planted), ['docs/screenshots/gone-light-1280.png'], 'control');
});
