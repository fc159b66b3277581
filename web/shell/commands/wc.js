/** @import { Command } from 'just-bash' */
// GNU `wc`, in place of just-bash's: the counts in coreutils' order (lines, words, characters,
// bytes, longest line), padded as coreutils pads them — one count of one input unpadded,
// otherwise as wide as the digits of the regular files' total size, and at least 7 when an
// input is not a regular file (a pipe) — and a "total" line for several files. Standard input
// is a regular file when the line redirects it from one (`wc < file`): markStdinFiles tells.
import { defineCommand } from 'just-bash';
import { latin1, resolveShellPath } from '../bash-fs.js';

const decoder = new TextDecoder();

/** The variable through which markStdinFiles names the file `wc`'s standard input comes from. */
export const STDIN_FILE = '__clawser_wc_stdin';

/**
 * Marks each `wc … < FILE` of a line with a temporary assignment naming FILE (the command's own
 * environment only): the interpreter hands wc the file's content either way, and coreutils pads
 * counts of a redirected regular file (` 9  9 54`) unlike those of a pipe (`      9 …`).
 * @param {unknown} node a script's syntax tree (just-bash's AST), changed in place
 */
export function markStdinFiles(node) {
  if (Array.isArray(node)) {
    for (const item of node) markStdinFiles(item);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const n = /** @type {Record<string, any>} */ (node); // any: just-bash's AST nodes, read by shape
  for (const key of Object.keys(n)) if (n[key] && typeof n[key] === 'object') markStdinFiles(n[key]);
  if (n.type !== 'SimpleCommand' || n.name?.parts?.length !== 1 || n.name.parts[0].type !== 'Literal' || n.name.parts[0].value !== 'wc')
    return;
  const from = (n.redirections ?? []).filter((/** @type {any} */ r) => r.operator === '<' && (r.fd === null || r.fd === 0)).pop();
  if (from)
    n.assignments = [
      ...(n.assignments ?? []),
      { type: 'Assignment', name: STDIN_FILE, value: structuredClone(from.target), append: false, array: null },
    ];
}

/** @param {string[]} args */
export function parseWcArgs(args) {
  const o = { l: false, w: false, m: false, c: false, L: false, total: 'auto', files: /** @type {string[]} */ ([]) };
  const LONG = /** @type {Record<string, 'l' | 'w' | 'm' | 'c' | 'L'>} */ ({
    lines: 'l',
    words: 'w',
    chars: 'm',
    bytes: 'c',
    'max-line-length': 'L',
  });
  let options = true;
  for (const a of args) {
    if (!options || a === '-' || !a.startsWith('-')) o.files.push(a);
    else if (a === '--') options = false;
    else if (a.startsWith('--')) {
      const [name, value] = a.slice(2).split(/=(.*)/s);
      if (LONG[name]) o[LONG[name]] = true;
      else if (name === 'total' && ['auto', 'always', 'only', 'never'].includes(value ?? '')) o.total = /** @type {string} */ (value);
      else return null;
    } else {
      for (const c of a.slice(1)) {
        if (c === 'l' || c === 'w' || c === 'm' || c === 'c' || c === 'L') o[c] = true;
        else return null;
      }
    }
  }
  if (!o.l && !o.w && !o.m && !o.c && !o.L) o.l = o.w = o.c = true;
  return o;
}

/**
 * The counts of a byte string.
 * @param {string} bytes one char per byte @param {boolean} utf8 whether characters are UTF-8 (any locale but C/POSIX)
 * @param {{m: boolean, L: boolean}} [need] the counts that take a second pass
 */
function count(bytes, utf8, need = { m: true, L: true }) {
  let lines = 0;
  let words = 0;
  let inWord = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes.charCodeAt(i);
    if (c === 10) lines++;
    const space = c === 32 || (c >= 9 && c <= 13);
    if (space) inWord = false;
    else if (!inWord) {
      inWord = true;
      words++;
    }
  }
  const text =
    utf8 && (need.m || need.L) && /[\x80-\xff]/.test(bytes) ? decoder.decode(Uint8Array.from(bytes, (ch) => ch.charCodeAt(0))) : bytes;
  let max = 0;
  let pos = 0;
  if (need.L)
    for (const ch of text) {
      if (ch === '\n' || ch === '\r' || ch === '\f') {
        max = Math.max(max, pos);
        pos = 0;
      } else if (ch === '\t') pos += 8 - (pos % 8);
      else if (ch >= ' ' && ch !== '\x7f') pos++;
    }
  max = Math.max(max, pos);
  return { l: lines, w: words, m: utf8 && need.m && text !== bytes ? [...text].length : bytes.length, c: bytes.length, L: max };
}

