// Defects the screenshots showed (issue 37 §4, docs/screenshots.md), each measured in the real page
// with its control: the workspace's name whole (or its full name at hand) in the header at 360 px;
// the Files panel's tree as tall as the panel lets it be; a long terminal line printed once; an
// artifact's chart within its pane; an artifact in the app's dark theme.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useFixture } from './fixture.mjs';
import { seriousViolations } from './axe.mjs';
import { waitUntil } from '../fixtures/wait.mjs';

const fx = await useFixture({
  llm: {},
  settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1` }),
});
const { page } = fx;

const PHONE = { width: 360, height: 740 };
const DESKTOP = { width: 1280, height: 800 };

/**
 * How much of an element's text its box cuts off: its scroll size against its client size (an
 * ellipsis or a clamp leaves the scroll size larger).
 * @param {import('playwright-core').Locator} el
 */
const clipped = (el) =>
  el.evaluate((node) => ({
    width: node.scrollWidth - node.clientWidth,
    height: node.scrollHeight - node.clientHeight,
    text: node.textContent,
  }));

/** The page scrolls sideways (something is wider than the window). @param {import('playwright-core').Page} p */
const pageOverflow = (p) => p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

test("360 px: the workspace name in the header is shown whole, a name too long for two lines keeps its full name \
as the heading's name and title; the home screen shows it whole (control: 1280 px)", async () => {
  const heading = page.getByRole('banner').getByRole('heading', { level: 1 });
  for (const size of [PHONE, DESKTOP]) {
    await page.setViewportSize(size);
    const cut = await clipped(heading);
    assert.equal(cut.text, 'My workspace');
    assert.ok(cut.width <= 0 && cut.height <= 0, `${size.width} px: the name is cut off by ${cut.width} × ${cut.height} px`);
    assert.ok((await pageOverflow(page)) <= 0, `${size.width} px: the page does not scroll sideways`);
  }
  const long = 'Quarterly research notebook for the product launch of twenty twenty-seven';
  const home = await fx.openHome();
  try {
    await home.setViewportSize(PHONE);
    await home.getByRole('button', { name: 'New workspace' }).click();
    await home.getByRole('dialog').getByLabel('Workspace name').fill(long);
    await home.getByRole('dialog').getByLabel('Workspace name').press('Enter');
    await home.getByRole('button', { name: 'Try Echo' }).waitFor();
    const title = home.getByRole('banner').getByRole('heading', { level: 1, name: long, exact: true });
    await title.waitFor();
    assert.equal(await title.getAttribute('title'), long, 'the full name is at hand (hover, long press)');
    const box = /** @type {{height: number}} */ (await title.boundingBox());
    const lineHeight = await title.evaluate((el) => parseFloat(getComputedStyle(el).lineHeight));
    assert.ok(box.height >= 1.5 * lineHeight, `the name takes two lines before it is shortened (${box.height} px)`);
    assert.ok((await pageOverflow(home)) <= 0, 'the page does not scroll sideways');
    for (const b of ['Settings', 'Commands']) {
      const r = await home.getByRole('banner').getByRole('button', { name: b, exact: true }).boundingBox();
      assert.ok(r && r.x >= 0 && r.x + r.width <= PHONE.width, `${b} is on screen`);
    }
    assert.deepEqual(await seriousViolations(home, 'header.topbar'), [], 'no serious or critical axe finding in the header');
    // The home screen: every name whole.
    await home.goto(`${fx.url}#home`);
    const names = home.locator('.ws-name');
    await names.filter({ hasText: long }).waitFor();
    for (const name of await names.all()) {
      const cut = await clipped(name);
      assert.ok(cut.width <= 0 && cut.height <= 0, `home: "${cut.text}" is cut off by ${cut.width} × ${cut.height} px`);
    }
  } finally {
    await home.close();
  }
});

/**
 * Writes files of the workspace on screen straight to OPFS, in one go.
 * @param {import('playwright-core').Page} p @param {Record<string, string>} files paths relative to the workspace
 */
const writeFiles = (p, files) =>
  p.evaluate(async (entries) => {
    const { OpfsFileSystem } = await import('/web/storage/opfs-fs.js');
    const fs = new OpfsFileSystem();
    try {
      for (const [path, text] of entries) await fs.write(`clawser_workspaces/${location.hash.split('/')[1]}/${path}`, text);
    } finally {
      fs.terminate();
    }
  }, Object.entries(files));

