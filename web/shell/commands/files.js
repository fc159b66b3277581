/** @import { Command, CommandContext } from 'just-bash' */
// Commands just-bash does not have that the shell promises: `realpath`, `zip` and `unzip`
// (with fflate, the app's zip library; unzip within the archive limits every archive path has).
import { defineCommand } from 'just-bash';
import { unzipSync, zipSync } from 'fflate';
import { ArchiveFormatError, ArchiveLimitError, expandZip } from '../../files/archive-limits.js';
import { resolveShellPath } from '../bash-fs.js';

/** @param {string} stdout */
const ok = (stdout) => ({ stdout, stderr: '', exitCode: 0 });

/** @param {string[]} args @param {string} flagsWithValue */
function parse(args, flagsWithValue = '') {
  /** @type {Set<string>} */
  const flags = new Set();
  /** @type {Record<string, string>} */
  const values = {};
  /** @type {string[]} */
  const rest = [];
  let options = true;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (options && a === '--') options = false;
    else if (options && /^-[A-Za-z0-9]+$/.test(a)) {
      for (const c of a.slice(1)) {
        if (flagsWithValue.includes(c)) {
          values[c] = args[++i] ?? '';
          break;
        }
        flags.add(c);
      }
    } else rest.push(a);
  }
  return { flags, values, rest };
}

/** `realpath [-e|-m] path…`: the absolute, normalized path (the workspace has no links). */
export function realpathCommand() {
  return defineCommand('realpath', async (args, ctx) => {
    const { flags, rest } = parse(args);
    if (!rest.length) return { stdout: '', stderr: 'realpath: missing operand\n', exitCode: 1 };
    let stdout = '';
    let stderr = '';
    for (const arg of rest) {
      const path = resolveShellPath(ctx.cwd, arg);
      const parent = path.slice(0, path.lastIndexOf('/')) || '/';
      const exists = await ctx.fs.exists(path);
      // Without -m the path's folder must exist (GNU's default); with -e the path itself.
      if (!flags.has('m') && !(flags.has('e') ? exists : exists || (await ctx.fs.exists(parent)))) {
        stderr += `realpath: ${arg}: No such file or directory\n`;
        continue;
      }
      stdout += `${path}\n`;
    }
    return { stdout, stderr, exitCode: stderr ? 1 : 0 };
  });
}

/** @param {CommandContext} ctx @param {string} path @param {string} name @param {Record<string, Uint8Array>} into */
async function addTree(ctx, path, name, into) {
  const stat = await ctx.fs.stat(path);
  if (!stat.isDirectory) {
    into[name] = await ctx.fs.readFileBuffer(path);
    return;
  }
  into[`${name}/`] = new Uint8Array(0);
  for (const entry of await ctx.fs.readdir(path)) await addTree(ctx, `${path}/${entry}`, `${name}/${entry}`, into);
}

/** `zip [-r] [-q] archive.zip file…` */
export function zipCommand() {
  return defineCommand('zip', async (args, ctx) => {
    const { flags, rest } = parse(args);
    const [archive, ...inputs] = rest;
    if (!archive || !inputs.length) return { stdout: '', stderr: 'usage: zip [-r] [-q] archive.zip file...\n', exitCode: 16 };
    const target = resolveShellPath(ctx.cwd, archive.endsWith('.zip') ? archive : `${archive}.zip`);
    /** @type {Record<string, Uint8Array>} */
    const entries = {};
    let stdout = '';
    let stderr = '';
    for (const input of inputs) {
      const path = resolveShellPath(ctx.cwd, input);
      if (!(await ctx.fs.exists(path))) {
        stderr += `\tzip warning: name not matched: ${input}\n`;
        continue;
      }
      const name = input.replace(/^(\.\/)+/, '').replace(/\/+$/, '');
      const stat = await ctx.fs.stat(path);
      if (stat.isDirectory && !flags.has('r')) entries[`${name}/`] = new Uint8Array(0);
      else await addTree(ctx, path, name, entries);
    }
    if (!Object.keys(entries).length) return { stdout: '', stderr: `${stderr}zip error: Nothing to do! (${archive})\n`, exitCode: 12 };
    if (!flags.has('q')) for (const name of Object.keys(entries)) stdout += `  adding: ${name} (stored 0%)\n`;
    await ctx.fs.writeFile(target, zipSync(entries, { level: 6 }));
    return { stdout, stderr, exitCode: 0 };
  });
}

