// Backup → wipe all site data → restore, in a real Chromium: everything comes back byte for
// byte (OPFS files incl. conversations and the git repository, settings), API keys only with
// the passphrase; a damaged backup is refused before anything is touched.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { openWorkspace, sendMessage, saveSettings, waitInPage } from './helpers.mjs';
import { useFixture } from './fixture.mjs';

const { app, browser } = await useFixture();

/**
 * Every OPFS file (path → SHA-256) and every stored setting, with sealed secrets replaced by
 * their decrypted value (ciphertexts differ after re-sealing). The settings' own files
 * (clawser_state/) are compared by what they hold, not byte for byte: a backup carries the
 * settings, not those files.
 * @param {import('playwright-core').Page} page
 */
function snapshot(page) {
  return page.evaluate(async () => {
    const { SecretBox } = await import('/web/storage/secrets.js');
    /** @type {Record<string, string>} */
    const files = {};
    /** @param {FileSystemDirectoryHandle} dir @param {string} prefix */
    const walk = async (dir, prefix) => {
      for await (const [name, handle] of /** @type {any} */ (dir).entries()) {
        if (name.includes('.tmp-')) continue; // an atomic write in progress
        if (!prefix && name === 'clawser_state') continue; // the settings: compared below, by what they hold
        if (handle.kind === 'directory') await walk(handle, `${prefix}${name}/`);
        else {
          const bytes = await (await handle.getFile()).arrayBuffer();
          files[`${prefix}${name}`] = [...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))]
            .map((b) => b.toString(16).padStart(2, '0'))
            .join('');
        }
      }
    };
    const root = await navigator.storage.getDirectory();
    await walk(root, '');
    /** @type {Record<string, string>} */
    const stored = {};
    for (const name of ['workspaces.json', 'settings.json']) {
      let file;
      try {
        file = await (await (await root.getDirectoryHandle('clawser_state')).getFileHandle(name)).getFile();
      } catch {
        continue; // nothing of it stored yet (a fresh start has no settings)
      }
      Object.assign(stored, JSON.parse(await file.text()).entries);
    }
    const box = new SecretBox();
    /** @type {Record<string, string>} */
    const config = {};
    for (const key of Object.keys(stored).sort()) {
      const raw = stored[key];
      const value = JSON.parse(raw);
      config[key] = typeof value === 'string' && value.startsWith('v1:') ? `secret:${await box.decrypt(value)}` : raw;
    }
    return { files, config };
  });
}

/**
 * Waits until what opening a workspace writes in the background is there: its `git init`
 * (.git/HEAD) and its agents' marker (.agents/store.json).
 * @param {import('playwright-core').Page} page
 */
function waitForRepo(page) {
  return waitInPage(
    page,
    async () => {
      const root = await navigator.storage.getDirectory();
      try {
        const ws = await (await root.getDirectoryHandle('clawser_workspaces')).getDirectoryHandle(location.hash.split('/')[1]);
        await (await ws.getDirectoryHandle('.git')).getFileHandle('HEAD');
        await (await ws.getDirectoryHandle('.agents')).getFileHandle('store.json');
        return true;
      } catch {
        return false;
      }
    },
    undefined,
    { what: "the workspace's git init and agents' marker" },
  );
}

/**
 * The middle of the largest entry's data in a ZIP (walking the local file headers).
 * @param {Buffer} zip
 */
function dataOffsetOfLargestEntry(zip) {
  let best = { size: 0, at: -1 };
  for (let at = 0; zip.readUInt32LE(at) === 0x04034b50; ) {
    const size = zip.readUInt32LE(at + 18);
    const start = at + 30 + zip.readUInt16LE(at + 26) + zip.readUInt16LE(at + 28);
    if (size > best.size) best = { size, at: start + Math.floor(size / 2) };
    at = start + size;
  }
  assert.ok(best.at > 0, 'the backup has a file with data');
  return best.at;
}

