// Remotes in a real Chromium against git's own smart-HTTP server (git http-backend behind a
// CGI bridge with CORS, on 127.0.0.1): clone into a new workspace with a token, push, pull,
// non-fast-forward, wrong token and a server without CORS — each with a clear message; the
// real git CLI checks what the browser pushed (git fsck --full, git log).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readWorkspaceFile, panelSays } from './helpers.mjs';
import { useFixture } from './fixture.mjs';
import { startGitServer } from '../fixtures/git-http-server.mjs';

const fx = await useFixture();
const { app, browser } = fx;
const server = await startGitServer({ token: 'sekret-token' });
fx.defer(() => server.close());
const work = await fx.tempDir('clawser-remote-');

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

/** A commit made elsewhere and pushed to the server. @param {string} file @param {string} content @param {string} message */
async function commitElsewhere(file, content, message) {
  const dir = await mkdtemp(join(work, 'other-'));
  const url = server.url.replace('http://', 'http://x:sekret-token@');
  await git(work, 'clone', '-q', `${url}/demo.git`, dir);
  await writeFile(join(dir, file), content);
  await git(dir, 'add', '-A');
  await git(dir, 'commit', '-q', '-m', message);
  await git(dir, 'push', '-q', 'origin', 'main');
}

test('clone with a token, push, pull, non-fast-forward, wrong token, no CORS', async () => {
  const url = await server.createRepo('demo', { 'README.md': '# Demo\n', 'docs/guide.md': 'Guide v1\n' });
  const page = await browser.context.newPage();
  page.setDefaultTimeout(60_000); // git over OPFS on a loaded machine: waited for, not timed
  await page.goto(`${app.url}#home`);

  // Clone into a new workspace, named after the repository.
  await page.getByRole('button', { name: 'Clone a git repository' }).click();
  const dialog = page.getByRole('dialog', { name: 'Clone a git repository' });
  await dialog.getByLabel('Repository URL').fill(url);
  await dialog.getByLabel(/Access token/).fill('sekret-token');
  await dialog.getByRole('button', { name: 'Clone' }).click();
  await page.getByRole('heading', { name: 'demo', exact: true }).waitFor();
  await page.getByRole('button', { name: 'README.md', exact: true }).waitFor();
  assert.equal(await readWorkspaceFile(page, 'docs/guide.md'), 'Guide v1\n');

  // Commit in the browser and push.
  await page.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const fs = new OpfsFileSystem();
    await fs.write(`clawser_workspaces/${location.hash.split('/')[1]}/docs/guide.md`, 'Guide v2 from the browser\n');
    fs.terminate();
  });
  await page.getByRole('button', { name: 'Git', exact: true }).click();
  await page.getByRole('button', { name: 'Stage all' }).click();
  await page.getByLabel(/Commit message/).fill('Update the guide');
  await page.getByRole('button', { name: 'Commit', exact: true }).click();
  await panelSays(page, /Committed [0-9a-f]{7}\./);
  assert.equal(await page.getByLabel('Repository URL (origin)').inputValue(), url);
  await page.getByRole('button', { name: 'Push', exact: true }).click();
  await panelSays(page, 'Pushed to the remote.');
  assert.equal(await server.git('demo', 'log', '--format=%s', 'main'), 'Update the guide\ninitial');
  assert.equal(await server.git('demo', 'show', 'main:docs/guide.md'), 'Guide v2 from the browser');
  await server.git('demo', 'fsck', '--full');

  // Someone else pushes; pull brings it in.
  await commitElsewhere('docs/other.md', 'from elsewhere\n', 'Commit from elsewhere');
  await page.getByRole('button', { name: 'Pull', exact: true }).click();
  await panelSays(page, 'Pulled: up to date with the remote.');
  assert.equal(await readWorkspaceFile(page, 'docs/other.md'), 'from elsewhere\n');

  // Both sides commit: the push is refused with advice to pull first.
  await commitElsewhere('docs/race.md', 'theirs\n', 'Their change');
  await page.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const fs = new OpfsFileSystem();
    await fs.write(`clawser_workspaces/${location.hash.split('/')[1]}/mine.md`, 'mine\n');
    fs.terminate();
  });
  await page.getByRole('button', { name: 'Refresh' }).click();
  await page.getByRole('button', { name: 'Stage all' }).click();
  await page.getByLabel(/Commit message/).fill('My change');
  await page.getByRole('button', { name: 'Commit', exact: true }).click();
  await panelSays(page, /Committed [0-9a-f]{7}\./);
  await page.getByRole('button', { name: 'Push', exact: true }).click();
  await page
    .getByRole('alert')
    .filter({ hasText: /Pull first, then push again/ })
    .waitFor();
  await page.getByRole('alert').getByRole('button', { name: 'Dismiss' }).click();
  // Pull merges (no conflict), then the push goes through.
  await page.getByRole('button', { name: 'Pull', exact: true }).click();
  await panelSays(page, 'Pulled: up to date with the remote.');
  await page.getByRole('button', { name: 'Push', exact: true }).click();
  await panelSays(page, 'Pushed to the remote.');
  const subjects = (await server.git('demo', 'log', '--format=%s', 'main')).split('\n');
  assert.ok(subjects.includes('My change') && subjects.includes('Their change'));
  await server.git('demo', 'fsck', '--full');
  const clone = await mkdtemp(join(work, 'check-'));
  await git(work, 'clone', '-q', `${server.url.replace('http://', 'http://x:sekret-token@')}/demo.git`, clone);
  assert.equal(await readFile(join(clone, 'mine.md'), 'utf8'), 'mine\n');

  // A wrong token: a clear message, nothing changed.
  await page.getByLabel('Access token').fill('wrong-token');
  await page.getByRole('button', { name: 'Save remote' }).click();
  await page.getByText('Remote settings saved.').waitFor();
  await page.getByRole('button', { name: 'Pull', exact: true }).click();
  await page
    .getByRole('alert')
    .filter({ hasText: /refused the credentials/ })
    .waitFor();
  await page.getByRole('alert').getByRole('button', { name: 'Dismiss' }).click();

  // A server that does not allow web pages (no CORS headers): the message says what to do.
  const noCors = await startGitServer({ cors: false });
  try {
    const plainUrl = await noCors.createRepo('plain');
    await page.goto(`${app.url}#home`);
    await page.getByRole('button', { name: 'Clone a git repository' }).click();
    await page.getByRole('dialog', { name: 'Clone a git repository' }).getByLabel('Repository URL').fill(plainUrl);
    await page.getByRole('dialog', { name: 'Clone a git repository' }).getByRole('button', { name: 'Clone' }).click();
    await page
      .getByRole('dialog', { name: 'Clone a git repository' })
      .getByRole('alert')
      .filter({ hasText: /does not allow requests from web pages \(CORS\)\. Give a CORS proxy/ })
      .waitFor();
    await page.getByRole('dialog', { name: 'Clone a git repository' }).getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await page.getByRole('link', { name: /plain/ }).count(), 0, 'the failed clone left no workspace');
  } finally {
    await noCors.close();
  }
  await page.close();
});

