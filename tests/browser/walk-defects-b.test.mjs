// Issue 37 §1: defects a new user met on the walk through every panel, each reproduced here
// first and then fixed, with a control where the same path must still work as before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { useFixture } from './fixture.mjs';
import { startGitServer } from '../fixtures/git-http-server.mjs';

const fx = await useFixture({ settings: { provider: 'echo' } });
const { app, browser, page } = fx;

/** A URL on 127.0.0.1 where nothing listens (fails as a server without CORS does). */
async function closedPortUrl() {
  const closed = createServer();
  await new Promise((r) => closed.listen(0, '127.0.0.1', () => r(undefined)));
  const port = /** @type {import('node:net').AddressInfo} */ (closed.address()).port;
  await new Promise((r) => closed.close(r));
  return `http://127.0.0.1:${port}/team/notes.git`;
}

test('a failed clone keeps the dialog open with the URL, says what failed and points to its own CORS proxy field; \
control: the corrected URL clones and opens the new workspace', async () => {
  const server = await startGitServer();
  fx.defer(() => server.close());
  const good = await server.createRepo('walkdemo', { 'README.md': '# Walk\n' });
  const home = await fx.openHome();
  home.setDefaultTimeout(60_000); // git over OPFS on a loaded machine: waited for, not timed
  const bad = await closedPortUrl();
  await home.getByRole('button', { name: 'Clone a git repository' }).click();
  const dialog = home.getByRole('dialog', { name: 'Clone a git repository' });
  await dialog.getByLabel('Repository URL').fill(bad);
  await dialog.getByRole('button', { name: 'Clone' }).click();
  const alert = dialog.getByRole('alert').filter({ hasText: /could not reach the git server/ });
  await alert.waitFor();
  const said = await alert.innerText();
  assert.ok(said.includes(bad), `says which server failed: ${said}`);
  assert.match(said, /\(CORS\)/);
  assert.match(said, /“CORS proxy” and clone again/, 'points to the field of this dialog');
  assert.doesNotMatch(said, /workspace's git settings/, 'no advice about a workspace that does not exist');
  assert.ok(await dialog.isVisible(), 'the dialog stays open');
  assert.equal(await dialog.getByLabel('Repository URL').inputValue(), bad, 'the URL is kept');
  const proxy = dialog.getByLabel('CORS proxy (optional)');
  assert.ok(await proxy.evaluate((el) => el === document.activeElement), 'the proxy field has the focus');
  assert.equal(await proxy.getAttribute('aria-invalid'), 'true');
  assert.equal(await home.getByRole('link', { name: /notes/ }).count(), 0, 'the failed clone left no workspace');

  // Control: corrected in the same dialog, the clone goes through.
  await dialog.getByLabel('Repository URL').fill(good);
  await dialog.getByRole('button', { name: 'Clone' }).click();
  await home.getByRole('heading', { name: 'walkdemo', exact: true }).waitFor();
  await home.getByRole('button', { name: 'README.md', exact: true }).waitFor();
  assert.equal(await dialog.count(), 0, 'the dialog closed');
  await home.close();
});

test('a workspace name of only spaces is refused in the dialog, which stays open; control: a real name creates it', async () => {
  const home = await fx.openHome();
  await home.getByRole('button', { name: 'New workspace' }).click();
  const dialog = home.getByRole('dialog', { name: 'New workspace' });
  await dialog.getByLabel('Workspace name').fill('   ');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await dialog.getByRole('alert').filter({ hasText: 'Workspace name cannot be only spaces' }).waitFor();
  assert.ok(await dialog.isVisible(), 'the dialog stays open');
  assert.equal(await dialog.getByLabel('Workspace name').getAttribute('aria-invalid'), 'true');
  await dialog.getByLabel('Workspace name').fill('Walk notes');
  await dialog.getByRole('alert').waitFor({ state: 'detached' }); // typing clears the message
  await dialog.getByRole('button', { name: 'Create' }).click();
  await home.getByRole('heading', { name: 'Walk notes', exact: true }).waitFor();
  await home.close();
});

test('the editor header shows the size a save wrote, not the size the file had when it was opened; control: opened again, the same size', async () => {
  await page.getByRole('button', { name: 'Files', exact: true }).click();
  await page.getByRole('heading', { name: 'Files', exact: true }).waitFor();
  await page.getByRole('button', { name: 'New file' }).click();
  await page.getByRole('dialog').getByLabel(/Name/).fill('walk-size.txt');
  await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
  const editor = page.getByRole('textbox', { name: 'Contents of walk-size.txt' });
  await editor.waitFor();
  const headSize = page.locator('.file-head .small.muted');
  assert.equal(await headSize.innerText(), '0 B', 'a new file is empty');
  const text = 'Thirty-six bytes of walk notes here\n';
  assert.equal(Buffer.byteLength(text), 36);
  await editor.click();
  await page.keyboard.type(text);
  await page.getByRole('heading', { name: 'walk-size.txt •' }).waitFor();
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByRole('heading', { name: 'walk-size.txt', exact: true }).waitFor();
  assert.equal(await headSize.innerText(), '36 B');
  // Control: the list and the file opened anew say the same.
  await page.locator('.file-line', { hasText: 'walk-size.txt' }).locator('.file-size', { hasText: '36 B' }).waitFor();
  await page.getByRole('button', { name: 'walk-size.txt', exact: true }).click();
  await editor.waitFor();
  assert.equal(await headSize.innerText(), '36 B');
});
