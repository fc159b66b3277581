// The server's keys file: one public key a line, each with what it may do.
//
//   # a comment; blank lines are skipped
//   ssh-ed25519 AAAAC3Nza… laptop                     (no options: any command, any directory)
//   commands=git,ls,node dirs=~/code,/tmp sessions=4 output=50M ssh-ed25519 AAAAC3Nza… clawser
//
// Options come before the key, as in OpenSSH's authorized_keys; a value holding spaces or
// commas is written in double quotes, items separated by commas:
//   commands=NAME,…   programs the key may run (a bare name looked up on the server's PATH,
//                     or an absolute path); commands are then run without a shell. `*`: any,
//                     through the shell (the default).
//   dirs=DIR,…        directories the key may use as a working directory and for put/get
//                     (`~` is the home folder; symlinks resolved). `*`: any (the default).
//   env=NAME,…        environment variables the client may set. Default: any when commands=*,
//                     none otherwise (PATH, LD_PRELOAD… could change what an allowed name runs).
//   sessions=N        processes, transfers and relay requests open at once (default 8).
//   output=SIZE       stdout+stderr bytes per process before it is stopped (K, M, G; default none).
//   relay=no          the key may not use the HTTP relay (default yes, to the --relay-allow hosts).
import { readFile, realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { parsePublicKeyLine } from '../keys.js';

/**
 * @typedef {object} KeyEntry
 * @property {string} blob the base64 SSH blob
 * @property {Uint8Array} raw the 32 raw public key bytes
 * @property {string} comment
 * @property {'*' | string[]} commands
 * @property {'*' | string[]} dirs real paths
 * @property {'*' | string[]} env
 * @property {number} sessions
 * @property {number} outputBytes 0: no cap
 * @property {boolean} relay
 * @property {number} line where it is in the file
 */

/** @typedef {{line: number, message: string}} KeyFileProblem */

const OPTIONS = new Set(['commands', 'dirs', 'env', 'sessions', 'output', 'relay']);

/**
 * Parses a keys file's text. Lines with a problem are left out and reported (the others load).
 * @param {string} text
 * @returns {Promise<{keys: KeyEntry[], problems: KeyFileProblem[]}>}
 */
export async function parseKeysFile(text) {
  /** @type {KeyEntry[]} */
  const keys = [];
  /** @type {KeyFileProblem[]} */
  const problems = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line || line.startsWith('#')) continue;
    try {
      keys.push(await parseKeyLine(line, i + 1));
    } catch (err) {
      problems.push({ line: i + 1, message: /** @type {Error} */ (err).message });
    }
  }
  return { keys, problems };
}

/** @param {string} path */
export async function readKeysFile(path) {
  return parseKeysFile(await readFile(path, 'utf8'));
}

/**
 * @param {string} line
 * @param {number} lineNumber
 * @returns {Promise<KeyEntry>}
 */
export async function parseKeyLine(line, lineNumber = 1) {
  const at = line.search(/(?:^|\s)ssh-ed25519\s/);
  if (at < 0) throw new Error('no "ssh-ed25519 <key>" on the line (only Ed25519 keys are accepted)');
  const { raw, blob, comment } = parsePublicKeyLine(line.slice(at));
  const options = parseOptions(line.slice(0, at));
  const commands = listOption(options.get('commands'));
  const dirs = listOption(options.get('dirs'));
  const env = options.has('env') ? listOption(options.get('env')) : commands === '*' ? '*' : [];
  const sessions = options.has('sessions') ? Number(options.get('sessions')) : 8;
  if (!Number.isInteger(sessions) || sessions < 1 || sessions > 1000) throw new Error(`sessions must be a whole number from 1 to 1000`);
  const relay = options.get('relay') ?? 'yes';
  if (relay !== 'yes' && relay !== 'no') throw new Error('relay must be yes or no');
  if (commands !== '*')
    for (const c of commands)
      if (!/^[\w.+-]+$/.test(c) && !(isAbsolute(c) && !c.includes('..')))
        throw new Error(`command "${c}" must be a bare program name or an absolute path`);
  return {
    blob,
    raw,
    comment,
    commands,
    dirs: dirs === '*' ? '*' : await Promise.all(dirs.map(realDir)),
    env,
    sessions,
    outputBytes: options.has('output') ? parseSize(String(options.get('output'))) : 0,
    relay: relay === 'yes',
    line: lineNumber,
  };
}

/** @param {string} text @returns {Map<string, string>} */
function parseOptions(text) {
  /** @type {Map<string, string>} */
  const out = new Map();
  for (const m of text.matchAll(/\s*([a-z]+)=("(?:[^"\\]|\\.)*"|\S*)/gy)) {
    const name = m[1];
    if (!OPTIONS.has(name)) throw new Error(`unknown option "${name}" (known: ${[...OPTIONS].join(', ')})`);
    out.set(name, m[2].startsWith('"') ? m[2].slice(1, -1).replace(/\\(.)/g, '$1') : m[2]);
  }
  const rest = text.replace(/\s*([a-z]+)=("(?:[^"\\]|\\.)*"|\S*)/gy, '').trim();
  if (rest) throw new Error(`cannot read "${rest.slice(0, 40)}" before the key (options are name=value)`);
  return out;
}

/** @param {string | undefined} value @returns {'*' | string[]} */
function listOption(value) {
  if (value === undefined || value.trim() === '*') return '*';
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** @param {string} dir */
async function realDir(dir) {
  const expanded = dir === '~' ? homedir() : dir.startsWith('~/') ? join(homedir(), dir.slice(2)) : dir;
  if (!isAbsolute(expanded)) throw new Error(`directory "${dir}" must be absolute (or start with ~/)`);
  try {
    return await realpath(expanded);
  } catch {
    throw new Error(`directory "${dir}" does not exist`);
  }
}

/** "10M" → 10485760. @param {string} text */
export function parseSize(text) {
  const m = /^(\d+)([KMG]?)B?$/i.exec(text.trim());
  if (!m) throw new Error(`size "${text}" is not a number with K, M or G`);
  return Number(m[1]) * { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[/** @type {'' | 'K' | 'M' | 'G'} */ (m[2].toUpperCase())];
}
