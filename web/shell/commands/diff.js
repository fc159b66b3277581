// Why this file is long: GNU diff: Myers' linear-space search, the boundary shifting and the five
//  output formats (normal, unified, context, ed, side by side) over files and folders, which share
//  the hunk model.
/** @import { Command, CommandContext } from 'just-bash' */
// GNU `diff`, in place of just-bash's (which always wrote a unified diff after a row of `=`):
// the normal format by default (`2c2`, `< old`, `---`, `> new`, or --normal), -u/-U N, -c/-C N
// (context format), -e (ed script), -y/-W N/-t (side by side), -q, -s, -i, -w, -b,
// -B, -a, -N, -r over folders (`Only in …`, `Common subdirectories: …`), a folder against a
// file, `-` for standard input, "\ No newline at end of file", exit 0/1/2. The lines that differ
// are chosen as GNU's diff chooses them: Myers' linear-space search, then its boundary shifting.
import { defineCommand } from 'just-bash';
import { latin1, resolveShellPath } from '../bash-fs.js';
import { collationOf } from './collate.js';

/**
 * GNU diff's options as far as this command goes. `style` is the output format (--normal, -u,
 * -c, -e, -y); `context` its context lines (-u and -c: 3, or the largest -U/-C/--context/-N
 * given); `width` and `expandTabs` shape -y's columns. `error` is a usage error GNU reports
 * (exit 2) — conflicting formats, a bad number.
 * @typedef {{style: 'normal' | 'unified' | 'context' | 'ed' | 'side', context: number, width: number, expandTabs: boolean,
 *   suppressCommon: boolean, brief: boolean, same: boolean, ignoreCase: boolean, ignoreAllSpace: boolean, ignoreSpaceChange: boolean,
 *   ignoreBlankLines: boolean, text: boolean, newFile: boolean, recursive: boolean, labels: string[], switches: string[], files: string[],
 *   error: string | null}} DiffOptions
 */

/** @param {string[]} args @returns {DiffOptions | null} null: an option this command does not handle */
export function parseDiffArgs(args) {
  /** @type {DiffOptions} */
  const o = {
    style: 'normal',
    context: -1,
    width: 130,
    expandTabs: false,
    suppressCommon: false,
    brief: false,
    same: false,
    ignoreCase: false,
    ignoreAllSpace: false,
    ignoreSpaceChange: false,
    ignoreBlankLines: false,
    text: false,
    newFile: false,
    recursive: false,
    labels: [],
    switches: [],
    files: [],
    error: null,
  };
  const FLAGS = /** @type {Record<string, keyof DiffOptions>} */ ({
    q: 'brief',
    s: 'same',
    i: 'ignoreCase',
    w: 'ignoreAllSpace',
    b: 'ignoreSpaceChange',
    B: 'ignoreBlankLines',
    a: 'text',
    N: 'newFile',
    r: 'recursive',
    t: 'expandTabs',
  });
  const LONG = /** @type {Record<string, keyof DiffOptions>} */ ({
    brief: 'brief',
    'report-identical-files': 'same',
    'ignore-case': 'ignoreCase',
    'ignore-all-space': 'ignoreAllSpace',
    'ignore-space-change': 'ignoreSpaceChange',
    'ignore-blank-lines': 'ignoreBlankLines',
    text: 'text',
    'new-file': 'newFile',
    recursive: 'recursive',
    'expand-tabs': 'expandTabs',
    'suppress-common-lines': 'suppressCommon',
  });
  const STYLES = /** @type {Record<string, DiffOptions['style']>} */ ({ normal: 'normal', ed: 'ed', 'side-by-side': 'side' });
  /** @type {DiffOptions['style'] | null} */
  let style = null;
  /** @param {DiffOptions['style']} s */
  const setStyle = (s) => {
    if (style && style !== s) o.error ??= 'conflicting output style options';
    style = s;
  };
  /** -U N, -C N, --context=N: the largest one counts, as GNU's. @param {DiffOptions['style']} s @param {string} value */
  const setContext = (s, value) => {
    setStyle(s);
    if (!/^\d+$/.test(value)) o.error ??= `invalid context length '${value}'`;
    else o.context = Math.max(o.context, Number(value));
  };
  let options = true;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (!options || a === '-' || !a.startsWith('-')) {
      o.files.push(a);
      continue;
    }
    if (a === '--') {
      options = false;
      continue;
    }
    o.switches.push(a);
    if (a.startsWith('--')) {
      const [name, value] = a.slice(2).split(/=(.*)/s);
      /** The option's value: after `=`, or the next word (which the switches keep). */
      const next = () => {
        if (value !== undefined) return value;
        const v = args[++i] ?? '';
        o.switches.push(v);
        return v;
      };
      if (LONG[name]) /** @type {Record<string, unknown>} */ (o)[LONG[name]] = true;
      else if (STYLES[name]) setStyle(STYLES[name]);
      else if (name === 'unified' || name === 'context') {
        if (value === undefined) {
          setStyle(name === 'unified' ? 'unified' : 'context');
          o.context = Math.max(o.context, 3);
        } else setContext(name === 'unified' ? 'unified' : 'context', value);
      } else if (name === 'width') {
        const w = next();
        if (/^\d+$/.test(w) && Number(w) > 0) o.width = Number(w);
        else o.error ??= `invalid width '${w}'`;
      } else if (name === 'label') o.labels.push(next());
      else return null;
      continue;
    }
    for (let j = 1; j < a.length; j++) {
      const c = a[j];
      if (FLAGS[c]) /** @type {Record<string, unknown>} */ (o)[FLAGS[c]] = true;
      else if (c === 'u' || c === 'c') {
        setStyle(c === 'u' ? 'unified' : 'context');
        o.context = Math.max(o.context, 3);
      } else if (c === 'e') setStyle('ed');
      else if (c === 'y') setStyle('side');
      else if (c === 'U' || c === 'C' || c === 'W') {
        const value = a.slice(j + 1) || args[++i] || '';
        if (!a.slice(j + 1)) o.switches.push(value);
        if (c === 'W') {
          if (/^\d+$/.test(value) && Number(value) > 0) o.width = Number(value);
          else o.error ??= `invalid width '${value}'`;
        } else setContext(c === 'U' ? 'unified' : 'context', value);
        break;
      } else if (/[0-9]/.test(c)) {
        // The old -NUM: context lines, for whichever format uses them.
        const digits = /^\d+/.exec(a.slice(j))?.[0] ?? c;
        o.context = Math.max(o.context, Number(digits));
        j += digits.length - 1;
      } else return null;
    }
  }
  o.style = style ?? 'normal';
  if (o.context < 0) o.context = 3;
  return o;
}

