/** @import { CommandContext, ExecResult } from 'just-bash' */
// The byte strings the shell's own text commands work on (one char per byte, the form just-bash
// pipes between commands): reading inputs as them, a line loop over them, handing them back as
// bytes (text.js, tr.js and grep.js share these).
import { latin1, resolveShellPath } from '../bash-fs.js';

const encoder = new TextEncoder();

/** A JavaScript string (an argument) as the byte string of its UTF-8. @param {string} text */
export const utf8Bytes = (text) => (/^[\x00-\x7f]*$/.test(text) ? text : latin1(encoder.encode(text)));

/** Standard input as the byte string it is (the ByteString brand is a type only). @param {CommandContext} ctx */
export const stdinBytes = (ctx) => /** @type {string} */ (/** @type {unknown} */ (ctx.stdin ?? ''));

/** @param {string} stdout a byte string @param {string} [stderr] @param {number} [exitCode] @returns {ExecResult} */
export const bytesResult = (stdout, stderr = '', exitCode = 0) =>
  /** @type {ExecResult} */ ({ stdout, stdoutKind: 'bytes', stdoutEncoding: 'binary', stderr, exitCode });

/**
 * The inputs named (`-` or none: standard input), each as a byte string, read in order; a file
 * that cannot be read is reported as GNU's commands do (`cmd: NAME: No such file or directory`).
 * @param {CommandContext} ctx @param {string} cmd @param {string[]} names
 * @returns {Promise<{texts: string[], stderr: string}>}
 */
export async function readInputs(ctx, cmd, names) {
  /** @type {string[]} */
  const texts = [];
  let stderr = '';
  for (const name of names.length ? names : ['-']) {
    if (name === '-') {
      texts.push(stdinBytes(ctx));
      continue;
    }
    const path = resolveShellPath(ctx.cwd, name);
    const stat = await ctx.fs.stat(path).catch(() => null);
    if (!stat) stderr += `${cmd}: ${name}: No such file or directory\n`;
    else if (stat.isDirectory) stderr += `${cmd}: ${name}: Is a directory\n`;
    else texts.push(latin1(await ctx.fs.readFileBuffer(path)));
  }
  return { texts, stderr };
}

/**
 * Calls `each(start, end)` for every line of a byte string (end excludes the newline); a last
 * line without its newline counts as a line, an empty input has none.
 * @param {string} text @param {(start: number, end: number) => void} each
 */
export function forEachLine(text, each) {
  let start = 0;
  const n = text.length;
  while (start < n) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = n;
    each(start, end);
    start = end + 1;
  }
}
