/** @import { Command, CommandContext, ExecResult } from 'just-bash' */
// Expanding gzip — `gunzip`, `zcat`, `gzip -d` and `gzip -t` — within the archive limits every
// other archive path has (web/files/archive-limits.js: sizes, the ratio, one message). just-bash's
// own gzip caps expansion at the shell's output size (16 MB) with a message of its own, and in
// the page its zlib stand-in inflated everything before checking; compressing and listing
// (`gzip f`, `gzip -l`) stay just-bash's.
import { defineCommand } from 'just-bash';
import { ArchiveLimitError, expandGzip } from '../../files/archive-limits.js';
import { fromLatin1, latin1, resolveShellPath } from '../bash-fs.js';

/** Suffixes gunzip knows (GNU's), with what each becomes. */
const SUFFIXES = [
  ['.gz', ''],
  ['.tgz', '.tar'],
  ['.taz', '.tar'],
  ['-gz', ''],
  ['.z', ''],
  ['-z', ''],
  ['_z', ''],
  ['.Z', ''],
];

/**
 * GNU gzip's options as far as expanding is concerned; null when the call is not one this
 * command handles (compressing, listing, help, an option it does not know).
 * @param {string} name gzip, gunzip or zcat @param {string[]} args
 */
export function parseGunzipArgs(name, args) {
  const o = {
    decompress: name !== 'gzip',
    stdout: name === 'zcat',
    keep: false,
    force: false,
    quiet: false,
    verbose: false,
    test: false,
    recursive: false,
    suffix: /** @type {string | null} */ (null),
    files: /** @type {string[]} */ ([]),
  };
  const LONG = /** @type {Record<string, keyof typeof o>} */ ({
    decompress: 'decompress',
    uncompress: 'decompress',
    stdout: 'stdout',
    'to-stdout': 'stdout',
    keep: 'keep',
    force: 'force',
    quiet: 'quiet',
    verbose: 'verbose',
    test: 'test',
    recursive: 'recursive',
  });
  const SHORT = /** @type {Record<string, keyof typeof o>} */ ({
    d: 'decompress',
    c: 'stdout',
    k: 'keep',
    f: 'force',
    q: 'quiet',
    v: 'verbose',
    t: 'test',
    r: 'recursive',
  });
  let options = true;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (options && a === '--') options = false;
    else if (options && a.startsWith('--')) {
      const [key, value] = a.slice(2).split(/=(.*)/s);
      if (key === 'suffix') o.suffix = value ?? args[++i] ?? '';
      else if (LONG[key]) /** @type {Record<string, unknown>} */ (o)[LONG[key]] = true;
      else if (!['name', 'no-name', 'fast', 'best', 'rsyncable'].includes(key)) return null;
    } else if (options && a.startsWith('-') && a !== '-') {
      for (let j = 1; j < a.length; j++) {
        const c = a[j];
        if (c === 'S') {
          o.suffix = a.slice(j + 1) || args[++i] || '';
          break;
        }
        if (SHORT[c]) /** @type {Record<string, unknown>} */ (o)[SHORT[c]] = true;
        else if (!/[nN1-9]/.test(c)) return null;
      }
    } else o.files.push(a);
  }
  if (!o.decompress && !o.test) return null;
  return o;
}

/** @typedef {NonNullable<ReturnType<typeof parseGunzipArgs>>} GunzipOptions */

/** GNU gzip's status: an error (1) outranks a warning (2). @param {number} a @param {number} b */
const worse = (a, b) => (a === 1 || b === 1 ? 1 : Math.max(a, b));

/** @param {Uint8Array} bytes */
const isGzip = (bytes) => bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;

/**
 * Expands one operand ('-' is standard input). Returns the bytes for standard output, and what
 * to print on stderr and the status (0, 1 error, 2 warning, as GNU gzip).
 * @param {CommandContext} ctx @param {GunzipOptions} o @param {string} operand
 * @returns {Promise<{out: string, err: string, status: number}>}
 */
