// Less noise around turns (issue 37 §2): the "This turn changed …; Undo turn" row only after a turn
// that changed something (a turn that changed nothing keeps Undo among its reply's actions); a redo
// is said once, by its line in the transcript.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sendMessage } from './helpers.mjs';
import { seriousViolations } from './axe.mjs';
import { useFixture } from './fixture.mjs';

const KEY = 'sk-test-chat-turns-0123456789';
const { llm, page } = await useFixture({
  llm: { apiKey: KEY, models: ['test-model'] },
  settings: ({ llm }) => ({ provider: 'openai', model: 'test-model', apiKey: KEY, baseUrl: `${llm.url}/v1` }),
});

/** The undo or redo lines the chat shows (the transcript's and the notice bar's). */
const takeBackLines = () => page.getByText(/Turn undone|Turn redone|Undid the turn|Redid the turn|This turn changed|The turn before/);

test('a turn that changed nothing gets no "This turn changed" row; one that wrote a file does', async () => {
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  await sendMessage(page, 'just talk');
  const reply = page.locator('.msg.assistant:not(.streaming)', { hasText: 'You said: just talk' });
  // Undo is there, among the reply's actions (the undo record is read once the turn is kept).
  await reply.getByRole('button', { name: 'Undo turn' }).waitFor();
  assert.equal(await page.locator('li.turn-undo').count(), 0, 'no row for a turn that changed nothing');
  assert.equal(await takeBackLines().count(), 0);

  // Control: a turn that writes a file gets its row.
  llm.enqueue(
    { toolCalls: [{ id: 'w1', name: 'fs_write', arguments: { path: 'turns.md', content: 'by the agent' } }] },
    { text: 'Wrote it.' },
  );
  await sendMessage(page, 'write a file');
  await page
    .getByRole('dialog', { name: /Allow “fs_write”/ })
    .getByRole('button', { name: 'Allow once' })
    .click();
  const row = page.locator('li.turn-undo', { hasText: 'This turn changed 1 file.' });
  await row.getByRole('button', { name: 'Undo turn' }).waitFor();
  assert.equal(await page.getByRole('button', { name: 'Undo turn' }).count(), 1, 'one Undo: the row');
  assert.deepEqual(await seriousViolations(page, '.messages'), []);
});

test('undo, then redo: each is said once, by its line in the transcript', async () => {
  await page.locator('li.turn-undo').getByRole('button', { name: 'Undo turn' }).click();
  const undone = page.locator('li.turn-undone', { hasText: 'Turn undone: 1 file put back' });
  await undone.getByRole('button', { name: 'Redo turn' }).waitFor();
  // The notice bar says only what the line does not: the undo's commit (this workspace commits automatically).
  await page.locator('.chat-notice', { hasText: /^The undo was committed \([0-9a-f]{7}\)\.$/ }).waitFor();
  assert.equal(await takeBackLines().count(), 1, (await takeBackLines().allInnerTexts()).join(' | '));

  await undone.getByRole('button', { name: 'Redo turn' }).click();
  const redone = page.locator('li.turn-undone', { hasText: 'Turn redone: 1 file.' });
  // The redone turn's Undo is on that same line, not in a row of its own.
  await redone.getByRole('button', { name: 'Undo turn' }).waitFor();
  await page.locator('.msg.assistant', { hasText: 'Wrote it.' }).waitFor();
  await page.locator('.chat-notice', { hasText: /^The redo was committed \([0-9a-f]{7}\)\.$/ }).waitFor();
  assert.equal(await takeBackLines().count(), 1, (await takeBackLines().allInnerTexts()).join(' | '));
  assert.equal(await page.locator('li.turn-undo').count(), 0);
  assert.equal(await page.getByRole('button', { name: 'Undo turn' }).count(), 1);
  assert.deepEqual(await seriousViolations(page, '.messages'), []);
});
