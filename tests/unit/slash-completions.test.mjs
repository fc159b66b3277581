// What the composer's "/" completes to (web/agent/runtime/slash-commands.js): names starting with
// what was typed first, then a word of a name starting so; nothing past a space or away from the start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { slashCompletions, SLASH_LIMIT } from '../../web/agent/runtime/slash-commands.js';

/** @type {import('../../web/ui/types.d.ts').SlashCompletion[]} */
const commands = [
  { command: '/report-writer', description: 'Reports', kind: 'skill' },
  { command: '/mcp__docs__review_code', description: 'Reviews', kind: 'prompt', args: 'file' },
  { command: '/Release-notes', description: 'Notes', kind: 'skill' },
];

test('"/" lists every command; typing narrows by name start, then by a word of the name', () => {
  assert.deepEqual(
    slashCompletions('/', commands).map((c) => c.command),
    commands.map((c) => c.command),
  );
  assert.deepEqual(
    slashCompletions('/re', commands).map((c) => c.command),
    ['/report-writer', '/Release-notes', '/mcp__docs__review_code'],
    'name starts (any case) first, then a word start',
  );
  assert.deepEqual(
    slashCompletions('/notes', commands).map((c) => c.command),
    ['/Release-notes'],
  );
  assert.deepEqual(slashCompletions('/zzz', commands), []);
});

test('nothing once a space follows, or when "/" is not the start; at most SLASH_LIMIT', () => {
  assert.deepEqual(slashCompletions('/report-writer now', commands), []);
  assert.deepEqual(slashCompletions('see /rep', commands), []);
  assert.deepEqual(slashCompletions('', commands), []);
  const many = Array.from({ length: SLASH_LIMIT + 5 }, (_, i) => ({
    command: `/s${i}`,
    description: '',
    kind: /** @type {const} */ ('skill'),
  }));
  assert.equal(slashCompletions('/s', many).length, SLASH_LIMIT);
});
