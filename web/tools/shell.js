/** @import { ToolDefinition, ToolContext, ToolFamily } from './types.d.ts' */
/** @import { Shell } from '../shell/shell.js' */
import { z } from 'zod';
import { PROTECTED_FOLDERS } from '../storage/workspace-folders.js';
import { ruleFetch } from './web.js';

/** What the model sees of stdout and of stderr at most (each). */
export const SHELL_OUTPUT_CAP = 20_000;
/** A line the agent runs stops after this long. */
export const SHELL_TIMEOUT_MS = 120_000;

/**
 * What a session's commands reach: the latest call's context (each turn has its own gates, and
 * the session's commands use the current ones), the URLs curl fetched, and per line whether the
 * workspace is outside content (`origin`: undefined until asked) and whether that line's reads
 * have tainted the turn yet.
 * @typedef {{ctx: ToolContext, fetched: string[], origin?: string | null, tainted?: boolean}} Live
 */
/**
 * One session per conversation (cwd, variables, functions).
 * @typedef {{shell: Shell, used: number, fs: ToolContext['fs'], live: Live}} Session
 */
const MAX_SESSIONS = 20;

/** The shell sessions of one shell tool (one per registry: a workspace's), the least recently used dropped past MAX_SESSIONS. */
class ShellSessions {
  /** @type {Map<string, Session>} */
  #sessions = new Map();
  /** A parser of its own for checks (no session state). @type {Shell | null} */
  #checker = null;

  /** A conversation's session; a bounded call (a skill script's) gets one of its own per bound. @param {ToolContext} ctx */
  #key = (ctx) => `${ctx.workspaceId}:${ctx.conversationId ?? ''}${ctx.only ? `:only=${[...ctx.only].sort().join(',')}` : ''}`;

  /** The conversation's session, if it has one. @param {ToolContext} ctx */
  peek(ctx) {
    return this.#sessions.get(this.#key(ctx));
  }

