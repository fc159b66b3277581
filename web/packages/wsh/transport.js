// The two ways a client reaches the server, behind one small interface: a WebSocket (one frame
// per binary message), or a WebTransport session when the server offers one (one
// bidirectional stream carrying length-prefixed frames). Which one is used is decided by
// `chooseTransport`, from what the server's hello advertised and what this runtime has.
import { WshError } from './errors.js';
import { RecordReader, lengthPrefixed } from './protocol.js';

/**
 * @typedef {object} Transport
 * @property {'websocket' | 'webtransport'} kind
 * @property {(frame: Uint8Array) => void} send
 * @property {() => number} buffered bytes queued and not yet sent
 * @property {(code?: number, reason?: string) => void} close
 * @property {(onframe: (frame: Uint8Array) => void, onclose: (info: {code: number, reason: string}) => void) => void} listen
 *   sets who gets the frames (those that came before are handed over first) and the close (once)
 */

/** The receiving half every transport shares: frames wait in a queue until someone listens. */
function receiver() {
  /** @type {Uint8Array[]} */
  const queue = [];
  /** @type {((frame: Uint8Array) => void) | null} */
  let onframe = null;
  /** @type {((info: {code: number, reason: string}) => void) | null} */
  let onclose = null;
  /** @type {{code: number, reason: string} | null} */
  let closedWith = null;
  return {
    /** @param {Uint8Array} frame */
    frame(frame) {
      if (onframe) onframe(frame);
      else queue.push(frame);
    },
    /** @param {{code: number, reason: string}} info */
    closed(info) {
      if (closedWith) return;
      closedWith = info;
      if (onframe) onclose?.(info);
    },
    /** @type {Transport['listen']} */
    listen(frameHandler, closeHandler) {
      onframe = frameHandler;
      onclose = closeHandler;
      while (queue.length && onframe === frameHandler) frameHandler(/** @type {Uint8Array} */ (queue.shift()));
      if (closedWith && onframe === frameHandler) closeHandler(closedWith);
    },
  };
}

/**
 * The WebSocket constructor shape (the browser's, or the `ws` package's in Node).
 * @typedef {new (url: string) => WebSocket} WebSocketConstructor
 */

/**
 * Opens a WebSocket; resolves once it is open.
 * @param {string} url
 * @param {WebSocketConstructor} WebSocketImpl
 * @param {AbortSignal} [signal]
 * @returns {Promise<Transport>}
 */
export function openWebSocket(url, WebSocketImpl, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new WshError('aborted', 'Connecting was cancelled.'));
      return;
    }
    let socket;
    try {
      socket = new WebSocketImpl(url);
    } catch (err) {
      reject(new WshError('connect_failed', `Cannot connect to ${url}: ${/** @type {Error} */ (err).message}`));
      return;
    }
    // Node's `ws` hands a message over as a Buffer without copying it ('nodebuffer'); a browser ignores that value
    // (not one of its own) and takes 'arraybuffer'.
    try {
      /** @type {{binaryType: string}} */ (socket).binaryType = 'nodebuffer';
    } catch {
      // a WebSocket that throws on an unknown value
    }
    if (socket.binaryType !== /** @type {string} */ ('nodebuffer')) socket.binaryType = 'arraybuffer';
    let opened = false;
    let closed = false;
    const incoming = receiver();
    /** @type {Transport} */
    const transport = {
      kind: 'websocket',
      send: (frame) => socket.send(/** @type {Uint8Array<ArrayBuffer>} */ (frame)),
      buffered: () => socket.bufferedAmount,
      close: (code = 1000, reason = '') => socket.close(code, reason),
      listen: incoming.listen,
    };
    const onAbort = () => {
      socket.close();
      reject(new WshError('aborted', 'Connecting was cancelled.'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.onopen = () => {
      opened = true;
      signal?.removeEventListener('abort', onAbort);
      resolve(transport);
    };
    socket.onmessage = (event) => {
      const data = event.data;
      incoming.frame(
        data instanceof ArrayBuffer
          ? new Uint8Array(data)
          : ArrayBuffer.isView(data)
            ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
            : new TextEncoder().encode(String(data)),
      );
    };
    socket.onerror = () => {
      if (!opened) {
        signal?.removeEventListener('abort', onAbort);
        reject(
          new WshError('connect_failed', `Cannot connect to ${url}: is wsh-server running there, and does it allow this page's origin?`),
        );
      }
    };
    socket.onclose = (event) => {
      if (closed) return;
      closed = true;
      if (!opened) {
        signal?.removeEventListener('abort', onAbort);
        reject(new WshError('connect_failed', `Cannot connect to ${url} (closed, code ${event.code}).`));
      } else incoming.closed({ code: event.code, reason: event.reason });
    };
  });
}

