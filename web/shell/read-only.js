/**
 * Which command lines only read: the agent's `shell` tool runs those under read-only autonomy
 * (and by default without asking, like a read tool). Pure AST analysis, no DOM or storage.
 *
 * The list is fixed and documented (docs/shell.md): a command is on it only when none of its
 * flags can write a file, run another command or change Clawser's state. So `sort` (-o),
 * `uniq` (an output operand), `find` (-delete, -exec), `sed` (-i), `awk` (print > file), `tee`,
 * `xargs`, `env` (runs a command), `date` (-s) are not. `git` and `clawser` are read-only only
 * with the subcommands listed (`clawser`'s: those its tools declare, see clawserCli). A line
 * is read-only when every command in it (pipelines,
 * lists, command substitutions, subshells included) is, and no redirection writes a file
 * (`> /dev/null` and `2>&1` are fine). Text the parser keeps unparsed that could run code when
 * expanded (`$(…)` inside arithmetic, an array subscript, a quoted string that may be evaluated
 * later), assignments to any name bash or the commands give a meaning (`BASH_*` where aliases
 * live, `PATH`, `IFS`, `PS4`…: only plain variables) or to array elements, `printf -v`, and a word
 * that expands where an option could stand (`printf $o …`: `-v` would be an option nobody saw)
 * make a line not read-only. `read` into plain variables named literally is read-only, so
 * `while read -r line; do …; done` is. Whatever the check misses, the tool runs a read-only line
 * with every change to the files refused (Shell.run's `readOnly`), so it still writes nothing,
 * and the session keeps nothing from it but plain variables and the working directory.
 */
import { clawserCli } from './commands/clawser.js';

/** @typedef {{type: string, [key: string]: unknown}} AstNode */

/**
 * Commands that run other code (another shell, a command they are given, a script language
 * that can call the system): never read-only, and a narrowed "Always allow" cannot cover them.
 */
export const COMMAND_RUNNERS = Object.freeze([
  'bash',
  'sh',
  'eval',
  'source',
  '.',
  'exec',
  'command',
  'builtin',
  'xargs',
  'find',
  'awk',
  'sed',
  'env',
  'timeout',
  'nohup',
  'time',
  'watch',
  'trap',
  'alias',
  'unalias',
  // They set variables (or options) by a name given as a word: an alias (BASH_ALIAS_*), PS4 with
  // set -x, a variable arithmetic will evaluate later. No narrowed rule covers them.
  'export',
  'declare',
  'typeset',
  'local',
  'readonly',
  'read',
  'mapfile',
  'readarray',
  'let',
  'unset',
  'set',
  'shopt',
  'getopts',
  'printf',
  // It binds a command name to a file (`hash -p /a.sh ls`).
  'hash',
]);

/** Commands that run other commands by name (a session's function or alias among them). */
export const RUNS_BY_NAME = Object.freeze([
  'bash',
  'sh',
  'eval',
  'source',
  '.',
  'exec',
  'command',
  'builtin',
  'xargs',
  'find',
  'env',
  'timeout',
  'nohup',
  'time',
  'watch',
  'trap',
]);

/**
 * Names bash, just-bash or Clawser's commands give a meaning (aliases live in BASH_ALIAS_*,
 * traces in PS4, the search path, word splitting, options, the locale, the working directory,
 * proxies…): assigning one can change what later commands run or how.
 */
const MEANINGFUL_VARIABLES = new RegExp(
  String.raw`^(BASH.*|SHELLOPTS|BASHOPTS|PS[0-4]|PROMPT_.*|ENV|IFS|PATH|CDPATH|HOME|PWD|OLDPWD|SHELL|TERM|USER|LOGNAME|` +
    String.raw`HOSTNAME|HOSTTYPE|OSTYPE|MACHTYPE|UID|EUID|PPID|GROUPS|HIST.*|GLOBIGNORE|FIGNORE|LANG|LANGUAGE|LC_.*|TZ|` +
    String.raw`TMPDIR|POSIXLY_CORRECT|OPT(IND|ARG|ERR)|COMP.*|FUNCNAME|FUNCNEST|S?RANDOM|SECONDS|LINENO|EPOCH.*|COLUMNS|` +
    String.raw`LINES|TIMEFORMAT|MAIL.*|INPUTRC|READLINE_.*|PIPESTATUS|DIRSTACK|auto_resume|histchars|GIT_.*|CURL_.*|SSL_.*|` +
    String.raw`(https?|ftp|all|no)_proxy|(HTTPS?|FTP|ALL|NO)_PROXY)$`,
);

