/** @import { Command } from 'just-bash' */
// `grep` as GNU's where just-bash's differs; the matching itself stays just-bash's. With -r the
// operands are handed to just-bash's recursion so that it names files as GNU does — from the
// operand as written (`./docs/a.md` for `.`, `notes/x` for `notes/`, no prefix without an
// operand) — and reaches dot files, which it skips; a missing operand is an error (status 2).
// Also -H, -s, and several -e patterns (just-bash kept only the last). A binary file (a NUL
// byte in it) is GNU grep 3.8's: a match is reported on stderr as `grep: FILE: binary file
// matches` instead of printing raw bytes, -a (--text) reads it as text and -I skips it
// (--binary-files=TYPE). Any other line goes to just-bash's grep unchanged.
import { defineCommand } from 'just-bash';
import { fromLatin1, latin1, resolveShellPath } from '../bash-fs.js';
import { bytesResult, stdinBytes, utf8Bytes } from './byte-text.js';

/** Options whose value is the next word (or the rest of the word). */
const VALUED = 'efmABCdD';
const VALUED_LONG = [
  'regexp',
  'file',
  'max-count',
  'after-context',
  'before-context',
  'context',
  'directories',
  'devices',
  'include',
  'exclude',
  'exclude-dir',
  'exclude-from',
  'label',
  'binary-files',
];

/** What GNU grep does with a binary file: --binary-files=TYPE. */
const BINARY_TYPES = ['binary', 'text', 'without-match'];
/** @typedef {'binary' | 'text' | 'without-match'} BinaryFiles */

/**
 * @param {string[]} args
 * `binary` is null unless -a, -I or --binary-files was given (the last one wins); `badBinary`
 * holds a --binary-files value grep does not know.
 * @returns {{pass: string[], patterns: string[], patternGiven: boolean, fixed: boolean, recursive: boolean, withName: boolean | null,
 *   quietErrors: boolean, include: string[], exclude: string[], excludeDir: string[], operands: string[], binary: BinaryFiles | null,
 *   badBinary: string | null, stripped: boolean} | null}
 */
export function parseGrepArgs(args) {
  const o = {
    pass: /** @type {string[]} */ ([]),
    patterns: /** @type {string[]} */ ([]),
    patternGiven: false,
    fixed: false,
    recursive: false,
    withName: /** @type {boolean | null} */ (null),
    quietErrors: false,
    include: /** @type {string[]} */ ([]),
    exclude: /** @type {string[]} */ ([]),
    excludeDir: /** @type {string[]} */ ([]),
    operands: /** @type {string[]} */ ([]),
    binary: /** @type {BinaryFiles | null} */ (null),
    badBinary: /** @type {string | null} */ (null),
    stripped: false,
  };
  /** @param {string} name @param {string} value */
  const valued = (name, value) => {
    if (name === 'e' || name === 'regexp') o.patterns.push(value);
    else if (name === 'binary-files') {
      o.stripped = true;
      if (BINARY_TYPES.includes(value)) o.binary = /** @type {BinaryFiles} */ (value);
      else o.badBinary = value;
    } else if (name === 'include') o.include.push(value);
    else if (name === 'exclude') o.exclude.push(value);
    else if (name === 'exclude-dir') o.excludeDir.push(value);
    else {
      if (name === 'f' || name === 'file') o.patternGiven = true;
      o.pass.push(name.length === 1 ? `-${name}` : `--${name}`, value);
    }
  };
  let options = true;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (!options || a === '-' || !a.startsWith('-')) {
      o.operands.push(a);
      continue;
    }
    if (a === '--') {
      options = false;
      continue;
    }
    if (a.startsWith('--')) {
      const [name, inline] = a.slice(2).split(/=(.*)/s);
      if (VALUED_LONG.includes(name)) valued(name, inline ?? args[++i] ?? '');
      else if (name === 'recursive' || name === 'dereference-recursive') o.recursive = true;
      else if (name === 'with-filename') o.withName = true;
      else if (name === 'no-filename') o.withName = false;
      else if (name === 'no-messages') o.quietErrors = true;
      else if (name === 'text' || name === 'binary') {
        // --binary (-U) means nothing on POSIX systems.
        if (name === 'text') o.binary = 'text';
        o.stripped = true;
      } else {
        if (name === 'fixed-strings') o.fixed = true;
        o.pass.push(a);
      }
      continue;
    }
    for (let j = 1; j < a.length; j++) {
      const c = a[j];
      if (VALUED.includes(c)) {
        valued(c, a.slice(j + 1) || args[++i] || '');
        break;
      }
      if (c === 'r' || c === 'R') o.recursive = true;
      else if (c === 'H') o.withName = true;
      else if (c === 'h') o.withName = false;
      else if (c === 's') o.quietErrors = true;
      else if (c === 'a' || c === 'I' || c === 'U') {
        if (c !== 'U') o.binary = c === 'a' ? 'text' : 'without-match';
        o.stripped = true;
      } else {
        if (c === 'F') o.fixed = true;
        o.pass.push(`-${c}`);
      }
    }
  }
  if (o.patterns.length) o.patternGiven = true;
  else if (!o.patternGiven) {
    const first = o.operands.shift();
    if (first === undefined) return null;
    o.patterns.push(first);
  }
  return o;
}