/** @typedef {{lines: string[], noNewline: boolean}} Text a file's lines (byte strings), and whether its last line has no newline */

/** @param {string} bytes @returns {Text} */
function splitLines(bytes) {
  const lines = bytes.split('\n');
  const noNewline = lines[lines.length - 1] !== '';
  if (!noNewline) lines.pop();
  return { lines, noNewline };
}

/**
 * Which lines of each file are changed, as GNU's diff decides: the identical ends set aside
 * (io.c's find_identical_ends), lines that cannot match (or match too often) discarded first
 * (analyze.c's discard_confusing_lines), compareseq over diag's middle snake on the rest, then
 * shift_boundaries. `a` and `b` are line ids (equal ids: equal lines).
 * @param {Int32Array} a @param {Int32Array} b @param {number} [horizon] identical lines read beyond the differing middle (-u's context)
 * @returns {{ca: Uint8Array, cb: Uint8Array}} changed flags, with a 0 sentinel before and after (index i + 1 is line i)
 */
export function changedLines(a, b, horizon = 0) {
  const ca = new Uint8Array(a.length + 2);
  const cb = new Uint8Array(b.length + 2);
  let lo = 0;
  while (lo < a.length && lo < b.length && a[lo] === b[lo]) lo++;
  let ha = a.length;
  let hb = b.length;
  while (ha > lo && hb > lo && a[ha - 1] === b[hb - 1]) {
    ha--;
    hb--;
  }
  // The lines GNU reads in: the differing middle and `horizon` identical lines on each side
  // (the context of -u), which boundaries may slide into.
  const start = Math.max(0, lo - horizon);
  const tail = Math.min(a.length - ha, horizon);
  const ra = a.subarray(start, ha + tail);
  const rb = b.subarray(start, hb + tail);
  const rca = new Uint8Array(ra.length + 2);
  const rcb = new Uint8Array(rb.length + 2);
  const [da, db] = discards(ra, rb);
  /** The lines left to compare, and where each is in the region. @param {Int32Array} v @param {Uint8Array} d @param {Uint8Array} changed */
  const keep = (v, d, changed) => {
    /** @type {number[]} */
    const ids = [];
    /** @type {number[]} */
    const real = [];
    for (let i = 0; i < v.length; i++) {
      if (d[i]) changed[i + 1] = 1;
      else {
        ids.push(v[i]);
        real.push(i);
      }
    }
    return { ids: Int32Array.from(ids), real };
  };
  const x = keep(ra, da, rca);
  const y = keep(rb, db, rcb);
  compareSeq(
    x.ids,
    y.ids,
    (i) => (rca[x.real[i] + 1] = 1),
    (j) => (rcb[y.real[j] + 1] = 1),
  );
  shiftBoundaries(rca, rcb, ra);
  shiftBoundaries(rcb, rca, rb);
  ca.set(rca.subarray(1, ra.length + 1), start + 1);
  cb.set(rcb.subarray(1, rb.length + 1), start + 1);
  return { ca, cb };
}

/**
 * GNU's discard_confusing_lines: a line with no match in the other file is certainly changed
 * (1); one with very many matches is provisionally so (2), kept only inside runs of certain ones.
 * @param {Int32Array} a @param {Int32Array} b @returns {[Uint8Array, Uint8Array]}
 */
