/**
 * Tab completion for the terminal, pure given what it can look up: command names in command
 * position, `git` subcommands and branches, `clawser` areas and actions, `$VARIABLES`, and
 * paths (relative to the working directory, folders with a trailing "/") everywhere else.
 */
import { GIT_SUBCOMMANDS } from './commands/git.js';
import { CLAWSER_SUBCOMMANDS } from './commands/clawser.js';

/**
 * @typedef {object} CompletionSource
 * @property {string} cwd
 * @property {() => string[]} commands every command name
 * @property {() => string[]} variables
 * @property {(dir: string) => Promise<{name: string, directory: boolean}[]>} list an absolute folder's entries
 * @property {() => Promise<string[]>} [branches] the repository's branches
 */

/**
 * @typedef {object} Completion
 * @property {number} start where the word being completed begins in the line
 * @property {string} word the word as typed
 * @property {string[]} matches full replacements for the word (sorted)
 * @property {string} common the longest prefix every match shares (what Tab inserts)
 * @property {string} quote the open quote the word is in ('' when none): a single match closes it
 */

/** @param {string[]} list */
function commonPrefix(list) {
  if (!list.length) return '';
  let prefix = list[0];
  for (const s of list) while (!s.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix;
}

/**
 * The words of the line up to the cursor, shell-like enough for completion: spaces split,
 * quotes and backslashes keep text together, `|`, `;`, `&&`, `||` start a new command.
 * @param {string} text
 */
export function wordsBefore(text) {
  /** @type {{text: string, start: number}[]} */
  let words = [];
  let current = '';
  let start = 0;
  /** @type {string | null} */
  let quote = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = null;
      else current += c;
    } else if (c === '"' || c === "'") {
      if (!current) start = i;
      quote = c;
    } else if (c === '\\' && i + 1 < text.length) {
      if (!current) start = i;
      current += text[++i];
    } else if (/\s/.test(c)) {
      if (current) words.push({ text: current, start });
      current = '';
    } else if (c === '|' || c === ';' || c === '&' || c === '(' || c === '`') {
      // A new command starts after these.
      words = [];
      current = '';
    } else {
      if (!current) start = i;
      current += c;
    }
  }
  // Inside an open quote the word starts after the quote (which stays), and needs no escaping.
  const last = quote
    ? { text: current, start: text.lastIndexOf(quote) + 1, quoted: quote }
    : /\s$/.test(text)
      ? { text: '', start: text.length, quoted: '' }
      : { text: current, start: current ? start : text.length, quoted: '' };
  // Assignments before a command (FOO=1 cmd) are not the command.
  while (words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0].text)) words.shift();
  return { words: words.map((w) => w.text), last };
}

/**
 * @param {string} line @param {number} cursor @param {CompletionSource} source
 * @returns {Promise<Completion>}
 */
export async function complete(line, cursor, source) {
  const { words, last } = wordsBefore(line.slice(0, cursor));
  const word = last.text;
  // Outside quotes, a completed name's spaces and special characters are escaped (one argument).
  const escapeName = (/** @type {string} */ s) => (last.quoted ? s : s.replace(/([\s'"\\$`!*?()&;|<>[\]{}#~])/g, '\\$1'));
  /** @param {string[]} options */
  const result = (options) => {
    const matches = [...new Set(options.filter((o) => o.startsWith(word)))].sort();
    return { start: last.start, word, matches, common: commonPrefix(matches), quote: last.quoted };
  };
  if (word.startsWith('$') && !word.includes('/')) return result(source.variables().map((v) => `$${v}`));
  if (!words.length && !word.includes('/')) return result(source.commands());
  if (words[0] === 'git' && words.length === 1) return result(GIT_SUBCOMMANDS);
  if (
    words[0] === 'git' &&
    ['checkout', 'switch', 'branch', 'merge', 'log', 'diff'].includes(words[1] ?? '') &&
    source.branches &&
    !word.includes('/')
  ) {
    const branches = await source.branches().catch(() => []);
    const paths =
      words[1] === 'checkout' || words[1] === 'switch' || words[1] === 'branch'
        ? []
        : (await pathMatches(word, source)).matches.map(escapeName);
    return result([...branches, ...paths]);
  }
  if (words[0] === 'clawser' && words.length === 1) return result(Object.keys(CLAWSER_SUBCOMMANDS));
  if (words[0] === 'clawser' && words.length === 2)
    return result(/** @type {Record<string, string[]>} */ (CLAWSER_SUBCOMMANDS)[words[1]] ?? []);
  const paths = (await pathMatches(word, source)).matches.map(escapeName);
  return { start: last.start, word, matches: paths, common: commonPrefix(paths), quote: last.quoted };
}

/** @param {string} word @param {CompletionSource} source */
async function pathMatches(word, source) {
  const slash = word.lastIndexOf('/');
  const dirPart = slash >= 0 ? word.slice(0, slash + 1) : '';
  const namePart = slash >= 0 ? word.slice(slash + 1) : word;
  const base = dirPart.startsWith('/') ? dirPart : `${source.cwd.replace(/\/$/, '')}/${dirPart}`;
  const entries = await source.list(base || '/').catch(() => []);
  const matches = entries
    .filter((e) => e.name.startsWith(namePart) && (namePart.startsWith('.') || !e.name.startsWith('.')))
    .map((e) => `${dirPart}${e.name}${e.directory ? '/' : ''}`)
    .sort();
  return { matches };
}
