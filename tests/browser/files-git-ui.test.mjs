// The Files and Git panels in a real Chromium: create, edit (CodeMirror) and save, upload,
// drag & drop, rename/move, delete with confirmation, image and Markdown previews, ZIP
// import; then git status, stage, commit, history, diffs, branches and restore — on OPFS.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openWorkspace, readWorkspaceFile, storedConfigUntil } from './helpers.mjs';
import { useFixture } from './fixture.mjs';
import { zipSync, strToU8 } from 'fflate';

const fx = await useFixture();
const { app, browser } = fx;

/** 1×1 red PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');

test('files panel: create, edit with the editor, save, upload, drop, preview, rename, delete, ZIP import', async () => {
  const page = await openWorkspace(browser.context, app.url);
  /** @type {string[]} */ const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  // Not counted: the first-run card probing for a local Ollama / LM Studio (refused), and
  // DOMPurify's sanitizing of an onerror attribute that the page's CSP reports while blocking it.
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().includes('ERR_CONNECTION_REFUSED') && !m.location().url.endsWith('/dompurify.js'))
      errors.push(m.text());
  });
  await page.getByRole('button', { name: 'Files', exact: true }).click();
  await page.getByRole('heading', { name: 'Files', exact: true }).waitFor();
  await page.getByText('No files yet').waitFor();

  // New file → the editor opens with syntax colouring; typing marks it unsaved; Ctrl+S saves.
  await page.getByRole('button', { name: 'New file' }).click();
  await page.getByRole('dialog').getByLabel(/Name/).fill('src/app.js');
  await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
  const editor = page.getByRole('textbox', { name: 'Contents of src/app.js' });
  await editor.waitFor();
  await editor.click();
  await page.keyboard.type('const answer = 42; // the answer\n');
  await page.getByRole('heading', { name: 'src/app.js •' }).waitFor();
  assert.ok(await page.locator('.cm-lineNumbers').isVisible(), 'line numbers');
  const colours = await page
    .locator('.editor-holder .cm-line span', { hasText: 'const' })
    .first()
    .evaluate((el) => [getComputedStyle(el).color, getComputedStyle(/** @type {Element} */ (el.closest('.cm-line'))).color]);
  assert.notEqual(colours[0], colours[1], 'syntax colouring: the keyword has its own colour');
  // The editor's styles apply under the page's CSP (no inline <style>): spaces stay spaces.
  assert.equal(await page.locator('.editor-holder .cm-content').evaluate((el) => getComputedStyle(el).whiteSpace), 'break-spaces');
  await page.keyboard.press('Control+s');
  await page.getByRole('heading', { name: 'src/app.js', exact: true }).waitFor();
  const saved = await readWorkspaceFile(page, 'src/app.js');
  assert.equal(saved, 'const answer = 42; // the answer\n', JSON.stringify([...(saved ?? '')].map((c) => c.charCodeAt(0))));

  // Upload through the picker (into the selected folder "src"), an image preview.
  await page.locator('input[type=file][aria-label="Choose files to upload"]').setInputFiles([
    { name: 'dot.png', mimeType: 'image/png', buffer: PNG },
    {
      name: 'notes.md',
      mimeType: 'text/markdown',
      buffer: Buffer.from('# Title\n\nSome **bold** text <img src=x onerror="window.__pwned=1">\n'),
    },
  ]);
  await page.getByText(/Uploaded 2 file\(s\) to \/src/).waitFor();
  await page.getByRole('button', { name: 'dot.png', exact: true }).click();
  const img = page.getByRole('img', { name: 'Preview of src/dot.png' });
  await img.waitFor();
  assert.equal(await img.evaluate((el) => /** @type {HTMLImageElement} */ (el).naturalWidth), 1);
  // Markdown preview, sanitized.
  await page.getByRole('button', { name: 'notes.md', exact: true }).click();
  await page.getByRole('button', { name: 'Preview' }).click();
  await page.locator('.file-preview h1', { hasText: 'Title' }).waitFor();
  assert.equal(await page.locator('.file-preview strong').textContent(), 'bold');
  assert.equal(await page.locator('.file-preview [onerror]').count(), 0);
  assert.equal(await page.evaluate(() => /** @type {any} */ (window).__pwned), undefined);

  // Drag & drop a file onto the panel.
  await page.evaluate(() => {
    const dt = new DataTransfer();
    dt.items.add(new File(['dropped text'], 'dropped.txt', { type: 'text/plain' }));
    const panel = /** @type {HTMLElement} */ (document.querySelector('.files-panel'));
    panel.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
    panel.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  await page.getByText(/Uploaded 1 file\(s\)/).waitFor();
  assert.equal(await readWorkspaceFile(page, 'src/dropped.txt'), 'dropped text');

  // Rename (move into another folder), refused traversal, delete with confirmation.
  await page.getByRole('button', { name: 'Rename or move src/dropped.txt' }).click();
  await page
    .getByRole('dialog')
    .getByLabel(/New path/)
    .fill('../outside.txt');
  await page.getByRole('dialog').getByRole('button', { name: 'Rename' }).click();
  await page.getByText(/Path traversal/).waitFor();
  await page.getByRole('button', { name: 'Rename or move src/dropped.txt' }).click();
  await page
    .getByRole('dialog')
    .getByLabel(/New path/)
    .fill('archive/dropped.txt');
  await page.getByRole('dialog').getByRole('button', { name: 'Rename' }).click();
  await page.getByText('Moved to archive/dropped.txt.').waitFor();
  assert.equal(await readWorkspaceFile(page, 'archive/dropped.txt'), 'dropped text');
  assert.equal(await readWorkspaceFile(page, 'src/dropped.txt'), null);
  await page.getByRole('button', { name: 'Delete archive', exact: true }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
  assert.equal(await readWorkspaceFile(page, 'archive/dropped.txt'), 'dropped text', 'cancel keeps it');
  await page.getByRole('button', { name: 'Delete archive', exact: true }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await page.getByText('Deleted archive.').waitFor();
  assert.equal(await readWorkspaceFile(page, 'archive/dropped.txt'), null);

  // ZIP import: safe entries written, unsafe ones refused and reported.
  const zip = zipSync({ 'docs/readme.txt': strToU8('from zip'), '../evil.txt': strToU8('no'), '.git/config': strToU8('no') });
  await page
    .locator('input[type=file][aria-label="Choose a ZIP archive to import"]')
    .setInputFiles({ name: 'pack.zip', mimeType: 'application/zip', buffer: Buffer.from(zip) });
  await page.getByText(/Imported 1 file\(s\) from pack\.zip.*refused 2/).waitFor();
  assert.equal(await readWorkspaceFile(page, 'src/docs/readme.txt'), 'from zip');

  // Internal folders never show in the tree.
  assert.equal(await page.getByRole('button', { name: '.conversations' }).count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});

test('git panel: status, stage, commit, history, diff, branches, restore', async () => {
  // Its own browser profile: a fresh workspace with no files from the test above.
  const own = await fx.launchBrowser();
  try {
    const page = await openWorkspace(own.context, app.url);
    await page.evaluate(async () => {
      const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
      const ws = location.hash.split('/')[1];
      const fs = new OpfsFileSystem();
      await fs.write(`clawser_workspaces/${ws}/plan.md`, 'step one\nstep two\n');
      await fs.write(`clawser_workspaces/${ws}/data.json`, '{"a":1}\n');
      fs.terminate();
    });
    await page.getByRole('button', { name: 'Git', exact: true }).click();
    await page.getByRole('heading', { name: 'Git', exact: true }).waitFor();
    // The workspace was made a repository on open (auto init): both files are untracked changes.
    await page.getByRole('heading', { name: 'Changes (2)' }).waitFor();
    await page.getByRole('button', { name: 'Stage plan.md' }).click();
    await page.getByRole('heading', { name: 'Staged (1)' }).waitFor();
    await page.getByLabel(/Commit message/).fill('Add the plan');
    // A Git panel drawn again (another panel and back: a new panel) keeps what was typed.
    await page.getByRole('button', { name: 'Files', exact: true }).click();
    await page.getByRole('heading', { name: 'Files', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Git', exact: true }).click();
    await page.getByRole('heading', { name: 'Staged (1)' }).waitFor();
    assert.equal(await page.getByLabel(/Commit message/).inputValue(), 'Add the plan', 'the message typed is still there');
    await page.getByRole('button', { name: 'Commit', exact: true }).click();
    await page.getByText(/Committed [0-9a-f]{7}\./).waitFor();
    await page.getByRole('heading', { name: 'Changes (1)' }).waitFor();
    // Committed: a panel drawn again starts empty (control: the draft is gone with the commit).
    await page.getByRole('button', { name: 'Files', exact: true }).click();
    await page.getByRole('heading', { name: 'Files', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Git', exact: true }).click();
    await page.getByRole('heading', { name: 'Changes (1)' }).waitFor();
    assert.equal(await page.getByLabel(/Commit message/).inputValue(), '');
    await page.getByRole('button', { name: /Add the plan/ }).click();
    await page.locator('.diff-table tr.add', { hasText: 'step one' }).waitFor();

    // Edit through the files panel, see the diff, commit everything.
    await page.evaluate(async () => {
      const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
      const ws = location.hash.split('/')[1];
      const fs = new OpfsFileSystem();
      await fs.write(`clawser_workspaces/${ws}/plan.md`, 'step one\nstep 2\nstep three\n');
      fs.terminate();
    });
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByRole('button', { name: /modified plan\.md/ }).click();
    await page.locator('.diff-table tr.del', { hasText: 'step two' }).waitFor();
    await page.locator('.diff-table tr.add', { hasText: 'step three' }).waitFor();
    await page.getByRole('button', { name: 'Stage all' }).click();
    await page.getByLabel(/Commit message/).fill('Second version');
    await page.getByRole('button', { name: 'Commit', exact: true }).click();
    await page.getByRole('heading', { name: 'Staged (0)' }).waitFor();

    // Branch: create and switch, commit there, switch back — the file follows the branch.
    await page.getByRole('button', { name: 'New branch' }).click();
    await page
      .getByRole('dialog')
      .getByLabel(/Branch name/)
      .fill('experiment');
    await page.getByRole('dialog').getByRole('button', { name: 'Create and switch' }).click();
    await page.getByText('Created branch experiment and switched to it.').waitFor();
    assert.equal(await page.getByLabel('Current branch').inputValue(), 'experiment');
    await page.evaluate(async () => {
      const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
      const ws = location.hash.split('/')[1];
      const fs = new OpfsFileSystem();
      await fs.write(`clawser_workspaces/${ws}/plan.md`, 'experimental plan\n');
      fs.terminate();
    });
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByRole('button', { name: 'Stage all' }).click();
    await page.getByLabel(/Commit message/).fill('Experiment');
    await page.getByRole('button', { name: 'Commit', exact: true }).click();
    await page.getByRole('heading', { name: 'Staged (0)' }).waitFor();
    await page.getByLabel('Current branch').selectOption('main');
    await page.getByText('Switched to main.').waitFor();
    assert.equal(await readWorkspaceFile(page, 'plan.md'), 'step one\nstep 2\nstep three\n');

    // Restore the whole workspace to the first commit (confirmation), then commit the restore.
    await page.getByRole('button', { name: /Add the plan/ }).click();
    await page.getByRole('button', { name: 'Restore workspace to this commit' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Restore workspace' }).click();
    await page.getByText(/Restored \d file\(s\) from/).waitFor();
    assert.equal(await readWorkspaceFile(page, 'plan.md'), 'step one\nstep two\n');

    await page.getByRole('button', { name: 'Stage all' }).click();
    await page.getByLabel(/Commit message/).fill('Back to the first plan');
    await page.getByRole('button', { name: 'Commit', exact: true }).click();
    await page.getByRole('heading', { name: 'Staged (0)' }).waitFor();
    const log = await page.evaluate(async () => {
      const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
      const { ScopedFileSystem } = await import('/web/storage/scoped-fs.js');
      const { WorkspaceGit } = await import('/web/git/git.js');
      const ws = location.hash.split('/')[1];
      const repo = new WorkspaceGit(new ScopedFileSystem(new OpfsFileSystem(), `clawser_workspaces/${ws}`));
      return (await repo.log()).map((c) => c.message);
    });
    assert.deepEqual(log, ['Back to the first plan', 'Second version', 'Add the plan']);
    // Both automations are settings of the workspace.
    await page.getByLabel(/Keep this workspace a git repository/).uncheck();
    await page.getByLabel(/Commit automatically after each agent turn/).uncheck();
    // Saved in the background, as the boxes change.
    const agentKey = `clawser_agent_${decodeURIComponent(new URL(page.url()).hash.split('/')[1] ?? '')}`;
    await storedConfigUntil(
      page,
      (e) => {
        const git = JSON.parse(e[agentKey] ?? '{}').git;
        return git?.autoInit === false && git?.autoCommit === false;
      },
      'both automations off',
    );
  } finally {
    await own.close();
  }
});
