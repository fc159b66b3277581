/**
 * Which command lines only read: the agent's `shell` tool runs those under read-only autonomy
 * (and by default without asking, like a read tool). Pure AST analysis, no DOM or storage.
 *
 * The list is fixed and documented (docs/shell.md): a command is on it only when none of its
 * flags can write a file, run another command or change Clawser's state. So `sort` (-o),
 * `uniq` (an output operand), `find` (-delete, -exec), `sed` (-i), `awk` (print > file), `tee`,
 * `xargs`, `env` (runs a command), `date` (-s) are not. `git` and `clawser` are read-only only
 * with the subcommands listed. A line is read-only when every command in it (pipelines,
 * lists, command substitutions, subshells included) is, and no redirection writes a file
 * (`> /dev/null` and `2>&1` are fine).
 */

/** @typedef {{type: string, [key: string]: unknown}} AstNode */

export const READ_ONLY_COMMANDS = Object.freeze([
  'basename', 'base64', 'cat', 'cd', 'column', 'comm', 'cut', 'diff', 'dirname', 'du', 'echo', 'expand', 'false', 'file',
  'fold', 'grep', 'egrep', 'fgrep', 'head', 'help', 'jq', 'ls', 'md5sum', 'nl', 'od', 'paste', 'printenv', 'printf', 'pwd',
  'realpath', 'rev', 'seq', 'sha1sum', 'sha256sum', 'stat', 'tac', 'tail', 'test', '[', '[[', 'tr', 'tree', 'true', 'type',
  'unexpand', 'wc', 'which', ':',
  'git status', 'git log', 'git diff',
  'clawser memory list', 'clawser memory recall', 'clawser goal list', 'clawser job list', 'clawser skill list',
  'clawser mcp list', 'clawser tool list', 'clawser config list', 'clawser conversation list',
]);

/** Redirection targets that are not files. */
const HARMLESS_TARGETS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr']);

/** @param {unknown} word @returns {string | null} plain literal text of a word, or null when it expands */
export function literalWord(word) {
  const w = /** @type {AstNode | null} */ (word);
  if (!w || !Array.isArray(w.parts)) return null;
  let text = '';
  for (const part of /** @type {AstNode[]} */ (w.parts)) {
    if (part.type === 'Literal' || part.type === 'SingleQuoted' || part.type === 'Escaped') text += String(part.value);
    else if (part.type === 'DoubleQuoted' && Array.isArray(part.parts) && part.parts.every((p) => p.type === 'Literal')) text += part.parts.map((p) => String(p.value)).join('');
    else return null;
  }
  return text;
}

/**
 * Every simple command of a parsed line (anywhere in it) as its words (null for a word that
 * expands), plus whether anything in it writes or runs code the words do not show.
 * @param {AstNode} script
 * @returns {{commands: (string | null)[][], writes: string[]}}
 */
export function analyzeScript(script) {
  /** @type {(string | null)[][]} */
  const commands = [];
  /** @type {string[]} */
  const writes = [];
  /** @param {unknown} value */
  const visit = (value) => {
    if (Array.isArray(value)) {
      for (const v of value) visit(v);
      return;
    }
    if (!value || typeof value !== 'object') return;
    const node = /** @type {AstNode} */ (value);
    if (node.type === 'SimpleCommand' && node.name) {
      commands.push([literalWord(node.name), .../** @type {unknown[]} */ (node.args).map(literalWord)]);
    }
    if (node.type === 'Redirection') {
      const op = String(node.operator);
      if (['>', '>>', '>|', '&>', '&>>', '<>'].includes(op)) {
        const target = literalWord(node.target);
        if (target === null || !HARMLESS_TARGETS.has(target)) writes.push(`${op} ${target ?? '(an expanded name)'}`);
      } else if (op === '>&' && literalWord(node.target) !== null && !/^\d+$|^-$/.test(/** @type {string} */ (literalWord(node.target)))) {
        writes.push(`>& ${literalWord(node.target)}`);
      }
    }
    if (node.type === 'ProcessSubstitution' && node.direction === 'output') writes.push('>(…)');
    if (node.type === 'FunctionDef') writes.push(`a function (${String(node.name)})`);
    for (const key of Object.keys(node)) if (key !== 'type') visit(node[key]);
  };
  visit(script);
  return { commands, writes };
}

/**
 * Whether a command (its words) is on the read-only list.
 * @param {(string | null)[]} words
 */
export function isReadOnlyCommand(words) {
  const [name, ...args] = words;
  if (!name) return false;
  if (name === 'git' || name === 'clawser') {
    const sub = args.slice(0, name === 'git' ? 1 : 2);
    if (sub.some((w) => w === null)) return false;
    return READ_ONLY_COMMANDS.includes([name, ...sub].join(' '));
  }
  return READ_ONLY_COMMANDS.includes(name);
}

/**
 * Read-only verdict of a parsed line, with the first reason it is not.
 * @param {AstNode} script
 * @returns {{readOnly: boolean, reason?: string, commands: string[]}}
 *   commands: each simple command's text (words joined; `…` for a word that expands)
 */
export function readOnlyVerdict(script) {
  const { commands, writes } = analyzeScript(script);
  const texts = commands.map((words) => words.map((w) => w ?? '…').join(' '));
  if (writes.length) return { readOnly: false, reason: `it writes (${writes[0]})`, commands: texts };
  const bad = commands.find((words) => !isReadOnlyCommand(words));
  if (bad) return { readOnly: false, reason: `"${bad[0] ?? 'a computed command name'}" is not a read-only command`, commands: texts };
  return { readOnly: true, commands: texts };
}