  /** @param {ToolContext} ctx @returns {Promise<Session>} */
  async for(ctx) {
    const key = this.#key(ctx);
    let entry = this.#sessions.get(key);
    if (entry && entry.fs !== ctx.fs) {
      // A new turn brings its own view of the same workspace: the session (cwd, variables) goes on.
      entry.shell.useFileSystem(ctx.fs);
      entry.fs = ctx.fs;
    }
    if (!entry) {
      /** @type {Live} */
      const session = { ctx, fetched: [] };
      const shell = await agentShell(session);
      entry = { shell, used: 0, fs: ctx.fs, live: session };
      this.#sessions.set(key, entry);
      if (this.#sessions.size > MAX_SESSIONS) {
        const oldest = [...this.#sessions.entries()].sort((a, b) => a[1].used - b[1].used)[0][0];
        this.#sessions.delete(oldest);
      }
    }
    entry.used = Date.now();
    entry.live.ctx = ctx;
    return entry;
  }

  /**
   * The read-only verdict of a line in its conversation's session. What the session's own state
   * runs that the line does not show — a command name the session made a function or an alias,
   * a trace prompt with code — makes the line neither read-only nor covered by a rule, and
   * `hidden` says what it is, for the approval dialog.
   * @param {string} command @param {ToolContext} [ctx]
   * @returns {(ReturnType<typeof import('../shell/read-only.js').readOnlyVerdict> & {hidden?: string[]}) | null}
   */
  analyse(command, ctx) {
    if (!loaded) return null;
    const [{ createShell }, { readOnlyVerdict }] = loaded;
    this.#checker ??= createShell({ fs: /** @type {any} */ (null) /* any: the checker only parses, it never touches files */ });
    try {
      const verdict = readOnlyVerdict(this.#checker.parse(command));
      const session = ctx ? this.peek(ctx)?.shell : undefined;
      if (!session) return verdict;
      // Every definition of the session the line reaches, at any depth (a computed name, or a
      // command that runs others by name — `xargs ls`, `bash -c`, `eval` — may reach them all).
      const hidden = session.hiddenCode(verdict.commands.map((c) => (c.startsWith('…') ? null : c.split(' ')[0])));
      if (!hidden.length) return verdict;
      return { ...verdict, readOnly: false, coverable: false, reason: verdict.reason ?? hidden[0], hidden };
    } catch {
      return null;
    }
  }
}

// The interpreter (just-bash) is large: loaded with the first shell call. The `clawser` command
// knows every tool family (web/tools/families.js, which lists this one): it is only ever loaded
// here lazily, after the families are.
const shellModules = () =>
  Promise.all([
    import('../shell/shell.js'),
    import('../shell/read-only.js'),
    import('../shell/commands/git.js'),
    import('../shell/commands/clawser.js'),
  ]);
/** @type {Awaited<ReturnType<typeof shellModules>> | null} */
let loaded = null;

/** Loads the shell's modules once; permission and scope checks need the parser. */
export async function loadShell() {
  loaded ??= await shellModules();
  return loaded;
}

/**
 * @param {string} text @param {string} name
 */
function capped(text, name) {
  if (text.length <= SHELL_OUTPUT_CAP) return text;
  return (
    `${text.slice(0, SHELL_OUTPUT_CAP)}\n…[${name} cut at ${SHELL_OUTPUT_CAP} of ${text.length} characters; redirect it to a file ` +
    `and read parts with head, tail or grep]`
  );
}

/**
 * Taints the turn the moment outside content enters the line (ToolContext.taint): a file of a
 * cloned repository or an opened folder read or listed by the shell (`path`), or the
 * repository's history read by `git` (no path). Asks contentOrigin once per line for the
 * workspace, then per file until the first taint.
 * @param {Live} session @param {string} [path]
 */
async function taintWorkspaceContent(session, path) {
  const ctx = session.ctx;
  if (session.tainted || !ctx.taint || !ctx.contentOrigin) return;
  if (session.origin === undefined) session.origin = await ctx.contentOrigin();
  if (!session.origin) return;
  const what = path === undefined ? session.origin : await ctx.contentOrigin(path);
  if (!what) return;
  session.tainted = true;
  ctx.taint(what, path || undefined);
}

/** A new line starts: what the last one learned about the workspace's origin is asked again. @param {Live} session */
function newLine(session) {
  session.origin = undefined;
  session.tainted = false;
}

/** The tools that allow each kind of file access (any one of them), for a bounded shell. */
const FILE_ACCESS = /** @type {const} */ ({
  read: ['fs_read'],
  list: ['fs_read', 'fs_list'],
  stat: ['fs_read', 'fs_list'],
  write: ['fs_write'],
  delete: ['fs_delete'],
});

/**
 * The git tool a subcommand of the shell's `git` amounts to.
 * @param {string} sub @param {string[]} args
 */
function gitToolOf(sub, args) {
  if (sub === 'status') return 'git_status';
  if (sub === 'log') return 'git_log';
  if (sub === 'diff') return 'git_diff';
  if (sub === 'add' || sub === 'commit') return 'git_commit';
  if (sub === 'branch') return args.some((a) => !a.startsWith('-') || a === '-d' || a === '-D') ? 'git_branch' : 'git_status';
  return 'git_checkout';
}

/**
 * Why a shell bounded by `only` (a skill script's allowed-tools, without `shell`) may not do
 * what needs one of `tools`, or null.
 * @param {string[]} only @param {readonly string[]} tools
 */
function outOfBounds(only, tools) {
  if (tools.some((t) => only.includes(t))) return null;
  const allowed = only.join(', ') || 'none';
  return tools.length === 1
    ? `${tools[0]} is not among the tools this script may use (${allowed})`
    : `neither ${tools.join(' nor ')} is among the tools this script may use (${allowed})`;
}

/**
 * The agent's shell over the workspace: Clawser's folders neither written nor read, `git` on
 * the workspace's repository, `clawser` and `curl` through the gates of `live.ctx` (the latest
 * call's), `only` limiting the tools `clawser` may call (a skill's allowed-tools). Outside
 * content taints the turn as it comes in: a page curl fetched, a file of a cloned repository.
 * A shell bounded by `only` that does not include `shell` (a skill's shell script) is bounded
 * in its files and `git` too: reading needs fs_read (listing fs_list), writing fs_write,
 * deleting fs_delete, each git subcommand its git tool (git_commit for add and commit…).
 * @param {Live} session @param {{only?: string[], env?: Record<string, string>}} [options]
 */
async function agentShell(session, options = {}) {
  const [{ createShell }, , { gitCommand }, { clawserCommand, clawserCli, listStore }] = await loadShell();
  const ctx = session.ctx;
  const bound = options.only && !options.only.includes('shell') ? options.only : null;
  /** @type {import('../shell/shell.js').Shell | null} */
  let shell = null;
  const fetch = ruleFetch({
    fetch: (...a) => session.ctx.fetch(...a),
    get settings() {
      return session.ctx.settings;
    },
    // curl is a web_fetch of its URL: the same gates (network permission, policy, approval, allowlist).
    authorize: async (url) =>
      session.ctx.authorizeTool
        ? session.ctx.authorizeTool('web_fetch', { url }, session.ctx.signal, options.only ? { only: options.only } : undefined)
        : 'curl is not available here.',
  });
  shell = createShell({
    fs: ctx.fs,
    unreadable: PROTECTED_FOLDERS,
    limits: { timeoutMs: SHELL_TIMEOUT_MS },
    ...(options.env ? { env: options.env } : {}),
    onRead: (path) => taintWorkspaceContent(session, path),
    ...(bound ? { permit: (/** @type {keyof typeof FILE_ACCESS} */ access) => outOfBounds(bound, FILE_ACCESS[access]) } : {}),
    commands: [
      gitCommand(
        async () => {
          // A cloned repository's history (log, diff) is outside content too.
          await taintWorkspaceContent(session);
          return session.ctx.git ?? new (await import('../git/git.js')).WorkspaceGit(session.ctx.fs);
        },
        { mayWrite: () => !shell?.readOnlyRun, ...(bound ? { permit: (sub, args) => outOfBounds(bound, [gitToolOf(sub, args)]) } : {}) },
      ),
      clawserCommand({
        callTool: (name, args, signal) => {
          if (options.only && !options.only.includes(name))
            return Promise.resolve({
              ok: false,
              output:
                `${name} is not among the tools this script may use ` +
                `(${options.only.filter((n) => !n.includes(':')).join(', ') || 'none'}).`,
            });
          if (clawserCli().runsCode.includes(name))
            return Promise.resolve({ ok: false, output: `${name} cannot be called from inside the shell.` });
          // A read-only line may only read, whatever its hidden parts try: it calls only the tools
          // that declare it (permission "read" and readOnly).
          if (shell?.readOnlyRun && !clawserCli().readOnlyTools.includes(name)) {
            return Promise.resolve({ ok: false, output: `${name} may change something, and this line was run as read-only.` });
          }
          // The bound goes with the call: the runner holds it whatever the tool reaches in turn.
          return session.ctx.callTool
            ? session.ctx.callTool(name, args, signal, options.only ? { only: options.only } : undefined)
            : Promise.resolve({ ok: false, output: 'Tools cannot be called from here.' });
        },
        tools: () =>
          (session.ctx.toolNames ?? [])
            .filter((name) => !options.only || options.only.includes(name))
            .map((name) => ({ name, permission: '', description: '' })),
        list: async (topic) => {
          // A listing is a read of that store: only for an agent (or script) that has the reading tool.
          // (MCP servers' names and states are not a store's content: not gated.)
          const reader = topic === 'memory' ? 'memory_recall' : topic === 'skills' ? 'skill_activate' : null;
          const names = session.ctx.toolNames;
          if (reader && ((names && !names.includes(reader)) || (options.only && !options.only.includes(reader))))
            throw new Error(`the agent cannot list ${topic}: ${reader} is not among its tools`);
          const listed = topic === 'memory' || topic === 'skills' || topic === 'mcp' ? await listStore(topic, session.ctx) : null;
          if (listed === null) throw new Error(`the agent cannot list ${topic} from the shell`);
          return listed;
        },
      }),
    ],
    fetch: async (url, init) => {
      // A skill script's own shell, the shell tool called by a script (its context's toolNames are
      // bounded) or an agent without web_fetch: no network.
      const names = session.ctx.toolNames;
      if ((options.only && !options.only.includes('web_fetch')) || (names && !names.includes('web_fetch')))
        throw new Error(
          `curl: web_fetch is not among the tools ${options.only || session.ctx.only ? 'this script may use' : 'this agent has'}, so ` +
            `this shell has no network`,
        );
      if (shell?.readOnlyRun) throw new Error('curl: this line was run as read-only');
      // The agent's curl fetches like web_fetch does (GET or HEAD, no body): nothing more.
      const method = (init?.method ?? 'GET').toUpperCase();
      if ((method !== 'GET' && method !== 'HEAD') || init?.body)
        throw new Error(`curl: the agent's shell only fetches (GET or HEAD, without a body); ${method} is for you to run in the Terminal`);
      session.fetched.push(url);
      const response = await fetch(url, init);
      // The page is in: every later command of this line, and every later call, sees the taint.
      session.ctx.taint?.(`a web page fetched by curl (${url})`);
      return response;
    },
  });
  return shell;
}

/**
 * What the model is told of a run: the exit code, then stdout and stderr, each capped.
 * @param {{stdout: string, stderr: string, exitCode: number}} result
 */
function formatResult(result) {
  return [
    `exit code: ${result.exitCode}`,
    `stdout:\n${capped(result.stdout, 'stdout') || '(empty)'}`,
    result.stderr ? `stderr:\n${capped(result.stderr, 'stderr')}` : '',
  ]
    .filter(Boolean)
    .join('\n');
}

/**
 * Runs a skill's shell script in a shell of its own (not the conversation's session): `ARGS`
 * holds the arguments as JSON, and each argument whose name is a word is also a variable.
 * @param {string} source @param {{args?: Record<string, unknown>, only?: string[]}} options @param {ToolContext} ctx
 */
export async function runShellScript(source, options, ctx) {
  /** @type {Record<string, string>} */
  const env = { ARGS: JSON.stringify(options.args ?? {}) };
  for (const [k, v] of Object.entries(options.args ?? {}))
    if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) && v !== null && typeof v !== 'object') env[k] = String(v);
  /** @type {Live} */
  const session = { ctx, fetched: [] };
  const shell = await agentShell(session, { only: options.only, env });
  const result = await shell.run(source, { signal: ctx.signal, timeoutMs: SHELL_TIMEOUT_MS, addToHistory: false });
  return {
    ok: result.exitCode === 0,
    output: formatResult(result),
  };
}

