// Documents attached to a message: which kind a file is, and its text, read in a worker of the
// page (document-worker.js: pdf.js, mammoth, read-excel-file, papaparse), never on the page's
// own thread and never by a server.

/** The largest file read (a bigger one is refused before any of it is read). */
export const MAX_DOCUMENT_BYTES = 20 * 1024 * 1024;

/** @typedef {'pdf' | 'docx' | 'xlsx' | 'csv' | 'text'} DocumentKind */
/** @typedef {{kind: DocumentKind, text: string, pages?: number, sheets?: number, rows?: number}} DocumentText */

/**
 * Why a document was not attached: `too_large` (over MAX_DOCUMENT_BYTES), `encrypted` (a
 * password-protected PDF), `unreadable` (damaged, or not what its name says), `empty` (no text
 * in it: a scan), `unsupported` (a kind that has no text to read).
 */
export class DocumentError extends Error {
  /** @param {'too_large' | 'encrypted' | 'unreadable' | 'empty' | 'unsupported'} code @param {string} message */
  constructor(code, message) {
    super(message);
    this.name = 'DocumentError';
    this.code = code;
  }
}

/** Markdown, code and text read as UTF-8 (other names are tried as text too, see documentKind). */
const TEXT_EXTENSIONS = new Set(
  (
    'txt md markdown mdx rst adoc org log json jsonl ndjson yaml yml toml ini cfg conf env xml html htm css scss less svg ' +
    'js mjs cjs jsx ts tsx mts cts py rb php java kt kts scala go rs c h cc cpp hpp cs swift m mm sh bash zsh fish ps1 bat ' +
    'sql graphql gql r jl lua pl pm ex exs erl hs clj dart vue svelte tex bib diff patch dockerfile makefile gitignore'
  ).split(' '),
);
/** Kinds with no text to read here, with what to do instead. */
const UNSUPPORTED = /** @type {Record<string, string>} */ ({
  doc: 'an old Word document: save it as .docx and attach that',
  xls: 'an old Excel workbook: save it as .xlsx and attach that',
  ppt: 'a PowerPoint file: export it as PDF and attach that',
  pptx: 'a PowerPoint file: export it as PDF and attach that',
  odt: 'an OpenDocument file: save it as .docx or PDF and attach that',
  zip: 'an archive: unpack it in the Files panel and attach the files',
  gz: 'an archive: unpack it in the Files panel and attach the files',
  tar: 'an archive: unpack it in the Files panel and attach the files',
  exe: 'a program, not a document',
  wasm: 'a program, not a document',
  mp3: 'audio, not a document',
  wav: 'audio, not a document',
  mp4: 'a video, not a document',
  mov: 'a video, not a document',
});

/** @param {string} name */
const extensionOf = (name) => {
  const base = name.toLowerCase().split('/').pop() ?? '';
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1) : base;
};

/**
 * The kind of a file by its name and type; a name it does not know is read as text (the worker
 * refuses it when it is not UTF-8).
 * @param {string} name @param {string} type
 * @returns {DocumentKind}
 */
export function documentKind(name, type) {
  const ext = extensionOf(name);
  if (ext === 'pdf' || type === 'application/pdf') return 'pdf';
  if (ext === 'docx') return 'docx';
  if (ext === 'xlsx') return 'xlsx';
  if (ext === 'csv' || ext === 'tsv' || type === 'text/csv') return 'csv';
  if (UNSUPPORTED[ext]) throw new DocumentError('unsupported', `it is ${UNSUPPORTED[ext]}`);
  if (TEXT_EXTENSIONS.has(ext) || type.startsWith('text/') || type === 'application/json') return 'text';
  return 'text';
}

/** Whether a file goes to the document reader (not an image, which the model sees as one). @param {{type: string}} file */
export const isDocument = (file) => !file.type.startsWith('image/') || file.type === 'image/svg+xml';

let nextId = 1;

/**
 * Reads a document's text in a worker of its own (ended when the text is back, so a large PDF's
 * memory goes with it).
 * @param {Blob & {name: string}} file
 * @returns {Promise<DocumentText>}
 * @throws {DocumentError}
 */
export async function readDocument(file) {
  if (file.size > MAX_DOCUMENT_BYTES)
    throw new DocumentError(
      'too_large',
      `it is ${formatBytes(file.size)}; at most ${formatBytes(MAX_DOCUMENT_BYTES)} can be attached (put it in the Files panel and ` +
        'ask about a part of it)',
    );
  const kind = documentKind(file.name, file.type);
  const bytes = new Uint8Array(await file.arrayBuffer());
  const worker = new Worker(new URL('./document-worker.js', import.meta.url), { type: 'module', name: 'clawser-documents' });
  const id = nextId++;
  try {
    const answer = await new Promise((resolve, reject) => {
      worker.addEventListener('message', (e) => {
        if (e.data?.id === id) resolve(e.data);
      });
      worker.addEventListener('error', () => reject(new DocumentError('unreadable', 'the document reader failed to start')));
      worker.postMessage({ id, kind, bytes }, [bytes.buffer]);
    });
    if (!answer.ok) throw new DocumentError(answer.code, answer.message);
    /** @type {DocumentText} */
    const doc = { kind, text: String(answer.text) };
    for (const key of /** @type {const} */ (['pages', 'sheets', 'rows'])) if (typeof answer[key] === 'number') doc[key] = answer[key];
    return doc;
  } finally {
    worker.terminate();
  }
}

/** A size as people read it: "812 B", "1.2 KB", "3.4 MB". @param {number} n */
export function formatBytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * What a chip says of a document besides its name: its kind, pages (or sheets and rows, or
 * rows) and size.
 * @param {DocumentText} doc @param {number} size
 */
export function describeDocument(doc, size) {
  const n = (/** @type {number} */ count, /** @type {string} */ one) => `${count} ${one}${count === 1 ? '' : 's'}`;
  const parts = [{ pdf: 'PDF', docx: 'Word', xlsx: 'Excel', csv: 'CSV', text: 'Text' }[doc.kind]];
  if (doc.pages !== undefined) parts.push(n(doc.pages, 'page'));
  if (doc.sheets !== undefined) parts.push(n(doc.sheets, 'sheet'));
  if (doc.rows !== undefined) parts.push(n(doc.rows, 'row'));
  parts.push(formatBytes(size));
  return parts.join(' · ');
}