/**
 * The WebTransport constructor shape (Chromium has one; Node does not).
 * @typedef {new (url: string) => {ready: Promise<unknown>, closed: Promise<unknown>,
 *   close(info?: {closeCode?: number, reason?: string}): void,
 *   createBidirectionalStream(): Promise<{readable: ReadableStream<Uint8Array>, writable: WritableStream<Uint8Array>}>}}
 *   WebTransportConstructor
 */

/**
 * Opens a WebTransport session and one bidirectional stream for the frames.
 * @param {string} url
 * @param {WebTransportConstructor} WebTransportImpl
 * @param {AbortSignal} [signal] cancels opening (the session is closed): rejects with `aborted`
 * @returns {Promise<Transport>}
 */
export async function openWebTransport(url, WebTransportImpl, signal) {
  if (signal?.aborted) throw new WshError('aborted', 'Connecting was cancelled.');
  /** @type {InstanceType<WebTransportConstructor>} */
  let session;
  try {
    session = new WebTransportImpl(url);
  } catch (err) {
    throw new WshError('connect_failed', `Cannot open WebTransport to ${url}: ${/** @type {Error} */ (err).message}`);
  }
  /** @type {() => void} */
  let onAbort = () => {};
  const aborted = new Promise((_, reject) => {
    onAbort = () => {
      session.close({ closeCode: 0, reason: 'connecting cancelled' });
      reject(new WshError('aborted', 'Connecting was cancelled.'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => {});
  /** @type {Awaited<ReturnType<InstanceType<WebTransportConstructor>['createBidirectionalStream']>>} */
  let stream;
  try {
    await Promise.race([
      session.ready.catch((err) => {
        throw new WshError('connect_failed', `Cannot open WebTransport to ${url}: ${/** @type {Error} */ (err).message}`);
      }),
      aborted,
    ]);
    stream = await Promise.race([session.createBidirectionalStream(), aborted]);
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  const writer = stream.writable.getWriter();
  let queued = 0;
  let closed = false;
  const incoming = receiver();
  /** @type {Transport} */
  const transport = {
    kind: 'webtransport',
    send: (frame) => {
      const record = lengthPrefixed(frame);
      queued += record.byteLength;
      writer.write(record).then(
        () => {
          queued -= record.byteLength;
        },
        () => {},
      );
    },
    buffered: () => queued,
    close: (code = 0, reason = '') => {
      if (closed) return;
      session.close({ closeCode: code, reason });
    },
    listen: incoming.listen,
  };
  const finish = (/** @type {string} */ reason) => {
    if (closed) return;
    closed = true;
    incoming.closed({ code: 1006, reason });
  };
  (async () => {
    const records = new RecordReader();
    const reader = stream.readable.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        for (const record of records.push(value)) incoming.frame(record);
      }
      finish('stream ended');
    } catch (err) {
      finish(/** @type {Error} */ (err).message ?? 'stream failed');
    }
  })();
  session.closed.then(
    () => finish('session closed'),
    () => finish('session failed'),
  );
  return transport;
}

/**
 * Which transport to use after the server's hello: WebTransport when the server advertises an
 * endpoint, this runtime has WebTransport and the caller did not ask for WebSocket.
 * @param {{transports: string[], webtransport?: string}} hello
 * @param {{preference: 'auto' | 'websocket' | 'webtransport', hasWebTransport: boolean}} here
 * @returns {'websocket' | 'webtransport'}
 */
export function chooseTransport(hello, here) {
  if (here.preference === 'websocket' || !here.hasWebTransport) return 'websocket';
  return hello.transports.includes('webtransport') && hello.webtransport ? 'webtransport' : 'websocket';
}
