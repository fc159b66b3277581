// Transport choice: WebTransport when the server's hello offers it and the runtime has it,
// WebSocket otherwise. Node has no WebTransport, so the WebTransport path runs through a
// stand-in session that carries its length-prefixed stream over a WebSocket to the real
// server — the client's WebTransport code (stream framing, sign-in, channels) runs for real.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import WebSocket from 'ws';
import { WshClient, chooseTransport } from '../node.js';
import { RecordReader, lengthPrefixed } from '../protocol.js';
import { makeKey, startServer } from './helpers.js';

test('chooseTransport: WebTransport only when offered, available and not declined', () => {
  const offered = { transports: ['websocket', 'webtransport'], webtransport: 'https://127.0.0.1:4433/wsh' };
  const plain = { transports: ['websocket'] };
  assert.equal(chooseTransport(offered, { preference: 'auto', hasWebTransport: true }), 'webtransport');
  assert.equal(chooseTransport(plain, { preference: 'auto', hasWebTransport: true }), 'websocket', 'control: not offered');
  assert.equal(chooseTransport(offered, { preference: 'auto', hasWebTransport: false }), 'websocket', 'control: not available');
  assert.equal(chooseTransport(offered, { preference: 'websocket', hasWebTransport: true }), 'websocket', 'control: declined');
});

/**
 * A WebTransport stand-in: one bidirectional stream whose records travel over a WebSocket to
 * `target`. Incoming records are cut in two, so the client's reassembly is exercised.
 * @param {string} target the wsh WebSocket URL
 * @param {string[]} opened records each URL the client opened
 */
function bridgedWebTransport(target, opened) {
  return class {
    /** @param {string} url */
    constructor(url) {
      opened.push(url);
      this.ws = new WebSocket(target);
      this.ws.binaryType = 'arraybuffer';
      this.ready = new Promise((resolve, reject) => {
        this.ws.on('open', () => resolve(undefined));
        this.ws.on('error', reject);
      });
      this.closed = new Promise((resolve) => this.ws.on('close', () => resolve(undefined)));
      // The server speaks first (its hello): keep what comes before the stream is asked for.
      /** @type {Uint8Array[]} */
      this.early = [];
      /** @type {((record: Uint8Array) => void) | null} */
      this.deliver = null;
      this.ws.on('message', (data) => {
        const record = lengthPrefixed(new Uint8Array(/** @type {ArrayBuffer} */ (/** @type {unknown} */ (data))));
        if (this.deliver) this.deliver(record);
        else this.early.push(record);
      });
    }
    async createBidirectionalStream() {
      const ws = this.ws;
      const readable = new ReadableStream({
        start: (controller) => {
          /** @param {Uint8Array} record */
          this.deliver = (record) => {
            const cut = Math.floor(record.byteLength / 2);
            controller.enqueue(record.slice(0, cut));
            controller.enqueue(record.slice(cut));
          };
          for (const record of this.early.splice(0)) this.deliver(record);
          ws.on('close', () => controller.close());
        },
      });
      const records = new RecordReader();
      const writable = new WritableStream({
        write(piece) {
          for (const record of records.push(piece)) ws.send(record);
        },
      });
      return { readable, writable };
    }
    close() {
      this.ws.close();
    }
  };
}

test('a server that offers WebTransport: the client moves to it, signs in there and runs commands \
(control: declined, WebSocket)', async () => {
  const key = await makeKey();
  const { server } = await startServer([key.entry], { webtransport: (port) => `https://127.0.0.1:${port}/wsh-wt` });
  /** @type {string[]} */
  const opened = [];
  const WebTransport = /** @type {any} */ (bridgedWebTransport(server.url, opened)); // any: a stand-in for the browser's class
  const client = await WshClient.connect(server.url, { key: key.pair, WebTransport });
  assert.equal(client.transport, 'webtransport');
  assert.deepEqual(opened, [`https://127.0.0.1:${new URL(server.url).port}/wsh-wt`]);
  assert.equal((await client.exec('echo over webtransport')).stdout, 'over webtransport\n');
  const big = await client.exec('head -c 3000000 /dev/zero', { encoding: 'binary' });
  assert.equal(big.stdout.byteLength, 3000000);
  client.close();

  const declined = await WshClient.connect(server.url, { key: key.pair, WebTransport, transport: 'websocket' });
  assert.equal(declined.transport, 'websocket', 'control');
  assert.equal((await declined.exec('echo over websocket')).stdout, 'over websocket\n');
  declined.close();
  const without = await WshClient.connect(server.url, { key: key.pair, WebTransport: null });
  assert.equal(without.transport, 'websocket', 'control: no WebTransport in this runtime');
  without.close();
});

test('a WebTransport endpoint that fails falls back to the WebSocket (auto), and fails when WebTransport was required', async () => {
  const key = await makeKey();
  const { server } = await startServer([key.entry], { webtransport: 'https://127.0.0.1:1/unreachable' });
  const Failing = /** @type {any} */ (
    // any: a stand-in for the browser's class
    class {
      ready = Promise.reject(new Error('no route'));
      closed = Promise.resolve();
      constructor() {
        this.ready.catch(() => {});
      }
    }
  );
  const client = await WshClient.connect(server.url, { key: key.pair, WebTransport: Failing });
  assert.equal(client.transport, 'websocket');
  assert.equal((await client.exec('echo fallback')).stdout, 'fallback\n');
  client.close();
  await assert.rejects(WshClient.connect(server.url, { key: key.pair, WebTransport: Failing, transport: 'webtransport' }), {
    code: 'connect_failed',
  });
});
