/** @import { Command, ExecResult } from 'just-bash' */
// `ls` as GNU's where just-bash's differs; each listing itself stays just-bash's. Several
// operands: the files first, sorted, one after another, then each folder under a `name:` header,
// a blank line between groups (just-bash listed them in the given order, a blank line after
// each, files included: `ls *.md`). Names collate by the environment's locale (collate.js; C is
// byte order, just-bash's own). `ls -l` writes folder names without the `/` just-bash adds
// (only -F and -p add it); -p (which just-bash lacks) is -F here: the workspace has no
// executables, links or sockets, so both mark folders only.
import { defineCommand } from 'just-bash';
import { resolveShellPath } from '../bash-fs.js';
import { collationOf } from './collate.js';

/** Flags just-bash's ls takes (and their long names). */
const FLAGS = 'aAdFhlrRSt1';
const LONG = /** @type {Record<string, string>} */ ({
  all: 'a',
  'almost-all': 'A',
  directory: 'd',
  classify: 'F',
  'human-readable': 'h',
  reverse: 'r',
  recursive: 'R',
  'file-type': 'F',
  'indicator-style=slash': 'F',
});

/** @param {string[]} args @returns {{flags: Set<string>, operands: string[]} | null} null: leave the line to just-bash */
export function parseLsArgs(args) {
  const flags = new Set();
  /** @type {string[]} */
  const operands = [];
  let options = true;
  for (const a of args) {
    if (!options || a === '-' || !a.startsWith('-')) operands.push(a);
    else if (a === '--') options = false;
    else if (a.startsWith('--')) {
      const f = LONG[a.slice(2)];
      if (!f) return null;
      flags.add(f);
    } else {
      for (const c of a.slice(1)) {
        if (c === 'p') flags.add('F');
        else if (FLAGS.includes(c)) flags.add(c);
        else return null;
      }
    }
  }
  return { flags, operands };
}

