// Why this file is long: the shell's session over just-bash: the command table, the protected file
//  system, the read-only gate, and how each line is parsed, checked, run and recorded, which are
//  one path by design (one path through the gates).
/** @import { FileSystem } from '../storage/types.d.ts' */
/** @import { Command, BashExecResult } from 'just-bash' */
/** @import { AstNode } from './session.js' */
import { Bash, defineCommand, getCommandNames } from 'just-bash';
import { ProtectedFileSystem, protectedFolderOf } from '../storage/protected-fs.js';
import { BashFileSystem, ShellFsError, resolveShellPath, toStoragePath } from './bash-fs.js';
import { fileCommands } from './commands/files.js';
import { tarCommand } from './commands/tar.js';
import { gzipCommands } from './commands/gzip.js';
import { sortCommand } from './commands/sort.js';
import { endOfOptionsCommands } from './commands/end-of-options.js';
import { markStdinFiles, wcCommand } from './commands/wc.js';
import { diffCommand } from './commands/diff.js';
import { grepCommand } from './commands/grep.js';
import { lsCommand } from './commands/ls.js';
import { textCommands } from './commands/text.js';
import { posixLocale } from './commands/collate.js';
import {
  PREAMBLE_TRACE,
  STATUS_COMMAND,
  YIELD_COMMAND,
  addLoopYields,
  expandAliases,
  functionChanges,
  isReservedName,
  optionsFromEnv,
  preambleSource,
  reservedDefinition,
  shieldFromAliases,
} from './session.js';
import { HIDDEN_CODE, RUNS_BY_NAME, analyzeScript, isPlainVariable } from './read-only.js';

/**
 * Limits of one command line. `outputBytes` caps stdout and stderr together; `timeoutMs` ends
 * a run (exit 124); loops and recursion stop at their limits with bash's message.
 * @typedef {{outputBytes: number, timeoutMs: number, loopIterations: number, callDepth: number, commandCount: number}} ShellLimits
 */
export const DEFAULT_SHELL_LIMITS = Object.freeze({
  outputBytes: 16 * 1024 * 1024,
  timeoutMs: 10 * 60_000,
  loopIterations: 1_000_000,
  callDepth: 200,
  commandCount: 10_000_000,
});

/** just-bash commands left out (see the constructor). */
const NOT_ENABLED = ['python', 'python3', 'js-exec', 'sqlite3', 'yq', 'xan'];

/** Variables the interpreter derives itself: never handed back to it. */
const DERIVED = new Set(['?', 'SHELLOPTS', 'BASHOPTS', 'PWD', 'BASH_HISTORY', '_']);

/**
 * In the interpreter's own starting variables only, never in a line's: a line the interpreter
 * gave up on (a limit: recursion, nesting) comes back with those variables instead of its own,
 * which the session must not take for the line's (they would reset its options and variables).
 */
const NOT_A_LINE = '__clawser_not_a_line';

/** A syntax error in a command line, with where it is (1-based). */
export class ShellSyntaxError extends Error {
  /** @param {string} message @param {number} line @param {number} column */
  constructor(message, line, column) {
    super(message);
    this.name = 'ShellSyntaxError';
    this.code = 'shell_syntax';
    this.line = line;
    this.column = column;
  }
}

/**
 * @typedef {object} ShellOptions
 * @property {FileSystem} fs the workspace's files (OPFS, memory, an opened folder); Clawser's own folders are read-only to the shell
 * @property {string} [cwd] starting directory ('/' is the workspace root)
 * @property {Record<string, string>} [env] starting variables
 * @property {Command[]} [commands] extra commands (git, clawser, curl…), taking precedence over built-ins
 * @property {Partial<ShellLimits>} [limits]
 * @property {string[]} [history] earlier command lines (oldest first)
 * @property {(ms: number, signal?: AbortSignal) => Promise<void>} [sleep]
 * @property {readonly string[]} [unreadable] top-level folders whose content the shell may not read (the agent's shell: Clawser's own
 *   folders)
 * @property {import('just-bash').BashOptions['fetch']} [fetch] what `curl` uses (web_fetch's rules: web/tools/web.js ruleFetch); without it
 *   curl is not available
 * @property {(path: string) => Promise<void> | void} [onRead] told of every file read, folder listed and file whose metadata a command gets
 *   (a storage path) before the command gets it
 * @property {BashFileSystem['permit']} [permit] bounds what the shell may do with the files (a skill script's shell: its allowed-tools)
 */

