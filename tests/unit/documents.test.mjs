// Attached documents (issue 37 §3), the parts that run outside a browser: which kind a file is,
// fitting a text to the share of the context an attachment gets, how much that share is, and
// keeping the file under uploads/ (the reading itself runs in a worker: tests/browser/documents).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { documentKind, describeDocument, DocumentError } from '../../web/files/documents.js';
import { fitText, documentAttachment } from '../../web/app/chat/documents.js';
import { documentBudget, UNKNOWN_CONTEXT_DOCUMENT_TOKENS } from '../../web/app/chat/model-choice.js';
import { estimateTextTokens } from '../../web/providers/tokens.js';
import { MemoryFileSystem } from '../../web/storage/memory-fs.js';

test('documentKind: by name first, then type; an old Office file or an archive is refused with what to do instead', () => {
  assert.equal(documentKind('a.PDF', ''), 'pdf');
  assert.equal(documentKind('scan', 'application/pdf'), 'pdf');
  assert.equal(documentKind('letter.docx', ''), 'docx');
  assert.equal(documentKind('book.xlsx', ''), 'xlsx');
  assert.equal(documentKind('t.tsv', ''), 'csv');
  assert.equal(documentKind('main.rs', ''), 'text');
  assert.equal(documentKind('Makefile', ''), 'text');
  assert.throws(
    () => documentKind('old.doc', 'application/msword'),
    (e) => e instanceof DocumentError && e.code === 'unsupported' && /save it as \.docx/.test(e.message),
  );
  assert.throws(() => documentKind('a.zip', ''), /an archive/);
});

test('fitText: a text within the budget is whole; a longer one is cut within it at a line end; a dense script is counted as such', () => {
  assert.deepEqual(fitText('short text', 100, 'openai'), { text: 'short text', cut: false });
  const long = Array.from({ length: 200 }, (_, i) => `line ${i} of some text`).join('\n');
  const fitted = fitText(long, 100, 'openai');
  assert.equal(fitted.cut, true);
  assert.ok(estimateTextTokens(fitted.text, 'openai') <= 100);
  assert.ok(long.startsWith(fitted.text));
  assert.match(fitted.text, /of some text$/, 'cut at the end of a line');
  const cjk = '漢'.repeat(1000);
  const dense = fitText(cjk, 100, 'openai');
  assert.equal(dense.text.length <= 100, true, 'one token a character');
});

test('documentBudget: a quarter of a known model context (at most 100,000), a fixed share for a model without facts', () => {
  /** @param {string} provider @param {string} model */
  const sources = (provider, model) => ({
    settings: /** @type {any} */ ({ load: () => ({ provider, model }) }), // any: only load() is read
    workspaceId: 'w',
    routes: () => ({}),
  });
  assert.deepEqual(documentBudget(sources('openai', 'gpt-4o'), null), { tokens: 32_000, family: 'openai' });
  assert.equal(documentBudget(sources('openai', 'gpt-4.1'), null).tokens, 100_000);
  assert.equal(documentBudget(sources('openai-compatible', 'test-model'), null).tokens, UNKNOWN_CONTEXT_DOCUMENT_TOKENS);
});

test('documentAttachment: the file is kept under uploads/ (the same bytes again reuse it, other bytes get a new name), its \
text is cut to the budget with a note saying where the whole is, and it is marked untrusted', async () => {
  const fs = new MemoryFileSystem();
  /** @param {string} text @param {string} [name] */
  const file = (text, name = 'notes.txt') => Object.assign(new Blob([text]), { name });
  const read = async (/** @type {Blob} */ f) => ({ kind: /** @type {const} */ ('text'), text: await f.text() });
  const budget = { tokens: 10, family: /** @type {const} */ ('default') };
  const a = await documentAttachment(file('tiny'), { fs, budget, read });
  assert.deepEqual(a, {
    label: 'notes.txt',
    text: 'tiny',
    untrusted: 'the attached file “notes.txt”',
    detail: 'Text · 4 B',
    path: 'uploads/notes.txt',
  });
  assert.equal(await fs.readText('uploads/notes.txt'), 'tiny');
  assert.equal((await documentAttachment(file('tiny'), { fs, budget, read })).path, 'uploads/notes.txt', 'the same file again');
  const long = `${'word '.repeat(40)}end`;
  const b = await documentAttachment(file(long), { fs, budget, read });
  assert.equal(b.path, 'uploads/notes (2).txt');
  assert.equal(await fs.readText('uploads/notes (2).txt'), long, 'the whole file is kept');
  assert.match(b.note ?? '', /^Truncated to fit the model's context: \d+% of the text goes with the message\.$/);
  assert.match(
    b.text,
    /\[Truncated: the first 40 of 203 characters .* The whole file is in the workspace at uploads\/notes \(2\)\.txt\.\]$/,
  );
  assert.equal((await documentAttachment(file('x', '../../etc/pass:wd'), { fs, budget, read })).path, 'uploads/pass_wd', 'one safe name');
  assert.equal(describeDocument({ kind: 'pdf', text: '', pages: 1 }, 2048), 'PDF · 1 page · 2.0 KB');
});
