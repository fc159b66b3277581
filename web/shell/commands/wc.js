/** @import { Command } from 'just-bash' */
// GNU `wc`, in place of just-bash's: the counts in coreutils' order (lines, words, characters,
// bytes, longest line), padded as coreutils pads them — one count of one input unpadded,
// otherwise as wide as the digits of the files' total size, and at least 7 when an input is not
// a regular file (standard input here is taken as a pipe: the shell cannot tell `wc < file`
// from `cat file | wc`) — and a "total" line for several files.
import { defineCommand } from 'just-bash';
import { latin1, resolveShellPath } from '../bash-fs.js';

const decoder = new TextDecoder();

/** @param {string[]} args */
export function parseWcArgs(args) {
  const o = { l: false, w: false, m: false, c: false, L: false, total: 'auto', files: /** @type {string[]} */ ([]) };
  const LONG = /** @type {Record<string, 'l' | 'w' | 'm' | 'c' | 'L'>} */ ({ lines: 'l', words: 'w', chars: 'm', bytes: 'c', 'max-line-length': 'L' });
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
  const text = utf8 && (need.m || need.L) && /[\x80-\xff]/.test(bytes) ? decoder.decode(Uint8Array.from(bytes, (ch) => ch.charCodeAt(0))) : bytes;
  let max = 0;
  let pos = 0;
  if (need.L) for (const ch of text) {
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
        // A pipe, as far as the padding goes (see above).
        inputs.push({ name, counts: count(/** @type {string} */ (/** @type {unknown} */ (ctx.stdin ?? '')), utf8, o), regular: false, size: 0, failed: false });
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
      inputs.push({ name, counts: count(latin1(await ctx.fs.readFileBuffer(path)), utf8, o), regular: stat.isFile, size: stat.size, failed: false });
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
    const row = (/** @type {Record<string, number>} */ counts, /** @type {string | null} */ name) => `${fields.map((f) => String(counts[f]).padStart(width)).join(' ')}${name === null ? '' : ` ${name}`}\n`;
    let stdout = '';
    /** @type {Record<string, number>} */
    const totals = { l: 0, w: 0, m: 0, c: 0, L: 0 };
    for (const input of inputs) {
      if (!input.counts) continue;
      for (const f of ['l', 'w', 'm', 'c']) totals[f] += input.counts[f];
      totals.L = Math.max(totals.L, input.counts.L);
      if (o.total !== 'only') stdout += row(input.counts, input.name);
    }
    if (o.total === 'always' || o.total === 'only' || (o.total === 'auto' && operands.length > 1)) stdout += o.total === 'only' ? row(totals, null) : row(totals, 'total');
    return { stdout, stderr, exitCode: stderr ? 1 : 0 };
  });
}
