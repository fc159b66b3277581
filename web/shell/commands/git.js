/** @import { Command, CommandContext } from 'just-bash' */
/** @import { WorkspaceGit } from '../../git/git.js' */
import { defineCommand } from 'just-bash';
import { resolveShellPath, toStoragePath } from '../bash-fs.js';
import { GitError, skippedNote } from '../../git/errors.js';
import { protectedFolderOf } from '../../storage/protected-fs.js';

/** @param {string} stdout @param {number} [exitCode] */
const ok = (stdout, exitCode = 0) => ({ stdout: stdout && !stdout.endsWith('\n') ? `${stdout}\n` : stdout, stderr: '', exitCode });
/** @param {string} message @param {number} [exitCode] */
const fail = (message, exitCode = 1) => ({ stdout: '', stderr: `${message.replace(/\n?$/, '\n')}`, exitCode });

export const GIT_SUBCOMMANDS = ['status', 'add', 'commit', 'log', 'diff', 'branch', 'checkout', 'switch', 'restore'];

const USAGE = `usage: git <command> [<args>]
The workspace's repository (the same one as the Git panel):
  status [-s]                 changed, staged and untracked files
  add <path>... | -A | .      stage files for the next commit
  commit -m <message> [-a]    commit what is staged (-a: every change)
  log [--oneline] [-N|-n N] [--skip=N] [--format=…|--pretty=…] [<path>]
  diff [--cached] [--name-status|--name-only] [<path>...]   the working tree's (or staged) changes
  diff <commit> [<commit>] [--] [<path>...]   what a commit changed, or from one commit to another (A..B too)
  branch [-d] [<name>]        list, create or delete branches
  checkout [-b] <branch>      switch branches (switch [-c] <branch> too)
  restore [--source=<commit>] <path>...
`;

/**
 * Splits `-n 5`, `-n5`, `--max-count=5` style options from paths.
 * @param {string[]} args @param {string[]} valued options that take a value
 */
function parseArgs(args, valued) {
  /** @type {Map<string, string | true>} */
  const opts = new Map();
  /** @type {string[]} */
  const rest = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') {
      rest.push(...args.slice(i + 1));
      break;
    }
    const eq = a.match(/^(--[^=]+)=(.*)$/s);
    if (eq) opts.set(eq[1], eq[2]);
    else if (valued.includes(a)) opts.set(a, args[++i] ?? '');
    else if (/^-n\d+$/.test(a)) opts.set('-n', a.slice(2));
    else if (/^--[a-z][a-z-]*$/.test(a)) opts.set(a, true);
    else if (/^-[a-zA-Z]+$/.test(a)) for (const c of a.slice(1)) opts.set(`-${c}`, true);
    else rest.push(a);
  }
  return { opts, rest };
}

/**
 * `git` porcelain over the workspace's repository (isomorphic-git through WorkspaceGit): the
 * same queue and the same rules as the Git panel and the git tools — Clawser's own folders are
 * never staged or checked out.
 * @param {() => Promise<WorkspaceGit>} repoOf
 * @param {{mayWrite?: () => boolean, permit?: (sub: string, args: string[]) => string | null}} [options] mayWrite: false while a line runs
 *   as read-only;
 *   permit: why a bounded shell (a skill script's) may not run this subcommand, or null
 * @returns {Command}
 */
export function gitCommand(repoOf, options = {}) {
  return defineCommand('git', async (args, ctx) => {
    const [sub, ...rest] = args;
    if (!sub || sub === 'help' || sub === '--help' || sub === '-h') return ok(USAGE, sub ? 0 : 1);
    if (!GIT_SUBCOMMANDS.includes(sub)) return fail(`git: '${sub}' is not supported here. See 'git help'.`);
    const reads =
      sub === 'status' ||
      sub === 'log' ||
      sub === 'diff' ||
      (sub === 'branch' && !rest.some((a) => !a.startsWith('-') || a === '-d' || a === '-D'));
    if (!reads && options.mayWrite && !options.mayWrite())
      return fail(`fatal: git ${sub} changes the repository, and this line was run as read-only`, 128);
    const refused = options.permit?.(sub, rest);
    if (refused) return fail(`fatal: git ${sub}: ${refused}`, 128);
    try {
      const repo = await repoOf();
      return await runGit(repo, sub, rest, ctx);
    } catch (err) {
      if (err instanceof GitError) return fail(`fatal: ${err.message}`, 128);
      return fail(`fatal: ${/** @type {Error} */ (err)?.message ?? String(err)}`, 128);
    }
  });
}

