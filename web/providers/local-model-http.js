// What a model's server says, for the downloads of local-model-download.js: the addresses of a
// model (a Hugging Face page turned into its file, a split model's parts), the headers a resumed
// download reads (Content-Length, Content-Range, ETag, Last-Modified), the first bytes of a GGUF
// file, and the server's failures in words a user can act on. Pure apart from Response.
import { LocalModelError } from './local-models.js';

/** A split model's part in its address: `…-00001-of-00003.gguf`. */
const SPLIT = /-(\d{5})-of-(\d{5})\.gguf$/i;

/** @param {string} url */
export const hostOf = (url) => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

/** What a stopped download keeps, said once. */
export const KEPT = 'What was downloaded is kept: choose Resume to go on from there, or Discard.';

/**
 * The addresses of a model to download: the one pasted (a Hugging Face file page, `…/blob/…`, is
 * turned into its file, `…/resolve/…`), and for a split model (`…-00002-of-00003.gguf`) every part
 * from the first.
 * @param {string} input
 * @param {string} [pageProtocol] the page's protocol: an https page cannot fetch plain http
 * @returns {{url: string, parts: string[]}}
 */
export function modelUrls(input, pageProtocol) {
  const text = input.trim();
  /** @type {URL} */
  let url;
  try {
    url = new URL(text);
  } catch {
    throw new LocalModelError('invalid', 'Paste the whole address of a .gguf file, starting with https://.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new LocalModelError('invalid', `Clawser downloads models over https, not ${url.protocol.replace(':', '')}.`);
  }
  const local = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (pageProtocol === 'https:' && url.protocol === 'http:' && !local) {
    throw new LocalModelError(
      'invalid',
      'This page is served over https, so the browser refuses downloads over plain http: use the https:// address of the file.',
    );
  }
  if (/^(www\.)?(huggingface\.co|hf\.co)$/.test(url.hostname)) {
    // A file's page (…/blob/main/x.gguf) is HTML; its file is at …/resolve/main/x.gguf.
    url.pathname = url.pathname.replace(/^(\/[^/]+\/[^/]+)\/blob\//, '$1/resolve/');
  }
  url.hash = '';
  const split = SPLIT.exec(url.pathname);
  if (!split) return { url: url.href, parts: [url.href] };
  const count = Number(split[2]);
  if (count < 1 || count > 512) throw new LocalModelError('invalid', `A model split into ${count} files is not one Clawser can download.`);
  const parts = Array.from({ length: count }, (_, i) => {
    const u = new URL(url.href);
    u.pathname = url.pathname.replace(SPLIT, `-${String(i + 1).padStart(5, '0')}-of-${split[2]}.gguf`);
    return u.href;
  });
  return { url: parts[0], parts };
}

/** The file's name in an address, without `.gguf` and a split suffix: a name for a model whose header has none. @param {string} url */
export function stemOf(url) {
  const last = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
  return last.replace(SPLIT, '').replace(/\.gguf$/i, '') || null;
}

/** @param {Response} res @param {string} name */
export const header = (res, name) => res.headers.get(name);

/** @param {Response} res @returns {number | null} */
export function contentLength(res) {
  const n = Number(header(res, 'content-length'));
  return header(res, 'content-length') !== null && Number.isSafeInteger(n) && n >= 0 ? n : null;
}

/**
 * `bytes 100-199/1000` → {start, total}; null when absent (a cross-origin server that does not
 * expose it) or malformed. A total of `*` is null.
 * @param {Response} res
 */
export function contentRange(res) {
  const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(header(res, 'content-range')?.trim() ?? '');
  if (!m) return null;
  return { start: Number(m[1]), total: m[3] === '*' ? null : Number(m[3]) };
}

/** @param {Response} res */
export const validatorsOf = (res) => ({
  etag: header(res, 'etag')?.slice(0, 512) ?? null,
  lastModified: header(res, 'last-modified')?.slice(0, 128) ?? null,
});

/** Two validators that are both known and differ. @param {string | null} a @param {string | null} b */
export const differs = (a, b) => !!a && !!b && a !== b;

/**
 * The start of a GGUF file ("GGUF", version 2 or 3), or a clear refusal: a web page (the address
 * of a model's page, not its file) is named as such.
 * @param {Uint8Array} bytes the first bytes (at least 8, or the whole file)
 * @param {string} url
 * @param {string | null} contentType
 */
export function checkStart(bytes, url, contentType) {
  const magic = new TextDecoder().decode(bytes.subarray(0, 4));
  const version = bytes.length >= 8 ? new DataView(bytes.buffer, bytes.byteOffset, 8).getUint32(4, true) : 0;
  if (magic === 'GGUF' && (version === 2 || version === 3)) return;
  const text = new TextDecoder().decode(bytes.subarray(0, 64)).trimStart().toLowerCase();
  const page = /html/.test(contentType ?? '') || text.startsWith('<');
  throw new LocalModelError(
    'not_gguf',
    page
      ? `${hostOf(url)} sent a web page, not a model file. Use the address of the .gguf file itself: on Hugging Face, the ` +
          'file’s download link (…/resolve/main/….gguf).'
      : magic === 'GGUF'
        ? `The file at ${hostOf(url)} is a GGUF version ${version}; Clawser reads versions 2 and 3.`
        : `The file at ${hostOf(url)} is not a GGUF model (it does not start like one). Check that the address ends in .gguf.`,
  );
}

/** @param {Uint8Array[]} chunks @param {number} length */
export function concat(chunks, length) {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(length);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** Reads up to `n` bytes of a response, then lets the rest go. @param {Response} res @param {number} n */
export async function firstBytes(res, n) {
  if (!res.body) return new Uint8Array(0);
  const reader = res.body.getReader();
  /** @type {Uint8Array[]} */
  const chunks = [];
  let length = 0;
  try {
    while (length < n) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      length += value.length;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  return concat(chunks, length).subarray(0, n);
}

export const aborted = () => new LocalModelError('aborted', `The download was stopped. ${KEPT}`);

/** An error answer from the server, in words. @param {Response} res @param {string} url */
export function httpError(res, url) {
  const host = hostOf(url);
  const status = `${res.status}${res.statusText ? ` ${res.statusText}` : ''}`;
  if (res.status === 404 || res.status === 410) {
    return new LocalModelError(
      'http',
      `${host} has no file at this address (${status}). Check the link: on Hugging Face, copy the file’s download link ` +
        '(…/resolve/main/….gguf) from the model’s “Files” tab.',
    );
  }
  if (res.status === 401 || res.status === 403) {
    return new LocalModelError(
      'http',
      `${host} refused the download (${status}): the model may ask you to sign in or accept its licence on its page. Download ` +
        'the file there with your browser, then import it here.',
    );
  }
  return new LocalModelError('http', `${host} answered ${status} instead of the file. Try again later, or download it with your browser.`);
}
