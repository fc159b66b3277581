// Agents that work together and can be taken back: self-repair of a stuck run, named agents
// and @mentions, sub-agents, per-turn undo/redo and the heartbeat, in the real page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sendMessage, recordNotifications } from './helpers.mjs';
import { useFixture } from './fixture.mjs';
import { waitUntil } from '../fixtures/wait.mjs';
import { CATALOG } from '../../web/providers/catalog.js';

const { llm, page } = await useFixture({
  llm: {},
  beforePage: ({ context }) => recordNotifications(context),
  settings: ({ llm }) => ({
    provider: 'openai',
    model: 'gpt-4o',
    apiKey: 'sk-test-agents-key',
    baseUrl: `${llm.url}/v1`,
    autonomy: 'full',
  }),
});
/** Waits for a condition of this process (the scripted server's requests). @param {() => boolean} check @param {string} what */
const until = (/** @type {() => boolean} */ check, /** @type {string} */ what) => waitUntil(check, what);

test('a looping model is told it is stuck, then stopped by self-repair; Continue anyway lets it finish', async () => {
  await page.getByRole('button', { name: 'New conversation' }).click();
  const loop = (/** @type {number} */ i) => ({ toolCalls: [{ id: `loop${i}`, name: 'fs_list', arguments: { path: '/' } }] });
  llm.enqueue(loop(1), loop(2), loop(3), loop(4), loop(5));
  const before = llm.requests.length;
  await sendMessage(page, 'list my files until you find something');
  const stopped = page.getByRole('alert').filter({ hasText: 'this run looked stuck' });
  await stopped.waitFor();
  await page.getByText(/Self-repair: .*fs_list.* was called with the same arguments 3 times/).waitFor();
  assert.equal(llm.requests.length - before, 4, 'three calls, a warning, one more call, stopped');
  assert.match(JSON.stringify(llm.requests.at(-1)?.body.messages[0]), /Note from Clawser.*looks stuck/);
  // The fifth scripted call was never asked for: continuing gets a fresh watch.
  llm.reset();
  llm.enqueue({ text: 'Nothing found; the workspace is empty.' });
  await stopped.getByRole('button', { name: 'Continue anyway' }).click();
  await page.getByText('Nothing found; the workspace is empty.').waitFor();
  assert.equal(await page.getByRole('button', { name: 'Continue anyway' }).count(), 0);
});