/**
 * The entries an archive lists in its central directory (names and sizes), nothing inflated.
 * @param {Uint8Array} bytes @returns {{name: string, size: number}[]}
 */
function zipListing(bytes) {
  /** @type {{name: string, size: number}[]} */
  const names = [];
  unzipSync(bytes, {
    filter: (file) => {
      names.push({ name: file.name, size: file.originalSize });
      return false;
    },
  });
  return names;
}

/**
 * `unzip [-l|-Z1] [-q] [-o] archive.zip [-d dir]` (existing files are replaced, as with -o).
 * The archive is expanded whole within the shared archive limits before anything is written.
 */
export function unzipCommand() {
  return defineCommand('unzip', async (args, ctx) => {
    const z1 = args.includes('-Z1');
    const { flags, values, rest } = parse(
      args.filter((a) => a !== '-Z1'),
      'd',
    );
    const [archive] = rest;
    if (!archive) return { stdout: '', stderr: 'usage: unzip [-l|-Z1] [-q] [-o] archive.zip [-d dir]\n', exitCode: 10 };
    const path = resolveShellPath(ctx.cwd, archive);
    if (!(await ctx.fs.exists(path))) return { stdout: '', stderr: `unzip:  cannot find or open ${archive}.\n`, exitCode: 9 };
    const bytes = await ctx.fs.readFileBuffer(path);
    const invalid = (/** @type {unknown} */ err) => ({
      stdout: '',
      stderr:
        `unzip: ${archive} is not a valid zip file ` +
        `(${err instanceof ArchiveFormatError ? err.detail : /** @type {Error} */ (err).message})\n`,
      exitCode: 9,
    });
    if (z1 || flags.has('l')) {
      /** @type {{name: string, size: number}[]} */
      let listing;
      try {
        listing = zipListing(bytes);
      } catch (err) {
        return invalid(err);
      }
      if (z1) return ok(listing.map((e) => `${e.name}\n`).join(''));
      const total = listing.reduce((n, e) => n + e.size, 0);
      return ok(
        `Archive:  ${archive}\n  Length      Date    Time    Name\n---------  ---------- -----   ` +
          `----\n${listing.map((e) => `${String(e.size).padStart(9)}  1980-01-01 00:00   ${e.name}\n`).join('')}---------` +
          `                     -------\n${String(total).padStart(9)}                     ${listing.length} ` +
          `file${listing.length === 1 ? '' : 's'}\n`,
      );
    }
    /** @type {{name: string, data: Uint8Array}[]} */
    let entries;
    try {
      ({ entries } = expandZip(bytes, {
        select: (name) => {
          if (name.split('/').includes('..') || name.startsWith('/')) throw new UnsafeEntry(name);
          return true;
        },
      }));
    } catch (err) {
      if (err instanceof UnsafeEntry)
        return { stdout: '', stderr: `unzip: refusing the unsafe entry "${err.entry}"; nothing was extracted\n`, exitCode: 1 };
      if (err instanceof ArchiveLimitError) return { stdout: '', stderr: `unzip: ${archive}: ${err.message}\n`, exitCode: 1 };
      return invalid(err);
    }
    const dest = resolveShellPath(ctx.cwd, values.d ?? '.');
    let stdout = flags.has('q') ? '' : `Archive:  ${archive}\n`;
    for (const { name, data } of entries) {
      const out = resolveShellPath(dest, name);
      if (name.endsWith('/')) {
        await ctx.fs.mkdir(out, { recursive: true });
        if (!flags.has('q')) stdout += `   creating: ${name}\n`;
        continue;
      }
      await ctx.fs.mkdir(out.slice(0, out.lastIndexOf('/')) || '/', { recursive: true });
      await ctx.fs.writeFile(out, data);
      if (!flags.has('q')) stdout += `  inflating: ${name}\n`;
    }
    return ok(stdout);
  });
}

/** An entry that would land outside the destination: the whole archive is refused. */
class UnsafeEntry extends Error {
  /** @param {string} entry */
  constructor(entry) {
    super(`unsafe entry "${entry}"`);
    this.entry = entry;
  }
}

/** @returns {Command[]} */
export function fileCommands() {
  return [realpathCommand(), zipCommand(), unzipCommand()];
}
