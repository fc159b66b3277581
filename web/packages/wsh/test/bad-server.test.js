// The client against servers that misbehave, played by a raw `ws` server: one that never says
// hello, one that never answers the sign-in, one whose hello speaks another version, one that
// sends garbage after the sign-in. Connecting can be cancelled at every step before the
// connection is ready (the socket is then closed); a bad server gets a clear error and a closed
// socket. Each has its control. Waits are on events (a connection, a frame, a close).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { WebSocket, WebSocketServer } from 'ws';
import { WshClient } from '../node.js';
import { PROTOCOL_VERSION, decodeFrame, encodeFrame } from '../protocol.js';
import { makeKey, statusBecomes } from './helpers.js';

/** @import { Frame } from '../protocol.js' */

const key = await makeKey();

/** Resolves once the client's next socket is open (the client's own handlers are left alone). */
let clientOpened = Promise.resolve();
/** The `ws` WebSocket, telling the test when it opened: an abort is then past the socket's opening. */
class WatchedWebSocket extends WebSocket {
  /** @param {string} url */
  constructor(url) {
    super(url);
    clientOpened = new Promise((resolve) => this.once('open', resolve));
  }
}
const watched = /** @type {import('../transport.js').WebSocketConstructor} */ (/** @type {unknown} */ (WatchedWebSocket));

/** A hello as a wsh server sends it. @param {Partial<Frame<'hello'>['header']>} [over] */
const hello = (over = {}) =>
  encodeFrame('hello', 0, {
    versions: [PROTOCOL_VERSION],
    nonce: 'n'.repeat(32),
    server: 'bad-server-test',
    pty: false,
    relay: false,
    transports: ['websocket'],
    ...over,
  });

const welcome = () =>
  encodeFrame('welcome', 0, {
    session: 's1',
    key: 'test',
    pty: false,
    relay: false,
    limits: { commands: '*', dirs: '*', sessions: 0, outputBytes: 0, idleTimeoutMs: 0 },
  });

/**
 * A raw wsh "server" on 127.0.0.1: `onSocket` plays it for each connection; each connection is
 * handed over as `{ws, frames, next(type), closed}`.
 * @param {(peer: Peer) => void} onSocket
 */
async function badServer(onSocket) {
  const wss = new WebSocketServer({ noServer: true });
  const http = createServer();
  /** @type {Set<WebSocket>} */
  const sockets = new Set();
  http.on('upgrade', (req, socket, head) => wss.handleUpgrade(req, socket, head, (ws) => onSocket(peer(ws, sockets))));
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  test.after(() => {
    for (const ws of sockets) ws.terminate();
    wss.close();
    http.close();
  });
  const address = /** @type {import('node:net').AddressInfo} */ (http.address());
  return `ws://127.0.0.1:${address.port}/wsh`;
}

/** @typedef {ReturnType<typeof peer>} Peer */
/** @param {WebSocket} ws @param {Set<WebSocket>} sockets */
function peer(ws, sockets) {
  sockets.add(ws);
  /** @type {Frame[]} */
  const frames = [];
  /** @type {Set<() => void>} */
  const waiters = new Set();
  ws.on('message', (data) => {
    frames.push(decodeFrame(data));
    for (const w of [...waiters]) w();
  });
  ws.on('error', () => {});
  /** @type {Promise<number>} the close code */
  const closed = new Promise((resolve) => ws.on('close', (code) => resolve(code)));
  /** @type {Set<Frame>} */
  const taken = new Set();
  /** The next frame of a type not handed out before. @param {string} type @returns {Promise<Frame>} */
  const next = (type) =>
    new Promise((resolve) => {
      const check = () => {
        const found = frames.find((f) => f.t === type && !taken.has(f));
        if (found) {
          taken.add(found);
          waiters.delete(check);
          resolve(found);
        }
      };
      waiters.add(check);
      check();
    });
  return { ws, frames, next, closed };
}

