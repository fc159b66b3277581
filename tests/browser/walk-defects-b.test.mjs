// Issue 37 §1: defects a new user met on the walk through every panel, each reproduced here
// first and then fixed, with a control where the same path must still work as before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { PANEL_NAV } from '../../web/app/panel-nav.js';
import { useFixture } from './fixture.mjs';
import { seriousViolations } from './axe.mjs';
import { startGitServer } from '../fixtures/git-http-server.mjs';

const axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
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
  assert.deepEqual(await seriousViolations(home, 'dialog.dialog[open]'), [], 'the dialog with its error: no serious axe finding');

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
  assert.deepEqual(await seriousViolations(home, 'dialog.dialog[open]'), [], 'the dialog with its error: no serious axe finding');
  await dialog.getByLabel('Workspace name').fill('Walk notes');
  await dialog.getByRole('alert').waitFor({ state: 'detached' }); // typing clears the message
  await dialog.getByRole('button', { name: 'Create' }).click();
  await home.getByRole('heading', { name: 'Walk notes', exact: true }).waitFor();
  await home.close();
});

test('the editor header shows the size a save wrote, not the size the file had when it was opened; control: opened again, \
the same size', async () => {
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

test('a fork says that it is one, and of what, in the list (never cut off) and in the chat, with the way back; \
control: the original says nothing of the kind', async () => {
  const title = 'Planning the long coastal walk from Porthcurno to Land’s End';
  await page.keyboard.press('Alt+0');
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  await page.getByText('Start the conversation: type a message below.').waitFor();
  await page.getByRole('textbox', { name: 'Message' }).fill(title);
  await page.keyboard.press('Enter');
  await page.locator('.msg.assistant:not(.streaming)', { hasText: 'Porthcurno' }).waitFor();
  await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'hidden' });
  const original = page.locator('.conv-item.active');
  await original.locator('.conv-title', { hasText: 'Porthcurno' }).waitFor({ state: 'attached' });
  const originalTitle = await original.locator('.conv-title').textContent();
  assert.equal(await original.locator('.conv-fork').count(), 0, 'control: not a fork');
  assert.equal(await page.locator('.fork-of').count(), 0, 'control: no fork notice');

  await page.keyboard.press('Alt+7');
  const events = page.getByRole('list', { name: 'Events' });
  const reply = events
    .getByRole('listitem')
    .filter({ has: page.locator('.ev-agent_message') })
    .first();
  await reply.locator('summary').click();
  await reply.getByRole('button', { name: /Fork here/ }).click();
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  const fork = page.locator('.conv-item.active .conv-fork');
  await fork.waitFor();
  assert.equal(await fork.textContent(), `Fork of “${originalTitle}”`);
  const cut = await fork.evaluate((el) => {
    const box = el.getBoundingClientRect();
    const list = /** @type {Element} */ (el.closest('.conv-list')).getBoundingClientRect();
    return { overflows: el.scrollWidth > el.clientWidth + 1, outside: box.right > list.right + 1, hidden: box.width === 0 };
  });
  assert.deepEqual(cut, { overflows: false, outside: false, hidden: false }, 'the whole line is visible');
  assert.deepEqual(await seriousViolations(page, '.conv-list'), [], 'the list with its fork line: no serious axe finding');
  // The chat says it too, with the way back to the original.
  const notice = page.locator('.fork-of');
  await notice.waitFor();
  assert.match(await notice.innerText(), new RegExp(`A fork of “${originalTitle}”`));
  await notice.getByRole('button', { name: 'Open the original conversation' }).click();
  await page.locator('.conv-item.active .conv-fork').waitFor({ state: 'detached' });
  assert.equal(await page.locator('.fork-of').count(), 0, 'the original is not a fork');
});