test('the Agents panel creates @writer (prompt, two tools, preview); "@wr" completes in the composer and @writer answers, labelled, \
with only its tools', async () => {
  await page.getByRole('button', { name: 'Agents', exact: true }).click();
  const panel = page.getByRole('region', { name: 'Agents' });
  await panel.getByRole('listitem').filter({ hasText: '@clawser' }).waitFor();
  await panel.getByRole('button', { name: 'New agent' }).click();
  const editor = panel.getByRole('form', { name: 'New agent' });
  await editor.getByLabel('Name (what you type after @)').fill('Writer');
  await editor
    .getByRole('alert')
    .getByText(/^name: a name of 1–32/)
    .waitFor();
  await editor.getByLabel('Name (what you type after @)').fill('writer');
  await editor.getByLabel('Description').fill('Drafts prose');
  // The examples in a model of its own's empty fields are a provider of the registry and its default model.
  const example = CATALOG.find((e) => e.capabilities.key === 'required');
  await editor.locator('#agent-edit-model-kind').selectOption('own');
  assert.equal(await editor.locator('#agent-edit-provider').getAttribute('placeholder'), example?.id);
  assert.equal(await editor.locator('#agent-edit-model').getAttribute('placeholder'), example?.defaultModel);
  await editor.locator('#agent-edit-model-kind').selectOption('');
  await editor.getByLabel('System prompt', { exact: true }).fill('You are the writer agent. Write vividly.');
  await editor.getByLabel("All the workspace's tools").uncheck();
  for (const box of await editor.locator('.agent-tool-grid input').all()) await box.uncheck();
  await editor.getByLabel('fs_read', { exact: true }).check();
  await editor.getByLabel('fs_list', { exact: true }).check();
  await editor.getByLabel('Identity').selectOption('markdown');
  await editor.locator('#agent-edit-identity').fill('Signs every answer with — W.');
  assert.match(
    String(await editor.getByLabel('System prompt preview').textContent()),
    /^You are the writer agent\. Write vividly\.\n\n# Your identity\nSigns every answer with — W\.$/,
  );
  await editor.getByRole('button', { name: 'Save agent' }).click();
  await panel.getByRole('status').getByText('Saved @writer.').waitFor();
  await panel.getByRole('listitem').filter({ hasText: '@writer' }).getByText('2 tools').waitFor();
  await panel.getByRole('button', { name: 'Back to chat' }).click();

  await page.getByRole('button', { name: 'New conversation' }).click();
  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.fill('');
  await composer.pressSequentially('@wr');
  const options = page.getByRole('listbox', { name: 'Agents to address' });
  await options.getByRole('option', { name: /@writer/ }).waitFor();
  assert.equal(await options.getByRole('option').count(), 1);
  await composer.press('Enter');
  assert.equal(await composer.inputValue(), '@writer ');
  await composer.pressSequentially('draft a haiku about tides');
  llm.reset();
  llm.enqueue({ text: 'Tides fold into night. — W.' });
  await composer.press('Enter');
  const reply = page.locator('li.msg.assistant[data-agent="writer"]');
  await reply.getByText('Tides fold into night. — W.').waitFor();
  assert.match(String(await reply.locator('.who').textContent()), /^@writer · /);
  const body = llm.requests[0].body;
  assert.match(body.messages[0].content, /^You are the writer agent\. Write vividly\.\n\n# Your identity\nSigns every answer with — W\./);
  assert.deepEqual(body.tools.map((/** @type {any} */ t) => t.function.name).sort(), ['fs_list', 'fs_read']);
  // Control: a plain message goes to the workspace's agent with every tool and the default prompt.
  llm.enqueue({ text: 'Plain answer.' });
  await sendMessage(page, 'hello');
  await page.getByText('Plain answer.').waitFor();
  const plain = llm.requests[1].body;
  assert.doesNotMatch(plain.messages[0].content, /writer agent/);
  assert.ok(plain.tools.length > 10);
  // An unknown agent is a clear error, and nothing is sent.
  await sendMessage(page, '@nobody hi');
  await page
    .getByRole('alert')
    .getByText(/There is no agent named @nobody/)
    .waitFor();
  assert.equal(llm.requests.length, 2);
});

test('agent_delegate: a live card (status, step, Cancel) while the sub-agent runs; \
its child conversation holds its work and is linked from the parent', async () => {
  await page.getByRole('button', { name: 'New conversation' }).click();
  llm.reset();
  llm.enqueue(
    { toolCalls: [{ id: 'del1', name: 'agent_delegate', arguments: { task: 'Write tides.md with three facts about tides.' } }] },
    {
      toolCalls: [{ id: 'cw1', name: 'fs_write', arguments: { path: 'tides.md', content: '# Tides\n1. Moon\n2. Sun\n3. Twice a day\n' } }],
      pauseAfter: 0,
    },
    { text: 'Wrote tides.md with three facts.' },
    { text: 'The sub-agent wrote tides.md.' },
  );
  await sendMessage(page, 'delegate the tides notes');
  const card = page.getByRole('group', { name: 'Sub-agent @clawser-sub' });
  await card.getByText(/running/).waitFor();
  await card.getByRole('button', { name: 'Cancel sub-agent @clawser-sub' }).waitFor();
  llm.resume();
  // The sub-agent's write passes the same gates: the workspace asks before a file is written.
  const approval = page.getByRole('dialog', { name: 'Allow “fs_write” for @clawser-sub?' });
  await approval.getByText('tides.md').first().waitFor();
  await approval.getByRole('button', { name: 'Allow once' }).click();
  await page.getByText('The sub-agent wrote tides.md.').waitFor();
  await card.waitFor({ state: 'detached' });
  const done = page.locator('li.delegation-done');
  await done.getByText(/Sub-agent @clawser-sub finished · changed tides\.md/).waitFor();
  // The child got only the task (not the parent's conversation), and the parent its answer.
  assert.equal(llm.requests[1].body.messages.at(-1).content, 'Write tides.md with three facts about tides.');
  assert.match(
    llm.requests[3].body.messages.at(-1).content,
    /Sub-agent @clawser-sub finished[\s\S]*Files it changed: tides\.md\.[\s\S]*Its final answer:\nWrote tides\.md with three facts\./,
  );
  // The child conversation is listed and browsable.
  await done.getByRole('button', { name: 'Open the conversation of @clawser-sub' }).click();
  await page.getByText('Wrote tides.md with three facts.').waitFor();
  // By its text content: a list item's innerText is empty until a frame has laid it out (content-visibility: auto).
  await page.locator('.conv-item.active', { hasText: /@clawser-sub: Write tides\.md/ }).waitFor();
  await page
    .getByRole('link', { name: /@clawser-sub: Write tides\.md/ })
    .first()
    .waitFor();
  // …and leads back to the conversation that delegated.
  await page.locator('li.sub-agent-of').getByRole('button', { name: 'Open the delegating conversation' }).click();
  await page.getByText('The sub-agent wrote tides.md.').waitFor();
});

test('agent_delegate: Cancel on the live card stops that sub-agent; the parent is told and goes on', async () => {
  await page.getByRole('button', { name: 'New conversation' }).click();
  llm.reset();
  llm.enqueue(
    { toolCalls: [{ id: 'del2', name: 'agent_delegate', arguments: { task: 'A long survey of every beach.' } }] },
    { text: 'Surveying beach one… and on and on.', pauseAfter: 1 },
    { text: 'Understood, the survey was cancelled.' },
  );
  await sendMessage(page, 'delegate a long survey');
  const card = page.getByRole('group', { name: 'Sub-agent @clawser-sub' });
  // Cancelled while its reply streams (the sub-agent's request reached the model).
  await until(() => llm.requests.length >= 2, "the sub-agent's request");
  await card.getByRole('button', { name: 'Cancel sub-agent @clawser-sub' }).click();
  await page.getByText('Understood, the survey was cancelled.').waitFor();
  assert.match(llm.requests.at(-1)?.body.messages.at(-1).content, /was cancelled/);
  await page
    .locator('li.delegation-done')
    .getByText(/Sub-agent @clawser-sub was cancelled/)
    .waitFor();
  llm.resume(); // the paused reply's connection is let go (the app already stopped reading it)
});

/** The workspace's files, memories and goals as stored (read fresh from OPFS, as a reload would). */
async function storedState() {
  return page.evaluate(async () => {
    const [{ OpfsFileSystem }, { ScopedFileSystem }, { MemoryStore }, { GoalStore }] = await Promise.all([
      import('/web/storage/opfs-fs.js'),
      import('/web/storage/scoped-fs.js'),
      import('/web/memory/store.js'),
      import('/web/stores/goals.js'),
    ]);
    const ws = location.hash.slice(1).split('/')[1];
    const opfs = new OpfsFileSystem();
    try {
      const fs = new ScopedFileSystem(opfs, `clawser_workspaces/${ws}`);
      const read = (/** @type {string} */ p) => fs.readText(p).catch(() => null);
      return {
        a: await read('undo-a.md'),
        b: await read('undo-b.md'),
        memories: (await new MemoryStore({ fs }).list()).map((m) => `${m.key}=${m.content}`),
        goals: (await new GoalStore({ fs }).list()).map((g) => g.description),
      };
    } finally {
      opfs.terminate();
    }
  });
}

test("undo of a turn that wrote two files, stored a memory and added a goal, then redo (Alt+Shift+Z); \
the undone turn leaves the model's context", async () => {
  await page.getByRole('button', { name: 'New conversation' }).click();
  llm.reset();
  llm.enqueue(
    {
      toolCalls: [
        { id: 'u1', name: 'fs_write', arguments: { path: 'undo-a.md', content: 'alpha' } },
        { id: 'u2', name: 'fs_write', arguments: { path: 'undo-b.md', content: 'beta' } },
        { id: 'u3', name: 'memory_store', arguments: { key: 'favourite-sea', content: 'the Baltic', category: 'user' } },
        { id: 'u4', name: 'goal_add', arguments: { description: 'Map every lighthouse' } },
      ],
    },
    { text: 'All set for the lighthouses.' },
  );
  await sendMessage(page, 'set up the lighthouse project');
  for (let i = 0; i < 2; i++) {
    const dialog = page.getByRole('dialog').filter({ hasText: 'fs_write' });
    await dialog.getByRole('button', { name: 'Allow once' }).click();
  }
  await page.getByText('All set for the lighthouses.').waitFor();
  const bar = page.locator('li.turn-undo');
  await bar.getByText('This turn changed 2 files, 1 memory, 1 goal.').waitFor();
  assert.deepEqual(await storedState(), { a: 'alpha', b: 'beta', memories: ['favourite-sea=the Baltic'], goals: ['Map every lighthouse'] });

  await bar.getByRole('button', { name: 'Undo turn' }).click();
  await page
    .locator('li.turn-undone')
    .getByText(/Turn undone: 2 files, 1 memory, 1 goal put back/)
    .waitFor();
  assert.equal(await page.getByText('All set for the lighthouses.').count(), 0, 'the turn leaves the transcript');
  assert.deepEqual(await storedState(), { a: null, b: null, memories: [], goals: [] });

  await page.keyboard.press('Alt+Shift+Z');
  await page.getByText('All set for the lighthouses.').waitFor();
  assert.deepEqual(await storedState(), { a: 'alpha', b: 'beta', memories: ['favourite-sea=the Baltic'], goals: ['Map every lighthouse'] });

  // Undo again (Alt+Z), then the next message's request holds nothing of the undone turn.
  await page.getByRole('textbox', { name: 'Message' }).blur();
  await page.keyboard.press('Alt+Z');
  await page.locator('li.turn-undone').last().getByRole('button', { name: 'Redo turn' }).waitFor();
  assert.deepEqual(await storedState(), { a: null, b: null, memories: [], goals: [] });
  llm.enqueue({ text: 'Fresh start.' });
  await sendMessage(page, 'what is the plan?');
  await page.getByText('Fresh start.').waitFor();
  const sent = JSON.stringify(llm.requests.at(-1)?.body.messages);
  assert.doesNotMatch(sent, /lighthouse project|All set for the lighthouses/);
  // Redo is gone once the conversation went on.
  await page.getByRole('button', { name: 'Redo turn' }).waitFor({ state: 'detached' });
  await page.locator('.msg.assistant').last().getByRole('button', { name: 'Undo turn' }).waitFor();
});

test("undo asks when a file the turn wrote was changed since: keeping the user's edit undoes the rest", async () => {
  await page.getByRole('button', { name: 'New conversation' }).click();
  llm.reset();
  llm.enqueue(
    {
      toolCalls: [
        { id: 'c1', name: 'fs_write', arguments: { path: 'undo-a.md', content: 'by the agent' } },
        { id: 'c2', name: 'fs_write', arguments: { path: 'undo-b.md', content: 'also by the agent' } },
      ],
    },
    { text: 'Wrote both.' },
  );
  await sendMessage(page, 'write both files');
  for (let i = 0; i < 2; i++)
    await page.getByRole('dialog').filter({ hasText: 'fs_write' }).getByRole('button', { name: 'Allow once' }).click();
  await page.getByText('Wrote both.').waitFor();
  // The user edits one of them afterwards (as the Files panel would).
  await page.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const ws = location.hash.slice(1).split('/')[1];
    const fs = new OpfsFileSystem();
    await fs.write(`clawser_workspaces/${ws}/undo-a.md`, 'edited by the user');
    fs.terminate();
  });
  await page.locator('li.turn-undo').getByRole('button', { name: 'Undo turn' }).click();
  const ask = page.getByRole('dialog', { name: 'Undo: changed since the turn' });
  await ask.getByText('the file undo-a.md').waitFor();
  await ask.getByRole('button', { name: 'Keep their changes' }).click();
  await page
    .locator('li.turn-undone')
    .getByText(/Kept as changed since: the file undo-a\.md/)
    .waitFor();
  const state = await storedState();
  assert.equal(state.a, 'edited by the user');
  assert.equal(state.b, null);
});