function discards(a, b) {
  let top = 0;
  for (const v of [a, b]) for (let i = 0; i < v.length; i++) if (v[i] >= top) top = v[i] + 1;
  const counts = [new Int32Array(top), new Int32Array(top)];
  for (let i = 0; i < a.length; i++) counts[0][a[i]]++;
  for (let i = 0; i < b.length; i++) counts[1][b[i]]++;
  return /** @type {[Uint8Array, Uint8Array]} */ (
    [a, b].map((v, f) => {
      const end = v.length;
      const other = counts[1 - f];
      const d = new Uint8Array(end);
      let many = 5;
      let tem = Math.floor(end / 64);
      while ((tem >>= 2) > 0) many *= 2;
      for (let i = 0; i < end; i++) {
        const nmatch = other[v[i]];
        d[i] = nmatch === 0 ? 1 : nmatch > many ? 2 : 0;
      }
      for (let i = 0; i < end; i++) {
        if (d[i] === 2) d[i] = 0;
        else if (d[i] !== 0) {
          let provisional = 0;
          let j = i;
          for (; j < end; j++) {
            if (d[j] === 0) break;
            if (d[j] === 2) ++provisional;
          }
          while (j > i && d[j - 1] === 2) {
            d[--j] = 0;
            --provisional;
          }
          const length = j - i;
          if (provisional * 4 > length) {
            while (j > i) if (d[--j] === 2) d[j] = 0;
          } else {
            let minimum = 1;
            let t = length >> 2;
            while (0 < (t >>= 2)) minimum <<= 1;
            minimum++;
            let consec = 0;
            for (j = 0; j < length; j++) {
              if (d[i + j] !== 2) consec = 0;
              else if (minimum === ++consec) j -= consec;
              else if (minimum < consec) d[i + j] = 0;
            }
            consec = 0;
            for (j = 0; j < length; j++) {
              if (j >= 8 && d[i + j] === 1) break;
              if (d[i + j] === 2) {
                consec = 0;
                d[i + j] = 0;
              } else if (d[i + j] === 0) consec = 0;
              else consec++;
              if (consec === 3) break;
            }
            i += length - 1;
            consec = 0;
            for (j = 0; j < length; j++) {
              if (j >= 8 && d[i - j] === 1) break;
              if (d[i - j] === 2) {
                consec = 0;
                d[i - j] = 0;
              } else if (d[i - j] === 0) consec = 0;
              else consec++;
              if (consec === 3) break;
            }
          }
        }
      }
      return d;
    })
  );
}

/**
 * GNU's compareseq over diag's middle snake (Myers' linear-space search), calling `del` and
 * `ins` with the indexes of the lines of `a` and `b` that are not in the common subsequence.
 * @param {Int32Array} a @param {Int32Array} b @param {(i: number) => void} del @param {(j: number) => void} ins
 */
function compareSeq(a, b, del, ins) {
  const n = a.length;
  const m = b.length;
  const offset = m + 1;
  const fd = new Int32Array(n + m + 3);
  const bd = new Int32Array(n + m + 3);
  /** @param {number} xoff @param {number} xlim @param {number} yoff @param {number} ylim @returns {[number, number]} */
  const diag = (xoff, xlim, yoff, ylim) => {
    const dmin = xoff - ylim;
    const dmax = xlim - yoff;
    const fmid = xoff - yoff;
    const bmid = xlim - ylim;
    let fmin = fmid;
    let fmax = fmid;
    let bmin = bmid;
    let bmax = bmid;
    const odd = (fmid - bmid) & 1;
    fd[fmid + offset] = xoff;
    bd[bmid + offset] = xlim;
    for (;;) {
      if (fmin > dmin) fd[--fmin - 1 + offset] = -1;
      else ++fmin;
      if (fmax < dmax) fd[++fmax + 1 + offset] = -1;
      else --fmax;
      for (let d = fmax; d >= fmin; d -= 2) {
        const tlo = fd[d - 1 + offset];
        const thi = fd[d + 1 + offset];
        let x = tlo >= thi ? tlo + 1 : thi;
        let y = x - d;
        while (x < xlim && y < ylim && a[x] === b[y]) {
          x++;
          y++;
        }
        fd[d + offset] = x;
        if (odd && bmin <= d && d <= bmax && bd[d + offset] <= x) return [x, y];
      }
      if (bmin > dmin) bd[--bmin - 1 + offset] = 0x7fffffff;
      else ++bmin;
      if (bmax < dmax) bd[++bmax + 1 + offset] = 0x7fffffff;
      else --bmax;
      for (let d = bmax; d >= bmin; d -= 2) {
        const tlo = bd[d - 1 + offset];
        const thi = bd[d + 1 + offset];
        let x = tlo < thi ? tlo : thi - 1;
        let y = x - d;
        while (x > xoff && y > yoff && a[x - 1] === b[y - 1]) {
          x--;
          y--;
        }
        bd[d + offset] = x;
        if (!odd && fmin <= d && d <= fmax && x <= fd[d + offset]) return [x, y];
      }
    }
  };
  /** @type {[number, number, number, number][]} */
  const stack = [[0, n, 0, m]];
  while (stack.length) {
    let [xoff, xlim, yoff, ylim] = /** @type {[number, number, number, number]} */ (stack.pop());
    while (xoff < xlim && yoff < ylim && a[xoff] === b[yoff]) {
      xoff++;
      yoff++;
    }
    while (xlim > xoff && ylim > yoff && a[xlim - 1] === b[ylim - 1]) {
      xlim--;
      ylim--;
    }
    if (xoff === xlim) for (let y = yoff; y < ylim; y++) ins(y);
    else if (yoff === ylim) for (let x = xoff; x < xlim; x++) del(x);
    else {
      const [x, y] = diag(xoff, xlim, yoff, ylim);
      stack.push([x, xlim, y, ylim], [xoff, x, yoff, y]);
    }
  }
}

