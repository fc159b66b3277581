// The frame format: binary-safe, validated, and every malformed input a WshProtocolError with a
// stable code — never another exception, whatever the bytes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WshProtocolError } from '../errors.js';
import {
  FRAME_TYPES,
  MAX_PAYLOAD_BYTES,
  PROTOCOL_VERSION,
  RecordReader,
  decodeFrame,
  encodeFrame,
  errorFromHeader,
  lengthPrefixed,
} from '../protocol.js';

test('a frame round-trips its type, channel, header and every byte value of its payload', () => {
  const payload = new Uint8Array(256 * 4).map((_, i) => i % 256);
  const frame = decodeFrame(encodeFrame('stdout', 7, {}, payload));
  assert.equal(frame.t, 'stdout');
  assert.equal(frame.channel, 7);
  assert.deepEqual([...frame.payload], [...payload]);
  const exec = decodeFrame(encodeFrame('exec', 0xffffffff, { cmd: ['ls', '-l'], cwd: '/tmp', env: { A: 'b' } }));
  assert.deepEqual(exec.header, { cmd: ['ls', '-l'], cwd: '/tmp', env: { A: 'b' } });
  assert.equal(exec.channel, 0xffffffff);
});

/** @param {() => unknown} fn @param {string} code */
function refused(fn, code) {
  assert.throws(fn, (err) => err instanceof WshProtocolError && err.code === code, `expected ${code}`);
}

test('a frame of another protocol version is refused with version_mismatch (control: this version decodes)', () => {
  const bytes = encodeFrame('ping', 0, { id: 1 });
  assert.equal(decodeFrame(bytes).t, 'ping', 'control');
  const other = bytes.slice();
  other[1] = PROTOCOL_VERSION + 1;
  refused(() => decodeFrame(other), 'version_mismatch');
});

test('malformed frames are malformed_frame: bad magic, short, header past the end, not JSON, unknown type, invalid header', () => {
  const good = encodeFrame('exec', 1, { cmd: 'ls' });
  assert.equal(decodeFrame(good).t, 'exec', 'control: the well-formed frame decodes');
  const badMagic = good.slice();
  badMagic[0] = 0;
  refused(() => decodeFrame(badMagic), 'malformed_frame');
  refused(() => decodeFrame(good.slice(0, 5)), 'malformed_frame');
  const longHeader = good.slice();
  new DataView(longHeader.buffer).setUint32(6, 60000);
  refused(() => decodeFrame(longHeader), 'malformed_frame');
  /** @param {string} json */
  const withHeader = (json) => {
    const h = new TextEncoder().encode(json);
    const out = new Uint8Array(10 + h.byteLength);
    out.set([0x57, PROTOCOL_VERSION]);
    new DataView(out.buffer).setUint32(6, h.byteLength);
    out.set(h, 10);
    return out;
  };
  assert.equal(decodeFrame(withHeader('{"t":"exec","cmd":"ls"}')).t, 'exec', 'control: a hand-made frame decodes');
  refused(() => decodeFrame(withHeader('{"t":"exec"')), 'malformed_frame');
  refused(() => decodeFrame(withHeader('[1]')), 'malformed_frame');
  refused(() => decodeFrame(withHeader('{"t":"rm-rf"}')), 'malformed_frame');
  refused(() => decodeFrame(withHeader('{"t":"__proto__"}')), 'malformed_frame');
  refused(() => decodeFrame(withHeader('{"t":"exec","cmd":5}')), 'malformed_frame');
  refused(() => decodeFrame(withHeader('{"t":"signal","signal":"SIGSEGV"}')), 'malformed_frame');
  refused(() => decodeFrame(withHeader('{"t":"resize","cols":0,"rows":10}')), 'malformed_frame');
});

test('random bytes never make decodeFrame throw anything but a WshProtocolError', () => {
  let seed = 42;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed;
  };
  const good = encodeFrame('put', 3, { path: 'a/b', size: 3 }, new Uint8Array([1, 2, 3]));
  for (let i = 0; i < 3000; i++) {
    const bytes = i % 2 ? new Uint8Array(rand() % 64).map(() => rand() % 256) : good.slice();
    if (i % 2 === 0) for (let k = 0; k < 3; k++) bytes[rand() % bytes.length] = rand() % 256;
    try {
      decodeFrame(bytes);
    } catch (err) {
      assert.ok(err instanceof WshProtocolError, `a ${/** @type {Error} */ (err).name} escaped: ${/** @type {Error} */ (err).message}`);
    }
  }
});

test('a payload over the limit is refused on encode (frame_too_large); senders chunk', () => {
  refused(() => encodeFrame('stdout', 1, {}, new Uint8Array(MAX_PAYLOAD_BYTES + 1)), 'frame_too_large');
  assert.equal(decodeFrame(encodeFrame('stdout', 1, {}, new Uint8Array(MAX_PAYLOAD_BYTES))).payload.byteLength, MAX_PAYLOAD_BYTES);
});

test('an invalid header is refused before it reaches the wire', () => {
  refused(() => encodeFrame('exec', 1, /** @type {any} */ ({ cmd: '' })), 'malformed_frame'); // any: a header the types forbid
  assert.ok(FRAME_TYPES.includes('hello') && FRAME_TYPES.includes('fetch'));
});

test('length-prefixed records (WebTransport) reassemble across any split', () => {
  const frames = [
    encodeFrame('ping', 0, { id: 1 }),
    encodeFrame('stdout', 2, {}, new Uint8Array(70000).fill(9)),
    encodeFrame('close', 2, {}),
  ];
  const stream = new Uint8Array(frames.reduce((n, f) => n + f.byteLength + 4, 0));
  let at = 0;
  for (const f of frames) {
    stream.set(lengthPrefixed(f), at);
    at += f.byteLength + 4;
  }
  for (const size of [1, 3, 1000, stream.byteLength]) {
    const reader = new RecordReader();
    /** @type {Uint8Array[]} */
    const out = [];
    for (let i = 0; i < stream.byteLength; i += size) out.push(...reader.push(stream.subarray(i, i + size)));
    assert.deepEqual(
      out.map((r) => decodeFrame(r).t),
      ['ping', 'stdout', 'close'],
      `split every ${size} bytes`,
    );
  }
});

test('an error frame becomes an Error subclass with its code; an unknown code reads as server_error', () => {
  const e = errorFromHeader({ code: 'dir_not_allowed', message: 'no' });
  assert.equal(e.name, 'WshRefusedError');
  assert.equal(e.code, 'dir_not_allowed');
  assert.equal(errorFromHeader({ code: 'something-new', message: 'x' }).code, 'server_error');
});

test('a frame encoded into a buffer the sender gives (a view at an offset of a larger one) decodes the same as a new one', () => {
  const payload = new Uint8Array(70_000).map((_, i) => i % 251);
  const slab = new ArrayBuffer(200_000);
  const made = encodeFrame('stdout', 9, {}, payload, (size) => new Uint8Array(slab, 7, size));
  assert.equal(made.buffer, slab, 'written where the sender said');
  assert.equal(made.byteOffset, 7);
  const plain = encodeFrame('stdout', 9, {}, payload);
  assert.deepEqual([...made], [...plain]);
  const decoded = decodeFrame(made);
  assert.equal(decoded.channel, 9);
  assert.deepEqual(decoded.payload, payload);
  // A header that is not bare goes the same way.
  const exit = decodeFrame(encodeFrame('exit', 3, { code: 0, signal: null }, undefined, (size) => new Uint8Array(slab, 100_001, size)));
  assert.deepEqual(exit.header, { code: 0, signal: null });
});