test('heartbeat: set up in the Agents panel; HEARTBEAT_OK leaves no message and no notification, \
a finding arrives like a job result', async () => {
  await page.getByRole('button', { name: 'Agents', exact: true }).click();
  const form = page.getByRole('form', { name: 'Heartbeat' });
  await form.getByLabel('Review the checklist on a schedule').check();
  await form.getByLabel('When').fill('every 30 minutes');
  await form.getByLabel('Checklist (HEARTBEAT.md)').fill('- Is inbox/ empty?\n- Any goal overdue?');
  await form.getByRole('button', { name: 'Save heartbeat' }).click();
  await form
    .getByRole('status')
    .getByText(/^Heartbeat on: every 30 minute\(s\); next review /)
    .waitFor();

  await page.getByRole('button', { name: 'Schedule', exact: true }).click();
  const job = page.locator('.job', { hasText: 'Heartbeat' });
  await job.getByText(/Heartbeat checklist/).waitFor();
  llm.reset();
  llm.enqueue({ text: 'HEARTBEAT_OK' });
  await job.getByRole('button', { name: 'Run now: Heartbeat' }).click();
  await job.getByText(/Last run .*: succeeded/).waitFor();
  assert.match(
    String(llm.requests[0].body.messages.at(-1).content),
    /<<<heartbeat-checklist>>>\n- Is inbox\/ empty\?\n- Any goal overdue\?\n<<<end-heartbeat-checklist>>>$/,
  );
  assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).__notifications), [], 'all well: no notification');
  assert.equal(await page.locator('.banner', { hasText: 'Heartbeat' }).count(), 0, 'and no banner');
  await page.locator('.conv-title', { hasText: /^Heartbeat$/ }).waitFor({ state: 'detached' });

  llm.enqueue({ text: 'Two new files arrived in inbox/.' });
  await job.getByRole('button', { name: 'Run now: Heartbeat' }).click();
  await page.locator('.banner', { hasText: 'Scheduled job “Heartbeat” finished.' }).getByRole('button', { name: 'Open' }).click();
  await page.locator('.msg.assistant', { hasText: 'Two new files arrived in inbox/.' }).waitFor();
  assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).__notifications), [
    { title: 'Scheduled job “Heartbeat” finished', body: 'Two new files arrived in inbox/.' },
  ]);
  await page
    .locator('.conv-title', { hasText: /^Heartbeat$/ })
    .first()
    .waitFor();
});

