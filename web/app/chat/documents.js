/** @import { FileSystem } from '../../storage/types.d.ts' */
/** @import { TokenFamily } from '../../providers/types.d.ts' */
/** @import { DocumentText } from '../../files/documents.js' */
import { readDocument, describeDocument, DocumentError } from '../../files/documents.js';
import { estimateTextTokens, CHARS_PER_TOKEN } from '../../providers/tokens.js';

/** Where attached documents are kept in the workspace (the agent can read the whole file there). */
export const UPLOADS = 'uploads';

/** A document's text as it goes with the next message: a text attachment the chat shows as a chip. */
/** @typedef {{label: string, text: string, untrusted: string, detail: string, note?: string, path: string}} DocumentAttachment */

/**
 * The first part of `text` that fits `tokens` (by the provider family's estimate), cut at a line
 * end where one is near; the whole text when it fits.
 * @param {string} text @param {number} tokens @param {TokenFamily} family
 * @returns {{text: string, cut: boolean}}
 */
export function fitText(text, tokens, family) {
  if (estimateTextTokens(text, family) <= tokens) return { text, cut: false };
  let chars = Math.floor(tokens * CHARS_PER_TOKEN[family]);
  // Dense scripts (CJK, emoji) count a token a character: shrink until the estimate fits.
  while (chars > 0 && estimateTextTokens(text.slice(0, chars), family) > tokens) chars = Math.floor(chars * 0.8);
  const line = text.lastIndexOf('\n', chars);
  return { text: text.slice(0, line > chars * 0.9 ? line : chars), cut: true };
}

/** A name safe as one path segment of the workspace. @param {string} name */
function safeName(name) {
  const base = (name.split(/[\\/]/).pop() ?? '').replace(/[\u0000-\u001f<>:"|?*]/g, '_').trim();
  return base && base !== '.' && base !== '..' ? base.slice(0, 200) : 'document';
}

/**
 * A free path for `name` under uploads/: the name itself, or "name (2).ext" and so on when a
 * different file has it (the same bytes again reuse the file).
 * @param {FileSystem} fs @param {string} name @param {Uint8Array} bytes
 */
async function uploadPath(fs, name, bytes) {
  const dot = name.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  for (let n = 1; n < 1000; n++) {
    const path = `${UPLOADS}/${n === 1 ? name : `${stem} (${n})${ext}`}`;
    const st = await fs.stat(path);
    if (!st) return { path, exists: false };
    if (st.size === bytes.length) {
      const had = await fs.readBytes(path);
      if (had.every((b, i) => b === bytes[i])) return { path, exists: true };
    }
  }
  throw new DocumentError('unreadable', 'the uploads folder has too many files of that name');
}

/**
 * Reads a document (in a worker), keeps the file in the workspace's uploads/ folder and returns
 * its text as it will go with the next message: within `budget` tokens, with a note saying
 * what was left out and where the whole file is. The text is outside content: untrusted.
 * @param {Blob & {name: string}} file
 * @param {{fs: FileSystem, budget: {tokens: number, family: TokenFamily},
 *   read?: (file: Blob & {name: string}) => Promise<DocumentText>}} deps
 *   fs: the workspace's files; read: the reader (tests give their own)
 * @returns {Promise<DocumentAttachment>}
 * @throws {DocumentError}
 */
export async function documentAttachment(file, { fs, budget, read = readDocument }) {
  const doc = await read(file);
  const name = safeName(file.name);
  const bytes = new Uint8Array(await file.arrayBuffer());
  const { path, exists } = await uploadPath(fs, name, bytes);
  if (!exists) await fs.write(path, bytes);
  const fitted = fitText(doc.text, budget.tokens, budget.family);
  let text = fitted.text;
  /** @type {string | undefined} */
  let note;
  if (fitted.cut) {
    const shown = fitted.text.length;
    note = `Truncated to fit the model's context: ${Math.round((shown / doc.text.length) * 100)}% of the text goes with the message.`;
    text +=
      `\n\n[Truncated: the first ${shown} of ${doc.text.length} characters of this document's text are shown (about ` +
      `${budget.tokens} tokens, the share of the model's context an attachment gets). The whole file is in the workspace ` +
      `at ${path}.]`;
  }
  return {
    label: name,
    text,
    untrusted: `the attached file “${name}”`,
    detail: describeDocument(doc, file.size),
    ...(note ? { note } : {}),
    path,
  };
}
