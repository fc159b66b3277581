/** @import { Command } from 'just-bash' */
// `wsh connect NAME` in the Terminal: a shell on one of the user's machines (the Remote panel
// adds them). The command connects and starts the remote shell; the Terminal then hands the keys
// and the screen to it until it ends. Only the Terminal's sessions have this command (the user at
// the keyboard): the agent's shell does not, so remote work by the agent goes through remote_exec
// and its approval.
import { defineCommand } from 'just-bash';

export const WSH_USAGE = `usage: wsh connect <machine>   a shell on one of your machines (added in the Remote panel)
       wsh list                the machines
`;

/**
 * @param {{connect: (name: string) => Promise<string>, list: () => Promise<string[]>}} deps
 *   connect: opens the remote shell and says how (its words end the command's output); list: the machines' names
 * @returns {Command}
 */
export function wshCommand(deps) {
  return defineCommand('wsh', async (args) => {
    const [sub, ...rest] = args;
    if (!sub || sub === 'help' || sub === '--help' || sub === '-h') return { stdout: WSH_USAGE, stderr: '', exitCode: sub ? 0 : 1 };
    try {
      if (sub === 'list' && rest.length === 0) {
        const names = await deps.list();
        return {
          stdout: names.length ? `${names.join('\n')}\n` : 'No machines yet: add one in the Remote panel.\n',
          stderr: '',
          exitCode: 0,
        };
      }
      if (sub === 'connect' && rest.length === 1) return { stdout: `${await deps.connect(rest[0])}\n`, stderr: '', exitCode: 0 };
    } catch (err) {
      return { stdout: '', stderr: `wsh: ${/** @type {Error} */ (err)?.message ?? String(err)}\n`, exitCode: 1 };
    }
    return { stdout: '', stderr: WSH_USAGE, exitCode: 2 };
  });
}
