// Settings in sections with a sticky Save (issue 37 §2): the dialog names its sections at the top
// (each a click away), and Save and Cancel stay in view at its bottom however far it is scrolled;
// Save works from there. At 1280×720 and 360×740, axe finds no serious violation in the dialog.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useFixture } from './fixture.mjs';
import { seriousViolations } from './axe.mjs';

const { page } = await useFixture({ settings: { provider: 'echo' }, browser: { viewport: { width: 1280, height: 720 } } });

/** Serious or critical axe violations in the open dialog. */
const violations = () => seriousViolations(page, 'dialog[open]');

/** Whether an element lies wholly in the viewport and in its dialog's visible box. @param {import('playwright-core').Locator} el */
const inView = (el) =>
  el.evaluate((node) => {
    const box = node.getBoundingClientRect();
    const dialog = /** @type {HTMLElement} */ (node.closest('dialog')).getBoundingClientRect();
    return (
      box.top >= Math.max(0, dialog.top) - 1 &&
      box.bottom <= Math.min(innerHeight, dialog.bottom) + 1 &&
      box.left >= 0 &&
      box.right <= innerWidth + 1 &&
      box.height > 0
    );
  });

for (const [width, height, value] of [
  [1280, 720, '7'],
  [360, 740, '9'],
]) {
  test(`${width}×${height}: sections named at the top; scrolled to the bottom section, Save is in view and saves`, async () => {
    await page.setViewportSize({ width: Number(width), height: Number(height) });
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: /Settings/ });
    const nav = dialog.getByRole('navigation', { name: 'Settings sections' });
    assert.deepEqual(await nav.getByRole('button').allInnerTexts(), [
      'Provider and model',
      'Agent',
      'Fallbacks',
      'This browser',
      'Scheduled jobs',
    ]);
    const save = dialog.getByRole('button', { name: 'Save', exact: true });
    const cancel = dialog.getByRole('button', { name: 'Cancel' });
    // Control: the dialog is longer than the screen (it scrolls), so staying in view means something.
    assert.ok(await dialog.evaluate((d) => d.scrollHeight > d.clientHeight + 200), 'the dialog scrolls');

    await dialog.getByLabel('Tool actions per hour (0 = no limit)').fill(String(value));
    // The last section, from the top's buttons: shown, and the actions still in view.
    await nav.getByRole('button', { name: 'Scheduled jobs' }).click();
    const jobs = dialog.getByRole('heading', { name: 'Scheduled jobs' });
    await page.waitForFunction(() => {
      const d = /** @type {HTMLElement} */ (document.querySelector('dialog[open]'));
      return d.scrollTop > 0;
    });
    assert.equal(await inView(jobs), true, 'the bottom section is shown');
    await dialog.evaluate((d) => {
      d.scrollTop = d.scrollHeight;
    });
    assert.equal(await inView(save), true, 'Save is in view at the bottom');
    assert.equal(await inView(cancel), true, 'Cancel too');
    // Midway, too: the actions do not scroll away with the content.
    await dialog.evaluate((d) => {
      d.scrollTop = d.scrollHeight / 2;
    });
    assert.equal(await inView(save), true, 'Save is in view midway');
    // Control: the probe sees an element that is scrolled away (the dialog's title, midway down).
    assert.equal(await inView(dialog.getByRole('heading', { name: /^Settings — / })), false, 'control: the title scrolled away');
    assert.deepEqual(await violations(), []);

    await save.click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    assert.equal(await dialog.getByLabel('Tool actions per hour (0 = no limit)').inputValue(), String(value), 'saved');
    await cancel.click();
    await dialog.waitFor({ state: 'detached' });
  });
}