/** Resolves with each connection the server gets, in order. */
function connections() {
  /** @type {Peer[]} */
  const seen = [];
  /** @type {((p: Peer) => void) | null} */
  let wake = null;
  return {
    /** @param {Peer} p */
    push(p) {
      seen.push(p);
      wake?.(p);
    },
    /** @returns {Promise<Peer>} */
    next() {
      const found = seen.shift();
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => {
        wake = (p) => {
          wake = null;
          seen.shift();
          resolve(p);
        };
      });
    },
  };
}

test('connect: an abort while the server has not said hello rejects with aborted and closes the socket; control: \
without abort, the server closing the socket fails with connect_failed', async () => {
  const conns = connections();
  const url = await badServer((p) => conns.push(p)); // never says hello
  const controller = new AbortController();
  const connecting = WshClient.connect(url, { key: key.pair, signal: controller.signal, reconnect: false, WebSocket: watched });
  const silent = await conns.next();
  await clientOpened;
  controller.abort();
  await assert.rejects(connecting, { name: 'WshError', code: 'aborted' });
  await silent.closed; // the client closed the socket
  // Control: no abort; the server gives up on its side, and the client says it could not connect, as before.
  const plain = WshClient.connect(url, { key: key.pair, reconnect: false });
  const other = await conns.next();
  other.ws.close(1011, 'gave up');
  await assert.rejects(plain, { code: 'connect_failed' });
});

test('connect: an abort while the sign-in is unanswered rejects with aborted and closes the socket; control: the \
server answering welcome connects, and an abort after that changes nothing', async () => {
  const conns = connections();
  const url = await badServer((p) => {
    p.ws.send(hello());
    conns.push(p);
  });
  const controller = new AbortController();
  const connecting = WshClient.connect(url, { key: key.pair, signal: controller.signal, reconnect: false });
  const waiting = await conns.next();
  await waiting.next('auth'); // the client signed; the server never answers
  controller.abort();
  await assert.rejects(connecting, { code: 'aborted' });
  await waiting.closed;
  // Control: the server answers; the connection is ready, and aborting afterwards leaves it open.
  const later = new AbortController();
  const ok = WshClient.connect(url, { key: key.pair, signal: later.signal, reconnect: false });
  const answering = await conns.next();
  await answering.next('auth');
  answering.ws.send(welcome());
  const client = await ok;
  assert.equal(client.status, 'open');
  later.abort();
  assert.equal(client.status, 'open', 'an abort after connecting does not close the client');
  answering.ws.send(encodeFrame('ping', 0, { id: 7 }));
  assert.equal(/** @type {{id: number}} */ ((await answering.next('pong')).header).id, 7, 'it still answers');
  client.close();
  await answering.closed;
});

test('connect: an already aborted signal rejects with aborted and opens nothing', async () => {
  let opened = 0;
  const url = await badServer(() => {
    opened++;
  });
  await assert.rejects(WshClient.connect(url, { key: key.pair, signal: AbortSignal.abort(), reconnect: false }), { code: 'aborted' });
  // Control: the same server is reachable (a connection arrives) when not aborted.
  const controller = new AbortController();
  const conns = connections();
  const url2 = await badServer((p) => conns.push(p));
  const reaching = WshClient.connect(url2, { key: key.pair, signal: controller.signal, reconnect: false, WebSocket: watched });
  await conns.next();
  await clientOpened;
  controller.abort();
  await assert.rejects(reaching, { code: 'aborted' });
  assert.equal(opened, 0, 'the aborted connect reached no server');
});