test("agent_delegate: opening a running sub-agent's conversation shows its work live and cancels nothing; \
the caller finishes meanwhile", async () => {
  await page.getByRole('button', { name: 'New conversation' }).click();
  llm.reset();
  llm.enqueue(
    { toolCalls: [{ id: 'del3', name: 'agent_delegate', arguments: { task: 'Count the lighthouses of Norway.' } }] },
    { text: 'There are about 200 lighthouses in Norway.', pauseAfter: 1 },
    { text: 'The sub-agent counted about 200.' },
  );
  await sendMessage(page, 'delegate the lighthouse count');
  const card = page.getByRole('group', { name: 'Sub-agent @clawser-sub' });
  await until(() => llm.requests.length >= 2, "the sub-agent's request");
  await card.getByRole('button', { name: 'Open the conversation of @clawser-sub' }).click();
  await page.locator('li.sub-agent-of').waitFor();
  await page.locator('.msg.user', { hasText: 'Count the lighthouses of Norway.' }).waitFor();
  // The sub-agent is its conversation's writer while it runs: nothing can be sent there.
  await sendMessage(page, 'interrupting');
  llm.resume();
  await page.locator('.msg.assistant', { hasText: 'There are about 200 lighthouses in Norway.' }).waitFor();
  await page.locator('li.sub-agent-of').getByRole('button', { name: 'Open the delegating conversation' }).click();
  await page.getByText('The sub-agent counted about 200.').waitFor();
  await page
    .locator('li.delegation-done')
    .getByText(/Sub-agent @clawser-sub finished/)
    .waitFor();
  assert.equal(llm.requests.length, 3, "no message went to the sub-agent's conversation while it ran");
});

