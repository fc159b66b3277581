// Artifacts (issue 37 §3): what a reply makes in fenced HTML, SVG, Mermaid and CSV blocks shows
// beside the chat in a frame of an opaque origin — a script in it cannot read the app's
// localStorage (control: the same script on the app's page can) — is kept as versioned files
// under the workspace's artifacts/, opens full screen and downloads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { sendMessage, readWorkspaceFile } from './helpers.mjs';
import { useFixture } from './fixture.mjs';
import { seriousViolations } from './axe.mjs';

const fx = await useFixture({
  llm: {},
  settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1` }),
});
const { llm, page } = fx;

/** axe's serious and critical findings in `selector`. @param {string} selector */
const violations = (selector) => seriousViolations(page, selector);

/** What the probe says where it runs: the app's localStorage read or refused, and the origin. */
const PROBE =
  "(() => { let r; try { r = 'read:' + localStorage.getItem('clawser_artifact_probe'); } catch (e) { r = 'refused:' + e.name; } " +
  "return r + ' origin:' + self.origin; })()";
/** @param {string} label */
const htmlArtifact = (label) =>
  `<!doctype html><html><body><h1>${label}</h1><p id="out">not run</p>` +
  `<script>document.getElementById('out').textContent = ${PROBE};</script></body></html>`;
const pane = () => page.getByRole('complementary', { name: 'Artifact' });
/** The conversation on screen (from the route). */
const conversationId = () => page.evaluate(() => location.hash.slice(1).split('/')[3]);

test("an HTML artifact renders in a sandboxed frame of an opaque origin: its script runs but cannot read the app's \
localStorage (control: the same script on the app's page reads it); a second reply is its version 2, saved under artifacts/", async () => {
  await page.evaluate(() => localStorage.setItem('clawser_artifact_probe', 'app-secret'));
  // The control: on the app's page the probe reads the value.
  assert.match(await page.evaluate(PROBE), /^read:app-secret origin:http:\/\/127\.0\.0\.1:\d+$/);

  llm.enqueue({ text: `Here is the page:\n\n\`\`\`html\n${htmlArtifact('First draft')}\n\`\`\`\n` });
  await sendMessage(page, 'make me a page');
  await page.locator('.msg.assistant', { hasText: 'Here is the page' }).waitFor();
  const frame = pane().locator('iframe[title="Artifact html-1"]');
  await frame.and(page.locator('[data-state="rendered"]')).waitFor();
  assert.equal(await frame.getAttribute('sandbox'), 'allow-scripts', 'scripts, but never allow-same-origin');
  const inside = page.frameLocator('iframe[title="Artifact html-1"]');
  await inside.getByRole('heading', { name: 'First draft' }).waitFor();
  assert.equal(await inside.locator('#out').innerText(), 'refused:SecurityError origin:null');
  await pane().getByText('html-1 · version 1 of 1').waitFor();

  const conv = await conversationId();
  assert.equal(await readWorkspaceFile(page, `artifacts/${conv}/html-1/v1.html`), htmlArtifact('First draft'));

  llm.enqueue({ text: `Revised:\n\n\`\`\`html\n${htmlArtifact('Second draft')}\n\`\`\`\n` });
  await sendMessage(page, 'change the heading');
  await pane().getByText('html-1 · version 2 of 2').waitFor();
  await inside.getByRole('heading', { name: 'Second draft' }).waitFor();
  assert.equal(await readWorkspaceFile(page, `artifacts/${conv}/html-1/v2.html`), htmlArtifact('Second draft'));
  assert.equal(await readWorkspaceFile(page, `artifacts/${conv}/html-1/v1.html`), htmlArtifact('First draft'), 'v1 is kept');

  await pane().getByRole('button', { name: 'Earlier version' }).click();
  await pane().getByText('html-1 · version 1 of 2').waitFor();
  await inside.getByRole('heading', { name: 'First draft' }).waitFor();
  assert.equal(await pane().getByRole('button', { name: 'Earlier version' }).isDisabled(), true);
  await pane().getByRole('button', { name: 'Later version' }).click();
  await inside.getByRole('heading', { name: 'Second draft' }).waitFor();

  // Full screen covers the window; Esc leaves it.
  await pane().getByRole('button', { name: 'Full screen' }).click();
  const box = await pane().boundingBox();
  const size = page.viewportSize();
  assert.deepEqual([box?.x, box?.y, box?.width, box?.height], [0, 0, size?.width, size?.height]);
  await page.keyboard.press('Escape');
  await pane().getByRole('button', { name: 'Full screen', pressed: false }).waitFor();

  // Exported as the file it is.
  const [download] = await Promise.all([page.waitForEvent('download'), pane().getByRole('button', { name: 'Download' }).click()]);
  assert.equal(download.suggestedFilename(), 'html-1-v2.html');
  assert.equal(await readFile(await download.path(), 'utf8'), htmlArtifact('Second draft'));
});

