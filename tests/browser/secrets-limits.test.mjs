// Issue 11 §6 in a real Chromium: the limits that existed only in code are set in the Settings
// dialog and take effect; web_fetch does not follow a redirect it cannot check; two tabs on a
// first run end up with one master key.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import {
  saveSettings,
  openHome,
  readWorkspaceFile,
  sendMessage,
  waitInPage,
  storedConfig,
  changeStoredConfig,
  appView,
} from './helpers.mjs';
import { useFixture } from './fixture.mjs';

/** @type {string[]} */ const siteHits = [];

const fx = await useFixture({
  llm: {},
  settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1`, autonomy: 'full' }),
});
const { app, llm, browser, page } = fx;
/** A site on 127.0.0.1 (a private address): a long page and a redirect to it. */
const site = createServer((req, res) => {
  siteHits.push(req.url ?? '');
  const cors = { 'access-control-allow-origin': '*' };
  if (req.url?.startsWith('/hop')) {
    res.writeHead(302, { ...cors, location: `/page?via=hop` });
    res.end();
    return;
  }
  res.writeHead(200, { ...cors, 'content-type': 'text/plain' });
  res.end(`local page ${'x'.repeat(3000)}`);
});
await new Promise((resolve) => site.listen(0, '127.0.0.1', () => resolve(undefined)));
fx.defer(() => new Promise((resolve) => site.close(() => resolve(undefined))));
const sitePort = /** @type {import('node:net').AddressInfo} */ (site.address()).port;

/** The stored tool_result events of the open conversation. */
async function toolResults() {
  const log = /** @type {string} */ (await readWorkspaceFile(page, '{conversation}/events.jsonl'));
  return log
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .filter((e) => e.type === 'tool_result' || e.type === 'tool_result_truncated');
}

/**
 * Runs one scripted tool call and waits for the model's closing words.
 * @param {string} id
 * @param {string} name
 * @param {Record<string, unknown>} args
 */
async function runTool(id, name, args) {
  const done = `finished ${id}`;
  llm.enqueue({ toolCalls: [{ id, name, arguments: args }] }, { text: done });
  await sendMessage(page, `please run ${id}`);
  const approval = page.getByRole('dialog', { name: `Allow “${name}”?` });
  const reply = page.locator('.msg.assistant .msg-body', { hasText: done });
  await Promise.race([approval.waitFor(), reply.waitFor()]);
  if (await approval.isVisible()) await approval.getByRole('button', { name: 'Always allow' }).click();
  await reply.waitFor();
  return (await toolResults()).find((e) => e.type === 'tool_result' && e.data.toolCallId === id)?.data;
}

test('limits set in the Settings dialog are validated, saved and take effect', async () => {
  const target = `http://127.0.0.1:${sitePort}/page`;
  // Control: before the host is allow-listed, a fetch of the private address is refused.
  const blocked = await runTool('f0', 'web_fetch', { url: target });
  assert.equal(blocked.ok, false);
  assert.match(blocked.result, /private, loopback or link-local/);
  assert.equal(siteHits.length, 0, 'the private host was not contacted');

  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: /Settings/ });
  const hosts = dialog.getByLabel('Private hosts the agent may reach');
  await hosts.fill(`http://127.0.0.1:${sitePort}/`);
  await dialog.getByLabel('Steps per turn, at most (1–100)').fill('0');
  await dialog.getByRole('button', { name: 'Save', exact: true }).click();
  // Wrong values: clear messages, tied to their fields, and nothing is saved.
  await dialog.getByText(/write each as a host or host:port/).waitFor();
  await dialog.getByText('Steps per turn must be a whole number from 1 to 100.').waitFor();
  assert.equal(await hosts.getAttribute('aria-invalid'), 'true');
  assert.ok(await dialog.isVisible());
  await hosts.fill(`127.0.0.1:${sitePort}`);
  await dialog.getByLabel('Steps per turn, at most (1–100)').fill('2');
  await dialog.getByLabel('Tool result cap (characters)').fill('1000');
  await dialog.getByLabel('Largest file a tool writes (KiB)').fill('1');
  await dialog.getByLabel('Largest file a tool reads (KiB)').fill('2');
  await saveSettings(page);

  // The allow-listed private host is reached, and the long page is capped at 1000 characters.
  const fetched = await runTool('f1', 'web_fetch', { url: target });
  assert.equal(fetched.ok, true, fetched.result);
  assert.match(fetched.result, /local page/);
  assert.match(fetched.result, /truncated: \d+ more characters/);
  const trunc = (await toolResults()).find((e) => e.type === 'tool_result_truncated' && e.data.toolCallId === 'f1');
  assert.equal(trunc?.data.keptChars, 1000);
  assert.deepEqual(siteHits, ['/page']);

  // Writes over 1 KiB are refused; a small write passes (control); reads over 2 KiB are refused.
  const big = await runTool('w1', 'fs_write', { path: 'big.txt', content: 'y'.repeat(1500) });
  assert.equal(big.ok, false);
  assert.match(big.result, /writes are limited to 1(\.0)? KB/);
  const small = await runTool('w2', 'fs_write', { path: 'small.txt', content: 'y'.repeat(900) });
  assert.equal(small.ok, true, small.result);
  assert.equal(await readWorkspaceFile(page, 'small.txt'), 'y'.repeat(900));
  const readBig = await runTool('r1', 'fs_read', { path: 'small.txt', maxBytes: 3000 });
  assert.equal(readBig.ok, true, 'a read within the cap');

  // The dialog shows what was saved.
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const again = page.getByRole('dialog', { name: /Settings/ });
  assert.equal(await again.getByLabel('Private hosts the agent may reach').inputValue(), `127.0.0.1:${sitePort}`);
  assert.equal(await again.getByLabel('Largest file a tool reads (KiB)').inputValue(), '2');
  await again.getByRole('button', { name: 'Cancel' }).click();

  // At most 2 steps per turn.
  llm.enqueue({ toolCalls: [{ id: 's1', name: 'fs_list', arguments: {} }] }, { toolCalls: [{ id: 's2', name: 'fs_list', arguments: {} }] });
  await sendMessage(page, 'keep listing');
  await page.getByText('Stopped after 2 steps without a final answer.').first().waitFor();
});

