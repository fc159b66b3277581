import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SSEParser, parseSSE } from '../../web/net/sse.js';

/** @param {Uint8Array[]} chunks */
async function* iter(chunks) {
  for (const c of chunks) yield c;
}
/** @param {AsyncIterable<any>} it */
async function all(it) {
  const out = [];
  for await (const x of it) out.push(x);
  return out;
}
const enc = new TextEncoder();

test('parses events with LF, CRLF and CR line endings alike', () => {
  for (const nl of ['\n', '\r\n', '\r']) {
    const p = new SSEParser();
    const evs = p.push(`event: a${nl}data: one${nl}${nl}data: two${nl}data: three${nl}${nl}`);
    assert.deepEqual(evs, [
      { event: 'a', data: 'one' },
      { event: 'message', data: 'two\nthree' },
    ]);
  }
});

test('a CRLF split across chunks is one line break, not two', () => {
  const p = new SSEParser();
  const a = p.push('data: x\r');
  const b = p.push('\n\r\n');
  assert.deepEqual([...a, ...b], [{ event: 'message', data: 'x' }]);
});

test('comments, data without space, unknown fields, id and retry', () => {
  const p = new SSEParser();
  const evs = p.push(': keep-alive\ndata:nospace\nfoo: bar\nid: 7\nretry: 3000\n\n');
  assert.deepEqual(evs, [{ event: 'message', data: 'nospace', id: '7', retry: 3000 }]);
});

test('field without colon and leading BOM', () => {
  const p = new SSEParser();
  const evs = p.push('\uFEFFdata\n\n');
  assert.deepEqual(evs, [{ event: 'message', data: '' }]);
});

test('every possible split of a stream, including inside multi-byte UTF-8, gives the same events', async () => {
  const text = 'data: {"t":"héllo 🌍 wörld"}\r\n\r\nevent: x\ndata: ünï\n\n: c\ndata: [DONE]\n\n';
  const bytes = enc.encode(text);
  const expected = await all(parseSSE(iter([bytes])));
  assert.equal(expected.length, 3);
  assert.equal(JSON.parse(expected[0].data).t, 'héllo 🌍 wörld');
  for (let i = 1; i < bytes.length; i++) {
    for (const j of [i + 1, i + 3, bytes.length]) {
      if (j > bytes.length) continue;
      const got = await all(parseSSE(iter([bytes.subarray(0, i), bytes.subarray(i, j), bytes.subarray(j)])));
      assert.deepEqual(got, expected, `split at ${i}/${j}`);
    }
  }
  const byteByByte = await all(parseSSE(iter([...bytes].map((b) => Uint8Array.of(b)))));
  assert.deepEqual(byteByByte, expected);
});

test('an event cut off by a dropped connection is not dispatched', async () => {
  const got = await all(parseSSE(iter([enc.encode('data: complete\n\ndata: {"partial": tr')])));
  assert.deepEqual(got, [{ event: 'message', data: 'complete' }]);
});

test('reads a web ReadableStream too', async () => {
  const stream = new ReadableStream({
    start(c) {
      c.enqueue(enc.encode('data: a\n'));
      c.enqueue(enc.encode('\n'));
      c.close();
    },
  });
  assert.deepEqual(await all(parseSSE(stream)), [{ event: 'message', data: 'a' }]);
});
