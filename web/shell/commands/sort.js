/** @import { Command, ExecResult } from 'just-bash' */
// GNU `sort`, in place of just-bash's: keys as coreutils reads them (a field starts with the
// blanks before it unless -t; F.C positions; per-key options that replace the global ones),
// the last-resort comparison of whole lines, -n/-g/-h/-M/-V/-R/-d/-i/-f/-b, -u, -s, -c/-C, -m,
// -o, -z, and collation by the environment's locale (collate.js): LC_ALL=C sorts bytes.
import { defineCommand } from 'just-bash';
import { fromLatin1, latin1, resolveShellPath } from '../bash-fs.js';
import { collationOf } from './collate.js';

/**
 * @typedef {object} KeyOptions
 * @property {boolean} [b] leading blanks skipped (start) @property {boolean} [eb] (end)
 * @property {boolean} [d] @property {boolean} [f] @property {boolean} [g] @property {boolean} [h]
 * @property {boolean} [i] @property {boolean} [M] @property {boolean} [n] @property {boolean} [R]
 * @property {boolean} [r] @property {boolean} [V]
 */
/** @typedef {KeyOptions & {sword: number, schar: number, eword: number, echar: number}} Key 0-based; eword Infinity = end of line */

const ORDERING = 'dfgiMhnRV';
const BLANK = /[ \t]/;
const decoder = new TextDecoder();

/** @param {string} message @returns {ExecResult} */
const fail = (message) => ({ stdout: '', stderr: `sort: ${message}\n`, exitCode: 2 });

/** Whether a key has options of its own that order (then it inherits none of the global ones). @param {KeyOptions} k */
const hasOrdering = (k) => !!(k.b || k.eb || k.d || k.f || k.g || k.h || k.i || k.M || k.n || k.R || k.V);

/**
 * A -k value: F[.C][OPTS][,F[.C][OPTS]].
 * @param {string} spec @returns {Key | string} the key, or what is wrong with it
 */
export function parseKey(spec) {
  const m = /^(\d+)(?:\.(\d+))?([bdfgiMhnRrV]*)(?:,(\d+)(?:\.(\d+))?([bdfgiMhnRrV]*))?$/.exec(spec);
  if (!m) return `invalid field specification '${spec}'`;
  const sword = Number(m[1]);
  if (sword === 0) return `field number is zero: invalid field specification '${spec}'`;
  if (m[2] !== undefined && Number(m[2]) === 0) return `character offset is zero: invalid field specification '${spec}'`;
  /** @type {Key} */
  const key = { sword: sword - 1, schar: m[2] ? Number(m[2]) - 1 : 0, eword: Infinity, echar: 0 };
  for (const c of m[3]) /** @type {Record<string, boolean>} */ (/** @type {unknown} */ (key))[c] = true;
  if (m[4] !== undefined) {
    if (Number(m[4]) === 0) return `field number is zero: invalid field specification '${spec}'`;
    key.eword = Number(m[4]) - 1;
    key.echar = m[5] ? Number(m[5]) : 0;
    for (const c of m[6]) /** @type {Record<string, boolean>} */ (/** @type {unknown} */ (key))[c === 'b' ? 'eb' : c] = true;
  }
  return key;
}

/**
 * The key's text in a line (coreutils' begfield and limfield).
 * @param {string} line @param {Key} key @param {string | null} tab
 */
function keyText(line, key, tab) {
  const lim = line.length;
  let ptr = 0;
  let sword = key.sword;
  if (tab !== null) {
    while (ptr < lim && sword--) {
      while (ptr < lim && line[ptr] !== tab) ++ptr;
      if (ptr < lim) ++ptr;
    }
  } else {
    while (ptr < lim && sword--) {
      while (ptr < lim && BLANK.test(line[ptr])) ++ptr;
      while (ptr < lim && !BLANK.test(line[ptr])) ++ptr;
    }
  }
  if (key.b) while (ptr < lim && BLANK.test(line[ptr])) ++ptr;
  const start = Math.min(lim, ptr + key.schar);
  let end = lim;
  if (key.eword !== Infinity) {
    let eword = key.echar === 0 ? key.eword + 1 : key.eword;
    let p = 0;
    if (tab !== null) {
      while (p < lim && eword--) {
        while (p < lim && line[p] !== tab) ++p;
        if (p < lim && (eword || key.echar)) ++p;
      }
    } else {
      while (p < lim && eword--) {
        while (p < lim && BLANK.test(line[p])) ++p;
        while (p < lim && !BLANK.test(line[p])) ++p;
      }
    }
    if (key.echar !== 0) {
      if (key.eb) while (p < lim && BLANK.test(line[p])) ++p;
      p = Math.min(lim, p + key.echar);
    }
    end = p;
  }
  return end > start ? line.slice(start, end) : '';
}