test('web_fetch in the browser does not follow a redirect it cannot see (the private host is allow-listed)', async () => {
  // Allow-listed in the stored settings directly (as another tab would), so this test does not
  // depend on the dialog's; the page reloads to read them.
  const key = `clawser_agent_${decodeURIComponent(new URL(page.url()).hash.split('/')[1] ?? '')}`;
  const current = JSON.parse((await storedConfig(page))[key] ?? '{}');
  await changeStoredConfig(page, { [key]: { ...current, allowedPrivateHosts: [`127.0.0.1:${sitePort}`] } });
  await page.reload();
  await appView(page);
  siteHits.length = 0;
  const r = await runTool('h1', 'web_fetch', { url: `http://127.0.0.1:${sitePort}/hop` });
  assert.equal(r.ok, false);
  assert.match(r.result, /answered with a redirect/);
  assert.deepEqual(siteHits, ['/hop'], 'the redirect target was not requested');
});

test('two tabs racing a first seal create one master key: each unseals the other', async () => {
  const dbName = `clawser_keys_race_${Date.now()}`;
  const [a, b] = [await openHome(browser.context, app.url), await openHome(browser.context, app.url)];
  // Both pages wait on one BroadcastChannel signal so their first seals start together.
  for (const p of [a, b]) {
    await p.evaluate(async (name) => {
      const { SecretBox } = await import('/web/storage/secrets.js');
      // The database exists before the race (as after any earlier visit), so neither open waits for the other's upgrade.
      const { createStore, get } = await import('idb-keyval');
      await get('warm-up', createStore(name, 'keys'));
      const go = new BroadcastChannel(`${name}-go`);
      /** @type {any} */ (globalThis).__box = new SecretBox({ dbName: name });
      /** @type {any} */ (globalThis).__go = new Promise((resolve) => {
        go.onmessage = () => {
          go.close();
          resolve(undefined);
        };
      });
    }, dbName);
  }
  const sealing = [a, b].map((p) =>
    p.evaluate(async () => {
      const g = /** @type {any} */ (globalThis);
      await g.__go;
      return /** @type {Promise<string>} */ (g.__box.encrypt(`secret ${Math.random()}`));
    }),
  );
  await a.evaluate((name) => {
    const c = new BroadcastChannel(`${name}-go`);
    c.postMessage('go');
    c.close();
  }, dbName);
  const [sa, sb] = await Promise.all(sealing);
  const unseal = (/** @type {import('playwright-core').Page} */ p, /** @type {string} */ s) =>
    p.evaluate(
      (x) =>
        /** @type {any} */ (globalThis).__box.decrypt(x).then(
          (/** @type {string} */ t) => t,
          (/** @type {Error} */ e) => `failed: ${e.message}`,
        ),
      s,
    );
  assert.match(await unseal(b, sa), /^secret 0\./, 'tab two reads what tab one sealed');
  assert.match(await unseal(a, sb), /^secret 0\./, 'tab one reads what tab two sealed');
  await Promise.all([a.close(), b.close()]);
});