/**
 * GNU's shift_boundaries for one file: runs of changes slide to merge with their neighbours and,
 * failing that, as far down as they can, then back to where the other file changes.
 * @param {Uint8Array} changed @param {Uint8Array} other (both with sentinels: index k + 1 is line k)
 * @param {Int32Array} equivs the file's line ids
 */
function shiftBoundaries(changed, other, equivs) {
  const C = (/** @type {number} */ k) => changed[k + 1];
  const O = (/** @type {number} */ k) => other[k + 1];
  const iEnd = equivs.length;
  let i = 0;
  let j = 0;
  for (;;) {
    while (i < iEnd && !C(i)) {
      while (O(j++));
      i++;
    }
    if (i === iEnd) break;
    let start = i;
    while (C(++i));
    while (O(j)) j++;
    let runlength;
    let corresponding;
    do {
      runlength = i - start;
      while (start && equivs[start - 1] === equivs[i - 1]) {
        changed[--start + 1] = 1;
        changed[--i + 1] = 0;
        while (C(start - 1)) start--;
        while (O(--j));
      }
      corresponding = O(j - 1) ? i : iEnd;
      while (i !== iEnd && equivs[start] === equivs[i]) {
        changed[start++ + 1] = 0;
        changed[i++ + 1] = 1;
        while (C(i)) i++;
        while (O(++j)) corresponding = i;
      }
    } while (runlength !== i - start);
    while (corresponding < i) {
      changed[--start + 1] = 1;
      changed[--i + 1] = 0;
      while (O(--j));
    }
  }
}

/**
 * @typedef {{a0: number, a1: number, b0: number, b1: number}} Hunk lines a0..a1 of the first file become b0..b1 of the second (0-based, end
 *   excluded)
 */

/** @param {Uint8Array} ca @param {Uint8Array} cb @param {number} n @param {number} m @returns {Hunk[]} */
function hunksOf(ca, cb, n, m) {
  /** @type {Hunk[]} */
  const hunks = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && !ca[i + 1] && !cb[j + 1]) {
      i++;
      j++;
      continue;
    }
    const a0 = i;
    const b0 = j;
    while (i < n && ca[i + 1]) i++;
    while (j < m && cb[j + 1]) j++;
    hunks.push({ a0, a1: i, b0, b1: j });
  }
  return hunks;
}

/** The key two lines are compared by, under -i, -w, -b. @param {string} line @param {DiffOptions} o */
function keyOf(line, o) {
  let k = line;
  if (o.ignoreAllSpace) k = k.replace(/[ \t\v\f\r]+/g, '');
  else if (o.ignoreSpaceChange) k = k.replace(/[ \t\v\f\r]+/g, ' ').replace(/ $/, '');
  if (o.ignoreCase) k = k.toLowerCase();
  return k;
}

const NO_NEWLINE = '\\ No newline at end of file\n';

/**
 * The differences of two texts in the chosen format ('' when they do not differ; with -y, every
 * line), and whether they differ.
 * @param {Text} A @param {Text} B @param {DiffOptions} o @param {[string, string]} headers -u's `---`/`+++` lines, -c's `***`/`---` lines
 * @returns {{text: string, differ: boolean}}
 */
export function diffTexts(A, B, o, headers) {
  const text = formatted(A, B, o, headers);
  return typeof text === 'string' ? { text, differ: text !== '' } : text;
}

/**
 * @param {Text} A @param {Text} B @param {DiffOptions} o @param {[string, string]} headers
 * @returns {string | {text: string, differ: boolean}}
 */
