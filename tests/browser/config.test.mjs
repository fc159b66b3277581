// The Config panel (issue 13): the workspace's whole configuration in one validated editor,
// problems pointing at their field, all-or-nothing saves, loosened protections confirmed first,
// JSON export without secrets, and imports that change nothing unless valid.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { storedConfig, storedConfigUntil } from './helpers.mjs';
import { useFixture } from './fixture.mjs';

const KEY = 'sk-test-CONFIG-secret-000111';

const fx = await useFixture({ settings: { provider: 'openai', model: 'gpt-4o', apiKey: KEY } });
const { page } = fx;

const panel = () => page.getByRole('region', { name: 'Config' });
const editor = () => panel().getByRole('textbox', { name: 'Configuration (JSON)' });
/** The open workspace's id. */
const workspaceId = () => decodeURIComponent(new URL(page.url()).hash.split('/')[1] ?? '');
/**
 * Every stored setting of the page, to prove a refused change changed nothing. The workspaces'
 * `lastUsedAt` is left out: opening a panel marks the workspace used, a moment after it shows.
 */
const stored = async () =>
  JSON.stringify(
    Object.entries(await storedConfig(page))
      .map(([k, v]) =>
        k === 'clawser_workspaces'
          ? [k, JSON.stringify(JSON.parse(v).map((/** @type {{lastUsedAt?: number}} */ w) => ({ ...w, lastUsedAt: undefined })))]
          : [k, v],
      )
      .sort(([a], [b]) => a.localeCompare(b)),
  );
/** @param {string} key */
const storedValue = async (key) => JSON.parse((await storedConfig(page))[key] ?? 'null');
const agentSettings = async () => (await storedValue(`clawser_agent_${workspaceId()}`)) ?? {};
/** @param {(c: any) => void} fn */
const editConfig = async (fn) => {
  const c = JSON.parse(await editor().inputValue());
  fn(c);
  await editor().fill(JSON.stringify(c, null, 2));
};

test('the editor shows the whole configuration without secrets; a problem names its field and jumps to it; \
a fix saves and survives a reload', async () => {
  await page.keyboard.press('Alt+9');
  await panel().waitFor();
  assert.match(page.url(), /\/config$/);
  const text = await editor().inputValue();
  const doc = JSON.parse(text);
  assert.equal(doc.provider.id, 'openai');
  assert.equal(doc.agent.autonomy.level, 'supervised');
  assert.ok(!text.includes(KEY) && !/apiKey/i.test(text), 'no key in the editor');
  await panel().getByText('Valid. This is the saved configuration.').waitFor();
  assert.equal(await panel().getByRole('button', { name: 'Save configuration' }).isDisabled(), true, 'nothing to save yet');

  const before = await stored();
  await editConfig((c) => {
    c.agent.maxIterations = 0;
    c.agent.autonomy.levle = 'full';
  });
  await panel().getByText('1 problem: nothing is saved until they are fixed.').waitFor();
  const problem = panel().getByRole('list', { name: 'Problems' }).getByRole('listitem');
  assert.match(await problem.innerText(), /^agent\.maxIterations \(line \d+\): /);
  assert.equal(await editor().getAttribute('aria-invalid'), 'true');
  assert.equal(await panel().getByRole('button', { name: 'Save configuration' }).isDisabled(), true);
  await problem.getByRole('button').click();
  const selected = await editor().evaluate((el) =>
    /** @type {HTMLTextAreaElement} */ (el).value.slice(
      /** @type {HTMLTextAreaElement} */ (el).selectionStart,
      /** @type {HTMLTextAreaElement} */ (el).selectionEnd,
    ),
  );
  assert.equal(selected, '"maxIterations"', 'the cursor is on the field');
  assert.ok(await editor().evaluate((el) => el === document.activeElement));
  // Type fixed: the misspelt field is the next problem.
  await editConfig((c) => {
    c.agent.maxIterations = 7;
  });
  await problem.filter({ hasText: /^agent\.autonomy\.levle \(line \d+\): not a setting here/ }).waitFor();
  assert.equal(await stored(), before, 'nothing was saved while invalid');
  await editConfig((c) => {
    delete c.agent.autonomy.levle;
  });
  await panel().getByText('Valid: ready to save.').waitFor();
  await panel().getByRole('button', { name: 'Save configuration' }).click();
  await panel().getByText('Saved. New turns use it.').waitFor();
  assert.equal((await agentSettings()).maxIterations, 7);
  await page.reload();
  await panel().waitFor();
  assert.equal(JSON.parse(await editor().inputValue()).agent.maxIterations, 7);
});