test('an SVG, a Mermaid diagram and a CSV table with its chart from one reply: each saved, each shown in the frame', async () => {
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  const svg =
    '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="60"><circle cx="30" cy="30" r="20" fill="teal"/>' +
    '<text x="60" y="35">Dot</text></svg>';
  const mermaid = 'flowchart LR\n  Start --> Finish';
  const csv = 'fruit,count\napples,12\npears,7\nplums,3';
  llm.enqueue({
    text: `Three things:\n\n\`\`\`svg\n${svg}\n\`\`\`\n\n\`\`\`mermaid\n${mermaid}\n\`\`\`\n\n\`\`\`csv\n${csv}\n\`\`\`\n`,
  });
  await sendMessage(page, 'draw things');
  await page.locator('.msg.assistant', { hasText: 'Three things' }).waitFor();
  const conv = await conversationId();
  // The last one made is shown: the table, and a bar chart of its numbers.
  await pane().getByText('csv-1 · version 1 of 1').waitFor();
  const table = page.frameLocator('iframe[title="Artifact csv-1"]');
  await table.getByRole('cell', { name: 'pears' }).waitFor();
  await table.getByRole('img', { name: 'Bar chart of count' }).waitFor();
  assert.equal(await table.locator('rect').count(), 3);
  assert.equal(await readWorkspaceFile(page, `artifacts/${conv}/csv-1/v1.csv`), csv);

  const pick = pane().getByRole('combobox', { name: 'Artifact to show' });
  await pick.waitFor();
  assert.deepEqual(await violations('.artifacts-pane'), [], 'the pane has no serious or critical axe finding');
  await pick.selectOption('svg-1');
  await pane().getByText('svg-1 · version 1 of 1').waitFor();
  await page.frameLocator('iframe[title="Artifact svg-1"]').locator('circle[fill="teal"]').waitFor();
  assert.equal(await readWorkspaceFile(page, `artifacts/${conv}/svg-1/v1.svg`), svg);

  await pick.selectOption('mermaid-1');
  const diagram = pane().locator('iframe[title="Artifact mermaid-1"]');
  await diagram.and(page.locator('[data-state="rendered"]')).waitFor();
  const drawn = page.frameLocator('iframe[title="Artifact mermaid-1"]');
  await drawn.locator('svg').getByText('Start', { exact: true }).waitFor();
  await drawn.locator('svg').getByText('Finish', { exact: true }).waitFor();
  assert.equal(await readWorkspaceFile(page, `artifacts/${conv}/mermaid-1/v1.mmd`), mermaid);

  await pane().getByRole('button', { name: 'Close artifact' }).click();
  await pane().waitFor({ state: 'detached' });
});

test("the artifact frame refuses to render with a real origin (embedded without the sandbox attribute): the artifact's \
script never runs there; control: sandboxed, the same page renders", async () => {
  const said = await page.evaluate(async (src) => {
    const url = /** @type {HTMLIFrameElement | null} */ (document.querySelector('iframe[title^="Artifact "]'))?.src ?? '';
    /** @param {string | null} sandbox */
    const tryIn = (sandbox) =>
      new Promise((resolve) => {
        const frame = document.createElement('iframe');
        if (sandbox !== null) frame.setAttribute('sandbox', sandbox);
        frame.src = url || new URL('/web/ui/artifact-frame.html', location.href).href;
        frame.hidden = true;
        /** @param {MessageEvent} e */
        const onMessage = (e) => {
          if (e.source === frame.contentWindow && e.data?.type === 'rendered') done(`rendered`);
          if (e.source === frame.contentWindow && e.data?.type === 'ready')
            frame.contentWindow?.postMessage({ type: 'render', kind: 'html', content: src }, '*');
        };
        /** @param {string} how */
        const done = (how) => {
          removeEventListener('message', onMessage);
          frame.remove();
          resolve(how);
        };
        addEventListener('message', onMessage);
        // Not sandboxed, the frame says so and posts nothing: what its page shows once loaded is the answer.
        frame.addEventListener('load', () => {
          if (sandbox === null) done((frame.contentDocument?.body.textContent ?? '').trim());
        });
        document.body.append(frame);
      });
    return { plain: await tryIn(null), sandboxed: await tryIn('allow-scripts') };
  }, '<p id="out">page</p><script>parent.postMessage({ type: "ran" }, "*")</script>');
  assert.equal(said.plain, 'This frame shows artifacts only when sandboxed.');
  assert.equal(said.sandboxed, 'rendered');
});
