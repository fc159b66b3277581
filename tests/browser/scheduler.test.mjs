// Scheduled jobs in a real Chromium with the scripted LLM and Playwright's fake clock: a job
// created in the Schedule panel (after its next five runs are shown) fires at its time, runs a
// turn in its own conversation, and is delivered as a chat message and a notification; the
// agent's schedule_add needs the user's approval; jobs survive a reload.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openWorkspace, sendMessage, waitInPage, recordNotifications } from './helpers.mjs';
import { useFixture } from './fixture.mjs';

const { app, llm, browser } = await useFixture({ llm: {} });
await recordNotifications(browser.context);
await browser.context.clock.install();

test('a job from the Schedule panel fires at its time: a turn in its conversation, a chat message and a notification', async () => {
  const page = await openWorkspace(browser.context, app.url, {
    provider: 'openai-compatible',
    model: 'test-model',
    baseUrl: `${llm.url}/v1`,
  });
  await page.getByRole('button', { name: 'Schedule', exact: true }).click();
  await page.getByRole('heading', { name: 'Schedule', exact: true }).waitFor();
  assert.match(await page.locator('#job-mode').innerText(), /Jobs run while Clawser is open in a tab/);
  // The Settings dialog says the same.
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const settings = page.getByRole('dialog', { name: /Settings/ });
  await settings.locator('#set-jobs-mode').getByText('Jobs run while Clawser is open in a tab', { exact: false }).waitFor();
  await settings.getByRole('button', { name: 'Cancel' }).click();
  await page.getByRole('button', { name: 'Schedule', exact: true }).click();
  await page.getByRole('heading', { name: 'Schedule', exact: true }).waitFor();
  // A phrase that is not understood says so, and nothing can be created.
  await page.getByLabel('When', { exact: true }).fill('whenever it suits you');
  await page.getByRole('alert').filter({ hasText: 'is not a schedule I understand' }).waitFor();
  assert.equal(await page.getByRole('button', { name: 'Create job' }).isDisabled(), true);
  // The confirmation: what it means and the next five runs.
  await page.getByLabel('When', { exact: true }).fill('every 15 minutes');
  await page.getByText('Means: every 15 minute(s). Next 5 runs:').waitFor();
  assert.equal(await page.locator('.next-runs li').count(), 5);
  await page.getByLabel('Prompt for the agent').fill('Give me the weather summary');
  await page.getByRole('button', { name: 'Create job' }).click();
  const job = page.locator('.job', { hasText: 'Give me the weather summary' });
  await job.getByText(/Next: .* · Not run yet/).waitFor();

  llm.enqueue({ text: 'Sunny all day, 21 °C.' });
  const before = llm.requests.length;
  // A jump fires the armed timer once, at its end: 30 s past the job's time is on time (a minute or more
  // would be a run late, 'the computer was asleep or busy', which the chat would say).
  await browser.context.clock.fastForward('15:30');
  await job.getByText(/Last run .*: succeeded/).waitFor();
  assert.equal(llm.requests.length, before + 1, 'the job ran exactly one turn');
  // The prompt reaches the model as a task the user set up earlier, not as a message of this moment.
  const sent = String(llm.requests.at(-1)?.body.messages.at(-1).content);
  assert.match(sent, /^\[Scheduled task “Give me the weather summary”, set up by the user on /);
  assert.match(sent, /<<<scheduled-task>>>\nGive me the weather summary\n<<<end-scheduled-task>>>$/);
  // Delivered: a notification and, since the job's conversation is not on screen, a banner.
  const notes = await page.evaluate(() => /** @type {any} */ (window).__notifications); // set by the init script
  assert.deepEqual(notes, [{ title: 'Scheduled job “Give me the weather summary” finished', body: 'Sunny all day, 21 °C.' }]);
  await page
    .locator('.banner', { hasText: 'Scheduled job “Give me the weather summary” finished.' })
    .getByRole('button', { name: 'Open' })
    .click();
  await page.locator('.msg.assistant', { hasText: 'Sunny all day, 21 °C.' }).waitFor();
  await page.getByText('Scheduled job “Give me the weather summary” ran.').waitFor();
  // by text content: innerText is empty until laid out (content-visibility: auto)
  await page.locator('.conv-item.active', { hasText: /Give me the weather summary/ }).waitFor();

  // Pause: its time passes without a run. Resume and "Run now" work from the panel.
  await page.getByRole('button', { name: 'Schedule', exact: true }).click();
  await job.getByRole('button', { name: 'Pause Give me the weather summary' }).click();
  await job.getByText(/Paused/).waitFor();
  // Two of its times pass while paused (had it run, the history below would show 3 runs).
  await browser.context.clock.fastForward('31:00');
  await job.getByRole('button', { name: 'Resume Give me the weather summary' }).click();
  llm.enqueue({ text: 'Still sunny.' });
  await job.getByRole('button', { name: 'Run now: Give me the weather summary' }).click();
  await page.getByText('“Give me the weather summary” finished.', { exact: true }).waitFor();
  await job.getByText('History (2)').click(); // the first run and this one: none while paused
  await job.getByText(/— ok \(run now\)/).waitFor();

  // Jobs persist per workspace: after a reload the job and its history are there.
  await page.reload();
  await page.getByRole('heading', { name: 'Schedule', exact: true }).waitFor();
  await page.locator('.job', { hasText: 'Give me the weather summary' }).getByText('History (2)').waitFor();
  await page
    .locator('.job', { hasText: 'Give me the weather summary' })
    .getByRole('button', { name: 'Delete Give me the weather summary' })
    .click();
  await page
    .getByRole('dialog', { name: /Delete “Give me the weather summary”/ })
    .getByRole('button', { name: 'Delete job' })
    .click();
  await page.getByText('No scheduled jobs yet.').waitFor();
  await page.close();
});

test("the agent schedules a job only with the user's approval; the chat records it", async () => {
  const page = await openWorkspace(browser.context, app.url);
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  llm.enqueue(
    {
      toolCalls: [
        {
          id: 's1',
          name: 'schedule_add',
          arguments: { when: 'every weekday at 9am', prompt: 'Check my calendar for today', timezone: 'Europe/Berlin' },
        },
      ],
    },
    { text: 'I will check your calendar every weekday at 9.' },
  );
  await sendMessage(page, 'check my calendar every weekday morning at 9');
  const approval = page.getByRole('dialog', { name: 'Allow “schedule_add”?' });
  await approval.waitFor();
  assert.match(await approval.locator('pre').innerText(), /"when": "every weekday at 9am"/);
  // The confirmation shows what the phrase means and the next five runs.
  const preview = await approval.locator('.approval-preview').innerText();
  assert.match(preview, /^Means: cron 0 9 \* \* 1-5 \(Europe\/Berlin\)\. Next 5 runs:/);
  assert.equal(preview.split('\n').filter((l) => l.startsWith('• ')).length, 5);
  await approval.getByRole('button', { name: 'Allow once' }).click();
  await page.locator('.msg.assistant', { hasText: 'I will check your calendar every weekday at 9.' }).waitFor();
  await page.getByText('Scheduled: Check my calendar for today').waitFor();
  const toolResult = llm.requests.at(-1)?.body.messages.at(-1).content;
  assert.match(
    toolResult,
    /Scheduled job j\w+ "Check my calendar for today" \(cron 0 9 \* \* 1-5 \(Europe\/Berlin\)\); next run \d{4}-\d\d-\d\dT0[78]:00Z\./,
  );
  await page.getByRole('button', { name: 'Schedule', exact: true }).click();
  const job = page.locator('.job', { hasText: 'Check my calendar for today' });
  await job.getByText(/created by the agent/).waitFor();
  assert.ok(
    await job.getByRole('button', { name: 'Open the conversation of Check my calendar for today' }).isVisible(),
    'it runs in the conversation that created it',
  );
  await waitInPage(
    page,
    async () => {
      const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
      const text = await new OpfsFileSystem()
        .readText(`clawser_workspaces/${location.hash.split('/')[1]}/.scheduler/jobs.json`)
        .catch(() => '');
      return /"createdBy": "agent"/.test(text);
    },
    undefined,
    { what: 'the job saved in .scheduler/jobs.json' },
  );
  await page.close();
});

test("a job's approval names the job and workspace; unanswered, it closes after the time-out, \
the run needs approval and the user is told", async () => {
  const page = await openWorkspace(browser.context, app.url, {
    provider: 'openai-compatible',
    model: 'test-model',
    baseUrl: `${llm.url}/v1`,
  });
  await page.getByRole('button', { name: 'Schedule', exact: true }).click();
  await page.getByRole('heading', { name: 'Schedule', exact: true }).waitFor();
  assert.equal(await page.getByLabel('Minutes a job waits for an approval').inputValue(), '10', 'the default is 10 minutes');
  /** Creates a tool job that writes a file (fs_write needs approval by default). @param {string} name */
  const addJob = async (name) => {
    await page.getByLabel('When', { exact: true }).fill('every 2 hours');
    await page.locator('#job-name').fill(name);
    await page.getByLabel('Call a tool').check();
    await page.locator('#job-tool').selectOption('fs_write');
    await page.getByLabel('Arguments (JSON)').fill(JSON.stringify({ path: `${name}.md`, content: 'x' }));
    await page.getByRole('button', { name: 'Create job' }).click();
    await page.locator('.job', { hasText: name }).waitFor();
  };
  await addJob('Daily report');
  await addJob('Nightly notes');
  await browser.context.clock.fastForward('02:00:00');
  // Both jobs wait at once: two stacked dialogs, each naming its job and the workspace.
  const first = page.getByRole('dialog', { name: 'Allow “fs_write” for job “Daily report”?' });
  const second = page.getByRole('dialog', { name: 'Allow “fs_write” for job “Nightly notes”?' });
  await first.waitFor({ state: 'attached' });
  await second.waitFor({ state: 'attached' });
  assert.match(await first.locator('.approval-job').innerText(), /Scheduled job “Daily report” in workspace “.+” wants to run this\./);
  assert.match(await first.innerText(), /Unanswered within 10 minutes/);
  assert.match(await second.locator('.approval-job').innerText(), /Scheduled job “Nightly notes” in workspace “.+” wants to run this\./);
  // Control: one answered job runs — the one whose dialog is on top (the jobs may come due in either order).
  const top = await page.evaluate(() => {
    for (const d of document.querySelectorAll('dialog.approval-dialog[open]')) {
      const b = /** @type {HTMLElement | null} */ ([...d.querySelectorAll('button')].find((x) => x.textContent === 'Allow once') ?? null);
      const r = b?.getBoundingClientRect();
      if (b && r && d.contains(document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2)))
        return /job “(.+?)”/.exec(d.querySelector('.approval-job')?.textContent ?? '')?.[1] ?? null;
    }
    return null;
  });
  assert.ok(top === 'Daily report' || top === 'Nightly notes', `a dialog is on top (${top})`);
  const [answered, unanswered] = top === 'Nightly notes' ? ['Nightly notes', 'Daily report'] : ['Daily report', 'Nightly notes'];
  await (top === 'Nightly notes' ? second : first).getByRole('button', { name: 'Allow once' }).click();
  await page
    .locator('.job', { hasText: answered })
    .getByText(/Last run .*: succeeded/)
    .waitFor();
  // The other is not answered: after 10 minutes its dialog closes and the run needs approval.
  await browser.context.clock.fastForward('10:01');
  await (top === 'Nightly notes' ? first : second).waitFor({ state: 'detached' });
  await page
    .locator('.job', { hasText: unanswered })
    .getByText(/Last run .*: needs approval/)
    .waitFor();
  await page.locator('.banner', { hasText: new RegExp(`Scheduled job “${unanswered}” in workspace “.+” needs approval`) }).waitFor();
  const notes = await page.evaluate(() => /** @type {any} */ (window).__notifications); // set by the init script
  assert.ok(
    notes.some((/** @type {{title: string}} */ n) =>
      new RegExp(`^Scheduled job “${unanswered}” in workspace “.+” needs approval$`).test(n.title),
    ),
  );
  const written = await page.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const fs = new OpfsFileSystem();
    const ws = `clawser_workspaces/${location.hash.split('/')[1]}`;
    return {
      answered: await fs.readText(`${ws}/Nightly notes.md`).catch(() => null),
      unanswered: await fs.readText(`${ws}/Daily report.md`).catch(() => null),
    };
  });
  assert.deepEqual(
    written,
    answered === 'Nightly notes' ? { answered: 'x', unanswered: null } : { answered: null, unanswered: 'x' },
    'only the approved call ran',
  );
  await page.close();
});
