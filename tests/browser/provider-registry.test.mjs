// A new provider is one file plus one registry entry (issue 33, CONTRIBUTING.md "A provider"): a
// copy of the app gets the probe wire (tests/fixtures/probe-provider.mjs as
// web/providers/probe.js) and one entry in PROVIDERS (web/providers/catalog.js); nothing else.
// Settings then offers it with the fields its capabilities declare (a key, optional; a base URL,
// with its default), a turn streams its text and one `finish`, and the first-run card looks for
// it (its `discover`) and offers it with the models found. Control: the same file without the
// entry changes nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { appRoot } from '../../scripts/static-server.mjs';
import { sendMessage, saveSettings } from './helpers.mjs';
import { useFixture, openFixture } from './fixture.mjs';

/** The registry's entry for the probe: a local provider of its own wire, last in the list. */
const ENTRY = `  {
    id: 'probe',
    label: 'Probe',
    needsKey: false,
    local: true,
    baseUrl: 'http://probe.invalid/v1',
    defaultModel: 'probe-small',
    models: ['probe-small', 'probe-large'],
    wire: {
      id: 'probe',
      load: () => import('./probe.js'),
      capabilities: {
        tools: 'codex',
        images: null,
        reasoning: false,
        tokenFamily: 'default',
        key: 'accepted',
        baseUrl: 'accepted',
        runs: 'browser',
        needsModel: true,
        listsModels: true,
        pullsModels: false,
        availability: false,
        test: false,
        background: true,
        modelFiles: false,
      },
    },
    setup: {
      title: 'The probe',
      checking: 'Looking for the probe…',
      action: 'Use Probe',
      found: (models) => \`Probe found, with \${models.join(' and ')}.\`,
      missing: 'No probe here.',
    },
  },`;

/**
 * Gives a fixture's private copy of the app the probe wire's file; `register`: and its entry in
 * the registry, as the last provider.
 * @param {import('./fixture.mjs').Fixture} fx a fixture started with `app: {copy: true}`
 * @param {{register: boolean}} options
 */
async function addProbe(fx, { register }) {
  await cp(join(appRoot, 'tests/fixtures/probe-provider.mjs'), join(fx.appDir, 'web/providers/probe.js'));
  const registryPath = join(fx.appDir, 'web/providers/catalog.js');
  const lines = (await readFile(registryPath, 'utf8')).split('\n');
  const end = lines.indexOf(
    '];',
    lines.findIndex((l) => l.startsWith('export const PROVIDERS')),
  );
  assert.ok(end > 0, 'PROVIDERS ends with a line of its own');
  if (register) {
    lines.splice(end, 0, ENTRY);
    await writeFile(registryPath, lines.join('\n'));
  }
  return { registry: () => readFile(registryPath, 'utf8') };
}

const fx = await useFixture({ app: { copy: true } });
const site = await addProbe(fx, { register: true });
const page = await fx.openWorkspace();

/** The first-run card's choice of a provider, by its button. */
const choice = (/** @type {string} */ action) => page.getByRole('button', { name: action, exact: true });

test('one file and one entry: the registry gained exactly the entry; the first-run card found the probe and offers it', async () => {
  const before = await readFile(join(appRoot, 'web/providers/catalog.js'), 'utf8');
  const after = await site.registry();
  assert.equal(after.replace(`${ENTRY}\n`, ''), before);
  assert.notEqual(after, before);
  // Discovery asked the wire (its discover()) and the card words it as the entry says.
  await choice('Use Probe').waitFor();
  await page.getByText('Probe found, with probe-small and probe-large.').waitFor();
  await choice('Use Probe').click();
  await page.getByText('Probe · probe-small').waitFor();
  await sendMessage(page, 'hello probe');
  await page.getByText('Probe probe-small heard: hello probe; key: no; base: http://probe.invalid/v1.').waitFor();
});

test("a turn's stream: its text, then exactly one finish with the stop reason and usage", async () => {
  const parts = await page.evaluate(async () => {
    const { createProvider } = await import('/web/providers/index.js');
    const provider = createProvider({ provider: 'probe', model: 'probe-large' });
    const out = [];
    for await (const part of provider.chatStream({ messages: [{ role: 'user', content: 'ping' }] })) out.push(part);
    return out;
  });
  const finish = parts.at(-1);
  assert.deepEqual(
    parts.slice(0, -1).map((p) => p.type),
    Array(parts.length - 1).fill('text'),
  );
  assert.equal(
    parts.map((p) => (p.type === 'text' ? p.text : '')).join(''),
    'Probe probe-large heard: ping; key: no; base: http://probe.invalid/v1.',
  );
  assert.equal(finish?.type, 'finish');
  assert.deepEqual(finish?.type === 'finish' && [finish.stopReason, finish.usage], ['end_turn', { inputTokens: 4, outputTokens: 70 }]);
});

test('Settings offers it with the fields its capabilities declare: a key (optional) and a base URL (its default); \
both reach the wire', async () => {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: /Settings/ });
  const provider = dialog.getByLabel('Provider', { exact: true });
  const key = dialog.getByLabel('API key', { exact: true });
  const base = dialog.getByLabel('Base URL', { exact: true });
  // Control: Echo declares neither field.
  await provider.selectOption('echo');
  await key.waitFor({ state: 'hidden' });
  await base.waitFor({ state: 'hidden' });
  await provider.selectOption('probe');
  await key.waitFor();
  assert.equal(await key.getAttribute('placeholder'), 'Optional');
  assert.equal(await key.evaluate((el) => /** @type {HTMLInputElement} */ (el).required), false);
  await base.waitFor();
  assert.equal(await base.getAttribute('placeholder'), 'http://probe.invalid/v1');
  assert.equal(await base.evaluate((el) => /** @type {HTMLInputElement} */ (el).required), false);
  await dialog.getByLabel('Model', { exact: true }).fill('probe-large');
  await key.fill('probe-key');
  await base.fill('http://elsewhere.invalid/v1');
  await saveSettings(page);
  await sendMessage(page, 'again');
  await page.getByText('Probe probe-large heard: again; key: yes; base: http://elsewhere.invalid/v1.').waitFor();
});

test('control: the same file without its entry in the registry changes nothing', async (t) => {
  const other = await openFixture({ app: { copy: true } }, t);
  await addProbe(other, { register: false });
  const p = await other.openWorkspace();
  // The first-run card offers what it always does, and no probe.
  await p.getByRole('button', { name: 'Try Echo', exact: true }).waitFor();
  assert.equal(await p.getByRole('button', { name: 'Use Probe', exact: true }).count(), 0);
  assert.equal(await p.getByText(/Probe found/).count(), 0);
  // Settings does not list it; the registry does not make it.
  await p.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = p.getByRole('dialog', { name: /Settings/ });
  const select = dialog.getByLabel('Provider', { exact: true });
  await select.waitFor();
  const options = await select.evaluate((el) => [.../** @type {HTMLSelectElement} */ (el).options].map((o) => o.value));
  assert.ok(options.includes('echo') && !options.includes('probe'), String(options));
  const made = await p.evaluate(() =>
    import('/web/providers/index.js').then((m) => {
      try {
        m.createProvider({ provider: 'probe' });
        return 'made';
      } catch (err) {
        return /** @type {Error} */ (err).message;
      }
    }),
  );
  assert.match(made, /Unknown provider "probe"/);
});
