/** @import { FileSystem } from '../storage/types.d.ts' */
/** @import { ConfigStore } from '../storage/types.d.ts' */
/** @import { Shell } from '../shell/shell.js' */
/** @import { CompletionSource } from '../shell/completion.js' */
/** @import { ToolContext } from '../tools/types.d.ts' */
/** @import { BrowserToolRegistry } from '../tools/registry.js' */
import { createShell } from '../shell/shell.js';
import { gitCommand } from '../shell/commands/git.js';
import { clawserCommand } from '../shell/commands/clawser.js';
import { wshCommand } from '../shell/commands/wsh.js';
import { pythonCommands } from '../shell/commands/python.js';
import { PythonSandboxes } from './python-sandboxes.js';
import { ruleFetch } from '../tools/web.js';
import { SECRET_FOLDERS } from '../storage/workspace-folders.js';
import { z } from 'zod';

/** Lines of history kept per workspace. */
export const HISTORY_LIMIT = 1000;
const HistorySchema = z.array(z.string().max(20_000)).max(HISTORY_LIMIT);

/**
 * What the Terminal panel needs of the app for one workspace.
 * @typedef {object} TerminalHostDeps
 * @property {string} workspaceId
 * @property {FileSystem} fs the workspace's files (the shell makes Clawser's own folders read-only)
 * @property {ConfigStore} config where the history is kept
 * @property {BrowserToolRegistry} registry
 * @property {() => Promise<import('../git/git.js').WorkspaceGit>} git
 * @property {() => Promise<ToolContext>} toolContext what the `clawser` command's tools get
 * @property {(topic: 'memory' | 'skills' | 'mcp' | 'config' | 'conversations') => Promise<string>} list
 * @property {(key: string, value: string) => Promise<string>} setConfig
 * @property {(area: string, action: string, args: string[]) => Promise<string>} act the user's own actions (see clawserCommand)
 * @property {() => Promise<import('../stores/remote-machines.js').RemoteMachines>} [remote] the user's machines (`wsh connect`)
 */

/**
 * A shell on one of the user's machines, open in a terminal session (`wsh connect NAME`): what the
 * Terminal panel needs of it (its RemoteSession).
 * @typedef {import('../ui/terminal-panel.js').RemoteSession} RemoteSession
 */

/**
 * A session of the Terminal: its shell, and the remote shell `wsh connect` opened in it (the
 * Terminal panel attaches to it once the command returns, and clears it when it ends).
 * @typedef {{id: number, shell: Shell, remote: RemoteSession | null}} TerminalSession
 */

/**
 * A workspace's terminal sessions: shells over its files with `git`, `clawser`, `python` and `curl`, kept
 * while the page lives (switching panels does not lose a session), and one history shared by
 * the workspace's sessions and kept across reloads.
 *
 * The person at the terminal is the user, not the agent: `clawser` runs its tools directly (no
 * approval dialog for one's own command), while the rules that protect the workspace still hold
 * (Clawser's folders stay read-only, curl follows web_fetch's address rules and allowlist).
 */
export class TerminalHost {
  /** The sessions' Python sandboxes (`python`); only the most recent stays loaded. */
  #pythons = new PythonSandboxes();

  /** @param {TerminalHostDeps} deps */
  constructor(deps) {
    this.deps = deps;
    /** @type {TerminalSession[]} */
    this.sessions = [];
    this.nextId = 1;
  }

