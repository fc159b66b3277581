/**
 * A clone or a pull expands an archive too: the pack the server sends is a compressed archive
 * of the repository's objects, and 40 MB of zeros arrive as ~40 KB, as in a ZIP. So the pack of
 * every fetch is read as it arrives and counted into the shared ExpansionBudget of
 * files/archive-limits.js — the same ratio, the same size for one object as for one file, the
 * same messages — and refused before isomorphic-git sees any of it: git writes no ref, no pack
 * and no file of a refused fetch.
 *
 * Each object counts at what it becomes: a whole object at its size; a delta (a change to another
 * object) at its instructions and at the size of its result, read from the delta's first bytes,
 * since a ~1 KB delta can ask for 40 MB (a 64 KB base copied 640 times). Each object's data is
 * walked, not inflated (deflate-scan.js: the pack gives no lengths, an object ends where its zlib
 * data does), and counted as it arrives, so a limit stops the download early.
 */
/** @import { ArchiveLimits } from '../files/archive-limits.js' */
/** @import { GitHttpRequest, GitHttpResponse, HttpClient } from 'isomorphic-git' */
import { ExpansionBudget } from '../files/archive-limits.js';
import { DeflateScanner } from './deflate-scan.js';
import { GitError } from './errors.js';

const MB = 1024 * 1024;

/**
 * Git's limits: the shared ones, but for two. A repository's history holds every version of
 * every file, so the total a pack may expand to is larger than one archive's (Express's whole
 * history, 53,000 objects, expands to 220 MB from a 17.5 MB pack); what the ratio allows, and one
 * object, stay the same. Objects are not files: a pack may hold up to a million of them.
 */
export const PACK_LIMITS = /** @type {Readonly<Partial<ArchiveLimits>>} */ (
  Object.freeze({ maxEntries: 1_000_000, maxTotalBytes: 1024 * MB })
);

/** @type {Record<number, string>} */
const TYPE_NAMES = { 1: 'a commit', 2: 'a tree', 3: 'a blob', 4: 'a tag', 6: 'a delta', 7: 'a delta' };

/** @param {string} detail */
const unreadable = (detail) =>
  new GitError('git', `The git server's answer is not a pack Clawser can read (${detail}); nothing was written.`);
const cutShort = () =>
  new GitError('network', 'The connection to the git server ended before the whole repository arrived; nothing was written. Try again.');

/** @param {Uint8Array} bytes */
const ascii = (bytes) => String.fromCharCode(...bytes);

/** Bytes that arrive in pieces and are read from the front. */
class Bytes {
  /** @type {Uint8Array} */
  buf = new Uint8Array(0);
  pos = 0;

  get available() {
    return this.buf.length - this.pos;
  }

  /** @param {Uint8Array} chunk */
  append(chunk) {
    if (!this.available) {
      this.buf = chunk;
      this.pos = 0;
      return;
    }
    const next = new Uint8Array(this.available + chunk.length);
    next.set(this.buf.subarray(this.pos));
    next.set(chunk, this.available);
    this.buf = next;
    this.pos = 0;
  }

  /** The next `n` bytes, left in place; null until they have arrived. @param {number} n */
  peek(n) {
    return this.available >= n ? this.buf.subarray(this.pos, this.pos + n) : null;
  }

