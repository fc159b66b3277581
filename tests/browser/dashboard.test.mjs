// The Dashboard (issue 13): tokens and cost per provider and model over time (a real chart from
// the vendored chart library), tool calls and failures per tool, the scheduled jobs' recent runs,
// and storage against the quota with the browser asked to keep the data — from real turns against
// the scripted LLM server, stored in the workspace and still there after a reload.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readWorkspaceFile, sendMessage, waitInPage } from './helpers.mjs';
import { useFixture } from './fixture.mjs';

const { llm, browser, page } = await useFixture({
  llm: {},
  settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'gpt-4o', baseUrl: `${llm.url}/v1` }),
});

const dashboard = () => page.getByRole('region', { name: 'Dashboard' });

test('model calls and tool calls of real turns are counted per model and per tool, charted, and kept across a reload', async () => {
  llm.enqueue(
    { toolCalls: [{ id: 'call_l', name: 'fs_list', arguments: { path: '/' } }] },
    { toolCalls: [{ id: 'call_r', name: 'fs_read', arguments: { path: 'no/such/file.md' } }] },
    { text: 'Listed the files; that note does not exist.' },
  );
  await sendMessage(page, 'list my files and read no/such/file.md');
  await page.locator('.msg.assistant:not(.streaming) .msg-body', { hasText: 'that note does not exist' }).waitFor();
  await page.keyboard.press('Alt+8');
  await dashboard().waitFor();
  assert.match(page.url(), /\/dashboard$/);
  const totals = dashboard().locator('.dash-totals');
  // Three calls of the turn, and the title request after the first exchange (counted too).
  await totals
    .filter({ hasText: /tokens in 4 model calls, about \$0\.\d+, in the last 30 days\./ })
    .waitFor()
    .catch(async (err) => {
      // Say what the panel showed instead, and what the server was asked.
      throw new Error(
        `${err.message}\nThe totals read: ${await totals.innerText().catch(() => '(none)')}; title ` +
          `requests: ${llm.titleRequests.length}, requests: ${llm.requests.length}`,
      );
    });
  assert.equal(llm.titleRequests.length, 1);
  const models = dashboard().getByRole('table', { name: 'Model calls by provider and model' });
  const row = models.getByRole('row', { name: /gpt-4o/ });
  assert.match(
    await row.innerText(),
    /openai-compatible\s+gpt-4o\s+4\s+44\s+\d+\s+\$0\.\d+/,
    'provider, model, calls, input tokens (4 × 11), output, cost',
  );
  // The chart library drew both charts on canvases, labelled for screen readers.
  assert.equal(await dashboard().locator('.dash-chart canvas').count(), 2);
  assert.match(
    await dashboard()
      .getByRole('img', { name: /tokens per day by model/ })
      .innerText(),
    /gpt-4o \(openai-compatible\)/,
    'the legend names the series',
  );
  const tools = dashboard().getByRole('table', { name: 'Tool calls' });
  assert.match(await tools.getByRole('row', { name: /fs_list/ }).innerText(), /fs_list\s+1\s+0\s+0\s+\d+ ms/);
  assert.match(
    await tools.getByRole('row', { name: /fs_read/ }).innerText(),
    /fs_read\s+1\s+1 \(100%\)\s+0/,
    'the failed read counts as a failure',
  );

  // Stored in the workspace (one of Clawser's own folders), so a reload shows the same numbers.
  await waitInPage(
    page,
    async () => {
      const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
      const fs = new OpfsFileSystem();
      try {
        // Every call is written (the title request's model call may come after the tools').
        const ledger = JSON.parse(await fs.readText(`clawser_workspaces/${location.hash.split('/')[1]}/.usage/ledger.json`));
        const days = /** @type {{models: Record<string, {calls: number}>, tools: Record<string, unknown>}[]} */ (
          Object.values(ledger.days)
        );
        const modelCalls = days.reduce((n, d) => n + Object.values(d.models).reduce((m, x) => m + x.calls, 0), 0);
        return modelCalls === 4 && days.some((d) => 'fs_read' in d.tools);
      } catch {
        return false;
      } finally {
        fs.terminate();
      }
    },
    undefined,
    { what: 'the usage ledger to be written' },
  );
  await page.reload();
  await dashboard().waitFor();
  await totals.filter({ hasText: /tokens in 4 model calls/ }).waitFor();
  assert.match(JSON.parse(/** @type {string} */ (await readWorkspaceFile(page, '.usage/ledger.json'))).version.toString(), /^1$/);

  // A shorter period still holds today; the live view follows a new turn made meanwhile in another tab.
  await dashboard().getByRole('combobox', { name: 'Period' }).selectOption('7');
  await totals.filter({ hasText: /in the last 7 days/ }).waitFor();
  const other = await browser.context.newPage();
  await other.goto(page.url().replace(/\/dashboard$/, ''));
  llm.enqueue({ text: 'Hello from the other tab.' });
  await sendMessage(other, 'hello');
  await other.locator('.msg.assistant:not(.streaming) .msg-body', { hasText: 'Hello from the other tab.' }).waitFor();
  await totals.filter({ hasText: /tokens in 5 model calls/ }).waitFor();
  await other.close();
});