/** -n: GNU's number (blanks, an optional '-', digits, a '.' fraction), as a comparable triple. @param {string} s */
function numericValue(s) {
  const m = /^[ \t]*(-?)(\d*)(?:\.(\d*))?/.exec(s);
  const int = (m?.[2] ?? '').replace(/^0+/, '');
  const frac = (m?.[3] ?? '').replace(/0+$/, '');
  const neg = m?.[1] === '-' && (int !== '' || frac !== '');
  return { neg, int, frac };
}

/** @param {{neg: boolean, int: string, frac: string}} a @param {{neg: boolean, int: string, frac: string}} b */
function compareNumeric(a, b) {
  if (a.neg !== b.neg) return a.neg ? -1 : 1;
  const d = a.int.length - b.int.length || (a.int < b.int ? -1 : a.int > b.int ? 1 : 0) || (a.frac < b.frac ? -1 : a.frac > b.frac ? 1 : 0);
  return a.neg ? -d : d;
}

/** -g: strtold's reading; NaN when no number starts the text. @param {string} s */
function generalValue(s) {
  const m = /^\s*([+-]?)(inf(?:inity)?|nan|0x[0-9a-f]+(?:\.[0-9a-f]*)?(?:p[+-]?\d+)?|(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)/i.exec(s);
  if (!m) return { ok: false, v: 0 };
  const body = m[2].toLowerCase();
  let v = body.startsWith('inf') ? Infinity : body === 'nan' ? NaN : body.startsWith('0x') ? Number.parseInt(body, 16) : Number(body);
  if (m[1] === '-') v = -v;
  return { ok: true, v };
}

/** @param {{ok: boolean, v: number}} a @param {{ok: boolean, v: number}} b */
function compareGeneral(a, b) {
  if (!a.ok) return b.ok ? -1 : 0;
  if (!b.ok) return 1;
  const x = a.v;
  const y = b.v;
  return x < y ? -1 : x > y ? 1 : x === y ? 0 : Number.isNaN(x) ? (Number.isNaN(y) ? 0 : -1) : 1;
}

const UNITS = 'KMGTPEZYRQ';

/** -h: a number with an SI suffix: the suffix counts first. @param {string} s */
function humanValue(s) {
  const m = /^[ \t]*(-?)(\d*)(?:\.(\d*))?([kKMGTPEZYRQ]?)/.exec(s);
  const unit = m?.[4] ? UNITS.indexOf(m[4].toUpperCase()) + 1 : 0;
  return { num: numericValue(s), unit: m?.[1] === '-' ? -unit : unit };
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];

/** @param {string} s */
const monthValue = (s) =>
  MONTHS.indexOf(
    s
      .replace(/^[ \t]+/, '')
      .slice(0, 3)
      .toUpperCase(),
  ) + 1;

/** dpkg's order of a character in a version's non-digit part. @param {string} s @param {number} i */
function order(s, i) {
  if (i >= s.length) return 0;
  const c = s[i];
  if (/[0-9]/.test(c)) return 0;
  if (/[A-Za-z]/.test(c)) return c.charCodeAt(0);
  if (c === '~') return -1;
  return c.charCodeAt(0) + 256;
}

/** dpkg's verrevcmp (what gnulib's filevercmp builds on). @param {string} a @param {string} b */
function verrevcmp(a, b) {
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    let first = 0;
    while ((i < a.length && !/[0-9]/.test(a[i])) || (j < b.length && !/[0-9]/.test(b[j]))) {
      const d = order(a, i) - order(b, j);
      if (d) return d;
      i++;
      j++;
    }
    while (a[i] === '0') i++;
    while (b[j] === '0') j++;
    while (i < a.length && j < b.length && /[0-9]/.test(a[i]) && /[0-9]/.test(b[j])) {
      if (!first) first = a.charCodeAt(i) - b.charCodeAt(j);
      i++;
      j++;
    }
    if (i < a.length && /[0-9]/.test(a[i])) return 1;
    if (j < b.length && /[0-9]/.test(b[j])) return -1;
    if (first) return first;
  }
  return 0;
}

