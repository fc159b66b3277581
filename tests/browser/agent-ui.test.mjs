// Agent tools that need the page: ask_user, the artifact pane, a real screenshot sent to a
// vision model, the safety switch's confirmation, and an autonomy limit stopping a run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { saveSettings, readWorkspaceFile, sendMessage } from './helpers.mjs';
import { useFixture } from './fixture.mjs';

// OpenAI's wire format through the fixture: this catalog entry is vision-capable.
const { llm, page } = await useFixture({
  llm: {},
  settings: ({ llm }) => ({
    provider: 'openai',
    model: 'gpt-4o',
    apiKey: 'sk-test-vision-key',
    baseUrl: `${llm.url}/v1`,
    autonomy: 'full',
  }),
});

const send = (/** @type {string} */ text) => sendMessage(page, text);

test('ask_user opens a question dialog and the run waits for the answer', async () => {
  llm.enqueue(
    { toolCalls: [{ id: 'q1', name: 'ask_user', arguments: { question: 'Which colour?', choices: ['Red', 'Blue'] } }] },
    { text: 'Blue it is.' },
  );
  await send('pick a colour with me');
  const dialog = page.getByRole('dialog', { name: 'The agent asks' });
  await dialog.getByText('Which colour?').waitFor();
  await dialog.getByRole('button', { name: 'Blue' }).click();
  await page.getByText('Blue it is.').waitFor();
  assert.equal(llm.requests.at(-1)?.body.messages.at(-1).content, 'Blue');
});

test('the artifact pane shows sanitized agent HTML in a sandboxed frame; dom_query reads it', async () => {
  llm.enqueue(
    {
      toolCalls: [
        {
          id: 'd1',
          name: 'dom_modify',
          arguments: {
            selector: 'document',
            action: 'set_html',
            value:
              '<h1 id="t">Report</h1><p class="x">draft</p><script>parent.document.' +
              'title="pwned"</script><img src=x onerror="parent.document.title=1">',
          },
        },
      ],
    },
    {
      toolCalls: [
        { id: 'd2', name: 'dom_modify', arguments: { selector: 'p.x', action: 'set_text', value: 'final' } },
        { id: 'd3', name: 'dom_query', arguments: { selector: 'h1, p' } },
      ],
    },
    { text: 'Artifact ready.' },
  );
  await send('make a report artifact');
  await page.getByText('Artifact ready.').waitFor();
  const pane = page.getByRole('complementary', { name: 'Artifact' });
  await pane.waitFor();
  const frame = pane.locator('iframe');
  assert.equal(await frame.getAttribute('sandbox'), '');
  const inner = page.frameLocator('iframe[title="Agent artifact"]');
  // The frame is an out-of-process, opaque-origin document: check its DOM, not its paint.
  await inner.locator('p.x', { hasText: 'final' }).waitFor({ state: 'attached' });
  assert.equal(await inner.locator('h1').textContent(), 'Report');
  assert.equal(await inner.locator('script, [onerror]').count(), 0);
  assert.notEqual(await page.title(), 'pwned');
  const query = llm.requests.at(-1)?.body.messages.at(-1).content;
  assert.match(query, /"tag": "h1"[\s\S]*"text": "Report"[\s\S]*"text": "final"/);
  await pane.getByRole('button', { name: 'Close artifact' }).click();
  await pane.waitFor({ state: 'detached' });
});

test('screenshot captures the app with html2canvas, saves a PNG, and a vision model receives it', async () => {
  llm.enqueue({ toolCalls: [{ id: 's1', name: 'screenshot', arguments: { path: 'shots/app.png' } }] }, { text: 'I can see the chat.' });
  await send('take a screenshot');
  const approval = page.getByRole('dialog', { name: 'Allow “screenshot”?' });
  await approval.getByRole('button', { name: 'Allow once' }).click();
  await page.getByText('I can see the chat.').waitFor();
  const png = await page.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const ws = location.hash.split('/')[1];
    const fs = new OpfsFileSystem();
    const bytes = await fs.readBytes(`clawser_workspaces/${ws}/shots/app.png`); // binary: not readWorkspaceFile
    fs.terminate();
    return { size: bytes.length, magic: [...bytes.slice(0, 4)] };
  });
  assert.deepEqual(png.magic, [0x89, 0x50, 0x4e, 0x47]);
  assert.ok(png.size > 1000);
  const msgs = llm.requests.at(-1)?.body.messages;
  const imageMsg = msgs.at(-1);
  assert.equal(imageMsg.role, 'user');
  assert.match(imageMsg.content[1].image_url.url, /^data:image\/png;base64,/);
  // The image is not stored in the event log (the PNG file is).
  const log = (await readWorkspaceFile(page, '{conversation}/events.jsonl')) ?? '';
  assert.doesNotMatch(log, /data:image\/png;base64/);
});

test('turning safety checks off needs a confirmation; cancelling keeps them on', async () => {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: /Settings/ });
  const box = dialog.getByRole('checkbox', { name: /Safety checks/ });
  assert.equal(await box.isChecked(), true);
  await box.uncheck();
  const confirm = page.getByRole('dialog', { name: 'Turn safety checks off?' });
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  // The dialog's close event restores the box: wait for it rather than read at once.
  await page.waitForFunction(() => /** @type {HTMLInputElement} */ (document.getElementById('set-safety')).checked === true);
  await confirm.waitFor({ state: 'detached' });
  await box.uncheck();
  await confirm.getByRole('button', { name: 'Turn safety checks off' }).click();
  await confirm.waitFor({ state: 'detached' });
  assert.equal(await box.isChecked(), false);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'detached' });
});

test('hitting the actions-per-hour limit stops the run with a clear message', async () => {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: /Settings/ });
  await dialog.getByLabel('Tool actions per hour (0 = no limit)').fill('1');
  await saveSettings(page);
  // ask_user, dom_modify and screenshot already used 4 actions this hour.
  llm.enqueue({ toolCalls: [{ id: 'l1', name: 'fs_list', arguments: {} }] }, { text: 'never' });
  await send('list files');
  await page.locator('.notice', { hasText: 'limit of 1 tool actions per hour' }).first().waitFor();
  assert.equal(await page.getByText('never', { exact: true }).count(), 0);
});