function formatted(A, B, o, headers) {
  /** @type {Map<string, number>} */
  const ids = new Map();
  // The missing newline of a last line is part of it: `a` and `a\n` differ.
  const idsOf = (/** @type {Text} */ t) =>
    Int32Array.from(t.lines, (line, i) => {
      const key = `${keyOf(line, o)}${t.noNewline && i === t.lines.length - 1 ? '\u0000no-newline' : ''}`;
      let id = ids.get(key);
      if (id === undefined) {
        id = ids.size;
        ids.set(key, id);
      }
      return id;
    });
  const a = idsOf(A);
  const b = idsOf(B);
  const withContext = o.style === 'unified' || o.style === 'context';
  const { ca, cb } = changedLines(a, b, withContext ? o.context : 0);
  let hunks = hunksOf(ca, cb, a.length, b.length);
  if (o.ignoreBlankLines) {
    const blank = (/** @type {string[]} */ lines, /** @type {number} */ from, /** @type {number} */ to) =>
      lines.slice(from, to).every((l) => /^[ \t\v\f\r]*$/.test(l));
    hunks = hunks.filter((h) => !(blank(A.lines, h.a0, h.a1) && blank(B.lines, h.b0, h.b1)));
  }
  // Side by side shows every line, alike or not (GNU's -y of two equal files prints them all).
  if (o.style === 'side') return { text: sideBySide(hunks, A, B, o), differ: hunks.length > 0 };
  if (!hunks.length) return { text: '', differ: false };
  /** @param {Text} t @param {number} k @param {string} mark */
  const line = (t, k, mark) => `${mark}${t.lines[k]}\n${t.noNewline && k === t.lines.length - 1 ? NO_NEWLINE : ''}`;
  /**
   * A range as normal, context and ed formats write it: `3`, `3,5`, or the line before an empty one.
   * @param {number} x0
   * @param {number} x1
   */
  const span = (x0, x1) => (x1 - x0 > 1 ? `${x0 + 1},${x1}` : `${x1}`);
  if (o.style === 'normal') {
    let out = '';
    for (const h of hunks) {
      const op = h.a1 > h.a0 && h.b1 > h.b0 ? 'c' : h.a1 > h.a0 ? 'd' : 'a';
      out += `${span(h.a0, h.a1)}${op}${span(h.b0, h.b1)}\n`;
      for (let k = h.a0; k < h.a1; k++) out += line(A, k, '< ');
      if (op === 'c') out += '---\n';
      for (let k = h.b0; k < h.b1; k++) out += line(B, k, '> ');
    }
    return out;
  }
  if (o.style === 'ed') return edScript(hunks, B);
  // -u and -c: hunks closer than twice the context are one group, shown with that context.
  const context = o.context;
  /** @type {{first: number, last: number, aStart: number, aEnd: number, bStart: number, bEnd: number}[]} */
  const groups = [];
  for (let g = 0; g < hunks.length; ) {
    let last = g;
    while (last + 1 < hunks.length && hunks[last + 1].a0 - hunks[last].a1 <= 2 * context) last++;
    const aStart = Math.max(0, hunks[g].a0 - context);
    const aEnd = Math.min(A.lines.length, hunks[last].a1 + context);
    groups.push({
      first: g,
      last,
      aStart,
      aEnd,
      bStart: hunks[g].b0 - (hunks[g].a0 - aStart),
      bEnd: hunks[last].b1 + (aEnd - hunks[last].a1),
    });
    g = last + 1;
  }
  let out = `${headers[0]}\n${headers[1]}\n`;
  if (o.style === 'context') {
    for (const { first, last, aStart, aEnd, bStart, bEnd } of groups) {
      const group = hunks.slice(first, last + 1);
      out += `***************\n*** ${span(aStart, aEnd)} ****\n`;
      // Each side is shown only when it has lines of its own in the group: `!` a changed line,
      // `-` deleted, `+` inserted, two spaces for context.
      if (group.some((h) => h.a1 > h.a0)) {
        let i = aStart;
        for (const h of group) {
          for (; i < h.a0; i++) out += line(A, i, '  ');
          for (; i < h.a1; i++) out += line(A, i, h.b1 > h.b0 ? '! ' : '- ');
        }
        for (; i < aEnd; i++) out += line(A, i, '  ');
      }
      out += `--- ${span(bStart, bEnd)} ----\n`;
      if (group.some((h) => h.b1 > h.b0)) {
        let j = bStart;
        for (const h of group) {
          for (; j < h.b0; j++) out += line(B, j, '  ');
          for (; j < h.b1; j++) out += line(B, j, h.a1 > h.a0 ? '! ' : '+ ');
        }
        for (; j < bEnd; j++) out += line(B, j, '  ');
      }
    }
    return out;
  }
  const range = (/** @type {number} */ start, /** @type {number} */ length) =>
    length === 1 ? `${start + 1}` : length === 0 ? `${start},0` : `${start + 1},${length}`;
  for (const { first, last, aStart, aEnd, bStart, bEnd } of groups) {
    out += `@@ -${range(aStart, aEnd - aStart)} +${range(bStart, bEnd - bStart)} @@\n`;
    let i = aStart;
    let j = bStart;
    for (let k = first; k <= last; k++) {
      const h = hunks[k];
      for (; i < h.a0; i++, j++) out += line(A, i, ' ');
      for (; i < h.a1; i++) out += line(A, i, '-');
      for (; j < h.b1; j++) out += line(B, j, '+');
    }
    for (; i < aEnd; i++, j++) out += line(A, i, ' ');
  }
  return out;
}

