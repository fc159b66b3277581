// PRD scenario 9, digital maintenance: a workspace with CV drafts in three folders (two of them
// the same file) and a subscription bill; the user asks the agent to keep it organized; the agent
// starts a maintenance log and a daily scan job. A day later (the pages' clock moved) the scan
// runs on its own: it hashes the files across folders, finds the duplicate, logs its suggestion
// and asks before deleting — the user denies, and the file stays. Then the user approves moving
// the drafts into drafts/cv/, which happens; the log records every action.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeWorkspaceFile } from '../browser/helpers.mjs';
import { useFixture } from '../browser/fixture.mjs';
import { listWorkspace, toolResults, turn, workspaceFile } from './scenario.mjs';

const DAY = 86_400_000;
const START = Math.floor(Date.now() / DAY) * DAY - 7 * DAY + 9 * 3_600_000;

const fx = await useFixture({
  llm: {},
  beforePage: ({ context }) => context.clock.install({ time: START }),
  settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1`, autonomy: 'full' }),
});
const { llm, page } = fx;

const CV = '# Curriculum vitae\n\nAda Lovelace, analyst.\n';
/** The user's files, put in the workspace as files from elsewhere would be. */
const FILES = {
  'documents/cv.md': CV,
  'old/cv copy.md': CV,
  'downloads/cv-draft.md': '# CV (draft)\n\nAda Lovelace, analyst and writer.\n',
  'bills/streaming.md': 'Streaming subscription: renews on the 15th, 12 EUR a month.\n',
};
const LOG_HEAD = '# Maintenance log\n\n';
const SCAN = 'md5sum ./*/*.md';
const DUPLICATE = '- Scan: old/cv copy.md is a duplicate of documents/cv.md. Suggested: move the 3 CV drafts to drafts/cv/.\n';
const DECLINED = '- Deleting old/cv copy.md: declined by the user, not done.\n';
const MOVED = '- Moved 3 CV drafts to drafts/cv/ (approved by the user).\n';
/** The scheduled tasks the model was asked to carry out, by job name. */
const scheduledTurns = () =>
  llm.requests
    .map((r) => /^\[Scheduled task “(.+?)”/.exec(String(r.body?.messages?.at(-1)?.content ?? ''))?.[1])
    .filter((name) => name !== undefined);

test('the user asks for an organized workspace: a goal, a maintenance log and a daily scan job', async () => {
  for (const [path, text] of Object.entries(FILES)) await writeWorkspaceFile(page, path, text);
  const asked = await turn(
    page,
    llm,
    'Help me keep my workspace organized.',
    [
      {
        toolCalls: [
          { id: 'g1', name: 'goal_add', arguments: { description: 'Keep the workspace organized' } },
          { id: 'w1', name: 'fs_write', arguments: { path: 'artifacts/maintenance-log.md', content: LOG_HEAD } },
          {
            id: 's1',
            name: 'schedule_add',
            arguments: {
              when: 'every 1 day',
              name: 'Workspace scan',
              prompt: 'Scan the workspace for duplicate or similar files and suggest a tidier layout.',
            },
          },
        ],
      },
      { text: 'I will scan your workspace every day.' },
    ],
    'I will scan your workspace every day.',
  );
  assert.deepEqual(asked, ['fs_write', 'schedule_add']);
  assert.equal(await workspaceFile(page, 'artifacts/maintenance-log.md'), LOG_HEAD);
  assert.match((await listWorkspace(page, 'goals/active'))[0] ?? '', /^keep-the-workspace-organized-/);
});

test('a day later the scan runs on its own, finds the duplicate across folders, and a denied delete does not happen', async () => {
  await page.getByRole('button', { name: 'Schedule', exact: true }).click();
  const job = page.locator('.job', { hasText: 'Workspace scan' });
  await job.getByText(/Not run yet/).waitFor();
  // The job's turn, as the model plays it: hash the files, log the finding, try to delete the copy.
  llm.enqueue(
    { toolCalls: [{ id: 'h1', name: 'shell', arguments: { command: SCAN } }] },
    {
      toolCalls: [{ id: 'l1', name: 'fs_write', arguments: { path: 'artifacts/maintenance-log.md', content: DUPLICATE, mode: 'append' } }],
    },
    { toolCalls: [{ id: 'd1', name: 'shell', arguments: { command: "rm 'old/cv copy.md'" } }] },
    { toolCalls: [{ id: 'l2', name: 'fs_write', arguments: { path: 'artifacts/maintenance-log.md', content: DECLINED, mode: 'append' } }] },
    { text: 'Scan done: one duplicate found; nothing deleted.' },
  );
  await fx.context.clock.setSystemTime(START + DAY - 20_000);
  await fx.context.clock.fastForward('01:05');
  const approval = page.getByRole('dialog', { name: 'Allow “shell” for job “Workspace scan”?' });
  await approval.getByText("rm 'old/cv copy.md'").first().waitFor();
  await approval.getByRole('button', { name: 'Deny' }).click();
  await job.getByText(/Last run .*: succeeded/).waitFor();
  assert.deepEqual(scheduledTurns(), ['Workspace scan']);
  assert.equal(await workspaceFile(page, 'old/cv copy.md'), CV, 'denied: the file is still there');
  // Periodic: the next scan is a day later.
  const next = await page.evaluate((t) => new Date(t).toLocaleDateString(undefined, { month: 'short', day: 'numeric' }), START + 2 * DAY);
  assert.match(await job.innerText(), new RegExp(`Next: .*${next}`));

  await page.getByRole('button', { name: 'Back to chat' }).click();
  await page.locator('.msg.assistant .msg-body', { hasText: 'Scan done: one duplicate found' }).waitFor();
  const results = await toolResults(page);
  // The same hash for the two copies in different folders; another for the other draft (control).
  const hashes = Object.fromEntries(
    results.h1.result
      .trim()
      .split('\n')
      .map((line) => /^([0-9a-f]{32})\s+(.+)$/.exec(line.trim()) ?? [])
      .filter((m) => m.length)
      .map((m) => [m[2].replace(/^\.\//, ''), m[1]]),
  );
  assert.equal(results.h1.ok, true, results.h1.result);
  assert.equal(hashes['documents/cv.md'], hashes['old/cv copy.md']);
  assert.ok(hashes['documents/cv.md']);
  assert.notEqual(hashes['downloads/cv-draft.md'], hashes['documents/cv.md']);
  assert.equal(results.d1.ok, false, 'the delete was refused');
  assert.equal(await workspaceFile(page, 'artifacts/maintenance-log.md'), `${LOG_HEAD}${DUPLICATE}${DECLINED}`);
});

test('the user approves the suggested move: the drafts go to drafts/cv/ and the log says so', async () => {
  const move = "mkdir -p drafts/cv && mv documents/cv.md 'old/cv copy.md' downloads/cv-draft.md drafts/cv/";
  const asked = await turn(
    page,
    llm,
    'Yes, move the 3 CV drafts to drafts/cv/.',
    [
      { toolCalls: [{ id: 'm1', name: 'shell', arguments: { command: move } }] },
      { toolCalls: [{ id: 'l3', name: 'fs_write', arguments: { path: 'artifacts/maintenance-log.md', content: MOVED, mode: 'append' } }] },
      { text: 'Moved them.' },
    ],
    'Moved them.',
    { answer: 'once' },
  );
  assert.deepEqual(asked, ['shell'], 'the move is asked for; the log write was always allowed');
  assert.equal((await toolResults(page)).m1?.ok, true);
  assert.deepEqual(await listWorkspace(page, 'drafts/cv'), ['cv copy.md', 'cv-draft.md', 'cv.md']);
  assert.equal(await workspaceFile(page, 'documents/cv.md'), null);
  assert.equal(await workspaceFile(page, 'drafts/cv/cv copy.md'), CV);
  assert.equal(await workspaceFile(page, 'bills/streaming.md'), FILES['bills/streaming.md'], 'other files untouched');
  assert.equal(await workspaceFile(page, 'artifacts/maintenance-log.md'), `${LOG_HEAD}${DUPLICATE}${DECLINED}${MOVED}`);
});