/** -V: gnulib's filevercmp. @param {string} a @param {string} b */
export function filevercmp(a, b) {
  if (a === b) return 0;
  if (!a) return -1;
  if (!b) return 1;
  for (const special of ['.', '..']) {
    if (a === special) return -1;
    if (b === special) return 1;
  }
  if (a[0] === '.' && b[0] !== '.') return -1;
  if (b[0] === '.' && a[0] !== '.') return 1;
  const suffix = /(?:\.[A-Za-z~][A-Za-z0-9~]*)*$/;
  const pa = a.slice(a[0] === '.' ? 1 : 0).replace(suffix, '');
  const pb = b.slice(b[0] === '.' ? 1 : 0).replace(suffix, '');
  const d = pa === pb ? 0 : verrevcmp(pa, pb);
  return d || verrevcmp(a, b) || (a < b ? -1 : 1);
}

/** A 32-bit FNV-1a hash with a salt, for -R (equal keys stay together). @param {string} s @param {number} salt */
function hash(s, salt) {
  let h = (0x811c9dc5 ^ salt) >>> 0;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0;
  return h;
}

/** @typedef {{line: string, text: string, keys: unknown[]}} Prepared a line, prepared once: its text and each key's value */

/**
 * The comparison of lines under the options: each key, then (unless -s or -u) the whole lines,
 * as coreutils' compare(). Each line is prepared once (its keys cut, decoded, parsed), so the
 * sort compares values, not text to cut again.
 * @param {{keys: Key[], global: KeyOptions, tab: string | null, stable: boolean, unique: boolean, collate: (a: string, b: string) =>
 *   number, byteOrder: boolean}} o
 * @returns {{prepare: (line: string) => Prepared, compare: (a: Prepared, b: Prepared) => number}}
 */
function comparator(o) {
  const salt = (Math.random() * 0x100000000) >>> 0;
  /** Text of a byte string for comparing: itself in C (byte order), its UTF-8 otherwise. */
  const textOf = o.byteOrder ? (/** @type {string} */ b) => b : utf8;
  const text = o.byteOrder ? (/** @type {string} */ a, /** @type {string} */ b) => (a < b ? -1 : a > b ? 1 : 0) : o.collate;
  /** @param {string} raw @param {Key} k @returns {unknown} */
  const keyValue = (raw, k) => {
    if (k.R) return { h: hash(raw, salt), t: textOf(raw) };
    if (k.n) return numericValue(raw);
    if (k.g) return generalValue(raw);
    if (k.h) return humanValue(raw);
    if (k.M) return monthValue(raw);
    if (k.V) return textOf(raw);
    return textOf(k.d || k.i || k.f ? translate(raw, k) : raw);
  };
  /** @param {any} a @param {any} b @param {Key} k any: the value keyValue made for this key */
  const compareKey = (a, b, k) => {
    if (k.R) return a.h - b.h || text(a.t, b.t);
    if (k.n) return compareNumeric(a, b);
    if (k.g) return compareGeneral(a, b);
    if (k.h) return a.unit - b.unit || compareNumeric(a.num, b.num);
    if (k.M) return a - b;
    if (k.V) return filevercmp(a, b);
    if (!a.length) return b.length ? -1 : 0;
    if (!b.length) return 1;
    return text(a, b);
  };
  const keys = o.keys;
  return {
    prepare: (line) => ({ line, text: textOf(line), keys: keys.map((k) => keyValue(keyText(line, k, o.tab), k)) }),
    compare: (a, b) => {
      for (let i = 0; i < keys.length; i++) {
        const d = compareKey(a.keys[i], b.keys[i], keys[i]);
        if (d) return keys[i].r ? -d : d;
      }
      if (keys.length && (o.stable || o.unique)) return 0;
      let d;
      if (!a.text.length) d = b.text.length ? -1 : 0;
      else if (!b.text.length) d = 1;
      else d = text(a.text, b.text);
      return o.global.r ? -d : d;
    },
  };
}

/** @type {Map<string, string>} */
const decoded = new Map();

/** The text of a UTF-8 byte string (cached: lines repeat). @param {string} bytes */
function utf8(bytes) {
  if (!/[\x80-\xff]/.test(bytes)) return bytes;
  let s = decoded.get(bytes);
  if (s === undefined) {
    if (decoded.size > 100_000) decoded.clear();
    s = decoder.decode(fromLatin1(bytes));
    decoded.set(bytes, s);
  }
  return s;
}