/**
 * -e: an ed script turning the first file into the second, last change first (so that line
 * numbers stay true). A new line that is a lone `.` would end ed's input: it is written `..`,
 * input ended, the extra dot removed (`s/.//`) and input resumed (`a`), as GNU's ed.c does.
 * @param {Hunk[]} hunks @param {Text} B
 */
function edScript(hunks, B) {
  let out = '';
  for (const h of [...hunks].reverse()) {
    const op = h.a1 > h.a0 && h.b1 > h.b0 ? 'c' : h.a1 > h.a0 ? 'd' : 'a';
    out += `${h.a1 - h.a0 > 1 ? `${h.a0 + 1},${h.a1}` : `${h.a1}`}${op}\n`;
    if (op === 'd') continue;
    let inserting = true;
    for (let k = h.b0; k < h.b1; k++) {
      if (!inserting) {
        out += 'a\n';
        inserting = true;
      }
      if (B.lines[k] === '.') {
        out += '..\n.\ns/.//\n';
        inserting = false;
      } else out += `${B.lines[k]}\n`;
    }
    if (inserting) out += '.\n';
  }
  return out;
}

/** Printable ASCII: one column each (side-by-side). @param {number} code */
const printable = (code) => code >= 0x20 && code < 0x7f;

/**
 * -y: the two files in two columns, as GNU's side.c lays them out: each half `half` columns
 * wide, the gutter (` `, `|` changed, `<` only in the first, `>` only in the second; `/` or `\`
 * for a changed line of which one side has no final newline) midway, the second column at
 * `offset`; padding with tabs unless -t, a line cut at its half's width. Bytes other than
 * printable ASCII, tabs, \r and \b take no column (GNU's C locale).
 * @param {Hunk[]} hunks @param {Text} A @param {Text} B @param {DiffOptions} o
 */
function sideBySide(hunks, A, B, o) {
  const TAB = 8;
  const GUTTER = 3;
  const t = o.expandTabs ? 1 : TAB;
  const w = o.width;
  const off = Math.floor((w + t + GUTTER) / (2 * t)) * t;
  const half = Math.max(0, Math.min(off - GUTTER, w - off));
  const offset = half ? off : w;
  let out = '';
  /** Pads from column `from` to `to` (tabs, then spaces; spaces only with -t). @param {number} from @param {number} to */
  const pad = (from, to) => {
    if (!o.expandTabs) {
      for (let tab = from + TAB - (from % TAB); tab <= to; tab += TAB) {
        out += '\t';
        from = tab;
      }
    }
    if (to > from) out += ' '.repeat(to - from);
    return to;
  };
  /** Writes a line cut at `bound` columns; returns the column reached. @param {string} text @param {number} indent @param {number} bound */
  const halfLine = (text, indent, bound) => {
    let inPos = 0;
    let outPos = 0;
    for (let k = 0; k < text.length; k++) {
      const c = text[k];
      const code = text.charCodeAt(k);
      if (c === '\t') {
        const spaces = TAB - (inPos % TAB);
        if (inPos === outPos) {
          let stop = outPos + spaces;
          if (o.expandTabs) {
            if (bound < stop) stop = bound;
            if (stop > outPos) out += ' '.repeat(stop - outPos);
            outPos = Math.max(outPos, stop);
          } else if (stop < bound) {
            outPos = stop;
            out += c;
          }
        }
        inPos += spaces;
      } else if (c === '\r') {
        out += c;
        pad(0, indent);
        inPos = outPos = 0;
      } else if (c === '\b') {
        if (inPos !== 0 && --inPos < bound) {
          if (outPos <= inPos) {
            if (inPos > outPos) out += ' '.repeat(inPos - outPos);
            outPos = inPos;
          } else {
            outPos = inPos;
            out += c;
          }
        }
      } else if (printable(code)) {
        if (++inPos <= bound) {
          outPos = inPos;
          out += c;
        }
      } else if (inPos < bound) out += c;
    }
    return outPos;
  };
  /** @param {Text} t @param {number} k */
  const ends = (t, k) => !(t.noNewline && k === t.lines.length - 1);
  /** One row. @param {number | null} i line of A @param {string} sep @param {number | null} j line of B */
  const row = (i, sep, j) => {
    let col = 0;
    let newline = false;
    if (i !== null) {
      newline = ends(A, i);
      col = halfLine(A.lines[i], 0, half);
    }
    if (sep !== ' ') {
      col = pad(col, Math.floor((half + offset - 1) / 2)) + 1;
      if (sep === '|' && j !== null && newline !== ends(B, j)) sep = newline ? '/' : '\\';
      out += sep;
    }
    if (j !== null) {
      newline ||= ends(B, j);
      if (B.lines[j] !== '' || !ends(B, j)) {
        col = pad(col, offset);
        halfLine(B.lines[j], col, half);
      }
    }
    if (newline) out += '\n';
  };
  let i = 0;
  let j = 0;
  /** Lines alike up to a0 and b0 (their counts differ only where -B set changes aside). @param {number} a0 @param {number} b0 */
  const common = (a0, b0) => {
    if (!o.suppressCommon) {
      for (; i < a0 && j < b0; i++, j++) row(i, ' ', j);
      for (; j < b0; j++) row(null, ')', j);
      for (; i < a0; i++) row(i, '(', null);
    }
    i = a0;
    j = b0;
  };
  for (const h of hunks) {
    common(h.a0, h.b0);
    for (; i < h.a1 && j < h.b1; i++, j++) row(i, '|', j);
    for (; j < h.b1; j++) row(null, '>', j);
    for (; i < h.a1; i++) row(i, '<', null);
  }
  common(A.lines.length, B.lines.length);
  return out;
}