test('a memory says its category and who added it in words (never "user · user"); a new memory starts from the default \
category, not the one chosen for the last', async () => {
  await page.keyboard.press('Alt+3');
  await page.getByRole('heading', { name: 'Memory', exact: true }).waitFor();
  const add = async (/** @type {string} */ key, /** @type {string | null} */ category) => {
    await page.getByRole('button', { name: 'Add memory' }).click();
    const dialog = page.getByRole('dialog', { name: 'New memory' });
    await dialog.getByLabel(/^Key/).fill(key);
    await dialog.getByLabel('Content').fill(`The walk's ${key}.`);
    const select = dialog.getByRole('combobox', { name: 'Category' });
    const before = await select.inputValue();
    if (category) await select.selectOption(category);
    await dialog.getByRole('button', { name: 'Remember' }).click();
    await dialog.waitFor({ state: 'detached' });
    return before;
  };
  assert.equal(await add('walk start', 'core'), 'user', 'the first new memory starts from the default');
  assert.equal(await add('walk end', null), 'user', 'the next one starts from the default again, not from “core”');
  // Nor from what an edit or the list's filter last showed.
  await page.locator('.memory', { hasText: 'walk start' }).getByRole('button', { name: 'Edit walk start' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit memory' });
  assert.equal(await edit.getByRole('combobox', { name: 'Category' }).inputValue(), 'core', 'an edit shows the memory’s own');
  await edit.getByRole('button', { name: 'Cancel' }).click();
  await page.locator('#memory-category').selectOption('core');
  assert.equal(await add('walk middle', null), 'user', 'after an edit of a “core” memory and a “core” filter');
  await page.locator('#memory-category').selectOption('');
  const start = page.locator('.memory', { hasText: 'walk start' });
  const end = page.locator('.memory', { hasText: 'walk end' });
  await end.waitFor();
  const facts = async (/** @type {import('playwright-core').Locator} */ m) => (await m.locator('.memory-head .small').innerText()).trim();
  assert.match(await facts(end), /^Category: user · added by you · /);
  assert.match(await facts(start), /^Category: core · added by you · /, 'the chosen category was kept');
  assert.doesNotMatch(await facts(end), /user · user/);
});

/**
 * What axe's label-content-name-mismatch (experimental: a visible label the accessible name does
 * not contain, WCAG 2.5.3) and heading-order (a heading level skipped) find on the page now.
 * @param {import('playwright-core').Page} p @returns {Promise<string[]>}
 */
async function nameAndHeadingFaults(p) {
  if (!(await p.evaluate(() => 'axe' in window))) await p.evaluate(axeSource);
  return p.evaluate(async () => {
    const axe = /** @type {any} */ (window).axe; // any: axe-core's global, injected above
    const rules = ['label-content-name-mismatch', 'heading-order'];
    const r = await axe.run(document, {
      runOnly: { type: 'rule', values: rules },
      rules: Object.fromEntries(rules.map((id) => [id, { enabled: true }])),
      resultTypes: ['violations'],
    });
    return r.violations.flatMap((/** @type {any} */ v) =>
      v.nodes.map((/** @type {any} */ n) => `${v.id}: ${n.target.join(' ')} ${n.html.slice(0, 120)}`),
    );
  });
}

test('no label-content-name-mismatch and no heading-order on any panel with a job, a skill, a server and a memory listed; \
control: both planted are found', async () => {
  await page.evaluate(() => {
    const b = document.createElement('button');
    b.id = 'planted-name';
    b.textContent = 'Run now';
    b.setAttribute('aria-label', 'Run Planted job now');
    const h2 = document.createElement('h2');
    h2.textContent = 'Planted section';
    const h4 = document.createElement('h4');
    h4.id = 'planted-heading';
    h4.textContent = 'Planted card';
    document.querySelector('main')?.append(b, h2, h4);
  });
  const planted = await nameAndHeadingFaults(page);
  assert.ok(
    planted.some((x) => x.startsWith('label-content-name-mismatch: #planted-name')),
    JSON.stringify(planted),
  );
  assert.ok(
    planted.some((x) => x.startsWith('heading-order: #planted-heading')),
    JSON.stringify(planted),
  );
  await page.evaluate(() => document.querySelectorAll('#planted-name, #planted-heading, main > h2').forEach((e) => e.remove()));

  // A job, a skill and a server, so their cards and buttons are there.
  await page.keyboard.press('Alt+5');
  await page.getByLabel('When', { exact: true }).fill('every 2 hours');
  await page.getByLabel('Prompt for the agent').fill('Summarize the morning');
  await page.locator('#job-name').fill('Morning summary');
  await page.getByRole('button', { name: 'Create job' }).click();
  await page.locator('.job', { hasText: 'Morning summary' }).waitFor();
  await page.keyboard.press('Alt+KeyS');
  await page.getByRole('button', { name: 'Write a skill' }).click();
  const skill = page.getByRole('dialog', { name: 'Write a skill' });
  await skill.getByLabel('Name').fill('walk-notes');
  await skill.getByLabel('When to use it').fill('Tidies walk notes. Use for notes.');
  await skill.getByLabel('Instructions').fill('Write notes as short bullet points.');
  await skill.getByRole('button', { name: 'Save skill' }).click();
  await page.locator('.skill', { hasText: 'walk-notes' }).waitFor();
  await page.keyboard.press('Alt+KeyM');
  await page.getByRole('button', { name: 'Add server' }).click();
  const server = page.getByRole('dialog', { name: 'Add an MCP server' });
  await server.getByLabel(/^Name/).fill('walkserver');
  await server.getByLabel('Server URL').fill(`${await closedPortUrl()}/mcp`);
  await server.getByRole('button', { name: 'Add server' }).click();
  await page.locator('.server', { hasText: 'walkserver' }).waitFor();
  await page.keyboard.press('Alt+3');
  await page.getByRole('button', { name: 'Add memory' }).click();
  const memory = page.getByRole('dialog', { name: 'New memory' });
  await memory.getByLabel(/^Key/).fill('walk heading');
  await memory.getByLabel('Content').fill('A memory so that the panel lists one.');
  await memory.getByRole('button', { name: 'Remember' }).click();
  await page.locator('.memory', { hasText: 'walk heading' }).waitFor();

  /** @type {string[]} */
  const found = [];
  for (const p of PANEL_NAV) {
    await page.getByRole('navigation', { name: 'Workspace panels' }).getByRole('button', { name: p.label, exact: true }).click();
    await page.getByRole('heading', { name: p.label, exact: true }).waitFor();
    for (const f of await nameAndHeadingFaults(page)) found.push(`${p.label}: ${f}`);
  }
  await page.keyboard.press('Alt+0');
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  for (const f of await nameAndHeadingFaults(page)) found.push(`Chat: ${f}`);
  assert.deepEqual(found, []);
});

test('the palette button shows Ctrl+K on Linux and Windows; control: on a Mac (emulated) it shows ⌘K', async () => {
  /**
   * The palette button's keys in a new page whose browser reports `platform` (null: this machine's own, Linux).
   * @param {string | null} platform
   */
  const keysOn = async (platform) => {
    const p = await fx.newPage(browser.context);
    if (platform) {
      const cdp = await browser.context.newCDPSession(p);
      const ua = await p.evaluate(() => navigator.userAgent);
      const mac = platform === 'MacIntel';
      await cdp.send('Emulation.setUserAgentOverride', {
        userAgent: ua,
        platform,
        userAgentMetadata: {
          platform: mac ? 'macOS' : 'Windows',
          platformVersion: mac ? '14.0.0' : '10.0.0',
          architecture: 'x86',
          model: '',
          mobile: false,
        },
      });
    }
    await p.goto(app.url);
    await p.getByRole('link', { name: /My workspace/ }).click();
    const button = p.getByRole('button', { name: 'Commands' });
    await button.waitFor();
    const out = {
      reported: await p.evaluate(() => navigator.platform),
      shown: await button.locator('[aria-hidden="true"]').innerText(),
      title: await button.getAttribute('title'),
    };
    await p.close();
    return out;
  };
  const linux = await keysOn(null);
  assert.match(linux.reported, /^Linux/, 'this machine reports Linux');
  assert.deepEqual([linux.shown, linux.title], ['Ctrl+K', 'Command palette (Ctrl+K)']);
  const windows = await keysOn('Win32');
  assert.deepEqual([windows.reported, windows.shown], ['Win32', 'Ctrl+K']);
  const mac = await keysOn('MacIntel');
  assert.deepEqual([mac.reported, mac.shown, mac.title], ['MacIntel', '⌘K', 'Command palette (⌘K)']);
});

test('the meter says "≈ 1 token", not "1 tokens"; control: more than one is "tokens"', async () => {
  await page.keyboard.press('Alt+0');
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  await page.getByText('Start the conversation: type a message below.').waitFor();
  const box = page.getByRole('textbox', { name: 'Message' });
  const meter = page.getByRole('group', { name: 'Cost and tokens' });
  await box.fill('a');
  await meter.filter({ hasText: /^≈ 1 token in context with your message$/ }).waitFor();
  await box.fill('a longer draft of several words, well over one token');
  await meter.filter({ hasText: /^≈ \d+ tokens in context with your message$/ }).waitFor();
  await box.fill('');
});

test('the replay slider sits at the start for "Event 1 of N" and at the end for the last; control: the steps between move it', async () => {
  await page.keyboard.press('Alt+0');
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  await page.getByRole('textbox', { name: 'Message' }).fill('replay me');
  await page.keyboard.press('Enter');
  await page.locator('.msg.assistant:not(.streaming)', { hasText: 'replay me' }).waitFor();
  await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'hidden' });
  await page.keyboard.press('Alt+7');
  await page.getByRole('list', { name: 'Events' }).getByRole('listitem').first().waitFor();
  await page.getByRole('button', { name: 'Replay step by step' }).click();
  const slider = page.getByRole('slider', { name: 'Replay position' });
  const at = () =>
    slider.evaluate((el) => {
      const r = /** @type {HTMLInputElement} */ (el);
      return (Number(r.value) - Number(r.min)) / (Number(r.max) - Number(r.min));
    });
  const total = Number(/** @type {string} */ (await slider.getAttribute('max')));
  assert.ok(total >= 2, `${total} events`);
  await page.getByText(`Event 1 of ${total}`).waitFor();
  assert.equal(await at(), 0, 'the first event: at the start');
  assert.equal(await slider.getAttribute('aria-valuetext'), `Event 1 of ${total}`);
  await page.getByRole('button', { name: 'Next event' }).click();
  await page.getByText(`Event 2 of ${total}`).waitFor();
  assert.equal(await at(), 1 / (total - 1));
  await page.getByRole('button', { name: 'Last event' }).click();
  await page.getByText(`Event ${total} of ${total}`).waitFor();
  assert.equal(await at(), 1, 'the last event: at the end');
  await page.getByRole('button', { name: 'End replay' }).click();
});

test('Settings says the missed-jobs choice is in the Schedule panel, not "below"; control: the Schedule panel says "below", \
where the choice is', async () => {
  await page.keyboard.press('Alt+0');
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: /Settings/ });
  const jobs = dialog.getByRole('region', { name: 'Scheduled jobs' });
  await jobs.filter({ hasText: /Jobs run while Clawser is open/ }).waitFor();
  const said = await jobs.innerText();
  assert.doesNotMatch(said, /below/, said);
  assert.match(said, /as chosen in the Schedule panel \(“When a job was due while Clawser was closed”\)/);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'detached' });
  await page.keyboard.press('Alt+5');
  const mode = page.locator('#job-mode');
  await mode.filter({ hasText: /Jobs run while Clawser is open/ }).waitFor();
  assert.match(await mode.innerText(), /as chosen below\./);
  const below = await page.evaluate(() => {
    const text = /** @type {Element} */ (document.querySelector('#job-mode'));
    const choice = /** @type {Element} */ (document.querySelector('#job-missed'));
    return !!(text.compareDocumentPosition(choice) & Node.DOCUMENT_POSITION_FOLLOWING);
  });
  assert.ok(below, 'the choice really is below the sentence there');
});