/** @typedef {{stdout: string, stderr: string, exitCode: number}} ShellResult */

/**
 * A bash session over a workspace: one interpreter (just-bash), the workspace's files as its
 * file system, and the state bash keeps between command lines — working directory, variables,
 * aliases, functions, `set`/`shopt` options, `$?` and history.
 */
export class Shell {
  /** @param {ShellOptions} options */
  constructor(options) {
    this.limits = { ...DEFAULT_SHELL_LIMITS, ...options.limits };
    this.fs = new BashFileSystem(new ProtectedFileSystem(options.fs), { unreadable: options.unreadable });
    this.fs.onRead = options.onRead ?? null;
    this.fs.permit = options.permit ?? null;
    /** @type {string} */
    this.cwd = resolveShellPath('/', options.cwd ?? '/');
    /** @type {Record<string, string>} */
    // LANG as a desktop's terminal has it (the browser's language): sort, ls and globs follow it,
    // and `echo $LANG`, `env` and `unset LANG` (byte order, as bash's C locale) all agree with that.
    this.variables = {
      HOME: '/',
      PATH: '/usr/bin:/bin',
      TERM: 'xterm-256color',
      USER: 'user',
      SHELL: '/bin/bash',
      LANG: posixLocale(globalThis.navigator?.language),
      ...options.env,
    };
    /** @type {Map<string, AstNode>} */
    this.functions = new Map();
    this.setOptions = new Set(/** @type {string[]} */ ([]));
    // An interactive bash expands aliases.
    this.shoptOptions = new Set(['expand_aliases']);
    this.lastStatus = 0;
    this.hasFetch = !!options.fetch;
    /** A line is running (see run). */
    this.busy = false;
    /** Set while a line runs as read-only (see run). */
    this.readOnlyRun = false;
    /** Names of the extra commands (git, clawser, curl…). */
    this.extraCommands = (options.commands ?? []).map((c) => c.name);
    /** @type {string[]} */
    this.history = [...(options.history ?? [])];
    this.maxHistory = 1000;
    /** @type {AbortSignal | undefined} the running line's signal (the loop yields check it) */
    this.signal = undefined;
    let lastYield = performance.now();
    const sleep = options.sleep ?? ((ms, signal) => abortableSleep(ms, signal));
    const hidden = [
      // Loops call it: it lets the page run (and Ctrl-C arrive) at least every 20 ms.
      defineCommand(YIELD_COMMAND, async () => {
        if (performance.now() - lastYield > 20) {
          await nextTask();
          lastYield = performance.now();
        }
        return { stdout: '', stderr: '', exitCode: 0 };
      }),
      defineCommand(STATUS_COMMAND, async (args) => ({ stdout: '', stderr: '', exitCode: Number(args[0]) || 0 })),
      protectedRm(() => this.fs.permit?.('delete') ?? null),
      xargsOptions(),
      ...endOfOptionsCommands(),
      // just-bash's `which` looks for files under /usr/bin, which the workspace does not have.
      defineCommand('which', async (args) => {
        const names = new Set(this.commandNames());
        let stdout = '';
        let missing = false;
        for (const a of args.filter((x) => !x.startsWith('-'))) {
          if (names.has(a) && !this.functions.has(a) && !this.aliases().includes(a)) stdout += `/usr/bin/${a}\n`;
          else missing = true;
        }
        return { stdout, stderr: '', exitCode: missing || !stdout ? 1 : 0 };
      }),
      ...fileCommands(),
      tarCommand(),
      ...gzipCommands(),
      sortCommand(),
      wcCommand(),
      diffCommand(),
      grepCommand(this.fs),
      lsCommand(),
      ...textCommands(),
    ];
    /** The commands Clawser adds to just-bash's (tar, zip, realpath…), for `which`, `help` and completion. */
    this.ownCommands = hidden.map((c) => c.name).filter((n) => n !== YIELD_COMMAND && n !== STATUS_COMMAND);
    // Command lookups never depend on the workspace's own usr/ or bin/ folders (bash-fs.js).
    const registered = new Set([...this.registeredCommands(), YIELD_COMMAND, STATUS_COMMAND]);
    this.fs.isCommand = (name) => registered.has(name);
    /** @type {{define: ReturnType<typeof functionChanges>} | null} the top-level line's function changes, until it ends */
    this.pending = null;
    /** @type {{options: AstNode, status: AstNode} | null} the hidden preamble of the line about to run (preambleSource) */
    this.preamble = null;
    /** Set while `parse` runs: the line is checked as written, without the loop yields. */
    this.checking = false;
    /** @type {AstNode | null} set while #serialize runs: the tree to give back as text */
    this.serializing = null;
    this.bash = new Bash({
      fs: this.fs,
      cwd: this.cwd,
      env: { ...this.variables, [NOT_A_LINE]: '1' },
      // The same commands in Node and in the page: no Python, JavaScript, SQLite or CSV/YAML
      // interpreters (the page's build has none; they would be more code to trust).
      commands: /** @type {import('just-bash').CommandName[]} */ (getCommandNames().filter((n) => !NOT_ENABLED.includes(n))),
      customCommands: [...hidden, ...(options.commands ?? [])],
      // Clawser's guarantees come from the file system view and the gates, not from patching
      // the page's globals while a command runs (which would break the rest of the app).
      defenseInDepth: false,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      sleep: (ms) => sleep(ms, this.signal),
      executionLimits: {
        maxOutputSize: this.limits.outputBytes,
        maxLoopIterations: this.limits.loopIterations,
        // awk, sed and jq count records and loops against their own limits (100,000 by default: too few for a big file).
        maxAwkIterations: this.limits.loopIterations * 10,
        maxSedIterations: this.limits.loopIterations * 10,
        maxJqIterations: this.limits.loopIterations * 10,
        maxCallDepth: this.limits.callDepth,
        maxCommandCount: this.limits.commandCount,
        maxExecutionTimeMs: this.limits.timeoutMs,
      },
    });
    // Escaped, so no alias can stand in for it (quoted words are never alias-expanded).
    const yieldStatement = /** @type {AstNode} */ (/** @type {unknown} */ (this.bash.transform(`\\${YIELD_COMMAND}`).ast.statements[0]));
    this.bash.registerTransformPlugin({
      name: 'clawser-session',
      transform: ({ ast }) => {
        if (this.serializing) return { ast: /** @type {typeof ast} */ (/** @type {unknown} */ (this.serializing)) };
        if (this.checking) return { ast };
        const script = /** @type {AstNode} */ (/** @type {unknown} */ (ast));
        const statements = /** @type {AstNode[]} */ (script.statements);
        if (this.preamble) {
          // The top-level line: remember what it defines, then put the session back in front:
          // its options (before any of its functions exists), its functions (copies: the loop
          // yields below must not pile up in the kept ones), then `$?`.
          this.pending = { define: functionChanges(script) };
          // Aliases as bash reads a line (the ones the line started with, never recursively);
          // the kept functions had theirs expanded when they were defined.
          const aliases = this.shoptOptions.has('expand_aliases')
            ? new Map(this.aliases().map((name) => [name, this.variables[`BASH_ALIAS_${name}`]]))
            : new Map();
          expandAliases(script, aliases, { parse: (text) => this.parse(text), serialize: (ast) => this.#serialize(ast) });
          const restore = [...this.functions.values()].map((node) => {
            const copy = structuredClone(node);
            shieldFromAliases(copy, new Set(aliases.keys()));
            return {
              type: 'Statement',
              pipelines: [{ type: 'Pipeline', commands: [copy], negated: false, timed: false, timePosix: false }],
              operators: [],
              background: false,
            };
          });
          statements.unshift(
            .../** @type {AstNode[]} */ (this.preamble.options.statements),
            ...restore,
            .../** @type {AstNode[]} */ (this.preamble.status.statements),
          );
          this.preamble = null;
        }
        addLoopYields(script, yieldStatement);
        markStdinFiles(script);
        return { ast };
      },
    });
  }

  /**
   * Parses a command line without running it (syntax check, completion, the read-only list).
   * @param {string} commandLine @returns {AstNode} the script's AST
   * @throws {ShellSyntaxError}
   */
  parse(commandLine) {
    this.checking = true;
    try {
      return /** @type {AstNode} */ (/** @type {unknown} */ (this.bash.transform(commandLine).ast));
    } catch (err) {
      const e = /** @type {Error & {line?: number, column?: number}} */ (err);
      if (typeof e?.line === 'number') throw new ShellSyntaxError(syntaxMessage(e.message, e.line, e.column ?? 1), e.line, e.column ?? 1);
      throw err;
    } finally {
      this.checking = false;
    }
  }

  /**
   * A syntax tree as source text (just-bash serializes what its transform plugins give back;
   * its page build exports no serializer of its own).
   * @param {AstNode} ast @returns {string}
   */
  #serialize(ast) {
    this.serializing = ast;
    try {
      return this.bash.transform(':').script;
    } finally {
      this.serializing = null;
    }
  }

  /**
   * Runs one command line (several lines, a script) like bash would at a prompt.
   * @param {string} commandLine
   * @param {{signal?: AbortSignal, stdin?: string, timeoutMs?: number, addToHistory?: boolean, readOnly?: boolean}} [options]
   *   readOnly: every change to the files is refused while the line runs (the agent's read-only
   *   lines: what the check could not see still writes nothing); `readOnlyRun` tells the commands
   * @returns {Promise<ShellResult>}
   */
  async run(commandLine, options = {}) {
    // One line at a time per session: a line cannot start another in the same session (through
    // `clawser tool call shell`, say) and so cannot lift the read-only state it runs under.
    if (this.busy) return { stdout: '', stderr: 'bash: this session is already running a line\n', exitCode: 1 };
    this.busy = true;
    try {
      return await this.#runLine(commandLine, options);
    } catch (err) {
      // Whatever the interpreter lets through (a case it does not handle): an error result as
      // bash would print it, never a rejection; the session keeps the state of the line before.
      return this.#failed(err, 1);
    } finally {
      this.busy = false;
    }
  }

  /**
   * The result of a line the interpreter gave up on with an error of its own.
   * @param {unknown} err @param {number} exitCode @returns {ShellResult}
   */
  #failed(err, exitCode) {
    this.pending = null;
    this.preamble = null;
    this.lastStatus = exitCode;
    this.fs.invalidate();
    let message = err instanceof Error ? err.message : String(err);
    if (err instanceof RangeError && /call stack/i.test(message))
      message = 'the line nests too deeply for this shell (maximum call stack size exceeded)';
    return { stdout: '', stderr: `bash: ${message.replace(/^bash: /, '').replace(/\n*$/, '')}\n`, exitCode };
  }

