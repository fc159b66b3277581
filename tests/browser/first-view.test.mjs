// The first view: opened on the home screen, the page shows the workspace list from a handful
// of modules, before the app's modules have loaded; the app adopts that view (the same elements,
// so focus stays) and runs what was used meanwhile. app.js is held back by the test to make the
// "before" observable (a first visit, so no service worker answers instead of the route).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useFixture } from './fixture.mjs';

// Each test starts a browser of its own.
const fx = await useFixture({ browser: false });
const { app } = fx;

/**
 * A page of a fresh context whose app.js is answered only when `release` is called, with two
 * workspaces already saved (as a previous visit leaves them), or none on a first visit.
 */
async function heldPage({ firstVisit = false } = {}) {
  // Its own profile (a first visit: no service worker answers instead of the route).
  const own = await fx.launchBrowser();
  const context = { close: () => own.close() };
  const page = await fx.newPage(own.context);
  if (!firstVisit) {
    // What a previous visit leaves: the list, a provider choice and each workspace's folder.
    await page.goto(`${app.url}manifest.webmanifest`);
    await page.evaluate(async () => {
      localStorage.setItem(
        'clawser_workspaces',
        JSON.stringify([
          { id: 'walpha', name: 'Alpha', createdAt: Date.now() - 86_400_000 },
          { id: 'wbeta', name: 'Beta', createdAt: Date.now() },
        ]),
      );
      localStorage.setItem('clawser_config_walpha', JSON.stringify({ provider: 'echo', model: '', baseUrl: '' }));
      const root = await (await navigator.storage.getDirectory()).getDirectoryHandle('clawser_workspaces', { create: true });
      for (const id of ['walpha', 'wbeta']) await root.getDirectoryHandle(id, { create: true });
    });
  }
  /** @type {() => void} */
  let release = () => {};
  const held = new Promise((resolve) => (release = () => resolve(undefined)));
  let asked = false;
  await page.route('**/web/app/app.js', async (route) => {
    asked = true;
    await held;
    await route.continue();
  });
  return { page, context, release, asked: () => asked };
}

test('opened on the home screen, the workspace list shows before app.js has loaded; \
a workspace opened meanwhile opens once the app is in', async () => {
  const { page, context, release, asked } = await heldPage();
  try {
    await page.goto(app.url);
    const alpha = page.getByRole('link', { name: /Alpha/ });
    await alpha.waitFor();
    // Painted without the app: app.js was asked for and is still held back.
    assert.equal(asked(), true);
    assert.equal(await page.evaluate(() => !!document.querySelector('.banners')), false, 'the app has not started');
    assert.match((await alpha.textContent()) ?? '', /Echo · test provider, no AI/);
    await page.getByRole('link', { name: /Beta/ }).waitFor();
    assert.equal(await page.evaluate(() => performance.getEntriesByName('clawser-interactive').length), 1);
    await alpha.click();
    assert.equal(new URL(page.url()).hash, '', 'nothing happens before the app is in');
    release();
    await page.waitForURL(/#workspace\/walpha/);
    await page.getByRole('heading', { name: 'Alpha', level: 1 }).waitFor();
    assert.equal(await page.evaluate(() => performance.getEntriesByName('clawser-interactive').length), 1, 'marked once');
  } finally {
    await context.close();
  }
});

test('the app adopts the painted home screen: the focused button keeps its focus and does its job', async () => {
  const { page, context, release } = await heldPage();
  try {
    await page.goto(app.url);
    const create = page.getByRole('button', { name: 'New workspace' });
    await create.focus();
    await page.evaluate(() => {
      // any: marks the element to find it again after the app started
      /** @type {any} */ (document.activeElement).dataset.painted = 'first';
    });
    release();
    await page.locator('.banners').waitFor({ state: 'attached' });
    assert.equal(
      await page.evaluate(() => /** @type {HTMLElement | null} */ (document.activeElement)?.dataset.painted ?? null),
      'first',
      'the same element, still focused',
    );
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').getByLabel('Workspace name').fill('Gamma');
    await page.getByRole('dialog').getByLabel('Workspace name').press('Enter');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await page.waitForURL(/#workspace\//);
    await page.getByRole('heading', { name: 'Gamma', level: 1 }).waitFor();
    await page.goto(app.url);
    await page.getByRole('link', { name: /Gamma/ }).waitFor();
  } finally {
    await context.close();
  }
});

test('a list changed by another tab before the app is in: the app draws the current one and still opens what was clicked', async () => {
  const { page, context, release } = await heldPage();
  try {
    await page.goto(app.url);
    await page.getByRole('link', { name: /Alpha/ }).click();
    // Another tab renames Alpha meanwhile.
    await page.evaluate(() => {
      const list = JSON.parse(localStorage.getItem('clawser_workspaces') ?? '[]');
      localStorage.setItem(
        'clawser_workspaces',
        JSON.stringify(
          list.map((/** @type {{id: string, name: string}} */ w) => (w.id === 'walpha' ? { ...w, name: 'Alpha renamed' } : w)),
        ),
      );
    });
    release();
    await page.getByRole('heading', { name: 'Alpha renamed', level: 1 }).waitFor();
    assert.match(page.url(), /#workspace\/walpha/);
  } finally {
    await context.close();
  }
});

test('a first visit paints "My workspace" before app.js has loaded, writing nothing; the app makes it and opens it', async () => {
  const { page, context, release } = await heldPage({ firstVisit: true });
  try {
    await page.goto(app.url);
    const mine = page.getByRole('link', { name: /My workspace/ });
    await mine.waitFor();
    assert.equal(await page.evaluate(() => !!document.querySelector('.banners')), false, 'the app has not started');
    // Offered, not written: only the app, once it has read the stored list, makes it.
    assert.equal(await page.evaluate(() => localStorage.getItem('clawser_workspaces')), null);
    const id = decodeURIComponent(((await mine.getAttribute('href')) ?? '').split('/')[1] ?? '');
    assert.ok(id);
    const saved = [{ id }];
    await mine.click();
    release();
    await page.getByRole('heading', { name: 'My workspace', level: 1 }).waitFor();
    assert.match(page.url(), new RegExp(`#workspace/${saved[0].id}`));
    // Its folder exists, and reloading lists it once.
    assert.equal(
      await page.evaluate(async (id) => {
        const root = await (await navigator.storage.getDirectory()).getDirectoryHandle('clawser_workspaces');
        return (await root.getDirectoryHandle(id)).kind;
      }, saved[0].id),
      'directory',
    );
    await page.goto(app.url);
    await mine.waitFor();
    assert.equal(await page.getByRole('link', { name: /My workspace/ }).count(), 1);
  } finally {
    await context.close();
  }
});

test('opened on a workspace, nothing is painted early: the workspace view comes with the app', async () => {
  const { page, context, release } = await heldPage();
  try {
    await page.goto(`${app.url}#workspace/wbeta`);
    await page.waitForFunction(() => document.querySelector('#app p.boot') !== null);
    assert.equal(await page.getByRole('link', { name: /Alpha/ }).count(), 0);
    release();
    await page.getByRole('heading', { name: 'Beta', level: 1 }).waitFor();
  } finally {
    await context.close();
  }
});
