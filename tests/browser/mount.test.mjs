// "Open a folder from this computer" in a real Chromium. The native folder picker cannot be
// driven headless, so showDirectoryPicker is replaced by one returning a real
// FileSystemDirectoryHandle (an OPFS folder standing in for the user's folder): everything
// after the picker — the files panel, the agent's tools, the handle remembered in IndexedDB
// across reloads, the permission asked again, leaving the folder — is the app's real code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openWorkspace, sendMessage } from './helpers.mjs';
import { useFixture } from './fixture.mjs';

const { app, llm, browser } = await useFixture({ llm: {} });
await browser.context.addInitScript(() => {
  /** @type {any} */ (window).showDirectoryPicker = async () =>
    (await navigator.storage.getDirectory()).getDirectoryHandle('my-computer-folder', { create: true });
  // A later visit: the browser asks for permission again (as Chrome does for a remembered handle).
  if (sessionStorage.getItem('ask-again')) {
    const proto = /** @type {any} */ (FileSystemHandle.prototype);
    proto.queryPermission = async () => (sessionStorage.getItem('granted') ? 'granted' : 'prompt');
    proto.requestPermission = async () => {
      sessionStorage.setItem('granted', '1');
      return 'granted';
    };
  }
  if (sessionStorage.getItem('no-fsa')) delete (/** @type {any} */ (window).showDirectoryPicker);
});

/** @param {import('playwright-core').Page} page @param {string} path */
const readFolderFile = (page, path) =>
  page.evaluate(async (p) => {
    let dir = await (await navigator.storage.getDirectory()).getDirectoryHandle('my-computer-folder');
    const parts = p.split('/');
    for (const part of parts.slice(0, -1)) dir = await dir.getDirectoryHandle(part);
    return (await (await dir.getFileHandle(/** @type {string} */ (parts.at(-1)))).getFile()).text();
  }, path);

test('a folder from the computer becomes the workspace for the panel and the agent; remembered, re-permitted, left', async () => {
  const page = await openWorkspace(browser.context, app.url, {
    provider: 'openai-compatible',
    model: 'test-model',
    baseUrl: `${llm.url}/v1`,
  });
  await page.evaluate(async () => {
    const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle('my-computer-folder', { create: true });
    const w = await (await dir.getFileHandle('readme.txt', { create: true })).createWritable();
    await w.write('Hello from the computer folder');
    await w.close();
  });
  await page.getByRole('button', { name: 'Files', exact: true }).click();
  await page.getByRole('button', { name: 'Open a folder from this computer' }).click();
  await page.getByText('Showing your folder “my-computer-folder”.').waitFor();
  await page.getByRole('button', { name: 'readme.txt', exact: true }).waitFor();

  // The panel edits the folder itself.
  await page.getByRole('button', { name: 'New file' }).click();
  await page.getByRole('dialog').getByLabel(/Name/).fill('notes/new.md');
  await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
  const editor = page.getByRole('textbox', { name: 'Contents of notes/new.md' });
  await editor.click();
  await page.keyboard.type('written in the panel');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByText('Saved notes/new.md.').waitFor();
  assert.equal(await readFolderFile(page, 'notes/new.md'), 'written in the panel');

  // The agent's tools see the same folder; its conversation stays in the browser's storage.
  llm.enqueue({ toolCalls: [{ id: 'r1', name: 'fs_read', arguments: { path: 'readme.txt' } }] }, { text: 'It says hello.' });
  await page.getByRole('button', { name: 'Back to chat' }).click();
  await sendMessage(page, 'what does readme.txt say?');
  await page.locator('.msg.assistant', { hasText: 'It says hello.' }).waitFor();
  const toolMessage = llm.requests.at(-1)?.body.messages.find((/** @type {any} */ m) => m.role === 'tool');
  assert.match(toolMessage.content, /Hello from the computer folder/);
  const leaked = await page.evaluate(async () => {
    const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle('my-computer-folder');
    /** @type {string[]} */ const names = [];
    for await (const [name] of /** @type {any} */ (dir).entries()) names.push(name);
    return names;
  });
  assert.ok(
    !leaked.includes('.conversations') && !leaked.includes('.git'),
    `nothing of Clawser's own was written into the folder: ${leaked}`,
  );

  // Next session: the folder is remembered; the browser asks for permission again.
  await page.evaluate(() => sessionStorage.setItem('ask-again', '1'));
  await page.reload();
  await page.getByRole('button', { name: 'Files', exact: true }).click();
  await page.getByText('Folder “my-computer-folder” needs your permission again.').waitFor();
  await page.getByRole('button', { name: 'Allow access to the folder' }).click();
  await page.getByRole('button', { name: 'readme.txt', exact: true }).waitFor();

  // Leaving the folder: the workspace shows its own files again; the folder is untouched.
  await page.getByRole('button', { name: 'Stop using this folder' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Stop using the folder' }).click();
  await page.getByRole('button', { name: 'Open a folder from this computer' }).waitFor();
  assert.equal(await page.getByRole('button', { name: 'readme.txt', exact: true }).count(), 0);
  assert.equal(await readFolderFile(page, 'readme.txt'), 'Hello from the computer folder');

  // Without the File System Access API the button explains why, and the workspace works.
  await page.evaluate(() => sessionStorage.setItem('no-fsa', '1'));
  await page.reload();
  await page.getByRole('button', { name: 'Files', exact: true }).click();
  await page.getByText(/Opening a folder from this computer is not available: this browser has no File System Access API/).waitFor();
  await page.getByRole('button', { name: 'New file' }).waitFor();
  await page.close();
});
