// Artifacts of replies (issue 37 §3), the parts that run outside a browser: which fenced blocks
// are artifacts and their names, a CSV made into a page with every cell escaped, versions kept
// under artifacts/ (the same content again is no new version), and the frame's version module
// current with the frame (tests/browser/artifacts renders them in the opaque-origin frame).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import Papa from 'papaparse';
import { extractArtifacts, csvPage, ArtifactShelf } from '../../web/app/artifacts.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';
import { artifactFrameVersionModule } from '../../scripts/artifact-frame.mjs';

/** Long enough to be made, not an example in a sentence (20 characters or more). @param {string} s */
const long = (s) => `${s} <!-- ${'-'.repeat(20)} -->`;

test('extractArtifacts: HTML, SVG, Mermaid and CSV blocks, named by kind and place; other languages and tiny examples are not', () => {
  const reply = [
    'Intro',
    '```html',
    long('<p>one</p>'),
    '```',
    '```js',
    long('console.log(1)'),
    '```',
    '```HTML title',
    long('<p>two</p>'),
    '```',
    '```svg',
    '<svg/>',
    '```',
    '~~~mermaid',
    long('graph TD; A-->B'),
    '~~~',
  ].join('\n');
  assert.deepEqual(
    extractArtifacts(reply).map((a) => [a.name, a.kind, a.content.trim()]),
    [
      ['html-1', 'html', long('<p>one</p>')],
      ['html-2', 'html', long('<p>two</p>')],
      ['mermaid-1', 'mermaid', long('graph TD; A-->B')],
    ],
  );
});

test('csvPage: a table of the rows and a bar chart of the first numeric column; markup in a cell is text', () => {
  const page = csvPage('name,score\n<img src=x onerror=alert(1)>,3\nbob,"5"', Papa);
  assert.match(page, /<th>name<\/th><th>score<\/th>/);
  assert.match(page, /<td>&#60;img src=x onerror=alert\(1\)&#62;<\/td>/);
  assert.doesNotMatch(page, /<img/);
  assert.match(page, /aria-label="Bar chart of score"/);
  assert.equal(page.match(/<rect /g)?.length, 2);
  assert.doesNotMatch(csvPage('a,b\nx,y', Papa), /<svg/, 'no numbers, no chart');
});

test("ArtifactShelf: a reply's artifacts are saved as versions under artifacts/<conversation>/<name>/, the last shown; the \
same content again is not a new version; earlier versions and the other artifacts open", async () => {
  const fs = new MemoryFileSystem();
  const shelf = new ArtifactShelf(fs, { library: async () => 'mermaid source' });
  let told = 0;
  shelf.subscribe(() => told++);
  const html = long('<h1>v1</h1>');
  const written = await shelf.fromReply('c1', `\`\`\`html\n${html}\n\`\`\`\n\`\`\`csv\n${long('a,b\n1,2')}\n\`\`\``);
  assert.deepEqual(written, ['artifacts/c1/html-1/v1.html', 'artifacts/c1/csv-1/v1.csv']);
  assert.equal(shelf.current?.name, 'csv-1');
  assert.equal(told, 1);
  assert.deepEqual(await shelf.others(), ['csv-1', 'html-1']);
  await shelf.open('html-1');
  assert.equal(shelf.current?.content, html);
  assert.equal(shelf.current?.page, html);
  assert.equal(shelf.current?.fileName, 'html-1-v1.html');

  assert.deepEqual(await shelf.fromReply('c1', `\`\`\`html\n${html}\n\`\`\``), [], 'the same content: no new version');
  assert.deepEqual(await shelf.fromReply('c1', `\`\`\`html\n${long('<h1>v2</h1>')}\n\`\`\``), ['artifacts/c1/html-1/v2.html']);
  assert.deepEqual([shelf.current?.version, shelf.current?.versions], [2, 2]);
  await shelf.step(-1);
  assert.deepEqual([shelf.current?.version, shelf.current?.content], [1, html]);
  await shelf.step(-1);
  assert.equal(shelf.current?.version, 1, 'there is none before the first');
  assert.equal(await shelf.library(), 'mermaid source');
  shelf.close();
  assert.equal(shelf.current, null);
});

test("the artifact frame's version module is current (run node scripts/build-manifest.mjs after editing the frame)", async () => {
  const html = await readFile(new URL('../../web/ui/artifact-frame.html', import.meta.url), 'utf8');
  const onDisk = await readFile(new URL('../../web/ui/artifact-frame-version.js', import.meta.url), 'utf8');
  assert.equal(onDisk, artifactFrameVersionModule(html));
});
