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