test('the Clone action refuses a repository whose pack expands like a zip bomb (40 MB of zeros), with the archive message, \
and leaves no workspace; control: the clone above', async () => {
  const bomb = await server.createRepo('bomb', { 'big.bin': new Uint8Array(40 * 1024 * 1024), 'README.md': 'hi\n' });
  const page = await fx.newPage(browser.context);
  await page.goto(`${app.url}#home`);
  await page.getByRole('button', { name: 'Clone a git repository' }).click();
  const dialog = page.getByRole('dialog', { name: 'Clone a git repository' });
  await dialog.getByLabel('Repository URL').fill(bomb);
  await dialog.getByLabel(/Access token/).fill('sekret-token');
  await dialog.getByRole('button', { name: 'Clone' }).click();
  await page
    .getByRole('alert')
    .filter({
      hasText:
        /The archive expands to more than 100 times its size \(\d+ KB to more than \d+ MB\), as zip bombs do; nothing was extracted\./,
    })
    .waitFor();
  assert.equal(await page.getByRole('link', { name: /bomb/ }).count(), 0, 'the refused clone left no workspace');
  const left = await page.evaluate(async () => {
    const root = await (await navigator.storage.getDirectory()).getDirectoryHandle('clawser_workspaces');
    /** @type {string[]} */
    const found = [];
    for await (const [name, handle] of /** @type {any} */ (root).entries()) {
      // any: the async iterator is not in TypeScript's DOM types here
      if (handle.kind !== 'directory') continue;
      try {
        await (await handle.getDirectoryHandle('.git')).getDirectoryHandle('objects');
        const bin = await handle.getFileHandle('big.bin').then(
          () => true,
          () => false,
        );
        if (bin) found.push(name);
      } catch {
        // no repository there
      }
    }
    return found;
  });
  assert.deepEqual(left, [], 'no big.bin written anywhere');
  await page.close();
});