  /**
   * @param {string} commandLine
   * @param {{signal?: AbortSignal, stdin?: string, timeoutMs?: number, addToHistory?: boolean, readOnly?: boolean}} options
   * @returns {Promise<ShellResult>}
   */
  async #runLine(commandLine, options) {
    if (options.addToHistory !== false && commandLine.trim()) this.#remember(commandLine);
    /** @type {AstNode} */
    let script;
    try {
      script = this.parse(commandLine);
    } catch (err) {
      // just-bash's own build rejects some arithmetic while parsing (`$((1 + 2.3))`); the
      // vendored one the page runs keeps it for the command that expands it, as bash does
      // (scripts/just-bash-patches.mjs, patchArithmetic). Should it throw here all the same, it
      // is bash's status 1; anything else the parser throws is a syntax error.
      if (!(err instanceof ShellSyntaxError))
        return this.#failed(err, /arithmetic/i.test(String(/** @type {Error} */ (err)?.message)) ? 1 : 2);
      this.lastStatus = 2;
      return { stdout: '', stderr: `bash: ${err.message}\n`, exitCode: 2 };
    }
    const reserved = reservedDefinition(script);
    if (reserved) {
      this.lastStatus = 2;
      return {
        stdout: '',
        stderr:
          `bash: ${reserved} is reserved: the shell's own hidden commands use that name, so a session cannot define a function or ` +
          `alias by it\n`,
        exitCode: 2,
      };
    }
    // Before the timer starts: nothing thrown from here on leaves a timer or listener behind.
    const preamble = preambleSource(this);
    const tracing = this.setOptions.has('xtrace');
    this.preamble = {
      options: /** @type {AstNode} */ (/** @type {unknown} */ (this.bash.transform(preamble.options).ast)),
      status: /** @type {AstNode} */ (/** @type {unknown} */ (this.bash.transform(preamble.status).ast)),
    };
    const timeoutMs = Math.min(options.timeoutMs ?? this.limits.timeoutMs, this.limits.timeoutMs);
    const controller = new AbortController();
    const onAbort = () => controller.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) controller.abort();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error('timeout'));
    }, timeoutMs);
    this.signal = controller.signal;
    this.fs.invalidate();
    this.fs.refusals.clear();
    this.fs.readOnly = !!options.readOnly;
    this.readOnlyRun = !!options.readOnly;
    this.pending = null;
    /** @type {BashExecResult} */
    let result;
    try {
      result = await this.bash.exec(commandLine, {
        cwd: this.cwd,
        // The history only where `history` asks for it (it would show in `env` otherwise).
        // PWD given: the interpreter would otherwise resolve the working directory through the
        // file system at the start of every line (a read of a folder, for the taint).
        env: {
          ...this.variables,
          PWD: this.cwd,
          ...(/\bhistory\b/.test(commandLine) ? { BASH_HISTORY: JSON.stringify(this.history) } : {}),
        },
        replaceEnv: true,
        rawScript: true,
        signal: controller.signal,
        ...(options.stdin !== undefined ? { stdin: options.stdin } : {}),
      });
    } catch (err) {
      // A redirect the file system refuses ends the line (just-bash lets that error through).
      if (!(err instanceof ShellFsError)) throw err;
      result = { stdout: '', stderr: `bash: ${err.message}\n`, exitCode: 1, env: { ...this.variables, PWD: this.cwd } };
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      this.signal = undefined;
      this.fs.readOnly = false;
      this.readOnlyRun = false;
      this.preamble = null;
    }
    if (result.env?.[NOT_A_LINE] !== undefined) this.#keepAfterLimit(result, !!options.readOnly);
    else this.#keepState(result, !!options.readOnly);
    let { stdout, stderr, exitCode } = result;
    // `set -x` traces the preamble's status command too: not the user's.
    if (tracing) for (let i = 0; i < 2 && PREAMBLE_TRACE.test(stderr); i++) stderr = stderr.replace(PREAMBLE_TRACE, '');
    // A bounded shell's refusals, which commands such as `cat` report as a missing file.
    const unsaid = [...this.fs.refusals].filter((why) => !stderr.includes(why));
    if (unsaid.length) stderr += `bash: not allowed here: ${unsaid.join('; ')}\n`;
    if (controller.signal.aborted) {
      exitCode = timedOut ? 124 : 130;
      stderr = stderr.replace(/bash: execution aborted\n?$/, '');
      stderr += timedOut ? `bash: stopped after ${Math.round(timeoutMs / 1000)} s (the time limit)\n` : '^C\n';
      this.lastStatus = exitCode;
    }
    return { stdout, stderr, exitCode };
  }

  /**
   * What the session keeps from a line. From a line run read-only only what cannot change what
   * later lines run: the working directory, `$?` and plain variables (isPlainVariable) whose
   * value holds no code (arithmetic would run `a[$(…)]`) — no alias, function, option, special
   * variable or history change. From any line, never an alias or function by a reserved name.
   * @param {BashExecResult} result @param {boolean} readOnly
   */
  #keepState(result, readOnly) {
    const env = result.env ?? {};
    if (env.PWD) this.cwd = env.PWD;
    /** @type {Record<string, string>} */
    const vars = {};
    for (const [k, v] of Object.entries(env)) if (!DERIVED.has(k)) vars[k] = v;
    if (readOnly) {
      const kept = { ...this.variables };
      for (const k of Object.keys(kept)) if (isPlainVariable(k) && !(k in vars)) delete kept[k];
      for (const [k, v] of Object.entries(vars)) if (isPlainVariable(k) && !HIDDEN_CODE.test(v)) kept[k] = v;
      if (env.OLDPWD !== undefined) kept.OLDPWD = env.OLDPWD;
      this.variables = kept;
    } else {
      this.variables = vars;
      const { set, shopt } = optionsFromEnv(env);
      if (env.SHELLOPTS !== undefined) this.setOptions = set;
      if (env.BASHOPTS !== undefined) this.shoptOptions = shopt;
      for (const change of this.pending?.define ?? []) {
        if (change.op === 'define') this.functions.set(change.name, change.node);
        else this.functions.delete(change.name);
      }
      if (env.BASH_HISTORY === '[]' && this.history.length > 1) this.history = [];
    }
    this.pending = null;
    for (const name of this.aliases()) if (isReservedName(name)) delete this.variables[`BASH_ALIAS_${name}`];
    for (const name of [...this.functions.keys()]) if (isReservedName(name)) this.functions.delete(name);
    this.lastStatus = result.exitCode;
  }

  /**
   * What the session keeps from a line the interpreter stopped at a limit (its variables are not
   * known): its state as before the line, the functions the line defined (bash keeps those, as in
   * `f() { f; }; f`) unless it ran read-only, and the exit status.
   * @param {BashExecResult} result @param {boolean} readOnly
   */
  #keepAfterLimit(result, readOnly) {
    if (!readOnly) {
      for (const change of this.pending?.define ?? []) {
        if (isReservedName(change.name)) continue;
        if (change.op === 'define') this.functions.set(change.name, change.node);
        else this.functions.delete(change.name);
      }
    }
    this.pending = null;
    this.lastStatus = result.exitCode;
  }

  /**
   * What this session's own state would run that a line's words do not show: the session's
   * functions and aliases the line reaches — by the command names given, and from there by the
   * names those definitions call, at any depth (a function calling a function, an alias
   * expanding to a function) — and a trace prompt (PS4) that holds code while `set -x` is on (it
   * runs before every command). A computed command name, or a command that runs others by name
   * (`eval`, `xargs`, `bash`…; RUNS_BY_NAME), may reach any of them: then all are listed. For
   * the approval dialog and the rules (web/tools/shell.js): such a line is neither read-only
   * nor covered.
   * @param {(string | null)[]} names the line's command names (null: computed)
   * @returns {string[]} each in words
   */
  hiddenCode(names) {
    /** @type {string[]} */
    const found = [];
    const aliases = new Set(this.aliases());
    const everything = [...this.functions.keys(), ...aliases];
    /** @type {Set<string>} */
    const seen = new Set();
    let reachesAll = false;
    /** @type {(string | null)[]} */
    const queue = [...names];
    /** The command names a definition calls. @param {AstNode} script */
    const calls = (script) => queue.push(...analyzeScript(script).commands.map((words) => words[0]));
    while (queue.length) {
      const name = /** @type {string | null} */ (queue.shift());
      if (name === null || RUNS_BY_NAME.includes(name)) {
        if (!reachesAll) queue.push(...everything);
        reachesAll = true;
        continue;
      }
      if (seen.has(name)) continue;
      seen.add(name);
      if (aliases.has(name)) {
        const value = this.variables[`BASH_ALIAS_${name}`] ?? '';
        found.push(`${name} is an alias in this session: ${value}`);
        try {
          calls(this.parse(value));
          // An alias ending in a space makes the next word an alias too: any of them.
          if (/\s$/.test(value)) queue.push(null);
        } catch {
          queue.push(null);
        }
      }
      const fn = this.functions.get(name);
      if (fn) {
        found.push(`${name} is a function in this session: ${functionText(name, fn)}`);
        calls(fn);
      }
    }
    const ps4 = this.variables.PS4;
    if (this.setOptions.has('xtrace') && ps4 !== undefined && /[$`]/.test(ps4))
      found.push(`this session traces every command (set -x) with PS4='${ps4}', which is expanded before each command and can run code`);
    return found;
  }

  /** @param {string} line */
  #remember(line) {
    if (this.history[this.history.length - 1] === line) return;
    this.history.push(line);
    if (this.history.length > this.maxHistory) this.history.splice(0, this.history.length - this.maxHistory);
  }

  /**
   * Points the session at another view of the workspace's files (each agent turn has its own),
   * keeping its state; Clawser's folders stay read-only.
   * @param {FileSystem} fs
   */
  useFileSystem(fs) {
    this.fs.fs = new ProtectedFileSystem(fs);
    this.fs.invalidate();
  }

  /** Names of the aliases defined. */
  aliases() {
    return Object.keys(this.variables)
      .filter((k) => k.startsWith('BASH_ALIAS_'))
      .map((k) => k.slice('BASH_ALIAS_'.length));
  }

  /** Every command name the shell knows (built-ins, extras, functions, aliases). */
  commandNames() {
    return [...new Set([...BUILTINS, ...this.registeredCommands(), ...this.functions.keys(), ...this.aliases()])].sort();
  }

  /** The commands the interpreter runs from its registry (just-bash's enabled ones, Clawser's, the extras). */
  registeredCommands() {
    const names = new Set([...getCommandNames(), ...this.ownCommands, ...this.extraCommands]);
    // Not enabled here (no Python, JavaScript or SQLite interpreter; curl only with a fetch).
    for (const n of [...NOT_ENABLED, 'wget', ...(this.hasFetch ? [] : ['curl'])]) if (!this.extraCommands.includes(n)) names.delete(n);
    return [...names];
  }
}

/**
 * A function's definition as text (from its body's statements), for the approval dialog.
 * @param {string} name @param {AstNode} node
 */
function functionText(name, node) {
  const body = /** @type {AstNode | undefined} */ (node.body);
  const statements = /** @type {AstNode[]} */ (Array.isArray(body?.body) ? body.body : []);
  const text = statements.map((st) => String(st.sourceText ?? '…')).join('; ');
  return `${name}() { ${text || '…'}; }`;
}

/** Bash's own built-ins (run by the interpreter, not the command registry). */
export const BUILTINS = [
  'alias',
  'break',
  'cd',
  'continue',
  'declare',
  'echo',
  'eval',
  'exit',
  'export',
  'false',
  'getopts',
  'hash',
  'let',
  'local',
  'printf',
  'pwd',
  'read',
  'readonly',
  'return',
  'set',
  'shift',
  'shopt',
  'source',
  'test',
  'trap',
  'true',
  'type',
  'unalias',
  'unset',
  'wait',
  '[',
  '[[',
];

/**
 * `rm` that says so when an argument is the workspace root or inside one of Clawser's own
 * folders, or when the shell's bound refuses deleting (just-bash's `rm -f` would hide the
 * refusal and exit 0), then removes the rest.
 * @param {() => string | null} deleteRefused why this shell may not delete (a skill script's bound), or null
 * @returns {Command}
 */
function protectedRm(deleteRefused) {
  return defineCommand('rm', async (args, ctx) => {
    let stderr = '';
    /** @type {string[]} */
    const keep = [];
    let options = true;
    for (const arg of args) {
      if (options && arg === '--') options = false;
      else if (!(options && arg.startsWith('-') && arg !== '-')) {
        const refused = deleteRefused();
        if (refused) {
          stderr += `rm: cannot remove '${arg}': Permission denied (${refused})\n`;
          continue;
        }
        const path = toStoragePath(resolveShellPath(ctx.cwd, arg));
        const folder = path ? protectedFolderOf(path) : '/';
        if (folder) {
          stderr +=
            folder === '/'
              ? `rm: refusing to remove '${arg}': it is the whole workspace\n`
              : `rm: cannot remove '${arg}': Permission denied (${folder}/ is one of Clawser's own folders: only Clawser changes it)\n`;
          continue;
        }
      }
      keep.push(arg);
    }
    if (!stderr) return /** @type {NonNullable<typeof ctx.origCommand>} */ (ctx.origCommand)(args);
    const hasOperand = keep.some((a, i) => !a.startsWith('-') || keep.slice(0, i).includes('--'));
    const rest = hasOperand && ctx.origCommand ? await ctx.origCommand(keep) : { stdout: '', stderr: '', exitCode: 0 };
    return { stdout: rest.stdout, stderr: stderr + rest.stderr, exitCode: 1 };
  });
}

