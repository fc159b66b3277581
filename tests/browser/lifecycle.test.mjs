// Issue 11 §5, in a real Chromium on OPFS: checkpoints keep ids and offsets, never a copy of a
// conversation, and still bring back a turn cut off by a closed tab; deleting a conversation
// removes every copy of it (a backup exported afterwards holds none of it), also while a turn
// streams in it (no events.jsonl is left without its meta.json); a backup restore is exclusive
// across tabs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { unzipSync, strFromU8 } from 'fflate';
import { openWorkspace, sendMessage, waitInPage } from './helpers.mjs';
import { useFixture } from './fixture.mjs';

const fx = await useFixture({ llm: {} });
const { app, llm, browser } = fx;

/**
 * Every file under a folder of the open workspace (e.g. `.checkpoints`), path → text.
 * @param {import('playwright-core').Page} page @param {string} sub
 * @returns {Promise<Record<string, string>>}
 */
function filesUnder(page, sub) {
  return page.evaluate(async (sub) => {
    /** @type {Record<string, string>} */
    const out = {};
    let dir = await navigator.storage.getDirectory();
    try {
      for (const part of ['clawser_workspaces', location.hash.split('/')[1], ...sub.split('/')]) dir = await dir.getDirectoryHandle(part);
    } catch {
      return out;
    }
    /** @param {FileSystemDirectoryHandle} d @param {string} prefix */
    const walk = async (d, prefix) => {
      for await (const [name, handle] of /** @type {any} */ (d).entries()) {
        // any: TS's DOM lib lacks entries() on directory handles
        if (handle.kind === 'directory') await walk(handle, `${prefix}${name}/`);
        else out[`${prefix}${name}`] = await (await handle.getFile()).text();
      }
    };
    await walk(dir, '');
    return out;
  }, sub);
}

/** @param {import('playwright-core').Page} page */
const conversationId = (page) => page.evaluate(() => location.hash.split('/')[3] ?? '');

/** @param {import('playwright-core').Page} page */
async function openLlmWorkspace(page) {
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  await page.waitForURL((u) => u.hash.split('/').length > 3);
}

const settings = () => ({ provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1` });

test('a checkpoint holds ids and offsets, no copy of the conversation; \
the turn cut off by a closed tab is still offered for retry', async () => {
  const page = await openWorkspace(browser.context, app.url, settings());
  await openLlmWorkspace(page);
  await sendMessage(page, 'alpha first turn words');
  await page.getByText('You said: alpha first turn words').waitFor();
  llm.enqueue({ text: 'this reply never finishes because the tab goes away', dropAfter: 4, holdOpen: true });
  await sendMessage(page, 'beta second turn words');
  await page.locator('.msg.streaming .msg-body', { hasText: 'reply' }).waitFor();
  await waitInPage(
    page,
    async () => {
      const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
      const { ScopedFileSystem } = await import('/web/storage/scoped-fs.js');
      const { CheckpointManager } = await import('/web/agent/coordination/checkpoint.js');
      const cm = new CheckpointManager({
        fs: new ScopedFileSystem(new OpfsFileSystem(), `clawser_workspaces/${location.hash.split('/')[1]}`),
      });
      return (await cm.latest()).checkpoint?.state.turn?.status === 'running';
    },
    undefined,
    { what: 'a checkpoint of the running turn' },
  );
  const id = await conversationId(page);
  const checkpoints = await filesUnder(page, '.checkpoints');
  assert.ok(Object.keys(checkpoints).length >= 3, 'checkpoints of the turns were written');
  // Control: the probe finds the text where it is (the conversation's log).
  const log = (await filesUnder(page, `.conversations/${id}`))['events.jsonl'];
  for (const text of ['alpha first turn', 'You said: alpha', 'beta second turn']) {
    assert.ok(log.includes(text), `the log holds "${text}"`);
    for (const [path, content] of Object.entries(checkpoints)) assert.ok(!content.includes(text), `checkpoint ${path} holds no "${text}"`);
  }
  assert.ok(
    Object.values(checkpoints).some((c) => c.includes(id)),
    'the checkpoints name the conversation by its id',
  );

  const url = page.url();
  await page.close({ runBeforeUnload: false });
  const again = await fx.newPage(browser.context);
  await again.goto(url);
  await again.getByText('Your last request was interrupted: the tab closed before the reply finished.').waitFor();
  await again.getByRole('button', { name: 'Retry' }).click();
  await again.getByText('You said: beta second turn words').waitFor();
  await again.close();
});

test('deleting a conversation deletes every copy of it: a backup exported afterwards contains none of its text', async () => {
  const page = await openWorkspace(browser.context, app.url, settings());
  await openLlmWorkspace(page);
  await sendMessage(page, 'gamma words to forget');
  await page.getByText('You said: gamma words to forget').waitFor();
  const gone = await conversationId(page);
  await openLlmWorkspace(page);
  await sendMessage(page, 'delta words to keep');
  await page.getByText('You said: delta words to keep').waitFor();
  await page.getByRole('button', { name: /^More actions for gamma words/ }).click();
  await page.getByRole('button', { name: /^Delete conversation gamma words/ }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete conversation' }).click();
  await page.getByRole('button', { name: /^More actions for gamma words/ }).waitFor({ state: 'detached' });

  await page.goto(`${app.url}#home`);
  await page.getByRole('button', { name: 'Export everything' }).click();
  const exportDialog = page.getByRole('dialog', { name: 'Export everything' });
  const [download] = await Promise.all([page.waitForEvent('download'), exportDialog.getByRole('button', { name: 'Export' }).click()]);
  const entries = unzipSync(new Uint8Array(await readFile(/** @type {string} */ (await download.path()))));
  const texts = Object.entries(entries).map(([name, bytes]) => [name, strFromU8(bytes)]);
  // Control: what was kept is found by the same probe, checkpoints included.
  assert.ok(
    texts.some(([, t]) => t.includes('delta words to keep')),
    'the kept conversation is in the backup',
  );
  assert.ok(
    texts.some(([name]) => name.includes('/.checkpoints/')),
    'the backup has checkpoints',
  );
  for (const [name, text] of texts) {
    assert.ok(!text.includes('gamma words'), `${name} holds none of the deleted conversation's text`);
    assert.ok(!text.includes(gone) && !name.includes(gone), `${name} does not mention the deleted conversation`);
  }
  await page.close();
});

