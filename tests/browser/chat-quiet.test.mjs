// Less noise in the chat (issue 37 §2): a message's actions (Copy, Copy text, Edit, Regenerate)
// show when the pointer is over the message or the keyboard reaches them, never only by mouse;
// they keep their place, so nothing moves when they appear.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sendMessage } from './helpers.mjs';
import { useFixture } from './fixture.mjs';

const { page } = await useFixture({ settings: { provider: 'echo' }, browser: { viewport: { width: 1280, height: 800 } } });

test("a reply's actions show on hover and on keyboard focus, and are reached with Tab", async () => {
  // Without the fade (prefers-reduced-motion), so each state is read as soon as it is reached.
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await sendMessage(page, 'quiet please');
  const reply = page.locator('.msg.assistant', { hasText: 'Echo: quiet please' });
  await reply.waitFor();
  const copy = reply.getByRole('button', { name: 'Copy message as Markdown' });
  const opacity = () => copy.evaluate((el) => getComputedStyle(el).opacity);
  const box = await copy.boundingBox();
  // Away from the message, with the focus in the message box: quiet.
  await page.mouse.move(5, 5);
  await page.getByRole('textbox', { name: 'Message' }).focus();
  assert.equal(await opacity(), '0');
  // Control: over the message, they show, in the same place.
  await reply.hover();
  assert.equal(await opacity(), '1');
  assert.deepEqual(await copy.boundingBox(), box, 'nothing moved');
  await page.mouse.move(5, 5);
  assert.equal(await opacity(), '0');
  // By keyboard: Shift+Tab from the message box reaches the reply's buttons, which show while focused.
  await page.getByRole('textbox', { name: 'Message' }).focus();
  let reached = false;
  for (let i = 0; i < 40 && !reached; i++) {
    await page.keyboard.press('Shift+Tab');
    reached = await reply.evaluate((li) => li.contains(document.activeElement) && document.activeElement?.tagName === 'BUTTON');
  }
  assert.ok(reached, "Tab reaches the reply's actions");
  const focused = await page.evaluate(() => ({
    name: document.activeElement?.getAttribute('aria-label'),
    opacity: getComputedStyle(/** @type {Element} */ (document.activeElement)).opacity,
  }));
  assert.equal(focused.opacity, '1', `${focused.name} shows while focused`);
  assert.equal(await opacity(), '1', 'and its neighbours with it');
});
