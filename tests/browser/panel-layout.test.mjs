// One panel layout (issue 37 §2, web/ui/panel-layout.js): every panel of the registry opens as
// the same structure — a section named by its heading, with the page's padding, scrolling within
// itself; a header with "Back to chat" and the title, below the workspace's top bar, never under
// it — at 360 and 1280 px. And the focus ring is blue in both themes, not an error's red.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useFixture } from './fixture.mjs';

const { page } = await useFixture({ settings: { provider: 'echo' }, browser: { viewport: { width: 1280, height: 800 } } });
const workspaceId = /** @type {string} */ (/#workspace\/([^/]+)/.exec(page.url())?.[1]);

/** The registered panels, as the app lists them in its navigation. */
const panels = /** @type {{name: string, label: string}[]} */ (
  await page.evaluate(() => import('/web/app/panel-nav.js').then((m) => m.PANEL_NAV.map(({ name, label }) => ({ name, label }))))
);

/** @param {string} name */
const open = async (name) => {
  await page.evaluate((hash) => {
    location.hash = hash;
  }, `#workspace/${workspaceId}/${name}`);
  await page.locator(`section.panel-layout[data-panel="${name}"]`).waitFor();
};

/** What the layout of the panel on screen measures. @param {string} name */
const measure = (name) =>
  page.evaluate((panel) => {
    const root = /** @type {HTMLElement} */ (document.querySelector(`section.panel-layout[data-panel="${panel}"]`));
    const style = getComputedStyle(root);
    const header = root.firstElementChild;
    const back = header?.querySelector('button.panel-back');
    const heading = header?.querySelector('h2');
    const top = document.querySelector('.topbar')?.getBoundingClientRect();
    const box = root.getBoundingClientRect();
    const backBox = back?.getBoundingClientRect();
    return {
      padding: [style.paddingTop, style.paddingRight, style.paddingBottom, style.paddingLeft],
      pad: getComputedStyle(document.documentElement).getPropertyValue('--panel-pad').trim(),
      overflowY: style.overflowY,
      headerFirst: header?.tagName === 'HEADER' && header.classList.contains('panel-header'),
      back: back?.textContent,
      title: heading?.textContent,
      named: document.getElementById(root.getAttribute('aria-labelledby') ?? '') === heading,
      backInside:
        !!backBox &&
        !!top &&
        backBox.top >= top.bottom &&
        backBox.left >= box.left + Number.parseFloat(style.paddingLeft) - 1 &&
        backBox.right <= box.right,
      sideways: root.scrollWidth - root.clientWidth,
    };
  }, name);

for (const [width, height, pad] of [
  [1280, 800, '16px'],
  [360, 740, '12px'],
]) {
  test(`${width} px: every registered panel uses the panel layout (padding, header, title, its way back)`, async () => {
    await page.setViewportSize({ width: Number(width), height: Number(height) });
    assert.ok(panels.length >= 14, `the registry's panels (${panels.length})`);
    /** @type {string[]} */
    const problems = [];
    for (const { name, label } of panels) {
      await open(name);
      const m = await measure(name);
      const expect = { padding: [pad, pad, pad, pad], overflowY: 'auto', headerFirst: true, back: 'Back to chat', title: label };
      const got = { padding: m.padding, overflowY: m.overflowY, headerFirst: m.headerFirst, back: m.back, title: m.title };
      if (JSON.stringify(got) !== JSON.stringify(expect)) problems.push(`${name}: ${JSON.stringify(got)}`);
      if (!m.named) problems.push(`${name}: the section is not named by its heading`);
      if (!m.backInside) problems.push(`${name}: "Back to chat" is clipped or under the top bar`);
      if (m.sideways > 1) problems.push(`${name}: scrolls sideways by ${m.sideways} px`);
    }
    assert.deepEqual(problems, []);
    // Control: the measure tells a panel without the layout's padding.
    await open('goals');
    const unpadded = (/** @type {string} */ padding) =>
      page.evaluate((p) => {
        /** @type {HTMLElement} */ (document.querySelector('section.panel-layout[data-panel="goals"]')).style.padding = p;
      }, padding);
    await unpadded('0px');
    assert.deepEqual((await measure('goals')).padding, ['0px', '0px', '0px', '0px']);
    await unpadded('');
  });
}

test('the focus ring is blue in light and dark, never the red or orange of an error', async () => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await open('goals');
  for (const scheme of /** @type {const} */ (['light', 'dark'])) {
    await page.emulateMedia({ colorScheme: scheme });
    const back = page.getByRole('button', { name: 'Back to chat' });
    await back.focus();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Shift+Tab');
    const ring = await back.evaluate((el) => {
      const s = getComputedStyle(el);
      return { focused: el.matches(':focus-visible'), style: s.outlineStyle, width: s.outlineWidth, colour: s.outlineColor };
    });
    assert.ok(ring.focused && ring.style === 'solid' && Number.parseFloat(ring.width) >= 2, JSON.stringify(ring));
    const [r, g, b] = (ring.colour.match(/\d+/g) ?? []).slice(0, 3).map(Number);
    assert.ok(b > r && b > g, `${scheme}: ${ring.colour} is blue`);
    assert.ok(r < 128, `${scheme}: ${ring.colour} has no red to read as an error`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
});

test('a fresh workspace’s panels that have nothing yet say so with the shared empty state (emptyState(), .empty-state)', async () => {
  await page.setViewportSize({ width: 1280, height: 800 });
  // The panels with a list that a fresh workspace leaves empty (Files, Config and Terminal always have content).
  const empty = ['agents', 'dashboard', 'events', 'git', 'tools', 'schedule', 'goals', 'memory', 'servers', 'channels', 'remote'];
  for (const name of empty) {
    await open(name);
    // A panel fills its lists after it shows: its empty state is waited for (the locator names the panel when it fails).
    await page.locator(`section.panel-layout[data-panel="${name}"] .empty-state`).first().waitFor();
  }
  // The texts the panels had made up each on their own are gone: the Git panel's says what to do.
  await open('git');
  await page.locator('section.panel-layout[data-panel="git"] .empty-state', { hasText: 'No commits yet.' }).waitFor();
  assert.equal(await page.locator('section.panel-layout[data-panel="git"] p.muted', { hasText: 'No commits yet.' }).count(), 0);
});