  /** @param {number} n */
  take(n) {
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** Gives back the last `n` bytes taken (the data after an object's end). @param {number} n */
  untake(n) {
    this.pos -= n;
  }
}

/**
 * An object's header: type and size (a varint), then an ofs-delta's base offset or a ref-delta's
 * base id. Consumed only when it has arrived whole; null until then.
 * @param {Bytes} b @returns {{type: number, size: number} | null}
 */
function objectHeader(b) {
  const at = (/** @type {number} */ i) => b.buf[b.pos + i];
  if (!b.available) return null;
  let c = at(0);
  const type = (c >> 4) & 7;
  let size = c & 15;
  let scale = 16;
  let i = 1;
  while (c & 128) {
    if (i >= b.available) return null;
    if (i > 9) throw unreadable('an object header without an end');
    c = at(i++);
    size += (c & 127) * scale; // multiplication, not shifts: a header may claim gigabytes
    scale *= 128;
  }
  if (type === 6) {
    const start = i;
    do {
      if (i >= b.available) return null;
      if (i - start > 9) throw unreadable("an object's base offset without an end");
      c = at(i++);
    } while (c & 128);
  } else if (type === 7) {
    if (b.available < i + 20) return null;
    i += 20;
  } else if (!TYPE_NAMES[type]) {
    throw unreadable(`an object of unknown type ${type}`);
  }
  b.take(i);
  return { type, size };
}

/** A delta's first two varints (its base's size and its result's); null until both have arrived. @param {number[]} bytes */
function deltaSizes(bytes) {
  /** @type {number[]} */
  const sizes = [];
  let value = 0;
  let scale = 1;
  for (const c of bytes) {
    value += (c & 127) * scale;
    scale *= 128;
    if (c & 128) continue;
    sizes.push(value);
    if (sizes.length === 2) return { base: sizes[0], result: sizes[1] };
    value = 0;
    scale = 1;
  }
  return null;
}

/**
 * Reads an upload-pack answer (pkt-lines; the pack on side-band channel 1) as it arrives and
 * counts what its pack expands to; `push` throws ArchiveLimitError the moment a limit is passed,
 * or a GitError when the answer is not a readable pack. `end` throws when it was cut short.
 */
export class PackResponseInspector {
  /** The budget counted into (objects at what they become). */
  budget;
  /** Objects read whole. */
  objects = 0;
  /** Objects the pack says it holds (null before its header). @type {number | null} */
  count = null;

  #lines = new Bytes();
  #pack = new Bytes();
  /** @type {'header' | 'object' | 'zlib' | 'data' | 'adler' | 'trailer' | 'done'} */
  #state = 'header';
  /** @type {((p: {phase: string, loaded: number, total: number}) => void) | undefined} */
  #onProgress;
  #percent = -1;

  // The object being read.
  #declared = 0;
  /** @type {{add: (bytes: number) => void, size: () => number} | null} */
  #counter = null;
  /** @type {DeflateScanner | null} */
  #scanner = null;
  /** Whether the object is a delta whose sizes have not been read yet. */
  #deltaPending = false;

  /** @param {{limits?: Partial<ArchiveLimits>, onProgress?: (p: {phase: string, loaded: number, total: number}) => void}} [options] */
  constructor({ limits, onProgress } = {}) {
    this.budget = new ExpansionBudget(0, { ...PACK_LIMITS, ...limits });
    this.#onProgress = onProgress;
  }

  /** @param {Uint8Array} chunk */
  push(chunk) {
    const lines = this.#lines;
    lines.append(chunk);
    for (;;) {
      const head = lines.peek(4);
      if (!head) return;
      const hex = ascii(head);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw unreadable(`a line starts with ${JSON.stringify(hex)}`);
      const length = parseInt(hex, 16);
      if (length < 4) {
        // 0000 ends a section, 0001 separates two: no data.
        if (length > 1) throw unreadable(`a line of length ${length}`);
        lines.take(4);
        continue;
      }
      if (lines.available < length) return;
      lines.take(4);
      this.#line(lines.take(length - 4));
    }
  }

  /** The answer has ended. */
  end() {
    if (this.#lines.available) throw cutShort();
    // No pack at all is git's to judge (an answer with nothing to send); half a pack is not.
    if (this.#state === 'header' && !this.#pack.available) return;
    if (this.#state !== 'done') throw cutShort();
  }

  /** @param {Uint8Array} line */
  #line(line) {
    switch (line[0]) {
      case 1:
        this.budget.received(line.length - 1);
        this.#pack.append(line.subarray(1));
        this.#read();
        return;
      case 2: // the server's progress messages
        return;
      case 3:
        throw new GitError('network', `The git server stopped with an error: ${new TextDecoder().decode(line.subarray(1)).trim()}`);
      default: // NAK, ACK and shallow lines: git's to read
    }
  }

  #read() {
    const b = this.#pack;
    for (;;) {
      switch (this.#state) {
        case 'header': {
          const h = b.peek(12);
          if (!h) return;
          if (ascii(h.subarray(0, 4)) !== 'PACK') throw unreadable('it does not start with "PACK"');
          const view = new DataView(h.buffer, h.byteOffset, 12);
          const version = view.getUint32(4);
          if (version !== 2 && version !== 3) throw unreadable(`pack version ${version}`);
          this.count = view.getUint32(8);
          b.take(12);
          this.#state = this.count ? 'object' : 'trailer';
          break;
        }
        case 'object': {
          const header = objectHeader(b);
          if (!header) return;
          this.#begin(header.type, header.size);
          this.#state = 'zlib';
          break;
        }
        case 'zlib': {
          const z = b.peek(2);
          if (!z) return;
          if ((z[0] & 15) !== 8 || z[0] >> 4 > 7 || ((z[0] << 8) | z[1]) % 31 || z[1] & 32)
            throw unreadable(`object ${this.objects + 1} is not zlib data`);
          b.take(2);
          this.#state = 'data';
          break;
        }
        case 'data': {
          if (!b.available) return;
          const left = this.#scan(b.take(b.available));
          if (left < 0) return;
          b.untake(left);
          this.#finish();
          this.#state = 'adler';
          break;
        }
        case 'adler': {
          if (b.available < 4) return;
          b.take(4);
          this.objects++;
          this.#progress();
          this.#state = this.objects === this.count ? 'trailer' : 'object';
          break;
        }
        case 'trailer': {
          if (b.available < 20) return;
          b.take(20);
          this.#state = 'done';
          break;
        }
        case 'done':
          b.take(b.available);
          return;
      }
    }
  }

  /** An object's header has been read: its size is checked before any of its data arrives. @param {number} type @param {number} size */
  #begin(type, size) {
    this.#declared = size;
    this.#counter = this.budget.entry(`object ${this.objects + 1} of ${this.count} (${TYPE_NAMES[type]})`);
    const { maxEntryBytes, maxTotalBytes } = this.budget.limits;
    // Sizes only: the ratio is judged as the data arrives (a large object is not a bomb because its header came first).
    if (size > maxEntryBytes) this.#counter.add(size);
    if (this.budget.total + size > maxTotalBytes) this.budget.add(size);
    this.#deltaPending = type === 6 || type === 7;
    this.#scanner = new DeflateScanner();
  }

  /**
   * Reads more of the object's data and counts it. Returns how many of `bytes` come after the
   * object's data (its zlib data has ended), or -1 while it goes on.
   * @param {Uint8Array} bytes
   */
  #scan(bytes) {
    const scanner = /** @type {DeflateScanner} */ (this.#scanner);
    const counter = /** @type {{add: (bytes: number) => void}} */ (this.#counter);
    const before = scanner.produced;
    let left;
    try {
      left = scanner.push(bytes);
    } catch (err) {
      throw unreadable(`object ${this.objects + 1}: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (scanner.produced > this.#declared) throw unreadable(`object ${this.objects + 1} is larger than its header says`);
    counter.add(scanner.produced - before);
    if (this.#deltaPending) {
      const sizes = deltaSizes(scanner.head);
      if (sizes) {
        this.#deltaPending = false;
        // What the delta becomes, counted once, when its first bytes say.
        counter.add(sizes.result);
      }
    }
    return left;
  }

  /** An object's data has ended: it must be the size its header said. */
  #finish() {
    const produced = /** @type {DeflateScanner} */ (this.#scanner).produced;
    if (produced !== this.#declared) throw unreadable(`object ${this.objects + 1} is ${produced} bytes, its header says ${this.#declared}`);
    if (this.#deltaPending) throw unreadable(`object ${this.objects + 1} is a delta without its sizes`);
    this.#scanner = null;
    this.#counter = null;
  }

  #progress() {
    if (!this.#onProgress || !this.count) return;
    const percent = Math.floor((this.objects * 100) / this.count);
    if (percent === this.#percent) return;
    this.#percent = percent;
    this.#onProgress({ phase: 'Receiving objects', loaded: this.objects, total: this.count });
  }
}

/** Whether a request asks for a pack (a fetch: clone, pull), not refs or a push. @param {GitHttpRequest} request */
const asksForPack = (request) => (request.method ?? 'GET').toUpperCase() === 'POST' && /\/git-upload-pack(\?|$)/.test(request.url);

/**
 * @param {AsyncIterableIterator<Uint8Array> | Iterable<Uint8Array>} body
 * @returns {{next: () => Promise<IteratorResult<Uint8Array>> | IteratorResult<Uint8Array>, return?: () => unknown}}
 */
function iteratorOf(body) {
  if (Symbol.asyncIterator in body) return body[Symbol.asyncIterator]();
  if (Symbol.iterator in body) return body[Symbol.iterator]();
  return body;
}

/**
 * The chunks again, for git; each is let go once git has it.
 * @param {(Uint8Array | undefined)[]} chunks
 * @returns {AsyncIterableIterator<Uint8Array>}
 */
function replay(chunks) {
  let i = 0;
  /** @type {AsyncIterableIterator<Uint8Array>} */
  const it = {
    async next() {
      if (i >= chunks.length) return { done: true, value: undefined };
      const value = /** @type {Uint8Array} */ (chunks[i]);
      chunks[i++] = undefined;
      return { done: false, value };
    },
    async return() {
      chunks.length = 0;
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return it;
    },
  };
  return it;
}

/**
 * isomorphic-git's HTTP client with the pack of every fetch read whole and counted before git
 * gets it (a refused pack is dropped and the download stopped). Other requests (refs, pushes)
 * pass as they are. The pack is held once more while git reads it, one chunk let go at a time.
 * @param {HttpClient} client
 * @param {{limits?: Partial<ArchiveLimits>, onProgress?: (p: {phase: string, loaded: number, total: number}) => void}} [options]
 * @returns {HttpClient}
 */
export function guardedHttp(client, options = {}) {
  return {
    async request(request) {
      if (!asksForPack(request)) return client.request(request);
      const abort = new AbortController();
      /** @type {GitHttpResponse} */
      const response = await client.request({ ...request, signal: request.signal ?? abort.signal });
      if (response.statusCode !== 200 || !response.body) return response;
      const inspector = new PackResponseInspector(options);
      /** @type {Uint8Array[]} */
      const chunks = [];
      const body = iteratorOf(response.body);
      try {
        for (;;) {
          const { value, done } = await body.next();
          if (value?.length) {
            chunks.push(value);
            inspector.push(value);
          }
          if (done) break;
        }
        inspector.end();
      } catch (err) {
        abort.abort();
        try {
          await body.return?.();
        } catch {
          // The download is being dropped: its own error does not matter.
        }
        throw err;
      }
      return { ...response, body: replay(chunks) };
    },
  };
}
