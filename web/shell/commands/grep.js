/** @import { Command } from 'just-bash' */
// `grep` as GNU's where just-bash's differs; the matching itself stays just-bash's. With -r the
// operands are handed to just-bash's recursion so that it names files as GNU does — from the
// operand as written (`./docs/a.md` for `.`, `notes/x` for `notes/`, no prefix without an
// operand) — and reaches dot files, which it skips; a missing operand is an error (status 2).
// Also -H, -s, and several -e patterns (just-bash kept only the last). Any other line goes to
// just-bash's grep unchanged.
import { defineCommand } from 'just-bash';
import { resolveShellPath } from '../bash-fs.js';

/** Options whose value is the next word (or the rest of the word). */
const VALUED = 'efmABCdD';
const VALUED_LONG = ['regexp', 'file', 'max-count', 'after-context', 'before-context', 'context', 'directories', 'devices', 'include', 'exclude', 'exclude-dir', 'exclude-from', 'label', 'binary-files'];

/**
 * @param {string[]} args
 * @returns {{pass: string[], patterns: string[], patternGiven: boolean, fixed: boolean, recursive: boolean, withName: boolean | null, quietErrors: boolean, include: string[], exclude: string[], excludeDir: string[], operands: string[]} | null}
 */
export function parseGrepArgs(args) {
  const o = { pass: /** @type {string[]} */ ([]), patterns: /** @type {string[]} */ ([]), patternGiven: false, fixed: false, recursive: false, withName: /** @type {boolean | null} */ (null), quietErrors: false, include: /** @type {string[]} */ ([]), exclude: /** @type {string[]} */ ([]), excludeDir: /** @type {string[]} */ ([]), operands: /** @type {string[]} */ ([]) };
  /** @param {string} name @param {string} value */
  const valued = (name, value) => {
    if (name === 'e' || name === 'regexp') o.patterns.push(value);
    else if (name === 'include') o.include.push(value);
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
      else {
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
      else {
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
        re += `[${glob.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else re += c.replace(/[.+^${}()|\\/]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 's');
}

/** @returns {Command} */
export function grepCommand() {
  return defineCommand('grep', async (args, ctx) => {
    const orig = /** @type {NonNullable<typeof ctx.origCommand>} */ (ctx.origCommand);
    const o = parseGrepArgs(args);
    // What just-bash's grep already does as GNU's: left to it as written.
    if (!o || (!o.recursive && o.withName === null && !o.quietErrors && o.patterns.length <= 1)) return orig(args);
    // Several patterns: one newline-separated list (GNU's own form of it); fixed strings as
    // alternatives of escaped ones, which just-bash's -F does not split.
    /** @type {string[]} */
    let pattern = [];
    if (o.patterns.length === 1) pattern = ['-e', o.patterns[0]];
    else if (o.patterns.length > 1 && o.fixed) pattern = ['-E', '-e', o.patterns.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')];
    else if (o.patterns.length > 1) pattern = ['-e', o.patterns.join('\n')];
    const pass = o.patterns.length > 1 && o.fixed ? o.pass.filter((a) => a !== '-F' && a !== '--fixed-strings') : o.pass;
    const include = o.include.map(globRegExp);
    const exclude = o.exclude.map(globRegExp);
    const excludeDir = o.excludeDir.map(globRegExp);
    const wanted = (/** @type {string} */ name) => (!include.length || include.some((r) => r.test(name))) && !exclude.some((r) => r.test(name));
    /** Names as GNU's fts builds them from the operand. @param {string} base @param {string} name */
    const under = (base, name) => (base === '' ? name : base === '/' ? `/${name}` : `${base}/${name}`);
    /**
     * What to hand just-bash's own recursion for a folder: the folder itself when nothing in it
     * is hidden from that recursion (dot files; `.` and `/` it names wrongly), else its entries
     * one by one. Its recursion lists folders without a stat per file, which keeps the search fast.
     * @param {string} base as shown @param {string} path @returns {Promise<{clean: boolean, operands: string[]}>}
     */
    const split = async (base, path) => {
      const entries = ctx.fs.readdirWithFileTypes ? await ctx.fs.readdirWithFileTypes(path) : await Promise.all((await ctx.fs.readdir(path)).map(async (name) => ({ name, isDirectory: (await ctx.fs.stat(`${path === '/' ? '' : path}/${name}`)).isDirectory })));
      let clean = base !== '' && base !== '.' && base !== '/' && !base.endsWith('/.');
      /** @type {string[]} */
      const operands = [];
      for (const { name, isDirectory } of entries) {
        const shown = under(base, name);
        if (name.startsWith('.')) clean = false;
        if (isDirectory) {
          if (excludeDir.some((r) => r.test(name))) continue;
          const inner = await split(shown, `${path === '/' ? '' : path}/${name}`);
          if (!inner.clean) clean = false;
          operands.push(...(inner.clean ? [shown] : inner.operands));
        } else if (wanted(name)) operands.push(shown);
      }
      return { clean, operands: clean ? [base] : operands };
    };
    let stderr = '';
    let trouble = false;
    /** @type {string[]} */
    const files = [];
    let sawFolder = false;
    const operands = o.operands.length ? o.operands : o.recursive ? [''] : [];
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
        files.push(...(await split(operand === '/' ? '/' : operand.replace(/\/+$/, ''), path)).operands);
      } else if (!o.recursive || wanted(operand.split('/').pop() ?? operand)) files.push(operand);
    }
    const withName = o.withName ?? (operands.length > 1 || sawFolder);
    if (!files.length && operands.length) return { stdout: '', stderr, exitCode: trouble ? 2 : 1 };
    // just-bash names files when it has several, or with -r (even for one file); -h never.
    const naming = [...(o.recursive || (withName && files.length === 1) ? ['-r'] : []), ...(withName ? [] : ['-h'])];
    const filters = o.recursive ? [...o.include.map((g) => `--include=${g}`), ...o.exclude.map((g) => `--exclude=${g}`), ...o.excludeDir.map((g) => `--exclude-dir=${g}`)] : [];
    const result = await orig([...pass, ...naming, ...filters, ...pattern, '--', ...files]);
    const quiet = o.quietErrors ? result.stderr.split('\n').filter((l) => !/: (No such file or directory|Is a directory|Permission denied)$/.test(l)).join('\n') : result.stderr;
    const found = result.exitCode === 0;
    const quietMode = pass.some((a) => a === '-q' || a === '--quiet' || a === '--silent');
    return { ...result, stderr: stderr + quiet, exitCode: trouble && !(found && quietMode) ? 2 : result.exitCode };
  });
}

