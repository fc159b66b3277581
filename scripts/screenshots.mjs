#!/usr/bin/env node
// Regenerates the README screenshots (docs/screenshots/) from the real app in Chromium,
// chatting with the scripted test server. Run: node scripts/screenshots.mjs (with a colour emoji font
// installed, e.g. Debian's fonts-noto-color-emoji: the panel icons are emoji, as on ChromeOS, Windows and macOS).
import { launchBrowser, startApp, saveSettings } from '../tests/browser/helpers.mjs';
import { startLlmServer } from '../tests/fixtures/llm-server.mjs';

const app = await startApp();
const llm = await startLlmServer();
const reply =
  'Here is a small function that debounces calls:\n\n```js\nexport function debounce(fn, ms) {\n  let t;\n  ' +
  'return (...args) => {\n    clearTimeout(t);\n    t = setTimeout(() => fn(...args), ms);\n  ' +
  '};\n}\n```\n\nIt waits **ms** milliseconds after the last call before running `fn`.';
try {
  for (const [name, viewport, scheme] of /** @type {const} */ ([
    ['chat-light', { width: 1280, height: 720 }, 'light'],
    ['chat-dark', { width: 1280, height: 720 }, 'dark'],
    ['chat-mobile', { width: 360, height: 740 }, 'light'],
  ])) {
    const browser = await launchBrowser({ viewport, colorScheme: scheme });
    const page = await browser.context.newPage();
    await page.goto(app.url);
    await page.getByRole('link', { name: /My workspace/ }).click();
    await page.waitForURL(/#workspace\//);
    if (name === 'chat-light') await page.screenshot({ path: 'docs/screenshots/first-run.png' });
    await page.getByRole('button', { name: 'Settings', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: /Settings/ });
    await dialog.getByLabel('Provider', { exact: true }).selectOption('ollama');
    await dialog.getByLabel('Model', { exact: true }).fill('llama3.2');
    await dialog.getByLabel('Base URL', { exact: true }).fill(`${llm.url}/v1`);
    if (name === 'chat-light') {
      await dialog.getByRole('button', { name: 'Test connection' }).click();
      await dialog.getByText(/Connected/).waitFor();
      await page.screenshot({ path: 'docs/screenshots/settings.png' });
    }
    await saveSettings(page);
    llm.enqueue({ text: reply });
    await page.getByRole('textbox', { name: 'Message' }).fill('Write a debounce helper in JavaScript');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('It waits').waitFor();
    await page.screenshot({ path: `docs/screenshots/${name}.png` });
    if (name === 'chat-light') {
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
      await page.screenshot({ path: 'docs/screenshots/approval.png' });
      await page.getByRole('button', { name: 'Allow once' }).click();
      await page.getByText('Your workspace now has one note.').waitFor();
      await page.locator('.tool-card summary').last().click();
      await page.screenshot({ path: 'docs/screenshots/tools.png' });
      // Files: the note the agent wrote, open in the editor.
      await page.getByRole('button', { name: 'Files', exact: true }).click();
      await page.getByRole('button', { name: 'notes', exact: true }).click();
      await page.getByRole('button', { name: 'x.md', exact: true }).click();
      await page.getByRole('textbox', { name: 'Contents of notes/x.md' }).waitFor();
      await page.screenshot({ path: 'docs/screenshots/files.png' });
      // Git: the agent's turn was committed; an edit shows as a diff.
      await page.evaluate(async () => {
        const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
        const fs = new OpfsFileSystem();
        await fs.write(
          `clawser_workspaces/${location.hash.split('/')[1]}/notes/x.md`,
          '# X\nX is the 24th letter of the Latin alphabet.\n',
        );
        fs.terminate();
      });
      await page.getByRole('button', { name: 'Git', exact: true }).click();
      await page.getByRole('button', { name: /^modified notes\/x\.md/ }).click();
      await page.locator('.diff-table').waitFor();
      await page.screenshot({ path: 'docs/screenshots/git.png' });
      // Memory, goals and a scheduled job, made through the panels.
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
      await page.screenshot({ path: 'docs/screenshots/memory.png' });
      await page.getByRole('button', { name: 'Goals', exact: true }).click();
      await page.getByLabel('New goal').fill('Publish the launch blog post');
      await page.getByRole('button', { name: 'Add goal' }).click();
      await page.locator('.goal', { hasText: 'Publish the launch blog post' }).waitFor();
      await page.getByLabel('New goal').fill('Draft the outline');
      await page.getByLabel('Part of').selectOption({ label: 'Publish the launch blog post' });
      await page.getByRole('button', { name: 'Add goal' }).click();
      await page.locator('.sub-goals .goal', { hasText: 'Draft the outline' }).waitFor();
      await page.screenshot({ path: 'docs/screenshots/goals.png' });
      await page.getByRole('button', { name: 'Schedule', exact: true }).click();
      await page.getByLabel('When', { exact: true }).fill('every weekday at 9am');
      await page.getByLabel('Prompt for the agent').fill('Summarize what changed in my notes yesterday');
      await page.getByRole('button', { name: 'Create job' }).click();
      await page.locator('.job', { hasText: 'Summarize what changed' }).waitFor();
      await page.getByLabel('When', { exact: true }).fill('every 2 hours');
      await page.locator('.next-runs li').first().waitFor();
      await page.screenshot({ path: 'docs/screenshots/schedule.png' });
      // Events of the conversation, the dashboard, the configuration, the palette, the split view.
      await page.keyboard.press('Alt+7');
      await page.getByRole('heading', { name: 'Events', exact: true }).waitFor();
      await page.screenshot({ path: 'docs/screenshots/events.png' });
      await page.keyboard.press('Alt+8');
      await page.locator('.dash-chart canvas').first().waitFor();
      await page
        .getByRole('table', { name: 'Storage by workspace' })
        .getByRole('row', { name: /\(this one\)/ })
        .filter({ hasNotText: 'Measuring…' })
        .waitFor();
      await page.screenshot({ path: 'docs/screenshots/dashboard.png' });
      await page.keyboard.press('Alt+9');
      await page.getByRole('textbox', { name: 'Configuration (JSON)' }).waitFor();
      await page.screenshot({ path: 'docs/screenshots/config.png' });
      await page.keyboard.press('Control+k');
      await page.getByRole('combobox', { name: 'Search actions' }).fill('open');
      await page.screenshot({ path: 'docs/screenshots/palette.png' });
      await page.keyboard.press('Escape');
      // The terminal: a pipeline over the workspace's files, git, and the app's own command.
      await page.keyboard.press('Alt+KeyT');
      await page.locator('.terminal-host .xterm-helper-textarea').waitFor();
      for (const line of ['ls -R notes', 'grep -rn TODO . | wc -l', 'git log --oneline | head -n 3', 'clawser goal list']) {
        await page.locator('.terminal-host:visible .xterm-helper-textarea').focus();
        await page.keyboard.type(line);
        await page.keyboard.press('Enter');
        await page.locator('.terminal-host:visible:not([aria-busy])').waitFor();
      }
      await page.locator('.terminal-host:visible .xterm-rows', { hasText: 'clawser goal list' }).waitFor();
      await page.waitForTimeout(300);
      await page.screenshot({ path: 'docs/screenshots/terminal.png' });
      await page.keyboard.press('Alt+1');
      await page.getByRole('button', { name: 'Chat beside this panel' }).click();
      await page.getByRole('button', { name: 'notes', exact: true }).click();
      await page.getByRole('button', { name: 'x.md', exact: true }).click();
      await page.getByRole('textbox', { name: 'Contents of notes/x.md' }).waitFor();
      await page.getByRole('textbox', { name: 'Message' }).waitFor();
      await page.screenshot({ path: 'docs/screenshots/split.png' });
      await page.getByRole('button', { name: 'Chat beside this panel' }).click();
    }
    await browser.close();
  }
} finally {
  await app.close();
  await llm.close();
}
console.log('screenshots written to docs/screenshots/');