test("the chart draws its series in the design tokens' colours and draws again in the other theme", async () => {
  if (!(await dashboard().isVisible())) {
    llm.enqueue({ text: 'Counted.' });
    await sendMessage(page, 'count this');
    await page.locator('.msg.assistant:not(.streaming) .msg-body', { hasText: 'Counted.' }).waitFor();
    await page.keyboard.press('Alt+8');
  }
  const chart = dashboard().getByRole('img', { name: /tokens per day by model/ });
  await chart.locator('canvas').waitFor();
  /** The first series' legend marker and the token --chart-1, as rgb(). */
  const colours = () =>
    chart.evaluate((holder) => {
      const probe = document.createElement('span');
      probe.style.color = 'var(--chart-1, transparent)';
      holder.append(probe);
      const token = getComputedStyle(probe).color;
      probe.remove();
      const marker = holder.querySelectorAll('.u-legend tr.u-series .u-marker')[1];
      return { marker: marker ? getComputedStyle(marker).borderTopColor : null, token };
    });
  const light = await colours();
  assert.equal(light.marker, light.token, 'the series is --chart-1');
  // A change of theme draws the chart again, with the axes in the dark theme's text colour.
  await chart.locator('.uplot').evaluate((el) => el.setAttribute('data-drawn-before', ''));
  await page.emulateMedia({ colorScheme: 'dark' });
  try {
    await chart.locator('.uplot:not([data-drawn-before])').waitFor();
    const dark = await colours();
    assert.equal(dark.marker, dark.token);
  } finally {
    await page.emulateMedia({ colorScheme: 'light' });
  }
});

test('scheduled jobs: counts, the next run and recent runs with their result', async () => {
  await page.keyboard.press('Alt+5');
  await page.getByRole('heading', { name: 'Schedule', exact: true }).waitFor();
  await page.getByLabel('When', { exact: true }).fill('every 2 hours');
  await page.locator('#job-name').fill('List the files');
  await page.getByLabel('Call a tool').check();
  await page.locator('#job-tool').selectOption('fs_list');
  await page.getByLabel('Arguments (JSON)').fill(JSON.stringify({ path: '/' }));
  await page.getByRole('button', { name: 'Create job' }).click();
  const job = page.locator('.job', { hasText: 'List the files' });
  await job.getByRole('button', { name: 'Run now: List the files' }).click();
  await job.getByText(/Last run .*: succeeded/).waitFor();
  await page.keyboard.press('Alt+8');
  const jobs = dashboard().getByRole('region', { name: 'Scheduled jobs' });
  await jobs.getByText(/^1 active, 0 paused, 0 done\. Next: “List the files” /).waitFor();
  assert.match(
    await jobs
      .getByRole('table', { name: 'Recent runs' })
      .getByRole('row', { name: /List the files/ })
      .innerText(),
    /List the files\s+.+\(run now\)\s+Done/,
  );
  await jobs.getByRole('button', { name: 'Open the Schedule panel' }).click();
  await page.getByRole('heading', { name: 'Schedule', exact: true }).waitFor();
});

test("storage: the quota, each workspace's size, and the browser asked to keep the data, with its answer shown", async () => {
  await page.keyboard.press('Alt+8');
  const storage = dashboard().getByRole('region', { name: 'Storage' });
  await storage.getByText(/ used of .+ this browser allows \(/).waitFor();
  const expected = await page.evaluate(() => navigator.storage.persisted());
  const line = storage.getByRole('status');
  await line.filter({ hasText: expected ? /^Protected/ : /^Not protected/ }).waitFor();
  const table = storage.getByRole('table', { name: 'Storage by workspace' });
  const mine = table.getByRole('row', { name: /\(this one\)/ });
  await mine.filter({ hasNotText: 'Measuring…' }).waitFor();
  assert.match(await mine.innerText(), /\(this one\)\s+\d+(\.\d)? (KB|MB)\s+\d+/, 'its size and file count (conversations, git, usage)');
  if (!expected) {
    await storage.getByRole('button', { name: 'Ask the browser to keep this data' }).click();
    const answer = await page.evaluate(() => navigator.storage.persisted());
    await line.filter({ hasText: answer ? /^Protected/ : /said no for now/ }).waitFor();
  } else {
    assert.equal(
      await storage.getByRole('button', { name: 'Ask the browser to keep this data' }).isHidden(),
      true,
      'nothing to ask once protected',
    );
  }
});

test('a browser whose language tag Intl refuses ("en-US@posix", some Linux builds): \
the Dashboard shows its numbers in tables and says why there are no charts', async () => {
  // The first test recorded model calls in this workspace; the control there drew both charts.
  const odd = await browser.context.newPage();
  try {
    await odd.addInitScript(() => Object.defineProperty(Navigator.prototype, 'language', { get: () => 'en-US@posix', configurable: true }));
    await odd.goto(page.url().replace(/\/[a-z]+$/, '/dashboard'));
    // Control: the tag really is one Intl refuses in this browser.
    assert.equal(
      await odd.evaluate(() => {
        try {
          new Intl.NumberFormat(navigator.language);
          return 'accepted';
        } catch {
          return 'refused';
        }
      }),
      'refused',
    );
    const panel = odd.getByRole('region', { name: 'Dashboard' });
    await panel.getByText(/^The charts cannot be drawn in this browser \(.*\); the tables below hold the same numbers\.$/).waitFor();
    await panel
      .locator('.dash-totals')
      .filter({ hasText: /tokens in \d+ model calls/ })
      .waitFor();
    assert.match(
      await panel
        .getByRole('table', { name: 'Model calls by provider and model' })
        .getByRole('row', { name: /gpt-4o/ })
        .innerText(),
      /openai-compatible\s+gpt-4o/,
    );
    assert.equal(await panel.locator('.dash-chart canvas').count(), 0);
  } finally {
    await odd.close();
  }
});