/**
 * A plain variable: a name (a letter first: just-bash keeps its own state under `_…` names)
 * that nothing gives a meaning. The only variables a read-only line may leave behind.
 * @param {string} name
 */
export function isPlainVariable(name) {
  return /^[A-Za-z][A-Za-z0-9_]*$/.test(name) && !MEANINGFUL_VARIABLES.test(name);
}

/** Parameter expansions that do no arithmetic, no assignment and no indirection. */
const PLAIN_EXPANSIONS = new Set([
  null,
  undefined,
  'DefaultValue',
  'UseAlternative',
  'Length',
  'ErrorIfUnset',
  'PatternRemoval',
  'PatternReplacement',
  'CaseModification',
]);
/** Comparisons [[ ]] evaluates as arithmetic (which can run code held in a variable). */
const ARITHMETIC_TESTS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);

export const READ_ONLY_COMMANDS = Object.freeze([
  'basename',
  'base64',
  'break',
  'cat',
  'cd',
  'continue',
  'column',
  'comm',
  'cut',
  'diff',
  'dirname',
  'du',
  'echo',
  'expand',
  'false',
  'file',
  'fold',
  'grep',
  'egrep',
  'fgrep',
  'head',
  'help',
  'jq',
  'ls',
  'md5sum',
  'nl',
  'od',
  'paste',
  'printenv',
  'printf',
  'pwd',
  'realpath',
  'rev',
  'seq',
  'sha1sum',
  'sha256sum',
  'stat',
  'tac',
  'tail',
  'test',
  '[',
  '[[',
  'tr',
  'tree',
  'true',
  'type',
  'unexpand',
  'wc',
  'which',
  ':',
  'git status',
  'git log',
  'git diff',
  // The verbs of `clawser` that only read: listings of its own, and those whose tool declares it
  // only reads (permission "read" and readOnly: web/tools/families.js).
  ...clawserCli().readOnly.map((verb) => `clawser ${verb}`),
]);

