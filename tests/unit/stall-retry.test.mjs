// retryStalled (web/storage/stall-retry.js): a call the browser never answers is abandoned and
// made again; a late answer is released; errors are retried only when listed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { retryStalled } from '../../web/storage/stall-retry.js';

const never = () => new Promise(() => {});
const stalledError = () => Object.assign(new Error('stalled'), { code: 'busy' });

test('a call that answers is returned at once, with no retry', async () => {
  let calls = 0;
  const value = await retryStalled(
    async () => {
      calls++;
      return 'handle';
    },
    { stallMs: 1000, attempts: 3, release: () => assert.fail('nothing to release'), stalledError },
  );
  assert.equal(value, 'handle');
  assert.equal(calls, 1);
});

test('a call that never answers is abandoned and made again; the retry gets through', async () => {
  let calls = 0;
  /** @type {number[]} */
  const stalls = [];
  const value = await retryStalled(() => (++calls === 1 ? never() : Promise.resolve('second')), {
    stallMs: 20,
    attempts: 3,
    release: () => {},
    onStall: (n) => stalls.push(n),
    stalledError,
  });
  assert.equal(value, 'second');
  assert.equal(calls, 2);
  assert.deepEqual(stalls, [1]);
});

test('an abandoned call that answers late hands its result to release (a late handle is closed)', async () => {
  /** @type {(v: string) => void} */
  let answerLate = () => {};
  /** @type {string[]} */
  const released = [];
  let calls = 0;
  const value = await retryStalled(
    () =>
      ++calls === 1
        ? new Promise((resolve) => {
            answerLate = resolve;
          })
        : Promise.resolve('fresh'),
    { stallMs: 20, attempts: 3, release: (late) => released.push(late), stalledError },
  );
  assert.equal(value, 'fresh');
  answerLate('late');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(released, ['late']);
});

test('control: when every attempt stalls, it fails with the clear error instead of waiting forever', async () => {
  let calls = 0;
  await assert.rejects(
    retryStalled(
      () => {
        calls++;
        return never();
      },
      { stallMs: 10, attempts: 3, release: () => {}, stalledError },
    ),
    /stalled/,
  );
  assert.equal(calls, 3);
});

test('errors are retried only when listed by name, and only up to the attempt limit', async () => {
  const busy = () => Object.assign(new Error('held'), { name: 'NoModificationAllowedError' });
  let calls = 0;
  const value = await retryStalled(() => (++calls < 3 ? Promise.reject(busy()) : Promise.resolve('ok')), {
    stallMs: 1000,
    attempts: 4,
    release: () => {},
    retryOn: ['NoModificationAllowedError'],
    stalledError,
  });
  assert.equal(value, 'ok');
  calls = 0;
  await assert.rejects(
    retryStalled(
      () => {
        calls++;
        return Promise.reject(new TypeError('bad'));
      },
      { stallMs: 1000, attempts: 4, release: () => {}, retryOn: ['NoModificationAllowedError'], stalledError },
    ),
    TypeError,
  );
  assert.equal(calls, 1);
  calls = 0;
  await assert.rejects(
    retryStalled(
      () => {
        calls++;
        return Promise.reject(busy());
      },
      { stallMs: 1000, attempts: 2, release: () => {}, retryOn: ['NoModificationAllowedError'], stalledError },
    ),
    /held/,
  );
  assert.equal(calls, 2);
});