test('loosening a protection asks first: Cancel changes nothing, Apply anyway saves it', async () => {
  const before = await stored();
  await editConfig((c) => {
    c.agent.safetyEnabled = false;
    c.toolPolicies.fs_write = 'auto';
  });
  await panel().getByRole('button', { name: 'Save configuration' }).click();
  const dialog = page.getByRole('dialog', { name: 'Loosen protections?' });
  await dialog.waitFor();
  const items = await dialog.getByRole('listitem').allInnerTexts();
  assert.deepEqual(items, [
    'turns the safety checks off (prompt-injection scan, secret redaction, path and URL checks)',
    'lets fs_write run without asking (was: ask each time)',
  ]);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await panel().getByText('Not saved: nothing was changed.').waitFor();
  assert.equal(await stored(), before);
  await panel().getByRole('button', { name: 'Save configuration' }).click();
  await dialog.getByRole('button', { name: 'Apply anyway' }).click();
  await panel().getByText('Saved. New turns use it.').waitFor();
  assert.equal((await agentSettings()).safetyEnabled, false);
  // The Tools panel shows the policy the configuration set.
  await page.keyboard.press('Alt+6');
  assert.equal(await page.getByRole('combobox', { name: 'Policy for fs_write' }).inputValue(), 'auto');
  await page.keyboard.press('Alt+9');
  await editConfig((c) => {
    c.agent.safetyEnabled = true;
    c.toolPolicies = {};
  });
  await panel().getByRole('button', { name: 'Save configuration' }).click();
  await panel().getByText('Saved. New turns use it.').waitFor();
  assert.equal(await page.getByRole('dialog', { name: 'Loosen protections?' }).count(), 0, 'tightening asks nothing');
});

test('export has no secret and imports back; an import with a secret or a wrong value changes nothing', async () => {
  const [download] = await Promise.all([page.waitForEvent('download'), panel().getByRole('button', { name: 'Export JSON' }).click()]);
  assert.match(download.suggestedFilename(), /^clawser-config-My-workspace\.json$/);
  const exported = await readFile(/** @type {string} */ (await download.path()), 'utf8');
  assert.ok(!exported.includes(KEY), 'the API key is not exported');
  const doc = JSON.parse(exported);
  assert.equal(doc.version, 1);
  const dir = await fx.tempDir('clawser-config-');
  const before = await stored();

  const withKey = join(dir, 'with-key.json');
  await writeFile(withKey, JSON.stringify({ ...doc, provider: { ...doc.provider, apiKey: 'sk-planted' } }));
  await panel().locator('input[type=file]').setInputFiles(withKey);
  await panel().getByText('“with-key.json” was not applied: nothing was changed. Fix the problems below and save, or discard.').waitFor();
  assert.match(
    await panel().getByRole('list', { name: 'Problems' }).innerText(),
    /provider\.apiKey \(line \d+\): secrets are never imported or exported/,
  );
  assert.equal(await stored(), before, 'nothing changed');

  const wrong = join(dir, 'wrong.json');
  await writeFile(wrong, JSON.stringify({ ...doc, agent: { ...doc.agent, autonomy: { ...doc.agent.autonomy, level: 'reckless' } } }));
  await panel().locator('input[type=file]').setInputFiles(wrong);
  await panel().getByText('“wrong.json” was not applied: nothing was changed. Fix the problems below and save, or discard.').waitFor();
  assert.match(await panel().getByRole('list', { name: 'Problems' }).innerText(), /agent\.autonomy\.level \(line \d+\): /);
  assert.equal(await stored(), before, 'nothing changed');
  await panel().getByRole('button', { name: 'Discard changes' }).click();
  assert.deepEqual(JSON.parse(await editor().inputValue()), doc);

  const good = join(dir, 'good.json');
  await writeFile(
    good,
    JSON.stringify({ ...doc, provider: { ...doc.provider, model: 'gpt-4o-mini' }, agent: { ...doc.agent, maxIterations: 12 } }),
  );
  await panel().locator('input[type=file]').setInputFiles(good);
  // A new model redraws the workspace (its header names the model); the panel stays open.
  await page
    .locator('header')
    .getByText(/gpt-4o-mini/)
    .waitFor();
  await panel().waitFor();
  assert.equal((await agentSettings()).maxIterations, 12);
  assert.equal(JSON.parse(await editor().inputValue()).provider.model, 'gpt-4o-mini');
  // The key stayed where it was, sealed: the provider still has it.
  assert.notEqual(await storedValue(`clawser_secret_${workspaceId()}_openai`), null);
});