test('the workspace identity shapes the default agent (preview, then a plain message); an agent is duplicated, \
exported as Markdown and imported back', async () => {
  await page.getByRole('button', { name: 'Agents', exact: true }).click();
  const panel = page.getByRole('region', { name: 'Agents' });
  await panel.getByRole('button', { name: 'Edit identity of @clawser' }).click();
  const editor = panel.getByRole('form', { name: 'Workspace identity' });
  await editor.getByLabel('Identity').selectOption('json');
  // The example is offered; a broken field is named before anything is saved.
  assert.match(await editor.locator('#agent-edit-identity').inputValue(), /"display": "Ada"/);
  await editor.locator('#agent-edit-identity').fill(JSON.stringify({ names: { display: 'Mira' }, psychology: { mbti: 'XXXX' } }));
  await editor
    .getByRole('alert')
    .getByText(/^psychology\.mbti: an MBTI type/)
    .waitFor();
  await editor
    .locator('#agent-edit-identity')
    .fill(
      JSON.stringify({ names: { display: 'Mira', full: 'Mira the navigator' }, linguistics: { catchphrases: ['Steady as she goes'] } }),
    );
  await editor
    .getByLabel('System prompt preview')
    .getByText(/# Your identity\nYou are Mira \(Mira the navigator\)\./)
    .waitFor();
  await editor.getByRole('button', { name: 'Save identity' }).click();
  await panel.getByRole('status').getByText("Saved the workspace's identity.").waitFor();

  // Duplicate @writer, export the copy as Markdown, delete it, import the file back.
  const writer = panel.getByRole('listitem').filter({ hasText: '@writer' }).first();
  await writer.getByRole('button', { name: 'Duplicate @writer' }).click();
  await panel.getByRole('status').getByText('Duplicated @writer as @writer-copy.').waitFor();
  const copy = panel.locator('li[data-agent="writer-copy"]');
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    copy.getByRole('button', { name: 'Export Markdown of @writer-copy' }).click(),
  ]);
  const file = await download.path();
  const text = await (await import('node:fs/promises')).readFile(String(file), 'utf8');
  assert.match(
    text,
    new RegExp(
      String.raw`^---\nname: "writer-copy"\n[\s\S]*tools: \[("fs_read","fs_list"|` +
        String.raw`"fs_list","fs_read")\][\s\S]*---\nYou are the writer agent\. Write vividly\.\n$`,
    ),
  );
  await copy.getByRole('button', { name: 'Delete @writer-copy' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
  await copy.waitFor({ state: 'detached' });
  await panel
    .getByLabel('Agent file to import')
    .setInputFiles({ name: 'writer-copy.agent.md', mimeType: 'text/markdown', buffer: Buffer.from(text) });
  await panel.getByRole('status').getByText('Imported @writer-copy into this workspace.').waitFor();
  await copy.getByText('2 tools').waitFor();
  await panel.getByRole('button', { name: 'Back to chat' }).click();

  await page.getByRole('button', { name: 'New conversation' }).click();
  llm.reset();
  llm.enqueue({ text: 'Steady as she goes.' });
  await sendMessage(page, 'who are you?');
  await page.getByText('Steady as she goes.').waitFor();
  assert.match(
    llm.requests[0].body.messages[0].content,
    /# Your identity\nYou are Mira \(Mira the navigator\)\.[\s\S]*Catchphrases you may use: Steady as she goes/,
  );
});
