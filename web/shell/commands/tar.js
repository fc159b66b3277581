/** @import { Command, CommandContext, ExecResult } from 'just-bash' */
// `tar` (just-bash's browser build leaves it out): create, list and extract, gzip with -z
// (detected when reading), over the shell's file system, with modern-tar (MIT, the archive
// format) and fflate (gzip).
import { defineCommand } from 'just-bash';
import { gzipSync } from 'fflate';
import { packTar, unpackTar } from 'modern-tar';
import { ArchiveLimitError, ExpansionBudget, expandGzip } from '../../files/archive-limits.js';
import { fromLatin1, latin1, resolveShellPath } from '../bash-fs.js';

const USAGE = 'usage: tar -c|-x|-t [-z] [-v] [-f ARCHIVE] [-C DIR] [FILE...]\n';

/** @param {string} message @param {number} [exitCode] @returns {ExecResult} */
const fail = (message, exitCode = 2) => ({ stdout: '', stderr: `tar: ${message}\n`, exitCode });

/**
 * GNU's option forms: `-czf a.tgz`, `czf a.tgz` (the first word without a dash), `-f a.tar`,
 * `--file=a.tar`, `-C dir`, `--directory=dir`, `--gzip`.
 * @param {string[]} args
 */
export function parseTarArgs(args) {
  /**
   * @type {{mode: 'c' | 'x' | 't' | null, gzip: boolean, verbose: boolean, file: string | null, dir: string | null, paths: string[],
   *   error?: string}}
   */
  const o = { mode: null, gzip: false, verbose: false, file: null, dir: null, paths: [] };
  const list = [...args];
  if (list[0] && /^[cxtzvfC]+$/.test(list[0]) && !list[0].startsWith('-')) list[0] = `-${list[0]}`;
  for (let i = 0; i < list.length; i++) {
    const a = list[i];
    const long = a.match(/^--([a-z-]+)(?:=(.*))?$/);
    if (long) {
      const [, name, value] = long;
      if (name === 'create') o.mode = 'c';
      else if (name === 'extract' || name === 'get') o.mode = 'x';
      else if (name === 'list') o.mode = 't';
      else if (name === 'gzip' || name === 'gunzip') o.gzip = true;
      else if (name === 'verbose') o.verbose = true;
      else if (name === 'file') o.file = value ?? list[++i] ?? '';
      else if (name === 'directory') o.dir = value ?? list[++i] ?? '';
      else return { ...o, error: `unrecognized option '--${name}'` };
      continue;
    }
    if (a.startsWith('-') && a.length > 1) {
      for (let j = 1; j < a.length; j++) {
        const c = a[j];
        if (c === 'c' || c === 'x' || c === 't') {
          if (o.mode && o.mode !== c) return { ...o, error: 'You may not specify more than one of -c, -x, -t' };
          o.mode = c;
        } else if (c === 'z') o.gzip = true;
        else if (c === 'v') o.verbose = true;
        else if (c === 'f' || c === 'C') {
          // The value is the rest of this word, or the next word.
          const value = a.slice(j + 1) || list[++i] || '';
          if (c === 'f') o.file = value;
          else o.dir = value;
          break;
        } else return { ...o, error: `invalid option -- '${c}'` };
      }
      continue;
    }
    o.paths.push(a);
  }
  if (!o.mode) return { ...o, error: 'You must specify one of the -c, -x, -t options' };
  return o;
}

/**
 * @param {CommandContext} ctx @param {string} base absolute folder the names are relative to
 * @param {string} name as given @param {{header: import('modern-tar').TarHeader, body?: Uint8Array}[]} out
 */
async function collect(ctx, base, name, out) {
  const clean = name.replace(/^(\.\/)+/, '').replace(/\/+$/, '') || '.';
  const path = resolveShellPath(base, clean);
  const stat = await ctx.fs.stat(path);
  if (stat.isDirectory) {
    if (clean !== '.') out.push({ header: { name: `${clean}/`, size: 0, type: 'directory', mode: 0o755, mtime: stat.mtime } });
    for (const entry of await ctx.fs.readdir(path)) await collect(ctx, base, clean === '.' ? entry : `${clean}/${entry}`, out);
    return;
  }
  const body = await ctx.fs.readFileBuffer(path);
  out.push({ header: { name: clean, size: body.length, type: 'file', mode: 0o644, mtime: stat.mtime }, body });
}

/** @param {string} name */
function unsafe(name) {
  return name.split('/').includes('..');
}

