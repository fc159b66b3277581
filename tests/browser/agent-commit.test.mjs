// Issue 32 §6 in a real Chromium, as a new user would: a file written in the Terminal and a goal
// added in the Goals panel stay the user's uncommitted work when the agent (the scripted LLM
// server) writes agent.txt: the agent's commit lists only agent.txt, and the Git panel still
// shows the user's files as changes. A turn writing two files commits both (control); undo is
// its own commit and a later turn's commit has only its own paths; restoring the workspace to
// before the agent's commit keeps the user's uncommitted work.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sendMessage, readWorkspaceFile, waitInPage } from './helpers.mjs';
import { useFixture } from './fixture.mjs';

/** The goal's Markdown mirror (a workspace file). */
let goalFile = '';

const { llm, page } = await useFixture({
  llm: {},
  settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1` }),
});

/**
 * The workspace's repository as stored in OPFS: its commits (newest first) with the paths each changed, and the paths with changes not
 * committed.
 */
function repository() {
  return page.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const { ScopedFileSystem } = await import('/web/storage/scoped-fs.js');
    const { WorkspaceGit } = await import('/web/git/git.js');
    const fs = new OpfsFileSystem();
    try {
      const repo = new WorkspaceGit(new ScopedFileSystem(fs, `clawser_workspaces/${location.hash.split('/')[1]}`));
      const commits = await Promise.all(
        (await repo.log()).map(async (c) => ({
          message: c.message.split('\n')[0],
          paths: (await repo.diffCommit(c.oid)).map((d) => d.path),
        })),
      );
      const uncommitted = (await repo.status())
        .filter((s) => s.state !== 'unchanged' || s.staged || s.unstaged)
        .map((s) => s.path)
        .sort();
      return { commits, uncommitted };
    } finally {
      fs.terminate();
    }
  });
}

/** Waits until a workspace file has this text. @param {string} path @param {string} text */
async function fileIs(path, text) {
  await waitInPage(
    page,
    async ([p, t]) => {
      const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
      const fs = new OpfsFileSystem();
      try {
        return (await fs.readText(`clawser_workspaces/${location.hash.split('/')[1]}/${p}`).catch(() => null)) === t;
      } finally {
        fs.terminate();
      }
    },
    [path, text],
    { what: `${path} to read ${JSON.stringify(text)}` },
  );
}

/** Types a line into the Terminal panel and waits for the file it writes. @param {string} line @param {string} path @param {string} text */
async function inTerminal(line, path, text) {
  await page.getByRole('button', { name: 'Terminal', exact: true }).click();
  await page.getByRole('heading', { name: 'Terminal' }).waitFor();
  await page.locator('.terminal-host:visible .xterm-helper-textarea').focus();
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
  await fileIs(path, text);
}

/**
 * The chat, a message, and the agent's reply done. @param {string} text @param {string} done the reply's last text
 * @param {boolean} [allow] the first write asks: "Always allow" it
 */
async function turn(text, done, allow = false) {
  await page.getByRole('button', { name: 'Chat', exact: true }).click();
  await sendMessage(page, text);
  if (allow) await page.getByRole('dialog', { name: 'Allow “fs_write”?' }).getByRole('button', { name: 'Always allow' }).click();
  await page.locator('.msg.assistant .msg-body', { hasText: done }).waitFor();
}

/** The Git panel's lists of changes ("state path" per row), once it shows `expected` rows. @param {string[]} expected */
async function gitPanelChanges(expected) {
  await page.getByRole('button', { name: 'Git', exact: true }).click();
  const changes = page.getByRole('region', { name: 'Changes' });
  for (const row of expected) await changes.locator('.change-row', { hasText: row }).waitFor();
  return (await changes.locator('.change-row > .link-btn').allTextContents()).map((t) => t.trim()).sort();
}

test("the agent's commit lists only agent.txt; the Terminal's a.txt and the new goal's file still show as uncommitted (control: \
a turn writing two files commits both)", async () => {
  await inTerminal('echo mine > a.txt', 'a.txt', 'mine\n');
  await page.getByRole('button', { name: 'Goals', exact: true }).click();
  await page.getByLabel('New goal').fill('Write the report');
  await page.getByRole('button', { name: 'Add goal' }).click();
  goalFile = await page.locator('.goal code').first().innerText();
  assert.match(goalFile, /^goals\/active\/write-the-report-.+\.md$/);
  assert.match(String(await readWorkspaceFile(page, goalFile)), /^# Write the report/);

  llm.enqueue(
    { toolCalls: [{ id: 'w1', name: 'fs_write', arguments: { path: 'agent.txt', content: 'from the agent\n' } }] },
    { text: 'Wrote agent.txt.' },
  );
  await turn('write agent.txt', 'Wrote agent.txt.', true);
  await page.getByText(/The agent's file changes were committed \([0-9a-f]{7}\)/).waitFor();
  const repo = await repository();
  assert.deepEqual(repo.commits[0], { message: 'Agent: write agent.txt', paths: ['agent.txt'] });
  assert.deepEqual(repo.uncommitted, ['a.txt', goalFile].sort());
  const shown = ['untracked a.txt', `untracked ${goalFile}`].sort();
  assert.deepEqual(await gitPanelChanges(shown), shown, "the Git panel lists the user's files as changes, and only them");

  // Control: a turn that writes two files commits both (and still nothing of the user's).
  llm.enqueue(
    {
      toolCalls: [
        { id: 'x', name: 'fs_write', arguments: { path: 'notes/x.md', content: 'x' } },
        { id: 'y', name: 'fs_write', arguments: { path: 'y.txt', content: 'y' } },
      ],
    },
    { text: 'Wrote two files.' },
  );
  await turn('write two files', 'Wrote two files.');
  await page.getByText(/The agent's file changes were committed/).waitFor();
  const after = await repository();
  assert.deepEqual(after.commits[0], { message: 'Agent: write two files', paths: ['notes/x.md', 'y.txt'] });
  assert.deepEqual(after.uncommitted, ['a.txt', goalFile].sort());
});

test("undo is its own commit, and the next turn's commit holds only its own paths (control: \
the user's files stay uncommitted)", async () => {
  await page.getByRole('button', { name: 'Chat', exact: true }).click();
  await page.getByRole('button', { name: 'Undo turn' }).click();
  await page.getByText(/The undo was committed \([0-9a-f]{7}\)/).waitFor();
  assert.equal(await readWorkspaceFile(page, 'y.txt'), null);
  const undone = await repository();
  assert.deepEqual(undone.commits[0], { message: 'Undo turn: write two files', paths: ['notes/x.md', 'y.txt'] });
  llm.enqueue(
    { toolCalls: [{ id: 'l', name: 'fs_write', arguments: { path: 'later.txt', content: 'later\n' } }] },
    { text: 'Wrote later.txt.' },
  );
  await turn('write later.txt', 'Wrote later.txt.');
  await waitInPage(page, () => Promise.resolve(/The agent's file changes were committed/.test(document.body.innerText)), undefined, {
    what: 'the commit notice',
  });
  const repo = await repository();
  assert.deepEqual(
    repo.commits.map((c) => c.message),
    ['Agent: write later.txt', 'Undo turn: write two files', 'Agent: write two files', 'Agent: write agent.txt'],
  );
  assert.deepEqual(repo.commits[0].paths, ['later.txt'], "the undo's deletions are not swept into the later turn");
  assert.deepEqual(repo.uncommitted, ['a.txt', goalFile].sort());
});

test("restoring the workspace to before the agent's commit keeps the user's uncommitted work (control: \
the agent's file is removed)", async () => {
  // More work of the user's, not committed: an edit of a.txt and a new file.
  await inTerminal('echo more >> a.txt; echo b > b.txt', 'b.txt', 'b\n');
  llm.enqueue(
    { toolCalls: [{ id: 'f', name: 'fs_write', arguments: { path: 'final.txt', content: 'final\n' } }] },
    { text: 'Wrote final.txt.' },
  );
  await turn('write final.txt', 'Wrote final.txt.');
  await page.getByRole('button', { name: 'Git', exact: true }).click();
  // The commit before the agent's latest one ("Agent: write final.txt").
  const history = page.getByRole('region', { name: 'History' }).locator('.commit-list > li');
  await history
    .first()
    .getByRole('button', { name: /Agent: write final\.txt/ })
    .waitFor();
  await history.nth(1).getByRole('button').click();
  await page.getByRole('button', { name: 'Restore workspace to this commit' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Restore workspace' }).click();
  const status = page.locator('.git-status', { hasText: /^Restored/ });
  await status.waitFor();
  assert.equal(await readWorkspaceFile(page, 'final.txt'), null, "the agent's file is gone");
  assert.equal(await readWorkspaceFile(page, 'a.txt'), 'mine\nmore\n', "the user's edit is kept");
  assert.equal(await readWorkspaceFile(page, 'b.txt'), 'b\n', "the user's new file is kept");
  assert.match(String(await readWorkspaceFile(page, goalFile)), /^# Write the report/);
  assert.match(
    await status.innerText(),
    new RegExp(
      String.raw`^Restored 1 file\(s\) from [0-9a-f]{7}; review and commit them\. Kept 3 files with changes not ` +
        String.raw`committed as they are: a\.txt, b\.txt, goals\/active\/write-the-report-`,
    ),
  );
  assert.equal(await readWorkspaceFile(page, 'agent.txt'), 'from the agent\n', 'what that commit has stays');
});
