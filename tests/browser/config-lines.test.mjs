// Config errors linked to lines (issue 37 §2): broken JSON names the line and column, a schema
// problem (a wrong type) names its path and the line it is on; choosing either puts the cursor on
// that line, scrolled into view. Axe finds no serious violation in the panel with problems.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useFixture } from './fixture.mjs';
import { seriousViolations } from './axe.mjs';

const { page } = await useFixture({ settings: { provider: 'echo' }, browser: { viewport: { width: 1280, height: 720 } } });

const panel = page.getByRole('region', { name: 'Config' });
const editor = panel.getByRole('textbox', { name: 'Configuration (JSON)' });
const problems = panel.getByRole('list', { name: 'Problems' }).getByRole('listitem');

/** Serious or critical axe violations in the Config panel. */
const violations = () => seriousViolations(page, 'section.panel-layout[data-panel="config"]');

/** The cursor's line (from 1), whether the editor has the focus, and whether that line is scrolled into view. */
const cursor = () =>
  editor.evaluate((el) => {
    const t = /** @type {HTMLTextAreaElement} */ (el);
    const line = t.value.slice(0, t.selectionStart).split('\n').length;
    const lineHeight = Number.parseFloat(getComputedStyle(t).lineHeight);
    const top = (line - 1) * lineHeight;
    return {
      line,
      focused: t === document.activeElement,
      shown: top >= t.scrollTop - 1 && top + lineHeight <= t.scrollTop + t.clientHeight + 1,
      selected: t.value.slice(t.selectionStart, t.selectionEnd),
    };
  });

/** The 1-based line of the first line of `text` holding `needle`. @param {string} text @param {string} needle */
const lineOf = (text, needle) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

await page.keyboard.press('Alt+9');
await panel.getByText('Valid. This is the saved configuration.').waitFor();
const original = await editor.inputValue();
// Padding at the top (a long document) so that a line far down must be scrolled to.
const doc = JSON.parse(original);
const long = JSON.stringify({ ...doc, agent: { ...doc.agent, maxIterations: 12 } }, null, 2).replace('{\n', `{\n${'\n'.repeat(60)}`);

test('broken JSON: the problem names its line; choosing it puts the cursor on that line, in view', async () => {
  const lines = long.split('\n');
  const at = lineOf(long, '"maxIterations"');
  assert.ok(at > 60, `far down (${at})`);
  // Control first: the valid document has no problem.
  await editor.fill(long);
  await panel.getByText('Valid: ready to save.').waitFor();
  await editor.evaluate((el) => {
    el.scrollTop = 0;
  });
  lines[at - 1] = `${lines[at - 1]},`; // "maxIterations": 12,, — a second comma
  await editor.fill(lines.join('\n'));
  await panel.getByText('1 problem: nothing is saved until they are fixed.').waitFor();
  assert.match(await problems.innerText(), new RegExp(`^line ${at}, column \\d+: `));
  await problems.getByRole('button').click();
  const c = await cursor();
  assert.equal(c.line, at, 'the cursor is on the broken line');
  assert.equal(c.focused, true);
  assert.equal(c.shown, true, 'the line is scrolled into view');
  // The gutter numbers the lines, marks the broken one, and scrolls with the text.
  const gutter = panel.locator('.config-gutter');
  assert.equal(await gutter.locator('span').count(), lines.length);
  assert.deepEqual(await gutter.locator('span.bad').allTextContents(), [String(at)]);
  const tops = await page.evaluate(() => {
    const text = /** @type {HTMLElement} */ (document.querySelector('.config-text'));
    const mark = /** @type {HTMLElement} */ (document.querySelector('.config-gutter span.bad'));
    const line = Number(mark.textContent);
    const lineHeight = Number.parseFloat(getComputedStyle(text).lineHeight);
    // Where the line's number is drawn and where the line is, both relative to the editor box.
    const box = /** @type {HTMLElement} */ (text.parentElement).getBoundingClientRect();
    return {
      mark: mark.getBoundingClientRect().top - box.top,
      line:
        text.getBoundingClientRect().top -
        box.top +
        Number.parseFloat(getComputedStyle(text).paddingTop) +
        (line - 1) * lineHeight -
        text.scrollTop,
    };
  });
  assert.ok(Math.abs(tops.mark - tops.line) <= 2, `the number is beside its line: ${JSON.stringify(tops)}`);
  const heights = await page.evaluate(() => [
    /** @type {HTMLElement} */ (document.querySelector('.config-gutter')).clientHeight,
    /** @type {HTMLElement} */ (document.querySelector('.config-text')).clientHeight,
  ]);
  assert.ok(heights[0] >= heights[1], `the gutter runs the text's height (${heights})`);
  assert.deepEqual(await violations(), []);
});

test('a wrong type: the problem names the path and its line; choosing it selects the field on that line', async () => {
  const wrong = long.replace('"maxIterations": 12', '"maxIterations": "twelve"');
  const at = lineOf(wrong, '"maxIterations"');
  await editor.fill(wrong);
  await problems.filter({ hasText: new RegExp(`^agent\\.maxIterations \\(line ${at}\\): `) }).waitFor();
  await editor.evaluate((el) => {
    el.scrollTop = 0;
    /** @type {HTMLTextAreaElement} */ (el).setSelectionRange(0, 0);
  });
  // Control: before the click, the cursor is at the top.
  assert.equal((await cursor()).line, 1);
  await problems.getByRole('button', { name: /agent\.maxIterations/ }).click();
  const c = await cursor();
  assert.equal(c.line, at);
  assert.equal(c.selected, '"maxIterations"');
  assert.equal(c.shown, true);
  // Put back: valid again.
  await editor.fill(original);
  await panel.getByText('Valid. This is the saved configuration.').waitFor();
  assert.deepEqual(await violations(), []);
});
