// The worker that reads a document attached to a message (web/files/documents.js starts it): a
// PDF with pdf.js, a DOCX with mammoth, an XLSX with read-excel-file, a CSV with papaparse, and
// Markdown, code and plain text as UTF-8. The page never parses the file itself; the libraries
// load on first use of their kind, from web/vendor/ (an import map does not reach a worker).
// A message: {id, kind, bytes}; the answer {id, ok: true, text, pages?, sheets?, rows?} or
// {id, ok: false, code, message} (code: 'encrypted' | 'unreadable' | 'empty').

/** @typedef {{ok: true, text: string, pages?: number, sheets?: number, rows?: number}} Read */

/**
 * A bundle of web/vendor/, by URL (the type checker does not read the minified bundles).
 * @param {string} file @returns {Promise<any>} any: the vendored bundles carry no types
 */
const vendor = (file) => import(new URL(`../vendor/${file}`, import.meta.url).href);

/** A file that cannot be read, with the code the page shows a message for. */
class ReadError extends Error {
  /** @param {'encrypted' | 'unreadable' | 'empty'} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.name = 'ReadError';
    this.code = code;
  }
}

/** @param {Uint8Array} bytes @returns {string} */
function utf8(bytes) {
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    if (text.includes('\u0000')) throw new Error('binary');
    return text.replace(/^\uFEFF/, '');
  } catch {
    throw new ReadError('unreadable', 'it is not text (not valid UTF-8)');
  }
}

/** @param {Uint8Array} bytes @returns {Promise<Read>} */
async function readPdf(bytes) {
  // pdf.js's own worker code, run in this worker (it registers itself as globalThis.pdfjsWorker).
  await vendor('pdf.worker.js');
  const { getDocument } = await vendor('pdfjs.js');
  // No font is fetched or drawn: only the text is wanted.
  const task = getDocument({
    data: bytes,
    verbosity: 0,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: true,
    stopAtErrors: false,
  });
  /** @type {any} pdf.js's document proxy (the vendored bundle carries no types) */
  let doc;
  try {
    doc = await task.promise;
  } catch (err) {
    const name = /** @type {{name?: string}} */ (err)?.name;
    if (name === 'PasswordException') throw new ReadError('encrypted', 'it is protected by a password');
    throw new ReadError('unreadable', 'it is not a PDF pdf.js can read (damaged or not a PDF)');
  }
  const pages = [];
  for (let n = 1; n <= doc.numPages; n++) {
    const page = await doc.getPage(n);
    const content = await page.getTextContent();
    let text = '';
    for (const item of content.items) {
      if (typeof item.str !== 'string') continue;
      text += item.str + (item.hasEOL ? '\n' : '');
    }
    pages.push(`--- Page ${n} ---\n${text.trim()}`);
    page.cleanup();
  }
  await task.destroy();
  return { ok: true, text: pages.join('\n\n'), pages: pages.length };
}

/** @param {Uint8Array} bytes @returns {Promise<Read>} */
async function readDocx(bytes) {
  const { extractRawText } = await vendor('mammoth.js');
  try {
    const r = await extractRawText({ arrayBuffer: bytes.slice().buffer });
    return { ok: true, text: String(r.value).trim() };
  } catch {
    throw new ReadError('unreadable', 'it is not a Word document mammoth can read (damaged, or an old .doc)');
  }
}

/** @param {Uint8Array} bytes @returns {Promise<Read>} */
async function readXlsx(bytes) {
  const { default: readXlsxFile } = await vendor('read-excel-file.js');
  const { default: Papa } = await vendor('papaparse.js');
  /** @type {{sheet: string, data: unknown[][]}[]} */
  let sheets;
  try {
    sheets = await readXlsxFile(bytes.slice().buffer);
  } catch {
    throw new ReadError('unreadable', 'it is not a spreadsheet read-excel-file can read (damaged, or an old .xls)');
  }
  let rows = 0;
  const parts = sheets.map((s) => {
    rows += s.data.length;
    const cells = s.data.map((row) => row.map((c) => (c instanceof Date ? c.toISOString().slice(0, 10) : c == null ? '' : String(c))));
    return `--- Sheet “${s.sheet}” (${s.data.length} rows) ---\n${Papa.unparse(cells, { newline: '\n' })}`;
  });
  return { ok: true, text: parts.join('\n\n'), sheets: sheets.length, rows };
}

/** @param {Uint8Array} bytes @returns {Promise<Read>} */
async function readCsv(bytes) {
  const { default: Papa } = await vendor('papaparse.js');
  const text = utf8(bytes);
  const parsed = Papa.parse(text, { skipEmptyLines: true });
  return { ok: true, text: text.trim(), rows: parsed.data.length };
}

/** @param {string} kind @param {Uint8Array} bytes @returns {Promise<Read>} */
async function read(kind, bytes) {
  if (kind === 'pdf') return readPdf(bytes);
  if (kind === 'docx') return readDocx(bytes);
  if (kind === 'xlsx') return readXlsx(bytes);
  if (kind === 'csv') return readCsv(bytes);
  return { ok: true, text: utf8(bytes) };
}

self.addEventListener('message', async (e) => {
  const { id, kind, bytes } = /** @type {{id: number, kind: string, bytes: Uint8Array}} */ (e.data);
  try {
    const r = await read(kind, bytes);
    if (!r.text.trim()) throw new ReadError('empty', 'no text was found in it (a scan without a text layer?)');
    self.postMessage({ id, ...r });
  } catch (err) {
    const code = err instanceof ReadError ? err.code : 'unreadable';
    const message = err instanceof ReadError ? err.message : 'it could not be read';
    self.postMessage({ id, ok: false, code, message });
  }
});