/** unified's header time, as GNU writes it (UTC). @param {Date} date */
function headerTime(date) {
  const p = (/** @type {number} */ n, w = 2) => String(n).padStart(w, '0');
  return (
    `${date.getUTCFullYear()}-${p(date.getUTCMonth() + 1)}-${p(date.getUTCDate())} ${p(date.getUTCHours())}:` +
    `${p(date.getUTCMinutes())}:${p(date.getUTCSeconds())}.${p(date.getUTCMilliseconds(), 3)}000000 +0000`
  );
}

/** The context format's header time, ctime's form (UTC): `Tue Jan  2 03:04:05 2024`. @param {Date} date */
function contextTime(date) {
  const p = (/** @type {number} */ n) => String(n).padStart(2, '0');
  const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][date.getUTCDay()];
  const month = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][date.getUTCMonth()];
  return (
    `${day} ${month} ${String(date.getUTCDate()).padStart(2, ' ')} ${p(date.getUTCHours())}:${p(date.getUTCMinutes())}:` +
    `${p(date.getUTCSeconds())} ${date.getUTCFullYear()}`
  );
}

/** @returns {Command} */
export function diffCommand() {
  return defineCommand('diff', async (args, ctx) => {
    const o = parseDiffArgs(args);
    if (!o) return /** @type {NonNullable<typeof ctx.origCommand>} */ (ctx.origCommand)(args);
    if (o.error) return { stdout: '', stderr: `diff: ${o.error}\ndiff: Try 'diff --help' for more information.\n`, exitCode: 2 };
    if (o.files.length !== 2)
      return {
        stdout: '',
        stderr:
          `diff: ${o.files.length < 2 ? `missing operand after '${o.files[0] ?? 'diff'}'` : `extra operand '${o.files[2]}'`}` +
          `\ndiff: Try 'diff --help' for more information.\n`,
        exitCode: 2,
      };
    const run = new DiffRun(ctx, o);
    const [x, y] = o.files;
    await run.compare(x, y, true);
    return {
      stdout: run.out,
      stdoutKind: 'bytes',
      stdoutEncoding: 'binary',
      stderr: run.err,
      exitCode: run.trouble ? 2 : run.differ ? 1 : 0,
    };
  });
}

/** One `diff` invocation: its output, and whether anything differed or went wrong. */
class DiffRun {
  /** @param {CommandContext} ctx @param {DiffOptions} o */
  constructor(ctx, o) {
    this.ctx = ctx;
    this.o = o;
    this.out = '';
    this.err = '';
    this.differ = false;
    this.trouble = false;
    this.collate = collationOf(ctx.env).compare;
  }

