// The HTTP relay: requests go only to the hosts listed with --relay-allow (redirects included),
// streamed responses (SSE, NDJSON) arrive as they are sent, and the log holds no path, header or
// body. The control of every refusal is the same server reached by its listed name.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { WshClient } from '../node.js';
import { makeKey, startServer } from './helpers.js';

/** @type {() => void} */
let releaseSecond = () => {};
/** @type {() => void} */
let releaseSecondLine = () => {};
const upstream = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  if (url.pathname === '/sse') {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write('data: one\n\n');
    releaseSecond = () => res.end('data: two\n\n');
    return;
  }
  if (url.pathname === '/ndjson') {
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    res.write('{"n":1}\n');
    releaseSecondLine = () => res.end('{"n":2}\n{"done":true}\n');
    return;
  }
  if (url.pathname === '/echo') {
    /** @type {Buffer[]} */
    const parts = [];
    req.on('data', (b) => parts.push(b));
    req.on('end', () => {
      res.writeHead(201, { 'content-type': 'application/json', 'x-upstream': 'yes' });
      res.end(
        JSON.stringify({ method: req.method, body: Buffer.concat(parts).toString(), auth: req.headers.authorization, query: url.search }),
      );
    });
    return;
  }
  if (url.pathname === '/redirect-out') {
    res.writeHead(302, { location: `http://localhost:${port}/echo` }).end();
    return;
  }
  if (url.pathname === '/redirect-in') {
    res.writeHead(302, { location: '/echo?moved=1' }).end();
    return;
  }
  res.writeHead(404).end();
});
await new Promise((resolve) => upstream.listen(0, '127.0.0.1', () => resolve(undefined)));
test.after(() => upstream.close());
const port = /** @type {import('node:net').AddressInfo} */ (upstream.address()).port;
const listedBase = `http://127.0.0.1:${port}`;
const unlistedBase = `http://localhost:${port}`; // the same server, by a name not on the list

const key = await makeKey();
const noRelayKey = await makeKey('relay=no');
const { server, logs } = await startServer([key.entry, noRelayKey.entry], { relayAllow: [`127.0.0.1:${port}`] });
const client = await WshClient.connect(server.url, { key: key.pair });
test.after(() => client.close());

test('a listed host: the request, its headers and body go through, and the response comes back', async () => {
  const res = await client.fetch(`${listedBase}/echo?k=v`, {
    method: 'POST',
    headers: { authorization: 'Bearer sk-test-SECRET', 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'PRIVATE-BODY' }),
  });
  assert.equal(res.status, 201);
  assert.equal(res.headers.get('x-upstream'), 'yes');
  assert.deepEqual(await res.json(), { method: 'POST', body: '{"prompt":"PRIVATE-BODY"}', auth: 'Bearer sk-test-SECRET', query: '?k=v' });
  assert.ok(logs.some((l) => l.includes(`relay: POST 127.0.0.1:${port} → 201`)));
  const text = logs.join('\n');
  for (const secret of ['SECRET', 'PRIVATE-BODY', '/echo', 'k=v']) assert.ok(!text.includes(secret), `the log holds no "${secret}"`);
});

test('an SSE stream arrives event by event: the first is read before the server sends the second', async () => {
  const res = await client.fetch(`${listedBase}/sse`);
  assert.equal(res.headers.get('content-type'), 'text/event-stream');
  const reader = /** @type {ReadableStream<Uint8Array>} */ (res.body).getReader();
  const first = await reader.read();
  assert.equal(new TextDecoder().decode(first.value), 'data: one\n\n');
  releaseSecond(); // only now does the upstream send the rest
  let rest = '';
  for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
  assert.equal(rest, 'data: two\n\n');
});

test('an NDJSON stream (as Ollama streams) arrives line by line: the first is read before the server sends the rest', async () => {
  const res = await client.fetch(`${listedBase}/ndjson`, { method: 'POST', body: '{"stream":true}' });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/x-ndjson');
  const reader = /** @type {ReadableStream<Uint8Array>} */ (res.body).getReader();
  const first = await reader.read();
  assert.deepEqual(JSON.parse(new TextDecoder().decode(first.value)), { n: 1 });
  releaseSecondLine(); // only now does the upstream send the rest
  let rest = '';
  for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
  assert.deepEqual(
    rest
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l)),
    [{ n: 2 }, { done: true }],
  );
});

test('an unlisted host is refused with a message naming the fix (control: the same server by its listed name works)', async () => {
  await assert.rejects(client.fetch(`${unlistedBase}/echo`), {
    code: 'relay_host_not_allowed',
    message: new RegExp(`localhost:${port} is not in this relay's list: start the server with --relay-allow`),
  });
  await assert.rejects(client.fetch('http://example.com/'), { code: 'relay_host_not_allowed' });
  await assert.rejects(client.fetch('file:///etc/passwd'), { code: 'relay_host_not_allowed' });
  assert.equal((await client.fetch(`${listedBase}/echo`)).status, 201, 'control');
});

test('a redirect to an unlisted host is not followed (control: a redirect within the listed host is)', async () => {
  await assert.rejects(client.fetch(`${listedBase}/redirect-out`), { code: 'relay_host_not_allowed', message: /redirected to localhost/ });
  const res = await client.fetch(`${listedBase}/redirect-in`);
  assert.equal(res.status, 201, 'control');
  assert.equal((await res.json()).query, '?moved=1');
});

test('a key with relay=no and a server without --relay-allow relay nothing (control: the relaying key above)', async () => {
  const other = await WshClient.connect(server.url, { key: noRelayKey.pair });
  await assert.rejects(other.fetch(`${listedBase}/echo`), { code: 'relay_disabled' });
  other.close();
  const plain = await startServer([key.entry]);
  const c = await WshClient.connect(plain.server.url, { key: key.pair });
  assert.equal(c.server?.relay, false);
  await assert.rejects(c.fetch(`${listedBase}/echo`), { code: 'relay_disabled', message: /--relay-allow/ });
  c.close();
});