/** Text that expands into code when evaluated later (arithmetic evaluates a variable's value). */
export const HIDDEN_CODE = /\$\(|`|\$\[|<\(|>\(/;

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
    else if (part.type === 'DoubleQuoted' && Array.isArray(part.parts) && part.parts.every((p) => p.type === 'Literal'))
      text += part.parts.map((p) => String(p.value)).join('');
    else return null;
  }
  return text;
}

/** bash's builtins that take options only before their first operand. */
const LEADING_OPTIONS = new Set(['echo', 'printf', 'cd', 'pwd', 'type', 'read']);
/** `test`'s binary operators that are not arithmetic: the words either side are operands. */
const TEST_BINARY = new Set(['=', '==', '!=', '<', '>', '-nt', '-ot', '-ef']);
/** Expansions that split into several words when not quoted. */
const SPLITTING = new Set(['ParameterExpansion', 'CommandSubstitution', 'ArithmeticExpansion']);

/**
 * Whether a word that expands could give a word beginning with "-" (an option): it begins
 * with an expansion, a glob or a brace expansion, begins with a literal "-", or splits into
 * several words (an unquoted `$x` or `$(…)`, `"$@"`). `./$f` unquoted can split; `"./$f"` and
 * `./*.md` cannot give an option.
 * @param {AstNode} word
 */
function mayBeOption(word) {
  /** @param {AstNode[]} parts @param {boolean} quoted @returns {boolean} */
  const splits = (parts, quoted) =>
    parts.some(
      (p) =>
        (!quoted && SPLITTING.has(p.type)) ||
        (p.type === 'ParameterExpansion' && /^[@*]$/.test(String(p.parameter))) ||
        (p.type === 'DoubleQuoted' && Array.isArray(p.parts) && splits(/** @type {AstNode[]} */ (p.parts), true)),
    );
  /** @param {AstNode[]} parts @returns {boolean | null} null: nothing yet */
  const lead = (parts) => {
    for (const part of parts) {
      if (part.type === 'Literal' || part.type === 'SingleQuoted' || part.type === 'Escaped') {
        const text = String(part.value);
        if (text) return text.startsWith('-');
      } else if (part.type === 'DoubleQuoted' && Array.isArray(part.parts)) {
        const inner = lead(/** @type {AstNode[]} */ (part.parts));
        if (inner !== null) return inner;
      } else return true;
    }
    return null;
  };
  const parts = /** @type {AstNode[]} */ (word.parts ?? []);
  return splits(parts, false) || (lead(parts) ?? false);
}

/**
 * The first word of a command that expands where an option could stand — so that a value such
 * as "-v" would turn it into an option the check never saw (`printf $o …`) — or null. Options
 * end at `--`, and for bash's builtins at the first operand; `test`'s operands next to a
 * literal operator are operands.
 * @param {string | null} name @param {AstNode[]} args
 * @returns {AstNode | null}
 */
function expandedOption(name, args) {
  if (name === 'test' || name === '[') {
    let words = name === '[' && literalWord(args.at(-1)) === ']' ? args.slice(0, -1) : args;
    if (literalWord(words[0]) === '!') words = words.slice(1);
    const texts = words.map(literalWord);
    const expanded = words.filter((w, i) => texts[i] === null);
    if (!expanded.length) return null;
    const splitting = expanded.find((w) => mayBeOption(w) && !isQuotedWhole(w));
    if (splitting) return splitting;
    if (words.length === 1) return null;
    if (words.length === 2 && texts[0] !== null && /^-[a-zA-Z]$/.test(texts[0])) return null;
    if (words.length === 3 && texts[1] !== null && TEST_BINARY.has(texts[1])) return null;
    return expanded.find(mayBeOption) ?? null;
  }
  for (const arg of args) {
    const text = literalWord(arg);
    if (text === '--') return null;
    if (text === null) {
      if (mayBeOption(arg)) return arg;
      if (LEADING_OPTIONS.has(String(name))) return null;
    } else if (LEADING_OPTIONS.has(String(name)) && !text.startsWith('-')) return null;
  }
  return null;
}

/** A word that is one double-quoted string (no splitting, no "$@"). @param {AstNode} word */
function isQuotedWhole(word) {
  const parts = /** @type {AstNode[]} */ (word.parts ?? []);
  return (
    parts.length === 1 &&
    parts[0].type === 'DoubleQuoted' &&
    !(/** @type {AstNode[]} */ (parts[0].parts ?? []).some((p) => p.type === 'ParameterExpansion' && /^[@*]$/.test(String(p.parameter))))
  );
}

/** The text of a word for messages (its source when it expands). @param {AstNode} word */
function wordText(word) {
  return (
    literalWord(word) ??
    /** @type {AstNode[]} */ (word.parts ?? [])
      .map((p) =>
        p.type === 'Literal' || p.type === 'SingleQuoted' || p.type === 'Escaped'
          ? String(p.value)
          : p.type === 'DoubleQuoted'
            ? '"…"'
            : p.type === 'ParameterExpansion'
              ? `$${String(p.parameter)}`
              : p.type === 'Glob'
                ? String(p.pattern)
                : '…',
      )
      .join('')
  );
}

/**
 * Every simple command of a parsed line (anywhere in it) as its words (null for a word that
 * expands), whether anything in it writes or runs code the words do not show (`writes`), and
 * words that expand where an option could stand (`options`: not read-only, but a narrowed rule
 * still judges the command by its literal words).
 * @param {AstNode} script
 * @returns {{commands: (string | null)[][], writes: string[], options: string[]}}
 */
export function analyzeScript(script) {
  /** @type {(string | null)[][]} */
  const commands = [];
  /** @type {string[]} */
  const writes = [];
  /** @type {string[]} */
  const options = [];
  /** Assignments that only hold for one command that cannot misuse them (`IFS= read -r line`). @type {Set<unknown>} */
  const local = new Set();
  /** @param {unknown} value */
  const visit = (value) => {
    if (Array.isArray(value)) {
      for (const v of value) visit(v);
      return;
    }
    if (!value || typeof value !== 'object') return;
    const node = /** @type {AstNode} */ (value);
    if (node.type === 'SimpleCommand' && node.name) {
      const args = /** @type {AstNode[]} */ (node.args);
      const name = literalWord(node.name);
      commands.push([name, ...args.map(literalWord)]);
      const expanded = expandedOption(name, args);
      if (expanded)
        options.push(
          `${wordText(expanded)} expands where an option of ${name ?? 'the command'} could stand ` +
            `(${name === 'echo' ? "printf '%s\\n' prints a value " + 'as it is' : 'put -- before it'})`,
        );
      if (name === 'read')
        for (const a of /** @type {AstNode[]} */ (node.assignments ?? [])) if (a.name === 'IFS' && !a.array && !a.append) local.add(a);
    }
    if (node.type === 'Assignment' && !local.has(node)) {
      const name = String(node.name);
      if (!isPlainVariable(name) || node.array) writes.push(`an assignment to ${name}`);
    }
    // Other constructs that bind a name bind it like an assignment: a loop's variable
    // (`for BASH_ALIAS_git in …`), a redirection's `{name}` (the descriptor's number).
    if ((node.type === 'For' || node.type === 'Select') && !isPlainVariable(String(node.variable)))
      writes.push(`an assignment to ${String(node.variable)} (the loop's variable)`);
    if (node.type === 'Redirection' && typeof node.fdVariable === 'string' && !isPlainVariable(node.fdVariable))
      writes.push(`an assignment to ${node.fdVariable} (a {name} redirection)`);
    // Arithmetic evaluates variables as expressions, and an expression can hold `a[$(…)]`: a
    // value set earlier (even assembled at run time) would run. So any arithmetic counts.
    if (node.type === 'ArithmeticExpansion' || node.type === 'ArithmeticCommand' || node.type === 'CStyleFor')
      writes.push('arithmetic (it can run code held in a variable)');
    if (node.type === 'ParameterExpansion') {
      const op = /** @type {{type?: string} | null} */ (node.operation)?.type;
      if (!PLAIN_EXPANSIONS.has(op) || !/^([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])$/.test(String(node.parameter)))
        writes.push(`the expansion \${${String(node.parameter)}…} (arithmetic, assignment or indirection)`);
    }
    if (typeof node.operator === 'string' && ARITHMETIC_TESTS.has(node.operator) && node.type !== 'Redirection')
      writes.push(`an arithmetic comparison (${node.operator})`);
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
  return { commands, writes, options };
}

/**
 * Whether a command (its words) is on the read-only list.
 * @param {(string | null)[]} words
 */
export function isReadOnlyCommand(words) {
  const [name, ...args] = words;
  if (!name) return false;
  // `-v NAME` sets a variable; bash also takes it glued (`-vNAME`) and after other options.
  if (name === 'printf' && printfOptions(args).some((a) => a === null || a.startsWith('-v'))) return false;
  if (name === 'read') return isPlainRead(args);
  if (name === 'git' || name === 'clawser') {
    const sub = args.slice(0, name === 'git' ? 1 : 2);
    if (sub.some((w) => w === null)) return false;
    return READ_ONLY_COMMANDS.includes([name, ...sub].join(' '));
  }
  return READ_ONLY_COMMANDS.includes(name);
}

/**
 * printf's words in option position: those before the format (the first word that is not an
 * option) or a `--`.
 * @param {(string | null)[]} args
 */
function printfOptions(args) {
  const end = args.findIndex((a) => a === '--' || (a !== null && !(a.startsWith('-') && a !== '-')));
  return end < 0 ? args : args.slice(0, end);
}

/**
 * `read` that only reads a line into plain variables named literally (`while read -r line`):
 * the names it sets are on the page, none of them changes what later commands run.
 * @param {(string | null)[]} args
 */
function isPlainRead(args) {
  if (args.some((a) => a === null)) return false;
  const words = /** @type {string[]} */ (args);
  let i = 0;
  for (; i < words.length; i++) {
    const word = words[i];
    if (word === '--') {
      i++;
      break;
    }
    if (!word.startsWith('-') || word === '-') break;
    // Flags (-r -s -e), then at most one option with a value, glued or the next word.
    const option = word.match(/^-[rse]*(?:([adnNptui])(.*))?$/);
    if (!option) return false;
    if (option[1]) {
      const value = option[2] || words[++i];
      if (value === undefined || (option[1] === 'a' && !isPlainVariable(value))) return false;
    }
  }
  return words.slice(i).every(isPlainVariable);
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
  const { commands, writes, options } = analyzeScript(script);
  const texts = commands.map((words) => words.map((w) => w ?? '…').join(' '));
  const coverable =
    !writes.length && commands.every((words) => words[0] !== null && !COMMAND_RUNNERS.includes(/** @type {string} */ (words[0])));
  if (writes.length) return { readOnly: false, reason: `it writes or may run hidden code (${writes[0]})`, commands: texts, coverable };
  const bad = commands.find((words) => !isReadOnlyCommand(words));
  if (bad)
    return { readOnly: false, reason: `"${bad[0] ?? 'a computed command name'}" is not a read-only command`, commands: texts, coverable };
  if (options.length) return { readOnly: false, reason: options[0], commands: texts, coverable };
  return { readOnly: true, commands: texts, coverable };
}
