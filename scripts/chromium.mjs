// Which Chromium the browser tests, benchmarks and screenshots drive. In order of preference:
// CHROME_PATH, the system's (Debian's `chromium`, or Chrome), and else the build shipped inside
// the `@sparticuz/chromium` npm package (a dev dependency, so `npm install` provides a browser on
// a machine that has none; it is unpacked to the temp folder on first use, never downloaded).
// CLAWSER_BROWSER=provided skips the first two (CI runs a smoke subset that way).
import { existsSync } from 'node:fs';

/**
 * Flags for every launch: no sandbox (root in CI), no background traffic to Google (this
 * machine's closed network refuses it, many connections at a time), no GPU, no QUIC.
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-gpu',
  '--disable-quic',
];

/** Where system browsers live on Debian and most Linux distributions. */
const SYSTEM_PATHS = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

/** The browser could not be found or started: one message that says what to do. */
export class BrowserUnavailableError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'BrowserUnavailableError';
    this.code = 'browser_unavailable';
  }
}

/** @typedef {{path: string, source: 'CHROME_PATH' | 'system' | 'provided'}} ChromiumChoice */

/**
 * Why a launch failed, in one line that says what to do. Playwright's error starts with a
 * generic line ("Target page, context or browser has been closed"); the cause, when the binary
 * could not even load, is in the browser's own log further down: a missing shared library (the
 * npm-provided build on a system without Chromium's libraries) is named, with its fixes.
 * @param {ChromiumChoice} choice @param {unknown} err
 */
export function launchFailureMessage({ source, path }, err) {
  const text = String(/** @type {Error} */ (err)?.message ?? err);
  const missing = /error while loading shared libraries: ([^\s:]+)/.exec(text)?.[1];
  if (missing)
    return (
      `Chromium (${source}: ${path}) did not start: it needs the shared library ${missing}, which this system does not have. ` +
      `Install the system's Chromium (Debian: \`apt-get install -y chromium\`, which brings its libraries), install the package that ` +
      `provides ${missing}, or set CHROME_PATH to a browser that runs here.`
    );
  const first = text.split('\n').find((l) => l.trim()) ?? 'unknown error';
  return (
    `Chromium (${source}: ${path}) did not start: ${first}. Install Chromium (Debian: \`apt-get install -y chromium\`), set ` +
    `CHROME_PATH, or reinstall with \`npm install\`.`
  );
}

/** @type {Promise<ChromiumChoice> | null} */
let choice = null;

/**
 * The Chromium to use (memoized per process).
 * @returns {Promise<ChromiumChoice>}
 */
export function findChromium() {
  choice ??= locate();
  return choice;
}

/** @returns {Promise<ChromiumChoice>} */
async function locate() {
  const forced = process.env.CLAWSER_BROWSER;
  if (forced && forced !== 'provided' && forced !== 'auto')
    throw new BrowserUnavailableError(`CLAWSER_BROWSER is "${forced}"; use "provided" (the npm-provided build) or leave it unset.`);
  if (forced !== 'provided') {
    const env = process.env.CHROME_PATH;
    if (env) {
      if (!existsSync(env))
        throw new BrowserUnavailableError(
          `CHROME_PATH is set to ${env}, which does not exist. Point it at a Chrome/Chromium binary or unset it.`,
        );
      return { path: env, source: 'CHROME_PATH' };
    }
    for (const p of SYSTEM_PATHS) if (existsSync(p)) return { path: p, source: 'system' };
  }
  /** @type {{executablePath(): Promise<string>}} */
  let provided;
  try {
    provided = (await import('@sparticuz/chromium')).default;
  } catch {
    throw new BrowserUnavailableError(
      'No Chromium for the browser tests: none on the system, no CHROME_PATH, and the npm-provided one (@sparticuz/chromium) is ' +
        'not installed. Run `npm install`, install Chromium (Debian: `apt-get install -y chromium`) or set CHROME_PATH.',
    );
  }
  try {
    return { path: await provided.executablePath(), source: 'provided' };
  } catch (err) {
    throw new BrowserUnavailableError(
      `The npm-provided Chromium (@sparticuz/chromium) could not be unpacked: ${/** @type {Error} */ (err).message}. Reinstall it with ` +
        `\`npm install\`, or install Chromium (Debian: \`apt-get install -y chromium\`) or set CHROME_PATH.`,
    );
  }
}