/** -d, -i, -f applied to a key. @param {string} s @param {KeyOptions} k */
function translate(s, k) {
  let out = s;
  if (k.d) out = out.replace(/[^ \t\n\v\f\r0-9A-Za-z\x80-\xff]/g, '');
  else if (k.i) out = out.replace(/[^\x20-\x7e\x80-\xff]/g, '');
  if (k.f) out = out.toUpperCase();
  return out;
}

/**
 * GNU's options: the ordering letters (global, or per key with -k), -c/-C, -m, -o, -s, -S, -t,
 * -T, -u, -z, and their long forms. Null for what this command does not handle (--help…).
 * @param {string[]} args
 */
export function parseSortArgs(args) {
  /** @type {KeyOptions} */
  const global = {};
  /** @type {Key[]} */
  const keys = [];
  const o = {
    global,
    keys,
    tab: /** @type {string | null} */ (null),
    check: /** @type {'' | 'diagnose' | 'quiet'} */ (''),
    merge: false,
    output: /** @type {string | null} */ (null),
    stable: false,
    unique: false,
    zero: false,
    files: /** @type {string[]} */ ([]),
    error: '',
  };
  const LONG_FLAGS = /** @type {Record<string, string>} */ ({
    'ignore-leading-blanks': 'b',
    'dictionary-order': 'd',
    'ignore-case': 'f',
    'general-numeric-sort': 'g',
    'human-numeric-sort': 'h',
    'ignore-nonprinting': 'i',
    'month-sort': 'M',
    'numeric-sort': 'n',
    'random-sort': 'R',
    reverse: 'r',
    'version-sort': 'V',
    merge: 'm',
    stable: 's',
    unique: 'u',
    'zero-terminated': 'z',
  });
  const SORT_WORDS = /** @type {Record<string, string>} */ ({
    'general-numeric': 'g',
    'human-numeric': 'h',
    month: 'M',
    numeric: 'n',
    random: 'R',
    version: 'V',
  });
  /** @param {string} c */
  const flag = (c) => {
    if (ORDERING.includes(c) || c === 'r') /** @type {Record<string, boolean>} */ (/** @type {unknown} */ (global))[c] = true;
    else if (c === 'b') global.b = global.eb = true;
    else if (c === 'c') o.check = 'diagnose';
    else if (c === 'C') o.check = 'quiet';
    else if (c === 'm') o.merge = true;
    else if (c === 's') o.stable = true;
    else if (c === 'u') o.unique = true;
    else if (c === 'z') o.zero = true;
    else return false;
    return true;
  };
  /** @param {string} name @param {string} value */
  const valued = (name, value) => {
    if (name === 'k') {
      const key = parseKey(value);
      if (typeof key === 'string') o.error = key;
      else keys.push(key);
    } else if (name === 't') {
      if (value === '\\0') o.tab = '\0';
      else if (value.length === 0) o.error = 'empty tab';
      else if (value.length > 1) o.error = `multi-character tab '${value}'`;
      else o.tab = value;
    } else if (name === 'o') o.output = value;
    // -S, -T: memory and temporary files mean nothing here.
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
    if (a.startsWith('--')) {
      const [name, inline] = a.slice(2).split(/=(.*)/s);
      if (LONG_FLAGS[name]) flag(LONG_FLAGS[name]);
      else if (name === 'check') o.check = inline === 'quiet' || inline === 'silent' ? 'quiet' : 'diagnose';
      else if (name === 'sort' && SORT_WORDS[inline ?? '']) flag(SORT_WORDS[inline ?? '']);
      else if (['key', 'field-separator', 'output', 'buffer-size', 'temporary-directory', 'parallel', 'batch-size'].includes(name)) {
        const value = inline ?? args[++i] ?? '';
        const short = /** @type {Record<string, string>} */ ({ key: 'k', 'field-separator': 't', output: 'o' })[name];
        if (short) valued(short, value);
      } else return null;
      continue;
    }
    for (let j = 1; j < a.length; j++) {
      const c = a[j];
      if ('ktoST'.includes(c)) {
        valued(c, a.slice(j + 1) || args[++i] || '');
        break;
      }
      if (!flag(c)) return null;
    }
  }
  return o;
}