test('export everything, wipe the site, restore: files, conversations, git and settings come back byte for byte', async () => {
  const page = await openWorkspace(browser.context, app.url, {
    provider: 'openai',
    model: 'gpt-4o-mini',
    apiKey: 'sk-test-backup-key-0123456789',
  });
  // A conversation (Echo), files, a git commit, a second workspace.
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: /Settings/ });
  await dialog.getByLabel('Provider', { exact: true }).selectOption('echo');
  await saveSettings(page);
  await page.getByText('Echo · test provider, no AI').waitFor();
  await sendMessage(page, 'remember this conversation');
  await page.locator('.msg.assistant', { hasText: 'remember this conversation' }).waitFor();
  await page.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const { ScopedFileSystem } = await import('/web/storage/scoped-fs.js');
    const { WorkspaceGit } = await import('/web/git/git.js');
    const ws = new ScopedFileSystem(new OpfsFileSystem(), `clawser_workspaces/${location.hash.split('/')[1]}`);
    await ws.write('notes/plan.md', '# Plan\n');
    await ws.write('bin/data.bin', new Uint8Array([0, 255, 1, 254, 2]));
    await new WorkspaceGit(ws).commitAll({ message: 'Before backup' });
    await ws.write('notes/uncommitted.md', 'not committed yet\n');
  });
  await page.goto(`${app.url}#home`);
  await page.getByRole('button', { name: 'New workspace' }).click();
  await page.getByRole('dialog').getByLabel('Workspace name').fill('Second');
  await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
  await page.getByRole('heading', { name: 'Second' }).waitFor();
  // Opening a workspace makes it a git repository in the background: let that finish first.
  await waitForRepo(page);
  await page.goto(`${app.url}#home`);
  await page.getByRole('heading', { name: 'Workspaces' }).waitFor();
  // The chat turn's usage is written a moment after the turn (batched): let it land first.
  await waitInPage(
    page,
    async () => {
      const root = await (await navigator.storage.getDirectory()).getDirectoryHandle('clawser_workspaces');
      for await (const ws of /** @type {any} */ (root).values()) {
        // any: the directory iterator is missing from TypeScript's DOM types
        try {
          await (await ws.getDirectoryHandle('.usage')).getFileHandle('ledger.json');
          return true;
        } catch {
          // not this workspace
        }
      }
      return false;
    },
    undefined,
    { what: 'the usage ledger' },
  );
  const beforeBackup = await snapshot(page);
  assert.ok(Object.keys(beforeBackup.files).some((p) => p.includes('/.conversations/')));
  assert.ok(Object.keys(beforeBackup.files).some((p) => p.includes('/.git/objects/')));

  // Export with the API key, protected by a passphrase.
  await page.getByRole('button', { name: 'Export everything' }).click();
  const exportDialog = page.getByRole('dialog', { name: 'Export everything' });
  await exportDialog.getByLabel(/Include API keys/).check();
  await exportDialog.getByLabel(/Passphrase/).fill('correct horse battery');
  const [download] = await Promise.all([page.waitForEvent('download'), exportDialog.getByRole('button', { name: 'Export' }).click()]);
  assert.match(download.suggestedFilename(), /^clawser-backup-\d{4}-\d\d-\d\d\.zip$/);
  const backupBytes = await readFile(/** @type {string} */ (await download.path()));
  assert.ok(!backupBytes.includes(Buffer.from('sk-test-backup-key')), 'the key is not in the file in clear');

  // Wipe all site data (OPFS, localStorage, IndexedDB with the key-sealing key, service worker).
  const cdp = await browser.context.newCDPSession(page);
  await cdp.send('Storage.clearDataForOrigin', { origin: app.url.replace(/\/$/, ''), storageTypes: 'all' });
  await page.goto(`${app.url}#home`);
  await page.reload();
  await page.getByRole('heading', { name: 'Workspaces' }).waitFor();
  assert.equal(await page.getByRole('link', { name: /Second/ }).count(), 0, 'the wipe removed everything');
  // The fresh start creates a workspace; let its background git init finish before comparing.
  await page.getByRole('link', { name: /My workspace/ }).click();
  await page.waitForURL(/#workspace\//);
  await waitForRepo(page);
  await page.goto(`${app.url}#home`);
  await page.getByRole('heading', { name: 'Workspaces' }).waitFor();

  // A damaged backup is refused before anything changes.
  // The damage goes into a stored file's data: a flipped byte in ZIP metadata that carries no
  // data (a time stamp, a version field) leaves every file intact, and such a backup restores.
  const damaged = Buffer.from(backupBytes);
  damaged[dataOffsetOfLargestEntry(damaged)] ^= 0xff;
  const beforeDamaged = await snapshot(page);
  await page
    .locator('input[aria-label="Choose a backup file to restore"]')
    .setInputFiles({ name: 'bad.zip', mimeType: 'application/zip', buffer: damaged });
  await page
    .getByRole('alert')
    .filter({ hasText: /backup|archive|damaged|corrupt/i })
    .waitFor();
  assert.deepEqual(await snapshot(page), beforeDamaged);
  await page.getByRole('alert').getByRole('button', { name: 'Dismiss' }).click();

  // Restore: the passphrase unlocks the key; the summary says what is replaced.
  await page
    .locator('input[aria-label="Choose a backup file to restore"]')
    .setInputFiles({ name: 'backup.zip', mimeType: 'application/zip', buffer: backupBytes });
  const pass = page.getByRole('dialog', { name: 'This backup includes API keys' });
  await pass.getByLabel('Passphrase').fill('correct horse battery');
  await pass.getByRole('button', { name: 'Continue' }).click();
  const confirm = page.getByRole('dialog', { name: 'Replace everything with this backup?' });
  await confirm.waitFor();
  assert.match(await confirm.innerText(), /2 workspace\(s\) \(My workspace, Second\).*1 API key/s);
  // A restore of many files takes long on a loaded machine: waited for, not timed; one that
  // fails says why instead of the page reloading, and the test says what it said.
  const reloaded = page.waitForEvent('load', { timeout: 180_000 }).then(
    () => 'reloaded',
    (err) => `no reload: ${err}`,
  );
  await confirm.getByRole('button', { name: 'Replace everything' }).click();
  const failed = page.getByRole('alert').filter({ hasText: /restore|backup/i });
  assert.equal(
    await Promise.race([
      reloaded,
      failed.waitFor({ timeout: 180_000 }).then(
        async () => `the app said: ${await failed.innerText()}`,
        () => new Promise(() => {}),
      ),
    ]),
    'reloaded',
  );
  await page.getByRole('link', { name: /Second/ }).waitFor();
  // The restore ends with a success message on the page it reloads to, said once.
  const done = page
    .getByRole('status')
    .filter({ hasText: /^Backup restored: 2 workspace\(s\) \(My workspace, Second\), \d+ files, 1 API key\(s\)/ });
  await done.waitFor();
  assert.equal(await page.evaluate(() => localStorage.getItem('clawser_restore_done')), null, 'said once: the hint is gone');
  const restored = await snapshot(page);
  assert.deepEqual(restored.files, beforeBackup.files);
  assert.deepEqual(restored.config, beforeBackup.config);
  // And the app uses it: the conversation is there.
  await page.getByRole('link', { name: /My workspace/ }).click();
  await page.locator('.msg.user', { hasText: 'remember this conversation' }).waitFor();
});