/** The Files panel's tree: its box, how much it holds, and the panel around it. */
const treeBox = () =>
  page.locator('.file-tree-wrap').evaluate((tree) => {
    const panel = /** @type {HTMLElement} */ (tree.closest('.panel-layout'));
    const r = tree.getBoundingClientRect();
    const p = panel.getBoundingClientRect();
    const names = [...tree.querySelectorAll(':scope > ul > li > .file-line > .file-name .file-icon')].map(
      (i) => i.getBoundingClientRect().left - r.left,
    );
    return {
      height: tree.clientHeight,
      content: tree.scrollHeight,
      bottom: r.bottom,
      panelBottom: p.bottom - parseFloat(getComputedStyle(panel).paddingBottom),
      panelScrolls: panel.scrollHeight > panel.clientHeight,
      indent: Math.max(...names),
    };
  });

/** Back to the chat, then the Files panel again (drawn afresh: what is on disk now, its folders closed). */
async function reopenFiles() {
  await page.getByRole('button', { name: 'Back to chat' }).click();
  await page.getByRole('textbox', { name: 'Message', exact: true }).waitFor();
  await page.keyboard.press('Alt+1');
  await page.getByRole('heading', { name: 'Files', exact: true }).waitFor();
}

test("the Files panel's tree takes the panel's height and scrolls inside it; its names start at its left edge \
(360 px and 1280 px, a few files and many)", async () => {
  await page.setViewportSize(PHONE);
  await writeFiles(page, { 'notes/x.md': '# X\nX is the 24th letter.\n', 'readme.md': 'hello\n', 'src/app.js': 'export {};\n' });
  await page.keyboard.press('Alt+1');
  await page.getByRole('heading', { name: 'Files', exact: true }).waitFor();
  const tree = page.getByRole('navigation', { name: 'Workspace files' });
  await tree.getByRole('button', { name: 'notes', exact: true }).click();
  await tree.getByRole('button', { name: 'x.md', exact: true }).click();
  await page.getByRole('textbox', { name: 'Contents of notes/x.md' }).waitFor();
  // A few files, one open on a phone: the tree shows them all (it was squeezed to two rows beside the editor).
  let box = await treeBox();
  assert.ok(box.content - box.height <= 1, `360 px: the tree shows ${box.height} of its ${box.content} px`);
  assert.ok(box.indent <= 24, `the names start at the tree's edge (the first icon is ${box.indent} px in)`);

  // Many files: the tree scrolls inside, taller than half the screen (or as tall as the panel).
  const many = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`many/file-${String(i).padStart(2, '0')}.md`, `${i}\n`]));
  await writeFiles(page, many);
  await reopenFiles();
  await tree.getByRole('button', { name: 'many', exact: true }).click();
  await tree.getByRole('button', { name: 'file-59.md', exact: true }).waitFor({ state: 'attached' });
  box = await treeBox();
  assert.ok(box.content > box.height, 'control: the tree holds more than it shows');
  assert.ok(box.height >= PHONE.height / 2, `360 px: the tree is ${box.height} px tall`);
  // Nothing open on a wide screen: the tree reaches the panel's bottom and scrolls inside; the panel does not scroll.
  await page.setViewportSize(DESKTOP);
  await reopenFiles();
  await tree.getByRole('button', { name: 'many', exact: true }).click();
  await tree.getByRole('button', { name: 'file-59.md', exact: true }).waitFor({ state: 'attached' });
  box = await treeBox();
  assert.ok(box.content > box.height, 'control: the tree holds more than it shows (1280 px)');
  assert.ok(Math.abs(box.panelBottom - box.bottom) <= 2, `1280 px: the tree ends at ${box.bottom}, the panel at ${box.panelBottom}`);
  assert.equal(box.panelScrolls, false, '1280 px: the panel itself does not scroll');
  assert.deepEqual(await seriousViolations(page, '.files-panel'), [], 'no serious or critical axe finding in the Files panel');
  await page.getByRole('button', { name: 'Back to chat' }).click();
});