test('deleting a conversation while its turn streams waits for the turn to end: no events.jsonl is left without meta.json', async () => {
  const page = await openWorkspace(browser.context, app.url, settings());
  await openLlmWorkspace(page);
  await sendMessage(page, 'epsilon first');
  await page.getByText('You said: epsilon first').waitFor();
  const id = await conversationId(page);
  llm.enqueue({ text: 'a long streamed answer that is still being written', dropAfter: 5, holdOpen: true });
  await sendMessage(page, 'epsilon second');
  await page.locator('.msg.streaming .msg-body', { hasText: 'answer' }).waitFor();
  // Control: while the turn runs, the conversation's folder has both files.
  assert.deepEqual(
    Object.keys(await filesUnder(page, `.conversations/${id}`))
      .filter((n) => n !== 'snapshot.json' && !n.startsWith('undo/'))
      .sort(),
    ['events.jsonl', 'meta.json'],
  );
  await page.getByRole('button', { name: /^More actions for epsilon/ }).click();
  await page.getByRole('button', { name: /^Delete conversation epsilon/ }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete conversation' }).click();
  await page.getByRole('button', { name: /^More actions for epsilon/ }).waitFor({ state: 'detached' });
  // The turn has ended when the daemon checkpointed its end (after the turn's last append).
  await waitInPage(
    page,
    async () => {
      const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
      const { ScopedFileSystem } = await import('/web/storage/scoped-fs.js');
      const { CheckpointManager } = await import('/web/agent/coordination/checkpoint.js');
      const cm = new CheckpointManager({
        fs: new ScopedFileSystem(new OpfsFileSystem(), `clawser_workspaces/${location.hash.split('/')[1]}`),
      });
      return (await cm.latest()).checkpoint?.state.turn?.status === 'idle';
    },
    undefined,
    { what: "the checkpoint of the turn's end" },
  );
  // The stopped turn's last events were written before the files went, not after.
  assert.deepEqual(await filesUnder(page, `.conversations/${id}`), {});
  const all = await filesUnder(page, '.conversations');
  const dirs = new Set(Object.keys(all).map((p) => p.split('/')[0]));
  for (const d of dirs) if (`${d}/events.jsonl` in all) assert.ok(`${d}/meta.json` in all, `${d} has its meta.json`);
  await page.close();
});
