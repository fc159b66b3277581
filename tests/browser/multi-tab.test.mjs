// Two real tabs of the app in one browser: one leads and runs the scheduled jobs (each
// occurrence once, whichever tab is open), the other takes over when the leader closes; two
// tabs on the same conversation and the same goals lose nothing and see each other's changes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openWorkspace, sendMessage, waitInPage } from './helpers.mjs';
import { useFixture } from './fixture.mjs';

const fx = await useFixture({ llm: {} });
const { app, llm, browser } = fx;

/** Whether the page's Schedule panel says this tab runs the jobs. @param {import('playwright-core').Page} page */
const isLeader = async (page) => /this one runs the jobs/.test(await page.locator('#job-mode').innerText());

test("two tabs on one conversation: each sees the other's messages live, and the log keeps both", async () => {
  const a = await openWorkspace(browser.context, app.url, { provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1` });
  llm.enqueue({ text: 'Reply to A.' });
  await sendMessage(a, 'hello from tab A');
  await a.locator('.msg.assistant', { hasText: 'Reply to A.' }).waitFor();
  const b = await browser.context.newPage();
  await b.goto(a.url());
  await b.locator('.msg.assistant', { hasText: 'Reply to A.' }).waitFor();
  llm.enqueue({ text: 'Reply to B.' });
  await sendMessage(b, 'hello from tab B');
  await b.locator('.msg.assistant', { hasText: 'Reply to B.' }).waitFor();
  // Tab A shows B's turn without a reload.
  await a.locator('.msg.user', { hasText: 'hello from tab B' }).waitFor();
  await a.locator('.msg.assistant', { hasText: 'Reply to B.' }).waitFor();
  // A continues: its next request carries B's turn too (its history caught up).
  llm.enqueue({ text: 'Reply to A again.' });
  await sendMessage(a, 'and A again');
  await a.locator('.msg.assistant', { hasText: 'Reply to A again.' }).waitFor();
  const sent = llm.requests.at(-1)?.body.messages.map((/** @type {{role: string, content: string}} */ m) => `${m.role}:${m.content}`);
  assert.deepEqual(sent.slice(1), [
    'user:hello from tab A',
    'assistant:Reply to A.',
    'user:hello from tab B',
    'assistant:Reply to B.',
    'user:and A again',
  ]);
  await b.locator('.msg.assistant', { hasText: 'Reply to A again.' }).waitFor();
  const lines = await a.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const [, ws, , conv] = location.hash.slice(1).split('/');
    const text = await new OpfsFileSystem().readText(`clawser_workspaces/${ws}/.conversations/${conv}/events.jsonl`);
    return text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((e) => e.type === 'user_message' || e.type === 'agent_message')
      .map((e) => e.data.text);
  });
  assert.deepEqual(lines, ['hello from tab A', 'Reply to A.', 'hello from tab B', 'Reply to B.', 'and A again', 'Reply to A again.']);

  // Goals changed in both tabs at the same time: all kept, both panels show all.
  await a.getByRole('button', { name: 'Goals', exact: true }).click();
  await b.getByRole('button', { name: 'Goals', exact: true }).click();
  for (const page of [a, b]) await page.getByLabel('New goal').waitFor();
  await Promise.all(
    [a, b].map((page, i) =>
      page.evaluate(
        async (n) => {
          const input = /** @type {HTMLInputElement} */ (document.getElementById('goal-new'));
          const add = /** @type {HTMLButtonElement} */ ([...document.querySelectorAll('button')].find((x) => x.textContent === 'Add goal'));
          for (let k = 0; k < 5; k++) {
            // The form clears once the goal is stored, and says so in its status line; then the next one.
            const stored = new Promise((resolve) => {
              const seen = new MutationObserver(() => {
                if (input.value) return;
                seen.disconnect();
                resolve(undefined);
              });
              seen.observe(document.body, { subtree: true, childList: true, characterData: true });
            });
            input.value = `Goal ${n}-${k}`;
            add.click();
            await stored;
          }
        },
        i === 0 ? 'A' : 'B',
      ),
    ),
  );
  for (const page of [a, b]) {
    await waitInPage(page, async () => document.querySelectorAll('.goal').length === 10, undefined, { what: 'all ten goals listed' });
  }
  await a.close();
  await b.close();
});

test('one leader runs each job occurrence once; when it closes, the other tab takes over', async () => {
  // Its own browser with a fake clock: minutes pass on demand.
  const own = await fx.launchBrowser();
  await own.context.clock.install();
  try {
    const setupPage = await openWorkspace(own.context, app.url);
    const url = setupPage.url();
    // A job every minute calling a read-only tool (no model needed); each run is recorded.
    const jobId = await setupPage.evaluate(async () => {
      const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
      const { ScopedFileSystem } = await import('/web/storage/scoped-fs.js');
      const { Scheduler } = await import('/web/stores/scheduler.js');
      const s = new Scheduler({
        fs: new ScopedFileSystem(new OpfsFileSystem(), `clawser_workspaces/${location.hash.split('/')[1]}`),
        execute: async () => ({ ok: true, summary: '' }),
      });
      return (
        await s.add({ when: 'every 1 minute', action: { kind: 'tool', tool: 'goal_list', args: {} }, name: 'tick', delivery: 'never' })
      ).id;
    });
    await setupPage.close();
    const tabs = [await own.context.newPage(), await own.context.newPage()];
    for (const t of tabs) await t.goto(url);
    await waitInPage(
      tabs[0],
      async () => {
        const q = await navigator.locks.query();
        return (
          (q.held ?? []).filter((l) => l.name === 'clawser-leader').length === 1 &&
          (q.pending ?? []).filter((l) => l.name === 'clawser-leader').length === 1
        );
      },
      undefined,
      { what: 'one leader and one tab waiting' },
    );
    for (const t of tabs) await t.getByRole('button', { name: 'Schedule', exact: true }).click();
    for (const t of tabs) await t.getByText(/2 Clawser tabs are open; (this|another) one runs the jobs/).waitFor();
    const leaders = await Promise.all(tabs.map(isLeader));
    assert.equal(leaders.filter(Boolean).length, 1, 'exactly one leader');
    /** The job's finished runs (scheduled times). @param {import('playwright-core').Page} page */
    const runs = (page) =>
      page.evaluate(async (id) => {
        const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
        const text = await new OpfsFileSystem().readText(`clawser_workspaces/${location.hash.split('/')[1]}/.scheduler/jobs.json`);
        const job = JSON.parse(text).jobs.find((/** @type {{id: string}} */ j) => j.id === id);
        return /** @type {number[]} */ (
          job.runs
            .filter((/** @type {{status: string}} */ r) => r.status === 'ok')
            .map((/** @type {{scheduledFor: number}} */ r) => r.scheduledFor)
        );
      }, jobId);
    /** @param {import('playwright-core').Page} page @param {number} n */
    const waitRuns = async (page, n) => {
      const deadline = Date.now() + 30_000;
      while ((await runs(page)).length < n) {
        if (Date.now() > deadline) throw new Error(`Timed out waiting for ${n} runs (have ${(await runs(page)).length}).`);
        // Another minute passes in both tabs; each due occurrence is claimed by one of them.
        await own.context.clock.fastForward('01:01');
      }
    };
    await waitRuns(tabs[0], 2);
    const first = await runs(tabs[0]);
    assert.equal(first.length, new Set(first).size, 'no occurrence ran twice');
    // The leader closes; the other tab takes over and runs the next occurrences.
    const leader = leaders[0] ? tabs[0] : tabs[1];
    const other = leaders[0] ? tabs[1] : tabs[0];
    await leader.close();
    await other.getByText('Jobs run while Clawser is open in a tab', { exact: false }).waitFor();
    await waitInPage(
      other,
      async () => (await navigator.locks.query()).held?.some((l) => l.name === 'clawser-leader') ?? false,
      undefined,
      { what: 'the other tab leads' },
    );
    await other.locator('#job-mode').filter({ hasNotText: 'another one runs the jobs' }).waitFor();
    await waitRuns(other, first.length + 2);
    const after = await runs(other);
    assert.equal(after.length, new Set(after).size, 'still no occurrence twice');
  } finally {
    await own.close();
  }
});
