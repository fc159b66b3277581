// A backup restore is exclusive across tabs (issue 11 §5), in a real Chromium with two tabs of
// the app: while tab A restores, tab B shows a banner it cannot dismiss, refuses to save
// anything (a message sent then is not stored), and reloads when the restore has finished; the
// restored data is exactly the backup's. Control: B saves normally before the restore.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { openWorkspace, sendMessage, saveSettings } from './helpers.mjs';
import { useFixture } from './fixture.mjs';

const fx = await useFixture();
const { app, browser } = fx;

/** The open conversation's event log, as stored. @param {import('playwright-core').Page} page @param {string} ws @param {string} conv */
function eventLog(page, ws, conv) {
  return page.evaluate(
    async ([w, c]) => {
      const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
      const fs = new OpfsFileSystem();
      try {
        return await fs.readText(`clawser_workspaces/${w}/.conversations/${c}/events.jsonl`);
      } finally {
        fs.terminate();
      }
    },
    [ws, conv],
  );
}

test("while one tab restores a backup, another stops writing, shows a banner, refuses a message, and reloads afterwards; \
the data is the backup's", async () => {
  const b = await openWorkspace(browser.context, app.url);
  await b.getByRole('button', { name: 'Settings', exact: true }).click();
  await b
    .getByRole('dialog', { name: /Settings/ })
    .getByLabel('Provider', { exact: true })
    .selectOption('echo');
  await saveSettings(b);
  await sendMessage(b, 'before the backup');
  await b.locator('.msg.assistant', { hasText: 'before the backup' }).waitFor();
  const [, ws, , conv] = new URL(b.url()).hash.slice(1).split('/');
  assert.ok(ws && conv);

  const a = await fx.newPage(browser.context);
  await a.goto(`${app.url}#home`);
  await a.getByRole('button', { name: 'Export everything' }).click();
  const exportDialog = a.getByRole('dialog', { name: 'Export everything' });
  const [download] = await Promise.all([a.waitForEvent('download'), exportDialog.getByRole('button', { name: 'Export' }).click()]);
  const backup = await readFile(/** @type {string} */ (await download.path()));
  const atBackup = await eventLog(a, ws, conv);
  assert.match(atBackup, /before the backup/);

  // Control: before any restore, B saves normally.
  await sendMessage(b, 'after the backup');
  await b.locator('.msg.assistant', { hasText: 'after the backup' }).waitFor();
  assert.match(await eventLog(a, ws, conv), /after the backup/);

  // A write of B's in flight (B holds the restore gate's lock in shared mode, as every store
  // write does): A's restore is announced at once but has to wait for it.
  await b.evaluate(
    () =>
      new Promise((held) => {
        navigator.locks.request(
          'clawser-restore',
          { mode: 'shared' },
          () =>
            new Promise((release) => {
              /** @type {any} */ (window).__releaseWrite = release; // any: a test hook on the page
              held(undefined);
            }),
        );
      }),
  );
  await a
    .locator('input[aria-label="Choose a backup file to restore"]')
    .setInputFiles({ name: 'backup.zip', mimeType: 'application/zip', buffer: backup });
  await a.getByRole('dialog', { name: 'Replace everything with this backup?' }).getByRole('button', { name: 'Replace everything' }).click();

  // B stands still and says why, with no way to dismiss it.
  const banner = b.getByText(
    'A backup is being restored in another tab. Nothing is saved here until it has finished; this tab reloads then.',
  );
  await banner.waitFor();
  const bannerBox = b
    .locator('.banner, [role="status"], [role="alert"]')
    .filter({ hasText: 'A backup is being restored in another tab. Nothing is saved' });
  assert.equal(await bannerBox.getByRole('button', { name: 'Dismiss' }).count(), 0);
  // The view cannot be used meanwhile (no new conversation, rename or message from here)…
  assert.equal(await b.locator('.view').evaluate((el) => /** @type {HTMLElement} */ (el).inert), true);
  assert.equal(
    await b.getByRole('button', { name: 'New conversation', exact: true }).evaluate((el) => !!el.closest('[inert]')),
    true,
    'its controls are inert',
  );
  // …and a write that comes anyway (here: the app's own send, as a scheduled job would) is
  // refused with a message that says so.
  await b.evaluate(() => {
    /** @type {HTMLElement} */ (document.querySelector('.view')).inert = false;
  });
  await sendMessage(b, 'during the restore');
  await b
    .getByText(/A backup is being restored in another tab: this change was not saved/)
    .first()
    .waitFor();
  assert.doesNotMatch(await eventLog(b, ws, conv), /during the restore/);

  // B's write ends: the restore runs, then B reloads by itself and shows the backup's data.
  const reloaded = b.waitForEvent('load');
  await b.evaluate(() => /** @type {any} */ (window).__releaseWrite()); // any: the test hook above
  await reloaded;
  await b.locator('.msg.user', { hasText: 'before the backup' }).waitFor();
  assert.equal(await b.locator('.msg.user', { hasText: 'after the backup' }).count(), 0);
  assert.equal(await b.getByText('A backup is being restored in another tab. Nothing is saved').count(), 0);
  assert.equal(
    await eventLog(b, ws, conv),
    atBackup,
    "the conversation is exactly the backup's: nothing B tried to save during the restore, nothing from after the backup",
  );
});
