// Real-browser diagnoses: a server that refuses the page (CORS) is told apart from one that
// is not running, with the host's fix; an insecure origin gets a clear message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openWorkspace } from './helpers.mjs';
import { useFixture } from './fixture.mjs';

// Each test starts a browser of its own.
const fx = await useFixture({ llm: { cors: false }, browser: false });
const { app, llm: noCors } = fx;

test('test connection: CORS refusal names the OLLAMA_ORIGINS fix; a stopped server is "not running"', async () => {
  const browser = await fx.launchBrowser();
  try {
    const page = await openWorkspace(browser.context, app.url);
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: /Settings/ });
    await dialog.getByLabel('Provider', { exact: true }).selectOption('ollama');
    await dialog.getByLabel('Base URL', { exact: true }).fill(`${noCors.url}/v1`);
    const result = dialog.getByRole('status').filter({ hasText: /[✓✗]/ });
    await dialog.getByRole('button', { name: 'Test connection' }).click();
    await result.filter({ hasText: 'OLLAMA_ORIGINS' }).waitFor();
    assert.match(await result.innerText(), new RegExp(`OLLAMA_ORIGINS="${app.url.replace(/\/$/, '').replace(/[.]/g, '\\.')}"`));
    await dialog.getByLabel('Base URL', { exact: true }).fill('http://127.0.0.1:9/v1');
    await dialog.getByRole('button', { name: 'Test connection' }).click();
    await result.filter({ hasText: 'Is Ollama running?' }).waitFor();
  } finally {
    await browser.close();
  }
});

test('an insecure origin (LAN-style host over http) gets a clear explanation, not a broken app', async () => {
  // A hostname that is not localhost, mapped to this machine: the page is not a secure context.
  const { context, close } = await fx.launchBrowser({ args: ['--host-resolver-rules=MAP lan-host.test 127.0.0.1'] });
  try {
    const page = await context.newPage();
    await page.goto(app.url.replace('127.0.0.1', 'lan-host.test'));
    assert.equal(await page.evaluate(() => isSecureContext), false);
    await page.getByRole('status').filter({ hasText: 'not a secure context' }).waitFor();
    await page
      .getByRole('alert')
      .filter({ hasText: /secure context|https|localhost/ })
      .waitFor();
  } finally {
    await close();
  }
});