/** The terminal's rows as shown (xterm's DOM renderer: one element a row). */
const terminalRows = () =>
  page
    .locator('.terminal-host:visible .xterm-rows > div')
    .evaluateAll((rows) => rows.map((r) => (r.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd()));

/**
 * Waits until the terminal's rows show `text` (spaces aside: a row's trailing space is not told apart from an empty
 * cell), as drawn once what was typed has been written.
 * @param {string} text
 */
const terminalShows = (text) =>
  waitUntil(
    async () => (await terminalRows()).join('').replace(/\s+/g, '').includes(text.replace(/\s+/g, '')),
    `the terminal to show ${text}`,
  );

test('the Terminal prints a long (wrapped) line once, while it is typed, edited across its rows and run (360 px)', async () => {
  await page.setViewportSize(PHONE);
  await page.keyboard.press('Alt+KeyT');
  const input = page.locator('.terminal-host:visible .xterm-helper-textarea');
  await input.waitFor();
  await page.locator('.terminal-host:visible:not([aria-busy])').waitFor();
  const words = 'alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima mike november oscar papa';
  const line = `echo ${words}`;
  await input.focus();
  await page.keyboard.type(line);
  await terminalShows(`clawser:/$ ${line}`);
  /** The rows holding the prompt of the line typed. */
  const prompts = async () => (await terminalRows()).filter((r) => r.startsWith('clawser:/$ echo alpha'));
  const typed = await prompts();
  assert.equal(typed.length, 1, `typed: the line is shown once\n${(await terminalRows()).join('\n')}`);
  assert.ok(!typed[0].includes('papa'), 'control: the line wraps (its end is on a later row)');
  // Edited on its first row (Home, then a word inserted): still once, the cursor where the word goes.
  await page.keyboard.press('Home');
  for (let i = 0; i < 'echo '.length; i++) await page.keyboard.press('ArrowRight');
  await page.keyboard.type('zulu ');
  await terminalShows(`clawser:/$ echo zulu ${words}`);
  const rows = await terminalRows();
  assert.equal((await prompts()).length, 0, 'the old text is gone');
  const drawn = rows.filter((r) => r.startsWith('clawser:/$ echo zulu alpha'));
  assert.equal(drawn.length, 1, `edited: the line is shown once\n${rows.join('\n')}`);
  const start = rows.indexOf(drawn[0]);
  // (Compared without spaces: a row's trailing space is not told apart from an empty cell.)
  const joined = rows.slice(start).join('').replace(/\s+/g, '');
  assert.ok(joined.startsWith(`clawser:/$echozulu${words.replace(/\s+/g, '')}`), `its rows hold it in order\n${rows.join('\n')}`);
  await page.keyboard.press('Enter');
  // The typed line holds the same words: wait for the output's own row and the next prompt.
  const after = await waitUntil(async () => {
    const now = await terminalRows();
    return now.some((r) => r.startsWith('zulu alpha bravo')) && now.includes('clawser:/$') ? now : null;
  }, 'the output of the line and a new prompt');
  const ran = after.filter((r) => r.startsWith('clawser:/$ echo zulu alpha'));
  assert.equal(ran.length, 1, `run: the line is shown once\n${after.join('\n')}`);
  assert.equal(after.filter((r) => r.startsWith('zulu alpha bravo')).length, 1, 'its output once, on a row of its own');
  assert.equal(after.filter((r) => r === 'clawser:/$').length, 1, 'and a new prompt');
  await page.keyboard.press('Alt+0');
});

const pane = () => page.getByRole('complementary', { name: 'Artifact' });
/** @param {string} name */
const artifactFrame = (name) => page.frameLocator(`iframe[title="Artifact ${name}"]`);
/** Shows one of the conversation's artifacts, drawn. @param {string} name */
async function showArtifact(name) {
  const pick = pane().getByRole('combobox', { name: 'Artifact to show' });
  if ((await pane().locator(`iframe[title="Artifact ${name}"]`).count()) === 0) await pick.selectOption(name);
  await pane().locator(`iframe[title="Artifact ${name}"][data-state="rendered"]`).waitFor();
}
/**
 * How far an artifact's drawing reaches past its frame's right edge, and whether the frame's page scrolls sideways.
 * @param {string} name @param {string} marks the drawn parts (a selector)
 */
const reach = (name, marks) =>
  artifactFrame(name)
    .locator('html')
    .evaluate((root, sel) => {
      const rights = [...document.querySelectorAll(sel)].map((e) => e.getBoundingClientRect().right);
      const svg = document.querySelector('svg');
      return {
        marks: rights.length,
        past: Math.max(...rights) - root.clientWidth,
        scroll: root.scrollWidth - root.clientWidth,
        svgWidth: svg ? svg.getBoundingClientRect().width : 0,
      };
    }, marks);

const WIDE_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="900" height="200"><rect x="0" y="20" width="880" height="40" fill="teal"/>' +
  '<circle cx="870" cy="150" r="20" fill="orange"/><text x="700" y="120">far right</text></svg>';
const MERMAID = 'flowchart LR\n  Alpha --> Bravo --> Charlie --> Delta --> Echo --> Foxtrot --> Golf --> Hotel --> India';
const CSV = 'fruit,count\napples,12\npears,7\nplums,3';
const PLAIN_HTML = '<!doctype html><html><body><h1>Plain page</h1><p>No colours of its own.</p></body></html>';

test("an artifact's chart fits its pane at 360 and 1280 px: a CSV's bar chart and an SVG without a viewBox scale down, \
a Mermaid diagram fits; the page never scrolls sideways", async () => {
  await page.setViewportSize(DESKTOP);
  await page.keyboard.press('Alt+0');
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  fx.llm.enqueue({
    text:
      `Four things:\n\n\`\`\`html\n${PLAIN_HTML}\n\`\`\`\n\n\`\`\`svg\n${WIDE_SVG}\n\`\`\`\n\n` +
      `\`\`\`mermaid\n${MERMAID}\n\`\`\`\n\n\`\`\`csv\n${CSV}\n\`\`\`\n`,
  });
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill('draw things');
  await page.getByRole('button', { name: 'Send' }).click();
  await pane().getByText('csv-1 · version 1 of 1').waitFor();
  for (const size of [PHONE, DESKTOP]) {
    await page.setViewportSize(size);
    for (const [name, marks] of [
      ['csv-1', 'svg rect, svg text'],
      ['svg-1', 'svg rect, svg circle, svg text'],
      ['mermaid-1', 'svg .node'],
    ]) {
      await showArtifact(name);
      const r = await reach(name, marks);
      assert.ok(r.marks > 0, `control: ${name} is drawn`);
      assert.ok(r.past <= 1, `${size.width} px: ${name} reaches ${r.past} px past its frame`);
      assert.ok(r.scroll <= 0, `${size.width} px: ${name}'s frame scrolls sideways by ${r.scroll} px`);
      assert.ok((await pageOverflow(page)) <= 0, `${size.width} px: the page scrolls sideways with ${name} shown`);
      // Control: on the phone the chart is made smaller than it is drawn (480 px), not cut.
      if (name === 'csv-1' && size === PHONE) assert.ok(r.svgWidth < 480, `the CSV chart is ${r.svgWidth} px wide at 360 px`);
    }
  }
});

/**
 * The median lightness (0 black … 1 white) of what an element shows on screen: its screenshot, decoded in the page.
 * @param {import('playwright-core').Locator} el
 */
async function lightness(el) {
  const png = (await el.screenshot()).toString('base64');
  return page.evaluate(async (b64) => {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const ctx = /** @type {OffscreenCanvasRenderingContext2D} */ (canvas.getContext('2d'));
    ctx.drawImage(bitmap, 0, 0);
    const data = ctx.getImageData(0, 0, bitmap.width, bitmap.height).data;
    const values = [];
    for (let i = 0; i < data.length; i += 4 * 7) values.push((0.2126 * data[i] + 0.7152 * data[i + 1] + 0.0722 * data[i + 2]) / 255);
    values.sort((a, b) => a - b);
    return values[Math.floor(values.length / 2)];
  }, png);
}

/**
 * The lightness (0 … 1) of a CSS colour as computed in a frame.
 * @param {string} name @param {string} selector @param {'color' | 'fill'} prop
 */
const colourIn = (name, selector, prop) =>
  artifactFrame(name)
    .locator(selector)
    .first()
    .evaluate((el, p) => {
      const [r, g, b] = (getComputedStyle(el)[p].match(/[\d.]+/g) ?? []).map(Number);
      return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
    }, prop);

/**
 * The app in a theme, the page told of it: after two frames its media queries' change events have been dispatched.
 * @param {'light' | 'dark'} colorScheme
 */
async function look(colorScheme) {
  await page.emulateMedia({ colorScheme });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

test("an artifact follows the app's theme: in the dark its page is dark with light text (a CSV's table and chart, a plain \
HTML page, a Mermaid diagram), in the light it is light; the frame stays sandboxed", async () => {
  await page.setViewportSize(DESKTOP);
  try {
    for (const scheme of /** @type {const} */ (['dark', 'light'])) {
      await look(scheme);
      for (const name of ['html-1', 'mermaid-1', 'csv-1']) {
        // Shown afresh in this theme (another artifact first).
        await showArtifact(name === 'csv-1' ? 'svg-1' : 'csv-1');
        await showArtifact(name);
        const frame = pane().locator(`iframe[title="Artifact ${name}"]`);
        assert.equal(await frame.getAttribute('sandbox'), 'allow-scripts', 'scripts, never the app’s origin');
        const light = await lightness(frame);
        if (scheme === 'dark') assert.ok(light < 0.3, `dark: ${name}'s page is ${light.toFixed(2)} light`);
        else assert.ok(light > 0.85, `light: ${name}'s page is ${light.toFixed(2)} light`);
      }
      const text = await colourIn('csv-1', 'td', 'color');
      const label = await colourIn('csv-1', 'svg text', 'fill');
      for (const [what, l] of /** @type {[string, number][]} */ ([
        ['the table', text],
        ["the chart's labels", label],
      ]))
        assert.ok(scheme === 'dark' ? l > 0.7 : l < 0.3, `${scheme}: ${what} text is ${l.toFixed(2)} light`);
    }
    // The theme changing while an artifact is shown: it is drawn again in the new one.
    await look('dark');
    await waitUntil(async () => (await colourIn('csv-1', 'td', 'color').catch(() => 0)) > 0.7, 'the shown artifact to take the dark theme');
  } finally {
    await page.emulateMedia({ colorScheme: 'light' });
  }
  assert.deepEqual(await seriousViolations(page, '.artifacts-pane'), [], 'no serious or critical axe finding in the pane');
});
