// Works at 360 px and 1920 px, light and dark, by keyboard, with named controls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useFixture } from './fixture.mjs';

// Each test starts a browser of its own (its size and colour scheme).
const fx = await useFixture({ browser: false });
const { app } = fx;

/** @param {import('playwright-core').Page} page */
const overflow = (page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** Relative luminance of the body background. @param {import('playwright-core').Page} page */
const bgLuminance = (page) =>
  page.evaluate(() => {
    const m = getComputedStyle(document.body)
      .backgroundColor.match(/\d+(\.\d+)?/g)
      ?.map(Number) ?? [0, 0, 0];
    return (0.2126 * m[0] + 0.7152 * m[1] + 0.0722 * m[2]) / 255;
  });

for (const [width, height] of [
  [360, 740],
  [1920, 1080],
]) {
  for (const scheme of /** @type {const} */ (['light', 'dark'])) {
    test(`${width}px ${scheme}: no horizontal overflow, named controls, keyboard chat`, async () => {
      const browser = await fx.launchBrowser({ viewport: { width, height }, colorScheme: scheme });
      try {
        const page = await fx.newPage(browser.context);
        await page.goto(app.url);
        await page.getByRole('heading', { name: 'Workspaces' }).waitFor();
        assert.ok(scheme === 'dark' ? (await bgLuminance(page)) < 0.2 : (await bgLuminance(page)) > 0.8, 'colour scheme followed');
        assert.equal(await overflow(page), 0, 'home fits');
        await page.getByRole('link', { name: /My workspace/ }).click();
        await page.getByRole('button', { name: 'Try Echo' }).waitFor();
        assert.equal(await overflow(page), 0, 'first run fits');
        await page.getByRole('button', { name: 'Try Echo' }).click();
        // The workspace view is rebuilt with the new provider: wait for it before typing.
        // in the top bar, hidden on phones (the Menu shows it)
        await page.getByText('Echo · test provider, no AI').waitFor({ state: 'attached' });
        // Keyboard only: focus the message box, type, Enter sends.
        const box = page.getByRole('textbox', { name: 'Message' });
        await box.focus();
        await page.keyboard.type('typed with the keyboard');
        await page.keyboard.press('Shift+Enter');
        await page.keyboard.type('second line');
        await page.keyboard.press('Enter');
        await page.getByText('Echo: typed with the keyboard second line').waitFor();
        for (const name of ['Send', 'Settings', 'New conversation']) {
          const b = page.getByRole('button', { name, exact: true });
          if (width < 720 && name === 'New conversation') continue; // inside the drawer, checked below
          assert.ok(await b.isVisible(), `${name} visible`);
        }
        if (width < 720) {
          const toggle = page.getByRole('button', { name: 'Conversations' });
          assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
          await toggle.click();
          assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
          await page.getByRole('button', { name: 'New conversation', exact: true }).waitFor();
          assert.ok(await page.getByRole('navigation', { name: 'Conversations' }).getByRole('link').first().isVisible());
          await toggle.click();
        }
        assert.equal(await overflow(page), 0, 'chat fits');
        const header = await page.locator('.topbar').boundingBox();
        if (width < 720) assert.ok(header && header.height <= 56, `the header at ${width} px is at most 56 px tall (${header?.height})`);
        // Panels: the rail on wide screens; on phones behind the Menu button (a drawer).
        const openPanel = async (/** @type {string} */ name) => {
          if (width < 720) {
            const menu = page.getByRole('button', { name: 'Menu' });
            assert.equal(await page.getByRole('button', { name, exact: true }).isVisible(), false, 'panels are in the drawer');
            await menu.click();
            assert.equal(await menu.getAttribute('aria-expanded'), 'true');
          }
          await page.getByRole('navigation', { name: 'Workspace panels' }).getByRole('button', { name, exact: true }).click();
          if (width < 720)
            assert.equal(await page.getByRole('button', { name: 'Menu' }).getAttribute('aria-expanded'), 'false', 'the drawer closes');
        };
        await page.getByRole('button', { name: 'Settings', exact: true }).click();
        const dialog = page.getByRole('dialog', { name: /Settings/ });
        await dialog.waitFor();
        for (const label of ['Provider', 'Model'])
          assert.ok(await dialog.getByLabel(label, { exact: true }).isVisible(), `${label} labelled`);
        assert.equal(await overflow(page), 0, 'settings fit');
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'detached' });
        // The Files panel with a file open in the editor, and the Git panel with a diff.
        await page.evaluate(async () => {
          const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
          const fs = new OpfsFileSystem();
          await fs.write(
            `clawser_workspaces/${location.hash.split('/')[1]}/docs/a-rather-long-file-name-for-narrow-screens.md`,
            '# Heading\n\nA long line of text that should wrap inside the editor rather than push the page wider than the screen at all.\n',
          );
          fs.terminate();
        });
        await openPanel('Files');
        await page.getByRole('button', { name: 'docs', exact: true }).click();
        await page.getByRole('button', { name: 'a-rather-long-file-name-for-narrow-screens.md', exact: true }).click();
        await page.getByRole('textbox', { name: /Contents of/ }).waitFor();
        assert.equal(await overflow(page), 0, 'files panel fits');
        await openPanel('Git');
        await page.getByRole('button', { name: /^untracked docs\/a-rather-long/ }).click();
        await page.locator('.diff-table').waitFor();
        assert.equal(await overflow(page), 0, 'git panel fits');
        // Memory, Goals and Schedule: each fits, and every control is named (checked below per panel).
        /** @type {string[]} */
        const unnamedInPanels = [];
        const namelessControls = () =>
          page.evaluate(() =>
            [...document.querySelectorAll('button, input:not([type=hidden]):not([hidden]), select, textarea')]
              .filter((el) => {
                const e = /** @type {HTMLInputElement} */ (el);
                const name =
                  e.getAttribute('aria-label') ||
                  e.labels?.[0]?.textContent ||
                  (e.tagName === 'BUTTON' ? e.textContent : '') ||
                  e.getAttribute('aria-labelledby') ||
                  e.title;
                return !name?.trim();
              })
              .map((el) => el.outerHTML.slice(0, 80)),
          );
        for (const [panel, ready] of /** @type {const} */ ([
          ['Memory', 'Semantic search'],
          ['Goals', 'New goal'],
          ['Schedule', 'New scheduled job'],
        ])) {
          await openPanel(panel);
          await page.getByText(ready, { exact: true }).first().waitFor();
          if (panel === 'Schedule') {
            await page.getByLabel('When', { exact: true }).fill('every weekday at 9am');
            await page.locator('.next-runs li').first().waitFor();
          }
          assert.equal(await overflow(page), 0, `${panel} panel fits`);
          unnamedInPanels.push(...(await namelessControls()));
        }
        assert.deepEqual(unnamedInPanels, [], 'every control of the memory, goals and schedule panels has an accessible name');
        const unnamed = await page.evaluate(() =>
          [...document.querySelectorAll('button, input:not([type=hidden]):not([hidden]), select, textarea')]
            .filter((el) => {
              const e = /** @type {HTMLInputElement} */ (el);
              const name =
                e.getAttribute('aria-label') ||
                e.labels?.[0]?.textContent ||
                (e.tagName === 'BUTTON' ? e.textContent : '') ||
                e.getAttribute('aria-labelledby') ||
                e.title;
              return !name?.trim();
            })
            .map((el) => el.outerHTML.slice(0, 80)),
        );
        assert.deepEqual(unnamed, [], 'every control has an accessible name');
      } finally {
        await browser.close();
      }
    });
  }
}

test('every panel has a keyboard shortcut (Alt+1…Alt+9), announced on its button', async () => {
  const browser = await fx.launchBrowser();
  try {
    const page = await fx.newPage(browser.context);
    await page.goto(app.url);
    await page.getByRole('link', { name: /My workspace/ }).click();
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    const panels = [
      ['1', 'Files'],
      ['2', 'Git'],
      ['3', 'Memory'],
      ['4', 'Goals'],
      ['5', 'Schedule'],
      ['6', 'Tools'],
      ['7', 'Events'],
      ['8', 'Dashboard'],
      ['9', 'Config'],
    ];
    for (const [key, name] of panels) {
      assert.equal(await page.getByRole('button', { name, exact: true }).getAttribute('aria-keyshortcuts'), `Alt+${key}`);
      await page.keyboard.press(`Alt+${key}`);
      await page.getByRole('heading', { name, exact: true }).waitFor();
      assert.match(page.url(), new RegExp(`/${name.toLowerCase()}$`));
      await page.getByRole('button', { name: 'Back to chat' }).click();
      await page.getByRole('textbox', { name: 'Message' }).waitFor();
    }
  } finally {
    await browser.close();
  }
});
