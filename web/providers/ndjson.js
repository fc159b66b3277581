/** @import { SSEMessage } from '../net/sse.js' */
import { readableToIterable } from '../net/sse.js';

/**
 * Newline-delimited JSON (Ollama's native stream): one JSON document per line, lines ending
 * in LF or CRLF, chunks split anywhere (a multi-byte character included). Each non-empty line
 * is reported in the SSE message shape (`{event: 'message', data}`) so the same assemblers'
 * plumbing serves both framings. An unterminated last line is reported as `{event: 'partial'}`:
 * the connection dropped mid-line unless the format's end marker came before.
 * @param {ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>} source
 * @param {{signal?: AbortSignal}} [options]
 * @returns {AsyncGenerator<SSEMessage>}
 */
export async function* parseNDJSON(source, options = {}) {
  const decoder = new TextDecoder('utf-8');
  const iterable = /** @type {AsyncIterable<Uint8Array>} */ (
    Symbol.asyncIterator in source ? source : readableToIterable(/** @type {ReadableStream<Uint8Array>} */ (source))
  );
  let buffer = '';
  for await (const chunk of iterable) {
    if (options.signal?.aborted) return;
    buffer += decoder.decode(chunk, { stream: true });
    let start = 0;
    let nl;
    while ((nl = buffer.indexOf('\n', start)) !== -1) {
      const line = buffer.slice(start, buffer.charCodeAt(nl - 1) === 13 ? nl - 1 : nl);
      start = nl + 1;
      if (line.trim()) yield { event: 'message', data: line };
    }
    buffer = buffer.slice(start);
  }
  buffer += decoder.decode();
  if (buffer.trim()) yield { event: 'partial', data: buffer };
}
