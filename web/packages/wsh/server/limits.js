// What a key may do, checked on the server before anything runs: which program (no shell when
// the key is limited to some), which directories (symlinks and `..` resolved, so a path cannot
// leave them), which environment variables.
import { lstat, realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { WshRefusedError } from '../errors.js';

/** @import { KeyEntry } from './keys-file.js' */

/** Characters that mean something to a shell; refused outside quotes when commands run without one. */
const SHELL_SYNTAX = /[|&;<>()$`*?[\]{}~!#\n\r]/;

/**
 * Splits a command line into words the way a shell would for plain words and quotes (single,
 * double, backslash), and refuses anything else a shell would interpret (pipes, redirection,
 * variables, globs, `;`).
 * @param {string} line
 * @returns {string[]}
 */
export function splitCommand(line) {
  /** @type {string[]} */
  const words = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new WshRefusedError('shell_syntax_not_allowed', 'Unclosed single quote in the command.');
      word += line.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === '\\' && j + 1 < line.length && '"\\'.includes(line[j + 1])) j++;
        else if (line[j] === '$' || line[j] === '`')
          throw new WshRefusedError('shell_syntax_not_allowed', 'This key runs commands without a shell: no $ or ` in the command.');
        word += line[j];
      }
      if (j >= line.length) throw new WshRefusedError('shell_syntax_not_allowed', 'Unclosed double quote in the command.');
      i = j;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (c === ' ' || c === '\t') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else if (SHELL_SYNTAX.test(c)) {
      throw new WshRefusedError(
        'shell_syntax_not_allowed',
        `This key runs commands without a shell: "${c}" is not allowed (quote it, or give the command as a list of words).`,
      );
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  if (!words.length) throw new WshRefusedError('command_not_allowed', 'The command is empty.');
  return words;
}

/**
 * How to start a command for this key: through the shell when any command is allowed, else the
 * argv of an allowed program.
 * @param {KeyEntry} key
 * @param {string | string[] | undefined} cmd undefined: the login shell (a terminal)
 * @returns {{file: string, args: string[], shell: boolean}}
 */
export function planCommand(key, cmd) {
  if (key.commands === '*') {
    if (cmd === undefined) return { file: loginShell(), args: process.platform === 'win32' ? [] : ['-l'], shell: true };
    if (Array.isArray(cmd)) return { file: cmd[0], args: cmd.slice(1), shell: false };
    return process.platform === 'win32'
      ? { file: process.env.ComSpec || 'cmd.exe', args: ['/d', '/s', '/c', cmd], shell: true }
      : { file: '/bin/sh', args: ['-c', cmd], shell: true };
  }
  if (cmd === undefined)
    throw new WshRefusedError('command_not_allowed', `This key may run only ${key.commands.join(', ')}: name the command to run.`);
  const argv = Array.isArray(cmd) ? cmd : splitCommand(cmd);
  const program = argv[0];
  const allowed = key.commands.some((c) => (isAbsolute(c) ? c === program : c === program && basename(program) === program));
  if (!allowed)
    throw new WshRefusedError(
      'command_not_allowed',
      `"${program}" is not among the commands this key may run (${key.commands.join(', ')}); the server's keys file lists them.`,
    );
  return { file: program, args: argv.slice(1), shell: false };
}

function loginShell() {
  if (process.platform === 'win32') return process.env.ComSpec || 'cmd.exe';
  return process.env.SHELL || '/bin/sh';
}

/**
 * The environment a process gets: the server's, plus what the client asked for and the key allows.
 * @param {KeyEntry} key @param {Record<string, string> | undefined} asked
 */
export function planEnv(key, asked) {
  const env = { ...process.env };
  for (const [name, value] of Object.entries(asked ?? {})) {
    if (key.env !== '*' && !key.env.includes(name))
      throw new WshRefusedError(
        'env_not_allowed',
        `This key may not set ${name}` + (key.env.length ? ` (it may set ${key.env.join(', ')}).` : ' (it may set no variables).'),
      );
    env[name] = value;
  }
  return env;
}

/** Whether `path` is `dir` or inside it. @param {string} path @param {string} dir */
export function isInside(path, dir) {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** The base a relative path starts from for this key: its first directory, else the home folder. @param {KeyEntry} key */
export function baseDir(key) {
  return key.dirs === '*' ? homedir() : key.dirs[0];
}

/**
 * The real path of `path` (relative to the key's base), refused unless it is inside one of the
 * key's directories. Symlinks are resolved for the part that exists, so neither a link nor `..`
 * leads out; for a path that does not exist yet (a put), its deepest existing folder is resolved.
 * @param {KeyEntry} key
 * @param {string | undefined} path
 * @param {string} what for the message ("working directory", "file")
 */
export async function allowedPath(key, path, what) {
  const wanted = resolve(baseDir(key), path === undefined || path === '' ? '.' : expandHome(path));
  let existing = wanted;
  /** @type {string[]} */
  const missing = [];
  for (;;) {
    try {
      existing = await realpath(existing);
      break;
    } catch (err) {
      if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'ENOENT') throw err;
      // A dangling symlink is refused: where it points is not known to be inside.
      const isLink = await lstat(existing).then(
        (s) => s.isSymbolicLink(),
        () => false,
      );
      if (isLink) throw new WshRefusedError('dir_not_allowed', `The ${what} "${path}" is a link to nowhere.`);
      const parent = dirname(existing);
      if (parent === existing) break;
      missing.unshift(basename(existing));
      existing = parent;
    }
  }
  const real = missing.length ? join(existing, ...missing) : existing;
  if (key.dirs !== '*' && !key.dirs.some((d) => isInside(real, d)))
    throw new WshRefusedError(
      'dir_not_allowed',
      `The ${what} "${path ?? '.'}" is outside the directories this key may use (${key.dirs.join(', ')}).`,
    );
  return real;
}

/** @param {string} path */
function expandHome(path) {
  return path === '~' ? homedir() : path.startsWith('~/') ? join(homedir(), path.slice(2)) : path;
}