async function expandOne(ctx, o, operand) {
  const warn = (/** @type {string} */ text) => ({ out: '', err: o.quiet ? '' : `gzip: ${text}\n`, status: 2 });
  const fail = (/** @type {string} */ text) => ({ out: '', err: `gzip: ${text}\n`, status: 1 });
  if (operand === '-') {
    const bytes = fromLatin1(/** @type {string} */ (/** @type {unknown} */ (ctx.stdin ?? '')));
    if (!isGzip(bytes)) return fail('stdin: not in gzip format');
    try {
      const data = expandGzip(bytes, 'stdin');
      return { out: o.test ? '' : latin1(data), err: '', status: 0 };
    } catch (e) {
      return fail(`stdin: ${e instanceof ArchiveLimitError ? e.message : 'unexpected end of file'}`);
    }
  }
  let name = operand;
  let path = resolveShellPath(ctx.cwd, name);
  const suffixes = o.suffix ? [[o.suffix, ''], ...SUFFIXES.filter(([s]) => s !== o.suffix)] : SUFFIXES;
  if (!(await ctx.fs.exists(path))) {
    // GNU gunzip finds `f.gz` when given `f`.
    const withSuffix = `${name}${o.suffix ?? '.gz'}`;
    if (!(await ctx.fs.exists(resolveShellPath(ctx.cwd, withSuffix)))) return fail(`${withSuffix}: No such file or directory`);
    name = withSuffix;
    path = resolveShellPath(ctx.cwd, name);
  }
  const stat = await ctx.fs.stat(path);
  if (stat.isDirectory) {
    if (!o.recursive) return warn(`${name} is a directory -- ignored`);
    let out = '';
    let err = '';
    let status = 0;
    for (const entry of await ctx.fs.readdir(path)) {
      const child = `${name.replace(/\/+$/, '')}/${entry}`;
      const childStat = await ctx.fs.stat(resolveShellPath(ctx.cwd, child));
      if (!childStat.isDirectory && !suffixes.some(([s]) => entry.endsWith(s) && entry.length > s.length)) continue;
      const r = await expandOne(ctx, o, child);
      out += r.out;
      err += r.err;
      status = worse(status, r.status);
    }
    return { out, err, status };
  }
  const match = suffixes.find(([s]) => name.endsWith(s) && name.length > s.length);
  if (!match && !o.stdout && !o.test) return warn(`${name}: unknown suffix -- ignored`);
  const bytes = await ctx.fs.readFileBuffer(path);
  if (!isGzip(bytes)) return fail(`${name}: not in gzip format`);
  /** @type {Uint8Array} */
  let data;
  try {
    data = expandGzip(bytes, name.split('/').pop() ?? name);
  } catch (e) {
    return fail(`${name}: ${e instanceof ArchiveLimitError ? e.message : 'invalid compressed data--format violated'}`);
  }
  if (o.test) return { out: '', err: o.verbose ? `${name}:\t OK\n` : '', status: 0 };
  if (o.stdout) return { out: latin1(data), err: '', status: 0 };
  const target = match ? `${name.slice(0, -match[0].length)}${match[1]}` : name;
  const targetPath = resolveShellPath(ctx.cwd, target);
  if (!o.force && (await ctx.fs.exists(targetPath))) return warn(`${target} already exists;\tnot overwritten`);
  await ctx.fs.writeFile(targetPath, data);
  if (!o.keep) await ctx.fs.rm(path);
  const saved = data.length ? ((1 - bytes.length / data.length) * 100).toFixed(1) : '0.0';
  return {
    out: '',
    err: o.verbose ? `${name}:\t${saved.padStart(5)}% -- ${o.keep ? 'created' : 'replaced with'} ${target.split('/').pop()}\n` : '',
    status: 0,
  };
}

/**
 * @param {'gzip' | 'gunzip' | 'zcat'} name
 * @returns {Command}
 */
function gunzipCommand(name) {
  return defineCommand(name, async (args, ctx) => {
    const o = parseGunzipArgs(name, args);
    if (!o) return /** @type {NonNullable<typeof ctx.origCommand>} */ (ctx.origCommand)(args);
    let out = '';
    let err = '';
    let status = 0;
    for (const operand of o.files.length ? o.files : ['-']) {
      const r = await expandOne(ctx, operand === '-' ? { ...o, stdout: true } : o, operand);
      out += r.out;
      err += r.err;
      status = worse(status, r.status);
    }
    /** @type {ExecResult} */
    const result = { stdout: out, stderr: err, exitCode: status };
    return out ? { ...result, stdoutKind: 'bytes', stdoutEncoding: 'binary' } : result;
  });
}

/** @returns {Command[]} */
export function gzipCommands() {
  return [gunzipCommand('gzip'), gunzipCommand('gunzip'), gunzipCommand('zcat')];
}
