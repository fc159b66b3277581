/** @import { FileSystem } from '../storage/types.d.ts' */
/** @import { ConfigStore } from '../storage/types.d.ts' */
/** @import { Shell } from '../shell/shell.js' */
/** @import { CompletionSource } from '../shell/completion.js' */
/** @import { ToolContext } from '../tools/types.d.ts' */
/** @import { BrowserToolRegistry } from '../tools/registry.js' */
import { createShell } from '../shell/shell.js';
import { gitCommand } from '../shell/commands/git.js';
import { clawserCommand } from '../shell/commands/clawser.js';
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
 */

/**
 * A workspace's terminal sessions: shells over its files with `git`, `clawser` and `curl`, kept
 * while the page lives (switching panels does not lose a session), and one history shared by
 * the workspace's sessions and kept across reloads.
 *
 * The person at the terminal is the user, not the agent: `clawser` runs its tools directly (no
 * approval dialog for one's own command), while the rules that protect the workspace still hold
 * (Clawser's folders stay read-only, curl follows web_fetch's address rules and allowlist).
 */
export class TerminalHost {
  /** @param {TerminalHostDeps} deps */
  constructor(deps) {
    this.deps = deps;
    /** @type {{id: number, shell: Shell}[]} */
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

  /** A new session (its own working directory and variables). */
  newSession() {
    const deps = this.deps;
    /** @type {ToolContext | null} */
    let context = null;
    const toolContext = async () => (context ??= await deps.toolContext());
    const shell = createShell({
      fs: deps.fs,
      // Encrypted secrets stay out of reach even for the user's shell; the rest is theirs to read.
      unreadable: SECRET_FOLDERS,
      history: this.history(),
      commands: [
        gitCommand(deps.git),
        clawserCommand({
          callTool: async (name, args, signal) => {
            const tool = deps.registry.get(name);
            if (!tool) return { ok: false, output: `There is no tool named "${name}".` };
            const checked = deps.registry.validate(name, args);
            if (!checked.ok) return { ok: false, output: checked.error };
            try {
              const r = await tool.run(checked.value, { ...(await toolContext()), signal });
              return { ok: r.ok, output: r.output };
            } catch (err) {
              return { ok: false, output: `${name} failed: ${/** @type {Error} */ (err)?.message ?? String(err)}` };
            }
          },
          tools: () =>
            deps.registry
              .list()
              .map((t) => ({ name: t.name, permission: t.permission, description: t.description, policy: deps.registry.policyOf(t.name) })),
          list: deps.list,
          setConfig: deps.setConfig,
          act: deps.act,
        }),
      ],
      fetch: async (url, init) => {
        const ctx = await toolContext();
        return ruleFetch({ fetch: ctx.fetch, settings: ctx.settings })(url, init);
      },
    });
    const session = { id: this.nextId++, shell };
    this.sessions.push(session);
    return session;
  }

  /** @param {number} id */
  closeSession(id) {
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