/** @returns {Command} */
export function wcCommand() {
  return defineCommand('wc', async (args, ctx) => {
    const o = parseWcArgs(args);
    if (!o) return /** @type {NonNullable<typeof ctx.origCommand>} */ (ctx.origCommand)(args);
    const ctype = ctx.env.get('LC_ALL') || ctx.env.get('LC_CTYPE') || ctx.env.get('LANG') || '';
    const utf8 = !/^(C|POSIX)$/i.test(ctype);
    const fields = /** @type {const} */ (['l', 'w', 'm', 'c', 'L']).filter((f) => o[f]);
    const operands = o.files.length ? o.files : [null];
    /** @type {{name: string | null, counts: Record<string, number> | null, regular: boolean, size: number, failed: boolean}[]} */
    const inputs = [];
    let stderr = '';
    for (const name of operands) {
      if (name === null || name === '-') {
        const from = ctx.env.get(STDIN_FILE);
        const stat = from ? await ctx.fs.stat(resolveShellPath(ctx.cwd, from)).catch(() => null) : null;
        inputs.push({
          name,
          counts: count(/** @type {string} */ (/** @type {unknown} */ (ctx.stdin ?? '')), utf8, o),
          regular: !!stat?.isFile,
          size: stat?.isFile ? stat.size : 0,
          failed: false,
        });
        continue;
      }
      const path = resolveShellPath(ctx.cwd, name);
      if (!(await ctx.fs.exists(path))) {
        stderr += `wc: ${name}: No such file or directory\n`;
        inputs.push({ name, counts: null, regular: false, size: 0, failed: true });
        continue;
      }
      const stat = await ctx.fs.stat(path);
      if (stat.isDirectory) {
        stderr += `wc: ${name}: Is a directory\n`;
        inputs.push({ name, counts: { l: 0, w: 0, m: 0, c: 0, L: 0 }, regular: false, size: 0, failed: false });
        continue;
      }
      inputs.push({
        name,
        counts: count(latin1(await ctx.fs.readFileBuffer(path)), utf8, o),
        regular: stat.isFile,
        size: stat.size,
        failed: false,
      });
    }
    // coreutils' compute_number_width: one count of one input needs no padding.
    let width = 1;
    if (!(operands.length === 1 && fields.length === 1) && !inputs[0].failed) {
      let minimum = 1;
      let total = 0;
      for (const input of inputs) {
        if (input.failed) continue;
        if (input.regular) total += input.size;
        else minimum = 7;
      }
      width = Math.max(String(total).length, minimum);
    }
    const row = (/** @type {Record<string, number>} */ counts, /** @type {string | null} */ name) =>
      `${fields.map((f) => String(counts[f]).padStart(width)).join(' ')}${name === null ? '' : ` ${name}`}\n`;
    let stdout = '';
    /** @type {Record<string, number>} */
    const totals = { l: 0, w: 0, m: 0, c: 0, L: 0 };
    for (const input of inputs) {
      if (!input.counts) continue;
      for (const f of ['l', 'w', 'm', 'c']) totals[f] += input.counts[f];
      totals.L = Math.max(totals.L, input.counts.L);
      if (o.total !== 'only') stdout += row(input.counts, input.name);
    }
    if (o.total === 'always' || o.total === 'only' || (o.total === 'auto' && operands.length > 1))
      stdout += o.total === 'only' ? row(totals, null) : row(totals, 'total');
    return { stdout, stderr, exitCode: stderr ? 1 : 0 };
  });
}