/** The entry name of a listing line (plain, -F, or -l). @param {string} line @param {Set<string>} flags */
function nameOf(line, flags) {
  const name = flags.has('l') ? line.replace(/^(\S+\s+){5}\S+\s+\S+\s+\S+\s/, '') : line;
  return flags.has('F') ? name.replace(/[/*@=|>]$/, '') : name.replace(/\/$/, '');
}

/**
 * Puts the entries of a listing (each section of -R) in the locale's order.
 * @param {string} out @param {Set<string>} flags @param {(a: string, b: string) => number} compare
 */
function resort(out, flags, compare) {
  const sign = flags.has('r') ? -1 : 1;
  return out
    .split('\n\n')
    .map((section) => {
      const lines = section.split('\n');
      const head = [];
      while (lines.length && (/^total \d/.test(lines[0]) || /:$/.test(lines[0]))) head.push(/** @type {string} */ (lines.shift()));
      const trailing = lines.length && lines[lines.length - 1] === '' ? lines.pop() : undefined;
      lines.sort((a, b) => sign * compare(nameOf(a, flags), nameOf(b, flags)));
      return [...head, ...lines, ...(trailing === undefined ? [] : [trailing])].join('\n');
    })
    .join('\n\n');
}

/**
 * `ls -R`'s sections in GNU's order: depth first, each folder's subfolders in the order its own
 * listing gives them (the locale's, reversed by -r, by time or size with -t/-S) — just-bash
 * visited them by String.localeCompare whatever the locale or flags. A subfolder's header joins
 * its parent's without doubling a slash (`ls -R a/` → `a/sub:`, not `a//sub:`).
 * @param {string} out one listing of just-bash's @param {Set<string>} flags
 */
function orderSections(out, flags) {
  const sections = out
    .replace(/\n$/, '')
    .split('\n\n')
    .map((text) => {
      const lines = text.split('\n');
      const header = /:$/.test(lines[0]) ? lines[0].slice(0, -1) : null;
      const names = lines
        .slice(1)
        .filter((l) => !/^total \d/.test(l))
        .map((l) => nameOf(l, flags));
      return { text, header, names, body: lines.slice(1) };
    });
  /** @type {Map<string, typeof sections[number]>} */
  const byHeader = new Map();
  for (const s of sections) if (s.header !== null) byHeader.set(s.header, s);
  const used = new Set();
  /** @type {string[]} */
  const ordered = [];
  /** @param {typeof sections[number]} s @param {string} shown the header GNU writes */
  const visit = (s, shown) => {
    used.add(s);
    ordered.push([`${shown}:`, ...s.body].join('\n'));
    for (const name of s.names) {
      const child = byHeader.get(`${s.header}/${name}`) ?? (s.header?.endsWith('/') ? byHeader.get(`${s.header}${name}`) : undefined);
      if (child && !used.has(child)) visit(child, shown.endsWith('/') ? `${shown}${name}` : `${shown}/${name}`);
    }
  };
  for (const s of sections) {
    if (used.has(s)) continue;
    if (s.header === null) {
      used.add(s);
      ordered.push(s.text);
    } else if (!byHeader.has(s.header.replace(/\/[^/]*$/, '')) || s === sections[0]) visit(s, s.header);
  }
  for (const s of sections) if (!used.has(s)) ordered.push(s.text);
  return `${ordered.join('\n\n')}\n`;
}

/** @returns {Command} */
export function lsCommand() {
  return defineCommand('ls', async (args, ctx) => {
    const orig = /** @type {NonNullable<typeof ctx.origCommand>} */ (ctx.origCommand);
    const parsed = parseLsArgs(args);
    if (!parsed) return orig(args);
    const { flags, operands } = parsed;
    const { byteOrder, compare } = collationOf(ctx.env);
    const passed = [...flags].length ? [`-${[...flags].join('')}`] : [];
    /** One listing by just-bash, in GNU's form. @param {string[]} list @returns {Promise<ExecResult>} */
    const listing = async (list) => {
      const r = await orig([...passed, ...list]);
      let stdout = r.stdout;
      // -l: a folder's name without a slash (GNU's) unless -F asked for it.
      if (flags.has('l') && !flags.has('F')) stdout = stdout.replace(/^(d.*)\/$/gm, '$1');
      if (!byteOrder && !flags.has('t') && !flags.has('S')) stdout = resort(stdout, flags, compare);
      if (flags.has('R') && !flags.has('d') && stdout) stdout = orderSections(stdout, flags);
      return { ...r, stdout };
    };
    if (operands.length <= 1) return listing(operands);
    // Several operands: GNU's order and grouping.
    let stderr = '';
    let exitCode = 0;
    /** @type {{name: string, size: number, mtime: number}[]} */
    const files = [];
    /** @type {string[]} */
    const folders = [];
    for (const name of operands) {
      const path = resolveShellPath(ctx.cwd, name);
      if (!(await ctx.fs.exists(path))) {
        stderr += `ls: cannot access '${name}': No such file or directory\n`;
        exitCode = 2;
        continue;
      }
      const stat = await ctx.fs.stat(path);
      if (stat.isDirectory && !flags.has('d')) folders.push(name);
      else files.push({ name, size: stat.size, mtime: stat.mtime.getTime() });
    }
    const sign = flags.has('r') ? -1 : 1;
    files.sort((a, b) => sign * ((flags.has('S') ? b.size - a.size : flags.has('t') ? b.mtime - a.mtime : 0) || compare(a.name, b.name)));
    folders.sort((a, b) => sign * compare(a, b));
    /** @type {string[]} */
    const groups = [];
    let filesOut = '';
    for (const f of files) {
      const r = await listing([f.name]);
      filesOut += r.stdout;
      stderr += r.stderr;
      if (r.exitCode) exitCode = Math.max(exitCode, r.exitCode);
    }
    if (filesOut) groups.push(filesOut);
    for (const folder of folders) {
      const r = await listing([folder]);
      stderr += r.stderr;
      if (r.exitCode) exitCode = Math.max(exitCode, r.exitCode);
      // -R writes its own headers; otherwise each folder gets one, as there are several operands.
      groups.push(flags.has('R') ? r.stdout : `${folder}:\n${r.stdout}`);
    }
    return { stdout: groups.join('\n'), stderr, exitCode };
  });
}
