// A new panel is one file plus one line (issue 33, CONTRIBUTING.md "A panel"): a copy of the app
// gets the probe panel's entry file (tests/fixtures/probe-panel.mjs as web/app/panels/probe.js)
// and one line in web/app/panels.js, and the scripts one runs after adding a file; nothing else.
// The panel then shows in the navigation (and in the first view's copy of it), has its route
// #workspace/{id}/probe, answers its shortcut, shows beside the chat, and opens with the general
// context: the workspace's services, settings and conversations, back(), openPanel(), showError().
// Control: the same file without the line is no panel at all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { appRoot } from '../../scripts/static-server.mjs';
import { writePanelNav } from '../../scripts/panel-nav.mjs';
import { useFixture, openFixture } from './fixture.mjs';

/** The registry's line for the probe panel: the last of the navigation. */
const LINE = "  () => import('./panels/probe.js'),";

/**
 * Gives a fixture's private copy of the app the probe panel's entry file; `register`: and its line
 * in the registry. Then the navigation's copy for the first view is written, as
 * `node scripts/index-html.mjs` does.
 * @param {import('./fixture.mjs').Fixture} fx a fixture started with `app: {copy: true}`
 * @param {{register: boolean}} options
 */
async function addProbe(fx, { register }) {
  const dir = fx.appDir;
  await cp(join(appRoot, 'tests/fixtures/probe-panel.mjs'), join(dir, 'web/app/panels/probe.js'));
  const registryPath = join(dir, 'web/app/panels.js');
  const registry = await readFile(registryPath, 'utf8');
  const lines = registry.split('\n');
  const last = lines.findLastIndex((l) => /^ {2}\(\) => import\('\.\/panels\/[a-z0-9-]+\.js'\),$/.test(l));
  assert.ok(last > 0, 'the registry lists its panels one line each');
  if (register) {
    lines.splice(last + 1, 0, LINE);
    await writeFile(registryPath, lines.join('\n'));
  }
  await writePanelNav(dir);
  return {
    url: fx.url,
    /** The copy's registry (the line added). */
    registry: () => readFile(registryPath, 'utf8'),
  };
}

const fx = await useFixture({ app: { copy: true }, browser: { viewport: { width: 1400, height: 850 } } });
const site = await addProbe(fx, { register: true });
const page = await fx.openWorkspace({ provider: 'echo' });

