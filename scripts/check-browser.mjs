// Runs before the browser tests: finds Chromium, starts it once and opens a page. A missing or
// broken browser fails here, fast, with one message — not in every test file.
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium, launchFailureMessage } from './chromium.mjs';

try {
  const { path, source } = await findChromium();
  let browser;
  try {
    browser = await chromium.launch({ executablePath: path, headless: true, args: CHROMIUM_ARGS, timeout: 60_000 });
    const page = await browser.newPage();
    await page.setContent('<p>ok</p>');
    const version = browser.version();
    console.log(
      `Browser tests use Chromium ${version} ` +
        `(${
          source === 'provided'
            ? 'provided by npm: @sparticuz/chromium'
            : source === 'system'
              ? `the system's, ${path}`
              : `CHROME_PAT` + `H=${path}`
        }).`,
    );
  } catch (err) {
    throw new Error(launchFailureMessage({ source, path }, err));
  } finally {
    await browser?.close();
  }
} catch (err) {
  console.error(`Browser tests cannot run: ${/** @type {Error} */ (err).message}`);
  process.exit(1);
}