test('connect: an abort during the WebTransport hop rejects with aborted and closes both the WebSocket and the session', async () => {
  const conns = connections();
  const url = await badServer((p) => {
    p.ws.send(hello({ transports: ['websocket', 'webtransport'], webtransport: 'https://127.0.0.1:1/wsh' }));
    conns.push(p);
  });
  /** @type {{url: string, closed: boolean}[]} */
  const sessions = [];
  /** @type {(s: unknown) => void} */
  let created = () => {};
  const sessionMade = new Promise((resolve) => {
    created = resolve;
  });
  class HangingWebTransport {
    /** @param {string} wtUrl */
    constructor(wtUrl) {
      this.record = { url: wtUrl, closed: false };
      sessions.push(this.record);
      this.ready = new Promise(() => {}); // never ready
      this.closed = new Promise(() => {});
      created(this);
    }
    close() {
      this.record.closed = true;
    }
    /** @returns {Promise<never>} */
    createBidirectionalStream() {
      return new Promise(() => {});
    }
  }
  const controller = new AbortController();
  const connecting = WshClient.connect(url, {
    key: key.pair,
    signal: controller.signal,
    reconnect: false,
    transport: 'webtransport',
    WebTransport: HangingWebTransport,
  });
  const ws = await conns.next();
  await sessionMade;
  controller.abort();
  await assert.rejects(connecting, { code: 'aborted' });
  await ws.closed;
  assert.deepEqual(sessions, [{ url: 'https://127.0.0.1:1/wsh', closed: true }]);
});

test("a hello whose versions lack the client's: version_mismatch and the socket closed; control: a matching hello \
goes on to sign in", async () => {
  const conns = connections();
  const url = await badServer((p) => conns.push(p));
  const connecting = WshClient.connect(url, { key: key.pair, reconnect: false });
  const future = await conns.next();
  future.ws.send(hello({ versions: [PROTOCOL_VERSION + 1] }));
  await assert.rejects(connecting, { code: 'version_mismatch', message: new RegExp(`speaks wsh ${PROTOCOL_VERSION + 1}`) });
  await future.closed;
  assert.deepEqual(
    future.frames.map((f) => f.t),
    [],
    'nothing was signed for a server it cannot talk to',
  );
  // Control: the same server with the client's version gets the auth frame.
  const matching = WshClient.connect(url, { key: key.pair, reconnect: false });
  const current = await conns.next();
  current.ws.send(hello({ versions: [PROTOCOL_VERSION + 1, PROTOCOL_VERSION] }));
  await current.next('auth');
  current.ws.send(welcome());
  (await matching).close();
});

test('a malformed frame after sign-in: what runs fails as disconnected (cause malformed_frame), the client closes \
for good with code 1002; control: a well-formed answer before it', async () => {
  const conns = connections();
  const url = await badServer((p) => {
    p.ws.send(hello());
    conns.push(p);
  });
  const connecting = WshClient.connect(url, { key: key.pair });
  const server = await conns.next();
  await server.next('auth');
  server.ws.send(welcome());
  const client = await connecting;
  // Control: a well-formed exec answer arrives as a result.
  const first = client.exec('echo hi');
  const ran = await server.next('exec');
  server.ws.send(encodeFrame('open', ran.channel, { mode: 'pipe', pid: 1 }));
  server.ws.send(encodeFrame('stdout', ran.channel, {}, new TextEncoder().encode('hi\n')));
  server.ws.send(encodeFrame('exit', ran.channel, { code: 0, signal: null }));
  server.ws.send(encodeFrame('close', ran.channel, {}));
  assert.deepEqual(await first, { stdout: 'hi\n', stderr: '', exitCode: 0, signal: null });
  // Now a running process, then garbage from the server.
  const proc = await (async () => {
    const spawning = client.spawn('sleep 100');
    const opening = await server.next('exec');
    server.ws.send(encodeFrame('open', opening.channel, { mode: 'pipe', pid: 2 }));
    return spawning;
  })();
  const closedForGood = statusBecomes(client, 'closed');
  server.ws.send(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]));
  await assert.rejects(proc.exited, (/** @type {any} */ err) => err.code === 'disconnected' && err.cause?.code === 'malformed_frame');
  const event = await closedForGood;
  assert.equal(/** @type {{code: string}} */ (event.error).code, 'malformed_frame', 'no reconnect after a protocol error');
  assert.equal(await server.closed, 1002);
  await assert.rejects(client.exec('true'), { code: 'closed' });
});