test('the "Always allow" rules and the skills turned off are in the document: exported, imported back after removal, \
and a bad rule changes nothing', async () => {
  const skillChoices = async () => (await storedValue(`clawser_skills_enabled_${workspaceId()}`)) ?? {};
  const rules = () => page.getByRole('list', { name: 'Approval rules' });
  // A rule made where users make them (the Tools panel) shows in the document.
  await page.keyboard.press('Alt+6');
  await page.getByLabel('Tool', { exact: true }).selectOption('shell');
  await page.getByLabel('Kind', { exact: true }).selectOption('command');
  await page.getByLabel('Allow', { exact: true }).fill('git status');
  await page.getByRole('button', { name: 'Add rule' }).click();
  await rules().getByText('may run without asking for commands starting with “git status”').waitFor();
  await page.keyboard.press('Alt+9');
  await panel().waitFor();
  const shown = JSON.parse(await editor().inputValue());
  assert.deepEqual(
    shown.approvalRules.map((/** @type {any} */ r) => [r.tool, r.kind, r.pattern]),
    [['shell', 'command', 'git status']],
  );
  // Skills turned off are saved through the document too.
  await editConfig((c) => {
    c.skills = { 'daily-notes': false };
  });
  await panel().getByRole('button', { name: 'Save configuration' }).click();
  await panel().getByText('Saved. New turns use it.').waitFor();
  assert.deepEqual(await skillChoices(), { 'daily-notes': false });

  const [download] = await Promise.all([page.waitForEvent('download'), panel().getByRole('button', { name: 'Export JSON' }).click()]);
  const exported = await readFile(/** @type {string} */ (await download.path()), 'utf8');
  const doc = JSON.parse(exported);
  assert.equal(doc.approvalRules[0].pattern, 'git status');
  assert.deepEqual(doc.skills, { 'daily-notes': false });

  // Both removed here…
  await editConfig((c) => {
    c.approvalRules = [];
    c.skills = {};
  });
  await panel().getByRole('button', { name: 'Save configuration' }).click();
  // the skill back on
  await page.getByRole('dialog', { name: 'Loosen protections?' }).getByRole('button', { name: 'Apply anyway' }).click();
  await panel().getByText('Saved. New turns use it.').waitFor();
  assert.deepEqual(await skillChoices(), {});
  await page.keyboard.press('Alt+6');
  await rules().getByText('No rules yet.', { exact: false }).waitFor();

  // …a bad rule in a file changes nothing and names the field…
  await page.keyboard.press('Alt+9');
  await panel().waitFor();
  const dir = await fx.tempDir('clawser-config-rules-');
  const bad = join(dir, 'bad-rule.json');
  await writeFile(bad, JSON.stringify({ ...doc, approvalRules: [{ ...doc.approvalRules[0], kind: 'anything' }] }));
  const before = await stored();
  await panel().locator('input[type=file]').setInputFiles(bad);
  await panel().getByText('“bad-rule.json” was not applied: nothing was changed. Fix the problems below and save, or discard.').waitFor();
  assert.match(await panel().getByRole('list', { name: 'Problems' }).innerText(), /^approvalRules\[0\]\.kind \(line \d+\): /);
  assert.equal(await stored(), before, 'nothing changed');
  await panel().getByRole('button', { name: 'Discard changes' }).click();

  // …and the export brings them back, the new rule confirmed first.
  const good = join(dir, 'exported.json');
  await writeFile(good, exported);
  await panel().locator('input[type=file]').setInputFiles(good);
  const dialog = page.getByRole('dialog', { name: 'Loosen protections?' });
  await dialog.waitFor();
  assert.deepEqual(await dialog.getByRole('listitem').allInnerTexts(), [
    'lets shell run without asking for commands starting with “git status”',
  ]);
  await dialog.getByRole('button', { name: 'Apply anyway' }).click();
  await panel().getByText('Imported and saved “exported.json”.').waitFor();
  assert.deepEqual(await skillChoices(), { 'daily-notes': false });
  await page.keyboard.press('Alt+6');
  await rules().getByText('may run without asking for commands starting with “git status”').waitFor();
});

