// Less noise around turns (issue 37 §2): the "This turn changed …; Undo turn" row only after a turn
// that changed something (a turn that changed nothing keeps Undo among its reply's actions); a redo
// is said once, by its line in the transcript; Continue extends the stopped reply instead of adding
// a step, streamed into it, kept as one message across a reload, undone as its own turn.
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

test('Continue extends the stopped reply: one message, streamed into it, one after a reload; \
undo takes the continuation back', async () => {
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  llm.enqueue({ text: 'The first half of a long', dropAfter: 3, holdOpen: true });
  await sendMessage(page, 'tell me a long story');
  await page.locator('.msg.streaming .msg-body', { hasText: 'first' }).waitFor();
  await page.getByRole('button', { name: 'Stop' }).click();
  await page.getByText('Stopped — the reply above is incomplete.').waitFor();
  llm.dropOpen();
  const stopped = page.locator('.msg.assistant:not(.streaming)');
  assert.equal(await stopped.count(), 1);
  const partial = (await stopped.locator('.msg-body').innerText()).trim();
  assert.match(partial, /^The first/);

  // The continuation streams into the stopped message, not into a bubble of its own.
  llm.enqueue({ text: 'story, and its second half.', pauseAfter: 3 });
  await page.getByRole('button', { name: 'Continue this reply' }).click();
  await stopped.locator('.msg-body', { hasText: 'story,' }).waitFor();
  assert.equal(await page.locator('.msg.streaming').count(), 0, 'no second bubble while it streams');
  assert.equal(await page.getByText('Stopped — the reply above is incomplete.').count(), 0, 'it is being continued');
  llm.resume();
  await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'hidden' });
  const whole = stopped.locator('.msg-body', { hasText: 'its second half.' });
  await whole.waitFor();
  const joined = `${partial} story, and its second half.`;
  assert.equal((await whole.innerText()).trim(), joined);
  assert.equal(await page.locator('.msg.assistant').count(), 1, 'one message');
  assert.equal(await page.getByText('You asked the model to continue its stopped reply.').count(), 0);
  assert.equal(await page.getByText('Stopped — the reply above is incomplete.').count(), 0);
  assert.equal(await page.getByRole('button', { name: 'Continue this reply' }).count(), 0);
  // The model was asked to go on after its stopped reply.
  const req = llm.requests.at(-1)?.body.messages;
  assert.match(req.at(-2).content, /^The first/);
  assert.match(req.at(-1).content, /^Continue your previous reply/);

  // Stored as such: a reload shows one message, whose Copy takes the whole text.
  await page.reload();
  await page.locator('.msg.assistant .msg-body', { hasText: 'its second half.' }).waitFor();
  assert.equal(await page.locator('.msg.assistant').count(), 1);
  assert.equal((await page.locator('.msg.assistant .msg-body').innerText()).trim(), joined);
  assert.deepEqual(await seriousViolations(page, '.messages'), []);

  // Undo takes the continuation back: the stopped reply again, with Continue.
  await page.locator('.msg.assistant').getByRole('button', { name: 'Undo turn' }).waitFor();
  await page.getByRole('textbox', { name: 'Message', exact: true }).blur();
  await page.keyboard.press('Alt+Z');
  await page.getByRole('button', { name: 'Continue this reply' }).waitFor();
  assert.equal((await page.locator('.msg.assistant .msg-body').innerText()).trim(), partial);
  await page.getByText('Stopped — the reply above is incomplete.').waitFor();
});

test('Regenerate on a continued reply answers the whole question again, the continued one kept as a version', async () => {
  // Redo the continuation first (the undo of the last test), then regenerate the joined message.
  await page.getByRole('textbox', { name: 'Message', exact: true }).blur();
  await page.keyboard.press('Alt+Shift+Z');
  await page.locator('.msg.assistant .msg-body', { hasText: 'its second half.' }).waitFor();
  llm.enqueue({ text: 'A short story, whole.' });
  await page
    .locator('.msg.assistant')
    .getByRole('button', { name: /Regenerate this reply/ })
    .click();
  await page.locator('.msg.assistant .msg-body', { hasText: 'A short story, whole.' }).waitFor();
  // The turn's end redraws the message with its versions: counted once that is on screen.
  const versions = page.getByRole('group', { name: 'Versions of this reply' });
  await versions.waitFor();
  await page.waitForFunction(
    () => document.querySelector('[aria-label="Versions of this reply"]')?.textContent?.replace(/\s+/g, '') === '2/2',
  );
  assert.equal(await page.locator('.msg.assistant').count(), 1);
  assert.match(JSON.stringify(llm.requests.at(-1)?.body.messages.at(-1)), /tell me a long story/, 'the question, not "continue"');
  await versions.getByRole('button', { name: 'Previous version of this reply' }).click();
  await page.locator('.msg.assistant .msg-body', { hasText: 'its second half.' }).waitFor();
  assert.equal(await page.locator('.msg.assistant').count(), 1, 'the continued version is one message still');
});
