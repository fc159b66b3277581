/**
 * Server-Sent Events parser following the WHATWG event-stream rules: chunks may split
 * anywhere (even inside a CRLF or a multi-byte UTF-8 character), lines end in CR, LF or
 * CRLF, `:` lines are comments, the space after `data:` is optional, and several data
 * lines join with "\n". An event left unfinished when the stream ends is discarded, as the
 * spec says; callers detect a dropped connection by the missing end marker of their format.
 * The providers' streams and MCP's Streamable HTTP responses both come through it.
 *
 * With `stray: true`, lines that are no SSE field at all (Gemini appends a pretty-printed JSON
 * error body to a 200 stream, outside any `data:` framing) are gathered and reported as one
 * `{event: 'stray'}` message at the next blank line or at the end of the stream.
 */

/** @typedef {{event: string, data: string, id?: string, retry?: number}} SSEMessage */

export class SSEParser {
  #buffer = '';
  #data = /** @type {string[]} */ ([]);
  #event = '';
  /** @type {string | undefined} */
  #id;
  /** @type {number | undefined} */
  #retry;
  #hasData = false;
  #first = true;
  /** A CR ended the previous chunk: a LF starting the next one belongs to it. */
  #pendingCR = false;
  #keepStray = false;
  /** @type {string[]} */
  #stray = [];

  /** @param {{stray?: boolean}} [options] */
  constructor(options = {}) {
    this.#keepStray = !!options.stray;
  }

  /**
   * Feeds decoded text; returns the events completed by it.
   * @param {string} text
   * @returns {SSEMessage[]}
   */
  push(text) {
    if (this.#first && text.length > 0) {
      this.#first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.#pendingCR && text.startsWith('\n')) text = text.slice(1);
    this.#pendingCR = false;
    this.#buffer += text;
    /** @type {SSEMessage[]} */
    const out = [];
    let start = 0;
    const buf = this.#buffer;
    for (let i = 0; i < buf.length; i++) {
      const c = buf.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      this.#line(buf.slice(start, i), out);
      if (c === 13) {
        if (i + 1 < buf.length) {
          if (buf.charCodeAt(i + 1) === 10) i++;
        } else {
          this.#pendingCR = true;
        }
      }
      start = i + 1;
    }
    this.#buffer = buf.slice(start);
    return out;
  }

  /**
   * Call at end of stream: unfinished events are dropped; gathered stray lines (with `stray`)
   * are returned, the unterminated last line included.
   * @returns {SSEMessage[]}
   */
  end() {
    /** @type {SSEMessage[]} */
    const out = [];
    if (this.#keepStray && this.#buffer.trim() && !/^(?:data|event|id|retry)(?::|$)/.test(this.#buffer)) this.#stray.push(this.#buffer);
    this.#flushStray(out);
    this.#buffer = '';
    this.#data = [];
    this.#hasData = false;
    this.#event = '';
    return out;
  }

  /** @param {SSEMessage[]} out */
  #flushStray(out) {
    if (this.#stray.length) out.push({ event: 'stray', data: this.#stray.join('\n') });
    this.#stray = [];
  }

  /** @param {string} line @param {SSEMessage[]} out */
  #line(line, out) {
    if (line === '') {
      this.#flushStray(out);
      if (this.#hasData) {
        /** @type {SSEMessage} */
        const msg = { event: this.#event || 'message', data: this.#data.join('\n') };
        if (this.#id !== undefined) msg.id = this.#id;
        if (this.#retry !== undefined) msg.retry = this.#retry;
        out.push(msg);
      }
      this.#data = [];
      this.#hasData = false;
      this.#event = '';
      return;
    }
    if (line.charCodeAt(0) === 58) return; // ':' comment / keep-alive
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    switch (field) {
      case 'data':
        this.#data.push(value);
        this.#hasData = true;
        break;
      case 'event':
        this.#event = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.#id = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.#retry = Number(value);
        break;
      default:
        if (this.#keepStray) this.#stray.push(line);
        break; // unknown fields are ignored
    }
  }
}

/**
 * Parses a byte stream of SSE into messages.
 * @param {ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>} source
 * @param {{signal?: AbortSignal, stray?: boolean}} [options]
 * @returns {AsyncGenerator<SSEMessage>}
 */
export async function* parseSSE(source, options = {}) {
  const decoder = new TextDecoder('utf-8');
  const parser = new SSEParser({ stray: options.stray });
  const iterable = /** @type {AsyncIterable<Uint8Array>} */ (
    Symbol.asyncIterator in source ? source : readableToIterable(/** @type {ReadableStream<Uint8Array>} */ (source))
  );
  for await (const chunk of iterable) {
    if (options.signal?.aborted) return;
    yield* parser.push(decoder.decode(chunk, { stream: true }));
  }
  yield* parser.push(decoder.decode());
  yield* parser.end();
}

/**
 * @param {ReadableStream<Uint8Array>} stream
 * @returns {AsyncGenerator<Uint8Array>}
 */
export async function* readableToIterable(stream) {
  const reader = stream.getReader();
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
