// Real-browser diagnoses: a server that refuses the page (CORS) is told apart from one that
// is not running, with the host's fix; an insecure origin gets a clear message.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM_ARGS, findChromium, launchBrowser, startApp, openWorkspace } from './helpers.mjs';
import { startLlmServer } from '../fixtures/llm-server.mjs';

/** @type {Awaited<ReturnType<typeof startApp>>} */ let app;
/** @type {Awaited<ReturnType<typeof startLlmServer>>} */ let noCors;
before(async () => {
  app = await startApp();
  noCors = await startLlmServer({ cors: false });
});
after(async () => {
  await app?.close();
  await noCors?.close();
});

test('test connection: CORS refusal names the OLLAMA_ORIGINS fix; a stopped server is "not running"', async () => {
  const browser = await launchBrowser();
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
  const profile = await mkdtemp(join(tmpdir(), 'clawser-insecure-'));
  // A hostname that is not localhost, mapped to this machine: the page is not a secure context.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: await findChromium(),
    headless: true,
    args: [...CHROMIUM_ARGS, '--host-resolver-rules=MAP lan-host.test 127.0.0.1'],
  });
  try {
    const page = await context.newPage();
    await page.goto(app.url.replace('127.0.0.1', 'lan-host.test'));
    assert.equal(await page.evaluate(() => isSecureContext), false);
    await page.getByRole('status').filter({ hasText: 'not a secure context' }).waitFor();
    await page.getByRole('alert').filter({ hasText: /secure context|https|localhost/ }).waitFor();
  } finally {
    await context.close();
    await rm(profile, { recursive: true, force: true });
  }
});