test('the MCP servers are in the document without their tokens; removed, they come back from the export', async () => {
  /** @param {Record<string, string>} entries */
  const sealedTokens = (entries) => Object.keys(entries).filter((k) => k.startsWith('clawser_mcp_secret_')).length;
  const secrets = async () => sealedTokens(await storedConfig(page));
  const card = () => page.locator('.server').filter({ has: page.getByRole('heading', { name: 'Docs', exact: true }) });
  await page.keyboard.press('Alt+M');
  await page.getByRole('button', { name: 'Add server' }).click();
  const add = page.getByRole('dialog', { name: 'Add an MCP server' });
  await add.getByLabel(/^Name/).fill('Docs');
  await add.getByLabel('Server URL').fill('https://mcp.example.com/mcp');
  await add.getByLabel('Sign-in').selectOption('bearer');
  await add.getByLabel('Token or header value (kept encrypted)').fill('tok-MCP-never-exported-42');
  await add.getByRole('button', { name: 'Add server' }).click();
  await card().waitFor();
  await storedConfigUntil(page, (e) => sealedTokens(e) === 1, "the server's sealed token"); // written in the background

  await page.keyboard.press('Alt+9');
  await panel().waitFor();
  assert.deepEqual(JSON.parse(await editor().inputValue()).mcpServers, [
    { name: 'Docs', url: 'https://mcp.example.com/mcp', auth: 'bearer' },
  ]);
  const [download] = await Promise.all([page.waitForEvent('download'), panel().getByRole('button', { name: 'Export JSON' }).click()]);
  const exported = await readFile(/** @type {string} */ (await download.path()), 'utf8');
  assert.ok(!exported.includes('tok-MCP-never-exported-42'), 'the token is not exported');

  await editConfig((c) => {
    c.mcpServers = [];
  });
  await panel().getByRole('button', { name: 'Save configuration' }).click();
  await panel().getByText('Saved. New turns use it.').waitFor();
  assert.equal(await secrets(), 0, 'its token went with it');
  await page.keyboard.press('Alt+M');
  await page.getByText('No MCP servers yet.', { exact: false }).waitFor();

  await page.keyboard.press('Alt+9');
  await panel().waitFor();
  const file = join(await fx.tempDir('clawser-config-mcp-'), 'exported.json');
  await writeFile(file, exported);
  await panel().locator('input[type=file]').setInputFiles(file);
  const dialog = page.getByRole('dialog', { name: 'Loosen protections?' });
  await dialog.waitFor();
  assert.deepEqual(await dialog.getByRole('listitem').allInnerTexts(), [
    'adds the MCP server “Docs” at mcp.example.com (its tools reach the agent once you connect it)',
  ]);
  await dialog.getByRole('button', { name: 'Apply anyway' }).click();
  await panel().getByText('Imported and saved “exported.json”.').waitFor();
  await page.keyboard.press('Alt+M');
  await card().waitFor();
  assert.equal(await secrets(), 0, 'the token is entered again, never imported');
  await card().getByRole('button', { name: 'Enter the token of Docs' }).click();
  const tokenDialog = page.getByRole('dialog', { name: 'Token for “Docs”' });
  await tokenDialog.getByLabel('Token or header value (kept encrypted)').fill('tok-MCP-again-43');
  await tokenDialog.getByRole('button', { name: 'Save' }).click();
  await card().getByRole('button', { name: 'Replace the token of Docs' }).waitFor();
  await storedConfigUntil(page, (e) => sealedTokens(e) === 1, 'the token entered again');
});