/** @returns {Command} */
export function sortCommand() {
  return defineCommand('sort', async (args, ctx) => {
    const o = parseSortArgs(args);
    if (!o) return /** @type {NonNullable<typeof ctx.origCommand>} */ (ctx.origCommand)(args);
    if (o.error) return fail(o.error);
    // A key with no ordering options of its own takes the global ones (coreutils).
    for (const k of o.keys) if (!hasOrdering(k) && !k.r) Object.assign(k, o.global);
    // Global ordering options without -k: one key, the whole line.
    if (!o.keys.length && hasOrdering(o.global)) o.keys.push({ ...o.global, sword: 0, schar: 0, eword: Infinity, echar: 0 });
    const delimiter = o.zero ? '\0' : '\n';
    /** @type {string[][]} */
    const inputs = [];
    for (const file of o.files.length ? o.files : ['-']) {
      /** @type {string} */
      let text;
      if (file === '-') text = /** @type {string} */ (/** @type {unknown} */ (ctx.stdin ?? ''));
      else {
        const path = resolveShellPath(ctx.cwd, file);
        if (!(await ctx.fs.exists(path))) return fail(`cannot read: ${file}: No such file or directory`);
        if ((await ctx.fs.stat(path)).isDirectory) return fail(`read failed: ${file}: Is a directory`);
        text = latin1(await ctx.fs.readFileBuffer(path));
      }
      const lines = text.split(delimiter);
      if (lines[lines.length - 1] === '') lines.pop();
      inputs.push(lines);
    }
    const { byteOrder, compare: collate } = collationOf(ctx.env);
    const { prepare, compare } = comparator({
      keys: o.keys,
      global: o.global,
      tab: o.tab,
      stable: o.stable,
      unique: o.unique,
      collate,
      byteOrder,
    });
    if (o.check) {
      const lines = (inputs[0] ?? []).map(prepare);
      for (let i = 1; i < lines.length; i++) {
        const d = compare(lines[i - 1], lines[i]);
        if (d > 0 || (o.unique && d === 0)) {
          const shown = o.check === 'diagnose' ? `sort: ${o.files[0] ?? '-'}:${i + 1}: disorder: ${utf8(lines[i].line)}\n` : '';
          return { stdout: '', stderr: shown, exitCode: 1 };
        }
      }
      return { stdout: '', stderr: '', exitCode: 0 };
    }
    /** @type {Prepared[]} */
    let records;
    if (o.merge) {
      records = inputs
        .map((lines) => lines.map(prepare))
        .reduce(
          (merged, next) => {
            /** @type {Prepared[]} */
            const out = [];
            let i = 0;
            let j = 0;
            while (i < merged.length && j < next.length) out.push(compare(merged[i], next[j]) <= 0 ? merged[i++] : next[j++]);
            return out.concat(merged.slice(i), next.slice(j));
          },
          /** @type {Prepared[]} */ ([]),
        );
    } else if (!o.keys.length && (byteOrder || !inputs.some((lines) => lines.some((l) => /[\x80-\xff]/.test(l))))) {
      // Whole lines that are their own text (bytes in C, ASCII otherwise): sorted as they are.
      const text = byteOrder ? (/** @type {string} */ a, /** @type {string} */ b) => (a < b ? -1 : a > b ? 1 : 0) : collate;
      const sign = o.global.r ? -1 : 1;
      // Each distinct line sorted once, then repeated (equal lines are the same bytes): text often
      // repeats its lines, and a comparison by the locale costs far more than counting.
      /** @type {Map<string, number>} */
      const counts = new Map();
      for (const list of inputs) for (const l of list) counts.set(l, (counts.get(l) ?? 0) + 1);
      const distinct = [...counts.keys()].sort((a, b) => sign * text(a, b));
      /** @type {string[]} */
      const lines = [];
      for (const l of distinct) for (let n = o.unique ? 1 : /** @type {number} */ (counts.get(l)); n > 0; n--) lines.push(l);
      records = lines.map((line) => ({ line, text: line, keys: [] }));
      o.unique = false;
    } else {
      records = inputs.flat().map(prepare);
      records.sort(compare);
    }
    // Keys equal (no last resort with -u): the first of each run is kept.
    if (o.unique) records = records.filter((r, i) => i === 0 || compare(records[i - 1], r) !== 0);
    const lines = records.map((r) => r.line);
    const out = lines.length ? `${lines.join(delimiter)}${delimiter}` : '';
    if (o.output !== null) {
      await ctx.fs.writeFile(resolveShellPath(ctx.cwd, o.output), fromLatin1(out));
      return { stdout: '', stderr: '', exitCode: 0 };
    }
    return { stdout: out, stdoutKind: 'bytes', stdoutEncoding: 'binary', stderr: '', exitCode: 0 };
  });
}