/**
 * The shell tool, with sessions of its own: each registry (a workspace's) makes one, so no
 * session outlives or crosses the registry that ran it.
 * @returns {ToolDefinition}
 */
export function createShellTool() {
  const sessions = new ShellSessions();
  return {
    name: 'shell',
    description:
      'Run a bash command line over the workspace files (a virtual bash: pipes, redirects, &&, loops, functions; ~80 ' +
      'commands such as ls, cat, grep -r, find, sed, awk, sort, jq, diff, tar, plus `git` and `clawser`). ' +
      'The workspace is `/`. The session keeps the working directory, variables and functions between calls in this conversation. ' +
      `Returns the exit code, stdout and stderr (each cut at ${SHELL_OUTPUT_CAP} characters). Read-only lines (ls, cat, grep, wc, git ` +
      `status…) run like read tools; others need approval. A word that expands where an option could stand keeps a line from being ` +
      `read-only: write \`cat -- "$f"\`, \`wc -l ./*.md\`, \`printf '%s\\n' "$x"\`.`,
    permission: 'write',
    runsCode: 'bash',
    schema: z.object({
      command: z.string().min(1).max(20_000).describe('The bash command line (several lines allowed)'),
      stdin: z.string().max(1_000_000).optional().describe('Text given to the command on standard input'),
    }),
    ready: () => loadShell().then(() => undefined),
    permissionFor: ({ command }, ctx) => (sessions.analyse(command, ctx)?.readOnly ? 'read' : 'write'),
    scopeTargets: ({ command }, ctx) => {
      const verdict = sessions.analyse(command, ctx);
      // Never covered by a rule: a line that writes through a redirection, hides code, defines a
      // function, computes a command name or runs another interpreter (bash, xargs, awk, find…).
      if (!verdict || !verdict.coverable) return null;
      return { kind: 'command', targets: verdict.commands };
    },
    preview: ({ command }, ctx) => {
      const verdict = sessions.analyse(command, ctx);
      if (!verdict) return 'The line could not be parsed; it will fail with a syntax error.';
      // Relative paths mean something else away from the workspace's root: say where it runs.
      const cwd = ctx ? sessions.peek(ctx)?.shell.cwd : undefined;
      const where = cwd && cwd !== '/' ? `Runs in ${cwd} (the session's current directory).\n` : '';
      if (verdict.readOnly) return `${where}Only reads (every command is on the read-only list).`;
      // What the session runs besides the line's own words (its functions, aliases, trace prompt), in full.
      const more = (verdict.hidden ?? []).filter((h) => h !== verdict.reason);
      const hidden = more.length ? `\nThe session also runs: ${more.join('; ')}` : '';
      return `${where}Changes something: ${verdict.reason}. Commands: ${verdict.commands.join(' · ')}${hidden}`;
    },
    async run({ command, stdin }, /** @type {ToolContext} */ ctx) {
      const session = await sessions.for(ctx);
      const before = session.live.fetched.length;
      newLine(session.live);
      // A line judged read-only runs with every change refused: what the check missed writes nothing.
      const readOnly = !!sessions.analyse(command, ctx)?.readOnly;
      const result = await session.shell.run(command, {
        signal: ctx.signal,
        ...(stdin !== undefined ? { stdin } : {}),
        timeoutMs: SHELL_TIMEOUT_MS,
        readOnly,
      });
      const output = formatResult(result);
      // What came in from outside: fetched pages, or the files of a cloned repository / opened folder.
      const fetched = session.live.fetched.slice(before);
      const origin = fetched.length ? `a web page fetched by curl (${fetched[0]})` : await ctx.contentOrigin?.();
      return { ok: result.exitCode === 0, output, ...(origin ? { untrusted: origin } : {}) };
    },
  };
}

/** The shell: one tool, made per registry (its sessions belong to the registry that runs them). @type {ToolFamily} */
export const family = { id: 'shell', create: () => [createShellTool()] };
