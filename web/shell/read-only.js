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
 * (`> /dev/null` and `2>&1` are fine). Text the parser keeps unparsed that could run code when
 * expanded (`$(…)` inside arithmetic, an array subscript, a quoted string that may be evaluated
 * later), assignments to `BASH_*` (aliases live there) or to array elements, and `printf -v`
 * make a line not read-only. Whatever the check misses, the tool runs a read-only line with
 * every change to the files refused (Shell.run's `readOnly`), so it still writes nothing.
 */

/** @typedef {{type: string, [key: string]: unknown}} AstNode */

/**
 * Commands that run other code (another shell, a command they are given, a script language
 * that can call the system): never read-only, and a narrowed "Always allow" cannot cover them.
 */
export const COMMAND_RUNNERS = Object.freeze(['bash', 'sh', 'eval', 'source', '.', 'exec', 'command', 'builtin', 'xargs', 'find', 'awk', 'sed', 'env', 'timeout', 'nohup', 'time', 'watch', 'trap', 'alias', 'unalias',
  // They set variables (or options) by a name given as a word: an alias (BASH_ALIAS_*), PS4 with
  // set -x, a variable arithmetic will evaluate later. No narrowed rule covers them.
  'export', 'declare', 'typeset', 'local', 'readonly', 'read', 'mapfile', 'readarray', 'let', 'unset', 'set', 'shopt', 'getopts', 'printf']);

/** Variables that change what later commands run or how (aliases, traces, prompts, the search path). */
const SENSITIVE_VARIABLES = /^(BASH_|PS[0-4]$|PROMPT_COMMAND$|ENV$|IFS$|PATH$|SHELLOPTS$|BASHOPTS$|HISTFILE$)/;

/** Parameter expansions that do no arithmetic, no assignment and no indirection. */
const PLAIN_EXPANSIONS = new Set([null, undefined, 'DefaultValue', 'UseAlternative', 'Length', 'ErrorIfUnset', 'PatternRemoval', 'PatternReplacement', 'CaseModification']);
/** Comparisons [[ ]] evaluates as arithmetic (which can run code held in a variable). */
const ARITHMETIC_TESTS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);

export const READ_ONLY_COMMANDS = Object.freeze([
  'basename', 'base64', 'cat', 'cd', 'column', 'comm', 'cut', 'diff', 'dirname', 'du', 'echo', 'expand', 'false', 'file',
  'fold', 'grep', 'egrep', 'fgrep', 'head', 'help', 'jq', 'ls', 'md5sum', 'nl', 'od', 'paste', 'printenv', 'printf', 'pwd',
  'realpath', 'rev', 'seq', 'sha1sum', 'sha256sum', 'stat', 'tac', 'tail', 'test', '[', '[[', 'tr', 'tree', 'true', 'type',
  'unexpand', 'wc', 'which', ':',
  'git status', 'git log', 'git diff',
  'clawser memory list', 'clawser memory recall', 'clawser goal list', 'clawser job list', 'clawser skill list',
  'clawser mcp list', 'clawser tool list',
]);

/** Text that expands into code when evaluated later. */
const HIDDEN_CODE = /\$\(|`|\$\[|<\(|>\(/;

/** Redirection targets that are not files. */
const HARMLESS_TARGETS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr']);

/** @param {unknown} word @returns {string | null} plain literal text of a word, or null when it expands */
export function literalWord(word) {
  const w = /** @type {AstNode | null} */ (word);
  if (!w || !Array.isArray(w.parts)) return null;
  let text = '';
  const parts = /** @type {AstNode[]} */ (w.parts);
  // `[` reaches the parser as a one-character glob.
  if (parts.length === 1 && parts[0].type === 'Glob' && parts[0].pattern === '[') return '[';
  for (const part of parts) {
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
    if (node.type === 'Assignment') {
      const name = String(node.name);
      if (SENSITIVE_VARIABLES.test(name) || /[[\]]/.test(name) || node.array) writes.push(`an assignment to ${name}`);
    }
    // Arithmetic evaluates variables as expressions, and an expression can hold `a[$(…)]`: a
    // value set earlier (even assembled at run time) would run. So any arithmetic counts.
    if (node.type === 'ArithmeticExpansion' || node.type === 'ArithmeticCommand' || node.type === 'CStyleFor') writes.push('arithmetic (it can run code held in a variable)');
    if (node.type === 'ParameterExpansion') {
      const op = /** @type {{type?: string} | null} */ (node.operation)?.type;
      if (!PLAIN_EXPANSIONS.has(op) || !/^([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])$/.test(String(node.parameter))) writes.push(`the expansion \${${String(node.parameter)}…} (arithmetic, assignment or indirection)`);
    }
    if (typeof node.operator === 'string' && ARITHMETIC_TESTS.has(node.operator) && node.type !== 'Redirection') writes.push(`an arithmetic comparison (${node.operator})`);
    if (node.type === 'CommandSubstitution' || node.type === 'ProcessSubstitution') {
      // Parsed: its commands are visited like the rest.
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
    for (const key of Object.keys(node)) {
      if (key === 'type' || key === 'sourceText') continue;
      const v = node[key];
      // Raw text kept unparsed (arithmetic, subscripts, quoted strings) that could run code later.
      if (typeof v === 'string' && HIDDEN_CODE.test(v)) writes.push('code the check cannot see into ($(…) in text)');
      else visit(v);
    }
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
  if (name === 'printf' && args.includes('-v')) return false;
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
 * @returns {{readOnly: boolean, reason?: string, commands: string[], coverable: boolean}}
 *   commands: each simple command's text (words joined; `…` for a word that expands);
 *   coverable: a narrowed "Always allow" may cover the line — it writes through no redirection,
 *   hides no code, names every command literally and runs none of COMMAND_RUNNERS
 */
export function readOnlyVerdict(script) {
  const { commands, writes } = analyzeScript(script);
  const texts = commands.map((words) => words.map((w) => w ?? '…').join(' '));
  const coverable = !writes.length && commands.every((words) => words[0] !== null && !COMMAND_RUNNERS.includes(/** @type {string} */ (words[0])));
  if (writes.length) return { readOnly: false, reason: `it writes or may run hidden code (${writes[0]})`, commands: texts, coverable };
  const bad = commands.find((words) => !isReadOnlyCommand(words));
  if (bad) return { readOnly: false, reason: `"${bad[0] ?? 'a computed command name'}" is not a read-only command`, commands: texts, coverable };
  return { readOnly: true, commands: texts, coverable };
}
