// PRD scenario 7, personal research lab, over three months of the pages' clock: in a session a month
// (each a new conversation) the user shares two pieces of evidence; the agent remembers each with its
// stance and source and adds a row to artifacts/evidence-matrix.md. In month 3 the evidence is
// recalled by stance (supports / contradicts / inconclusive), all of it for a synthesis, and the
// matrix is checked against what memory holds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useFixture } from '../browser/fixture.mjs';
import { toolResults, turn, workspaceFile } from './scenario.mjs';

const DAY = 86_400_000;
const START = Math.floor(Date.now() / DAY) * DAY - 100 * DAY + 10 * 3_600_000;

const fx = await useFixture({
  llm: {},
  beforePage: ({ context }) => context.clock.install({ time: START }),
  settings: ({ llm }) => ({ provider: 'openai-compatible', model: 'test-model', baseUrl: `${llm.url}/v1`, autonomy: 'full' }),
});
const { llm, page } = fx;

/** The evidence of each month: [key, stance word, source, finding]. */
const MONTHS = [
  [
    ['evidence 1', 'supports', 'paper', 'Fasting adults scored higher on working-memory tests'],
    ['evidence 2', 'contradicts', 'article', 'Reaction times slowed during the first fasting week'],
  ],
  [
    ['evidence 3', 'inconclusive', 'observation', 'My focus felt the same on fasting days'],
    ['evidence 4', 'supports', 'paper', 'Mice on alternate-day fasting learned mazes faster'],
  ],
  [
    ['evidence 5', 'contradicts', 'paper', 'Skipping breakfast lowered attention scores in teenagers'],
    ['evidence 6', 'inconclusive', 'article', 'A review found too few trials to conclude'],
  ],
];
const HEAD = '# Evidence matrix\n\n| Evidence | Pro | Con | Neutral | Source |\n| --- | --- | --- | --- | --- |\n';
/** @param {string[]} e */
const row = ([key, stance, source, finding]) =>
  `| ${key}: ${finding} | ${stance === 'supports' ? 'x' : ''} | ${stance === 'contradicts' ? 'x' : ''} | ` +
  `${stance === 'inconclusive' ? 'x' : ''} | ${source} |\n`;
/** @param {string[]} e */
const content = ([, stance, source, finding]) => `${finding} (${source}; ${stance} the hypothesis)`;
// The memory log (.memory/entries.jsonl) is read below as the app stores it: one {op, entry} per change.

test('a session a month for three months: each piece of evidence is remembered and added to the matrix', async () => {
  for (const [i, month] of MONTHS.entries()) {
    await fx.context.clock.setSystemTime(START + i * 30 * DAY);
    if (i) await page.getByRole('button', { name: 'New conversation', exact: true }).click();
    const calls = month.flatMap((e, j) => [
      { id: `m${i}${j}`, name: 'memory_store', arguments: { key: e[0], content: content(e), category: 'learned' } },
      {
        id: `w${i}${j}`,
        name: 'fs_write',
        arguments: {
          path: 'artifacts/evidence-matrix.md',
          content: `${i || j ? '' : HEAD}${row(e)}`,
          mode: i || j ? 'append' : 'overwrite',
        },
      },
    ]);
    await turn(
      page,
      llm,
      `Month ${i + 1}: ${month.map((e) => e[3]).join('. ')}.`,
      [{ toolCalls: calls }, { text: `Month ${i + 1} recorded.` }],
      `Month ${i + 1} recorded.`,
    );
  }
  assert.equal(await workspaceFile(page, 'artifacts/evidence-matrix.md'), HEAD + MONTHS.flat().map(row).join(''));
});

test('in month 3 the evidence is recalled by stance and all together for a synthesis', async () => {
  await fx.context.clock.setSystemTime(START + 95 * DAY);
  await page.getByRole('button', { name: 'New conversation', exact: true }).click();
  const recall = (/** @type {string} */ id, /** @type {string} */ query) => ({
    id,
    name: 'memory_recall',
    arguments: { query, category: 'learned', limit: 20 },
  });
  await turn(
    page,
    llm,
    'What is the current assessment?',
    [
      {
        toolCalls: [
          recall('pro', 'supports'),
          recall('con', 'contradicts'),
          recall('neutral', 'inconclusive'),
          recall('all', 'fasting hypothesis'),
        ],
      },
      { text: 'Mixed: two for, two against, two inconclusive; no data on sleep deprivation.' },
    ],
    'Mixed: two for, two against',
  );
  const results = await toolResults(page);
  /** The evidence keys a recall returned. @param {string} id */
  const keys = (id) => [...results[id].result.matchAll(/\[learned\] (evidence \d)/g)].map((m) => m[1]).sort();
  assert.deepEqual(keys('pro'), ['evidence 1', 'evidence 4']);
  assert.deepEqual(keys('con'), ['evidence 2', 'evidence 5']);
  assert.deepEqual(keys('neutral'), ['evidence 3', 'evidence 6']);
  assert.deepEqual(
    keys('all'),
    ['evidence 1', 'evidence 2', 'evidence 3', 'evidence 4', 'evidence 5', 'evidence 6'],
    'three months, all of it',
  );
  assert.match(results.all.result, /Fasting adults scored higher on working-memory tests \(paper; supports/, 'month 1, word for word');
});

test('the evidence matrix is in step with memory: one row per remembered piece, with its stance', async () => {
  const entries = String(await workspaceFile(page, '.memory/entries.jsonl'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((l) => l.op === 'put')
    .map((l) => l.entry)
    .filter((e) => /^evidence \d$/.test(e.key));
  assert.equal(entries.length, 6, 'memory holds the six pieces');
  const matrix = String(await workspaceFile(page, 'artifacts/evidence-matrix.md'));
  const rows = matrix.split('\n').filter((l) => l.startsWith('| evidence'));
  assert.equal(rows.length, new Set(entries.map((e) => e.key)).size);
  for (const e of entries) {
    const stance = /; (supports|contradicts|inconclusive) the hypothesis\)$/.exec(e.content)?.[1];
    const line = rows.find((r) => r.startsWith(`| ${e.key}:`));
    assert.ok(line, `${e.key} has a row`);
    const [, , pro, con, neutral] = line.split('|').map((c) => c.trim());
    assert.deepEqual(
      [pro, con, neutral],
      [stance === 'supports' ? 'x' : '', stance === 'contradicts' ? 'x' : '', stance === 'inconclusive' ? 'x' : ''],
    );
  }
});