/** git's default date (`Thu Nov 28 20:03:00 2024 +0000`; the workspace keeps no time zone). @param {number} ms */
function gitDate(ms) {
  const d = new Date(ms);
  const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][d.getUTCDay()];
  const month = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][d.getUTCMonth()];
  return `${day} ${month} ${d.getUTCDate()} ${d.toISOString().slice(11, 19)} ${d.getUTCFullYear()} +0000`;
}

/**
 * A commit through git's --format placeholders (those a commit list has):
 * %H %h %P %p %s %b %B %an %ae %ad %aD %at %ai %aI %ar (and %c… alike: the committer is the
 * author here), %n and %%; anything else is kept as written.
 * @param {string} template @param {{oid: string, message: string, author: string, email: string, timestamp: number, parents?: string[]}} c
 */
function formatCommit(template, c) {
  const [subject, ...body] = c.message.split('\n');
  const iso = new Date(c.timestamp).toISOString();
  const ago = relative(Date.now() - c.timestamp);
  /** @type {Record<string, string>} */
  const fields = {
    H: c.oid,
    h: c.oid.slice(0, 7),
    P: (c.parents ?? []).join(' '),
    p: (c.parents ?? []).map((p) => p.slice(0, 7)).join(' '),
    s: subject,
    b: body.join('\n').replace(/^\n+/, '') ? `${body.join('\n').replace(/^\n+/, '')}\n` : '',
    B: `${c.message}\n`,
    n: '\n',
    '%': '%',
  };
  for (const who of ['a', 'c']) {
    Object.assign(fields, {
      [`${who}n`]: c.author,
      [`${who}e`]: c.email,
      [`${who}d`]: gitDate(c.timestamp),
      [`${who}D`]: new Date(c.timestamp).toUTCString().replace('GMT', '+0000'),
      [`${who}t`]: String(Math.floor(c.timestamp / 1000)),
      [`${who}i`]: `${iso.slice(0, 10)} ${iso.slice(11, 19)} +0000`,
      [`${who}I`]: `${iso.slice(0, 19)}+00:00`,
      [`${who}r`]: ago,
    });
  }
  return template.replace(/%([ac][a-zA-Z]|[a-zA-Z%])/g, (m, key) => fields[key] ?? m);
}