  /** @param {string} name @returns {Promise<{kind: 'file' | 'dir' | 'missing', path: string}>} */
  async #kind(name) {
    if (name === '-') return { kind: 'file', path: '-' };
    const path = resolveShellPath(this.ctx.cwd, name);
    if (!(await this.ctx.fs.exists(path))) return { kind: 'missing', path };
    return { kind: (await this.ctx.fs.stat(path)).isDirectory ? 'dir' : 'file', path };
  }

  /** @param {string} name @param {string} path */
  async #read(name, path) {
    if (name === '-') return /** @type {string} */ (/** @type {unknown} */ (this.ctx.stdin ?? ''));
    return latin1(await this.ctx.fs.readFileBuffer(path));
  }

  /**
   * @param {string} x @param {string} y names as given (or as found under folders)
   * @param {boolean} top the command's own operands (a folder against a file takes the file's name)
   * @param {boolean} [header] print `diff [switches] x y` before a difference (inside folders)
   */
  async compare(x, y, top, header = false) {
    let kx = await this.#kind(x);
    let ky = await this.#kind(y);
    if (top && kx.kind === 'dir' && ky.kind === 'file' && y !== '-') {
      x = `${x.replace(/\/+$/, '')}/${y.split('/').pop()}`;
      kx = await this.#kind(x);
    } else if (top && ky.kind === 'dir' && kx.kind === 'file' && x !== '-') {
      y = `${y.replace(/\/+$/, '')}/${x.split('/').pop()}`;
      ky = await this.#kind(y);
    }
    if (kx.kind === 'missing' && !(this.o.newFile && ky.kind === 'file')) return this.#missing(x);
    if (ky.kind === 'missing' && !(this.o.newFile && kx.kind === 'file')) return this.#missing(y);
    if (kx.kind === 'dir' && ky.kind === 'dir') return this.#folders(x, y);
    if (kx.kind === 'dir' || ky.kind === 'dir') {
      this.out += `File ${kx.kind === 'dir' ? y : x} is a regular file while file ${kx.kind === 'dir' ? x : y} is a directory\n`;
      this.differ = true;
      return;
    }
    const bx = kx.kind === 'missing' ? '' : await this.#read(x, kx.path);
    const by = ky.kind === 'missing' ? '' : await this.#read(y, ky.path);
    const binary = !this.o.text && (bx.slice(0, 8192).includes('\0') || by.slice(0, 8192).includes('\0'));
    if (bx === by) {
      // Side by side shows equal files too (their lines, then -s's line).
      if (this.o.style === 'side' && !this.o.brief && !binary) {
        if (header) this.out += `diff${this.o.switches.map((s) => ` ${s}`).join('')} ${x} ${y}\n`;
        this.out += diffTexts(splitLines(bx), splitLines(by), this.o, ['', '']).text;
      }
      if (this.o.same) this.out += `Files ${x} and ${y} are identical\n`;
      return;
    }
    if (this.o.brief || binary) {
      this.out += binary && !this.o.brief ? `Binary files ${x} and ${y} differ\n` : `Files ${x} and ${y} differ\n`;
      this.differ = true;
      return;
    }
    const when = async (/** @type {{kind: string, path: string}} */ k) =>
      k.kind === 'file' && k.path !== '-' ? (await this.ctx.fs.stat(k.path)).mtime : k.kind === 'missing' ? new Date(0) : new Date();
    /**
     * A file's header line: its --label as given, else its name and time.
     * @param {number} n
     * @param {string} name
     * @param {{kind: string, path: string}} k
     */
    const title = async (n, name, k) =>
      this.o.labels[n] ?? `${name}\t${this.o.style === 'context' ? contextTime(await when(k)) : headerTime(await when(k))}`;
    /** @type {[string, string]} */
    let headers = ['', ''];
    if (this.o.style === 'unified') headers = [`--- ${await title(0, x, kx)}`, `+++ ${await title(1, y, ky)}`];
    if (this.o.style === 'context') headers = [`*** ${await title(0, x, kx)}`, `--- ${await title(1, y, ky)}`];
    const [tx, ty] = [splitLines(bx), splitLines(by)];
    if (this.o.style === 'ed') {
      // An ed script has no way to say "no newline at the end": GNU completes the line, warns,
      // and ends with status 2.
      for (const [t, name] of /** @type {const} */ ([
        [tx, x],
        [ty, y],
      ])) {
        if (!t.noNewline) continue;
        t.noNewline = false;
        this.err += `diff: ${name}: No newline at end of file\n\n`;
        this.trouble = true;
      }
    }
    const { text, differ } = diffTexts(tx, ty, this.o, headers);
    if (!text) return;
    if (differ) this.differ = true;
    if (header) this.out += `diff${this.o.switches.map((s) => ` ${s}`).join('')} ${x} ${y}\n`;
    this.out += text;
  }

  /** @param {string} name */
  #missing(name) {
    this.err += `diff: ${name}: No such file or directory\n`;
    this.trouble = true;
  }

  /** @param {string} x @param {string} y */
  async #folders(x, y) {
    const list = async (/** @type {string} */ dir) => new Set(await this.ctx.fs.readdir(resolveShellPath(this.ctx.cwd, dir)));
    const [ex, ey] = [await list(x), await list(y)];
    const names = [...new Set([...ex, ...ey])].sort(this.collate);
    const join = (/** @type {string} */ dir, /** @type {string} */ name) => `${dir.replace(/\/+$/, '')}/${name}`;
    for (const name of names) {
      const [px, py] = [join(x, name), join(y, name)];
      if (!ex.has(name) || !ey.has(name)) {
        const present = ex.has(name) ? px : py;
        if (this.o.newFile && (await this.#kind(present)).kind === 'file') await this.compare(px, py, false, true);
        else {
          this.out += `Only in ${ex.has(name) ? x.replace(/\/+$/, '') : y.replace(/\/+$/, '')}: ${name}\n`;
          this.differ = true;
        }
        continue;
      }
      const [kx, ky] = [await this.#kind(px), await this.#kind(py)];
      if (kx.kind === 'dir' && ky.kind === 'dir') {
        if (this.o.recursive) await this.#folders(px, py);
        else this.out += `Common subdirectories: ${px} and ${py}\n`;
        continue;
      }
      await this.compare(px, py, false, true);
    }
  }
}
