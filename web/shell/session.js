/**
 * What the shell remembers between command lines, as pure AST work (no DOM, no storage).
 * just-bash runs each `exec` from a fresh copy of its state: variables come back in the
 * result's `env`, but functions, options and `$?` do not. This module keeps the function
 * definitions a command line made and builds the short preamble that restores them, and it
 * threads a yield point into every loop so a `while true` lets the page (and Ctrl-C) run.
 */

/** @typedef {{type: string, [key: string]: unknown}} AstNode */
import { literalWord } from './read-only.js';

/** `set -o` options a session keeps (SHELLOPTS names). */
export const SESSION_SET_OPTIONS = ['errexit', 'nounset', 'pipefail', 'xtrace', 'noglob', 'noclobber', 'allexport', 'verbose'];
/** `shopt` options a session keeps (BASHOPTS names). */
export const SESSION_SHOPT_OPTIONS = [
  'extglob',
  'dotglob',
  'nullglob',
  'failglob',
  'globstar',
  'nocaseglob',
  'nocasematch',
  'expand_aliases',
  'lastpipe',
  'xpg_echo',
];

/** The hidden commands the preamble and loops call. */
export const YIELD_COMMAND = '__clawser_yield';
export const STATUS_COMMAND = '__clawser_status';

/**
 * The builtins the preamble calls (escaped, and before the session's functions are back, so
 * neither an alias nor a function could stand in for them anyway): no session defines them.
 */
export const PREAMBLE_BUILTINS = Object.freeze(['set', 'shopt']);

/**
 * Names reserved for the shell's hidden commands — Clawser's (`__clawser…`), just-bash's own
 * (`__just_bash…`) and the builtins the preamble calls: a session never keeps an alias or
 * function by such a name, and a line that defines one in plain sight is refused, so what the
 * preamble and the loop yields run is always Clawser's own code.
 * @param {string} name
 */
export function isReservedName(name) {
  return name.startsWith('__clawser') || name.startsWith('__just_bash') || PREAMBLE_BUILTINS.includes(name);
}

/**
 * The first reserved name a script defines in plain sight — a function, an alias, an alias's
 * variable (`BASH_ALIAS___clawser…`), anywhere in it — or null. (A name assembled while the
 * line runs is caught when the session keeps its state: Shell#keepState.)
 * @param {AstNode} script
 * @returns {string | null}
 */