test('two tabs share one autonomy count per workspace: neither overwrites the other', async () => {
  const ws = `usage_${Date.now()}`;
  const tabs = [await openHome(browser.context, app.url), await openHome(browser.context, app.url)];
  // Each tab builds its controller first (as a tab does when a turn starts), then records; on
  // the settings store the app uses (stored in the browser's files, shared between tabs).
  for (const p of tabs) {
    await p.evaluate(async (w) => {
      const { AgentSettingsStore } = await import('/web/app/agent-settings.js');
      const { openConfig } = await import('/web/app/config-files.js');
      const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
      const { TabCoordinator } = await import('/web/agent/coordination/tabs.js');
      const { RestoreGate } = await import('/web/agent/coordination/restore-gate.js');
      const { AutonomyController } = await import('/web/agent/runtime/autonomy.js');
      const tabs = new TabCoordinator({ label: 'usage test' });
      const config = await openConfig({
        fs: new OpfsFileSystem(),
        tabs,
        gate: new RestoreGate({ channel: tabs }),
        onError: (err) => {
          throw err;
        },
      });
      const store = new AgentSettingsStore({ config, secrets: /** @type {any} */ (null) });
      /** @type {any} */ (globalThis).__autonomy = new AutonomyController({
        config: { level: 'full', maxActionsPerHour: 4, maxCostCentsPerDay: 0 },
        ...store.usageStore(w),
      });
    }, ws);
  }
  const record = (/** @type {import('playwright-core').Page} */ p) =>
    p.evaluate(() => /** @type {any} */ (globalThis).__autonomy.recordAction());
  await record(tabs[0]);
  await record(tabs[1]);
  await record(tabs[0]);
  // Control: 3 of 4 — not yet at the limit in either tab.
  await waitInPage(tabs[1], async () => /** @type {any} */ (globalThis).__autonomy.usage.actions.length === 3, undefined, {
    what: 'tab two to see 3 actions',
  });
  assert.equal(await tabs[1].evaluate(() => /** @type {any} */ (globalThis).__autonomy.checkLimits()), null);
  await record(tabs[1]);
  await waitInPage(tabs[0], async () => /** @type {any} */ (globalThis).__autonomy.usage.actions.length === 4, undefined, {
    what: 'tab one to see all 4 actions',
  });
  assert.match((await tabs[0].evaluate(() => /** @type {any} */ (globalThis).__autonomy.checkLimits())) ?? '', /4 tool actions per hour/);
  await Promise.all(tabs.map((p) => p.close()));
});
