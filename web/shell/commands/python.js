/** @import { Command } from 'just-bash' */
// `python -c CODE` and `python FILE.py` in the Terminal: Python without the agent. The command runs
// nothing itself: it is a call of the run_python tool (`callTool`), so the code runs where the
// agent's does — andbox's Pyodide in the opaque-origin sandbox, the workspace's files in its
// current folder (/workspace), read-only unless `--write` is given, the sandbox's time and memory
// limits, Ctrl-C (the line's signal) stops it — and a `--write` run's files are saved back through
// fs_write / fs_delete like the tool's. Only the Terminal's sessions have it (the user at the
// keyboard): the agent runs Python through run_python and its approval.
import { defineCommand } from 'just-bash';
import { resolveShellPath } from '../bash-fs.js';

export const PYTHON_USAGE = `usage: python [--write] -c CODE
       python [--write] FILE.py
Runs Python 3 (Pyodide) in Clawser's sandbox: no network, the standard library only. The
workspace's files are in Python's current folder (/workspace, the workspace's top folder),
read-only; with --write, the files the code creates, changes or removes there are saved back.
`;

/**
 * @param {{callTool: (name: string, args: Record<string, unknown>, signal?: AbortSignal) => Promise<{ok: boolean, output: string}>}}
 *   host the Terminal's tool call (the same one `clawser` uses)
 * @returns {Command[]} `python` and `python3`
 */
export function pythonCommands(host) {
  /** @param {string} name */
  const command = (name) =>
    defineCommand(name, async (args, ctx) => {
      let write = false;
      /** @type {string | null} */
      let code = null;
      const rest = [...args];
      while (rest.length) {
        const arg = /** @type {string} */ (rest.shift());
        if (arg === '--write') write = true;
        else if (arg === '-h' || arg === '--help') return { stdout: PYTHON_USAGE, stderr: '', exitCode: 0 };
        else if (arg === '-c') {
          if (!rest.length) return usage(name, 'Argument expected for the -c option');
          code = /** @type {string} */ (rest.shift());
          break;
        } else if (arg.startsWith('-')) return usage(name, `unknown option ${arg}`);
        else {
          const path = resolveShellPath(ctx.cwd, arg);
          try {
            code = await ctx.fs.readFile(path);
          } catch {
            return { stdout: '', stderr: `${name}: can't open file '${arg}': No such file or directory\n`, exitCode: 2 };
          }
          break;
        }
      }
      if (code === null) return usage(name, 'give -c CODE or a file (there is no interactive Python here)');
      if (!code.trim()) return { stdout: '', stderr: '', exitCode: 0 };
      const r = await host.callTool('run_python', { code, ...(write ? { write: true } : {}) }, ctx.signal);
      const text = r.output === '(no output)' ? '' : `${r.output}\n`;
      return r.ok ? { stdout: text, stderr: '', exitCode: 0 } : { stdout: '', stderr: text, exitCode: 1 };
    });
  return [command('python'), command('python3')];
}

/** @param {string} name @param {string} why */
const usage = (name, why) => ({ stdout: '', stderr: `${name}: ${why}\n${PYTHON_USAGE}`, exitCode: 2 });
