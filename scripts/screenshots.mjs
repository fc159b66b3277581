#!/usr/bin/env node
// Regenerates the screenshots (docs/screenshots/, a few in README.md, all in docs/screenshots.md)
// from the real app in Chromium, chatting with the scripted test server. Run:
// node scripts/screenshots.mjs. No font needs installing: the icons are inline SVG (Lucide).
// It shoots the chat and every panel of the navigation (PANEL_NAV, so a new panel is shot
// without being listed here) in light and dark at 360×740, 1280×720 and 1920×1080, named
// <panel>-<theme>-<width>.png; at each size too: documents attached in the composer (attach-),
// an artifact beside the chat (artifact-), Settings, the command palette and the chat beside
// Files (split-); at 1280 px light: the first run (first-run-) and the approval dialog (approval-).
// The workspace is seeded as one in use: dated, pinned, scheduled-job and sub-agent conversations,
// memories, goals, a job, a webhook channel and a remote machine.
// To check one shot without rewriting the others: node scripts/screenshots.mjs --only <chat|panel name> --out <folder>
// (light, 1280 px only — `--theme dark` for the dark one; docs/screenshots/ and the gallery are left alone).
import { mkdir, readdir, rm } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { launchBrowser, startApp, saveSettings } from '../tests/browser/helpers.mjs';
import { startLlmServer } from '../tests/fixtures/llm-server.mjs';
import { PANEL_NAV } from '../web/app/panel-nav.js';
import { writeGallery } from './screenshots-gallery.mjs';

const { values: args } = parseArgs({ options: { only: { type: 'string' }, out: { type: 'string' }, theme: { type: 'string' } } });
const ONLY = args.only;
const OUT = args.out ?? 'docs/screenshots';
if (ONLY && !args.out) throw new Error('--only writes to a folder of its own: give --out <folder>.');
/** @type {('light' | 'dark')[]} */
if (args.theme && (!ONLY || !['light', 'dark'].includes(args.theme))) throw new Error('--theme light|dark goes with --only.');
/** @type {('light' | 'dark')[]} */
const THEMES = ONLY ? [args.theme === 'dark' ? 'dark' : 'light'] : ['light', 'dark'];
const ALL_SIZES = [
  { width: 360, height: 740 },
  { width: 1280, height: 720 },
  { width: 1920, height: 1080 },
];
const SIZES = ONLY ? [ALL_SIZES[1]] : ALL_SIZES;

const app = await startApp();
const llm = await startLlmServer();
const browser = await launchBrowser({ viewport: SIZES[1], colorScheme: 'light' });
const page = await browser.context.newPage();

/** Paints settled: the web fonts loaded and two frames drawn since the last change. */
const settled = () =>
  page.evaluate(async () => {
    await document.fonts.ready;
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  });
/**
 * Nothing focused unless the shot is of a focused control (the palette's search): a focus ring
 * left by the previous step is not part of the view.
 * @param {string} name @param {string} theme @param {number} width @param {{keepFocus?: boolean}} [options]
 */
async function shoot(name, theme, width, { keepFocus = false } = {}) {
  if (!keepFocus) await page.evaluate(() => /** @type {HTMLElement | null} */ (document.activeElement)?.blur());
  await settled();
  await page.screenshot({ path: `${OUT}/${name}-${theme}-${width}.png` });
}
/** @param {'light' | 'dark'} theme @param {{width: number, height: number}} size */
async function look(theme, size) {
  await page.emulateMedia({ colorScheme: theme, reducedMotion: 'reduce' });
  await page.setViewportSize(size);
}
/** Opens the chat (Alt+0) and waits for its message box. */
async function openChat() {
  await page.keyboard.press('Alt+0');
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
}
/** Opens a panel of the navigation by its shortcut, as loaded (nothing busy). @param {typeof PANEL_NAV[number]} p */
async function openPanel(p) {
  const key = p.shortcut.replace(/^Alt\+/, '');
  await page.keyboard.press(`Alt+${/^[A-Z]$/.test(key) ? `Key${key}` : key}`);
  await page.getByRole('heading', { name: p.label, exact: true }).waitFor();
  await page.waitForURL(new RegExp(`/${p.name}$`));
  await page.waitForFunction(() => !document.querySelector('#main [aria-busy="true"]'));
  if (p.name === 'dashboard') {
    await page.locator('.dash-chart canvas').first().waitFor();
    await page
      .getByRole('table', { name: 'Storage by workspace' })
      .getByRole('row', { name: /\(this one\)/ })
      .filter({ hasNotText: 'Measuring…' })
      .waitFor();
  }
}