  get #historyKey() {
    return `clawser_shell_history_${this.deps.workspaceId}`;
  }

  /** @returns {string[]} oldest first */
  history() {
    const parsed = HistorySchema.safeParse(this.deps.config.get(this.#historyKey, []));
    return parsed.success ? parsed.data : [];
  }

  /** Adds a command to the workspace's history (kept across reloads). @param {string} line */
  remember(line) {
    if (!line.trim()) return;
    const history = this.history();
    if (history[history.length - 1] === line) return;
    history.push(line);
    this.deps.config.set(this.#historyKey, history.slice(-HISTORY_LIMIT));
  }

  clearHistory() {
    this.deps.config.set(this.#historyKey, []);
  }

  /** A new session (its own working directory and variables). @returns {TerminalSession} */
  newSession() {
    const deps = this.deps;
    /** @type {ToolContext | null} */
    let context = null;
    const id = this.nextId++;
    /** The user's own tool call: no approval dialog, the tool's own checks. @type {NonNullable<ToolContext['callTool']>} */
    const callTool = async (name, args, signal) => {
      const tool = deps.registry.get(name);
      if (!tool) return { ok: false, output: `There is no tool named "${name}".` };
      const checked = deps.registry.validate(name, args);
      if (!checked.ok) return { ok: false, output: checked.error };
      try {
        const r = await tool.run(checked.value, { ...(await toolContext()), ...(signal ? { signal } : {}) });
        return { ok: r.ok, output: r.output };
      } catch (err) {
        return { ok: false, output: `${name} failed: ${/** @type {Error} */ (err)?.message ?? String(err)}` };
      }
    };
    // run_python (the `python` command) runs in the session's own Python sandbox, and saves a
    // `--write` run's files through this same call (fs_write / fs_delete).
    const toolContext = async () =>
      (context ??= {
        ...(await deps.toolContext()),
        callTool,
        runPython: async (code, o) => (await this.#pythons.for(`terminal-${id}`, o.signal)).run(code, o),
      });
    const shell = createShell({
      fs: deps.fs,
      // Encrypted secrets stay out of reach even for the user's shell; the rest is theirs to read.
      unreadable: SECRET_FOLDERS,
      history: this.history(),
      commands: [
        gitCommand(deps.git),
        clawserCommand({
          callTool,
          tools: () =>
            deps.registry
              .list()
              .map((t) => ({ name: t.name, permission: t.permission, description: t.description, policy: deps.registry.policyOf(t.name) })),
          list: deps.list,
          setConfig: deps.setConfig,
          act: deps.act,
        }),
        ...pythonCommands({ callTool }),
        wshCommand({
          list: async () => (await this.#machines()).list().map((m) => m.name),
          connect: (name) => this.#connect(session, name),
        }),
      ],
      fetch: async (url, init) => {
        const ctx = await toolContext();
        return ruleFetch({ fetch: ctx.fetch, settings: ctx.settings })(url, init);
      },
    });
    /** @type {TerminalSession} */
    const session = { id, shell, remote: null };
    this.sessions.push(session);
    return session;
  }

  async #machines() {
    if (!this.deps.remote) throw new Error('Remote machines are not available here.');
    return this.deps.remote();
  }

  /**
   * Opens the login shell of a machine in a session (a PTY when the server has node-pty, pipes
   * otherwise); the panel attaches to it once `wsh connect` returns.
   * @param {TerminalSession} session @param {string} name @returns {Promise<string>} what the command says
   */
  async #connect(session, name) {
    if (session.remote) throw new Error(`This session is already connected to ${session.remote.name}.`);
    const client = await (await this.#machines()).client(name);
    const proc = await client.spawn(undefined, { pty: { cols: 80, rows: 24 } });
    /** @type {Set<(text: string) => void>} */
    const notices = new Set();
    /** @param {Event} e */
    const onStatus = (e) => {
      const status = /** @type {Event & {status: string}} */ (e).status;
      const text =
        status === 'reconnecting'
          ? `The connection to ${name} dropped: reconnecting…`
          : status === 'open'
            ? `Reconnected to ${name}.`
            : status === 'closed'
              ? `The connection to ${name} is closed.`
              : null;
      if (text) for (const fn of notices) fn(text);
    };
    client.addEventListener('status', onStatus);
    session.remote = {
      name,
      mode: proc.mode,
      output: proc,
      exited: proc.exited,
      write: (data) => proc.write(data),
      end: () => proc.end(),
      resize: (cols, rows) => proc.resize(cols, rows),
      // On a PTY, Ctrl-C is a key the remote terminal turns into SIGINT for what runs in front; on pipes there is no
      // terminal, so the signal goes to the process group (the shell with it).
      interrupt: () => (proc.mode === 'pty' ? proc.write('\x03') : proc.kill('SIGINT')),
      close: () => {
        client.removeEventListener('status', onStatus);
        void proc.close();
        session.remote = null;
      },
      onNotice: (fn) => {
        notices.add(fn);
        return () => notices.delete(fn);
      },
    };
    return proc.mode === 'pty'
      ? `Connected to ${name}: a shell on a real terminal. It ends when the shell exits (exit, or Ctrl-D).`
      : `Connected to ${name}: a shell on pipes (the server has no node-pty: no prompt, no full-screen programs; Ctrl-C ends the ` +
          `session). It ends when the shell exits (exit, or Ctrl-D).`;
  }

  /** @param {number} id */
  closeSession(id) {
    this.sessions.find((s) => s.id === id)?.remote?.close();
    this.sessions = this.sessions.filter((s) => s.id !== id);
  }

  /**
   * What tab completion looks up for a session.
   * @param {Shell} shell @returns {CompletionSource}
   */
  completionSource(shell) {
    return {
      get cwd() {
        return shell.cwd;
      },
      commands: () => shell.commandNames(),
      variables: () => Object.keys(shell.variables).filter((k) => !k.startsWith('BASH_ALIAS_')),
      list: async (dir) => (await shell.fs.readdirWithFileTypes(dir)).map((e) => ({ name: e.name, directory: e.isDirectory })),
      branches: async () => (await (await this.deps.git()).branches()).branches,
    };
  }
}
