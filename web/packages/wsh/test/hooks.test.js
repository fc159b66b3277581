// The server's /hook/<token> endpoint: incoming webhooks for a signed-in client that listens
// with that token (the browser tab has no address of its own). A real server on 127.0.0.1 and a
// real client through the Node entry; the outside service is a plain HTTP POST.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WshClient } from '../node.js';
import { makeKey, startServer } from './helpers.js';
import { MAX_HOOK_BODY } from '../server/hooks.js';

const TOKEN = 'hook_test-token-0123456789abcdef';
const key = await makeKey();
const { server, logs } = await startServer([key.entry]);
const wsh = await WshClient.connect(server.url, { key: key.pair, reconnect: false });

/** A webhook sender’s POST. @param {string} token @param {string | Uint8Array<ArrayBuffer>} body @param {RequestInit} [init] */
const post = (token, body, init = {}) =>
  fetch(`${server.hookUrl}${token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, ...init });

test('a POST to /hook/TOKEN reaches the client listening with that token, body and type intact, and is answered 202; a token \
nobody listens with gets 404 (control: the right one)', async () => {
  /** @type {{contentType: string, body: string}[]} */
  const got = [];
  const listener = await wsh.listenHooks({
    name: 'forms',
    tokens: [TOKEN],
    onHook: ({ contentType, body }) => {
      got.push({ contentType, body: new TextDecoder().decode(body) });
      return true;
    },
  });
  try {
    const wrong = await post('another-token-0123456789', '{"a":1}');
    assert.equal(wrong.status, 404);
    assert.deepEqual(got, [], 'nothing reached the client');
    const right = await post(TOKEN, '{"order":42}');
    assert.equal(right.status, 202);
    assert.deepEqual(got, [{ contentType: 'application/json', body: '{"order":42}' }]);
    assert.ok(logs.some((l) => l.includes('hook: “forms” listening (1 token)')));
    assert.ok(!logs.join('\n').includes(TOKEN), 'the token is never logged');
    assert.ok(!logs.join('\n').includes('order'), 'nor a body');
  } finally {
    await listener.stop();
  }
});

test('a listener that refuses or fails answers the sender 503; one that stopped answers 404; a GET is 405 and a body over the \
cap 413', async () => {
  let answer = /** @type {() => boolean} */ (() => false);
  const listener = await wsh.listenHooks({ name: 'picky', tokens: [TOKEN], onHook: () => answer() });
  assert.equal((await post(TOKEN, 'x')).status, 503);
  answer = () => {
    throw new Error('broken');
  };
  assert.equal((await post(TOKEN, 'x')).status, 503);
  answer = () => true;
  assert.equal((await post(TOKEN, 'x')).status, 202, 'control: a listener that takes it');
  assert.equal((await fetch(`${server.hookUrl}${TOKEN}`)).status, 405);
  assert.equal((await post(TOKEN, new Uint8Array(MAX_HOOK_BODY + 1))).status, 413);
  await listener.stop();
  await listener.ended;
  // The channel's close reaches the server a moment later: the endpoint answers 404 from then on.
  let status = 0;
  for (let i = 0; i < 50 && status !== 404; i++) status = (await post(TOKEN, 'x')).status;
  assert.equal(status, 404);
});

test('a token another connection listens with is refused (control: after that one stops, it can be taken)', async () => {
  const other = await WshClient.connect(server.url, { key: key.pair, reconnect: false });
  try {
    const first = await wsh.listenHooks({ name: 'first', tokens: [TOKEN], onHook: () => true });
    await assert.rejects(other.listenHooks({ name: 'second', tokens: [TOKEN], onHook: () => true }), { code: 'hook_token_in_use' });
    await first.stop();
    /** @type {Awaited<ReturnType<typeof other.listenHooks>> | null} */
    let taken = null;
    for (let i = 0; i < 50 && !taken; i++)
      taken = await other.listenHooks({ name: 'second', tokens: [TOKEN], onHook: () => true }).catch(() => null);
    assert.ok(taken, 'the token is free once the first listener stopped');
    await taken.stop();
  } finally {
    other.close();
  }
});

test('a page cannot post to a hook (the server refuses a request with a foreign Origin first)', async () => {
  const listener = await wsh.listenHooks({ name: 'forms', tokens: [TOKEN], onHook: () => true });
  try {
    const res = await post(TOKEN, 'x', { headers: { origin: 'https://evil.example', 'content-type': 'text/plain' } });
    assert.equal(res.status, 403);
    assert.equal((await post(TOKEN, 'x')).status, 202, 'control: without the Origin');
  } finally {
    await listener.stop();
  }
});

test('tokens too short for an address are refused by the client before anything is sent', async () => {
  await assert.rejects(wsh.listenHooks({ name: 'x', tokens: ['short'], onHook: () => true }), /16–256 letters/);
});

test.after(() => wsh.close());
