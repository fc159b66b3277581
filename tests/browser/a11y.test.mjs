// Accessibility (issue 13): axe-core (a dev dependency, injected by the test only) finds no
// serious or critical violation on any panel, dialog or chat state, in light and dark, at 360 px
// and 1280 px. The scan is checked first against a planted violation, so an empty result means
// the page passed, not that the scan did not run.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { launchBrowser, startApp, openWorkspace, sendMessage } from './helpers.mjs';

const axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** @type {Awaited<ReturnType<typeof startApp>>} */ let app;
/** @type {Awaited<ReturnType<typeof launchBrowser>>} */ let browser;
/** @type {import('playwright-core').Page} */ let page;

before(async () => {
  app = await startApp();
  browser = await launchBrowser();
  page = await openWorkspace(browser.context, app.url, { provider: 'echo' });
});
after(async () => {
  await browser?.close();
  await app?.close();
});

/**
 * The serious and critical violations on the page as it is now (a modal dialog limits the scan
 * to itself, as it does for assistive tech).
 * @returns {Promise<string[]>}
 */
async function violations() {
  await page.evaluate(axeSource); // evaluated over CDP: the app's CSP does not apply
  return page.evaluate(async () => {
    const axe = /** @type {any} */ (window).axe; // any: axe-core's global, injected above
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations
      .filter((/** @type {any} */ v) => v.impact === 'serious' || v.impact === 'critical')
      .flatMap((/** @type {any} */ v) => v.nodes.map((/** @type {any} */ n) => `${v.id} (${v.impact}): ${n.target.join(' ')} — ${v.help}`));
  });
}

/**
 * Visible selects whose chosen option's text does not fit (measured in the select's font, plus
 * its padding and the arrow): a select cannot wrap, so a long option is cut on a phone.
 * @returns {Promise<string[]>}
 */
function cutSelects() {
  return page.evaluate(() => {
    const ctx = /** @type {CanvasRenderingContext2D} */ (document.createElement('canvas').getContext('2d'));
    return [...document.querySelectorAll('select')].filter((s) => s.offsetParent && s.getClientRects().length).flatMap((s) => {
      const cs = getComputedStyle(s);
      ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
      const text = s.selectedOptions[0]?.textContent ?? '';
      const need = ctx.measureText(text).width + parseFloat(cs.paddingLeft) + parseFloat(cs.paddingRight) + 16;
      return need > s.clientWidth ? [`select "${s.getAttribute('aria-label') ?? s.id}" cuts "${text}" (${Math.round(need)} > ${s.clientWidth} px)`] : [];
    });
  });
}

/** Each panel with its shortcut key. */
const PANELS = [['1', 'Files'], ['2', 'Git'], ['3', 'Memory'], ['4', 'Goals'], ['5', 'Schedule'], ['6', 'Tools'], ['7', 'Events'], ['8', 'Dashboard'], ['9', 'Config'], ['KeyS', 'Skills'], ['KeyM', 'Servers'], ['KeyT', 'Terminal'], ['KeyA', 'Agents']];

/** @type {string[]} */
const found = [];
/** @param {string} state */
async function scan(state) {
  for (const v of [...await violations(), ...await cutSelects()]) found.push(`${state}: ${v}`);
}

test('the scan reports a planted violation (control)', async () => {
  await page.evaluate(() => {
    const b = document.createElement('button');
    b.id = 'planted';
    document.querySelector('main')?.append(b);
  });
  const v = await violations();
  assert.ok(v.some((x) => x.startsWith('button-name (critical): #planted')), JSON.stringify(v));
  await page.evaluate(() => document.getElementById('planted')?.remove());
});