const rail = () => page.getByRole('navigation', { name: 'Workspace panels' });
const probe = () => page.getByRole('heading', { name: 'Probe', exact: true });
const fact = (/** @type {string} */ name) => page.locator(`[data-fact="${name}"]`);
const workspaceId = () => /** @type {string} */ (/#workspace\/([^/]+)/.exec(page.url())?.[1]);

test('one file and one line: the panel is in the navigation with its shortcut, has its route, and answers the shortcut', async () => {
  // Exactly one line was added to the registry.
  const before = (await readFile(join(appRoot, 'web/app/panels.js'), 'utf8')).split('\n');
  const after = (await site.registry()).split('\n');
  assert.equal(after.length, before.length + 1);
  assert.deepEqual(
    after.filter((l) => l !== LINE),
    before,
  );
  // The first view's copy of the navigation has it too (the first view draws the rail before the app loads).
  const lastNav = await page.evaluate(() => import('/web/app/panel-nav.js').then((m) => m.PANEL_NAV.at(-1)));
  assert.deepEqual(lastNav, { name: 'probe', label: 'Probe', icon: 'search', shortcut: 'Alt+Q', split: true });

  const button = rail().getByRole('button', { name: 'Probe', exact: true });
  assert.equal(await button.getAttribute('aria-keyshortcuts'), 'Alt+Q');
  await button.click();
  await probe().waitFor();
  assert.match(page.url(), new RegExp(`#workspace/${workspaceId()}/probe$`));
  assert.equal(await button.getAttribute('aria-current'), 'page');
  // Its route opens it directly (a reload).
  await page.reload();
  await probe().waitFor();
  // Its shortcut, from the chat; and the chat's (Alt+0) back.
  await page.keyboard.press('Alt+0');
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  await page.keyboard.press('Alt+q');
  await probe().waitFor();
  assert.match(page.url(), /\/probe$/);
  // The "?" list of shortcuts names it.
  await probe().click();
  await page.keyboard.press('?');
  const shortcuts = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await shortcuts.getByText('Open Probe').waitFor();
  await page.keyboard.press('Escape');
  await shortcuts.waitFor({ state: 'detached' });
});

test("it opens with the general context: the workspace's services, settings, conversations, preferences, ways back", async () => {
  await page.goto(`${site.url}#workspace/${workspaceId()}/probe`);
  await probe().waitFor();
  assert.equal(await fact('workspace').innerText(), workspaceId());
  assert.equal(await fact('autonomy').innerText(), 'supervised');
  assert.equal(await fact('provider').innerText(), 'echo');
  assert.equal(await fact('tools').innerText(), 'true');
  assert.equal(await fact('memories').innerText(), '0');
  assert.equal(await fact('agents').innerText(), 'true');
  assert.equal(await fact('workspaces').innerText(), 'My workspace');
  const opened = Number(await fact('opened').innerText());
  assert.ok(opened >= 1);
  // The conversations are the chat's.
  await page.getByRole('button', { name: 'Back to chat' }).click();
  await page.getByRole('textbox', { name: 'Message' }).fill('hello probe');
  await page.keyboard.press('Enter');
  await page.getByText('Echo: hello probe').waitFor();
  await page.keyboard.press('Alt+q');
  await probe().waitFor();
  const listed = await page.getByRole('navigation', { name: 'Conversations' }).getByRole('link').count();
  assert.ok(listed >= 1);
  assert.equal(await fact('conversations').innerText(), String(listed));
  // A preference it set is kept (the next opening counts on).
  assert.equal(Number(await fact('opened').innerText()), opened + 1);
  // Its view is destroyed when it is left.
  const destroyed = await page.evaluate(() => /** @type {any} */ (globalThis).probeDestroyed ?? 0); // any: the probe's mark
  await page.getByRole('button', { name: 'Open Files' }).click();
  await page.getByRole('heading', { name: 'Files', exact: true }).waitFor();
  assert.match(page.url(), /\/files$/);
  assert.equal(await page.evaluate(() => /** @type {any} */ (globalThis).probeDestroyed), destroyed + 1); // any: the probe's mark
  // Its errors show as the app's.
  await page.keyboard.press('Alt+q');
  await page.getByRole('button', { name: 'Show an error' }).click();
  await page.getByRole('alert').filter({ hasText: 'The probe says something went wrong.' }).waitFor();
});

test('split: true puts it beside the chat on a wide screen', async () => {
  await page.goto(`${site.url}#workspace/${workspaceId()}/probe`);
  await probe().waitFor();
  const toggle = page.getByRole('button', { name: 'Chat beside this panel' });
  assert.equal(await toggle.getAttribute('aria-pressed'), 'false');
  await toggle.click();
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  await probe().waitFor();
  await page.getByRole('separator', { name: 'Resize the chat and Probe' }).waitFor();
  await page.getByRole('button', { name: 'Chat beside this panel' }).click();
  await page.getByRole('textbox', { name: 'Message' }).waitFor({ state: 'detached' });
});

test('control: the same file without its line in the registry is no panel', async (t) => {
  const other = await openFixture({ app: { copy: true } }, t);
  const bare = await addProbe(other, { register: false });
  const p = await other.openWorkspace({ provider: 'echo' });
  const nav = p.getByRole('navigation', { name: 'Workspace panels' });
  await nav.getByRole('button', { name: 'Config', exact: true }).waitFor();
  assert.equal(await nav.getByRole('button', { name: 'Probe', exact: true }).count(), 0);
  assert.equal(await p.evaluate(() => import('/web/app/panel-nav.js').then((m) => m.PANEL_NAV.some((n) => n.name === 'probe'))), false);
  const id = /** @type {string} */ (/#workspace\/([^/]+)/.exec(p.url())?.[1]);
  // Its route is the chat's; its shortcut does nothing.
  await p.goto(`${bare.url}#workspace/${id}/probe`);
  await p.getByRole('textbox', { name: 'Message' }).waitFor();
  await p.keyboard.press('Alt+q');
  await p.getByRole('textbox', { name: 'Message' }).waitFor();
  assert.equal(await p.getByRole('heading', { name: 'Probe', exact: true }).count(), 0);
  // Control of the control: a registered panel opens on this copy.
  await p.keyboard.press('Alt+1');
  await p.getByRole('heading', { name: 'Files', exact: true }).waitFor();
});
