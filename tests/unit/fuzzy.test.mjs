// Fuzzy ranking of the command palette (issue 13).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fuzzyScore, fuzzyRank } from '../../web/app/fuzzy.js';

test('letters in order match anywhere; out of order or missing do not', () => {
  assert.notEqual(fuzzyScore('sch', 'Open Schedule'), null);
  assert.notEqual(fuzzyScore('opsc', 'Open Schedule'), null);
  assert.equal(fuzzyScore('xyz', 'Open Schedule'), null);
  assert.equal(fuzzyScore('eludehcs', 'Open Schedule'), null);
  assert.equal(fuzzyScore('', 'anything'), 0);
});

test('ranking: a word prefix beats a scattered match; word starts beat inner letters', () => {
  const items = ['Export conversation', 'Open Schedule', 'Switch to conversation: Schedule ideas', 'Stop the reply'];
  assert.deepEqual(fuzzyRank('sched', items, (x) => x).slice(0, 2), ['Open Schedule', 'Switch to conversation: Schedule ideas']);
  assert.equal(fuzzyRank('nc', ['Enhance', 'New conversation'], (x) => x)[0], 'New conversation');
  assert.equal(fuzzyRank('exp', items, (x) => x)[0], 'Export conversation');
  assert.deepEqual(
    fuzzyRank('zzz', items, (x) => x),
    [],
  );
  assert.deepEqual(
    fuzzyRank('', items, (x) => x),
    items,
    'an empty query lists everything in order',
  );
});

test('ranking: typed words that each start a word of the text, in order, come before letters scattered or inside words', () => {
  const items = ['Reconnect the history server', 'Go to conversation: Chores list', 'Export conversation history', 'Open config history'];
  const ranked = fuzzyRank('con hist', items, (x) => x);
  assert.deepEqual(ranked.slice(0, 2), ['Open config history', 'Export conversation history']);
  assert.deepEqual(ranked.slice(2).sort(), ['Go to conversation: Chores list', 'Reconnect the history server']);
  // Letters found early inside words ("Icons") no longer outrank the words typed ("Accounts: conversation history").
  assert.deepEqual(
    fuzzyRank('con hist', ['Icons: history', 'Accounts: conversation history'], (x) => x),
    ['Accounts: conversation history', 'Icons: history'],
  );
  // Control: out of order, the words are not a word-start match.
  assert.ok((fuzzyScore('hist con', 'Export conversation history') ?? 0) < 1000);
  // A prefix of the whole text still comes first, then a word's prefix.
  assert.deepEqual(
    fuzzyRank('git', ['Open the digit list', 'Show Git status', 'Git: commit'], (x) => x),
    ['Git: commit', 'Show Git status', 'Open the digit list'],
  );
});