test('no serious or critical violation on any panel, dialog or chat state, light and dark, 360 px and 1280 px', async () => {
  // A conversation with a reply, a tool card (approved) and a stopped reply's actions.
  await sendMessage(page, 'hello **there**, a list:\n\n- one\n- two');
  await page.locator('.msg.assistant:not(.streaming)').waitFor();
  await sendMessage(page, '```js\nreturn 1 + 1;\n```');
  const approval = page.getByRole('dialog', { name: /Allow “run_js”/ });
  await approval.waitFor();
  await scan('approval dialog');
  await approval.getByRole('button', { name: 'Allow once' }).click();
  await page.locator('.tool-card').first().waitFor();
  await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'hidden' });

  for (const scheme of /** @type {const} */ (['light', 'dark'])) {
    await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
    for (const [width, height] of [[1280, 800], [360, 780]]) {
      const where = `${scheme} ${width}px`;
      await page.setViewportSize({ width, height });
      await page.keyboard.press('Alt+0');
      await page.getByRole('textbox', { name: 'Message' }).waitFor();
      await scan(`${where} chat`);
      for (const [key, name] of PANELS) {
        await page.keyboard.press(`Alt+${key}`);
        // The panel's own heading (the previous panel's would match a looser wait).
        await page.getByRole('heading', { name, exact: true }).waitFor();
        await page.waitForURL(new RegExp(`/${name.toLowerCase()}$`));
        await page.waitForLoadState('networkidle');
        await scan(`${where} ${name}`);
      }
      await page.keyboard.press('Alt+0');
      await page.getByRole('textbox', { name: 'Message' }).waitFor();
      if (width === 360) {
        await page.getByRole('button', { name: 'Menu' }).click();
        await page.getByRole('navigation', { name: 'Workspace panels' }).waitFor();
        await scan(`${where} menu drawer`);
        await page.keyboard.press('Escape');
        await page.getByRole('button', { name: 'Conversations' }).click();
        await page.getByRole('searchbox', { name: 'Search conversations' }).waitFor();
        await scan(`${where} conversations drawer`);
        await page.keyboard.press('Escape');
      }
      await page.keyboard.press('Control+k');
      await page.getByRole('dialog', { name: 'Command palette' }).waitFor();
      await scan(`${where} command palette`);
      await page.keyboard.press('Escape');
      await page.evaluate(() => /** @type {HTMLElement | null} */ (document.activeElement)?.blur());
      await page.keyboard.press('?');
      await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
      await scan(`${where} shortcuts`);
      await page.keyboard.press('Escape');
      await page.getByRole('button', { name: 'Settings', exact: true }).click();
      await page.getByRole('dialog', { name: /Settings/ }).waitFor();
      await scan(`${where} settings`);
      await page.keyboard.press('Escape');
      await page.getByRole('dialog', { name: /Settings/ }).waitFor({ state: 'detached' });
    }
  }
  // The chat beside Files; the Config panel with problems, and its confirmation dialog.
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.keyboard.press('Alt+1');
  await page.getByRole('button', { name: 'Chat beside this panel' }).click();
  await page.getByRole('separator', { name: 'Resize the chat and Files' }).waitFor();
  await scan('split view');
  await page.getByRole('button', { name: 'Chat beside this panel' }).click();
  await page.getByRole('separator', { name: 'Resize the chat and Files' }).waitFor({ state: 'detached' });
  await page.keyboard.press('Alt+9');
  const editor = page.getByRole('textbox', { name: 'Configuration (JSON)' });
  const doc = JSON.parse(await editor.inputValue());
  await editor.fill(JSON.stringify({ ...doc, agent: { ...doc.agent, maxIterations: 0 } }, null, 2));
  await page.getByText(/1 problem: nothing is saved/).waitFor();
  await scan('config with a problem');
  await editor.fill(JSON.stringify({ ...doc, agent: { ...doc.agent, safetyEnabled: false } }, null, 2));
  await page.getByRole('button', { name: 'Save configuration' }).click();
  await page.getByRole('dialog', { name: 'Loosen protections?' }).waitFor();
  await scan('confirmation dialog');
  await page.getByRole('dialog', { name: 'Loosen protections?' }).getByRole('button', { name: 'Cancel' }).click();
  // The home view and its dialog.
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${app.url}#`);
  await page.getByRole('button', { name: 'New workspace' }).waitFor();
  await scan('home');
  await page.getByRole('button', { name: 'New workspace' }).click();
  await page.getByRole('dialog').waitFor();
  await scan('new workspace dialog');
  await page.keyboard.press('Escape');
  assert.deepEqual(found, []);
});
