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
export const SESSION_SHOPT_OPTIONS = ['extglob', 'dotglob', 'nullglob', 'failglob', 'globstar', 'nocaseglob', 'nocasematch', 'expand_aliases', 'lastpipe', 'xpg_echo'];

/** The hidden commands the preamble and loops call. */
export const YIELD_COMMAND = '__clawser_yield';
export const STATUS_COMMAND = '__clawser_status';

/**
 * Names reserved for the shell's hidden commands: a session never keeps an alias or function
 * by such a name, and a line that defines one in plain sight is refused, so what the preamble
 * and the loop yields run is always Clawser's own code.
 * @param {string} name
 */
export function isReservedName(name) {
  return name.startsWith('__clawser');
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
    else if (n.type === 'Assignment' && String(n.name).startsWith('BASH_ALIAS___clawser')) found = String(n.name).slice('BASH_ALIAS_'.length);
    else if (n.type === 'SimpleCommand' && literalWord(n.name) === 'alias') {
      for (const word of /** @type {unknown[]} */ (n.args ?? [])) {
        const text = literalWord(word);
        if (text !== null && isReservedName(text)) found = text.split('=')[0];
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
  /** @param {unknown} value */
  const visit = (value) => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (!value || typeof value !== 'object') return;
    const n = /** @type {AstNode} */ (value);
    for (const key of Object.keys(n)) visit(n[key]);
    if (n.type === 'While' || n.type === 'Until') /** @type {unknown[]} */ (n.condition).unshift(structuredClone(yieldStatement));
    else if (n.type === 'For' || n.type === 'CStyleFor') /** @type {unknown[]} */ (n.body).unshift(structuredClone(yieldStatement));
  };
  visit(node);
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
 * The preamble's source text: options back as they were, then the last exit status (a
 * non-final `&&` member, so `set -e` does not end the script on it).
 * @param {{setOptions: Set<string>, shoptOptions: Set<string>, lastStatus: number}} state
 */
export function preambleSource(state) {
  const lines = [];
  const on = SESSION_SET_OPTIONS.filter((o) => state.setOptions.has(o));
  const off = SESSION_SET_OPTIONS.filter((o) => !state.setOptions.has(o));
  // errexit last: the preamble itself must not stop on a failure.
  const order = (/** @type {string[]} */ list) => [...list.filter((o) => o !== 'errexit'), ...list.filter((o) => o === 'errexit')];
  if (off.length) lines.push(`set ${order(off).map((o) => `+o ${o}`).join(' ')}`);
  const shOn = SESSION_SHOPT_OPTIONS.filter((o) => state.shoptOptions.has(o));
  const shOff = SESSION_SHOPT_OPTIONS.filter((o) => !state.shoptOptions.has(o));
  if (shOn.length) lines.push(`shopt -s ${shOn.join(' ')}`);
  if (shOff.length) lines.push(`shopt -u ${shOff.join(' ')}`);
  if (on.length) lines.push(`set ${order(on).map((o) => `-o ${o}`).join(' ')}`);
  // Escaped: an alias is never expanded for a quoted word (and no session keeps a reserved one).
  lines.push(`\\${STATUS_COMMAND} ${state.lastStatus} && :`);
  return lines.join('\n');
}

/**
 * Reads the options a run ended with from its `env` (SHELLOPTS, BASHOPTS).
 * @param {Record<string, string>} env
 */
export function optionsFromEnv(env) {
  const set = new Set((env.SHELLOPTS ?? '').split(':').filter((o) => SESSION_SET_OPTIONS.includes(o)));
  const shopt = new Set((env.BASHOPTS ?? '').split(':').filter((o) => SESSION_SHOPT_OPTIONS.includes(o)));
  return { set, shopt };
}