/** @returns {Command} */
export function tarCommand() {
  return defineCommand('tar', async (args, ctx) => {
    const o = parseTarArgs(args);
    if (o.error) return fail(`${o.error}\n${USAGE.trimEnd()}`);
    const base = resolveShellPath(ctx.cwd, o.dir ?? '.');
    const toStdout = !o.file || o.file === '-';
    if (o.mode === 'c') {
      if (!o.paths.length) return fail('Cowardly refusing to create an empty archive');
      /** @type {{header: import('modern-tar').TarHeader, body?: Uint8Array}[]} */
      const entries = [];
      let stderr = '';
      for (const p of o.paths) {
        const name = p.replace(/^\/+/, '');
        if (name !== p && !stderr.includes('Removing leading')) stderr += "tar: Removing leading `/' from member names\n";
        if (!(await ctx.fs.exists(resolveShellPath(base, name || '.')))) {
          stderr += `tar: ${p}: Cannot stat: No such file or directory\n`;
          continue;
        }
        await collect(ctx, base, name || '.', entries);
      }
      let archive = await packTar(entries.map((e) => ({ header: e.header, body: e.body })));
      if (o.gzip) archive = gzipSync(archive, { mtime: 0 });
      // -v lists the names: on stderr when the archive itself goes to stdout.
      const listing = o.verbose ? entries.map((e) => `${e.header.name}\n`).join('') : '';
      const failed = stderr.includes('Cannot stat') ? 2 : 0;
      if (toStdout)
        return { stdout: latin1(archive), stdoutKind: 'bytes', stdoutEncoding: 'binary', stderr: stderr + listing, exitCode: failed };
      await ctx.fs.writeFile(resolveShellPath(ctx.cwd, /** @type {string} */ (o.file)), archive);
      return {
        stdout: listing,
        stderr: stderr + (failed ? 'tar: Exiting with failure status due to previous errors\n' : ''),
        exitCode: failed,
      };
    }
    /** @type {Uint8Array} */
    let bytes;
    if (toStdout) {
      bytes = fromLatin1(ctx.stdin ? /** @type {string} */ (/** @type {unknown} */ (ctx.stdin)) : '');
    } else {
      const path = resolveShellPath(ctx.cwd, /** @type {string} */ (o.file));
      if (!(await ctx.fs.exists(path))) return fail(`${o.file}: Cannot open: No such file or directory`);
      bytes = await ctx.fs.readFileBuffer(path);
    }
    // gzip is recognised by its magic bytes, with or without -z (as GNU tar does when reading),
    // and expanded within the archive limits every archive path has (listing needs it too).
    if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
      try {
        bytes = expandGzip(bytes, o.file ?? 'stdin', { budget: new ExpansionBudget(bytes.length) });
      } catch (err) {
        return fail(err instanceof ArchiveLimitError ? err.message : 'the archive is not valid gzip data');
      }
    }
    /** @type {import('modern-tar').ParsedTarEntryWithData[]} */
    let entries;
    try {
      entries = await unpackTar(bytes, { strict: true });
    } catch (err) {
      return fail(`This does not look like a tar archive (${/** @type {Error} */ (err).message})`);
    }
    if (o.mode === 'x') {
      // The entries' count and sizes, before anything is written (the sizes are the tar's own).
      const budget = new ExpansionBudget(bytes.length);
      try {
        for (const e of entries) budget.entry(e.header.name).add(e.data?.length ?? 0);
      } catch (err) {
        if (!(err instanceof ArchiveLimitError)) throw err;
        return fail(err.message);
      }
    }
    const wanted = (/** @type {string} */ name) =>
      !o.paths.length || o.paths.some((p) => name === p || name === `${p}/` || name.startsWith(`${p.replace(/\/+$/, '')}/`));
    const chosen = entries.filter((e) => wanted(e.header.name));
    if (o.mode === 't') {
      const line = (/** @type {import('modern-tar').TarHeader} */ h) =>
        o.verbose
          ? `${h.type === 'directory' ? 'd' : '-'}rw-r--r-- user/user ${String(h.size).padStart(8)} ` +
            `${(h.mtime ?? new Date(0)).toISOString().slice(0, 16).replace('T', ' ')} ${h.name}\n`
          : `${h.name}\n`;
      return { stdout: chosen.map((e) => line(e.header)).join(''), stderr: '', exitCode: 0 };
    }
    let stdout = '';
    let stderr = '';
    for (const e of chosen) {
      const name = e.header.name.replace(/^\/+/, '');
      if (unsafe(name)) {
        stderr += `tar: ${e.header.name}: Member name contains '..'\n`;
        continue;
      }
      const target = resolveShellPath(base, name);
      try {
        if (e.header.type === 'directory') await ctx.fs.mkdir(target, { recursive: true });
        else if (e.header.type === 'file' || !e.header.type) {
          const parent = target.slice(0, target.lastIndexOf('/')) || '/';
          await ctx.fs.mkdir(parent, { recursive: true });
          await ctx.fs.writeFile(target, e.data ?? new Uint8Array(0));
        } else {
          stderr += `tar: ${e.header.name}: links are not supported here; skipped\n`;
          continue;
        }
      } catch (err) {
        // e.g. a member inside Clawser's own folders (refused by the file system).
        stderr += `tar: ${e.header.name}: Cannot open: ${/** @type {Error} */ (err).message}\n`;
        continue;
      }
      if (o.verbose) stdout += `${e.header.name}\n`;
    }
    return { stdout, stderr, exitCode: stderr ? 2 : 0 };
  });
}
