// "/" in the composer (issue 37 §2) completes to the workspace's skills and its MCP servers'
// prompts, as "@" does to agents: a listbox the message box points into with
// aria-activedescendant; arrows, Enter, Tab and Escape, or the pointer; choosing puts the command
// in the message box (nothing is sent), and the command then works as typed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { zipSync, strToU8 } from 'fflate';
import { sendMessage } from './helpers.mjs';
import { seriousViolationsEach } from './axe.mjs';
import { useFixture } from './fixture.mjs';
import { startScriptedMcpServers } from '../fixtures/mcp-scripted.mjs';

const fx = await useFixture({
  llm: {},
  settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1` }),
});
const { llm, page } = fx;
const mcp = await startScriptedMcpServers(
  { '/docs': [] },
  { prompts: { '/docs': [{ name: 'review_code', description: 'Reviews a file of code', arguments: [{ name: 'file', required: true }] }] } },
);
fx.defer(() => mcp.close());

const message = () => page.getByRole('textbox', { name: 'Message', exact: true });
const commands = () => page.getByRole('listbox', { name: 'Commands: skills and MCP prompts' });
const activeOption = () =>
  message().evaluate((el) => document.getElementById(el.getAttribute('aria-activedescendant') ?? '')?.textContent ?? null);

test('a skill and an MCP prompt are there to complete to', async () => {
  await page.getByRole('button', { name: 'Skills', exact: true }).click();
  const skill = '---\nname: report-writer\ndescription: Writes quarterly reports in the house style.\n---\n# Report writer\nWrite it.\n';
  await page.getByLabel('Skill ZIP files').setInputFiles([
    {
      name: 'report-writer.zip',
      mimeType: 'application/zip',
      buffer: Buffer.from(zipSync({ 'report-writer/SKILL.md': strToU8(skill) })),
    },
  ]);
  await page.getByText('Installed “report-writer” for this workspace.', { exact: false }).waitFor();
  await page.getByRole('button', { name: 'Servers', exact: true }).click();
  await page.getByRole('button', { name: 'Add server' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add an MCP server' });
  await dialog.getByLabel(/^Name/).fill('docs');
  await dialog.getByLabel('Server URL').fill(mcp.url('/docs'));
  await dialog.getByLabel('Sign-in').selectOption('none');
  await dialog.getByRole('button', { name: 'Add server' }).click();
  await page.locator('.server', { hasText: 'docs' }).locator('.server-status', { hasText: 'Connected' }).waitFor();
  await page.getByRole('button', { name: 'Back to chat' }).click();
  await message().waitFor();
});

test('"/" lists them; arrows move the active option (aria-activedescendant); Enter puts the command in, sending nothing', async () => {
  const sent = llm.requests.length;
  await message().fill('/');
  const options = commands().getByRole('option');
  await options.nth(1).waitFor();
  assert.deepEqual(
    (await options.allTextContents()).map((t) => t.split(' — ')[0]),
    ['/report-writer', '/mcp__docs__review_code file'],
  );
  assert.match((await options.allTextContents())[0], /— Skill: Writes quarterly reports/);
  assert.match((await options.allTextContents())[1], /— MCP prompt: Reviews a file of code/);
  assert.equal(await message().getAttribute('aria-controls'), await commands().getAttribute('id'));
  assert.match(String(await activeOption()), /^\/report-writer/);
  assert.equal(await options.nth(0).getAttribute('aria-selected'), 'true');
  // Light and dark, at 1280 and 360 px: the open list is scanned in each.
  assert.deepEqual(await seriousViolationsEach(page, '.composer', commands()), []);
  assert.match(String(await activeOption()), /^\/report-writer/, 'the list is as it was');
  await message().press('ArrowDown');
  assert.match(String(await activeOption()), /^\/mcp__docs__review_code/);
  assert.equal(await options.nth(1).getAttribute('aria-selected'), 'true');
  await message().press('ArrowDown');
  assert.match(String(await activeOption()), /^\/report-writer/, 'it wraps around');
  await message().press('ArrowUp');
  await message().press('Enter');
  assert.equal(await message().inputValue(), '/mcp__docs__review_code ');
  await commands().waitFor({ state: 'hidden' });
  assert.equal(await message().getAttribute('aria-activedescendant'), null);
  assert.equal(llm.requests.length, sent, 'Enter chose; it did not send');
});

test('typing narrows the list (a word of a name counts); Tab takes the active one; Escape closes it; the pointer chooses too', async () => {
  await message().fill('/rep');
  await commands().getByRole('option').first().waitFor();
  assert.deepEqual(
    (await commands().getByRole('option').allTextContents()).map((t) => t.split(' — ')[0]),
    ['/report-writer'],
  );
  await message().press('Tab');
  assert.equal(await message().inputValue(), '/report-writer ');
  assert.equal(await message().evaluate((el) => el === document.activeElement), true, 'the focus stays in the message box');
  // A word of the name: "rev" finds the prompt's "review".
  await message().fill('/rev');
  await commands()
    .getByRole('option', { name: /review_code/ })
    .waitFor();
  await message().press('Escape');
  await commands().waitFor({ state: 'hidden' });
  assert.equal(await message().inputValue(), '/rev');
  // With the pointer.
  await message().fill('/re');
  await commands()
    .getByRole('option', { name: /review_code/ })
    .click();
  assert.equal(await message().inputValue(), '/mcp__docs__review_code ');
  // Control: "/" past the start, or after a space, completes nothing.
  await message().fill('/report-writer now');
  await message().fill('see /rep');
  assert.equal(await commands().isHidden(), true);
});

test('the chosen command works as typed: the MCP prompt becomes the message', async () => {
  await message().fill('/mcp__docs__');
  await commands()
    .getByRole('option', { name: /review_code/ })
    .waitFor();
  await message().press('Enter');
  await message().pressSequentially('main.js');
  await message().press('Enter');
  await page.locator('.msg.user').getByText('Prompt review_code of the MCP server “docs”').waitFor();
  const prompted = llm.requests.at(-1)?.body.messages.findLast((/** @type {any} */ m) => m.role === 'user');
  assert.match(prompted.content, /review_code with \{"file":"main\.js"\}/);
  await sendMessage(page, 'thanks');
  await page.locator('.msg.assistant', { hasText: 'You said: thanks' }).waitFor();
});
