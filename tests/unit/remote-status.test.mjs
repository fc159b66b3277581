// Issue 35 §3: each machine's live connection status, as the Remote panel shows it. While it is
// watched, the machine's shared connection is kept: connecting, then connected; the server goes
// and it says reconnecting, then disconnected with the reason; the server comes back on the same
// port and it is connected again, by itself. Unwatched, nothing more is tried (control).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { RemoteMachines } from '../../web/stores/remote-machines.js';
import { LocalConfig } from '../../web/storage/local-config.js';
import { MemoryKeyStore } from '../../web/packages/wsh/index.js';
import { createWshServer } from '../../web/packages/wsh/server/index.js';
import { parseKeyLine } from '../../web/packages/wsh/server/keys-file.js';
import { memoryStorage } from '../fixtures/stand-ins.mjs';

const wsh = () => import('../../web/packages/wsh/node.js');

/**
 * Resolves when `check` holds for the machine's status, checked at each change (no timers).
 * @param {RemoteMachines} machines @param {string} name
 * @param {(s: import('../../web/stores/remote-machines.js').ConnectionStatus) => boolean} check
 */
function statusUntil(machines, name, check) {
  return new Promise((resolve) => {
    const now = machines.connection(name);
    if (check(now)) return resolve(now);
    const stop = machines.onStatus(() => {
      const s = machines.connection(name);
      if (check(s)) {
        stop();
        resolve(s);
      }
    });
  });
}

test('a watched machine: connecting, connected; the server goes: reconnecting, then disconnected with the reason; back on the same \
port: connected again by itself; unwatched: nothing more is tried', async () => {
  const machines = new RemoteMachines({
    config: new LocalConfig(memoryStorage()),
    keys: new MemoryKeyStore(),
    wsh,
    reconnect: { minDelayMs: 10, maxAttempts: 2 },
    watchRetry: { minDelayMs: 20, maxDelayMs: 40 },
  });
  after(() => machines.closeAll());
  /** @type {import('../../web/packages/wsh/server/keys-file.js').KeyEntry[]} */
  const listed = [];
  let server = await createWshServer({ keys: listed, pty: null, log: () => {} });
  const port = Number(new URL(server.url).port);
  after(() => server.close());
  await machines.add({ name: 'laptop', url: server.url });
  listed.push(await parseKeyLine(await machines.publicKeyLine('laptop')));
  assert.deepEqual(machines.connection('laptop'), { state: 'disconnected', reason: 'not connected yet' });

  /** @type {string[]} */
  const seen = [];
  const stopSeeing = machines.onStatus((name) => {
    const s = machines.connection(name);
    if (seen.at(-1) !== s.state) seen.push(s.state);
  });
  const unwatch = machines.watch('laptop');
  await statusUntil(machines, 'laptop', (s) => s.state === 'connected');
  assert.deepEqual(seen, ['connecting', 'connected']);
  assert.equal(machines.get('laptop').lastUsed, null, 'watching is not using');

  await server.close();
  const reconnecting = await statusUntil(machines, 'laptop', (s) => s.state === 'reconnecting');
  assert.match(reconnecting.reason, /\S/, 'with the reason');
  const down = await statusUntil(machines, 'laptop', (s) => s.state === 'disconnected');
  assert.match(down.reason, /^(connect_failed|disconnected|closed)/, down.reason);

  server = await createWshServer({ keys: listed, pty: null, log: () => {}, port });
  await statusUntil(machines, 'laptop', (s) => s.state === 'connected');
  assert.equal(machines.connection('laptop').reason, '');

  // Control: unwatched, a connection that goes is not made again.
  unwatch();
  await server.close();
  await statusUntil(machines, 'laptop', (s) => s.state === 'disconnected');
  server = await createWshServer({ keys: listed, pty: null, log: () => {}, port });
  const before = seen.length;
  await machines.test('laptop');
  assert.equal(machines.connection('laptop').state, 'disconnected', 'the status is of the shared connection, not of a test');
  assert.deepEqual(seen.slice(before), []);
  // Used again (a tool call): connected, and said so.
  await machines.client('laptop');
  assert.equal(machines.connection('laptop').state, 'connected');
  assert.notEqual(machines.get('laptop').lastUsed, null, 'using is using');
  // A relayed provider uses it for every request: "last used" is not written again within the minute.
  let writes = 0;
  const stopWrites = machines.onChange(() => writes++);
  await machines.client('laptop');
  await machines.client('laptop');
  assert.equal(writes, 0);
  stopWrites();
  stopSeeing();
});
