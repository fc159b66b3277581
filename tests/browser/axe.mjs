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

/** The themes and the widths a surface is scanned in: a laptop and a phone. */
const SCHEMES = /** @type {const} */ (['light', 'dark']);
const WIDTHS = [1280, 360];

/**
 * `seriousViolations` in both themes at 1280 and 360 px wide, each line prefixed with where it was
 * found ("dark 360px: …"); the page is left in the light theme at its size before. `shown`, when
 * given, must be visible in each look (so the state scanned is the one meant, e.g. a list still open).
 * @param {import('playwright-core').Page} page @param {string} selector
 * @param {import('playwright-core').Locator} [shown]
 * @returns {Promise<string[]>}
 */
export async function seriousViolationsEach(page, selector, shown) {
  const size = page.viewportSize() ?? { width: 1280, height: 800 };
  /** @type {string[]} */
  const found = [];
  try {
    for (const colorScheme of SCHEMES) {
      for (const width of WIDTHS) {
        await page.emulateMedia({ colorScheme });
        await page.setViewportSize({ width, height: size.height });
        if (shown && !(await shown.isVisible())) throw new Error(`${colorScheme} ${width}px: what is scanned is not shown`);
        for (const v of await seriousViolations(page, selector)) found.push(`${colorScheme} ${width}px: ${v}`);
      }
    }
  } finally {
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize(size);
  }
  return found;
}
