import { test } from 'node:test';
import assert from 'node:assert/strict';
import { madeOnFirstUse } from '../../web/app/made-on-first-use.js';

test('made once per key on first use; peek gives only what was made; a failed one is made again', async () => {
  /** @type {string[]} */
  const calls = [];
  let fail = true;
  const get = madeOnFirstUse(async (key) => {
    calls.push(key);
    if (key === 'bad' && fail) throw new Error('module did not load');
    return { key };
  });
  assert.equal(get.peek('a'), undefined, 'nothing made before it is asked for');
  const [x, y] = [get('a'), get('a')];
  assert.equal(x, y, 'the same promise to every caller');
  assert.deepEqual(await x, { key: 'a' });
  assert.equal(get.peek('a'), x);
  assert.notEqual(get('b'), x, 'control: another key is made apart');
  await assert.rejects(get('bad'));
  await Promise.resolve();
  assert.equal(get.peek('bad'), undefined, 'a failed one is forgotten');
  fail = false;
  assert.deepEqual(await get('bad'), { key: 'bad' });
  assert.deepEqual(calls, ['a', 'b', 'bad', 'bad']);
});