/** git's relative date. @param {number} ms */
function relative(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  const units = /** @type {[number, string][]} */ ([
    [31536000, 'year'],
    [2592000, 'month'],
    [604800, 'week'],
    [86400, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
    [1, 'second'],
  ]);
  for (const [size, name] of units)
    if (s >= size || size === 1) {
      const n = Math.floor(s / size);
      return `${n} ${name}${n === 1 ? '' : 's'} ago`;
    }
  return '0 seconds ago';
}

/**
 * The files at or under a workspace path (Clawser's own folders left out), or [] when nothing is there.
 * @param {CommandContext} ctx @param {string} spec
 */
async function filesUnder(ctx, spec) {
  const abs = `/${spec}`;
  const stat = await ctx.fs.stat(abs).catch(() => null);
  if (!stat) return [];
  if (!stat.isDirectory) return protectedFolderOf(spec) ? [] : [spec];
  /** @type {string[]} */
  const out = [];
  /** @param {string} dir */
  const walk = async (dir) => {
    for (const name of await ctx.fs.readdir(dir === '' ? '/' : `/${dir}`)) {
      const p = dir ? `${dir}/${name}` : name;
      if (protectedFolderOf(p)) continue;
      const s = await ctx.fs.stat(`/${p}`);
      if (s.isDirectory) await walk(p);
      else out.push(p);
    }
  };
  await walk(spec);
  return out;
}

/** @param {WorkspaceGit} repo @param {string} sub @param {string[]} args @param {CommandContext} ctx */
async function runGit(repo, sub, args, ctx) {
  /** @param {string} p */
  const path = (p) => toStoragePath(resolveShellPath(ctx.cwd, p));
  switch (sub) {
    case 'status': {
      const { opts } = parseArgs(args, []);
      const short = opts.has('-s') || opts.has('--short') || opts.has('--porcelain');
      if (!(await repo.isRepo())) return fail('fatal: not a git repository (the workspace becomes one with its first commit)', 128);
      const [{ current }, status] = await Promise.all([repo.branches(), repo.status()]);
      const changed = status.filter((s) => s.state !== 'unchanged' || s.staged || s.unstaged);
      if (short) {
        const code = (/** @type {typeof status[number]} */ s) => {
          if (s.state === 'new' && !s.staged) return '??';
          const letter = s.state === 'new' ? 'A' : s.state === 'deleted' ? 'D' : 'M';
          return `${s.staged ? letter : ' '}${s.unstaged ? (s.state === 'deleted' ? 'D' : 'M') : ' '}`;
        };
        return ok(changed.map((s) => `${code(s)} ${s.path}`).join('\n'));
      }
      const staged = changed.filter((s) => s.staged);
      const unstaged = changed.filter((s) => s.unstaged && !(s.state === 'new' && !s.staged));
      const untracked = changed.filter((s) => s.state === 'new' && !s.staged);
      const word = (/** @type {typeof status[number]} */ s) =>
        s.state === 'new' ? 'new file' : s.state === 'deleted' ? 'deleted' : 'modified';
      const out = [`On branch ${current ?? '(detached)'}`];
      if (staged.length) out.push('Changes to be committed:', ...staged.map((s) => `\t${`${word(s)}:`.padEnd(12)}${s.path}`), '');
      if (unstaged.length)
        out.push(
          'Changes not staged for commit:',
          ...unstaged.map((s) => `\t${`${s.state === 'deleted' ? 'deleted' : 'modified'}:`.padEnd(12)}${s.path}`),
          '',
        );
      if (untracked.length) out.push('Untracked files:', ...untracked.map((s) => `\t${s.path}`), '');
      if (!changed.length) out.push('nothing to commit, working tree clean');
      return ok(out.join('\n'));
    }
    case 'add': {
      const { opts, rest } = parseArgs(args, []);
      const all = opts.has('-A') || opts.has('--all');
      if (!all && !rest.length) return fail("Nothing specified, nothing added.\nhint: Maybe you wanted to say 'git add .'?");
      const specs = all ? [''] : rest.map(path);
      const status = await repo.status();
      const under = (/** @type {string} */ p, /** @type {string} */ spec) => !spec || p === spec || p.startsWith(`${spec}/`);
      /** @type {Set<string>} */
      const wanted = new Set();
      for (const [i, spec] of specs.entries()) {
        // Changed files git knows (deletions included), and the files on disk (a new repository knows none yet).
        const known = status.filter((s) => s.state !== 'unchanged' && under(s.path, spec)).map((s) => s.path);
        const onDisk = await filesUnder(ctx, spec);
        if (!known.length && !onDisk.length && !status.some((s) => under(s.path, spec)))
          return fail(`fatal: pathspec '${rest[i] ?? '.'}' did not match any files`, 128);
        for (const p of [...known, ...onDisk]) wanted.add(p);
      }
      if (wanted.size) await repo.stage([...wanted]);
      return ok('');
    }
    case 'commit': {
      const { opts } = parseArgs(args, ['-m', '--message']);
      const message = String(opts.get('-m') ?? opts.get('--message') ?? '');
      if (!message || message === 'true') return fail('error: give a message with -m "…" (there is no editor here)');
      const oid = opts.has('-a') || opts.has('--all') ? await repo.commitAll({ message }) : await repo.commit({ message });
      if (!oid) return ok('nothing to commit, working tree clean', 1);
      if (opts.has('-q') || opts.has('--quiet')) return ok('');
      const { current } = await repo.branches();
      return ok(`[${current ?? 'detached HEAD'} ${oid.slice(0, 7)}] ${message.split('\n')[0]}`);
    }
    case 'log': {
      // `-3` is `-n 3`, as in git.
      const { opts, rest } = parseArgs(
        args.map((a) => (/^-\d+$/.test(a) ? `-n${a.slice(1)}` : a)),
        ['-n', '--max-count', '--skip'],
      );
      const count = Number(opts.get('-n') ?? opts.get('--max-count') ?? 50) || 50;
      const skip = Math.max(0, Number(opts.get('--skip') ?? 0) || 0);
      const all = await repo.log({ depth: count + skip, ...(rest[0] ? { filepath: path(rest[0]) } : {}) });
      if (!all.length) return fail('fatal: your current branch does not have any commits yet', 128);
      const log = all.slice(skip, skip + count);
      const pretty = String(opts.get('--format') ?? opts.get('--pretty') ?? (opts.has('--oneline') ? 'oneline-abbrev' : 'medium'));
      if (pretty === 'oneline-abbrev') return ok(log.map((c) => `${c.oid.slice(0, 7)} ${c.message.split('\n')[0]}`).join('\n'));
      if (pretty === 'oneline') return ok(log.map((c) => `${c.oid} ${c.message.split('\n')[0]}`).join('\n'));
      // short, full, fuller: close enough to medium here (the author is the committer).
      if (['medium', 'true', 'short', 'full', 'fuller'].includes(pretty))
        return ok(
          log
            .map(
              (c) =>
                `commit ${c.oid}\nAuthor: ${c.author} <${c.email}>\nDate:   ${gitDate(c.timestamp)}\n\n${c.message
                  .split('\n')
                  .map((l) => `    ${l}`)
                  .join('\n')}\n`,
            )
            .join('\n'),
        );
      // format: separates the entries with newlines; tformat: (and a bare --format) ends each with one.
      const separated = pretty.startsWith('format:');
      const template = pretty.replace(/^t?format:/, '');
      if (!/%|^[^a-z]/.test(template) && !pretty.includes(':') && !opts.has('--format'))
        return fail(`fatal: invalid --pretty format: ${pretty}`, 128);
      const entries = log.map((c) => formatCommit(template, c));
      return { stdout: separated ? entries.join('\n') : entries.map((e) => `${e}\n`).join(''), stderr: '', exitCode: 0 };
    }
    case 'diff': {
      // Words before `--` may be commits (`A B`, `A..B`, or one commit: what it changed); after
      // it, only paths. Without `--`, a word is a commit when it names one and no file, as git reads it.
      const dashes = args.indexOf('--');
      const { opts, rest: words } = parseArgs(dashes < 0 ? args : args.slice(0, dashes), []);
      const { formatDiff, formatNameStatus } = await import('../../git/git.js');
      const status = await repo.status();
      const isPath = (/** @type {string} */ r) => status.some((s) => s.path === path(r) || s.path.startsWith(`${path(r)}/`));
      /** @type {string[]} */
      const revs = [];
      let taken = 0;
      for (const word of words) {
        const range = word.match(/^(.*?)\.\.(?!\.)(.*)$/s);
        const named = range && !revs.length ? [range[1] || 'HEAD', range[2] || 'HEAD'] : [word];
        if (revs.length + named.length > 2 || (dashes < 0 && !range && isPath(word))) break;
        const oids = await Promise.all(named.map((r) => repo.resolveCommit(r)));
        if (oids.some((o) => !o)) {
          if (dashes >= 0 || range) return fail(`fatal: bad revision '${named[oids.indexOf(null)]}'`, 128);
          break;
        }
        revs.push(.../** @type {string[]} */ (oids));
        taken++;
      }
      if (dashes >= 0 && taken < words.length) return fail(`fatal: bad revision '${words[taken]}'`, 128);
      for (const word of words.slice(taken))
        if (!isPath(word) && !(await ctx.fs.exists(resolveShellPath(ctx.cwd, word))))
          return fail(`fatal: ambiguous argument '${word}': unknown revision or path not in the working tree.`, 128);
      const paths = [...words.slice(taken), ...(dashes < 0 ? [] : args.slice(dashes + 1))].map(path);
      const wanted = (/** @type {string} */ p) => !paths.length || paths.some((r) => p === r || p.startsWith(`${r}/`));
      const cached = opts.has('--cached') || opts.has('--staged');
      /** @type {import('../../git/git.js').FileDiff[]} */
      let diffs;
      if (revs.length === 2) diffs = await repo.diffCommits(revs[0], revs[1]);
      else if (revs.length === 1) diffs = await repo.diffCommit(revs[0]);
      else {
        const changed = status.filter((s) => (cached ? s.staged : s.unstaged && s.state !== 'new') && wanted(s.path)).map((s) => s.path);
        diffs = await Promise.all(
          changed.map((p) => repo.diffFile(p, cached ? { from: 'HEAD', to: 'INDEX' } : { from: 'INDEX', to: 'WORKDIR' })),
        );
      }
      diffs = diffs.filter((d) => wanted(d.path) && (d.binary || d.tooLarge || d.hunks.length || d.change !== 'modified'));
      if (opts.has('--name-status') || opts.has('--name-only')) return ok(formatNameStatus(diffs, opts.has('--name-status')));
      return ok(formatDiff(diffs));
    }
    case 'branch': {
      const { opts, rest } = parseArgs(args, []);
      if (opts.has('-d') || opts.has('-D')) {
        if (!rest[0]) return fail('fatal: branch name required', 128);
        await repo.deleteBranch(rest[0]);
        return ok(`Deleted branch ${rest[0]}.`);
      }
      if (rest[0]) {
        await repo.createBranch(rest[0]);
        return ok('');
      }
      const { current, branches } = await repo.branches();
      return ok(branches.map((b) => `${b === current ? '*' : ' '} ${b}`).join('\n'));
    }
    case 'checkout':
    case 'switch': {
      const { opts, rest } = parseArgs(args, []);
      const create = opts.has('-b') || opts.has('-c');
      const name = rest[0];
      if (!name) return fail(`fatal: give a branch to ${sub === 'switch' ? 'switch to' : 'check out'}`, 128);
      if (sub === 'checkout' && (rest[0] === '--' || rest.length > 1))
        return fail("use 'git restore <path>' to discard changes to a file", 128);
      const { skipped } = create
        ? await repo.createBranch(name, { checkout: true })
        : await repo.switchBranch(name, { force: opts.has('-f') });
      const note = skipped ? `\n${skippedNote(skipped)}` : '';
      return { stdout: '', stderr: `Switched to ${create ? 'a new ' : ''}branch '${name}'${note}\n`, exitCode: 0 };
    }
    case 'restore': {
      const { opts, rest } = parseArgs(args, ['-s', '--source']);
      const source = String(opts.get('-s') ?? opts.get('--source') ?? 'HEAD');
      if (!rest.length) return fail('fatal: you must specify path(s) to restore', 128);
      if (opts.has('--staged') || opts.has('-S')) {
        await repo.unstage(rest.map(path));
        return ok('');
      }
      let skipped = 0;
      for (const r of rest) skipped += (await repo.restore(source, { filepath: path(r) })).skipped;
      return ok(skipped ? skippedNote(skipped) : '');
    }
    default:
      return fail(`git: '${sub}' is not supported here.`);
  }
}
