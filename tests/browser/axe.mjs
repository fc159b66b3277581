// axe-core's serious and critical findings in part of a page, for the browser tests that check
// the surfaces they add (a11y.test.mjs scans every panel on its own terms).
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

const axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Serious or critical axe violations inside `selector`, one line per element ("id: target — help").
 * axe is injected over CDP, so the app's CSP does not apply.
 * @param {import('playwright-core').Page} page @param {string} selector
 * @returns {Promise<string[]>}
 */
export async function seriousViolations(page, selector) {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  return page.evaluate(async (sel) => {
    const axe = /** @type {any} */ (window).axe; // any: axe-core's global, injected above
    const r = await axe.run({ include: [[sel]] }, { resultTypes: ['violations'] });
    return r.violations
      .filter((/** @type {any} */ v) => v.impact === 'serious' || v.impact === 'critical')
      .flatMap((/** @type {any} */ v) => v.nodes.map((/** @type {any} */ n) => `${v.id}: ${n.target.join(' ')} — ${v.help}`));
  }, selector);
}
