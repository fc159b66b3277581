// The client's timing, without waiting on the clock: `ping()` gets its pong and measures the
// round trip; reconnecting backs off, each delay growing from `minDelayMs` and capped at
// `maxDelayMs`, observed through the client's timer seam (`timers`), which runs each retry at once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WshClient } from '../node.js';
import { makeKey, startServer, statusBecomes } from './helpers.js';

const key = await makeKey();

test('ping: a pong answers it and the round trip is measured (a number within the time the call took)', async () => {
  const { server } = await startServer([key.entry]);
  const client = await WshClient.connect(server.url, { key: key.pair });
  test.after(() => client.close());
  const before = performance.now();
  const rtt = await client.ping();
  const elapsed = performance.now() - before;
  assert.equal(typeof rtt, 'number');
  assert.ok(rtt >= 0 && rtt <= elapsed, `${rtt} ms within the ${elapsed} ms the call took`);
  const twice = await Promise.all([client.ping(), client.ping()]);
  assert.equal(twice.length, 2, 'two pings in flight each get their pong');
});

/**
 * Drops a signed-in client's server and lets it retry until it gives up, recording each back-off delay.
 * @param {() => number} random the jitter source
 */
async function backOffDelays(random) {
  const { server } = await startServer([key.entry]);
  /** @type {number[]} */
  const delays = [];
  const client = await WshClient.connect(server.url, {
    key: key.pair,
    reconnect: { minDelayMs: 100, maxDelayMs: 1000, maxAttempts: 7 },
    timers: {
      random,
      setTimeout: (run, ms) => {
        delays.push(ms);
        setImmediate(run); // the retry at once: the test reads the delay asked for, it does not wait it
      },
    },
  });
  const gaveUp = statusBecomes(client, 'closed');
  await server.close(); // every retry now fails to connect
  const event = await gaveUp;
  assert.equal(/** @type {{code: string}} */ (event.error).code, 'connect_failed');
  return delays;
}

test('reconnect backs off: delays double from minDelayMs and are capped at maxDelayMs, then it gives up after \
maxAttempts', async () => {
  assert.deepEqual(
    await backOffDelays(() => 0.999999),
    [100, 200, 400, 800, 1000, 1000, 1000].map((d) => d * (0.5 + 0.999999 / 2)),
  );
  assert.deepEqual(await backOffDelays(() => 0), [50, 100, 200, 400, 500, 500, 500], 'the jitter takes off at most half');
  const jittered = await backOffDelays(Math.random);
  assert.equal(jittered.length, 7);
  jittered.forEach((d, i) => {
    const base = Math.min(1000, 100 * 2 ** i);
    assert.ok(d >= base / 2 && d <= base, `attempt ${i + 1}: ${d} within [${base / 2}, ${base}]`);
  });
});