/** Fills the open panel with what it is for: the note in the editor, its diff, a terminal session. @param {string} name */
async function dress(name) {
  if (name === 'files') {
    const file = page.getByRole('button', { name: 'x.md', exact: true });
    if (!(await file.isVisible())) await page.getByRole('button', { name: 'notes', exact: true }).click();
    await file.click();
    await page.getByRole('textbox', { name: 'Contents of notes/x.md' }).waitFor();
  }
  if (name === 'git') {
    await page.getByRole('button', { name: /^modified notes\/x\.md/ }).click();
    await page.locator('.diff-table').waitFor();
  }
  if (name === 'terminal') {
    // A terminal opens a new session each time its panel opens: typed into every time.
    await page.locator('.terminal-host:visible .xterm-helper-textarea').waitFor();
    for (const line of ['ls -R notes', 'grep -rn TODO . | wc -l', 'git log --oneline | head -n 3', 'clawser goal list']) {
      await page.locator('.terminal-host:visible .xterm-helper-textarea').focus();
      await page.keyboard.type(line);
      await page.keyboard.press('Enter');
      await page.locator('.terminal-host:visible:not([aria-busy])').waitFor();
    }
    await page.locator('.terminal-host:visible .xterm-rows', { hasText: 'Publish the launch blog post' }).waitFor();
  }
}

/**
 * Conversations of a workspace in use, written through the app's conversation store: one pinned, one
 * from yesterday, one from last month and a sub-agent's (its caller's and the tool call's ids in its
 * details); then the page is loaded again to list them.
 */
async function seedConversations() {
  await page.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const { ConversationStore } = await import('/web/agent/conversation/conversation-store.js');
    const ws = location.hash.split('/')[1];
    const fs = new OpfsFileSystem();
    try {
      const store = new ConversationStore(fs, ws);
      const day = 24 * 60 * 60 * 1000;
      const start = Date.now() - 60 * 60 * 1000;
      /** @param {string} title @param {number} daysAgo @param {string} user @param {string} agent */
      const talk = (title, daysAgo, user, agent) => {
        const at = start - daysAgo * day;
        const id = (/** @type {number} */ n) => `seed-${daysAgo}-${n}-${Math.random().toString(36).slice(2, 8)}`;
        return store.createFrom(title, [
          { id: id(1), type: 'user_message', source: 'user', timestamp: at, data: { text: user } },
          { id: id(2), type: 'agent_message', source: 'agent', timestamp: at + 4000, data: { text: agent } },
        ]);
      };
      const pinned = await talk(
        'Release checklist',
        12,
        'What do we check before a release?',
        'Tests green, changelog written, the version bumped, then tag and publish.',
      );
      await store.setPinned(pinned.id, true);
      await talk('Trip to Lisbon', 1, 'Plan two days in Lisbon', 'Day one: Alfama and the castle; day two: Belém and the LX Factory.');
      await talk(
        'Sourdough starter',
        34,
        'How often do I feed a sourdough starter?',
        'Once a day at room temperature, once a week in the fridge.',
      );
      const caller = await talk('Research: PWA storage', 0, 'Ask the researcher about OPFS quotas', 'The researcher found the quotas.');
      const sub = await talk(
        '@researcher: OPFS quotas',
        0,
        'How much can a PWA store in OPFS?',
        'Up to a share of the free disk, per origin.',
      );
      // A sub-agent's conversation names its caller (the store writes this when an agent delegates).
      const path = `clawser_workspaces/${ws}/.conversations/${sub.id}/meta.json`;
      const meta = JSON.parse(await fs.readText(path));
      await fs.write(
        path,
        JSON.stringify({ ...meta, parent: { conversationId: caller.id, toolCallId: 'seed-call', agent: 'researcher' } }),
      );
      await store.rename(sub.id, sub.title); // the list picks the details up
    } finally {
      fs.terminate();
    }
  });
  await page.reload();
  await page.getByRole('heading', { name: 'Remote', exact: true }).waitFor();
  // The job's run was the last opened: the chat shots show the person's own conversation.
  await openChat();
  await page.locator('.conv-open', { hasText: 'Save a note about X' }).click();
  await page.getByText('It waits').waitFor();
  await page.mouse.move(0, 0); // no row left in its hover state
}