/**
 * `xargs` accepting its options glued to their value (`-n1`, `-L2`, `-P4`) like GNU's, which
 * just-bash's own parser refuses; the command after the options is left as written.
 * @returns {Command}
 */
function xargsOptions() {
  return defineCommand('xargs', async (args, ctx) => {
    /** @type {string[]} */
    const out = [];
    let i = 0;
    for (; i < args.length && args[i].startsWith('-'); i++) {
      const glued = args[i].match(/^-([nLPsdI])(.+)$/);
      if (glued) out.push(`-${glued[1]}`, glued[2]);
      else out.push(args[i]);
      if (/^-[nLPsdIaE]$/.test(args[i])) out.push(args[++i] ?? '');
    }
    return /** @type {NonNullable<typeof ctx.origCommand>} */ (ctx.origCommand)([...out, ...args.slice(i)]);
  });
}

/** @param {string} message @param {number} line @param {number} column */
function syntaxMessage(message, line, column) {
  const text = message.replace(/^Parse error at \d+:\d+: /, '').replace(/^line \d+: /, '');
  return `syntax error at line ${line}, column ${column}: ${text}`;
}

/** A macrotask (MessageChannel is not clamped like setTimeout). */
function nextTask() {
  return new Promise((resolve) => {
    if (typeof MessageChannel === 'undefined') {
      setTimeout(resolve, 0);
      return;
    }
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve(undefined);
    };
    channel.port2.postMessage(null);
  });
}

/** @param {number} ms @param {AbortSignal} [signal] */
function abortableSleep(ms, signal) {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(undefined);
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve(undefined);
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * A bash session over a workspace's files.
 * @param {ShellOptions} options
 * @returns {Shell}
 */
export function createShell(options) {
  return new Shell(options);
}
