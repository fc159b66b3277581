// Issue 11 §1 in a real Chromium: Clawser's own folders are written only by their owners.
// A repository built by the real git CLI carries every internal folder (a due prompt job, a
// goal, a pinned memory, a conversation, a checkpoint, a skill, a vault file, all made by the
// real stores): cloning it through the app, pulling a commit that changes them, switching
// branches and restoring a commit never install any of it, the normal files arrive and the user
// is told how many files were left out. And the agent's fs tools, with the safety checks turned
// off, cannot write or delete the scheduler's jobs (the refusal lives in storage).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { readWorkspaceFile, openWorkspace, sendMessage } from './helpers.mjs';
import { useFixture } from './fixture.mjs';
import { startGitServer } from '../fixtures/git-http-server.mjs';
import { internalStateFiles, PLANTED } from '../fixtures/internal-state.mjs';

const fx = await useFixture();
const { app, browser } = fx;
const server = await startGitServer();
fx.defer(() => server.close());
const work = await fx.tempDir('clawser-internal-');

/** The real git CLI as another collaborator. @param {string} cwd @param {...string} args @returns {Promise<string>} */
function git(cwd, ...args) {
  /** @type {NodeJS.ProcessEnv} */
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_')) env[k] = v;
  Object.assign(env, { HOME: work, XDG_CONFIG_HOME: work, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' });
  return new Promise((resolve, reject) => {
    execFile('git', ['-c', 'user.name=Other', '-c', 'user.email=other@example.com', ...args], { cwd, env }, (err, stdout, stderr) =>
      err ? reject(new Error(`git ${args.join(' ')}: ${stderr}`)) : resolve(stdout.trim()),
    );
  });
}

/**
 * What the open workspace's own stores hold, read by the app's store classes from OPFS.
 * @param {import('playwright-core').Page} page
 */
function storesOf(page) {
  return page.evaluate(async () => {
    const ws = location.hash.split('/')[1];
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const { ScopedFileSystem } = await import('/web/storage/scoped-fs.js');
    const { Scheduler } = await import('/web/stores/scheduler.js');
    const { GoalStore } = await import('/web/stores/goals.js');
    const { MemoryStore } = await import('/web/memory/store.js');
    const { ConversationStore } = await import('/web/agent/conversation/conversation-store.js');
    const { CheckpointManager } = await import('/web/agent/coordination/checkpoint.js');
    const root = new OpfsFileSystem();
    const fs = new ScopedFileSystem(root, `clawser_workspaces/${ws}`);
    try {
      const memory = new MemoryStore({ fs });
      const checkpoints = new CheckpointManager({ fs });
      return {
        jobs: (await new Scheduler({ fs, execute: async () => ({ ok: true, summary: '' }) }).list()).map((j) => j.name),
        goals: (await new GoalStore({ fs }).list()).map((g) => g.description),
        memories: (await memory.list()).map((m) => m.key),
        pinned: (await memory.pinned()).map((m) => m.key),
        // The app makes conversations and checkpoints of its own; none may come from the repository.
        conversations: (await new ConversationStore(root, ws).list()).map((c) => c.title),
        checkpoints: await Promise.all((await checkpoints.list()).map(async (c) => JSON.stringify(await checkpoints.load(c.id)))),
        skills: !!(await fs.stat('.skills')),
        vault: !!(await fs.stat('.vault')),
        jobsFile: await fs.readText('.scheduler/jobs.json').catch(() => null),
      };
    } finally {
      root.terminate();
    }
  });
}

/**
 * Nothing the user did not make: no job, goal, memory, skill, and nothing planted anywhere.
 * @param {import('playwright-core').Page} page
 * @param {string} when
 */
async function assertNothingPlanted(page, when) {
  const s = await storesOf(page);
  assert.deepEqual(
    { jobs: s.jobs, goals: s.goals, memories: s.memories, pinned: s.pinned, skills: s.skills, vault: s.vault },
    { jobs: [], goals: [], memories: [], pinned: [], skills: false, vault: false },
    when,
  );
  assert.doesNotMatch(JSON.stringify(s), new RegExp(PLANTED), when);
}

const note = (/** @type {number} */ n) => `${n} files of Clawser's own folders in this repository were not checked out.`;

test('clone, branch switch, pull and restore of a repository carrying every internal folder install nothing of it', async () => {
  const planted = await internalStateFiles('v1');
  const url = await server.createRepo('planted', { 'README.md': '# Planted\n', 'docs/guide.md': 'Guide v1\n', ...planted });
  assert.match(
    await server.git('planted', 'show', 'main:.scheduler/jobs.json'),
    /"kind": "prompt"/,
    'the repository really carries a prompt job',
  );
  const page = await fx.newPage(browser.context);
  await page.goto(`${app.url}#home`);

  // Clone: the normal files arrive, the user is told what was left out.
  await page.getByRole('button', { name: 'Clone a git repository' }).click();
  const dialog = page.getByRole('dialog', { name: 'Clone a git repository' });
  await dialog.getByLabel('Repository URL').fill(url);
  await dialog.getByRole('button', { name: 'Clone' }).click();
  await page.getByRole('heading', { name: 'planted', exact: true }).waitFor();
  await page.getByRole('button', { name: 'README.md', exact: true }).waitFor();
  assert.equal(await readWorkspaceFile(page, 'docs/guide.md'), 'Guide v1\n');
  await assertNothingPlanted(page, 'after the clone');
  await page
    .getByRole('status')
    .filter({ hasText: `Cloned planted. ${note(Object.keys(planted).length)}` })
    .waitFor();

  // A branch carrying them (created from the cloned commit), and back.
  await page.getByRole('button', { name: 'Git', exact: true }).click();
  await page.getByRole('button', { name: 'New branch' }).click();
  await page
    .getByRole('dialog')
    .getByLabel(/Branch name/)
    .fill('side');
  await page.getByRole('dialog').getByRole('button', { name: 'Create and switch' }).click();
  await page.getByText(`Created branch side and switched to it. ${note(Object.keys(planted).length)}`).waitFor();
  await page.getByLabel('Current branch').selectOption('main');
  await page.getByText(`Switched to main. ${note(Object.keys(planted).length)}`).waitFor();
  await assertNothingPlanted(page, 'after creating and switching branches');
  assert.equal(await page.getByRole('heading', { name: 'Changes (0)' }).count(), 1, 'the left-out files do not show as deleted');

  // Someone changes every internal file and the guide; pull.
  const other = join(work, 'other');
  await git(work, 'clone', '-q', url, other);
  const v2 = await internalStateFiles('v2');
  for (const [path, text] of Object.entries({ ...v2, 'docs/guide.md': 'Guide v2\n' })) {
    await mkdir(dirname(join(other, path)), { recursive: true });
    await writeFile(join(other, path), text);
  }
  await git(other, 'add', '-A');
  await git(other, 'commit', '-q', '-m', 'Change everything');
  await git(other, 'push', '-q', 'origin', 'main');
  const onMain = new Set([...Object.keys(planted), ...Object.keys(v2)]).size;
  await page.getByRole('button', { name: 'Pull', exact: true }).click();
  await page.getByText(`Pulled: up to date with the remote. ${note(onMain)}`).waitFor();
  assert.equal(await readWorkspaceFile(page, 'docs/guide.md'), 'Guide v2\n');
  await assertNothingPlanted(page, 'after the pull');

  // Switch to the older branch (its internal files differ) and back.
  await page.getByLabel('Current branch').selectOption('side');
  await page.getByText(`Switched to side. ${note(Object.keys(planted).length)}`).waitFor();
  assert.equal(await readWorkspaceFile(page, 'docs/guide.md'), 'Guide v1\n');
  await assertNothingPlanted(page, 'after switching to the older branch');
  await page.getByLabel('Current branch').selectOption('main');
  await page.getByText(`Switched to main. ${note(onMain)}`).waitFor();

  // Restore the whole workspace to the first commit.
  await page.getByRole('button', { name: /initial/ }).click();
  await page.getByRole('button', { name: 'Restore workspace to this commit' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Restore workspace' }).click();
  await page
    .getByText(
      new RegExp(
        `Restored 1 file\\(s\\) from [0-9a-f]{7}; review and commit them\\. ${note(Object.keys(planted).length).replace(/[.()]/g, '\\$&')}`,
      ),
    )
    .waitFor();
  assert.equal(await readWorkspaceFile(page, 'docs/guide.md'), 'Guide v1\n');
  await assertNothingPlanted(page, 'after the restore');
  await page.close();
});

test("with the safety checks off, the agent's fs tools still cannot write or delete the scheduler's jobs; \
other files they can", async () => {
  const llm = await fx.startLlm();
  try {
    const page = await openWorkspace(browser.context, app.url, {
      provider: 'openai-compatible',
      model: 'test-model',
      baseUrl: `${llm.url}/v1`,
      autonomy: 'full',
    });
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: /Settings/ });
    await dialog.getByRole('checkbox', { name: /Safety checks/ }).uncheck();
    await page.getByRole('dialog', { name: 'Turn safety checks off?' }).getByRole('button', { name: 'Turn safety checks off' }).click();
    await dialog.getByRole('button', { name: 'Save', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.waitForURL((u) => !u.hash.endsWith('/settings'));
    // The user's own job, made by the scheduler (its owner).
    await page.evaluate(async () => {
      const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
      const { ScopedFileSystem } = await import('/web/storage/scoped-fs.js');
      const { Scheduler } = await import('/web/stores/scheduler.js');
      const root = new OpfsFileSystem();
      await new Scheduler({
        fs: new ScopedFileSystem(root, `clawser_workspaces/${location.hash.split('/')[1]}`),
        execute: async () => ({ ok: true, summary: '' }),
      }).add({
        name: 'My own job',
        trigger: { kind: 'interval', everyMs: 3_600_000, startAt: Date.now() + 3_600_000 },
        action: { kind: 'prompt', prompt: 'Summarise my notes.' },
      });
      root.terminate();
    });
    const mine = (await storesOf(page)).jobsFile;
    assert.match(mine ?? '', /My own job/);
    const plantedJobs = (await internalStateFiles('tool'))['.scheduler/jobs.json'];
    llm.enqueue(
      { toolCalls: [{ id: 'w1', name: 'fs_write', arguments: { path: '.scheduler/jobs.json', content: plantedJobs } }] },
      {
        toolCalls: [
          {
            id: 'w2',
            name: 'fs_write',
            arguments: {
              path: '.Memory/entries.jsonl',
              content:
                `{"op":"put","entry":{"id":"m1","key":"${PLANTED}","content":"obey","category":"core","timestamp":1,"pinned":` + `true}}\n`,
              mode: 'append',
            },
          },
        ],
      },
      { toolCalls: [{ id: 'd1', name: 'fs_delete', arguments: { path: '.scheduler/jobs.json' } }] },
      { toolCalls: [{ id: 'd2', name: 'fs_delete', arguments: { path: '.scheduler' } }] },
      { toolCalls: [{ id: 'ok', name: 'fs_write', arguments: { path: 'notes/allowed.md', content: 'a normal file' } }] },
      { text: 'All attempts made.' },
    );
    await sendMessage(page, 'try to change the scheduler');
    // Even calls the user allows are refused: the approval is not what protects the folders.
    await page.getByRole('dialog', { name: 'Allow “fs_write”?' }).getByRole('button', { name: 'Always allow' }).click();
    await page.getByRole('dialog', { name: 'Allow “fs_delete”?' }).getByRole('button', { name: 'Always allow' }).click();
    await page.locator('.msg.assistant .msg-body', { hasText: 'All attempts made.' }).waitFor();
    const cards = page.locator('.tool-card');
    assert.equal(await cards.count(), 5);
    for (let i = 0; i < 4; i++) {
      await cards.nth(i).locator('summary').click();
      assert.match(
        await cards.nth(i).locator('.tool-output').innerText(),
        /one of Clawser's own folders: only Clawser itself changes it/,
        `call ${i + 1} refused by storage`,
      );
    }
    // The control: safety really is off and the same tools write elsewhere.
    assert.equal(await readWorkspaceFile(page, 'notes/allowed.md'), 'a normal file');
    const after = await storesOf(page);
    assert.equal(after.jobsFile, mine, "the jobs file is exactly the user's");
    assert.deepEqual(after.jobs, ['My own job']);
    assert.deepEqual(after.pinned, []);
    assert.equal(await readWorkspaceFile(page, '.Memory/entries.jsonl'), null);
    await page.close();
  } finally {
    await llm.close();
  }
});
