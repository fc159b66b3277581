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
import { resolveShellPath } from '../bash-fs.js';

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
 * @typedef {{watchBinary: number, binaryReads: number}} BinaryWatch
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
    if (!o || (!o.recursive && o.withName === null && !o.quietErrors && o.patterns.length <= 1 && !o.stripped)) {
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
      for (const { name, isDirectory } of entries) {
        const shown = under(base, name);
        if (name.startsWith('.')) clean = false;
        if (isDirectory) {
          if (excludeDir.some((r) => r.test(name))) continue;
          const inner = await split(shown, `${path === '/' ? '' : path}/${name}`, each);
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
      return { files, sawFolder };
    };
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
