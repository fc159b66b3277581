// MCP in Chromium (issue 15): the Servers panel connects a real server (server-everything on
// 127.0.0.1, clean environment) straight from the page; the agent uses one of its tools in a
// turn with the scripted LLM; a resource is attached to a message and a prompt used as a slash
// command (both untrusted); the server is connected again after a reload; and a server behind
// OAuth is signed in to through a sign-in window (PKCE, dynamic registration) against an
// authorization server written for the test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sendMessage, readWorkspaceFile, storedConfig, storedConfigUntil } from './helpers.mjs';
import { useFixture } from './fixture.mjs';
import { startEverythingServer } from '../fixtures/mcp-everything.mjs';
import { startOAuthServers } from '../fixtures/oauth-server.mjs';
import { startScriptedMcpServers } from '../fixtures/mcp-scripted.mjs';
import { waitUntil } from '../fixtures/wait.mjs';

const fx = await useFixture({
  llm: {},
  settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1` }),
});
const { app, llm, page } = fx;
const mcp = await startEverythingServer();
fx.defer(() => mcp.close());
const secured = await startOAuthServers(mcp.url);
fx.defer(() => secured.close());
// Two servers whose names and tools read the same once joined (issue 32 §3).
const pair = await startScriptedMcpServers({
  '/github': [{ name: 'create_issue' }],
  '/github-create': [{ name: 'issue' }],
  '/elsewhere': [{ name: 'create_issue' }],
});
fx.defer(() => pair.close());

/** A server's card, by its exact name (another card may mention the same words). @param {string} name */
const cardOf = (name) => page.locator('.server').filter({ has: page.getByRole('heading', { name, exact: true }) });

/** Adds a server in the Servers panel. @param {string} name @param {string} url @param {string} [auth] */
async function addServer(name, url, auth = 'none') {
  await page.getByRole('button', { name: 'Add server' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add an MCP server' });
  await dialog.getByLabel(/^Name/).fill(name);
  await dialog.getByLabel('Server URL').fill(url);
  await dialog.getByLabel('Sign-in').selectOption(auth);
  await dialog.getByRole('button', { name: 'Add server' }).click();
}

test('the Servers panel connects a real MCP server from the page; the agent calls one of its tools in a turn', async () => {
  await page.getByRole('button', { name: 'Servers', exact: true }).click();
  await page.getByText('No MCP servers yet.', { exact: false }).waitFor();
  await addServer('everything', mcp.url);
  const card = cardOf('everything');
  await card.locator('.server-status', { hasText: 'Connected' }).waitFor();
  await card.getByText(/Everything Reference Server .* · protocol 2025-11-25/).waitFor();
  await card.getByText(/\d+ tools, \d+ resources, \d+ prompts of everything/).click();
  const tools = card.getByRole('table', { name: 'Tools of everything' });
  await tools.getByRole('row', { name: /mcp__everything__echo .* read-only/ }).waitFor();
  await tools.getByRole('row', { name: /mcp__everything__toggle_simulated_logging .* may change things/ }).waitFor();
  await card.getByRole('list', { name: 'Prompts of everything' }).getByText('/mcp__everything__args_prompt city [state]').waitFor();

  await page.getByRole('button', { name: 'Back to chat' }).click();
  llm.enqueue(
    { toolCalls: [{ id: 'e1', name: 'mcp__everything__echo', arguments: { message: 'from the agent' } }] },
    { toolCalls: [{ id: 't1', name: 'mcp__everything__toggle_simulated_logging', arguments: {} }] },
    { text: 'The server echoed it.' },
  );
  await sendMessage(page, 'use the echo tool');
  // The read-only tool runs at once; the other asks, like any tool that may change things.
  const ask = page.getByRole('dialog', { name: 'Allow “mcp__everything__toggle_simulated_logging”?' });
  await ask.waitFor();
  await ask.getByText('Call toggle-simulated-logging on the MCP server “everything”', { exact: false }).waitFor();
  await ask.getByRole('button', { name: 'Allow once' }).click();
  await page.locator('.msg.assistant', { hasText: 'The server echoed it.' }).waitFor();
  const results = llm.requests.at(-1)?.body.messages.filter((/** @type {any} */ m) => m.role === 'tool');
  assert.equal(results[0].content, 'Echo: from the agent');
  assert.match(results[1].content, /logging/i);
  assert.ok(
    llm.requests
      .at(-3)
      ?.body.tools.some(
        (/** @type {any} */ t) => t.function.name === 'mcp__everything__get_sum' && t.function.parameters.properties.a.type === 'number',
      ),
    "the server's schema reaches the model",
  );

  // A long-running tool's progress is shown while it runs.
  llm.enqueue(
    { toolCalls: [{ id: 'l1', name: 'mcp__everything__trigger_long_running_operation', arguments: { duration: 3, steps: 6 } }] },
    { text: 'Finished the long one.' },
  );
  await sendMessage(page, 'run the long operation');
  await page
    .getByText(/mcp__everything__trigger_long_running_operation: [1-5]\/6/)
    .first()
    .waitFor();
  await page.locator('.msg.assistant', { hasText: 'Finished the long one.' }).waitFor();

  // The server's tool descriptions are outside text in every request: a memory is asked for, and says why.
  llm.enqueue({ toolCalls: [{ id: 'm1', name: 'memory_store', arguments: { key: 'k', content: 'planted' } }] }, { text: 'Not stored.' });
  await sendMessage(page, 'remember something');
  const remember = page.getByRole('dialog', { name: 'Allow “memory_store”?' });
  await remember.getByText('tool descriptions written by the MCP server “everything”', { exact: false }).waitFor();
  assert.equal(await remember.getByRole('button', { name: 'Always allow' }).count(), 0, 'a yes counts once');
  await remember.getByRole('button', { name: 'Deny' }).click();
  await page.locator('.msg.assistant', { hasText: 'Not stored.' }).waitFor();
});

test('a resource attached to a message and a prompt used as a slash command go to the model, marked as outside content; \
after a reload the server connects again', async () => {
  await page.getByRole('button', { name: 'Servers', exact: true }).click();
  const card = cardOf('everything');
  await card.getByText(/\d+ tools, \d+ resources, \d+ prompts of everything/).click();
  await card.getByRole('button', { name: 'Attach architecture.md to the next message' }).click();
  await page.getByText('“architecture.md” will go with your next message', { exact: false }).waitFor();
  await page.getByRole('button', { name: 'Back to chat' }).click();
  await page.getByRole('list', { name: 'Attachments' }).getByText('architecture.md (everything)').waitFor();
  llm.enqueue({ text: 'Read the architecture.' });
  await sendMessage(page, 'summarize the attachment');
  await page.locator('.msg.assistant', { hasText: 'Read the architecture.' }).waitFor();
  const user = llm.requests.at(-1)?.body.messages.findLast((/** @type {any} */ m) => m.role === 'user');
  assert.match(user.content, /^summarize the attachment\n\n<attachment label="architecture\.md \(everything\)">\n# Everything Server/);
  await page.locator('.msg.user', { hasText: 'summarize the attachment' }).getByText('architecture.md (everything)').waitFor();
  assert.equal(await page.getByRole('list', { name: 'Attachments' }).isHidden(), true, 'sent: the composer has no attachment left');

  llm.enqueue({ text: 'Weather noted.' });
  await sendMessage(page, '/mcp__everything__args_prompt "New York" NY');
  await page.locator('.msg.assistant', { hasText: 'Weather noted.' }).waitFor();
  const prompted = llm.requests.at(-1)?.body.messages.findLast((/** @type {any} */ m) => m.role === 'user');
  assert.match(prompted.content, /New York/);
  assert.match(prompted.content, /NY/);
  await page.locator('.msg.user').getByText('Prompt args-prompt of the MCP server “everything”').waitFor();
  // Both are outside content in the log (a standing-state tool asks after them).
  const log = /** @type {string} */ (await readWorkspaceFile(page, '{conversation}/events.jsonl'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((e) => e.type === 'user_message');
  assert.equal(log.find((e) => e.data.text === 'summarize the attachment')?.data.untrusted, 'a resource of the MCP server “everything”');
  assert.equal(log.find((e) => e.data.prompt)?.data.untrusted, 'a prompt of the MCP server “everything”');
  // A missing required argument is said, and nothing is sent.
  const before = llm.requests.length;
  await sendMessage(page, '/mcp__everything__args_prompt');
  await page.getByText('/mcp__everything__args_prompt needs city, state (optional); missing: city.', { exact: false }).waitFor();
  assert.equal(llm.requests.length, before);

  await page.reload();
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  await page.keyboard.press('Alt+KeyM');
  await cardOf('everything').locator('.server-status', { hasText: 'Connected' }).waitFor();
});

test('a server behind OAuth: the 401 offers "Sign in", the sign-in window comes back with a code (PKCE, registered client, resource), \
and the server connects with its token', async () => {
  await addServer('secured', secured.mcpUrl, 'oauth');
  const card = cardOf('secured');
  await card.locator('.server-status', { hasText: 'Failed' }).waitFor();
  await card.getByText(/refused the request \(HTTP 401\)/).waitFor();
  const [popup] = await Promise.all([page.waitForEvent('popup'), card.getByRole('button', { name: 'Sign in to secured' }).click()]);
  await popup.waitForEvent('close');
  await card.locator('.server-status', { hasText: 'Connected' }).waitFor();
  await card.getByText(/\d+ tools, \d+ resources, \d+ prompts of secured/).click();
  await card
    .getByRole('table', { name: 'Tools of secured' })
    .getByRole('row', { name: /mcp__secured__echo/ })
    .waitFor();
  assert.equal(secured.log.registered.length, 1, 'the client registered itself');
  assert.deepEqual(secured.log.registered[0].redirect_uris, [new URL('web/app/oauth-callback.html', app.url).href]);
  const authz = secured.log.authorizations[0];
  assert.equal(authz.get('code_challenge_method'), 'S256');
  assert.equal(authz.get('resource'), secured.mcpUrl);
  assert.equal(secured.log.tokens[0].get('grant_type'), 'authorization_code');
  assert.ok(secured.log.tokens[0].get('code_verifier'), 'the PKCE verifier was sent (and checked by the server)');
  // The token is kept sealed, not in clear in the page's storage.
  const oauthKeys = (/** @type {Record<string, string>} */ e) => Object.keys(e).filter((k) => k.startsWith('clawser_mcp_oauth_'));
  const stored = await storedConfigUntil(page, (e) => oauthKeys(e).length > 0, 'the sealed OAuth tokens');
  assert.ok(!/at-[0-9a-f]{12}/.test(JSON.stringify(stored)), 'no access token in clear');
  assert.ok(!/at-[0-9a-f]{12}/.test(await page.evaluate(() => JSON.stringify({ ...localStorage }))), 'nor in localStorage');
  // The agent can use the secured server's tools.
  await page.getByRole('button', { name: 'Back to chat' }).click();
  llm.enqueue({ toolCalls: [{ id: 's1', name: 'mcp__secured__echo', arguments: { message: 'behind OAuth' } }] }, { text: 'Done.' });
  await sendMessage(page, 'echo through the secured server');
  await page.locator('.msg.assistant', { hasText: 'Done.' }).waitFor();
  assert.equal(
    llm.requests
      .at(-1)
      ?.body.messages.filter((/** @type {any} */ m) => m.role === 'tool')
      .at(-1).content,
    'Echo: behind OAuth',
  );

  // The panel: the first server's log messages (logging was turned on by the agent), disconnect, remove.
  await page.getByRole('button', { name: 'Servers', exact: true }).click();
  const everything = cardOf('everything');
  await everything.getByText(/\d+ tools, \d+ resources, \d+ prompts of everything/).click();
  await everything.getByText(/^Log messages \(\d+\)$/).click();
  await everything.getByRole('list', { name: 'Log messages of everything' }).getByRole('listitem').first().waitFor();
  await card.getByRole('button', { name: 'Disconnect secured' }).click();
  await card.locator('.server-status', { hasText: 'Not connected' }).waitFor();
  await card.getByRole('button', { name: 'Remove secured' }).click();
  await page.getByRole('dialog', { name: 'Remove the server “secured”?' }).getByRole('button', { name: 'Remove' }).click();
  await page.getByText('Removed “secured”.').waitFor();
  assert.equal(await cardOf('secured').count(), 0);
  // Its OAuth tokens are deleted with it.
  await storedConfigUntil(page, (e) => oauthKeys(e).length === 0, 'its OAuth tokens deleted with it');
});

// Issue 32 §3: a tool's name is its identity. The pair below shared one name before
// (mcp_github_create_issue): whichever connected first took it, and the user's "Always allow".

/** The Clawser name of a server's one tool, as its card in the Servers panel lists it. @param {string} server */
async function listedName(server) {
  const card = cardOf(server);
  const summary = card.getByText(new RegExp(`^\\d+ tools?, \\d+ resources?, \\d+ prompts? of ${server}$`));
  assert.match(await summary.innerText(), /^1 tool,/, `${server}'s tool is registered (none left out)`);
  if (!(await card.getByRole('table', { name: `Tools of ${server}` }).isVisible())) await summary.click();
  return card
    .getByRole('table', { name: `Tools of ${server}` })
    .locator('tbody code')
    .innerText();
}

/**
 * One turn in which the agent calls `name`: how the user answers its dialog (null: no dialog may
 * come — the turn would wait on it), and the call the scripted servers received (null: none ran).
 * @param {string} name @param {string | null} answer @param {string} done the reply after the call
 */
async function turn(name, answer, done) {
  const calls = pair.calls.length;
  llm.enqueue({ toolCalls: [{ id: `c${llm.requests.length}`, name, arguments: { text: 'x' } }] }, { text: done });
  await sendMessage(page, `call ${name}`);
  if (answer) {
    const ask = page.getByRole('dialog', { name: `Allow “${name}”?` });
    await ask.waitFor();
    await ask.getByRole('button', { name: answer, exact: true }).click();
  }
  // The turn ends only when the call has run (or was refused).
  await page.locator('.msg.assistant', { hasText: done }).waitFor();
  assert.ok(pair.calls.length - calls <= 1);
  return pair.calls.length > calls ? (pair.calls.at(-1) ?? null) : null;
}

/** The stored tool choices (policies and rules) among stored settings, as text. @param {Record<string, string>} entries */
const choicesIn = (entries) =>
  Object.entries(entries)
    .filter(([k]) => /^clawser_tool_(perms|rules)_/.test(k))
    .map(([, v]) => v)
    .join('\n');
/** The stored tool choices of the page, as text. */
const storedChoices = async () => choicesIn(await storedConfig(page));

test('issue 32 §3: servers "github" (create_issue) and "github-create" (issue) show two tool names; \
"Always allow" in the dialog lets only github\'s tool run without asking; removed and added again, it asks again', async () => {
  await page.getByRole('button', { name: 'Servers', exact: true }).click();
  // github-create first: with one flat name, the first to connect took it.
  await addServer('github-create', pair.url('/github-create'));
  await cardOf('github-create').locator('.server-status', { hasText: 'Connected' }).waitFor();
  await addServer('github', pair.url('/github'));
  await cardOf('github').locator('.server-status', { hasText: 'Connected' }).waitFor();
  const gh = await listedName('github');
  const ghc = await listedName('github-create');
  assert.equal(gh, 'mcp__github__create_issue');
  assert.equal(ghc, 'mcp__github_create__issue');

  await page.getByRole('button', { name: 'Back to chat' }).click();
  assert.deepEqual(await turn(gh, 'Always allow', 'Created.'), { path: '/github', tool: 'create_issue', args: { text: 'x' } });
  // Control: the allowed tool now runs without asking, on its own server.
  assert.equal((await turn(gh, null, 'Created again.'))?.path, '/github');
  // The other server's tool still asks.
  assert.equal((await turn(ghc, 'Allow once', 'Issued.'))?.path, '/github-create');
  // The Tools panel shows the choice on github's tool only.
  await page.getByRole('button', { name: 'Tools', exact: true }).click();
  assert.equal(await page.getByRole('combobox', { name: `Policy for ${gh}` }).inputValue(), 'auto');
  assert.equal(await page.getByRole('combobox', { name: `Policy for ${ghc}` }).inputValue(), '');

  // Removed and added again (same name, same address): a new server, asked for again.
  await storedConfigUntil(page, (e) => /create_issue/.test(choicesIn(e)), 'the "Always allow" stored');
  await page.getByRole('button', { name: 'Servers', exact: true }).click();
  await cardOf('github').getByRole('button', { name: 'Remove github' }).click();
  await page.getByRole('dialog', { name: 'Remove the server “github”?' }).getByRole('button', { name: 'Remove' }).click();
  await page.getByText('Removed “github”.').waitFor();
  await storedConfigUntil(page, (e) => !/create_issue/.test(choicesIn(e)), 'its "Always allow" gone with it');
  await addServer('github', pair.url('/github'));
  await cardOf('github').locator('.server-status', { hasText: 'Connected' }).waitFor();
  assert.equal(await listedName('github'), gh, 'the same name for the model');
  await page.getByRole('button', { name: 'Back to chat' }).click();
  assert.equal((await turn(gh, 'Allow once', 'Asked again.'))?.path, '/github');
});

test('issue 32 §3: the Config document names each choice by its server; the colliding pair exported, \
removed and imported again stays two servers, each with its own choice', async () => {
  const gh = 'mcp__github__create_issue';
  const ghc = 'mcp__github_create__issue';
  const panel = page.getByRole('region', { name: 'Config' });
  const editor = panel.getByRole('textbox', { name: 'Configuration (JSON)' });
  /** @param {(c: any) => void} fn */
  const editConfig = async (fn) => {
    const c = JSON.parse(await editor.inputValue());
    fn(c);
    await editor.fill(JSON.stringify(c, null, 2));
  };
  const loosen = page.getByRole('dialog', { name: 'Loosen protections?' });
  await page.keyboard.press('Alt+9');
  await panel.waitFor();
  await editConfig((c) => {
    c.mcpToolPolicies = [
      { server: 'github', tool: 'create_issue', policy: 'auto' },
      { server: 'github-create', tool: 'issue', policy: 'denied' },
    ];
  });
  await panel.getByText('Valid: ready to save.').waitFor();
  await panel.getByRole('button', { name: 'Save configuration' }).click();
  await loosen.waitFor();
  const listed = await loosen.getByRole('listitem').allInnerTexts();
  assert.equal(listed.length, 1, JSON.stringify(listed));
  assert.match(listed[0], /create_issue.*“github”.*without asking/, 'the "Always allow" is named with its server');
  await loosen.getByRole('button', { name: 'Apply anyway' }).click();
  await panel.getByText('Saved. New turns use it.').waitFor();
  assert.match(await storedChoices(), /create_issue/, 'stored');
  await page.getByRole('button', { name: 'Back to chat' }).click();
  assert.equal((await turn(gh, null, 'Ran unasked.'))?.path, '/github', "github's create_issue runs without asking");
  assert.equal(await turn(ghc, null, 'It was off.'), null, "github-create's issue is off: refused, never sent");

  // Exported, the pair and its choices are named by server; removed (the document), nothing stays.
  await page.keyboard.press('Alt+9');
  await panel.waitFor();
  const exported = JSON.parse(await editor.inputValue());
  assert.deepEqual(exported.mcpToolPolicies, [
    { server: 'github', tool: 'create_issue', policy: 'auto' },
    { server: 'github-create', tool: 'issue', policy: 'denied' },
  ]);
  assert.deepEqual(
    Object.keys(exported.toolPolicies).filter((k) => k.startsWith('mcp')),
    [],
    'no MCP tool by its model name',
  );
  await editConfig((c) => {
    c.mcpServers = c.mcpServers.filter((/** @type {any} */ m) => !m.name.startsWith('github'));
    c.mcpToolPolicies = [];
  });
  await panel.getByRole('button', { name: 'Save configuration' }).click();
  await panel.getByText('Saved. New turns use it.').waitFor();
  assert.doesNotMatch(await storedChoices(), /create_issue|issue/, "the servers' choices went with them");

  // Imported again: two new servers, each choice on its own server's tool.
  await editor.fill(JSON.stringify(exported, null, 2));
  await panel.getByRole('button', { name: 'Save configuration' }).click();
  await loosen.waitFor();
  const again = await loosen.getByRole('listitem').allInnerTexts();
  assert.ok(
    again.some((t) => /adds the MCP server “github” at/.test(t)) && again.some((t) => /adds the MCP server “github-create” at/.test(t)),
    JSON.stringify(again),
  );
  assert.ok(
    again.some((t) => /create_issue.*“github”.*without asking/.test(t)),
    JSON.stringify(again),
  );
  await loosen.getByRole('button', { name: 'Apply anyway' }).click();
  await panel.getByText('Saved. New turns use it.').waitFor();
  await page.keyboard.press('Alt+M');
  for (const name of ['github', 'github-create']) {
    await cardOf(name)
      .getByRole('button', { name: `Connect ${name}` })
      .click();
    await cardOf(name).locator('.server-status', { hasText: 'Connected' }).waitFor();
  }
  assert.equal(await listedName('github'), gh);
  assert.equal(await listedName('github-create'), ghc);
  await page.getByRole('button', { name: 'Back to chat' }).click();
  assert.equal((await turn(gh, null, 'Unasked again.'))?.path, '/github', 'imported: github\'s "Always allow" applies to github\'s tool');
  assert.equal(await turn(ghc, null, 'Still off.'), null, "and github-create's Off to github-create's");
});

test('issue 32 §3: @triage, saved with github\'s create_issue, is not offered the tool of another "github" added at another address; \
the chat and its card say so, naming it and the tool (control: before, it is offered and its call reaches /github)', async () => {
  const gh = 'mcp__github__create_issue';
  // github's tool runs without asking: a call offered is a call made (no dialog to wait on).
  await page.getByRole('button', { name: 'Tools', exact: true }).click();
  await page.getByRole('combobox', { name: `Policy for ${gh}` }).selectOption('auto');
  await page.getByRole('button', { name: 'Agents', exact: true }).click();
  const panel = page.getByRole('region', { name: 'Agents' });
  await panel.getByRole('button', { name: 'New agent' }).click();
  const editor = panel.getByRole('form', { name: 'New agent' });
  await editor.getByLabel('Name (what you type after @)').fill('triage');
  await editor.getByLabel("All the workspace's tools").uncheck();
  for (const box of await editor.locator('.agent-tool-grid input').all()) await box.uncheck();
  await editor.getByLabel(gh, { exact: true }).check();
  await editor.getByRole('button', { name: 'Save agent' }).click();
  await panel.getByRole('status').getByText('Saved @triage.').waitFor();
  await page.getByRole('button', { name: 'Back to chat' }).click();

  /**
   * One @triage turn whose model calls the tool if it is offered (it runs without asking): the
   * MCP tools the model was offered must be `expected`; returns where the call went (null: nowhere).
   * @param {string[]} expected @param {string} done
   */
  const ask = async (expected, done) => {
    const calls = pair.calls.length;
    const before = llm.requests.length;
    llm.enqueue({ toolCalls: [{ id: `t${before}`, name: gh, arguments: { text: 'x' } }] }, { text: done });
    await sendMessage(page, '@triage file an issue');
    // What the model was offered, as soon as it is asked (the condition is this process's: polled).
    await waitUntil(() => llm.requests.length > before, 'the model to be asked');
    const offered = (llm.requests[before]?.body.tools ?? [])
      .map((/** @type {any} */ t) => t.function.name)
      .filter((/** @type {string} */ n) => n.startsWith('mcp'));
    assert.deepEqual(offered, expected, 'the MCP tools @triage is offered');
    await page.locator('.msg.assistant', { hasText: done }).waitFor();
    return pair.calls.length > calls ? (pair.calls.at(-1)?.path ?? null) : null;
  };
  // Control: the server it was saved with.
  assert.equal(await ask([gh], 'Filed.'), '/github');

  await page.keyboard.press('Alt+M');
  await cardOf('github').getByRole('button', { name: 'Remove github' }).click();
  await page.getByRole('dialog', { name: 'Remove the server “github”?' }).getByRole('button', { name: 'Remove' }).click();
  await page.getByText('Removed “github”.').waitFor();
  await addServer('github', pair.url('/elsewhere'));
  await cardOf('github').locator('.server-status', { hasText: 'Connected' }).waitFor();
  assert.equal(await listedName('github'), gh, "the new server's tool has the name");
  await page.getByRole('button', { name: 'Back to chat' }).click();

  assert.equal(await ask([], 'Not offered.'), null, 'nothing reached /elsewhere');
  await page
    .getByRole('status')
    .filter({ hasText: /^@triage: mcp__github__create_issue is left out — it was chosen for an MCP server that is no longer set up/ })
    .waitFor();
  await page.getByRole('button', { name: 'Agents', exact: true }).click();
  await panel
    .getByRole('listitem')
    .filter({ hasText: '@triage' })
    .getByText(/mcp__github__create_issue is left out .*“github” \(http:\/\/127\.0\.0\.1:\d+\/elsewhere\)/)
    .waitFor();
  await panel.getByRole('button', { name: 'Back to chat' }).click();
});

test('issue 32 §3: a server that is not connected keeps its choices in view — the Tools panel lists its "Always allow" by server, \
address and tool, and Forget removes it; control: a connected server\'s choice shows in its row as before', async () => {
  const gh = 'mcp__github__create_issue';
  const ghc = 'mcp__github_create__issue';
  const stored = page.getByRole('list', { name: 'Choices for tools not connected' });
  // Both connected: each choice in its row (github's "Always allow" given here), nothing listed apart.
  await page.getByRole('button', { name: 'Tools', exact: true }).click();
  await page.getByRole('combobox', { name: `Policy for ${gh}` }).selectOption('auto');
  assert.equal(await page.getByRole('combobox', { name: `Policy for ${gh}` }).inputValue(), 'auto');
  assert.equal(await page.getByRole('combobox', { name: `Policy for ${ghc}` }).inputValue(), 'denied');
  assert.equal(await stored.getByRole('listitem').count(), 0);

  await page.keyboard.press('Alt+M');
  await cardOf('github').getByRole('button', { name: 'Disconnect github' }).click();
  await cardOf('github').locator('.server-status', { hasText: 'Not connected' }).waitFor();
  await page.getByRole('button', { name: 'Tools', exact: true }).click();
  await stored.waitFor();
  assert.equal(
    await page.getByRole('combobox', { name: `Policy for ${gh}` }).count(),
    0,
    'its tool is not in the table while not connected',
  );
  const items = await stored.getByRole('listitem').allInnerTexts();
  assert.equal(items.length, 1, JSON.stringify(items));
  assert.match(items[0], /^create_issue \(MCP server “github”, http:\/\/127\.0\.0\.1:\d+\/elsewhere, not connected\): Always allow/);
  // Control: the connected server's Off is where it was.
  assert.equal(await page.getByRole('combobox', { name: `Policy for ${ghc}` }).inputValue(), 'denied');

  await storedConfigUntil(page, (e) => /create_issue/.test(choicesIn(e)), 'the "Always allow" stored');
  await stored.getByRole('button', { name: /^Forget the choice for create_issue \(MCP server “github”/ }).click();
  await stored.waitFor({ state: 'hidden' });
  // The "Always allow" is gone from what is stored; github-create's Off stays.
  await storedConfigUntil(
    page,
    (e) => !/create_issue/.test(choicesIn(e)) && /:issue/.test(choicesIn(e)),
    'only the "Always allow" forgotten',
  );

  // Connected again: its tool follows the default (asks).
  await page.keyboard.press('Alt+M');
  await cardOf('github').getByRole('button', { name: 'Connect github' }).click();
  await cardOf('github').locator('.server-status', { hasText: 'Connected' }).waitFor();
  await page.getByRole('button', { name: 'Tools', exact: true }).click();
  assert.equal(await page.getByRole('combobox', { name: `Policy for ${gh}` }).inputValue(), '');
  await page.getByRole('button', { name: 'Back to chat' }).click();
  assert.equal((await turn(gh, 'Allow once', 'Asked after forgetting.'))?.path, '/elsewhere');
});