const reply =
  'Here is a small function that debounces calls:\n\n```js\nexport function debounce(fn, ms) {\n  let t;\n  ' +
  'return (...args) => {\n    clearTimeout(t);\n    t = setTimeout(() => fn(...args), ms);\n  ' +
  '};\n}\n```\n\nIt waits **ms** milliseconds after the last call before running `fn`.';
try {
  await mkdir(OUT, { recursive: true });
  if (!ONLY) for (const f of await readdir(OUT)) if (f.endsWith('.png')) await rm(`${OUT}/${f}`);
  await look('light', ALL_SIZES[1]);
  await page.goto(app.url);
  await page.getByRole('link', { name: /My workspace/ }).click();
  await page.waitForURL(/#workspace\//);
  if (!ONLY) await shoot('first-run', 'light', 1280);
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: /Settings/ });
  await dialog.getByLabel('Provider', { exact: true }).selectOption('ollama');
  await dialog.getByLabel('Model', { exact: true }).fill('llama3.2');
  await dialog.getByLabel('Base URL', { exact: true }).fill(`${llm.url}/v1`);
  await dialog.getByRole('button', { name: 'Test connection' }).click();
  await dialog.getByText(/Connected/).waitFor();
  await saveSettings(page);

  // The conversation every chat shot shows: a tool turn approved, then a reply with code.
  llm.enqueue(
    {
      text: 'Saving the note first.',
      toolCalls: [{ id: 'w1', name: 'fs_write', arguments: { path: 'notes/x.md', content: '# X\nX is the 24th letter.' } }],
    },
    { toolCalls: [{ id: 'l1', name: 'fs_list', arguments: { path: '/', recursive: true } }] },
    { text: 'Saved **notes/x.md**. Your workspace now has one note.' },
  );
  await page.getByRole('textbox', { name: 'Message' }).fill('Save a note about X to notes/x.md, then list my files');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByRole('dialog', { name: /Allow/ }).waitFor();
  if (!ONLY) await shoot('approval', 'light', 1280);
  await page.getByRole('button', { name: 'Allow once' }).click();
  await page.getByText('Your workspace now has one note.').waitFor();
  llm.enqueue({ text: reply });
  await page.getByRole('textbox', { name: 'Message' }).fill('Write a debounce helper in JavaScript');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByText('It waits').waitFor();

  // What the panels show: a note and a change to it, memories, goals and a scheduled job.
  await page.getByRole('button', { name: 'Files', exact: true }).click();
  await page.getByRole('button', { name: 'notes', exact: true }).click();
  await page.getByRole('button', { name: 'x.md', exact: true }).click();
  await page.getByRole('textbox', { name: 'Contents of notes/x.md' }).waitFor();
  await page.evaluate(async () => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const fs = new OpfsFileSystem();
    await fs.write(`clawser_workspaces/${location.hash.split('/')[1]}/notes/x.md`, '# X\nX is the 24th letter of the Latin alphabet.\n');
    fs.terminate();
  });
  await page.getByRole('button', { name: 'Git', exact: true }).click();
  await page.getByRole('button', { name: /^modified notes\/x\.md/ }).click();
  await page.locator('.diff-table').waitFor();
  await page.getByRole('button', { name: 'Memory', exact: true }).click();
  for (const [key, content] of [
    ['favourite editor', 'The user edits code in Helix.'],
    ['deploy day', 'Releases go out on Thursdays after the standup.'],
  ]) {
    await page.getByRole('button', { name: 'Add memory' }).click();
    const d = page.getByRole('dialog', { name: 'New memory' });
    await d.getByLabel(/^Key/).fill(key);
    await d.getByLabel('Content').fill(content);
    await d.getByRole('button', { name: 'Remember' }).click();
    await page.locator('.memory', { hasText: key }).waitFor();
  }
  await page.getByRole('button', { name: 'Goals', exact: true }).click();
  await page.getByLabel('New goal').fill('Publish the launch blog post');
  await page.getByRole('button', { name: 'Add goal' }).click();
  await page.locator('.goal', { hasText: 'Publish the launch blog post' }).waitFor();
  await page.getByLabel('New goal').fill('Draft the outline');
  await page.getByLabel('Part of').selectOption({ label: 'Publish the launch blog post' });
  await page.getByRole('button', { name: 'Add goal' }).click();
  await page.locator('.sub-goals .goal', { hasText: 'Draft the outline' }).waitFor();
  await page.getByRole('button', { name: 'Schedule', exact: true }).click();
  await page.getByLabel('When', { exact: true }).fill('every weekday at 9am');
  await page.getByLabel('Prompt for the agent').fill('Summarize what changed in my notes yesterday');
  await page.getByRole('button', { name: 'Create job' }).click();
  await page.locator('.job', { hasText: 'Summarize what changed' }).waitFor();
  // The job run once: its conversation is listed under Scheduled jobs.
  llm.enqueue({ text: 'Yesterday notes/x.md gained a line on the Latin alphabet; nothing else changed.' });
  await page
    .getByRole('button', { name: /^Run now: / })
    .first()
    .click();
  await page.locator('.schedule-panel [role=status]', { hasText: /” finished\./ }).waitFor();
  // A channel (an outgoing webhook, never called here) and one of the user's machines.
  await page.getByRole('button', { name: 'Channels', exact: true }).click();
  const addChannel = page.locator('section.panel-layout[data-panel="channels"]').getByRole('form', { name: 'Add a channel' });
  await addChannel.getByRole('combobox', { name: 'Kind' }).selectOption('webhook');
  await addChannel.getByRole('textbox', { name: 'Name' }).fill('team-updates');
  await page.getByLabel('Webhook address (https://…; kept sealed)').fill('https://hooks.example.com/clawser/team-updates');
  await page.getByRole('button', { name: 'Add channel' }).click();
  await page.getByRole('listitem', { name: 'team-updates', exact: true }).waitFor();
  await page.getByRole('button', { name: 'Remote', exact: true }).click();
  const remote = page.locator('section.panel-layout[data-panel="remote"]');
  await remote.getByRole('textbox', { name: 'Name' }).fill('laptop');
  await remote.getByRole('textbox', { name: /wsh URL/ }).fill('wss://laptop.example.net:8443/wsh');
  await remote.getByRole('button', { name: 'Add machine' }).click();
  await remote.getByRole('button', { name: 'Copy the key line of laptop' }).waitFor();
  await seedConversations();

  // The matrix: the chat and every panel, both themes, three widths; Settings, the palette and the split view.
  for (const theme of THEMES) {
    for (const size of SIZES) {
      await look(theme, size);
      await openChat();
      if (!ONLY || ONLY === 'chat') await shoot('chat', theme, size.width);
      for (const p of PANEL_NAV.filter((n) => !ONLY || n.name === ONLY)) {
        await openPanel(p);
        await dress(p.name);
        // Its top in view (opening a diff scrolls the panel down to it).
        await page.getByRole('heading', { name: p.label, exact: true }).evaluate((el) => {
          for (let e = el.parentElement; e; e = e.parentElement) e.scrollTop = 0;
        });
        await shoot(p.name, theme, size.width);
      }
      if (ONLY) continue;
      await openChat();
      await page.getByRole('button', { name: 'Settings', exact: true }).click();
      await page.getByRole('dialog', { name: /Settings/ }).waitFor();
      await shoot('settings', theme, size.width);
      await page.keyboard.press('Escape');
      await page.getByRole('dialog', { name: /Settings/ }).waitFor({ state: 'detached' });
      await page.keyboard.press('Control+k');
      await page.getByRole('combobox', { name: 'Search actions' }).fill('open');
      await shoot('palette', theme, size.width, { keepFocus: true });
      await page.keyboard.press('Escape');
      if (size.width > 360) {
        await openPanel(PANEL_NAV[0]);
        await page.getByRole('button', { name: 'Chat beside this panel' }).click();
        await page.getByRole('textbox', { name: 'Message' }).waitFor();
        await shoot('split', theme, size.width);
        await page.getByRole('button', { name: 'Chat beside this panel' }).click();
        await page.getByRole('textbox', { name: 'Message' }).waitFor({ state: 'detached' });
      }
    }
  }

  if (ONLY) console.log(`${ONLY} shot to ${OUT}/`);
  else {
    // Documents attached in the composer of a new conversation, then the artifact its reply draws.
    await look('light', SIZES[1]);
    await openChat();
    await page.getByRole('button', { name: 'New conversation', exact: true }).click();
    await page.locator('form.composer input[type=file]').setInputFiles([
      { name: 'q3-orders.csv', mimeType: 'text/csv', buffer: Buffer.from('fruit,count\napples,12\npears,7\nplums,3\n') },
      { name: 'launch-plan.md', mimeType: 'text/markdown', buffer: Buffer.from('# Launch plan\n\n- Blog post on Thursday\n') },
    ]);
    const chips = page.getByRole('list', { name: 'Attachments' });
    await chips.getByText('launch-plan.md').waitFor();
    await page.getByRole('textbox', { name: 'Message' }).fill('Chart the orders and tell me which fruit sells least');
    for (const theme of THEMES) {
      for (const size of SIZES) {
        await look(theme, size);
        await shoot('attach', theme, size.width);
      }
    }
    await look('light', SIZES[1]);
    llm.enqueue({
      text:
        'Plums sell least (3). Here are the orders as a table with a chart:\n\n```csv\nfruit,count\napples,12\npears,7\nplums,3\n```\n\n' +
        'The chart opens beside the chat; it is saved under `artifacts/`.',
    });
    await page.getByRole('button', { name: 'Send' }).click();
    const pane = page.getByRole('complementary', { name: 'Artifact' });
    await pane.getByText('csv-1 · version 1 of 1').waitFor();
    await page.frameLocator('iframe[title="Artifact csv-1"]').getByRole('img', { name: 'Bar chart of count' }).waitFor();
    for (const theme of THEMES) {
      for (const size of SIZES) {
        await look(theme, size);
        await page.frameLocator('iframe[title="Artifact csv-1"]').getByRole('img', { name: 'Bar chart of count' }).waitFor();
        await shoot('artifact', theme, size.width);
      }
    }
    const total = (await readdir(OUT)).filter((f) => f.endsWith('.png')).length;
    await writeGallery();
    console.log(`${total} screenshots written to ${OUT}/, their gallery to docs/screenshots.md`);
  }
} finally {
  await browser.close();
  await app.close();
  await llm.close();
}
