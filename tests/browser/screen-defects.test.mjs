// Defects the screenshots showed (issue 37 §4, docs/screenshots.md), each measured in the real page
// with its control: the workspace's name whole (or its full name at hand) in the header at 360 px.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useFixture } from './fixture.mjs';
import { seriousViolations } from './axe.mjs';

const fx = await useFixture({
  llm: {},
  settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1` }),
});
const { page } = fx;

const PHONE = { width: 360, height: 740 };
const DESKTOP = { width: 1280, height: 800 };

/**
 * How much of an element's text its box cuts off: its scroll size against its client size (an
 * ellipsis or a clamp leaves the scroll size larger).
 * @param {import('playwright-core').Locator} el
 */
const clipped = (el) =>
  el.evaluate((node) => ({
    width: node.scrollWidth - node.clientWidth,
    height: node.scrollHeight - node.clientHeight,
    text: node.textContent,
  }));

/** The page scrolls sideways (something is wider than the window). @param {import('playwright-core').Page} p */
const pageOverflow = (p) => p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

test("360 px: the workspace name in the header is shown whole, a name too long for two lines keeps its full name \
as the heading's name and title; the home screen shows it whole (control: 1280 px)", async () => {
  const heading = page.getByRole('banner').getByRole('heading', { level: 1 });
  for (const size of [PHONE, DESKTOP]) {
    await page.setViewportSize(size);
    const cut = await clipped(heading);
    assert.equal(cut.text, 'My workspace');
    assert.ok(cut.width <= 0 && cut.height <= 0, `${size.width} px: the name is cut off by ${cut.width} × ${cut.height} px`);
    assert.ok((await pageOverflow(page)) <= 0, `${size.width} px: the page does not scroll sideways`);
  }
  const long = 'Quarterly research notebook for the product launch of twenty twenty-seven';
  const home = await fx.openHome();
  try {
    await home.setViewportSize(PHONE);
    await home.getByRole('button', { name: 'New workspace' }).click();
    await home.getByRole('dialog').getByLabel('Workspace name').fill(long);
    await home.getByRole('dialog').getByLabel('Workspace name').press('Enter');
    await home.getByRole('button', { name: 'Try Echo' }).waitFor();
    const title = home.getByRole('banner').getByRole('heading', { level: 1, name: long, exact: true });
    await title.waitFor();
    assert.equal(await title.getAttribute('title'), long, 'the full name is at hand (hover, long press)');
    const box = /** @type {{height: number}} */ (await title.boundingBox());
    const lineHeight = await title.evaluate((el) => parseFloat(getComputedStyle(el).lineHeight));
    assert.ok(box.height >= 1.5 * lineHeight, `the name takes two lines before it is shortened (${box.height} px)`);
    assert.ok((await pageOverflow(home)) <= 0, 'the page does not scroll sideways');
    for (const b of ['Settings', 'Commands']) {
      const r = await home.getByRole('banner').getByRole('button', { name: b, exact: true }).boundingBox();
      assert.ok(r && r.x >= 0 && r.x + r.width <= PHONE.width, `${b} is on screen`);
    }
    assert.deepEqual(await seriousViolations(home, 'header.topbar'), [], 'no serious or critical axe finding in the header');
    // The home screen: every name whole.
    await home.goto(`${fx.url}#home`);
    const names = home.locator('.ws-name');
    await names.filter({ hasText: long }).waitFor();
    for (const name of await names.all()) {
      const cut = await clipped(name);
      assert.ok(cut.width <= 0 && cut.height <= 0, `home: "${cut.text}" is cut off by ${cut.width} × ${cut.height} px`);
    }
  } finally {
    await home.close();
  }
});
