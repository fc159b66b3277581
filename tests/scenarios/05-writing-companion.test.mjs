// PRD scenario 5, writing companion, over three weeks of the pages' clock: the agent sets up the
// novel's folders and story bible; chapter 3 gives Alex brown eyes and opens a plot thread, both
// remembered; three weeks later, in a new conversation, chapter 7 says blue eyes: the chapter-3 fact
// comes back from memory into the model's context and the contradiction is flagged; the story
// bible is updated with chapter 7, and the unresolved threads are recalled by category.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useFixture } from '../browser/fixture.mjs';
import { listWorkspace, toolResults, turn, workspaceFile } from './scenario.mjs';

const DAY = 86_400_000;
const START = Math.floor(Date.now() / DAY) * DAY - 30 * DAY + 20 * 3_600_000;

const fx = await useFixture({
  llm: {},
  beforePage: ({ context }) => context.clock.install({ time: START }),
  settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1`, autonomy: 'full' }),
});
const { llm, page } = fx;

const EYES = 'Alex has brown eyes (chapter 3)';
const THREAD = 'Unresolved plot thread: who sent Alex the silver locket (opened in chapter 3)';
const BIBLE3 = '# Story bible\n\n## Characters\n- Alex: brown eyes (ch. 3)\n\n## Plot threads\n- The silver locket: open (ch. 3)\n';
const BIBLE7 = `${BIBLE3}\n## Chapter 7\n- Alex meets Mara at the harbour\n`;

test('the novel is set up: folders for characters, plot threads and chapters, and a story bible', async () => {
  const asked = await turn(
    page,
    llm,
    'Help me write a novel - track characters, plots, themes. Here is chapter 3: Alex, brown eyes bright, opened the silver locket.',
    [
      {
        toolCalls: [
          { id: 'g1', name: 'goal_add', arguments: { description: 'Write the novel' } },
          { id: 'c1', name: 'fs_write', arguments: { path: 'artifacts/characters/alex.md', content: '# Alex\n\n- Eyes: brown (ch. 3)\n' } },
          {
            id: 'p1',
            name: 'fs_write',
            arguments: { path: 'artifacts/plot-threads/locket.md', content: '# The silver locket\n\nOpen.\n' },
          },
          {
            id: 'h1',
            name: 'fs_write',
            arguments: { path: 'artifacts/chapters/chapter-03.md', content: '# Chapter 3\n\nAlex, brown eyes.\n' },
          },
          { id: 'b1', name: 'fs_write', arguments: { path: 'artifacts/story-bible.md', content: BIBLE3 } },
          { id: 'm1', name: 'memory_store', arguments: { key: 'Alex eyes', content: EYES, category: 'learned' } },
          { id: 'm2', name: 'memory_store', arguments: { key: 'plot thread locket', content: THREAD, category: 'context' } },
        ],
      },
      { text: 'Your story bible is ready.' },
    ],
    'Your story bible is ready.',
  );
  assert.deepEqual(asked, ['fs_write']);
  assert.deepEqual(await listWorkspace(page, 'artifacts'), ['chapters', 'characters', 'plot-threads', 'story-bible.md']);
  assert.equal(await workspaceFile(page, 'artifacts/characters/alex.md'), '# Alex\n\n- Eyes: brown (ch. 3)\n');
  assert.equal(await workspaceFile(page, 'artifacts/plot-threads/locket.md'), '# The silver locket\n\nOpen.\n');
  assert.equal(await workspaceFile(page, 'artifacts/story-bible.md'), BIBLE3);
});

test('three weeks later, in a new conversation, a contradiction with chapter 3 is flagged from memory', async () => {
  await fx.context.clock.setSystemTime(START + 21 * DAY);
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  const before = llm.requests.length;
  await turn(
    page,
    llm,
    "Chapter 7: Alex's blue eyes.",
    [
      {
        toolCalls: [
          {
            id: 'h7',
            name: 'fs_write',
            arguments: { path: 'artifacts/chapters/chapter-07.md', content: '# Chapter 7\n\nAlex, blue eyes.\n' },
          },
          { id: 'b7', name: 'fs_write', arguments: { path: 'artifacts/story-bible.md', content: BIBLE7 } },
        ],
      },
      { text: 'In chapter 3, Alex had brown eyes; now you say blue.' },
    ],
    'In chapter 3, Alex had brown eyes; now you say blue.',
  );
  // What made the contradiction visible: the chapter-3 fact, stored three weeks ago, was in the model's context.
  const system = llm.requests[before].body.messages[0].content;
  assert.match(system, new RegExp(String.raw`Relevant long-term memories[\s\S]*\[learned\] Alex eyes: ${EYES.replace(/[()]/g, '\\$&')}`));
  await page.getByText(/Memories used: .*Alex eyes/).waitFor();
  // The bible keeps what it had and has chapter 7; the files are managed side by side.
  assert.equal(await workspaceFile(page, 'artifacts/story-bible.md'), BIBLE7);
  assert.deepEqual(await listWorkspace(page, 'artifacts/chapters'), ['chapter-03.md', 'chapter-07.md']);
});

test('"What unresolved plot threads do I have?" is answered from memory by category', async () => {
  await turn(
    page,
    llm,
    'What unresolved plot threads do I have?',
    [
      {
        toolCalls: [
          { id: 'r1', name: 'memory_recall', arguments: { query: 'unresolved plot thread', category: 'context' } },
          { id: 'r2', name: 'memory_recall', arguments: { query: 'unresolved plot thread', category: 'user' } },
        ],
      },
      { text: 'One: who sent Alex the silver locket.' },
    ],
    'One: who sent Alex the silver locket.',
  );
  const results = await toolResults(page);
  assert.match(results.r1.result, /\[context\] plot thread locket: Unresolved plot thread: who sent Alex the silver locket/);
  // The control recall itself worked (a result, not an error) and holds none of it.
  assert.equal(results.r1?.ok, true);
  assert.equal(results.r2?.ok, true, `control recall failed: ${results.r2?.result}`);
  assert.match(results.r2.result, /^(No matching memories\.|- \[user\] )/, 'a recall result');
  assert.doesNotMatch(results.r2.result, /locket/, 'control: another category holds none');
});