/** A shell glob (--include, --exclude) as a regular expression over a name. @param {string} glob */
function globRegExp(glob) {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) re += '\\[';
      else {
        re += `[${glob
          .slice(i + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else re += c.replace(/[.+^${}()|\\/]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 's');
}

/**
 * Where the shell's file system counts reads of files holding a NUL byte (bash-fs.js): grep's
 * cue that a search met a binary file, without reading every file twice.
 * `batchReads` turns its read-ahead off while grep reads files in batches of its own.
 * @typedef {{watchBinary: number, binaryReads: number, batchReads?: number}} BinaryWatch
 */

/** @param {BinaryWatch} [watch] the shell's file system @returns {Command} */
export function grepCommand(watch = { watchBinary: 0, binaryReads: 0 }) {
  return defineCommand('grep', async (args, ctx) => {
    const orig = /** @type {NonNullable<typeof ctx.origCommand>} */ (ctx.origCommand);
    const o = parseGrepArgs(args);
    if (o?.badBinary !== null && o?.badBinary !== undefined)
      return { stdout: '', stderr: 'grep: unknown binary-files type\n', exitCode: 2 };
    const binary = o?.binary ?? 'binary';
    const has = (/** @type {string[]} */ names) => !!o && o.pass.some((a) => names.includes(a));
    const quietMode = has(['-q', '--quiet', '--silent']);
    const counting = has(['-c', '--count']);
    const listing = has(['-l', '--files-with-matches']);
    const listingMissing = has(['-L', '--files-without-match']);
    // Standard input is a byte string (one char per byte; the ByteString brand is a type only).
    const stdinText = () => /** @type {string} */ (/** @type {unknown} */ (ctx.stdin ?? ''));
    /**
     * just-bash's grep, told whether it read a binary file (a NUL byte in a file or in standard
     * input) — which only matters where GNU's output differs from just-bash's.
     * @param {string[]} list @returns {Promise<import('just-bash').ExecResult & {sawBinary: boolean}>}
     */
    const search = async (list) => {
      const before = watch.binaryReads;
      watch.watchBinary++;
      try {
        const r = await orig(list);
        const stdin = stdinText().includes('\0');
        return { ...r, sawBinary: watch.binaryReads !== before || stdin };
      } finally {
        watch.watchBinary--;
      }
    };
    const binaryMatters = (/** @type {boolean} */ sawBinary) =>
      sawBinary && (binary === 'without-match' || (binary === 'binary' && !counting && !listing && !listingMissing && !quietMode));
    // What just-bash's grep already does as GNU's: left to it as written.
    // (Unless the pattern is a literal text: literalSearch below is faster.)
    if (!o || (!o.recursive && o.withName === null && !o.quietErrors && o.patterns.length <= 1 && !o.stripped && !literalOptions(o))) {
      const r = await search(args);
      if (!o || !binaryMatters(r.sawBinary)) return { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode };
    }
    // Several patterns: one newline-separated list (GNU's own form of it); fixed strings as
    // alternatives of escaped ones, which just-bash's -F does not split.
    /** @type {string[]} */
    let pattern = [];
    if (o.patterns.length === 1) pattern = ['-e', o.patterns[0]];
    else if (o.patterns.length > 1 && o.fixed)
      pattern = ['-E', '-e', o.patterns.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')];
    else if (o.patterns.length > 1) pattern = ['-e', o.patterns.join('\n')];
    const pass = o.patterns.length > 1 && o.fixed ? o.pass.filter((a) => a !== '-F' && a !== '--fixed-strings') : o.pass;
    const include = o.include.map(globRegExp);
    const exclude = o.exclude.map(globRegExp);
    const excludeDir = o.excludeDir.map(globRegExp);
    const wanted = (/** @type {string} */ name) =>
      (!include.length || include.some((r) => r.test(name))) && !exclude.some((r) => r.test(name));
    /** Names as GNU's fts builds them from the operand. @param {string} base @param {string} name */
    const under = (base, name) => (base === '' ? name : base === '/' ? `/${name}` : `${base}/${name}`);
    /**
     * What to hand just-bash's own recursion for a folder: the folder itself when nothing in it
     * is hidden from that recursion (dot files; `.` and `/` it names wrongly), else its entries
     * one by one (always, with `each`). Its recursion lists folders without a stat per file,
     * which keeps the search fast.
     * @param {string} base as shown @param {string} path @param {boolean} each
     * @returns {Promise<{clean: boolean, operands: string[]}>}
     */
    const split = async (base, path, each) => {
      const entries = ctx.fs.readdirWithFileTypes
        ? await ctx.fs.readdirWithFileTypes(path)
        : await Promise.all(
            (await ctx.fs.readdir(path)).map(async (name) => ({
              name,
              isDirectory: (await ctx.fs.stat(`${path === '/' ? '' : path}/${name}`)).isDirectory,
            })),
          );
      let clean = !each && base !== '' && base !== '.' && base !== '/' && !base.endsWith('/.');
      /** @type {string[]} */
      const operands = [];
      // The subfolders listed at once (a storage round trip each), their names kept in order.
      const inners = await Promise.all(
        entries.map(({ name, isDirectory }) =>
          isDirectory && !excludeDir.some((r) => r.test(name))
            ? split(under(base, name), `${path === '/' ? '' : path}/${name}`, each)
            : null,
        ),
      );
      for (const [k, { name, isDirectory }] of entries.entries()) {
        const shown = under(base, name);
        if (name.startsWith('.')) clean = false;
        if (isDirectory) {
          const inner = inners[k];
          if (!inner) continue;
          if (!inner.clean) clean = false;
          operands.push(...(inner.clean ? [shown] : inner.operands));
        } else if (wanted(name)) operands.push(shown);
      }
      return { clean, operands: clean ? [base] : operands };
    };
    let stderr = '';
    let trouble = false;
    const operands = o.operands.length ? o.operands : o.recursive ? [''] : [];
    /** The files to search (folders given whole to just-bash's recursion, unless `each`). @param {boolean} each */
    const collect = async (each) => {
      stderr = '';
      trouble = false;
      let sawFolder = false;
      /** @type {string[]} */
      const files = [];
      for (const operand of operands) {
        if (operand === '-') {
          files.push('-');
          continue;
        }
        const path = resolveShellPath(ctx.cwd, operand || '.');
        if (!(await ctx.fs.exists(path))) {
          if (!o.quietErrors) stderr += `grep: ${operand}: No such file or directory\n`;
          trouble = true;
          continue;
        }
        if (o.recursive && (await ctx.fs.stat(path)).isDirectory) {
          sawFolder = true;
          files.push(...(await split(operand === '/' ? '/' : operand.replace(/\/+$/, ''), path, each)).operands);
        } else if (!o.recursive || wanted(operand.split('/').pop() ?? operand)) files.push(operand);
      }
      return { files, sawFolder, failed: trouble };
    };
    watch.batchReads = (watch.batchReads ?? 0) + 1;
    const fast = await literalSearch(ctx, o, collect, operands).finally(() => {
      watch.batchReads = (watch.batchReads ?? 1) - 1;
    });
    if (fast) return fast;
    const { files, sawFolder } = await collect(false);
    const withName = o.withName ?? (operands.length > 1 || sawFolder);
    if (!files.length && operands.length) return { stdout: '', stderr, exitCode: trouble ? 2 : 1 };
    // just-bash names files when it has several, or with -r (even for one file); -h never.
    const naming = (/** @type {number} */ count) => [
      ...(o.recursive || (withName && count === 1) ? ['-r'] : []),
      ...(withName ? [] : ['-h']),
    ];
    const filters = o.recursive
      ? [
          ...o.include.map((g) => `--include=${g}`),
          ...o.exclude.map((g) => `--exclude=${g}`),
          ...o.excludeDir.map((g) => `--exclude-dir=${g}`),
        ]
      : [];
    const quiet = (/** @type {string} */ text) =>
      o.quietErrors
        ? text
            .split('\n')
            .filter((l) => !/: (No such file or directory|Is a directory|Permission denied)$/.test(l))
            .join('\n')
        : text;
    const result = await search([...pass, ...naming(files.length), ...filters, ...pattern, '--', ...files]);
    if (!binaryMatters(result.sawBinary)) {
      const found = result.exitCode === 0;
      return {
        stdout: result.stdout,
        stderr: stderr + quiet(result.stderr),
        exitCode: trouble && !(found && quietMode) ? 2 : result.exitCode,
      };
    }
    // A binary file was read: file by file, as GNU grep does it.
    const each = (await collect(true)).files;
    let stdout = '';
    let found = false;
    for (const file of each.length || operands.length ? each : ['']) {
      const fromStdin = file === '-' || file === '';
      const shown = fromStdin ? '(standard input)' : file;
      const operand = file === '' ? [] : [file];
      let isBinary = false;
      if (fromStdin) isBinary = stdinText().includes('\0');
      else {
        const path = resolveShellPath(ctx.cwd, file);
        isBinary = await ctx.fs.stat(path).then(
          async (st) => st.isFile && (await ctx.fs.readFileBuffer(path)).includes(0),
          () => false,
        );
      }
      if (isBinary && binary === 'without-match') {
        if (counting) stdout += withName ? `${shown}:0\n` : '0\n';
        if (listingMissing) stdout += `${shown}\n`;
        continue;
      }
      const lineless = isBinary && binary === 'binary' && !counting && !listing && !listingMissing && !quietMode;
      const r = await orig([...pass, ...(lineless ? ['-q'] : naming(1)), ...pattern, '--', ...operand]);
      if (lineless && r.exitCode === 0) stderr += `grep: ${shown}: binary file matches\n`;
      else {
        stdout += r.stdout;
        stderr += quiet(r.stderr);
      }
      if (r.exitCode === 0) found = true;
      else if (r.exitCode > 1) trouble = true;
      if (found && quietMode) break;
    }
    return { stdout: quietMode ? '' : stdout, stderr, exitCode: found && quietMode ? 0 : trouble ? 2 : found ? 0 : 1 };
  });
}

/** The options a literal search handles itself (literalSearch). */
const LITERAL_OPTIONS = new Map([
  ['-v', 'v'],
  ['--invert-match', 'v'],
  ['-c', 'c'],
  ['--count', 'c'],
  ['-n', 'n'],
  ['--line-number', 'n'],
  ['-l', 'l'],
  ['--files-with-matches', 'l'],
  ['-q', 'q'],
  ['--quiet', 'q'],
  ['--silent', 'q'],
  ['-F', 'F'],
  ['--fixed-strings', 'F'],
  ['-E', 'E'],
  ['--extended-regexp', 'E'],
  ['-G', 'G'],
  ['--basic-regexp', 'G'],
]);

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Whether a byte string is valid UTF-8. @param {string} bytes */
function isUtf8(bytes) {
  try {
    strictUtf8.decode(fromLatin1(bytes));
    return true;
  } catch {
    return false;
  }
}

/** Files a literal search keeps reading at once. */
const READ_AHEAD = 256;

/**
 * A pattern that matches only its own text — with `^` or `$` at an end as an anchor, except
 * under -F — as that text and its anchors; null for a regular expression.
 * @param {string} pattern @param {Set<string>} flags
 * @returns {{text: string, start: boolean, end: boolean} | null}
 */
export function literalPattern(pattern, flags) {
  if (pattern.includes('\n')) return null;
  if (flags.has('F')) return { text: utf8Bytes(pattern), start: false, end: false };
  const start = pattern.startsWith('^');
  const end = pattern.length > (start ? 1 : 0) && pattern.endsWith('$') && !pattern.endsWith('\\$');
  const body = pattern.slice(start ? 1 : 0, end ? -1 : undefined);
  const special = flags.has('E') ? /[\\.[\]*^$+?(){}|]/ : /[\\.[\]*^$]/;
  // A BRE starting with `*` reads it as a literal star; left to the regular path, as any other star.
  if (special.test(body)) return null;
  return { text: utf8Bytes(body), start, end };
}

/**
 * The lines of a byte string a literal pattern selects: their start and end offsets (end
 * before the newline) and 1-based numbers. Found by indexOf over the whole text, not a match
 * per line: a line is looked at only where the text occurs in it (or, inverted or anchored,
 * once per line).
 * @param {string} text @param {{text: string, start: boolean, end: boolean}} pattern @param {boolean} invert
 * @param {number} limit stop after this many lines
 * @returns {{starts: number[], ends: number[]}}
 */
export function literalLines(text, pattern, invert, limit) {
  /** @type {number[]} */
  const starts = [];
  /** @type {number[]} */
  const ends = [];
  const p = pattern.text;
  const n = text.length;
  if (!invert && !pattern.start && !pattern.end && p !== '') {
    for (let hit = text.indexOf(p); hit >= 0 && starts.length < limit; ) {
      const s = hit === 0 ? 0 : text.lastIndexOf('\n', hit - 1) + 1;
      let e = text.indexOf('\n', hit + p.length);
      if (e < 0) e = n;
      starts.push(s);
      ends.push(e);
      hit = e >= n ? -1 : text.indexOf(p, e + 1);
    }
    return { starts, ends };
  }
  let next = -2;
  let start = 0;
  while (start < n && starts.length < limit) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = n;
    let match;
    if (pattern.start && pattern.end) match = end - start === p.length && text.startsWith(p, start);
    else if (pattern.start) match = end - start >= p.length && text.startsWith(p, start);
    else if (pattern.end) match = end - start >= p.length && text.startsWith(p, end - p.length);
    else {
      if (next !== -1 && next < start) next = text.indexOf(p, start);
      match = next >= 0 && next + p.length <= end;
    }
    if (match !== invert) {
      starts.push(start);
      ends.push(end);
    }
    start = end + 1;
  }
  return { starts, ends };
}

/**
 * The options and pattern of a search literalSearch can do, or null.
 * @param {NonNullable<ReturnType<typeof parseGrepArgs>>} o
 */
function literalOptions(o) {
  if (o.patterns.length !== 1 || o.stripped || o.include.length || o.exclude.length || o.excludeDir.length) return null;
  /** @type {Set<string>} */
  const flags = new Set();
  for (const a of o.pass) {
    const f = LITERAL_OPTIONS.get(a);
    if (!f) return null;
    flags.add(f);
  }
  if ((flags.has('E') && flags.has('F')) || (flags.has('c') && flags.has('l'))) return null;
  const pattern = literalPattern(o.patterns[0], flags);
  return pattern ? { flags, pattern } : null;
}

/**
 * grep with one literal pattern and options that only choose what is printed (-v -c -n -l -q
 * -h -H -r -s -F -E -G): each file read once, in batches read at once, and searched with
 * indexOf (literalLines). Null — the regular path then runs — for anything else: another
 * option, a regular expression, a file that cannot be read, is not a regular file or holds a
 * NUL byte (GNU's binary files).
 * @param {import('just-bash').CommandContext} ctx
 * @param {NonNullable<ReturnType<typeof parseGrepArgs>>} o
 * @param {(each: boolean) => Promise<{files: string[], sawFolder: boolean, failed: boolean}>} collect
 * @param {string[]} operands
 * @returns {Promise<import('just-bash').ExecResult | null>}
 */
async function literalSearch(ctx, o, collect, operands) {
  const literal = literalOptions(o);
  if (!literal) return null;
  const { flags, pattern } = literal;
  const { files, sawFolder, failed } = operands.length ? await collect(true) : { files: ['-'], sawFolder: false, failed: false };
  if (failed) return null;
  const withName = o.withName ?? (operands.length > 1 || sawFolder);
  const invert = flags.has('v');
  const quiet = flags.has('q');
  const listing = flags.has('l');
  const counting = flags.has('c');
  const numbers = flags.has('n');
  // In a UTF-8 locale GNU grep takes a file that is not UTF-8 for binary: such files are left
  // to the regular path (as before), which decides.
  const ctype = ctx.env.get('LC_ALL') || ctx.env.get('LC_CTYPE') || ctx.env.get('LANG') || '';
  const utf8Locale = !/^(C|POSIX)$/i.test(ctype);
  /** @param {string} text */
  const readable = (text) => !text.includes('\0') && !(utf8Locale && /[\x80-\xff]/.test(text) && !isUtf8(text));
  /** @type {string[]} */
  const out = [];
  let found = false;
  /** @param {string} file @returns {Promise<string | null>} */
  const read = async (file) => {
    if (file === '-') return stdinBytes(ctx);
    // No stat first (a storage round trip per file): a folder or a missing file fails to read.
    const bytes = await ctx.fs.readFileBuffer(resolveShellPath(ctx.cwd, file)).catch(() => null);
    return bytes ? latin1(bytes) : null;
  };
  // READ_AHEAD reads in flight at all times, taken in order: the storage answers many reads at
  // once far faster than one batch after another (each batch waits for its slowest read).
  /** @type {(Promise<string | null> | undefined)[]} */
  const pending = [];
  for (let i = 0; i < Math.min(READ_AHEAD, files.length); i++) pending[i] = read(files[i]);
  for (let k = 0; k < files.length; k++) {
    const text = await pending[k];
    pending[k] = undefined;
    if (k + READ_AHEAD < files.length) pending[k + READ_AHEAD] = read(files[k + READ_AHEAD]);
    if (text === null || text === undefined || !readable(text)) return null;
    const shown = files[k] === '-' ? '(standard input)' : utf8Bytes(files[k]);
    const { starts, ends } = literalLines(text, pattern, invert, quiet || listing ? 1 : Infinity);
    if (starts.length) found = true;
    if (quiet) {
      if (found) return bytesResult('', '', 0);
      continue;
    }
    if (listing) {
      if (starts.length) out.push(`${shown}\n`);
      continue;
    }
    if (counting) {
      out.push(withName ? `${shown}:${starts.length}\n` : `${starts.length}\n`);
      continue;
    }
    const prefix = withName ? `${shown}:` : '';
    let line = 1;
    let at = 0;
    for (let i = 0; i < starts.length; i++) {
      if (numbers) {
        for (let nl = text.indexOf('\n', at); nl >= 0 && nl < starts[i]; nl = text.indexOf('\n', nl + 1)) line++;
        at = starts[i];
      }
      out.push(`${prefix}${numbers ? `${line}:` : ''}${text.slice(starts[i], ends[i])}\n`);
    }
  }
  return bytesResult(out.join(''), '', found ? 0 : 1);
}