export function reservedDefinition(script) {
  /** @type {string | null} */
  let found = null;
  /** @param {unknown} value */
  const visit = (value) => {
    if (found || !value || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    const n = /** @type {AstNode} */ (value);
    if (n.type === 'FunctionDef' && isReservedName(String(n.name))) found = String(n.name);
    else if (
      n.type === 'Assignment' &&
      String(n.name).startsWith('BASH_ALIAS_') &&
      isReservedName(String(n.name).slice('BASH_ALIAS_'.length))
    )
      found = String(n.name).slice('BASH_ALIAS_'.length);
    else if (n.type === 'SimpleCommand' && literalWord(n.name) === 'alias') {
      for (const word of /** @type {unknown[]} */ (n.args ?? [])) {
        const text = literalWord(word);
        if (text !== null && text.includes('=') && isReservedName(text.split('=')[0])) found = text.split('=')[0];
      }
    }
    for (const key of Object.keys(n)) visit(n[key]);
  };
  visit(script);
  return found;
}

/** @param {unknown} value @returns {value is AstNode} */
function isNode(value) {
  return !!value && typeof value === 'object' && typeof (/** @type {AstNode} */ (value).type) === 'string';
}

/**
 * Adds `yieldStatement` (cloned) in front of every loop's condition (`while`, `until`: the
 * condition's status stays the loop's) or body (`for`), anywhere in the tree, command
 * substitutions and function bodies included.
 * @param {AstNode} node @param {AstNode} yieldStatement
 */
export function addLoopYields(node, yieldStatement) {
  eachNodeAfterChildren(node, (n) => {
    if (n.type === 'While' || n.type === 'Until') /** @type {unknown[]} */ (n.condition).unshift(structuredClone(yieldStatement));
    else if (n.type === 'For' || n.type === 'CStyleFor') /** @type {unknown[]} */ (n.body).unshift(structuredClone(yieldStatement));
  });
}

/**
 * Calls `fn` on every node of an AST (every object in it), children first — so what `fn`
 * inserts into a node is not walked again.
 * @param {unknown} value @param {(n: AstNode) => void} fn
 */
function eachNodeAfterChildren(value, fn) {
  if (Array.isArray(value)) {
    for (const item of value) eachNodeAfterChildren(item, fn);
    return;
  }
  if (!value || typeof value !== 'object') return;
  const n = /** @type {AstNode} */ (value);
  for (const key of Object.keys(n)) eachNodeAfterChildren(n[key], fn);
  fn(n);
}

/**
 * The function definitions and `unset -f` removals a script makes in the shell itself, in
 * order: top-level statements and the bodies of `if`/`for`/`while`/`case`/`{ }` (not
 * subshells, pipelines of several commands, command substitutions or function bodies, which
 * do not define anything in the calling shell).
 * @param {AstNode} script
 * @returns {({op: 'define', name: string, node: AstNode} | {op: 'remove', name: string})[]}
 */
export function functionChanges(script) {
  /** @type {({op: 'define', name: string, node: AstNode} | {op: 'remove', name: string})[]} */
  const changes = [];
  /** @param {unknown} statements */
  const statementsOf = (statements) => {
    if (!Array.isArray(statements)) return;
    for (const statement of statements) {
      if (!isNode(statement) || statement.background) continue;
      for (const pipeline of /** @type {AstNode[]} */ (statement.pipelines ?? [])) {
        const commands = /** @type {AstNode[]} */ (pipeline.commands ?? []);
        if (commands.length !== 1) continue;
        command(commands[0]);
      }
    }
  };
  /** @param {AstNode} node */
  const command = (node) => {
    switch (node.type) {
      case 'FunctionDef':
        changes.push({ op: 'define', name: String(node.name), node });
        return;
      case 'SimpleCommand': {
        if (node.name && literalWord(/** @type {AstNode} */ (node.name)) === 'unset') {
          const args = /** @type {AstNode[]} */ (node.args).map(literalWord);
          if (args[0] === '-f') for (const name of args.slice(1)) if (name) changes.push({ op: 'remove', name });
        }
        return;
      }
      case 'If':
        for (const clause of /** @type {AstNode[]} */ (node.clauses ?? [])) {
          statementsOf(clause.condition);
          statementsOf(clause.body);
        }
        statementsOf(node.elseBody);
        return;
      case 'For':
      case 'CStyleFor':
      case 'Group':
        statementsOf(node.body);
        return;
      case 'While':
      case 'Until':
        statementsOf(node.condition);
        statementsOf(node.body);
        return;
      case 'Case':
        for (const item of /** @type {AstNode[]} */ (node.items ?? [])) statementsOf(item.body);
        return;
      default:
    }
  };
  statementsOf(script.statements);
  return changes;
}

/**
 * The preamble's source text, in two parts around the session's function definitions. First
 * the options as they were — escaped builtins (an alias never expands a quoted word) run before
 * any function of the session exists, so nothing the session defined can stand in for them —
 * then, after the functions (a definition sets `$?`), the last exit status: a non-final `&&`
 * member, so `set -e` does not end the script on it, calling only the reserved status command.
 * @param {{setOptions: Set<string>, shoptOptions: Set<string>, lastStatus: number}} state
 * @returns {{options: string, status: string}}
 */
export function preambleSource(state) {
  const lines = [];
  const on = SESSION_SET_OPTIONS.filter((o) => state.setOptions.has(o));
  const off = SESSION_SET_OPTIONS.filter((o) => !state.setOptions.has(o));
  // errexit last: the preamble itself must not stop on a failure.
  const order = (/** @type {string[]} */ list) => [...list.filter((o) => o !== 'errexit'), ...list.filter((o) => o === 'errexit')];
  if (off.length)
    lines.push(
      `\\set ${order(off)
        .map((o) => `+o ${o}`)
        .join(' ')}`,
    );
  const shOn = SESSION_SHOPT_OPTIONS.filter((o) => state.shoptOptions.has(o));
  const shOff = SESSION_SHOPT_OPTIONS.filter((o) => !state.shoptOptions.has(o));
  if (shOn.length) lines.push(`\\shopt -s ${shOn.join(' ')}`);
  if (shOff.length) lines.push(`\\shopt -u ${shOff.join(' ')}`);
  if (on.length)
    lines.push(
      `\\set ${order(on)
        .map((o) => `-o ${o}`)
        .join(' ')}`,
    );
  return { options: lines.join('\n'), status: `\\${STATUS_COMMAND} ${state.lastStatus} && \\${STATUS_COMMAND} 0` };
}

/** A trace line (`set -x`) of the preamble's status command, at the start of stderr. */
export const PREAMBLE_TRACE = new RegExp(`^[^\\n]*${STATUS_COMMAND} \\d+\\n`);

/**
 * Reads the options a run ended with from its `env` (SHELLOPTS, BASHOPTS).
 * @param {Record<string, string>} env
 */
export function optionsFromEnv(env) {
  const set = new Set((env.SHELLOPTS ?? '').split(':').filter((o) => SESSION_SET_OPTIONS.includes(o)));
  const shopt = new Set((env.BASHOPTS ?? '').split(':').filter((o) => SESSION_SHOPT_OPTIONS.includes(o)));
  return { set, shopt };
}

/**
 * @param {unknown} word
 * @returns {string | null} the text of a word that is one unquoted literal (the only kind bash expands as an alias)
 */
function aliasWord(word) {
  const w = /** @type {AstNode | null} */ (word);
  const parts = /** @type {AstNode[] | undefined} */ (w?.parts);
  return parts?.length === 1 && parts[0].type === 'Literal' ? String(parts[0].value) : null;
}

/** A word naming `name` that is never expanded as an alias (its first character escaped). @param {string} name @returns {AstNode} */
function escapedWord(name) {
  return {
    type: 'Word',
    parts: [{ type: 'Escaped', value: name[0] }, ...(name.length > 1 ? [{ type: 'Literal', value: name.slice(1) }] : [])],
  };
}

/**
 * Expands the session's aliases in a line's syntax tree the way bash does when it reads the
 * line: with the aliases as they were when the line started (one defined on the line applies
 * from the next line on), and never expanding an alias again inside its own expansion (so
 * `alias ll='echo X; ll'` then `ll` prints X, then "ll: command not found", as in bash, instead
 * of expanding forever). An alias of several commands becomes an `eval` of their text (as
 * just-bash itself does), with the names being expanded escaped in it; an alias ending in a
 * space, or one the parser refuses, is left to the interpreter. Function bodies on the line are
 * expanded too (bash expands when it defines a function).
 * @param {AstNode} script changed in place
 * @param {Map<string, string>} aliases name → value
 * @param {{parse: (text: string) => AstNode, serialize: (script: AstNode) => string}} syntax just-bash's parser and serializer
 */
export function expandAliases(script, aliases, syntax) {
  if (!aliases.size) return;
  /** A one-command script's command, or null. @param {AstNode} parsed */
  const single = (parsed) => {
    const statements = /** @type {AstNode[]} */ (parsed.statements ?? []);
    const pipelines = /** @type {AstNode[] | undefined} */ (statements[0]?.pipelines);
    const commands = /** @type {AstNode[] | undefined} */ (pipelines?.[0]?.commands);
    return statements.length === 1 &&
      pipelines?.length === 1 &&
      commands?.length === 1 &&
      !statements[0].background &&
      !pipelines[0].negated
      ? commands[0]
      : null;
  };
  /** The source text of words. @param {AstNode[]} words */
  const wordsText = (words) =>
    words.length
      ? syntax
          .serialize({
            type: 'Script',
            statements: [
              {
                type: 'Statement',
                pipelines: [
                  {
                    type: 'Pipeline',
                    commands: [
                      {
                        type: 'SimpleCommand',
                        name: { type: 'Word', parts: [{ type: 'Literal', value: ':' }] },
                        args: words,
                        assignments: [],
                        redirections: [],
                      },
                    ],
                    negated: false,
                    timed: false,
                    timePosix: false,
                  },
                ],
                operators: [],
                background: false,
              },
            ],
          })
          .replace(/^: /, '')
          .trimEnd()
      : '';
  /** A word holding `text` single-quoted. @param {string} text */
  const quoted = (text) =>
    /** @type {AstNode[]} */ (/** @type {AstNode} */ (single(syntax.parse(`: '${text.replace(/'/g, "'\\''")}'`)))?.args)[0];
  /** @param {AstNode} node a SimpleCommand @param {Set<string>} stack the aliases being expanded */
  const expand = (node, stack) => {
    const active = new Set(stack);
    for (let depth = 0; depth <= aliases.size; depth++) {
      const name = aliasWord(node.name);
      if (name === null || !aliases.has(name)) return;
      if (active.has(name)) {
        node.name = escapedWord(name);
        return;
      }
      const value = /** @type {string} */ (aliases.get(name));
      if (/\s$/.test(value)) return;
      /** @type {AstNode} */
      let parsed;
      try {
        parsed = syntax.parse(value);
      } catch {
        return;
      }
      active.add(name);
      const one = single(parsed);
      if (one?.type === 'SimpleCommand' && one.name) {
        visit(one.args, active);
        node.name = one.name;
        node.args = [.../** @type {AstNode[]} */ (one.args), .../** @type {AstNode[]} */ (node.args)];
        node.assignments = [.../** @type {AstNode[]} */ (node.assignments ?? []), .../** @type {AstNode[]} */ (one.assignments ?? [])];
        node.redirections = [.../** @type {AstNode[]} */ (one.redirections ?? []), .../** @type {AstNode[]} */ (node.redirections ?? [])];
        continue;
      }
      visit(parsed, active);
      const text = [syntax.serialize(parsed).trimEnd(), wordsText(/** @type {AstNode[]} */ (node.args))].filter(Boolean).join(' ');
      node.name = { type: 'Word', parts: [{ type: 'Literal', value: 'eval' }] };
      node.args = [quoted(text)];
      return;
    }
  };
  /** @param {unknown} value @param {Set<string>} stack */
  const visit = (value, stack) => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item, stack);
      return;
    }
    if (!value || typeof value !== 'object') return;
    const n = /** @type {AstNode} */ (value);
    if (n.type === 'SimpleCommand') expand(n, stack);
    for (const key of Object.keys(n)) if (key !== 'name') visit(n[key], stack);
  };
  visit(script, new Set());
}

/**
 * Escapes the command names in a kept function's body that are aliases now: bash expanded the
 * body's aliases when the function was defined, so one defined later never applies inside it.
 * @param {AstNode} node changed in place @param {Set<string>} aliases
 */
export function shieldFromAliases(node, aliases) {
  if (!aliases.size) return;
  eachNodeAfterChildren(node, (n) => {
    const name = n.type === 'SimpleCommand' ? aliasWord(n.name) : null;
    if (name !== null && aliases.has(name)) n.name = escapedWord(name);
  });
}
